//! Reading the consensus specs' fixtures (`tests/fixtures/beacon`): snappy raw files, YAML,
//! each sync case's own network.

#![allow(dead_code)] // each test file uses a part

use std::{
    fs,
    path::{Path, PathBuf},
};

use lightprov_verifier::beacon::{Fork, Network, Preset, compute_domain};
use yaml_rust2::{Yaml, YamlLoader};

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/beacon")
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
