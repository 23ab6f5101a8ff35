//! A quick measurement, not a benchmark (ignored by default; the benchmark proper is the
//! project's bench): load `MBT_MEASURE_KEYS` keys (default 10,000) in blocks of 1,000 writes,
//! then 128 blocks of 100 updates, and print write throughput, read, prove and verify times,
//! proof sizes, a 128-block history proof against 128 value proofs, and a diff proof.
//!
//! `cargo test -p lightprov-engine-mbt --test measure -- --ignored --nocapture`

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::print_stdout)]

use std::time::Instant;

use alloy_primitives::{B256, keccak256};
use lightprov_engine_mbt::{MbtEngine, mbt::MbtParams};
use lightprov_types::Word;
use lightprov_verifier::mbt::{
    DiffTrusted, HistoryQuery, HistoryTrusted, verify, verify_diff, verify_history,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn word(i: u64) -> Word {
    let mut w = [0u8; 32];
    w[..8].copy_from_slice(&i.to_be_bytes());
    w[31] = 1;
    w
}

#[test]
#[ignore = "a measurement: run it with --ignored --nocapture"]
fn measure() {
    let n: u64 = lightprov_testkit::env_parsed("MBT_MEASURE_KEYS").unwrap_or(10_000);
    for params in [
        MbtParams::new(10, 16).unwrap(),
        MbtParams::DEFAULT,
        MbtParams::new(14, 16).unwrap(),
    ] {
        run(n, params);
    }
}

fn run(n: u64, params: MbtParams) {
    let dir = tempfile::tempdir().unwrap();
    let mut e = MbtEngine::open(dir.path(), params).unwrap();
    let keys: Vec<B256> = (0..n).map(|i| keccak256(i.to_be_bytes())).collect();
    let t = Instant::now();
    let mut block = 0;
    for chunk in keys.chunks(1000) {
        let writes: Vec<(B256, Word)> = chunk.iter().map(|k| (*k, word(block))).collect();
        e.apply(block, &writes).unwrap();
        block += 1;
    }
    let load = t.elapsed();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let t = Instant::now();
    let first = block;
    for _ in 0..128 {
        let writes: Vec<(B256, Word)> = (0..100)
            .map(|_| (keys[rng.random_range(0..keys.len())], word(block)))
            .collect();
        e.apply(block, &writes).unwrap();
        block += 1;
    }
    let updates = t.elapsed();
    let head = block - 1;
    let sample: Vec<B256> = (0..1000)
        .map(|_| keys[rng.random_range(0..keys.len())])
        .collect();
    let t = Instant::now();
    for k in &sample {
        e.get_at(k, head).unwrap();
    }
    let get = t.elapsed() / sample.len() as u32;
    let t = Instant::now();
    let proofs: Vec<Vec<u8>> = sample
        .iter()
        .map(|k| e.prove_at(k, head).unwrap().encode())
        .collect();
    let prove = t.elapsed() / sample.len() as u32;
    let root = e.root_at(head).unwrap();
    let t = Instant::now();
    for (k, p) in sample.iter().zip(&proofs) {
        assert!(verify(&params, &root, k, p).unwrap().is_some());
    }
    let check = t.elapsed() / sample.len() as u32;
    let mean = proofs.iter().map(Vec::len).sum::<usize>() / proofs.len();
    let k = sample[0];
    let t = Instant::now();
    let history = e.prove_history(&k, first, head).unwrap().encode();
    let prove_history = t.elapsed();
    let roots: Vec<B256> = (first..=head).map(|b| e.root_at(b).unwrap()).collect();
    let t = Instant::now();
    verify_history(
        &HistoryTrusted {
            params,
            roots: &roots,
        },
        &HistoryQuery {
            key: k,
            lo: first,
            hi: head,
        },
        &history,
    )
    .unwrap();
    let check_history = t.elapsed();
    let separate: usize = (first..=head)
        .map(|b| e.prove_at(&k, b).unwrap().encode().len())
        .sum();
    let diff = e.prove_diff(head - 1, head).unwrap().encode();
    let t = Instant::now();
    let changes = verify_diff(
        &DiffTrusted {
            params,
            old_root: e.root_at(head - 1).unwrap(),
            new_root: root,
        },
        &diff,
    )
    .unwrap();
    let check_diff = t.elapsed();
    println!(
        "N={n} b={} m={} depth={} N/B={:.1}: load {:.0} writes/s, updates {:.0} writes/s; \
         get {get:?}, prove {prove:?}, verify {check:?}, value proof {mean} B; \
         128-block history {} B ({:.1}% of {separate} B in 128 value proofs), prove {prove_history:?}, \
         verify {check_history:?}; one block's diff ({} changes) {} B, verify {check_diff:?}; disk {} kB",
        params.bucket_bits(),
        params.fanout(),
        params.depth(),
        n as f64 / f64::from(params.buckets()),
        n as f64 / load.as_secs_f64(),
        12_800.0 / updates.as_secs_f64(),
        history.len(),
        100.0 * history.len() as f64 / separate as f64,
        changes.len(),
        diff.len(),
        lightprov_engine_api::StateEngine::disk_bytes(&e) / 1024,
    );
}
