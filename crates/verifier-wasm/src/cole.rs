//! The COLE module's exports: provenance histories of COLE and COLE*.

use std::vec::Vec;

use lightprov_types::DecodeError;
use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32, reject};

/// Verifies a COLE provenance proof for `state_key` over blocks `lo..=hi` against a header's
/// `coleRoot`. `variant` is `"cole"` or `"cole-star"`; `sibling` is the other engine's `H_state`
/// as the node reports it (the header commits to both).
///
/// Returns the verified history packed as bytes: `hasAtLo(u8) ‖ atLoBlock(u64) ‖ atLoValue(32) ‖
/// count(u32) ‖ (block(u64) ‖ value(32)) × count`, big-endian, versions oldest first.
#[wasm_bindgen(js_name = verifyColeHistory)]
pub fn verify_cole_history(
    cole_root: &[u8],
    variant: &str,
    sibling: &[u8],
    state_key: &[u8],
    lo: u64,
    hi: u64,
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    use lightprov_verifier::{
        Verify,
        cole::{Commitment, HistoryQuery, KeyHistory, Variant, Version},
    };
    let root = hash32(cole_root, "coleRoot")?;
    let sibling = hash32(sibling, "siblingRoot")?;
    let key = hash32(state_key, "stateKey")?;
    let variant = match variant {
        "cole" => Variant::Cole,
        "cole-star" => Variant::ColeStar,
        _ => {
            return Err(decode_error(&DecodeError::new(
                "scheme",
                "expected cole or cole-star",
            )));
        }
    };
    let commitment = Commitment {
        cole_root: root,
        variant,
        sibling,
    };
    let h = KeyHistory::verify(&commitment, &HistoryQuery { key, lo, hi }, proof)
        .map_err(|e| reject(&e))?;
    fn version(v: &Version) -> (u64, &[u8; 32]) {
        (v.block, &v.value)
    }
    Ok(crate::pack_history(
        Vec::new(),
        h.at_lo.as_ref().map(version),
        h.versions.iter().map(version),
    ))
}

/// The header's `coleRoot` for the `H_state` of COLE and COLE*.
#[wasm_bindgen(js_name = coleHeaderRoot)]
pub fn cole_header_root(cole: &[u8], cole_star: &[u8]) -> Result<Vec<u8>, JsValue> {
    let a = hash32(cole, "cole")?;
    let b = hash32(cole_star, "coleStar")?;
    Ok(lightprov_types::cole::hash::header_root(&a, &b).to_vec())
}
