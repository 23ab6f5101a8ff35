// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Batches calls into one, with the interface of the widely deployed Multicall3's `aggregate3`.
contract Multicall {
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    struct Result {
        bool success;
        bytes returnData;
    }

    error CallFailed(uint256 index, bytes returnData);

    /// Runs every call; a failing call reverts the whole unless it allows failure.
    function aggregate3(Call3[] calldata calls) external returns (Result[] memory results) {
        results = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool ok, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (!ok && !calls[i].allowFailure) revert CallFailed(i, ret);
            results[i] = Result(ok, ret);
        }
    }

    function getBlockNumber() external view returns (uint256) {
        return block.number;
    }

    function getEthBalance(address account) external view returns (uint256) {
        return account.balance;
    }
}
