//! The forkless LiveDB and ArchiveDB in the node: one engine, one header commitment
//! (`forklessRoot`), the `forkless` scheme of `lightprov_getHistory`, and
//! `lightprov_getForklessProof` (a key's value, its absence or its history, by typed key).

use std::{path::Path, sync::Arc};

use alloy_primitives::{Address, B256};
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_api::StateEngine;
use lightprov_engine_forkless::{ForklessEngine, Options, forkless_key};
use lightprov_types::family::Commitment;
use lightprov_types::forkless::{FORKLESS_ROOT, ForklessKey, Params, Proof};
use serde_json::{Value, json};

use super::one::{Kept, OneEngine};
use super::{Flags as AllFlags, HistoryQuery, Room, running};
use crate::{
    chain::Chain,
    engines::Writes,
    handler::{Node, args, block_hex, internal, invalid, opt_block_range, read},
};

/// The registry's entry.
pub const ROOM: Room = Room::one::<ForklessEngine>(history, rpc, &["lightprov_getForklessProof"]);

/// The forkless engine's flags.
#[derive(Clone, Debug, clap::Args)]
#[group(id = "forkless")]
#[command(next_help_heading = "Forkless LiveDB")]
pub struct Flags {
    /// Bytes of a LiveDB page, the unit its hash trees hash (part of the chain's identity: it
    /// shapes forklessRoot). The paper's choice is 4096; 512 makes proofs smaller at no cost in
    /// block time (docs/benchmarks.md).
    #[arg(long, default_value_t = 512, value_parser = clap::value_parser!(u32).range(64..=65536))]
    pub forkless_page_size: u32,
    /// Children of an inner node of the LiveDB's hash trees.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=64))]
    pub forkless_fanout: u8,
    /// Keys per bucket of the LiveDB's key indexes at which a bucket splits (linear hashing):
    /// an absence proof carries one bucket.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(1..))]
    pub forkless_bucket_load: u8,
}

impl OneEngine for ForklessEngine {
    fn dev() -> Option<Params> {
        Some(Params::default())
    }

    type Params = Params;
    type Staged = ();
    const NAME: &'static str = "forkless";
    const ROOT: Commitment = FORKLESS_ROOT;
    // The engine's own rule: after a failed stage or commit, reopen it.
    const REOPEN_AFTER_FAILED_STAGE: bool = true;

    fn open_in(dir: &Path, params: Params) -> anyhow::Result<Self> {
        Ok(Self::open(
            dir,
            Options {
                params,
                ..Options::default()
            },
        )?)
    }

    fn from_flags(flags: &AllFlags) -> anyhow::Result<Params> {
        let f = &flags.forkless;
        let params = Params {
            page_size: f.forkless_page_size,
            fanout: f.forkless_fanout,
            bucket_load: f.forkless_bucket_load,
        };
        params
            .validate()
            .map_err(|e| anyhow::anyhow!("--forkless-*: {e}"))?;
        Ok(params)
    }

    fn fingerprint(p: &Params) -> String {
        format!("/forkless:{}/{}/{}", p.page_size, p.fanout, p.bucket_load)
    }

    fn banner(p: &Params) -> String {
        format!(
            "forkless LiveDB: pages of {} B, fanout {}, bucket load {}",
            p.page_size, p.fanout, p.bucket_load
        )
    }

    fn stage_block(&mut self, number: u64, writes: &Writes) -> anyhow::Result<(B256, ())> {
        Ok((self.stage(number, writes)?, ()))
    }

    fn commit_in(kept: &mut Kept<Self>) -> anyhow::Result<()> {
        kept.step(Self::commit)
    }

    fn status_of(&self, p: &Params) -> Value {
        let (live, archive) = self.disk_split();
        json!({
            "name": "forkless",
            "head": self.head(),
            "diskBytes": live + archive,
            "liveBytes": live,
            "archiveBytes": archive,
            "archivedTo": self.archived(),
            "params": {
                "pageSize": p.page_size,
                "fanout": p.fanout,
                "bucketLoad": p.bucket_load,
            },
        })
    }
}

fn forkless_of(chain: &Chain) -> Result<&ForklessEngine, ErrorObjectOwned> {
    running::<Kept<ForklessEngine>>(chain, "the forkless engine")?
        .engine()
        .map_err(internal)
}

fn answer(node: &Node, chain: &Chain, proof: &Proof) -> Value {
    let head = chain.head().0.number;
    json!({
        "block": block_hex(node, head),
        "proof": lightprov_types::hex::encode(&proof.encode()),
    })
}

fn history(q: &HistoryQuery<'_>) -> Result<Value, ErrorObjectOwned> {
    let engine = forkless_of(q.chain)?;
    // The LiveDB files keys by account and slot: the chain knows the key behind a state key it
    // wrote; one it never wrote has no history to prove here (ask lightprov_getForklessProof
    // with the key itself for its absence).
    let key = q.chain.preimage(&q.key).map_err(internal)?.ok_or_else(|| {
        invalid(
            "stateKey",
            "never written on this chain; lightprov_getForklessProof proves a key's absence by its kind and address",
        )
    })?;
    let proof = engine
        .prove_history(&forkless_key(&key), q.from, q.to)
        .map_err(internal)?;
    Ok(answer(q.node, q.chain, &proof))
}

fn rpc(m: &mut RpcModule<Arc<Node>>) -> anyhow::Result<()> {
    m.register_method(
        "lightprov_getForklessProof",
        |p, n, _| -> Result<Value, ErrorObjectOwned> {
            let a = args(&p, 3)?;
            let key = key_arg(a.first().unwrap_or(&Value::Null))?;
            let chain = read(n)?;
            let range = opt_block_range(&chain, &a, 1)?;
            let engine = forkless_of(&chain)?;
            let proof = match range {
                None => engine.prove_value(&key),
                Some((from, to)) => engine.prove_history(&key, from, to),
            }
            .map_err(internal)?;
            Ok(answer(n, &chain, &proof))
        },
    )?;
    Ok(())
}

/// `{kind, address, slot?}` as the SDK's `StateKey` names a key.
fn key_arg(v: &Value) -> Result<ForklessKey, ErrorObjectOwned> {
    let address: Address = v
        .get("address")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("key.address", "expected a 20-byte 0x-hex address"))?;
    match v.get("kind").and_then(Value::as_str) {
        Some("balance") => Ok(ForklessKey::Balance(address)),
        Some("nonce") => Ok(ForklessKey::Nonce(address)),
        Some("storage") => {
            let slot: B256 = v
                .get("slot")
                .and_then(Value::as_str)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| invalid("key.slot", "expected a 32-byte 0x-hex slot"))?;
            Ok(ForklessKey::Storage(address, slot))
        }
        _ => Err(invalid("key.kind", "expected balance, nonce or storage")),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::families::one::One;
    use lightprov_engine_api::Key;
    use lightprov_types::Word;

    fn writes(b: u64) -> Vec<(Key, Word)> {
        crate::engines::balance_writes(3, b as u8)
    }

    /// A block the chain did not commit is dropped: the engine takes the same number again and
    /// reaches the roots of an engine that never saw it.
    #[test]
    fn a_discarded_block_is_gone_and_the_next_one_takes_its_number() {
        let settings = One::<ForklessEngine>::new(Params {
            page_size: 128,
            fanout: 4,
            bucket_load: 2,
        });
        let dir = tempfile::tempdir().unwrap();
        crate::engines::discarded_blocks_leave_no_trace(&settings, writes, 3, dir.path());
    }
}
