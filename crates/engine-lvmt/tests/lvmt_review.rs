//! Second review of the LVMT verifier: forgeries built from the honest prover's output.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::sync::Arc;

use alloy_primitives::{B256, keccak256};
use ark_bn254::{Fr, G1Affine};
use ark_ec::AffineRepr;
use lightprov_engine_lvmt::{amt::Amt, setup::Setup, tree::Lvmt};
use lightprov_types::{
    ErrorCode, Word,
    lvmt::{Kind, LvmtHistory},
};
use lightprov_verifier::lvmt::{
    amt,
    proof::{Proven, verify, verify_history, verify_proof},
};

use crate::common;

use common::trusted;

const DEPTH: u8 = 4;

fn one(k: B256, v: u8) -> [(B256, Word); 1] {
    [(k, [v; 32])]
}

/// Six 40-bit versions packed in one scalar: a version of 2^40 or more carries into the next
/// slot, so `[v0 + v1·2^40, 0, …]` opens exactly like `[v0, v1, …]`. The byte decoder refuses
/// such versions; `verify_proof`, which takes a decoded proof, must refuse them too.
#[test]
fn a_carry_between_packed_versions_is_refused() {
    let setup = Arc::new(Setup::dev_insecure(DEPTH, b"review").unwrap());
    let mut t = Lvmt::new(setup);
    let k = keccak256(b"carried");
    t.commit(&one(k, 1)).unwrap();
    t.commit(&one(k, 2)).unwrap();
    let honest = t.prove(&k).unwrap();
    let tr = trusted(&t);
    assert_eq!(
        verify_proof(&tr, &k, &honest),
        Ok(Proven::Present {
            version: 2,
            value: [2; 32],
            block: 1
        })
    );
    assert_eq!(honest.levels.len(), 1);
    let v = honest.levels[0].versions;
    assert_eq!(v, [0, 2, 0, 0, 0, 0]);

    // A present key proven absent: its slot's version carried into slot 0.
    let mut absent = honest.clone();
    absent.levels[0].versions = [v[1] << 40, 0, 0, 0, 0, 0];
    absent.kind = Kind::Absence { others: vec![] };
    // A stale value proven latest: 2^40 carried into slot 0, slot 1 one version back.
    let old = t.prove_history(&k, 0, 0).unwrap();
    let (value, path) = old.tuples[0].clone();
    let mut stale = honest.clone();
    stale.levels[0].versions = [1 << 40, v[1] - 1, 0, 0, 0, 0];
    stale.kind = Kind::Presence {
        slot: 1,
        value,
        path,
    };
    // Past the scalar field: 2^64 − 1 in slot 5 wraps modulo r.
    let mut wrapped = honest.clone();
    wrapped.levels[0].versions[5] = u64::MAX;

    for (what, forged) in [("absent", absent), ("stale", stale), ("wrapped", wrapped)] {
        assert_eq!(
            verify_proof(&tr, &k, &forged).map_err(|e| e.code()),
            Err(ErrorCode::BadEncoding),
            "{what}"
        );
        assert_eq!(
            verify(&tr, &k, &forged.encode()).map_err(|e| e.code()),
            Err(ErrorCode::BadEncoding),
            "{what}"
        );
    }
}

/// ρ_0 = 1: two false openings whose errors cancel under equal coefficients (a value one up,
/// the same entry one down) still fail; the same true opening twice passes; the identity
/// commitment opens to zero only.
#[test]
fn the_batch_coefficients_cannot_be_cancelled() {
    let setup = Setup::dev_insecure(DEPTH, b"review").unwrap();
    let params = setup.params();
    let mut a = Amt::new(DEPTH);
    a.bump(&setup, 3, 1).unwrap();
    let o = a.open(3).unwrap();
    amt::verify(params, &[o.clone(), o.clone()]).unwrap();
    let (mut up, mut down) = (o.clone(), o.clone());
    up.value += Fr::from(1u64);
    down.value -= Fr::from(1u64);
    for batch in [
        vec![up.clone(), down.clone()],
        vec![down.clone(), up.clone()],
        vec![o.clone(), up, down],
    ] {
        assert_eq!(
            amt::verify(params, &batch).map_err(|e| e.code()),
            Err(ErrorCode::PairingCheckFailed)
        );
    }
    let zero = Amt::new(DEPTH).open(5).unwrap();
    assert_eq!(zero.commitment, G1Affine::zero());
    amt::verify(params, std::slice::from_ref(&zero)).unwrap();
    let mut lie = zero;
    lie.value = Fr::from(1u64 << 40);
    assert!(amt::verify(params, &[lie]).is_err());
}

/// History forgeries beyond the existing ones: a duplicated tuple, `first` at 0 or past the
/// latest, versions listed for an absent key, `lo > hi`, and a `latest` from before the last
/// write.
#[test]
fn history_edge_forgeries_are_rejected() {
    let setup = Arc::new(Setup::dev_insecure(DEPTH, b"review").unwrap());
    let mut t = Lvmt::new(setup);
    let k = keccak256(b"history");
    let other = keccak256(b"other");
    for b in 0..5u8 {
        t.commit(&one(if b % 2 == 0 { k } else { other }, b + 1))
            .unwrap();
    }
    let before = t.prove(&k).unwrap();
    t.commit(&one(k, 9)).unwrap();
    let tr = trusted(&t);
    let h = |lo, hi, p: &LvmtHistory| verify_history(&tr, &k, lo, hi, &p.encode());
    let honest = t.prove_history(&k, 0, 5).unwrap();
    assert_eq!(honest.tuples.len(), 4);
    assert_eq!(h(0, 5, &honest).unwrap().versions.len(), 4);

    let code = |p: &LvmtHistory| h(0, 5, p).map_err(|e| e.code()).unwrap_err();
    let mut p = honest.clone();
    p.tuples.insert(1, p.tuples[0].clone());
    assert_eq!(code(&p), ErrorCode::HistoryMismatch);
    let mut p = honest.clone();
    p.first = 0;
    assert_eq!(code(&p), ErrorCode::IncompleteRange);
    let mut p = honest.clone();
    p.first = 5;
    assert_eq!(code(&p), ErrorCode::ExtraResults);
    let mut p = honest.clone();
    p.latest = before;
    assert!(matches!(
        code(&p),
        ErrorCode::HistoryMismatch | ErrorCode::PairingCheckFailed
    ));
    // An absent key with versions listed.
    let ghost = keccak256(b"ghost");
    let mut p = t.prove_history(&ghost, 0, 5).unwrap();
    assert!(p.tuples.is_empty());
    p.tuples.clone_from(&honest.tuples);
    p.first = 1;
    assert_eq!(
        verify_history(&tr, &ghost, 0, 5, &p.encode()).map_err(|e| e.code()),
        Err(ErrorCode::ExtraResults)
    );
    // lo > hi, even as the proof's own range.
    let p = t.prove_history(&k, 3, 1).unwrap();
    assert_eq!(
        h(3, 1, &p).map_err(|e| e.code()),
        Err(ErrorCode::RangeMismatch)
    );
}
