//! The verifier's integration tests, one crate: each module tests one family or one concern
//! (the shared vectors in `vectors`, a forgery per check in `cole`, `indexed` and
//! `beacon_forgeries`, …); `beacon_common` reads the consensus specs' fixtures for the beacon
//! modules and the vectors.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod beacon_common;
mod beacon_forgeries;
mod beacon_head;
mod beacon_merkle_proofs;
mod beacon_signers;
mod beacon_spec;
mod beacon_store;
mod cole;
mod indexed;
mod lvmt_review;
mod vectors;
