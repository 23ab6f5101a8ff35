//! The POS-Tree in the node: one engine, one header commitment (`posRoot`), the `pos` scheme of
//! `lightprov_getHistory`, and `lightprov_getPosProof` (a state key's value or absence at any
//! block), `lightprov_getPosRange` (every entry of a key range at any block) and
//! `lightprov_getPosDiff` (every key whose value differs between two blocks). The engine keeps
//! every version, so each proof is against the root of the block asked about.

use std::{path::Path, sync::Arc};

use alloy_primitives::B256;
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_api::{StateEngine, kv::FjallStore};
use lightprov_engine_pos::{PosEngine, StagedBlock};
use lightprov_types::family::Commitment;
use lightprov_types::pos::{MAX_HISTORY_BLOCKS, MAX_NODE_ENTRIES, POS_ROOT, SplitRule};
use serde_json::{Value, json};

use super::one::{Kept, OneEngine};
use super::{Flags as AllFlags, HistoryQuery, Room, block_pair, key_at_block, running};
use crate::{
    chain::Chain,
    engines::Writes,
    handler::{Node, args, block_hex, internal, invalid, opt_arg, read, resolve, state_key},
};

/// The registry's entry.
pub const ROOM: Room = Room::one::<PosEngine>(
    history,
    rpc,
    &["lightprov_getPosRange", "lightprov_getPosDiff"],
);

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

impl OneEngine for PosEngine {
    fn dev() -> Option<SplitRule> {
        Some(SplitRule::DEFAULT)
    }

    type Params = SplitRule;
    /// The staged block's nodes, cached in memory when it was staged.
    type Staged = StagedBlock;
    const NAME: &'static str = "pos";
    const WHAT: &'static str = "POS";
    const ROOT: Commitment = POS_ROOT;

    fn open_in(dir: &Path, rule: SplitRule) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let store = FjallStore::open(dir)?;
        Ok(PosEngine::open(Arc::new(store), rule)?)
    }

    fn from_flags(flags: &AllFlags) -> anyhow::Result<SplitRule> {
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
        Ok(rule)
    }

    fn fingerprint(rule: &SplitRule) -> String {
        format!("/pos:{rule:?}")
    }

    fn banner(rule: &SplitRule) -> String {
        format!("POS-Tree: split rule {rule:?}")
    }

    fn stage_block(&mut self, number: u64, writes: &Writes) -> anyhow::Result<(B256, StagedBlock)> {
        let staged = self.stage(number, writes)?;
        Ok((staged.meta.root, staged))
    }

    fn commit_in(kept: &mut Kept<Self>) -> anyhow::Result<()> {
        let staged = kept
            .take_staged()
            .ok_or_else(|| anyhow::anyhow!("the POS engine has no staged block to commit"))?;
        kept.step(|e| e.commit(staged)).map(drop)
    }

    fn status_of(&self, rule: &SplitRule) -> Value {
        let head = self.head();
        let levels = head.and_then(|h| self.meta(h).ok()).map(|m| m.counts);
        json!({
            "name": "pos",
            "head": head,
            "diskBytes": self.disk_bytes(),
            "nodesPerLevel": levels,
            "splitRule": format!("{rule:?}"),
        })
    }
}

fn pos_of(chain: &Chain) -> Result<&PosEngine, ErrorObjectOwned> {
    running::<Kept<PosEngine>>(chain, "the POS engine")?
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
            let (key, chain, block) = key_at_block(&p, n)?;
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
            let (chain, from, to) = block_pair(&p, n)?;
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
    use crate::families::one::One;
    use alloy_primitives::Address;
    use lightprov_engine_api::Key;

    /// A block the chain did not commit is dropped: the engine takes the same number again and
    /// reaches the roots of an engine that never saw it; every block stays provable.
    #[test]
    fn a_discarded_block_is_gone_and_the_next_one_takes_its_number() {
        let settings = One::<PosEngine>::new(SplitRule::ContentDefined {
            bits: 2,
            min: 2,
            max: 8,
        });
        let dir = tempfile::tempdir().unwrap();
        let (mut e, _) = crate::engines::discarded_blocks_leave_no_trace(
            &settings,
            // Never zero: writing zero deletes a key.
            |b| crate::engines::balance_writes(20, b as u8 + 1),
            3,
            dir.path(),
        );
        assert!(e.commit().is_err(), "nothing staged");
        let pos: &Kept<PosEngine> = crate::families::downcast(e.as_ref()).unwrap();
        let key = Key::Balance(Address::repeat_byte(3)).state_key();
        for n in 0..3u64 {
            let root = pos.engine().unwrap().root(n).unwrap();
            let proof = pos.engine().unwrap().prove_key(&key, n).unwrap();
            let got = lightprov_verifier::pos::verify_path(&root, &key, &proof).unwrap();
            assert_eq!(got, Some(B256::with_last_byte(n as u8 + 1).0), "block {n}");
        }
    }
}
