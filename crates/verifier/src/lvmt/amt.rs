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
//! the batch still costs D + 1 Miller loops and one final exponentiation. The verifier needs
//! only `[1]₂` and `[τ^{2^j}]₂` for `j < D`: [`Params`].

use alloc::vec::Vec;
use core::fmt;

use ark_bn254::{Bn254, Fr, G1Affine, G1Projective, G2Affine};
use ark_ec::{AffineRepr, CurveGroup, VariableBaseMSM, pairing::Pairing};
use ark_ff::{FftField, Field, One, PrimeField, Zero};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use lightprov_types::{DecodeError, ErrorCode};
use sha2::{Digest, Sha256};

/// The deepest AMT the verifier accepts (BN254's scalar field has 2^28-th roots of unity).
pub const MAX_DEPTH: u8 = 28;
/// Bytes of a compressed G1 point.
pub const G1_BYTES: usize = 32;
/// Bytes of a compressed G2 point.
pub const G2_BYTES: usize = 64;

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

/// Decodes a compressed G1 point: canonical, on the curve (BN254's G1 has cofactor 1).
pub fn g1_from_bytes(b: &[u8], field: &str) -> Result<G1Affine, DecodeError> {
    if b.len() != G1_BYTES {
        return Err(DecodeError::new(field, "a G1 point is 32 bytes"));
    }
    let p = G1Affine::deserialize_with_mode(b, Compress::Yes, Validate::Yes)
        .map_err(|_| DecodeError::new(field, "not a point of G1"))?;
    // One encoding per point: the identity decodes from any x with the infinity flag.
    if g1_to_bytes(&p).as_slice() != b {
        return Err(DecodeError::new(field, "non-canonical point encoding"));
    }
    Ok(p)
}

/// The compressed encoding of a G1 point.
pub fn g1_to_bytes(p: &G1Affine) -> [u8; G1_BYTES] {
    let mut out = [0u8; G1_BYTES];
    // Serialising a valid point into a buffer of its exact size cannot fail.
    let _ = p.serialize_with_mode(&mut out[..], Compress::Yes);
    out
}

/// Decodes a compressed G2 point: canonical, on the curve and in the prime-order subgroup.
pub fn g2_from_bytes(b: &[u8], field: &str) -> Result<G2Affine, DecodeError> {
    if b.len() != G2_BYTES {
        return Err(DecodeError::new(field, "a G2 point is 64 bytes"));
    }
    let p = G2Affine::deserialize_with_mode(b, Compress::Yes, Validate::Yes)
        .map_err(|_| DecodeError::new(field, "not a point of the G2 subgroup"))?;
    if g2_to_bytes(&p).as_slice() != b {
        return Err(DecodeError::new(field, "non-canonical point encoding"));
    }
    Ok(p)
}

/// The compressed encoding of a G2 point.
pub fn g2_to_bytes(p: &G2Affine) -> [u8; G2_BYTES] {
    let mut out = [0u8; G2_BYTES];
    let _ = p.serialize_with_mode(&mut out[..], Compress::Yes);
    out
}

/// A field element from 32 big-endian bytes, which must be below the modulus.
pub fn fr_from_be(b: &[u8; 32], field: &str) -> Result<Fr, DecodeError> {
    let v = Fr::from_be_bytes_mod_order(b);
    if fr_to_be(&v) != *b {
        return Err(DecodeError::new(
            field,
            "not below the BN254 scalar modulus",
        ));
    }
    Ok(v)
}

/// A field element as 32 big-endian bytes.
pub fn fr_to_be(v: &Fr) -> [u8; 32] {
    let mut le = [0u8; 32];
    let _ = v.serialize_with_mode(&mut le[..], Compress::Yes);
    le.reverse();
    le
}

/// The value of an LVMT entry: six 40-bit versions packed as `Σ_s v_s·2^{40s}` (slot 0 first).
pub fn packed(versions: &[u64; 6]) -> Fr {
    let two40 = Fr::from(1u64 << 40);
    versions
        .iter()
        .rev()
        .fold(Fr::zero(), |acc, x| acc * two40 + Fr::from(*x))
}

/// The verifier's public parameters for AMTs of depth D: `[1]₂` and `[τ^{2^j}]₂` for `j < D`.
#[derive(Clone, Debug)]
pub struct Params {
    depth: u8,
    /// `g2[0] = [1]₂`, `g2[j + 1] = [τ^{2^j}]₂`.
    g2: Vec<G2Affine>,
    prepared: Vec<<Bn254 as Pairing>::G2Prepared>,
    omega: Fr,
}

impl Params {
    /// Parameters from their points (`g2[0] = [1]₂`, then `[τ^{2^j}]₂` for `j < depth`).
    pub fn new(depth: u8, g2: Vec<G2Affine>) -> Result<Self, DecodeError> {
        if depth == 0 || depth > MAX_DEPTH {
            return Err(DecodeError::new("depth", "out of range 1..=28"));
        }
        if g2.len() != usize::from(depth) + 1 {
            return Err(DecodeError::new("g2", "depth + 1 points expected"));
        }
        if g2.first() != Some(&G2Affine::generator()) {
            return Err(DecodeError::new("g2[0]", "must be the G2 generator"));
        }
        let omega = Fr::get_root_of_unity(1u64 << depth)
            .ok_or_else(|| DecodeError::new("depth", "no root of unity of that order"))?;
        let prepared = g2.iter().map(|p| (*p).into()).collect();
        Ok(Self {
            depth,
            g2,
            prepared,
            omega,
        })
    }

    /// Decodes `depth(u8) ‖ (depth + 1) compressed G2 points`, each validated.
    pub fn decode(b: &[u8]) -> Result<Self, DecodeError> {
        let (&depth, rest) = b
            .split_first()
            .ok_or_else(|| DecodeError::new("params", "empty"))?;
        if rest.len() != (usize::from(depth) + 1) * G2_BYTES {
            return Err(DecodeError::new(
                "params",
                "length is not 1 + 64·(depth + 1)",
            ));
        }
        let g2 = rest
            .chunks_exact(G2_BYTES)
            .enumerate()
            .map(|(j, c)| g2_from_bytes(c, &alloc::format!("params.g2[{j}]")))
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(depth, g2)
    }

    /// The canonical encoding ([`Params::decode`]'s input).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + self.g2.len() * G2_BYTES);
        out.push(self.depth);
        for p in &self.g2 {
            out.extend_from_slice(&g2_to_bytes(p));
        }
        out
    }

    /// SHA-256 of the encoding: what clients pin.
    pub fn id(&self) -> [u8; 32] {
        Sha256::digest(self.encode()).into()
    }

    /// D.
    pub const fn depth(&self) -> u8 {
        self.depth
    }

    /// The 2^D-th root of unity the vector is evaluated on.
    pub const fn omega(&self) -> Fr {
        self.omega
    }
}

/// A claim that entry `index` of the vector committed by `commitment` is `value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The AMT's commitment.
    pub commitment: G1Affine,
    /// The entry, below 2^D.
    pub index: u64,
    /// The entry's value.
    pub value: Fr,
    /// `Q_1 … Q_D`.
    pub quotients: Vec<G1Affine>,
}

impl Opening {
    /// The canonical bytes the batching coefficients are derived from.
    fn transcript(&self, h: &mut Sha256) {
        h.update(g1_to_bytes(&self.commitment));
        h.update(self.index.to_be_bytes());
        h.update(fr_to_be(&self.value));
        for q in &self.quotients {
            h.update(g1_to_bytes(q));
        }
    }
}

/// Refuses an opening whose index is beyond the AMT or whose quotient count is not D.
pub(crate) fn check_shapes(params: &Params, openings: &[Opening]) -> Result<(), AmtError> {
    let d = usize::from(params.depth);
    let n = 1u64 << params.depth;
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
    let d = usize::from(params.depth);
    check_shapes(params, openings)?;
    // ρ_0 = 1; ρ_k = 128 bits of SHA-256(tag ‖ every opening ‖ k).
    let mut seed = Sha256::new();
    seed.update(b"lightprov/lvmt/amt-batch/v1");
    for o in openings {
        o.transcript(&mut seed);
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
        Fr::from_be_bytes_mod_order(out.get(..16).unwrap_or(&[1]))
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
        let mut c = params.omega.pow([o.index]);
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
    g2s.push(params.prepared.first().cloned().unwrap_or_default());
    let right = G1Projective::normalize_batch(&right);
    for (j, q) in right.iter().enumerate() {
        // quotient index j is d = j + 1.
        let t = params.prepared.get(d - j).cloned().unwrap_or_default();
        g1s.push((-q.into_group()).into_affine());
        g2s.push(t);
    }
    let ml = Bn254::multi_miller_loop(g1s, g2s);
    match Bn254::final_exponentiation(ml) {
        Some(out) if out.is_zero() => Ok(()),
        _ => Err(AmtError::PairingCheckFailed),
    }
}

#[cfg(test)]
mod tests;
