//! A state key's value, or its absence, at one block against that block's `mbtRoot`.
//!
//! Checks, in order: the proof decodes (`BAD_ENCODING`); it is made under the trusted parameters
//! (`PARAMS_MISMATCH`) for the asked key (`KEY_MISMATCH`); it has exactly the tree's depth of
//! inner levels (`TRUNCATED_PROOF`, `EXTRA_NODES`); the bucket's entries are strictly increasing
//! and each of the key's bucket (`RESULTS_OUT_OF_ORDER`, `WRONG_BUCKET`); the root rebuilt
//! from the bucket up — the path's slot in each node computed from the bucket index — is the
//! trusted one (`ROOT_MISMATCH`). The key's value is then its entry's, or absent when the full
//! bucket lacks it.

use alloc::{format, vec::Vec};

use lightprov_types::{
    B256, DecodeError, Word,
    mbt::{MbtError, MbtParams, MbtProof, hash},
};

use super::{bucket_hash, bucket_of, check_depth, check_params, lookup};

/// What a block's header and the chain pin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trusted {
    /// The tree's parameters.
    pub params: MbtParams,
    /// The block's `mbtRoot`.
    pub root: B256,
}

/// Decodes and verifies a proof of `key` against `root`: its value, or `None` if absent.
pub fn verify(
    params: &MbtParams,
    root: &B256,
    key: &B256,
    proof: &[u8],
) -> Result<Option<Word>, MbtError> {
    verify_proof(params, root, key, &MbtProof::decode(proof)?)
}

/// [`verify`], then checks the proven value is `claimed` (`None`: absent) — `VALUE_MISMATCH`.
pub fn verify_value(
    params: &MbtParams,
    root: &B256,
    key: &B256,
    claimed: Option<&Word>,
    proof: &[u8],
) -> Result<(), MbtError> {
    let found = verify(params, root, key, proof)?;
    if found.as_ref() != claimed {
        return Err(MbtError::ValueMismatch {
            expected: claimed.copied(),
            found,
        });
    }
    Ok(())
}

/// Verifies a decoded proof (see the module docs).
pub fn verify_proof(
    params: &MbtParams,
    root: &B256,
    key: &B256,
    p: &MbtProof,
) -> Result<Option<Word>, MbtError> {
    check_params(params, &p.params)?;
    if p.key != *key {
        return Err(MbtError::KeyMismatch {
            expected: *key,
            found: p.key,
        });
    }
    check_depth(params, p.levels.len())?;
    // The decoder gives `m − 1` siblings per level; a proof built in memory is held to it too.
    let siblings = usize::from(params.fanout()) - 1;
    if let Some(l) = p.levels.iter().position(|s| s.len() != siblings) {
        return Err(MbtError::Decode(DecodeError::new(
            format!("levels[{l}]"),
            "another number of siblings than the fanout less one",
        )));
    }
    let bucket = bucket_of(params, key);
    let mut h = bucket_hash(params, bucket, &p.entries, |i| format!("entries[{i}]"))?;
    let mut children: Vec<B256> = Vec::with_capacity(usize::from(params.fanout()));
    // From the bucket up: the path's hash goes into the slot the bucket index gives.
    for (l, siblings) in p.levels.iter().enumerate().rev() {
        // `l < depth ≤ 24`.
        let level = l as u8;
        let slot = params.slot(bucket, level);
        children.clear();
        children.extend(siblings.iter().take(slot));
        children.push(h);
        children.extend(siblings.iter().skip(slot));
        h = hash::inner(params, level, children.iter());
    }
    if h != *root {
        return Err(MbtError::RootMismatch {
            field: "root".into(),
            expected: *root,
            found: h,
        });
    }
    Ok(lookup(&p.entries, key))
}

crate::family::verify_shape! {
    /// Merkle Bucket Tree value proofs (presence or absence) in the one verify shape.
    pub struct Value: &lightprov_types::mbt::FAMILY;
    fn verify(t: &Trusted, key: &B256, proof) -> Result<Option<Word>, MbtError> {
        verify(&t.params, &t.root, key, proof)
    }
}
