//! The engine's integration tests, in one test binary: as a binary per file, each linked the
//! engine, the verifier and arkworks again (about a minute of the test build's CPU time).

mod common;

mod lvmt_review;
mod model;
mod proofs;
mod ptau;
mod setup_cache;
mod store;
