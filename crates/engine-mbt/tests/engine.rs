//! The engine against the conformance suite, its diff and history proofs against the history
//! model, refusal of a store of other parameters, and recovery after kill -9 at random points.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::{collections::BTreeSet, path::Path};

use alloy_primitives::{B256, keccak256};
use lightprov_engine_api::{
    Key, StateEngine,
    conformance::{CrashChild, HistoryModel, WORKLOADS, Workload, crash_writer},
};
use lightprov_engine_mbt::{MbtEngine, MbtEngineError, mbt::MbtParams};
use lightprov_types::Word;
use lightprov_verifier::mbt::{
    DiffTrusted, HistoryQuery, HistoryTrusted, verify_diff, verify_history, verify_proof,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Small enough that buckets hold several keys and some slots stay empty (3^3 = 27 > 16).
fn params() -> MbtParams {
    MbtParams::new(4, 3).unwrap()
}

fn open(dir: &Path) -> MbtEngine {
    MbtEngine::open(dir, params()).unwrap()
}

fn verify(
    root: &B256,
    key: &Key,
    _block: u64,
    proof: &lightprov_engine_mbt::mbt::MbtProof,
) -> Result<Word, String> {
    verify_proof(&params(), root, &key.state_key(), proof)
        .map(|v| v.unwrap_or([0; 32]))
        .map_err(|e| e.to_string())
}

lightprov_engine_api::conformance_tests!(open, verify);

/// A workload applied to a fresh engine, with its model.
fn run(w: Workload) -> (tempfile::TempDir, MbtEngine, HistoryModel) {
    let dir = tempfile::tempdir().unwrap();
    let mut e = open(dir.path());
    let mut model = HistoryModel::default();
    for (b, writes) in w.blocks().iter().enumerate() {
        e.apply_block(b as u64, writes).unwrap();
        model.apply(b as u64, writes);
    }
    (dir, e, model)
}

#[test]
fn diff_proofs_give_exactly_the_changed_keys() {
    let w = WORKLOADS[1];
    let (_dir, e, model) = run(w);
    let universe = w.universe();
    for (from, to) in [(0, 1), (3, 17), (10, 10), (29, 2), (0, 29)] {
        check_diff(&e, &model, &universe, from, to).unwrap();
    }
}

/// Verifies the engine's diff proof between `from` and `to` against their roots and compares
/// the changes it gives with the model's.
fn check_diff(
    e: &MbtEngine,
    model: &HistoryModel,
    universe: &[Key],
    from: u64,
    to: u64,
) -> Result<(), String> {
    let proof = e.prove_diff(from, to).unwrap().encode();
    let t = DiffTrusted {
        params: e.params(),
        old_root: e.root(from).unwrap(),
        new_root: e.root(to).unwrap(),
    };
    let got: BTreeSet<(B256, Word, Word)> = verify_diff(&t, &proof)
        .map_err(|err| format!("diff {from} → {to}: {err}"))?
        .into_iter()
        .map(|c| (c.key, c.old, c.new))
        .collect();
    let want: BTreeSet<(B256, Word, Word)> = universe
        .iter()
        .map(|k| (k.state_key(), model.get(k, from), model.get(k, to)))
        .filter(|(_, a, b)| a != b)
        .collect();
    assert_eq!(got, want, "diff {from} → {to}");
    Ok(())
}

#[test]
fn history_proofs_give_the_value_at_every_block() {
    let w = WORKLOADS[0];
    let (_dir, e, model) = run(w);
    let roots: Vec<B256> = (0..w.blocks).map(|b| e.root(b).unwrap()).collect();
    for key in w.universe() {
        for (lo, hi) in [(0, w.blocks - 1), (5, 9), (7, 7)] {
            let proof = e.prove_history(&key.state_key(), lo, hi).unwrap().encode();
            let t = HistoryTrusted {
                params: params(),
                roots: &roots[lo as usize..=hi as usize],
            };
            let q = HistoryQuery {
                key: key.state_key(),
                lo,
                hi,
            };
            let h = verify_history(&t, &q, &proof).unwrap();
            let want: Vec<Word> = (lo..=hi).map(|b| model.get(&key, b)).collect();
            assert_eq!(h.values, want, "{key:?} over {lo}..={hi}");
        }
    }
    assert!(matches!(
        e.prove_history(&B256::ZERO, 3, 2),
        Err(MbtEngineError::BadRange { .. })
    ));
}

#[test]
fn the_engine_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<MbtEngine>();
}

#[test]
fn a_store_of_other_parameters_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path()));
    let other = MbtEngine::open(dir.path(), MbtParams::new(5, 3).unwrap());
    assert!(matches!(other, Err(MbtEngineError::ParamsDiffer { .. })));
    assert!(MbtEngine::open(dir.path(), params()).is_ok());
}

#[test]
fn blocks_apply_in_order_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = open(dir.path());
    assert!(matches!(
        e.apply(1, &[]),
        Err(MbtEngineError::NotNextBlock {
            expected: 0,
            got: 1
        })
    ));
    let r0 = e.apply(0, &[]).unwrap();
    // An empty state is the empty tree; deleting an absent key changes nothing.
    assert_eq!(r0, lightprov_types::mbt::hash::empty_levels(&params())[0]);
    assert_eq!(e.apply(1, &[(B256::ZERO, [0; 32])]).unwrap(), r0);
    assert!(matches!(e.root_at(2), Err(MbtEngineError::UnknownBlock(2))));
}

/// A staged block is in memory only: reads see the blocks before it, a discarded one or one
/// never committed is gone after reopening, and the next block takes its number.
#[test]
fn a_staged_block_reaches_the_store_only_when_committed() {
    let dir = tempfile::tempdir().unwrap();
    let clean_dir = tempfile::tempdir().unwrap();
    let mut clean = open(clean_dir.path());
    let w = |b: u8| vec![(keccak256([b]), B256::with_last_byte(b + 1).0)];
    let mut e = open(dir.path());
    e.apply(0, &w(0)).unwrap();
    clean.apply(0, &w(0)).unwrap();
    let staged = e.stage(1, &w(9)).unwrap();
    assert_eq!(e.blocks(), 1);
    assert_eq!(e.get_at(&keccak256([9]), 0).unwrap(), [0; 32]);
    assert!(matches!(e.root_at(1), Err(MbtEngineError::UnknownBlock(1))));
    e.discard();
    e.commit().unwrap(); // nothing staged: nothing written
    assert_eq!(e.blocks(), 1);
    // Staged and never committed: gone once the engine is reopened.
    e.stage(1, &w(9)).unwrap();
    drop(e);
    let mut e = open(dir.path());
    assert_eq!(e.blocks(), 1);
    let root = e.stage(1, &w(1)).unwrap();
    assert_ne!(root, staged);
    e.commit().unwrap();
    assert_eq!(root, clean.apply(1, &w(1)).unwrap());
    assert_eq!(e.root_at(1).unwrap(), root);
    // A refused block leaves nothing staged behind it.
    e.stage(2, &w(2)).unwrap();
    assert!(e.stage(5, &w(5)).is_err());
    e.commit().unwrap();
    assert_eq!(e.blocks(), 2);
}

#[test]
fn a_damaged_node_is_refused_not_proven_from() {
    use lightprov_engine_api::kv::{FjallStore, KvStore};
    let dir = tempfile::tempdir().unwrap();
    let k = keccak256([1u8]);
    let root = {
        let mut e = open(dir.path());
        e.apply(0, &[(k, [5; 32]), (keccak256([2u8]), [6; 32])])
            .unwrap()
    };
    {
        let store = FjallStore::open(dir.path()).unwrap();
        let mut record = store.get("mbt_nodes", root.as_slice()).unwrap().unwrap();
        let last = record.len() - 1;
        record[last] ^= 1;
        store
            .write(vec![("mbt_nodes", root.to_vec(), Some(record))])
            .unwrap();
    }
    let e = open(dir.path());
    assert_eq!(e.root_at(0).unwrap(), root);
    assert!(matches!(e.get_at(&k, 0), Err(MbtEngineError::Corrupt(_))));
    assert!(matches!(e.prove_at(&k, 0), Err(MbtEngineError::Corrupt(_))));
}

#[test]
fn the_root_is_a_function_of_the_state_alone() {
    // Structural invariance (SIRI): random blocks of writes, deletes and rewrites give, at every
    // block, the root of the same state written in one block, in another order, to a fresh tree.
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let dir = tempfile::tempdir().unwrap();
    let mut e = open(dir.path());
    let mut state = std::collections::BTreeMap::new();
    for b in 0..12 {
        let writes: Vec<(B256, Word)> = (0..rng.random_range(0..30))
            .map(|_| {
                let v = if rng.random_bool(0.2) {
                    [0; 32]
                } else {
                    [rng.random_range(1..=255u8); 32]
                };
                (keccak256(rng.random_range(0..50u64).to_be_bytes()), v)
            })
            .collect();
        let root = e.apply(b, &writes).unwrap();
        for (k, v) in &writes {
            if *v == [0; 32] {
                state.remove(k);
            } else {
                state.insert(*k, *v);
            }
        }
        let mut bulk: Vec<(B256, Word)> = state.iter().map(|(k, v)| (*k, *v)).collect();
        bulk.reverse();
        let fresh = tempfile::tempdir().unwrap();
        assert_eq!(
            open(fresh.path()).apply(0, &bulk).unwrap(),
            root,
            "block {b}"
        );
    }
}

// ---- crash recovery: a child process commits blocks until it is killed ----

const CRASH_DIR: &str = "MBT_CRASH_DIR";

fn crash_writes(b: u64) -> Vec<(B256, Word)> {
    let mut rng = ChaCha8Rng::seed_from_u64(b.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 11);
    let n = rng.random_range(0..=12);
    (0..n)
        .map(|_| {
            let k = keccak256(rng.random_range(0..60u64).to_be_bytes());
            let v = if rng.random_bool(0.15) {
                [0; 32]
            } else {
                [rng.random_range(1..=255u8); 32]
            };
            (k, v)
        })
        .collect()
}

/// Not a test on its own: the body of the child process of `survives_kill_9`.
#[test]
fn crash_child() {
    crash_writer(CRASH_DIR, open, MbtEngine::blocks, |e, b| {
        Some(e.apply(b, &crash_writes(b)).unwrap())
    });
}

#[test]
fn survives_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let writer = CrashChild::new(CRASH_DIR, dir.path());
    let reference_dir = tempfile::tempdir().unwrap();
    let mut reference = open(reference_dir.path());
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let mut committed: Option<u64> = None;
    for kill in 0..6 {
        let last = writer.life(&mut rng, &[], committed, 2..20, 3000);
        let e = MbtEngine::open(dir.path(), params())
            .unwrap_or_else(|err| panic!("reopen after kill {kill}: {err}"));
        let head = e.head().expect("a block survives");
        assert!(
            Some(head) >= last,
            "kill {kill}: head {head} lost committed block {last:?}"
        );
        committed = Some(head);
        while reference.blocks() <= head {
            let b = reference.blocks();
            reference.apply(b, &crash_writes(b)).unwrap();
        }
        for b in 0..=head {
            assert_eq!(
                e.root_at(b).unwrap(),
                reference.root_at(b).unwrap(),
                "kill {kill}: root of block {b}"
            );
        }
        // The head is consistent: every key reads and proves as in the reference.
        for i in 0..60u64 {
            let k = keccak256(i.to_be_bytes());
            let want = reference.get_at(&k, head).unwrap();
            assert_eq!(e.get_at(&k, head).unwrap(), want, "kill {kill}: key {i}");
            let p = e.prove_at(&k, head).unwrap();
            let got = verify_proof(&params(), &e.root_at(head).unwrap(), &k, &p).unwrap();
            assert_eq!(got.unwrap_or([0; 32]), want);
        }
    }
}

/// Diff proofs between every pair of blocks of many seeded workloads verify against the two
/// roots and name exactly the changed keys, under parameters whose slots outnumber the buckets.
#[test]
fn diff_proofs_verify_between_any_two_blocks_of_many_workloads() {
    for (bits, fanout) in [(5, 3), (4, 3), (3, 2)] {
        let params = MbtParams::new(bits, fanout).unwrap();
        for seed in 0..15 {
            let w = Workload {
                seed: 1000 + seed,
                blocks: 12,
                accounts: 6,
                slots: 4,
                writes_per_block: 10,
            };
            let dir = tempfile::tempdir().unwrap();
            let mut e = MbtEngine::open(dir.path(), params).unwrap();
            let mut model = HistoryModel::default();
            for (b, writes) in w.blocks().iter().enumerate() {
                e.apply_block(b as u64, writes).unwrap();
                model.apply(b as u64, writes);
            }
            let universe = w.universe();
            for from in 0..w.blocks {
                for to in 0..w.blocks {
                    if let Err(err) = check_diff(&e, &model, &universe, from, to) {
                        panic!("b={bits} m={fanout} seed {seed}: {err}");
                    }
                }
            }
        }
    }
}
