// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Storage to read back (a value slot and a mapping) and calls that revert with a reason or a
/// custom error, whose revert data must reach the caller.
contract Store {
    uint256 public value;
    mapping(uint256 => uint256) public entries;

    error Refused(address caller, uint256 amount);

    event Set(uint256 indexed key, uint256 value);

    function set(uint256 key, uint256 v) external {
        entries[key] = v;
        value = v;
        emit Set(key, v);
    }

    function clear(uint256 key) external {
        delete entries[key];
    }

    /// Reverts with the custom error Refused(msg.sender, amount).
    function refuse(uint256 amount) external view {
        revert Refused(msg.sender, amount);
    }

    /// Reverts with Error(string) when x is zero.
    function nonZero(uint256 x) external pure returns (uint256) {
        require(x != 0, "x is zero");
        return x;
    }
}
