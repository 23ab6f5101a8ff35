//! Field arithmetic made for wasm32.
//!
//! [`Wasm32Backend`] is an `ark_ff::FpConfig` whose Montgomery multiplication and squaring run
//! on 30-bit limbs with 64-bit products — what wasm32 executes natively — instead of 64-bit
//! limbs with 128-bit products, which wasm32 has no instruction for. The elements keep
//! arkworks' Montgomery form word for word, so every value equals the one arkworks' own
//! backend computes (the tests hold it to that), and arkworks' generic towers, curves and
//! pairings run on it unchanged. Where the pairings spend their time (Miller loops, final
//! exponentiations) the curves run arkworks' algorithms on `lightprov-field-mont`'s fused
//! kernels instead, one call an Fp2/Fp6/Fp12 operation. [`bls12_381`] is BLS12-381 on it and
//! [`bn254`] BN254.
#![no_std]

// The Miller loops collect their pairs into a Vec.
#[cfg(any(feature = "bls12-381", feature = "bn254"))]
extern crate alloc;

mod backend;
#[cfg(feature = "bls12-381")]
pub mod bls12_381;
#[cfg(feature = "bn254")]
pub mod bn254;
#[cfg(any(feature = "bls12-381", feature = "bn254"))]
mod tower;

pub use backend::{Wasm32Backend, from_mont, to_mont};

#[cfg(all(test, feature = "bls12-381"))]
mod bls_tests;
#[cfg(all(test, feature = "bn254"))]
mod bn_tests;
#[cfg(test)]
mod tests;
#[cfg(all(test, any(feature = "bls12-381", feature = "bn254")))]
mod tower_tests;
