//! Runs the shared vectors of `tests/vectors/mbt/` through the verifier (until the family is
//! registered and the verifier's own vector runner takes them): each valid vector must verify to
//! its expected facts, each invalid one fail with its code, which must be the code of the tamper
//! class its name ends with; every class has a vector, and the error-code list is the registry's.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::PathBuf;

use alloy_primitives::B256;
use lightprov_types::{
    ErrorCode, Word, hex,
    mbt::{FAMILY, MbtParams},
};
use lightprov_verifier::mbt::{
    DiffTrusted, HistoryQuery, HistoryTrusted, verify, verify_diff, verify_history, verify_value,
};
use serde_json::{Value, json};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/mbt")
}

fn load(sub: &str) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = std::fs::read_dir(dir().join(sub))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            (name, v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn b256(v: &Value) -> B256 {
    B256::from(hex::fixed::<32>(v.as_str().unwrap(), "b256").unwrap())
}

fn block(v: &Value) -> u64 {
    hex::u64(v.as_str().unwrap(), "block").unwrap()
}

fn word_json(w: &Word) -> Value {
    if *w == [0; 32] {
        Value::Null
    } else {
        Value::String(hex::encode(w))
    }
}

/// The verifier's answer to a vector's inputs, in the vectors' JSON form.
fn run(i: &Value) -> Result<Value, ErrorCode> {
    let p = MbtParams::new(
        i["bucketBits"].as_u64().unwrap() as u8,
        i["fanout"].as_u64().unwrap() as u8,
    )
    .unwrap();
    let proof = hex::data(i["proof"].as_str().unwrap(), "proof").unwrap();
    match i["kind"].as_str().unwrap() {
        "value" => {
            let (root, key) = (b256(&i["root"]), b256(&i["stateKey"]));
            let found = verify(&p, &root, &key, &proof).map_err(|e| e.code())?;
            if let Some(claimed) = i.get("value") {
                let claimed = claimed.as_str().map(|s| hex::word(s, "value").unwrap());
                verify_value(&p, &root, &key, claimed.as_ref(), &proof).map_err(|e| e.code())?;
            }
            Ok(json!({ "ok": true, "value": word_json(&found.unwrap_or([0; 32])) }))
        }
        "diff" => {
            let t = DiffTrusted {
                params: p,
                old_root: b256(&i["oldRoot"]),
                new_root: b256(&i["newRoot"]),
            };
            let changes = verify_diff(&t, &proof).map_err(|e| e.code())?;
            Ok(json!({
                "ok": true,
                "changes": changes.iter().map(|c| json!({
                    "stateKey": hex::encode(c.key.as_slice()),
                    "old": word_json(&c.old),
                    "new": word_json(&c.new),
                })).collect::<Vec<_>>(),
            }))
        }
        "history" => {
            let roots: Vec<B256> = i["roots"].as_array().unwrap().iter().map(b256).collect();
            let t = HistoryTrusted {
                params: p,
                roots: &roots,
            };
            let q = HistoryQuery {
                key: b256(&i["stateKey"]),
                lo: block(&i["fromBlock"]),
                hi: block(&i["toBlock"]),
            };
            let h = verify_history(&t, &q, &proof).map_err(|e| e.code())?;
            Ok(json!({ "ok": true, "values": h.values.iter().map(word_json).collect::<Vec<_>>() }))
        }
        k => panic!("unknown kind {k}"),
    }
}

#[test]
fn valid_vectors_verify_to_their_expected_facts() {
    let all = load("valid");
    assert_eq!(all.len(), 11);
    for (name, v) in all {
        assert_eq!(
            v["generator"], "crates/engine-mbt/examples/mbt_vectors.rs",
            "{name}"
        );
        let got = run(&v["inputs"]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, v["expected"], "{name}");
    }
}

#[test]
fn invalid_vectors_fail_with_their_tamper_classs_code() {
    let all = load("invalid");
    assert_eq!(all.len(), 27);
    let valid: Vec<String> = load("valid").into_iter().map(|(n, _)| n).collect();
    let mut seen = std::collections::BTreeSet::new();
    for (name, v) in all {
        let class = FAMILY
            .tampers
            .iter()
            .filter(|t| name.ends_with(&format!("-{}", t.name)))
            .max_by_key(|t| t.name.len())
            .unwrap_or_else(|| panic!("{name}: no tamper class"));
        seen.insert(class.name);
        // Each forgery breaks a valid vector of the set.
        let base = &name[..name.len() - class.name.len() - 1];
        assert!(valid.iter().any(|n| n == base), "{name}: no valid {base}");
        let expected = v["expected"]["error"].as_str().unwrap();
        assert_eq!(expected, class.code.as_str(), "{name}");
        match run(&v["inputs"]) {
            Err(code) => assert_eq!(code.as_str(), expected, "{name}"),
            Ok(facts) => panic!("{name}: accepted as {facts}"),
        }
    }
    for t in FAMILY.tampers {
        assert!(seen.contains(t.name), "no vector of class {}", t.name);
    }
}

#[test]
fn error_codes_json_is_the_registry_entry() {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir().join("error-codes.json")).unwrap())
            .unwrap();
    let listed: Vec<&str> = v["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    let ours: Vec<&str> = FAMILY.codes.iter().map(|c| c.as_str()).collect();
    assert_eq!(listed, ours);
}
