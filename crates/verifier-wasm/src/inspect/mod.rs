//! Proof inspection for demos and integrators' tests: an *outline* of a proof (a generic tree
//! the SDK renders without knowing formats, with every hash recomputed and the root compared to
//! the header's) and *forgeries* of honest proofs (each with the code our verifier rejects it
//! with).
//!
//! Outlining never verifies: a forged proof is drawn like an honest one, its recomputed root
//! simply differs. Only undecodable bytes are refused, as `BAD_ENCODING`. The outline leaves as
//! a JSON string written by hand (no JSON library in the wasm); the SDK parses it
//! (`sdk/src/inspect.ts` has the shape).

#[cfg(feature = "cole")]
mod cole;
#[cfg(feature = "lvmt")]
mod lvmt;

use std::{
    fmt::{Display, Write},
    string::String,
    vec::Vec,
};

use js_sys::{Object, RangeError, Reflect, Uint8Array};
use lightprov_types::DecodeError;
use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32};

/// One node of an outline (`ProofNode` in the SDK).
#[derive(Debug)]
pub(crate) struct Node {
    kind: &'static str,
    label: String,
    hash: Option<String>,
    detail: Option<String>,
    range: Option<(usize, usize)>,
    children: Vec<Node>,
}

impl Node {
    #[inline(never)]
    pub(crate) fn new(kind: &'static str, label: String) -> Self {
        Self {
            kind,
            label,
            hash: None,
            detail: None,
            range: None,
            children: Vec::new(),
        }
    }

    /// The full `0x`-hex of what this node hashes or commits to.
    #[inline(never)]
    pub(crate) fn hash(mut self, h: &[u8]) -> Self {
        self.hash = Some(hex(h));
        self
    }

    #[inline(never)]
    pub(crate) fn detail(mut self, d: String) -> Self {
        self.detail = Some(d);
        self
    }

    /// Wire bytes `[from, to)` of the proof this node was decoded from.
    pub(crate) fn range(mut self, from: usize, to: usize) -> Self {
        self.range = Some((from, to));
        self
    }

    pub(crate) fn child(mut self, c: Node) -> Self {
        self.children.push(c);
        self
    }

    pub(crate) fn children(mut self, c: Vec<Node>) -> Self {
        self.children.extend(c);
        self
    }

    fn write(&self, out: &mut String) {
        out.push_str("{\"kind\":");
        string(out, self.kind);
        out.push_str(",\"label\":");
        string(out, &self.label);
        if let Some(h) = &self.hash {
            out.push_str(",\"hash\":");
            string(out, h);
        }
        if let Some(d) = &self.detail {
            out.push_str(",\"detail\":");
            string(out, d);
        }
        if let Some((a, b)) = self.range {
            let _ = write!(out, ",\"range\":[{a},{b}]");
        }
        out.push_str(",\"children\":[");
        for (i, c) in self.children.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            c.write(out);
        }
        out.push_str("]}");
    }
}

/// A root recomputed from the proof beside the one the header holds.
#[derive(Debug)]
pub(crate) struct RootCheck {
    pub(crate) label: String,
    pub(crate) recomputed: String,
    pub(crate) expected: String,
}

impl RootCheck {
    fn write(&self, out: &mut String) {
        out.push_str("{\"label\":");
        string(out, &self.label);
        out.push_str(",\"recomputed\":");
        string(out, &self.recomputed);
        out.push_str(",\"expected\":");
        string(out, &self.expected);
        let matches = !self.recomputed.is_empty() && self.recomputed == self.expected;
        let _ = write!(out, ",\"matches\":{matches}}}");
    }
}

/// `{family, bytes, tree, root, roots}` as JSON.
pub(crate) fn outline_json(
    family: &str,
    bytes: usize,
    tree: &Node,
    root: &RootCheck,
    roots: &[RootCheck],
) -> String {
    let mut out = String::with_capacity(4096);
    out.push_str("{\"family\":");
    string(&mut out, family);
    let _ = write!(out, ",\"bytes\":{bytes},\"tree\":");
    tree.write(&mut out);
    out.push_str(",\"root\":");
    root.write(&mut out);
    out.push_str(",\"roots\":[");
    for (i, r) in roots.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        r.write(&mut out);
    }
    out.push_str("]}");
    out
}

/// A JSON string literal.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

const DIGITS: &[u8; 16] = b"0123456789abcdef";

fn push_hex(s: &mut String, b: &[u8]) {
    for x in b {
        for n in [x >> 4, x & 15] {
            s.push(char::from(
                DIGITS.get(usize::from(n)).copied().unwrap_or(b'0'),
            ));
        }
    }
}

/// Full lowercase `0x`-hex.
#[inline(never)]
pub(crate) fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    push_hex(&mut s, b);
    s
}

/// `0xabcd…1234` (the whole hex if short).
#[inline(never)]
pub(crate) fn short(b: &[u8]) -> String {
    match (b.get(..2), b.len().checked_sub(2).and_then(|i| b.get(i..))) {
        (Some(head), Some(tail)) if b.len() > 4 => {
            let mut s = String::with_capacity(14);
            s.push_str("0x");
            push_hex(&mut s, head);
            s.push('…');
            push_hex(&mut s, tail);
            s
        }
        _ => hex(b),
    }
}

/// A 256-bit word as a number: `0x` and its hex digits without leading zeros (abbreviated like
/// a hash when it has more than 16 digits).
#[inline(never)]
pub(crate) fn word(w: &[u8; 32]) -> String {
    let first = w.iter().position(|x| *x != 0).unwrap_or(32);
    let rest = w.get(first..).unwrap_or_default();
    if rest.len() > 8 {
        return short(w);
    }
    let mut s = String::with_capacity(2 + 2 * rest.len());
    s.push_str("0x");
    match rest.split_first() {
        None => s.push('0'),
        Some((top, low)) => {
            if *top >= 16 {
                push_hex(&mut s, &[*top]);
            } else {
                s.push(char::from(
                    DIGITS.get(usize::from(*top)).copied().unwrap_or(b'0'),
                ));
            }
            push_hex(&mut s, low);
        }
    }
    s
}

/// A word plus one (wrapping), big-endian.
pub(crate) fn increment(w: &mut [u8; 32]) {
    for b in w.iter_mut().rev() {
        let (v, carry) = b.overflowing_add(1);
        *b = v;
        if !carry {
            return;
        }
    }
}

/// The first byte where two encodings differ (they have the same length for in-place tampers).
pub(crate) fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter().zip(b).position(|(x, y)| x != y)
}

/// A forgery: the tampered encoding, what was done, and the code our verifier gives it.
#[derive(Debug)]
pub(crate) struct Forged {
    pub(crate) proof: Vec<u8>,
    pub(crate) description: String,
    pub(crate) code: &'static str,
}

/// Why a forgery could not be made.
#[derive(Debug)]
pub(crate) enum ForgeError {
    /// The honest proof does not decode.
    Decode(DecodeError),
    /// This tamper does not apply to this proof (a `RangeError` in JS).
    NotApplicable(String),
}

impl From<DecodeError> for ForgeError {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}

pub(crate) fn not_applicable<T>(what: impl Display) -> Result<T, ForgeError> {
    let mut s = String::new();
    let _ = write!(s, "{what}");
    Err(ForgeError::NotApplicable(s))
}

fn forged_to_js(r: Result<Forged, ForgeError>) -> Result<JsValue, JsValue> {
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
    let _ = Reflect::set(&o, &"expectedCode".into(), &f.code.into());
    Ok(o.into())
}

/// Outlines a COLE provenance proof (JSON, see `sdk/src/inspect.ts`). `scheme` is `"cole"` or
/// `"cole-star"`; the recomputed root is the header's `coleRoot` from the proof's `H_state` and
/// `sibling`.
#[cfg(feature = "cole")]
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
    let star = match scheme {
        "cole" => false,
        "cole-star" => true,
        _ => {
            return Err(decode_error(&DecodeError::new(
                "scheme",
                "expected cole or cole-star",
            )));
        }
    };
    cole::outline(proof, &key, lo, hi, &root, &sibling, star).map_err(|e| decode_error(&e))
}

/// Tampers with an honest COLE proof: `kind` is `flip-byte`, `wrong-value`, `drop-result` or
/// `swap-structures`. Returns `{proof, description, expectedCode}`; the code is the one the
/// verifier gives the forgery against the root the honest proof recomputes.
#[cfg(feature = "cole")]
#[wasm_bindgen(js_name = forgeColeProof)]
pub fn forge_cole_proof(kind: &str, proof: &[u8]) -> Result<JsValue, JsValue> {
    forged_to_js(cole::forge(kind, proof))
}

#[cfg(feature = "lvmt")]
fn lvmt_anchor(aroot: &[u8], history_root: &[u8], blocks: u64) -> Result<lvmt::Anchor, JsValue> {
    let aroot: [u8; 32] = aroot
        .try_into()
        .map_err(|_| decode_error(&DecodeError::new("lvmtRoot", "expected 32 bytes")))?;
    Ok(lvmt::Anchor {
        aroot,
        history_root: hash32(history_root, "lvmtHistoryRoot")?,
        blocks,
    })
}

/// Outlines an LVMT proof of a key's latest value or absence (JSON). `blocks` = the header's
/// number + 1. No parameters: nothing is paired.
#[cfg(feature = "lvmt")]
#[wasm_bindgen(js_name = outlineLvmtProof)]
pub fn outline_lvmt_proof(
    proof: &[u8],
    state_key: &[u8],
    aroot: &[u8],
    history_root: &[u8],
    blocks: u64,
) -> Result<String, JsValue> {
    let key = hash32(state_key, "stateKey")?;
    let a = lvmt_anchor(aroot, history_root, blocks)?;
    lvmt::outline_proof(proof, &key, &a).map_err(|e| decode_error(&e))
}

/// Outlines an LVMT history proof over `lo..=hi` (JSON).
#[cfg(feature = "lvmt")]
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
    let a = lvmt_anchor(aroot, history_root, blocks)?;
    lvmt::outline_history(proof, &key, lo, hi, &a).map_err(|e| decode_error(&e))
}

/// Tampers with an honest LVMT proof (or the latest-version proof inside a history): `kind` is
/// `flip-byte`, `wrong-value`, `stale-tuple` or `drop-level`. `aux`, for `stale-tuple`: an LVMT
/// history proof (or an older presence proof) of the same key holding an older version; a
/// history given as `proof` serves as its own. Returns `{proof, description, expectedCode}`.
#[cfg(feature = "lvmt")]
#[wasm_bindgen(js_name = forgeLvmtProof)]
pub fn forge_lvmt_proof(
    kind: &str,
    proof: &[u8],
    aux: Option<Vec<u8>>,
) -> Result<JsValue, JsValue> {
    forged_to_js(lvmt::forge(kind, proof, aux.as_deref()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_json() {
        let mut s = String::new();
        string(&mut s, "a\"b\\c\nd→");
        assert_eq!(s, "\"a\\\"b\\\\c\\u000ad→\"");
    }

    #[test]
    fn words_and_hashes_are_abbreviated() {
        let mut w = [0u8; 32];
        assert_eq!(word(&w), "0x0");
        w[31] = 5;
        assert_eq!(word(&w), "0x5");
        w[30] = 0x1f;
        assert_eq!(word(&w), "0x1f05");
        assert_eq!(word(&[0x73; 32]), "0x7373…7373");
        assert_eq!(short(&[1, 2, 3]), "0x010203");
        assert_eq!(hex(&[0xab, 0x01]), "0xab01");
        let mut max = [0xff; 32];
        increment(&mut max);
        assert_eq!(max, [0; 32]);
    }

    #[test]
    fn an_outline_is_one_json_object() {
        let tree = Node::new("root", "r \"1\"".into())
            .hash(&[0xaa; 32])
            .range(0, 3)
            .child(Node::new("leaf", "x".into()).detail("d".into()));
        let root = RootCheck {
            label: "coleRoot".into(),
            recomputed: "0x01".into(),
            expected: "0x01".into(),
        };
        let json = outline_json("cole", 3, &tree, &root, &[]);
        assert!(json.starts_with("{\"family\":\"cole\",\"bytes\":3,\"tree\":{\"kind\":\"root\""));
        assert!(json.contains("\"range\":[0,3]"));
        assert!(json.contains(
            "\"children\":[{\"kind\":\"leaf\",\"label\":\"x\",\"detail\":\"d\",\"children\":[]}]"
        ));
        assert!(json.ends_with("\"matches\":true},\"roots\":[]}"));
    }
}
