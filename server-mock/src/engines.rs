//! A proof family as the chain drives it: its [`Settings`] (fixed at genesis, part of the
//! chain's identity; they open its engines) and its [`Engine`]s (a block staged, committed,
//! replayed and checked against the header). Each room of [`crate::families`] implements both;
//! the chain holds them by these traits alone, so it does not depend on the rooms.

use std::{any::Any, path::Path, sync::Arc};

use alloy_consensus::Header;
use alloy_primitives::B256;
use lightprov_engine_api::Key;
use lightprov_types::{Word, family::Commitment};
use serde_json::Value;

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

/// A room's engine, held open between blocks (`None` only while it reopens after a failure):
/// what every room that opens one engine from its directory shares.
#[derive(Debug)]
pub(crate) struct Held<E> {
    /// The engine's name in messages ("the {what} engine is not open").
    what: &'static str,
    engine: Option<E>,
}

impl<E> Held<E> {
    /// Nothing open yet: [`Held::reopen`] opens it.
    pub(crate) const fn new(what: &'static str) -> Self {
        Self { what, engine: None }
    }

    /// The engine.
    pub(crate) fn get(&self) -> anyhow::Result<&E> {
        self.engine
            .as_ref()
            .ok_or_else(|| anyhow::anyhow!("the {} engine is not open", self.what))
    }

    /// The engine, to write to.
    pub(crate) fn get_mut(&mut self) -> anyhow::Result<&mut E> {
        self.engine
            .as_mut()
            .ok_or_else(|| anyhow::anyhow!("the {} engine is not open", self.what))
    }

    /// The engine, if it is open.
    pub(crate) fn as_ref(&self) -> Option<&E> {
        self.engine.as_ref()
    }

    /// Drops the engine (and what it staged), then opens it again with `open`, whose error
    /// names `dir`.
    pub(crate) fn reopen<X: std::fmt::Display>(
        &mut self,
        dir: &Path,
        open: impl FnOnce() -> Result<E, X>,
    ) -> anyhow::Result<()> {
        self.engine = None;
        let e = open().map_err(|e| anyhow::anyhow!("opening {}: {e}", dir.display()))?;
        self.engine = Some(e);
        Ok(())
    }
}

/// `result`, after `reopen` when it failed: the engines' rule for a failed step whose batch may
/// be half in memory (reopen from what the store holds), the step's error kept.
pub(crate) fn or_reopen<T, X: Into<anyhow::Error>>(
    result: Result<T, X>,
    reopen: impl FnOnce() -> anyhow::Result<()>,
) -> anyhow::Result<T> {
    match result {
        Ok(v) => Ok(v),
        Err(e) => {
            reopen()?;
            Err(e.into())
        }
    }
}

/// `e` as its concrete type.
pub fn downcast<T: Engine>(e: &dyn Engine) -> Option<&T> {
    let any: &dyn Any = e;
    any.downcast_ref()
}

/// A block's writes for the rooms' tests: the balances of `accounts` accounts (0x00…, 0x01…),
/// each set to a word ending in `byte`.
#[cfg(test)]
pub(crate) fn balance_writes(accounts: u8, byte: u8) -> Vec<(Key, Word)> {
    (0..accounts)
        .map(|i| {
            (
                Key::Balance(alloy_primitives::Address::repeat_byte(i)),
                B256::with_last_byte(byte).0,
            )
        })
        .collect()
}

/// What every room's engine must do with a block the chain did not commit: `settings` opens two
/// engines; one stages a block of other writes and drops it before each of `blocks` blocks it
/// commits, the other never sees those; their commitments must agree block by block. Returns
/// the first engine and the last block's commitment table.
#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(crate) fn discarded_blocks_leave_no_trace(
    settings: &dyn Settings,
    writes: fn(u64) -> Vec<(Key, Word)>,
    blocks: u64,
    dir: &Path,
) -> (
    Box<dyn Engine>,
    [u8; lightprov_types::family::EXTRA_COMMITMENTS_LEN],
) {
    let (a, b) = (dir.join("a"), dir.join("b"));
    let mut e = settings.open(&a).unwrap().unwrap();
    let mut clean = settings.open(&b).unwrap().unwrap();
    let mut extra = [0u8; lightprov_types::family::EXTRA_COMMITMENTS_LEN];
    let mut extra_clean = extra;
    for n in 0..blocks {
        e.stage(n, &writes(100 + n), &mut extra).unwrap();
        e.discard().unwrap();
        assert_eq!(e.blocks(), n, "the discarded block {n} is not held");
        e.stage(n, &writes(n), &mut extra).unwrap();
        e.commit().unwrap();
        assert_eq!(e.blocks(), n + 1, "block {n} committed");
        clean.stage(n, &writes(n), &mut extra_clean).unwrap();
        clean.commit().unwrap();
        assert_eq!(extra, extra_clean, "block {n}");
    }
    (e, extra)
}
