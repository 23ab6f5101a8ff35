#![doc = include_str!("../README.md")]

use std::string::ToString;

use js_sys::{Error, Reflect};
use lightprov_types::{B256, DecodeError, ErrorCode, Rejection};
use wasm_bindgen::prelude::*;

/// A JS `Error` carrying the stable `code` and the `field` at fault; the SDK rewraps it as a
/// `VerificationError`.
fn error(code: ErrorCode, field: &str, message: &str) -> JsValue {
    let e = Error::new(message);
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&e, &"code".into(), &code.as_str().into());
    let _ = Reflect::set(&e, &"field".into(), &field.into());
    e.into()
}

/// Any family's rejection as a JS error: `code`, `field` (the path in the input at fault) and,
/// where the check compares one value with another, `expected` and `found`.
fn reject(e: &dyn Rejection) -> JsValue {
    let ev = e.evidence();
    let err = error(e.code(), &ev.field, &e.to_string());
    for (name, v) in [("expected", ev.expected), ("found", ev.found)] {
        if let Some(v) = v {
            let _ = Reflect::set(&err, &name.into(), &v.into());
        }
    }
    err
}

fn decode_error(e: &DecodeError) -> JsValue {
    reject(e)
}

fn hash32(b: &[u8], field: &str) -> Result<B256, JsValue> {
    B256::try_from(b).map_err(|_| decode_error(&DecodeError::new(field, "expected 32 bytes")))
}

/// keccak256 of `data` (state keys; code against a proven code hash). In the header and MPT
/// modules.
#[cfg(any(feature = "header", feature = "mpt"))]
#[wasm_bindgen]
pub fn keccak256(data: &[u8]) -> Vec<u8> {
    lightprov_verifier::keccak256(data).to_vec()
}

/// A verified history packed for the SDK, after what `out` holds: `hasAtLo(u8) ‖
/// atLoBlock(u64) ‖ atLoValue(32) ‖ count(u32) ‖ (block(u64) ‖ value(32)) × count`, big-endian,
/// versions (each its block and value) oldest first.
#[cfg(any(feature = "cole", feature = "forkless"))]
fn pack_history<'a>(
    mut out: Vec<u8>,
    at_lo: Option<(u64, &[u8; 32])>,
    versions: impl ExactSizeIterator<Item = (u64, &'a [u8; 32])>,
) -> Vec<u8> {
    out.reserve(45 + versions.len() * 40);
    match at_lo {
        Some((block, value)) => {
            out.push(1);
            out.extend_from_slice(&block.to_be_bytes());
            out.extend_from_slice(value);
        }
        None => out.extend_from_slice(&[0; 41]),
    }
    out.extend_from_slice(&(versions.len() as u32).to_be_bytes());
    for (block, value) in versions {
        out.extend_from_slice(&block.to_be_bytes());
        out.extend_from_slice(value);
    }
    out
}

// One module per proof family (its exports), behind the feature that makes its wasm module.
#[cfg(feature = "beacon")]
pub mod beacon;
#[cfg(feature = "cole")]
pub mod cole;
#[cfg(feature = "evm")]
pub mod evm;
#[cfg(feature = "forkless")]
pub mod forkless;
#[cfg(feature = "header")]
pub mod header;
#[cfg(feature = "lvmt")]
pub mod lvmt;
#[cfg(feature = "mbt")]
pub mod mbt;
#[cfg(feature = "mpt")]
pub mod mpt;
#[cfg(feature = "pos")]
pub mod pos;
