// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// lightprov-node's `erc20` workload token: OpenZeppelin's ERC-20, `each` tokens minted to every
/// holder at deployment (the node deploys it at genesis, its holders the workload accounts).
contract LightToken is ERC20 {
    constructor(address[] memory holders, uint256 each) ERC20("Lightprov Token", "LPT") {
        for (uint256 i = 0; i < holders.length; i++) {
            _mint(holders[i], each);
        }
    }
}
