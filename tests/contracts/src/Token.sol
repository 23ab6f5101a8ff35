// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// A plain ERC-20 (OpenZeppelin's), its whole supply minted to the deployer.
contract Token is ERC20 {
    constructor(uint256 supply) ERC20("Test Token", "TT") {
        _mint(msg.sender, supply);
    }
}
