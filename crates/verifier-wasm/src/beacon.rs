//! The beacon module's exports: a sync-committee light-client store that starts from a trusted
//! beacon block root and follows the chain through SSZ light-client updates (the Beacon API's
//! `application/octet-stream` answers, with the fork its `Eth-Consensus-Version` names).

use std::{string::String, vec::Vec};

use lightprov_types::{
    DecodeError,
    beacon::{
        BeaconError, Fork, LightClientBootstrap, LightClientFinalityUpdate, LightClientHeader,
        LightClientOptimisticUpdate, LightClientUpdate, Network, ObjectKind, Preset,
    },
};
use lightprov_verifier::beacon::{LightClientStore, Progress, SignedHead, execution_root};
use wasm_bindgen::prelude::*;

use crate::{decode_error, hash32, reject};

fn fork(name: &str) -> Result<Fork, JsValue> {
    Fork::from_name(name)
        .ok_or_else(|| decode_error(&DecodeError::new("fork", "not a fork from altair to fulu")))
}

fn named(network: &str) -> Result<&'static Network, JsValue> {
    Network::named(network).ok_or_else(|| {
        decode_error(&DecodeError::new(
            "network",
            "expected mainnet, sepolia, holesky or hoodi",
        ))
    })
}

/// A minimal-preset chain with every fork through `last_fork` at genesis, or, with
/// `fork_epochs` (one u64 little-endian per fork from Altair to `last_fork`, never decreasing),
/// at those epochs (as `Network::minimal_scheduled`, without its allocation: this module's
/// size is budgeted).
fn minimal(
    genesis_validators_root: &[u8],
    last_fork: &str,
    fork_epochs: &[u8],
) -> Result<Network, JsValue> {
    let gvr = hash32(genesis_validators_root, "genesisValidatorsRoot")?;
    let last = fork(last_fork)?;
    let mut n = Network::minimal(gvr.0, last);
    if fork_epochs.is_empty() {
        return Ok(n);
    }
    let mut ok = fork_epochs.len() == 8 * (last as usize + 1);
    let mut before = 0;
    for (f, c) in n.forks.iter_mut().zip(fork_epochs.chunks_exact(8)) {
        let e = u64::from_le_bytes(c.try_into().unwrap_or_default());
        ok &= e >= before;
        before = e;
        f.epoch = e;
    }
    if !ok {
        return Err(decode_error(&DecodeError::new(
            "network.forkEpochs",
            "one epoch per fork from altair to lastFork, never decreasing",
        )));
    }
    Ok(n)
}

fn progress(p: Progress) -> u8 {
    u8::from(p.applied) | (u8::from(p.optimistic) << 1)
}

/// A header packed for JS: `slot(u64) ‖ beaconRoot(32) ‖ blockNumber(u64) ‖ blockHash(32) ‖
/// stateRoot(32) ‖ executionRoot(32)`, big-endian integers; the execution fields are zero
/// before Capella.
fn pack(network: &Network, h: &LightClientHeader) -> Vec<u8> {
    let mut out = Vec::with_capacity(152);
    out.extend_from_slice(&h.beacon.slot.to_be_bytes());
    out.extend_from_slice(&h.beacon.hash_tree_root());
    out.extend_from_slice(&h.execution.block_number.to_be_bytes());
    out.extend_from_slice(&h.execution.block_hash);
    out.extend_from_slice(&h.execution.state_root);
    out.extend_from_slice(&execution_root(network, h));
    out
}

/// The public networks `bootstrap` and `restore` take, comma-separated (`mainnet,sepolia,…`):
/// the SDK names them from here, never from a list of its own.
#[wasm_bindgen(js_name = beaconNetworks)]
pub fn beacon_networks() -> String {
    Network::PUBLIC.map(|n| n.name).join(",")
}

/// The fork of a light-client object (`kind`: `bootstrap`, `update`, `finality_update` or
/// `optimistic_update`) of the public network `network`, told from its bytes (see
/// `Network::fork_of`): for the chunks of an `updates` answer, and for answers whose
/// `Eth-Consensus-Version` header is not readable. `undefined` if no fork decodes it.
#[wasm_bindgen(js_name = beaconForkOf)]
pub fn beacon_fork_of(network: &str, kind: &str, ssz: &[u8]) -> Result<Option<String>, JsValue> {
    fork_of(named(network)?, kind, ssz)
}

/// `beaconForkOf` for a minimal-preset chain (as `BeaconStore.bootstrapMinimal`).
#[wasm_bindgen(js_name = beaconForkOfMinimal)]
pub fn beacon_fork_of_minimal(
    genesis_validators_root: &[u8],
    last_fork: &str,
    fork_epochs: &[u8],
    kind: &str,
    ssz: &[u8],
) -> Result<Option<String>, JsValue> {
    fork_of(
        &minimal(genesis_validators_root, last_fork, fork_epochs)?,
        kind,
        ssz,
    )
}

fn fork_of(network: &Network, kind: &str, ssz: &[u8]) -> Result<Option<String>, JsValue> {
    let kind = match kind {
        "bootstrap" => ObjectKind::Bootstrap,
        "update" => ObjectKind::Update,
        "finality_update" => ObjectKind::FinalityUpdate,
        "optimistic_update" => ObjectKind::OptimisticUpdate,
        _ => {
            return Err(decode_error(&DecodeError::new(
                "kind",
                "expected bootstrap, update, finality_update or optimistic_update",
            )));
        }
    };
    Ok(network.fork_of(kind, ssz).map(|f| String::from(f.name())))
}

/// A light-client store of one network, and the head it follows (`header(2)`).
#[wasm_bindgen]
#[derive(Debug)]
pub struct BeaconStore {
    store: LightClientStore,
    head: SignedHead,
}

#[wasm_bindgen]
impl BeaconStore {
    /// Starts from a bootstrap (SSZ of `fork`'s container) whose header must hash to
    /// `trustedBlockRoot`. `network` is `mainnet`, `sepolia`, `holesky` or `hoodi`.
    #[wasm_bindgen(js_name = bootstrap)]
    pub fn bootstrap(
        network: &str,
        trusted_block_root: &[u8],
        fork_name: &str,
        ssz: &[u8],
    ) -> Result<BeaconStore, JsValue> {
        let network = *named(network)?;
        Self::start(network, trusted_block_root, fork_name, ssz)
    }

    /// As `bootstrap`, for a minimal-preset chain (a simulated sync committee) with every fork
    /// through `lastFork` at genesis, or at `forkEpochs` (one per fork from Altair to
    /// `lastFork`; empty: all at genesis).
    #[wasm_bindgen(js_name = bootstrapMinimal)]
    pub fn bootstrap_minimal(
        genesis_validators_root: &[u8],
        last_fork: &str,
        fork_epochs: &[u8],
        trusted_block_root: &[u8],
        fork_name: &str,
        ssz: &[u8],
    ) -> Result<BeaconStore, JsValue> {
        Self::start(
            minimal(genesis_validators_root, last_fork, fork_epochs)?,
            trusted_block_root,
            fork_name,
            ssz,
        )
    }

    fn start(
        network: Network,
        trusted_block_root: &[u8],
        fork_name: &str,
        ssz: &[u8],
    ) -> Result<BeaconStore, JsValue> {
        let root = hash32(trusted_block_root, "trustedBlockRoot")?;
        let b = LightClientBootstrap::decode(ssz, fork(fork_name)?, &network.preset)
            .map_err(|e| decode_error(&e))?;
        let store = LightClientStore::bootstrap(network, &root.0, b).map_err(|e| reject(&e))?;
        Ok(Self::of(store))
    }

    fn of(store: LightClientStore) -> BeaconStore {
        BeaconStore {
            head: SignedHead::new(),
            store,
        }
    }

    /// Decodes `ssz` as `fork_name`'s container with `decode` and hands it to `f`.
    fn with<T, R>(
        &mut self,
        fork_name: &str,
        ssz: &[u8],
        decode: fn(&[u8], Fork, &Preset) -> Result<T, DecodeError>,
        f: impl FnOnce(&mut Self, T, usize) -> Result<R, BeaconError>,
    ) -> Result<R, JsValue> {
        let preset = self.store.network().preset;
        let value = decode(ssz, fork(fork_name)?, &preset).map_err(|e| decode_error(&e))?;
        f(self, value, preset.sync_committee_size).map_err(|e| reject(&e))
    }

    /// The store's `process_light_client_update`, through the followed head's bookkeeping.
    fn process(&mut self, update: LightClientUpdate, current_slot: u64) -> Result<u8, BeaconError> {
        self.head
            .process(&mut self.store, update, current_slot)
            .map(progress)
    }

    /// [`Self::process`] for a container that carries part of an update (a finality or an
    /// optimistic update): decoded with `decode`, made an update with `into_update`.
    fn process_part<T>(
        &mut self,
        fork_name: &str,
        ssz: &[u8],
        current_slot: u64,
        decode: fn(&[u8], Fork, &Preset) -> Result<T, DecodeError>,
        into_update: fn(T, usize) -> LightClientUpdate,
    ) -> Result<u8, JsValue> {
        self.with(fork_name, ssz, decode, |s, u, n| {
            s.process(into_update(u, n), current_slot)
        })
    }

    /// Processes a `LightClientUpdate`; returns bit 0 set if the finalized header moved (or
    /// the next committee was learned), bit 1 if the optimistic header moved.
    #[wasm_bindgen(js_name = processUpdate)]
    pub fn process_update(
        &mut self,
        fork_name: &str,
        ssz: &[u8],
        current_slot: u64,
    ) -> Result<u8, JsValue> {
        self.with(fork_name, ssz, LightClientUpdate::decode, |s, u, _| {
            s.process(u, current_slot)
        })
    }

    /// Checks a `LightClientUpdate` against the store without applying it (the store only
    /// keeps the committee's decompressed keys).
    #[wasm_bindgen(js_name = validateUpdate)]
    pub fn validate_update(
        &mut self,
        fork_name: &str,
        ssz: &[u8],
        current_slot: u64,
    ) -> Result<(), JsValue> {
        self.with(fork_name, ssz, LightClientUpdate::decode, |s, u, _| {
            s.store.validate_update(&u, current_slot)
        })
    }

    /// Processes a `LightClientFinalityUpdate` (as `processUpdate`).
    #[wasm_bindgen(js_name = processFinalityUpdate)]
    pub fn process_finality_update(
        &mut self,
        fork_name: &str,
        ssz: &[u8],
        current_slot: u64,
    ) -> Result<u8, JsValue> {
        self.process_part(
            fork_name,
            ssz,
            current_slot,
            LightClientFinalityUpdate::decode,
            LightClientFinalityUpdate::into_update,
        )
    }

    /// Processes a `LightClientOptimisticUpdate` (as `processUpdate`).
    #[wasm_bindgen(js_name = processOptimisticUpdate)]
    pub fn process_optimistic_update(
        &mut self,
        fork_name: &str,
        ssz: &[u8],
        current_slot: u64,
    ) -> Result<u8, JsValue> {
        self.process_part(
            fork_name,
            ssz,
            current_slot,
            LightClientOptimisticUpdate::decode,
            LightClientOptimisticUpdate::into_update,
        )
    }

    /// Applies the best update after a period without finality; whether it applied one.
    #[wasm_bindgen(js_name = forceUpdate)]
    pub fn force_update(&mut self, current_slot: u64) -> Result<bool, JsValue> {
        self.store
            .force_update(current_slot)
            .map_err(|e| reject(&e))
    }

    /// The store as bytes, to keep across restarts (`restore` takes them back).
    #[wasm_bindgen(js_name = save)]
    pub fn save(&self) -> Vec<u8> {
        self.store.to_bytes()
    }

    /// A store saved by `save`, for the public network `network`.
    #[wasm_bindgen(js_name = restore)]
    pub fn restore(network: &str, saved: &[u8]) -> Result<BeaconStore, JsValue> {
        Self::reopen(*named(network)?, saved)
    }

    /// A store saved by `save`, for a minimal-preset chain (as `bootstrapMinimal`).
    #[wasm_bindgen(js_name = restoreMinimal)]
    pub fn restore_minimal(
        genesis_validators_root: &[u8],
        last_fork: &str,
        fork_epochs: &[u8],
        saved: &[u8],
    ) -> Result<BeaconStore, JsValue> {
        Self::reopen(
            minimal(genesis_validators_root, last_fork, fork_epochs)?,
            saved,
        )
    }

    fn reopen(network: Network, saved: &[u8]) -> Result<BeaconStore, JsValue> {
        let store = LightClientStore::from_bytes(network, saved).map_err(|e| reject(&e))?;
        Ok(Self::of(store))
    }

    /// The slot of the store's network at Unix time `now` (seconds): the current slot the
    /// update calls take.
    #[wasm_bindgen(js_name = slotAt)]
    pub fn slot_at(&self, now: u64) -> u64 {
        self.store.network().slot_at(now)
    }

    /// The sync-committee period of `slot` on the store's network.
    #[wasm_bindgen(js_name = periodAt)]
    pub fn period_at(&self, slot: u64) -> u64 {
        self.store.network().preset.period(slot)
    }

    /// A header, packed (see the module's `pack`: slot, beacon root, block number, block hash,
    /// execution state root, execution root): `which` 0 is the finalized header, 1 the
    /// optimistic one, 2 the followed head (`SignedHead`: the newest of the finalized header
    /// and the attested headers enough members signed). Then the members that signed the last
    /// update the store took and the committee's size (u32 big-endian each; zero members
    /// before any).
    #[wasm_bindgen(js_name = header)]
    pub fn header(&self, which: u8) -> Vec<u8> {
        let s = &self.store;
        let h = match which {
            0 => s.finalized_header(),
            1 => s.optimistic_header(),
            _ => self.head.header(s),
        };
        let mut out = pack(s.network(), h);
        let (signed, size) = self.head.participation();
        out.extend_from_slice(&(signed as u32).to_be_bytes());
        out.extend_from_slice(&(size as u32).to_be_bytes());
        out
    }

    /// Follows the headers at least `fraction` of the committee signed (rounded up to whole
    /// members, at least one) instead of the default two thirds.
    #[wasm_bindgen(js_name = setMinParticipation)]
    pub fn set_min_participation(&mut self, fraction: f64) {
        let size = self.store.network().preset.sync_committee_size;
        self.head
            .set_min_participants((fraction * size as f64).ceil() as usize);
    }
}
