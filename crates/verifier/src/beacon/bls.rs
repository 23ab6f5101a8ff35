//! BLS12-381 signatures as the sync committee makes them: the proof-of-possession ciphersuite
//! `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_` (IETF draft-irtf-cfrg-bls-signature-05,
//! §2.5 CoreVerify, §3.3.4 FastAggregateVerify), public keys in G1 and signatures in G2, on
//! `lightprov-field`'s BLS12-381 (arkworks' curve and pairing on a field backend made for
//! wasm32; hash to curve: RFC 9380, SSWU to G2 with SHA-256).
//!
//! Every point is decompressed from the ZCash encoding with its flag checks, its coordinates
//! below p, and its subgroup check (the endomorphism tests); a public key at infinity is refused
//! (KeyValidate), and so is an aggregate at infinity. Verification is one multi-Miller loop of
//! two pairs and one final exponentiation: `e(pk, H(m)) · e(−g1, σ) = 1`.

use ark_ec::AffineRepr;
use ark_ff::Zero;
use lightprov_field::bls12_381::{self as curve};
pub use lightprov_field::bls12_381::{G1Affine, G1Projective, G2Affine};
pub(super) use lightprov_field::bls12_381::{g1_add, g1_sub};

/// The ciphersuite's domain separation tag.
pub const DST: &[u8] = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";

/// A public key (`KeyValidate`): a compressed G1 point in the subgroup, not at infinity.
pub fn public_key(bytes: &[u8; 48]) -> Option<G1Affine> {
    curve::g1_from_compressed(bytes).filter(|p| !p.is_zero())
}

/// A signature: a compressed G2 point in the subgroup (infinity included).
pub fn signature(bytes: &[u8; 96]) -> Option<G2Affine> {
    curve::g2_from_compressed(bytes)
}

/// `hash_to_curve(message)` in G2 with the ciphersuite's tag.
pub fn hash_to_g2(message: &[u8]) -> Option<G2Affine> {
    hash_to_g2_with(message, DST)
}

/// `hash_to_curve(message)` in G2 (`BLS12381G2_XMD:SHA-256_SSWU_RO_`) with the tag `dst`:
/// None only for a tag the expander refuses (over 255 bytes).
pub fn hash_to_g2_with(message: &[u8], dst: &[u8]) -> Option<G2Affine> {
    curve::hash_to_g2(message, dst)
}

/// The sum of `keys`.
pub fn aggregate<'a>(keys: impl IntoIterator<Item = &'a G1Affine>) -> G1Projective {
    let mut acc = G1Projective::zero();
    for k in keys {
        curve::g1_add(&mut acc, k);
    }
    acc
}

/// `CoreVerify(pk, message, signature)` for an already validated signature point: false for a
/// key at infinity.
pub fn verify(key: &G1Projective, message: &[u8], sig: &G2Affine) -> bool {
    let key = curve::g1_to_affine(key);
    if key.is_zero() {
        return false;
    }
    let Some(h) = hash_to_g2(message) else {
        return false;
    };
    curve::pairing_product_is_one([key, -G1Affine::generator()], [h, *sig])
}

/// `FastAggregateVerify(keys, message, signature)` (IETF): false for no keys.
pub fn fast_aggregate_verify(keys: &[G1Affine], message: &[u8], sig: &G2Affine) -> bool {
    !keys.is_empty() && verify(&aggregate(keys), message, sig)
}

/// `eth_fast_aggregate_verify`: as [`fast_aggregate_verify`], but no keys with the signature at
/// infinity is valid (the consensus specs' variant).
pub fn eth_fast_aggregate_verify(keys: &[G1Affine], message: &[u8], sig: &G2Affine) -> bool {
    if keys.is_empty() && sig.is_zero() {
        return true;
    }
    fast_aggregate_verify(keys, message, sig)
}
