//! Writes the LVMT test vectors: proofs of presence, absence and history from an engine over the
//! insecure dev setup at D = 4 (keys forced into three levels), and forgeries with the code each
//! must be rejected with.
//!
//! `cargo run -p lightprov-engine-lvmt --example lvmt_vectors -- tests/vectors/lvmt`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    missing_docs
)]

use std::{collections::BTreeMap, path::PathBuf, sync::Arc};

use alloy_primitives::{B256, keccak256};
use lightprov_engine_lvmt::{
    setup::Setup,
    tree::{Lvmt, colliding_keys, in_key_order},
};
use lightprov_types::{ErrorCode, Word, hex, lvmt::Kind};
use lightprov_verifier::lvmt::proof::{Proven, Trusted, Version, verify, verify_history};
use serde_json::{Value, json};

fn q(v: u64) -> String {
    format!("0x{v:x}")
}

fn version(v: &Version) -> Value {
    json!({ "block": q(v.block), "version": q(v.version), "value": hex::encode(&v.value) })
}

fn main() {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "tests/vectors/lvmt".into()),
    );
    for kind in ["valid", "invalid"] {
        let d = out.join(kind);
        std::fs::create_dir_all(&d).unwrap();
        for f in std::fs::read_dir(&d).unwrap().flatten() {
            std::fs::remove_file(f.path()).unwrap();
        }
    }
    let setup = Arc::new(Setup::dev_insecure(4, b"lightprov test vectors").unwrap());
    let mut lvmt = Lvmt::new(setup.clone());
    let mut keys = colliding_keys(0xe1, 8, 14);
    keys.extend((0..6u64).map(|i| keccak256((i + 500).to_be_bytes())));
    for b in 0..24u64 {
        let writes: BTreeMap<B256, Word> = keys
            .iter()
            .enumerate()
            .filter(|(i, _)| (*i as u64 + b).is_multiple_of(3) || (b < 3 && *i < 14))
            .map(|(i, k)| (*k, [(b * 5 + i as u64) as u8; 32]))
            .collect();
        lvmt.commit(&in_key_order(&writes)).unwrap();
    }
    let params = hex::encode(&setup.params().encode());
    let head = lvmt.blocks() - 1;
    let t = Trusted {
        params: setup.params(),
        aroot: lvmt.aroot(),
        history_root: lvmt.history_root(),
        blocks: lvmt.blocks(),
    };
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
    let mut written = [0usize; 2];
    let mut write = |kind: usize, name: &str, inputs: Value, expected: Value| {
        let v = json!({
            "generator": "crates/engine-lvmt/examples/lvmt_vectors.rs",
            "description": name,
            "inputs": inputs,
            "expected": expected,
        });
        let dir = out.join(["valid", "invalid"][kind]);
        std::fs::write(
            dir.join(format!("{name}.json")),
            serde_json::to_string_pretty(&v).unwrap() + "\n",
        )
        .unwrap();
        written[kind] += 1;
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
        write(0, &format!("proof-{i}"), base(k, &bytes), proven(got));
        // Forgeries.
        let mut forge = |what: &str,
                         f: &dyn Fn(&mut lightprov_types::lvmt::LvmtProof) -> bool,
                         code: ErrorCode| {
            let mut x = p.clone();
            if f(&mut x) {
                let b = x.encode();
                let got = verify(&t, k, &b).map_err(|e| e.code()).err();
                // A level added below a full level reaches the next level's tuple check first;
                // without the last level, the key's own may be the one missing (its tuple) or a
                // level above it (the depth check): the registry's alternative code.
                let alt = lightprov_types::lvmt::FAMILY
                    .tamper(what)
                    .and_then(|t| t.alt);
                let code = match got {
                    Some(g) if alt == Some(g) => g,
                    _ => code,
                };
                assert_eq!(got, Some(code), "{i} {what}");
                write(
                    1,
                    &format!("proof-{i}-{what}"),
                    base(k, &b),
                    json!({ "error": code.as_str() }),
                );
            }
        };
        forge(
            "value-changed",
            &|x| match &mut x.kind {
                Kind::Presence { value, .. } => {
                    value[0] ^= 1;
                    true
                }
                Kind::Absence { others } => others.first_mut().map(|o| o.value[0] ^= 1).is_some(),
            },
            ErrorCode::HistoryMismatch,
        );
        forge(
            "stale-tuple",
            &|x| match &mut x.kind {
                Kind::Presence { path, .. } if path.block >= 3 => {
                    path.block -= 3;
                    true
                }
                _ => false,
            },
            ErrorCode::HistoryMismatch,
        );
        forge(
            "level-dropped",
            &|x| {
                // The last level left out: the key's own level is never reached.
                if x.levels.len() < 2 {
                    return false;
                }
                x.levels.pop();
                true
            },
            ErrorCode::HistoryMismatch,
        );
        forge(
            "level-added",
            &|x| {
                // A level copied below the last (a copy of level 0 would not even decode).
                if x.levels.len() < 2 {
                    return false;
                }
                let last = x.levels.last().cloned().unwrap();
                x.levels.push(last);
                true
            },
            ErrorCode::LevelMismatch,
        );
        forge(
            "quotient-swapped",
            &|x| {
                let l = &mut x.levels[0];
                if l.quotients[1] == l.quotients[2] {
                    return false;
                }
                l.quotients.swap(1, 2);
                true
            },
            ErrorCode::PairingCheckFailed,
        );
        forge(
            "other-key",
            &|x| {
                x.key = keccak256(b"someone else");
                true
            },
            ErrorCode::KeyMismatch,
        );
        let mut short = bytes.clone();
        short.truncate(bytes.len() - 1);
        write(
            1,
            &format!("proof-{i}-truncated"),
            base(k, &short),
            json!({ "error": "BAD_ENCODING" }),
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
        write(
            0,
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
            write(
                1,
                &format!("history-{j}-version-dropped"),
                inp,
                json!({ "error": "HISTORY_MISMATCH" }),
            );
        }
        let mut inp = inputs.clone();
        inp["toBlock"] = json!(q(hi.saturating_sub(1).max(lo)));
        if hi > lo {
            write(
                1,
                &format!("history-{j}-other-range"),
                inp,
                json!({ "error": "RANGE_MISMATCH" }),
            );
        }
    }
    let counts_path = out.join("..").join("counts.json");
    let mut counts: Value =
        serde_json::from_str(&std::fs::read_to_string(&counts_path).unwrap()).unwrap();
    counts["lvmt"] = json!({ "valid": written[0], "invalid": written[1] });
    std::fs::write(
        &counts_path,
        serde_json::to_string_pretty(&counts).unwrap() + "\n",
    )
    .unwrap();
    println!(
        "{} valid and {} invalid LVMT vectors written to {}",
        written[0],
        written[1],
        out.display()
    );
}
