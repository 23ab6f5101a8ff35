//! COLE provenance proofs: a reference prover over in-memory structures, a naive history model,
//! and a forgery for every check the verifier makes.

use lightprov_types::{
    B256, ErrorCode, Rejection as _,
    cole::{Entry, HistoryProof, Part, Structure, StructureKind, Tree, hash},
};
use lightprov_verifier::cole::{History, Version, verify_history, verify_history_proof};
use proptest::prelude::*;

/// A structure of the reference state: sorted entries, an m-ary complete Merkle tree.
struct RefStructure {
    kind: StructureKind,
    entries: Vec<Entry>,
    /// levels[0] = leaf hashes, last = [root].
    levels: Vec<Vec<B256>>,
}

impl RefStructure {
    fn new(mut entries: Vec<Entry>, run: bool, m: u8) -> Self {
        entries.sort();
        let mut levels = vec![entries.iter().map(hash::leaf).collect::<Vec<_>>()];
        while levels.last().unwrap().len() > 1 {
            let next = levels
                .last()
                .unwrap()
                .chunks(usize::from(m))
                .map(hash::node)
                .collect();
            levels.push(next);
        }
        let kind = if run {
            StructureKind::Run {
                bloom: B256::repeat_byte(entries.len() as u8),
            }
        } else {
            StructureKind::MbTree
        };
        Self {
            kind,
            entries,
            levels,
        }
    }

    fn height(&self) -> u8 {
        (self.levels.len() - 1) as u8
    }

    fn digest(&self) -> B256 {
        let root = self.levels.last().unwrap()[0];
        let n = self.entries.len() as u64;
        match self.kind {
            StructureKind::MbTree => hash::mbtree_digest(n, self.height(), &root),
            StructureKind::Run { bloom } => hash::run_digest(n, self.height(), &root, &bloom),
        }
    }

    fn subtree(&self, level: usize, index: usize, a: usize, b: usize, m: usize) -> Tree {
        let span = m.pow(level as u32);
        let first = index * span;
        let last = (first + span - 1).min(self.entries.len() - 1);
        if last < a || first > b {
            return Tree::Hash(self.levels[level][index]);
        }
        if level == 0 {
            return Tree::Leaf(self.entries[index]);
        }
        let children = (index * m..(index * m + m).min(self.levels[level - 1].len()))
            .map(|c| self.subtree(level - 1, c, a, b, m))
            .collect();
        Tree::Node(children)
    }

    /// The partial tree for the range, and whether it holds the version in force at `lo`.
    fn prove(&self, key: B256, lo: u64, hi: u64, m: u8) -> (Structure, bool) {
        let p = self.entries.partition_point(|e| e.compound() < (key, lo));
        let r = self.entries.partition_point(|e| e.compound() <= (key, hi));
        let a = p.saturating_sub(1);
        let b = r.min(self.entries.len() - 1);
        let tree = self.subtree(self.height().into(), 0, a, b, m.into());
        let stops = self.entries[a..=b]
            .iter()
            .any(|e| e.key == key && e.block <= lo);
        let s = Structure {
            kind: self.kind,
            n: self.entries.len() as u64,
            height: self.height(),
            tree,
        };
        (s, stops)
    }
}

struct RefState {
    m: u8,
    structures: Vec<RefStructure>,
}

impl RefState {
    fn root(&self) -> B256 {
        let d: Vec<B256> = self.structures.iter().map(RefStructure::digest).collect();
        hash::state(self.m, d.iter())
    }

    fn prove(&self, key: B256, lo: u64, hi: u64) -> HistoryProof {
        let mut parts = Vec::new();
        let mut stopped = false;
        for s in &self.structures {
            if stopped {
                parts.push(Part::Skipped(s.digest()));
                continue;
            }
            let (p, stops) = s.prove(key, lo, hi, self.m);
            parts.push(Part::Searched(p));
            stopped = stops;
        }
        HistoryProof {
            key,
            lo,
            hi,
            fanout: self.m,
            parts,
        }
    }
}

fn key(i: u8) -> B256 {
    B256::repeat_byte(i)
}

fn word(v: u64) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[24..].copy_from_slice(&v.to_be_bytes());
    w
}

/// Writes as (block, key index, value); blocks non-decreasing. Splits them, oldest first, into
/// structures of the given sizes and lists them newest first, as COLE does.
fn build(writes: &[(u64, u8, u64)], sizes: &[usize], m: u8) -> RefState {
    let mut structures = Vec::new();
    let mut rest = writes;
    let mut i = 0;
    while !rest.is_empty() {
        let take = sizes[i % sizes.len()].min(rest.len()).max(1);
        let (chunk, tail) = rest.split_at(take);
        let entries = chunk
            .iter()
            .map(|&(b, k, v)| Entry {
                key: key(k),
                block: b,
                value: word(v),
            })
            .collect();
        structures.push(RefStructure::new(
            entries,
            !tail.is_empty() || i % 2 == 0,
            m,
        ));
        rest = tail;
        i += 1;
    }
    structures.reverse();
    RefState { m, structures }
}

/// The naive answer: versions of `k` in `lo..=hi` and the one in force at `lo`.
fn naive(writes: &[(u64, u8, u64)], k: u8, lo: u64, hi: u64) -> History {
    let mine: Vec<Version> = writes
        .iter()
        .filter(|w| w.1 == k)
        .map(|&(block, _, v)| Version {
            block,
            value: word(v),
        })
        .collect();
    History {
        versions: mine
            .iter()
            .filter(|v| (lo..=hi).contains(&v.block))
            .copied()
            .collect(),
        at_lo: mine.iter().rev().find(|v| v.block <= lo).copied(),
        searched: 0,
    }
}

/// A workload: per block, a few keys written once each.
fn sample_writes() -> Vec<(u64, u8, u64)> {
    let mut w = Vec::new();
    for block in 1..=60u64 {
        for k in [1u8, 3, 5, 7] {
            if (block + u64::from(k)) % (u64::from(k) + 1) == 0 || k == 5 {
                w.push((block, k, block * 100 + u64::from(k)));
            }
        }
    }
    w
}

fn sample() -> (Vec<(u64, u8, u64)>, RefState) {
    let w = sample_writes();
    let state = build(&w, &[7, 20, 33, 5], 4);
    (w, state)
}

fn check(
    state: &RefState,
    proof: &HistoryProof,
    k: u8,
    lo: u64,
    hi: u64,
) -> Result<History, ErrorCode> {
    verify_history(&state.root(), &key(k), lo, hi, &proof.encode()).map_err(|e| e.code())
}

#[test]
fn honest_proofs_verify_and_match_the_model() {
    let (w, state) = sample();
    for k in [1u8, 2, 3, 5, 7, 9] {
        for (lo, hi) in [
            (1, 1),
            (1, 60),
            (10, 17),
            (30, 30),
            (55, 80),
            (0, 0),
            (61, 200),
            (20, 51),
        ] {
            let proof = state.prove(key(k), lo, hi);
            let got = check(&state, &proof, k, lo, hi).unwrap();
            let want = naive(&w, k, lo, hi);
            assert_eq!(got.versions, want.versions, "key {k} {lo}..={hi}");
            assert_eq!(got.at_lo, want.at_lo, "key {k} {lo}..={hi}");
        }
    }
}

#[test]
fn early_stop_skips_older_structures() {
    let (_, state) = sample();
    let proof = state.prove(key(5), 58, 60);
    let skipped = proof
        .parts
        .iter()
        .filter(|p| matches!(p, Part::Skipped(_)))
        .count();
    assert!(
        skipped > 0,
        "a recent range must not search every structure"
    );
    let h = check(&state, &proof, 5, 58, 60).unwrap();
    assert_eq!(h.searched + skipped, state.structures.len());
}

#[test]
fn empty_state_proves_absence() {
    let state = RefState {
        m: 4,
        structures: vec![],
    };
    let proof = state.prove(key(1), 0, 10);
    let h = check(&state, &proof, 1, 0, 10).unwrap();
    assert!(h.versions.is_empty() && h.at_lo.is_none());
}

// ---- tampering helpers ----

fn searched(proof: &mut HistoryProof, i: usize) -> &mut Structure {
    match &mut proof.parts[i] {
        Part::Searched(s) => s,
        Part::Skipped(_) => panic!("part {i} is skipped"),
    }
}

/// Every revealed leaf of a tree, as mutable references, left to right.
fn leaves_mut(t: &mut Tree) -> Vec<&mut Tree> {
    match t {
        Tree::Leaf(_) => vec![t],
        Tree::Hash(_) => vec![],
        Tree::Node(c) => c.iter_mut().flat_map(leaves_mut).collect(),
    }
}

fn leaf_count(t: &Tree) -> usize {
    match t {
        Tree::Leaf(_) => 1,
        Tree::Hash(_) => 0,
        Tree::Node(c) => c.iter().map(leaf_count).sum(),
    }
}

/// The deepest inner node that holds at least two revealed leaves among its children.
fn node_with_leaves(t: &mut Tree) -> Option<&mut Vec<Tree>> {
    let Tree::Node(c) = t else { return None };
    let direct = c.iter().filter(|x| matches!(x, Tree::Leaf(_))).count();
    if direct >= 2 {
        return Some(c);
    }
    c.iter_mut().find_map(node_with_leaves)
}

/// A proof for key 5 over 20..=40 (many results, searched structures 0 and 1 at least).
fn rich() -> (RefState, HistoryProof) {
    let (_, state) = sample();
    let proof = state.prove(key(5), 20, 40);
    (state, proof)
}

fn expect(state: &RefState, proof: &HistoryProof, code: ErrorCode) {
    let got = verify_history_proof(&state.root(), &proof.key, 20, 40, proof).map(|_| ());
    assert_eq!(got.map_err(|e| e.code()), Err(code));
    // The same through the wire, when the encoding still decodes.
    if let Ok(decoded) = HistoryProof::decode(&proof.encode()) {
        let got = verify_history_proof(&state.root(), &proof.key, 20, 40, &decoded);
        assert_eq!(got.map(|_| ()).map_err(|e| e.code()), Err(code));
    }
}

fn first_searched_with_results(proof: &HistoryProof) -> usize {
    proof
        .parts
        .iter()
        .position(|p| matches!(p, Part::Searched(s) if leaf_count(&s.tree) >= 3))
        .unwrap()
}

/// [`rich`]'s proof with `forge` applied to its first searched structure that reveals three
/// entries or more.
fn rich_forged(forge: impl FnOnce(&mut Structure)) -> (RefState, HistoryProof) {
    let (state, mut proof) = rich();
    let i = first_searched_with_results(&proof);
    forge(searched(&mut proof, i));
    (state, proof)
}

/// Prunes revealed leaf `pick(n)` of `s`'s `n` to its hash (the tree keeps its root).
fn prune_leaf(s: &mut Structure, pick: impl FnOnce(usize) -> usize) {
    let mut leaves = leaves_mut(&mut s.tree);
    let i = pick(leaves.len());
    if let Tree::Leaf(e) = &*leaves[i] {
        let h = hash::leaf(e);
        *leaves[i] = Tree::Hash(h);
    }
}

/// The deepest inner node of `s` with two revealed leaves among its children, and the index of
/// the first of them.
fn leaf_pair(s: &mut Structure) -> (&mut Vec<Tree>, usize) {
    let node = node_with_leaves(&mut s.tree).unwrap();
    let a = node
        .iter()
        .position(|x| matches!(x, Tree::Leaf(_)))
        .unwrap();
    (node, a)
}

#[test]
fn forgery_extra_result_appended_to_a_node() {
    // Authors' forgery 1/2: results beyond what the tree authenticates.
    let mut code = ErrorCode::ResultsOutOfOrder;
    let (state, proof) = rich_forged(|s| {
        let (node, a) = leaf_pair(s);
        let Tree::Leaf(mut e) = node[a].clone() else {
            unreachable!()
        };
        e.block = 35;
        e.value = [0xee; 32];
        // A node already as wide as the fanout cannot take one more.
        if node.len() >= 4 {
            code = ErrorCode::BadShape;
        }
        node.push(Tree::Leaf(e));
    });
    expect(&state, &proof, code);
}

#[test]
fn forgery_fabricated_result_in_place_of_a_real_one() {
    let (state, proof) = rich_forged(|s| {
        if let Tree::Leaf(e) = leaves_mut(&mut s.tree).swap_remove(1) {
            e.value = [0x42; 32];
        }
    });
    expect(&state, &proof, ErrorCode::RootMismatch);
}

#[test]
fn forgery_hidden_versions_between_real_neighbours() {
    // Authors' forgery 3: a real predecessor and successor with every version between them
    // pruned away. The tree still hashes to the right root; the gap gives it away.
    // Prune a middle leaf to its hash (same root).
    let (state, proof) = rich_forged(|s| {
        prune_leaf(s, |n| {
            assert!(n >= 3);
            n / 2
        });
    });
    expect(&state, &proof, ErrorCode::IncompleteRange);
}

#[test]
fn forgery_missing_left_neighbour() {
    let (state, proof) = rich_forged(|s| prune_leaf(s, |_| 0));
    expect(&state, &proof, ErrorCode::IncompleteRange);
}

#[test]
fn forgery_missing_right_neighbour() {
    let (state, proof) = rich_forged(|s| prune_leaf(s, |n| n - 1));
    expect(&state, &proof, ErrorCode::IncompleteRange);
}

#[test]
fn forgery_reordered_results() {
    let (state, proof) = rich_forged(|s| {
        let (node, a) = leaf_pair(s);
        node.swap(a, a + 1);
    });
    expect(&state, &proof, ErrorCode::ResultsOutOfOrder);
}

#[test]
fn forgery_duplicated_result() {
    let (state, proof) = rich_forged(|s| {
        let (node, a) = leaf_pair(s);
        node[a + 1] = node[a].clone();
    });
    expect(&state, &proof, ErrorCode::ResultsOutOfOrder);
}

#[test]
fn forgery_extra_neighbour_entries() {
    // An honest proof of a wider range presented as the answer to a narrower one.
    let (state, _) = rich();
    let mut wide = state.prove(key(5), 18, 40);
    wide.lo = 20;
    expect(&state, &wide, ErrorCode::ExtraResults);
}

#[test]
fn forgery_run_proofs_swapped() {
    let (state, mut proof) = rich();
    let searched_parts: Vec<usize> = (0..proof.parts.len())
        .filter(|&i| matches!(proof.parts[i], Part::Searched(_)))
        .collect();
    assert!(
        searched_parts.len() >= 2,
        "the sample must search two structures"
    );
    proof.parts.swap(searched_parts[0], searched_parts[1]);
    let got = verify_history_proof(&state.root(), &key(5), 20, 40, &proof).map(|_| ());
    let code = got.unwrap_err().code();
    assert!(
        [
            ErrorCode::ResultsOutOfOrder,
            ErrorCode::WrongEarlyStop,
            ErrorCode::RootMismatch
        ]
        .contains(&code),
        "{code}"
    );
    // Two runs of equal shape swapped, with nothing for the key in either: only the root
    // catches it.
    let (_, state) = sample();
    let mut p = state.prove(key(2), 10, 12);
    p.parts.swap(1, 2);
    assert_eq!(
        verify_history_proof(&state.root(), &key(2), 10, 12, &p)
            .map(|_| ())
            .unwrap_err()
            .code(),
        ErrorCode::RootMismatch
    );
}

#[test]
fn forgery_wrong_early_stop() {
    let (state, mut proof) = rich();
    // Stop before the version in force at lo is found.
    let i = first_searched_with_results(&proof);
    proof.parts[i] = Part::Skipped(state.structures[i].digest());
    expect(&state, &proof, ErrorCode::WrongEarlyStop);
    // Search on after it was found.
    let (state, mut proof) = rich();
    let j = proof
        .parts
        .iter()
        .position(|p| matches!(p, Part::Skipped(_)))
        .expect("the sample stops early");
    let (s, _) = state.structures[j].prove(key(5), 20, 40, 4);
    proof.parts[j] = Part::Searched(s);
    expect(&state, &proof, ErrorCode::WrongEarlyStop);
}

#[test]
fn forgery_bloom_commitment_swapped() {
    let (state, mut proof) = rich();
    let i = proof
        .parts
        .iter()
        .position(|p| {
            matches!(
                p,
                Part::Searched(Structure {
                    kind: StructureKind::Run { .. },
                    ..
                })
            )
        })
        .unwrap();
    searched(&mut proof, i).kind = StructureKind::Run {
        bloom: B256::repeat_byte(0xbb),
    };
    expect(&state, &proof, ErrorCode::RootMismatch);
}

#[test]
fn forgery_other_key_and_range() {
    let (state, _) = rich();
    let other = state.prove(key(3), 20, 40);
    let got = verify_history_proof(&state.root(), &key(5), 20, 40, &other);
    assert_eq!(got.unwrap_err().code(), ErrorCode::KeyMismatch);
    let narrower = state.prove(key(5), 21, 40);
    let got = verify_history_proof(&state.root(), &key(5), 20, 40, &narrower);
    assert_eq!(got.unwrap_err().code(), ErrorCode::RangeMismatch);
    let got = verify_history_proof(&state.root(), &key(5), 40, 20, &narrower);
    assert_eq!(got.unwrap_err().code(), ErrorCode::RangeMismatch);
}

#[test]
fn forgery_wrong_fanout_and_shape() {
    let (state, mut proof) = rich();
    proof.fanout = 3;
    let got = verify_history_proof(&state.root(), &key(5), 20, 40, &proof);
    assert_eq!(got.unwrap_err().code(), ErrorCode::BadShape);
    // Fanout 2 does not even decode (no balanced B+-tree has it).
    let (state, mut proof) = rich();
    proof.fanout = 2;
    let got = verify_history(&state.root(), &key(5), 20, 40, &proof.encode());
    assert_eq!(got.unwrap_err().code(), ErrorCode::BadEncoding);

    let (state, proof) = rich_forged(|s| s.height += 1);
    expect(&state, &proof, ErrorCode::BadShape);

    // A leaf lifted one level up (a node replaced by one of its leaves).
    let (state, proof) = rich_forged(|s| {
        let Tree::Node(top) = &mut s.tree else {
            panic!()
        };
        let leaf = leaves_mut(&mut Tree::Node(top.clone()))[0].clone();
        top[0] = leaf;
    });
    expect(&state, &proof, ErrorCode::BadShape);

    // An inner node where entries belong.
    let (state, proof) = rich_forged(|s| {
        let first = leaves_mut(&mut s.tree).swap_remove(0);
        let l = first.clone();
        *first = Tree::Node(vec![l]);
    });
    expect(&state, &proof, ErrorCode::BadShape);

    // A size claim below the revealed entries.
    let (state, proof) = rich_forged(|s| {
        s.kind = StructureKind::MbTree;
        let revealed = leaf_count(&s.tree) as u64;
        s.n = revealed - 1;
    });
    expect(&state, &proof, ErrorCode::BadShape);
}

#[test]
fn forgery_dropped_or_added_structure_and_wrong_root() {
    let (state, mut proof) = rich();
    proof.parts.pop();
    expect(&state, &proof, ErrorCode::RootMismatch);
    let (state, mut proof) = rich();
    proof.parts.push(Part::Skipped(B256::ZERO));
    expect(&state, &proof, ErrorCode::RootMismatch);
    let (state, proof) = rich();
    let got = verify_history_proof(&B256::ZERO, &key(5), 20, 40, &proof);
    assert_eq!(got.unwrap_err().code(), ErrorCode::RootMismatch);
    let _ = state;
}

#[test]
fn forgery_older_structure_with_newer_version() {
    // Two structures that are each honest, listed in the wrong temporal order: the root was
    // built over that order too, so only the temporal check can catch the lie.
    let newer = RefStructure::new(
        vec![Entry {
            key: key(5),
            block: 10,
            value: word(1),
        }],
        false,
        4,
    );
    let older = RefStructure::new(
        vec![Entry {
            key: key(5),
            block: 12,
            value: word(2),
        }],
        true,
        4,
    );
    let state = RefState {
        m: 4,
        structures: vec![newer, older],
    };
    let proof = state.prove(key(5), 9, 20);
    let got = verify_history_proof(&state.root(), &key(5), 9, 20, &proof);
    assert_eq!(got.unwrap_err().code(), ErrorCode::ResultsOutOfOrder);
}

#[test]
fn non_canonical_and_malformed_encodings() {
    let (state, proof) = rich();
    let bytes = proof.encode();
    // Long form for the proof's own key: find a short-form leaf tag and rewrite it.
    let root = state.root();
    // Trailing byte.
    let mut t = bytes.clone();
    t.push(0);
    assert_eq!(
        verify_history(&root, &key(5), 20, 40, &t)
            .unwrap_err()
            .code(),
        ErrorCode::BadEncoding
    );
    // Every truncation.
    for len in 0..bytes.len() {
        let r = verify_history(&root, &key(5), 20, 40, &bytes[..len]);
        assert_eq!(
            r.unwrap_err().code(),
            ErrorCode::BadEncoding,
            "truncated to {len}"
        );
    }
    // A one-byte and a one-object proof (authors' forgery 4 panicked on these).
    assert_eq!(
        verify_history(&root, &key(5), 20, 40, &[1])
            .unwrap_err()
            .code(),
        ErrorCode::BadEncoding
    );
    // The long form of an own-key entry.
    let mut w = vec![1u8];
    w.extend_from_slice(key(5).as_slice());
    w.extend_from_slice(&20u64.to_be_bytes());
    w.extend_from_slice(&40u64.to_be_bytes());
    w.extend_from_slice(&[4, 0, 1, 0]);
    w.extend_from_slice(&1u64.to_be_bytes());
    w.push(0);
    w.push(0);
    w.extend_from_slice(key(5).as_slice());
    w.extend_from_slice(&20u64.to_be_bytes());
    w.extend_from_slice(&[0; 32]);
    let e = verify_history(&root, &key(5), 20, 40, &w).unwrap_err();
    assert_eq!(e.code(), ErrorCode::BadEncoding);
    assert!(e.to_string().contains("short form"), "{e}");
}

#[test]
fn every_byte_of_a_proof_is_bound() {
    let (state, proof) = rich();
    let bytes = proof.encode();
    let root = state.root();
    for i in 0..bytes.len() {
        let mut t = bytes.clone();
        t[i] ^= 0x01;
        assert!(
            verify_history(&root, &key(5), 20, 40, &t).is_err(),
            "flipping byte {i} of {} is accepted",
            bytes.len()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_states_match_the_model(
        blocks in prop::collection::vec(prop::collection::btree_set(0u8..12, 0..5), 1..70),
        sizes in prop::collection::vec(1usize..40, 1..5),
        m in 3u8..6,
        k in 0u8..13,
        lo in 0u64..80,
        len in 0u64..40,
    ) {
        let mut writes = Vec::new();
        for (b, keys) in blocks.iter().enumerate() {
            for &kk in keys {
                writes.push((b as u64, kk, (b as u64) * 1000 + u64::from(kk)));
            }
        }
        let state = build(&writes, &sizes, m);
        let hi = lo + len;
        let proof = state.prove(key(k), lo, hi);
        let got = verify_history(&state.root(), &key(k), lo, hi, &proof.encode()).unwrap();
        let want = naive(&writes, k, lo, hi);
        prop_assert_eq!(got.versions, want.versions);
        prop_assert_eq!(got.at_lo, want.at_lo);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = verify_history(&B256::ZERO, &key(1), 0, 10, &bytes);
    }

    #[test]
    fn mutated_proofs_are_rejected_or_harmless(flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4)) {
        let (state, proof) = rich();
        let mut bytes = proof.encode();
        for (i, x) in &flips {
            let at = i.index(bytes.len());
            bytes[at] ^= x;
        }
        prop_assert!(verify_history(&state.root(), &key(5), 20, 40, &bytes).is_err());
    }
}

#[test]
fn worked_example_of_docs_proofs_md_verifies() {
    let mut hex = String::from("01");
    hex += &"11".repeat(32);
    hex += "0000000000000002000000000000000304";
    hex += "0001";
    hex += "00000000000000000201";
    hex += "0302";
    hex += "010000000000000001";
    hex += &format!("{:064x}", 5);
    hex += "010000000000000003";
    hex += &format!("{:064x}", 7);
    let bytes = lightprov_types::hex::data(&format!("0x{hex}"), "proof").unwrap();
    assert_eq!(bytes.len(), 146);
    let root: B256 = "0x3c67a7aae3e67dee7beaef66fc77b527b6a34b8b6a59add481972af272bcd99e"
        .parse()
        .unwrap();
    let h = verify_history(&root, &key(0x11), 2, 3, &bytes).unwrap();
    assert_eq!(
        h.versions,
        vec![Version {
            block: 3,
            value: word(7)
        }]
    );
    assert_eq!(
        h.at_lo,
        Some(Version {
            block: 1,
            value: word(5)
        })
    );
}

/// Replaces the first pruned inner subtree with a node of its children's hashes: the same root,
/// the same answer, a second encoding (found by a review).
fn expand_first_inner_hash(
    t: &mut Tree,
    depth: usize,
    height: usize,
    rs: &RefStructure,
    idx: usize,
    m: usize,
) -> bool {
    match t {
        Tree::Hash(_) if depth < height => {
            let below = &rs.levels[height - depth - 1];
            *t = Tree::Node(
                (idx * m..(idx * m + m).min(below.len()))
                    .map(|c| Tree::Hash(below[c]))
                    .collect(),
            );
            true
        }
        Tree::Node(c) => c
            .iter_mut()
            .enumerate()
            .any(|(j, x)| expand_first_inner_hash(x, depth + 1, height, rs, idx * m + j, m)),
        _ => false,
    }
}

#[test]
fn a_node_revealing_nothing_is_a_second_encoding_and_refused() {
    let (state, proof) = rich();
    let mut forged = proof.clone();
    let mut done = false;
    for (i, p) in forged.parts.iter_mut().enumerate() {
        if let Part::Searched(s) = p
            && expand_first_inner_hash(&mut s.tree, 0, s.height.into(), &state.structures[i], 0, 4)
        {
            done = true;
            break;
        }
    }
    assert!(done);
    assert_ne!(proof.encode(), forged.encode());
    let e = verify_history(&state.root(), &key(5), 20, 40, &forged.encode()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::BadShape);
}

#[test]
fn states_of_many_structures_prove() {
    // As many structures as a proof may hold (MAX_PARTS) prove; one more is refused while
    // decoding, before any hashing.
    let state = |n: u64| RefState {
        m: 4,
        structures: (0..n)
            .rev()
            .map(|b| {
                RefStructure::new(
                    vec![Entry {
                        key: key(1),
                        block: b,
                        value: word(b),
                    }],
                    true,
                    4,
                )
            })
            .collect(),
    };
    let max = u64::from(lightprov_types::cole::MAX_PARTS);
    let at = state(max);
    let h = verify_history(&at.root(), &key(2), 0, 0, &at.prove(key(2), 0, 0).encode());
    assert!(h.unwrap().versions.is_empty());
    let over = state(max + 1);
    let e = verify_history(
        &over.root(),
        &key(2),
        0,
        0,
        &over.prove(key(2), 0, 0).encode(),
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::BadEncoding);
    assert_eq!(e.evidence().field, "proof.count");
}
