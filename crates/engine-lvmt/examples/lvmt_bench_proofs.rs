//! Writes the proofs the LVMT verifier benchmark times (tests/bench/lvmt.mjs): over the
//! **INSECURE** dev setup at D = 16, a few blocks of writes, then a presence proof of a key at
//! level 0 (1 level), of a key at level 1 (2 levels: six keys sharing their first 16 hash bits,
//! the first five fill their root entry's five key slots) and an absence proof of a key whose
//! root entry is empty. Each is checked here first.
//!
//! A 3-level proof is left out: it needs six keys sharing their first 32 hash bits, about 2^32
//! hashes each.
//!
//! `cargo run --release -p lightprov-engine-lvmt --example lvmt_bench_proofs [-- out.json]`
//! (default `target/bench/lvmt-proofs.json`). `LIGHTPROV_BENCH_LVMT_DEPTH` sets D (16 by
//! default; the report's quick mode uses 8); `LIGHTPROV_BENCH_RUN` is copied into the file as its
//! run id.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::{collections::BTreeMap, path::PathBuf, sync::Arc, time::Instant};

use alloy_primitives::{B256, keccak256};
use ark_bn254::G1Affine;
use ark_ec::AffineRepr;
use lightprov_engine_lvmt::{
    setup::Setup,
    tree::{Lvmt, colliding_keys, in_key_order},
};
use lightprov_types::{
    Word, hex,
    lvmt::{LvmtProof, TuplePath},
};
use lightprov_verifier::lvmt::{
    amt::g1_to_bytes,
    proof::{Proven, Trusted, verify},
};
use serde_json::json;

/// D unless `LIGHTPROV_BENCH_LVMT_DEPTH` says otherwise.
const DEPTH: u8 = 16;
const BLOCKS: u64 = 8;
/// Keys written besides the colliding ones.
const SPREAD: u64 = 256;

fn path_bytes(p: &TuplePath) -> usize {
    8 + 4 + 4 + 1 + 32 * p.path.len() + 1 + 32 * p.history.len()
}

/// Encoded bytes of each level: versions, quotients and, below the root, the commitment and
/// its tuple's path.
fn level_bytes(p: &LvmtProof) -> Vec<usize> {
    p.levels
        .iter()
        .map(|l| {
            6 * 8
                + 32 * l.quotients.len()
                + l.commitment.as_ref().map_or(0, |(_, p)| 32 + path_bytes(p))
        })
        .collect()
}

fn main() {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "target/bench/lvmt-proofs.json".into()),
    );
    let depth: u8 = std::env::var("LIGHTPROV_BENCH_LVMT_DEPTH")
        .ok()
        .map_or(DEPTH, |d| {
            d.parse().expect("LIGHTPROV_BENCH_LVMT_DEPTH: a depth")
        });
    let t0 = Instant::now();
    let setup = Arc::new(Setup::dev_insecure(depth, b"lightprov bench").unwrap());
    assert!(setup.is_insecure());
    eprintln!(
        "lvmt bench proofs: INSECURE dev setup (τ from a public seed; for benchmarks only), D = {depth}, built in {:.1} s",
        t0.elapsed().as_secs_f64()
    );

    // Six keys on one root entry: five take its key slots, the last goes one level down.
    let colliding = colliding_keys(0x5b, usize::from(depth), 6);
    let spread: Vec<B256> = (0..SPREAD)
        .map(|i| keccak256(format!("lightprov bench key {i}")))
        .collect();
    let mut lvmt = Lvmt::new(setup.clone());
    let t1 = Instant::now();
    for b in 0..BLOCKS {
        let mut writes: BTreeMap<B256, Word> = BTreeMap::new();
        // The colliding keys arrive one per block, so the sixth is placed after the other five.
        if let Some(k) = colliding.get(b as usize) {
            writes.insert(*k, [b as u8 + 1; 32]);
        }
        // A new eighth of the spread keys, and rewrites of some already there.
        let per = SPREAD / BLOCKS;
        for (i, k) in spread.iter().enumerate().take(((b + 1) * per) as usize) {
            if i as u64 >= b * per || (i as u64 + b).is_multiple_of(5) {
                writes.insert(*k, [(i as u64 + b) as u8; 32]);
            }
        }
        lvmt.commit(&in_key_order(&writes)).unwrap();
    }
    eprintln!(
        "lvmt bench proofs: {BLOCKS} blocks committed in {:.1} s",
        t1.elapsed().as_secs_f64()
    );

    let t = Trusted {
        params: setup.params(),
        aroot: lvmt.aroot(),
        history_root: lvmt.history_root(),
        blocks: lvmt.blocks(),
    };
    let level0 = *spread
        .iter()
        .find(|k| lvmt.slot_of(k).map(|s| s.0) == Some(0))
        .unwrap();
    let level1 = *colliding
        .iter()
        .find(|k| lvmt.slot_of(k).map(|s| s.0) == Some(1))
        .expect("the sixth colliding key sits at level 1");
    // An unwritten key whose root entry holds nothing at all.
    let absent = (0u64..)
        .map(|i| keccak256(format!("lightprov bench: never written {i}")))
        .find(|k| {
            lvmt.slot_of(k).is_none()
                && lvmt
                    .prove(k)
                    .is_some_and(|p| p.levels.len() == 1 && p.levels[0].versions == [0; 6])
        })
        .unwrap();

    let identity = g1_to_bytes(&G1Affine::zero());
    let mut cases = Vec::new();
    for (name, key, levels, present) in [
        ("presence, level 0", level0, 1usize, true),
        ("presence, level 1", level1, 2, true),
        ("absence, empty root entry", absent, 1, false),
    ] {
        let p = lvmt.prove(&key).unwrap();
        assert_eq!(p.levels.len(), levels, "{name}");
        let bytes = p.encode();
        let got = verify(&t, &key, &bytes).unwrap();
        assert_eq!(matches!(got, Proven::Present { .. }), present, "{name}");
        // Quotients at the identity (an empty coset of a sparse AMT) cost no Miller loop.
        let identities: Vec<usize> = p
            .levels
            .iter()
            .map(|l| l.quotients.iter().filter(|q| **q == identity).count())
            .collect();
        cases.push(json!({
            "name": name,
            "levels": levels,
            "present": present,
            "key": hex::encode(key.as_slice()),
            "proof": hex::encode(&bytes),
            "proofBytes": bytes.len(),
            "levelBytes": level_bytes(&p),
            "identityQuotients": identities,
        }));
    }
    let params = setup.params().encode();
    let doc = json!({
        "run": std::env::var("LIGHTPROV_BENCH_RUN").unwrap_or_default(),
        "generator": "crates/engine-lvmt/examples/lvmt_bench_proofs.rs",
        "setup": "INSECURE dev setup (tau from a public seed): for benchmarks only",
        "depth": depth,
        "params": hex::encode(&params),
        "paramsBytes": params.len(),
        "lvmtRoot": hex::encode(&lvmt.aroot()),
        "lvmtHistoryRoot": hex::encode(lvmt.history_root().as_slice()),
        "blocks": lvmt.blocks(),
        "cases": cases,
    });
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(&out, serde_json::to_string_pretty(&doc).unwrap() + "\n").unwrap();
    eprintln!(
        "lvmt bench proofs: {} cases written to {}",
        doc["cases"].as_array().map_or(0, Vec::len),
        out.display()
    );
}
