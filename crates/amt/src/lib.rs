#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod opening;

use alloc::vec::Vec;

use ark_bn254::{Bn254, Fr, G1Affine, G2Affine};
use ark_ec::{AffineRepr, pairing::Pairing};
use ark_ff::{FftField, PrimeField, Zero};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use lightprov_types::DecodeError;
use sha2::{Digest, Sha256};

/// The deepest AMT accepted (BN254's scalar field has 2^28-th roots of unity).
pub const MAX_DEPTH: u8 = 28;
/// Bytes of a compressed G1 point.
pub const G1_BYTES: usize = 32;
/// Bytes of a compressed G2 point.
pub const G2_BYTES: usize = 64;
/// Versions per LVMT entry (slot 0: the sub-AMT's commitment version, slots 1–5: keys).
pub const SLOTS: usize = 6;
/// Bits per version.
pub const VERSION_BITS: u32 = 40;
/// The largest version a slot holds.
pub const MAX_VERSION: u64 = (1 << VERSION_BITS) - 1;

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

/// A field element from big-endian bytes, reduced modulo the scalar field's order. (One
/// instance for the engine and the verifier: arkworks' generic conversion is large in wasm.)
pub fn fr_from_be_mod_order(b: &[u8]) -> Fr {
    Fr::from_be_bytes_mod_order(b)
}

/// A field element from 32 big-endian bytes, which must be below the modulus.
pub fn fr_from_be(b: &[u8; 32], field: &str) -> Result<Fr, DecodeError> {
    let v = fr_from_be_mod_order(b);
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
pub fn packed(versions: &[u64; SLOTS]) -> Fr {
    let two40 = Fr::from(1u64 << VERSION_BITS);
    versions
        .iter()
        .rev()
        .fold(Fr::zero(), |acc, x| acc * two40 + Fr::from(*x))
}

/// ω, the primitive 2^D-th root of unity (arkworks' choice for BN254's scalar field) an AMT of
/// depth D evaluates its vector on: entry `j` is the value at `ω^j`. `None` for D = 0 or beyond
/// [`MAX_DEPTH`].
pub fn domain_root(depth: u8) -> Option<Fr> {
    if depth == 0 || depth > MAX_DEPTH {
        return None;
    }
    Fr::get_root_of_unity(1u64 << depth)
}

/// The shape of an AMT's proof tree.
///
/// Node `(e, p)`, `0 ≤ e < D`, `p < 2^e`, at index `2^e + p`, is shared by every entry
/// `j ≡ p (mod 2^e)`: the opening of entry `i` is `Q_d = node(d − 1, i mod 2^{d−1})` for
/// `d = 1..=D`. Index 0 is never a proof node (stores use it for the commitment).
pub mod shape {
    /// Entries of an AMT of depth D (`2^D`), `None` beyond 31.
    pub const fn entries(depth: u8) -> Option<u32> {
        if depth >= 32 {
            None
        } else {
            Some(1u32 << depth)
        }
    }

    /// The index of the proof node holding `Q_d` of entry `i` (`1 ≤ d ≤ 31`).
    pub const fn quotient_node(d: u32, i: u32) -> u32 {
        let half = 1u32 << (d - 1);
        half + (i % half)
    }

    /// The proof node `(e, p)` for an index `2^e + p ≥ 1`.
    pub const fn node_at(index: u32) -> (u32, u32) {
        let e = 31 - index.leading_zeros();
        (e, index - (1 << e))
    }
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
        let omega = domain_root(depth)
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

    /// `[1]₂`, then `[τ^{2^j}]₂` for `j < D`.
    pub fn g2(&self) -> &[G2Affine] {
        &self.g2
    }

    /// [`Params::g2`], prepared for pairings.
    pub fn prepared(&self) -> &[<Bn254 as Pairing>::G2Prepared] {
        &self.prepared
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ark_ff::Field;

    #[test]
    fn packing_puts_slot_s_at_2_to_the_40s() {
        let v = [1, 2, 3, 4, 5, MAX_VERSION];
        let want: Fr = v
            .iter()
            .enumerate()
            .map(|(s, x)| Fr::from(*x) * Fr::from(2u64).pow([40 * s as u64]))
            .sum();
        assert_eq!(packed(&v), want);
    }

    #[test]
    fn proof_nodes_are_shared_by_congruent_entries() {
        // Depth 3: Q_1 of every entry is node 1; Q_3 of entries 1 and 5 is node 4 + 1.
        assert_eq!(shape::quotient_node(1, 6), 1);
        assert_eq!(shape::quotient_node(3, 1), 5);
        assert_eq!(shape::quotient_node(3, 5), 5);
        assert_eq!(shape::quotient_node(2, 3), 3);
        for i in 1..64u32 {
            let (e, p) = shape::node_at(i);
            assert_eq!((1u32 << e) + p, i);
            assert!(p < 1 << e);
        }
        assert_eq!(shape::entries(4), Some(16));
        let w = domain_root(3).unwrap();
        assert_eq!(w.pow([8u64]), Fr::from(1u64));
        assert_ne!(w.pow([4u64]), Fr::from(1u64));
        assert_eq!(domain_root(0), None);
        assert_eq!(domain_root(MAX_DEPTH + 1), None);
        assert_eq!(shape::entries(32), None);
    }

    #[test]
    fn encodings_round_trip_and_refuse_non_canonical_bytes() {
        let g = (G1Affine::generator() * Fr::from(7u64)).into();
        let b = g1_to_bytes(&g);
        assert_eq!(g1_from_bytes(&b, "p").unwrap(), g);
        assert!(g1_from_bytes(&b[..31], "p").is_err());
        let v = Fr::from(123_456u64);
        assert_eq!(fr_from_be(&fr_to_be(&v), "v").unwrap(), v);
        assert!(fr_from_be(&[0xff; 32], "v").is_err());
        let p = Params::new(2, alloc::vec![G2Affine::generator(); 3]).unwrap();
        assert_eq!(Params::decode(&p.encode()).unwrap().encode(), p.encode());
        assert!(Params::new(2, alloc::vec![G2Affine::generator(); 2]).is_err());
    }
}
