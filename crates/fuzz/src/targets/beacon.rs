//! `beacon`: sync-committee light-client updates through `LightClientUpdate::decode` and the
//! store's `process_update`, from the stores of `tests/vectors/beacon/valid` (each bootstrapped
//! from its trusted root and brought to the step before the update).
//!
//! Fails when an update other than the honest one is accepted and leaves the store with other
//! headers or committees than the honest one does: the store's state is what a client trusts.
//! Every accepted input pays a BLS pairing check, so this target runs fewer inputs a second than
//! the others.

use lightprov_types::{
    ErrorCode, Rejection,
    beacon::{Fork, LightClientUpdate, Network},
    hex,
};
use lightprov_verifier::beacon::{BeaconError, LightClientStore};
use serde_json::json;

use super::proof::{ProofQuery, Seed};
use crate::{rng::Rng, vectors};

/// What a seed of the `beacon` target asks: the store before an update.
#[derive(Debug)]
pub struct Step {
    network: Network,
    store: LightClientStore,
    fork: Fork,
    current_slot: u64,
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

impl ProofQuery for Step {
    const NAME: &'static str = "beacon";
    /// The store's state after the update.
    type Answer = String;

    /// Every update of the vector `name` (its force update steps applied to the store, not
    /// seeds), each on the store before it, with the vector's inputs up to it.
    fn seeds(name: &str, i: &serde_json::Value) -> anyhow::Result<Vec<Seed<Self>>> {
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
        let mut seeds = Vec::new();
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
            let step = Step {
                network,
                store: store.clone(),
                fork: fork(u)?,
                current_slot,
            };
            let update = LightClientUpdate::decode(&data, step.fork, &network.preset)?;
            store
                .process_update(update, current_slot)
                .map_err(|e| anyhow::anyhow!("{name}: update {k}: {e}"))?;
            seeds.push(Seed {
                name: format!("{name}-update-{k}"),
                vector: name.to_owned(),
                query: step,
                bytes: data,
                inputs,
            });
        }
        Ok(seeds)
    }

    fn verify(&self, data: &[u8]) -> Result<String, impl Rejection> {
        let u = LightClientUpdate::decode(data, self.fork, &self.network.preset)?;
        let mut store = self.store.clone();
        store.process_update(u, self.current_slot)?;
        Ok::<_, BeaconError>(state(&store))
    }

    fn last(&self) -> ErrorCode {
        ErrorCode::BadSyncSignature
    }

    fn mutate(&self, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        let mut u = LightClientUpdate::decode(data, self.fork, &self.network.preset).ok()?;
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

    fn dictionary() -> Vec<Vec<u8>> {
        vec![vec![0], vec![0xff], vec![0xff; 4]]
    }

    /// The vector's inputs up to the update, with `data` as the update.
    fn regression_inputs(inputs: &serde_json::Value, data: &[u8]) -> Option<serde_json::Value> {
        let mut inputs = inputs.clone();
        let last = inputs["updates"].as_array()?.len().checked_sub(1)?;
        inputs["updates"][last]["ssz"] = json!(hex::encode(data));
        Some(inputs)
    }
}
