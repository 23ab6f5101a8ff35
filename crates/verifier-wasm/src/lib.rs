#![doc = include_str!("../README.md")]

use std::{string::ToString, vec::Vec};

#[cfg(feature = "header")]
use js_sys::{Array, Object};
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

#[cfg(feature = "header")]
fn set(o: &Object, key: &str, v: JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(o, &key.into(), &v);
}

/// Where each header commitment sits: `[{name, field, offset, length, genesisOnly}]`, in header
/// order. The SDK reads commitments from headers with this table only. (In the header module,
/// which every client loads.)
#[cfg(feature = "header")]
#[wasm_bindgen(js_name = headerCommitments)]
pub fn header_commitments() -> Array {
    use lightprov_types::family::{COMMITMENTS, Commitment};
    COMMITMENTS
        .iter()
        .map(|c| {
            let o = Object::new();
            set(&o, "name", c.name.into());
            set(&o, "field", c.field.name().into());
            set(&o, "offset", (c.offset as u32).into());
            set(&o, "length", (Commitment::LEN as u32).into());
            set(&o, "genesisOnly", c.genesis_only.into());
            JsValue::from(o)
        })
        .collect()
}

/// The proof families: `[{name, about, commitments: [name], codes: [code], tampers: [{name,
/// code, alt?, about}]}]`. The SDK, the demo and the tests iterate this list. (In the header
/// module.)
#[cfg(feature = "header")]
#[wasm_bindgen]
pub fn families() -> Array {
    lightprov_types::FAMILIES
        .iter()
        .map(|f| {
            let o = Object::new();
            set(&o, "name", f.name.into());
            set(&o, "about", f.about.into());
            let names: Array = f
                .commitments
                .iter()
                .map(|c| JsValue::from(c.name))
                .collect();
            set(&o, "commitments", names.into());
            let codes: Array = f.codes.iter().map(|c| JsValue::from(c.as_str())).collect();
            set(&o, "codes", codes.into());
            let tampers: Array = f
                .tampers
                .iter()
                .map(|t| {
                    let x = Object::new();
                    set(&x, "name", t.name.into());
                    set(&x, "code", t.code.as_str().into());
                    if let Some(a) = t.alt {
                        set(&x, "alt", a.as_str().into());
                    }
                    set(&x, "about", t.about.into());
                    JsValue::from(x)
                })
                .collect();
            set(&o, "tampers", tampers.into());
            JsValue::from(o)
        })
        .collect()
}

fn hash32(b: &[u8], field: &str) -> Result<B256, JsValue> {
    B256::try_from(b).map_err(|_| decode_error(&DecodeError::new(field, "expected 32 bytes")))
}

/// Every error code, comma-separated (checked against the shared list). In the header module,
/// with the registry: the family modules stay small.
#[cfg(feature = "header")]
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> String {
    ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// Verifies an EIP-1186 proof (compact wire format) against a trusted state root.
/// Returns whether the account exists.
#[cfg(feature = "mpt")]
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
#[cfg(feature = "mpt")]
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

/// Verifies a COLE provenance proof for `state_key` over blocks `lo..=hi` against a header's
/// `coleRoot`. `variant` is `"cole"` or `"cole-star"`; `sibling` is the other engine's `H_state`
/// as the node reports it (the header commits to both).
///
/// Returns the verified history packed as bytes: `hasAtLo(u8) ‖ atLoBlock(u64) ‖ atLoValue(32) ‖
/// count(u32) ‖ (block(u64) ‖ value(32)) × count`, big-endian, versions oldest first.
#[cfg(feature = "cole")]
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
        cole::{Commitment, HistoryQuery, KeyHistory, Variant},
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
    let mut out = Vec::with_capacity(45 + h.versions.len() * 40);
    match h.at_lo {
        Some(v) => {
            out.push(1);
            out.extend_from_slice(&v.block.to_be_bytes());
            out.extend_from_slice(&v.value);
        }
        None => out.extend_from_slice(&[0; 41]),
    }
    out.extend_from_slice(&(h.versions.len() as u32).to_be_bytes());
    for v in &h.versions {
        out.extend_from_slice(&v.block.to_be_bytes());
        out.extend_from_slice(&v.value);
    }
    Ok(out)
}

/// The header's `coleRoot` for the `H_state` of COLE and COLE*.
#[cfg(feature = "cole")]
#[wasm_bindgen(js_name = coleHeaderRoot)]
pub fn cole_header_root(cole: &[u8], cole_star: &[u8]) -> Result<Vec<u8>, JsValue> {
    let a = hash32(cole, "cole")?;
    let b = hash32(cole_star, "coleStar")?;
    Ok(lightprov_types::cole::hash::header_root(&a, &b).to_vec())
}

/// LVMT verifier parameters (`depth ‖ [1]₂ ‖ [τ^{2^j}]₂`), decoded and validated once — every
/// G2 point on the curve and in the subgroup — then reused for every proof.
#[cfg(feature = "lvmt")]
#[wasm_bindgen]
#[derive(Debug)]
pub struct LvmtParams(lightprov_verifier::lvmt::amt::Params);

#[cfg(feature = "lvmt")]
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

#[cfg(feature = "lvmt")]
fn lvmt_trusted<'a>(
    params: &'a LvmtParams,
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
) -> Result<lightprov_verifier::lvmt::proof::Trusted<'a>, JsValue> {
    let aroot: [u8; 32] = aroot
        .try_into()
        .map_err(|_| decode_error(&DecodeError::new("lvmtRoot", "expected 32 bytes")))?;
    Ok(lightprov_verifier::lvmt::proof::Trusted {
        params: &params.0,
        aroot,
        history_root: hash32(history_root, "lvmtHistoryRoot")?,
        blocks,
    })
}

/// Verifies an LVMT proof of a key's latest value or of its absence against a header's
/// `lvmtRoot` and `lvmtHistoryRoot` (`blocks` = the header's number + 1).
///
/// Returns `present(u8) ‖ version(u64) ‖ block(u64) ‖ value(32)`, big-endian (zeros if absent).
#[cfg(feature = "lvmt")]
#[wasm_bindgen(js_name = verifyLvmtProof)]
pub fn verify_lvmt_proof(
    params: &LvmtParams,
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
    state_key: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    lvmt_check(
        <lightprov_verifier::lvmt::proof::LatestValue as lightprov_verifier::Verify>::verify,
        params,
        aroot,
        history_root,
        blocks,
        state_key,
        proof,
    )
}

/// Runs an LVMT proof check against the header's roots and encodes what it proved.
#[cfg(feature = "lvmt")]
fn lvmt_check(
    check: fn(
        &lightprov_verifier::lvmt::proof::Trusted<'_>,
        &lightprov_types::B256,
        &[u8],
    ) -> Result<
        lightprov_verifier::lvmt::proof::Proven,
        lightprov_verifier::lvmt::proof::LvmtError,
    >,
    params: &LvmtParams,
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
    state_key: &[u8],
    proof: &[u8],
) -> Result<Vec<u8>, JsValue> {
    let t = lvmt_trusted(params, aroot, history_root, blocks)?;
    let key = hash32(state_key, "stateKey")?;
    let proven = check(&t, &key, proof).map_err(|e| reject(&e))?;
    Ok(lvmt_proven(proven))
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
    lvmt_check(
        lightprov_verifier::lvmt::proof::verify_separate_pairings,
        params,
        aroot,
        history_root,
        blocks,
        state_key,
        proof,
    )
}

/// `present(u8) ‖ version(u64) ‖ block(u64) ‖ value(32)`, big-endian (zeros if absent).
#[cfg(feature = "lvmt")]
fn lvmt_proven(proven: lightprov_verifier::lvmt::proof::Proven) -> Vec<u8> {
    use lightprov_verifier::lvmt::proof::Proven;
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
    out
}

/// Verifies an LVMT history proof of a key over `lo..=hi`. Returns `hasAtLo(u8) ‖ block(u64) ‖
/// version(u64) ‖ value(32)` for the version in force at `lo`, then `count(u32)` and
/// `(block ‖ version ‖ value) × count`, oldest first.
#[cfg(feature = "lvmt")]
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
    use lightprov_verifier::{
        Verify,
        lvmt::proof::{HistoryQuery, KeyHistory, Version},
    };
    let t = lvmt_trusted(params, aroot, history_root, blocks)?;
    let key = hash32(state_key, "stateKey")?;
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

/// Decodes a header from its RLP and checks keccak256(rlp) == `expected`.
#[cfg(feature = "header")]
#[wasm_bindgen(js_name = verifyHeaderRlp)]
pub fn verify_header_rlp(rlp: &[u8], expected: &[u8]) -> Result<(), JsValue> {
    let expected = hash32(expected, "expectedHash")?;
    lightprov_verifier::header::verify_header_rlp(rlp, &expected)
        .map(|_| ())
        .map_err(|e| reject(&e))
}

/// keccak256 of `data` (state keys; code against a proven code hash). In the header and MPT
/// modules.
#[cfg(any(feature = "header", feature = "mpt"))]
#[wasm_bindgen]
pub fn keccak256(data: &[u8]) -> Vec<u8> {
    lightprov_verifier::keccak256(data).to_vec()
}

/// One link of a header chain: the header (canonical RLP) must name `parent` (32 bytes, or
/// empty to skip) as its parent and, if `signers` (20 bytes each) is not empty, be sealed by one
/// of them (Clique-style seal). Returns keccak256(rlp), the header's hash.
#[cfg(feature = "clique")]
#[wasm_bindgen(js_name = verifyHeaderLink)]
pub fn verify_header_link(rlp: &[u8], parent: &[u8], signers: &[u8]) -> Result<Vec<u8>, JsValue> {
    use lightprov_verifier::header::clique;
    let parent = if parent.is_empty() {
        None
    } else {
        Some(hash32(parent, "parentHash")?)
    };
    let signers = clique::signers_from_bytes(signers).ok_or_else(|| {
        decode_error(&DecodeError::new("signers", "expected 20 bytes per signer"))
    })?;
    clique::verify_link(rlp, parent.as_ref(), &signers)
        .map(|(_, h)| h.to_vec())
        .map_err(|e| reject(&e))
}
