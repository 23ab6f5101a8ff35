//! Why a COLE provenance proof is rejected. Each variant names the part of the proof at fault
//! (`proof.parts[i]` is the i-th structure, newest first) and carries what was expected and
//! found; [`ColeError::code`] gives the stable code.

use core::fmt;

use crate::{
    B256, DecodeError,
    family::{Evidence, Range, rejection},
    hex::hex,
};

/// What is wrong with the shape of a structure's partial tree (`BAD_SHAPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeFault {
    /// An entry above the tree's leaf level.
    EntryAboveLeaves,
    /// A pruned subtree below the leaf level.
    SubtreeBelowLeaves,
    /// An inner node at the leaf level.
    InnerNodeAtLeaves,
    /// A node with more children than the fanout.
    NodeTooWide {
        /// Its children.
        arity: usize,
        /// The fanout.
        fanout: u8,
    },
    /// An inner node that reveals no entry (it must be given by its hash: one encoding).
    NodeRevealsNothing,
    /// More entries revealed than the structure holds.
    MoreEntriesThanStructure {
        /// Entries revealed.
        revealed: usize,
        /// Entries the structure holds.
        entries: u64,
    },
}

impl fmt::Display for ShapeFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EntryAboveLeaves => f.write_str("an entry above the tree's leaves"),
            Self::SubtreeBelowLeaves => f.write_str("a subtree below the tree's leaves"),
            Self::InnerNodeAtLeaves => f.write_str("an inner node at the leaves' level"),
            Self::NodeTooWide { arity, fanout } => {
                write!(
                    f,
                    "a node of {arity} children, wider than the fanout {fanout}"
                )
            }
            Self::NodeRevealsNothing => {
                f.write_str("an inner node that reveals no entry (it must be pruned to its hash)")
            }
            Self::MoreEntriesThanStructure { revealed, entries } => write!(
                f,
                "{revealed} entries revealed, more than the structure's {entries}"
            ),
        }
    }
}

/// Where a range proof leaves a gap (`INCOMPLETE_RANGE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gap {
    /// A pruned subtree between two revealed entries.
    PrunedBetweenEntries,
    /// The structure reveals no entry at all.
    NothingRevealed,
    /// No neighbour entry before the range, and the range does not start the structure.
    NoLeftNeighbour,
    /// No neighbour entry after the range, and the range does not end the structure.
    NoRightNeighbour,
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::PrunedBetweenEntries => "a pruned subtree lies between revealed entries",
            Self::NothingRevealed => "no entry is revealed",
            Self::NoLeftNeighbour => {
                "no neighbour entry before the range, and the range does not start the structure"
            }
            Self::NoRightNeighbour => {
                "no neighbour entry after the range, and the range does not end the structure"
            }
        })
    }
}

rejection! {
    /// Why a provenance proof was rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum ColeError {
        /// The proof is not the one accepted encoding (the field names where).
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// The query itself is empty: `lo > hi`.
        #[code(RangeMismatch)]
        #[error("the range's first block {lo} is after its last {hi}")]
        EmptyRange {
            /// First block asked.
            lo: u64,
            /// Last block asked.
            hi: u64,
        },
        #[shared]
        KeyMismatch,
        #[shared]
        RangeMismatch,
        /// Structure `part` is given by its digest before the version in force at `lo` was found.
        #[code(WrongEarlyStop)]
        #[error("structure {part} is skipped before the version in force at block {lo} was found")]
        StoppedEarly {
            /// The structure.
            part: usize,
            /// The range's first block.
            lo: u64,
        },
        /// Structure `part` is searched after the version in force at `lo` was found.
        #[code(WrongEarlyStop)]
        #[error("structure {part} is searched after the version in force at block {lo} was found")]
        SearchedAfterStop {
            /// The structure.
            part: usize,
            /// The range's first block.
            lo: u64,
        },
        /// A run's height is not that of a complete tree over its entries.
        #[code(BadShape)]
        #[error(
            "structure {part}: a run of {entries} entries with fanout {fanout} has height \
             {expected}, not {found}",
        )]
        RunHeight {
            /// The structure.
            part: usize,
            /// Its entries.
            entries: u64,
            /// The fanout.
            fanout: u8,
            /// The height of a complete `fanout`-ary tree over `entries`.
            expected: u8,
            /// The height the proof gives.
            found: u8,
        },
        /// The partial tree of structure `part` has a shape the structure cannot have.
        #[code(BadShape)]
        #[error("structure {part}: {fault}")]
        Shape {
            /// The structure.
            part: usize,
            /// What is wrong.
            fault: ShapeFault,
        },
        /// The revealed entries of structure `part` leave a gap.
        #[code(IncompleteRange)]
        #[error("structure {part}: {gap}")]
        Incomplete {
            /// The structure.
            part: usize,
            /// Where.
            gap: Gap,
        },
        /// The revealed entries of structure `part` are not strictly increasing by
        /// ⟨stateKey, block⟩.
        #[code(ResultsOutOfOrder)]
        #[error("structure {part}: revealed entries are not strictly increasing")]
        EntriesOutOfOrder {
            /// The structure.
            part: usize,
        },
        /// Structure `part` reveals more than one neighbour entry on a side of the range.
        #[code(ExtraResults)]
        #[error(
            "structure {part}: {before} entries before and {after} after the range, at most \
             one neighbour on each side",
        )]
        ExtraNeighbours {
            /// The structure.
            part: usize,
            /// Entries revealed before the range.
            before: usize,
            /// Entries revealed after it.
            after: usize,
        },
        /// An older structure holds a version not older than one of a newer structure.
        #[code(ResultsOutOfOrder)]
        #[error(
            "structure {part} holds block {block}, not older than block {newer} of a newer \
             structure",
        )]
        OlderStructureNewer {
            /// The older structure.
            part: usize,
            /// The block of its newest version.
            block: u64,
            /// The oldest block found in a newer structure.
            newer: u64,
        },
        /// The root recomputed from the proof differs from the trusted one.
        #[code(RootMismatch)]
        #[error(
            "the root recomputed from the proof is {}, not the trusted {}",
            hex(.found),
            hex(.expected),
        )]
        RootMismatch {
            /// The trusted root (`coleRoot`, or `H_state` when checked alone).
            expected: B256,
            /// What the proof recomputes to.
            found: B256,
        },
    }
}

impl ColeError {
    /// Where the rejection points: the field at fault, and what was expected and found there.
    fn evidence(&self) -> Evidence {
        let part = |i: &usize, rest: &str| alloc::format!("proof.parts[{i}]{rest}");
        match self {
            Self::Decode(e) => Evidence::at(alloc::format!("proof.{}", e.field)),
            Self::EmptyRange { lo, hi } => {
                Evidence::diff("range", "fromBlock ≤ toBlock", Range((*lo, *hi)))
            }
            Self::KeyMismatch { expected, found } => {
                Evidence::diff_hex("proof.stateKey", expected, found)
            }
            Self::RangeMismatch { expected, found } => {
                Evidence::diff("proof.range", Range(*expected), Range(*found))
            }
            Self::StoppedEarly { part: i, .. } => {
                Evidence::diff(part(i, ""), "a searched structure", "a digest")
            }
            Self::SearchedAfterStop { part: i, .. } => {
                Evidence::diff(part(i, ""), "a digest", "a searched structure")
            }
            Self::RunHeight {
                part: i,
                expected,
                found,
                ..
            } => Evidence::diff(part(i, ".height"), expected, found),
            Self::Shape { part: i, fault } => match fault {
                ShapeFault::NodeTooWide { arity, fanout } => Evidence::diff(
                    part(i, ".tree"),
                    alloc::format!("at most {fanout} children"),
                    arity,
                ),
                ShapeFault::MoreEntriesThanStructure { revealed, entries } => Evidence::diff(
                    part(i, ".tree"),
                    alloc::format!("at most {entries} entries"),
                    revealed,
                ),
                _ => Evidence::at(part(i, ".tree")),
            },
            Self::Incomplete { part: i, .. } | Self::EntriesOutOfOrder { part: i } => {
                Evidence::at(part(i, ".tree"))
            }
            Self::ExtraNeighbours {
                part: i,
                before,
                after,
            } => Evidence::diff(
                part(i, ".tree"),
                "at most one neighbour on each side",
                alloc::format!("{before} before, {after} after"),
            ),
            Self::OlderStructureNewer {
                part: i,
                block,
                newer,
            } => Evidence::diff(
                part(i, ".tree"),
                alloc::format!("blocks before {newer}"),
                block,
            ),
            Self::RootMismatch { expected, found } => Evidence::diff_hex("root", expected, found),
        }
    }
}
