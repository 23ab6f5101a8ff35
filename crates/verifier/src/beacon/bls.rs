//! BLS12-381 signatures as the sync committee makes them: the proof-of-possession ciphersuite
//! `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_` (IETF draft-irtf-cfrg-bls-signature-05,
//! §2.5 CoreVerify, §3.3.4 FastAggregateVerify), public keys in G1 and signatures in G2, on
//! zkcrypto's pure-Rust `bls12_381` (hash to curve: RFC 9380, SSWU to G2 with SHA-256).
//!
//! Every point is decompressed with its subgroup check; a public key at infinity is refused
//! (KeyValidate), and so is an aggregate at infinity. Verification is one multi-Miller loop of
//! two pairs and one final exponentiation: `e(pk, H(m)) · e(−g1, σ) = 1`. With the
//! `beacon-field32` feature it is computed on `lightprov-field`'s BLS12-381 (arkworks' pairing on
//! a field backend made for wasm32, about 2.5× faster there than zkcrypto's): the points,
//! checked by zkcrypto's crate, are carried over by their uncompressed encodings (each
//! coordinate below p, or refused).

#[cfg(feature = "beacon-field32")]
use ark_ec::AffineRepr;
#[cfg(feature = "beacon-field32")]
use ark_ff::{BigInt, PrimeField, QuadExtField};
use bls12_381::{
    G1Affine, G1Projective, G2Affine, G2Projective,
    hash_to_curve::{ExpandMsgXmd, HashToCurve},
};
#[cfg(not(feature = "beacon-field32"))]
use bls12_381::{G2Prepared, Gt, multi_miller_loop};
#[cfg(feature = "beacon-field32")]
use lightprov_field::bls12_381 as fast;

/// The ciphersuite's domain separation tag.
pub const DST: &[u8] = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";

/// A public key (`KeyValidate`): a compressed G1 point in the subgroup, not at infinity.
pub fn public_key(bytes: &[u8; 48]) -> Option<G1Affine> {
    let p = Option::<G1Affine>::from(G1Affine::from_compressed(bytes))?;
    if bool::from(p.is_identity()) {
        return None;
    }
    Some(p)
}

/// A signature: a compressed G2 point in the subgroup (infinity included).
pub fn signature(bytes: &[u8; 96]) -> Option<G2Affine> {
    Option::<G2Affine>::from(G2Affine::from_compressed(bytes))
}

/// `hash_to_curve(message)` in G2 with the ciphersuite's tag.
pub fn hash_to_g2(message: &[u8]) -> G2Affine {
    hash_to_g2_with(message, DST)
}

/// `hash_to_curve(message)` in G2 (`BLS12381G2_XMD:SHA-256_SSWU_RO_`) with the tag `dst`.
pub fn hash_to_g2_with(message: &[u8], dst: &[u8]) -> G2Affine {
    let p =
        <G2Projective as HashToCurve<ExpandMsgXmd<sha2::Sha256>>>::hash_to_curve([message], dst);
    G2Affine::from(p)
}

/// The sum of `keys`.
pub fn aggregate<'a>(keys: impl IntoIterator<Item = &'a G1Affine>) -> G1Projective {
    keys.into_iter()
        .fold(G1Projective::identity(), |acc, k| acc + k)
}

/// `CoreVerify(pk, message, signature)` for an already validated signature point: false for a
/// key at infinity.
#[cfg(not(feature = "beacon-field32"))]
pub fn verify(key: &G1Projective, message: &[u8], sig: &G2Affine) -> bool {
    let key = G1Affine::from(key);
    if bool::from(key.is_identity()) {
        return false;
    }
    let h = G2Prepared::from(hash_to_g2(message));
    let s = G2Prepared::from(*sig);
    let neg_g1 = -G1Affine::generator();
    multi_miller_loop(&[(&key, &h), (&neg_g1, &s)]).final_exponentiation() == Gt::identity()
}

/// `CoreVerify(pk, message, signature)` for an already validated signature point: false for a
/// key at infinity.
#[cfg(feature = "beacon-field32")]
pub fn verify(key: &G1Projective, message: &[u8], sig: &G2Affine) -> bool {
    let key = G1Affine::from(key);
    if bool::from(key.is_identity()) {
        return false;
    }
    let (Some(key), Some(h), Some(sig)) = (g1(&key), g2(&hash_to_g2(message)), g2(sig)) else {
        return false;
    };
    fast::pairing_product_is_one([key, -fast::G1Affine::generator()], [h, sig])
}

#[cfg(feature = "beacon-field32")]
/// A base-field element from its 48 big-endian bytes (`bytes[0]`'s flag bits cleared by the
/// caller): None at or above p.
fn fq(bytes: &[u8]) -> Option<fast::Fq> {
    let mut words = [0u64; 6];
    for (w, chunk) in words.iter_mut().rev().zip(bytes.chunks_exact(8)) {
        *w = u64::from_be_bytes(chunk.try_into().ok()?);
    }
    fast::Fq::from_bigint(BigInt(words))
}

#[cfg(feature = "beacon-field32")]
/// zkcrypto's G1 point on `lightprov-field`'s curve, through its uncompressed encoding
/// (x ‖ y, the flags in x's top bits): infinity is refused here (the callers have refused it).
fn g1(p: &G1Affine) -> Option<fast::G1Affine> {
    let mut b = p.to_uncompressed();
    if bool::from(p.is_identity()) {
        return None;
    }
    let first = b.first_mut()?;
    *first &= 0x1f;
    let (x, y) = b.split_at(48);
    Some(fast::G1Affine::new_unchecked(fq(x)?, fq(y)?))
}

#[cfg(feature = "beacon-field32")]
/// zkcrypto's G2 point on `lightprov-field`'s curve, through its uncompressed encoding
/// (x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0, the flags in the first byte's top bits); infinity to infinity.
fn g2(p: &G2Affine) -> Option<fast::G2Affine> {
    if bool::from(p.is_identity()) {
        return Some(fast::G2Affine::identity());
    }
    let mut b = p.to_uncompressed();
    let first = b.first_mut()?;
    *first &= 0x1f;
    let part = |i: usize| b.get(48 * i..48 * (i + 1)).and_then(fq);
    let x = QuadExtField::new(part(1)?, part(0)?);
    let y = QuadExtField::new(part(3)?, part(2)?);
    Some(fast::G2Affine::new_unchecked(x, y))
}

/// `FastAggregateVerify(keys, message, signature)` (IETF): false for no keys.
pub fn fast_aggregate_verify(keys: &[G1Affine], message: &[u8], sig: &G2Affine) -> bool {
    !keys.is_empty() && verify(&aggregate(keys), message, sig)
}

/// `eth_fast_aggregate_verify`: as [`fast_aggregate_verify`], but no keys with the signature at
/// infinity is valid (the consensus specs' variant).
pub fn eth_fast_aggregate_verify(keys: &[G1Affine], message: &[u8], sig: &G2Affine) -> bool {
    if keys.is_empty() && bool::from(sig.is_identity()) {
        return true;
    }
    fast_aggregate_verify(keys, message, sig)
}
