#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::{collections::BTreeMap, path::Path};

use alloy_primitives::{Address, B256, keccak256};
use lightprov_engine_api::{Key, StateEngine};
use lightprov_types::{
    Word,
    pos::{SplitRule, prove::MemNodes},
};
use lightprov_verifier::pos::verify_path;
use proptest::prelude::*;

use super::*;

fn open(dir: &Path) -> PosEngine {
    PosEngine::open_dir(dir).unwrap()
}

/// Verifies with the family's verifier and returns the proven value (zero: absent).
fn verify(root: &B256, key: &Key, _block: u64, proof: &PathProof) -> Result<Word, String> {
    verify_path(root, &key.state_key(), proof)
        .map(|v| v.unwrap_or([0; 32]))
        .map_err(|e| e.to_string())
}

lightprov_engine_api::conformance_tests!(open, verify);

/// A tree in memory, updated by [`tree::update`] batch after batch.
struct Mem {
    nodes: MemNodes,
    meta: Meta,
    rule: SplitRule,
}

impl Mem {
    fn new(rule: SplitRule) -> Self {
        Self {
            nodes: MemNodes::default(),
            meta: Meta::empty(),
            rule,
        }
    }

    fn apply(&mut self, changes: &BTreeMap<B256, Word>) {
        let up = tree::update(&self.nodes, &self.meta, &self.rule, changes).unwrap();
        self.nodes.0.extend(up.nodes);
        self.meta = up.meta;
    }

    /// The root of a bulk build of `state`, and its nodes per level.
    fn bulk(rule: &SplitRule, state: &BTreeMap<B256, Word>) -> Meta {
        let entries: Vec<_> = state.iter().map(|(k, v)| (*k, *v)).collect();
        let levels = rule.build(&entries);
        let mut m = MemNodes::default();
        let root = m.build(rule, &entries);
        Meta {
            root,
            counts: if entries.is_empty() {
                vec![]
            } else {
                levels.iter().map(|l| l.len() as u64).collect()
            },
        }
    }
}

fn key(i: u16) -> B256 {
    keccak256(i.to_be_bytes())
}

fn word(v: u8) -> Word {
    [v; 32]
}

const RULES: [SplitRule; 3] = [
    SplitRule::ContentDefined {
        bits: 2,
        min: 2,
        max: 6,
    },
    SplitRule::DEFAULT,
    SplitRule::FixedSize { entries: 3 },
];

/// A block's writes applied to a model of the state by state key (writing zero deletes).
fn apply_to_model(model: &mut BTreeMap<B256, Word>, writes: &[(Key, Word)]) {
    for (k, v) in writes {
        if *v == [0; 32] {
            model.remove(&k.state_key());
        } else {
            model.insert(k.state_key(), *v);
        }
    }
}

/// 48 cases by default; `POS_CASES=2000` for a longer run.
fn cases() -> u32 {
    lightprov_testkit::env_parsed("POS_CASES").unwrap_or(48)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// History independence: the tree after random batches of inserts, updates and deletes
    /// (repeated keys included) is the bulk build of the final state, node counts included;
    /// and any permutation of a set of operations on distinct keys, batched anyhow, gives the
    /// same root.
    #[test]
    fn incremental_updates_equal_a_bulk_build_and_any_permutation(
        rule in 0usize..3,
        ops in proptest::collection::vec((0u16..400, 0u8..4), 1..300),
        cuts in proptest::collection::vec(0usize..300, 0..12),
        distinct in proptest::collection::vec((0u16..400, 0u8..3), 1..120),
        order in Just(()).prop_perturb(|_, mut rng| rng.random::<u64>()),
    ) {
        let rule = RULES[rule];
        let mut mem = Mem::new(rule);
        let mut state: BTreeMap<B256, Word> = BTreeMap::new();
        let mut cuts = cuts;
        cuts.push(ops.len());
        cuts.sort_unstable();
        let mut start = 0;
        for end in cuts {
            let end = end.min(ops.len());
            if end < start { continue; }
            let mut batch = BTreeMap::new();
            for (k, v) in &ops[start..end] {
                // Value 0 deletes.
                batch.insert(key(*k), word(*v));
                if *v == 0 { state.remove(&key(*k)); } else { state.insert(key(*k), word(*v)); }
            }
            mem.apply(&batch);
            prop_assert_eq!(&mem.meta, &Mem::bulk(&rule, &state));
            start = end;
        }
        // Distinct keys on top of that state, in two orders and batchings.
        let mut seen = std::collections::BTreeSet::new();
        let distinct: Vec<_> = distinct.into_iter().filter(|(k, _)| seen.insert(*k)).collect();
        let mut shuffled = distinct.clone();
        let mut x = order | 1;
        for i in (1..shuffled.len()).rev() {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            shuffled.swap(i, (x % (i as u64 + 1)) as usize);
        }
        let mut a = Mem { nodes: mem.nodes.clone(), meta: mem.meta.clone(), rule };
        for (k, v) in &distinct {
            a.apply(&BTreeMap::from([(key(*k), word(*v))]));
        }
        let mut b = Mem { nodes: mem.nodes.clone(), meta: mem.meta.clone(), rule };
        for chunk in shuffled.chunks(7) {
            b.apply(&chunk.iter().map(|(k, v)| (key(*k), word(*v))).collect());
        }
        for (k, v) in &distinct {
            if *v == 0 { state.remove(&key(*k)); } else { state.insert(key(*k), word(*v)); }
        }
        prop_assert_eq!(&a.meta, &b.meta);
        prop_assert_eq!(&a.meta, &Mem::bulk(&rule, &state));
    }
}

#[test]
fn a_value_update_rewrites_exactly_one_path() {
    let mut mem = Mem::new(SplitRule::DEFAULT);
    let state: BTreeMap<B256, Word> = (0..5000).map(|i| (key(i), word(1))).collect();
    mem.apply(&state);
    let height = mem.meta.height();
    assert!(height >= 3, "5000 keys make at least three levels");
    let before = mem.meta.clone();
    let up = tree::update(
        &mem.nodes,
        &mem.meta,
        &mem.rule,
        &BTreeMap::from([(key(77), word(9))]),
    )
    .unwrap();
    assert_eq!(up.nodes.len(), height, "one new node per level");
    assert_eq!(up.meta.counts, before.counts, "the shape is unchanged");
}

#[test]
fn ground_keys_are_cut_at_the_hard_cap() {
    // Keys chosen so that none is a boundary at level 0 (an attacker grinds 8 tries a key): the
    // leaves are cut at 256 entries, whatever the order the keys come in.
    let ground: Vec<B256> = (0..2000u16)
        .map(key)
        .filter(|k| !lightprov_types::pos::split::is_boundary(3, 0, k))
        .take(600)
        .collect();
    assert_eq!(ground.len(), 600);
    let mut mem = Mem::new(SplitRule::DEFAULT);
    for chunk in ground.chunks(37).rev() {
        mem.apply(&chunk.iter().map(|k| (*k, word(5))).collect());
    }
    let state: BTreeMap<B256, Word> = ground.iter().map(|k| (*k, word(5))).collect();
    assert_eq!(mem.meta, Mem::bulk(&SplitRule::DEFAULT, &state));
    let sizes: Vec<usize> = SplitRule::DEFAULT.build(&state.into_iter().collect::<Vec<_>>())[0]
        .iter()
        .map(|n| n.entries.len())
        .collect();
    assert_eq!(sizes, [256, 256, 88]);
}

#[test]
fn deleting_every_key_gives_the_empty_tree_and_back() {
    let mut mem = Mem::new(SplitRule::ContentDefined {
        bits: 2,
        min: 2,
        max: 6,
    });
    let all: BTreeMap<B256, Word> = (0..300).map(|i| (key(i), word(3))).collect();
    mem.apply(&all);
    let full = mem.meta.clone();
    mem.apply(&all.keys().map(|k| (*k, [0; 32])).collect());
    assert_eq!(mem.meta, Meta::empty());
    mem.apply(&all);
    assert_eq!(mem.meta, full);
}

#[test]
fn blocks_that_write_nothing_prove_absence_in_the_empty_tree() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = open(dir.path());
    let k = Key::Nonce(Address::repeat_byte(9));
    let root = e.apply_block(0, &[]).unwrap();
    assert_eq!(root, lightprov_types::pos::empty_root());
    let p = e.prove(&k, 0).unwrap();
    assert_eq!(verify(&root, &k, 0, &p), Ok([0; 32]));
    // Deleting a key that was never written leaves the tree empty too.
    let root = e.apply_block(1, &[(k, [0; 32])]).unwrap();
    assert_eq!(root, lightprov_types::pos::empty_root());
    assert_eq!(e.get(&k, 1).unwrap(), [0; 32]);
}

#[test]
fn reopening_keeps_every_root_and_refuses_another_rule() {
    let dir = tempfile::tempdir().unwrap();
    let a = Address::repeat_byte(4);
    let mut roots = Vec::new();
    {
        let mut e = open(dir.path());
        for b in 0..5u64 {
            let w = [
                (Key::Balance(a), word(b as u8 + 1)),
                (Key::Nonce(a), word(2)),
            ];
            roots.push(e.apply_block(b, &w).unwrap());
        }
        assert!(matches!(
            e.apply_block(7, &[]),
            Err(PosEngineError::BlockOrder {
                expected: 5,
                got: 7
            })
        ));
    }
    let e = open(dir.path());
    assert_eq!(e.head(), Some(4));
    for (b, r) in roots.iter().enumerate() {
        assert_eq!(e.root(b as u64).unwrap(), *r);
        assert_eq!(
            e.get(&Key::Balance(a), b as u64).unwrap(),
            word(b as u8 + 1)
        );
    }
    drop(e);
    let other = PosEngine::open(
        std::sync::Arc::new(lightprov_engine_api::kv::FjallStore::open(dir.path()).unwrap()),
        SplitRule::FIXED_16,
    );
    assert!(matches!(other, Err(PosEngineError::RuleMismatch { .. })));
    // A rule whose nodes the decoders would refuse, or whose levels need not shrink.
    for rule in [
        SplitRule::FixedSize { entries: 1 },
        SplitRule::FixedSize { entries: 300 },
        SplitRule::ContentDefined {
            bits: 3,
            min: 1,
            max: 8,
        },
    ] {
        let other = tempfile::tempdir().unwrap();
        let store = lightprov_engine_api::kv::FjallStore::open(other.path()).unwrap();
        assert!(matches!(
            PosEngine::open(std::sync::Arc::new(store), rule),
            Err(PosEngineError::InvalidRule(_))
        ));
    }
}

#[test]
fn engine_proofs_of_ranges_diffs_and_histories_verify() {
    use lightprov_verifier::{
        Verify,
        pos::{BlockRoots, PosDiff, PosHistory, PosRange},
    };
    let dir = tempfile::tempdir().unwrap();
    let mut e = open(dir.path());
    let accounts: Vec<Address> = (0..200u16)
        .map(|i| Address::from_word(keccak256(i.to_be_bytes())))
        .collect();
    let mut model: Vec<BTreeMap<B256, Word>> = Vec::new();
    let mut state = BTreeMap::new();
    for b in 0..20u64 {
        let writes: Vec<_> = (0..30u64)
            .map(|j| {
                let a = accounts[((b * 31 + j * 7) % 200) as usize];
                let v = if j % 9 == 0 {
                    [0; 32]
                } else {
                    word((b + j) as u8 | 1)
                };
                (Key::Balance(a), v)
            })
            .collect();
        apply_to_model(&mut state, &writes);
        e.apply_block(b, &writes).unwrap();
        model.push(state.clone());
    }
    // A range at block 12.
    let (lo, hi) = (B256::repeat_byte(0x40), B256::repeat_byte(0x80));
    let p = e.prove_range(&lo, &hi, 12).unwrap().encode();
    let got = PosRange::verify(&e.root(12).unwrap(), &(lo, hi), &p).unwrap();
    let want: Vec<_> = model[12].range(lo..=hi).map(|(k, v)| (*k, *v)).collect();
    assert_eq!(got, want);
    // The diff from block 3 to 15.
    let p = e.prove_diff(3, 15).unwrap().encode();
    let changes = PosDiff::verify(&(e.root(3).unwrap(), e.root(15).unwrap()), &(), &p).unwrap();
    let keys: std::collections::BTreeSet<_> = model[3].keys().chain(model[15].keys()).collect();
    let want: Vec<_> = keys
        .into_iter()
        .filter(|k| model[3].get(*k) != model[15].get(*k))
        .collect();
    assert_eq!(changes.iter().map(|c| &c.key).collect::<Vec<_>>(), want);
    // A history over every block.
    let k = Key::Balance(accounts[7]).state_key();
    let p = e.prove_history(&k, 0, 19).unwrap().encode();
    let roots = e.roots(0, 19).unwrap();
    let got = PosHistory::verify(
        &BlockRoots {
            from: 0,
            roots: &roots,
        },
        &k,
        &p,
    )
    .unwrap();
    let want: Vec<_> = model.iter().map(|m| m.get(&k).copied()).collect();
    assert_eq!(got, want);
}

/// The B+-tree baseline's split policy: with `FixedSize { entries: n }` every node of a level
/// holds exactly n entries but the level's last (the one holding its largest keys), after
/// inserts, updates and deletes in blocks on fjall; and every key's lookup and proof (present
/// and absent) verify against the block's root.
#[test]
fn fixed_split_makes_nodes_of_exactly_n_entries_and_its_proofs_verify() {
    use lightprov_types::pos::prove::NodeSource;
    const N: u16 = 5;
    let dir = tempfile::tempdir().unwrap();
    let store = lightprov_engine_api::kv::FjallStore::open(dir.path()).unwrap();
    let mut e = PosEngine::open(
        std::sync::Arc::new(store),
        SplitRule::FixedSize { entries: N },
    )
    .unwrap();
    let account = |i: u16| Key::Balance(Address::from_word(keccak256(i.to_be_bytes())));
    let mut model: BTreeMap<B256, Word> = BTreeMap::new();
    for b in 0..6u64 {
        let writes: Vec<_> = (0..120u16)
            .map(|j| {
                let i = (j * 7 + b as u16 * 31) % 400;
                // Every eleventh write of a later block deletes.
                let v = if b > 0 && j % 11 == 0 {
                    [0; 32]
                } else {
                    word((j % 250) as u8 + 1)
                };
                (account(i), v)
            })
            .collect();
        apply_to_model(&mut model, &writes);
        e.apply_block(b, &writes).unwrap();
        let head = e.head().unwrap();
        // The nodes of each level, in key order.
        let mut levels: BTreeMap<u8, Vec<(B256, usize)>> = BTreeMap::new();
        for (h, bytes) in e.nodes_at(head).unwrap() {
            let n = e.node(&h).unwrap();
            assert_eq!(n.encoded_len(), bytes);
            levels
                .entry(n.level)
                .or_default()
                .push((*n.max_key().unwrap(), n.entries.len()));
        }
        assert_eq!(
            levels[&0].iter().map(|(_, len)| len).sum::<usize>(),
            model.len(),
            "the leaves hold the state"
        );
        for (level, mut nodes) in levels {
            nodes.sort();
            let (last, full) = nodes.split_last().unwrap();
            for (_, len) in full {
                assert_eq!(*len, usize::from(N), "block {b}, level {level}");
            }
            assert!(
                (1..=usize::from(N)).contains(&last.1),
                "block {b}, level {level}"
            );
        }
        let root = e.root(head).unwrap();
        for i in 0..420u16 {
            let k = account(i);
            let want = model.get(&k.state_key()).copied().unwrap_or([0; 32]);
            assert_eq!(e.get(&k, head).unwrap(), want);
            let p = e.prove(&k, head).unwrap();
            assert_eq!(verify(&root, &k, head, &p).unwrap(), want);
        }
    }
}
