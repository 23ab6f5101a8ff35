// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// lightprov-node's `smallbank` workload: customer `c` has `checking` in the slot keccak256(c as
/// 8 bytes big-endian ‖ 0x00) and `savings` in keccak256(c ‖ 0x01), where the node's genesis
/// writes them. The operations are SmallBank's usual six.
contract SmallBank {
    function slot(uint64 c, uint8 kind) private pure returns (bytes32 s) {
        assembly {
            mstore(0, or(shl(192, c), shl(184, kind)))
            s := keccak256(0, 9)
        }
    }

    function load(bytes32 s) private view returns (uint256 v) {
        assembly {
            v := sload(s)
        }
    }

    function store(bytes32 s, uint256 v) private {
        assembly {
            sstore(s, v)
        }
    }

    /// Balance: checking + savings (reads only).
    function balance(uint64 c) external view returns (uint256) {
        return load(slot(c, 0)) + load(slot(c, 1));
    }

    function depositChecking(uint64 c, uint256 amount) external {
        store(slot(c, 0), load(slot(c, 0)) + amount);
    }

    function transactSavings(uint64 c, uint256 amount) external {
        store(slot(c, 1), load(slot(c, 1)) + amount);
    }

    /// Moves all of c's funds into d's checking.
    function amalgamate(uint64 c, uint64 d) external {
        uint256 total = load(slot(c, 0)) + load(slot(c, 1));
        store(slot(c, 0), 0);
        store(slot(c, 1), 0);
        store(slot(d, 0), load(slot(d, 0)) + total);
    }

    /// Debits checking, with a penalty of 1 when the customer's funds do not cover it.
    function writeCheck(uint64 c, uint256 amount) external {
        uint256 have = load(slot(c, 0));
        uint256 debit = have + load(slot(c, 1)) < amount ? amount + 1 : amount;
        store(slot(c, 0), have > debit ? have - debit : 0);
    }

    /// Checking c -> checking d, if funds allow.
    function sendPayment(uint64 c, uint64 d, uint256 amount) external {
        uint256 have = load(slot(c, 0));
        if (c != d && have >= amount) {
            store(slot(c, 0), have - amount);
            store(slot(d, 0), load(slot(d, 0)) + amount);
        }
    }
}
