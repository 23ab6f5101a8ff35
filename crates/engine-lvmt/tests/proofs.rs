//! LVMT proofs of presence and absence from the engine, checked by the verifier, against a
//! naive model; and a forgery for each check, including those the authors' verifier accepts
//! (a top commitment other than the trusted root, a stale tuple, a wrong level count).

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::{collections::BTreeMap, sync::Arc};

use alloy_primitives::{B256, keccak256};
use lightprov_engine_lvmt::{
    setup::Setup,
    tree::{Lvmt, colliding_keys, in_key_order},
};
use lightprov_types::{
    ErrorCode, Word,
    lvmt::{Kind, LvmtHistory, LvmtProof},
};
use lightprov_verifier::lvmt::proof::{History, Proven, Trusted, verify, verify_history};

use crate::common;

use common::{rotating_writes, trusted};

const DEPTH: u8 = 4;

struct World {
    lvmt: Lvmt,
    model: BTreeMap<B256, (u64, Word, u64)>,
    /// Every version: key → [(block, value)].
    all: BTreeMap<B256, Vec<(u64, Word)>>,
    keys: Vec<B256>,
}

/// 14 keys forced into levels 0, 1 and 2 (sharing 8 bits), plus scattered ones; rewrites.
fn world() -> World {
    let setup = Arc::new(Setup::dev_insecure(DEPTH, b"proofs").unwrap());
    let mut lvmt = Lvmt::new(setup);
    let mut keys = colliding_keys(0xe1, 8, 14);
    keys.extend((0..20u64).map(|i| keccak256((i + 1000).to_be_bytes())));
    let mut model = BTreeMap::new();
    let mut all: BTreeMap<B256, Vec<(u64, Word)>> = BTreeMap::new();
    for b in 0..30u64 {
        let writes = rotating_writes(&keys, b, 4, 7);
        lvmt.commit(&in_key_order(&writes)).unwrap();
        for (k, v) in &writes {
            let e = model.entry(*k).or_insert((0, [0; 32], 0));
            *e = (e.0 + 1, *v, b);
            all.entry(*k).or_default().push((b, *v));
        }
    }
    World {
        lvmt,
        model,
        all,
        keys,
    }
}

fn check(w: &World, key: &B256, proof: &LvmtProof) -> Result<Proven, ErrorCode> {
    verify(&trusted(&w.lvmt), key, &proof.encode()).map_err(|e| e.code())
}

#[test]
fn presence_and_absence_match_the_model() {
    let w = world();
    let levels: Vec<u8> = w.keys[..14]
        .iter()
        .map(|k| w.lvmt.slot_of(k).unwrap().0)
        .collect();
    assert!(
        levels.contains(&2),
        "the sample must reach level 2: {levels:?}"
    );
    for k in &w.keys {
        let p = w.lvmt.prove(k).unwrap();
        let (version, value, block) = w.model[k];
        assert_eq!(
            check(&w, k, &p),
            Ok(Proven::Present {
                version,
                value,
                block
            }),
            "key {k}"
        );
    }
    // Absent keys: on a colliding path (through full levels) and elsewhere.
    let mut absent = colliding_keys(0xe1, 8, 20)[14..].to_vec();
    absent.extend((0..10u64).map(|i| keccak256((i + 9999).to_be_bytes())));
    for k in &absent {
        let p = w.lvmt.prove(k).unwrap();
        assert!(matches!(p.kind, Kind::Absence { .. }));
        assert_eq!(check(&w, k, &p), Ok(Proven::Absent), "absent key {k}");
    }
    // An absence proof through three levels.
    let deep = colliding_keys(0xe1, 12, 15)[14];
    let p = w.lvmt.prove(&deep).unwrap();
    assert!(p.levels.len() >= 2);
}

fn presence_deep(w: &World) -> (B256, LvmtProof) {
    let k = *w.keys[..14]
        .iter()
        .find(|k| w.lvmt.slot_of(k).unwrap().0 == 2)
        .unwrap();
    (k, w.lvmt.prove(&k).unwrap())
}

#[test]
fn forged_presence_proofs_are_rejected() {
    let w = world();
    let (k, honest) = presence_deep(&w);
    // A changed value.
    let mut p = honest.clone();
    if let Kind::Presence { value, .. } = &mut p.kind {
        value[0] ^= 1;
    }
    assert_eq!(check(&w, &k, &p), Err(ErrorCode::HistoryMismatch));
    // A stale tuple: the AMT proves the current version, the tuple is an older one's.
    let mut p = honest.clone();
    if let Kind::Presence { path, .. } = &mut p.kind {
        path.block = path.block.saturating_sub(4);
    }
    assert_eq!(check(&w, &k, &p), Err(ErrorCode::HistoryMismatch));
    // A claimed older version in the AMT entry (the tuple's version follows it).
    let mut p = honest.clone();
    let slot = match p.kind {
        Kind::Presence { slot, .. } => usize::from(slot),
        Kind::Absence { .. } => unreachable!(),
    };
    p.levels.last_mut().unwrap().versions[slot] -= 1;
    assert_eq!(check(&w, &k, &p), Err(ErrorCode::HistoryMismatch));
    // Wrong level counts: a level dropped, a level added.
    let mut p = honest.clone();
    p.levels.pop();
    assert!(matches!(
        check(&w, &k, &p),
        Err(ErrorCode::LevelMismatch | ErrorCode::HistoryMismatch)
    ));
    let mut p = honest.clone();
    let extra = p.levels.last().unwrap().clone();
    p.levels.push(extra);
    assert_eq!(check(&w, &k, &p), Err(ErrorCode::LevelMismatch));
    // A quotient point of another entry.
    let other = w.lvmt.prove(&w.keys[20]).unwrap();
    let mut p = honest.clone();
    p.levels[0].quotients[1] = other.levels[0].quotients[1];
    if p != honest {
        assert_eq!(check(&w, &k, &p), Err(ErrorCode::PairingCheckFailed));
    }
    // A sub-AMT commitment swapped for another (its tuple no longer matches).
    let mut p = honest.clone();
    let c1 = p.levels[1].commitment.clone().unwrap();
    let c2 = p.levels[2].commitment.clone().unwrap();
    p.levels[1].commitment = Some((c2.0, c1.1));
    assert_eq!(check(&w, &k, &p), Err(ErrorCode::HistoryMismatch));
    // The proof of another key.
    let other_key = *w.keys.iter().find(|x| **x != k).unwrap();
    assert_eq!(check(&w, &other_key, &honest), Err(ErrorCode::KeyMismatch));
}

#[test]
fn a_top_commitment_other_than_the_trusted_root_is_rejected() {
    // The authors' verifier never compared the top commitment with the root: ours never reads
    // it from the proof. Verify a proof from an older state against the newer header.
    let setup = Arc::new(Setup::dev_insecure(DEPTH, b"proofs").unwrap());
    let mut lvmt = Lvmt::new(setup.clone());
    let k = keccak256(b"k");
    let w1: BTreeMap<B256, Word> = [(k, [1; 32])].into_iter().collect();
    lvmt.commit(&in_key_order(&w1)).unwrap();
    let old = lvmt.prove(&k).unwrap();
    let (old_aroot, old_history) = (lvmt.aroot(), lvmt.history_root());
    let w2: BTreeMap<B256, Word> = [(keccak256(b"other"), [2; 32])].into_iter().collect();
    lvmt.commit(&in_key_order(&w2)).unwrap();
    let t = Trusted {
        params: setup.params(),
        aroot: lvmt.aroot(),
        history_root: old_history,
        blocks: 1,
    };
    // Same history as when it was made, but the root AMT moved on.
    assert_ne!(lvmt.aroot(), old_aroot);
    let got = verify(&t, &k, &old.encode()).map_err(|e| e.code());
    assert_eq!(got, Err(ErrorCode::PairingCheckFailed));
}

#[test]
fn forged_absence_proofs_are_rejected() {
    let w = world();
    let absent = colliding_keys(0xe1, 8, 16)[15];
    let honest = w.lvmt.prove(&absent).unwrap();
    assert_eq!(check(&w, &absent, &honest), Ok(Proven::Absent));
    // A present key claimed absent: its own proof turned into an absence proof fails.
    let present = w.keys[0];
    let p = w.lvmt.prove(&present).unwrap();
    let mut forged = p.clone();
    forged.kind = Kind::Absence { others: vec![] };
    assert!(check(&w, &present, &forged).is_err());
    // The absent key's proof presented for a present key on the same path.
    let mut forged = honest.clone();
    forged.key = present;
    let got = check(&w, &present, &forged);
    assert!(
        matches!(
            got,
            // Its entries sit at other indices: the openings fail if nothing else does.
            Err(ErrorCode::KeyMismatch
                | ErrorCode::LevelMismatch
                | ErrorCode::HistoryMismatch
                | ErrorCode::PairingCheckFailed)
        ),
        "{got:?}"
    );
    // An occupant swapped for a key of another path.
    let mut forged = honest.clone();
    if let Kind::Absence { others } = &mut forged.kind {
        let far = w.lvmt.prove(&w.keys[25]).unwrap();
        if let Kind::Presence { value, path, .. } = far.kind {
            others[0] = lightprov_types::lvmt::OtherKey {
                key: w.keys[25],
                value,
                path,
            };
        }
    }
    assert_eq!(check(&w, &absent, &forged), Err(ErrorCode::LevelMismatch));
    // A level cut short: the path would go on.
    let mut forged = honest.clone();
    if forged.levels.len() > 1 {
        forged.levels.pop();
        let got = check(&w, &absent, &forged);
        assert!(got.is_err(), "{got:?}");
    }
}

#[test]
fn every_byte_of_a_proof_is_bound() {
    let w = world();
    let (k, honest) = presence_deep(&w);
    let bytes = honest.encode();
    let t = trusted(&w.lvmt);
    // Every 7th byte (a full sweep costs a pairing per byte).
    for i in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[i] ^= 0x01;
        assert!(verify(&t, &k, &b).is_err(), "flipping byte {i} is accepted");
    }
    assert!(verify(&t, &k, &bytes[..bytes.len() - 1]).is_err());
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(verify(&t, &k, &longer).is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn random_bytes_and_mutations_never_panic(
        bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600),
        flips in proptest::collection::vec((0usize..4000, 1u8..=255), 1..4),
    ) {
        let setup = Setup::dev_insecure(DEPTH, b"proofs").unwrap();
        let t = Trusted { params: setup.params(), aroot: [0; 32], history_root: B256::ZERO, blocks: 1 };
        let _ = verify(&t, &B256::ZERO, &bytes);
        let mut lvmt = Lvmt::new(Arc::new(Setup::dev_insecure(DEPTH, b"proofs").unwrap()));
        let k = keccak256(b"k");
        lvmt.commit(&[(k, [1; 32])]).unwrap();
        let mut p = lvmt.prove(&k).unwrap().encode();
        for (at, x) in &flips {
            let n = p.len();
            p[at % n] ^= x;
        }
        let t = Trusted { params: lvmt.setup().params(), aroot: lvmt.aroot(), history_root: lvmt.history_root(), blocks: 1 };
        proptest::prop_assert!(verify(&t, &k, &p).is_err());
    }
}

fn history(w: &World, key: &B256, lo: u64, hi: u64, bytes: &[u8]) -> Result<History, ErrorCode> {
    verify_history(&trusted(&w.lvmt), key, lo, hi, bytes).map_err(|e| e.code())
}

#[test]
fn histories_match_the_model() {
    let w = world();
    let mut keys = w.keys.clone();
    keys.push(keccak256(b"never written"));
    for k in &keys {
        for (lo, hi) in [
            (0, 29),
            (0, 0),
            (5, 9),
            (12, 12),
            (20, 29),
            (29, 29),
            (3, 17),
        ] {
            let p = w.lvmt.prove_history(k, lo, hi).unwrap();
            let h = history(&w, k, lo, hi, &p.encode()).unwrap();
            let mine = w.all.get(k).cloned().unwrap_or_default();
            let want: Vec<(u64, u64, Word)> = mine
                .iter()
                .enumerate()
                .filter(|(_, (b, _))| (lo..=hi).contains(b))
                .map(|(i, (b, v))| (*b, i as u64 + 1, *v))
                .collect();
            let got: Vec<(u64, u64, Word)> = h
                .versions
                .iter()
                .map(|v| (v.block, v.version, v.value))
                .collect();
            assert_eq!(got, want, "{k} {lo}..={hi}");
            let at = mine
                .iter()
                .enumerate()
                .rev()
                .find(|(_, (b, _))| *b <= lo)
                .map(|(i, (b, v))| (*b, i as u64 + 1, *v));
            assert_eq!(
                h.at_lo.map(|v| (v.block, v.version, v.value)),
                at,
                "{k} at {lo}"
            );
        }
    }
}

#[test]
fn forged_histories_are_rejected() {
    let w = world();
    let k = w.keys[3];
    let (lo, hi) = (5, 20);
    let honest = w.lvmt.prove_history(&k, lo, hi).unwrap();
    assert!(honest.tuples.len() >= 3);
    let code = |p: &LvmtHistory| history(&w, &k, lo, hi, &p.encode()).unwrap_err();
    // A version dropped from the middle: the next ones no longer match their numbers.
    let mut p = honest.clone();
    p.tuples.remove(1);
    assert_eq!(code(&p), ErrorCode::HistoryMismatch);
    // The last one dropped: the range's end is not shown.
    let mut p = honest.clone();
    p.tuples.pop();
    assert!(matches!(
        code(&p),
        ErrorCode::IncompleteRange | ErrorCode::HistoryMismatch
    ));
    // The first one dropped (numbering shifted): the version in force at lo is missing.
    let mut p = honest.clone();
    p.tuples.remove(0);
    p.first += 1;
    assert_eq!(code(&p), ErrorCode::IncompleteRange);
    // A value changed.
    let mut p = honest.clone();
    p.tuples[1].0[0] ^= 1;
    assert_eq!(code(&p), ErrorCode::HistoryMismatch);
    // Two versions swapped.
    let mut p = honest.clone();
    p.tuples.swap(0, 1);
    assert_eq!(code(&p), ErrorCode::HistoryMismatch);
    // An extra version before the range (a wider proof presented for this one).
    let mut wide = w.lvmt.prove_history(&k, 0, hi).unwrap();
    wide.lo = lo;
    if wide.tuples.len() > honest.tuples.len() {
        assert_eq!(code(&wide), ErrorCode::ExtraResults);
    }
    // Another range or key.
    assert_eq!(
        history(&w, &k, lo, hi + 1, &honest.encode()).unwrap_err(),
        ErrorCode::RangeMismatch
    );
    assert_eq!(
        history(&w, &w.keys[4], lo, hi, &honest.encode()).unwrap_err(),
        ErrorCode::KeyMismatch
    );
    // Beyond the trusted header.
    let late = w.lvmt.prove_history(&k, lo, 40).unwrap();
    assert_eq!(
        history(&w, &k, lo, 40, &late.encode()).unwrap_err(),
        ErrorCode::RangeMismatch
    );
}

#[test]
fn a_proof_shard_proves_its_keys_alike_and_refuses_the_others() {
    use lightprov_engine_lvmt::amt::Proofs;
    let full = world();
    let setup = full.lvmt.setup();
    let shard = Proofs::Shard {
        bits: 1,
        residue: 1,
    };
    let rebuild = |proofs: Proofs| {
        let s = Arc::new(Setup::dev_insecure(DEPTH, b"proofs").unwrap());
        assert_eq!(s.params().id(), setup.params().id());
        let mut t = Lvmt::with_proofs(s, proofs);
        for b in 0..full.lvmt.blocks() {
            let writes: BTreeMap<B256, Word> = full
                .all
                .iter()
                .filter_map(|(k, vs)| vs.iter().find(|(vb, _)| *vb == b).map(|(_, v)| (*k, *v)))
                .collect();
            t.commit(&in_key_order(&writes)).unwrap();
        }
        t
    };
    let sharded = rebuild(shard);
    let none = rebuild(Proofs::None);
    // Maintenance does not change the roots.
    for t in [&sharded, &none] {
        assert_eq!(t.aroot(), full.lvmt.aroot());
        assert_eq!(t.history_root(), full.lvmt.history_root());
    }
    let mut served = 0;
    let absent = (0..40u64).map(|i| keccak256((i + 77_000).to_be_bytes()));
    for key in full.keys.iter().copied().chain(absent) {
        assert!(none.prove(&key).is_none());
        let j = lightprov_types::lvmt::index_at(&keccak256(key), 0, DEPTH).unwrap();
        assert_eq!(sharded.serves(&key), j % 2 == 1);
        match sharded.prove(&key) {
            Some(p) => {
                served += 1;
                assert_eq!(p, full.lvmt.prove(&key).unwrap());
                check(&full, &key, &p).unwrap();
            }
            None => assert!(!sharded.serves(&key)),
        }
    }
    assert!(served > 10, "{served}");
}

/// The worked example of docs/proofs.md: D = 2, dev setup "docs", key 0x11…11 written once
/// (value 5) in block 0; its presence proof.
#[test]
fn worked_example_of_docs_proofs_md() {
    let setup = Arc::new(Setup::dev_insecure(2, b"docs").unwrap());
    let mut t = Lvmt::new(setup.clone());
    let key = B256::repeat_byte(0x11);
    let mut five = [0u8; 32];
    five[31] = 5;
    t.commit(&[(key, five)]).unwrap();
    let proof = t.prove(&key).unwrap().encode();
    let hex = alloy_primitives::hex::encode(&proof);
    let trusted = Trusted {
        params: setup.params(),
        aroot: t.aroot(),
        history_root: t.history_root(),
        blocks: 1,
    };
    assert_eq!(
        lightprov_types::lvmt::index_at(&keccak256(key), 0, 2),
        Some(2)
    );
    assert_eq!(proof.len(), 199);
    let doc = include_str!("../../../docs/proofs.md");
    let section = &doc[doc.find("### Worked example (LVMT)").unwrap()..];
    let block: String = section
        .split("```")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split("  ").next().unwrap_or("").replace([' ', '…'], ""))
        .collect();
    assert_eq!(block, hex, "the docs' bytes");
    assert!(section.contains(&alloy_primitives::hex::encode(t.aroot())));
    assert!(section.contains(&t.history_root().to_string()));
    assert_eq!(
        verify(&trusted, &key, &proof).unwrap(),
        Proven::Present {
            version: 1,
            value: five,
            block: 0
        }
    );
}

/// Slots go to new keys in the order a block lists its writes: two orders of the same writes
/// give the same roots when no two new keys contend for an entry, and differ exactly where
/// slot allocation differs; both states prove every key.
#[test]
fn slots_are_allocated_in_list_order() {
    let setup = Arc::new(Setup::dev_insecure(DEPTH, b"order").unwrap());
    // Six keys on one root entry (five fit, the sixth goes a level down), three elsewhere.
    let contending = colliding_keys(0xc4, usize::from(DEPTH), 6);
    let root_entry = |k: &B256| lightprov_engine_lvmt::tree::index_at(&keccak256(k), 0, DEPTH);
    let mut taken = vec![root_entry(&contending[0])];
    let spread: Vec<B256> = (0..100u64)
        .map(|i| keccak256((i + 9000).to_be_bytes()))
        .filter(|k| {
            let e = root_entry(k);
            let fresh = !taken.contains(&e);
            taken.push(e);
            fresh
        })
        .take(3)
        .collect();
    assert_eq!(spread.len(), 3);
    let writes = |keys: &[B256], v: u8| -> Vec<(B256, Word)> {
        keys.iter().map(|k| (*k, [v; 32])).collect()
    };
    let prove_all = |t: &Lvmt, keys: &[B256]| -> Vec<Vec<u8>> {
        keys.iter()
            .map(|k| {
                let p = t.prove(k).unwrap().encode();
                assert!(
                    matches!(verify(&trusted(t), k, &p), Ok(Proven::Present { .. })),
                    "{k} proves"
                );
                p
            })
            .collect()
    };

    // No contention: any order, the same roots and the same proofs.
    let mut reversed = spread.clone();
    reversed.reverse();
    let mut a = Lvmt::new(setup.clone());
    let mut b = Lvmt::new(setup.clone());
    assert_eq!(
        a.commit(&writes(&spread, 1)).unwrap(),
        b.commit(&writes(&reversed, 1)).unwrap()
    );
    assert_eq!(prove_all(&a, &spread), prove_all(&b, &spread));

    // Contention: the sixth key listed goes a level down; which one it is depends on the order.
    let mut asc = contending.clone();
    asc.sort();
    let mut desc = asc.clone();
    desc.reverse();
    let (ra, rb) = (
        a.commit(&writes(&asc, 2)).unwrap(),
        b.commit(&writes(&desc, 2)).unwrap(),
    );
    assert_eq!(a.slot_of(&asc[0]), Some((0, 1)));
    assert_eq!(b.slot_of(&asc[0]), Some((1, 1)));
    assert_eq!(a.slot_of(&asc[5]), Some((1, 1)));
    assert_eq!(b.slot_of(&asc[5]), Some((0, 1)));
    for (i, k) in asc.iter().enumerate().skip(1).take(4) {
        assert_eq!(a.slot_of(k), Some((0, i as u8 + 1)));
        assert_eq!(b.slot_of(k), Some((0, 6 - i as u8)));
    }
    // Every version is 1 on both sides, so the root AMT agrees; the tuples name other slots
    // (and another sub-AMT), so the history differs.
    assert_eq!(ra.0, rb.0);
    assert_ne!(ra.1, rb.1);
    // A rewrite bumps the slot the key was given: now the root AMT differs too.
    let (ra, rb) = (
        a.commit(&writes(&asc[1..2], 3)).unwrap(),
        b.commit(&writes(&asc[1..2], 3)).unwrap(),
    );
    assert_ne!(ra.0, rb.0);
    // Keys whose slots do not depend on the order prove the same values on both sides.
    let all: Vec<B256> = spread.iter().chain(&asc).copied().collect();
    let (pa, pb) = (prove_all(&a, &all), prove_all(&b, &all));
    for (k, (x, y)) in all.iter().zip(pa.iter().zip(&pb)) {
        let value = |t: &Lvmt, p: &[u8]| verify(&trusted(t), k, p).unwrap();
        assert_eq!(value(&a, x), value(&b, y), "{k}");
    }
}

#[test]
fn a_key_listed_twice_in_a_block_is_refused() {
    let setup = Arc::new(Setup::dev_insecure(DEPTH, b"order").unwrap());
    let mut t = Lvmt::new(setup);
    let k = keccak256(b"twice");
    let other = keccak256(b"once");
    assert_eq!(
        t.commit(&[(k, [1; 32]), (other, [2; 32]), (k, [3; 32])]),
        Err(lightprov_engine_lvmt::tree::TreeError::DuplicateKey(k))
    );
    assert_eq!(t.blocks(), 0, "nothing of the refused block is kept");
    assert_eq!(t.slot_of(&other), None);
    t.commit(&[(k, [1; 32])]).unwrap();
    assert_eq!(t.blocks(), 1);
}
