//! Every check of the POS-Tree verifier, each broken by a proof that breaks exactly it, and the
//! honest proofs that pass. Trees come from the reference bulk builder
//! (`SplitRule::build`); forged trees are assembled node by node.

#![allow(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use alloc::{collections::BTreeMap, vec, vec::Vec};

use lightprov_types::{
    B256, ErrorCode, Word,
    pos::{
        DiffProof, Entry, HistoryItem, HistoryProof, Node, PathProof, RangeProof, SplitRule, Tree,
        empty_root,
        prove::{self, MemNodes},
    },
};
use proptest::prelude::*;

use super::*;
use crate::Verify;

/// Key `i`: its first four bytes are `1000·i`, so `k(i) + 1` (`gap(i)`) is absent.
fn k(i: u32) -> B256 {
    let mut b = [0u8; 32];
    b[..4].copy_from_slice(&(i * 1000).to_be_bytes());
    b[31] = 1;
    B256::from(b)
}

fn gap(i: u32) -> B256 {
    let mut b = k(i);
    b.0[31] = 2;
    b
}

fn val(i: u32, salt: u8) -> Word {
    let mut w = [salt | 1; 32];
    w[..4].copy_from_slice(&i.to_be_bytes());
    w
}

fn entries(keys: impl IntoIterator<Item = u32>, salt: u8) -> Vec<Entry> {
    keys.into_iter().map(|i| (k(i), val(i, salt))).collect()
}

fn honest(n: u32, rule: SplitRule) -> (MemNodes, B256, Vec<Entry>) {
    let e = entries(0..n, 0);
    let mut m = MemNodes::default();
    let root = m.build(&rule, &e);
    (m, root, e)
}

const SMALL: SplitRule = SplitRule::FixedSize { entries: 4 };

fn code<T: core::fmt::Debug>(r: Result<T, PosError>) -> ErrorCode {
    r.expect_err("the proof must be rejected").code()
}

/// The code a path proof is rejected with (it must be rejected).
fn value_code(root: &B256, key: &B256, proof: &[u8]) -> ErrorCode {
    code(PosValue::verify(root, key, proof))
}

fn path_of(m: &MemNodes, root: &B256, key: &B256) -> PathProof {
    prove::path(m, root, key).unwrap()
}

fn inner(level: u8, children: &[(B256, &Node)]) -> Node {
    Node {
        level,
        entries: children.iter().map(|(s, n)| (*s, n.hash().0)).collect(),
    }
}

#[test]
fn honest_paths_prove_every_key_and_every_gap() {
    for rule in [SplitRule::DEFAULT, SMALL, SplitRule::FIXED_16] {
        let (m, root, e) = honest(600, rule);
        for (i, (key, value)) in e.iter().enumerate() {
            let p = path_of(&m, &root, key).encode();
            assert_eq!(PosValue::verify(&root, key, &p).unwrap(), Some(*value));
            verify_value(&root, key, Some(value), &p).unwrap();
            let g = gap(i as u32);
            let p = path_of(&m, &root, &g).encode();
            assert_eq!(PosValue::verify(&root, &g, &p).unwrap(), None);
        }
        // Below the smallest key and above the largest.
        for key in [B256::ZERO, B256::repeat_byte(0xff)] {
            let p = path_of(&m, &root, &key).encode();
            assert_eq!(PosValue::verify(&root, &key, &p).unwrap(), None);
        }
    }
}

#[test]
fn the_empty_tree_proves_absence_only() {
    let empty = PathProof {
        nodes: vec![Node::leaf(vec![])],
    }
    .encode();
    assert_eq!(
        PosValue::verify(&empty_root(), &k(1), &empty).unwrap(),
        None
    );
    assert_eq!(
        code(verify_value(&empty_root(), &k(1), Some(&[1; 32]), &empty)),
        ErrorCode::ValueMismatch
    );
    // The default hash is not the empty root and accepts nothing, and neither root accepts
    // another tree's proof.
    assert_eq!(
        value_code(&B256::ZERO, &k(1), &empty),
        ErrorCode::RootMismatch
    );
    let (m, root, _) = honest(50, SMALL);
    let p = path_of(&m, &root, &k(3)).encode();
    assert_eq!(
        value_code(&empty_root(), &k(3), &p),
        ErrorCode::RootMismatch
    );
    assert_eq!(value_code(&B256::ZERO, &k(3), &p), ErrorCode::RootMismatch);
}

#[test]
fn rejects_value_changed_in_leaf() {
    let (m, root, _) = honest(100, SMALL);
    let mut p = path_of(&m, &root, &k(10));
    let leaf = p.nodes.last_mut().unwrap();
    let at = leaf.entries.iter().position(|(x, _)| *x == k(10)).unwrap();
    leaf.entries[at].1 = [7; 32];
    assert_eq!(
        value_code(&root, &k(10), &p.encode()),
        ErrorCode::NodeHashMismatch
    );
    // A single-leaf tree: the changed leaf is the root.
    let (m, root, _) = honest(3, SMALL);
    let mut p = path_of(&m, &root, &k(1));
    p.nodes[0].entries[1].1 = [7; 32];
    assert_eq!(
        value_code(&root, &k(1), &p.encode()),
        ErrorCode::RootMismatch
    );
}

#[test]
fn rejects_separator_changed_outside_the_hash() {
    // The COLE authors' POS-tree hashes child hashes only, so a prover may move separators and
    // reroute a lookup. Ours hashes them: moving one changes the root.
    let (m, root, _) = honest(100, SMALL);
    let mut p = path_of(&m, &root, &k(10));
    p.nodes[0].entries[0].0 = k(99);
    assert_eq!(
        value_code(&root, &k(10), &p.encode()),
        ErrorCode::RootMismatch
    );
}

#[test]
fn rejects_prover_chosen_child() {
    let (m, root, _) = honest(100, SMALL);
    let mut p = path_of(&m, &root, &k(10));
    let j = p.nodes[0].route(&k(10));
    let other = if j == 0 { 1 } else { 0 };
    // The rest of the path of a key under the other child of the root.
    let sibling = p.nodes[0].entries[other].0;
    let q = path_of(&m, &root, &sibling);
    p.nodes.truncate(1);
    p.nodes.extend(q.nodes.into_iter().skip(1));
    let e = PosValue::verify(&root, &k(10), &p.encode()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::KeyMismatch);
    assert_eq!(
        e,
        PosError::WrongChild {
            at: "nodes[1]".into(),
            expected: j,
            found: other
        }
    );
}

#[test]
fn rejects_node_of_another_tree() {
    let (m, root, _) = honest(100, SMALL);
    let (m2, root2, _) = honest(101, SMALL);
    let mut p = path_of(&m, &root, &k(10));
    let q = path_of(&m2, &root2, &k(10));
    let last = p.nodes.len() - 1;
    p.nodes[last] = q.nodes[q.nodes.len() - 1].clone();
    p.nodes[last].entries[0].1 = [3; 32];
    assert_eq!(
        value_code(&root, &k(10), &p.encode()),
        ErrorCode::NodeHashMismatch
    );
}

#[test]
fn rejects_truncated_path_and_nodes_after_the_leaf() {
    let (m, root, _) = honest(100, SMALL);
    let mut p = path_of(&m, &root, &k(10));
    let leaf = p.nodes.pop().unwrap();
    assert_eq!(
        value_code(&root, &k(10), &p.encode()),
        ErrorCode::TruncatedProof
    );
    p.nodes.push(leaf.clone());
    p.nodes.push(leaf);
    assert_eq!(
        value_code(&root, &k(10), &p.encode()),
        ErrorCode::ExtraNodes
    );
}

#[test]
fn rejects_a_claim_the_path_does_not_prove() {
    let (m, root, _) = honest(100, SMALL);
    let p = path_of(&m, &root, &k(10)).encode();
    assert_eq!(
        code(verify_value(&root, &k(10), None, &p)),
        ErrorCode::ValueMismatch
    );
    assert_eq!(
        code(verify_value(&root, &k(10), Some(&[9; 32]), &p)),
        ErrorCode::ValueMismatch
    );
    let g = path_of(&m, &root, &gap(10)).encode();
    assert_eq!(
        code(verify_value(&root, &gap(10), Some(&[9; 32]), &g)),
        ErrorCode::ValueMismatch
    );
}

/// A root (level 1) over two leaves, with the separators given: a tree only a broken builder
/// makes, committed to by its root. Returns the root and the path to leaf `to`.
fn forged(a: &Node, sa: B256, b: &Node, sb: B256, to: usize) -> (B256, Vec<u8>) {
    let r = inner(1, &[(sa, a), (sb, b)]);
    let leaf = if to == 0 { a.clone() } else { b.clone() };
    (
        r.hash(),
        PathProof {
            nodes: vec![r, leaf],
        }
        .encode(),
    )
}

#[test]
fn rejects_separators_out_of_order() {
    let a = Node::leaf(entries([5], 0));
    let b = Node::leaf(entries([3], 0));
    let (root, p) = forged(&a, k(5), &b, k(3), 0);
    assert_eq!(
        value_code(&root, &k(5), &p),
        ErrorCode::SeparatorsOutOfOrder
    );
}

#[test]
fn rejects_leaf_entries_out_of_order_the_first_included() {
    let a = Node::leaf(entries([1, 2], 0));
    let b = Node::leaf(entries([6, 4, 9], 0));
    let (root, p) = forged(&a, k(2), &b, k(9), 1);
    let e = PosValue::verify(&root, &k(9), &p).unwrap_err();
    assert_eq!(
        e,
        PosError::EntriesOutOfOrder {
            at: "nodes[1]".into(),
            index: 1
        }
    );
    // The first entry against the one after it.
    let b = Node::leaf(entries([9, 4], 0));
    let b = Node::leaf(vec![b.entries[0], b.entries[1], (k(9), val(9, 0))]);
    let (root, p) = forged(&a, k(2), &b, k(9), 1);
    assert_eq!(value_code(&root, &k(4), &p), ErrorCode::EntriesOutOfOrder);
}

#[test]
fn rejects_first_leaf_entry_below_its_range() {
    // The second leaf's first entry belongs to the first leaf's range: a lookup of k(1) would
    // route to the first leaf and miss it. The COLE authors' tree exempts the first entry.
    let a = Node::leaf(entries([2, 5], 0));
    let b = Node::leaf(entries([1, 7, 8], 0));
    let (root, p) = forged(&a, k(5), &b, k(8), 1);
    let e = PosValue::verify(&root, &k(7), &p).unwrap_err();
    assert_eq!(e.code(), ErrorCode::ChildOutOfRange);
}

#[test]
fn rejects_child_whose_largest_key_is_not_its_separator() {
    let a = Node::leaf(entries([1, 3], 0));
    let b = Node::leaf(entries([7, 8], 0));
    let (root, p) = forged(&a, k(4), &b, k(8), 0);
    assert_eq!(value_code(&root, &k(3), &p), ErrorCode::SeparatorMismatch);
    // An empty leaf under an inner node has no largest key.
    let e = Node::leaf(vec![]);
    let (root, p) = forged(&a, k(3), &e, k(8), 1);
    assert_eq!(value_code(&root, &k(8), &p), ErrorCode::SeparatorMismatch);
}

#[test]
fn rejects_child_at_the_wrong_level() {
    let a = Node::leaf(entries([1, 3], 0));
    let b = Node::leaf(entries([7, 8], 0));
    let r = inner(2, &[(k(3), &a), (k(8), &b)]);
    let p = PathProof {
        nodes: vec![r.clone(), a],
    }
    .encode();
    assert_eq!(value_code(&r.hash(), &k(1), &p), ErrorCode::BadShape);
}

#[test]
fn rejects_bytes_after_the_proof() {
    let (m, root, _) = honest(20, SMALL);
    let mut p = path_of(&m, &root, &k(1)).encode();
    p.push(0);
    assert_eq!(value_code(&root, &k(1), &p), ErrorCode::BadEncoding);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Malformed proofs are errors, never panics, for every kind of proof.
    #[test]
    fn verifiers_never_panic_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let root = B256::repeat_byte(1);
        let _ = PosValue::verify(&root, &k(1), &bytes);
        let _ = PosRange::verify(&root, &(k(1), k(5)), &bytes);
        let _ = PosDiff::verify(&(root, root), &(), &bytes);
        let _ = PosHistory::verify(&BlockRoots { from: 0, roots: &[root, root] }, &k(1), &bytes);
    }

    /// A range, diff or history proof with one byte changed is rejected or still proves the
    /// truth.
    #[test]
    fn flipped_bytes_never_prove_a_false_range_diff_or_history(at in 0usize..1_000_000, x in 1u8..=255) {
        let (m, root, e) = honest(120, SMALL);
        let (lo, hi) = (k(30), gap(55));
        let mut p = prove::range(&m, &root, &lo, &hi).unwrap().encode();
        let i = at % p.len();
        p[i] ^= x;
        if let Ok(got) = PosRange::verify(&root, &(lo, hi), &p) {
            prop_assert_eq!(got, model_range(&e, &lo, &hi));
        }
        let (m, a, b, want) = two_versions(SMALL);
        let mut p = prove::diff(&m, &a, &b).unwrap().encode();
        let i = at % p.len();
        p[i] ^= x;
        if let Ok(got) = PosDiff::verify(&(a, b), &(), &p) {
            prop_assert_eq!(got, want);
        }
        let (m, roots, states) = versions(SMALL);
        let mut p = prove::history(&m, 0, &roots, &k(7)).unwrap().encode();
        let i = at % p.len();
        p[i] ^= x;
        if let Ok(got) = PosHistory::verify(&BlockRoots { from: 0, roots: &roots }, &k(7), &p) {
            let want: Vec<_> = states.iter().map(|s| s.get(&k(7)).copied()).collect();
            prop_assert_eq!(got, want);
        }
    }

    /// A valid proof with one byte changed is rejected or still proves the truth.
    #[test]
    fn flipped_bytes_never_prove_a_lie(at in 0usize..2000, x in 1u8..=255) {
        let (m, root, _) = honest(60, SMALL);
        let mut p = path_of(&m, &root, &k(7)).encode();
        let i = at % p.len();
        p[i] ^= x;
        if let Ok(v) = PosValue::verify(&root, &k(7), &p) {
            prop_assert_eq!(v, Some(val(7, 0)));
        }
    }
}

fn model_range(e: &[Entry], lo: &B256, hi: &B256) -> Vec<Entry> {
    e.iter()
        .filter(|(x, _)| x >= lo && x <= hi)
        .copied()
        .collect()
}

#[test]
fn honest_ranges_return_exactly_the_range() {
    for rule in [SplitRule::DEFAULT, SMALL] {
        let (m, root, e) = honest(400, rule);
        let cases = [
            (k(10), k(20)),
            (gap(10), gap(11)),
            (gap(10), k(11)),
            (B256::ZERO, k(3)),
            (k(390), B256::repeat_byte(0xff)),
            (B256::ZERO, B256::repeat_byte(0xff)),
            (gap(399), B256::repeat_byte(0xff)),
            (k(77), k(77)),
        ];
        for (lo, hi) in cases {
            let p = prove::range(&m, &root, &lo, &hi).unwrap().encode();
            let got = PosRange::verify(&root, &(lo, hi), &p).unwrap();
            let want = model_range(&e, &lo, &hi);
            assert_eq!(got, want);
            check_range_answer(&got, &want).unwrap();
        }
    }
    // The empty tree's range is empty.
    let mut m = MemNodes::default();
    let root = m.build(&SMALL, &[]);
    let p = prove::range(&m, &root, &k(1), &k(2)).unwrap().encode();
    assert_eq!(PosRange::verify(&root, &(k(1), k(2)), &p).unwrap(), vec![]);
}

/// The path (child indices) and entries of the first revealed leaf `pick` accepts.
fn find_leaf(t: &Tree, pick: &dyn Fn(&[Entry]) -> bool) -> Option<(Vec<usize>, Vec<Entry>)> {
    match t {
        Tree::Leaf(e) if pick(e) => Some((vec![], e.clone())),
        Tree::Inner { children, .. } => children.iter().enumerate().find_map(|(j, (_, c))| {
            find_leaf(c, pick).map(|(mut at, e)| {
                at.insert(0, j);
                (at, e)
            })
        }),
        _ => None,
    }
}

fn replace(t: &mut Tree, at: &[usize], with: Tree) {
    match at.split_first() {
        None => *t = with,
        Some((j, rest)) => match t {
            Tree::Inner { children, .. } => replace(&mut children[*j].1, rest, with),
            _ => panic!("no child there"),
        },
    }
}

/// Replaces the first revealed leaf `pick` accepts with `with(its entries)`.
fn swap_leaf(t: &mut Tree, pick: &dyn Fn(&[Entry]) -> bool, with: impl Fn(Vec<Entry>) -> Tree) {
    let (at, e) = find_leaf(t, pick).expect("a revealed leaf");
    replace(t, &at, with(e));
}

fn pruned(e: Vec<Entry>) -> Tree {
    Tree::Pruned(Node::leaf(e).hash())
}

fn holding(key: B256) -> impl Fn(&[Entry]) -> bool {
    move |e| e.iter().any(|(x, _)| *x == key)
}

#[test]
fn rejects_range_with_a_leaf_in_the_range_or_at_its_boundary_pruned() {
    // A leaf inside the range; the leaf holding the entry just before the range (and the
    // range's first keys): the intervals of both meet the range.
    let (m, root, _) = honest(300, SMALL);
    for (lo, hi, inside) in [(k(100), k(140), k(120)), (gap(101), k(140), k(101))] {
        let mut p = prove::range(&m, &root, &lo, &hi).unwrap();
        swap_leaf(&mut p.tree, &holding(inside), pruned);
        assert_eq!(
            code(PosRange::verify(&root, &(lo, hi), &p.encode())),
            ErrorCode::IncompleteRange
        );
    }
}

#[test]
fn rejects_range_with_a_leaf_outside_revealed() {
    let (m, root, _) = honest(300, SMALL);
    let (lo, hi) = (k(100), k(140));
    let mut p = prove::range(&m, &root, &lo, &hi).unwrap();
    // Reveal the leaf after the last one the range needs: a proof of a wider range checked
    // for this one.
    let wider = prove::range(&m, &root, &lo, &k(150)).unwrap();
    p.tree = wider.tree;
    assert_eq!(
        code(PosRange::verify(&root, &(lo, hi), &p.encode())),
        ErrorCode::ExtraResults
    );
}

#[test]
fn rejects_range_with_a_changed_entry_or_an_empty_query() {
    let (m, root, _) = honest(300, SMALL);
    let (lo, hi) = (k(100), k(140));
    let mut p = prove::range(&m, &root, &lo, &hi).unwrap();
    swap_leaf(&mut p.tree, &|_| true, |mut e| {
        e[0].1 = [5; 32];
        Tree::Leaf(e)
    });
    assert_eq!(
        code(PosRange::verify(&root, &(lo, hi), &p.encode())),
        ErrorCode::RootMismatch
    );
    let honest = prove::range(&m, &root, &lo, &hi).unwrap().encode();
    assert_eq!(
        code(PosRange::verify(&root, &(hi, lo), &honest)),
        ErrorCode::RangeMismatch
    );
}

#[test]
fn rejects_answers_that_differ_from_the_proven_range() {
    let proven = entries([1, 2, 3], 0);
    let mut extra = proven.clone();
    extra.push((k(4), val(4, 0)));
    assert_eq!(
        code(check_range_answer(&proven, &extra)),
        ErrorCode::ExtraResults
    );
    let mut inserted = proven.clone();
    inserted.insert(1, (gap(1), val(1, 0)));
    assert_eq!(
        code(check_range_answer(&proven, &inserted)),
        ErrorCode::ExtraResults
    );
    assert_eq!(
        code(check_range_answer(&proven, &proven[..2])),
        ErrorCode::IncompleteRange
    );
    let skipped = vec![proven[0], proven[2]];
    assert_eq!(
        code(check_range_answer(&proven, &skipped)),
        ErrorCode::IncompleteRange
    );
    let mut changed = proven.clone();
    changed[2].1 = [8; 32];
    assert_eq!(
        code(check_range_answer(&proven, &changed)),
        ErrorCode::ValueMismatch
    );
}

/// Two versions: 0..n, then some updated, some deleted, some inserted.
fn two_versions(rule: SplitRule) -> (MemNodes, B256, B256, Vec<Change>) {
    let old: BTreeMap<B256, Word> = entries(0..300, 0).into_iter().collect();
    let mut new = old.clone();
    for i in [5, 6, 150] {
        new.insert(k(i), val(i, 8));
    }
    for i in [40, 41, 42, 43, 44, 45, 46, 47, 48, 299] {
        new.remove(&k(i));
    }
    for i in [77, 200] {
        new.insert(gap(i), val(i, 4));
    }
    let mut m = MemNodes::default();
    let a = m.build(&rule, &old.clone().into_iter().collect::<Vec<_>>());
    let b = m.build(&rule, &new.clone().into_iter().collect::<Vec<_>>());
    let mut changes = Vec::new();
    let keys: BTreeMap<B256, ()> = old.keys().chain(new.keys()).map(|x| (*x, ())).collect();
    for key in keys.keys() {
        let (o, n) = (old.get(key).copied(), new.get(key).copied());
        if o != n {
            changes.push(Change {
                key: *key,
                old: o,
                new: n,
            });
        }
    }
    (m, a, b, changes)
}

#[test]
fn honest_diffs_list_every_change() {
    for rule in [SplitRule::DEFAULT, SMALL] {
        let (m, a, b, want) = two_versions(rule);
        let p = prove::diff(&m, &a, &b).unwrap();
        assert_eq!(PosDiff::verify(&(a, b), &(), &p.encode()).unwrap(), want);
        // Both directions, and no change against itself.
        let back = prove::diff(&m, &b, &a).unwrap().encode();
        assert_eq!(
            PosDiff::verify(&(b, a), &(), &back).unwrap().len(),
            want.len()
        );
        let same = prove::diff(&m, &a, &a).unwrap();
        assert_eq!(same.old, Tree::Pruned(a));
        assert_eq!(
            PosDiff::verify(&(a, a), &(), &same.encode()).unwrap(),
            vec![]
        );
    }
}

#[test]
fn rejects_diff_with_a_changed_subtree_pruned_in_one_version() {
    let (m, a, b, _) = two_versions(SMALL);
    let mut p = prove::diff(&m, &a, &b).unwrap();
    swap_leaf(&mut p.old, &|_| true, pruned);
    let err = PosDiff::verify(&(a, b), &(), &p.encode()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::UnmatchedSubtree);
    assert!(matches!(
        err,
        PosError::UnmatchedSubtree {
            side: Side::Old,
            ..
        }
    ));
}

#[test]
fn rejects_diff_revealing_a_subtree_both_versions_share() {
    let (m, a, b, _) = two_versions(SMALL);
    let mut p = prove::diff(&m, &a, &b).unwrap();
    // Reveal, in both trees, the first leaf they share.
    let mut shared = None;
    find_pruned(&p.old, &mut |h| {
        if shared.is_none() && m.0[h].is_leaf() {
            shared = Some(*h);
        }
    });
    let h = shared.expect("the versions share a leaf");
    let leaf = Tree::Leaf(m.0[&h].entries.clone());
    for t in [&mut p.old, &mut p.new] {
        reveal(t, &h, &leaf);
    }
    assert_eq!(
        code(PosDiff::verify(&(a, b), &(), &p.encode())),
        ErrorCode::ExtraResults
    );
}

fn find_pruned(t: &Tree, f: &mut dyn FnMut(&B256)) {
    match t {
        Tree::Pruned(h) => f(h),
        Tree::Inner { children, .. } => children.iter().for_each(|(_, c)| find_pruned(c, f)),
        Tree::Leaf(_) => {}
    }
}

fn reveal(t: &mut Tree, h: &B256, with: &Tree) {
    match t {
        Tree::Pruned(x) if x == h => *t = with.clone(),
        Tree::Inner { children, .. } => children.iter_mut().for_each(|(_, c)| reveal(c, h, with)),
        _ => {}
    }
}

#[test]
fn rejects_diff_against_other_roots() {
    let (m, a, b, _) = two_versions(SMALL);
    let p = prove::diff(&m, &a, &b).unwrap().encode();
    assert_eq!(
        code(PosDiff::verify(&(b, a), &(), &p)),
        ErrorCode::RootMismatch
    );
    let p = DiffProof {
        old: Tree::Pruned(a),
        new: Tree::Pruned(a),
    };
    assert_eq!(
        code(PosDiff::verify(&(a, b), &(), &p.encode())),
        ErrorCode::RootMismatch
    );
}

/// Twelve blocks: block b rewrites keys b·7 mod 200 and (b·13 + 1) mod 200 and deletes one.
fn versions(rule: SplitRule) -> (MemNodes, Vec<B256>, Vec<BTreeMap<B256, Word>>) {
    let mut state: BTreeMap<B256, Word> = entries(0..200, 0).into_iter().collect();
    let mut m = MemNodes::default();
    let (mut roots, mut states) = (Vec::new(), Vec::new());
    for b in 0..12u32 {
        state.insert(k(b * 7 % 200), val(b, 2));
        state.insert(k((b * 13 + 1) % 200), val(b, 6));
        state.remove(&k((b * 31 + 5) % 200));
        roots.push(m.build(&rule, &state.clone().into_iter().collect::<Vec<_>>()));
        states.push(state.clone());
    }
    (m, roots, states)
}

#[test]
fn honest_histories_give_the_value_at_every_block_and_share_nodes() {
    for rule in [SplitRule::DEFAULT, SMALL] {
        let (m, roots, states) = versions(rule);
        for key in [k(7), k(14), k(36), gap(3), k(5)] {
            let p = prove::history(&m, 10, &roots, &key).unwrap();
            let bytes = p.encode();
            let got = PosHistory::verify(
                &BlockRoots {
                    from: 10,
                    roots: &roots,
                },
                &key,
                &bytes,
            )
            .unwrap();
            let want: Vec<_> = states.iter().map(|s| s.get(&key).copied()).collect();
            assert_eq!(got, want);
            let separate: usize = roots
                .iter()
                .map(|r| path_of(&m, r, &key).encode().len())
                .sum();
            assert!(bytes.len() * 2 < separate, "{} vs {separate}", bytes.len());
        }
    }
}

fn history_case() -> (MemNodes, Vec<B256>, HistoryProof) {
    let (m, roots, _) = versions(SMALL);
    let p = prove::history(&m, 0, &roots, &k(7)).unwrap();
    (m, roots, p)
}

fn verify_h(roots: &[B256], p: &HistoryProof) -> Result<Vec<Option<Word>>, PosError> {
    PosHistory::verify(&BlockRoots { from: 0, roots }, &k(7), &p.encode())
}

#[test]
fn rejects_history_with_a_node_missing_or_of_another_version() {
    let (m, roots, mut p) = history_case();
    // The last item replaced by the leaf of a key in a block the proof does not cover.
    let (_, later, _) = versions(SMALL);
    let foreign = path_of(&m, &later[0], &k(150)).nodes.pop().unwrap();
    let last = p.items.len() - 1;
    p.items[last] = HistoryItem::Full(foreign);
    assert_eq!(code(verify_h(&roots, &p)), ErrorCode::TruncatedProof);
}

#[test]
fn rejects_history_with_an_unused_or_repeated_node() {
    let (m, roots, p) = history_case();
    let mut extra = p.clone();
    extra.items.push(HistoryItem::Full(
        path_of(&m, &roots[0], &k(150)).nodes.pop().unwrap(),
    ));
    assert_eq!(code(verify_h(&roots, &extra)), ErrorCode::UnusedNode);
    let mut twice = p.clone();
    twice.items.push(twice.items[0].clone());
    assert_eq!(code(verify_h(&roots, &twice)), ErrorCode::DuplicateNode);
}

#[test]
fn rejects_history_for_other_blocks() {
    let (_, roots, p) = history_case();
    assert_eq!(code(verify_h(&roots[1..], &p)), ErrorCode::RangeMismatch);
    let shifted = PosHistory::verify(
        &BlockRoots {
            from: 1,
            roots: &roots,
        },
        &k(7),
        &p.encode(),
    );
    assert_eq!(code(shifted), ErrorCode::RangeMismatch);
    // A root the proof does not cover in place of one it does: that block's path is missing.
    let mut other = roots.clone();
    other[11] = honest(50, SMALL).1;
    assert_eq!(code(verify_h(&other, &p)), ErrorCode::TruncatedProof);
}

#[test]
fn rejects_history_with_a_patched_value() {
    // Both kinds of patch: runs of entries, and new values under the same keys.
    let (_, roots, p) = history_case();
    let mut kinds = 0;
    for (i, item) in p.items.iter().enumerate() {
        let mut forged = p.clone();
        match (&mut forged.items[i], item) {
            (HistoryItem::Patch { splices, .. }, _) if !splices[0].insert.is_empty() => {
                splices[0].insert[0].1 = [0x55; 32];
                kinds |= 1;
            }
            (HistoryItem::Values { values, .. }, _) => {
                values[0].1 = [0x55; 32];
                kinds |= 2;
            }
            _ => continue,
        }
        // The patched node no longer hashes to what its parent holds: that block's path
        // lacks it.
        assert_eq!(code(verify_h(&roots, &forged)), ErrorCode::TruncatedProof);
    }
    assert_eq!(kinds, 3, "consecutive versions give both kinds of patch");
}

#[test]
fn range_and_diff_decoders_reject_trailing_bytes() {
    let (m, root, _) = honest(30, SMALL);
    let mut r = prove::range(&m, &root, &k(1), &k(3)).unwrap().encode();
    r.push(1);
    assert_eq!(
        code(PosRange::verify(&root, &(k(1), k(3)), &r)),
        ErrorCode::BadEncoding
    );
    let _ = RangeProof::decode(&r[..r.len() - 1]).unwrap();
}
