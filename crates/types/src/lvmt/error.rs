//! Why an LVMT proof or history is rejected. Each variant names the part of the proof at fault
//! (`proof.levels[l]` is the AMT at level `l`, `proof.others[k]` the k-th occupant of an absence
//! proof, `history.tuples[i]` the i-th listed version) and carries what was expected and found;
//! [`LvmtError::code`] gives the stable code.

use alloc::string::String;
use core::fmt;

use crate::{
    B256, DecodeError, ErrorCode,
    family::{Evidence, Range, rejection},
    hex::hex,
};

/// How a proof's levels fail to follow the key's placement (`LEVEL_MISMATCH`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelFault {
    /// More levels than a level number can name.
    TooManyLevels,
    /// A level deeper than the key's hash has bits for.
    DeeperThanHash,
    /// The proof has no level.
    NoLevel,
    /// A level before the last has a vacant key slot or no sub-AMT, yet the path goes on.
    PathGoesOn,
    /// The key's slot holds no version at the last level.
    SlotEmpty,
    /// An absence proof's last level is full and has a sub-AMT: the path goes on.
    LastLevelFull,
    /// An occupant of the path hashes to another path.
    OccupantOffPath,
}

impl fmt::Display for LevelFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::TooManyLevels => "too many levels",
            Self::DeeperThanHash => "deeper than the key hash",
            Self::NoLevel => "no level",
            Self::PathGoesOn => "a vacant key slot or no sub-AMT, yet the path goes on",
            Self::SlotEmpty => "the key's slot holds no version at the last level",
            Self::LastLevelFull => "the last level is full and has a sub-AMT: the path goes on",
            Self::OccupantOffPath => "the occupant hashes to another path",
        })
    }
}

/// Why a history's list of versions is not exactly the key's versions in the range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFault {
    /// Versions listed for a key the proof shows absent (`EXTRA_RESULTS`).
    ListedForAbsentKey,
    /// A version after the latest (`EXTRA_RESULTS`).
    AfterLatest,
    /// More than one version before the range (`EXTRA_RESULTS`).
    ExtraBefore,
    /// More than one version after the range (`EXTRA_RESULTS`).
    ExtraAfter,
    /// No version listed for a present key (`INCOMPLETE_RANGE`).
    NothingListed,
    /// The version before the first listed may be in the range (`INCOMPLETE_RANGE`).
    MissingBefore,
    /// The version after the last listed may be in the range (`INCOMPLETE_RANGE`).
    MissingAfter,
    /// Versions are not in strictly increasing blocks (`RESULTS_OUT_OF_ORDER`).
    BlocksNotIncreasing,
}

impl ListFault {
    const fn code(self) -> ErrorCode {
        match self {
            Self::ListedForAbsentKey | Self::AfterLatest | Self::ExtraBefore | Self::ExtraAfter => {
                ErrorCode::ExtraResults
            }
            Self::NothingListed | Self::MissingBefore | Self::MissingAfter => {
                ErrorCode::IncompleteRange
            }
            Self::BlocksNotIncreasing => ErrorCode::ResultsOutOfOrder,
        }
    }
}

impl fmt::Display for ListFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::ListedForAbsentKey => "versions listed for an absent key",
            Self::AfterLatest => "a version after the latest",
            Self::ExtraBefore => "more than one version listed before the range",
            Self::ExtraAfter => "more than one version listed after the range",
            Self::NothingListed => "no version listed",
            Self::MissingBefore => "the version before the first listed may be in the range",
            Self::MissingAfter => "the version after the last listed may be in the range",
            Self::BlocksNotIncreasing => "versions are not in strictly increasing blocks",
        })
    }
}

rejection! {
    /// Why an LVMT proof or history was rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum LvmtError {
        /// An input is not the one accepted encoding (the field names where: a point off the curve,
        /// a version of 40 bits, a commitment where none belongs, a missing occupant…).
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// The proof is for AMTs of another depth than the parameters'.
        #[code(BadEncoding)]
        #[error("depth: the proof is for AMTs of depth {found}, the parameters {expected}")]
        DepthMismatch {
            /// The parameters' depth.
            expected: u8,
            /// The proof's.
            found: u8,
        },
        /// The proof is for another key.
        #[code(KeyMismatch)]
        #[error("the proof is for key {}, not {}", hex(.found), hex(.expected))]
        KeyMismatch {
            /// The key asked for.
            expected: B256,
            /// The proof's key.
            found: B256,
        },
        /// An occupant of an absence proof's path is the key itself: it is present.
        #[code(KeyMismatch)]
        #[error("{field}: an occupant of the path is the key itself: it is present")]
        OccupantIsKey {
            /// The field of the occupant.
            field: String,
        },
        /// The levels do not follow the key's placement.
        #[code(LevelMismatch)]
        #[error("{field}: {fault}")]
        Level {
            /// The level's field.
            field: String,
            /// What is wrong.
            fault: LevelFault,
        },
        /// A tuple's Merkle path does not lead to the trusted history root.
        #[code(HistoryMismatch)]
        #[error("{field}: the tuple does not lead to the trusted history root")]
        HistoryMismatch {
            /// The field of the tuple (`proof.levels[1].commitment`, `proof.value`,
            /// `proof.others[0]`, `history.tuples[2]`).
            field: String,
        },
        /// The AMT openings do not satisfy the pairing equation.
        #[code(PairingCheckFailed)]
        #[error("the AMT opening does not verify")]
        PairingCheckFailed,
        #[shared]
        RangeMismatch,
        /// The range ends after the trusted header.
        #[code(RangeMismatch)]
        #[error("block {hi} is after the trusted header (the history covers {blocks} blocks)")]
        AfterHeader {
            /// The range's last block.
            hi: u64,
            /// Blocks the trusted history root covers.
            blocks: u64,
        },
        /// The listed versions are not exactly those of the range and its two edges.
        #[code(via fault)]
        #[error("{field}: {fault}")]
        List {
            /// The field (`history.tuples[i]`, or `history.tuples`).
            field: String,
            /// What is wrong.
            fault: ListFault,
        },
    }
}

impl LvmtError {
    /// Where the rejection points: the field at fault, and what was expected and found there.
    fn evidence(&self) -> Evidence {
        match self {
            Self::Decode(e) => Evidence::at(e.field.clone()),
            Self::DepthMismatch { expected, found } => {
                Evidence::diff("proof.depth", expected, found)
            }
            Self::KeyMismatch { expected, found } => {
                Evidence::diff_hex("proof.key", expected, found)
            }
            Self::OccupantIsKey { field } => {
                Evidence::diff(field.clone(), "another key", "the key itself")
            }
            Self::Level { field, .. } | Self::List { field, .. } => Evidence::at(field.clone()),
            Self::HistoryMismatch { field } => Evidence::diff(
                field.clone(),
                "a path to the trusted lvmtHistoryRoot",
                "a path to another root",
            ),
            Self::PairingCheckFailed => Evidence::at("proof.levels"),
            Self::RangeMismatch { expected, found } => {
                Evidence::diff("history.range", Range(*expected), Range(*found))
            }
            Self::AfterHeader { hi, blocks } => Evidence::diff(
                "toBlock",
                alloc::format!("at most {}", blocks.saturating_sub(1)),
                hi,
            ),
        }
    }
}
