//! Why a Merkle Bucket Tree proof is rejected. Each variant names the field of the proof at
//! fault (`entries[i]`, `levels[l]`, `root.2.0`, `buckets[i]`) and carries what was expected
//! and found; [`MbtError::code`] gives the stable code.

use alloc::string::String;
use core::fmt;

use crate::{
    B256, DecodeError, ErrorCode, Word,
    family::{Evidence, Rejection},
    hex::Hex,
};

use super::MbtParams;

/// Why a Merkle Bucket Tree proof was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MbtError {
    /// The proof is not the one accepted encoding (the field names where).
    Decode(DecodeError),
    /// The proof was made under other parameters than the trusted ones.
    ParamsMismatch {
        /// The trusted parameters.
        expected: MbtParams,
        /// The proof's.
        found: MbtParams,
    },
    /// The proof is for another state key.
    KeyMismatch {
        /// The key asked for.
        expected: B256,
        /// The proof's key.
        found: B256,
    },
    /// The proof answers another block range.
    RangeMismatch {
        /// The range asked for (or the one the trusted roots cover).
        expected: (u64, u64),
        /// The proof's range.
        found: (u64, u64),
    },
    /// The proof has fewer inner levels than the trusted parameters' depth.
    TooFewLevels {
        /// The depth.
        expected: u8,
        /// The proof's levels.
        found: u8,
    },
    /// The proof has more inner levels than the trusted parameters' depth.
    TooManyLevels {
        /// The depth.
        expected: u8,
        /// The proof's levels.
        found: u8,
    },
    /// The entries of a bucket are not strictly increasing by key (unsorted or repeated).
    EntriesOutOfOrder {
        /// The entry at fault (`entries[i]`, `root.1.0.new[i]`, `buckets[j][i]`).
        field: String,
    },
    /// An entry's key belongs to another bucket than the one it is listed in.
    ForeignEntry {
        /// The entry.
        field: String,
        /// The bucket it is listed in (computed by the verifier).
        expected: u32,
        /// The bucket its key hashes to.
        found: u32,
    },
    /// The value the proof proves differs from the claimed one (`None`: absent).
    ValueMismatch {
        /// The claimed value.
        expected: Option<Word>,
        /// The proven value.
        found: Option<Word>,
    },
    /// A node of a history proof's node set repeats the one before it.
    DuplicateNode {
        /// The node.
        field: String,
    },
    /// The nodes of a history proof's level (or its buckets) are not in increasing hash order.
    NodesOutOfOrder {
        /// The node.
        field: String,
    },
    /// A block's path needs a node below the root that the node set lacks (a node of another
    /// version, an altered node, or one left out).
    NodeMissing {
        /// The block whose path breaks.
        block: u64,
        /// Where the node belongs (`levels[l]`, or `buckets`).
        field: String,
        /// The hash its parent holds.
        hash: B256,
    },
    /// A node of a history proof's node set is on no block's path.
    UnusedNode {
        /// The node.
        field: String,
    },
    /// The root recomputed from the proof (or, for a history, the root node a block needs)
    /// differs from the trusted root.
    RootMismatch {
        /// Which trusted root (`root`, `oldRoot`, `newRoot`, `roots[i]`).
        field: String,
        /// The trusted root.
        expected: B256,
        /// What the proof recomputes to (for a history: the trusted root, absent from the set).
        found: B256,
    },
}

impl MbtError {
    /// The stable code.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::Decode(_) => ErrorCode::BadEncoding,
            Self::ParamsMismatch { .. } => ErrorCode::ParamsMismatch,
            Self::KeyMismatch { .. } => ErrorCode::KeyMismatch,
            Self::RangeMismatch { .. } => ErrorCode::RangeMismatch,
            Self::TooFewLevels { .. } => ErrorCode::TruncatedProof,
            Self::TooManyLevels { .. } | Self::UnusedNode { .. } => ErrorCode::ExtraNodes,
            Self::EntriesOutOfOrder { .. } => ErrorCode::ResultsOutOfOrder,
            Self::ForeignEntry { .. } => ErrorCode::WrongBucket,
            Self::ValueMismatch { .. } => ErrorCode::ValueMismatch,
            Self::DuplicateNode { .. } => ErrorCode::DuplicateNode,
            Self::NodesOutOfOrder { .. } => ErrorCode::NodesOutOfOrder,
            Self::NodeMissing { .. } => ErrorCode::NodeHashMismatch,
            Self::RootMismatch { .. } => ErrorCode::RootMismatch,
        }
    }
}

impl From<DecodeError> for MbtError {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}

struct Params(MbtParams);

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b={} m={}", self.0.bucket_bits(), self.0.fanout())
    }
}

struct Value(Option<Word>);

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(v) => Hex(v).fmt(f),
            None => f.write_str("absent"),
        }
    }
}

struct Range((u64, u64));

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..={}", self.0.0, self.0.1)
    }
}

impl fmt::Display for MbtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Decode(e) => e.fmt(f),
            Self::ParamsMismatch { expected, found } => write!(
                f,
                "the proof is made under {}, not the trusted {}",
                Params(*found),
                Params(*expected)
            ),
            Self::KeyMismatch { expected, found } => write!(
                f,
                "the proof is for state key {}, not {}",
                Hex(found.as_slice()),
                Hex(expected.as_slice())
            ),
            Self::RangeMismatch { expected, found } => write!(
                f,
                "the proof answers blocks {}, not {}",
                Range(*found),
                Range(*expected)
            ),
            Self::TooFewLevels { expected, found } => write!(
                f,
                "the proof has {found} inner levels, fewer than the tree's {expected}"
            ),
            Self::TooManyLevels { expected, found } => write!(
                f,
                "the proof has {found} inner levels, more than the tree's {expected}"
            ),
            Self::EntriesOutOfOrder { field } => {
                write!(
                    f,
                    "{field}: bucket entries are not strictly increasing by key"
                )
            }
            Self::ForeignEntry {
                field,
                expected,
                found,
            } => write!(
                f,
                "{field}: an entry of bucket {found} listed in bucket {expected}"
            ),
            Self::ValueMismatch { expected, found } => write!(
                f,
                "the proof proves {}, not the claimed {}",
                Value(*found),
                Value(*expected)
            ),
            Self::DuplicateNode { field } => write!(f, "{field}: a node repeated"),
            Self::NodesOutOfOrder { field } => {
                write!(f, "{field}: nodes are not in increasing hash order")
            }
            Self::NodeMissing { block, field, hash } => write!(
                f,
                "block {block}: the node {} its path needs is not in {field}",
                Hex(hash.as_slice())
            ),
            Self::UnusedNode { field } => write!(f, "{field}: a node on no block's path"),
            Self::RootMismatch {
                field,
                expected,
                found,
            } => write!(
                f,
                "{field}: the proof gives root {}, not the trusted {}",
                Hex(found.as_slice()),
                Hex(expected.as_slice())
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for MbtError {}

impl Rejection for MbtError {
    fn code(&self) -> ErrorCode {
        MbtError::code(self)
    }

    fn evidence(&self) -> Evidence {
        let at = |f: &str| Evidence::at(alloc::format!("proof.{f}"));
        match self {
            Self::Decode(e) => at(&e.field),
            Self::ParamsMismatch { expected, found } => {
                Evidence::diff("proof.params", Params(*expected), Params(*found))
            }
            Self::KeyMismatch { expected, found } => Evidence::diff(
                "proof.stateKey",
                Hex(expected.as_slice()),
                Hex(found.as_slice()),
            ),
            Self::RangeMismatch { expected, found } => {
                Evidence::diff("proof.range", Range(*expected), Range(*found))
            }
            Self::TooFewLevels { expected, found } | Self::TooManyLevels { expected, found } => {
                Evidence::diff("proof.levels", expected, found)
            }
            Self::EntriesOutOfOrder { field }
            | Self::DuplicateNode { field }
            | Self::NodesOutOfOrder { field }
            | Self::UnusedNode { field } => at(field),
            Self::ForeignEntry {
                field,
                expected,
                found,
            } => Evidence::diff(alloc::format!("proof.{field}"), expected, found),
            Self::ValueMismatch { expected, found } => {
                Evidence::diff("value", Value(*expected), Value(*found))
            }
            Self::NodeMissing { block, field, hash } => Evidence::diff(
                alloc::format!("proof.{field}"),
                alloc::format!("the node {} of block {block}", Hex(hash.as_slice())),
                "none",
            ),
            Self::RootMismatch {
                field,
                expected,
                found,
            } => Evidence::diff(
                field.clone(),
                Hex(expected.as_slice()),
                Hex(found.as_slice()),
            ),
        }
    }
}
