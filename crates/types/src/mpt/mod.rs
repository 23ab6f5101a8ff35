//! The MPT family: EIP-1186 account and storage proofs (`eth_getProof`) and single trie
//! proofs, checked against a header's `stateRoot`.
//! Rejections are [`MptError`]s and [`AccountProofError`]s.
//!
//! EIP-1186 proofs (`eth_getProof`): the account claim, its trie proof, and storage proofs.
//! Transaction proofs: the transaction and the receipt at one index of a block, against its
//! `transactionsRoot` and `receiptsRoot` ([`TransactionProof`]; rejections are
//! [`TransactionProofError`]s).
//!
//! Wire format (compact binary, all integers big-endian; see docs/proofs.md):
//!
//! ```text
//! AccountProof := version:u8 = 1
//!                 address:[20] balance:[32] nonce:u64 codeHash:[32] storageHash:[32]
//!                 accountProof:Nodes
//!                 count:u16 { key:[32] value:[32] proof:Nodes }*count
//! Nodes        := count:u16 { len:u32 node:[len] }*count
//! ```

mod codec;
mod error;

pub use codec::*;
pub use error::{AccountField, AccountProofError, MptError, TransactionProofError};

use crate::{
    ErrorCode as E,
    family::{Commitment, Family, HeaderField, Tamper},
};

/// The state root every Ethereum header carries (checked against by MPT proofs).
pub const STATE_ROOT: Commitment = Commitment::at("stateRoot", HeaderField::StateRoot, 0);

/// The MPT family's registry entry.
pub const FAMILY: Family = Family {
    name: "mpt",
    about: "an account, its storage slots or any trie key against a header's stateRoot; a transaction and its receipt by index against its block's roots",
    commitments: &[&STATE_ROOT],
    max_history_blocks: None,
    codes: &[
        E::BadEncoding,
        E::MalformedNode,
        E::RootMismatch,
        E::NodeHashMismatch,
        E::DuplicateNode,
        E::NodesOutOfOrder,
        E::ExtraNodes,
        E::TruncatedProof,
        E::KeyMismatch,
        E::ValueMismatch,
        E::TransactionHashMismatch,
        E::ReceiptMismatch,
        E::CodeHashMismatch,
    ],
    tampers: &[
        Tamper::new(
            "wrong-root",
            E::RootMismatch,
            "checked against another root (an empty proof: truncated)",
        )
        .or(E::TruncatedProof),
        Tamper::new(
            "wrong-state-root",
            E::RootMismatch,
            "an account proof checked against another state root",
        ),
        Tamper::new(
            "flipped-byte-in-root-node",
            E::RootMismatch,
            "a byte of the first node flipped",
        ),
        Tamper::new(
            "flipped-byte-in-last-node",
            E::NodeHashMismatch,
            "a byte of the last node flipped",
        ),
        Tamper::new("duplicate-node", E::DuplicateNode, "a node repeated"),
        Tamper::new("reordered-nodes", E::NodesOutOfOrder, "two nodes swapped"),
        Tamper::new(
            "extra-node",
            E::ExtraNodes,
            "a node appended after the one that ends the path",
        ),
        Tamper::new("truncated", E::TruncatedProof, "the last node dropped"),
        Tamper::new("wrong-key", E::KeyMismatch, "checked for another key"),
        Tamper::new("wrong-value", E::ValueMismatch, "another value claimed"),
        Tamper::new(
            "claimed-absent",
            E::ValueMismatch,
            "a present key claimed absent",
        ),
        Tamper::new(
            "account-flipped-byte-in-root-node",
            E::RootMismatch,
            "a byte of the account proof's first node flipped",
        ),
        Tamper::new(
            "account-flipped-byte-in-last-node",
            E::NodeHashMismatch,
            "a byte of the account proof's last node flipped",
        ),
        Tamper::new(
            "account-duplicate-node",
            E::DuplicateNode,
            "an account proof node repeated",
        ),
        Tamper::new(
            "account-reordered-nodes",
            E::NodesOutOfOrder,
            "two account proof nodes swapped",
        ),
        Tamper::new(
            "account-extra-node",
            E::ExtraNodes,
            "a node appended to the account proof",
        ),
        Tamper::new(
            "account-truncated",
            E::TruncatedProof,
            "the account proof's last node dropped",
        ),
        Tamper::new(
            "account-wrong-address",
            E::KeyMismatch,
            "the proof answered for another address",
        ),
        Tamper::new("wrong-balance", E::ValueMismatch, "another balance claimed"),
        Tamper::new("wrong-nonce", E::ValueMismatch, "another nonce claimed"),
        Tamper::new(
            "wrong-code-hash",
            E::ValueMismatch,
            "another code hash claimed",
        ),
        Tamper::new(
            "wrong-storage-hash",
            E::ValueMismatch,
            "another storage hash claimed",
        ),
        Tamper::new(
            "storage-flipped-byte-in-root-node",
            E::RootMismatch,
            "a byte of a storage proof's first node flipped",
        ),
        Tamper::new(
            "storage-flipped-byte-in-last-node",
            E::NodeHashMismatch,
            "a byte of a storage proof's last node flipped",
        ),
        Tamper::new(
            "storage-duplicate-node",
            E::DuplicateNode,
            "a storage proof node repeated",
        ),
        Tamper::new(
            "storage-reordered-nodes",
            E::NodesOutOfOrder,
            "two storage proof nodes swapped",
        ),
        Tamper::new(
            "storage-extra-node",
            E::ExtraNodes,
            "a node appended to a storage proof",
        ),
        Tamper::new(
            "storage-truncated",
            E::TruncatedProof,
            "a storage proof's last node dropped",
        ),
        Tamper::new(
            "storage-wrong-slot",
            E::KeyMismatch,
            "a storage proof for another slot",
        ),
        Tamper::new(
            "storage-wrong-value",
            E::ValueMismatch,
            "another storage value claimed",
        ),
        Tamper::new(
            "storage-missing-key",
            E::BadEncoding,
            "a storage proof without its key",
        ),
        Tamper::new(
            "bad-hex-balance",
            E::BadEncoding,
            "a balance that is not hex",
        ),
        Tamper::new("odd-hex-node", E::BadEncoding, "a node of odd hex length"),
        Tamper::new("short-address", E::BadEncoding, "an address of 19 bytes"),
        Tamper::new(
            "oversized-proof",
            E::BadEncoding,
            "more nodes than any 32-byte key's path",
        ),
        Tamper::new(
            "txproof-other-index",
            E::KeyMismatch,
            "the proofs of another index",
        ),
        Tamper::new(
            "txproof-wrong-index",
            E::KeyMismatch,
            "the answer for another index",
        ),
        Tamper::new(
            "txproof-other-block-receipts",
            E::RootMismatch,
            "a receipt proof of another block",
        ),
        Tamper::new(
            "txproof-wrong-hash",
            E::TransactionHashMismatch,
            "another transaction's hash asked",
        ),
        Tamper::new(
            "txproof-receipt-missing",
            E::ReceiptMismatch,
            "a transaction without its receipt",
        ),
        Tamper::new(
            "txproof-claimed-other-transaction",
            E::ValueMismatch,
            "another transaction claimed",
        ),
        Tamper::new(
            "txproof-too-many-nodes",
            E::BadEncoding,
            "more nodes than an index key's path",
        ),
        Tamper::new(
            "trie-forged-bad-hex-prefix-flag",
            E::MalformedNode,
            "a hex-prefix flag above 3",
        ),
        Tamper::new(
            "trie-forged-branch-value-is-a-list",
            E::MalformedNode,
            "a branch whose value is a list",
        ),
        Tamper::new(
            "trie-forged-branch-with-one-child",
            E::MalformedNode,
            "a branch with one child and no value",
        ),
        Tamper::new(
            "trie-forged-child-reference-of-5-bytes",
            E::MalformedNode,
            "a child reference neither inline nor 32 bytes",
        ),
        Tamper::new(
            "trie-forged-even-flag-with-padding-nibble",
            E::MalformedNode,
            "an even path with a non-zero padding nibble",
        ),
        Tamper::new(
            "trie-forged-extension-child-is-a-leaf",
            E::MalformedNode,
            "an extension whose child is a leaf",
        ),
        Tamper::new(
            "trie-forged-junk-inline-child",
            E::MalformedNode,
            "an inline child that is no node",
        ),
        Tamper::new(
            "trie-forged-leaf-with-empty-value",
            E::MalformedNode,
            "a leaf with an empty value",
        ),
        Tamper::new(
            "trie-forged-not-a-list",
            E::MalformedNode,
            "a node that is not an RLP list",
        ),
        Tamper::new(
            "trie-forged-short-node-referenced-by-hash",
            E::MalformedNode,
            "a node under 32 bytes referenced by hash",
        ),
        Tamper::new(
            "trie-forged-three-items",
            E::MalformedNode,
            "a list of three items",
        ),
        Tamper::new(
            "trie-forged-trailing-bytes",
            E::MalformedNode,
            "bytes after the node's RLP",
        ),
    ],
};
