//! Engines side by side — MPT (on fjall and on redb), COLE and COLE*, and LVMT (on fjall) — on the
//! kvstore and smallbank workloads at 10^3 and 10^4 blocks: bytes on disk, writes/s, per-block
//! commit latency, and for the largest size the storage at 20 block heights. Then throughput under read-only,
//! read-write and write-only mixes of the kvstore workload, reads served by the engine. Then,
//! from the largest kvstore state, provenance proofs for ranges of 2…128 blocks are written to
//! `target/bench/history-proofs.json` for `tests/bench/history.mjs`, which verifies them in wasm
//! (COLE, COLE*, LVMT, forkless) next to one MPT proof per block.
//!
//! The forkless LiveDB + ArchiveDB runs beside them; for the largest kvstore state its head
//! state (the LiveDB files) is compared with an MPT holding only the head state (the paper's
//! pruned MPT) and its archive with the MPT archive, and the LiveDB's root recompute time is
//! measured against its page size (the paper's §6.4).
//!
//! Run: `cargo bench -p lightprov-node --bench engines` (`npm run bench` runs it). Prints tables;
//! nothing is asserted. Under `cargo test` it runs a 20-block smoke test (its proofs go to a
//! temporary directory).
//!
//! Environment: `LIGHTPROV_BENCH_BLOCKS` (block counts, e.g. `1000,10000`), `LIGHTPROV_BENCH_OPS`
//! (operations per block, 100), `LIGHTPROV_BENCH_MIX_BLOCKS` (blocks per mix run, 2000),
//! `LIGHTPROV_BENCH_SAMPLES` (storage samples, 20), `LIGHTPROV_BENCH_LVMT_DEPTH` (D, 16),
//! `LIGHTPROV_BENCH_JSON` (a file: every figure as JSON), `LIGHTPROV_BENCH_RUN` (a run id copied
//! into the JSON files, so a report never mixes runs).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::{
    collections::{BTreeMap, HashMap},
    path::{Path, PathBuf},
    sync::Arc,
    time::Instant,
};

mod common;

use alloy_primitives::{B256, keccak256};
use lightprov_engine_api::{
    Key, StateEngine, Write,
    kv::{FjallStore, RedbStore},
};
use lightprov_engine_cole::{ColeEngine, Options, Params};
use lightprov_engine_forkless::{ForklessEngine, forkless_key};
use lightprov_engine_lvmt::{
    amt::Proofs,
    setup::Setup,
    store::LvmtStore,
    tree::{Lvmt, in_key_order},
};
use lightprov_engine_mpt::MptEngine;
use lightprov_node::workload::{KVSTORE, Kind, Workload};
use lightprov_types::Word;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

const SEED: u64 = 1;
/// Records of the kvstore workload (server-mock/src/workload.rs).
const RECORDS: u64 = 10_000;

/// One engine's run over one workload.
struct Row {
    engine: String,
    updates: u64,
    writes_per_s: f64,
    /// Per-block commit latencies, ms, sorted.
    commits: Vec<f64>,
    bytes: u64,
    /// (block, bytes) after the block.
    storage: Vec<(u64, u64)>,
}

impl Row {
    fn pct(&self, p: f64) -> f64 {
        if self.commits.is_empty() {
            return 0.0;
        }
        self.commits[((self.commits.len() as f64 - 1.0) * p) as usize]
    }

    fn max(&self) -> f64 {
        self.commits.last().copied().unwrap_or(0.0)
    }

    fn json(&self, storage_kind: &str) -> Value {
        let mean = self.commits.iter().sum::<f64>() / self.commits.len().max(1) as f64;
        json!({
            "engine": self.engine,
            "updates": self.updates,
            "writesPerS": self.writes_per_s,
            "commitMs": {
                "min": self.commits.first().copied().unwrap_or(0.0),
                "q1": self.pct(0.25),
                "median": self.pct(0.5),
                "q3": self.pct(0.75),
                "p99": self.pct(0.99),
                "max": self.max(),
                "mean": mean,
                "blocks": self.commits.len(),
            },
            "bytes": self.bytes,
            "bytesPerUpdate": self.bytes as f64 / self.updates.max(1) as f64,
            "storageKind": storage_kind,
            "storage": self.storage.iter().map(|(b, x)| json!({"block": b, "bytes": x})).collect::<Vec<_>>(),
        })
    }
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this as a smoke test.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let sizes: Vec<u64> = std::env::var("LIGHTPROV_BENCH_BLOCKS")
        .ok()
        .map(|s| {
            s.split(',')
                .map(|x| x.trim().parse().expect("block counts"))
                .collect()
        })
        .unwrap_or_else(|| if smoke { vec![20] } else { vec![1_000, 10_000] });
    let ops: usize = env("LIGHTPROV_BENCH_OPS").unwrap_or(100);
    let mix_blocks: u64 =
        env("LIGHTPROV_BENCH_MIX_BLOCKS").unwrap_or(if smoke { 5 } else { 2_000 });
    // Each mix is run this many times, engines interleaved; the figure is the median and the
    // spread (min–max) is printed and kept, since one run of a 2-core machine's fsyncs varies.
    let mix_repeat: usize = env("LIGHTPROV_BENCH_MIX_REPEAT")
        .unwrap_or(if smoke { 1 } else { 3 })
        .max(1);
    let samples: u64 = env("LIGHTPROV_BENCH_SAMPLES").unwrap_or(20).max(1);
    let depth: u8 = env("LIGHTPROV_BENCH_LVMT_DEPTH").unwrap_or(if smoke { 4 } else { 16 });
    let (run_id, json_out) = common::report_env();
    if smoke {
        mix_matches_the_workload(ops);
    }

    let cole = Params::cole();
    let t = Instant::now();
    let setup = Arc::new(Setup::dev_insecure(depth, b"lightprov bench").unwrap());
    let setup_secs = t.elapsed().as_secs_f64();
    println!(
        "\nEngines — {ops} workload ops per block, seed {SEED}; one synced commit per block; {} build; bytes on disk = allocated blocks",
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    println!(
        "COLE/COLE*: T = {}, m = {}, ε = {}, B = {} entries (level 0 flushed at the end of the block that fills it)",
        cole.size_ratio, cole.fanout, cole.epsilon, cole.l0_capacity
    );
    println!(
        "LVMT: on fjall, every opening kept, D = {depth}, INSECURE dev setup (public seed; derived in {setup_secs:.1} s); one synced batch per block\n"
    );
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let mut engines_json = Vec::new();
    let mut forkless_json = None;
    let mut proofs_file = None;
    let proofs_dir = if smoke {
        Some(tempfile::tempdir().unwrap())
    } else {
        None
    };
    for kind in [Kind::Kvstore, Kind::Smallbank] {
        for &blocks in &sizes {
            println!("{kind:?}, {blocks} blocks:\n");
            println!(
                "| engine | state updates | writes/s | commit p50 ms | p99 ms | max ms | bytes on disk | bytes / update |"
            );
            println!(
                "|--------|--------------:|---------:|-------------:|-------:|-------:|--------------:|---------------:|"
            );
            let w = Workload {
                kind,
                seed: SEED,
                ops_per_block: ops,
            };
            let is_largest = blocks == largest;
            let every = if is_largest {
                blocks.div_ceil(samples).max(1)
            } else {
                0
            };
            let dirs: Vec<_> = (0..5).map(|_| tempfile::tempdir().unwrap()).collect();
            let (r_mpt, mpt) = run_in("mpt (fjall)", &w, blocks, every, dirs[0].path(), |d| {
                MptEngine::open(Arc::new(FjallStore::open(d).unwrap())).unwrap()
            });
            let (r_redb, _) = run_in("mpt (redb)", &w, blocks, every, dirs[1].path(), |d| {
                MptEngine::open(Arc::new(RedbStore::open(d).unwrap())).unwrap()
            });
            let (r_cole, c_engine) = run_in("cole", &w, blocks, every, dirs[2].path(), |d| {
                ColeEngine::open(d, Params::cole(), Options::default()).unwrap()
            });
            let (r_star, s_engine) = run_in("cole*", &w, blocks, every, dirs[3].path(), |d| {
                ColeEngine::open(d, Params::cole_star(), Options::default()).unwrap()
            });
            let (r_fork, mut f_engine) =
                run_in("forkless", &w, blocks, every, dirs[4].path(), |d| {
                    ForklessEngine::open_dir(d).unwrap()
                });
            let rows = [&r_mpt, &r_redb, &r_cole, &r_star, &r_fork];
            for r in rows {
                println!(
                    "| {} | {} | {:.0} | {:.2} | {:.2} | {:.1} | {} | {:.1} |",
                    r.engine,
                    r.updates,
                    r.writes_per_s,
                    r.pct(0.5),
                    r.pct(0.99),
                    r.max(),
                    r.bytes,
                    r.bytes as f64 / r.updates as f64
                );
            }
            println!(
                "\nratios (same run): COLE disk = {:.1} % of MPT's; COLE writes/s = {:.2}× MPT's; COLE* writes/s = {:.2}× MPT's; max commit latency COLE / COLE* = {:.1}×",
                100.0 * r_cole.bytes as f64 / r_mpt.bytes as f64,
                r_cole.writes_per_s / r_mpt.writes_per_s,
                r_star.writes_per_s / r_mpt.writes_per_s,
                r_cole.max() / r_star.max()
            );
            println!(
                "ratios (same run): forkless (LiveDB + ArchiveDB) disk = {:.1} % of MPT's; forkless writes/s = {:.2}× MPT's",
                100.0 * r_fork.bytes as f64 / r_mpt.bytes as f64,
                r_fork.writes_per_s / r_mpt.writes_per_s,
            );
            let mut rows_json: Vec<Value> = rows.iter().map(|r| r.json("disk")).collect();
            if kind == Kind::Kvstore && is_largest {
                // The same engine writing its archive rows inline: what the background writer
                // saves block import (the paper's Fig. 7).
                let inline_dir = tempfile::tempdir().unwrap();
                let (r_inline, _) = run_in(
                    "forkless (archive inline)",
                    &w,
                    blocks,
                    0,
                    inline_dir.path(),
                    |d| {
                        ForklessEngine::open(
                            d,
                            lightprov_engine_forkless::Options {
                                background_archive: false,
                                ..Default::default()
                            },
                        )
                        .unwrap()
                    },
                );
                forkless_json = Some(forkless_vs_mpt(
                    &w,
                    blocks,
                    &mut f_engine,
                    &r_fork,
                    &r_inline,
                    &r_mpt,
                ));
            }
            let lvmt = is_largest.then(|| {
                let (row, lvmt) = run_lvmt(&w, blocks, every, &setup);
                println!(
                    "lvmt (fjall, D = {depth}): {:.0} writes/s, commit p50 {:.2} / p99 {:.2} / max {:.1} ms; {} bytes on disk ({:.1} / update; {:.1} % of MPT's disk)",
                    row.writes_per_s,
                    row.pct(0.5),
                    row.pct(0.99),
                    row.max(),
                    row.bytes,
                    row.bytes as f64 / row.updates as f64,
                    100.0 * row.bytes as f64 / r_mpt.bytes as f64
                );
                rows_json.push(row.json("disk"));
                lvmt
            });
            println!();
            engines_json.push(json!({
                "workload": format!("{kind:?}").to_lowercase(),
                "blocks": blocks,
                "sampleEvery": every,
                "rows": rows_json,
            }));
            if kind == Kind::Kvstore
                && is_largest
                && let Some(lvmt) = lvmt
            {
                let dir = common::proofs_dir(proofs_dir.as_ref());
                proofs_file = Some(dump_proofs(
                    &w,
                    blocks,
                    &mpt,
                    &c_engine,
                    &s_engine,
                    lvmt.store.tree(),
                    &f_engine,
                    &dir,
                    &run_id,
                ));
            }
        }
    }

    let mixes = run_mixes(ops, mix_blocks, mix_repeat);
    let pages = page_study(smoke);

    if let Some(file) = json_out {
        let doc = json!({
            "run": run_id,
            "generator": "server-mock/benches/engines.rs",
            "build": lightprov_testkit::bench_build(smoke),
            "seed": SEED,
            "opsPerBlock": ops,
            "sizes": sizes,
            "samples": samples,
            "cole": {
                "sizeRatio": cole.size_ratio,
                "fanout": cole.fanout,
                "epsilon": cole.epsilon,
                "l0Capacity": cole.l0_capacity,
            },
            "lvmt": {
                "depth": depth,
                "setup": "INSECURE dev setup (tau from a public seed): for benchmarks only",
                "proofs": "all",
                "setupSecs": setup_secs,
                "storage": "on fjall; bytes on disk (allocated blocks)",
            },
            "engines": engines_json,
            "forkless": forkless_json,
            "forklessPages": pages,
            "mixes": mixes,
            "proofsFile": proofs_file.map(|p: PathBuf| p.file_name().map(|f| f.to_string_lossy().into_owned())),
        });
        common::write_figures(&file, &doc);
    }
}

/// Applies `blocks` workload blocks to a fresh engine in `dir` and measures it; with `every`
/// > 0, samples the bytes on disk after block 0 and every `every` blocks (and the last).
fn run_in<E: StateEngine>(
    name: &str,
    w: &Workload,
    blocks: u64,
    every: u64,
    dir: &Path,
    open: impl Fn(&Path) -> E,
) -> (Row, E)
where
    E::Error: std::fmt::Debug,
{
    let mut engine = open(dir);
    engine.apply_block(0, &w.genesis()).unwrap();
    let mut storage = Vec::new();
    if every > 0 {
        storage.push((0, engine.disk_bytes()));
    }
    let mut updates = 0u64;
    let mut commits = Vec::with_capacity(blocks as usize);
    // The workload reads current values; every engine sees the same writes.
    let mut state = HashMap::<Key, [u8; 32]>::new();
    for (k, v) in w.genesis() {
        state.insert(k, v);
    }
    let mut secs = 0.0;
    for n in 1..=blocks {
        let start = Instant::now();
        let read = |k: &Key| state.get(k).copied().unwrap_or([0; 32]);
        let writes = w.block(n, &read);
        updates += writes.len() as u64;
        let t = Instant::now();
        engine.apply_block(n, &writes).unwrap();
        commits.push(t.elapsed().as_secs_f64() * 1e3);
        for (k, v) in writes {
            state.insert(k, v);
        }
        secs += start.elapsed().as_secs_f64();
        // Sampling the disk is not timed.
        if every > 0 && (n % every == 0 || n == blocks) {
            storage.push((n, engine.disk_bytes()));
        }
        if n % 2000 == 0 {
            eprintln!("  {name}: {n}/{blocks} blocks");
        }
    }
    commits.sort_by(f64::total_cmp);
    let row = Row {
        engine: name.to_string(),
        updates,
        writes_per_s: updates as f64 / secs,
        commits,
        bytes: engine.disk_bytes(),
        storage,
    };
    (row, engine)
}

/// An LVMT store and the temporary directory it lives in.
struct LvmtRun {
    store: LvmtStore,
    _dir: tempfile::TempDir,
}

/// The same blocks committed to an LVMT on fjall (one synced batch per block), keyed by state
/// key and listed in ascending state-key order as the node does; bytes on disk as for the other
/// engines.
fn run_lvmt(w: &Workload, blocks: u64, every: u64, setup: &Arc<Setup>) -> (Row, LvmtRun) {
    let keyed = |writes: &[Write]| -> BTreeMap<B256, Word> {
        writes.iter().map(|(k, v)| (k.state_key(), *v)).collect()
    };
    let dir = tempfile::tempdir().unwrap();
    let mut lvmt = LvmtStore::open(dir.path(), setup.clone(), Proofs::All).unwrap();
    let genesis = w.genesis();
    lvmt.commit(&in_key_order(&keyed(&genesis))).unwrap();
    let mut storage = Vec::new();
    if every > 0 {
        storage.push((0, lvmt.disk_bytes()));
    }
    let mut state: HashMap<Key, Word> = genesis.into_iter().collect();
    let (mut updates, mut secs) = (0u64, 0.0);
    let mut commits = Vec::with_capacity(blocks as usize);
    for n in 1..=blocks {
        let start = Instant::now();
        let read = |k: &Key| state.get(k).copied().unwrap_or([0; 32]);
        let writes = w.block(n, &read);
        let w = keyed(&writes);
        updates += w.len() as u64;
        let t = Instant::now();
        lvmt.commit(&in_key_order(&w)).unwrap();
        commits.push(t.elapsed().as_secs_f64() * 1e3);
        state.extend(writes);
        secs += start.elapsed().as_secs_f64();
        if every > 0 && (n % every == 0 || n == blocks) {
            storage.push((n, lvmt.disk_bytes()));
        }
    }
    commits.sort_by(f64::total_cmp);
    let row = Row {
        engine: "lvmt".into(),
        updates,
        writes_per_s: updates as f64 / secs,
        commits,
        bytes: lvmt.disk_bytes(),
        storage,
    };
    (
        row,
        LvmtRun {
            store: lvmt,
            _dir: dir,
        },
    )
}

fn record(k: u64) -> Key {
    Key::Storage(KVSTORE, keccak256(k.to_be_bytes()))
}

/// Block `n` of the kvstore workload with a read fraction: the records read and the writes.
/// Draws exactly as `Workload::block` does for `Kind::Kvstore`, so at 0.5 it is that workload
/// (checked by the smoke test); 1.0 is read-only, 0.0 write-only.
fn mix_block(n: u64, ops: usize, read_fraction: f64) -> (Vec<Key>, Vec<Write>) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut reads = Vec::new();
    let mut written: HashMap<Key, Word> = HashMap::new();
    let mut order = Vec::new();
    for _ in 0..ops {
        let k = rng.random_range(0..RECORDS);
        if rng.random_bool(read_fraction) {
            reads.push(record(k));
        } else {
            let mut value = [0u8; 32];
            rng.fill(&mut value);
            if written.insert(record(k), value).is_none() {
                order.push(record(k));
            }
        }
    }
    let writes = order
        .iter()
        .filter_map(|k| written.get(k).map(|v| (*k, *v)))
        .collect();
    (reads, writes)
}

/// The mix at 0.5 draws the same writes as the node's kvstore workload.
fn mix_matches_the_workload(ops: usize) {
    let w = Workload {
        kind: Kind::Kvstore,
        seed: SEED,
        ops_per_block: ops,
    };
    let genesis: HashMap<Key, Word> = w.genesis().into_iter().collect();
    let read = |k: &Key| genesis.get(k).copied().unwrap_or([0; 32]);
    for n in 1..=5 {
        assert_eq!(mix_block(n, ops, 0.5).1, w.block(n, &read), "block {n}");
    }
}

/// Throughput under the three mixes: each engine fresh from the kvstore genesis, `blocks`
/// blocks of `ops` operations; a read is `get` of the record at the head, the writes are one
/// synced commit per block. Operations per second count reads and writes alike.
///
/// Every (engine, mix) runs `repeat` times after one untimed warm-up run of 50 blocks per
/// engine; the repetitions are interleaved (engine order rotated each round), so a slow spell of
/// the machine's disk falls on every engine alike. The figure is the median; min and max are kept.
fn run_mixes(ops: usize, blocks: u64, repeat: usize) -> Value {
    let mixes = [("read-only", 1.0), ("read-write", 0.5), ("write-only", 0.0)];
    let engines = ["mpt (fjall)", "mpt (redb)", "cole", "cole*"];
    println!(
        "Throughput by workload mix — kvstore records, {ops} ops per block, {blocks} blocks from genesis, seed {SEED}; reads served by the engine at the head; one synced commit per block; median of {repeat} interleaved runs (min–max)\n"
    );
    let genesis = Workload {
        kind: Kind::Kvstore,
        seed: SEED,
        ops_per_block: ops,
    }
    .genesis();
    let run = |name: &str, fraction: f64, blocks: u64| -> (u64, u64, f64) {
        let dir = tempfile::tempdir().unwrap();
        match name {
            "mpt (fjall)" => run_mix(
                MptEngine::open(Arc::new(FjallStore::open(dir.path()).unwrap())).unwrap(),
                &genesis,
                ops,
                fraction,
                blocks,
            ),
            "mpt (redb)" => run_mix(
                MptEngine::open(Arc::new(RedbStore::open(dir.path()).unwrap())).unwrap(),
                &genesis,
                ops,
                fraction,
                blocks,
            ),
            "cole" => run_mix(
                ColeEngine::open(dir.path(), Params::cole(), Options::default()).unwrap(),
                &genesis,
                ops,
                fraction,
                blocks,
            ),
            _ => run_mix(
                ColeEngine::open(dir.path(), Params::cole_star(), Options::default()).unwrap(),
                &genesis,
                ops,
                fraction,
                blocks,
            ),
        }
    };
    // Warm-up: code paths, allocator and page cache, untimed.
    for name in engines {
        run(name, 0.5, blocks.min(50));
    }
    // samples[engine][mix] = ops/s of each round.
    let mut samples = vec![vec![Vec::<f64>::new(); mixes.len()]; engines.len()];
    let mut counts = vec![vec![(0u64, 0u64); mixes.len()]; engines.len()];
    for round in 0..repeat {
        for k in 0..engines.len() {
            let e = (k + round) % engines.len();
            for (m, (_, fraction)) in mixes.iter().enumerate() {
                let (reads, writes, secs) = run(engines[e], *fraction, blocks);
                samples[e][m].push((reads + writes) as f64 / secs);
                counts[e][m] = (reads, writes);
            }
        }
    }
    let stats = |xs: &[f64]| -> (f64, f64, f64) {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[0], v[v.len() - 1])
    };
    println!("| engine | read-only ops/s | read-write ops/s | write-only ops/s |");
    println!("|--------|----------------:|-----------------:|-----------------:|");
    let mut rows = Vec::new();
    for (e, name) in engines.iter().enumerate() {
        let cells: Vec<String> = (0..mixes.len())
            .map(|m| {
                let (med, lo, hi) = stats(&samples[e][m]);
                format!("{med:.0} ({lo:.0}–{hi:.0})")
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
        for (m, (mix, fraction)) in mixes.iter().enumerate() {
            let (med, lo, hi) = stats(&samples[e][m]);
            rows.push(json!({
                "engine": name,
                "mix": mix,
                "readFraction": fraction,
                "reads": counts[e][m].0,
                "writes": counts[e][m].1,
                "opsPerS": med,
                "minOpsPerS": lo,
                "maxOpsPerS": hi,
                "samples": samples[e][m],
            }));
        }
    }
    // Ratios per round (each round's engines ran back to back), then their median and spread.
    let ratio = |e: usize, m: usize| -> (f64, f64, f64) {
        let r: Vec<f64> = samples[e][m]
            .iter()
            .zip(&samples[0][m])
            .map(|(a, b)| a / b)
            .collect();
        stats(&r)
    };
    let mut ratios = Vec::new();
    for (e, label) in [(2, "COLE"), (3, "COLE*")] {
        let parts: Vec<String> = mixes
            .iter()
            .enumerate()
            .map(|(m, (mix, _))| {
                let (med, lo, hi) = ratio(e, m);
                ratios.push(
                    json!({"engine": engines[e], "mix": mix, "median": med, "min": lo, "max": hi}),
                );
                format!("{med:.1}× ({lo:.1}–{hi:.1}) {mix}")
            })
            .collect();
        println!(
            "\nratios (same rounds): {label} / MPT (fjall) = {}",
            parts.join(", ")
        );
    }
    println!();
    json!({
        "workload": "kvstore",
        "blocks": blocks,
        "opsPerBlock": ops,
        "seed": SEED,
        "repeat": repeat,
        "mixes": mixes.iter().map(|(m, f)| json!({"mix": m, "readFraction": f})).collect::<Vec<_>>(),
        "rows": rows,
        "ratios": ratios,
    })
}

/// One engine under one mix: (reads, writes, seconds).
fn run_mix<E: StateEngine>(
    mut engine: E,
    genesis: &[Write],
    ops: usize,
    fraction: f64,
    blocks: u64,
) -> (u64, u64, f64)
where
    E::Error: std::fmt::Debug,
{
    engine.apply_block(0, genesis).unwrap();
    let (mut reads, mut writes) = (0u64, 0u64);
    // The blocks are drawn first: the clock runs for the engine only.
    let work: Vec<_> = (1..=blocks).map(|n| mix_block(n, ops, fraction)).collect();
    let t = Instant::now();
    for (n, (rs, ws)) in (1..=blocks).zip(&work) {
        for k in rs {
            std::hint::black_box(engine.get(k, n - 1).unwrap());
        }
        engine.apply_block(n, ws).unwrap();
        reads += rs.len() as u64;
        writes += ws.len() as u64;
    }
    (reads, writes, t.elapsed().as_secs_f64())
}

/// From the engines that ran the blocks, writes, for the keys written most, provenance proofs
/// over ranges 2…128 ending at the head — COLE, COLE*, LVMT — with one MPT proof per block.
#[allow(clippy::too_many_arguments)]
fn dump_proofs(
    w: &Workload,
    blocks: u64,
    mpt: &MptEngine,
    cole: &ColeEngine,
    star: &ColeEngine,
    lvmt: &Lvmt,
    forkless: &ForklessEngine,
    dir: &Path,
    run_id: &str,
) -> PathBuf {
    use lightprov_verifier::lvmt::proof::{Trusted, verify_history};
    // The keys written in the last blocks: the ones with versions inside every range.
    let mut counts = HashMap::<Key, u32>::new();
    for n in blocks.saturating_sub(128).max(1)..=blocks {
        let read = |k: &Key| mpt.get(k, n - 1).unwrap_or([0; 32]);
        for (k, _) in w.block(n, &read) {
            *counts.entry(k).or_default() += 1;
        }
    }
    let mut keys: Vec<(Key, u32)> = counts.into_iter().collect();
    keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    keys.truncate(8);
    let head = blocks;
    let params = lvmt.setup().params();
    let trusted = Trusted {
        params,
        aroot: lvmt.aroot(),
        history_root: lvmt.history_root(),
        blocks: lvmt.blocks(),
    };
    assert_eq!(lvmt.blocks(), head + 1, "LVMT holds blocks 0..=head");
    let mut cases = Vec::new();
    for range in [2u64, 8, 32, 128] {
        let lo = head.saturating_sub(range - 1);
        for (key, _) in &keys {
            let sk: B256 = key.state_key();
            let (address, slots) = match key {
                Key::Balance(a) | Key::Nonce(a) => (*a, vec![]),
                Key::Storage(a, s) => (*a, vec![*s]),
            };
            let mpt_proofs: Vec<_> = (lo..=head)
                .map(|b| {
                    let p = mpt.account_proof(&address, &slots, b).unwrap();
                    json!({
                        "stateRoot": mpt.root(b).unwrap(),
                        "proof": lightprov_types::hex::encode(&p.encode()),
                    })
                })
                .collect();
            let cole_case = |e: &ColeEngine| {
                json!({
                    "root": e.root_at(head).unwrap(),
                    "proof": lightprov_types::hex::encode(&e.prove_history(&sk, lo, head).unwrap().encode()),
                })
            };
            let lvmt_proof = lvmt.prove_history(&sk, lo, head).unwrap().encode();
            let fk = forkless_key(key);
            let forkless_proof = forkless.prove_history(&fk, lo, head).unwrap().encode();
            let forkless_root = forkless.root(head).unwrap();
            lightprov_verifier::forkless::verify_history(
                &forkless_root,
                &fk,
                lo,
                head,
                &forkless_proof,
            )
            .unwrap();
            // Checked here first: the wasm bench times a proof known to verify.
            verify_history(&trusted, &sk, lo, head, &lvmt_proof).unwrap();
            cases.push(json!({
                "range": range,
                "stateKey": sk,
                "fromBlock": lo,
                "toBlock": head,
                "cole": cole_case(cole),
                "coleStar": cole_case(star),
                "lvmt": { "proof": lightprov_types::hex::encode(&lvmt_proof) },
                "forkless": {
                    "root": forkless_root,
                    "key": match key {
                        Key::Balance(a) => json!({ "kind": "balance", "address": a }),
                        Key::Nonce(a) => json!({ "kind": "nonce", "address": a }),
                        Key::Storage(a, s) => json!({ "kind": "storage", "address": a, "slot": s }),
                    },
                    "proof": lightprov_types::hex::encode(&forkless_proof),
                },
                "mpt": mpt_proofs,
            }));
        }
    }
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join("history-proofs.json");
    let params_bytes = params.encode();
    std::fs::write(
        &file,
        serde_json::to_vec(&json!({
            "run": run_id,
            "workload": format!("{:?}", w.kind),
            "blocks": blocks,
            "opsPerBlock": w.ops_per_block,
            "seed": w.seed,
            "lvmt": {
                "depth": params.depth(),
                "setup": "INSECURE dev setup (tau from a public seed): for benchmarks only",
                "params": lightprov_types::hex::encode(&params_bytes),
                "paramsBytes": params_bytes.len(),
                "lvmtRoot": lightprov_types::hex::encode(&lvmt.aroot()),
                "lvmtHistoryRoot": lvmt.history_root(),
                "head": head,
            },
            "cases": cases,
        }))
        .unwrap(),
    )
    .unwrap();
    println!(
        "provenance proofs (COLE, COLE*, LVMT, forkless, MPT) for ranges 2, 8, 32, 128 written to {}\n",
        common::shown(&file)
    );
    file
}

/// The head state after `blocks` workload blocks: every key's last value (zero ones dropped, as
/// a state holds no zero).
fn final_state(w: &Workload, blocks: u64) -> Vec<Write> {
    let mut state = HashMap::<Key, Word>::new();
    for (k, v) in w.genesis() {
        state.insert(k, v);
    }
    for n in 1..=blocks {
        let read = |k: &Key| state.get(k).copied().unwrap_or([0; 32]);
        for (k, v) in w.block(n, &read) {
            state.insert(k, v);
        }
    }
    let mut out: Vec<Write> = state.into_iter().filter(|(_, v)| *v != [0; 32]).collect();
    out.sort();
    out
}

/// The paper's two headline ratios at our scale (§6.2, Table 1): the LiveDB's files against an
/// MPT holding only the head state (one fresh MPT engine given the final state as one block —
/// the pruned MPT of the paper), and the ArchiveDB (with its journal) against the MPT archive
/// engine of the same run; and the blocks/s of both.
fn forkless_vs_mpt(
    w: &Workload,
    blocks: u64,
    forkless: &mut ForklessEngine,
    r_fork: &Row,
    r_inline: &Row,
    r_mpt: &Row,
) -> Value {
    forkless.checkpoint().unwrap();
    let (live, archive) = forkless.disk_split();
    let dir = tempfile::tempdir().unwrap();
    let mut head = MptEngine::open(Arc::new(FjallStore::open(dir.path()).unwrap())).unwrap();
    let state = final_state(w, blocks);
    head.apply_block(0, &state).unwrap();
    let mpt_head = head.disk_bytes();
    let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
    println!(
        "forkless archive written in the background: {:.0} writes/s vs {:.0} inline ({:.2}×); commit p99 {:.2} vs {:.2} ms",
        r_fork.writes_per_s,
        r_inline.writes_per_s,
        r_fork.writes_per_s / r_inline.writes_per_s,
        r_fork.pct(0.99),
        r_inline.pct(0.99),
    );
    println!(
        "forkless vs MPT at {blocks} blocks ({} keys in the head state): LiveDB files {live} B vs MPT head state {mpt_head} B ({:.1}× smaller; target ≥ 20×); ArchiveDB {archive} B vs MPT archive {} B ({:.1}× smaller; target ≥ 10×); blocks/s {:.2}× MPT's (target ≥ 5×)\n",
        state.len(),
        ratio(mpt_head, live),
        r_mpt.bytes,
        ratio(r_mpt.bytes, archive),
        r_fork.writes_per_s / r_mpt.writes_per_s,
    );
    json!({
        "blocks": blocks,
        "headKeys": state.len(),
        "liveBytes": live,
        "archiveBytes": archive,
        "mptHeadBytes": mpt_head,
        "mptArchiveBytes": r_mpt.bytes,
        "headRatio": ratio(mpt_head, live),
        "archiveRatio": ratio(r_mpt.bytes, archive),
        "throughputRatio": r_fork.writes_per_s / r_mpt.writes_per_s,
        "archiveInline": {
            "writesPerS": r_inline.writes_per_s,
            "backgroundWritesPerS": r_fork.writes_per_s,
            "ratio": r_fork.writes_per_s / r_inline.writes_per_s,
            "p99Ms": r_inline.pct(0.99),
            "backgroundP99Ms": r_fork.pct(0.99),
        },
        "params": {
            "pageSize": forkless.params().page_size,
            "fanout": forkless.params().fanout,
            "bucketLoad": forkless.params().bucket_load,
        },
    })
}

/// The LiveDB's root recompute time against its page size (the paper's §6.4, Fig. 8): a balance
/// file of `n` records, 100 random records changed, then the lazy rehash timed; the median of
/// the rounds.
fn page_study(smoke: bool) -> Value {
    use lightprov_engine_forkless::tree::Records;
    use lightprov_types::forkless::{Component, Params};
    let n: u64 = if smoke { 2_000 } else { 1_000_000 };
    let rounds = if smoke { 3 } else { 41 };
    println!(
        "LiveDB root recompute vs page size: a balance file of {n} records, 100 random records changed per round, median of {rounds} rounds\n"
    );
    println!("| page size | records / page | fanout | recompute µs |");
    println!("|----------:|---------------:|-------:|-------------:|");
    let mut rows = Vec::new();
    for page_size in [256u32, 512, 1024, 2048, 4096, 8192, 16384] {
        let params = Params {
            page_size,
            fanout: 32,
            bucket_load: 8,
        };
        let mut f = Records::new(Component::Balance, params);
        for r in 0..n {
            f.set(r, &r.to_be_bytes());
        }
        f.rehash();
        let mut rng = ChaCha8Rng::seed_from_u64(SEED);
        let mut times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            for _ in 0..100 {
                let r = rng.random_range(0..n);
                f.set(r, &rng.random::<u64>().to_be_bytes());
            }
            let t = Instant::now();
            std::hint::black_box(f.rehash());
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        times.sort_by(f64::total_cmp);
        let us = times[times.len() / 2];
        println!(
            "| {page_size} | {} | 32 | {us:.1} |",
            params.items_per_page(Component::Balance)
        );
        rows.push(json!({ "pageSize": page_size, "recomputeUs": us }));
    }
    println!();
    json!({ "records": n, "updates": 100, "rounds": rounds, "fanout": 32, "rows": rows })
}
