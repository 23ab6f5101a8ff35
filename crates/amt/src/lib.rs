#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod opening;

use alloc::vec::Vec;

use ark_bn254::{Fr, G1Affine, G2Affine};
use ark_ec::AffineRepr;
use ark_ff::{FftField, PrimeField, Zero};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use lightprov_field::bn254;
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

/// Decodes a compressed G1 point: canonical, x below p, on the curve (BN254's G1 has cofactor
/// 1). Decoded on lightprov-field's wasm32 backend (the square root is its arithmetic), the point
/// handed back as `ark-bn254`'s, word for word.
pub fn g1_from_bytes(b: &[u8], field: &str) -> Result<G1Affine, DecodeError> {
    Ok(bn254::g1_to_ark(&fast_g1_from_bytes(b, field)?))
}

/// [`g1_from_bytes`] on the backend the check runs on.
fn fast_g1_from_bytes(b: &[u8], field: &str) -> Result<bn254::G1Affine, DecodeError> {
    if b.len() != G1_BYTES {
        return Err(DecodeError::new(field, "a G1 point is 32 bytes"));
    }
    let p = bn254::G1Affine::deserialize_with_mode(b, Compress::Yes, Validate::Yes)
        .map_err(|_| DecodeError::new(field, "not a point of G1"))?;
    // One encoding per point: the identity decodes from any x with the infinity flag.
    if fast_g1_to_bytes(&p).as_slice() != b {
        return Err(DecodeError::new(field, "non-canonical point encoding"));
    }
    Ok(p)
}

/// The compressed encoding of a G1 point.
pub fn g1_to_bytes(p: &G1Affine) -> [u8; G1_BYTES] {
    fast_g1_to_bytes(&bn254::g1_from_ark(p))
}

/// [`g1_to_bytes`] on the backend the check runs on (the same bytes: one serialisation routine
/// in a wasm module).
fn fast_g1_to_bytes(p: &bn254::G1Affine) -> [u8; G1_BYTES] {
    let mut out = [0u8; G1_BYTES];
    // Serialising a valid point into a buffer of its exact size cannot fail.
    let _ = p.serialize_with_mode(&mut out[..], Compress::Yes);
    out
}

/// Decodes a compressed G2 point: canonical, x below p in both coordinates, on the curve and in
/// the prime-order subgroup (the endomorphism test ψ(P) = [6x²]P), on the wasm32 backend.
pub fn g2_from_bytes(b: &[u8], field: &str) -> Result<G2Affine, DecodeError> {
    if b.len() != G2_BYTES {
        return Err(DecodeError::new(field, "a G2 point is 64 bytes"));
    }
    let p = bn254::G2Affine::deserialize_with_mode(b, Compress::Yes, Validate::Yes)
        .map_err(|_| DecodeError::new(field, "not a point of the G2 subgroup"))?;
    let p = bn254::g2_to_ark(&p);
    if g2_to_bytes(&p).as_slice() != b {
        return Err(DecodeError::new(field, "non-canonical point encoding"));
    }
    Ok(p)
}

/// The compressed encoding of a G2 point.
pub fn g2_to_bytes(p: &G2Affine) -> [u8; G2_BYTES] {
    let mut out = [0u8; G2_BYTES];
    let _ = bn254::g2_from_ark(p).serialize_with_mode(&mut out[..], Compress::Yes);
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
    /// The same points on lightprov-field's backend, their Miller-loop lines computed once
    /// (normalised: see `bn254::G2Lines`).
    prepared: Vec<bn254::G2Lines>,
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
        // [τ^{2^j}]₂ is the identity only for τ = 0 (a broken setup): every check against it
        // would reduce to "the left side is O", which any prover can meet.
        if g2.iter().skip(1).any(|p| p.is_zero()) {
            return Err(DecodeError::new(
                "g2",
                "a power of τ is the point at infinity",
            ));
        }
        let omega = domain_root(depth)
            .ok_or_else(|| DecodeError::new("depth", "no root of unity of that order"))?;
        let prepared = g2
            .iter()
            .enumerate()
            .map(|(i, p)| {
                bn254::G2Lines::new(&bn254::g2_from_ark(p)).ok_or_else(|| {
                    DecodeError::new(
                        alloc::format!("g2[{i}]"),
                        "a line of its Miller loop has a zero coefficient (not a point of G2)",
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
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

    /// [`Params::g2`], prepared for pairings on lightprov-field's BN254 (every line of their
    /// Miller loops, computed once per parameter set).
    pub fn prepared(&self) -> &[bn254::G2Lines] {
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
    use ark_ff::{BigInteger, Field};

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

    /// arkworks' own decoding of a compressed point (the reference the wasm32 backend's
    /// decoding must agree with on any bytes).
    fn ark_decode<P: CanonicalDeserialize>(b: &[u8]) -> Option<P> {
        P::deserialize_with_mode(b, Compress::Yes, Validate::Yes).ok()
    }

    /// A base field element's 32 little-endian bytes (compressed points store x so).
    fn le(x: &ark_ff::BigInt<4>) -> [u8; 32] {
        let mut out = [0u8; 32];
        out.copy_from_slice(&x.to_bytes_le());
        out
    }

    #[test]
    fn g1_decoding_refuses_x_at_or_above_p_and_off_the_curve() {
        let p = ark_bn254::Fq::MODULUS;
        // x = p, and x = 1 + p (the generator's x, aliased): flags clear, below 2^254.
        assert!(g1_from_bytes(&le(&p), "q").is_err());
        let mut alias = p;
        alias.add_with_carry(&ark_ff::BigInt::from(1u64));
        let g = g1_to_bytes(&G1Affine::generator());
        assert_eq!(g[0], 1, "the generator's x is 1");
        let mut aliased = le(&alias);
        aliased[31] |= g[31] & 0xc0;
        assert!(g1_from_bytes(&aliased, "q").is_err());
        // An x with x³ + 3 a non-square: no point.
        let off = (0u64..)
            .map(ark_bn254::Fq::from)
            .find(|x| G1Affine::get_point_from_x_unchecked(*x, false).is_none())
            .unwrap();
        let b = le(&off.into_bigint());
        assert!(ark_decode::<G1Affine>(&b).is_none());
        assert!(g1_from_bytes(&b, "q").is_err());
    }

    #[test]
    fn g2_decoding_refuses_x_above_p_off_the_curve_and_outside_the_subgroup() {
        // x + p in either coordinate (c0 in bytes 0..32, c1 in 32..64 under the flag bits), on
        // multiples of the generator until each coordinate had a case that fits.
        let p = ark_bn254::Fq::MODULUS;
        let mut aliased = [0, 0];
        for k in 1u64..64 {
            let g: G2Affine = (G2Affine::generator() * Fr::from(k)).into();
            let good = g2_to_bytes(&g);
            assert_eq!(g2_from_bytes(&good, "t").unwrap(), g);
            for (n, (c, at, bits)) in [(g.x.c0, 0, 256), (g.x.c1, 32, 254)]
                .into_iter()
                .enumerate()
            {
                let mut big = c.into_bigint();
                if big.add_with_carry(&p) || big.num_bits() > bits {
                    continue;
                }
                let mut t = good;
                let flags = t[63] & 0xc0;
                t[at..at + 32].copy_from_slice(&le(&big));
                t[63] |= flags;
                assert!(ark_decode::<G2Affine>(&t).is_none());
                assert!(g2_from_bytes(&t, "t").is_err(), "x + p at {at} accepted");
                aliased[n] += 1;
            }
        }
        assert!(aliased[0] > 0 && aliased[1] > 0, "{aliased:?}");
        // Points of the twist outside the subgroup, and an x off it.
        let mut outside = 0;
        let mut off = 0;
        for k in 1u64..200 {
            let x = ark_bn254::Fq2::new(ark_bn254::Fq::from(k), ark_bn254::Fq::from(1u64));
            match G2Affine::get_point_from_x_unchecked(x, true) {
                Some(q) => {
                    assert!(!q.is_in_correct_subgroup_assuming_on_curve());
                    let mut b = [0u8; G2_BYTES];
                    q.serialize_with_mode(&mut b[..], Compress::Yes).unwrap();
                    assert!(ark_decode::<G2Affine>(&b).is_none());
                    assert!(g2_from_bytes(&b, "t").is_err());
                    let mut params = alloc::vec![1u8];
                    params.extend_from_slice(&g2_to_bytes(&G2Affine::generator()));
                    params.extend_from_slice(&b);
                    assert!(Params::decode(&params).is_err());
                    outside += 1;
                }
                None => {
                    let mut b = [0u8; G2_BYTES];
                    x.serialize_with_mode(&mut b[..], Compress::Yes).unwrap();
                    assert!(g2_from_bytes(&b, "t").is_err());
                    off += 1;
                }
            }
            if outside >= 3 && off >= 3 {
                break;
            }
        }
        assert!(outside >= 3 && off >= 3);
    }

    /// `b` with each of its bits flipped in turn, and the bit.
    fn one_bit_changes<const N: usize>(b: [u8; N]) -> impl Iterator<Item = (usize, [u8; N])> {
        (0..N * 8).map(move |bit| {
            let mut t = b;
            t[bit / 8] ^= 1 << (bit % 8);
            (bit, t)
        })
    }

    #[test]
    fn decoding_agrees_with_arkworks_on_every_one_bit_change() {
        for k in [1u64, 2, 7, 1 << 40] {
            let g1 = (G1Affine::generator() * Fr::from(k)).into();
            for (bit, t) in one_bit_changes(g1_to_bytes(&g1)) {
                let want = ark_decode::<G1Affine>(&t).filter(|p| g1_to_bytes(p) == t);
                assert_eq!(g1_from_bytes(&t, "q").ok(), want, "G1 k={k} bit {bit}");
            }
        }
        let g2 = (G2Affine::generator() * Fr::from(3u64)).into();
        for (bit, t) in one_bit_changes(g2_to_bytes(&g2)) {
            let want = ark_decode::<G2Affine>(&t).filter(|p| g2_to_bytes(p) == t);
            assert_eq!(g2_from_bytes(&t, "t").ok(), want, "G2 bit {bit}");
        }
    }

    /// The flag bits (the top two of the last byte: y negative, infinity): the identity has one
    /// encoding in each group, with x = 0 and only the infinity flag; both flags together, an
    /// identity with x ≠ 0 or with the y flag, and a wrong length are refused.
    #[test]
    fn identity_and_flag_encodings_are_canonical() {
        let id1 = g1_to_bytes(&G1Affine::identity());
        assert_eq!(id1[31], 0x40);
        assert!(id1[..31].iter().all(|b| *b == 0));
        assert_eq!(g1_from_bytes(&id1, "q").unwrap(), G1Affine::identity());
        let g1 = g1_to_bytes(&(G1Affine::generator() * Fr::from(5u64)).into());
        let id2 = g2_to_bytes(&G2Affine::identity());
        assert_eq!(id2[63], 0x40);
        assert!(id2[..63].iter().all(|b| *b == 0));
        assert_eq!(g2_from_bytes(&id2, "t").unwrap(), G2Affine::identity());
        let g2 = g2_to_bytes(&(G2Affine::generator() * Fr::from(5u64)).into());

        // Both flags: on the identity and on a point.
        let mut t = id1;
        t[31] |= 0x80;
        assert!(g1_from_bytes(&t, "q").is_err());
        let mut t = g1;
        t[31] |= 0xc0;
        assert!(g1_from_bytes(&t, "q").is_err());
        let mut t = id2;
        t[63] |= 0x80;
        assert!(g2_from_bytes(&t, "t").is_err());
        let mut t = g2;
        t[63] |= 0xc0;
        assert!(g2_from_bytes(&t, "t").is_err());
        // The infinity flag over a point's x (arkworks decodes the identity from any x: only
        // the re-encoding refuses it), in G1, and in G2's c0 and c1.
        let mut t = g1;
        t[31] = (t[31] & 0x3f) | 0x40;
        assert_eq!(ark_decode::<G1Affine>(&t), Some(G1Affine::identity()));
        assert!(g1_from_bytes(&t, "q").is_err());
        for at in [0usize, 40] {
            let mut t = id2;
            t[at] = 1;
            assert_eq!(ark_decode::<G2Affine>(&t), Some(G2Affine::identity()));
            assert!(
                g2_from_bytes(&t, "t").is_err(),
                "identity with x ≠ 0 at {at}"
            );
        }
        let mut t = g2;
        t[63] = (t[63] & 0x3f) | 0x40;
        assert!(g2_from_bytes(&t, "t").is_err());
        // Lengths.
        assert!(g2_from_bytes(&g2[..63], "t").is_err());
        let mut longer = alloc::vec::Vec::from(g2);
        longer.push(0);
        assert!(g2_from_bytes(&longer, "t").is_err());
        let mut longer = alloc::vec::Vec::from(g1);
        longer.push(0);
        assert!(g1_from_bytes(&longer, "q").is_err());
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

    /// A power of τ at infinity (τ = 0) is refused, by `new` and by `decode`: against it the
    /// opening check would only ask that its left side be O.
    #[test]
    fn params_refuse_a_power_of_tau_at_infinity() {
        for j in 1..=2 {
            let mut g2 = alloc::vec![G2Affine::generator(); 3];
            g2[j] = G2Affine::zero();
            let err = Params::new(2, g2).unwrap_err();
            assert_eq!(
                (err.field.as_str(), err.reason),
                ("g2", "a power of τ is the point at infinity")
            );
        }
        let good = Params::new(2, alloc::vec![G2Affine::generator(); 3])
            .unwrap()
            .encode();
        // The same bytes with the last point's encoding replaced by the identity's.
        let identity = g2_to_bytes(&G2Affine::zero());
        let mut bad = good.clone();
        let at = bad.len() - identity.len();
        bad[at..].copy_from_slice(&identity);
        assert!(Params::decode(&bad).is_err());
        assert!(Params::decode(&good).is_ok());
    }

    /// A point whose Miller loop has a line with a zero first coefficient (y = 0: its first
    /// doubling line is −2yz·…; not a point of G2, which `decode` refuses first) is refused by
    /// name rather than divided by.
    #[test]
    fn params_refuse_a_point_whose_lines_cannot_be_normalised() {
        let g = G2Affine::generator();
        let flat = G2Affine::new_unchecked(g.x, ark_bn254::Fq2::zero());
        let err = Params::new(2, alloc::vec![g, g, flat]).unwrap_err();
        assert_eq!(err.field, "g2[2]");
        assert!(err.reason.contains("zero coefficient"), "{}", err.reason);
    }
}
