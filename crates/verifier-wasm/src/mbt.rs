//! The mbt module's exports: a state key's value or absence at a block, the changes between two
//! blocks, and a key's history over a block range, from Merkle Bucket Tree proofs. Every proof is
//! checked against the `mbtRoot` of the block it is about (the tree keeps every version), under
//! the chain's parameters `bucketBits` and `fanout`.

use std::vec::Vec;

use lightprov_types::{
    B256, DecodeError,
    mbt::{MbtError, MbtParams},
};
use lightprov_verifier::mbt::{DiffTrusted, HistoryQuery, HistoryTrusted};
use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32, reject};

fn params(bucket_bits: u8, fanout: u8) -> Result<MbtParams, JsValue> {
    MbtParams::new(bucket_bits, fanout).map_err(|e| decode_error(&e))
}

/// Verifies an mbt proof of `stateKey`'s value against a block's `mbtRoot`; with `claimed` (32
/// bytes, zero: absent), also that the proven value is the claimed one (`VALUE_MISMATCH`).
///
/// Returns `present(u8) ‖ value(32)` (value zero when absent).
#[wasm_bindgen(js_name = verifyMbtValue)]
pub fn verify_mbt_value(
    bucket_bits: u8,
    fanout: u8,
    mbt_root: &[u8],
    state_key: &[u8],
    proof: &[u8],
    claimed: Option<Vec<u8>>,
) -> Result<Vec<u8>, JsValue> {
    let p = params(bucket_bits, fanout)?;
    let root = hash32(mbt_root, "mbtRoot")?;
    let key = hash32(state_key, "stateKey")?;
    let found = lightprov_verifier::mbt::verify(&p, &root, &key, proof).map_err(|e| reject(&e))?;
    if let Some(c) = claimed {
        let c: [u8; 32] = hash32(&c, "value")?.0;
        let c = (c != [0; 32]).then_some(c);
        if c != found {
            return Err(reject(&MbtError::ValueMismatch { expected: c, found }));
        }
    }
    let mut out = Vec::with_capacity(33);
    out.push(u8::from(found.is_some()));
    out.extend_from_slice(&found.unwrap_or([0; 32]));
    Ok(out)
}

/// Verifies an mbt diff proof: every state key whose value differs between the block of
/// `oldRoot` and the block of `newRoot`.
///
/// Returns `count(u32) ‖ (stateKey(32) ‖ old(32) ‖ new(32)) × count`, big-endian, by bucket then
/// key (a zero value: absent in that block).
#[wasm_bindgen(js_name = verifyMbtDiff)]
pub fn verify_mbt_diff(
    bucket_bits: u8,
    fanout: u8,
    old_root: &[u8],
    new_root: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    let t = DiffTrusted {
        params: params(bucket_bits, fanout)?,
        old_root: hash32(old_root, "oldRoot")?,
        new_root: hash32(new_root, "newRoot")?,
    };
    let changes = lightprov_verifier::mbt::verify_diff(&t, proof).map_err(|e| reject(&e))?;
    let mut out = Vec::with_capacity(4 + changes.len() * 96);
    out.extend_from_slice(&(changes.len() as u32).to_be_bytes());
    for c in &changes {
        out.extend_from_slice(c.key.as_slice());
        out.extend_from_slice(&c.old);
        out.extend_from_slice(&c.new);
    }
    Ok(out)
}

/// Verifies an mbt history proof of `stateKey` over blocks `lo..=hi` against `roots`, the
/// `mbtRoot` of every block of the range concatenated, the first block's first.
///
/// Returns `count(u32) ‖ value(32) × count`: the key's value after each block of the range (zero:
/// absent).
#[wasm_bindgen(js_name = verifyMbtHistory)]
#[allow(clippy::too_many_arguments)] // one per part of the query, as the other families'
pub fn verify_mbt_history(
    bucket_bits: u8,
    fanout: u8,
    roots: &[u8],
    state_key: &[u8],
    lo: u64,
    hi: u64,
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    if !roots.len().is_multiple_of(32) {
        return Err(decode_error(&DecodeError::new(
            "roots",
            "expected 32 bytes per block",
        )));
    }
    let roots: Vec<B256> = roots.chunks_exact(32).map(B256::from_slice).collect();
    let t = HistoryTrusted {
        params: params(bucket_bits, fanout)?,
        roots: &roots,
    };
    let q = HistoryQuery {
        key: hash32(state_key, "stateKey")?,
        lo,
        hi,
    };
    let h = lightprov_verifier::mbt::verify_history(&t, &q, proof).map_err(|e| reject(&e))?;
    let mut out = Vec::with_capacity(4 + h.values.len() * 32);
    out.extend_from_slice(&(h.values.len() as u32).to_be_bytes());
    for v in &h.values {
        out.extend_from_slice(v);
    }
    Ok(out)
}
