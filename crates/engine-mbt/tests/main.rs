//! The crate's integration tests, in one test binary: as a binary per file, each linked the
//! engine and its dependencies again.

mod engine;
mod measure;
