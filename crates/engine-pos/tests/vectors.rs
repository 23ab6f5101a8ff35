//! The family's shared vectors (`tests/vectors/pos`), run by the Rust verifier until the family
//! is registered (then `crates/verifier/tests/vectors.rs` runs them with every family's): each
//! valid vector verifies to its expected answer, each invalid one is rejected with its code,
//! every tamper class of the registry entry has a vector, and `error-codes.json` is the entry's
//! code list.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use alloy_primitives::B256;
use lightprov_types::{Word, hex, pos::FAMILY};
use lightprov_verifier::{
    Rejection, Verify,
    pos::{BlockRoots, PosDiff, PosHistory, PosRange, PosValue, verify_value},
};
use serde_json::{Value, json};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/pos")
}

fn b256(v: &Value) -> B256 {
    B256::from(hex::fixed::<32>(v.as_str().unwrap(), "test").unwrap())
}

fn word(v: &Value) -> Option<Word> {
    v.as_str().map(|s| hex::fixed::<32>(s, "test").unwrap())
}

fn hexs(v: Option<&Word>) -> Value {
    v.map_or(Value::Null, |w| json!(hex::encode(w)))
}

/// Runs one vector's inputs: the answer as the vector's `expected` spells it, or the code.
fn run(inputs: &Value) -> Result<Value, String> {
    let proof = hex::data(inputs["proof"].as_str().unwrap(), "proof").unwrap();
    let code = |e: &dyn Rejection| e.code().as_str().to_string();
    match inputs["kind"].as_str().unwrap() {
        "value" => {
            let (root, key) = (b256(&inputs["posRoot"]), b256(&inputs["stateKey"]));
            let claimed = word(&inputs["value"]);
            verify_value(&root, &key, claimed.as_ref(), &proof).map_err(|e| code(&e))?;
            let v = PosValue::verify(&root, &key, &proof).map_err(|e| code(&e))?;
            Ok(json!({ "ok": true, "value": hexs(v.as_ref()) }))
        }
        "range" => {
            let q = (b256(&inputs["lo"]), b256(&inputs["hi"]));
            let got =
                PosRange::verify(&b256(&inputs["posRoot"]), &q, &proof).map_err(|e| code(&e))?;
            Ok(json!({ "ok": true, "entries": got.iter()
                .map(|(k, v)| json!({ "key": hex::encode(k.as_slice()), "value": hex::encode(v) }))
                .collect::<Vec<_>>() }))
        }
        "diff" => {
            let roots = (b256(&inputs["oldRoot"]), b256(&inputs["newRoot"]));
            let got = PosDiff::verify(&roots, &(), &proof).map_err(|e| code(&e))?;
            Ok(json!({ "ok": true, "changes": got.iter()
                .map(|c| json!({ "key": hex::encode(c.key.as_slice()), "old": hexs(c.old.as_ref()), "new": hexs(c.new.as_ref()) }))
                .collect::<Vec<_>>() }))
        }
        "history" => {
            let roots: Vec<B256> = inputs["roots"]
                .as_array()
                .unwrap()
                .iter()
                .map(b256)
                .collect();
            let from = inputs["fromBlock"].as_u64().unwrap();
            let got = PosHistory::verify(
                &BlockRoots {
                    from,
                    roots: &roots,
                },
                &b256(&inputs["stateKey"]),
                &proof,
            )
            .map_err(|e| code(&e))?;
            Ok(
                json!({ "ok": true, "values": got.iter().map(|v| hexs(v.as_ref())).collect::<Vec<_>>() }),
            )
        }
        k => panic!("unknown kind {k}"),
    }
}

#[test]
fn shared_vectors_give_their_expected_answers() {
    let mut seen = 0;
    for kind in ["valid", "invalid"] {
        for e in std::fs::read_dir(dir().join(kind)).unwrap() {
            let path = e.unwrap().path();
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(v["generator"], "crates/engine-pos/examples/pos_vectors.rs");
            let got = run(&v["inputs"]);
            match got {
                Ok(answer) => assert_eq!(answer, v["expected"], "{}", path.display()),
                Err(code) => assert_eq!(
                    json!({ "error": code }),
                    v["expected"],
                    "{}",
                    path.display()
                ),
            }
            assert_eq!(
                kind == "valid",
                v["expected"]["ok"] == true,
                "{}",
                path.display()
            );
            seen += 1;
        }
    }
    assert!(seen >= 30, "{seen} vectors");
}

#[test]
fn every_tamper_class_has_an_invalid_vector() {
    let names: Vec<String> = std::fs::read_dir(dir().join("invalid"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for t in FAMILY.tampers {
        let suffix = format!("-{}.json", t.name);
        assert!(
            names.iter().any(|n| n.ends_with(&suffix)),
            "no vector for {}",
            t.name
        );
    }
}

#[test]
fn error_codes_file_is_the_registry_entrys_list() {
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir().join("error-codes.json")).unwrap())
            .unwrap();
    let codes: Vec<&str> = v["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = FAMILY.codes.iter().map(|c| c.as_str()).collect();
    assert_eq!(codes, want);
}
