//! The POS-Tree module's exports: a state key's value or absence, a key range, the changes
//! between two blocks and a key's value at every block of a range, each against the `posRoot` of
//! the block (or blocks) asked about — a POS-Tree keeps every version, so a proof is against the
//! root of its own block, not the head's.

use std::vec::Vec;

use lightprov_types::{B256, DecodeError, Word};
use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32, reject};

/// `present(u8) ‖ value(32)` (zero when absent).
fn pack_value(out: &mut Vec<u8>, v: Option<&Word>) {
    out.push(u8::from(v.is_some()));
    out.extend_from_slice(v.unwrap_or(&[0; 32]));
}

/// Verifies a POS-Tree path proof of `state_key` against a header's `posRoot`.
///
/// Returns `present(u8) ‖ value(32)`: whether the key is in the tree, and its value (zero when
/// absent).
#[wasm_bindgen(js_name = verifyPosValue)]
pub fn verify_pos_value(
    pos_root: &[u8],
    state_key: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    use lightprov_verifier::{Verify, pos::PosValue};
    let root = hash32(pos_root, "posRoot")?;
    let key = hash32(state_key, "stateKey")?;
    let v = PosValue::verify(&root, &key, proof).map_err(|e| reject(&e))?;
    let mut out = Vec::with_capacity(33);
    pack_value(&mut out, v.as_ref());
    Ok(out)
}

/// Verifies a POS-Tree range proof: every entry with a key in `lo..=hi` against a header's
/// `posRoot`.
///
/// Returns `count(u32) ‖ (key(32) ‖ value(32)) × count`, big-endian, keys ascending.
#[wasm_bindgen(js_name = verifyPosRange)]
pub fn verify_pos_range(
    pos_root: &[u8],
    lo: &[u8],
    hi: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    use lightprov_verifier::{Verify, pos::PosRange};
    let root = hash32(pos_root, "posRoot")?;
    let q = (hash32(lo, "lo")?, hash32(hi, "hi")?);
    let entries = PosRange::verify(&root, &q, proof).map_err(|e| reject(&e))?;
    let mut out = Vec::with_capacity(4 + entries.len() * 64);
    out.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    for (k, v) in &entries {
        out.extend_from_slice(k.as_slice());
        out.extend_from_slice(v);
    }
    Ok(out)
}

/// Verifies a POS-Tree diff proof: every key whose value differs between two blocks, against
/// their headers' `posRoot`s (`old_root` of the first block, `new_root` of the second).
///
/// Returns `count(u32) ‖ (key(32) ‖ oldPresent(u8) ‖ old(32) ‖ newPresent(u8) ‖ new(32)) ×
/// count`, big-endian, keys ascending (an absent side is zero).
#[wasm_bindgen(js_name = verifyPosDiff)]
pub fn verify_pos_diff(old_root: &[u8], new_root: &[u8], proof: &[u8]) -> Result<Vec<u8>, JsValue> {
    use lightprov_verifier::{Verify, pos::PosDiff};
    let roots = (hash32(old_root, "oldRoot")?, hash32(new_root, "newRoot")?);
    let changes = PosDiff::verify(&roots, &(), proof).map_err(|e| reject(&e))?;
    let mut out = Vec::with_capacity(4 + changes.len() * 98);
    out.extend_from_slice(&(changes.len() as u32).to_be_bytes());
    for c in &changes {
        out.extend_from_slice(c.key.as_slice());
        pack_value(&mut out, c.old.as_ref());
        pack_value(&mut out, c.new.as_ref());
    }
    Ok(out)
}

/// Verifies a POS-Tree history proof: `state_key`'s value at every block `from, from + 1, …`,
/// against those blocks' `posRoot`s, concatenated in `roots` (32 bytes each, `from`'s first).
///
/// Returns `count(u32) ‖ (present(u8) ‖ value(32)) × count`, big-endian, one per block.
#[wasm_bindgen(js_name = verifyPosHistory)]
pub fn verify_pos_history(
    from: u64,
    roots: &[u8],
    state_key: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    use lightprov_verifier::{
        Verify,
        pos::{BlockRoots, PosHistory},
    };
    if roots.is_empty() || !roots.len().is_multiple_of(32) {
        return Err(decode_error(&DecodeError::new(
            "roots",
            "expected one or more 32-byte roots",
        )));
    }
    let roots: Vec<B256> = roots.chunks_exact(32).map(B256::from_slice).collect();
    let key = hash32(state_key, "stateKey")?;
    let values = PosHistory::verify(
        &BlockRoots {
            from,
            roots: &roots,
        },
        &key,
        proof,
    )
    .map_err(|e| reject(&e))?;
    let mut out = Vec::with_capacity(4 + values.len() * 33);
    out.extend_from_slice(&(values.len() as u32).to_be_bytes());
    for v in &values {
        pack_value(&mut out, v.as_ref());
    }
    Ok(out)
}
