//! LVMT proofs: AMT openings over BN254 (the version vector of one AMT entry) and, built on
//! them, presence, absence and history of a key.
//!
//! [`amt`] is the opening check (docs/proofs.md, "AMT openings"): a value `a` at index `i` of a
//! vector committed as `C = Σ a_j·[L_j(τ)]₁` over the 2^D-th roots of unity is proven by the D
//! quotient points of successive division by `x^{2^{D−d}} − ω^{i·2^{D−d}}`, checked with one
//! multi-Miller loop and one final exponentiation, openings of several AMTs batched together.

pub mod amt;
#[cfg(feature = "bench-baseline")]
pub mod baseline;
pub mod proof;
