//! Runs the shared vectors in `tests/vectors` (also run by the TypeScript SDK's tests).

use crate::beacon_common;
use std::{fs, path::PathBuf};

use lightprov_types::{B256, ErrorCode, header::Header, hex, mpt::AccountProof};
use lightprov_verifier::{header::verify_header, mpt};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
}

fn load(family: &str, kind: &str) -> Vec<(String, Value)> {
    let dir = root().join(family).join(kind);
    let mut out: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let v: Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    let counts: Value =
        serde_json::from_str(&fs::read_to_string(root().join("counts.json")).unwrap()).unwrap();
    assert_eq!(
        out.len() as u64,
        counts[family][kind].as_u64().unwrap(),
        "{family}/{kind}: vector count"
    );
    out
}

fn b256(v: &Value) -> B256 {
    B256::from(hex::fixed::<32>(v.as_str().unwrap(), "hash").unwrap())
}

/// Outcome of one vector: Ok(output facts) or Err((code, field)).
type Outcome = Result<Value, (ErrorCode, String)>;

fn run_account(inputs: &Value) -> Outcome {
    let proof =
        AccountProof::from_json(&inputs["proof"]).map_err(|e| (e.code(), e.field.clone()))?;
    let a = mpt::verify_account_proof(&b256(&inputs["stateRoot"]), &proof.as_ref())
        .map_err(|e| (e.code(), e.field()))?;
    Ok(serde_json::json!({
        "ok": true,
        "exists": a.exists,
        "balance": hex::encode_quantity(&a.balance),
        "nonce": hex::encode_quantity(&a.nonce.to_be_bytes()),
        "codeHash": hex::encode(a.code_hash.as_slice()),
        "storageHash": hex::encode(a.storage_hash.as_slice()),
        "storage": a.storage.iter().map(|(k, v)| serde_json::json!({
            "key": hex::encode(k.as_slice()), "value": hex::encode_quantity(v)
        })).collect::<Vec<_>>(),
    }))
}

fn run_trie(inputs: &Value) -> Outcome {
    let key = hex::data(inputs["key"].as_str().unwrap(), "key").unwrap();
    let value = inputs["value"]
        .as_str()
        .map(|v| hex::data(v, "value").unwrap());
    let nodes: Vec<Vec<u8>> = inputs["proof"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| hex::data(n.as_str().unwrap(), "proof").unwrap())
        .collect();
    mpt::verify_proof(
        &b256(&inputs["root"]),
        &key,
        value.as_deref(),
        &mpt::as_slices(&nodes),
    )
    .map(|()| serde_json::json!({ "ok": true }))
    .map_err(|e| (e.code(), "proof".into()))
}

/// A `lightprov_getTransactionProof` answer against a block's roots, through the wire format;
/// what the answer claims beside its proofs must be what they prove, as the SDK checks.
fn run_transaction(i: &Value) -> Outcome {
    use lightprov_types::{Rejection, mpt::TransactionProof};
    use lightprov_verifier::{
        Verify,
        mpt::{BlockRoots, TransactionAtIndex, TransactionQuery},
    };
    let proof =
        TransactionProof::from_json(&i["proof"]).map_err(|e| (e.code(), e.field.clone()))?;
    let roots = BlockRoots {
        transactions_root: b256(&i["transactionsRoot"]),
        receipts_root: b256(&i["receiptsRoot"]),
    };
    let query = TransactionQuery {
        index: hex::u64(i["index"].as_str().unwrap(), "index").unwrap(),
        hash: i.get("hash").map(b256),
    };
    let proven = TransactionAtIndex::verify(&roots, &query, &proof.encode())
        .map_err(|e| (Rejection::code(&e), e.evidence().field))?;
    let hex_of = |b: Option<&Vec<u8>>| b.map_or(Value::Null, |b| hex::encode(b).into());
    let transaction = hex_of(proven.as_ref().map(|p| &p.transaction));
    let receipt = hex_of(proven.as_ref().map(|p| &p.receipt));
    for (field, got) in [("transaction", &transaction), ("receipt", &receipt)] {
        if i["proof"][field] != *got {
            return Err((ErrorCode::ValueMismatch, field.into()));
        }
    }
    Ok(serde_json::json!({ "ok": true, "transaction": transaction, "receipt": receipt }))
}

fn run_header(inputs: &Value) -> Outcome {
    let h = Header::from_json(&inputs["header"]).map_err(|e| {
        let field = match &e {
            lightprov_types::header::HeaderError::Decode(d) => d.field.clone(),
            lightprov_types::header::HeaderError::Layout { .. } => "header".into(),
        };
        (e.code(), field)
    })?;
    let layout = h.layout().unwrap();
    verify_header(&h, &b256(&inputs["expectedHash"])).map_err(|e| (e.code(), "hash".into()))?;
    let name = format!("{layout:?}").to_lowercase();
    Ok(
        serde_json::json!({ "ok": true, "layout": name, "number": hex::encode_quantity(&h.number.to_be_bytes()) }),
    )
}

fn run_cole(i: &Value) -> Outcome {
    use lightprov_verifier::cole::{Variant, Version, verify_history_in_header};
    let block = |f: &str| hex::u64(i[f].as_str().unwrap(), f).unwrap();
    let variant = match i["scheme"].as_str().unwrap() {
        "cole" => Variant::Cole,
        _ => Variant::ColeStar,
    };
    let proof = hex::data(i["proof"].as_str().unwrap(), "proof").unwrap();
    let h = verify_history_in_header(
        &b256(&i["coleRoot"]),
        variant,
        &b256(&i["siblingRoot"]),
        &b256(&i["stateKey"]),
        block("fromBlock"),
        block("toBlock"),
        &proof,
    )
    .map_err(|e| (e.code(), "proof".to_string()))?;
    let v = |x: &Version| serde_json::json!({ "block": format!("0x{:x}", x.block), "value": hex::encode(&x.value) });
    Ok(serde_json::json!({
        "ok": true,
        "atFrom": h.at_lo.as_ref().map(v),
        "versions": h.versions.iter().map(v).collect::<Vec<_>>(),
    }))
}

fn run_lvmt(i: &Value) -> Outcome {
    use lightprov_verifier::lvmt::{
        amt::Params,
        proof::{Proven, Trusted, Version, verify, verify_history},
    };
    let s = |f: &str| i[f].as_str().unwrap();
    let params = Params::decode(&hex::data(s("params"), "params").unwrap()).unwrap();
    let mut aroot = [0u8; 32];
    aroot.copy_from_slice(&hex::data(s("lvmtRoot"), "lvmtRoot").unwrap());
    let t = Trusted {
        params: &params,
        aroot,
        history_root: b256(&i["lvmtHistoryRoot"]),
        blocks: hex::u64(s("number"), "number").unwrap() + 1,
    };
    let key = b256(&i["stateKey"]);
    let proof = hex::data(s("proof"), "proof").unwrap();
    let q = |v: u64| format!("0x{v:x}");
    let err = |e: lightprov_verifier::lvmt::proof::LvmtError| (e.code(), "proof".to_string());
    if i.get("fromBlock").is_some() {
        let lo = hex::u64(s("fromBlock"), "fromBlock").unwrap();
        let hi = hex::u64(s("toBlock"), "toBlock").unwrap();
        let h = verify_history(&t, &key, lo, hi, &proof).map_err(err)?;
        let v = |x: &Version| serde_json::json!({ "block": q(x.block), "version": q(x.version), "value": hex::encode(&x.value) });
        return Ok(serde_json::json!({
            "ok": true,
            "atFrom": h.at_lo.as_ref().map(v),
            "versions": h.versions.iter().map(v).collect::<Vec<_>>(),
        }));
    }
    Ok(match verify(&t, &key, &proof).map_err(err)? {
        Proven::Present {
            version,
            value,
            block,
        } => serde_json::json!({
            "ok": true, "present": true, "version": q(version), "block": q(block), "value": hex::encode(&value)
        }),
        Proven::Absent => serde_json::json!({ "ok": true, "present": false }),
    })
}

fn run_forkless(i: &Value) -> Outcome {
    use lightprov_types::{Address, forkless::ForklessKey};
    use lightprov_verifier::forkless::{verify_history, verify_value};
    let s = |v: &Value, f: &str| v[f].as_str().unwrap().to_owned();
    let k = &i["key"];
    let address = Address::from(hex::fixed::<20>(&s(k, "address"), "address").unwrap());
    let key = match s(k, "kind").as_str() {
        "balance" => ForklessKey::Balance(address),
        "nonce" => ForklessKey::Nonce(address),
        _ => ForklessKey::Storage(address, b256(&k["slot"])),
    };
    let root = b256(&i["forklessRoot"]);
    let proof = hex::data(&s(i, "proof"), "proof").unwrap();
    let err = |e: lightprov_verifier::forkless::ForklessError| {
        (e.code(), lightprov_types::Rejection::evidence(&e).field)
    };
    let q = |v: u64| format!("0x{v:x}");
    if i.get("fromBlock").is_some() {
        let lo = hex::u64(&s(i, "fromBlock"), "fromBlock").unwrap();
        let hi = hex::u64(&s(i, "toBlock"), "toBlock").unwrap();
        let h = verify_history(&root, &key, lo, hi, &proof).map_err(err)?;
        let l = |x: &lightprov_types::forkless::Link| serde_json::json!({ "block": q(x.block), "value": hex::encode(&x.value) });
        return Ok(serde_json::json!({
            "ok": true,
            "exists": h.exists,
            "atFrom": h.at_lo.as_ref().map(l),
            "versions": h.versions.iter().map(l).collect::<Vec<_>>(),
        }));
    }
    let v = verify_value(&root, &key, &proof).map_err(err)?;
    Ok(serde_json::json!({ "ok": true, "exists": v.exists, "value": hex::encode(&v.value) }))
}

/// A beacon vector: the bootstrap from the trusted root, then each step (an update, a force
/// update or a store upgrade) in order; the output is the store's finalized and optimistic headers
/// (`{slot, beaconRoot, executionRoot}`) at the end and after each step (`steps`).
fn run_beacon(i: &Value) -> Outcome {
    let (store, steps) = beacon_common::run_vector_steps(i)
        .map_err(|(_, e)| (e.code(), lightprov_types::Rejection::evidence(&e).field))?;
    let n = beacon_common::vector_network(&i["network"]);
    Ok(serde_json::json!({
        "ok": true,
        "finalized": beacon_common::header_json(&n, store.finalized_header()),
        "optimistic": beacon_common::header_json(&n, store.optimistic_header()),
        "steps": steps,
    }))
}

fn run_mbt(i: &Value) -> Outcome {
    use lightprov_types::{
        Rejection, Word,
        mbt::{MbtError, MbtParams},
    };
    use lightprov_verifier::mbt::{
        DiffTrusted, HistoryQuery, HistoryTrusted, verify, verify_diff, verify_history,
        verify_value,
    };
    let err = |e: MbtError| (e.code(), e.evidence().field);
    // Absent (zero) is `null` in the vectors.
    let word = |w: &Word| {
        if *w == [0; 32] {
            Value::Null
        } else {
            Value::String(hex::encode(w))
        }
    };
    let block = |f: &str| hex::u64(i[f].as_str().unwrap(), f).unwrap();
    let p = MbtParams::new(
        i["bucketBits"].as_u64().unwrap() as u8,
        i["fanout"].as_u64().unwrap() as u8,
    )
    .unwrap();
    let proof = hex::data(i["proof"].as_str().unwrap(), "proof").unwrap();
    match i["kind"].as_str().unwrap() {
        "value" => {
            let (root, key) = (b256(&i["root"]), b256(&i["stateKey"]));
            let found = verify(&p, &root, &key, &proof).map_err(err)?;
            if let Some(claimed) = i.get("value") {
                let claimed = claimed.as_str().map(|s| hex::word(s, "value").unwrap());
                verify_value(&p, &root, &key, claimed.as_ref(), &proof).map_err(err)?;
            }
            Ok(serde_json::json!({ "ok": true, "value": word(&found.unwrap_or([0; 32])) }))
        }
        "diff" => {
            let t = DiffTrusted {
                params: p,
                old_root: b256(&i["oldRoot"]),
                new_root: b256(&i["newRoot"]),
            };
            let changes = verify_diff(&t, &proof).map_err(err)?;
            Ok(serde_json::json!({
                "ok": true,
                "changes": changes.iter().map(|c| serde_json::json!({
                    "stateKey": hex::encode(c.key.as_slice()),
                    "old": word(&c.old),
                    "new": word(&c.new),
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
                lo: block("fromBlock"),
                hi: block("toBlock"),
            };
            let h = verify_history(&t, &q, &proof).map_err(err)?;
            Ok(
                serde_json::json!({ "ok": true, "values": h.values.iter().map(word).collect::<Vec<_>>() }),
            )
        }
        k => panic!("unknown mbt vector kind {k}"),
    }
}

fn run_pos(i: &Value) -> Outcome {
    use lightprov_types::Word;
    use lightprov_verifier::{
        Verify,
        pos::{BlockRoots, PosDiff, PosError, PosHistory, PosRange, PosValue, verify_value},
    };
    let word = |v: &Value| v.as_str().map(|s| hex::fixed::<32>(s, "value").unwrap());
    let hexs = |v: Option<&Word>| v.map_or(Value::Null, |w| Value::from(hex::encode(w)));
    let proof = hex::data(i["proof"].as_str().unwrap(), "proof").unwrap();
    let err = |e: PosError| (e.code(), lightprov_types::Rejection::evidence(&e).field);
    match i["kind"].as_str().unwrap() {
        "value" => {
            let (root, key) = (b256(&i["posRoot"]), b256(&i["stateKey"]));
            let v = PosValue::verify(&root, &key, &proof).map_err(err)?;
            // The claimed value of the vector is the proven one (`verify_value` checks a claim).
            verify_value(&root, &key, word(&i["value"]).as_ref(), &proof).map_err(err)?;
            Ok(serde_json::json!({ "ok": true, "value": hexs(v.as_ref()) }))
        }
        "range" => {
            let q = (b256(&i["lo"]), b256(&i["hi"]));
            let got = PosRange::verify(&b256(&i["posRoot"]), &q, &proof).map_err(err)?;
            let e = |(k, v): &(B256, Word)| serde_json::json!({ "key": hex::encode(k.as_slice()), "value": hex::encode(v) });
            Ok(serde_json::json!({ "ok": true, "entries": got.iter().map(e).collect::<Vec<_>>() }))
        }
        "diff" => {
            let roots = (b256(&i["oldRoot"]), b256(&i["newRoot"]));
            let got = PosDiff::verify(&roots, &(), &proof).map_err(err)?;
            let c = |c: &lightprov_verifier::pos::Change| serde_json::json!({ "key": hex::encode(c.key.as_slice()), "old": hexs(c.old.as_ref()), "new": hexs(c.new.as_ref()) });
            Ok(serde_json::json!({ "ok": true, "changes": got.iter().map(c).collect::<Vec<_>>() }))
        }
        _ => {
            let roots: Vec<B256> = i["roots"].as_array().unwrap().iter().map(b256).collect();
            let from = i["fromBlock"].as_u64().unwrap();
            let got = PosHistory::verify(
                &BlockRoots {
                    from,
                    roots: &roots,
                },
                &b256(&i["stateKey"]),
                &proof,
            )
            .map_err(err)?;
            let values: Vec<Value> = got.iter().map(|v| hexs(v.as_ref())).collect();
            Ok(serde_json::json!({ "ok": true, "values": values }))
        }
    }
}

fn check(family: &str, run: fn(&Value) -> Outcome, pick: fn(&Value) -> bool) -> usize {
    let mut n = 0;
    for kind in ["valid", "invalid"] {
        for (name, v) in load(family, kind) {
            if !pick(&v["inputs"]) {
                continue;
            }
            n += 1;
            let expected = &v["expected"];
            match (run(&v["inputs"]), expected["error"].as_str()) {
                (Ok(got), None) => assert_eq!(&got, expected, "{name}"),
                (Err((code, field)), Some(want)) => {
                    assert_eq!(code.as_str(), want, "{name}: code");
                    if let Some(f) = expected["field"].as_str() {
                        assert_eq!(field, f, "{name}: field");
                    }
                }
                (got, _) => panic!("{name}: expected {expected}, got {got:?}"),
            }
        }
    }
    n
}

#[test]
fn account_vectors() {
    assert!(
        check("mpt", run_account, |i| i
            .get("proof")
            .is_some_and(Value::is_object)
            && i.get("receiptsRoot").is_none())
            > 150
    );
}

#[test]
fn transaction_proof_vectors() {
    assert!(check("mpt", run_transaction, |i| i.get("receiptsRoot").is_some()) > 100);
}

#[test]
fn trie_vectors() {
    assert!(check("mpt", run_trie, |i| i.get("key").is_some()) > 1000);
}

#[test]
fn cole_vectors() {
    assert!(check("cole", run_cole, |_| true) > 200);
}

#[test]
fn lvmt_vectors() {
    assert!(check("lvmt", run_lvmt, |_| true) > 30);
}

#[test]
fn forkless_vectors() {
    assert!(check("forkless", run_forkless, |_| true) > 200);
}

#[test]
fn beacon_vectors() {
    assert_eq!(check("beacon", run_beacon, |_| true), 39 + 17);
}

/// A beacon vector runs several steps (0: the bootstrap, `i + 1`: update `i`); an invalid one
/// names the step that must refuse it, and every step before it must pass.
#[test]
fn beacon_vectors_fail_at_their_step() {
    for (name, v) in load("beacon", "invalid") {
        let (step, _) = beacon_common::run_vector(&v["inputs"])
            .err()
            .unwrap_or_else(|| panic!("{name}: accepted"));
        assert_eq!(
            Some(step as u64),
            v["expected"]["step"].as_u64(),
            "{name}: step"
        );
    }
}

#[test]
fn mbt_vectors() {
    assert!(check("mbt", run_mbt, |_| true) > 35);
}

#[test]
fn pos_vectors() {
    assert!(check("pos", run_pos, |_| true) > 30);
}

#[test]
fn header_vectors() {
    assert!(check("header", run_header, |_| true) > 100);
}

/// Each family's codes are locked by `tests/vectors/<family>/error-codes.json` (codes are API):
/// its registry entry lists the same codes in the same order, every `ErrorCode` is some family's,
/// and a code means the same wherever it is listed.
#[test]
fn error_codes_match_each_familys_shared_list() {
    let mut meaning: std::collections::BTreeMap<String, String> = Default::default();
    for f in lightprov_types::FAMILIES {
        let path = root().join(f.name).join("error-codes.json");
        let v: Value = serde_json::from_str(
            &fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        )
        .unwrap();
        let shared: Vec<&str> = v["codes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let code = c["code"].as_str().unwrap();
                let m = c["meaning"].as_str().unwrap().to_owned();
                let first = meaning.entry(code.to_owned()).or_insert_with(|| m.clone());
                assert_eq!(*first, m, "{code} means something else in {}", f.name);
                code
            })
            .collect();
        let ours: Vec<&str> = f.codes.iter().map(|c| c.as_str()).collect();
        assert_eq!(ours, shared, "{}", path.display());
    }
    for c in ErrorCode::ALL {
        assert!(
            meaning.contains_key(c.as_str()),
            "{c} is in no family's error-codes.json"
        );
    }
}

/// The tamper class of an invalid vector: the longest class of its family that the file name
/// ends with (after `-`).
fn tamper_of(
    family: &lightprov_types::Family,
    name: &str,
) -> Option<&'static lightprov_types::family::Tamper> {
    let stem = name.strip_suffix(".json")?;
    family
        .tampers
        .iter()
        .filter(|t| stem == t.name || stem.ends_with(&format!("-{}", t.name)))
        .max_by_key(|t| t.name.len())
}

/// The registry is the list of families: each has valid and invalid vectors counted in
/// `counts.json`, every invalid vector belongs to one of its tamper classes and fails with that
/// class's code, and every class has vectors. A family registered without vectors, or vectors of
/// a class nobody registered, fail here.
#[test]
fn every_registered_family_has_vectors_for_every_tamper_class() {
    let counts: Value =
        serde_json::from_str(&fs::read_to_string(root().join("counts.json")).unwrap()).unwrap();
    let listed: Vec<&String> = counts.as_object().unwrap().keys().collect();
    let registered: Vec<&str> = lightprov_types::FAMILIES.iter().map(|f| f.name).collect();
    assert_eq!(
        listed
            .iter()
            .map(|s| s.as_str())
            .collect::<std::collections::BTreeSet<_>>(),
        registered.iter().copied().collect(),
        "counts.json lists exactly the registered families"
    );
    for family in lightprov_types::FAMILIES {
        assert!(
            !load(family.name, "valid").is_empty(),
            "{}: no valid vector",
            family.name
        );
        let mut seen = std::collections::BTreeSet::new();
        for (name, v) in load(family.name, "invalid") {
            let t = tamper_of(family, &name)
                .unwrap_or_else(|| panic!("{}/{name}: no registered tamper class", family.name));
            let code = v["expected"]["error"].as_str().unwrap();
            let code = ErrorCode::from_code(code).unwrap();
            assert!(
                t.answers(code),
                "{}/{name}: {code} is not an answer of class {}",
                family.name,
                t.name
            );
            assert!(
                family.codes.contains(&code),
                "{}/{name}: {code} not listed by the family",
                family.name
            );
            seen.insert(t.name);
        }
        for t in family.tampers {
            assert!(
                seen.contains(t.name),
                "{}: tamper class {} has no vector",
                family.name,
                t.name
            );
        }
    }
}

/// Rejections name the real field of the input, not a catch-all: for COLE and LVMT vectors the
/// evidence points into the proof (or the query) and never is the bare word `proof`.
#[test]
fn rejections_name_the_field_at_fault() {
    use lightprov_types::Rejection;
    use lightprov_verifier::cole::{Variant, verify_history_in_header};
    let mut n = 0;
    for (name, v) in load("cole", "invalid") {
        let i = &v["inputs"];
        let s = |f: &str| i[f].as_str().unwrap();
        let variant = if s("scheme") == "cole-star" {
            Variant::ColeStar
        } else {
            Variant::Cole
        };
        let e = verify_history_in_header(
            &b256(&i["coleRoot"]),
            variant,
            &b256(&i["siblingRoot"]),
            &b256(&i["stateKey"]),
            hex::u64(s("fromBlock"), "fromBlock").unwrap(),
            hex::u64(s("toBlock"), "toBlock").unwrap(),
            &hex::data(s("proof"), "proof").unwrap(),
        )
        .unwrap_err();
        let ev = e.evidence();
        assert!(
            ev.field.starts_with("proof.") || ev.field == "root",
            "{name}: field {}",
            ev.field
        );
        if e.code() == ErrorCode::RootMismatch {
            assert_eq!(
                ev.expected.as_deref(),
                Some(b256(&i["coleRoot"]).to_string().as_str()),
                "{name}"
            );
            assert_ne!(ev.expected, ev.found, "{name}");
        }
        n += 1;
    }
    assert!(n > 200);
}
