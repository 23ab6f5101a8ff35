//! The conformance suite, and the engine's own behaviour: reopening, absence, history proofs.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use lightprov_engine_api::{Key, StateEngine, conformance_tests};
use lightprov_engine_forkless::{ForklessEngine, Options, forkless_key};
use lightprov_types::{
    Address, B256, Word,
    forkless::{Params, Proof},
};
use lightprov_verifier::forkless::{verify_history, verify_value};

fn verify(root: &B256, key: &Key, block: u64, proof: &Proof) -> Result<Word, String> {
    // Through the wire format, as a client gets it.
    let h = verify_history(root, &forkless_key(key), block, block, &proof.encode())
        .map_err(|e| e.to_string())?;
    Ok(h.value_at(block))
}

mod default_params {
    use super::*;
    fn open(dir: &Path) -> ForklessEngine {
        ForklessEngine::open_dir(dir).unwrap()
    }
    conformance_tests!(open, verify);
}

mod small_pages_inline_archive {
    use super::*;
    fn open(dir: &Path) -> ForklessEngine {
        ForklessEngine::open(
            dir,
            Options {
                params: Params {
                    page_size: 64,
                    fanout: 3,
                    bucket_load: 2,
                },
                checkpoint_every: 3,
                background_archive: false,
            },
        )
        .unwrap()
    }
    conformance_tests!(open, verify);
}

fn small() -> Options {
    Options {
        params: Params {
            page_size: 128,
            fanout: 4,
            bucket_load: 2,
        },
        checkpoint_every: 5,
        background_archive: true,
    }
}

fn addr(i: u8) -> Address {
    Address::repeat_byte(i)
}

fn word(v: u64) -> Word {
    lightprov_engine_api::word_from_u64(v)
}

#[test]
fn absent_and_zero_are_distinct_but_both_read_zero() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = ForklessEngine::open(dir.path(), small()).unwrap();
    let zeroed = Key::Balance(addr(1));
    let never = Key::Balance(addr(2));
    e.apply_block(0, &[(zeroed, word(5))]).unwrap();
    let root = e.apply_block(1, &[(zeroed, [0; 32])]).unwrap();
    // A key's value and its history over blocks 0..=1, proven and verified.
    let value = |k: &Key| {
        let k = forkless_key(k);
        verify_value(&root, &k, &e.prove_value(&k).unwrap().encode()).unwrap()
    };
    let history = |k: &Key| {
        let k = forkless_key(k);
        verify_history(
            &root,
            &k,
            0,
            1,
            &e.prove_history(&k, 0, 1).unwrap().encode(),
        )
        .unwrap()
    };
    let z = value(&zeroed);
    assert!(z.exists);
    assert_eq!(z.value, [0; 32]);
    let n = value(&never);
    assert!(!n.exists);
    assert_eq!(n.value, [0; 32]);
    // The zero write is a change in the history; the never-written key has none.
    let h = history(&zeroed);
    assert_eq!(
        h.versions
            .iter()
            .map(|l| (l.block, l.value))
            .collect::<Vec<_>>(),
        vec![(0, word(5)), (1, [0; 32])]
    );
    let h = history(&never);
    assert!(!h.exists && h.versions.is_empty() && h.at_lo.is_none());
}

#[test]
fn histories_over_every_range_are_complete_across_empty_blocks_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let key = Key::Storage(addr(3), B256::with_last_byte(1));
    let other = Key::Nonce(addr(4));
    let mut writes_at = Vec::new();
    {
        let mut e = ForklessEngine::open(dir.path(), small()).unwrap();
        for n in 0..40u64 {
            let mut w = vec![(other, word(n))];
            if n % 3 == 1 {
                w.push((key, word(100 + n)));
                writes_at.push(n);
            }
            if n % 7 == 0 {
                w.clear(); // an empty block
            }
            e.apply_block(n, &w).unwrap();
            if n == 20 {
                drop(e);
                e = ForklessEngine::open(dir.path(), small()).unwrap();
            }
        }
    }
    let e = ForklessEngine::open(dir.path(), small()).unwrap();
    let root = e.root(39).unwrap();
    let writes_at: Vec<u64> = writes_at.into_iter().filter(|n| n % 7 != 0).collect();
    // `other` changes in every non-empty block (34 changes): its ranges start at every distance
    // from the archive rows that keep a chain value (one in 16), across the reopen.
    let other_at: Vec<u64> = (0..40).filter(|n| n % 7 != 0).collect();
    for (key, writes_at) in [(key, writes_at), (other, other_at)] {
        let fk = forkless_key(&key);
        for lo in 0..40 {
            for hi in lo..40 {
                let p = e.prove_history(&fk, lo, hi).unwrap();
                let h = verify_history(&root, &fk, lo, hi, &p.encode()).unwrap();
                let want: Vec<u64> = writes_at
                    .iter()
                    .copied()
                    .filter(|b| (lo..=hi).contains(b))
                    .collect();
                assert_eq!(
                    h.versions.iter().map(|l| l.block).collect::<Vec<_>>(),
                    want,
                    "{key:?} {lo}..={hi}"
                );
                let at_lo = writes_at.iter().copied().filter(|b| *b <= lo).max();
                assert_eq!(h.at_lo.map(|l| l.block), at_lo);
                for b in lo..=hi {
                    assert_eq!(h.value_at(b), e.get(&key, b).unwrap(), "value at {b}");
                }
            }
        }
    }
}

#[test]
fn reopening_with_other_parameters_is_refused_naming_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut e = ForklessEngine::open(dir.path(), small()).unwrap();
        e.apply_block(0, &[(Key::Balance(addr(1)), word(1))])
            .unwrap();
    }
    let mut other = small();
    other.params.page_size = 256;
    let err = ForklessEngine::open(dir.path(), other)
        .unwrap_err()
        .to_string();
    assert!(err.contains("--forkless-page-size"), "{err}");
}

#[test]
fn nonces_over_64_bits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = ForklessEngine::open(dir.path(), small()).unwrap();
    let mut w = [0u8; 32];
    w[0] = 1;
    assert!(e.apply_block(0, &[(Key::Nonce(addr(1)), w)]).is_err());
}

#[test]
fn a_staged_block_dropped_uncommitted_leaves_no_trace() {
    let dir = tempfile::tempdir().unwrap();
    let a = Key::Balance(addr(1));
    let root0;
    {
        let mut e = ForklessEngine::open(dir.path(), small()).unwrap();
        root0 = e.apply_block(0, &[(a, word(1))]).unwrap();
        for n in 1..5 {
            e.apply_block(n, &[(a, word(n + 1))]).unwrap();
        }
        // Staged, never committed: the engine is dropped (the node reopens it to discard).
        e.stage(5, &[(a, word(99)), (Key::Balance(addr(9)), word(9))])
            .unwrap();
    }
    let mut e = ForklessEngine::open(dir.path(), small()).unwrap();
    assert_eq!(e.head(), Some(4));
    assert_eq!(e.root(0).unwrap(), root0);
    assert_eq!(e.get(&a, 4).unwrap(), word(5));
    let root = e.apply_block(5, &[(a, word(7))]).unwrap();
    let v = verify_value(
        &root,
        &forkless_key(&Key::Balance(addr(9))),
        &e.prove_value(&forkless_key(&Key::Balance(addr(9))))
            .unwrap()
            .encode(),
    )
    .unwrap();
    assert!(!v.exists, "the staged block's new account is gone");
}

/// The worked example of docs/proofs.md: one account written at blocks 0 and 2, its balance's
/// history over blocks 1..=2.
#[test]
fn worked_example_of_docs_proofs_md() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = ForklessEngine::open(
        dir.path(),
        Options {
            params: Params {
                page_size: 64,
                fanout: 2,
                bucket_load: 8,
            },
            checkpoint_every: 64,
            background_archive: false,
        },
    )
    .unwrap();
    let a = Key::Balance(addr(0x11));
    e.apply_block(0, &[(a, word(5))]).unwrap();
    e.apply_block(1, &[]).unwrap();
    let root = e.apply_block(2, &[(a, word(7))]).unwrap();
    let p = e.prove_history(&forkless_key(&a), 1, 2).unwrap();
    let bytes = p.encode();
    let h = verify_history(&root, &forkless_key(&a), 1, 2, &bytes).unwrap();
    assert_eq!(h.at_lo.map(|l| (l.block, l.value)), Some((0, word(5))));
    assert_eq!(
        h.versions
            .iter()
            .map(|l| (l.block, l.value))
            .collect::<Vec<_>>(),
        vec![(2, word(7))]
    );
    if std::env::var("SHOW").is_ok() {
        println!(
            "root {root}\nlen {}\n{}",
            bytes.len(),
            lightprov_types::hex::encode(&bytes)
        );
    }
    assert_eq!(bytes.len(), 603);
    assert_eq!(
        root.to_string(),
        "0x1517a40f3af2659b54c86629cbe57cd9ddd5595477daa59972866e47d907da0f"
    );
}
