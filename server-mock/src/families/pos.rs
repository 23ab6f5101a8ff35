//! The POS-Tree in the node: one engine, one header commitment (`posRoot`), the `pos` scheme of
//! `lightprov_getHistory`, and `lightprov_getPosProof` (a state key's value or absence at any
//! block), `lightprov_getPosRange` (every entry of a key range at any block) and
//! `lightprov_getPosDiff` (every key whose value differs between two blocks). The engine keeps
//! every version, so each proof is against the root of the block asked about.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use alloy_consensus::Header;
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_api::{StateEngine, kv::FjallStore};
use lightprov_engine_pos::{PosEngine, StagedBlock};
use lightprov_types::pos::{MAX_HISTORY_BLOCKS, MAX_NODE_ENTRIES, POS_ROOT, SplitRule};
use serde_json::{Value, json};

use super::{Flags as AllFlags, HistoryQuery, Room, running};
use crate::{
    chain::Chain,
    engines::{Engine, Held, SettingsResult, Writes, or_reopen},
    handler::{
        Node, args, block_hex, block_range, internal, invalid, opt_arg, read, resolve, state_key,
    },
};

/// The registry's entry.
pub const ROOM: Room = Room {
    engines: &["pos"],
    dev: || Some(Arc::new(Settings(SplitRule::DEFAULT))),
    settings,
    history,
    rpc,
    expensive: &["lightprov_getPosRange", "lightprov_getPosDiff"],
};

/// The POS-Tree engine's flags.
#[derive(Clone, Debug, clap::Args)]
#[group(id = "pos")]
#[command(next_help_heading = "POS-Tree")]
pub struct Flags {
    /// A node of the POS-Tree ends after an entry whose key's level hash falls below
    /// 2^(32 − bits) (a mean of 2^bits entries a node, past the minimum). Part of the chain's
    /// identity: it shapes posRoot.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub pos_split_bits: u8,
    /// Entries a node holds at least before a boundary may end it (2 or more).
    #[arg(long, default_value_t = 8)]
    pub pos_split_min: u16,
    /// Entries at which a node always ends (at most 256).
    #[arg(long, default_value_t = 256)]
    pub pos_split_max: u16,
}

/// The POS-Tree's split rule, if the node runs the engine.
#[derive(Clone, Copy, Debug)]
pub struct Settings(pub SplitRule);

fn settings(flags: &AllFlags, engines: &[String], _: &Path) -> SettingsResult {
    if !engines.iter().any(|e| e == "pos") {
        return Ok(None);
    }
    let f = &flags.pos;
    let rule = SplitRule::ContentDefined {
        bits: f.pos_split_bits,
        min: f.pos_split_min,
        max: f.pos_split_max,
    };
    if !rule.is_valid() {
        anyhow::bail!(
            "--pos-split-*: expected 2 ≤ min ≤ max ≤ {MAX_NODE_ENTRIES}, got min {} and max {}",
            f.pos_split_min,
            f.pos_split_max
        );
    }
    Ok(Some(Arc::new(Settings(rule))))
}

impl crate::engines::Settings for Settings {
    fn fingerprint(&self) -> String {
        format!("/pos:{:?}", self.0)
    }

    fn banner(&self) -> Option<String> {
        Some(format!("POS-Tree: split rule {:?}", self.0))
    }

    fn open(&self, dir: &Path) -> anyhow::Result<Option<Box<dyn Engine>>> {
        let mut e = Pos {
            dir: dir.join("pos"),
            rule: self.0,
            engine: Held::new("POS"),
            staged: None,
        };
        e.reopen()?;
        Ok(Some(Box::new(e)))
    }
}

/// The engine as the chain drives it.
#[derive(Debug)]
pub struct Pos {
    dir: PathBuf,
    rule: SplitRule,
    engine: Held<PosEngine>,
    staged: Option<StagedBlock>,
}

impl Pos {
    /// The engine.
    pub fn engine(&self) -> anyhow::Result<&PosEngine> {
        self.engine.get()
    }

    /// (Re)opens the engine from its store: a staged block is gone (its nodes, cached in
    /// memory when it was staged, with it).
    fn reopen(&mut self) -> anyhow::Result<()> {
        self.staged = None;
        let (dir, rule) = (&self.dir, self.rule);
        self.engine.reopen(dir, || -> anyhow::Result<PosEngine> {
            std::fs::create_dir_all(dir)?;
            let store = FjallStore::open(dir)?;
            Ok(PosEngine::open(Arc::new(store), rule)?)
        })
    }
}

impl Engine for Pos {
    fn name(&self) -> &'static str {
        "pos"
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
        crate::engines::check_commitment("POS", root, header, &POS_ROOT)
    }

    fn stage(&mut self, number: u64, writes: &Writes, extra: &mut [u8]) -> anyhow::Result<()> {
        let staged = self.engine()?.stage(number, writes)?;
        POS_ROOT.write(extra, &staged.meta.root.0);
        self.staged = Some(staged);
        Ok(())
    }

    fn commit(&mut self) -> anyhow::Result<()> {
        let staged = self
            .staged
            .take()
            .ok_or_else(|| anyhow::anyhow!("the POS engine has no staged block to commit"))?;
        let r = self.engine.get_mut()?.commit(staged);
        or_reopen(r, || self.reopen()).map(drop)
    }

    fn discard(&mut self) -> anyhow::Result<()> {
        self.reopen()
    }

    fn status(&self) -> Vec<Value> {
        let Some(e) = self.engine.as_ref() else {
            return Vec::new();
        };
        let head = e.head();
        let levels = head.and_then(|h| e.meta(h).ok()).map(|m| m.counts);
        vec![json!({
            "name": "pos",
            "head": head,
            "diskBytes": e.disk_bytes(),
            "nodesPerLevel": levels,
            "splitRule": format!("{:?}", self.rule),
        })]
    }
}

fn pos_of(chain: &Chain) -> Result<&PosEngine, ErrorObjectOwned> {
    running::<Pos>(chain, "the POS engine")?
        .engine()
        .map_err(internal)
}

fn proof_hex(bytes: &[u8]) -> String {
    lightprov_types::hex::encode(bytes)
}

fn history(q: &HistoryQuery<'_>) -> Result<Value, ErrorObjectOwned> {
    q.at_most(MAX_HISTORY_BLOCKS, "a POS history proves")?;
    let proof = pos_of(q.chain)?
        .prove_history(&q.key, q.from, q.to)
        .map_err(internal)?;
    Ok(json!({
        "block": block_hex(q.node, q.to),
        "proof": proof_hex(&proof.encode()),
    }))
}

fn rpc(m: &mut RpcModule<Arc<Node>>) -> anyhow::Result<()> {
    m.register_method(
        "lightprov_getPosProof",
        |p, n, _| -> Result<Value, ErrorObjectOwned> {
            let a = args(&p, 2)?;
            let key = state_key(&a, 0)?;
            let chain = read(n)?;
            let block = resolve(&chain, opt_arg(&a, 1, "blockTag")?)?;
            let proof = pos_of(&chain)?
                .prove_key(&key, block)
                .map_err(internal)?;
            Ok(json!({ "stateKey": key, "block": block_hex(n, block), "proof": proof_hex(&proof.encode()) }))
        },
    )?;
    m.register_method(
        "lightprov_getPosRange",
        |p, n, _| -> Result<Value, ErrorObjectOwned> {
            let a = args(&p, 3)?;
            let (lo, hi) = (state_key(&a, 0)?, state_key(&a, 1)?);
            if lo > hi {
                return Err(invalid("hi", "expected lo ≤ hi"));
            }
            let chain = read(n)?;
            let block = resolve(&chain, opt_arg(&a, 2, "blockTag")?)?;
            let proof = pos_of(&chain)?
                .prove_range(&lo, &hi, block)
                .map_err(internal)?;
            Ok(json!({ "block": block_hex(n, block), "proof": proof_hex(&proof.encode()) }))
        },
    )?;
    m.register_method(
        "lightprov_getPosDiff",
        |p, n, _| -> Result<Value, ErrorObjectOwned> {
            let a = args(&p, 2)?;
            let chain = read(n)?;
            let (from, to) = block_range(&chain, &a, 0)?;
            let proof = pos_of(&chain)?.prove_diff(from, to).map_err(internal)?;
            Ok(json!({
                "fromBlock": block_hex(n, from),
                "toBlock": block_hex(n, to),
                "proof": proof_hex(&proof.encode()),
            }))
        },
    )?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use alloy_primitives::{Address, B256};
    use lightprov_engine_api::Key;
    use lightprov_types::Word;

    fn writes(b: u64) -> Vec<(Key, Word)> {
        // Never zero: writing zero deletes a key.
        crate::engines::balance_writes(20, b as u8 + 1)
    }

    /// A block the chain did not commit is dropped: the engine takes the same number again and
    /// reaches the roots of an engine that never saw it; every block stays provable.
    #[test]
    fn a_discarded_block_is_gone_and_the_next_one_takes_its_number() {
        let settings = Settings(SplitRule::ContentDefined {
            bits: 2,
            min: 2,
            max: 8,
        });
        let dir = tempfile::tempdir().unwrap();
        let (mut e, _) =
            crate::engines::discarded_blocks_leave_no_trace(&settings, writes, 3, dir.path());
        assert!(e.commit().is_err(), "nothing staged");
        let pos: &Pos = crate::families::downcast(e.as_ref()).unwrap();
        let key = Key::Balance(Address::repeat_byte(3)).state_key();
        for n in 0..3u64 {
            let root = pos.engine().unwrap().root(n).unwrap();
            let proof = pos.engine().unwrap().prove_key(&key, n).unwrap();
            let got = lightprov_verifier::pos::verify_path(&root, &key, &proof).unwrap();
            assert_eq!(got, Some(B256::with_last_byte(n as u8 + 1).0), "block {n}");
        }
    }
}
