//! Why an MPT proof is rejected; each error carries its evidence and maps to one stable code.

use alloc::vec::Vec;
use core::fmt;

use crate::{
    B256, DecodeError,
    family::{Evidence, OrAbsent, rejection},
    hex::hex,
};

rejection! {
    /// Why a trie proof was rejected. `index` is a position in the proof's node list.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum MptError {
        /// The node list is not the one accepted encoding (the field names where).
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// Proof node `index` (or an inline node inside it) is not a canonical trie node.
        #[code(MalformedNode)]
        #[error("node {index} is malformed: {reason}")]
        MalformedNode {
            /// The proof node, or the node that embeds the inline node.
            index: usize,
            /// What is wrong.
            reason: &'static str,
        },
        /// The first node does not hash to the trusted root.
        #[code(RootMismatch)]
        #[error("the first node hashes to {}, not to the root {}", hex(.got), hex(.expected))]
        RootMismatch {
            /// The trusted root.
            expected: B256,
            /// keccak256 of the first node.
            got: B256,
        },
        /// Node `index` does not hash to the reference its parent holds.
        #[code(NodeHashMismatch)]
        #[error(
            "node {index} hashes to {}, but its parent references {}",
            hex(.got),
            hex(.expected),
        )]
        NodeHashMismatch {
            /// The node that does not link.
            index: usize,
            /// The parent's reference.
            expected: B256,
            /// keccak256 of the node.
            got: B256,
        },
        /// Node `index` repeats node `first`.
        #[code(DuplicateNode)]
        #[error("node {index} repeats node {first}")]
        DuplicateNode {
            /// The repeated node.
            index: usize,
            /// Its first occurrence.
            first: usize,
        },
        /// Node `index` is not the child its parent references, but a later node is.
        #[code(NodesOutOfOrder)]
        #[error("node {index} is out of order: the child its parent references comes later")]
        NodesOutOfOrder {
            /// Where the order breaks.
            index: usize,
        },
        /// `count` nodes from `index` on follow the node that ends the path.
        #[code(ExtraNodes)]
        #[error("{count} node(s) from index {index} follow the node that ends the path")]
        ExtraNodes {
            /// The first extra node.
            index: usize,
            /// How many there are.
            count: usize,
        },
        /// The proof ends after `nodes` nodes, but the path goes on.
        #[code(TruncatedProof)]
        #[error("the proof ends after {nodes} node(s) but the path goes on")]
        TruncatedProof {
            /// How many nodes the proof has.
            nodes: usize,
        },
        /// The proof follows another key's path from node `index` on. (A path that ends at
        /// another key's leaf proves absence; a claim of presence then gives `ValueMismatch`.)
        #[code(KeyMismatch)]
        #[error("from node {index} the proof follows another key's path")]
        KeyMismatch {
            /// The first node of the other key's path.
            index: usize,
        },
        /// The proven value differs from the claim (`None` = absent).
        #[code(ValueMismatch)]
        #[error("claimed {}, but the proof proves {}", OrAbsent(.expected), OrAbsent(.got))]
        ValueMismatch {
            /// The claimed value.
            expected: Option<Vec<u8>>,
            /// The value the proof proves.
            got: Option<Vec<u8>>,
        },
    }
}

/// Which claim of an account proof disagrees with the trie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccountField {
    /// `nonce`.
    Nonce,
    /// `balance`.
    Balance,
    /// `codeHash`.
    CodeHash,
    /// `storageHash`.
    StorageHash,
}

impl AccountField {
    /// The JSON field name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Nonce => "nonce",
            Self::Balance => "balance",
            Self::CodeHash => "codeHash",
            Self::StorageHash => "storageHash",
        }
    }
}

rejection! {
    /// Why an account proof was rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum AccountProofError {
        /// The proof is not the one accepted encoding (the field names where).
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// The account part failed.
        #[code(via 0)]
        #[error("accountProof: {0}")]
        Account(MptError),
        /// A claimed account field differs from the proven account.
        #[code(ValueMismatch)]
        #[error(fmt = field_mismatch)]
        Field {
            /// The field.
            field: AccountField,
            /// True when the proof shows the account absent (the claim must then be empty).
            absent: bool,
        },
        /// Storage proof `index` failed.
        #[code(via error)]
        #[error("storageProof[{index}]: {error}")]
        Storage {
            /// Position in `storageProof`.
            index: usize,
            /// Why.
            error: MptError,
        },
        /// The proof answers for another address than the one asked.
        #[code(KeyMismatch)]
        // Lowercase hex, not the checksummed `Display`: the checksum's string code would weigh
        // on every wasm module that verifies accounts.
        #[error("address: the proof is for {}, not {}", hex(.found), hex(.expected))]
        Address {
            /// The address asked for.
            expected: crate::Address,
            /// The proof's address.
            found: crate::Address,
        },
    }
}

impl AccountProofError {
    /// The part of the proof at fault, as a JSON path (`accountProof`, `storageProof[2]`, `balance`).
    pub fn field(&self) -> alloc::string::String {
        match self {
            Self::Decode(e) => e.field.clone(),
            Self::Account(_) => "accountProof".into(),
            Self::Field { field, .. } => field.name().into(),
            Self::Storage { index, .. } => alloc::format!("storageProof[{index}]"),
            Self::Address { .. } => "address".into(),
        }
    }
}

impl MptError {
    /// Where the rejection points, in a node list named `proof`.
    fn evidence(&self) -> Evidence {
        self.evidence_in("proof")
    }

    /// The evidence, with field paths relative to the node list (`proof[3]`).
    pub fn evidence_in(&self, list: &str) -> Evidence {
        let at = |i: &usize| alloc::format!("{list}[{i}]");
        match self {
            Self::Decode(e) => Evidence::at(e.field.clone()),
            Self::MalformedNode { index, .. }
            | Self::DuplicateNode { index, .. }
            | Self::NodesOutOfOrder { index }
            | Self::KeyMismatch { index } => Evidence::at(at(index)),
            Self::ExtraNodes { index, count } => {
                Evidence::diff(at(index), "no more nodes", alloc::format!("{count} more"))
            }
            Self::RootMismatch { expected, got } => Evidence::diff_hex(at(&0), expected, got),
            Self::NodeHashMismatch {
                index,
                expected,
                got,
            } => Evidence::diff_hex(at(index), expected, got),
            Self::TruncatedProof { nodes } => Evidence::diff(
                list,
                "the path's next node",
                alloc::format!("{nodes} nodes"),
            ),
            Self::ValueMismatch { expected, got } => {
                Evidence::diff("value", OrAbsent(expected), OrAbsent(got))
            }
        }
    }
}

impl AccountProofError {
    /// The field is the claim or the proof at fault (`balance`, `accountProof`,
    /// `storageProof[2]`); what was expected and found there comes from the trie walk.
    fn evidence(&self) -> Evidence {
        let inner = match self {
            Self::Decode(e) => return Evidence::at(e.field.clone()),
            Self::Account(e) => e.evidence_in("accountProof"),
            Self::Storage { index, error } => {
                error.evidence_in(&alloc::format!("storageProof[{index}].proof"))
            }
            Self::Field { absent, .. } => Evidence::diff(
                "",
                if *absent {
                    "the empty account's value"
                } else {
                    "the proven account's value"
                },
                "another value",
            ),
            Self::Address { expected, found } => Evidence::diff_hex("", expected, found),
        };
        Evidence {
            field: self.field(),
            ..inner
        }
    }
}

rejection! {
    /// Why a transaction proof (the transaction and the receipt at one index of a block) was
    /// rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum TransactionProofError {
        /// The proof is not the one accepted encoding (the field names where).
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// The proof is for another index than the one asked.
        #[code(KeyMismatch)]
        // No numbers: u64 formatting would weigh on the MPT wasm module alone (the field and the
        // query name the indices).
        #[error("index: the proof is for another index than asked")]
        Index {
            /// The index asked for.
            expected: u64,
            /// The proof's index.
            found: u64,
        },
        /// The transaction's proof fails against `transactionsRoot`.
        #[code(via 0)]
        #[error("transactionProof: {0}")]
        Transaction(MptError),
        /// The receipt's proof fails against `receiptsRoot`.
        #[code(via 0)]
        #[error("receiptProof: {0}")]
        Receipt(MptError),
        /// keccak256 of the proven transaction is not the hash asked for.
        #[code(TransactionHashMismatch)]
        #[error(
            "transaction: the proven transaction hashes to {}, not to {}",
            OrAbsent(.found),
            hex(.expected),
        )]
        Hash {
            /// The hash asked for.
            expected: B256,
            /// keccak256 of the proven transaction; `None`: the index holds no transaction.
            found: Option<B256>,
        },
        /// One trie holds an entry at the index and the other does not.
        #[code(ReceiptMismatch)]
        #[error(
            "receiptProof: the transaction is {} at this index but the receipt {}",
            present(*.transaction),
            present(!*.transaction),
        )]
        Presence {
            /// Whether the transactions trie holds one (the receipts trie then does not, and the
            /// other way round).
            transaction: bool,
        },
        /// The receipt's EIP-2718 type differs from its transaction's.
        #[code(ReceiptMismatch)]
        #[error("receiptProof: the receipt's type differs from its transaction's")]
        Type {
            /// The transaction's type (0: legacy).
            transaction: u8,
            /// The receipt's type.
            receipt: u8,
        },
    }
}

impl TransactionProofError {
    /// The part of the proof at fault (`index`, `transactionProof`, `receiptProof`,
    /// `transaction`).
    pub fn field(&self) -> alloc::string::String {
        match self {
            Self::Decode(e) => e.field.clone(),
            Self::Index { .. } => "index".into(),
            Self::Transaction(_) => "transactionProof".into(),
            Self::Receipt(_) | Self::Presence { .. } | Self::Type { .. } => "receiptProof".into(),
            Self::Hash { .. } => "transaction".into(),
        }
    }
}

/// [`AccountProofError::Field`]'s message: whether the claim differs from the proven account or
/// the account is absent.
fn field_mismatch(field: &AccountField, absent: &bool, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if *absent {
        write!(
            f,
            "{}: the account is absent but the claim is not empty",
            field.name()
        )
    } else {
        write!(
            f,
            "{}: the claim differs from the proven account",
            field.name()
        )
    }
}

const fn present(yes: bool) -> &'static str {
    if yes { "present" } else { "absent" }
}

impl TransactionProofError {
    /// The field is the part at fault; inside a proof, what was expected and found there comes
    /// from the trie walk, with node paths such as `receiptProof[2]`.
    fn evidence(&self) -> Evidence {
        match self {
            Self::Decode(e) => Evidence::at(e.field.clone()),
            Self::Index { .. } => Evidence::at("index"),
            Self::Transaction(e) => e.evidence_in("transactionProof"),
            Self::Receipt(e) => e.evidence_in("receiptProof"),
            Self::Hash { expected, found } => {
                Evidence::diff("transaction", hex(expected), OrAbsent(found))
            }
            Self::Presence { transaction } => Evidence::diff(
                "receiptProof",
                present(*transaction),
                present(!*transaction),
            ),
            Self::Type { .. } => Evidence::at("receiptProof"),
        }
    }
}
