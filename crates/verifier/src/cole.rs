//! COLE provenance proofs: every version of a state key in a block range, complete, against
//! the trusted `H_state` (the header's `coleRoot`).
//!
//! The wire format and hashing rules are in [`lightprov_types::cole`]. The checks, in order:
//!
//! 1. the proof decodes (one encoding per proof) — `BAD_ENCODING`;
//! 2. it answers the asked key and range — `KEY_MISMATCH`, `RANGE_MISMATCH`;
//! 3. per searched structure, the partial tree has the structure's shape: no node wider than the
//!    fanout, every entry at the structure's height, a run exactly as high as an `m`-ary complete
//!    tree over `n` entries — `BAD_SHAPE`;
//! 4. the revealed entries are contiguous (no pruned subtree between two of them) and strictly
//!    increasing by ⟨stateKey, block⟩ — `INCOMPLETE_RANGE`, `RESULTS_OUT_OF_ORDER`;
//! 5. on each side of the range there is the neighbour entry, or nothing at all (the range
//!    reaches the structure's edge), and no more than that — `INCOMPLETE_RANGE`,
//!    `EXTRA_RESULTS`;
//! 6. structures are newer to older: an older structure never holds a version at or after one
//!    found in a newer structure — `RESULTS_OUT_OF_ORDER`;
//! 7. the search stops exactly after the first structure holding the version in force at `lo`:
//!    every structure up to it is searched, every one after it is given by its digest —
//!    `WRONG_EARLY_STOP`;
//! 8. `H_state` recomputed from every structure's digest equals the trusted root —
//!    `ROOT_MISMATCH`.
//!
//! Results are never taken from the prover as a list: they are the revealed leaves of trees
//! whose roots are bound into `H_state`, so an appended or unauthenticated result cannot exist.

use alloc::vec::Vec;

pub use lightprov_types::cole::{ColeError, Gap, ShapeFault};
use lightprov_types::{
    B256, Word,
    cole::{Entry, HistoryProof, Part, StructureKind, Tree, hash},
};
use sha2::{Digest, Sha256};

/// One version of a state key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    /// The block that wrote it.
    pub block: u64,
    /// The value written (zero = deleted).
    pub value: Word,
}

/// A verified history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// Every version written in the range, oldest first.
    pub versions: Vec<Version>,
    /// The version in force at the range's first block (`None`: never written by then).
    pub at_lo: Option<Version>,
    /// Structures searched before the early stop.
    pub searched: usize,
}

impl History {
    /// The value in force after block `block`, for a block of the proven range `lo..=hi` (zero
    /// if never written by then). Blocks before `lo` are not covered by the proof.
    pub fn value_at(&self, block: u64) -> Word {
        crate::family::value_at(&self.versions, self.at_lo.as_ref(), block, |v| {
            (v.block, v.value)
        })
    }
}

/// Decodes and verifies a provenance proof for `key` over `lo..=hi` against `root`.
pub fn verify_history(
    root: &B256,
    key: &B256,
    lo: u64,
    hi: u64,
    proof: &[u8],
) -> Result<History, ColeError> {
    let proof = HistoryProof::decode(proof)?;
    verify_history_proof(root, key, lo, hi, &proof)
}

/// Which engine's `H_state` a proof is against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// COLE (synchronous merges).
    Cole,
    /// COLE* (asynchronous merges).
    ColeStar,
}

/// Verifies a provenance proof against a header's `coleRoot`, which commits to the `H_state`
/// of both engines: `sibling` is the other engine's `H_state`, as the node reports it.
pub fn verify_history_in_header(
    cole_root: &B256,
    variant: Variant,
    sibling: &B256,
    key: &B256,
    lo: u64,
    hi: u64,
    proof: &[u8],
) -> Result<History, ColeError> {
    let proof = HistoryProof::decode(proof)?;
    verify_inner(
        |h| {
            let found = match variant {
                Variant::Cole => hash::header_root(h, sibling),
                Variant::ColeStar => hash::header_root(sibling, h),
            };
            (*cole_root, found)
        },
        key,
        lo,
        hi,
        &proof,
    )
}

/// Verifies a decoded provenance proof (see the module docs for the checks).
pub fn verify_history_proof(
    root: &B256,
    key: &B256,
    lo: u64,
    hi: u64,
    proof: &HistoryProof,
) -> Result<History, ColeError> {
    verify_inner(|h| (*root, *h), key, lo, hi, proof)
}

fn verify_inner(
    // The trusted root and the root the proof's `H_state` gives in its place.
    accept: impl FnOnce(&B256) -> (B256, B256),
    key: &B256,
    lo: u64,
    hi: u64,
    proof: &HistoryProof,
) -> Result<History, ColeError> {
    if lo > hi {
        return Err(ColeError::EmptyRange { lo, hi });
    }
    if proof.key != *key {
        return Err(ColeError::KeyMismatch {
            expected: *key,
            found: proof.key,
        });
    }
    if (proof.lo, proof.hi) != (lo, hi) {
        return Err(ColeError::RangeMismatch {
            expected: (lo, hi),
            found: (proof.lo, proof.hi),
        });
    }
    let mut digests = Vec::with_capacity(proof.parts.len());
    // Versions per structure, newest structure first.
    let mut per_structure: Vec<Vec<Version>> = Vec::new();
    let mut at_lo: Option<Version> = None;
    // The oldest version found so far: every older structure must hold only older versions.
    let mut oldest: Option<u64> = None;
    for (i, part) in proof.parts.iter().enumerate() {
        let s = match part {
            Part::Skipped(d) => {
                if at_lo.is_none() {
                    return Err(ColeError::StoppedEarly { part: i, lo });
                }
                digests.push(*d);
                continue;
            }
            Part::Searched(s) => s,
        };
        if at_lo.is_some() {
            return Err(ColeError::SearchedAfterStop { part: i, lo });
        }
        if let StructureKind::Run { .. } = s.kind {
            let want = hash::complete_height(s.n, proof.fanout);
            if s.height != want {
                return Err(ColeError::RunHeight {
                    part: i,
                    entries: s.n,
                    fanout: proof.fanout,
                    expected: want,
                    found: s.height,
                });
            }
        }
        let mut walk = Walk {
            fanout: proof.fanout,
            height: s.height,
            leaves: Vec::new(),
            state: Side::Before,
            pruned_left: false,
            structure: i,
        };
        let tree_root = walk.visit(&s.tree, 0)?;
        let found = walk.check_range(key, lo, hi, s.n)?;
        digests.push(match s.kind {
            StructureKind::MbTree => hash::mbtree_digest(s.n, s.height, &tree_root),
            StructureKind::Run { bloom } => hash::run_digest(s.n, s.height, &tree_root, &bloom),
        });

        // Temporal order across structures: everything here is older than anything newer.
        if let (Some(newest_here), Some(old)) = (found.newest, oldest)
            && newest_here >= old
        {
            return Err(ColeError::OlderStructureNewer {
                part: i,
                block: newest_here,
                newer: old,
            });
        }
        if let Some(o) = found.oldest {
            oldest = Some(o);
        }
        at_lo = found.at_lo;
        per_structure.push(found.in_range);
    }
    let computed = hash::state(proof.fanout, digests.iter());
    let (expected, found) = accept(&computed);
    if expected != found {
        return Err(ColeError::RootMismatch { expected, found });
    }
    let searched = per_structure.len();
    let versions = per_structure.into_iter().rev().flatten().collect();
    Ok(History {
        versions,
        at_lo,
        searched,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// No entry revealed yet.
    Before,
    /// Entries revealed, nothing pruned since.
    Inside,
    /// A subtree pruned after the revealed entries.
    After,
}

struct Walk<'a> {
    fanout: u8,
    height: u8,
    leaves: Vec<&'a Entry>,
    state: Side,
    pruned_left: bool,
    structure: usize,
}

/// What one structure contributes.
struct Found {
    in_range: Vec<Version>,
    at_lo: Option<Version>,
    newest: Option<u64>,
    oldest: Option<u64>,
}

impl<'a> Walk<'a> {
    fn shape(&self, fault: ShapeFault) -> ColeError {
        ColeError::Shape {
            part: self.structure,
            fault,
        }
    }

    fn gap(&self, gap: Gap) -> ColeError {
        ColeError::Incomplete {
            part: self.structure,
            gap,
        }
    }

    /// Hashes the partial tree, checking its shape and the contiguity of its entries.
    fn visit(&mut self, t: &'a Tree, depth: u8) -> Result<B256, ColeError> {
        match t {
            Tree::Leaf(e) => {
                if depth != self.height {
                    return Err(self.shape(ShapeFault::EntryAboveLeaves));
                }
                if self.state == Side::After {
                    return Err(self.gap(Gap::PrunedBetweenEntries));
                }
                self.state = Side::Inside;
                self.leaves.push(e);
                Ok(hash::leaf(e))
            }
            Tree::Hash(h) => {
                if depth > self.height {
                    return Err(self.shape(ShapeFault::SubtreeBelowLeaves));
                }
                match self.state {
                    Side::Before => self.pruned_left = true,
                    Side::Inside => self.state = Side::After,
                    Side::After => {}
                }
                Ok(*h)
            }
            Tree::Node(children) => {
                if depth >= self.height {
                    return Err(self.shape(ShapeFault::InnerNodeAtLeaves));
                }
                if children.len() > usize::from(self.fanout) {
                    return Err(self.shape(ShapeFault::NodeTooWide {
                        arity: children.len(),
                        fanout: self.fanout,
                    }));
                }
                let before = self.leaves.len();
                let mut h = Sha256::new();
                h.update([hash::NODE]);
                for c in children {
                    h.update(self.visit(c, depth.saturating_add(1))?);
                }
                if self.leaves.len() == before {
                    // Its hash would do: a second encoding of the same proof.
                    return Err(self.shape(ShapeFault::NodeRevealsNothing));
                }
                Ok(B256::from(<[u8; 32]>::from(h.finalize())))
            }
        }
    }

    /// Checks the revealed entries against the range and extracts the key's versions.
    fn check_range(&self, key: &B256, lo: u64, hi: u64, n: u64) -> Result<Found, ColeError> {
        let leaves = &self.leaves;
        if leaves.is_empty() {
            return Err(self.gap(Gap::NothingRevealed));
        }
        if leaves.len() as u64 > n {
            return Err(self.shape(ShapeFault::MoreEntriesThanStructure {
                revealed: leaves.len(),
                entries: n,
            }));
        }
        if leaves
            .windows(2)
            .any(|w| matches!(w, [a, b] if a.compound() >= b.compound()))
        {
            return Err(ColeError::EntriesOutOfOrder {
                part: self.structure,
            });
        }
        let ql = (*key, lo);
        let qu = (*key, hi);
        let below = leaves.iter().take_while(|e| e.compound() < ql).count();
        let above = leaves
            .iter()
            .rev()
            .take_while(|e| e.compound() > qu)
            .count();
        if below > 1 || above > 1 {
            return Err(ColeError::ExtraNeighbours {
                part: self.structure,
                before: below,
                after: above,
            });
        }
        if below == 0 && self.pruned_left {
            return Err(self.gap(Gap::NoLeftNeighbour));
        }
        if above == 0 && self.state == Side::After {
            return Err(self.gap(Gap::NoRightNeighbour));
        }
        let version = |e: &Entry| Version {
            block: e.block,
            value: e.value,
        };
        let in_range: Vec<Version> = leaves
            .iter()
            .skip(below)
            .take(leaves.len().saturating_sub(below + above))
            .map(|e| version(e))
            .collect();
        let left = leaves
            .first()
            .filter(|e| below == 1 && e.key == *key)
            .map(|e| version(e));
        let right = leaves
            .last()
            .filter(|e| above == 1 && e.key == *key)
            .map(|e| version(e));
        let at_lo = in_range.first().filter(|v| v.block == lo).copied().or(left);
        let oldest = left
            .or(in_range.first().copied())
            .or(right)
            .map(|v| v.block);
        let newest = right.or(in_range.last().copied()).or(left).map(|v| v.block);
        Ok(Found {
            in_range,
            at_lo,
            newest,
            oldest,
        })
    }
}

/// What a COLE proof is checked against: a verified header's `coleRoot`, which engine's proof it
/// is, and the other engine's `H_state` (the header commits to both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Commitment {
    /// The header's `coleRoot`.
    pub cole_root: B256,
    /// The engine.
    pub variant: Variant,
    /// The other engine's `H_state`, as the node reports it.
    pub sibling: B256,
}

/// A state key's history over `lo..=hi`.
pub use crate::HistoryQuery;

crate::family::verify_shape! {
    /// COLE provenance proofs in the one verify shape.
    pub struct KeyHistory: &lightprov_types::cole::FAMILY;
    fn verify(c: &Commitment, q: &HistoryQuery, proof) -> Result<History, ColeError> {
        verify_history_in_header(&c.cole_root, c.variant, &c.sibling, &q.key, q.lo, q.hi, proof)
    }
}
