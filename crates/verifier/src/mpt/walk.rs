//! The proof walk: from the root, follow the key's nibbles through the proof's nodes until the
//! path ends at a value, an empty slot, a diverging extension or a leaf of another key.
//!
//! Strict policy (geth's `eth_getProof` shape): the proof lists, in order, every node on the
//! path that its parent references by hash, and nothing else. Inline nodes (under 32 bytes) are
//! read from inside their parent and never listed. Anything after the node that ends the path,
//! a repeated node, a node out of order or a missing node is rejected with its own error.

use alloc::vec::Vec;

use crate::keccak256;
use alloy_primitives::B256;
use lightprov_types::EMPTY_ROOT_HASH;

use super::{
    MptError,
    node::{Child, Node, is_empty_string, nibble},
};

/// What a proof proves about a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Proven<'a> {
    /// The key holds this value (the raw leaf or branch value).
    Present(&'a [u8]),
    /// The key is absent.
    Absent(Absence),
}

/// How the path of an absent key ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Absence {
    /// The trie is empty.
    EmptyTrie,
    /// A branch has no child (or no value) where the key goes.
    EmptySlot,
    /// An extension's path diverges from the key.
    DivergingExtension,
    /// A leaf of another key sits where the key's path goes.
    OtherLeaf,
}

enum Next<'a> {
    Hash(B256),
    Inline(&'a [u8]),
}

/// Walks `proof` from `root` along `key` (the trie path as bytes: keccak256 of the address or
/// slot for Ethereum's secure tries) and returns what it proves.
pub fn prove<'a>(root: &B256, key: &[u8], proof: &[&'a [u8]]) -> Result<Proven<'a>, MptError> {
    let key_len = 2 * key.len();
    let mut next = Next::Hash(*root);
    let mut idx = 0; // next unread proof node
    let mut depth = 0; // nibbles of the key consumed
    // The node decoded from the last hashed proof entry. Only it can hold hash references:
    // an inline node is under 32 bytes, a hash reference 33.
    let mut hashed: Option<Node<'a>> = None;
    let mut below_extension = false;
    loop {
        let (bytes, from_proof) = match next {
            Next::Hash(h) => {
                let Some(&n) = proof.get(idx) else {
                    if idx == 0 && h == EMPTY_ROOT_HASH {
                        return Ok(Proven::Absent(Absence::EmptyTrie));
                    }
                    return Err(MptError::TruncatedProof { nodes: idx });
                };
                if keccak256(n) != h {
                    return Err(diagnose_link(proof, idx, &h, hashed.as_ref()));
                }
                if idx == 0 && is_empty_string(n) {
                    // The root is keccak256(RLP("")): the empty trie, sent as one empty node.
                    return finish(proof, 1, Proven::Absent(Absence::EmptyTrie), None);
                }
                if idx > 0 && n.len() < 32 {
                    // A trie embeds such a node in its parent; only the root is hashed whatever
                    // its size.
                    return Err(MptError::MalformedNode {
                        index: idx,
                        reason: "a node under 32 bytes is referenced by hash",
                    });
                }
                idx += 1;
                (n, true)
            }
            Next::Inline(n) => (n, false),
        };
        // An inline node is reported at the proof node that embeds it.
        let index = idx.saturating_sub(1);
        let malformed = |reason| MptError::MalformedNode { index, reason };
        let node = Node::decode(bytes).map_err(malformed)?;
        if below_extension && !matches!(node, Node::Branch { .. }) {
            // A leaf or extension below an extension would have been merged into it.
            return Err(malformed("an extension's child is not a branch"));
        }
        below_extension = matches!(node, Node::Extension { .. });
        let outcome = match node {
            Node::Branch { children, value } => {
                if depth == key_len {
                    Some(value.map_or(Proven::Absent(Absence::EmptySlot), Proven::Present))
                } else {
                    let child = children.get(usize::from(nibble(key, depth))).copied();
                    depth += 1;
                    match child {
                        Some(Child::Hash(h)) => {
                            next = Next::Hash(B256::from(*h));
                            None
                        }
                        Some(Child::Inline(n)) => {
                            next = Next::Inline(n);
                            None
                        }
                        Some(Child::Empty) | None => Some(Proven::Absent(Absence::EmptySlot)),
                    }
                }
            }
            Node::Extension { path, child } => {
                if follows(key, depth, &path) {
                    depth += path.len();
                    next = match child {
                        Child::Hash(h) => Next::Hash(B256::from(*h)),
                        Child::Inline(n) => Next::Inline(n),
                        Child::Empty => return Err(malformed("an extension has no child")),
                    };
                    None
                } else {
                    Some(Proven::Absent(Absence::DivergingExtension))
                }
            }
            Node::Leaf { path, value } => {
                if follows(key, depth, &path) && depth + path.len() == key_len {
                    Some(Proven::Present(value))
                } else {
                    Some(Proven::Absent(Absence::OtherLeaf))
                }
            }
        };
        if from_proof {
            hashed = Some(node);
        }
        if let Some(outcome) = outcome {
            return finish(proof, idx, outcome, hashed.as_ref());
        }
    }
}

/// Does the key, from nibble `depth` on, start with `path`?
fn follows(key: &[u8], depth: usize, path: &super::node::Path<'_>) -> bool {
    depth + path.len() <= 2 * key.len()
        && (0..path.len()).all(|i| nibble(key, depth + i) == path.nibble(i))
}

/// The path ended; any node left over is an error.
fn finish<'a>(
    proof: &[&[u8]],
    idx: usize,
    outcome: Proven<'a>,
    last: Option<&Node<'_>>,
) -> Result<Proven<'a>, MptError> {
    let Some(&extra) = proof.get(idx) else {
        return Ok(outcome);
    };
    if let Some(first) = proof.iter().take(idx).position(|&n| n == extra) {
        return Err(MptError::DuplicateNode { index: idx, first });
    }
    if last.is_some_and(|node| references(node, &keccak256(extra))) {
        return Err(MptError::KeyMismatch { index: idx });
    }
    Err(MptError::ExtraNodes {
        index: idx,
        count: proof.len() - idx,
    })
}

/// Does `node` hold `hash` as a child reference?
fn references(node: &Node<'_>, hash: &B256) -> bool {
    let is = |c: &Child<'_>| matches!(c, Child::Hash(h) if *h == &hash.0);
    match node {
        Node::Branch { children, .. } => children.iter().any(is),
        Node::Extension { child, .. } => is(child),
        Node::Leaf { .. } => false,
    }
}

/// Node `idx` does not hash to `expected`: name what is wrong as precisely as the proof allows.
fn diagnose_link(
    proof: &[&[u8]],
    idx: usize,
    expected: &B256,
    parent: Option<&Node<'_>>,
) -> MptError {
    let Some(&node) = proof.get(idx) else {
        return MptError::TruncatedProof { nodes: idx };
    };
    if let Some(first) = proof.iter().take(idx).position(|&n| n == node) {
        return MptError::DuplicateNode { index: idx, first };
    }
    let got = keccak256(node);
    if proof
        .iter()
        .skip(idx + 1)
        .any(|n| keccak256(n) == *expected)
    {
        return MptError::NodesOutOfOrder { index: idx };
    }
    if idx == 0 {
        return MptError::RootMismatch {
            expected: *expected,
            got,
        };
    }
    if parent.is_some_and(|p| references(p, &got)) {
        return MptError::KeyMismatch { index: idx };
    }
    MptError::NodeHashMismatch {
        index: idx,
        expected: *expected,
        got,
    }
}

/// Verifies that `proof` proves `key` holds `expected` (`None`: the key is absent).
///
/// `expected` is compared with the raw value stored in the trie (for Ethereum's tries, the RLP
/// of the account or of the storage word).
pub fn verify_proof(
    root: &B256,
    key: &[u8],
    expected: Option<&[u8]>,
    proof: &[&[u8]],
) -> Result<(), MptError> {
    match (prove(root, key, proof)?, expected) {
        (Proven::Present(got), Some(want)) if got == want => Ok(()),
        (Proven::Absent(_), None) => Ok(()),
        (got, want) => Err(MptError::ValueMismatch {
            expected: want.map(<[u8]>::to_vec),
            got: match got {
                Proven::Present(v) => Some(v.to_vec()),
                Proven::Absent(_) => None,
            },
        }),
    }
}

/// Helper for callers holding owned nodes.
pub fn as_slices(nodes: &[Vec<u8>]) -> Vec<&[u8]> {
    nodes.iter().map(Vec::as_slice).collect()
}
