//! Ethereum Merkle-Patricia trie proofs: a strict walk over `eth_getProof` nodes, and EIP-1186
//! account and storage proofs built on it.

mod account;
mod error;
mod node;
mod walk;

pub use account::{AccountField, AccountProofError, VerifiedAccount, verify_account_proof};
pub use error::MptError;
pub use walk::{Absence, Proven, as_slices, prove, verify_proof};

#[cfg(test)]
mod tests;
