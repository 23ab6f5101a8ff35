// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// What a verified call must answer as geth does: the block environment (BLOCKHASH, TIMESTAMP,
/// BASEFEE, COINBASE, SELFBALANCE, …), a CREATE2 inside a call, calls to precompiles, a read of
/// many storage slots, and gas burnt until none is left.
contract Probe {
    mapping(uint256 => uint256) public slots;

    struct Env {
        bytes32 parentHash;
        bytes32 olderHash;
        uint256 number;
        uint256 timestamp;
        uint256 basefee;
        address coinbase;
        uint256 selfBalance;
        uint256 prevrandao;
        uint256 gasLimit;
        uint256 chainId;
        uint256 blobBaseFee;
    }

    receive() external payable {}

    /// The block environment; `back` blocks back for the older hash (BLOCKHASH of a block
    /// before the parent needs its header).
    function env(uint256 back) external view returns (Env memory e) {
        e.parentHash = blockhash(block.number - 1);
        e.olderHash = blockhash(block.number - back);
        e.number = block.number;
        e.timestamp = block.timestamp;
        e.basefee = block.basefee;
        e.coinbase = block.coinbase;
        e.selfBalance = address(this).balance;
        e.prevrandao = block.prevrandao;
        e.gasLimit = block.gaslimit;
        e.chainId = block.chainid;
        e.blobBaseFee = block.blobbasefee;
    }

    /// Deploys a Child at a CREATE2 address and calls it.
    function create2(bytes32 salt, uint256 x) external returns (address child, uint256 doubled) {
        Child c = new Child{salt: salt}();
        return (address(c), c.double(x));
    }

    /// Stores i + 1 in each slot i from `from` to `to` - 1.
    function fill(uint256 from, uint256 to) external {
        for (uint256 i = from; i < to; i++) slots[i] = i + 1;
    }

    /// The sum of slots 0..n-1: a read of n storage slots.
    function sum(uint256 n) external view returns (uint256 s) {
        for (uint256 i = 0; i < n; i++) s += slots[i];
    }

    /// Counts until the gas runs out.
    function burn() external pure returns (uint256 i) {
        while (i != type(uint256).max) {
            unchecked {
                i++;
            }
        }
    }

    /// A static call to `target` (a precompile, an empty account) with `input`.
    function probe(address target, bytes calldata input) external view returns (bool ok, bytes memory out) {
        (ok, out) = target.staticcall(input);
    }

    /// `holder`'s ether balance: an account touched inside the call.
    function etherOf(address holder) external view returns (uint256) {
        return holder.balance;
    }
}

/// Deployed by Probe.create2.
contract Child {
    function double(uint256 x) external pure returns (uint256) {
        return 2 * x;
    }
}
