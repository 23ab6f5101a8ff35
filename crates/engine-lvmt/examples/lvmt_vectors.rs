//! Writes the LVMT test vectors: proofs of presence, absence and history from an engine over the
//! insecure dev setup at D = 4 (keys forced into three levels), and forgeries with the code each
//! must be rejected with.
//!
//! `cargo run -p lightprov-engine-lvmt --example lvmt_vectors -- tests/vectors/lvmt`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

#[path = "../tests/common/mod.rs"]
mod common;

use alloy_primitives::{B256, keccak256};
use common::{trusted, vector_blocks, vector_keys, vector_setup};
use lightprov_engine_lvmt::tree::{Lvmt, colliding_keys};
use lightprov_testkit::vectors::VectorDir;
use lightprov_types::{
    ErrorCode, hex,
    lvmt::{FAMILY, Kind, LvmtProof},
};
use lightprov_verifier::lvmt::proof::{Proven, Version, verify, verify_history};
use serde_json::{Value, json};

fn q(v: u64) -> String {
    format!("0x{v:x}")
}

fn version(v: &Version) -> Value {
    json!({ "block": q(v.block), "version": q(v.version), "value": hex::encode(&v.value) })
}

fn main() {
    let mut out = VectorDir::from_args(&FAMILY, "crates/engine-lvmt/examples/lvmt_vectors.rs");
    let setup = vector_setup();
    let mut lvmt = Lvmt::new(setup.clone());
    for w in vector_blocks() {
        lvmt.commit(&w).unwrap();
    }
    let keys = vector_keys();
    let params = hex::encode(&setup.params().encode());
    let head = lvmt.blocks() - 1;
    let t = trusted(&lvmt);
    let base = |key: &B256, proof: &[u8]| {
        json!({
            "params": params,
            "lvmtRoot": hex::encode(&lvmt.aroot()),
            "lvmtHistoryRoot": hex::encode(lvmt.history_root().as_slice()),
            "number": q(head),
            "stateKey": hex::encode(key.as_slice()),
            "proof": hex::encode(proof),
        })
    };
    let proven = |p: Proven| match p {
        Proven::Present {
            version,
            value,
            block,
        } => {
            json!({ "ok": true, "present": true, "version": q(version), "block": q(block), "value": hex::encode(&value) })
        }
        Proven::Absent => json!({ "ok": true, "present": false }),
    };
    // Presence at each level, and absence.
    let by_level: Vec<B256> = (0..3u8)
        .filter_map(|l| {
            keys.iter()
                .find(|k| lvmt.slot_of(k).map(|s| s.0) == Some(l))
                .copied()
        })
        .collect();
    let absent = [colliding_keys(0xe1, 8, 16)[15], keccak256(b"never written")];
    for (i, k) in by_level.iter().chain(absent.iter()).enumerate() {
        let p = lvmt.prove(k).unwrap();
        let bytes = p.encode();
        let got = verify(&t, k, &bytes).unwrap();
        out.valid(&format!("proof-{i}"), base(k, &bytes), proven(got));
        // Forgeries, each rejected with its class's code. A level added below a full level
        // reaches the next level's tuple check first; without the last level, the key's own may
        // be the one missing (its tuple) or a level above it (the depth check): the registry's
        // alternative code.
        let mut forge = |what: &str, f: &dyn Fn(&mut LvmtProof) -> bool| {
            let mut x = p.clone();
            if f(&mut x) {
                let b = x.encode();
                let name = format!("proof-{i}-{what}");
                let got = verify(&t, k, &b).map_err(|e| e.code());
                let (_, code) = out.tamper_code(what, &name, got);
                out.invalid(&name, base(k, &b), code);
            }
        };
        forge("value-changed", &|x| match &mut x.kind {
            Kind::Presence { value, .. } => {
                value[0] ^= 1;
                true
            }
            Kind::Absence { others } => others.first_mut().map(|o| o.value[0] ^= 1).is_some(),
        });
        forge("stale-tuple", &|x| match &mut x.kind {
            Kind::Presence { path, .. } if path.block >= 3 => {
                path.block -= 3;
                true
            }
            _ => false,
        });
        forge("level-dropped", &|x| {
            // The last level left out: the key's own level is never reached.
            if x.levels.len() < 2 {
                return false;
            }
            x.levels.pop();
            true
        });
        forge("level-added", &|x| {
            // A level copied below the last (a copy of level 0 would not even decode).
            if x.levels.len() < 2 {
                return false;
            }
            let last = x.levels.last().cloned().unwrap();
            x.levels.push(last);
            true
        });
        forge("quotient-swapped", &|x| {
            let l = &mut x.levels[0];
            if l.quotients[1] == l.quotients[2] {
                return false;
            }
            l.quotients.swap(1, 2);
            true
        });
        forge("other-key", &|x| {
            x.key = keccak256(b"someone else");
            true
        });
        let mut short = bytes.clone();
        short.truncate(bytes.len() - 1);
        out.invalid(
            &format!("proof-{i}-truncated"),
            base(k, &short),
            ErrorCode::BadEncoding,
        );
    }
    // Histories.
    let hk = by_level[2];
    for (j, (lo, hi)) in [(0u64, head), (5, 14), (20, 20)].into_iter().enumerate() {
        let h = lvmt.prove_history(&hk, lo, hi).unwrap();
        let bytes = h.encode();
        let got = verify_history(&t, &hk, lo, hi, &bytes).unwrap();
        let mut inputs = base(&hk, &bytes);
        inputs["fromBlock"] = json!(q(lo));
        inputs["toBlock"] = json!(q(hi));
        out.valid(
            &format!("history-{j}"),
            inputs.clone(),
            json!({
                "ok": true,
                "atFrom": got.at_lo.as_ref().map(version),
                "versions": got.versions.iter().map(version).collect::<Vec<_>>(),
            }),
        );
        if h.tuples.len() >= 3 {
            let mut x = h.clone();
            x.tuples.remove(1);
            let b = x.encode();
            assert_eq!(
                verify_history(&t, &hk, lo, hi, &b).unwrap_err().code(),
                ErrorCode::HistoryMismatch
            );
            let mut inp = inputs.clone();
            inp["proof"] = json!(hex::encode(&b));
            out.invalid(
                &format!("history-{j}-version-dropped"),
                inp,
                ErrorCode::HistoryMismatch,
            );
        }
        let mut inp = inputs.clone();
        inp["toBlock"] = json!(q(hi.saturating_sub(1).max(lo)));
        if hi > lo {
            out.invalid(
                &format!("history-{j}-other-range"),
                inp,
                ErrorCode::RangeMismatch,
            );
        }
    }
    out.finish();
}
