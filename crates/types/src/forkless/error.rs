//! Why a forkless LiveDB proof is rejected. Each variant names the part of the proof at fault
//! (`proof.located.keys`, `proof.claim.links[i]`, …) and carries what was expected and found;
//! [`ForklessError::code`] gives the stable code.

use alloc::{format, string::String};
use core::fmt;

use super::{Component, ForklessKey};
use crate::{
    B256, DecodeError,
    family::{Evidence, rejection},
    hex::hex,
};

/// The opened file a fault is in: the key's reverse table, the bucket file, the value file or
/// the chain file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// `proof.located.keys`.
    Keys,
    /// `proof.located.buckets`.
    Buckets,
    /// `proof.claim.value`.
    Value,
    /// `proof.claim.head`.
    Head,
}

impl Opened {
    /// The field path of the opening.
    pub const fn field(self) -> &'static str {
        match self {
            Self::Keys => "proof.located.keys",
            Self::Buckets => "proof.located.buckets",
            Self::Value => "proof.claim.value",
            Self::Head => "proof.claim.head",
        }
    }
}

rejection! {
    /// Why a forkless proof was rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum ForklessError {
        /// The proof is not the one accepted encoding (the field names where).
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// The proof is for another key.
        #[code(KeyMismatch)]
        #[error("the proof is for {}, not {}", Key(.found), Key(.expected))]
        KeyMismatch {
            /// The key asked for.
            expected: ForklessKey,
            /// The proof's key.
            found: ForklessKey,
        },
        /// The query itself is empty: `lo > hi`.
        #[code(RangeMismatch)]
        #[error("the range {lo}..={hi} is empty")]
        EmptyRange {
            /// First block asked.
            lo: u64,
            /// Last block asked.
            hi: u64,
        },
        /// The proof proves something else than asked: a value instead of a history, or a history
        /// over another range.
        #[code(RangeMismatch)]
        #[error("the proof proves {found}, not {expected}")]
        ClaimMismatch {
            /// What was asked.
            expected: String,
            /// What the proof proves.
            found: String,
        },
        /// The opened record lies at or beyond the number of records the file commits.
        #[code(RecordOutOfRange)]
        #[error("{}: record {record} is beyond the file's {count} records", .opened.field())]
        RecordOutOfRange {
            /// The opening.
            opened: Opened,
            /// The record.
            record: u64,
            /// Records in the file.
            count: u64,
        },
        /// The reverse table holds another key at the proof's record number.
        #[code(KeyMismatch)]
        #[error("the reverse table holds {found} at record {record}, not {expected}")]
        RecordKeyMismatch {
            /// The record.
            record: u64,
            /// The key asked for, as the table stores it.
            expected: String,
            /// What the table holds there.
            found: String,
        },
        /// An opening has not the number of sibling hashes its file's tree has.
        #[code(BadShape)]
        #[error("{}: {found} sibling hashes, the file's tree needs {expected}", .opened.field())]
        Siblings {
            /// The opening.
            opened: Opened,
            /// `height × (fanout − 1)` for the committed record count.
            expected: usize,
            /// What the proof gives.
            found: usize,
        },
        /// An opening's page and siblings hash to another tree root than the proof lists.
        #[code(NodeHashMismatch)]
        #[error(
            "{}: the {} file's tree recomputes to {}, not the listed {}",
            .opened.field(),
            .component.name(),
            hex(.found),
            hex(.expected),
        )]
        TreeMismatch {
            /// The opening.
            opened: Opened,
            /// The file.
            component: Component,
            /// The root the proof lists (bound into the state root).
            expected: B256,
            /// What the opening recomputes to.
            found: B256,
        },
        /// An absence proof's bucket entries are not strictly increasing by key.
        #[code(ResultsOutOfOrder)]
        #[error("bucket entry {entry} is not after the one before it")]
        BucketOutOfOrder {
            /// The first entry out of order.
            entry: usize,
        },
        /// An absence proof's bucket holds an entry of another bucket.
        #[code(WrongBucket)]
        #[error("bucket entry {entry} belongs to bucket {found}, not {expected}")]
        WrongBucket {
            /// The entry.
            entry: usize,
            /// The bucket the proof's key is in.
            expected: u64,
            /// The bucket the entry's key is in.
            found: u64,
        },
        /// An absence proof's bucket holds the key it claims absent.
        #[code(KeyPresent)]
        #[error("bucket entry {entry} is the key the proof claims absent")]
        KeyPresent {
            /// The entry holding it.
            entry: usize,
        },
        /// The bucket's entries hash to another value than its record in the bucket file.
        #[code(NodeHashMismatch)]
        #[error(
            "bucket {bucket}'s entries hash to {}, not the bucket file's {}",
            hex(.found),
            hex(.expected),
        )]
        BucketMismatch {
            /// The bucket.
            bucket: u64,
            /// The bucket file's record.
            expected: B256,
            /// The hash of the entries given.
            found: B256,
        },
        /// The chain's links are not strictly increasing by block.
        #[code(ResultsOutOfOrder)]
        #[error("link {link} is not after the link before it")]
        LinksOutOfOrder {
            /// The first link out of order.
            link: usize,
        },
        /// The chain starts after `lo` from a chain value: a change at or before `lo` (the value in
        /// force at the range's start) or between it and the first link is left out.
        #[code(IncompleteRange)]
        #[error(fmt = chain_incomplete)]
        ChainIncomplete {
            /// The range's first block.
            lo: u64,
            /// The block of the oldest link given (`None`: no link).
            oldest: Option<u64>,
        },
        /// More than one link at or before `lo`: only the value in force at `lo` is needed.
        #[code(ExtraResults)]
        #[error(
            "link {link} is at or before the range's start like the one after it; only the \
             value in force at the start is needed",
        )]
        ExtraLinks {
            /// The first link not needed.
            link: usize,
        },
        /// The links recompute to another chain head than the chain file commits (a link dropped,
        /// altered, of another key or of another block).
        #[code(ChainMismatch)]
        #[error(
            "the links recompute to chain head {}, not the committed {}",
            hex(.found),
            hex(.expected),
        )]
        ChainMismatch {
            /// The head in the chain file.
            expected: B256,
            /// What the links recompute to.
            found: B256,
        },
        /// The state root recomputed from the proof differs from the trusted one.
        #[code(RootMismatch)]
        #[error(
            "the state root recomputed from the proof is {}, not the trusted {}",
            hex(.found),
            hex(.expected),
        )]
        RootMismatch {
            /// The trusted root (`forklessRoot`).
            expected: B256,
            /// What the proof recomputes to.
            found: B256,
        },
    }
}

/// [`ForklessError::ChainIncomplete`]'s message: where the chain resumes.
fn chain_incomplete(lo: &u64, oldest: &Option<u64>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match oldest {
        Some(b) => write!(
            f,
            "the chain resumes at block {b}, after block {lo}: the change in force at {lo} is \
             left out"
        ),
        None => write!(f, "the chain resumes with no link"),
    }
}

struct Key<'a>(&'a ForklessKey);

impl fmt::Display for Key<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ForklessKey::Balance(a) => write!(f, "balance({})", hex(a)),
            ForklessKey::Nonce(a) => write!(f, "nonce({})", hex(a)),
            ForklessKey::Storage(a, s) => {
                write!(f, "storage({}, {})", hex(a), hex(s))
            }
        }
    }
}

impl ForklessError {
    /// Where the rejection points: the field at fault, and what was expected and found there.
    fn evidence(&self) -> Evidence {
        match self {
            Self::Decode(e) => Evidence::at(format!("proof.{}", e.field)),
            Self::KeyMismatch { expected, found } => {
                Evidence::diff("proof.key", Key(expected), Key(found))
            }
            Self::EmptyRange { lo, hi } => {
                Evidence::diff("range", "fromBlock ≤ toBlock", format!("{lo}..={hi}"))
            }
            Self::ClaimMismatch { expected, found } => {
                Evidence::diff("proof.claim", expected, found)
            }
            Self::RecordOutOfRange {
                opened,
                record,
                count,
            } => Evidence::diff(
                format!("{}.count", opened.field()),
                format!("more than {record} records"),
                count,
            ),
            Self::RecordKeyMismatch {
                expected, found, ..
            } => Evidence::diff("proof.located.record", expected, found),
            Self::Siblings {
                opened,
                expected,
                found,
            } => Evidence::diff(format!("{}.siblings", opened.field()), expected, found),
            Self::TreeMismatch {
                opened,
                expected,
                found,
                ..
            } => Evidence::diff_hex(opened.field(), expected, found),
            Self::BucketOutOfOrder { entry } | Self::KeyPresent { entry } => {
                Evidence::at(format!("proof.located.entries[{entry}]"))
            }
            Self::WrongBucket {
                entry,
                expected,
                found,
            } => Evidence::diff(
                format!("proof.located.entries[{entry}]"),
                format!("bucket {expected}"),
                format!("bucket {found}"),
            ),
            Self::BucketMismatch {
                expected, found, ..
            } => Evidence::diff_hex("proof.located.entries", expected, found),
            Self::LinksOutOfOrder { link } | Self::ExtraLinks { link } => {
                Evidence::at(format!("proof.claim.links[{link}]"))
            }
            Self::ChainIncomplete { lo, oldest } => Evidence::diff(
                "proof.claim.links[0]",
                format!("a link at or before block {lo}"),
                match oldest {
                    Some(b) => format!("block {b}"),
                    None => String::from("no link"),
                },
            ),
            Self::ChainMismatch { expected, found } => {
                Evidence::diff_hex("proof.claim.links", expected, found)
            }
            Self::RootMismatch { expected, found } => Evidence::diff_hex("root", expected, found),
        }
    }
}
