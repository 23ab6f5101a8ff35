// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Emits events in bulk: the getLogs tests read thousands of them over a range of blocks.
contract Emitter {
    event Ping(uint256 indexed batch, uint256 indexed index, address indexed sender, bytes32 data);
    event Note(string text);

    uint256 public batches;

    /// Emits `n` Ping events, numbered 0..n-1 within this call's batch.
    function emitMany(uint256 n) external {
        uint256 batch = ++batches;
        for (uint256 i = 0; i < n; i++) {
            emit Ping(batch, i, msg.sender, keccak256(abi.encode(batch, i)));
        }
    }

    /// One event with dynamic data.
    function note(string calldata text) external {
        emit Note(text);
    }
}
