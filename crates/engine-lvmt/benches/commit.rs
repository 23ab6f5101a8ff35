//! LVMT commit throughput with and without proof maintenance: the same 10^5 writes (kvstore-like:
//! 100 blocks of 1,000 writes over 50,000 keys, a quarter rewrites) committed by an LVMT that
//! keeps every opening current, by one that keeps a 1/16 proof shard, and by one that keeps only
//! commitments. D = 16, dev setup (INSECURE, public τ — fine for timing).
//!
//! Run: `cargo bench -p lightprov-engine-lvmt --bench commit` (`npm run bench` runs it). Prints a
//! table; nothing is asserted. Under `cargo test` it runs a small smoke version.
//! `LIGHTPROV_BENCH_LVMT_DEPTH` and `LIGHTPROV_BENCH_LVMT_COMMIT_BLOCKS` change D and the block
//! count (the report's quick mode); `LIGHTPROV_BENCH_JSON` names a file for the figures as JSON,
//! `LIGHTPROV_BENCH_RUN` a run id copied into it.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    missing_docs
)]

use std::{collections::BTreeMap, sync::Arc, time::Instant};

use alloy_primitives::{B256, keccak256};
use lightprov_engine_lvmt::{
    amt::Proofs,
    setup::Setup,
    tree::{Lvmt, in_key_order},
};
use lightprov_types::Word;

fn main() {
    let smoke = !std::env::args().any(|a| a == "--bench");
    let (depth, blocks, per_block, pool) = if smoke {
        (6u8, 4u64, 50u64, 120u64)
    } else {
        (16u8, 100, 1_000, 50_000)
    };
    let env = lightprov_testkit::env_parsed;
    let depth: u8 = env("LIGHTPROV_BENCH_LVMT_DEPTH").map_or(depth, |d: u64| d as u8);
    let blocks: u64 = env("LIGHTPROV_BENCH_LVMT_COMMIT_BLOCKS").unwrap_or(blocks);
    let t = Instant::now();
    let setup = Arc::new(Setup::dev_insecure(depth, b"bench").expect("setup"));
    let derived = t.elapsed().as_secs_f64();
    // The same blocks for every run: key i is keccak256(i), values vary per block.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let block_writes: Vec<BTreeMap<B256, Word>> = (0..blocks)
        .map(|b| {
            let mut w = BTreeMap::new();
            while (w.len() as u64) < per_block {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let k = keccak256((x % pool).to_be_bytes());
                let mut v = [0u8; 32];
                v[..8].copy_from_slice(&b.to_be_bytes());
                v[8..16].copy_from_slice(&x.to_be_bytes());
                w.insert(k, v);
            }
            w
        })
        .collect();
    let writes: usize = block_writes.iter().map(BTreeMap::len).sum();
    println!(
        "\nLVMT commit — D = {depth}, {writes} writes (distinct keys per block) in {blocks} blocks over {pool} keys; dev setup (INSECURE) derived in {derived:.1} s"
    );
    println!(
        "{:<28} {:>12} {:>14} {:>12}",
        "proof maintenance", "writes/s", "block p50 ms", "vs none"
    );
    let mut roots = Vec::new();
    let mut rates = Vec::new();
    let mut rows = Vec::new();
    for (label, proofs) in [
        ("none (commitments only)", Proofs::None),
        (
            "shard 1/16",
            Proofs::Shard {
                bits: 4,
                residue: 1,
            },
        ),
        ("all (every opening)", Proofs::All),
    ] {
        let mut lvmt = Lvmt::with_proofs(setup.clone(), proofs);
        let mut lat = Vec::with_capacity(block_writes.len());
        let t = Instant::now();
        for w in &block_writes {
            let s = Instant::now();
            lvmt.commit(&in_key_order(w)).expect("commit");
            lat.push(s.elapsed().as_secs_f64() * 1e3);
        }
        let secs = t.elapsed().as_secs_f64();
        lat.sort_by(f64::total_cmp);
        let rate = writes as f64 / secs;
        rates.push(rate);
        let base = rates.first().copied().unwrap_or(rate);
        println!(
            "{label:<28} {rate:>12.0} {:>14.2} {:>11.2}×",
            lat.get(lat.len() / 2).copied().unwrap_or(0.0),
            rate / base
        );
        roots.push((lvmt.aroot(), lvmt.history_root()));
        rows.push(serde_json::json!({
            "proofs": label,
            "writesPerS": rate,
            "blockP50Ms": lat.get(lat.len() / 2).copied().unwrap_or(0.0),
            "blockMaxMs": lat.last().copied().unwrap_or(0.0),
            "vsNone": rate / base,
        }));
    }
    assert!(
        roots.windows(2).all(|w| w[0] == w[1]),
        "maintenance changed the roots"
    );
    println!("(same aroot and history root in every run)");
    if let Some(file) = std::env::var("LIGHTPROV_BENCH_JSON")
        .ok()
        .filter(|f| !f.is_empty())
    {
        let doc = serde_json::json!({
            "run": std::env::var("LIGHTPROV_BENCH_RUN").unwrap_or_default(),
            "generator": "crates/engine-lvmt/benches/commit.rs",
            "build": lightprov_testkit::bench_build(smoke),
            "depth": depth,
            "setup": "INSECURE dev setup (tau from a public seed): for benchmarks only",
            "setupSecs": derived,
            "blocks": blocks,
            "writes": writes,
            "keys": pool,
            "rows": rows,
        });
        let file = std::path::PathBuf::from(file);
        if let Some(d) = file.parent() {
            std::fs::create_dir_all(d).expect("json dir");
        }
        std::fs::write(
            &file,
            serde_json::to_string_pretty(&doc).expect("json") + "\n",
        )
        .expect("json file");
        println!("figures written to {}", file.display());
    }
}
