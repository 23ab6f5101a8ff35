//! Errors of the MPT verifier; each carries its evidence and maps to one stable code.

use alloc::vec::Vec;
use core::fmt;

use alloy_primitives::B256;
use lightprov_types::ErrorCode;

/// Why a trie proof was rejected. `index` is a position in the proof's node list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MptError {
    /// Proof node `index` (or an inline node inside it) is not a canonical trie node.
    MalformedNode {
        /// The proof node, or the node that embeds the inline node.
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// The first node does not hash to the trusted root.
    RootMismatch {
        /// The trusted root.
        expected: B256,
        /// keccak256 of the first node.
        got: B256,
    },
    /// Node `index` does not hash to the reference its parent holds.
    NodeHashMismatch {
        /// The node that does not link.
        index: usize,
        /// The parent's reference.
        expected: B256,
        /// keccak256 of the node.
        got: B256,
    },
    /// Node `index` repeats node `first`.
    DuplicateNode {
        /// The repeated node.
        index: usize,
        /// Its first occurrence.
        first: usize,
    },
    /// Node `index` is not the child its parent references, but a later node is.
    NodesOutOfOrder {
        /// Where the order breaks.
        index: usize,
    },
    /// `count` nodes from `index` on follow the node that ends the path.
    ExtraNodes {
        /// The first extra node.
        index: usize,
        /// How many there are.
        count: usize,
    },
    /// The proof ends after `nodes` nodes, but the path goes on.
    TruncatedProof {
        /// How many nodes the proof has.
        nodes: usize,
    },
    /// The proof follows another key's path from node `index` on. (A path that ends at
    /// another key's leaf proves absence; a claim of presence then gives `ValueMismatch`.)
    KeyMismatch {
        /// The first node of the other key's path.
        index: usize,
    },
    /// The proven value differs from the claim (`None` = absent).
    ValueMismatch {
        /// The claimed value.
        expected: Option<Vec<u8>>,
        /// The value the proof proves.
        got: Option<Vec<u8>>,
    },
}

impl MptError {
    /// The stable error code.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::MalformedNode { .. } => ErrorCode::MalformedNode,
            Self::RootMismatch { .. } => ErrorCode::RootMismatch,
            Self::NodeHashMismatch { .. } => ErrorCode::NodeHashMismatch,
            Self::DuplicateNode { .. } => ErrorCode::DuplicateNode,
            Self::NodesOutOfOrder { .. } => ErrorCode::NodesOutOfOrder,
            Self::ExtraNodes { .. } => ErrorCode::ExtraNodes,
            Self::TruncatedProof { .. } => ErrorCode::TruncatedProof,
            Self::KeyMismatch { .. } => ErrorCode::KeyMismatch,
            Self::ValueMismatch { .. } => ErrorCode::ValueMismatch,
        }
    }
}

struct Opt<'a>(&'a Option<Vec<u8>>);

impl fmt::Display for Opt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("absent"),
            Some(v) => write!(f, "{}", alloy_primitives::hex::encode_prefixed(v)),
        }
    }
}

impl fmt::Display for MptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MalformedNode { index, reason } => {
                write!(f, "node {index} is malformed: {reason}")
            }
            Self::RootMismatch { expected, got } => {
                write!(
                    f,
                    "the first node hashes to {got}, not to the root {expected}"
                )
            }
            Self::NodeHashMismatch {
                index,
                expected,
                got,
            } => {
                write!(
                    f,
                    "node {index} hashes to {got}, but its parent references {expected}"
                )
            }
            Self::DuplicateNode { index, first } => write!(f, "node {index} repeats node {first}"),
            Self::NodesOutOfOrder { index } => {
                write!(
                    f,
                    "node {index} is out of order: the child its parent references comes later"
                )
            }
            Self::ExtraNodes { index, count } => {
                write!(
                    f,
                    "{count} node(s) from index {index} follow the node that ends the path"
                )
            }
            Self::TruncatedProof { nodes } => write!(
                f,
                "the proof ends after {nodes} node(s) but the path goes on"
            ),
            Self::KeyMismatch { index } => {
                write!(f, "from node {index} the proof follows another key's path")
            }
            Self::ValueMismatch { expected, got } => {
                write!(
                    f,
                    "claimed {}, but the proof proves {}",
                    Opt(expected),
                    Opt(got)
                )
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for MptError {}
