//! The outlines are the ones the demo drew before this crate: the JSON values the previous
//! inspectors wrote for a few shared vectors (tests/golden, see its README), field by field.
use crate::common::{self, Vector, cole_outline, valid};
use lightprov_inspect::{lvmt, mpt};
use serde_json::Value;

fn golden_path(name: &str) -> String {
    format!("{}/tests/golden/{name}.json", env!("CARGO_MANIFEST_DIR"))
}

fn golden(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(golden_path(name)).unwrap()).unwrap()
}

/// The valid vectors of `family` that have a golden outline, with its name.
fn with_golden(family: &str) -> Vec<(String, Vector)> {
    valid(family, "")
        .into_iter()
        .map(|v| (format!("{family}-{}", v.name), v))
        .filter(|(name, _)| std::path::Path::new(&golden_path(name)).exists())
        .collect()
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn cole_outlines_are_the_ones_drawn_before() {
    let mut n = 0;
    for (name, v) in with_golden("cole") {
        let o = cole_outline(&v, &v.bytes("proof"));
        assert_eq!(json(&o.to_json()), golden(&name), "{name}");
        n += 1;
    }
    assert_eq!(n, 2);
}

#[test]
fn lvmt_outlines_are_the_ones_drawn_before() {
    let mut n = 0;
    for (name, v) in with_golden("lvmt") {
        let proof = v.bytes("proof");
        let key = v.b256("stateKey");
        let o = if v.name.starts_with("history") {
            lvmt::outline_history(
                &proof,
                &key,
                v.num("fromBlock"),
                v.num("toBlock"),
                &v.anchor(),
            )
        } else {
            lvmt::outline_proof(&proof, &key, &v.anchor())
        }
        .unwrap();
        assert_eq!(json(&o.to_json()), golden(&name), "{name}");
        n += 1;
    }
    assert_eq!(n, 3);
}

#[test]
fn mpt_outlines_are_the_ones_the_typescript_inspector_drew() {
    for (name, vector) in [
        ("account-mainnet-eoa-500000", "account-mainnet-eoa-500000"),
        (
            "account-mainnet-eoa-500000--account-truncated",
            "account-mainnet-eoa-500000",
        ),
        (
            "account-goerli-absent-storage-slot-8492954",
            "account-goerli-absent-storage-slot-8492954",
        ),
        (
            "account-goerli-absent-storage-slot-8492954--account-flipped-byte-in-last-node",
            "account-goerli-absent-storage-slot-8492954",
        ),
    ] {
        let g = golden(&format!("mpt-{name}"));
        let v = &valid("mpt", vector)[0];
        let wire = common::hex(g["wire"].as_str().unwrap());
        let o = mpt::outline(&wire, &v.b256("stateRoot")).unwrap();
        assert_eq!(
            json(&o.to_json()),
            json(g["outline"].as_str().unwrap()),
            "{name}"
        );
    }
}
