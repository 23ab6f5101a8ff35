//! The forkless LiveDB and ArchiveDB in the node: one engine, one header commitment
//! (`forklessRoot`), the `forkless` scheme of `lightprov_getHistory`, and
//! `lightprov_getForklessProof` (a key's value, its absence or its history, by typed key).

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use alloy_consensus::Header;
use alloy_primitives::{Address, B256};
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_api::StateEngine;
use lightprov_engine_forkless::{ForklessEngine, Options, forkless_key};
use lightprov_types::forkless::{FORKLESS_ROOT, ForklessKey, Params, Proof};
use serde_json::{Value, json};

use super::{Flags as AllFlags, HistoryQuery, Room, running};
use crate::{
    chain::Chain,
    engines::{Engine, Held, SettingsResult, Writes, or_reopen},
    handler::{Node, args, block_hex, internal, invalid, opt_block_range, read},
};

/// The registry's entry.
pub const ROOM: Room = Room {
    engines: &["forkless"],
    dev: || Some(Arc::new(Settings(Params::default()))),
    settings,
    history,
    rpc,
    expensive: &["lightprov_getForklessProof"],
};

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

/// The LiveDB's parameters, if the node runs the engine.
#[derive(Clone, Copy, Debug)]
pub struct Settings(pub Params);

fn settings(flags: &AllFlags, engines: &[String], _: &Path) -> SettingsResult {
    if !engines.iter().any(|e| e == "forkless") {
        return Ok(None);
    }
    let f = &flags.forkless;
    let params = Params {
        page_size: f.forkless_page_size,
        fanout: f.forkless_fanout,
        bucket_load: f.forkless_bucket_load,
    };
    params
        .validate()
        .map_err(|e| anyhow::anyhow!("--forkless-*: {e}"))?;
    Ok(Some(Arc::new(Settings(params))))
}

impl crate::engines::Settings for Settings {
    fn fingerprint(&self) -> String {
        format!(
            "/forkless:{}/{}/{}",
            self.0.page_size, self.0.fanout, self.0.bucket_load
        )
    }

    fn banner(&self) -> Option<String> {
        Some(format!(
            "forkless LiveDB: pages of {} B, fanout {}, bucket load {}",
            self.0.page_size, self.0.fanout, self.0.bucket_load
        ))
    }

    fn open(&self, dir: &Path) -> anyhow::Result<Option<Box<dyn Engine>>> {
        let mut e = Forkless {
            dir: dir.join("forkless"),
            params: self.0,
            engine: Held::new("forkless"),
        };
        e.reopen()?;
        Ok(Some(Box::new(e)))
    }
}

/// The engine as the chain drives it.
#[derive(Debug)]
pub struct Forkless {
    dir: PathBuf,
    params: Params,
    engine: Held<ForklessEngine>,
}

impl Forkless {
    /// The engine.
    pub fn engine(&self) -> anyhow::Result<&ForklessEngine> {
        self.engine.get()
    }

    /// (Re)opens the engine from its files: a staged block is gone.
    fn reopen(&mut self) -> anyhow::Result<()> {
        let (dir, params) = (&self.dir, self.params);
        self.engine.reopen(dir, || {
            ForklessEngine::open(
                dir,
                Options {
                    params,
                    ..Options::default()
                },
            )
        })
    }
}

impl Engine for Forkless {
    fn name(&self) -> &'static str {
        "forkless"
    }

    fn blocks(&self) -> u64 {
        self.engine
            .as_ref()
            .and_then(|e| e.head())
            .map_or(0, |h| h + 1)
    }

    fn apply(&mut self, number: u64, writes: &Writes) -> anyhow::Result<()> {
        self.engine.get_mut()?.apply_block(number, writes)?;
        Ok(())
    }

    fn check(&self, header: &Header) -> anyhow::Result<()> {
        let root = self.engine()?.root(header.number)?;
        crate::engines::check_commitment("forkless", root, header, &FORKLESS_ROOT)
    }

    fn stage(&mut self, number: u64, writes: &Writes, extra: &mut [u8]) -> anyhow::Result<()> {
        let r = self.engine.get_mut()?.stage(number, writes);
        let root = or_reopen(r, || self.reopen())?;
        FORKLESS_ROOT.write(extra, &root.0);
        Ok(())
    }

    fn commit(&mut self) -> anyhow::Result<()> {
        // The engine's own rule: after a failed commit, reopen it.
        let r = self.engine.get_mut()?.commit();
        or_reopen(r, || self.reopen())
    }

    fn discard(&mut self) -> anyhow::Result<()> {
        self.reopen()
    }

    fn status(&self) -> Vec<Value> {
        let Some(e) = self.engine.as_ref() else {
            return Vec::new();
        };
        let (live, archive) = e.disk_split();
        vec![json!({
            "name": "forkless",
            "head": e.head(),
            "diskBytes": live + archive,
            "liveBytes": live,
            "archiveBytes": archive,
            "archivedTo": e.archived(),
            "params": {
                "pageSize": self.params.page_size,
                "fanout": self.params.fanout,
                "bucketLoad": self.params.bucket_load,
            },
        })]
    }
}

fn forkless_of(chain: &Chain) -> Result<&ForklessEngine, ErrorObjectOwned> {
    running::<Forkless>(chain, "the forkless engine")?
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use lightprov_engine_api::Key;
    use lightprov_types::Word;

    fn writes(b: u64) -> Vec<(Key, Word)> {
        crate::engines::balance_writes(3, b as u8)
    }

    /// A block the chain did not commit is dropped: the engine takes the same number again and
    /// reaches the roots of an engine that never saw it.
    #[test]
    fn a_discarded_block_is_gone_and_the_next_one_takes_its_number() {
        let settings = Settings(Params {
            page_size: 128,
            fanout: 4,
            bucket_load: 2,
        });
        let dir = tempfile::tempdir().unwrap();
        crate::engines::discarded_blocks_leave_no_trace(&settings, writes, 3, dir.path());
    }
}
