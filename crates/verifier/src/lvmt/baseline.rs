//! The reference check the batched one in [`amt`](super::amt) is measured against: every
//! opening on its own, one full pairing per factor. For benchmarks only (feature
//! `bench-baseline`); it accepts exactly the openings [`amt::verify`](super::amt::verify) accepts.
//!
//! Moving `Σ_d c_d·Q_d` of the batched equation to the right-hand side gives, per opening,
//!
//! ```text
//! e(C − a·G₁, [1]₂) = Π_d e(Q_d, [τ^{2^{D−d}} − c_d]₂),   c_d = ω^{i·2^{D−d}}
//! ```
//!
//! D + 1 pairings per opening, each with its own Miller loop, its own G2 line computation and
//! its own final exponentiation: nothing prepared, nothing shared across factors or openings.

use alloc::vec::Vec;

use ark_bn254::{Bn254, G1Affine, G2Affine};
use ark_ec::{AffineRepr, CurveGroup, pairing::Pairing};
use ark_ff::Field;
use ark_serialize::{CanonicalDeserialize, Compress, Validate};
use lightprov_types::DecodeError;

use super::amt::{AmtError, G2_BYTES, Opening, Params};

/// `[1]₂` and `[τ^{2^j}]₂`, read back from the parameters' encoding. The parameters were
/// validated when they were built, so the points are only decompressed, not checked again.
fn g2_points(params: &Params) -> Result<Vec<G2Affine>, AmtError> {
    let bytes = params.encode();
    bytes
        .get(1..)
        .unwrap_or_default()
        .chunks_exact(G2_BYTES)
        .map(|c| {
            G2Affine::deserialize_with_mode(c, Compress::Yes, Validate::No)
                .map_err(|_| DecodeError::new("params", "not a G2 point").into())
        })
        .collect()
}

/// Checks every opening separately: D + 1 full pairings each.
pub fn verify_separate(params: &Params, openings: &[Opening]) -> Result<(), AmtError> {
    let d = usize::from(params.depth());
    super::amt::check_shapes(params, openings)?;
    let g2 = g2_points(params)?;
    let one = G2Affine::generator();
    for o in openings {
        let left = (o.commitment.into_group() - G1Affine::generator() * o.value).into_affine();
        let left = Bn254::pairing(left, one);
        // PairingOutput is written additively: `+` multiplies in the target group.
        let mut right = <Bn254 as Pairing>::TargetField::ONE;
        // c_D = ω^i, c_{d−1} = c_d²; quotient j is Q_{j+1} and pairs with g2[D − j].
        let mut c = params.omega().pow([o.index]);
        for (j, q) in o.quotients.iter().enumerate().rev() {
            let tau = g2
                .get(d - j)
                .ok_or_else(|| AmtError::from(DecodeError::new("params", "too few points")))?;
            let shifted = (tau.into_group() - one * c).into_affine();
            right *= Bn254::pairing(*q, shifted).0;
            c.square_in_place();
        }
        if left.0 != right {
            return Err(AmtError::PairingCheckFailed);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
