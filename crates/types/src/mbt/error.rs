//! Why a Merkle Bucket Tree proof is rejected. Each variant names the field of the proof at
//! fault (`entries[i]`, `levels[l]`, `root.2.0`, `buckets[i]`) and carries what was expected
//! and found; [`MbtError::code`] gives the stable code.

use alloc::string::String;
use core::fmt;

use crate::{
    B256, DecodeError, Word,
    family::{Evidence, OrAbsent, Range, rejection},
    hex::hex,
};

use super::MbtParams;

rejection! {
    /// Why a Merkle Bucket Tree proof was rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum MbtError {
        /// The proof is not the one accepted encoding (the field names where).
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// The proof was made under other parameters than the trusted ones.
        #[code(ParamsMismatch)]
        #[error(
            "the proof is made under {}, not the trusted {}",
            Params(*.found),
            Params(*.expected),
        )]
        ParamsMismatch {
            /// The trusted parameters.
            expected: MbtParams,
            /// The proof's.
            found: MbtParams,
        },
        #[shared]
        KeyMismatch,
        #[shared]
        RangeMismatch,
        /// The proof has fewer inner levels than the trusted parameters' depth.
        #[code(TruncatedProof)]
        #[error("the proof has {found} inner levels, fewer than the tree's {expected}")]
        TooFewLevels {
            /// The depth.
            expected: u8,
            /// The proof's levels.
            found: u8,
        },
        /// The proof has more inner levels than the trusted parameters' depth.
        #[code(ExtraNodes)]
        #[error("the proof has {found} inner levels, more than the tree's {expected}")]
        TooManyLevels {
            /// The depth.
            expected: u8,
            /// The proof's levels.
            found: u8,
        },
        /// The entries of a bucket are not strictly increasing by key (unsorted or repeated).
        #[code(ResultsOutOfOrder)]
        #[error("{field}: bucket entries are not strictly increasing by key")]
        EntriesOutOfOrder {
            /// The entry at fault (`entries[i]`, `root.1.0.new[i]`, `buckets[j][i]`).
            field: String,
        },
        /// An entry's key belongs to another bucket than the one it is listed in.
        #[code(WrongBucket)]
        #[error("{field}: an entry of bucket {found} listed in bucket {expected}")]
        ForeignEntry {
            /// The entry.
            field: String,
            /// The bucket it is listed in (computed by the verifier).
            expected: u32,
            /// The bucket its key hashes to.
            found: u32,
        },
        /// The value the proof proves differs from the claimed one (`None`: absent).
        #[code(ValueMismatch)]
        #[error("the proof proves {}, not the claimed {}", OrAbsent(.found), OrAbsent(.expected))]
        ValueMismatch {
            /// The claimed value.
            expected: Option<Word>,
            /// The proven value.
            found: Option<Word>,
        },
        /// A node of a history proof's node set repeats the one before it.
        #[code(DuplicateNode)]
        #[error("{field}: a node repeated")]
        DuplicateNode {
            /// The node.
            field: String,
        },
        /// The nodes of a history proof's level (or its buckets) are not in increasing hash order.
        #[code(NodesOutOfOrder)]
        #[error("{field}: nodes are not in increasing hash order")]
        NodesOutOfOrder {
            /// The node.
            field: String,
        },
        /// A block's path needs a node below the root that the node set lacks (a node of another
        /// version, an altered node, or one left out).
        #[code(NodeHashMismatch)]
        #[error("block {block}: the node {} its path needs is not in {field}", hex(.hash))]
        NodeMissing {
            /// The block whose path breaks.
            block: u64,
            /// Where the node belongs (`levels[l]`, or `buckets`).
            field: String,
            /// The hash its parent holds.
            hash: B256,
        },
        /// A node of a history proof's node set is on no block's path.
        #[code(ExtraNodes)]
        #[error("{field}: a node on no block's path")]
        UnusedNode {
            /// The node.
            field: String,
        },
        /// The root recomputed from the proof (or, for a history, the root node a block needs)
        /// differs from the trusted root.
        #[code(RootMismatch)]
        #[error(
            "{field}: the proof gives root {}, not the trusted {}",
            hex(.found),
            hex(.expected),
        )]
        RootMismatch {
            /// Which trusted root (`root`, `oldRoot`, `newRoot`, `roots[i]`).
            field: String,
            /// The trusted root.
            expected: B256,
            /// What the proof recomputes to (for a history: the trusted root, absent from the set).
            found: B256,
        },
    }
}

struct Params(MbtParams);

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b={} m={}", self.0.bucket_bits(), self.0.fanout())
    }
}

impl MbtError {
    /// Where the rejection points: the field at fault, and what was expected and found there.
    fn evidence(&self) -> Evidence {
        let at = |f: &str| Evidence::at(alloc::format!("proof.{f}"));
        match self {
            Self::Decode(e) => at(&e.field),
            Self::ParamsMismatch { expected, found } => {
                Evidence::diff("proof.params", Params(*expected), Params(*found))
            }
            Self::KeyMismatch { expected, found } => {
                Evidence::diff_hex("proof.stateKey", expected, found)
            }
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
                Evidence::diff("value", OrAbsent(expected), OrAbsent(found))
            }
            Self::NodeMissing { block, field, hash } => Evidence::diff(
                alloc::format!("proof.{field}"),
                alloc::format!("the node {} of block {block}", hex(hash)),
                "none",
            ),
            Self::RootMismatch {
                field,
                expected,
                found,
            } => Evidence::diff_hex(field.clone(), expected, found),
        }
    }
}
