//! LVMT on disk: the conformance suite, the same roots and proof bytes as the in-memory LVMT,
//! refusal of damaged or foreign stores, and recovery after the process is killed at random
//! points.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::{
    collections::BTreeMap,
    path::Path,
    sync::{Arc, LazyLock},
};

use alloy_primitives::{B256, keccak256};
use lightprov_engine_api::{
    Key,
    conformance::{CrashChild, crash_writer},
};
use lightprov_engine_lvmt::{
    amt::Proofs,
    setup::Setup,
    store::{LvmtStore, StateProof, StoreError, state_root},
    tree::{Lvmt, TreeError, in_key_order},
};
use lightprov_types::Word;
use lightprov_verifier::lvmt::proof::{Trusted, verify_history};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::common;

use common::{vector_blocks, vector_setup};

const DEPTH: u8 = 4;

static SETUP: LazyLock<Arc<Setup>> =
    LazyLock::new(|| Arc::new(Setup::dev_insecure(DEPTH, b"store").unwrap()));

fn open(dir: &Path) -> LvmtStore {
    LvmtStore::open(dir, SETUP.clone(), Proofs::All).unwrap()
}

/// Checks the proof against the one-word root, then the history of `block..=block` against
/// the roots it names; returns the value after `block`.
fn verify(root: &B256, key: &Key, block: u64, proof: &StateProof) -> Result<Word, String> {
    if state_root(&(proof.aroot, proof.history_root)) != *root {
        return Err("the proof names other roots".into());
    }
    let t = Trusted {
        params: SETUP.params(),
        aroot: proof.aroot,
        history_root: proof.history_root,
        blocks: proof.blocks,
    };
    let h = verify_history(&t, &key.state_key(), block, block, &proof.history.encode())
        .map_err(|e| e.to_string())?;
    Ok(h.versions
        .last()
        .or(h.at_lo.as_ref())
        .map_or([0; 32], |v| v.value))
}

lightprov_engine_api::conformance_tests!(open, verify);

/// The store, reopened every few blocks, keeps the roots, the slots and the proof bytes of the
/// in-memory LVMT given the same writes (the workload of the committed vectors, whose bytes
/// the in-memory LVMT reproduces).
#[test]
fn the_store_proves_byte_for_byte_like_the_memory_tree() {
    let setup = vector_setup();
    let dir = tempfile::tempdir().unwrap();
    let mut memory = Lvmt::new(setup.clone());
    let mut store = LvmtStore::open(dir.path(), setup.clone(), Proofs::All).unwrap();
    let blocks = vector_blocks();
    for (b, w) in blocks.iter().enumerate() {
        if b % 5 == 4 {
            drop(store);
            store = LvmtStore::open(dir.path(), setup.clone(), Proofs::All).unwrap();
            assert_eq!(store.blocks(), b as u64);
        }
        assert_eq!(store.commit(w).unwrap(), memory.commit(w).unwrap());
    }
    drop(store);
    let store = LvmtStore::open(dir.path(), setup.clone(), Proofs::All).unwrap();
    let t = store.tree();
    assert_eq!(
        (t.aroot(), t.history_root()),
        (memory.aroot(), memory.history_root())
    );
    let keys: Vec<B256> = blocks
        .iter()
        .flatten()
        .map(|(k, _)| *k)
        .chain([keccak256(b"never written")])
        .collect();
    for k in &keys {
        assert_eq!(t.slot_of(k), memory.slot_of(k));
        assert_eq!(
            t.prove(k).unwrap().encode(),
            memory.prove(k).unwrap().encode(),
            "proof of {k}"
        );
        for (lo, hi) in [(0, 23), (3, 9), (17, 17)] {
            assert_eq!(
                t.prove_history(k, lo, hi).unwrap().encode(),
                memory.prove_history(k, lo, hi).unwrap().encode(),
                "history of {k} over {lo}..={hi}"
            );
        }
    }
    for b in 0..24u64 {
        assert_eq!(t.block_tuples(b), memory.block_tuples(b));
    }
}

/// The committed vectors (tests/vectors/lvmt/valid), byte for byte, from a reopened store.
#[test]
fn the_reopened_store_reproduces_the_committed_vectors() {
    let setup = vector_setup();
    let dir = tempfile::tempdir().unwrap();
    {
        let mut s = LvmtStore::open(dir.path(), setup.clone(), Proofs::All).unwrap();
        for w in vector_blocks() {
            s.commit(&w).unwrap();
        }
    }
    let s = LvmtStore::open(dir.path(), setup.clone(), Proofs::All).unwrap();
    let t = s.tree();
    let hex = |v: &serde_json::Value| v.as_str().unwrap().to_string();
    let u64_of = |v: &serde_json::Value| {
        u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
    };
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/lvmt/valid");
    let mut checked = 0;
    for f in std::fs::read_dir(vectors).unwrap().flatten() {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(f.path()).unwrap()).unwrap();
        let i = &v["inputs"];
        assert_eq!(
            hex(&i["params"]),
            lightprov_types::hex::encode(&setup.params().encode())
        );
        assert_eq!(
            hex(&i["lvmtRoot"]),
            lightprov_types::hex::encode(&t.aroot())
        );
        assert_eq!(
            hex(&i["lvmtHistoryRoot"]),
            lightprov_types::hex::encode(t.history_root().as_slice())
        );
        assert_eq!(u64_of(&i["number"]) + 1, s.blocks());
        let key: B256 = i["stateKey"].as_str().unwrap().parse().unwrap();
        let proof = if i.get("fromBlock").is_some() {
            t.prove_history(&key, u64_of(&i["fromBlock"]), u64_of(&i["toBlock"]))
                .unwrap()
                .encode()
        } else {
            t.prove(&key).unwrap().encode()
        };
        assert_eq!(
            hex(&i["proof"]),
            lightprov_types::hex::encode(&proof),
            "{}",
            f.path().display()
        );
        checked += 1;
    }
    assert_eq!(checked, 8, "every valid LVMT vector");
}

#[test]
fn a_sharded_store_reopens_with_its_shard_only() {
    let dir = tempfile::tempdir().unwrap();
    let shard = Proofs::Shard {
        bits: 2,
        residue: 1,
    };
    let mut memory = Lvmt::with_proofs(SETUP.clone(), shard);
    {
        let mut s = LvmtStore::open(dir.path(), SETUP.clone(), shard).unwrap();
        for w in vector_blocks().iter().take(6) {
            assert_eq!(s.commit(w).unwrap(), memory.commit(w).unwrap());
        }
    }
    let s = LvmtStore::open(dir.path(), SETUP.clone(), shard).unwrap();
    for k in vector_blocks().iter().flatten().map(|(k, _)| k) {
        assert_eq!(
            s.tree().prove(k).map(|p| p.encode()),
            memory.prove(k).map(|p| p.encode())
        );
    }
    drop(s);
    match LvmtStore::open(dir.path(), SETUP.clone(), Proofs::All) {
        Err(StoreError::Settings { stored, given }) => {
            assert!(stored.contains("shard 2 bits residue 1"), "{stored}");
            assert!(given.contains("every opening"), "{given}");
        }
        other => panic!("opened with another shard: {other:?}"),
    }
    let other = Arc::new(Setup::dev_insecure(DEPTH, b"other").unwrap());
    assert!(matches!(
        LvmtStore::open(dir.path(), other, shard),
        Err(StoreError::Settings { .. })
    ));
}

#[test]
fn a_refused_block_leaves_the_store_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = open(dir.path());
    let k = keccak256(b"k");
    let r0 = s.commit(&[(k, [1; 32])]).unwrap();
    assert!(matches!(
        s.commit(&[(keccak256(b"new"), [2; 32]), (k, [2; 32]), (k, [3; 32])]),
        Err(StoreError::Tree(TreeError::DuplicateKey(d))) if d == k
    ));
    assert_eq!(s.blocks(), 1);
    assert_eq!(s.tree().slot_of(&keccak256(b"new")), None);
    assert_eq!((s.tree().aroot(), s.tree().history_root()), r0);
    let r1 = s.commit(&[(k, [2; 32])]).unwrap();
    drop(s);
    let s = open(dir.path());
    assert_eq!(s.roots_at(0), Some(r0));
    assert_eq!(s.roots_at(1), Some(r1));
    assert_eq!(s.tree().value_at(&k, 0), [1; 32]);
    assert_eq!(s.tree().value_at(&k, 1), [2; 32]);
}

/// Overwrites one record of a keyspace with `bytes` (the store closed).
fn damage(dir: &Path, space: &str, pick: impl Fn(&[u8]) -> bool, bytes: &[u8]) {
    let db = fjall::Database::builder(dir).open().unwrap();
    let ks = db
        .keyspace(space, fjall::KeyspaceCreateOptions::default)
        .unwrap();
    let key = ks
        .iter()
        .map(|g| g.into_inner().unwrap().0)
        .find(|k| pick(k))
        .expect("a record to damage");
    ks.insert(key, bytes.to_vec()).unwrap();
    db.persist(fjall::PersistMode::SyncAll).unwrap();
}

#[test]
fn damaged_records_are_refused_by_name() {
    let fresh = || {
        let dir = tempfile::tempdir().unwrap();
        let mut s = open(dir.path());
        for w in vector_blocks().iter().take(4) {
            s.commit(w).unwrap();
        }
        dir
    };
    let cases: [(&str, &[u8], &str); 5] = [
        ("lvmt_points", &[0xff; 384], "lvmt_points/"),
        ("lvmt_points", &[0; 10], "lvmt_points/"),
        ("lvmt_tuples", &[7; 75], "lvmt_tuples/"),
        ("lvmt_blocks", &[0; 10], "lvmt_blocks/0"),
        ("lvmt_meta", &[1, 2, 3], "lvmt_meta/head"),
    ];
    for (space, bytes, named) in cases {
        let dir = fresh();
        let pick = |k: &[u8]| space != "lvmt_meta" || k == b"head";
        damage(dir.path(), space, pick, bytes);
        match LvmtStore::open(dir.path(), SETUP.clone(), Proofs::All) {
            Err(e @ StoreError::Corrupt { .. }) => {
                assert!(e.to_string().contains(named), "{space}: {e}");
            }
            other => panic!("{space} damaged, yet: {other:?}"),
        }
    }
    // A version moved by one: the records no longer give the recorded root.
    let dir = fresh();
    let mut v = vec![0u8; 48];
    v[15] = 9;
    damage(dir.path(), "lvmt_versions", |_| true, &v);
    let s = LvmtStore::open(dir.path(), SETUP.clone(), Proofs::All).map(|s| s.blocks());
    assert!(matches!(s, Err(StoreError::Corrupt { .. })), "{s:?}");
}

// ---- crash recovery: a child process commits blocks until it is killed ----

const CRASH_DIR: &str = "LVMT_CRASH_DIR";

fn crash_writes(b: u64) -> Vec<(B256, Word)> {
    let mut rng = ChaCha8Rng::seed_from_u64(b.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 5);
    let n = rng.random_range(0..=10);
    let w: BTreeMap<B256, Word> = (0..n)
        .map(|_| {
            let k = keccak256(rng.random_range(0..80u64).to_be_bytes());
            (k, [rng.random_range(0..=255u8); 32])
        })
        .collect();
    in_key_order(&w)
}

/// Not a test on its own: the body of the child process of `survives_kill_9`.
#[test]
fn crash_child() {
    crash_writer(CRASH_DIR, open, LvmtStore::blocks, |s, b| {
        Some(s.commit(&crash_writes(b)).unwrap())
    });
}

#[test]
fn survives_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let writer = CrashChild::new(CRASH_DIR, dir.path(), module_path!());
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut reference = Lvmt::new(SETUP.clone());
    let mut want = Vec::new();
    let mut committed: Option<u64> = None;
    for kill in 0..8 {
        let last = writer.life(&mut rng, &[], committed, 3..25, 4000);
        let s = LvmtStore::open(dir.path(), SETUP.clone(), Proofs::All)
            .unwrap_or_else(|e| panic!("reopen after kill {kill}: {e}"));
        let head = s.blocks().checked_sub(1).expect("a block survives");
        assert!(
            Some(head) >= last,
            "kill {kill}: head {head} lost committed block {last:?}"
        );
        committed = Some(head);
        // The roots of an LVMT that never crashed, and proofs that verify.
        while (want.len() as u64) <= head {
            want.push(reference.commit(&crash_writes(want.len() as u64)).unwrap());
        }
        for b in 0..=head {
            assert_eq!(
                s.roots_at(b),
                Some(want[b as usize]),
                "kill {kill}: roots of {b}"
            );
        }
        let (aroot, history_root) = want[head as usize];
        let t = Trusted {
            params: SETUP.params(),
            aroot,
            history_root,
            blocks: head + 1,
        };
        for i in (0..80u64).step_by(9) {
            let k = keccak256(i.to_be_bytes());
            let p = s.tree().prove_history(&k, 0, head).unwrap().encode();
            let h = verify_history(&t, &k, 0, head, &p)
                .unwrap_or_else(|e| panic!("kill {kill}: history of key {i}: {e}"));
            let written: Vec<u64> = (0..=head)
                .filter(|b| crash_writes(*b).iter().any(|(w, _)| *w == k))
                .collect();
            let got: Vec<u64> = h.versions.iter().map(|v| v.block).collect();
            assert_eq!(got, written, "kill {kill}: versions of key {i}");
        }
    }
}

#[test]
fn a_staged_block_is_durable_only_once_persisted() {
    let dir = tempfile::tempdir().unwrap();
    let blocks = vector_blocks();
    let mut s = open(dir.path());
    let r0 = s.commit(&blocks[0]).unwrap();
    // Discarded: as if never staged.
    let r1 = s.stage(&blocks[1]).unwrap();
    assert!(matches!(s.stage(&blocks[2]), Err(StoreError::Staged)));
    s.discard_staged().unwrap();
    assert_eq!(s.blocks(), 1);
    assert_eq!((s.tree().aroot(), s.tree().history_root()), r0);
    // Staged, then the process goes away: the store reopens without it.
    assert_eq!(s.stage(&blocks[1]).unwrap(), r1);
    drop(s);
    let mut s = open(dir.path());
    assert_eq!(s.blocks(), 1);
    assert_eq!(s.stage(&blocks[1]).unwrap(), r1);
    s.persist_staged().unwrap();
    drop(s);
    let s = open(dir.path());
    assert_eq!(s.roots_at(1), Some(r1));
}
