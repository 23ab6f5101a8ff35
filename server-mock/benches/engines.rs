//! Engines side by side — MPT (on fjall and on redb), COLE and COLE* — on the kvstore and
//! smallbank workloads at 10^3 and 10^4 blocks: bytes on disk, writes/s, per-block commit
//! latency. Then, from the 10^4-block kvstore state, provenance proofs for ranges of 2…128
//! blocks are written to `target/bench/history-proofs.json` for `tests/bench/history.mjs`,
//! which verifies them in wasm next to one MPT proof per block.
//!
//! Run: `cargo bench -p lightprov-node --bench engines` (`npm run bench` runs it). Prints tables;
//! nothing is asserted. Under `cargo test` it runs a 20-block smoke test.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::{path::Path, sync::Arc, time::Instant};

use alloy_primitives::B256;
use lightprov_engine_api::{
    Key, StateEngine,
    kv::{FjallStore, RedbStore},
};
use lightprov_engine_cole::{ColeEngine, Options, Params};
use lightprov_engine_mpt::MptEngine;
use lightprov_node::workload::{Kind, Workload};
use serde_json::json;

/// One row of the table.
struct Row {
    engine: String,
    updates: u64,
    writes_per_s: f64,
    p50: f64,
    p99: f64,
    max: f64,
    bytes: u64,
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --all-targets` runs this as a smoke test.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let sizes: Vec<u64> = std::env::var("LIGHTPROV_BENCH_BLOCKS")
        .ok()
        .map(|s| {
            s.split(',')
                .map(|x| x.parse().expect("block counts"))
                .collect()
        })
        .unwrap_or_else(|| if smoke { vec![20] } else { vec![1_000, 10_000] });
    let ops: usize = std::env::var("LIGHTPROV_BENCH_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let cole = Params::cole();
    println!(
        "\nEngines — {ops} workload ops per block, seed 1; one synced commit per block; release build; bytes on disk = allocated blocks"
    );
    println!(
        "COLE/COLE*: T = {}, m = {}, ε = {}, B = {} entries (level 0 flushed at the end of the block that fills it)\n",
        cole.size_ratio, cole.fanout, cole.epsilon, cole.l0_capacity
    );
    let largest = sizes.iter().copied().max().unwrap_or(0);
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
                seed: 1,
                ops_per_block: ops,
            };
            let keep = kind == Kind::Kvstore && blocks == largest;
            let mut rows = Vec::new();
            rows.push(run("mpt (fjall)", &w, blocks, |d| {
                MptEngine::open(Arc::new(FjallStore::open(d).unwrap())).unwrap()
            }));
            rows.push(run("mpt (redb)", &w, blocks, |d| {
                MptEngine::open(Arc::new(RedbStore::open(d).unwrap())).unwrap()
            }));
            rows.push(run("cole", &w, blocks, |d| {
                ColeEngine::open(d, Params::cole(), Options::default()).unwrap()
            }));
            rows.push(run("cole*", &w, blocks, |d| {
                ColeEngine::open(d, Params::cole_star(), Options::default()).unwrap()
            }));
            for r in &rows {
                println!(
                    "| {} | {} | {:.0} | {:.2} | {:.2} | {:.1} | {} | {:.1} |",
                    r.engine,
                    r.updates,
                    r.writes_per_s,
                    r.p50,
                    r.p99,
                    r.max,
                    r.bytes,
                    r.bytes as f64 / r.updates as f64
                );
            }
            let [mpt, _, c, cs] = &rows[..] else {
                unreachable!()
            };
            println!(
                "\nratios (same run): COLE disk = {:.1} % of MPT's; COLE writes/s = {:.2}× MPT's; COLE* writes/s = {:.2}× MPT's; max commit latency COLE / COLE* = {:.1}×\n",
                100.0 * c.bytes as f64 / mpt.bytes as f64,
                c.writes_per_s / mpt.writes_per_s,
                cs.writes_per_s / mpt.writes_per_s,
                c.max / cs.max
            );
            if keep {
                dump_proofs(&w, blocks);
            }
        }
    }
}

/// Applies `blocks` workload blocks to a fresh engine and measures it.
fn run<E: StateEngine>(name: &str, w: &Workload, blocks: u64, open: impl Fn(&Path) -> E) -> Row
where
    E::Error: std::fmt::Debug,
{
    let dir = tempfile::tempdir().unwrap();
    let (row, _) = run_in(name, w, blocks, dir.path(), open);
    row
}

fn run_in<E: StateEngine>(
    name: &str,
    w: &Workload,
    blocks: u64,
    dir: &Path,
    open: impl Fn(&Path) -> E,
) -> (Row, E)
where
    E::Error: std::fmt::Debug,
{
    let mut engine = open(dir);
    engine.apply_block(0, &w.genesis()).unwrap();
    let mut updates = 0u64;
    let mut commits = Vec::with_capacity(blocks as usize);
    // The workload reads current values; every engine sees the same writes.
    let mut state = std::collections::HashMap::<Key, [u8; 32]>::new();
    for (k, v) in w.genesis() {
        state.insert(k, v);
    }
    let start = Instant::now();
    for n in 1..=blocks {
        let read = |k: &Key| state.get(k).copied().unwrap_or([0; 32]);
        let writes = w.block(n, &read);
        updates += writes.len() as u64;
        let t = Instant::now();
        engine.apply_block(n, &writes).unwrap();
        commits.push(t.elapsed().as_secs_f64() * 1e3);
        for (k, v) in writes {
            state.insert(k, v);
        }
        if n % 2000 == 0 {
            eprintln!("  {name}: {n}/{blocks} blocks");
        }
    }
    let secs = start.elapsed().as_secs_f64();
    commits.sort_by(f64::total_cmp);
    let pct = |p: f64| commits[((commits.len() as f64 - 1.0) * p) as usize];
    let row = Row {
        engine: name.to_string(),
        updates,
        writes_per_s: updates as f64 / secs,
        p50: pct(0.5),
        p99: pct(0.99),
        max: commits.last().copied().unwrap_or(0.0),
        bytes: engine.disk_bytes(),
    };
    (row, engine)
}

/// Builds MPT, COLE and COLE* over the same blocks again and writes, for the keys written most,
/// provenance proofs over ranges 2…128 ending at the head, with one MPT proof per block.
fn dump_proofs(w: &Workload, blocks: u64) {
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (_, mpt) = run_in("mpt (proofs)", w, blocks, dirs[0].path(), |d| {
        MptEngine::open(Arc::new(FjallStore::open(d).unwrap())).unwrap()
    });
    let (_, cole) = run_in("cole (proofs)", w, blocks, dirs[1].path(), |d| {
        ColeEngine::open(d, Params::cole(), Options::default()).unwrap()
    });
    let (_, star) = run_in("cole* (proofs)", w, blocks, dirs[2].path(), |d| {
        ColeEngine::open(d, Params::cole_star(), Options::default()).unwrap()
    });
    // The keys written in the last blocks: the ones with versions inside every range.
    let mut counts = std::collections::HashMap::<Key, u32>::new();
    let mut state = std::collections::HashMap::<Key, [u8; 32]>::new();
    for n in blocks.saturating_sub(128).max(1)..=blocks {
        let read = |k: &Key| mpt.get(k, n - 1).unwrap_or([0; 32]);
        for (k, v) in w.block(n, &read) {
            *counts.entry(k).or_default() += 1;
            state.insert(k, v);
        }
    }
    let mut keys: Vec<(Key, u32)> = counts.into_iter().collect();
    keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    keys.truncate(8);
    let head = blocks;
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
            cases.push(json!({
                "range": range,
                "stateKey": sk,
                "fromBlock": lo,
                "toBlock": head,
                "cole": cole_case(&cole),
                "coleStar": cole_case(&star),
                "mpt": mpt_proofs,
            }));
        }
    }
    let out = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("bench");
    std::fs::create_dir_all(&out).unwrap();
    let file = out.join("history-proofs.json");
    std::fs::write(
        &file,
        serde_json::to_vec(&json!({
            "workload": format!("{:?}", w.kind),
            "blocks": blocks,
            "opsPerBlock": w.ops_per_block,
            "cases": cases,
        }))
        .unwrap(),
    )
    .unwrap();
    println!(
        "provenance proofs for ranges 2, 8, 32, 128 written to target/bench/history-proofs.json\n"
    );
}
