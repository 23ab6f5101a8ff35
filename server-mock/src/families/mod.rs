//! The node's proof families: one room per family whose engine keeps its own state beside the
//! chain's (the MPT engine is the chain's state and lives in [`crate::chain`]). A room owns its
//! engine's settings and command-line flags, how the engine opens, takes each block and writes
//! its commitment into the header, what it shows in `lightprov_status`, the schemes it answers
//! in `lightprov_getHistory` and its own RPC methods. The chain, the RPC server and the binary
//! iterate [`ROOMS`]; adding a family is a file here and its line there.

use std::{any::Any, path::Path, sync::Arc};

use alloy_consensus::Header;
use alloy_primitives::B256;
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_api::Key;
use lightprov_types::{Word, family::Commitment};
use serde_json::Value;

use crate::{chain::Chain, rpc::Node};

pub mod cole;
pub mod forkless;
pub mod lvmt;
pub mod mbt;
pub mod pos;

/// Every room, in the order the node feeds them a block.
pub const ROOMS: &[Room] = &[cole::ROOM, lvmt::ROOM, forkless::ROOM, mbt::ROOM, pos::ROOM];

/// Every room's command-line flags (flattened into the node's own).
#[derive(Clone, Debug, clap::Args)]
#[group(id = "families")]
pub struct Flags {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub cole: cole::Flags,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub lvmt: lvmt::Flags,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub forkless: forkless::Flags,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub mbt: mbt::Flags,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub pos: pos::Flags,
}

/// A block's writes, in the order the block made them (a later write wins), by typed key (the
/// forkless LiveDB files accounts and slots apart); [`keyed`] gives them by state key.
pub type Writes = [(Key, Word)];

/// The writes by 32-byte state key, in the same order.
pub fn keyed(writes: &Writes) -> Vec<(B256, Word)> {
    writes.iter().map(|(k, v)| (k.state_key(), *v)).collect()
}

/// The commitment `c` a header carries (zero if its field is too short to hold it).
pub fn commitment_of(header: &Header, c: &Commitment) -> B256 {
    B256::from(c.read(&header.extra_data).unwrap_or_default())
}

/// Checks the root an engine (`name`) holds after block `header.number` against the header's
/// commitment `c`.
pub fn check_commitment(
    name: &str,
    root: B256,
    header: &Header,
    c: &Commitment,
) -> anyhow::Result<()> {
    if root != commitment_of(header, c) {
        anyhow::bail!(
            "the {name} root {root} differs from the header of block {}",
            header.number
        );
    }
    Ok(())
}

/// A room's settings from the flags: `None` if it does not run.
pub type SettingsResult = anyhow::Result<Option<Arc<dyn Settings>>>;

/// A `lightprov_getHistory` call, checked (the range is within the chain and the limit).
#[derive(Debug)]
pub struct HistoryQuery<'a> {
    /// The node (for its `--dishonest` mode).
    pub node: &'a Node,
    /// The chain, read-locked.
    pub chain: &'a Chain,
    /// One of the room's engines.
    pub scheme: &'a str,
    /// The state key.
    pub key: B256,
    /// First block of the range.
    pub from: u64,
    /// Last block of the range.
    pub to: u64,
}

/// One family's entry in the registry.
#[derive(Clone, Copy, Debug)]
pub struct Room {
    /// The engines it adds to `--engines`; each is also a scheme of `lightprov_getHistory`.
    pub engines: &'static [&'static str],
    /// Its settings for the dev chain built in-process ([`crate::chain::Config::dev`]), if it
    /// runs without flags.
    pub dev: fn() -> Option<Arc<dyn Settings>>,
    /// Its settings from the node's flags and the engines `--engines` picked, if it runs.
    pub settings: fn(&Flags, &[String], &Path) -> SettingsResult,
    /// Answers `lightprov_getHistory` for one of its engines: the fields that join `scheme`,
    /// `stateKey`, `fromBlock` and `toBlock` in the answer.
    pub history: fn(&HistoryQuery<'_>) -> Result<Value, ErrorObjectOwned>,
    /// Registers its own RPC methods.
    pub rpc: fn(&mut RpcModule<Arc<Node>>) -> anyhow::Result<()>,
    /// Those of its methods whose calls can take long (see [`crate::rpc::is_expensive`]).
    pub expensive: &'static [&'static str],
}

/// A family's settings: fixed when the node starts, and (but for what [`Settings::fingerprint`]
/// leaves out) part of the chain's identity.
pub trait Settings: std::fmt::Debug + Send + Sync + Any {
    /// Its part of the chain's identity: a data directory made with another is refused.
    fn fingerprint(&self) -> String;
    /// What the genesis header's `mixHash` binds, if this family claims it.
    fn genesis_mix_hash(&self) -> Option<B256> {
        None
    }
    /// A line for the node's start banner.
    fn banner(&self) -> Option<String> {
        None
    }
    /// Opens its engines in the data directory `dir` (`None` if it runs none).
    fn open(&self, dir: &Path) -> anyhow::Result<Option<Box<dyn Engine>>>;
}

/// A family's engines as the chain drives them. A block reaches them in two steps around the
/// chain's commit point: [`Engine::stage`] before the chain writes the block (its commitments
/// go into the header), [`Engine::commit`] after. A crash or failure in between leaves the
/// engine behind; the chain brings it level from its stored write sets ([`Engine::apply`]) on
/// the next block or start, and checks it against the header ([`Engine::check`]).
pub trait Engine: Send + Sync + Any {
    /// Its name in messages.
    fn name(&self) -> &'static str;
    /// The blocks it holds: the number of the next block it takes.
    fn blocks(&self) -> u64;
    /// Applies a past block of the chain durably.
    fn apply(&mut self, number: u64, writes: &Writes) -> anyhow::Result<()>;
    /// Checks its commitments against a header of the chain, after block `header.number`.
    fn check(&self, header: &Header) -> anyhow::Result<()>;
    /// Takes block `number` in memory and writes its commitments into `extra` (the header's
    /// commitment table); a refused block leaves it as it was.
    fn stage(&mut self, number: u64, writes: &Writes, extra: &mut [u8]) -> anyhow::Result<()>;
    /// Makes the staged block durable; on failure it drops the block (and lags).
    fn commit(&mut self) -> anyhow::Result<()>;
    /// Drops the staged block (the chain did not commit it).
    fn discard(&mut self) -> anyhow::Result<()>;
    /// Its entries in `lightprov_status`'s `engines`.
    fn status(&self) -> Vec<Value>;
}

/// Every engine name of every room, in registry order.
pub fn engine_names() -> impl Iterator<Item = &'static str> {
    ROOMS.iter().flat_map(|r| r.engines.iter().copied())
}

/// The room that runs the engine or answers the scheme `name`.
pub fn room_of(name: &str) -> Option<&'static Room> {
    ROOMS.iter().find(|r| r.engines.contains(&name))
}

/// `e` as its concrete type.
pub fn downcast<T: Engine>(e: &dyn Engine) -> Option<&T> {
    let any: &dyn Any = e;
    any.downcast_ref()
}

/// What every room's engine must do with a block the chain did not commit: `settings` opens two
/// engines; one stages a block of other writes and drops it before each block it commits, the
/// other never sees those; their commitments must agree block by block. Returns the first.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn discarded_blocks_leave_no_trace(
    settings: &dyn Settings,
    writes: fn(u64) -> Vec<(Key, Word)>,
    dir: &Path,
) -> Box<dyn Engine> {
    let (a, b) = (dir.join("a"), dir.join("b"));
    let mut e = settings.open(&a).unwrap().unwrap();
    let mut clean = settings.open(&b).unwrap().unwrap();
    let mut extra = [0u8; lightprov_types::family::EXTRA_COMMITMENTS_LEN];
    let mut extra_clean = extra;
    for n in 0..3 {
        e.stage(n, &writes(100 + n), &mut extra).unwrap();
        e.discard().unwrap();
        assert_eq!(e.blocks(), n, "the discarded block {n} is not held");
        e.stage(n, &writes(n), &mut extra).unwrap();
        e.commit().unwrap();
        clean.stage(n, &writes(n), &mut extra_clean).unwrap();
        clean.commit().unwrap();
        assert_eq!(extra, extra_clean, "block {n}");
    }
    assert_eq!(e.blocks(), 3);
    e
}
