//! Reading the consensus specs' fixtures (`tests/fixtures/beacon`): snappy raw files, YAML,
//! each sync case's own network.

#![allow(dead_code)] // the tests and examples/beacon_vectors.rs each use a part

use std::{
    fs,
    path::{Path, PathBuf},
};

use bls12_381::{
    G1Affine, G2Affine, G2Projective, Scalar,
    hash_to_curve::{ExpandMsgXmd, HashToCurve},
};
use lightprov_types::beacon::SyncCommittee;
use lightprov_verifier::beacon::{
    DST, Fork, LightClientUpdate, Network, Preset, compute_domain, sync_committee_signing_root,
};
use std::collections::HashMap;
use yaml_rust2::{Yaml, YamlLoader};

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/beacon")
}

/// The spec's sync cases, Altair to Fulu, sorted.
pub(crate) fn sync_cases() -> Vec<PathBuf> {
    let mut cases = Vec::new();
    for fork in Fork::ALL {
        let dir = fixtures().join(format!(
            "tests/minimal/{}/light_client/sync/pyspec_tests",
            fork.name()
        ));
        for c in fs::read_dir(dir).unwrap() {
            cases.push(c.unwrap().path());
        }
    }
    cases.sort();
    cases
}

pub(crate) fn yaml(path: &Path) -> Yaml {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    YamlLoader::load_from_str(&text)
        .unwrap()
        .into_iter()
        .next()
        .unwrap_or(Yaml::Null)
}

pub(crate) fn snappy(path: &Path) -> Vec<u8> {
    let raw = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    snap::raw::Decoder::new().decompress_vec(&raw).unwrap()
}

pub(crate) fn bytes(y: &Yaml) -> Vec<u8> {
    let s = y.as_str().unwrap_or_else(|| panic!("not a string: {y:?}"));
    hex::decode(s.trim().trim_start_matches("0x")).unwrap()
}

pub(crate) fn root(y: &Yaml) -> [u8; 32] {
    bytes(y).try_into().unwrap()
}

/// A YAML integer, also one too large for i64 (read as a real or a string).
pub(crate) fn uint(y: &Yaml) -> u64 {
    match y {
        Yaml::Integer(i) => *i as u64,
        Yaml::Real(s) | Yaml::String(s) => s.parse().unwrap(),
        other => panic!("not an integer: {other:?}"),
    }
}

/// A fork version from config.yaml, where YAML reads the unquoted `0x01000001` as an integer.
pub(crate) fn version(y: &Yaml) -> [u8; 4] {
    match y {
        Yaml::Integer(i) => (*i as u32).to_be_bytes(),
        Yaml::String(_) => bytes(y).try_into().unwrap(),
        other => panic!("not a fork version: {other:?}"),
    }
}

/// The network of a sync case: its own config.yaml and genesis validators root.
pub(crate) fn network(case: &Path, gvr: [u8; 32]) -> Network {
    let c = yaml(&case.join("config.yaml"));
    let preset = match c["PRESET_BASE"].as_str() {
        Some("mainnet") => Preset::MAINNET,
        Some("minimal") => Preset::MINIMAL,
        other => panic!("preset {other:?}"),
    };
    let mut n = Network::minimal(gvr, Fork::Fulu);
    n.preset = preset;
    n.genesis_fork_version = version(&c["GENESIS_FORK_VERSION"]);
    for (i, fork) in Fork::ALL.iter().enumerate() {
        let name = fork.name().to_uppercase();
        // A config without a fork leaves it at the minimal version, not scheduled.
        let v = &c[format!("{name}_FORK_VERSION").as_str()];
        let e = &c[format!("{name}_FORK_EPOCH").as_str()];
        n.forks[i].epoch = if e.is_badvalue() { u64::MAX } else { uint(e) };
        if !v.is_badvalue() {
            n.forks[i].version = version(v);
        }
    }
    n
}

/// The fork of a fork digest: `compute_fork_digest` before Fulu; a digest of none of them is
/// Fulu's (from Fulu on the digest also mixes in the blob schedule), whose containers are
/// Electra's.
pub(crate) fn fork_of_digest(n: &Network, digest: &[u8]) -> Fork {
    for fork in Fork::ALL.into_iter().take(5) {
        let d = compute_domain([0; 4], n.schedule(fork).version, &n.genesis_validators_root);
        if d[4..8] == *digest {
            return fork;
        }
    }
    Fork::Fulu
}

/// A sync case read into values: its network, trusted root, bootstrap and the updates of its
/// `process_update` steps with their current slots, in order.
pub(crate) struct SyncCase {
    pub(crate) network: Network,
    pub(crate) trusted_block_root: [u8; 32],
    pub(crate) bootstrap: lightprov_verifier::beacon::LightClientBootstrap,
    pub(crate) updates: Vec<(lightprov_verifier::beacon::LightClientUpdate, u64)>,
}

impl SyncCase {
    /// A store bootstrapped from the case and fed its first `n` updates.
    pub(crate) fn store_after(&self, n: usize) -> lightprov_verifier::beacon::LightClientStore {
        let mut store = lightprov_verifier::beacon::LightClientStore::bootstrap(
            self.network,
            &self.trusted_block_root,
            self.bootstrap.clone(),
        )
        .unwrap();
        for (u, slot) in &self.updates[..n] {
            store.process_update(u.clone(), *slot).unwrap();
        }
        store
    }

    pub(crate) fn load(case: &Path) -> Self {
        use lightprov_verifier::beacon::{LightClientBootstrap, LightClientUpdate};
        let meta = yaml(&case.join("meta.yaml"));
        let network = network(case, root(&meta["genesis_validators_root"]));
        let fork = fork_of_digest(&network, &bytes(&meta["bootstrap_fork_digest"]));
        let b = snappy(&case.join("bootstrap.ssz_snappy"));
        let bootstrap = LightClientBootstrap::decode(&b, fork, &network.preset).unwrap();
        let mut updates = Vec::new();
        for step in yaml(&case.join("steps.yaml")).as_vec().unwrap() {
            let body = &step["process_update"];
            if body.is_badvalue() {
                continue;
            }
            let fork = fork_of_digest(&network, &bytes(&body["update_fork_digest"]));
            let stem = body["update"].as_str().unwrap().trim();
            let u = snappy(&case.join(format!("{stem}.ssz_snappy")));
            let u = LightClientUpdate::decode(&u, fork, &network.preset).unwrap();
            updates.push((u, uint(&body["current_slot"])));
        }
        Self {
            network,
            trusted_block_root: root(&meta["trusted_block_root"]),
            bootstrap,
            updates,
        }
    }
}

/// The test chain's secret keys of `committee`'s members (validator `i` holds `i + 1`).
pub(crate) fn secret_keys(committee: &SyncCommittee) -> Vec<Scalar> {
    let by_key: HashMap<[u8; 48], u64> = (1..=256u64)
        .map(|k| {
            let p = G1Affine::from(G1Affine::generator() * Scalar::from(k));
            (p.to_compressed(), k)
        })
        .collect();
    committee
        .pubkeys
        .iter()
        .map(|p| Scalar::from(*by_key.get(p).expect("a test chain key")))
        .collect()
}

/// Signs `u`'s attested header with `keys` for the members its bits name.
pub(crate) fn sign(network: &Network, u: &mut LightClientUpdate, keys: &[Scalar]) {
    let root = sync_committee_signing_root(network, u);
    let sk = keys
        .iter()
        .enumerate()
        .filter(|(i, _)| u.sync_aggregate.signed(*i))
        .fold(Scalar::zero(), |acc, (_, k)| acc + k);
    // zkcrypto's hash to G2: an implementation independent of the verifier's.
    let h =
        <G2Projective as HashToCurve<ExpandMsgXmd<sha2::Sha256>>>::hash_to_curve([&root[..]], DST);
    let sig = h * sk;
    u.sync_aggregate.sync_committee_signature = G2Affine::from(sig).to_compressed();
}

/// The network a shared vector names: `{name}` of a public network, or
/// `{preset: "minimal", genesisValidatorsRoot, lastFork}`.
pub(crate) fn vector_network(v: &serde_json::Value) -> Network {
    Network::from_json(v).unwrap()
}

fn hex_of(v: &serde_json::Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap().trim_start_matches("0x")).unwrap()
}

/// Runs a shared vector's inputs: the bootstrap, then each step of `updates` in order — an
/// update `{fork, ssz, currentSlot}`, `{kind: "force_update", currentSlot}`, or
/// `{kind: "upgrade_store", fork}` (the chain entered `fork`; the store needs no change). `Err((step, e))`
/// names the step that was rejected (0: the bootstrap, `i + 1`: step `i`).
pub(crate) fn run_vector(
    inputs: &serde_json::Value,
) -> Result<
    lightprov_verifier::beacon::LightClientStore,
    (usize, lightprov_verifier::beacon::BeaconError),
> {
    run_vector_steps(inputs).map(|(store, _)| store)
}

/// As [`run_vector`], also giving the finalized and optimistic headers after each step
/// (`{finalized, optimistic}`, as [`header_json`]).
pub(crate) fn run_vector_steps(
    inputs: &serde_json::Value,
) -> Result<
    (
        lightprov_verifier::beacon::LightClientStore,
        Vec<serde_json::Value>,
    ),
    (usize, lightprov_verifier::beacon::BeaconError),
> {
    let network = vector_network(&inputs["network"]);
    let root: [u8; 32] = hex_of(&inputs["trustedBlockRoot"]).try_into().unwrap();
    let b = &inputs["bootstrap"];
    let fork = Fork::from_name(b["fork"].as_str().unwrap()).unwrap();
    let mut store = lightprov_verifier::beacon::bootstrap(network, &root, fork, &hex_of(&b["ssz"]))
        .map_err(|e| (0, e))?;
    let mut headers = Vec::new();
    for (i, u) in inputs["updates"].as_array().unwrap().iter().enumerate() {
        let slot = || u["currentSlot"].as_u64().unwrap();
        let mut step = || -> Result<(), lightprov_verifier::beacon::BeaconError> {
            match u["kind"].as_str() {
                None => {
                    let fork = Fork::from_name(u["fork"].as_str().unwrap()).unwrap();
                    let u_ = LightClientUpdate::decode(&hex_of(&u["ssz"]), fork, &network.preset)?;
                    store.process_update(u_, slot())?;
                }
                Some("force_update") => {
                    store.force_update(slot())?;
                }
                // One store type serves every fork: upgrading it to a new fork changes nothing
                // it holds (the spec's checks after the step are the same headers).
                Some("upgrade_store") => {}
                Some(other) => panic!("step {i}: unknown kind {other}"),
            }
            Ok(())
        };
        step().map_err(|e| (i + 1, e))?;
        headers.push(serde_json::json!({
            "finalized": header_json(&network, store.finalized_header()),
            "optimistic": header_json(&network, store.optimistic_header()),
        }));
    }
    Ok((store, headers))
}

/// A header as the vectors give it: `{slot, beaconRoot, executionRoot}`.
pub(crate) fn header_json(
    network: &Network,
    h: &lightprov_verifier::beacon::LightClientHeader,
) -> serde_json::Value {
    serde_json::json!({
        "slot": h.beacon.slot,
        "beaconRoot": format!("0x{}", hex::encode(h.beacon.hash_tree_root())),
        "executionRoot": format!("0x{}", hex::encode(lightprov_verifier::beacon::execution_root(network, h))),
    })
}
