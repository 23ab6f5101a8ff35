//! A quick measurement, not a benchmark (ignored by default; the benchmark proper is the
//! project's bench): `FORKLESS_MEASURE_ACCOUNTS` accounts (default 20,000) with a balance and a
//! slot each, then 128 blocks of 200 updates in which one hot account changes every block; per
//! (page size, fanout): the time of the 128 blocks (root recompute included) and the bytes of the
//! hot key's 128-block history proof and of a cold key's value proof.
//!
//! `cargo test --release -p lightprov-engine-forkless --test measure -- --ignored --nocapture`

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::print_stdout)]

use std::time::Instant;

use lightprov_engine_api::{Key, StateEngine, word_from_u64};
use lightprov_engine_forkless::{ForklessEngine, Options};
use lightprov_types::{
    Address, B256,
    forkless::{ForklessKey, Params},
};

fn addr(i: u64) -> Address {
    let mut a = [0u8; 20];
    a[12..].copy_from_slice(&i.to_be_bytes());
    Address::from(a)
}

#[test]
#[ignore = "a measurement: run it with --ignored --nocapture"]
fn measure() {
    let n: u64 = lightprov_testkit::env_parsed("FORKLESS_MEASURE_ACCOUNTS").unwrap_or(20_000);
    for (page_size, fanout) in [
        (4096, 32),
        (4096, 2),
        (1024, 2),
        (1024, 4),
        (512, 2),
        (256, 2),
    ] {
        run(
            n,
            Params {
                page_size,
                fanout,
                bucket_load: 8,
            },
        );
    }
}

fn run(n: u64, params: Params) {
    let dir = tempfile::tempdir().unwrap();
    let mut e = ForklessEngine::open(
        dir.path(),
        Options {
            params,
            ..Options::default()
        },
    )
    .unwrap();
    let mut block = 0;
    for chunk in (0..n).collect::<Vec<_>>().chunks(2000) {
        let writes: Vec<_> = chunk
            .iter()
            .flat_map(|&i| {
                [
                    (Key::Balance(addr(i)), word_from_u64(i + 1)),
                    (
                        Key::Storage(addr(i), B256::with_last_byte(1)),
                        word_from_u64(i),
                    ),
                ]
            })
            .collect();
        e.apply_block(block, &writes).unwrap();
        block += 1;
    }
    let mut x = 7u64;
    let t = Instant::now();
    let lo = block;
    for _ in 0..128 {
        let mut writes = vec![(Key::Balance(addr(1)), word_from_u64(block))];
        for _ in 0..199 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            writes.push((Key::Balance(addr(x % n)), word_from_u64(block)));
        }
        e.apply_block(block, &writes).unwrap();
        block += 1;
    }
    let per_block = t.elapsed() / 128;
    let hi = block - 1;
    let history = e
        .prove_history(&ForklessKey::Balance(addr(1)), lo, hi)
        .unwrap()
        .encode()
        .len();
    let value = e
        .prove_value(&ForklessKey::Storage(addr(n / 2), B256::with_last_byte(1)))
        .unwrap()
        .encode()
        .len();
    println!(
        "page {:>5} B fanout {:>2}: {per_block:>10.2?}/block, 128-block history proof {history:>6} B, value proof {value:>6} B",
        params.page_size, params.fanout
    );
}
