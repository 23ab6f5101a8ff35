//! What the rooms of one engine share (MBT, POS-Tree, forkless): the engine opens from its own
//! directory with its parameters, `--engines` names it, `lightprov_status` shows it, and the
//! chain drives it through [`Kept`], which holds it. A room implements [`OneEngine`] for its
//! engine: its name, parameters, flags, commitment, how it opens, stages and reports, and
//! builds its registry entry with [`Room::one`].

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use alloy_consensus::Header;
use alloy_primitives::B256;
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_api::StateEngine;
use lightprov_types::family::Commitment;
use serde_json::Value;

use super::{Flags, HistoryQuery, Room};
use crate::{
    engines::{Engine, Held, Settings, SettingsResult, Writes, check_commitment, or_reopen},
    handler::Node,
};

/// A family's one engine, as its room supplies it.
pub trait OneEngine: StateEngine + std::fmt::Debug + Sized + Send + Sync + 'static {
    /// Its parameters (part of the chain's identity).
    type Params: Copy + std::fmt::Debug + Send + Sync + 'static;
    /// What [`OneEngine::stage_block`] leaves for [`OneEngine::commit_in`] (`()` where the engine
    /// keeps its staged block itself).
    type Staged: std::fmt::Debug + Send + Sync + 'static;
    /// Its name: in `--engines`, as a scheme of `lightprov_getHistory`, as its directory and in
    /// `lightprov_status`.
    const NAME: &'static str;
    /// What it adds to `--engines`: its name.
    const ENGINES: &'static [&'static str] = &[Self::NAME];
    /// Its name in messages ("the {WHAT} engine is not open").
    const WHAT: &'static str = Self::NAME;
    /// The header commitment its root goes into.
    const ROOT: Commitment;
    /// Whether a failed stage may leave the engine half in memory: then it reopens from its
    /// store.
    const REOPEN_AFTER_FAILED_STAGE: bool = false;

    /// Opens it from its directory `dir`.
    fn open_in(dir: &Path, params: Self::Params) -> anyhow::Result<Self>;
    /// Its parameters on the dev chain, if it runs without flags.
    fn dev() -> Option<Self::Params>;
    /// Its parameters from the node's flags.
    fn from_flags(flags: &Flags) -> anyhow::Result<Self::Params>;
    /// Its part of the chain's identity ([`Settings::fingerprint`]).
    fn fingerprint(params: &Self::Params) -> String;
    /// Its line of the node's start banner.
    fn banner(params: &Self::Params) -> String;
    /// Takes block `number` in memory: its root, and what [`OneEngine::commit_in`] commits. A
    /// refused block leaves the engine as it was, unless
    /// [`OneEngine::REOPEN_AFTER_FAILED_STAGE`].
    fn stage_block(&mut self, number: u64, writes: &Writes)
    -> anyhow::Result<(B256, Self::Staged)>;
    /// Writes a staged block's commitments into `extra` (the header's commitment table): by
    /// default its root, where there is room.
    fn write_commitments(
        &mut self,
        _: &Self::Params,
        _: u64,
        root: B256,
        extra: &mut [u8],
    ) -> anyhow::Result<()> {
        Self::ROOT.write(extra, &root.0);
        Ok(())
    }
    /// Makes the staged block durable (see [`Kept::step`]).
    fn commit_in(kept: &mut Kept<Self>) -> anyhow::Result<()>;
    /// Checks a header beyond the root ([`OneEngine::ROOT`], which [`Kept`] checks).
    fn check_more(_: &Self::Params, _: &Header) -> anyhow::Result<()> {
        Ok(())
    }
    /// Its entry in `lightprov_status`'s `engines`.
    fn status_of(&self, params: &Self::Params) -> Value;
}

/// The settings of a room of one engine: its engine's parameters.
#[derive(Debug)]
pub struct One<E: OneEngine>(pub E::Params);

impl<E: OneEngine> One<E> {
    /// The settings of parameters `params`.
    pub const fn new(params: E::Params) -> Self {
        Self(params)
    }
}

impl<E: OneEngine> Clone for One<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: OneEngine> Copy for One<E> {}

impl<E: OneEngine> Settings for One<E> {
    fn fingerprint(&self) -> String {
        E::fingerprint(&self.0)
    }

    fn banner(&self) -> Option<String> {
        Some(E::banner(&self.0))
    }

    fn open(&self, dir: &Path) -> anyhow::Result<Option<Box<dyn Engine>>> {
        let mut e = Kept::<E> {
            dir: dir.join(E::NAME),
            params: self.0,
            engine: Held::new(E::WHAT),
            staged: None,
        };
        e.reopen()?;
        Ok(Some(Box::new(e)))
    }
}

/// The settings of a room of one engine, if `--engines` picked it.
fn settings<E: OneEngine>(flags: &Flags, engines: &[String], _: &Path) -> SettingsResult {
    if !engines.iter().any(|e| e == E::NAME) {
        return Ok(None);
    }
    Ok(Some(Arc::new(One::<E>(E::from_flags(flags)?))))
}

fn dev<E: OneEngine>() -> Option<Arc<dyn Settings>> {
    E::dev().map(|p| Arc::new(One::<E>(p)) as Arc<dyn Settings>)
}

impl Room {
    /// The registry's entry of a room of one engine `E`: it answers `history` for its scheme,
    /// registers its methods with `rpc`, and `expensive` are those that can take long.
    pub const fn one<E: OneEngine>(
        history: fn(&HistoryQuery<'_>) -> Result<Value, ErrorObjectOwned>,
        rpc: fn(&mut RpcModule<Arc<Node>>) -> anyhow::Result<()>,
        expensive: &'static [&'static str],
    ) -> Self {
        Self {
            engines: E::ENGINES,
            dev: dev::<E>,
            settings: settings::<E>,
            history,
            rpc,
            expensive,
        }
    }
}

/// A room's one engine as the chain drives it: held open between blocks, reopened from its
/// store when a step fails or a staged block is dropped.
#[derive(Debug)]
pub struct Kept<E: OneEngine> {
    dir: PathBuf,
    params: E::Params,
    engine: Held<E>,
    staged: Option<E::Staged>,
}

impl<E: OneEngine> Kept<E> {
    /// The engine.
    pub fn engine(&self) -> anyhow::Result<&E> {
        self.engine.get()
    }

    /// Takes what [`OneEngine::stage_block`] staged, if it did.
    pub(crate) fn take_staged(&mut self) -> Option<E::Staged> {
        self.staged.take()
    }

    /// Runs a step on the engine whose batch may be half in memory when it fails: then the
    /// engine reopens from what its store holds (the block is not in it), the step's error kept.
    pub(crate) fn step<T, X: Into<anyhow::Error>>(
        &mut self,
        step: impl FnOnce(&mut E) -> Result<T, X>,
    ) -> anyhow::Result<T> {
        let r = step(self.engine.get_mut()?);
        or_reopen(r, || self.reopen())
    }

    /// (Re)opens the engine from its store: a staged block is gone (with what was kept of it).
    pub(crate) fn reopen(&mut self) -> anyhow::Result<()> {
        self.staged = None;
        let (dir, params) = (&self.dir, self.params);
        self.engine.reopen(dir, || E::open_in(dir, params))
    }
}

impl<E: OneEngine> Engine for Kept<E> {
    fn name(&self) -> &'static str {
        E::NAME
    }

    fn blocks(&self) -> u64 {
        self.engine
            .as_ref()
            .and_then(StateEngine::head)
            .map_or(0, |h| h + 1)
    }

    fn apply(&mut self, number: u64, writes: &Writes) -> anyhow::Result<()> {
        self.staged = None;
        self.engine.get_mut()?.apply_block(number, writes)?;
        Ok(())
    }

    fn check(&self, header: &Header) -> anyhow::Result<()> {
        let root = self.engine()?.root(header.number)?;
        check_commitment(E::WHAT, root, header, &E::ROOT)?;
        E::check_more(&self.params, header)
    }

    fn stage(&mut self, number: u64, writes: &Writes, extra: &mut [u8]) -> anyhow::Result<()> {
        let r = self.engine.get_mut()?.stage_block(number, writes);
        let (root, staged) = if E::REOPEN_AFTER_FAILED_STAGE {
            or_reopen(r, || self.reopen())?
        } else {
            r?
        };
        let params = self.params;
        self.engine
            .get_mut()?
            .write_commitments(&params, number, root, extra)?;
        self.staged = Some(staged);
        Ok(())
    }

    fn commit(&mut self) -> anyhow::Result<()> {
        E::commit_in(self)
    }

    fn discard(&mut self) -> anyhow::Result<()> {
        self.reopen()
    }

    fn status(&self) -> Vec<Value> {
        self.engine
            .as_ref()
            .map(|e| vec![e.status_of(&self.params)])
            .unwrap_or_default()
    }
}
