//! COLE and COLE* against a naive history model: the conformance suite, history proofs over
//! many levels with merges in flight, roots independent of merge timing, and recovery after
//! the process is killed at random points.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::{collections::BTreeMap, path::Path, time::Duration};

use alloy_primitives::{B256, keccak256};
use lightprov_engine_api::{
    Key,
    conformance::{CrashChild, crash_writer},
    word_from_u64,
};
use lightprov_engine_cole::{ColeEngine, Options, Params};
use lightprov_types::{Word, cole::HistoryProof};
use lightprov_verifier::cole::verify_history;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Small parameters so that a few hundred writes make several levels.
fn small(async_merge: bool) -> Params {
    Params {
        size_ratio: 3,
        fanout: 4,
        epsilon: 4,
        l0_capacity: 12,
        async_merge,
    }
}

fn verify(root: &B256, key: &Key, block: u64, proof: &HistoryProof) -> Result<Word, String> {
    verify_history(root, &key.state_key(), block, block, &proof.encode())
        .map(|h| h.value_at(block))
        .map_err(|e| e.to_string())
}

mod cole_conformance {
    use super::*;
    fn open(dir: &Path) -> ColeEngine {
        ColeEngine::open(dir, small(false), Options::default()).unwrap()
    }
    lightprov_engine_api::conformance_tests!(open, verify);
}

mod cole_star_conformance {
    use super::*;
    fn open(dir: &Path) -> ColeEngine {
        ColeEngine::open(dir, small(true), Options::default()).unwrap()
    }
    lightprov_engine_api::conformance_tests!(open, verify);
}

fn state_key(i: u64) -> B256 {
    keccak256(i.to_be_bytes())
}

/// Deterministic writes of block `b`: up to `per_block` keys out of `universe`.
fn writes(seed: u64, b: u64, universe: u64, per_block: usize) -> Vec<(B256, Word)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let n = rng.random_range(0..=per_block);
    (0..n)
        .map(|_| {
            let k = state_key(rng.random_range(0..universe));
            let v = if rng.random_range(0..10) == 0 {
                [0; 32]
            } else {
                word_from_u64(rng.random_range(1..1_000_000))
            };
            (k, v)
        })
        .collect()
}

/// Every version of every key: key → block → value (a later write in a block wins).
#[derive(Default)]
struct Model(BTreeMap<B256, BTreeMap<u64, Word>>);

impl Model {
    fn apply(&mut self, b: u64, w: &[(B256, Word)]) {
        for (k, v) in w {
            self.0.entry(*k).or_default().insert(b, *v);
        }
    }
}

fn check_history(e: &ColeEngine, model: &Model, key: &B256, lo: u64, hi: u64) {
    let head = e.head_block().unwrap();
    let proof = e.prove_history(key, lo, hi).unwrap();
    let bytes = proof.encode();
    let h = verify_history(&e.root_at(head).unwrap(), key, lo, hi, &bytes)
        .unwrap_or_else(|err| panic!("history of {key} {lo}..={hi}: {err}"));
    let versions = model.0.get(key);
    let want: Vec<(u64, Word)> = versions
        .map(|v| v.range(lo..=hi).map(|(b, v)| (*b, *v)).collect())
        .unwrap_or_default();
    let got: Vec<(u64, Word)> = h.versions.iter().map(|v| (v.block, v.value)).collect();
    assert_eq!(got, want, "versions of {key} in {lo}..={hi}");
    let at_lo = versions.and_then(|v| v.range(..=lo).next_back().map(|(b, v)| (*b, *v)));
    assert_eq!(h.at_lo.map(|v| (v.block, v.value)), at_lo, "at {lo}");
}

fn run_model_check(params: Params, opts: Options, seed: u64, blocks: u64, universe: u64) {
    let dir = tempfile::tempdir().unwrap();
    let mut e = ColeEngine::open(dir.path(), params, opts).unwrap();
    let mut model = Model::default();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for b in 0..blocks {
        let w = writes(seed, b, universe, 6);
        model.apply(b, &w);
        e.apply(b, &w).unwrap();
        if b % 17 == 5 {
            for _ in 0..4 {
                let key = state_key(rng.random_range(0..universe + 3));
                let lo = rng.random_range(0..=b);
                let hi = rng.random_range(lo..=b + 2);
                check_history(&e, &model, &key, lo, hi);
                let at = rng.random_range(0..=b);
                let want = model
                    .0
                    .get(&key)
                    .and_then(|v| v.range(..=at).next_back().map(|(_, v)| *v))
                    .unwrap_or([0; 32]);
                assert_eq!(e.get_at(&key, at).unwrap(), want);
            }
        }
    }
    for i in 0..universe + 2 {
        let key = state_key(i);
        let want = model
            .0
            .get(&key)
            .and_then(|v| v.values().next_back().copied())
            .unwrap_or([0; 32]);
        assert_eq!(e.get_latest(&key).unwrap(), want, "latest value of key {i}");
    }
    let (structures, _) = e.shape();
    assert!(
        structures >= 4,
        "only {structures} structures: the test needs levels"
    );
    // Every key, a few ranges, at the end; then again after reopening.
    for round in 0..2 {
        for i in 0..universe + 2 {
            let key = state_key(i);
            for (lo, hi) in [
                (0, blocks),
                (blocks / 2, blocks / 2 + 7),
                (blocks - 1, blocks - 1),
            ] {
                check_history(&e, &model, &key, lo, hi);
            }
        }
        if round == 0 {
            let root = e.root_at(blocks - 1).unwrap();
            drop(e);
            e = ColeEngine::open(dir.path(), params, opts).unwrap();
            assert_eq!(e.head_block(), Some(blocks - 1));
            assert_eq!(e.root_at(blocks - 1).unwrap(), root);
        }
    }
}

#[test]
fn cole_histories_match_the_model() {
    run_model_check(small(false), Options::default(), 11, 300, 40);
}

#[test]
fn cole_star_histories_match_the_model() {
    run_model_check(small(true), Options::default(), 12, 300, 40);
}

#[test]
fn cole_star_histories_with_slow_merges() {
    let opts = Options {
        merge_delay: Duration::from_millis(3),
        ..Options::default()
    };
    run_model_check(small(true), opts, 13, 200, 25);
}

fn roots(params: Params, opts: Options, seed: u64, blocks: u64) -> Vec<B256> {
    roots_of(params, opts, blocks, |b| writes(seed, b, 30, 8))
}

fn roots_of(
    params: Params,
    opts: Options,
    blocks: u64,
    w: impl Fn(u64) -> Vec<(B256, Word)>,
) -> Vec<B256> {
    let dir = tempfile::tempdir().unwrap();
    let mut e = ColeEngine::open(dir.path(), params, opts).unwrap();
    (0..blocks).map(|b| e.apply(b, &w(b)).unwrap()).collect()
}

#[test]
fn cole_star_roots_do_not_depend_on_merge_timing() {
    let p = small(true);
    let inline = roots(
        p,
        Options {
            merge_inline: true,
            ..Options::default()
        },
        5,
        250,
    );
    let threaded = roots(p, Options::default(), 5, 250);
    let slow = roots(
        p,
        Options {
            merge_delay: Duration::from_millis(4),
            ..Options::default()
        },
        5,
        250,
    );
    for b in 0..inline.len() {
        assert_eq!(
            inline[b], threaded[b],
            "block {b}: inline vs threaded merges"
        );
        assert_eq!(inline[b], slow[b], "block {b}: inline vs slowed merges");
    }
    // And COLE* is a different structure from COLE.
    let sync = roots(small(false), Options::default(), 5, 250);
    assert_ne!(sync.last(), inline.last());
}

#[test]
fn reopening_with_other_parameters_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    drop(ColeEngine::open(dir.path(), small(false), Options::default()).unwrap());
    let err = ColeEngine::open(dir.path(), small(true), Options::default()).unwrap_err();
    assert!(err.to_string().contains("other COLE parameters"), "{err}");
}

#[test]
fn blocks_out_of_sequence_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = ColeEngine::open(dir.path(), small(false), Options::default()).unwrap();
    assert!(e.apply(1, &[]).is_err());
    e.apply(0, &[]).unwrap();
    assert!(e.apply(0, &[]).is_err());
}

#[test]
fn temp_files_of_an_interrupted_rewrite_are_removed_on_open() {
    // A kill between creating `MANIFEST.json.tmp` (or `roots.bin.tmp`) and renaming it leaves
    // the temp file behind; the next open removes it, whether or not it writes a manifest.
    for async_merge in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut e = ColeEngine::open(dir.path(), small(async_merge), Options::default()).unwrap();
        for b in 0..40 {
            e.apply(b, &writes(5, b, 30, 6)).unwrap();
        }
        let root = e.root_at(39).unwrap();
        drop(e);
        let stale = ["MANIFEST.json.tmp", "roots.bin.tmp"];
        for name in stale {
            std::fs::write(dir.path().join(name), b"torn").unwrap();
        }
        let e = ColeEngine::open(dir.path(), small(async_merge), Options::default()).unwrap();
        assert_eq!(e.root_at(39).unwrap(), root);
        for name in stale {
            assert!(
                !dir.path().join(name).exists(),
                "async_merge {async_merge}: {name} survived the open"
            );
        }
    }
}

// ---- crash recovery: a child process applies blocks until it is killed ----

const CRASH_DIR: &str = "COLE_CRASH_DIR";
const CRASH_ASYNC: &str = "COLE_CRASH_ASYNC";
const CRASH_SLOW_MANIFEST: &str = "COLE_CRASH_SLOW_MANIFEST";
const CRASH_SEED: u64 = 77;

fn crash_params(async_merge: bool) -> Params {
    Params {
        l0_capacity: 40,
        ..small(async_merge)
    }
}

/// Not a test on its own: the body of the child process of `killed_at_random_points_*`.
#[test]
fn crash_child() {
    let params = crash_params(std::env::var(CRASH_ASYNC).is_ok());
    let opts = Options {
        manifest_delay: Duration::from_millis(if std::env::var(CRASH_SLOW_MANIFEST).is_ok() {
            15
        } else {
            0
        }),
        ..Options::default()
    };
    crash_writer(
        CRASH_DIR,
        |dir| ColeEngine::open(dir, params, opts).unwrap(),
        |e| e.head_block().map_or(0, |h| h + 1),
        |e, b| Some(e.apply(b, &writes(CRASH_SEED, b, 60, 12)).unwrap()),
    );
}

fn killed_at_random_points(async_merge: bool) {
    let params = crash_params(async_merge);
    let dir = tempfile::tempdir().unwrap();
    let writer = CrashChild::new(CRASH_DIR, dir.path(), module_path!());
    let mut rng = ChaCha8Rng::seed_from_u64(if async_merge { 2 } else { 1 });
    let mut committed: Option<u64> = None;
    for kill in 0..16 {
        let mut env = Vec::new();
        if async_merge {
            env.push((CRASH_ASYNC, "1"));
        }
        // Every other life, manifests lag the logs by several checkpoints when it dies.
        if kill % 2 == 1 {
            env.push((CRASH_SLOW_MANIFEST, "1"));
        }
        let last = writer.life(&mut rng, &env, committed, 5..60, 3000);
        let e = ColeEngine::open(dir.path(), params, Options::default())
            .unwrap_or_else(|err| panic!("reopen after kill {kill}: {err}"));
        let head = e.head_block().unwrap();
        assert!(
            Some(head) >= last,
            "kill {kill}: head {head} lost committed block {last:?}"
        );
        committed = Some(head);
        // Same roots as an engine that never crashed, and every key's history verifies.
        let want = roots_of(params, Options::default(), head + 1, |b| {
            writes(CRASH_SEED, b, 60, 12)
        });
        for b in 0..=head {
            assert_eq!(
                e.root_at(b).unwrap(),
                want[b as usize],
                "kill {kill}: root of {b}"
            );
        }
        let mut model = Model::default();
        for b in 0..=head {
            model.apply(b, &writes(CRASH_SEED, b, 60, 12));
        }
        for i in (0..60).step_by(7) {
            check_history(&e, &model, &state_key(i), 0, head);
        }
        // No orphans: every run file is named by the manifest.
        let named = manifest_run_ids(dir.path());
        for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            if let Some((stem, "val" | "idx" | "mht" | "blm")) = name.split_once('.') {
                let id: u64 = stem.parse().unwrap();
                assert!(named.contains(&id), "kill {kill}: orphan run file {name}");
            }
        }
    }
}

/// Every run id the manifest names (runs of both groups and merges in flight).
fn manifest_run_ids(dir: &Path) -> Vec<u64> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("MANIFEST.json")).unwrap()).unwrap();
    let mut ids = Vec::new();
    ids.extend(m["m0_merging_into"].as_u64());
    for l in m["levels"].as_array().unwrap() {
        ids.extend(l["merging_into"].as_u64());
        for g in ["w", "m"] {
            ids.extend(
                l[g].as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|r| r["id"].as_u64()),
            );
        }
    }
    ids
}

#[test]
fn cole_survives_kill_9() {
    killed_at_random_points(false);
}

#[test]
fn cole_star_survives_kill_9() {
    killed_at_random_points(true);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn random_parameters_and_workloads(
        seed in any::<u64>(),
        t in 2usize..5,
        m in 3u8..6,
        b in 1u64..20,
        async_merge in any::<bool>(),
        blocks in 20u64..120,
    ) {
        let params = Params { size_ratio: t, fanout: m, epsilon: 3, l0_capacity: b, async_merge };
        let dir = tempfile::tempdir().unwrap();
        let mut e = ColeEngine::open(dir.path(), params, Options::default()).unwrap();
        let mut model = Model::default();
        for blk in 0..blocks {
            let w = writes(seed, blk, 15, 4);
            model.apply(blk, &w);
            e.apply(blk, &w).unwrap();
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..20 {
            let key = state_key(rng.random_range(0..17));
            let lo = rng.random_range(0..blocks + 2);
            let hi = rng.random_range(lo..blocks + 5);
            check_history(&e, &model, &key, lo, hi);
        }
    }
}

/// Copies a directory's files (a snapshot of what a crash at this instant leaves on disk, when
/// nothing is being written).
fn snapshot(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for f in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(f.path(), to.join(f.file_name())).unwrap();
    }
}

#[test]
fn a_manifest_lagging_by_several_checkpoints_is_caught_up_from_the_logs() {
    for async_merge in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let copy = tempfile::tempdir().unwrap();
        let opts = Options {
            manifest_delay: Duration::from_millis(100),
            merge_inline: true,
            ..Options::default()
        };
        let params = small(async_merge);
        let mut e = ColeEngine::open(dir.path(), params, opts).unwrap();
        let mut model = Model::default();
        let mut roots = Vec::new();
        for b in 0..60 {
            let w = writes(21, b, 30, 8);
            model.apply(b, &w);
            roots.push(e.apply(b, &w).unwrap());
        }
        // Several checkpoints happened within the delay: the manifest on disk is behind.
        snapshot(dir.path(), &copy.path().join("db"));
        let stale: serde_json::Value = serde_json::from_slice(
            &std::fs::read(copy.path().join("db").join("MANIFEST.json")).unwrap(),
        )
        .unwrap();
        assert!(
            stale["head"].as_u64().unwrap_or(0) < 40,
            "the manifest must lag for this test: {}",
            stale["head"]
        );
        let r = ColeEngine::open(&copy.path().join("db"), params, Options::default()).unwrap();
        assert_eq!(r.head_block(), Some(59));
        for (b, root) in roots.iter().enumerate() {
            assert_eq!(r.root_at(b as u64).unwrap(), *root, "root of block {b}");
        }
        for i in 0..30 {
            check_history(&r, &model, &state_key(i), 0, 59);
            check_history(&r, &model, &state_key(i), 30, 45);
        }
        drop(e);
    }
}
