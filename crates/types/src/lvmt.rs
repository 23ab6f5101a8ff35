//! LVMT: the hashing rules of its per-block tuple trees and of the history root.
//!
//! Every block appends one Merkle tree over the tuples it wrote — `(stateKey, version, value,
//! level, slot)` for keys and `(level, prefix, version, commitment)` for sub-AMTs — and the
//! history root is a Merkle tree over the per-block roots, block 0 first. Both are RFC 9162
//! (Certificate Transparency) trees: for `n > 1` leaves, `MTH = H(node ‖ MTH(first k) ‖ MTH(rest))`
//! with `k` the largest power of two below `n`, so a tree only ever grows on the right and an
//! inclusion proof is the RFC's audit path. SHA-256 with one domain byte per kind:
//!
//! | what | preimage |
//! |---|---|
//! | key tuple | `0x20 ‖ stateKey(32) ‖ version(u64) ‖ value(32) ‖ level(u8) ‖ slot(u8)` |
//! | sub-AMT tuple | `0x21 ‖ level(u8) ‖ prefix(32) ‖ version(u64) ‖ commitment(32)` |
//! | inner node | `0x22 ‖ left ‖ right` |
//! | history leaf | `0x23 ‖ block(u64) ‖ block tree root` |
//! | empty tree | `0x24` |
//!
//! A sub-AMT at level `l` is named by `prefix`: keccak256(stateKey) with every bit from `D·l` on
//! cleared (the bits that choose it level by level).

use alloc::vec::Vec;

use sha2::{Digest, Sha256};

use crate::{B256, Word};

/// Domain byte of a key tuple.
pub const KEY_TUPLE: u8 = 0x20;
/// Domain byte of a sub-AMT tuple.
pub const AMT_TUPLE: u8 = 0x21;
/// Domain byte of an inner node.
pub const NODE: u8 = 0x22;
/// Domain byte of a history leaf.
pub const HISTORY_LEAF: u8 = 0x23;
/// Domain byte of an empty tree.
pub const EMPTY: u8 = 0x24;

fn out(h: Sha256) -> B256 {
    B256::from(<[u8; 32]>::from(h.finalize()))
}

/// The leaf hash of a key tuple.
pub fn key_tuple(key: &B256, version: u64, value: &Word, level: u8, slot: u8) -> B256 {
    let mut h = Sha256::new();
    h.update([KEY_TUPLE]);
    h.update(key);
    h.update(version.to_be_bytes());
    h.update(value);
    h.update([level, slot]);
    out(h)
}

/// The leaf hash of a sub-AMT tuple.
pub fn amt_tuple(level: u8, prefix: &B256, version: u64, commitment: &[u8; 32]) -> B256 {
    let mut h = Sha256::new();
    h.update([AMT_TUPLE, level]);
    h.update(prefix);
    h.update(version.to_be_bytes());
    h.update(commitment);
    out(h)
}

/// An inner node.
pub fn node(left: &B256, right: &B256) -> B256 {
    let mut h = Sha256::new();
    h.update([NODE]);
    h.update(left);
    h.update(right);
    out(h)
}

/// The leaf of block `block` in the history tree.
pub fn history_leaf(block: u64, block_root: &B256) -> B256 {
    let mut h = Sha256::new();
    h.update([HISTORY_LEAF]);
    h.update(block.to_be_bytes());
    h.update(block_root);
    out(h)
}

/// The root of an empty tree (a block that wrote nothing).
pub fn empty() -> B256 {
    out(Sha256::new().chain_update([EMPTY]))
}

/// The RFC 9162 root over leaf hashes.
pub fn root(leaves: &[B256]) -> B256 {
    match leaves {
        [] => empty(),
        [one] => *one,
        _ => {
            let k = split(leaves.len());
            let (l, r) = leaves.split_at(k);
            node(&root(l), &root(r))
        }
    }
}

/// The largest power of two below `n` (n ≥ 2).
fn split(n: usize) -> usize {
    let mut k = 1;
    while k * 2 < n {
        k *= 2;
    }
    k
}

/// The RFC 9162 audit path of leaf `index` (siblings from the leaf up).
pub fn audit_path(leaves: &[B256], index: usize) -> Vec<B256> {
    let mut path = Vec::new();
    collect_path(leaves, index, &mut path);
    path
}

fn collect_path(leaves: &[B256], index: usize, path: &mut Vec<B256>) {
    if leaves.len() <= 1 {
        return;
    }
    let k = split(leaves.len());
    let (l, r) = leaves.split_at(k);
    if index < k {
        collect_path(l, index, path);
        path.push(root(r));
    } else {
        collect_path(r, index - k, path);
        path.push(root(l));
    }
}

/// The RFC 9162 §2.1.3.2 check: recomputes the root from a leaf hash, its index, the tree size
/// and the audit path. `None` if the path cannot belong to a tree of that size.
///
/// As in RFC 9162, a path can fit more than one tree size; what a leaf means is in its own
/// contents (a history leaf names its block, a tuple its key and version), never in its index.
pub fn root_from_path(leaf: &B256, index: u64, size: u64, path: &[B256]) -> Option<B256> {
    if index >= size {
        return None;
    }
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in path {
        if s == 0 {
            return None;
        }
        if f & 1 == 1 || f == s {
            r = node(p, &r);
            if f & 1 == 0 {
                while f & 1 == 0 && f != 0 {
                    f >>= 1;
                    s >>= 1;
                }
            }
        } else {
            r = node(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    (s == 0).then_some(r)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn leaf(i: u64) -> B256 {
        history_leaf(i, &B256::repeat_byte(i as u8))
    }

    #[test]
    fn every_leaf_of_every_size_proves_and_nothing_else_does() {
        for n in 1..=40usize {
            let leaves: Vec<B256> = (0..n as u64).map(leaf).collect();
            let r = root(&leaves);
            for i in 0..n {
                let path = audit_path(&leaves, i);
                assert_eq!(
                    root_from_path(&leaves[i], i as u64, n as u64, &path),
                    Some(r)
                );
                // Another index, size or leaf does not give the root.
                for j in 0..n {
                    if j != i {
                        assert_ne!(
                            root_from_path(&leaves[i], j as u64, n as u64, &path),
                            Some(r)
                        );
                    }
                }
                assert_ne!(
                    root_from_path(&leaf(99), i as u64, n as u64, &path),
                    Some(r)
                );
                if !path.is_empty() {
                    let mut short = path.clone();
                    short.pop();
                    assert_ne!(
                        root_from_path(&leaves[i], i as u64, n as u64, &short),
                        Some(r)
                    );
                    let mut long = path.clone();
                    long.push(r);
                    assert_ne!(
                        root_from_path(&leaves[i], i as u64, n as u64, &long),
                        Some(r)
                    );
                }
            }
        }
        assert_eq!(root(&[]), empty());
        assert_eq!(root_from_path(&leaf(0), 0, 0, &[]), None);
    }

    #[test]
    fn leaf_kinds_are_domain_separated() {
        let k = B256::repeat_byte(1);
        let a = key_tuple(&k, 1, &[2; 32], 0, 1);
        let b = amt_tuple(0, &k, 1, &[2; 32]);
        let c = node(&k, &k);
        let d = history_leaf(1, &k);
        let all = [a, b, c, d, empty()];
        for (i, x) in all.iter().enumerate() {
            assert!(all[..i].iter().all(|y| y != x));
        }
    }
}
