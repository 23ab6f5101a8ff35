//! `beacon`: sync-committee light-client updates through `LightClientUpdate::decode` and the
//! store's `process_update`, from the stores of `tests/vectors/beacon/valid` (each bootstrapped
//! from its trusted root and brought to the step before the update).
//!
//! Fails when an update other than the honest one is accepted and leaves the store with other
//! headers or committees than the honest one does: the store's state is what a client trusts.
//! Every accepted input pays a BLS pairing check, so this target runs fewer inputs a second than
//! the others.

use lightprov_types::{
    ErrorCode,
    beacon::{Fork, LightClientUpdate, Network},
    hex,
};
use lightprov_verifier::beacon::{BeaconError, LightClientStore};
use serde_json::json;

use crate::{Finding, Outcome, Regression, Target, rng::Rng, vectors};

/// One seed: the store before an update, and what the honest update makes of it.
#[derive(Debug)]
struct Step {
    network: Network,
    store: LightClientStore,
    fork: Fork,
    current_slot: u64,
    honest: String,
    vector: String,
    /// The vector's inputs with the steps up to this update.
    inputs: serde_json::Value,
}

/// The `beacon` target.
#[derive(Debug)]
pub struct Beacon {
    seeds: Vec<(String, Vec<u8>)>,
    steps: Vec<Step>,
}

/// What a client trusts after the update: both headers and both committees.
fn state(s: &LightClientStore) -> String {
    format!(
        "{:?} {:?} {:?} {:?}",
        s.finalized_header(),
        s.optimistic_header(),
        s.current_sync_committee(),
        s.next_sync_committee()
    )
}

fn apply(step: &Step, data: &[u8]) -> Result<String, BeaconError> {
    let u = LightClientUpdate::decode(data, step.fork, &step.network.preset)?;
    let mut store = step.store.clone();
    store.process_update(u, step.current_slot)?;
    Ok(state(&store))
}

impl Beacon {
    /// Reads the seeds from `tests/vectors/beacon/valid`: every update of every vector (its
    /// force update steps applied to the store, not seeds).
    pub fn new() -> anyhow::Result<Self> {
        let mut seeds = Vec::new();
        let mut steps = Vec::new();
        for (name, v) in vectors::load("beacon", "valid")? {
            let i = &v["inputs"];
            let network = Network::from_json(&i["network"])?;
            let b = &i["bootstrap"];
            let fork = |o: &serde_json::Value| {
                Fork::from_name(vectors::s(o, "fork")?)
                    .ok_or_else(|| anyhow::anyhow!("{name}: no fork {}", o["fork"]))
            };
            let root = vectors::b256(i, "trustedBlockRoot")?;
            let mut store = lightprov_verifier::beacon::bootstrap(
                network,
                &root.0,
                fork(b)?,
                &vectors::data(b, "ssz")?,
            )
            .map_err(|e| anyhow::anyhow!("{name}: bootstrap: {e}"))?;
            let updates = i["updates"].as_array().cloned().unwrap_or_default();
            for (k, u) in updates.iter().enumerate() {
                // The store's upgrade to a new fork changes nothing it holds.
                if u["kind"].as_str() == Some("upgrade_store") {
                    continue;
                }
                let current_slot = u["currentSlot"]
                    .as_u64()
                    .ok_or_else(|| anyhow::anyhow!("{name}: update {k} has no currentSlot"))?;
                // A force update step: no input to mutate, but the later updates meet its store.
                if u["kind"].as_str() == Some("force_update") {
                    store
                        .force_update(current_slot)
                        .map_err(|e| anyhow::anyhow!("{name}: force update {k}: {e}"))?;
                    continue;
                }
                let data = vectors::data(u, "ssz")?;
                let mut inputs = i.clone();
                inputs["updates"] = json!(updates[..=k]);
                let mut step = Step {
                    network,
                    store: store.clone(),
                    fork: fork(u)?,
                    current_slot,
                    honest: String::new(),
                    vector: name.clone(),
                    inputs,
                };
                step.honest =
                    apply(&step, &data).map_err(|e| anyhow::anyhow!("{name}: update {k}: {e}"))?;
                let u = LightClientUpdate::decode(&data, step.fork, &network.preset)?;
                store
                    .process_update(u, current_slot)
                    .map_err(|e| anyhow::anyhow!("{name}: update {k}: {e}"))?;
                seeds.push((format!("{name}-update-{k}"), data));
                steps.push(step);
            }
        }
        anyhow::ensure!(!seeds.is_empty(), "no beacon seeds");
        Ok(Self { seeds, steps })
    }
}

impl Target for Beacon {
    fn name(&self) -> &'static str {
        "beacon"
    }

    fn seeds(&self) -> &[(String, Vec<u8>)] {
        &self.seeds
    }

    fn run(&self, seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        let step = &self.steps[seed];
        crate::judge(
            apply(step, data),
            &step.honest,
            &self.seeds[seed].1,
            data,
            ErrorCode::BadSyncSignature,
        )
    }

    fn mutate(&self, seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        let step = &self.steps[seed];
        let mut u = LightClientUpdate::decode(data, step.fork, &step.network.preset).ok()?;
        match rng.below(9) {
            0 => {
                u.signature_slot = u
                    .signature_slot
                    .wrapping_add(rng.below(3) as u64)
                    .wrapping_sub(1)
            }
            1 => u.attested_header.beacon.slot ^= 1 << rng.below(8),
            2 => u.finalized_header.beacon.slot ^= 1 << rng.below(8),
            3 => {
                // Drop or add a participant.
                let bits = &mut u.sync_aggregate.sync_committee_bits;
                rng.flip(bits);
            }
            4 => rng.flip(&mut u.sync_aggregate.sync_committee_signature),
            5 if !u.finality_branch.is_empty() => {
                let i = rng.below(u.finality_branch.len());
                u.finality_branch[i][rng.below(32)] ^= 1;
            }
            6 if !u.next_sync_committee_branch.is_empty() => {
                let i = rng.below(u.next_sync_committee_branch.len());
                u.next_sync_committee_branch[i][rng.below(32)] ^= 1;
            }
            7 => u.attested_header.execution.state_root[rng.below(32)] ^= 1,
            _ => u.finalized_header.beacon.state_root[rng.below(32)] ^= 1,
        }
        Some(u.encode())
    }

    fn dictionary(&self) -> Vec<Vec<u8>> {
        vec![vec![0], vec![0xff], vec![0xff; 4]]
    }

    fn regression(&self, seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        let step = &self.steps[seed];
        let mut inputs = step.inputs.clone();
        let last = inputs["updates"].as_array()?.len().checked_sub(1)?;
        inputs["updates"][last]["ssz"] = json!(hex::encode(data));
        Some(vectors::regression_vector(
            "beacon",
            "beacon",
            &step.vector,
            inputs,
            why,
            data,
        ))
    }
}
