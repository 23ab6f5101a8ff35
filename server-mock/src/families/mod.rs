//! The node's proof families: one room per family whose engine keeps its own state beside the
//! chain's (the MPT engine is the chain's state and lives in [`crate::chain`]). A room owns its
//! engine's settings and command-line flags, how the engine opens, takes each block and writes
//! its commitment into the header, what it shows in `lightprov_status`, the schemes it answers
//! in `lightprov_getHistory` and its own RPC methods. The RPC server, the binary and the dev
//! chain ([`Config::dev`]) iterate [`ROOMS`]; the chain drives the rooms' engines through
//! [`Engine`] and [`Settings`] alone. Adding a family is a file here and its line there; a
//! family of one engine supplies only what differs ([`one::OneEngine`]).

use std::{path::Path, sync::Arc};

use alloy_primitives::B256;
use jsonrpsee::{
    RpcModule,
    types::{ErrorObjectOwned, Params},
};
use serde_json::Value;

pub use crate::engines::{
    Engine, Settings, SettingsResult, Writes, check_commitment, commitment_of, downcast, keyed,
};
use crate::{
    chain::{Chain, Config},
    handler::{Node, RpcResult, args, block_range, invalid, opt_arg, read, resolve, state_key},
    workload::Workload,
};

pub mod cole;
pub mod forkless;
pub mod lvmt;
pub mod mbt;
pub mod one;
pub mod pos;

/// Every room, in the order the node feeds them a block.
pub const ROOMS: &[Room] = &[cole::ROOM, lvmt::ROOM, forkless::ROOM, mbt::ROOM, pos::ROOM];

impl Config {
    /// The dev chain: chain id 1337, a signer and 10 funded accounts whose keys are derived
    /// from public strings — **insecure, for development only** — and every family that runs
    /// without flags (COLE and COLE* with the paper's parameters).
    ///
    /// (Defined beside the registry it draws the families from, so that the chain does not
    /// depend on the rooms.)
    pub fn dev(workload: Option<Workload>) -> anyhow::Result<Self> {
        let mut config = Config::dev_without_families(workload)?;
        config.families = ROOMS.iter().filter_map(|r| (r.dev)()).collect();
        Ok(config)
    }
}

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

impl HistoryQuery<'_> {
    /// Refuses a range over `max` blocks: `proof` says what (e.g. "an mbt history proof covers").
    pub(crate) fn at_most(&self, max: u64, proof: &str) -> RpcResult<()> {
        if self.to.saturating_sub(self.from) >= max {
            return Err(invalid("toBlock", format!("{proof} at most {max} blocks")));
        }
        Ok(())
    }
}

/// The room of type `F` if the node runs it, else an error naming the scheme: `what` is the
/// engine as the message names it ("this node does not run {what}").
pub(crate) fn running<'c, F: Engine>(chain: &'c Chain, what: &str) -> RpcResult<&'c F> {
    chain
        .family::<F>()
        .ok_or_else(|| invalid("scheme", format!("this node does not run {what}")))
}

/// A chain read-locked for one call.
pub(crate) type ChainRead<'n> = std::sync::RwLockReadGuard<'n, Chain>;

/// The arguments of a `(stateKey, blockTag?)` proof method: the key, the chain read-locked and
/// the block the tag names (the head without one).
pub(crate) fn key_at_block<'n>(
    p: &Params<'_>,
    n: &'n Node,
) -> RpcResult<(B256, ChainRead<'n>, u64)> {
    let a = args(p, 2)?;
    let key = state_key(&a, 0)?;
    let chain = read(n)?;
    let block = resolve(&chain, opt_arg(&a, 1, "blockTag")?)?;
    Ok((key, chain, block))
}

/// The arguments of a `(fromBlock, toBlock)` diff method: the chain read-locked and the range.
pub(crate) fn block_pair<'n>(p: &Params<'_>, n: &'n Node) -> RpcResult<(ChainRead<'n>, u64, u64)> {
    let a = args(p, 2)?;
    let chain = read(n)?;
    let (from, to) = block_range(&chain, &a, 0)?;
    Ok((chain, from, to))
}

/// Every engine name of every room, in registry order.
pub fn engine_names() -> impl Iterator<Item = &'static str> {
    ROOMS.iter().flat_map(|r| r.engines.iter().copied())
}

/// The room that runs the engine or answers the scheme `name`.
pub fn room_of(name: &str) -> Option<&'static Room> {
    ROOMS.iter().find(|r| r.engines.contains(&name))
}
