//! Runs the beacon family's shared vectors (`tests/vectors/beacon`, written by
//! `examples/beacon_vectors.rs`) until the family is registered and the shared runner
//! (`tests/vectors.rs`) takes them: every valid vector reaches its finalized and optimistic
//! headers, every invalid one fails at its step with its code (and field), each tamper class
//! of the family has a vector, and the family's codes are those of its `error-codes.json`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod beacon_common;

use std::{fs, path::PathBuf};

use beacon_common::{header_json, run_vector, vector_network};
use lightprov_types::beacon::FAMILY;
use lightprov_verifier::Rejection;
use serde_json::Value;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

fn vectors(kind: &str) -> Vec<(String, Value)> {
    let mut out: Vec<_> = fs::read_dir(dir().join("beacon").join(kind))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (
                name,
                serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn valid_vectors_reach_their_headers() {
    let all = vectors("valid");
    for (name, v) in &all {
        assert_eq!(v["generator"], "crates/verifier/examples/beacon_vectors.rs");
        let store =
            run_vector(&v["inputs"]).unwrap_or_else(|(s, e)| panic!("{name} step {s}: {e}"));
        let n = vector_network(&v["inputs"]["network"]);
        assert_eq!(
            header_json(&n, store.finalized_header()),
            v["expected"]["finalized"],
            "{name}"
        );
        assert_eq!(
            header_json(&n, store.optimistic_header()),
            v["expected"]["optimistic"],
            "{name}"
        );
    }
    assert_eq!(all.len(), 6);
}

#[test]
fn invalid_vectors_fail_with_their_code_and_every_tamper_class_has_one() {
    let all = vectors("invalid");
    for (name, v) in &all {
        let (step, e) = run_vector(&v["inputs"])
            .err()
            .unwrap_or_else(|| panic!("{name}: accepted"));
        let want = &v["expected"];
        assert_eq!(e.code().as_str(), want["error"], "{name}: {e}");
        assert_eq!(step as u64, want["step"].as_u64().unwrap(), "{name}: {e}");
        if let Some(field) = want["field"].as_str() {
            assert_eq!(e.evidence().field, field, "{name}");
        }
        // The file names its tamper class, and the class's code is the one expected.
        let t = FAMILY
            .tampers
            .iter()
            .filter(|t| name.ends_with(&format!("-{}", t.name)))
            .max_by_key(|t| t.name.len())
            .unwrap_or_else(|| panic!("{name}: no tamper class"));
        assert!(t.answers(e.code()), "{name}: {} answers {}", t.name, t.code);
    }
    for t in FAMILY.tampers {
        assert!(
            all.iter()
                .any(|(n, _)| n.ends_with(&format!("-{}", t.name))),
            "no vector for tamper class {}",
            t.name
        );
    }
    assert_eq!(all.len(), 17);
}

#[test]
fn family_codes_are_those_of_its_error_codes_file_with_the_shared_meanings() {
    let read = |f: &str| -> Value {
        serde_json::from_str(&fs::read_to_string(dir().join(f).join("error-codes.json")).unwrap())
            .unwrap()
    };
    let ours = read("beacon");
    let listed: Vec<&str> = ours["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    let codes: Vec<&str> = FAMILY.codes.iter().map(|c| c.as_str()).collect();
    assert_eq!(codes, listed);
    // A code other families list means the same here.
    for other in lightprov_types::FAMILIES {
        for c in read(other.name)["codes"].as_array().unwrap() {
            if let Some(mine) = ours["codes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["code"] == c["code"])
            {
                assert_eq!(mine["meaning"], c["meaning"], "{}", c["code"]);
            }
        }
    }
}
