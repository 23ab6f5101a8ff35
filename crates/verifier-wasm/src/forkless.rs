//! The forkless module's exports: a key's value or absence, and its complete history, from a
//! forkless LiveDB proof.

use std::vec::Vec;

use lightprov_types::{
    Address, B256, DecodeError,
    forkless::{ForklessKey, Link},
};
use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32, reject};

fn key(kind: &str, address: &[u8], slot: &[u8]) -> Result<ForklessKey, JsValue> {
    let a = Address::try_from(address)
        .map_err(|_| decode_error(&DecodeError::new("key.address", "expected 20 bytes")))?;
    match kind {
        "balance" => Ok(ForklessKey::Balance(a)),
        "nonce" => Ok(ForklessKey::Nonce(a)),
        "storage" => Ok(ForklessKey::Storage(a, hash32(slot, "key.slot")?)),
        _ => Err(decode_error(&DecodeError::new(
            "key.kind",
            "expected balance, nonce or storage",
        ))),
    }
}

/// Verifies a forkless proof of the value of the key (`kind` `"balance"`, `"nonce"` or
/// `"storage"`, its `address` and, for storage, its `slot`) against a header's `forklessRoot`.
///
/// Returns `exists(u8) ‖ value(32)`: whether the key has a record (it was written, possibly to
/// zero), and its value (zero when absent).
#[wasm_bindgen(js_name = verifyForklessValue)]
pub fn verify_forkless_value(
    forkless_root: &[u8],
    kind: &str,
    address: &[u8],
    slot: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    use lightprov_verifier::{Verify, forkless::KeyValue};
    let root: B256 = hash32(forkless_root, "forklessRoot")?;
    let v = KeyValue::verify(&root, &key(kind, address, slot)?, proof).map_err(|e| reject(&e))?;
    let mut out = Vec::with_capacity(33);
    out.push(u8::from(v.exists));
    out.extend_from_slice(&v.value);
    Ok(out)
}

/// Verifies a forkless proof of the key's complete history over blocks `lo..=hi` against a
/// header's `forklessRoot` (of the node's head: the proof is the key's chain head in the LiveDB
/// and the chain's links back to the change in force at `lo`).
///
/// Returns `exists(u8) ‖ hasAtLo(u8) ‖ atLoBlock(u64) ‖ atLoValue(32) ‖ count(u32) ‖ (block(u64)
/// ‖ value(32)) × count`, big-endian, changes oldest first.
#[wasm_bindgen(js_name = verifyForklessHistory)]
#[allow(clippy::too_many_arguments)] // one per part of the query, as the other families'
pub fn verify_forkless_history(
    forkless_root: &[u8],
    kind: &str,
    address: &[u8],
    slot: &[u8],
    lo: u64,
    hi: u64,
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    use lightprov_verifier::{
        Verify,
        forkless::{HistoryQuery, KeyHistory},
    };
    let root: B256 = hash32(forkless_root, "forklessRoot")?;
    let q = HistoryQuery {
        key: key(kind, address, slot)?,
        lo,
        hi,
    };
    let h = KeyHistory::verify(&root, &q, proof).map_err(|e| reject(&e))?;
    let exists = std::vec![u8::from(h.exists)];
    fn link(l: &Link) -> (u64, &[u8; 32]) {
        (l.block, &l.value)
    }
    Ok(crate::pack_history(
        exists,
        h.at_lo.as_ref().map(link),
        h.versions.iter().map(link),
    ))
}
