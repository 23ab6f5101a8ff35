//! Why a POS-Tree proof is rejected. Each variant names the part of the proof at fault as a
//! field path — `proof.nodes[i]` (a path proof's i-th node, root first), `proof.tree.2.0` (a
//! range proof's child 0 of the root's child 2), `proof.old…`/`proof.new…` (a diff proof's
//! trees), `proof.items[i]` (a history proof's node set) — and carries what was expected and
//! found; [`PosError::code`] gives the stable code.

use alloc::string::String;
use core::fmt;

use crate::{
    B256, DecodeError, Word,
    family::{Evidence, OrAbsent, rejection},
    hex::hex,
};

/// Which tree of a diff proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The tree at the first block.
    Old,
    /// The tree at the second block.
    New,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Old => "old",
            Self::New => "new",
        })
    }
}

rejection! {
    /// Why a POS-Tree proof was rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum PosError {
        /// The proof is not the one accepted encoding (the field names where).
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// The proof's root does not hash to the trusted root.
        #[code(RootMismatch)]
        #[error("the proof's root is {}, not the trusted {}", hex(.found), hex(.expected))]
        RootMismatch {
            /// The trusted root.
            expected: B256,
            /// What the proof hashes to.
            found: B256,
        },
        /// A node does not hash to the child hash its parent holds for the key's route.
        #[code(NodeHashMismatch)]
        #[error("{at} hashes to {}, not the parent's child hash {}", hex(.found), hex(.expected))]
        NodeHashMismatch {
            /// The node.
            at: String,
            /// The parent's child hash.
            expected: B256,
            /// The node's hash.
            found: B256,
        },
        /// The path goes on to a child the key does not route to (the prover chose the index).
        #[code(KeyMismatch)]
        #[error("{at} is its parent's child {found}, but the key routes to child {expected}")]
        WrongChild {
            /// The node.
            at: String,
            /// The child the key routes to.
            expected: usize,
            /// The child the node is.
            found: usize,
        },
        /// The path ends before a leaf, or a node a path needs is not in the proof.
        #[code(TruncatedProof)]
        #[error("the proof lacks the node needed at {at}")]
        Truncated {
            /// Where the missing node was needed.
            at: String,
        },
        /// Nodes follow the leaf that ends the path.
        #[code(ExtraNodes)]
        #[error("{at} follows the leaf that ends the path")]
        ExtraNodes {
            /// The first node after the leaf.
            at: String,
        },
        /// A node of a history proof's set repeats an earlier one.
        #[code(DuplicateNode)]
        #[error("{at} repeats item {first}")]
        DuplicateNode {
            /// The repeated node.
            at: String,
            /// The item it repeats.
            first: usize,
        },
        /// A node is not one level below its parent (or a leaf is not at level 0).
        #[code(BadShape)]
        #[error("{at} is at level {found}, not {expected}")]
        LevelMismatch {
            /// The node.
            at: String,
            /// The level it must have.
            expected: u8,
            /// Its level.
            found: u8,
        },
        /// An inner node's separators are not strictly increasing.
        #[code(SeparatorsOutOfOrder)]
        #[error("{at}: separator {index} is not above the one before it")]
        SeparatorsOutOfOrder {
            /// The node.
            at: String,
            /// The first separator not above the one before it.
            index: usize,
        },
        /// A leaf's entries are not strictly increasing by key.
        #[code(EntriesOutOfOrder)]
        #[error("{at}: entry {index} is not above the one before it")]
        EntriesOutOfOrder {
            /// The leaf.
            at: String,
            /// The first entry not above the one before it.
            index: usize,
        },
        /// A node's largest key is not the separator its parent holds for it.
        #[code(SeparatorMismatch)]
        #[error(fmt = separator_mismatch)]
        SeparatorMismatch {
            /// The node.
            at: String,
            /// The parent's separator.
            expected: B256,
            /// The node's largest key (`None`: an empty node).
            found: Option<B256>,
        },
        /// A node's smallest key is not above the separator before it in its parent.
        #[code(ChildOutOfRange)]
        #[error(
            "{at}'s smallest key {} is not above the separator before it, {}",
            hex(.found),
            hex(.bound),
        )]
        ChildOutOfRange {
            /// The node.
            at: String,
            /// The separator before it (its keys must be above).
            bound: B256,
            /// Its smallest key.
            found: B256,
        },
        /// The value proven differs from the value claimed (`None`: absent).
        #[code(ValueMismatch)]
        #[error(
            "{at}: the proof proves {}, not the claimed {}",
            OrAbsent(.proven),
            OrAbsent(.claimed),
        )]
        ValueMismatch {
            /// The field claimed.
            at: String,
            /// What the proof proves.
            proven: Option<Word>,
            /// What was claimed.
            claimed: Option<Word>,
        },
        /// A range proof prunes a subtree whose keys can be in the range, or a claimed answer
        /// lacks a proven entry.
        #[code(IncompleteRange)]
        #[error("{at}: keys of the range can be in what the proof leaves out")]
        Incomplete {
            /// The pruned subtree or the answer.
            at: String,
        },
        /// A range proof reveals a subtree no key of the range can be in, or a claimed answer holds
        /// an entry the proof does not prove.
        #[code(ExtraResults)]
        #[error("{at}: beyond what the range needs or the proof proves")]
        ExtraResults {
            /// The needless subtree or the extra answer.
            at: String,
        },
        /// The asked key range is empty (`lo > hi`), or a history proof answers another block range.
        #[code(RangeMismatch)]
        #[error("the proof answers {found}, not {expected}")]
        RangeMismatch {
            /// What was asked.
            expected: String,
            /// What the proof answers.
            found: String,
        },
        /// A subtree a diff proof prunes in one tree is not pruned in the other.
        #[code(UnmatchedSubtree)]
        #[error("{at}: subtree {} is pruned in the {side} tree but not in the other", hex(.hash))]
        UnmatchedSubtree {
            /// The tree it is pruned in.
            side: Side,
            /// The pruned subtree.
            at: String,
            /// Its hash.
            hash: B256,
        },
        /// A history proof's node set holds a node no block's path uses.
        #[code(UnusedNode)]
        #[error("{at} is on no block's path")]
        UnusedNode {
            /// The item.
            at: String,
        },
    }
}

/// [`PosError::SeparatorMismatch`]'s message: the node's largest key, or that it is empty.
fn separator_mismatch(
    at: &String,
    expected: &B256,
    found: &Option<B256>,
    f: &mut fmt::Formatter<'_>,
) -> fmt::Result {
    match found {
        Some(k) => write!(
            f,
            "{at}'s largest key is {}, not its parent's separator {}",
            hex(k),
            hex(expected)
        ),
        None => write!(
            f,
            "{at} is empty, but its parent's separator is {}",
            hex(expected)
        ),
    }
}

impl PosError {
    /// Where the rejection points: the field at fault, and what was expected and found there.
    fn evidence(&self) -> Evidence {
        let p = |at: &str| alloc::format!("proof.{at}");
        match self {
            Self::Decode(e) => Evidence::at(p(&e.field)),
            Self::RootMismatch { expected, found } => Evidence::diff_hex("root", expected, found),
            Self::NodeHashMismatch {
                at,
                expected,
                found,
            } => Evidence::diff_hex(p(at), expected, found),
            Self::WrongChild {
                at,
                expected,
                found,
            } => Evidence::diff(p(at), expected, found),
            Self::LevelMismatch {
                at,
                expected,
                found,
            } => Evidence::diff(p(at), expected, found),
            Self::SeparatorMismatch {
                at,
                expected,
                found,
            } => Evidence::diff(
                p(at),
                hex(expected),
                found.map_or_else(|| "none".into(), |k| alloc::format!("{}", hex(&k))),
            ),
            Self::ChildOutOfRange { at, bound, found } => {
                Evidence::diff(p(at), alloc::format!("above {}", hex(bound)), hex(found))
            }
            Self::ValueMismatch {
                at,
                proven,
                claimed,
            } => Evidence::diff(at.clone(), OrAbsent(proven), OrAbsent(claimed)),
            Self::RangeMismatch { expected, found } => Evidence::diff("range", expected, found),
            Self::SeparatorsOutOfOrder { at, index } | Self::EntriesOutOfOrder { at, index } => {
                Evidence::at(alloc::format!("proof.{at}.entries[{index}]"))
            }
            Self::DuplicateNode { at, .. }
            | Self::Truncated { at }
            | Self::ExtraNodes { at }
            | Self::Incomplete { at }
            | Self::ExtraResults { at }
            | Self::UnmatchedSubtree { at, .. }
            | Self::UnusedNode { at } => Evidence::at(p(at)),
        }
    }
}
