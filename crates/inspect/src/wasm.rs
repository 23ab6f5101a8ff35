//! What the wasm-bindgen glue (feature `wasm`) of every family shares: each family's exports
//! (what `@lightprov/sdk/inspect` loads) are in its own module, `mod wasm` at its end. Outlines
//! leave as JSON strings (the SDK parses them); errors as JS `Error`s with the `code` and `field`
//! the SDK rewraps as a `VerificationError`, or `RangeError` for a tamper that does not apply.

use std::string::String;

use js_sys::{Error, Object, RangeError, Reflect, Uint8Array};
use lightprov_types::{B256, DecodeError};
use wasm_bindgen::prelude::*;

use crate::{ForgeError, Forged, Outline};

pub(crate) fn decode_error(e: &DecodeError) -> JsValue {
    let err = Error::new(&std::format!("{e}"));
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&err, &"code".into(), &e.code().as_str().into());
    let _ = Reflect::set(&err, &"field".into(), &e.field.as_str().into());
    err.into()
}

pub(crate) fn hash32(b: &[u8], field: &str) -> Result<B256, JsValue> {
    B256::try_from(b).map_err(|_| decode_error(&DecodeError::new(field, "expected 32 bytes")))
}

pub(crate) fn json(r: Result<Outline, DecodeError>) -> Result<String, JsValue> {
    r.map(|o| o.to_json()).map_err(|e| decode_error(&e))
}

pub(crate) fn forged(r: Result<Forged, ForgeError>) -> Result<JsValue, JsValue> {
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
