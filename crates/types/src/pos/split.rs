//! Where a POS-Tree cuts a level into nodes (paper §3.4.3; docs/proofs.md "POS-Tree").
//!
//! A level is a sorted sequence of entries (state entries at level 0, `(separator, child)` pairs
//! above). It is cut into nodes from left to right: a node ends after an entry when
//! [`SplitRule::cuts_after`] says so, and the last node ends with the level. A cut depends only
//! on the entry's key, its level and how many entries the node holds so far, so the cuts left of
//! any point depend only on the entries left of it: re-chunking after a change can start at the
//! start of the node the change falls in and stop as soon as a new cut falls on an old node's
//! end (the boundaries have resynchronised). The tree is then a function of its key set alone.
//!
//! Verifiers never evaluate the rule: soundness rests on the hashes and the separators. The
//! decoders only cap a node at [`crate::pos::MAX_NODE_ENTRIES`].

use alloc::{vec, vec::Vec};

use sha2::{Digest, Sha256};

use crate::B256;

/// Domain tag of the boundary test's preimage.
const BOUNDARY_TAG: u8 = 0x10;

/// How a level is cut into nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitRule {
    /// Content-defined: a node ends after an entry whose key `k` gives
    /// `u32(SHA-256(0x10 ‖ level ‖ k)[..4]) < 2^(32 − bits)` (probability 2^−bits, a mean of
    /// 2^bits entries), once the node holds at least `min` entries; and always at `max` entries
    /// (the hard cap against ground keys, far above the mean).
    ContentDefined {
        /// log₂ of the mean entries per node.
        bits: u8,
        /// Fewest entries a node may end with at a boundary (≥ 2 makes every level shrink).
        min: u16,
        /// Most entries of a node (at most [`crate::pos::MAX_NODE_ENTRIES`]).
        max: u16,
    },
    /// Fixed-size: every node but a level's last holds exactly `entries` entries. A packed
    /// Merkle B+-tree, the baseline of the benchmarks. Still a function of the key set, but
    /// not content-defined: one insertion shifts every later boundary of its level, so an
    /// update re-chunks up to the level's end.
    FixedSize {
        /// Entries per node (≥ 2).
        entries: u16,
    },
}

impl SplitRule {
    /// The default rule: about 16 entries (1 KiB of 64-byte entries) a node, as the paper's
    /// 1 KB node tuning: a node ends at the first boundary key (probability 1/8) once it holds
    /// 8 entries, so sizes are 8 + a geometric tail (mean ≈ 15). The minimum halves the
    /// spread of a plain geometric rule, which matters for proofs: a key's path meets nodes
    /// in proportion to their size, so a plain rule with mean 16 puts nodes of 31 entries on
    /// the average path, this one of about 19 (ForkBase's chunker has a 256-byte minimum for a
    /// 4 KiB mean, dolt's 512 bytes). At most 256 entries (16 KiB): a run of 248 keys without
    /// a boundary has probability (7/8)^248 ≈ 4·10⁻¹⁵ unless keys are ground.
    pub const DEFAULT: Self = Self::ContentDefined {
        bits: 3,
        min: 8,
        max: 256,
    };

    /// The benchmark's B+-tree baseline: 16 entries a node.
    pub const FIXED_16: Self = Self::FixedSize { entries: 16 };

    /// Whether a node at `level` that holds `len` entries, the last of which has key `key`,
    /// ends after that entry.
    pub fn cuts_after(&self, level: u8, len: usize, key: &B256) -> bool {
        match *self {
            Self::ContentDefined { bits, min, max } => {
                len >= usize::from(max)
                    || (len >= usize::from(min) && is_boundary(bits, level, key))
            }
            Self::FixedSize { entries } => len >= usize::from(entries.max(2)),
        }
    }

    /// Whether the rule makes nodes the decoders accept and levels that shrink: at least 2
    /// entries a node (but a level's last), at most [`crate::pos::MAX_NODE_ENTRIES`].
    pub const fn is_valid(&self) -> bool {
        let cap = crate::pos::MAX_NODE_ENTRIES as u16;
        match *self {
            Self::ContentDefined { bits, min, max } => {
                bits <= 16 && 2 <= min && min <= max && max <= cap
            }
            Self::FixedSize { entries } => 2 <= entries && entries <= cap,
        }
    }

    /// Whether the rule is content-defined (history independent).
    pub const fn is_content_defined(&self) -> bool {
        matches!(self, Self::ContentDefined { .. })
    }
}

/// Whether `key` is a boundary at `level` for a mean of 2^`bits` entries a node.
pub fn is_boundary(bits: u8, level: u8, key: &B256) -> bool {
    let mut h = Sha256::new();
    h.update([BOUNDARY_TAG, level]);
    h.update(key.as_slice());
    let d = <[u8; 32]>::from(h.finalize());
    let top = d.first_chunk::<4>().copied().unwrap_or_default();
    let bits = u32::from(bits.min(31));
    u32::from_be_bytes(top) < (u32::MAX >> bits)
}

impl SplitRule {
    /// Cuts one level's entries into nodes at `level` (the last node ends with the level).
    pub fn chunk(&self, level: u8, entries: &[crate::pos::Entry]) -> Vec<crate::pos::Node> {
        let mut out = Vec::new();
        let mut cur = Vec::new();
        for e in entries {
            cur.push(*e);
            if self.cuts_after(level, cur.len(), &e.0) {
                out.push(crate::pos::Node {
                    level,
                    entries: core::mem::take(&mut cur),
                });
            }
        }
        if !cur.is_empty() {
            out.push(crate::pos::Node {
                level,
                entries: cur,
            });
        }
        out
    }

    /// Builds a whole tree over sorted, distinct `entries` (no zero value) in one pass, bottom
    /// up: the reference an incrementally updated tree must equal. Returns every level, leaves
    /// first; the last level is the root alone (the empty leaf for no entries).
    pub fn build(&self, entries: &[crate::pos::Entry]) -> Vec<Vec<crate::pos::Node>> {
        let mut levels = vec![self.chunk(0, entries)];
        if entries.is_empty() {
            levels = vec![vec![crate::pos::Node::leaf(Vec::new())]];
        }
        let mut level = 0u8;
        while let Some(top) = levels.last().filter(|l| l.len() > 1) {
            let up: Vec<crate::pos::Entry> = top
                .iter()
                .filter_map(|n| n.max_key().map(|k| (*k, n.hash().0)))
                .collect();
            level = level.saturating_add(1);
            levels.push(self.chunk(level, &up));
        }
        levels
    }
}
