//! BLS12-381 signatures as the sync committee makes them: the proof-of-possession ciphersuite
//! `BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_` (IETF draft-irtf-cfrg-bls-signature-05,
//! §2.5 CoreVerify, §3.3.4 FastAggregateVerify), public keys in G1 and signatures in G2, on
//! zkcrypto's pure-Rust `bls12_381` (hash to curve: RFC 9380, SSWU to G2 with SHA-256).
//!
//! Every point is decompressed with its subgroup check; a public key at infinity is refused
//! (KeyValidate), and so is an aggregate at infinity. Verification is one multi-Miller loop of
//! two pairs and one final exponentiation: `e(pk, H(m)) · e(−g1, σ) = 1`.

use bls12_381::{
    G1Affine, G1Projective, G2Affine, G2Prepared, G2Projective, Gt,
    hash_to_curve::{ExpandMsgXmd, HashToCurve},
    multi_miller_loop,
};

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
