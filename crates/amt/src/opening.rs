//! The AMT opening check (the verifier's side; the engine uses it in its tests): see the
//! crate's README and `lightprov-verifier`'s `lvmt::amt` for the equation. Here, with the
//! encodings and [`Params`], so that every BN254 routine is compiled once in a wasm module.

use alloc::vec::Vec;
use core::fmt;

use crate::{Opening, Params, fr_to_be, g1_to_bytes};

use ark_bn254::{Bn254, Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM, pairing::Pairing};
use ark_ff::{Field, One, Zero};
use lightprov_types::{DecodeError, ErrorCode};
use sha2::{Digest, Sha256};

/// Why an opening was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AmtError {
    /// An input is not the one accepted encoding (a point off the curve or outside the
    /// subgroup, a non-canonical encoding, a wrong length, an index out of range).
    Encoding(DecodeError),
    /// The pairing equation does not hold: some value, index or quotient is false.
    PairingCheckFailed,
}

impl AmtError {
    /// The stable code.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::Encoding(_) => ErrorCode::BadEncoding,
            Self::PairingCheckFailed => ErrorCode::PairingCheckFailed,
        }
    }
}

impl fmt::Display for AmtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Encoding(e) => write!(f, "{e}"),
            Self::PairingCheckFailed => f.write_str("the AMT opening does not verify"),
        }
    }
}

impl From<DecodeError> for AmtError {
    fn from(e: DecodeError) -> Self {
        Self::Encoding(e)
    }
}

/// The canonical bytes of an opening the batching coefficients are derived from.
fn transcript(o: &Opening, h: &mut Sha256) {
    h.update(g1_to_bytes(&o.commitment));
    h.update(o.index.to_be_bytes());
    h.update(fr_to_be(&o.value));
    for q in &o.quotients {
        h.update(g1_to_bytes(q));
    }
}

/// Refuses an opening whose index is beyond the AMT or whose quotient count is not D.
pub fn check_shapes(params: &Params, openings: &[Opening]) -> Result<(), AmtError> {
    let d = usize::from(params.depth());
    let n = 1u64 << params.depth();
    for (k, o) in openings.iter().enumerate() {
        if o.index >= n {
            return Err(DecodeError::new(
                alloc::format!("openings[{k}].index"),
                "beyond the AMT's 2^D entries",
            )
            .into());
        }
        if o.quotients.len() != d {
            return Err(DecodeError::new(
                alloc::format!("openings[{k}].quotients"),
                "exactly D quotient points expected",
            )
            .into());
        }
    }
    Ok(())
}

/// Checks every opening with one multi-Miller loop and one final exponentiation.
pub fn verify(params: &Params, openings: &[Opening]) -> Result<(), AmtError> {
    let d = usize::from(params.depth());
    check_shapes(params, openings)?;
    // ρ_0 = 1; ρ_k = 128 bits of SHA-256(tag ‖ every opening ‖ k).
    let mut seed = Sha256::new();
    seed.update(b"lightprov/lvmt/amt-batch/v1");
    for o in openings {
        transcript(o, &mut seed);
    }
    let seed = seed.finalize();
    let rho = |k: usize| -> Fr {
        if k == 0 {
            return Fr::one();
        }
        let mut h = Sha256::new();
        h.update(seed);
        h.update((k as u64).to_be_bytes());
        let out = h.finalize();
        crate::fr_from_be_mod_order(out.get(..16).unwrap_or(&[1]))
    };

    // Left: Σ_k ρ_k·(C_k − a_k·G₁ + Σ_d c_{k,d}·Q_{k,d}); right, per d: Σ_k ρ_k·Q_{k,d}.
    let mut bases: Vec<G1Affine> = Vec::with_capacity(openings.len() * (d + 2));
    let mut scalars: Vec<Fr> = Vec::with_capacity(openings.len() * (d + 2));
    let mut right = alloc::vec![G1Projective::zero(); d];
    for (k, o) in openings.iter().enumerate() {
        let r = rho(k);
        bases.push(o.commitment);
        scalars.push(r);
        bases.push(G1Affine::generator());
        scalars.push(-(r * o.value));
        // c_D = ω^i, c_{d−1} = c_d².
        let mut c = params.omega().pow([o.index]);
        for (j, q) in o.quotients.iter().enumerate().rev() {
            bases.push(*q);
            scalars.push(r * c);
            c.square_in_place();
            if let Some(acc) = right.get_mut(j) {
                *acc += *q * r;
            }
        }
    }
    let left = G1Projective::msm(&bases, &scalars)
        .map_err(|_| AmtError::PairingCheckFailed)?
        .into_affine();
    // Q_d pairs with [τ^{2^{D−d}}]₂ = g2[D − d + 1].
    let mut g1s: Vec<G1Affine> = Vec::with_capacity(d + 1);
    let mut g2s = Vec::with_capacity(d + 1);
    g1s.push(left);
    // (`check_shapes` bounds every index; a missing point fails the check rather than taking
    // `G2Prepared::default()`, which would also pull a second copy of the G2 preparation code
    // into the wasm module.)
    let g2 = |i: usize| {
        params
            .prepared()
            .get(i)
            .cloned()
            .ok_or(AmtError::PairingCheckFailed)
    };
    g2s.push(g2(0)?);
    let right = G1Projective::normalize_batch(&right);
    for (j, q) in right.iter().enumerate() {
        // quotient index j is d = j + 1.
        let t = g2(d - j)?;
        g1s.push((-q.into_group()).into_affine());
        g2s.push(t);
    }
    let ml = Bn254::multi_miller_loop(g1s, g2s);
    match Bn254::final_exponentiation(ml) {
        Some(out) if out.is_zero() => Ok(()),
        _ => Err(AmtError::PairingCheckFailed),
    }
}
