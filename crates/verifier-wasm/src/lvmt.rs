//! The LVMT module's exports: parameters, latest-value proofs and histories.

use std::vec::Vec;

use lightprov_types::{B256, DecodeError};
use lightprov_verifier::{
    Verify,
    lvmt::proof::{HistoryQuery, KeyHistory, LatestValue, LvmtError, Proven, Trusted, Version},
};
use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32, reject};

/// LVMT verifier parameters (`depth ‖ [1]₂ ‖ [τ^{2^j}]₂`), decoded and validated once — every
/// G2 point on the curve and in the subgroup — then reused for every proof.
#[wasm_bindgen]
#[derive(Debug)]
pub struct LvmtParams(lightprov_verifier::lvmt::amt::Params);

#[wasm_bindgen]
impl LvmtParams {
    /// Decodes and validates the parameters.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<LvmtParams, JsValue> {
        lightprov_verifier::lvmt::amt::Params::decode(bytes)
            .map(LvmtParams)
            .map_err(|e| decode_error(&e))
    }

    /// SHA-256 of the canonical encoding: what a client pins.
    pub fn id(&self) -> Vec<u8> {
        self.0.id().to_vec()
    }

    /// The AMT depth D.
    #[wasm_bindgen(getter)]
    pub fn depth(&self) -> u8 {
        self.0.depth()
    }
}

/// What an LVMT proof is checked against (the header's roots, `blocks` = its number + 1) and
/// the state key asked.
fn lvmt_query<'a>(
    params: &'a LvmtParams,
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
    state_key: &[u8],
) -> Result<(Trusted<'a>, B256), JsValue> {
    let aroot: [u8; 32] = aroot
        .try_into()
        .map_err(|_| decode_error(&DecodeError::new("lvmtRoot", "expected 32 bytes")))?;
    let t = Trusted {
        params: &params.0,
        aroot,
        history_root: hash32(history_root, "lvmtHistoryRoot")?,
        blocks,
    };
    Ok((t, hash32(state_key, "stateKey")?))
}

/// Verifies an LVMT proof of a key's latest value or of its absence against a header's
/// `lvmtRoot` and `lvmtHistoryRoot` (`blocks` = the header's number + 1).
///
/// Returns `present(u8) ‖ version(u64) ‖ block(u64) ‖ value(32)`, big-endian (zeros if absent).
#[wasm_bindgen(js_name = verifyLvmtProof)]
pub fn verify_lvmt_proof(
    params: &LvmtParams,
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
    state_key: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    let (t, key) = lvmt_query(params, aroot, history_root, blocks, state_key)?;
    lvmt_proven(LatestValue::verify(&t, &key, proof))
}

/// [`verify_lvmt_proof`] with every AMT opening checked on its own, one full pairing per factor:
/// the reference the batched check is benchmarked against. Same arguments and result.
#[cfg(feature = "bench-baseline")]
#[wasm_bindgen(js_name = verifyLvmtProofSeparatePairings)]
pub fn verify_lvmt_proof_separate_pairings(
    params: &LvmtParams,
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
    state_key: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    let (t, key) = lvmt_query(params, aroot, history_root, blocks, state_key)?;
    lvmt_proven(lightprov_verifier::lvmt::proof::verify_separate_pairings(
        &t, &key, proof,
    ))
}

/// What a latest-value check proved, encoded: `present(u8) ‖ version(u64) ‖ block(u64) ‖
/// value(32)`, big-endian (zeros if absent); its rejection as a JS error.
fn lvmt_proven(verdict: Result<Proven, LvmtError>) -> Result<Vec<u8>, JsValue> {
    let proven = verdict.map_err(|e| reject(&e))?;
    let mut out = Vec::with_capacity(49);
    match proven {
        Proven::Present {
            version,
            value,
            block,
        } => {
            out.push(1);
            out.extend_from_slice(&version.to_be_bytes());
            out.extend_from_slice(&block.to_be_bytes());
            out.extend_from_slice(&value);
        }
        Proven::Absent => out.extend_from_slice(&[0; 49]),
    }
    Ok(out)
}

/// Verifies an LVMT history proof of a key over `lo..=hi`. Returns `hasAtLo(u8) ‖ block(u64) ‖
/// version(u64) ‖ value(32)` for the version in force at `lo`, then `count(u32)` and
/// `(block ‖ version ‖ value) × count`, oldest first.
#[wasm_bindgen(js_name = verifyLvmtHistory)]
#[allow(clippy::too_many_arguments)]
pub fn verify_lvmt_history(
    params: &LvmtParams,
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
    state_key: &[u8],
    lo: u64,
    hi: u64,
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    let (t, key) = lvmt_query(params, aroot, history_root, blocks, state_key)?;
    let h = KeyHistory::verify(&t, &HistoryQuery { key, lo, hi }, proof).map_err(|e| reject(&e))?;
    let put = |out: &mut Vec<u8>, v: &Version| {
        out.extend_from_slice(&v.block.to_be_bytes());
        out.extend_from_slice(&v.version.to_be_bytes());
        out.extend_from_slice(&v.value);
    };
    let mut out = Vec::with_capacity(53 + h.versions.len() * 48);
    match &h.at_lo {
        Some(v) => {
            out.push(1);
            put(&mut out, v);
        }
        None => out.extend_from_slice(&[0; 49]),
    }
    out.extend_from_slice(&(h.versions.len() as u32).to_be_bytes());
    for v in &h.versions {
        put(&mut out, v);
    }
    Ok(out)
}
