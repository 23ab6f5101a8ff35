//! The consensus specs' light-client vectors through the beacon verifier: every
//! `light_client/sync` case from Altair to Fulu (and the real mainnet sync case) reaches the
//! expected finalized and optimistic headers after every step, `update_ranking` orders as the
//! spec does, and the BLS vectors the light client relies on (the specs' `eth_*` helpers and the
//! generic verify, fast-aggregate-verify, deserialization and hash-to-G2 vectors) pass.
//!
//! The fixtures are in `tests/fixtures/beacon` (see its README).

use crate::beacon_common;
use std::{
    fs,
    path::{Path, PathBuf},
};

use crate::beacon_common::{
    bytes, fixtures, fork_of_digest, network, root, snappy, sync_cases, uint, yaml,
};
use ark_ec::{AffineRepr, CurveGroup};
use ark_ff::{BigInteger, PrimeField};
use lightprov_verifier::beacon::{
    self, Fork, LightClientBootstrap, LightClientFinalityUpdate, LightClientOptimisticUpdate,
    LightClientStore, LightClientUpdate, Network, ObjectKind, Preset, execution_root,
    is_better_update,
};
use yaml_rust2::Yaml;

fn check_header(store: &LightClientStore, which: &str, checks: &Yaml, at: &str) {
    let expected = &checks[which];
    if expected.is_badvalue() {
        return;
    }
    let header = match which {
        "finalized_header" => store.finalized_header(),
        _ => store.optimistic_header(),
    };
    assert_eq!(
        header.beacon.slot,
        uint(&expected["slot"]),
        "{at}: {which} slot"
    );
    assert_eq!(
        header.beacon.hash_tree_root(),
        root(&expected["beacon_root"]),
        "{at}: {which} beacon root"
    );
    if !expected["execution_root"].is_badvalue() {
        assert_eq!(
            execution_root(store.network(), header),
            root(&expected["execution_root"]),
            "{at}: {which} execution root"
        );
    }
}

/// Runs one sync case; returns its number of steps.
fn run_sync_case(case: &Path) -> usize {
    let meta = yaml(&case.join("meta.yaml"));
    let gvr = root(&meta["genesis_validators_root"]);
    let n = network(case, gvr);
    let fork = fork_of_digest(&n, &bytes(&meta["bootstrap_fork_digest"]));
    let b = snappy(&case.join("bootstrap.ssz_snappy"));
    // The fork a client finds from the bytes alone is the one the spec's digest names.
    assert_eq!(
        n.fork_of(ObjectKind::Bootstrap, &b),
        Some(fork),
        "{}",
        case.display()
    );
    let trusted = root(&meta["trusted_block_root"]);
    let mut store = beacon::bootstrap(n, &trusted, fork, &b)
        .unwrap_or_else(|e| panic!("{}: bootstrap: {e}", case.display()));
    let steps = yaml(&case.join("steps.yaml"));
    let steps = steps.as_vec().unwrap();
    for (i, step) in steps.iter().enumerate() {
        let (kind, body) = step.as_hash().unwrap().iter().next().unwrap();
        let at = format!("{} step {i}", case.display());
        match kind.as_str().unwrap() {
            "process_update" => {
                let fork = fork_of_digest(&n, &bytes(&body["update_fork_digest"]));
                let stem = body["update"].as_str().unwrap().trim();
                let u = snappy(&case.join(format!("{stem}.ssz_snappy")));
                assert_eq!(n.fork_of(ObjectKind::Update, &u), Some(fork), "{at}");
                // Cut by a byte, no fork decodes it.
                assert_eq!(n.fork_of(ObjectKind::Update, &u[1..]), None, "{at}");
                let u = LightClientUpdate::decode(&u, fork, &n.preset)
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                forks_of_short_forms(&n, &u, fork, &at);
                store
                    .process_update(u, uint(&body["current_slot"]))
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
            }
            "force_update" => {
                store
                    .force_update(uint(&body["current_slot"]))
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
            }
            // One store type serves every fork: an upgrade changes nothing it checks.
            "upgrade_store" => {}
            other => panic!("{at}: unknown step {other}"),
        }
        check_header(&store, "finalized_header", &body["checks"], &at);
        check_header(&store, "optimistic_header", &body["checks"], &at);
    }
    steps.len()
}

/// The finality and optimistic updates made of `u` are told to be `fork`'s by their bytes.
fn forks_of_short_forms(n: &Network, u: &LightClientUpdate, fork: Fork, at: &str) {
    let finality = LightClientFinalityUpdate {
        attested_header: u.attested_header.clone(),
        finalized_header: u.finalized_header.clone(),
        finality_branch: u.finality_branch.clone(),
        sync_aggregate: u.sync_aggregate.clone(),
        signature_slot: u.signature_slot,
    };
    let optimistic = LightClientOptimisticUpdate {
        attested_header: u.attested_header.clone(),
        sync_aggregate: u.sync_aggregate.clone(),
        signature_slot: u.signature_slot,
    };
    let (f, o) = (finality.encode(), optimistic.encode());
    assert_eq!(
        n.fork_of(ObjectKind::FinalityUpdate, &f),
        Some(fork),
        "{at}"
    );
    assert_eq!(
        n.fork_of(ObjectKind::OptimisticUpdate, &o),
        Some(fork),
        "{at}"
    );
    // An optimistic update is no finality update of any fork.
    assert_eq!(n.fork_of(ObjectKind::FinalityUpdate, &o), None, "{at}");
}

#[test]
fn every_spec_sync_case_reaches_the_expected_headers_at_every_step() {
    let cases = sync_cases();
    let mut steps = 0;
    for case in &cases {
        steps += run_sync_case(case);
    }
    // 52 cases in the spec's set, less Gloas's own 4, the 8 others whose store is Gloas's and
    // Fulu's gloas_fork.
    assert_eq!(cases.len(), 39, "sync cases");
    assert_eq!(steps, 150, "steps");
}

#[test]
fn real_mainnet_periods_862_to_867_sync() {
    let case = fixtures().join("real/sync/helios_capella_periods_862_867");
    assert_eq!(run_sync_case(&case), 8);
}

#[test]
fn update_ranking_orders_as_the_spec() {
    for fork in Fork::ALL {
        let dir = fixtures().join(format!(
            "tests/minimal/{}/light_client/update_ranking/pyspec_tests/update_ranking",
            fork.name()
        ));
        let count = uint(&yaml(&dir.join("meta.yaml"))["updates_count"]) as usize;
        let n = Network::minimal([0; 32], fork);
        let updates: Vec<LightClientUpdate> = (0..count)
            .map(|i| {
                let b = snappy(&dir.join(format!("updates_{i}.ssz_snappy")));
                LightClientUpdate::decode(&b, fork, &n.preset).unwrap()
            })
            .collect();
        for i in 0..count {
            for j in i + 1..count {
                assert!(
                    !is_better_update(&n, &updates[j], &updates[i]),
                    "{fork:?}: update {j} ranked above {i}"
                );
            }
        }
        assert_eq!(count, 57);
    }
}

fn keys(list: &Yaml) -> Option<Vec<beacon::G1Affine>> {
    list.as_vec()
        .unwrap()
        .iter()
        .map(|k| beacon::public_key(&bytes(k).try_into().ok()?))
        .collect()
}

fn sig(y: &Yaml) -> Option<beacon::G2Affine> {
    beacon::signature(&bytes(y).try_into().ok()?)
}

fn cases_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn spec_eth_bls_helpers_match_their_vectors() {
    let base = fixtures().join("tests/general/altair/bls");
    let mut n = 0;
    for case in cases_in(&base.join("eth_fast_aggregate_verify/bls")) {
        let d = yaml(&case.join("data.yaml"));
        let i = &d["input"];
        let got = match (keys(&i["pubkeys"]), sig(&i["signature"])) {
            (Some(k), Some(s)) => beacon::eth_fast_aggregate_verify(&k, &bytes(&i["message"]), &s),
            _ => false,
        };
        assert_eq!(got, d["output"].as_bool().unwrap(), "{}", case.display());
        n += 1;
    }
    for case in cases_in(&base.join("eth_aggregate_pubkeys/bls")) {
        let d = yaml(&case.join("data.yaml"));
        let got = keys(&d["input"]).filter(|k| !k.is_empty()).map(|k| {
            lightprov_field::bls12_381::g1_to_compressed(&beacon::aggregate(&k).into_affine())
                .to_vec()
        });
        let want = d["output"].as_str().map(|_| bytes(&d["output"]));
        assert_eq!(got, want, "{}", case.display());
        n += 1;
    }
    assert_eq!(n, 20);
}

#[test]
fn generic_bls_vectors_the_light_client_relies_on_pass() {
    let base = fixtures().join("bls12-381-tests/bls");
    let mut n = 0;
    for case in cases_in(&base.join("verify")) {
        let d = yaml(&case);
        let i = &d["input"];
        let got = match (
            bytes(&i["pubkey"])
                .try_into()
                .ok()
                .and_then(|k| beacon::public_key(&k)),
            sig(&i["signature"]),
        ) {
            (Some(k), Some(s)) => beacon::verify(&k.into(), &bytes(&i["message"]), &s),
            _ => false,
        };
        assert_eq!(got, d["output"].as_bool().unwrap(), "{}", case.display());
        n += 1;
    }
    for case in cases_in(&base.join("fast_aggregate_verify")) {
        let d = yaml(&case);
        let i = &d["input"];
        let got = match (keys(&i["pubkeys"]), sig(&i["signature"])) {
            (Some(k), Some(s)) => beacon::fast_aggregate_verify(&k, &bytes(&i["message"]), &s),
            _ => false,
        };
        assert_eq!(got, d["output"].as_bool().unwrap(), "{}", case.display());
        n += 1;
    }
    for case in cases_in(&base.join("deserialization_G1")) {
        let d = yaml(&case);
        // Deserialization admits the point at infinity; a public key (KeyValidate) does not.
        let k: Option<[u8; 48]> = bytes(&d["input"]["pubkey"]).try_into().ok();
        let point = k.and_then(|k| lightprov_field::bls12_381::g1_from_compressed(&k));
        assert_eq!(
            point.is_some(),
            d["output"].as_bool().unwrap(),
            "{}",
            case.display()
        );
        let key = k.and_then(|k| beacon::public_key(&k));
        let is_key = point.is_some_and(|p| !p.is_zero());
        assert_eq!(key.is_some(), is_key, "{}", case.display());
        n += 1;
    }
    for case in cases_in(&base.join("deserialization_G2")) {
        let d = yaml(&case);
        let got = sig(&d["input"]["signature"]).is_some();
        assert_eq!(got, d["output"].as_bool().unwrap(), "{}", case.display());
        n += 1;
    }
    for case in cases_in(&base.join("hash_to_G2")) {
        let d = yaml(&case);
        let msg = d["input"]["msg"].as_str().unwrap();
        // The generator's tag is RFC 9380's test suite's, not the signature ciphersuite's.
        let dst = b"QUUX-V01-CS02-with-BLS12381G2_XMD:SHA-256_SSWU_RO_";
        let p = beacon::hash_to_g2_with(msg.as_bytes(), dst).unwrap();
        let fp = |c: &lightprov_field::bls12_381::Fq| hex::encode(c.into_bigint().to_bytes_be());
        let fp2 = |c: &lightprov_field::bls12_381::Fq2| format!("0x{},0x{}", fp(&c.c0), fp(&c.c1));
        assert_eq!(
            fp2(&p.x),
            d["output"]["x"].as_str().unwrap(),
            "{}",
            case.display()
        );
        assert_eq!(
            fp2(&p.y),
            d["output"]["y"].as_str().unwrap(),
            "{}",
            case.display()
        );
        n += 1;
    }
    assert_eq!(n, 29 + 12 + 16 + 18 + 4);
}

/// Keeps the bootstrap type in the imports used (decoded in `run_sync_case` through
/// `beacon::bootstrap`).
#[test]
fn real_bootstrap_decodes_with_mainnet_preset() {
    let case = fixtures().join("real/sync/helios_capella_periods_862_867");
    let b = snappy(&case.join("bootstrap.ssz_snappy"));
    let b = LightClientBootstrap::decode(&b, Fork::Capella, &Preset::MAINNET).unwrap();
    assert_eq!(b.header.beacon.slot, 7069376);
    assert_eq!(b.current_sync_committee.pubkeys.len(), 512);
}

/// Native timing of one real mainnet update (512 members) against a committee the store has
/// already used: `cargo test --release -p lightprov-verifier --test verifier
/// beacon_spec::time_real -- --ignored --nocapture`.
#[test]
#[ignore = "timing; run in release"]
fn time_real_update_with_cached_committee() {
    let case =
        beacon_common::SyncCase::load(&fixtures().join("real/sync/helios_capella_periods_862_867"));
    let mut store =
        LightClientStore::bootstrap(case.network, &case.trusted_block_root, case.bootstrap)
            .unwrap();
    let (last, rest) = case.updates.split_last().unwrap();
    let (finality, slot) = rest.last().unwrap();
    for (u, slot) in &case.updates[..6] {
        store.process_update(u.clone(), *slot).unwrap();
    }
    let n = 50;
    let start = std::time::Instant::now();
    for _ in 0..n {
        store.validate_update(finality, *slot).unwrap();
    }
    println!("update with a cached committee: {:?}", start.elapsed() / n);
    store.process_update(last.0.clone(), last.1).unwrap();
}
