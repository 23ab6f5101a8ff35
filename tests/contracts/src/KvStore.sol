// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// lightprov-node's `kvstore` workload (YCSB workload A): record `k` lives in the slot
/// keccak256(k as 8 bytes big-endian), where the node's genesis writes the 10 000 records.
contract KvStore {
    function get(uint64 k) external view returns (bytes32 v) {
        assembly {
            mstore(0, shl(192, k))
            v := sload(keccak256(0, 8))
        }
    }

    function put(uint64 k, bytes32 v) external {
        assembly {
            mstore(0, shl(192, k))
            sstore(keccak256(0, 8), v)
        }
    }
}
