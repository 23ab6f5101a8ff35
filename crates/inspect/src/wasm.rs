//! The wasm-bindgen glue (feature `wasm`): what `@lightprov/sdk/inspect` loads. Outlines leave
//! as JSON strings (the SDK parses them); errors as JS `Error`s with the `code` and `field` the
//! SDK rewraps as a `VerificationError`, or `RangeError` for a tamper that does not apply.

use std::{string::String, vec::Vec};

use js_sys::{Error, Object, RangeError, Reflect, Uint8Array};
use lightprov_types::{B256, DecodeError};
use wasm_bindgen::prelude::*;

use crate::{ForgeError, Forged, Outline, cole, lvmt, mpt};

fn decode_error(e: &DecodeError) -> JsValue {
    let err = Error::new(&std::format!("{e}"));
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&err, &"code".into(), &e.code().as_str().into());
    let _ = Reflect::set(&err, &"field".into(), &e.field.as_str().into());
    err.into()
}

fn hash32(b: &[u8], field: &str) -> Result<B256, JsValue> {
    B256::try_from(b).map_err(|_| decode_error(&DecodeError::new(field, "expected 32 bytes")))
}

fn json(r: Result<Outline, DecodeError>) -> Result<String, JsValue> {
    r.map(|o| o.to_json()).map_err(|e| decode_error(&e))
}

fn forged(r: Result<Forged, ForgeError>) -> Result<JsValue, JsValue> {
    let f = match r {
        Ok(f) => f,
        Err(ForgeError::Decode(e)) => return Err(decode_error(&e)),
        Err(ForgeError::NotApplicable(m)) => return Err(RangeError::new(&m).into()),
    };
    let o = Object::new();
    // Setting properties on a fresh plain object cannot fail.
    let _ = Reflect::set(
        &o,
        &"proof".into(),
        &Uint8Array::from(f.proof.as_slice()).into(),
    );
    let _ = Reflect::set(&o, &"description".into(), &f.description.into());
    let _ = Reflect::set(&o, &"expectedCode".into(), &f.code.as_str().into());
    Ok(o.into())
}

fn anchor(aroot: &[u8], history_root: &[u8], blocks: u64) -> Result<lvmt::Anchor, JsValue> {
    Ok(lvmt::Anchor {
        aroot: hash32(aroot, "lvmtRoot")?.0,
        history_root: hash32(history_root, "lvmtHistoryRoot")?,
        blocks,
    })
}

/// Outlines an `eth_getProof` answer in the compact wire format (JSON, see
/// `sdk/src/inspect.ts`).
#[wasm_bindgen(js_name = outlineMptProof)]
pub fn outline_mpt_proof(proof: &[u8], state_root: &[u8]) -> Result<String, JsValue> {
    let root = hash32(state_root, "stateRoot")?;
    json(mpt::outline(proof, &root))
}

/// Outlines a COLE provenance proof (JSON). `scheme` is `"cole"` or `"cole-star"`; the
/// recomputed root is the header's `coleRoot` from the proof's `H_state` and `sibling`.
#[wasm_bindgen(js_name = outlineColeProof)]
pub fn outline_cole_proof(
    proof: &[u8],
    state_key: &[u8],
    lo: u64,
    hi: u64,
    cole_root: &[u8],
    sibling: &[u8],
    scheme: &str,
) -> Result<String, JsValue> {
    let key = hash32(state_key, "stateKey")?;
    let root = hash32(cole_root, "coleRoot")?;
    let sibling = hash32(sibling, "siblingRoot")?;
    let scheme = cole::Scheme::parse(scheme)
        .ok_or_else(|| decode_error(&DecodeError::new("scheme", "expected cole or cole-star")))?;
    json(cole::outline(proof, &key, lo, hi, &root, &sibling, scheme))
}

/// Outlines an LVMT proof of a key's latest value or absence (JSON). `blocks` = the header's
/// number + 1.
#[wasm_bindgen(js_name = outlineLvmtProof)]
pub fn outline_lvmt_proof(
    proof: &[u8],
    state_key: &[u8],
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
) -> Result<String, JsValue> {
    let key = hash32(state_key, "stateKey")?;
    let a = anchor(aroot, history_root, blocks)?;
    json(lvmt::outline_proof(proof, &key, &a))
}

/// Outlines an LVMT history proof over `lo..=hi` (JSON).
#[wasm_bindgen(js_name = outlineLvmtHistory)]
pub fn outline_lvmt_history(
    proof: &[u8],
    state_key: &[u8],
    lo: u64,
    hi: u64,
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
) -> Result<String, JsValue> {
    let key = hash32(state_key, "stateKey")?;
    let a = anchor(aroot, history_root, blocks)?;
    json(lvmt::outline_history(proof, &key, lo, hi, &a))
}

/// Tampers with an honest COLE proof (see [`cole::forge`]). Returns `{proof, description,
/// expectedCode}`.
#[wasm_bindgen(js_name = forgeColeProof)]
pub fn forge_cole_proof(kind: &str, proof: &[u8]) -> Result<JsValue, JsValue> {
    forged(cole::forge(kind, proof))
}

/// Tampers with an honest LVMT proof or history (see [`lvmt::forge`]). Returns `{proof,
/// description, expectedCode}`.
#[wasm_bindgen(js_name = forgeLvmtProof)]
pub fn forge_lvmt_proof(
    kind: &str,
    proof: &[u8],
    aux: Option<Vec<u8>>,
) -> Result<JsValue, JsValue> {
    forged(lvmt::forge(kind, proof, aux.as_deref()))
}
