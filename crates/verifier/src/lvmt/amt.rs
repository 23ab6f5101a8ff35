//! The AMT opening check.
//!
//! Let `f` be the polynomial with `f(ω^j) = a_j` (ω a primitive 2^D-th root of unity, arkworks'
//! generator), `C = [f(τ)]₁`. With `Z_d(x) = x^{2^{D−d}} − ω^{i·2^{D−d}}` for `d = 1..D`, dividing
//! successively gives `f(x) − a_i = Σ_d q_d(x)·Z_d(x)`. The proof is `Q_d = [q_d(τ)]₁`, and
//!
//! ```text
//! e(C − a_i·G₁ + Σ_d c_d·Q_d, [1]₂) = Π_d e(Q_d, [τ^{2^{D−d}}]₂),   c_d = ω^{i·2^{D−d}}
//! ```
//!
//! Several openings are checked at once with coefficients `ρ_k` derived by hashing the canonical
//! encoding of every opening (no randomness): every opening pairs with the same `[τ^{2^j}]₂`, so
//! the batch still costs one Miller loop over D + 1 pairs (one accumulator, the G2 lines
//! prepared with the parameters) and one final exponentiation, on `lightprov-field`'s BN254. The verifier needs
//! only `[1]₂` and `[τ^{2^j}]₂` for `j < D`: [`Params`]. The encodings, [`Params`] and
//! [`Opening`] live in `lightprov-amt`, shared with the engine that produces the openings, and
//! so does the check itself (`lightprov_amt::opening`): every BN254 routine it needs is then
//! compiled once in a wasm module, beside the decoders that need the same field arithmetic.

pub use lightprov_amt::{
    G1_BYTES, G2_BYTES, MAX_DEPTH, Opening, Params, fr_from_be, fr_to_be, g1_from_bytes,
    g1_to_bytes, g2_from_bytes, g2_to_bytes,
    opening::{AmtError, check_shapes, verify},
    packed,
};

#[cfg(test)]
pub(super) mod tests;
