//! A writer killed with SIGKILL at random points loses no committed block: after each kill the
//! engine reopens at a head at or past the last block the writer reported, every block's root
//! is the one reported and the one a never-crashed tree computes, and the next writer goes on
//! from there.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::expect_used)]

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, keccak256};
use lightprov_engine_api::{
    Key, StateEngine, Write,
    conformance::{CrashChild, crash_writer},
};
use lightprov_engine_pos::{Meta, PosEngine, tree};
use lightprov_types::pos::{SplitRule, prove::MemNodes};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const CRASH_DIR: &str = "LIGHTPROV_POS_CRASH_DIR";

/// Block `n`'s writes: they follow from `n` alone (some deletions, 150 keys a block).
fn writes(n: u64) -> Vec<Write> {
    (0..150u64)
        .map(|j| {
            let a = Address::from_word(keccak256((n * 7919 + j * 104_729 % 5000).to_be_bytes()));
            let v = if (n + j).is_multiple_of(11) {
                [0; 32]
            } else {
                keccak256([n.to_be_bytes(), j.to_be_bytes()].concat()).0
            };
            (Key::Balance(a), v)
        })
        .collect()
}

/// The roots of blocks `0..n` computed in memory, never crashed.
fn reference(n: u64) -> Vec<B256> {
    let (mut nodes, mut meta) = (MemNodes::default(), Meta::empty());
    (0..n)
        .map(|b| {
            let changes: BTreeMap<B256, [u8; 32]> =
                writes(b).iter().map(|(k, v)| (k.state_key(), *v)).collect();
            let up = tree::update(&nodes, &meta, &SplitRule::DEFAULT, &changes).unwrap();
            nodes.0.extend(up.nodes);
            meta = up.meta;
            meta.root
        })
        .collect()
}

/// The writer the test kills: opens the engine in `CRASH_DIR`, goes on from its head and prints
/// `committed <n>` once each block is durable.
#[test]
fn crash_child() {
    crash_writer(
        CRASH_DIR,
        |dir| PosEngine::open_dir(dir).unwrap(),
        |e| e.head().map_or(0, |h| h + 1),
        |e, n| Some(e.apply_block(n, &writes(n)).unwrap()),
    );
}

#[test]
fn killed_at_random_points_loses_no_committed_block() {
    let dir = tempfile::tempdir().unwrap();
    let writer = CrashChild::new(CRASH_DIR, dir.path(), module_path!());
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut committed: Option<u64> = None;
    let want = reference(400);
    for kill in 0..8 {
        let last = writer.life(&mut rng, &[], committed, 1..12, 6000);
        let e = PosEngine::open_dir(dir.path()).unwrap();
        let head = e.head();
        assert!(
            head >= last,
            "kill {kill}: head {head:?} lost committed block {last:?}"
        );
        let head = head.unwrap();
        assert!(head < 400, "kill {kill}: the writer ran past the reference");
        for b in 0..=head {
            assert_eq!(
                e.root(b).unwrap(),
                want[b as usize],
                "kill {kill}: root of block {b}"
            );
        }
        committed = Some(head);
    }
}
