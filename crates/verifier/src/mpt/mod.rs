//! Ethereum Merkle-Patricia trie proofs: a strict walk over `eth_getProof` nodes, and EIP-1186
//! account and storage proofs built on it; entries of a block's ordered tries (its transactions
//! and receipts by index).

mod account;
mod indexed;
mod node;
mod walk;

pub use account::{VerifiedAccount, verify_account_proof};
pub use indexed::{
    BlockRoots, ProvenTransaction, TransactionAtIndex, TransactionQuery, VerifiedTransaction,
    index_key, verify_indexed_proof, verify_transaction_proof,
};
pub use lightprov_types::mpt::{AccountField, AccountProofError, MptError, TransactionProofError};
pub use walk::{Absence, Proven, as_slices, prove, verify_proof};

#[cfg(test)]
mod tests;

crate::family::verify_shape! {
    /// EIP-1186 account proofs (compact wire format, storage proofs included) in the one verify
    /// shape: checked against a header's `stateRoot`, for the address asked.
    pub struct Account: &lightprov_types::mpt::FAMILY;
    fn verify(
        state_root: &alloy_primitives::B256,
        address: &alloy_primitives::Address,
        proof,
    ) -> Result<VerifiedAccount, AccountProofError> {
        let proof = lightprov_types::mpt::AccountProofRef::decode(proof)?;
        if proof.address != *address {
            return Err(AccountProofError::Address {
                expected: *address,
                found: proof.address,
            });
        }
        verify_account_proof(state_root, &proof)
    }
}

/// One trie key and the value claimed for it (`None`: claimed absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrieQuery {
    /// The trie path (at most 32 bytes: the node-count cap of the wire format is sized for it).
    pub key: alloc::vec::Vec<u8>,
    /// The raw value claimed.
    pub value: Option<alloc::vec::Vec<u8>>,
}

crate::family::verify_shape! {
    /// Single trie proofs (a `Nodes` list) in the one verify shape.
    pub struct TrieKey: &lightprov_types::mpt::FAMILY;
    fn verify(root: &alloy_primitives::B256, q: &TrieQuery, proof) -> Result<(), MptError> {
        use lightprov_types::{DecodeError, codec::Reader, mpt::decode_nodes};
        if q.key.len() > 32 {
            return Err(DecodeError::new("key", "at most 32 bytes").into());
        }
        let mut r = Reader::new(proof);
        let nodes = decode_nodes(&mut r, "proof")?;
        r.finish("proof")?;
        verify_proof(root, &q.key, q.value.as_deref(), &nodes)
    }
}
