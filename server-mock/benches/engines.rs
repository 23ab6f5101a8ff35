//! Engine write throughput and bytes on disk per state update, on the kvstore (YCSB-A)
//! workload at 10^3 and 10^4 blocks. Run: `cargo bench -p lightprov-node --bench engines`
//! (`npm run bench` runs it). Prints one table; nothing is asserted.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::{path::Path, sync::Arc, time::Instant};

use lightprov_engine_api::{
    Key, StateEngine,
    kv::{FjallStore, RedbStore},
};
use lightprov_engine_mpt::MptEngine;
use lightprov_node::workload::{Kind, Workload};

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
    println!(
        "\nEngine writes — kvstore workload (YCSB A: 50% read, 50% update over 10,000 records), {ops} ops per block, seed 1"
    );
    println!(
        "one synced commit per block (state + root in one durable batch); release build; bytes on disk = allocated blocks\n"
    );
    println!(
        "| engine | store | blocks | state updates | writes/s | commit p50 ms | commit p99 ms | bytes on disk | bytes / update |"
    );
    println!(
        "|--------|-------|-------:|--------------:|---------:|--------------:|--------------:|--------------:|---------------:|"
    );
    for blocks in sizes {
        run("mpt", "fjall", blocks, ops, |d| {
            MptEngine::open(Arc::new(FjallStore::open(d).unwrap())).unwrap()
        });
        run("mpt", "redb", blocks, ops, |d| {
            MptEngine::open(Arc::new(RedbStore::open(d).unwrap())).unwrap()
        });
    }
}

/// Applies `blocks` kvstore blocks to a fresh engine and prints one row.
fn run<E: StateEngine>(
    engine_name: &str,
    store: &str,
    blocks: u64,
    ops: usize,
    open: impl Fn(&Path) -> E,
) where
    E::Error: std::fmt::Debug,
{
    let dir = tempfile::tempdir().unwrap();
    let mut engine = open(dir.path());
    let w = Workload {
        kind: Kind::Kvstore,
        seed: 1,
        ops_per_block: ops,
    };
    engine.apply_block(0, &w.genesis()).unwrap();
    let mut updates = 0u64;
    let mut commits = Vec::with_capacity(blocks as usize);
    let start = Instant::now();
    for n in 1..=blocks {
        let head = n - 1;
        let read = |k: &Key| engine.get(k, head).unwrap_or([0; 32]);
        let writes = w.block(n, &read);
        updates += writes.len() as u64;
        let t = Instant::now();
        engine.apply_block(n, &writes).unwrap();
        commits.push(t.elapsed().as_secs_f64() * 1e3);
        if n % 2000 == 0 {
            eprintln!("  {engine_name}/{store}: {n}/{blocks} blocks");
        }
    }
    let secs = start.elapsed().as_secs_f64();
    commits.sort_by(f64::total_cmp);
    let pct = |p: f64| commits[((commits.len() as f64 - 1.0) * p) as usize];
    let bytes = engine.disk_bytes();
    println!(
        "| {engine_name} | {store} | {blocks} | {updates} | {:.0} | {:.2} | {:.2} | {bytes} | {:.1} |",
        updates as f64 / secs,
        pct(0.5),
        pct(0.99),
        bytes as f64 / updates as f64
    );
}
