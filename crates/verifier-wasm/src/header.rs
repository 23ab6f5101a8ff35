//! The header module's exports: header links and Clique seals, the family registry, the header
//! commitment table and the error codes (every client loads this module).

use std::{string::String, vec::Vec};

use js_sys::{Array, Object, Reflect};
use lightprov_types::{DecodeError, ErrorCode};
use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32, reject};

fn set(o: &Object, key: &str, v: JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(o, &key.into(), &v);
}

/// Where each header commitment sits: `[{name, field, offset, length, genesisOnly}]`, in header
/// order (each family's, in registry order). The SDK reads commitments from headers with this table only. (In the header module,
/// which every client loads.)
#[wasm_bindgen(js_name = headerCommitments)]
pub fn header_commitments() -> Array {
    use lightprov_types::family::{Commitment, commitments};
    commitments()
        .into_iter()
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

/// The proof families: `[{name, about, commitments: [name], maxHistoryBlocks?, codes: [code],
/// tampers: [{name, code, alt?, about}]}]`. The SDK, the demo and the tests iterate this list.
/// (In the header module.)
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
            if let Some(n) = f.max_history_blocks {
                set(
                    &o,
                    "maxHistoryBlocks",
                    u32::try_from(n).unwrap_or(u32::MAX).into(),
                );
            }
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

/// Every error code, comma-separated (checked against the shared list). In the header module,
/// with the registry: the family modules stay small.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> String {
    ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

/// Decodes a header from its RLP and checks keccak256(rlp) == `expected`.
#[wasm_bindgen(js_name = verifyHeaderRlp)]
pub fn verify_header_rlp(rlp: &[u8], expected: &[u8]) -> Result<(), JsValue> {
    let expected = hash32(expected, "expectedHash")?;
    lightprov_verifier::header::verify_header_rlp(rlp, &expected)
        .map(|_| ())
        .map_err(|e| reject(&e))
}

/// Ethereum's `ecrecover`: the address whose key signed the 32-byte `prehash` with `sig`
/// (`r ‖ s ‖ v`, 65 bytes, v ∈ {0, 1}; high-s refused). The SDK recovers transaction senders
/// with it.
#[wasm_bindgen(js_name = recoverAddress)]
pub fn recover_address(prehash: &[u8], sig: &[u8]) -> Result<Vec<u8>, JsValue> {
    let prehash = hash32(prehash, "prehash")?;
    lightprov_verifier::header::clique::recover(&prehash, sig)
        .map(|a| a.to_vec())
        .map_err(|e| reject(&e))
}

/// One link of a header chain: the header (canonical RLP) must name `parent` (32 bytes, or
/// empty to skip) as its parent and, if `signers` (20 bytes each) is not empty, be sealed by one
/// of them (Clique-style seal). Returns keccak256(rlp), the header's hash, then the signer's 20
/// bytes (zeros when `signers` is empty).
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
    clique::verify_sealed(rlp, parent.as_ref(), &signers)
        .map(|(_, h, s)| {
            let mut out = h.to_vec();
            out.extend_from_slice(s.unwrap_or_default().as_slice());
            out
        })
        .map_err(|e| reject(&e))
}

/// The root of a block's ordered trie (key `RLP(i)`, value item `i`: what `transactionsRoot`
/// and `receiptsRoot` commit to) of the items `concatenated` holds, item `i` being the next
/// `lengths[i]` bytes.
#[wasm_bindgen(js_name = orderedTrieRoot)]
pub fn ordered_trie_root(concatenated: &[u8], lengths: &[u32]) -> Result<Vec<u8>, JsValue> {
    let mut items = Vec::with_capacity(lengths.len());
    let mut rest = concatenated;
    for len in lengths {
        let (item, after) = rest
            .split_at_checked(*len as usize)
            .ok_or_else(|| decode_error(&DecodeError::new("lengths", "longer than the items")))?;
        items.push(item);
        rest = after;
    }
    if !rest.is_empty() {
        return Err(decode_error(&DecodeError::new(
            "lengths",
            "shorter than the items",
        )));
    }
    Ok(lightprov_verifier::ordered_trie_root(&items).to_vec())
}
