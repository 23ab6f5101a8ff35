//! Each target's seeds are accepted, a short deterministic run finds nothing, and its mutants
//! reach the verifier (some decode, some reach the final check) — a fuzzer that never gets
//! past the decoder would be worthless.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use lightprov_fuzz::driver::{Stats, short_run};

fn run(name: &str, execs: u64) -> Stats {
    let t = lightprov_fuzz::target(name).unwrap();
    let out = tempfile::tempdir().unwrap();
    short_run(t.as_ref(), execs, out.path())
}

#[test]
fn mpt() {
    run("mpt", 3000);
}

#[test]
fn header() {
    run("header", 3000);
}

#[test]
fn cole() {
    run("cole", 3000);
}

#[test]
fn lvmt() {
    run("lvmt", 300);
}

#[test]
fn mbt() {
    run("mbt", 3000);
}

#[test]
fn beacon() {
    // Each accepted input costs a pairing check: fewer inputs than the others.
    run("beacon", 200);
}

#[test]
fn params() {
    run("params", 100);
}

#[test]
fn a_run_is_deterministic_given_its_seed() {
    // The worker replays a dead run from its last checkpoint: that only finds the culprit if
    // the same seed gives the same inputs.
    let a = run("cole", 1500);
    let b = run("cole", 1500);
    assert_eq!(a.classes, b.classes);
    assert_eq!(a.depth, b.depth);
}

#[test]
fn alloy_trie_is_an_oracle_for_most_mpt_seeds() {
    // The oracle check runs only for seeds whose honest claim alloy-trie accepts too.
    let (with, all) = lightprov_fuzz::targets::mpt::Mpt::new()
        .unwrap()
        .oracle_seeds();
    println!("alloy-trie judges {with} of {all} mpt seeds");
    assert!(with * 10 >= all * 9, "{with} of {all}");
}

/// A regression vector carries the failing input itself: decoding its `inputs` as the vector
/// runners do gives back the same bytes.
#[test]
fn regression_vectors_carry_the_input() {
    use lightprov_types::{header::Header, hex, mpt::AccountProof};
    for name in lightprov_fuzz::TARGETS {
        let t = lightprov_fuzz::target(name).unwrap();
        for (i, (seed, data)) in t.seeds().iter().enumerate() {
            let Some(r) = t.regression(i, data, "test") else {
                continue;
            };
            let v: serde_json::Value = serde_json::from_str(&r.content).unwrap();
            let inputs = &v["inputs"];
            let back = match name {
                "header" => Header::from_json(&inputs["header"]).unwrap().rlp().unwrap(),
                "params" => hex::data(inputs["params"].as_str().unwrap(), "p").unwrap(),
                "beacon" => {
                    let updates = inputs["updates"].as_array().unwrap();
                    let last = updates.last().unwrap();
                    hex::data(last["ssz"].as_str().unwrap(), "u").unwrap()
                }
                "cole" | "lvmt" | "forkless" | "mbt" | "pos" => {
                    hex::data(inputs["proof"].as_str().unwrap(), "p").unwrap()
                }
                _ if inputs["proof"].is_object() => {
                    AccountProof::from_json(&inputs["proof"]).unwrap().encode()
                }
                _ => lightprov_fuzz::targets::mpt::TrieInputs::read(inputs)
                    .unwrap()
                    .encode(),
            };
            assert_eq!(&back, data, "{name}: {seed}");
            assert_eq!(v["expected"]["error"], "FIXME");
            assert!(r.path.starts_with("tests/vectors"), "{}", r.path.display());
        }
    }
}

/// The Clique seeds of the `header` target are made without a node: each links to its parent
/// and carries a seal by the dev signer that the verifier accepts, and a flipped seal bit is
/// refused at the seal check.
#[test]
fn header_seeds_include_clique_sealed_headers() {
    use lightprov_fuzz::targets::clique;
    use lightprov_verifier::header::{HeaderVerifyError, clique::verify_link};
    let signer = clique::signer().unwrap().address();
    let chain = clique::chain().unwrap();
    assert_eq!(chain.len() as u64, clique::BLOCKS);
    for (i, s) in chain.iter().enumerate() {
        let (_, hash) = verify_link(&s.rlp, Some(&s.parent), &[signer]).unwrap();
        assert_eq!(hash, s.hash);
        if i > 0 {
            assert_eq!(s.parent, chain[i - 1].hash);
        }
        // The last byte of the seal's s, just before the recovery byte.
        let mut h = lightprov_types::header::Header::decode_rlp(&s.rlp).unwrap();
        assert_eq!(
            h.extra_data.len(),
            lightprov_types::family::EXTRA_COMMITMENTS_LEN + 65
        );
        let at = h.extra_data.len() - 2;
        h.extra_data[at] ^= 1;
        let forged = h.rlp().unwrap();
        match verify_link(&forged, Some(&s.parent), &[signer]) {
            Err(HeaderVerifyError::BadSeal { .. } | HeaderVerifyError::UnknownSigner { .. }) => {}
            other => panic!("block {}: {other:?}", i + 1),
        }
    }
    let t = lightprov_fuzz::target("header").unwrap();
    let names: Vec<&str> = t.seeds().iter().map(|s| s.0.as_str()).collect();
    for n in 1..=clique::BLOCKS {
        assert!(
            names.contains(&format!("clique-block-{n}").as_str()),
            "{names:?}"
        );
    }
}

#[test]
fn the_target_list_and_the_entries_agree() {
    let names: Vec<&str> = lightprov_fuzz::entries().iter().map(|e| e.name).collect();
    assert_eq!(names, lightprov_fuzz::TARGETS);
    for n in names {
        assert_eq!(lightprov_fuzz::target(n).unwrap().name(), n);
    }
}
