//! The POS-Tree family: a state key's value or absence at a block, a key range, the changes
//! between two blocks and a key's history, against a header's `posRoot`.
//! Rejections are [`PosError`]s.
//!
//! A POS-Tree (pattern-oriented split tree, Yue et al., SIGMOD'20, §3.4.3) is a B+-tree-like
//! Merkle tree whose node boundaries are content-defined. Leaves hold the sorted state entries
//! `(key, value)`; an inner node holds, per child, the child's **largest key** (its separator)
//! and the child's hash. A lookup of `k` takes the first child whose separator is `≥ k` (the
//! last child if none is), as ForkBase's `MetaNode::GetChildHashByKey` does.
//!
//! Our tree differs from the paper's code where that code is weak (docs/proofs.md):
//! - node boundaries depend on the **key only** ([`SplitRule`]): a value update rewrites exactly
//!   one path, and the shape of the tree is a function of its key set (history independence);
//! - a hard cap on entries per node, far above the mean, bounds what ground keys can do;
//! - separators are inside every inner node's hash (the COLE authors' Rust POS-tree leaves them
//!   out, so routing there is unauthenticated);
//! - SHA-256 over fixed-width big-endian encodings, with a domain tag per node kind.
//!
//! Hashes (SHA-256 of the node's encoding, which is also its wire form):
//!
//! | what | preimage |
//! |---|---|
//! | leaf | `0x00 ‖ n(u16) ‖ (key(32) ‖ value(32)) × n` |
//! | inner node at level L ≥ 1 | `0x01 ‖ L(u8) ‖ n(u16 ≥ 1) ‖ (separator(32) ‖ childHash(32)) × n` |
//! | empty tree | the leaf of no entries: `SHA-256(00 0000)` ([`empty_root`]) |
//! | boundary test (not a node) | `0x10 ‖ L(u8) ‖ key(32)` |
//!
//! All leaves are at level 0 and a child is one level below its parent. A leaf never holds a
//! zero value (writing zero deletes the key), so presence and absence each have one proof.
//!
//! Wire formats (big-endian integers, nothing after the last field):
//!
//! ```text
//! node        = 0x00 n(u16) (key value)*n                -- leaf
//!             | 0x01 level(u8) n(u16) (sep child)*n      -- inner node
//! PathProof   = 0x01 count(u8) node*count                -- root first, one key's path
//! tree        = 0x00 hash(32)                            -- pruned subtree
//!             | 0x01 n(u16) (key value)*n                -- leaf, whole
//!             | 0x02 level(u8) n(u16) (sep tree)*n       -- inner node, children inline
//! RangeProof  = 0x01 tree
//! DiffProof   = 0x01 tree(old) tree(new)
//! HistoryProof= 0x01 from(u64) to(u64) count(u32) item*count
//! item        = 0x00 node                                -- a node in full
//!             | 0x01 base(u32) count(u16) splice*count
//!                 -- the node of item `base` (earlier) with runs of its entries replaced
//!             | 0x02 base(u32) count(u16) (at(u16) value(32))*count
//!                 -- the node of item `base` with the values (child hashes) at `at` replaced;
//!                 -- positions strictly increasing, each value a change
//! splice      = at(u16) delete(u16) n(u16) entry*n     -- base entries at..at+delete become
//!                 -- the n given; runs in increasing `at`, apart, each changing something
//! ```

mod codec;
mod error;
pub mod prove;
pub mod split;

pub use codec::*;
pub use error::{PosError, Side};
pub use split::SplitRule;

use crate::{
    ErrorCode as E,
    family::{Commitment, Family, HeaderField, Tamper},
};

/// The root of the POS-Tree of the block's state: extraData bytes 160..192 of a lightprov chain
/// that runs the POS engine (forkless takes 96..128).
pub const POS_ROOT: Commitment = Commitment::at("posRoot", HeaderField::ExtraData, 160);

/// The POS-Tree family's registry entry.
pub const FAMILY: Family = Family {
    name: "pos",
    about: "a state key's value or absence, a key range, a diff and a history against a header's posRoot",
    commitments: &[&POS_ROOT],
    max_history_blocks: Some(MAX_HISTORY_BLOCKS),
    codes: &[
        E::BadEncoding,
        E::RootMismatch,
        E::NodeHashMismatch,
        E::KeyMismatch,
        E::TruncatedProof,
        E::ExtraNodes,
        E::DuplicateNode,
        E::BadShape,
        E::SeparatorsOutOfOrder,
        E::EntriesOutOfOrder,
        E::SeparatorMismatch,
        E::ChildOutOfRange,
        E::ValueMismatch,
        E::IncompleteRange,
        E::ExtraResults,
        E::RangeMismatch,
        E::UnmatchedSubtree,
        E::UnusedNode,
    ],
    tampers: &[
        Tamper::new(
            "value-changed",
            E::NodeHashMismatch,
            "a leaf's value changed (the root's hash, if the root is the leaf)",
        )
        .or(E::RootMismatch),
        Tamper::new(
            "separator-changed",
            E::RootMismatch,
            "an inner node's separator changed, its child hashes kept",
        ),
        Tamper::new(
            "other-child",
            E::KeyMismatch,
            "the path goes on to a child the key does not route to",
        ),
        Tamper::new(
            "node-of-another-tree",
            E::NodeHashMismatch,
            "a node below the root replaced by another tree's",
        ),
        Tamper::new("truncated-path", E::TruncatedProof, "the leaf left out"),
        Tamper::new(
            "extra-node",
            E::ExtraNodes,
            "a node appended after the leaf",
        ),
        Tamper::new(
            "claimed-absent",
            E::ValueMismatch,
            "a present key claimed absent",
        ),
        Tamper::new(
            "range-entry-hidden",
            E::IncompleteRange,
            "a leaf inside the range pruned to its hash",
        ),
        Tamper::new(
            "range-extra-leaf",
            E::ExtraResults,
            "a leaf outside the range revealed",
        ),
        Tamper::new(
            "diff-subtree-hidden",
            E::UnmatchedSubtree,
            "a changed subtree pruned in one version only",
        ),
        Tamper::new(
            "diff-shared-subtree-revealed",
            E::ExtraResults,
            "a subtree both versions share revealed in both",
        ),
        Tamper::new(
            "history-node-dropped",
            E::TruncatedProof,
            "a node one block's path needs left out",
        ),
        Tamper::new(
            "history-node-unused",
            E::UnusedNode,
            "a node no block's path uses added",
        ),
        Tamper::new(
            "forged-separators-out-of-order",
            E::SeparatorsOutOfOrder,
            "a root that commits to separators out of order",
        ),
        Tamper::new(
            "forged-entries-out-of-order",
            E::EntriesOutOfOrder,
            "a root that commits to a leaf out of order",
        ),
        Tamper::new(
            "forged-separator-mismatch",
            E::SeparatorMismatch,
            "a root whose separator is not its child's largest key",
        ),
        Tamper::new(
            "forged-child-out-of-range",
            E::ChildOutOfRange,
            "a root whose leaf starts inside its left neighbour's range",
        ),
        Tamper::new(
            "forged-wrong-level",
            E::BadShape,
            "a root at level 2 over leaves",
        ),
        Tamper::new(
            "history-node-repeated",
            E::DuplicateNode,
            "a node of the set sent twice",
        ),
        Tamper::new(
            "history-other-blocks",
            E::RangeMismatch,
            "checked against the roots of other blocks",
        ),
        Tamper::TRAILING_BYTE,
    ],
};

#[cfg(test)]
mod tests;
