//! The complete changes between two blocks (§4.1.3: MBT diff is positional — both trees have the
//! same shape, so nodes at equal positions are compared).
//!
//! The proof is one tree walked in both versions at once: a subtree the same in both blocks is
//! one hash, an inner node that differs gives its `m` children, a bucket that differs gives all
//! its entries in each block. The verifier rebuilds both roots from it — every bucket's entries
//! strictly increasing and of that bucket (`RESULTS_OUT_OF_ORDER`, `WRONG_BUCKET`), the bucket
//! index taken from its position — and checks them against the two trusted roots, old first
//! (`ROOT_MISMATCH`). The changes are not the prover's list: they are read off the buckets that
//! differ, so a change left out (its bucket sent as one hash) or added (an entry the block does
//! not hold) breaks a root.

use alloc::{format, vec::Vec};

use lightprov_types::{
    B256, DecodeError, Word,
    mbt::{DiffNode, DiffProof, Entry, MbtError, MbtParams, hash},
};

use super::{bucket_hash, check_params};

/// The two blocks' roots and the chain's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiffTrusted {
    /// The tree's parameters.
    pub params: MbtParams,
    /// `mbtRoot` of the older block.
    pub old_root: B256,
    /// `mbtRoot` of the newer block.
    pub new_root: B256,
}

/// One key whose value differs between the two blocks (zero: absent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// The state key.
    pub key: B256,
    /// Its value in the older block.
    pub old: Word,
    /// Its value in the newer block.
    pub new: Word,
}

/// Decodes and verifies a diff proof: every change between the two roots, by bucket then key.
pub fn verify_diff(t: &DiffTrusted, proof: &[u8]) -> Result<Vec<Change>, MbtError> {
    verify_diff_proof(t, &DiffProof::decode(proof)?)
}

/// Verifies a decoded diff proof (see the module docs).
pub fn verify_diff_proof(t: &DiffTrusted, p: &DiffProof) -> Result<Vec<Change>, MbtError> {
    check_params(&t.params, &p.params)?;
    let mut changes = Vec::new();
    let (old, new) = walk(&t.params, &p.root, 0, 0, "root", &mut changes)?;
    for (field, expected, found) in [("oldRoot", t.old_root, old), ("newRoot", t.new_root, new)] {
        if expected != found {
            return Err(MbtError::RootMismatch {
                field: field.into(),
                expected,
                found,
            });
        }
    }
    Ok(changes)
}

/// The old and new hashes of `node`, the `index`-th node of level `level`; pushes the changes of
/// its buckets. Recursion is bounded by the depth the decoder checked.
fn walk(
    p: &MbtParams,
    node: &DiffNode,
    level: u8,
    index: u64,
    field: &str,
    changes: &mut Vec<Change>,
) -> Result<(B256, B256), MbtError> {
    // The decoder gives only this shape; a proof built in memory is held to it too.
    let at_buckets = level >= p.depth();
    let shape = |reason| Err(MbtError::Decode(DecodeError::new(field, reason)));
    match node {
        DiffNode::Same(h) => Ok((*h, *h)),
        DiffNode::Inner(_) if at_buckets => shape("an inner node at the buckets' level"),
        DiffNode::Inner(c) if c.len() != usize::from(p.fanout()) => {
            shape("an inner node of another width than the fanout")
        }
        DiffNode::Bucket { .. } if !at_buckets => shape("a bucket above the buckets' level"),
        DiffNode::Inner(children) => {
            let mut olds = Vec::with_capacity(children.len());
            let mut news = Vec::with_capacity(children.len());
            for (j, c) in children.iter().enumerate() {
                let child = index
                    .saturating_mul(u64::from(p.fanout()))
                    .saturating_add(j as u64);
                let (o, n) = walk(p, c, level + 1, child, &format!("{field}.{j}"), changes)?;
                olds.push(o);
                news.push(n);
            }
            Ok((
                hash::inner(p, level, olds.iter()),
                hash::inner(p, level, news.iter()),
            ))
        }
        DiffNode::Bucket { old, new } => {
            // A slot past the last bucket holds no key's bucket: any entry there is foreign.
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            let named = |side: &'static str| move |i| format!("{field}.{side}[{i}]");
            let o = bucket_hash(p, index, old, named("old"))?;
            let n = bucket_hash(p, index, new, named("new"))?;
            merge(old, new, changes);
            Ok((o, n))
        }
    }
}

/// The changes between two sorted lists of one bucket.
fn merge(old: &[Entry], new: &[Entry], changes: &mut Vec<Change>) {
    use core::cmp::Ordering;
    let (mut o, mut n) = (old.iter().peekable(), new.iter().peekable());
    loop {
        let order = match (o.peek(), n.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(a), Some(b)) => a.key.cmp(&b.key),
        };
        let (a, b) = match order {
            Ordering::Less => (o.next(), None),
            Ordering::Greater => (None, n.next()),
            Ordering::Equal => (o.next(), n.next()),
        };
        let (Some(key), old, new) = (
            a.or(b).map(|e| e.key),
            a.map_or([0; 32], |e| e.value),
            b.map_or([0; 32], |e| e.value),
        ) else {
            break;
        };
        if old != new {
            changes.push(Change { key, old, new });
        }
    }
}

/// Which two blocks a diff is asked between (the roots are what the proof is checked against;
/// the blocks name them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiffQuery {
    /// The older block.
    pub from: u64,
    /// The newer block.
    pub to: u64,
}

crate::family::verify_shape! {
    /// Merkle Bucket Tree diff proofs in the one verify shape.
    pub struct Diff: &lightprov_types::mbt::FAMILY;
    fn verify(t: &DiffTrusted, _: &DiffQuery, proof) -> Result<Vec<Change>, MbtError> {
        verify_diff(t, proof)
    }
}
