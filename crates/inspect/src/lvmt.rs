//! LVMT outlines and forgeries.
//!
//! An outline cannot recompute `lvmtRoot`: the AMT openings are checked by a pairing against
//! it, never hashed up to it, and the root AMT's commitment is always the header's. What a proof
//! does recompute is `lvmtHistoryRoot`, once per tuple it carries; the outline's `root` is the
//! one through the key's own tuple (presence), else through the first occupant's or sub-AMT's
//! tuple, and `roots` lists every one.

use std::{format, string::String, vec::Vec};

use lightprov_types::{
    B256, DecodeError, ErrorCode, Word,
    codec::Spans,
    lvmt::{self, Kind, LvmtHistory, LvmtProof, TuplePath, index_at, prefix_at, proof::LevelProof},
};

use crate::{
    Family, ForgeError, Forged, Node, NodeKind, Outline, RootCheck, hex, labelled, not_applicable,
    note_key, note_range, root_node, short, tamper_class, with_wire_byte, word,
};

/// What the header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Anchor {
    /// The header's `lvmtRoot` (the root AMT's commitment, compressed).
    pub aroot: [u8; 32],
    /// The header's `lvmtHistoryRoot`.
    pub history_root: B256,
    /// The header's number + 1.
    pub blocks: u64,
}

/// Spans of one encoding, named as its decoder names them, under a prefix (`latest.` for the
/// proof inside a history).
struct At<'a> {
    spans: &'a Spans,
    prefix: &'a str,
}

impl At<'_> {
    fn get(&self, name: &str) -> Option<(usize, usize)> {
        self.spans.get(&format!("{}{name}", self.prefix))
    }
}

// Hashing, kept out of line: inlined at every call it would cost more than the outline code.
#[inline(never)]
fn keccak(k: &B256) -> B256 {
    lightprov_verifier::keccak256(k)
}

#[inline(never)]
fn key_tuple(key: &B256, version: u64, value: &Word, level: u8, slot: u8) -> B256 {
    lvmt::key_tuple(key, version, value, level, slot)
}

#[inline(never)]
fn amt_tuple(level: u8, prefix: &B256, version: u64, commitment: &[u8; 32]) -> B256 {
    lvmt::amt_tuple(level, prefix, version, commitment)
}

#[inline(never)]
fn prefix(hash: &B256, level: u8, depth: u8) -> B256 {
    prefix_at(hash, level, depth)
}

#[inline(never)]
fn root_from_path(leaf: &B256, index: u64, size: u64, path: &[B256]) -> Option<B256> {
    lvmt::root_from_path(leaf, index, size, path)
}

/// Draws a tuple's way to the history root (its path's spans are named `{field}.path…`,
/// `{field}.history…`); returns the nodes and the recomputed history root (`None`: the paths
/// fit no tree of those sizes).
fn path_nodes(
    leaf: &B256,
    p: &TuplePath,
    at: &At<'_>,
    field: &str,
    a: &Anchor,
) -> (Vec<Node>, Option<B256>) {
    let block_root = root_from_path(leaf, u64::from(p.index), u64::from(p.size), &p.path);
    let history = block_root.and_then(|r| {
        root_from_path(
            &lvmt::history_leaf(p.block, &r),
            p.block,
            a.blocks,
            &p.history,
        )
    });
    let siblings = |hashes: &[B256], name: &str| -> Vec<Node> {
        hashes
            .iter()
            .enumerate()
            .map(|(k, h)| {
                Node::new(NodeKind::Sibling, format!("sibling {}", k + 1))
                    .hash(h.as_slice())
                    .range(at.get(&format!("{field}.{name}[{k}]")))
            })
            .collect()
    };
    let mut block = Node::new(
        NodeKind::Node,
        format!(
            "block {}'s tuple tree: index {} of {} tuples",
            p.block, p.index, p.size
        ),
    )
    .range(at.get(&format!("{field}.path")))
    .children(siblings(&p.path, "path"));
    block = match block_root {
        Some(r) => block.hash(r.as_slice()),
        None => block.detail("the audit path fits no tree of this size"),
    };
    let mut hist = Node::new(
        NodeKind::Node,
        format!("history tree: block {} of {}", p.block, a.blocks),
    )
    .range(at.get(&format!("{field}.history")))
    .children(siblings(&p.history, "history"));
    hist = match history {
        Some(r) if r == a.history_root => hist
            .hash(r.as_slice())
            .detail("= the header's lvmtHistoryRoot"),
        Some(r) => hist.hash(r.as_slice()).detail(format!(
            "≠ the header's lvmtHistoryRoot {}",
            short(a.history_root.as_slice())
        )),
        None => hist.detail("the audit path fits no tree of this size"),
    };
    (std::vec![block, hist], history)
}

fn check(label: String, got: Option<B256>, a: &Anchor) -> RootCheck {
    RootCheck::new(
        label,
        got.map(|r| hex(r.as_slice())).unwrap_or_default(),
        hex(a.history_root.as_slice()),
    )
}

fn versions(v: &[u64; 6]) -> String {
    let mut s = String::from("[");
    for (i, x) in v.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&format!("{x}"));
    }
    s.push(']');
    s
}

/// What a proof outline yields besides its nodes.
struct Drawn {
    nodes: Vec<Node>,
    /// The tail node (the key's tuple, or the absence and its occupants).
    tail: Node,
    /// Every tuple's recomputed history root, in proof order.
    checks: Vec<RootCheck>,
    /// Index in `checks` of the one `root` reports.
    primary: Option<usize>,
    /// The key's version and slot (presence).
    slot: Option<(u64, u8)>,
}

/// Draws an LVMT proof whose spans are `at`.
fn draw(p: &LvmtProof, at: &At<'_>, a: &Anchor) -> Drawn {
    let depth = p.depth;
    let khash = keccak(&p.key);
    let mut nodes = Vec::with_capacity(p.levels.len());
    let mut checks = Vec::new();
    let mut prev_sub = 0u64;
    for (l, level) in p.levels.iter().enumerate() {
        let lu = u8::try_from(l).unwrap_or(u8::MAX);
        let index = index_at(&khash, lu, depth).unwrap_or(0);
        let qs: Vec<Node> = level
            .quotients
            .iter()
            .enumerate()
            .map(|(d, q)| {
                Node::new(NodeKind::Digest, format!("Q_{}", d + 1))
                    .hash(q)
                    .range(at.get(&format!("levels[{l}].quotients[{d}]")))
            })
            .collect();
        let mut list = String::new();
        for (d, q) in level.quotients.iter().enumerate() {
            if d > 0 {
                list.push_str(" · ");
            }
            list.push_str(&short(q));
        }
        let opening = Node::new(
            NodeKind::Node,
            format!("opening of entry {index}: {} quotient points", qs.len()),
        )
        .detail(list)
        .range(at.get(&format!("levels[{l}].quotients")))
        .children(qs);
        let (label, commitment) = match &level.commitment {
            None => (format!("level {l}: root AMT, entry {index}"), a.aroot),
            Some((c, _)) => (
                format!(
                    "level {l}: sub-AMT {}, entry {index}",
                    short(prefix(&khash, lu, depth).as_slice())
                ),
                *c,
            ),
        };
        let mut detail = format!(
            "versions {} (slot 0: the sub-AMT below; slots 1–5: keys)",
            versions(&level.versions)
        );
        if level.commitment.is_none() {
            detail.push_str("; commitment: the header's lvmtRoot");
        }
        let mut node = Node::new(NodeKind::Level, label)
            .hash(&commitment)
            .detail(detail)
            .child(opening);
        if let Some((c, path)) = &level.commitment {
            let leaf = amt_tuple(lu, &prefix(&khash, lu, depth), prev_sub, c);
            let field = format!("levels[{l}].commitmentTuple");
            let (kids, got) = path_nodes(&leaf, path, at, &field, a);
            checks.push(check(
                format!("lvmtHistoryRoot via level {l}'s sub-AMT tuple"),
                got,
                a,
            ));
            node = node.child(
                Node::new(
                    NodeKind::Tuple,
                    format!("sub-AMT tuple: level {l}, version {prev_sub}"),
                )
                .hash(leaf.as_slice())
                .detail(format!(
                    "prefix {}, commitment {}, written in block {}",
                    short(prefix(&khash, lu, depth).as_slice()),
                    short(c),
                    path.block
                ))
                .range(at.get(&field))
                .children(kids),
            );
        }
        prev_sub = level.versions[0];
        nodes.push(node.range(at.get(&format!("levels[{l}]"))));
    }
    let last = p.levels.last();
    let last_u8 = u8::try_from(p.levels.len().saturating_sub(1)).unwrap_or(u8::MAX);
    let (tail, primary, slot) = match &p.kind {
        Kind::Presence { slot, value, path } => {
            let version = last
                .and_then(|l| l.versions.get(usize::from(*slot)))
                .copied()
                .unwrap_or(0);
            let leaf = key_tuple(&p.key, version, value, last_u8, *slot);
            let (kids, got) = path_nodes(&leaf, path, at, "tuple", a);
            checks.push(check("lvmtHistoryRoot via the key's tuple".into(), got, a));
            let node = Node::new(
                NodeKind::Result,
                format!(
                    "key tuple: version {version} → {} (written in block {})",
                    word(value),
                    path.block
                ),
            )
            .hash(leaf.as_slice())
            .detail(format!(
                "level {last_u8}, slot {slot}; value {}",
                hex(value)
            ))
            .range(at.get("tail"))
            .children(kids);
            (node, Some(checks.len() - 1), Some((version, *slot)))
        }
        Kind::Absence { others } => {
            let mut it = others.iter();
            let mut kids = Vec::with_capacity(others.len());
            let mut first = None;
            let mut i = 0usize;
            for (l, level) in p.levels.iter().enumerate() {
                let lu = u8::try_from(l).unwrap_or(u8::MAX);
                for (s, v) in level.versions.iter().enumerate().skip(1) {
                    if *v == 0 {
                        continue;
                    }
                    let Some(o) = it.next() else { break };
                    let su = u8::try_from(s).unwrap_or(u8::MAX);
                    let leaf = key_tuple(&o.key, *v, &o.value, lu, su);
                    let field = format!("others[{i}]");
                    i += 1;
                    let (path, got) = path_nodes(&leaf, &o.path, at, &field, a);
                    checks.push(check(
                        format!("lvmtHistoryRoot via the occupant of level {l} slot {s}"),
                        got,
                        a,
                    ));
                    first.get_or_insert(checks.len() - 1);
                    kids.push(
                        Node::new(
                            NodeKind::Tuple,
                            format!(
                                "occupant of level {l} slot {s}: key {}, version {v} → {}",
                                short(o.key.as_slice()),
                                word(&o.value)
                            ),
                        )
                        .hash(leaf.as_slice())
                        .detail(format!(
                            "keccak256(key) = {}, on the same path",
                            short(keccak(&o.key).as_slice())
                        ))
                        .range(at.get(&field))
                        .children(path),
                    );
                }
            }
            let why = match last {
                Some(l) if l.versions.iter().skip(1).any(|v| *v == 0) => {
                    "a vacant key slot: the key would be there"
                }
                Some(l) if l.versions[0] == 0 => "no sub-AMT below: the path ends",
                _ => "(the last level is full and has a sub-AMT: the path goes on)",
            };
            let node = Node::new(
                NodeKind::Result,
                format!("absent: the path ends at level {last_u8}"),
            )
            .detail(format!(
                "{why}; every occupied key slot on the path is another key's"
            ))
            .range(at.get("tail"))
            .children(kids);
            // No occupant: the first sub-AMT tuple, if any.
            let primary = first.or(if checks.is_empty() { None } else { Some(0) });
            (node, primary, None)
        }
    };
    Drawn {
        nodes,
        tail,
        checks,
        primary,
        slot,
    }
}

/// The node of a whole LVMT proof (an outline's root, or the latest-version proof of a
/// history).
fn proof_node(p: &LvmtProof, key: &B256) -> Node {
    let what = match p.kind {
        Kind::Presence { .. } => "presence",
        Kind::Absence { .. } => "absence",
    };
    let mut detail = format!(
        "D = {}, {} level(s); keccak256(key) = {} chooses the entry at each level",
        p.depth,
        p.levels.len(),
        short(keccak(&p.key).as_slice())
    );
    note_key(&mut detail, "key ", p.key.as_slice(), key.as_slice(), short);
    Node::new(
        NodeKind::Root,
        format!("LVMT {what} proof: key {}", short(p.key.as_slice())),
    )
    .detail(detail)
}

/// `root`: the primary history-root check, or `lvmtRoot` when the proof carries no tuple.
fn primary_root(d: &mut Drawn, a: &Anchor) -> (RootCheck, Vec<RootCheck>) {
    let aroot = RootCheck::new(
        "lvmtRoot (level 0 is opened against it, never recomputed)",
        hex(&a.aroot),
        hex(&a.aroot),
    );
    let mut roots = std::vec![aroot];
    let root = match d.primary.and_then(|i| d.checks.get(i)) {
        Some(c) => RootCheck::new("lvmtHistoryRoot", c.recomputed.clone(), c.expected.clone()),
        None => RootCheck::new("lvmtRoot", hex(&a.aroot), hex(&a.aroot)),
    };
    roots.append(&mut d.checks);
    (root, roots)
}

/// Draws an LVMT proof of `key`'s latest value or absence: one `level` per AMT level (its
/// commitment, the entry's six versions, the opening's D quotient points and, below the root,
/// the sub-AMT's `tuple` with its block-tree and history-tree paths), then the key's tuple
/// (`result`) or, for absence, the occupants of the path. `root` is `lvmtHistoryRoot`
/// recomputed through the key's tuple. Nothing is paired: no parameters are needed.
pub fn outline_proof(proof: &[u8], key: &B256, a: &Anchor) -> Result<Outline, DecodeError> {
    let (p, spans) = LvmtProof::decode_with_spans(proof)?;
    let at = At {
        spans: &spans,
        prefix: "",
    };
    let mut d = draw(&p, &at, a);
    let tree = proof_node(&p, key)
        .range(Some((0, proof.len())))
        .children(std::mem::take(&mut d.nodes))
        .child(std::mem::replace(
            &mut d.tail,
            Node::new(NodeKind::Result, String::new()),
        ));
    let (root, roots) = primary_root(&mut d, a);
    Ok(Outline::new(Family::Lvmt, proof, tree, root, roots))
}

/// Draws an LVMT history proof asked for `key` over `lo..=hi`: the latest-version proof (a
/// `structure`), then each listed version's tuple (`result` in the range, `leaf` outside).
pub fn outline_history(
    proof: &[u8],
    key: &B256,
    lo: u64,
    hi: u64,
    a: &Anchor,
) -> Result<Outline, DecodeError> {
    let (h, spans) = LvmtHistory::decode_with_spans(proof)?;
    let at = At {
        spans: &spans,
        prefix: "latest.",
    };
    let mut d = draw(&h.latest, &at, a);
    let latest = proof_node(&h.latest, key)
        .range(spans.get("latest"))
        .children(std::mem::take(&mut d.nodes))
        .child(std::mem::replace(
            &mut d.tail,
            Node::new(NodeKind::Result, String::new()),
        ));
    let latest = Node {
        kind: NodeKind::Structure,
        ..latest
    };
    let top = At {
        spans: &spans,
        prefix: "",
    };
    let level = u8::try_from(h.latest.levels.len().saturating_sub(1)).unwrap_or(u8::MAX);
    let slot = d.slot.map_or(0, |(_, s)| s);
    let mut kids = std::vec![latest];
    for (i, (value, path)) in h.tuples.iter().enumerate() {
        let version = h.first.saturating_add(i as u64);
        let leaf = key_tuple(&h.latest.key, version, value, level, slot);
        let field = format!("tuples[{i}]");
        let (nodes, got) = path_nodes(&leaf, path, &top, &field, a);
        d.checks.push(check(
            format!("lvmtHistoryRoot via version {version}'s tuple"),
            got,
            a,
        ));
        let in_range = (lo..=hi).contains(&path.block);
        let label = format!("version {version}: block {} → {}", path.block, word(value));
        let kind = if in_range {
            NodeKind::Result
        } else {
            NodeKind::Leaf
        };
        let detail = if in_range {
            format!("level {level}, slot {slot}; value {}", hex(value))
        } else if path.block < lo {
            format!("in force at block {lo}; value {}", hex(value))
        } else {
            format!("the first version after block {hi}; value {}", hex(value))
        };
        kids.push(
            Node::new(kind, label)
                .hash(leaf.as_slice())
                .detail(detail)
                .range(spans.get(&field))
                .children(nodes),
        );
    }
    let mut detail = format!(
        "versions {}..={} listed; each tuple (key, version, value, level, slot) leads to the \
         history root",
        h.first,
        h.first
            .saturating_add(h.tuples.len() as u64)
            .saturating_sub(1)
    );
    note_range(&mut detail, (h.lo, h.hi), (lo, hi));
    let label = format!(
        "LVMT history: key {}, blocks {}..={}",
        short(h.latest.key.as_slice()),
        h.lo,
        h.hi
    );
    let tree = root_node(label, detail, proof).children(kids);
    let (root, roots) = primary_root(&mut d, a);
    Ok(Outline::new(Family::LvmtHistory, proof, tree, root, roots))
}

/// A proof or a history, as given.
enum Wire {
    Proof(LvmtProof),
    History(LvmtHistory),
}

impl Wire {
    fn decode(b: &[u8]) -> Result<Self, DecodeError> {
        match LvmtProof::decode(b) {
            Ok(p) => Ok(Self::Proof(p)),
            Err(e) => LvmtHistory::decode(b).map(Self::History).map_err(|_| e),
        }
    }

    fn latest(&mut self) -> &mut LvmtProof {
        match self {
            Self::Proof(p) => p,
            Self::History(h) => &mut h.latest,
        }
    }

    fn encode(&self) -> Vec<u8> {
        match self {
            Self::Proof(p) => p.encode(),
            Self::History(h) => h.encode(),
        }
    }
}

/// The key's older versions a wire holds: `(version, value, path)`.
fn versions_in(w: &Wire) -> Vec<(u64, Word, TuplePath)> {
    match w {
        Wire::History(h) => h
            .tuples
            .iter()
            .enumerate()
            .map(|(i, (v, p))| (h.first.saturating_add(i as u64), *v, p.clone()))
            .collect(),
        Wire::Proof(p) => match &p.kind {
            Kind::Presence { slot, value, path } => p
                .levels
                .last()
                .and_then(|l| l.versions.get(usize::from(*slot)))
                .map(|v| std::vec![(*v, *value, path.clone())])
                .unwrap_or_default(),
            Kind::Absence { .. } => Vec::new(),
        },
    }
}

/// Occupants of a level: how many of `others` belong to it.
fn occupied(l: &LevelProof) -> usize {
    l.versions.iter().skip(1).filter(|v| **v > 0).count()
}

/// The registry's LVMT tamper classes ([`lightprov_types::lvmt::FAMILY`]) [`forge`] makes, in
/// the order a picker lists them.
pub const FORGERIES: &[&str] = &["value-changed", "stale-tuple", "level-dropped"];

/// Tampers with an honest LVMT proof (or the latest-version proof inside a history). `kind` is
/// one of the family's registry tamper classes in [`FORGERIES`]: `value-changed` (the last byte
/// of the key's value flipped, or of an occupant's for absence; an absence proof with no
/// occupant has no value to change), `stale-tuple` (the tuple of an older version from `aux`:
/// an LVMT history — or older presence proof — of the same key; a history given as `proof`
/// serves as its own) or `level-dropped` (the last level left out; a proof of one level has
/// none to spare). The code is the check of the LVMT verifier that catches the tamper, and one
/// the class answers (the crate's tests run the verifier on every forgery of the shared
/// vectors).
pub fn forge(kind: &str, proof: &[u8], aux: Option<&[u8]>) -> Result<Forged, ForgeError> {
    let class = tamper_class(&lightprov_types::lvmt::FAMILY, FORGERIES, kind)?;
    let mut w = Wire::decode(proof)?;
    let own = versions_in(&w);
    let p = w.latest();
    let (description, code) = match kind {
        "value-changed" => {
            let flip = |v: &mut Word| -> String {
                let before = word(v);
                if let Some(b) = v.last_mut() {
                    *b ^= 0xff;
                }
                format!("{before} → {}", word(v))
            };
            match &mut p.kind {
                Kind::Presence { value, .. } => (
                    format!("flipped the last byte of the key's value ({})", flip(value)),
                    ErrorCode::HistoryMismatch,
                ),
                Kind::Absence { others } => match others.first_mut() {
                    Some(o) => (
                        format!(
                            "flipped the last byte of the value of the occupant {} ({})",
                            short(o.key.as_slice()),
                            flip(&mut o.value)
                        ),
                        ErrorCode::HistoryMismatch,
                    ),
                    None => {
                        return not_applicable(
                            "value-changed: an absence proof whose path no other key occupies \
                             holds no value to change",
                        );
                    }
                },
            }
        }
        "stale-tuple" => {
            let Kind::Presence { slot, value, path } = &mut p.kind else {
                return not_applicable("stale-tuple needs a presence proof");
            };
            let current = p
                .levels
                .last()
                .and_then(|l| l.versions.get(usize::from(*slot)))
                .copied()
                .unwrap_or(0);
            let older = match aux {
                Some(b) => {
                    let a = Wire::decode(b)?;
                    let a_key = match &a {
                        Wire::Proof(x) => x.key,
                        Wire::History(h) => h.latest.key,
                    };
                    if a_key != p.key {
                        return not_applicable("aux is a proof of another key");
                    }
                    versions_in(&a)
                }
                None => own,
            };
            let Some((v, old_value, old_path)) = older
                .into_iter()
                .filter(|(v, _, _)| *v < current)
                .max_by_key(|(v, _, _)| *v)
            else {
                return not_applicable(
                    "stale-tuple needs an older version's tuple: pass an LVMT history proof of \
                     the same key as aux",
                );
            };
            let d = format!(
                "replaced the key's tuple (version {current} → {}, block {}) by version {v}'s \
                 (→ {}, block {})",
                word(value),
                path.block,
                word(&old_value),
                old_path.block
            );
            *value = old_value;
            *path = old_path;
            (d, ErrorCode::HistoryMismatch)
        }
        _ => {
            // level-dropped.
            let n = p.levels.len();
            if n <= 1 {
                return not_applicable(
                    "level-dropped: the proof has one level only, none can be left out",
                );
            }
            let presence = matches!(p.kind, Kind::Presence { .. });
            let dropped = p.levels.pop();
            if let (Kind::Absence { others }, Some(l)) = (&mut p.kind, &dropped) {
                let keep = others.len().saturating_sub(occupied(l));
                others.truncate(keep);
            }
            if presence {
                (
                    format!(
                        "dropped level {} (the key's): its slot now names another key's version",
                        n - 1
                    ),
                    ErrorCode::HistoryMismatch,
                )
            } else {
                (
                    format!(
                        "dropped level {} and its occupants: the path now stops at a full level \
                         with a sub-AMT below",
                        n - 1
                    ),
                    ErrorCode::LevelMismatch,
                )
            }
        }
    };
    let forged = w.encode();
    let description = with_wire_byte(kind, proof, &forged, description);
    labelled(
        class,
        Forged {
            proof: forged,
            description,
            code,
        },
    )
}

/// The family's wasm exports (feature `wasm`).
#[cfg(feature = "wasm")]
pub mod wasm {
    use std::{string::String, vec::Vec};

    use lightprov_types::B256;
    use wasm_bindgen::prelude::*;

    use super as lvmt;
    use crate::wasm::{forged, hash32, json};

    /// The state key asked and what the header says.
    fn asked(
        state_key: &[u8],
        aroot: &[u8],
        history_root: &[u8],
        blocks: u64,
    ) -> Result<(B256, lvmt::Anchor), JsValue> {
        let key = hash32(state_key, "stateKey")?;
        let a = lvmt::Anchor {
            aroot: hash32(aroot, "lvmtRoot")?.0,
            history_root: hash32(history_root, "lvmtHistoryRoot")?,
            blocks,
        };
        Ok((key, a))
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
        let (key, a) = asked(state_key, aroot, history_root, blocks)?;
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
        let (key, a) = asked(state_key, aroot, history_root, blocks)?;
        json(lvmt::outline_history(proof, &key, lo, hi, &a))
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
}
