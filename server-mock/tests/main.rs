//! The node's integration tests, in one test binary: as a binary per file, each linked the node
//! and its dependencies again.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod chain;
mod cli;
mod common;
// The fuzz target's chain, where the target (examples/fuzz) has it: at the crate's root.
#[path = "../examples/fuzz/devchain.rs"]
mod devchain;
mod evm;
mod fuzz;
mod txproof;
