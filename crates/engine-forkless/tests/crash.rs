//! A writer killed with SIGKILL at random points (between and inside blocks, around the
//! checkpoints that flush the LiveDB files and the archive writer's batches) loses no block it
//! reported committed, and reopens to exactly the roots and histories of an engine that never
//! crashed.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use lightprov_engine_api::{
    StateEngine,
    conformance::{CrashChild, Workload, crash_writer},
};
use lightprov_engine_forkless::{ForklessEngine, Options, forkless_key};
use lightprov_types::forkless::Params;
use lightprov_verifier::forkless::verify_history;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const CRASH_DIR: &str = "LIGHTPROV_FORKLESS_CRASH_DIR";

const WORKLOAD: Workload = Workload {
    seed: 11,
    blocks: 400,
    accounts: 12,
    slots: 4,
    writes_per_block: 12,
};

fn open(dir: &Path) -> ForklessEngine {
    ForklessEngine::open(
        dir,
        Options {
            params: Params {
                page_size: 128,
                fanout: 4,
                bucket_load: 3,
            },
            checkpoint_every: 3,
            background_archive: true,
        },
    )
    .unwrap()
}

/// The writer the crash test kills: goes on from its head and prints `committed <n>` after each
/// block is durable.
#[test]
fn crash_child() {
    let blocks = WORKLOAD.blocks();
    // Out of blocks, it waits to be killed.
    crash_writer(
        CRASH_DIR,
        open,
        |e| e.head().map_or(0, |h| h + 1),
        |e, n| blocks.get(n as usize).map(|w| e.apply_block(n, w).unwrap()),
    );
}

#[test]
fn killed_at_random_points_loses_no_committed_block() {
    let blocks = WORKLOAD.blocks();
    let reference = tempfile::tempdir().unwrap();
    let mut r = open(reference.path());
    let roots: Vec<_> = blocks
        .iter()
        .enumerate()
        .map(|(n, w)| r.apply_block(n as u64, w).unwrap())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let writer = CrashChild::new(CRASH_DIR, dir.path(), module_path!());
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut committed: Option<u64> = None;
    for kill in 0..30 {
        let last = writer.life(&mut rng, &[], committed, 2..15, 3000);
        let e = open(dir.path());
        let head = e.head();
        assert!(
            head >= last,
            "kill {kill}: head {head:?} lost block {last:?}"
        );
        if let Some(head) = head {
            for n in 0..=head {
                assert_eq!(
                    e.root(n).unwrap(),
                    roots[n as usize],
                    "kill {kill}: root {n}"
                );
            }
            // The archive caught up: every key's history verifies against the head.
            for key in WORKLOAD.universe().iter().step_by(5) {
                let lo = head.saturating_sub(30);
                let p = e.prove_history(&forkless_key(key), lo, head).unwrap();
                let h = verify_history(
                    &roots[head as usize],
                    &forkless_key(key),
                    lo,
                    head,
                    &p.encode(),
                )
                .unwrap_or_else(|err| panic!("kill {kill}: {err}"));
                assert_eq!(h.value_at(head), r.get(key, head).unwrap(), "kill {kill}");
                assert_eq!(h.value_at(lo), r.get(key, lo).unwrap(), "kill {kill}");
            }
        }
        committed = head;
    }
    // The children did write (a child that failed at once would pass the loop vacuously).
    assert!(committed.is_some_and(|c| c >= 24), "{committed:?}");
}
