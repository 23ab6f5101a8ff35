//! The block store in every layout: what is written is read back, by number, hash and
//! transaction hash; a store refuses another layout; a group seal a crash prevented is done on
//! open; and a writer killed with SIGKILL at random points loses no committed block.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::{path::Path, sync::Arc};

use lightprov_blockstore::{Block, BlockStore, Hash, Layout, Options, Tuning};
use lightprov_engine_api::{
    conformance::{CrashChild, crash_writer},
    kv::{FjallStore, KvStore},
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use sha3::{Digest, Keccak256};

fn h(parts: &[&[u8]]) -> Hash {
    let mut k = Keccak256::new();
    for p in parts {
        k.update(p);
    }
    k.finalize().into()
}

/// Block `n` of the test chain: its contents follow from `n` alone.
struct TestBlock {
    number: u64,
    hash: Hash,
    header: Vec<u8>,
    body: Vec<u8>,
    receipts: Vec<u8>,
    txs: Vec<Hash>,
}

fn block(n: u64) -> TestBlock {
    let b = n.to_be_bytes();
    let txs = (0..n % 7)
        .map(|i| h(&[b"tx", &b, &i.to_be_bytes()]))
        .collect();
    TestBlock {
        number: n,
        hash: h(&[b"block", &b]),
        header: [b"header".as_slice(), &b].concat(),
        body: [b"body".as_slice(), &b, &[7; 300]].concat(),
        receipts: [b"receipts".as_slice(), &b, &[9; 200]].concat(),
        txs,
    }
}

impl TestBlock {
    fn view(&self) -> Block<'_> {
        Block {
            number: self.number,
            hash: self.hash,
            header: &self.header,
            body: &self.body,
            receipts: &self.receipts,
            tx_hashes: &self.txs,
        }
    }
}

fn layouts() -> Vec<Layout> {
    let mut all = vec![Layout::HashKeyed];
    for align in [false, true] {
        for separate_index in [false, true] {
            all.push(Layout::BlockOrdered(Options {
                group: 4,
                align,
                separate_index,
            }));
        }
    }
    all
}

fn open(dir: &Path, layout: Layout) -> (Arc<FjallStore>, BlockStore) {
    let kv = Arc::new(FjallStore::open(dir).unwrap());
    let store = BlockStore::open(kv.clone(), layout, Tuning::default()).unwrap();
    (kv, store)
}

/// Every block up to `head` reads back whole, and nothing beyond it exists.
fn check(store: &BlockStore, head: u64, what: &str) {
    for n in 0..=head {
        let b = block(n);
        assert_eq!(
            store.canonical_hash(n).unwrap(),
            Some(b.hash),
            "{what}: hash of {n}"
        );
        for (part, got, want) in [
            ("header", store.header(n), &b.header),
            ("body", store.body(n), &b.body),
            ("receipts", store.receipts(n), &b.receipts),
        ] {
            assert_eq!(got.unwrap(), Some(want.clone()), "{what}: {part} {n}");
        }
        assert_eq!(
            store.number_of(&b.hash).unwrap(),
            Some(n),
            "{what}: number of {n}"
        );
        for (i, t) in b.txs.iter().enumerate() {
            assert_eq!(
                store.tx_location(t).unwrap(),
                Some((n, i as u32)),
                "{what}: tx {i} of {n}"
            );
        }
    }
    let next = block(head + 1);
    assert_eq!(
        store.canonical_hash(head + 1).unwrap(),
        None,
        "{what}: beyond the head"
    );
    assert_eq!(store.header(head + 1).unwrap(), None);
    assert_eq!(store.number_of(&next.hash).unwrap(), None);
    for t in &next.txs {
        assert_eq!(store.tx_location(t).unwrap(), None);
    }
}

#[test]
fn every_layout_reads_back_what_it_wrote_before_and_after_reopening() {
    for layout in layouts() {
        let dir = tempfile::tempdir().unwrap();
        {
            let (_, store) = open(dir.path(), layout);
            for n in 0..=21 {
                store.insert(&block(n).view()).unwrap();
            }
            check(&store, 21, &format!("{layout}"));
        }
        let (_, store) = open(dir.path(), layout);
        check(&store, 21, &format!("{layout}, reopened"));
    }
}

#[test]
fn aligned_groups_are_flushed_into_tables_of_their_own_when_they_close() {
    let dir = tempfile::tempdir().unwrap();
    let layout = Layout::BlockOrdered(Options {
        group: 4,
        align: true,
        separate_index: true,
    });
    let (_, store) = open(dir.path(), layout);
    for n in 0..=9 {
        store.insert(&block(n).view()).unwrap();
    }
    // Groups 0 and 1 closed and were ingested as a table each; blocks 8 and 9 wait in staging,
    // which was cleared at each seal and never flushed.
    assert!(store.is_sealed(0).unwrap() && store.is_sealed(1).unwrap());
    assert!(!store.is_sealed(2).unwrap());
    assert_eq!(store.staged_groups().unwrap(), vec![2]);
    let stats = store.stats();
    assert_eq!(stats.data.tables, 2, "{stats:?}");
    assert_eq!(stats.staging.map(|s| s.tables), Some(0), "{stats:?}");
    check(&store, 9, "aligned");
}

#[test]
fn a_store_refuses_another_layout() {
    let dir = tempfile::tempdir().unwrap();
    let (kv, store) = open(dir.path(), Layout::HashKeyed);
    drop(store);
    let err = BlockStore::open(kv, Layout::default(), Tuning::default()).unwrap_err();
    assert!(
        err.to_string().contains("hash-keyed") && err.to_string().contains("block-ordered"),
        "{err}"
    );
}

#[test]
fn a_zero_group_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let kv = Arc::new(FjallStore::open(dir.path()).unwrap());
    let layout = Layout::BlockOrdered(Options {
        group: 0,
        ..Options::default()
    });
    let err = BlockStore::open(kv, layout, Tuning::default()).unwrap_err();
    assert!(err.to_string().starts_with("group:"), "{err}");
}

#[test]
fn a_group_whose_seal_never_ran_is_sealed_on_open() {
    for separate_index in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::BlockOrdered(Options {
            group: 4,
            align: true,
            separate_index,
        });
        {
            let (kv, store) = open(dir.path(), layout);
            for n in 0..=6 {
                store.insert(&block(n).view()).unwrap();
            }
            // Block 7 closes group 1: its batch is durable, then the process dies before the seal.
            kv.write(store.ops(&block(7).view()).unwrap()).unwrap();
        }
        let (_, store) = open(dir.path(), layout);
        assert!(
            store.is_sealed(0).unwrap(),
            "separate index {separate_index}"
        );
        assert!(
            store.is_sealed(1).unwrap(),
            "separate index {separate_index}"
        );
        assert_eq!(store.staged_groups().unwrap(), Vec::<u64>::new());
        check(&store, 7, "after the seal on open");
    }
}

const CRASH_DIR: &str = "LIGHTPROV_BLOCKSTORE_CRASH_DIR";
const CRASH_SHARED: &str = "LIGHTPROV_BLOCKSTORE_CRASH_SHARED";

fn crash_layout(shared: bool) -> Layout {
    Layout::BlockOrdered(Options {
        group: 3,
        align: true,
        separate_index: !shared,
    })
}

/// The writer the crash test kills: opens the store in `CRASH_DIR`, goes on from its head and
/// prints `committed <n>` after each block's batch is durable and its group sealed.
#[test]
fn crash_child() {
    let layout = crash_layout(std::env::var(CRASH_SHARED).is_ok());
    crash_writer(
        CRASH_DIR,
        |dir| open(dir, layout).1,
        |store| {
            (0..)
                .find(|n| store.canonical_hash(*n).unwrap().is_none())
                .unwrap()
        },
        |store, n| {
            store.insert(&block(n).view()).unwrap();
            Some(())
        },
    );
}

#[test]
fn killed_at_random_points_loses_no_committed_block() {
    for shared in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let writer = CrashChild::new(CRASH_DIR, dir.path());
        let env: &[(&str, &str)] = if shared { &[(CRASH_SHARED, "1")] } else { &[] };
        let mut rng = ChaCha8Rng::seed_from_u64(u64::from(shared) + 7);
        let mut committed: Option<u64> = None;
        for kill in 0..12 {
            let last = writer.life(&mut rng, env, committed, 2..40, 4000);
            let (_, store) = open(dir.path(), crash_layout(shared));
            let head = (0..)
                .find(|n| store.canonical_hash(*n).unwrap().is_none())
                .unwrap()
                .checked_sub(1);
            assert!(
                head >= last,
                "kill {kill}: head {head:?} lost committed block {last:?}"
            );
            if let Some(head) = head {
                check(&store, head, &format!("kill {kill}"));
                // Every closed group is sealed; only the open one waits in staging.
                let closed = (head + 1) / 3;
                for g in 0..closed {
                    assert!(
                        store.is_sealed(g).unwrap(),
                        "kill {kill}: head {head}, group {g}"
                    );
                }
                assert!(
                    !store.is_sealed(closed).unwrap(),
                    "kill {kill}: head {head}"
                );
                let staged = store.staged_groups().unwrap();
                assert!(
                    staged.iter().all(|g| *g == closed),
                    "kill {kill}: head {head}, staged {staged:?}"
                );
            }
            committed = head;
        }
    }
}
