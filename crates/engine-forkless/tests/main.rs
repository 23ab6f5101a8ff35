//! The crate's integration tests, in one test binary: as a binary per file, each linked the
//! engine and its dependencies again.

mod crash;
mod engine;
mod measure;
mod proofs;
