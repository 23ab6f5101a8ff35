//! A state key's value at every block of a range, from one proof: the union of the key's paths
//! in every block's tree, each node sent once however many versions share it (the tree's nodes
//! are content-addressed, so a subtree no write touched is the same node in both blocks).
//!
//! Checks, in order: the proof decodes (`BAD_ENCODING`); parameters, key and range are the
//! trusted ones, and the trusted roots cover the range (`PARAMS_MISMATCH`, `KEY_MISMATCH`,
//! `RANGE_MISMATCH`); it has the tree's depth of levels (`TRUNCATED_PROOF`, `EXTRA_NODES`); the
//! verifier hashes every node itself, at its level, and each level's nodes (and the buckets) are
//! strictly increasing by hash (`DUPLICATE_NODE`, `NODES_OUT_OF_ORDER`), every bucket's entries
//! strictly increasing and of the key's bucket (`RESULTS_OUT_OF_ORDER`, `WRONG_BUCKET`); then
//! each block's path is followed from its trusted root, taking in every node the slot the key's
//! bucket index gives, down to an empty subtree or a bucket — a hash the set lacks fails
//! (`NODE_HASH_MISMATCH`); finally every node of the set must lie on some block's path
//! (`EXTRA_NODES`).

use alloc::{format, vec::Vec};

use lightprov_types::{
    B256, DecodeError, Word,
    mbt::{HistoryProof, MAX_HISTORY_BLOCKS, MbtError, MbtParams, hash},
};

use super::{bucket_hash, bucket_of, check_depth, check_params, lookup};

/// The chain's parameters and the trusted roots of blocks `lo..=hi`, in order.
#[derive(Clone, Copy, Debug)]
pub struct HistoryTrusted<'a> {
    /// The tree's parameters.
    pub params: MbtParams,
    /// `mbtRoot` of each block of the range, the first block's first.
    pub roots: &'a [B256],
}

/// A state key over blocks `lo..=hi`.
pub use crate::HistoryQuery;

/// A verified history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct History {
    /// The first block.
    pub lo: u64,
    /// The key's value after each block of the range, the first block's first (zero: absent).
    pub values: Vec<Word>,
}

impl History {
    /// The blocks where the value differs from the block before, with the new value (the first
    /// block always), oldest first.
    pub fn versions(&self) -> Vec<(u64, Word)> {
        let mut out: Vec<(u64, Word)> = Vec::new();
        for (b, v) in (self.lo..).zip(self.values.iter()) {
            if out.last().is_none_or(|(_, last)| last != v) {
                out.push((b, *v));
            }
        }
        out
    }
}

/// Decodes and verifies a history proof (see the module docs).
pub fn verify_history(
    t: &HistoryTrusted<'_>,
    q: &HistoryQuery,
    proof: &[u8],
) -> Result<History, MbtError> {
    verify_history_proof(t, q, &HistoryProof::decode(proof)?)
}

/// One node of the set: its hash, what it holds, and whether a path used it.
struct Known<'a, T: ?Sized> {
    hash: B256,
    body: &'a T,
    used: bool,
}

/// Hashes a level's nodes and checks them strictly increasing by hash.
fn index_level<'a, T: ?Sized>(
    bodies: impl Iterator<Item = Result<(B256, &'a T), MbtError>>,
    field: impl Fn(usize) -> alloc::string::String,
) -> Result<Vec<Known<'a, T>>, MbtError> {
    let mut out: Vec<Known<'a, T>> = Vec::new();
    for (i, b) in bodies.enumerate() {
        let (hash, body) = b?;
        if let Some(prev) = out.last() {
            if prev.hash == hash {
                return Err(MbtError::DuplicateNode { field: field(i) });
            }
            if prev.hash > hash {
                return Err(MbtError::NodesOutOfOrder { field: field(i) });
            }
        }
        out.push(Known {
            hash,
            body,
            used: false,
        });
    }
    Ok(out)
}

/// The node hashing to `h`, marked used.
fn find<'a, T: ?Sized>(set: &mut [Known<'a, T>], h: &B256) -> Option<&'a T> {
    let i = set.binary_search_by(|k| k.hash.cmp(h)).ok()?;
    let k = set.get_mut(i)?;
    k.used = true;
    Some(k.body)
}

/// Verifies a decoded history proof (see the module docs).
pub fn verify_history_proof(
    t: &HistoryTrusted<'_>,
    q: &HistoryQuery,
    p: &HistoryProof,
) -> Result<History, MbtError> {
    let params = &t.params;
    check_params(params, &p.params)?;
    if p.key != q.key {
        return Err(MbtError::KeyMismatch {
            expected: q.key,
            found: p.key,
        });
    }
    if (p.lo, p.hi) != (q.lo, q.hi) {
        return Err(MbtError::RangeMismatch {
            expected: (q.lo, q.hi),
            found: (p.lo, p.hi),
        });
    }
    // The decoder bounds the range to 1024 blocks; a proof built in memory is held to it too.
    let blocks = match p.hi.checked_sub(p.lo) {
        Some(d) if d < MAX_HISTORY_BLOCKS => (d + 1) as usize,
        _ => {
            return Err(MbtError::Decode(DecodeError::new(
                "hi",
                "a range of 1 to 1024 blocks",
            )));
        }
    };
    if t.roots.len() != blocks {
        let covered = q.lo.saturating_add(t.roots.len() as u64).saturating_sub(1);
        return Err(MbtError::RangeMismatch {
            expected: (q.lo, covered),
            found: (p.lo, p.hi),
        });
    }
    let depth = check_depth(params, p.levels.len())?;
    let bucket = bucket_of(params, &q.key);
    let mut levels = Vec::with_capacity(p.levels.len());
    let fanout = usize::from(params.fanout());
    for (l, nodes) in p.levels.iter().enumerate() {
        if let Some(i) = nodes.iter().position(|n| n.len() != fanout) {
            return Err(MbtError::Decode(DecodeError::new(
                format!("levels[{l}][{i}]"),
                "a node of another width than the fanout",
            )));
        }
        // `l < depth ≤ 24`.
        let level = l as u8;
        levels.push(index_level(
            nodes
                .iter()
                .map(|n| Ok((hash::inner(params, level, n.iter()), n.as_slice()))),
            |i| format!("levels[{l}][{i}]"),
        )?);
    }
    let mut buckets = index_level(
        p.buckets.iter().enumerate().map(|(i, b)| {
            let h = bucket_hash(params, bucket, b, |j| format!("buckets[{i}][{j}]"))?;
            Ok((h, b.as_slice()))
        }),
        |i| format!("buckets[{i}]"),
    )?;
    let empty = hash::empty_levels(params);
    let mut values = Vec::with_capacity(blocks);
    for (block, root) in (p.lo..).zip(t.roots.iter()) {
        let missing = |field, hash| MbtError::NodeMissing { block, field, hash };
        let mut h = *root;
        let mut value = None;
        let mut l = 0u8;
        loop {
            if empty.get(usize::from(l)) == Some(&h) {
                // An empty subtree: the key's bucket is empty.
                break;
            }
            if l == depth {
                let Some(entries) = find(&mut buckets, &h) else {
                    return Err(missing("buckets".into(), h));
                };
                value = lookup(entries, &q.key);
                break;
            }
            let node = levels
                .get_mut(usize::from(l))
                .and_then(|set| find(set, &h))
                .ok_or_else(|| missing(format!("levels[{l}]"), h))?;
            h = node
                .get(params.slot(bucket, l))
                .copied()
                .ok_or_else(|| missing(format!("levels[{l}]"), h))?;
            l += 1;
        }
        values.push(value.unwrap_or([0; 32]));
    }
    for (l, set) in levels.iter().enumerate() {
        if let Some(i) = set.iter().position(|k| !k.used) {
            return Err(MbtError::UnusedNode {
                field: format!("levels[{l}][{i}]"),
            });
        }
    }
    if let Some(i) = buckets.iter().position(|k| !k.used) {
        return Err(MbtError::UnusedNode {
            field: format!("buckets[{i}]"),
        });
    }
    Ok(History { lo: p.lo, values })
}

crate::family::verify_shape! {
    /// Merkle Bucket Tree history proofs in the one verify shape.
    pub struct KeyHistory: &lightprov_types::mbt::FAMILY;
    fn verify(t: &HistoryTrusted<'a>, q: &HistoryQuery, proof) -> Result<History, MbtError> {
        verify_history(t, q, proof)
    }
}
