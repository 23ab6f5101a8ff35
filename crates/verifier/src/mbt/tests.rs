//! Every check of the three verifiers, each broken alone by a forgery that must fail with its own
//! code, against proofs from a naive in-memory tree (every node of every level computed).

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use alloc::{collections::BTreeMap, vec, vec::Vec};

use lightprov_types::{
    B256, ErrorCode, Word,
    mbt::{DiffNode, DiffProof, Entry, HistoryProof, MbtError, MbtParams, MbtProof, hash},
};
use proptest::prelude::*;

use super::*;

// ---- a naive tree: every slot of every level ----

#[derive(Clone, Debug)]
struct Model {
    p: MbtParams,
    kv: BTreeMap<B256, Word>,
    /// `nodes[l]`: the hashes of the `m^l` slots of level `l` (level `depth`: the buckets).
    nodes: Vec<Vec<B256>>,
}

impl Model {
    fn new(p: MbtParams, kv: &BTreeMap<B256, Word>) -> Self {
        let d = usize::from(p.depth());
        let m = usize::from(p.fanout());
        let slots = m.pow(d as u32);
        let mut nodes = vec![Vec::new(); d + 1];
        nodes[d] = (0..slots)
            .map(|i| hash::bucket(&p, i as u32, &Self::entries_of(&p, kv, i as u32)))
            .collect();
        for l in (0..d).rev() {
            nodes[l] = nodes[l + 1]
                .chunks(m)
                .map(|c| hash::inner(&p, l as u8, c.iter()))
                .collect();
        }
        Self {
            p,
            kv: kv.clone(),
            nodes,
        }
    }

    fn entries_of(p: &MbtParams, kv: &BTreeMap<B256, Word>, bucket: u32) -> Vec<Entry> {
        kv.iter()
            .filter(|(k, _)| bucket_of(p, k) == bucket)
            .map(|(k, v)| Entry { key: *k, value: *v })
            .collect()
    }

    fn entries(&self, bucket: u32) -> Vec<Entry> {
        Self::entries_of(&self.p, &self.kv, bucket)
    }

    fn root(&self) -> B256 {
        self.nodes[0][0]
    }

    /// The children of node `index` of level `l`.
    fn children(&self, l: usize, index: u64) -> Vec<B256> {
        let m = usize::from(self.p.fanout());
        let start = index as usize * m;
        self.nodes[l + 1][start..start + m].to_vec()
    }

    fn prove(&self, key: &B256) -> MbtProof {
        let bucket = bucket_of(&self.p, key);
        let levels = (0..self.p.depth())
            .map(|l| {
                let mut c = self.children(usize::from(l), self.p.node_index(bucket, l));
                c.remove(self.p.slot(bucket, l));
                c
            })
            .collect();
        MbtProof {
            params: self.p,
            key: *key,
            entries: self.entries(bucket),
            levels,
        }
    }

    fn diff(&self, new: &Self) -> DiffProof {
        DiffProof {
            params: self.p,
            root: self.diff_node(new, 0, 0),
        }
    }

    fn diff_node(&self, new: &Self, l: usize, index: u64) -> DiffNode {
        let (a, b) = (self.nodes[l][index as usize], new.nodes[l][index as usize]);
        if a == b {
            return DiffNode::Same(a);
        }
        if l == usize::from(self.p.depth()) {
            return DiffNode::Bucket {
                old: self.entries(index as u32),
                new: new.entries(index as u32),
            };
        }
        let m = u64::from(self.p.fanout());
        DiffNode::Inner(
            (0..m)
                .map(|j| self.diff_node(new, l + 1, index * m + j))
                .collect(),
        )
    }
}

/// The history proof of `key` over `models` (blocks `lo..`): each block's path, nodes once.
fn history(models: &[Model], key: &B256, lo: u64) -> HistoryProof {
    let p = models[0].p;
    let d = usize::from(p.depth());
    let empty = hash::empty_levels(&p);
    let bucket = bucket_of(&p, key);
    let mut levels: Vec<BTreeMap<B256, Vec<B256>>> = vec![BTreeMap::new(); d];
    let mut buckets: BTreeMap<B256, Vec<Entry>> = BTreeMap::new();
    for m in models {
        for l in 0..=d {
            let h = m.nodes[l][p.node_index(bucket, l as u8) as usize];
            if h == empty[l] {
                break;
            }
            if l == d {
                buckets.insert(h, m.entries(bucket));
            } else {
                levels[l].insert(h, m.children(l, p.node_index(bucket, l as u8)));
            }
        }
    }
    HistoryProof {
        params: p,
        key: *key,
        lo,
        hi: lo + models.len() as u64 - 1,
        levels: levels
            .into_iter()
            .map(|s| s.into_values().collect())
            .collect(),
        buckets: buckets.into_values().collect(),
    }
}

fn params(b: u8, m: u8) -> MbtParams {
    MbtParams::new(b, m).unwrap()
}

fn word(v: u64) -> Word {
    let mut w = [0u8; 32];
    w[24..].copy_from_slice(&(v + 1).to_be_bytes());
    w
}

fn key(i: u64) -> B256 {
    B256::left_padding_from(&i.to_be_bytes())
}

/// The `n`-th key (of the `key(i)` sequence) whose bucket is `bucket`.
fn key_in_bucket(p: &MbtParams, bucket: u32, n: usize) -> B256 {
    (0..)
        .map(key)
        .filter(|k| bucket_of(p, k) == bucket)
        .nth(n)
        .unwrap()
}

fn state(n: u64, salt: u64) -> BTreeMap<B256, Word> {
    (0..n).map(|i| (key(i), word(i * 7 + salt))).collect()
}

fn code(e: &MbtError) -> ErrorCode {
    e.code()
}

fn check(p: &MbtParams, m: &Model, proof: &MbtProof) -> Result<Option<Word>, MbtError> {
    verify(p, &m.root(), &proof.key, &proof.encode())
}

/// The code [`check`] rejects a proof with (it must reject it).
fn rejection(p: &MbtParams, m: &Model, proof: &MbtProof) -> ErrorCode {
    code(&check(p, m, proof).unwrap_err())
}

// ---- value proofs ----

#[test]
fn accepts_presence_and_absence_under_several_parameters() {
    for (b, f, n) in [(1, 2, 5), (4, 3, 40), (5, 4, 100), (3, 16, 9), (6, 2, 30)] {
        let p = params(b, f);
        let m = Model::new(p, &state(n, 0));
        for i in 0..n + 20 {
            let k = key(i);
            let got = check(&p, &m, &m.prove(&k)).unwrap();
            assert_eq!(got, m.kv.get(&k).copied(), "b={b} m={f} key {i}");
        }
    }
}

#[test]
fn the_empty_tree_proves_absence_and_nothing_else() {
    let p = params(4, 3);
    let empty = Model::new(p, &BTreeMap::new());
    assert_eq!(empty.root(), hash::empty_levels(&p)[0]);
    assert_eq!(check(&p, &empty, &empty.prove(&key(1))).unwrap(), None);
    // "The default hash on failure": a verifier that answered the empty tree's root (or a zero
    // root) when a check failed would accept these against an empty state. Ours errs.
    let full = Model::new(p, &state(20, 0));
    let forged = full.prove(&key(1));
    assert!(forged.entries.iter().any(|e| e.key == key(1)));
    for root in [empty.root(), B256::ZERO] {
        let e = verify(&p, &root, &key(1), &forged.encode()).unwrap_err();
        assert_eq!(code(&e), ErrorCode::RootMismatch);
        let e = verify(&p, &root, &key(1), &[]).unwrap_err();
        assert_eq!(code(&e), ErrorCode::BadEncoding);
    }
}

#[test]
fn rejects_value_changed() {
    let p = params(4, 3);
    let m = Model::new(p, &state(40, 0));
    let mut proof = m.prove(&key(3));
    let e = proof.entries.iter_mut().find(|e| e.key == key(3)).unwrap();
    e.value[0] ^= 1;
    assert_eq!(rejection(&p, &m, &proof), ErrorCode::RootMismatch);
}

#[test]
fn rejects_entry_dropped_to_claim_absence() {
    let p = params(4, 3);
    let m = Model::new(p, &state(40, 0));
    let mut proof = m.prove(&key(3));
    proof.entries.retain(|e| e.key != key(3));
    assert_eq!(rejection(&p, &m, &proof), ErrorCode::RootMismatch);
}

/// Fabric 0.6's inner hash: the concatenation of the non-empty children only, a lone child
/// passed up unchanged. Positions are not bound.
fn fabric_inner(children: &[Option<B256>]) -> Option<B256> {
    let present: Vec<&B256> = children.iter().flatten().collect();
    match present.as_slice() {
        [] => None,
        [one] => Some(**one),
        many => Some(hash::inner(&params(1, 2), 0, many.iter().copied())),
    }
}

#[test]
fn rejects_bucket_hash_moved_to_empty_slot() {
    // One key: its bucket is the only non-empty one, its neighbour in the same node is empty.
    let p = params(3, 2);
    let k = key_in_bucket(&p, 5, 0);
    let m = Model::new(p, &BTreeMap::from([(k, word(1))]));
    let honest = m.prove(&k);
    let bucket_hash = m.nodes[3][5];
    // Forged absence: the bucket claimed empty, its hash moved into the neighbour's slot (4).
    let mut forged = honest.clone();
    forged.entries.clear();
    assert_eq!(forged.levels[2], vec![hash::empty_bucket(&p)]);
    forged.levels[2] = vec![bucket_hash];
    // Under Fabric's hashing both proofs give the same root: the forgery would be accepted.
    let honest_parent = fabric_inner(&[None, Some(bucket_hash)]);
    let forged_parent = fabric_inner(&[Some(bucket_hash), None]);
    assert_eq!(honest_parent, forged_parent);
    // Ours binds slots: the forged absence fails at the root.
    assert_eq!(check(&p, &m, &honest).unwrap(), Some(word(1)));
    assert_eq!(rejection(&p, &m, &forged), ErrorCode::RootMismatch);
}

#[test]
fn rejects_prover_chosen_child_index() {
    // The honest node holds the path at slot s; the forgery lists the siblings as if it were at
    // another slot (the real path child left in, another one taken out).
    let p = params(4, 3);
    let m = Model::new(p, &state(40, 0));
    let k = key(7);
    let bucket = bucket_of(&p, &k);
    for l in 0..p.depth() {
        let mut proof = m.prove(&k);
        let full = m.children(usize::from(l), p.node_index(bucket, l));
        let s = p.slot(bucket, l);
        let other = (s + 1) % 3;
        let mut siblings = full.clone();
        siblings.remove(other);
        proof.levels[usize::from(l)] = siblings;
        assert_eq!(
            rejection(&p, &m, &proof),
            ErrorCode::RootMismatch,
            "level {l}"
        );
    }
}

#[test]
fn rejects_bucket_hashed_without_its_index_or_count() {
    // A prover hashing buckets as Fabric does (no index) or without the entry count builds a
    // tree whose honest-looking proof fails against the root our hash gives, and vice versa.
    let p = params(3, 2);
    let k = key(11);
    let m = Model::new(p, &state(12, 0));
    let bucket = bucket_of(&p, &k);
    let entries = m.entries(bucket);
    let preimage = |with_index: bool, with_count: bool| {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update([hash::BUCKET, p.bucket_bits(), p.fanout()]);
        if with_index {
            h.update(bucket.to_be_bytes());
        }
        if with_count {
            h.update((entries.len() as u32).to_be_bytes());
        }
        for e in &entries {
            h.update(e.key);
            h.update(e.value);
        }
        B256::from(<[u8; 32]>::from(h.finalize()))
    };
    assert_eq!(preimage(true, true), m.nodes[3][bucket as usize]);
    for (with_index, with_count) in [(false, true), (true, false)] {
        let mut other = m.clone();
        other.nodes[3][bucket as usize] = preimage(with_index, with_count);
        for l in (0..3).rev() {
            other.nodes[l] = other.nodes[l + 1]
                .chunks(2)
                .map(|c| hash::inner(&p, l as u8, c.iter()))
                .collect();
        }
        let e = check(&p, &other, &other.prove(&k)).unwrap_err();
        assert_eq!(code(&e), ErrorCode::RootMismatch);
    }
}

#[test]
fn rejects_single_child_passed_through() {
    // Fabric passes a lone child's hash up: with one key the root would be its bucket's hash and
    // a proof would need no level. Ours has the tree's depth of levels, always.
    let p = params(3, 2);
    let k = key(1);
    let m = Model::new(p, &BTreeMap::from([(k, word(1))]));
    let bucket_hash = m.nodes[3][bucket_of(&p, &k) as usize];
    let mut proof = m.prove(&k);
    proof.levels.clear();
    let e = verify(&p, &bucket_hash, &k, &proof.encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::TruncatedProof);
    assert_eq!(
        e,
        MbtError::TooFewLevels {
            expected: 3,
            found: 0
        }
    );
    // And with the levels kept, the root a pass-through would give is not ours.
    let e = verify(&p, &bucket_hash, &k, &m.prove(&k).encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::RootMismatch);
}

/// A model whose key `k`'s bucket holds at least three entries.
fn crowded(p: MbtParams, k: &B256) -> Model {
    let bucket = bucket_of(&p, k);
    let mut kv = state(20, 0);
    for n in 0..3 {
        kv.insert(key_in_bucket(&p, bucket, n), word(n as u64));
    }
    kv.insert(*k, word(99));
    Model::new(p, &kv)
}

#[test]
fn rejects_unsorted_and_duplicated_entries() {
    let p = params(4, 3);
    let k = key(2);
    let m = crowded(p, &k);
    let mut swapped = m.prove(&k);
    assert!(swapped.entries.len() >= 3);
    swapped.entries.swap(0, 1);
    let e = check(&p, &m, &swapped).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ResultsOutOfOrder);
    assert_eq!(
        e,
        MbtError::EntriesOutOfOrder {
            field: "entries[1]".into()
        }
    );
    let mut doubled = m.prove(&k);
    let first = doubled.entries[0];
    doubled.entries.insert(1, first);
    let e = check(&p, &m, &doubled).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ResultsOutOfOrder);
}

#[test]
fn rejects_entry_of_another_bucket() {
    let p = params(4, 3);
    let k = key(2);
    let m = crowded(p, &k);
    let mut proof = m.prove(&k);
    let bucket = bucket_of(&p, &k);
    let stranger = (0..).map(key).find(|x| bucket_of(&p, x) != bucket).unwrap();
    proof.entries.push(Entry {
        key: stranger,
        value: word(1),
    });
    proof.entries.sort();
    let e = check(&p, &m, &proof).unwrap_err();
    assert_eq!(code(&e), ErrorCode::WrongBucket);
    let MbtError::ForeignEntry {
        expected, found, ..
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!((expected, found), (bucket, bucket_of(&p, &stranger)));
}

#[test]
fn rejects_levels_dropped_or_added() {
    let p = params(4, 3);
    let m = Model::new(p, &state(30, 0));
    let mut short = m.prove(&key(4));
    short.levels.remove(0);
    let e = check(&p, &m, &short).unwrap_err();
    assert_eq!(code(&e), ErrorCode::TruncatedProof);
    let mut long = m.prove(&key(4));
    long.levels.push(vec![B256::ZERO; 2]);
    let e = check(&p, &m, &long).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ExtraNodes);
}

#[test]
fn rejects_proof_under_other_parameters() {
    let p = params(4, 3);
    let kv = state(30, 0);
    let m = Model::new(p, &kv);
    for (b, f) in [(4, 2), (5, 3), (3, 3)] {
        let other = Model::new(params(b, f), &kv);
        let proof = other.prove(&key(4));
        let e = check(&p, &m, &proof).unwrap_err();
        assert_eq!(code(&e), ErrorCode::ParamsMismatch, "b={b} m={f}");
        // Even against its own root under the trusted parameters' name, the hashes bind (b, m):
        // relabelled, the proof fails on its levels or its root.
        let relabelled = MbtProof { params: p, ..proof };
        let e = verify(&p, &other.root(), &key(4), &relabelled.encode()).unwrap_err();
        assert!(
            matches!(
                code(&e),
                ErrorCode::RootMismatch
                    | ErrorCode::TruncatedProof
                    | ErrorCode::ExtraNodes
                    | ErrorCode::WrongBucket
                    | ErrorCode::BadEncoding
            ),
            "{e:?}"
        );
    }
}

#[test]
fn rejects_other_key_and_other_claimed_value() {
    let p = params(4, 3);
    let m = Model::new(p, &state(30, 0));
    let proof = m.prove(&key(4)).encode();
    let e = verify(&p, &m.root(), &key(5), &proof).unwrap_err();
    assert_eq!(code(&e), ErrorCode::KeyMismatch);
    let v = m.kv[&key(4)];
    verify_value(&p, &m.root(), &key(4), Some(&v), &proof).unwrap();
    for claimed in [Some(word(1000)), None] {
        let e = verify_value(&p, &m.root(), &key(4), claimed.as_ref(), &proof).unwrap_err();
        assert_eq!(code(&e), ErrorCode::ValueMismatch);
    }
    let absent = m.prove(&key(500)).encode();
    verify_value(&p, &m.root(), &key(500), None, &absent).unwrap();
    let e = verify_value(&p, &m.root(), &key(500), Some(&word(1)), &absent).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ValueMismatch);
}

#[test]
fn rejects_truncated_and_trailing_bytes() {
    let p = params(4, 3);
    let m = Model::new(p, &state(30, 0));
    let bytes = m.prove(&key(4)).encode();
    for cut in [1, 35, bytes.len() - 1] {
        let e = verify(&p, &m.root(), &key(4), &bytes[..cut]).unwrap_err();
        assert_eq!(code(&e), ErrorCode::BadEncoding);
    }
    let mut long = bytes.clone();
    long.push(0);
    let e = verify(&p, &m.root(), &key(4), &long).unwrap_err();
    assert_eq!(code(&e), ErrorCode::BadEncoding);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_bytes_never_panic_and_never_verify(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let p = params(4, 3);
        let root = B256::repeat_byte(0x5a);
        prop_assert!(verify(&p, &root, &key(1), &bytes).is_err());
        let t = DiffTrusted { params: p, old_root: root, new_root: root };
        // A diff between equal roots may be "nothing changed" only if it hashes to the root.
        prop_assert!(verify_diff(&t, &bytes).map_or(true, |c| c.is_empty()));
        let ht = HistoryTrusted { params: p, roots: &[root] };
        let q = HistoryQuery { key: key(1), lo: 0, hi: 0 };
        prop_assert!(verify_history(&ht, &q, &bytes).is_err());
    }

    #[test]
    fn flipping_any_byte_of_a_proof_is_rejected(at in any::<prop::sample::Index>(), bit in 0u8..8) {
        let p = params(4, 3);
        let m = Model::new(p, &state(30, 0));
        let mut bytes = m.prove(&key(4)).encode();
        let i = at.index(bytes.len());
        bytes[i] ^= 1 << bit;
        prop_assert!(verify(&p, &m.root(), &key(4), &bytes).is_err());
    }
}

// ---- diff proofs ----

proptest! {
    // Each case builds a few small trees: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn flipping_any_bit_of_a_diff_or_history_proof_is_rejected(
        at in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        let p = params(4, 3);
        let (a, b) = two_versions(p);
        let mut bytes = a.diff(&b).encode();
        let i = at.index(bytes.len());
        bytes[i] ^= 1 << bit;
        prop_assert!(verify_diff(&diff_trusted(&a, &b), &bytes).is_err());
        let models = versions(p, 5);
        let roots: Vec<B256> = models.iter().map(Model::root).collect();
        let mut bytes = history(&models, &key(5), 0).encode();
        let i = at.index(bytes.len());
        bytes[i] ^= 1 << bit;
        let t = HistoryTrusted { params: p, roots: &roots };
        let q = HistoryQuery { key: key(5), lo: 0, hi: 4 };
        prop_assert!(verify_history(&t, &q, &bytes).is_err());
    }
}

fn diff_trusted(a: &Model, b: &Model) -> DiffTrusted {
    DiffTrusted {
        params: a.p,
        old_root: a.root(),
        new_root: b.root(),
    }
}

/// Two states: `b` updates, deletes and inserts some keys of `a`.
fn two_versions(p: MbtParams) -> (Model, Model) {
    let old = state(40, 0);
    let mut new = old.clone();
    new.insert(key(3), word(1000));
    new.remove(&key(9));
    new.insert(key(77), word(5));
    (Model::new(p, &old), Model::new(p, &new))
}

#[test]
fn diff_proves_every_change_and_nothing_else() {
    let p = params(4, 3);
    let (a, b) = two_versions(p);
    let mut changes = verify_diff(&diff_trusted(&a, &b), &a.diff(&b).encode()).unwrap();
    changes.sort_by_key(|c| c.key);
    let want = vec![
        Change {
            key: key(3),
            old: word(21),
            new: word(1000),
        },
        Change {
            key: key(9),
            old: word(63),
            new: [0; 32],
        },
        Change {
            key: key(77),
            old: [0; 32],
            new: word(5),
        },
    ];
    assert_eq!(changes, want);
    // Equal roots: one hash, no change.
    let same = a.diff(&a);
    assert!(matches!(same.root, DiffNode::Same(_)));
    assert!(
        verify_diff(&diff_trusted(&a, &a), &same.encode())
            .unwrap()
            .is_empty()
    );
}

/// The first differing bucket of a diff proof.
fn first_bucket(n: &mut DiffNode) -> Option<&mut DiffNode> {
    match n {
        DiffNode::Same(_) => None,
        DiffNode::Bucket { .. } => Some(n),
        DiffNode::Inner(c) => c.iter_mut().find_map(first_bucket),
    }
}

/// Sends the first differing bucket of `n` (node `index` of level `l`) as the same subtree (its
/// old hash), and collapses every node above it that then differs in nothing, as a prover hiding
/// that change would.
fn hide_first_change(old: &Model, n: &mut DiffNode, l: usize, index: u64) -> bool {
    let hidden = match n {
        DiffNode::Same(_) => return false,
        DiffNode::Bucket { .. } => true,
        DiffNode::Inner(children) => {
            let m = u64::from(old.p.fanout());
            let Some(found) = children.iter_mut().enumerate().find_map(|(j, c)| {
                hide_first_change(old, c, l + 1, index * m + j as u64).then_some(())
            }) else {
                return false;
            };
            let () = found;
            children.iter().all(|c| matches!(c, DiffNode::Same(_)))
        }
    };
    if hidden {
        *n = DiffNode::Same(old.nodes[l][index as usize]);
    }
    true
}

#[test]
fn diff_rejects_a_change_omitted() {
    let p = params(4, 3);
    let (a, b) = two_versions(p);
    let mut proof = a.diff(&b);
    assert!(hide_first_change(&a, &mut proof.root, 0, 0));
    let e = verify_diff(&diff_trusted(&a, &b), &proof.encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::RootMismatch);
    assert!(matches!(e, MbtError::RootMismatch { ref field, .. } if field == "newRoot"));
    // The only change hidden: the whole tree is "the same".
    let mut kv = a.kv.clone();
    kv.insert(key(1), word(12345));
    let one = Model::new(p, &kv);
    let mut proof = a.diff(&one);
    assert!(hide_first_change(&a, &mut proof.root, 0, 0));
    assert_eq!(proof.root, DiffNode::Same(a.root()));
    let e = verify_diff(&diff_trusted(&a, &one), &proof.encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::RootMismatch);
}

#[test]
fn diff_rejects_a_change_added_or_old_and_new_swapped() {
    let p = params(4, 3);
    let (a, b) = two_versions(p);
    let t = diff_trusted(&a, &b);
    let mut added = a.diff(&b);
    let DiffNode::Bucket { new, .. } = first_bucket(&mut added.root).unwrap() else {
        unreachable!()
    };
    let bucket = bucket_of(&p, &new[0].key);
    let extra = (0..4)
        .map(|n| key_in_bucket(&p, bucket, n))
        .find(|k| new.iter().all(|e| e.key != *k))
        .unwrap();
    new.push(Entry {
        key: extra,
        value: word(1),
    });
    new.sort();
    let e = verify_diff(&t, &added.encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::RootMismatch);

    let mut swapped = a.diff(&b);
    let DiffNode::Bucket { old, new } = first_bucket(&mut swapped.root).unwrap() else {
        unreachable!()
    };
    core::mem::swap(old, new);
    let e = verify_diff(&t, &swapped.encode()).unwrap_err();
    assert!(matches!(e, MbtError::RootMismatch { ref field, .. } if field == "oldRoot"));
}

/// Replaces the first same-subtree hash of `n` (node `index` of level `l`) that `other` holds
/// differently by `other`'s.
fn graft(other: &Model, n: &mut DiffNode, l: usize, index: u64) -> bool {
    match n {
        DiffNode::Same(h) if *h != other.nodes[l][index as usize] => {
            *h = other.nodes[l][index as usize];
            true
        }
        DiffNode::Same(_) | DiffNode::Bucket { .. } => false,
        DiffNode::Inner(children) => {
            let m = u64::from(other.p.fanout());
            children
                .iter_mut()
                .enumerate()
                .any(|(j, c)| graft(other, c, l + 1, index * m + j as u64))
        }
    }
}

#[test]
fn diff_rejects_a_node_of_another_version() {
    let p = params(4, 3);
    let (a, b) = two_versions(p);
    let c = Model::new(p, &state(41, 3));
    let mut proof = a.diff(&b);
    assert!(graft(&c, &mut proof.root, 0, 0));
    let e = verify_diff(&diff_trusted(&a, &b), &proof.encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::RootMismatch);
}

#[test]
fn diff_checks_bucket_entries_and_parameters() {
    let p = params(4, 3);
    let k = key(2);
    let a = crowded(p, &k);
    let mut kv = a.kv.clone();
    kv.insert(k, word(5000));
    let b = Model::new(p, &kv);
    let t = diff_trusted(&a, &b);
    let mut unsorted = a.diff(&b);
    let DiffNode::Bucket { new, .. } = first_bucket(&mut unsorted.root).unwrap() else {
        unreachable!()
    };
    new.swap(0, 1);
    let e = verify_diff(&t, &unsorted.encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ResultsOutOfOrder);
    let mut foreign = a.diff(&b);
    let DiffNode::Bucket { old, .. } = first_bucket(&mut foreign.root).unwrap() else {
        unreachable!()
    };
    let bucket = bucket_of(&p, &k);
    let stranger = (0..).map(key).find(|x| bucket_of(&p, x) != bucket).unwrap();
    old.push(Entry {
        key: stranger,
        value: word(1),
    });
    old.sort();
    let e = verify_diff(&t, &foreign.encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::WrongBucket);
    let (a2, b2) = (
        Model::new(params(4, 2), &a.kv),
        Model::new(params(4, 2), &b.kv),
    );
    let e = verify_diff(&t, &a2.diff(&b2).encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ParamsMismatch);
}

// ---- history proofs ----

/// `blocks` versions: each block rewrites a few keys; key 5 changes every fourth block.
fn versions(p: MbtParams, blocks: u64) -> Vec<Model> {
    let mut kv = state(60, 0);
    (0..blocks)
        .map(|b| {
            kv.insert(key(100 + b % 7), word(b));
            if b % 4 == 0 {
                kv.insert(key(5), word(10_000 + b));
            }
            if b % 9 == 4 {
                kv.remove(&key(5));
            }
            Model::new(p, &kv)
        })
        .collect()
}

fn history_check(
    models: &[Model],
    proof: &HistoryProof,
    key: &B256,
    lo: u64,
) -> Result<History, MbtError> {
    let roots: Vec<B256> = models.iter().map(Model::root).collect();
    let t = HistoryTrusted {
        params: models[0].p,
        roots: &roots,
    };
    let q = HistoryQuery {
        key: *key,
        lo,
        hi: lo + models.len() as u64 - 1,
    };
    verify_history(&t, &q, &proof.encode())
}

#[test]
fn history_proves_the_value_at_every_block_and_shares_nodes() {
    let p = params(4, 3);
    let models = versions(p, 32);
    for k in [key(5), key(101), key(999)] {
        let proof = history(&models, &k, 10);
        let h = history_check(&models, &proof, &k, 10).unwrap();
        let want: Vec<Word> = models
            .iter()
            .map(|m| m.kv.get(&k).copied().unwrap_or([0; 32]))
            .collect();
        assert_eq!(h.values, want);
        assert_eq!(h.versions().first().map(|v| v.0), Some(10));
        // One proof of the range is smaller than one value proof per block.
        let separate: usize = models.iter().map(|m| m.prove(&k).encode().len()).sum();
        assert!(proof.encode().len() < separate);
    }
}

#[test]
fn history_over_an_empty_state_needs_no_node() {
    let p = params(4, 3);
    let models = vec![Model::new(p, &BTreeMap::new()); 3];
    let proof = history(&models, &key(1), 0);
    assert!(proof.levels.iter().all(Vec::is_empty) && proof.buckets.is_empty());
    let h = history_check(&models, &proof, &key(1), 0).unwrap();
    assert_eq!(h.values, vec![[0; 32]; 3]);
}

#[test]
fn history_rejects_a_node_of_another_version() {
    let p = params(4, 3);
    let all = versions(p, 40);
    let (inside, outside) = all.split_at(20);
    let k = key(5);
    let mut proof = history(inside, &k, 0);
    let foreign = history(outside, &k, 20);
    let stale = foreign
        .buckets
        .iter()
        .find(|b| !proof.buckets.contains(b))
        .unwrap()
        .clone();
    proof.buckets[0] = stale;
    proof
        .buckets
        .sort_by_key(|b| hash::bucket(&p, bucket_of(&p, &k), b));
    let e = history_check(inside, &proof, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::NodeHashMismatch);
}

#[test]
fn history_rejects_a_root_node_dropped_or_a_block_missing() {
    let p = params(4, 3);
    let models = versions(p, 12);
    let k = key(5);
    let mut dropped = history(&models, &k, 0);
    dropped.levels[0].remove(3);
    let e = history_check(&models, &dropped, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::NodeHashMismatch);
    let short = history(&models[..11], &k, 0);
    let e = history_check(&models, &short, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::RangeMismatch);
    // Roots that do not cover the asked range.
    let full = history(&models, &k, 0);
    let roots: Vec<B256> = models[..11].iter().map(Model::root).collect();
    let t = HistoryTrusted {
        params: p,
        roots: &roots,
    };
    let q = HistoryQuery {
        key: k,
        lo: 0,
        hi: 11,
    };
    let e = verify_history(&t, &q, &full.encode()).unwrap_err();
    assert_eq!(code(&e), ErrorCode::RangeMismatch);
}

#[test]
fn history_rejects_duplicated_reordered_and_unused_nodes() {
    let p = params(4, 3);
    let models = versions(p, 12);
    let k = key(5);
    let honest = history(&models, &k, 0);
    let mut dup = honest.clone();
    // Into the level with the fewest nodes (a level never holds more nodes than blocks).
    let l = (0..dup.levels.len())
        .filter(|l| dup.levels[*l].len() >= 2)
        .min_by_key(|l| dup.levels[*l].len())
        .unwrap();
    assert!(dup.levels[l].len() < 12);
    let n = dup.levels[l][1].clone();
    dup.levels[l].insert(1, n);
    let e = history_check(&models, &dup, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::DuplicateNode);
    let mut swapped = honest.clone();
    swapped.levels[0].swap(0, 1);
    let e = history_check(&models, &swapped, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::NodesOutOfOrder);
    let mut unused = honest.clone();
    let other = Model::new(p, &state(61, 9));
    unused.buckets.push(other.entries(bucket_of(&p, &k)));
    unused
        .buckets
        .sort_by_key(|b| hash::bucket(&p, bucket_of(&p, &k), b));
    let e = history_check(&models, &unused, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ExtraNodes);
    assert!(matches!(e, MbtError::UnusedNode { .. }));
}

#[test]
fn history_checks_key_parameters_levels_and_entries() {
    let p = params(4, 3);
    let models = versions(p, 6);
    let k = key(5);
    let honest = history(&models, &k, 0);
    let e = history_check(&models, &honest, &key(6), 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::KeyMismatch);
    let relabelled: Vec<Model> = models
        .iter()
        .map(|m| Model::new(params(4, 2), &m.kv))
        .collect();
    let other = history(&relabelled, &k, 0);
    let e = history_check(&models, &other, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ParamsMismatch);
    let mut short = honest.clone();
    short.levels.pop();
    let e = history_check(&models, &short, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::TruncatedProof);
    let mut long = honest.clone();
    long.levels.push(vec![]);
    let e = history_check(&models, &long, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ExtraNodes);
    let crowded_models: Vec<Model> = (0..3)
        .map(|i| {
            let mut kv = crowded(p, &k).kv;
            kv.insert(k, word(i));
            Model::new(p, &kv)
        })
        .collect();
    let mut unsorted = history(&crowded_models, &k, 0);
    unsorted.buckets[0].swap(0, 1);
    let e = history_check(&crowded_models, &unsorted, &k, 0).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ResultsOutOfOrder);
}

// ---- proofs built in memory, not decoded, are held to the decoder's shape ----

#[test]
fn proofs_built_in_memory_of_a_shape_no_decoder_gives_are_refused() {
    let p = params(4, 3);
    let (a, b) = two_versions(p);
    let t = diff_trusted(&a, &b);
    // Inner nodes nested far below the buckets' level (the level counter would overflow).
    let mut deep = DiffNode::Same(B256::ZERO);
    for _ in 0..300 {
        deep = DiffNode::Inner(vec![
            deep,
            DiffNode::Same(B256::ZERO),
            DiffNode::Same(B256::ZERO),
        ]);
    }
    let e = verify_diff_proof(
        &t,
        &DiffProof {
            params: p,
            root: deep,
        },
    )
    .unwrap_err();
    assert_eq!(code(&e), ErrorCode::BadEncoding);
    let narrow = DiffProof {
        params: p,
        root: DiffNode::Inner(vec![DiffNode::Same(B256::ZERO)]),
    };
    assert_eq!(
        code(&verify_diff_proof(&t, &narrow).unwrap_err()),
        ErrorCode::BadEncoding
    );
    let high_bucket = DiffProof {
        params: p,
        root: DiffNode::Bucket {
            old: vec![],
            new: vec![],
        },
    };
    assert_eq!(
        code(&verify_diff_proof(&t, &high_bucket).unwrap_err()),
        ErrorCode::BadEncoding
    );

    let models = versions(p, 3);
    let roots: Vec<B256> = models.iter().map(Model::root).collect();
    let ht = HistoryTrusted {
        params: p,
        roots: &roots,
    };
    let mut backwards = history(&models, &key(5), 0);
    (backwards.lo, backwards.hi) = (2, 0);
    let q = HistoryQuery {
        key: key(5),
        lo: 2,
        hi: 0,
    };
    assert_eq!(
        code(&verify_history_proof(&ht, &q, &backwards).unwrap_err()),
        ErrorCode::BadEncoding
    );
    let mut wide = history(&models, &key(5), 0);
    wide.levels[1][0].push(B256::ZERO);
    let q = HistoryQuery {
        key: key(5),
        lo: 0,
        hi: 2,
    };
    assert_eq!(
        code(&verify_history_proof(&ht, &q, &wide).unwrap_err()),
        ErrorCode::BadEncoding
    );

    let mut few = a.prove(&key(1));
    few.levels[0].pop();
    let e = verify_proof(&p, &a.root(), &key(1), &few).unwrap_err();
    assert_eq!(code(&e), ErrorCode::BadEncoding);
}

#[test]
fn worked_example_of_docs_proofs_md_verifies() {
    let hex = "0101021111111111111111111111111111111111111111111111111111111111111111000000011111111111111111111111111111111111111111111111111111111111111111000000000000000000000000000000000000000000000000000000000000000501\
               5a2f68bca079bac13db8022b00332297877a21ed2e8a69873969e68b7d13b29f";
    let bytes = lightprov_types::hex::data(&alloc::format!("0x{hex}"), "proof").unwrap();
    let root: B256 = "0x07b2a7a31b857ca7b66d378bf8a9ff6e152d3c7ed518c897e7a6f5153c57cbd4"
        .parse()
        .unwrap();
    let key = B256::repeat_byte(0x11);
    let mut five = [0u8; 32];
    five[31] = 5;
    assert_eq!(
        verify(&params(1, 2), &root, &key, &bytes).unwrap(),
        Some(five)
    );
    // The same bytes prove nothing under other parameters.
    let e = verify(&params(1, 3), &root, &key, &bytes).unwrap_err();
    assert_eq!(code(&e), ErrorCode::ParamsMismatch);
}
