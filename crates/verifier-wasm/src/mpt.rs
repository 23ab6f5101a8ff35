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
