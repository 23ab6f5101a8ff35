//! The separate-pairings check against a reference prover with a known τ (as in the batched
//! check's tests), and against the LVMT test vectors.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::expect_used)]

use super::*;
use crate::lvmt::amt::{self, tests::sample_with};
use ark_bn254::{Fr, G1Projective};
use ark_ec::PrimeGroup;
use ark_ff::One;

#[test]
fn honest_openings_verify_as_in_the_batch() {
    for depth in [1u8, 4, 6] {
        let r = sample_with(depth, 0x5eed_1234 + u64::from(depth));
        let p = r.params();
        let n = 1u64 << depth;
        let all: Vec<Opening> = [0, 1, n / 2, n - 1].iter().map(|&i| r.open(i)).collect();
        for o in &all {
            verify_separate(&p, core::slice::from_ref(o)).unwrap();
        }
        verify_separate(&p, &all).unwrap();
        amt::verify(&p, &all).unwrap();
    }
}

#[test]
fn tampered_values_quotients_and_commitments_are_rejected() {
    let r = sample_with(6, 0xabcdef);
    let p = r.params();
    for i in [0u64, 5, 37, 63] {
        let honest = r.open(i);
        let fails = |o: Opening| {
            assert_eq!(
                verify_separate(&p, &[r.open(1), o.clone()]),
                Err(AmtError::PairingCheckFailed)
            );
            // The batched check agrees.
            assert_eq!(amt::verify(&p, &[o]), Err(AmtError::PairingCheckFailed));
        };
        let mut o = honest.clone();
        o.value += Fr::one();
        fails(o);
        for d in 0..6 {
            let mut o = honest.clone();
            o.quotients[d] =
                (o.quotients[d].into_group() + G1Projective::generator()).into_affine();
            fails(o);
        }
        let mut o = honest.clone();
        o.quotients.swap(0, 5);
        fails(o);
        let mut o = honest.clone();
        o.commitment = (o.commitment.into_group() + G1Projective::generator()).into_affine();
        fails(o);
    }
    // Malformed openings are encoding errors, as in the batch.
    let mut o = r.open(3);
    o.quotients.pop();
    assert!(matches!(
        verify_separate(&p, &[o]),
        Err(AmtError::Encoding(_))
    ));
    let mut o = r.open(3);
    o.index = 64;
    assert!(matches!(
        verify_separate(&p, &[o]),
        Err(AmtError::Encoding(_))
    ));
}

/// Every LVMT proof vector gets the same verdict from both checks.
#[test]
fn lvmt_vectors_get_the_same_verdict() {
    use crate::lvmt::proof::{Trusted, verify, verify_separate_pairings};
    use lightprov_types::hex;

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/lvmt");
    let mut seen = [0usize; 2];
    for (k, kind) in ["valid", "invalid"].iter().enumerate() {
        for f in std::fs::read_dir(root.join(kind)).unwrap().flatten() {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(f.path()).unwrap()).unwrap();
            let i = &v["inputs"];
            if i.get("fromBlock").is_some() {
                continue;
            }
            let s = |n: &str| hex::data(i[n].as_str().unwrap(), n).unwrap();
            let params = Params::decode(&s("params")).unwrap();
            let t = Trusted {
                params: &params,
                aroot: s("lvmtRoot").try_into().unwrap(),
                history_root: lightprov_types::B256::from_slice(&s("lvmtHistoryRoot")),
                blocks: hex::u64(i["number"].as_str().unwrap(), "number").unwrap() + 1,
            };
            let key = lightprov_types::B256::from_slice(&s("stateKey"));
            let proof = s("proof");
            let ours = verify(&t, &key, &proof);
            let separate = verify_separate_pairings(&t, &key, &proof);
            assert_eq!(ours, separate, "{}", f.path().display());
            assert_eq!(ours.is_ok(), k == 0, "{}", f.path().display());
            if separate
                .as_ref()
                .is_err_and(|e| e.code() == lightprov_types::ErrorCode::PairingCheckFailed)
            {
                seen[1] += 1;
            } else if separate.is_ok() {
                seen[0] += 1;
            }
        }
    }
    assert!(seen[0] >= 4 && seen[1] >= 2, "{seen:?}");
}
