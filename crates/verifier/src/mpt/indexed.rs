//! Proofs in Ethereum's ordered tries — key `RLP(index)`, value entry `index` of a list — as a
//! header's `transactionsRoot` and `receiptsRoot` commit a block's transactions and receipts
//! (EIP-2718 encodings): one entry, or that the index holds none, by the strict walk.

use alloc::vec::Vec;

use alloy_primitives::B256;
use lightprov_types::mpt::{TransactionProofError, TransactionProofRef};

use super::{MptError, Proven, prove};
use crate::keccak256;

/// The ordered trie's key of entry `index`: the RLP of the index as an integer (0 is `0x80`,
/// 1 to 127 one byte, 128 is `0x8180`).
pub fn index_key(index: u64) -> Vec<u8> {
    alloy_rlp::encode(index)
}

/// Walks `proof` from `root` to the key `RLP(index)` and returns the entry stored there, or
/// `None` when the proof shows the index holds none (for a block's lists: the index is at or
/// beyond its length). The path has at most `MAX_INDEXED_PROOF_NODES` hashed nodes (the wire
/// format refuses longer lists before any hashing); nodes past it fail the walk.
pub fn verify_indexed_proof<'a>(
    root: &B256,
    index: u64,
    proof: &[&'a [u8]],
) -> Result<Option<&'a [u8]>, MptError> {
    Ok(match prove(root, &index_key(index), proof)? {
        Proven::Present(v) => Some(v),
        Proven::Absent(_) => None,
    })
}

/// The two roots of a block header that a transaction proof is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockRoots {
    /// The header's `transactionsRoot`.
    pub transactions_root: B256,
    /// The header's `receiptsRoot`.
    pub receipts_root: B256,
}

/// What a transaction proof is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransactionQuery {
    /// The position in the block.
    pub index: u64,
    /// The transaction's hash, when the caller knows it: keccak256 of the proven transaction
    /// must equal it (and the index must hold one).
    pub hash: Option<B256>,
}

/// The transaction and the receipt a proof proves at an index (their EIP-2718 encodings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProvenTransaction<'a> {
    /// The transaction (a legacy RLP list, or type byte ‖ payload).
    pub transaction: &'a [u8],
    /// Its receipt, likewise.
    pub receipt: &'a [u8],
}

/// The EIP-2718 type of an encoded transaction or receipt: its first byte when that is a type
/// (below `0x80`), else 0 (a legacy RLP list).
fn envelope_type(encoded: &[u8]) -> u8 {
    match encoded.first() {
        Some(&t) if t < 0x80 => t,
        _ => 0,
    }
}

/// Verifies the transaction and the receipt at `query.index` of a block against its roots:
/// both proofs by the strict walk, for the index asked; both present or both absent; the same
/// type; and keccak256 of the transaction equal to `query.hash` when given. `None`: the block
/// holds no transaction at this index.
pub fn verify_transaction_proof<'a>(
    roots: &BlockRoots,
    query: &TransactionQuery,
    proof: &TransactionProofRef<'a>,
) -> Result<Option<ProvenTransaction<'a>>, TransactionProofError> {
    if proof.index != query.index {
        return Err(TransactionProofError::Index {
            expected: query.index,
            found: proof.index,
        });
    }
    let tx = verify_indexed_proof(
        &roots.transactions_root,
        query.index,
        &proof.transaction_proof,
    )
    .map_err(TransactionProofError::Transaction)?;
    let receipt = verify_indexed_proof(&roots.receipts_root, query.index, &proof.receipt_proof)
        .map_err(TransactionProofError::Receipt)?;
    if let Some(expected) = query.hash {
        let found = tx.map(keccak256);
        if found != Some(expected) {
            return Err(TransactionProofError::Hash { expected, found });
        }
    }
    match (tx, receipt) {
        (None, None) => Ok(None),
        (Some(transaction), Some(receipt)) => {
            let (t, r) = (envelope_type(transaction), envelope_type(receipt));
            if t != r {
                return Err(TransactionProofError::Type {
                    transaction: t,
                    receipt: r,
                });
            }
            Ok(Some(ProvenTransaction {
                transaction,
                receipt,
            }))
        }
        (tx, _) => Err(TransactionProofError::Presence {
            transaction: tx.is_some(),
        }),
    }
}

/// A proven transaction and receipt, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifiedTransaction {
    /// The transaction's EIP-2718 encoding.
    pub transaction: Vec<u8>,
    /// The receipt's EIP-2718 encoding.
    pub receipt: Vec<u8>,
}

crate::family::verify_shape! {
    /// Transaction proofs (the wire format of `lightprov_types::mpt::TransactionProof`) in the
    /// one verify shape: checked against a header's `transactionsRoot` and `receiptsRoot`, for
    /// the index (and hash) asked. Verified: the transaction and its receipt, or `None` for an
    /// index the block does not reach.
    pub struct TransactionAtIndex: &lightprov_types::mpt::FAMILY;
    fn verify(
        roots: &BlockRoots,
        query: &TransactionQuery,
        proof,
    ) -> Result<Option<VerifiedTransaction>, TransactionProofError> {
        let proof = TransactionProofRef::decode(proof)?;
        Ok(
            verify_transaction_proof(roots, query, &proof)?.map(|p| VerifiedTransaction {
                transaction: p.transaction.to_vec(),
                receipt: p.receipt.to_vec(),
            }),
        )
    }
}
