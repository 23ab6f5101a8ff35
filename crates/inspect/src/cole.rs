//! COLE outlines and forgeries, on [`HistoryProof::decode_with_spans`].

use std::{format, string::String, vec::Vec};

use lightprov_types::{
    B256, DecodeError,
    codec::Spans,
    cole::{Entry, HistoryProof, Part, Structure, StructureKind, Tree, hash},
};
use lightprov_verifier::cole::verify_history;

use crate::{
    Family, ForgeError, Forged, Node, NodeKind, Outline, RootCheck, hex, judged, not_applicable,
    note_key, note_range, root_node, short, span, tamper_class, with_wire_byte, word,
};

/// Which COLE engine a proof comes from: the header's `coleRoot` commits to both engines'
/// `H_state`, COLE's first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// COLE.
    Cole,
    /// COLE*.
    ColeStar,
}

impl Scheme {
    /// `"cole"` or `"cole-star"`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "cole" => Some(Self::Cole),
            "cole-star" => Some(Self::ColeStar),
            _ => None,
        }
    }
}

// Hashing, kept out of line: inlined at every call it would cost more than the outline code.
#[inline(never)]
fn leaf_hash(e: &Entry) -> B256 {
    hash::leaf(e)
}

#[inline(never)]
fn node_hash(children: &[B256]) -> B256 {
    hash::node(children.iter())
}

struct Ctx<'a> {
    key: &'a B256,
    lo: u64,
    hi: u64,
    /// "MB-tree node" or "run node".
    noun: &'static str,
    spans: &'a Spans,
}

/// Draws the partial tree whose span is named `path`; returns the node and its hash.
fn tree(t: &Tree, c: &Ctx<'_>, path: &str) -> (Node, B256) {
    let range = span(c.spans, path);
    match t {
        Tree::Leaf(e) => {
            let own = e.key == *c.key;
            let h = leaf_hash(e);
            let v = word(&e.value);
            let node = if own && (c.lo..=c.hi).contains(&e.block) {
                Node::new(NodeKind::Result, format!("block {} → {v}", e.block))
            } else if own && e.block < c.lo {
                Node::new(
                    NodeKind::Leaf,
                    format!(
                        "left neighbour: block {} → {v} (in force at block {})",
                        e.block, c.lo
                    ),
                )
            } else if own {
                Node::new(
                    NodeKind::Leaf,
                    format!("right neighbour: block {} → {v} (after the range)", e.block),
                )
            } else {
                Node::new(
                    NodeKind::Leaf,
                    format!(
                        "neighbour: key {}, block {}",
                        short(e.key.as_slice()),
                        e.block
                    ),
                )
            };
            let node = node
                .hash(h.as_slice())
                .detail(format!("value {}", hex(&e.value)))
                .range(range);
            (node, h)
        }
        Tree::Hash(h) => (
            Node::new(NodeKind::Sibling, "pruned subtree")
                .hash(h.as_slice())
                .range(range),
            *h,
        ),
        Tree::Node(children) => {
            let mut kids = Vec::with_capacity(children.len());
            let mut hashes = Vec::with_capacity(children.len());
            for (j, ch) in children.iter().enumerate() {
                let (n, h) = tree(ch, c, &format!("{path}.{j}"));
                kids.push(n);
                hashes.push(h);
            }
            let h = node_hash(&hashes);
            let node = Node::new(
                NodeKind::Node,
                format!("{} ({} children)", c.noun, children.len()),
            )
            .hash(h.as_slice())
            .range(range)
            .children(kids);
            (node, h)
        }
    }
}

/// The hash of a partial tree, unchecked.
fn tree_hash(t: &Tree) -> B256 {
    match t {
        Tree::Leaf(e) => leaf_hash(e),
        Tree::Hash(h) => *h,
        Tree::Node(c) => {
            let hashes: Vec<B256> = c.iter().map(tree_hash).collect();
            node_hash(&hashes)
        }
    }
}

fn digest(s: &Structure, root: &B256) -> B256 {
    match s.kind {
        StructureKind::MbTree => hash::mbtree_digest(s.n, s.height, root),
        StructureKind::Run { bloom } => hash::run_digest(s.n, s.height, root, &bloom),
    }
}

/// `H_state` recomputed from the proof, unchecked.
fn h_state(p: &HistoryProof) -> B256 {
    let digests: Vec<B256> = p
        .parts
        .iter()
        .map(|part| match part {
            Part::Searched(s) => digest(s, &tree_hash(&s.tree)),
            Part::Skipped(d) => *d,
        })
        .collect();
    hash::state(p.fanout, digests.iter())
}

/// Draws a COLE provenance proof asked for `key` over `lo..=hi`: one `structure` per searched
/// structure (MB-tree of level 0 or run) holding its partial Merkle tree (`node`, `leaf` for
/// neighbours, `sibling` for pruned subtrees, `result` for the key's versions in the range), one
/// `digest` per structure after the early stop. `root` compares the `coleRoot` recomputed from
/// the proof's `H_state` and `sibling` (the other engine's) with the header's `cole_root`.
pub fn outline(
    proof: &[u8],
    key: &B256,
    lo: u64,
    hi: u64,
    cole_root: &B256,
    sibling: &B256,
    scheme: Scheme,
) -> Result<Outline, DecodeError> {
    let star = scheme == Scheme::ColeStar;
    let (p, spans) = HistoryProof::decode_with_spans(proof)?;
    let mut kids = Vec::with_capacity(p.parts.len());
    let mut digests = Vec::with_capacity(p.parts.len());
    let (mut mbtrees, mut runs, mut searched) = (0u32, 0u32, 0usize);
    let total = p.parts.len();
    for (i, part) in p.parts.iter().enumerate() {
        match part {
            Part::Searched(s) => {
                searched += 1;
                let (label, noun, bloom) = match s.kind {
                    StructureKind::MbTree => {
                        mbtrees += 1;
                        (
                            format!("MB-tree L0 #{mbtrees} (n = {}, height {})", s.n, s.height),
                            "MB-tree node",
                            None,
                        )
                    }
                    StructureKind::Run { bloom } => {
                        runs += 1;
                        (
                            format!("run #{runs} (n = {}, height {})", s.n, s.height),
                            "run node",
                            Some(bloom),
                        )
                    }
                };
                let c = Ctx {
                    key: &p.key,
                    lo: p.lo,
                    hi: p.hi,
                    noun,
                    spans: &spans,
                };
                let (t, root) = tree(&s.tree, &c, &format!("parts[{i}].tree"));
                let d = digest(s, &root);
                let mut detail = format!(
                    "structure {} of {total}, searched; tree root {}",
                    i + 1,
                    short(root.as_slice())
                );
                if let Some(b) = bloom {
                    detail.push_str("; Bloom filter ");
                    detail.push_str(&short(b.as_slice()));
                }
                kids.push(
                    Node::new(NodeKind::Structure, label)
                        .hash(d.as_slice())
                        .detail(detail)
                        .range(span(&spans, &format!("parts[{i}]")))
                        .child(t),
                );
                digests.push(d);
            }
            Part::Skipped(d) => {
                kids.push(
                    Node::new(
                        NodeKind::Digest,
                        format!(
                            "structure {} of {total}: digest only (after the early stop)",
                            i + 1
                        ),
                    )
                    .hash(d.as_slice())
                    .range(span(&spans, &format!("parts[{i}]"))),
                );
                digests.push(*d);
            }
        }
    }
    let state = hash::state(p.fanout, digests.iter());
    let recomputed = if star {
        hash::header_root(sibling, &state)
    } else {
        hash::header_root(&state, sibling)
    };
    let mut detail = format!(
        "fanout {}, {total} structures ({searched} searched); H_state = SHA-256(0x04 ‖ fanout ‖ \
         count ‖ digests), coleRoot = SHA-256(0x06 ‖ {})",
        p.fanout,
        if star {
            "sibling ‖ H_state"
        } else {
            "H_state ‖ sibling"
        }
    );
    note_key(&mut detail, "key ", p.key.as_slice(), key.as_slice(), short);
    note_range(&mut detail, (p.lo, p.hi), (lo, hi));
    let label = format!(
        "{} provenance proof: key {}, blocks {}..={}",
        if star { "COLE*" } else { "COLE" },
        short(p.key.as_slice()),
        p.lo,
        p.hi
    );
    let tree = root_node(label, detail, proof)
        .hash(state.as_slice())
        .children(kids);
    let root = RootCheck::new(
        "coleRoot",
        hex(recomputed.as_slice()),
        hex(cole_root.as_slice()),
    );
    let family = if star { Family::ColeStar } else { Family::Cole };
    Ok(Outline::single(family, proof, tree, root))
}

/// Every revealed entry of a tree, left to right.
fn leaves_mut(t: &mut Tree) -> Vec<&mut Tree> {
    match t {
        Tree::Leaf(_) => std::vec![t],
        Tree::Hash(_) => Vec::new(),
        Tree::Node(c) => c.iter_mut().flat_map(leaves_mut).collect(),
    }
}

/// Prunes every inner node that reveals no entry to its hash, as an honest prover would.
fn normalize(t: &mut Tree) -> (B256, bool) {
    match t {
        Tree::Leaf(e) => (leaf_hash(e), true),
        Tree::Hash(h) => (*h, false),
        Tree::Node(c) => {
            let parts: Vec<(B256, bool)> = c.iter_mut().map(normalize).collect();
            let hashes: Vec<B256> = parts.iter().map(|(h, _)| *h).collect();
            let h = node_hash(&hashes);
            let reveals = parts.iter().any(|(_, r)| *r);
            if !reveals {
                *t = Tree::Hash(h);
            }
            (h, reveals)
        }
    }
}

/// The entry a tamper targets: the first version of the key in the range, else the first
/// version of the key (a neighbour), else the first revealed entry; with its structure's index.
fn target(p: &mut HistoryProof) -> Option<(usize, &mut Tree)> {
    let (key, lo, hi) = (p.key, p.lo, p.hi);
    let rank = |t: &Tree| match t {
        Tree::Leaf(e) if e.key == key && (lo..=hi).contains(&e.block) => 0,
        Tree::Leaf(e) if e.key == key => 1,
        _ => 2,
    };
    let mut best = 3;
    for part in &mut p.parts {
        if let Part::Searched(s) = part {
            for t in leaves_mut(&mut s.tree) {
                best = best.min(rank(t));
            }
        }
    }
    for (i, part) in p.parts.iter_mut().enumerate() {
        if let Part::Searched(s) = part
            && let Some(t) = leaves_mut(&mut s.tree)
                .into_iter()
                .find(|t| rank(t) == best)
        {
            return Some((i, t));
        }
    }
    None
}

fn entry_name(t: &Tree, key: &B256) -> String {
    match t {
        Tree::Leaf(e) if e.key == *key => format!("the version of block {}", e.block),
        Tree::Leaf(e) => format!(
            "the neighbour entry (key {}, block {})",
            short(e.key.as_slice()),
            e.block
        ),
        _ => String::from("an entry"),
    }
}

/// The registry's COLE tamper classes ([`lightprov_types::cole::FAMILY`]) [`forge`] makes, in
/// the order a picker lists them.
pub const FORGERIES: &[&str] = &["value-changed", "result-hidden", "structure-dropped"];

/// Tampers with an honest COLE (or COLE*) proof. `kind` is one of the family's registry tamper
/// classes in [`FORGERIES`]: `value-changed` (the last byte of the first revealed version's
/// value flipped), `result-hidden` (that version pruned to its hash — the root still matches)
/// or `structure-dropped` (the last structure left out of the list). The code is the one the
/// verifier gives the forgery against the root the honest proof recomputes; a code the class
/// does not answer makes the tamper not applicable to this proof, as does a kind that is not in
/// [`FORGERIES`].
pub fn forge(kind: &str, proof: &[u8]) -> Result<Forged, ForgeError> {
    let class = tamper_class(&lightprov_types::cole::FAMILY, FORGERIES, kind)?;
    let honest = HistoryProof::decode(proof)?;
    let mut p = honest.clone();
    let key = p.key;
    let description = match kind {
        "value-changed" => {
            let Some((i, t)) = target(&mut p) else {
                return not_applicable("the proof reveals no entry");
            };
            let name = entry_name(t, &key);
            let Tree::Leaf(e) = t else {
                return not_applicable("the proof reveals no entry");
            };
            let before = word(&e.value);
            if let Some(b) = e.value.last_mut() {
                *b ^= 0xff;
            }
            format!(
                "flipped the last byte of the value of {name} in structure {} ({before} → {})",
                i + 1,
                word(&e.value)
            )
        }
        "result-hidden" => {
            let Some((i, t)) = target(&mut p) else {
                return not_applicable("the proof reveals no entry");
            };
            let name = entry_name(t, &key);
            *t = Tree::Hash(tree_hash(t));
            if let Some(Part::Searched(s)) = p.parts.get_mut(i) {
                normalize(&mut s.tree);
            }
            format!(
                "hid {name} in structure {} behind its hash (the tree still hashes to the same root)",
                i + 1
            )
        }
        _ => {
            // structure-dropped, as the vector generator makes it: the last structure popped.
            let n = p.parts.len();
            let what = match p.parts.pop() {
                Some(Part::Searched(_)) => "a searched one",
                Some(Part::Skipped(_)) => "a digest after the early stop",
                None => return not_applicable("the proof holds no structure"),
            };
            format!("left out the last structure ({n} of {n}, {what})")
        }
    };
    let forged = p.encode();
    let description = with_wire_byte(kind, proof, &forged, description);
    // What the verifier says against the root the honest proof recomputes — the header's, for
    // an honest proof.
    let verdict = verify_history(&h_state(&honest), &key, honest.lo, honest.hi, &forged);
    judged(class, forged, description, verdict)
}

/// The family's wasm exports (feature `wasm`).
#[cfg(feature = "wasm")]
pub mod wasm {
    use std::string::String;

    use lightprov_types::DecodeError;
    use wasm_bindgen::prelude::*;

    use super as cole;
    use crate::wasm::{decode_error, forged, hash32, json};

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
        let scheme = cole::Scheme::parse(scheme).ok_or_else(|| {
            decode_error(&DecodeError::new("scheme", "expected cole or cole-star"))
        })?;
        json(cole::outline(proof, &key, lo, hi, &root, &sibling, scheme))
    }

    /// Tampers with an honest COLE proof (see [`cole::forge`]). Returns `{proof, description,
    /// expectedCode}`.
    #[wasm_bindgen(js_name = forgeColeProof)]
    pub fn forge_cole_proof(kind: &str, proof: &[u8]) -> Result<JsValue, JsValue> {
        forged(cole::forge(kind, proof))
    }
}
