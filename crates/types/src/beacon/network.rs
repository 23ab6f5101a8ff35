//! Networks as data: the genesis validators root, the fork schedule and the preset of each chain
//! the light client follows. The verifier reads every domain and fork version from a
//! [`Network`]; none is written into its logic.
//!
//! Values are those of each network's published consensus configuration (`config.yaml` of the
//! consensus specs for mainnet and minimal, the networks' own configuration repositories for
//! Sepolia, Holesky and Hoodi).

use super::{
    Fork, LightClientBootstrap, LightClientFinalityUpdate, LightClientOptimisticUpdate,
    LightClientUpdate, Slot,
};

/// The preset constants the light-client protocol reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// `SYNC_COMMITTEE_SIZE`: members of a sync committee (bits of a sync aggregate).
    pub sync_committee_size: usize,
    /// `SLOTS_PER_EPOCH`.
    pub slots_per_epoch: u64,
    /// `EPOCHS_PER_SYNC_COMMITTEE_PERIOD`.
    pub epochs_per_sync_committee_period: u64,
    /// `MIN_SYNC_COMMITTEE_PARTICIPANTS`: an update signed by fewer is rejected.
    pub min_sync_committee_participants: usize,
}

impl Preset {
    /// The mainnet preset (also Sepolia's, Holesky's and Hoodi's).
    pub const MAINNET: Preset = Preset {
        sync_committee_size: 512,
        slots_per_epoch: 32,
        epochs_per_sync_committee_period: 256,
        min_sync_committee_participants: 1,
    };

    /// The minimal preset of the specification's tests and of simulated chains.
    pub const MINIMAL: Preset = Preset {
        sync_committee_size: 32,
        slots_per_epoch: 8,
        epochs_per_sync_committee_period: 8,
        min_sync_committee_participants: 1,
    };

    /// `UPDATE_TIMEOUT`: slots after which the best update is applied without finality (one
    /// sync committee period).
    pub const fn update_timeout(&self) -> u64 {
        self.slots_per_epoch
            .saturating_mul(self.epochs_per_sync_committee_period)
    }

    /// The epoch of `slot`.
    pub const fn epoch(&self, slot: Slot) -> u64 {
        match slot.checked_div(self.slots_per_epoch) {
            Some(e) => e,
            None => 0,
        }
    }

    /// The sync committee period of `slot`.
    pub const fn period(&self, slot: Slot) -> u64 {
        match self
            .epoch(slot)
            .checked_div(self.epochs_per_sync_committee_period)
        {
            Some(p) => p,
            None => 0,
        }
    }
}

/// One scheduled fork: its version and first epoch (`u64::MAX` when not scheduled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForkSchedule {
    /// `<FORK>_FORK_VERSION`.
    pub version: [u8; 4],
    /// `<FORK>_FORK_EPOCH`.
    pub epoch: u64,
}

const fn at(version: [u8; 4], epoch: u64) -> ForkSchedule {
    ForkSchedule { version, epoch }
}

/// A beacon chain the light client follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Network {
    /// Its name (`mainnet`, `sepolia`, …).
    pub name: &'static str,
    /// `genesis_validators_root`, mixed into every signing domain.
    pub genesis_validators_root: [u8; 32],
    /// `GENESIS_FORK_VERSION` (in force before Altair).
    pub genesis_fork_version: [u8; 4],
    /// Altair, Bellatrix, Capella, Deneb, Electra, Fulu, in this order ([`Fork::ALL`]).
    pub forks: [ForkSchedule; 6],
    /// Its preset.
    pub preset: Preset,
    /// `genesis_time` (Unix seconds): with `seconds_per_slot`, the current slot a client
    /// passes to the store (the verifier itself never reads the clock).
    pub genesis_time: u64,
    /// Seconds per slot.
    pub seconds_per_slot: u64,
}

const NOT_SCHEDULED: u64 = u64::MAX;

// Evaluated at compile time: an index out of bounds fails the build.
#[allow(clippy::indexing_slicing)]
const fn hex32(s: &[u8; 64]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (nibble(s[2 * i]) << 4) | nibble(s[2 * i + 1]);
        i += 1;
    }
    out
}

const fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => 0,
    }
}

impl Network {
    /// Ethereum mainnet.
    pub const MAINNET: Network = Network {
        name: "mainnet",
        genesis_validators_root: hex32(
            b"4b363db94e286120d76eb905340fdd4e54bfe9f06bf33ff6cf5ad27f511bfe95",
        ),
        genesis_fork_version: [0, 0, 0, 0],
        forks: [
            at([1, 0, 0, 0], 74240),
            at([2, 0, 0, 0], 144896),
            at([3, 0, 0, 0], 194048),
            at([4, 0, 0, 0], 269568),
            at([5, 0, 0, 0], 364032),
            at([6, 0, 0, 0], 411392),
        ],
        preset: Preset::MAINNET,
        genesis_time: 1606824023,
        seconds_per_slot: 12,
    };

    /// The Sepolia testnet.
    pub const SEPOLIA: Network = Network {
        name: "sepolia",
        genesis_validators_root: hex32(
            b"d8ea171f3c94aea21ebc42a1ed61052acf3f9209c00e4efbaaddac09ed9b8078",
        ),
        genesis_fork_version: [0x90, 0, 0, 0x69],
        forks: [
            at([0x90, 0, 0, 0x70], 50),
            at([0x90, 0, 0, 0x71], 100),
            at([0x90, 0, 0, 0x72], 56832),
            at([0x90, 0, 0, 0x73], 132608),
            at([0x90, 0, 0, 0x74], 222464),
            at([0x90, 0, 0, 0x75], 272640),
        ],
        preset: Preset::MAINNET,
        genesis_time: 1655733600,
        seconds_per_slot: 12,
    };

    /// The Holesky testnet.
    pub const HOLESKY: Network = Network {
        name: "holesky",
        genesis_validators_root: hex32(
            b"9143aa7c615a7f7115e2b6aac319c03529df8242ae705fba9df39b79c59fa8b1",
        ),
        genesis_fork_version: [0x01, 0x01, 0x70, 0x00],
        forks: [
            at([0x02, 0x01, 0x70, 0x00], 0),
            at([0x03, 0x01, 0x70, 0x00], 0),
            at([0x04, 0x01, 0x70, 0x00], 256),
            at([0x05, 0x01, 0x70, 0x00], 29696),
            at([0x06, 0x01, 0x70, 0x00], 115968),
            at([0x07, 0x01, 0x70, 0x00], 165120),
        ],
        preset: Preset::MAINNET,
        genesis_time: 1695902400,
        seconds_per_slot: 12,
    };

    /// The Hoodi testnet.
    pub const HOODI: Network = Network {
        name: "hoodi",
        genesis_validators_root: hex32(
            b"212f13fc4df078b6cb7db228f1c8307566dcecf900867401a92023d7ba99cb5f",
        ),
        genesis_fork_version: [0x10, 0, 0x09, 0x10],
        forks: [
            at([0x20, 0, 0x09, 0x10], 0),
            at([0x30, 0, 0x09, 0x10], 0),
            at([0x40, 0, 0x09, 0x10], 0),
            at([0x50, 0, 0x09, 0x10], 0),
            at([0x60, 0, 0x09, 0x10], 2048),
            at([0x70, 0, 0x09, 0x10], 50688),
        ],
        preset: Preset::MAINNET,
        genesis_time: 1742213400,
        seconds_per_slot: 12,
    };

    /// The minimal preset's test chain with every fork through `last` at epoch 0 and the later
    /// ones not scheduled; `genesis_validators_root` is the chain's own.
    #[allow(clippy::indexing_slicing)] // i < 6 = forks.len()
    pub const fn minimal(genesis_validators_root: [u8; 32], last: Fork) -> Network {
        let mut forks = [at([0; 4], NOT_SCHEDULED); 6];
        let mut i = 0;
        while i < 6 {
            forks[i].version = [i as u8 + 1, 0, 0, 1];
            if i <= last as usize {
                forks[i].epoch = 0;
            }
            i += 1;
        }
        Network {
            name: "minimal",
            genesis_validators_root,
            genesis_fork_version: [0, 0, 0, 1],
            forks,
            preset: Preset::MINIMAL,
            genesis_time: 0,
            seconds_per_slot: 6,
        }
    }

    /// A minimal-preset chain whose forks from Altair are scheduled at `epochs` — one per fork
    /// in order (at most six), never decreasing; the forks after them are not scheduled. A
    /// chain of the spec's fork-transition tests (`capella_fork`: Altair and Bellatrix at 0,
    /// Capella at 3); [`Network::minimal`] is every epoch 0. The error names
    /// `network.forkEpochs`.
    pub fn minimal_scheduled(
        genesis_validators_root: [u8; 32],
        epochs: &[u64],
    ) -> Result<Network, crate::DecodeError> {
        use crate::DecodeError;
        let (Some(last), true) = (
            epochs.len().checked_sub(1).and_then(|i| Fork::ALL.get(i)),
            epochs.len() <= Fork::ALL.len(),
        ) else {
            return Err(DecodeError::new(
                "network.forkEpochs",
                "one epoch per fork from altair on, one to six of them",
            ));
        };
        if epochs.windows(2).any(|w| matches!(w, [a, b] if b < a)) {
            return Err(DecodeError::new(
                "network.forkEpochs",
                "a fork's epoch is before the one of the fork it follows",
            ));
        }
        let mut n = Network::minimal(genesis_validators_root, *last);
        for (f, e) in n.forks.iter_mut().zip(epochs) {
            f.epoch = *e;
        }
        Ok(n)
    }

    /// The public networks, by which [`Network::named`] finds one.
    pub const PUBLIC: [&'static Network; 4] =
        [&Self::MAINNET, &Self::SEPOLIA, &Self::HOLESKY, &Self::HOODI];

    /// The named public network.
    pub fn named(name: &str) -> Option<&'static Network> {
        Self::PUBLIC.into_iter().find(|n| n.name == name)
    }

    /// The schedule entry of `fork`.
    pub fn schedule(&self, fork: Fork) -> ForkSchedule {
        self.forks
            .get(fork as usize)
            .copied()
            .unwrap_or(at([0; 4], NOT_SCHEDULED))
    }

    /// The fork in force at `epoch`, `None` before Altair (no light-client protocol).
    pub fn fork_at_epoch(&self, epoch: u64) -> Option<Fork> {
        Fork::ALL
            .iter()
            .rev()
            .copied()
            .find(|f| self.schedule(*f).epoch <= epoch)
    }

    /// The fork in force at `slot`.
    pub fn fork_at_slot(&self, slot: Slot) -> Option<Fork> {
        self.fork_at_epoch(self.preset.epoch(slot))
    }

    /// `compute_fork_version(epoch)`: the version of the fork in force at `epoch`.
    pub fn fork_version_at_epoch(&self, epoch: u64) -> [u8; 4] {
        match self.fork_at_epoch(epoch) {
            Some(f) => self.schedule(f).version,
            None => self.genesis_fork_version,
        }
    }

    /// The slot at Unix time `now` (the genesis slot before genesis).
    pub fn slot_at(&self, now: u64) -> Slot {
        now.saturating_sub(self.genesis_time)
            .checked_div(self.seconds_per_slot)
            .unwrap_or(0)
    }

    /// Whether `fork` is in force at `slot`.
    pub fn is_active(&self, fork: Fork, slot: Slot) -> bool {
        self.preset.epoch(slot) >= self.schedule(fork).epoch
    }

    /// The fork of a light-client object served without its fork's name — a chunk of the
    /// Beacon API's `updates` answer (whose context bytes are a fork digest), or an answer whose
    /// `Eth-Consensus-Version` header a browser does not expose: the fork whose container
    /// decodes `bytes` exactly and is in force at the object's header slot (the attested
    /// header's, or a bootstrap's), as the API's context rule says. Forks with the same
    /// containers (Altair and Bellatrix, Electra and Fulu) are told apart by that slot. `None`
    /// if no fork fits: the bytes are no such object of this network.
    pub fn fork_of(&self, kind: ObjectKind, bytes: &[u8]) -> Option<Fork> {
        let p = &self.preset;
        Fork::ALL.into_iter().find(|&fork| {
            let slot = match kind {
                ObjectKind::Bootstrap => {
                    LightClientBootstrap::decode(bytes, fork, p).map(|o| o.header.beacon.slot)
                }
                ObjectKind::Update => {
                    LightClientUpdate::decode(bytes, fork, p).map(|o| o.attested_header.beacon.slot)
                }
                ObjectKind::FinalityUpdate => LightClientFinalityUpdate::decode(bytes, fork, p)
                    .map(|o| o.attested_header.beacon.slot),
                ObjectKind::OptimisticUpdate => LightClientOptimisticUpdate::decode(bytes, fork, p)
                    .map(|o| o.attested_header.beacon.slot),
            };
            slot.is_ok_and(|s| self.fork_at_slot(s) == Some(fork))
        })
    }
}

impl Network {
    /// A network as the shared vectors and the SDK name one: `{"name": "mainnet"}` (a public
    /// network) or `{"preset": "minimal", "genesisValidatorsRoot": "0x…", "lastFork": "capella"}`
    /// (a simulated chain; with `"forkEpochs": [0, 0, 3]`, its forks through `lastFork` at those
    /// epochs, see [`Network::minimal_scheduled`]). The error names the field.
    #[cfg(feature = "serde")]
    pub fn from_json(v: &serde_json::Value) -> Result<Network, crate::DecodeError> {
        use crate::DecodeError;
        if let Some(name) = v.get("name") {
            let name = name
                .as_str()
                .ok_or_else(|| DecodeError::new("network.name", "not a string"))?;
            return Network::named(name)
                .copied()
                .ok_or_else(|| DecodeError::new("network.name", "not a public network"));
        }
        if v.get("preset").and_then(|p| p.as_str()) != Some("minimal") {
            return Err(DecodeError::new("network.preset", "expected \"minimal\""));
        }
        let gvr = v
            .get("genesisValidatorsRoot")
            .and_then(|g| g.as_str())
            .ok_or_else(|| DecodeError::new("network.genesisValidatorsRoot", "not a string"))?;
        let gvr = crate::hex::fixed::<32>(gvr, "network.genesisValidatorsRoot")?;
        let last = v
            .get("lastFork")
            .and_then(|f| f.as_str())
            .and_then(Fork::from_name)
            .ok_or_else(|| {
                DecodeError::new("network.lastFork", "not a fork from altair to fulu")
            })?;
        let Some(epochs) = v.get("forkEpochs") else {
            return Ok(Network::minimal(gvr, last));
        };
        let epochs = epochs
            .as_array()
            .ok_or_else(|| DecodeError::new("network.forkEpochs", "not an array"))?
            .iter()
            .map(|e| {
                e.as_u64()
                    .ok_or_else(|| DecodeError::new("network.forkEpochs", "not an epoch number"))
            })
            .collect::<Result<alloc::vec::Vec<u64>, _>>()?;
        if epochs.len() != last as usize + 1 {
            return Err(DecodeError::new(
                "network.forkEpochs",
                "one epoch per fork from altair to lastFork",
            ));
        }
        Network::minimal_scheduled(gvr, &epochs)
    }
}

/// The light-client objects [`Network::fork_of`] tells the fork of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    /// `LightClientBootstrap`.
    Bootstrap,
    /// `LightClientUpdate`.
    Update,
    /// `LightClientFinalityUpdate`.
    FinalityUpdate,
    /// `LightClientOptimisticUpdate`.
    OptimisticUpdate,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forks_follow_the_schedule() {
        let m = Network::MAINNET;
        assert_eq!(m.fork_at_epoch(74239), None);
        assert_eq!(m.fork_at_epoch(74240), Some(Fork::Altair));
        assert_eq!(m.fork_at_epoch(269568), Some(Fork::Deneb));
        assert_eq!(m.fork_version_at_epoch(0), [0, 0, 0, 0]);
        assert_eq!(m.fork_version_at_epoch(364032), [5, 0, 0, 0]);
        let t = Network::minimal([0; 32], Fork::Capella);
        assert_eq!(t.fork_at_slot(1_000_000), Some(Fork::Capella));
        assert_eq!(t.schedule(Fork::Deneb).version, [4, 0, 0, 1]);
        assert_eq!(
            Network::named("hoodi").map(|n| n.forks[4].epoch),
            Some(2048)
        );
        assert_eq!(Network::MAINNET.genesis_validators_root[0], 0x4b);
        assert_eq!(Network::MAINNET.genesis_validators_root[31], 0x95);
        // The real bootstrap's slot (period 862) began 12 s × 7,069,376 after genesis.
        assert_eq!(
            Network::MAINNET.slot_at(1_606_824_023 + 12 * 7_069_376),
            7_069_376
        );
        assert_eq!(Network::MAINNET.slot_at(0), 0);
    }

    #[test]
    fn a_minimal_chain_schedules_its_forks_at_the_epochs_given() {
        let n = Network::minimal_scheduled([0; 32], &[0, 0, 3]).unwrap();
        assert_eq!(n.fork_at_epoch(2), Some(Fork::Bellatrix));
        assert_eq!(n.fork_at_epoch(3), Some(Fork::Capella));
        assert_eq!(n.schedule(Fork::Deneb).epoch, u64::MAX);
        assert_eq!(
            Network::minimal_scheduled([0; 32], &[0; 6]).unwrap(),
            Network::minimal([0; 32], Fork::Fulu)
        );
        for bad in [&[][..], &[0, 2, 1], &[0; 7]] {
            assert_eq!(
                Network::minimal_scheduled([0; 32], bad).unwrap_err().field,
                "network.forkEpochs"
            );
        }
    }

    #[cfg(feature = "serde")]
    #[test]
    fn a_network_from_json_takes_its_fork_epochs() {
        let v = |epochs: serde_json::Value| {
            let mut j = serde_json::json!({
                "preset": "minimal",
                "genesisValidatorsRoot": format!("0x{}", "00".repeat(32)),
                "lastFork": "capella",
            });
            if !epochs.is_null() {
                j["forkEpochs"] = epochs;
            }
            Network::from_json(&j)
        };
        assert_eq!(
            v(serde_json::Value::Null).unwrap(),
            Network::minimal([0; 32], Fork::Capella)
        );
        assert_eq!(
            v(serde_json::json!([0, 0, 3]))
                .unwrap()
                .schedule(Fork::Capella)
                .epoch,
            3
        );
        for bad in [
            serde_json::json!([0, 0]),
            serde_json::json!([0, 0, "3"]),
            serde_json::json!(3),
        ] {
            assert_eq!(v(bad).unwrap_err().field, "network.forkEpochs");
        }
    }

    #[test]
    fn periods_follow_the_preset() {
        assert_eq!(Preset::MINIMAL.period(63), 0);
        assert_eq!(Preset::MINIMAL.period(64), 1);
        assert_eq!(Preset::MAINNET.period(8192 * 867), 867);
        assert_eq!(Preset::MAINNET.update_timeout(), 8192);
    }
}
