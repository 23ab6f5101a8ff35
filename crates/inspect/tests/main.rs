//! The inspector's integration tests, one crate: the outlines drawn before this crate
//! (`golden`), the outlines of the real proofs (`outlines`), the forgeries (`forgeries`) and no
//! panic on any bytes (`garbage`), over the shared vectors (`common`).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod common;
mod forgeries;
mod garbage;
mod golden;
mod outlines;
