//! The MPT module's exports: EIP-1186 account proofs and single trie proofs.

use std::vec::Vec;

use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32, reject};

/// Verifies an EIP-1186 proof (compact wire format) against a trusted state root.
/// Returns whether the account exists.
#[wasm_bindgen(js_name = verifyAccountProof)]
pub fn verify_account_proof(proof: &[u8], state_root: &[u8]) -> Result<bool, JsValue> {
    use lightprov_types::mpt::AccountProofRef;
    let root = hash32(state_root, "stateRoot")?;
    let proof = AccountProofRef::decode(proof).map_err(|e| decode_error(&e))?;
    lightprov_verifier::mpt::verify_account_proof(&root, &proof)
        .map(|a| a.exists)
        .map_err(|e| reject(&e))
}

/// Verifies one trie proof: `nodes` in the `Nodes` wire format, `key` the trie path (at most
/// 32 bytes),
/// `value` the raw stored value, or `undefined` to prove absence.
#[wasm_bindgen(js_name = verifyMptProof)]
pub fn verify_mpt_proof(
    root: &[u8],
    key: &[u8],
    nodes: &[u8],
    value: Option<Vec<u8>>,
) -> Result<(), JsValue> {
    use lightprov_verifier::{
        Verify,
        mpt::{TrieKey, TrieQuery},
    };
    let root = hash32(root, "root")?;
    let query = TrieQuery {
        key: key.to_vec(),
        value,
    };
    TrieKey::verify(&root, &query, nodes).map_err(|e| reject(&e))
}

/// Verifies a transaction proof (docs/proofs.md, `TransactionProof`: the nodes of the
/// transaction's and the receipt's paths to key `RLP(index)`) against a block's
/// `transactionsRoot` and `receiptsRoot`, for `index` and, when given, the transaction's `hash`.
///
/// Returns the proven pair packed as `transactionLength(u32) ‖ transaction ‖ receipt` (their
/// EIP-2718 encodings), or no bytes when the proofs show the block holds no transaction at
/// `index`.
#[wasm_bindgen(js_name = verifyTransactionProof)]
pub fn verify_transaction_proof(
    proof: &[u8],
    transactions_root: &[u8],
    receipts_root: &[u8],
    index: u64,
    hash: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsValue> {
    use lightprov_types::mpt::TransactionProofRef;
    use lightprov_verifier::mpt::{BlockRoots, TransactionQuery};
    let roots = BlockRoots {
        transactions_root: hash32(transactions_root, "transactionsRoot")?,
        receipts_root: hash32(receipts_root, "receiptsRoot")?,
    };
    let hash = hash.map(|h| hash32(&h, "hash")).transpose()?;
    let proof = TransactionProofRef::decode(proof).map_err(|e| decode_error(&e))?;
    let proven = lightprov_verifier::mpt::verify_transaction_proof(
        &roots,
        &TransactionQuery { index, hash },
        &proof,
    )
    .map_err(|e| reject(&e))?;
    let Some(p) = proven else {
        return Ok(Vec::new());
    };
    let len = u32::try_from(p.transaction.len()).map_err(|_| {
        decode_error(&lightprov_types::DecodeError::new(
            "transactionProof",
            "a transaction over 4 GiB",
        ))
    })?;
    let mut out = Vec::with_capacity(4 + p.transaction.len() + p.receipt.len());
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(p.transaction);
    out.extend_from_slice(p.receipt);
    Ok(out)
}
