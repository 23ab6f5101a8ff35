//! Stable error codes shared by Rust, the wasm boundary and the TypeScript SDK.
//!
//! Each family's registry entry lists the codes its verifier answers, mirrored in
//! `tests/vectors/<family>/error-codes.json` with their meaning; a test in each language checks
//! that they agree and that every code is some family's. Codes are API: never rename one, only
//! add.

use core::fmt;

macro_rules! error_codes {
    ($( $(#[$doc:meta])* $variant:ident = $code:literal, )*) => {
        /// Why a proof, header or encoded input was rejected.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $( $(#[$doc])* $variant, )*
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// The stable string form, e.g. `"ROOT_MISMATCH"`.
            pub const fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$variant => $code,)* }
            }

            /// Parses the string form.
            pub fn from_code(code: &str) -> Option<Self> {
                match code { $($code => Some(ErrorCode::$variant),)* _ => None }
            }
        }
    };
}

error_codes! {
    /// Input bytes, hex or JSON are not the one accepted encoding (the message names the field).
    BadEncoding = "BAD_ENCODING",
    /// A trie node is valid RLP but not a valid Merkle-Patricia trie node.
    MalformedNode = "MALFORMED_NODE",
    /// The first proof node does not hash to the trusted root.
    RootMismatch = "ROOT_MISMATCH",
    /// A proof node does not hash to the reference its parent holds.
    NodeHashMismatch = "NODE_HASH_MISMATCH",
    /// A proof node repeats an earlier node.
    DuplicateNode = "DUPLICATE_NODE",
    /// The proof holds the right nodes in the wrong order.
    NodesOutOfOrder = "NODES_OUT_OF_ORDER",
    /// Nodes follow the node that ends the path (leaf, empty slot or diverging extension).
    ExtraNodes = "EXTRA_NODES",
    /// The proof ends before the path reaches a leaf, an empty slot or a diverging node.
    TruncatedProof = "TRUNCATED_PROOF",
    /// The proof follows the path of another key.
    KeyMismatch = "KEY_MISMATCH",
    /// The claimed value differs from the value the proof proves.
    ValueMismatch = "VALUE_MISMATCH",
    /// keccak256(RLP(header)) differs from the expected block hash.
    HeaderHashMismatch = "HEADER_HASH_MISMATCH",
    /// The header's fields do not form a known layout (Frontier, London, Shanghai, Cancun, Prague).
    BadHeaderLayout = "BAD_HEADER_LAYOUT",
    /// A header's parentHash is not the hash of the verified header before it.
    ParentMismatch = "PARENT_MISMATCH",
    /// A header's proof-of-authority seal is missing, malformed or does not recover.
    BadSeal = "BAD_SEAL",
    /// A header is sealed by a key that is not among the trusted signers.
    UnknownSigner = "UNKNOWN_SIGNER",
    /// A proof's tree does not have the shape its structure's size and fanout allow (a node too wide, an entry at the wrong depth, a run of the wrong height).
    BadShape = "BAD_SHAPE",
    /// A range proof leaves a gap: a pruned subtree between revealed entries, a missing neighbour entry, or a structure that reveals nothing.
    IncompleteRange = "INCOMPLETE_RANGE",
    /// Revealed entries are not strictly increasing by (state key, block), or an older structure holds a newer version than a newer one.
    ResultsOutOfOrder = "RESULTS_OUT_OF_ORDER",
    /// A range proof reveals entries beyond the one neighbour needed on each side.
    ExtraResults = "EXTRA_RESULTS",
    /// A history proof stops searching before the version in force at the range's start is found, or searches on after it.
    WrongEarlyStop = "WRONG_EARLY_STOP",
    /// A proof answers another block range than the one asked for.
    RangeMismatch = "RANGE_MISMATCH",
    /// An AMT opening's pairing equation does not hold: a value, an index or a quotient point is false.
    PairingCheckFailed = "PAIRING_CHECK_FAILED",
    /// A tuple's Merkle path does not lead to the trusted history root (a stale, altered or missing tuple).
    HistoryMismatch = "HISTORY_MISMATCH",
    /// An LVMT proof's levels do not follow the key's placement: a level is missing or extra, or a slot holder sits on another path.
    LevelMismatch = "LEVEL_MISMATCH",
    /// A header breaks the proof-of-authority chain's sealing rules: the difficulty of an in-turn or out-of-turn seal, or a signer sealing again within its limit.
    SignerRule = "SIGNER_RULE",
    /// The trusted chain does not commit to the roots a scheme's proofs are checked against (its anchor names the commitments it carries).
    UnsupportedScheme = "UNSUPPORTED_SCHEME",
    /// keccak256 of the transaction a proof proves at a block's index is not the hash asked for (or the index holds none).
    TransactionHashMismatch = "TRANSACTION_HASH_MISMATCH",
    /// The receipt proven at a transaction's index does not go with it: one of the two is absent while the other is present, or their EIP-2718 types differ.
    ReceiptMismatch = "RECEIPT_MISMATCH",
    /// A contract's code does not hash to the code hash its account proof proves.
    CodeHashMismatch = "CODE_HASH_MISMATCH",
    // The forkless family.
    /// A proof opens a record at or beyond the number of records its file commits.
    RecordOutOfRange = "RECORD_OUT_OF_RANGE",
    /// An entry of a bucket (a forkless key index's, an MBT bucket) belongs to another bucket than the one its key hashes to.
    WrongBucket = "WRONG_BUCKET",
    /// An absence proof's bucket holds the key it claims absent.
    KeyPresent = "KEY_PRESENT",
    /// A history chain's links recompute to another head than the state commits: a change dropped, altered, moved to another block or of another key.
    ChainMismatch = "CHAIN_MISMATCH",
    // The beacon family (sync-committee light client).
    /// A bootstrap's beacon header does not hash to the trusted checkpoint block root.
    CheckpointMismatch = "CHECKPOINT_MISMATCH",
    /// Fewer sync committee members signed an update than the protocol's minimum.
    LowParticipation = "LOW_PARTICIPATION",
    /// An update's slots are out of order: not current slot ≥ signature slot > attested slot ≥ finalized slot.
    SlotOrder = "SLOT_ORDER",
    /// An update is signed in a sync committee period the store has no committee for, or finalizes a header of another period than the store's.
    PeriodMismatch = "PERIOD_MISMATCH",
    /// An update's attested header is not newer than the finalized header and it brings no next sync committee the store lacks.
    StaleUpdate = "STALE_UPDATE",
    /// A field the update's kind or fork must leave empty is set: a finalized header without finality branch, a next sync committee without its branch, execution data before Capella, blob gas before Deneb.
    UnexpectedField = "UNEXPECTED_FIELD",
    /// A finality branch does not lead from the finalized header's root to the attested header's state root.
    FinalityBranchMismatch = "FINALITY_BRANCH_MISMATCH",
    /// A sync committee branch does not lead from the committee's root to the header's state root (a bootstrap's current or an update's next committee).
    SyncCommitteeBranchMismatch = "SYNC_COMMITTEE_BRANCH_MISMATCH",
    /// An execution branch does not lead from the execution payload header's root to the beacon block's body root.
    ExecutionBranchMismatch = "EXECUTION_BRANCH_MISMATCH",
    /// An update's next sync committee differs from the one the store already verified for that period.
    SyncCommitteeMismatch = "SYNC_COMMITTEE_MISMATCH",
    /// The sync committee's aggregate signature over the attested header does not verify (other signers, another fork or network, or not a valid point).
    BadSyncSignature = "BAD_SYNC_SIGNATURE",
    // Merkle Bucket Tree (mbt).
    /// A proof is made under other tree parameters than the trusted ones (MBT: bucket bits and fanout).
    ParamsMismatch = "PARAMS_MISMATCH",
    // POS-Tree (pattern-oriented split tree).
    /// An inner node's separator keys (its children's largest keys) are not strictly increasing.
    SeparatorsOutOfOrder = "SEPARATORS_OUT_OF_ORDER",
    /// A leaf's entries are not strictly increasing by key (its first entry included).
    EntriesOutOfOrder = "ENTRIES_OUT_OF_ORDER",
    /// A node's largest key differs from the separator its parent holds for it.
    SeparatorMismatch = "SEPARATOR_MISMATCH",
    /// A node's smallest key is not above the separator before it in its parent: it holds keys of its left neighbour's range.
    ChildOutOfRange = "CHILD_OUT_OF_RANGE",
    /// A subtree a diff proof prunes in one version is not pruned in the other, so changes inside it would go unseen.
    UnmatchedSubtree = "UNMATCHED_SUBTREE",
    /// A history proof's node set holds a node that no block's path uses.
    UnusedNode = "UNUSED_NODE",
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_are_unique() {
        for (i, c) in ErrorCode::ALL.iter().enumerate() {
            assert_eq!(ErrorCode::from_code(c.as_str()), Some(*c));
            assert!(ErrorCode::ALL[..i].iter().all(|o| o.as_str() != c.as_str()));
        }
        assert_eq!(ErrorCode::from_code("NOPE"), None);
    }
}
