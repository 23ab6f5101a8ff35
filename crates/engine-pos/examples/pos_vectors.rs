//! Writes the POS-Tree shared vectors: path proofs of presence and absence, range, diff and
//! history proofs from an engine's update code over a small tree (a mean of 4 entries a node, so
//! a few dozen keys make three levels), and one forgery of each tamper class of the family's
//! registry entry with the code it must be rejected with (checked here against the verifier).
//!
//! `cargo run -p lightprov-engine-pos --example pos_vectors -- tests/vectors/pos`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, keccak256};
use lightprov_engine_api::Key;
use lightprov_engine_pos::{Meta, tree};
use lightprov_testkit::vectors::VectorDir;
use lightprov_types::{
    ErrorCode, Word, hex,
    pos::{
        DiffProof, Entry, FAMILY, HistoryItem, HistoryProof, Node, PathProof, SplitRule, Tree,
        prove::{self, MemNodes},
    },
};
use lightprov_verifier::{
    Verify,
    pos::{BlockRoots, Change, PosDiff, PosHistory, PosRange, verify_value},
};
use serde_json::{Value, json};

const GENERATOR: &str = "crates/engine-pos/examples/pos_vectors.rs";
/// A small rule, so that small vectors still have several levels.
const RULE: SplitRule = SplitRule::ContentDefined {
    bits: 2,
    min: 2,
    max: 8,
};

fn h(b: &[u8]) -> String {
    hex::encode(b)
}

fn opt(v: Option<&Word>) -> Value {
    v.map_or(Value::Null, |w| json!(h(w)))
}

fn state_key(i: u64) -> B256 {
    Key::Balance(Address::from_word(keccak256(i.to_be_bytes()))).state_key()
}

fn value(i: u64, salt: u8) -> Word {
    let mut w = [0u8; 32];
    w[24..].copy_from_slice(&(i * 1000 + u64::from(salt) + 1).to_be_bytes());
    w
}

/// A tree in memory built by the engine's update code, version by version.
struct Versions {
    nodes: MemNodes,
    metas: Vec<Meta>,
    states: Vec<BTreeMap<B256, Word>>,
}

impl Versions {
    fn new() -> Self {
        Self {
            nodes: MemNodes::default(),
            metas: Vec::new(),
            states: Vec::new(),
        }
    }

    fn apply(&mut self, changes: BTreeMap<B256, Word>) {
        let old = self.metas.last().cloned().unwrap_or_else(Meta::empty);
        let up = tree::update(&self.nodes, &old, &RULE, &changes).unwrap();
        self.nodes.0.extend(up.nodes);
        self.metas.push(up.meta);
        let mut s = self.states.last().cloned().unwrap_or_default();
        for (k, v) in changes {
            if v == [0; 32] {
                s.remove(&k);
            } else {
                s.insert(k, v);
            }
        }
        self.states.push(s);
    }
}

/// An invalid vector: asserts the verifier answers `got`, a code of the tamper class.
fn invalid(
    out: &mut VectorDir,
    base: &str,
    tamper: &str,
    inputs: Value,
    got: Result<(), ErrorCode>,
) {
    let name = format!("{base}-{tamper}");
    let (_, code) = out.tamper_code(tamper, &name, got);
    out.invalid(&name, inputs, code);
}

fn value_inputs(root: &B256, key: &B256, claimed: Option<&Word>, proof: &[u8]) -> Value {
    json!({ "kind": "value", "posRoot": h(root.as_slice()), "stateKey": h(key.as_slice()),
            "value": opt(claimed), "proof": h(proof) })
}

fn check_value(
    root: &B256,
    key: &B256,
    claimed: Option<&Word>,
    proof: &[u8],
) -> Result<(), ErrorCode> {
    verify_value(root, key, claimed, proof).map_err(|e| e.code())
}

fn main() {
    let mut out = VectorDir::from_args(&FAMILY, GENERATOR);
    let mut v = Versions::new();
    // Block 0: 48 keys; then six blocks of a few updates, deletions and insertions.
    v.apply((0..48).map(|i| (state_key(i), value(i, 0))).collect());
    for b in 1..=6u64 {
        v.apply(
            [
                (state_key(b * 5), value(b, 1)),
                (state_key(b * 7 + 1), [0; 32]),
                (state_key(100 + b), value(b, 2)),
            ]
            .into_iter()
            .collect(),
        );
    }
    let (m, meta, state) = (&v.nodes, &v.metas[6], &v.states[6]);
    let root = meta.root;
    let keys: Vec<B256> = state.keys().copied().collect();
    assert_eq!(keys.len(), 49);
    assert!(meta.height() >= 3, "levels {:?}", meta.counts);
    println!("{} keys, nodes per level {:?}", keys.len(), meta.counts);

    // Values: present keys, absent keys (one between two, one below all, one above all).
    let present = [keys[0], keys[17], keys[keys.len() - 1]];
    let mut absent = vec![B256::ZERO, B256::repeat_byte(0xff)];
    let mut between = keys[20];
    between.0[31] ^= 1;
    absent.push(between);
    for (i, key) in present.iter().chain(&absent).enumerate() {
        let claimed = state.get(key);
        let p = prove::path(m, &root, key).unwrap().encode();
        check_value(&root, key, claimed, &p).unwrap();
        out.valid(
            &format!("value-{i}"),
            value_inputs(&root, key, claimed, &p),
            json!({ "ok": true, "value": opt(claimed) }),
        );
    }
    // The empty tree proves absence.
    {
        let p = PathProof {
            nodes: vec![Node::leaf(vec![])],
        }
        .encode();
        let root = Meta::empty().root;
        check_value(&root, &keys[0], None, &p).unwrap();
        out.valid(
            "value-empty-tree",
            value_inputs(&root, &keys[0], None, &p),
            json!({ "ok": true, "value": null }),
        );
    }

    // Forgeries of the path of keys[17], each with the claim it is checked for.
    let key = keys[17];
    let claimed = state.get(&key);
    let honest = prove::path(m, &root, &key).unwrap();
    let forge = |f: &dyn Fn(&mut PathProof)| {
        let mut p = honest.clone();
        f(&mut p);
        p.encode()
    };
    let j = honest.nodes[0].route(&key);
    let other = honest.nodes[0].entries[usize::from(j == 0)].0;
    let other_path = prove::path(m, &root, &other).unwrap();
    let older = prove::path(m, &v.metas[0].root, &key).unwrap();
    let mut trailing = honest.encode();
    trailing.push(0);
    let forgeries: [(&str, Vec<u8>, Option<&Word>); 8] = [
        (
            "value-changed",
            forge(&|f| {
                let leaf = f.nodes.last_mut().unwrap();
                let at = leaf.entries.iter().position(|(k, _)| *k == key).unwrap();
                leaf.entries[at].1[0] ^= 1;
            }),
            claimed,
        ),
        (
            "separator-changed",
            forge(&|f| f.nodes[0].entries[0].0.0[31] ^= 1),
            claimed,
        ),
        (
            "other-child",
            forge(&|f| {
                f.nodes.truncate(1);
                f.nodes.extend(other_path.nodes.iter().skip(1).cloned());
            }),
            claimed,
        ),
        (
            "node-of-another-tree",
            forge(&|f| {
                let n = f.nodes.len();
                f.nodes[n - 1] = older.nodes[older.nodes.len() - 1].clone();
                f.nodes[n - 1].entries[0].1[5] ^= 1;
            }),
            claimed,
        ),
        ("truncated-path", forge(&|f| drop(f.nodes.pop())), claimed),
        (
            "extra-node",
            forge(&|f| f.nodes.push(f.nodes[f.nodes.len() - 1].clone())),
            claimed,
        ),
        ("claimed-absent", honest.encode(), None),
        ("trailing-byte", trailing, claimed),
    ];
    for (tamper, p, claimed) in forgeries {
        invalid(
            &mut out,
            "value-1",
            tamper,
            value_inputs(&root, &key, claimed, &p),
            check_value(&root, &key, claimed, &p),
        );
    }

    // Roots that commit to trees no honest builder makes: two leaves under one root.
    let e = |i: &[usize]| -> Vec<(B256, Word)> {
        i.iter().map(|&i| (keys[i], value(i as u64, 9))).collect()
    };
    let forged =
        |level: u8, a: Vec<(B256, Word)>, sa: B256, b: Vec<(B256, Word)>, sb: B256, to: usize| {
            let (a, b) = (Node::leaf(a), Node::leaf(b));
            let r = Node {
                level,
                entries: vec![(sa, a.hash().0), (sb, b.hash().0)],
            };
            let leaf = if to == 0 { a } else { b };
            (
                r.hash(),
                PathProof {
                    nodes: vec![r, leaf],
                }
                .encode(),
            )
        };
    let cases = [
        (
            "forged-separators-out-of-order",
            forged(1, e(&[5]), keys[5], e(&[3]), keys[3], 0),
            keys[5],
        ),
        (
            "forged-entries-out-of-order",
            forged(1, e(&[1, 2]), keys[2], e(&[6, 4, 9]), keys[9], 1),
            keys[9],
        ),
        (
            "forged-separator-mismatch",
            forged(1, e(&[1, 3]), keys[4], e(&[7, 8]), keys[8], 0),
            keys[3],
        ),
        (
            "forged-child-out-of-range",
            forged(1, e(&[2, 5]), keys[5], e(&[1, 7, 8]), keys[8], 1),
            keys[7],
        ),
        (
            "forged-wrong-level",
            forged(2, e(&[1, 3]), keys[3], e(&[7, 8]), keys[8], 0),
            keys[1],
        ),
    ];
    for (tamper, (root, p), key) in cases {
        let r = PosValue_verify(&root, &key, &p);
        invalid(
            &mut out,
            "value",
            tamper,
            value_inputs(&root, &key, None, &p),
            r,
        );
    }

    // Ranges.
    let ranges = [
        (keys[10], keys[25]),
        (between, keys[30]),
        (B256::ZERO, keys[3]),
        (keys[40], B256::repeat_byte(0xff)),
    ];
    for (i, (lo, hi)) in ranges.iter().enumerate() {
        let p = prove::range(m, &root, lo, hi).unwrap().encode();
        let got = PosRange::verify(&root, &(*lo, *hi), &p).unwrap();
        let want: Vec<_> = state.range(*lo..=*hi).map(|(k, v)| (*k, *v)).collect();
        assert_eq!(got, want);
        out.valid(&format!("range-{i}"), range_inputs(&root, lo, hi, &p), json!({
            "ok": true,
            "entries": want.iter().map(|(k, v)| json!({ "key": h(k.as_slice()), "value": h(v) })).collect::<Vec<_>>(),
        }));
    }
    let (lo, hi) = ranges[0];
    let honest = prove::range(m, &root, &lo, &hi).unwrap();
    let inside = keys[18];
    let mut f = honest.clone();
    take_leaf(&mut f.tree, &|e| e.iter().any(|(k, _)| *k == inside)).unwrap();
    let p = f.encode();
    invalid(
        &mut out,
        "range-0",
        "range-entry-hidden",
        range_inputs(&root, &lo, &hi, &p),
        PosRange::verify(&root, &(lo, hi), &p)
            .map(|_| ())
            .map_err(|e| e.code()),
    );
    let wider = prove::range(m, &root, &lo, &keys[33]).unwrap().encode();
    invalid(
        &mut out,
        "range-0",
        "range-extra-leaf",
        range_inputs(&root, &lo, &hi, &wider),
        PosRange::verify(&root, &(lo, hi), &wider)
            .map(|_| ())
            .map_err(|e| e.code()),
    );

    // Diffs.
    let (a, b) = (v.metas[0].root, root);
    let p = prove::diff(m, &a, &b).unwrap();
    let changes = PosDiff::verify(&(a, b), &(), &p.encode()).unwrap();
    let change = |c: &Change| json!({ "key": h(c.key.as_slice()), "old": opt(c.old.as_ref()), "new": opt(c.new.as_ref()) });
    out.valid(
        "diff-0",
        diff_inputs(&a, &b, &p.encode()),
        json!({ "ok": true, "changes": changes.iter().map(change).collect::<Vec<_>>() }),
    );
    let mut hidden: DiffProof = p.clone();
    take_leaf(&mut hidden.old, &|_| true).unwrap();
    // A leaf both versions share, revealed in both.
    let mut shown: DiffProof = p.clone();
    let shared = *first_pruned_leaf(m, &p.old).expect("the versions share a leaf");
    let leaf = Tree::Leaf(m.0[&shared].entries.clone());
    reveal(&mut shown.old, &shared, &leaf);
    reveal(&mut shown.new, &shared, &leaf);
    for (tamper, f) in [
        ("diff-subtree-hidden", hidden),
        ("diff-shared-subtree-revealed", shown),
    ] {
        let fp = f.encode();
        invalid(
            &mut out,
            "diff-0",
            tamper,
            diff_inputs(&a, &b, &fp),
            PosDiff::verify(&(a, b), &(), &fp)
                .map(|_| ())
                .map_err(|e| e.code()),
        );
    }

    // Histories.
    let roots: Vec<B256> = v.metas.iter().map(|m| m.root).collect();
    for (i, key) in [keys[17], state_key(5), state_key(8)].iter().enumerate() {
        let p = prove::history(m, 0, &roots, key).unwrap().encode();
        let got = PosHistory::verify(
            &BlockRoots {
                from: 0,
                roots: &roots,
            },
            key,
            &p,
        )
        .unwrap();
        let want: Vec<_> = v.states.iter().map(|s| s.get(key).copied()).collect();
        assert_eq!(got, want);
        out.valid(
            &format!("history-{i}"),
            history_inputs(0, &roots, key, &p),
            json!({
                "ok": true, "values": want.iter().map(|w| opt(w.as_ref())).collect::<Vec<_>>(),
            }),
        );
    }
    let key = state_key(5);
    let honest = prove::history(m, 0, &roots, &key).unwrap();
    let check = |roots: &[B256], from: u64, p: &[u8]| {
        PosHistory::verify(&BlockRoots { from, roots }, &key, p)
            .map(|_| ())
            .map_err(|e| e.code())
    };
    let foreign = HistoryItem::Full(
        prove::path(m, &roots[0], &keys[40])
            .unwrap()
            .nodes
            .pop()
            .unwrap(),
    );
    let forge = |f: &dyn Fn(&mut HistoryProof)| {
        let mut p: HistoryProof = honest.clone();
        f(&mut p);
        p.encode()
    };
    let forgeries: [(&str, Vec<u8>, u64); 4] = [
        (
            "history-node-dropped",
            forge(&|f| *f.items.last_mut().unwrap() = foreign.clone()),
            0,
        ),
        (
            "history-node-unused",
            forge(&|f| f.items.push(foreign.clone())),
            0,
        ),
        (
            "history-node-repeated",
            forge(&|f| f.items.push(f.items[0].clone())),
            0,
        ),
        ("history-other-blocks", honest.encode(), 1),
    ];
    for (tamper, p, from) in forgeries {
        invalid(
            &mut out,
            "history-1",
            tamper,
            history_inputs(from, &roots, &key, &p),
            check(&roots, from, &p),
        );
    }

    out.assert_every_tamper();
    out.finish();
}

#[allow(non_snake_case)]
fn PosValue_verify(root: &B256, key: &B256, p: &[u8]) -> Result<(), ErrorCode> {
    lightprov_verifier::pos::PosValue::verify(root, key, p)
        .map(|_| ())
        .map_err(|e| e.code())
}

fn range_inputs(root: &B256, lo: &B256, hi: &B256, proof: &[u8]) -> Value {
    json!({ "kind": "range", "posRoot": h(root.as_slice()), "lo": h(lo.as_slice()), "hi": h(hi.as_slice()), "proof": h(proof) })
}

fn diff_inputs(a: &B256, b: &B256, proof: &[u8]) -> Value {
    json!({ "kind": "diff", "oldRoot": h(a.as_slice()), "newRoot": h(b.as_slice()), "proof": h(proof) })
}

fn history_inputs(from: u64, roots: &[B256], key: &B256, proof: &[u8]) -> Value {
    json!({ "kind": "history", "fromBlock": from, "roots": roots.iter().map(|r| h(r.as_slice())).collect::<Vec<_>>(),
            "stateKey": h(key.as_slice()), "proof": h(proof) })
}

/// Prunes the first revealed leaf `pick` accepts to its hash; returns its entries.
fn take_leaf(t: &mut Tree, pick: &dyn Fn(&[Entry]) -> bool) -> Option<Vec<Entry>> {
    match t {
        Tree::Leaf(e) if pick(e) => {
            let e = e.clone();
            *t = Tree::Pruned(Node::leaf(e.clone()).hash());
            Some(e)
        }
        Tree::Inner { children, .. } => children.iter_mut().find_map(|(_, c)| take_leaf(c, pick)),
        _ => None,
    }
}

/// The hash of the first pruned subtree of `t` that is a leaf.
fn first_pruned_leaf<'t>(m: &MemNodes, t: &'t Tree) -> Option<&'t B256> {
    match t {
        Tree::Pruned(h) => m.0.get(h).filter(|n| n.is_leaf()).map(|_| h),
        Tree::Inner { children, .. } => children.iter().find_map(|(_, c)| first_pruned_leaf(m, c)),
        Tree::Leaf(_) => None,
    }
}

/// Replaces every pruned `h` of `t` with `with`.
fn reveal(t: &mut Tree, h: &B256, with: &Tree) {
    match t {
        Tree::Pruned(x) if x == h => *t = with.clone(),
        Tree::Inner { children, .. } => children.iter_mut().for_each(|(_, c)| reveal(c, h, with)),
        _ => {}
    }
}
