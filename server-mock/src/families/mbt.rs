//! The Merkle Bucket Tree in the node: one engine keeping every version, one header commitment
//! (`mbtRoot`), the `mbt` scheme of `lightprov_getHistory`, `lightprov_getMbtProof` (a state
//! key's value or absence at any block) and `lightprov_getMbtDiff` (every change between two
//! blocks). Each proof is against the root of the block it is about, never the head's.

use std::{path::Path, sync::Arc};

use alloy_consensus::Header;
use alloy_primitives::B256;
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_api::StateEngine;
use lightprov_engine_mbt::MbtEngine;
use lightprov_types::family::Commitment;
use lightprov_types::mbt::{MAX_HISTORY_BLOCKS, MBT_PARAMS, MBT_ROOT, MbtParams};
use serde_json::{Value, json};

use super::one::{Kept, OneEngine};
use super::{Flags as AllFlags, HistoryQuery, Room, block_pair, key_at_block, running};
use crate::{
    chain::Chain,
    engines::{Writes, keyed},
    handler::{Node, block_hex, internal},
};

/// The registry's entry.
pub const ROOM: Room = Room::one::<MbtEngine>(history, rpc, &["lightprov_getMbtDiff"]);

/// The Merkle Bucket Tree's flags.
#[derive(Clone, Debug, clap::Args)]
#[group(id = "mbt")]
#[command(next_help_heading = "Merkle Bucket Tree")]
pub struct Flags {
    /// The tree has 2^bits buckets, a state key's bucket being the top bits of its keccak256
    /// (part of the chain's identity: it shapes mbtRoot). An absence proof carries the key's
    /// whole bucket.
    #[arg(long, default_value_t = MbtParams::DEFAULT.bucket_bits(), value_parser = clap::value_parser!(u8).range(1..=24))]
    pub mbt_bucket_bits: u8,
    /// Children of an inner node of the tree above the buckets.
    #[arg(long, default_value_t = MbtParams::DEFAULT.fanout(), value_parser = clap::value_parser!(u8).range(2..=32))]
    pub mbt_fanout: u8,
}

impl OneEngine for MbtEngine {
    fn dev() -> Option<MbtParams> {
        Some(MbtParams::DEFAULT)
    }

    type Params = MbtParams;
    type Staged = ();
    const NAME: &'static str = "mbt";
    const ROOT: Commitment = MBT_ROOT;

    fn open_in(dir: &Path, params: MbtParams) -> anyhow::Result<Self> {
        Ok(Self::open(dir, params)?)
    }

    fn from_flags(flags: &AllFlags) -> anyhow::Result<MbtParams> {
        let f = &flags.mbt;
        MbtParams::new(f.mbt_bucket_bits, f.mbt_fanout)
            .map_err(|e| anyhow::anyhow!("--mbt-*: {}: {}", e.field, e.reason))
    }

    fn fingerprint(p: &MbtParams) -> String {
        format!("/mbt:{}/{}", p.bucket_bits(), p.fanout())
    }

    fn banner(p: &MbtParams) -> String {
        format!(
            "Merkle Bucket Tree: 2^{} buckets, fanout {}",
            p.bucket_bits(),
            p.fanout()
        )
    }

    fn check_more(params: &MbtParams, header: &Header) -> anyhow::Result<()> {
        if header.number == 0 {
            let word = MBT_PARAMS.read(&header.extra_data).unwrap_or_default();
            if word != params.to_word() {
                anyhow::bail!(
                    "the genesis header pins other mbt parameters ({}) than the engine's \
                     (2^{} buckets, fanout {})",
                    B256::from(word),
                    params.bucket_bits(),
                    params.fanout()
                );
            }
        }
        Ok(())
    }

    fn stage_block(&mut self, number: u64, writes: &Writes) -> anyhow::Result<(B256, ())> {
        Ok((self.stage(number, &keyed(writes))?, ()))
    }

    fn write_commitments(
        &mut self,
        params: &MbtParams,
        number: u64,
        root: B256,
        extra: &mut [u8],
    ) -> anyhow::Result<()> {
        // The genesis header also pins the parameters, once for the chain.
        if !MBT_ROOT.write(extra, &root.0)
            || (number == 0 && !MBT_PARAMS.write(extra, &params.to_word()))
        {
            self.discard();
            anyhow::bail!("extraData holds no room for mbtRoot and mbtParams");
        }
        Ok(())
    }

    fn commit_in(kept: &mut Kept<Self>) -> anyhow::Result<()> {
        // The batch is atomic: on failure, reopen from what the store holds.
        kept.step(Self::commit)
    }

    fn status_of(&self, params: &MbtParams) -> Value {
        json!({
            "name": "mbt",
            "head": self.head(),
            "diskBytes": self.disk_bytes(),
            "params": params_json(params),
        })
    }
}

fn params_json(p: &MbtParams) -> Value {
    json!({ "bucketBits": p.bucket_bits(), "fanout": p.fanout() })
}

fn mbt_of(chain: &Chain) -> Result<&MbtEngine, ErrorObjectOwned> {
    running::<Kept<MbtEngine>>(chain, "the mbt engine")?
        .engine()
        .map_err(internal)
}

/// An answer: the block it is of, the tree's parameters and the proof.
fn answer(node: &Node, engine: &MbtEngine, block: u64, proof: &[u8]) -> Value {
    let p = engine.params();
    json!({
        "block": block_hex(node, block),
        "bucketBits": p.bucket_bits(),
        "fanout": p.fanout(),
        "proof": lightprov_types::hex::encode(proof),
    })
}

fn history(q: &HistoryQuery<'_>) -> Result<Value, ErrorObjectOwned> {
    let engine = mbt_of(q.chain)?;
    q.at_most(MAX_HISTORY_BLOCKS, "an mbt history proof covers")?;
    let proof = engine
        .prove_history(&q.key, q.from, q.to)
        .map_err(internal)?;
    // Against the roots of every block of the range: the answer is of its last block.
    Ok(answer(q.node, engine, q.to, &proof.encode()))
}

fn rpc(m: &mut RpcModule<Arc<Node>>) -> anyhow::Result<()> {
    m.register_method(
        "lightprov_getMbtProof",
        |p, n, _| -> Result<Value, ErrorObjectOwned> {
            let (key, chain, block) = key_at_block(&p, n)?;
            let engine = mbt_of(&chain)?;
            let proof = engine.prove_at(&key, block).map_err(internal)?;
            Ok(answer(n, engine, block, &proof.encode()))
        },
    )?;
    m.register_method(
        "lightprov_getMbtDiff",
        |p, n, _| -> Result<Value, ErrorObjectOwned> {
            let (chain, from, to) = block_pair(&p, n)?;
            let engine = mbt_of(&chain)?;
            let proof = engine.prove_diff(from, to).map_err(internal)?;
            let mut v = answer(n, engine, to, &proof.encode());
            if let Some(o) = v.as_object_mut() {
                o.insert("fromBlock".into(), format!("0x{from:x}").into());
            }
            Ok(v)
        },
    )?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::families::Settings as _;
    use crate::families::one::One;
    use lightprov_engine_api::Key;
    use lightprov_types::Word;

    fn writes(b: u64) -> Vec<(Key, Word)> {
        crate::engines::balance_writes(3, b as u8 + 1)
    }

    /// A block the chain did not commit is dropped: the engine takes the same number again and
    /// reaches the roots of an engine that never saw it.
    #[test]
    fn a_discarded_block_is_gone_and_the_next_one_takes_its_number() {
        let settings = One::<MbtEngine>::new(MbtParams::new(3, 2).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let (_, extra) =
            crate::engines::discarded_blocks_leave_no_trace(&settings, writes, 3, dir.path());
        assert_ne!(MBT_ROOT.read(&extra), Some([0; 32]));
    }

    /// The root a block's header carries is the one the engine checks against, and another
    /// root is refused.
    #[test]
    fn a_header_of_another_root_is_refused() {
        let settings = One::<MbtEngine>::new(MbtParams::new(3, 2).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let mut e = settings.open(dir.path()).unwrap().unwrap();
        let mut extra = vec![0u8; lightprov_types::family::EXTRA_COMMITMENTS_LEN];
        e.stage(0, &writes(0), &mut extra).unwrap();
        e.commit().unwrap();
        let mut h = Header {
            extra_data: extra.clone().into(),
            ..Header::default()
        };
        e.check(&h).unwrap();
        // The genesis header pins the parameters.
        assert_eq!(
            MbtParams::from_word(&MBT_PARAMS.read(&extra).unwrap()).unwrap(),
            Some(MbtParams::new(3, 2).unwrap())
        );
        let mut other = extra.clone();
        assert!(MBT_PARAMS.write(&mut other, &MbtParams::new(4, 2).unwrap().to_word()));
        h.extra_data = other.into();
        assert!(e.check(&h).is_err(), "other parameters pinned at genesis");
        extra[MBT_ROOT.offset] ^= 1;
        h.extra_data = extra.into();
        assert!(e.check(&h).is_err());
    }

    /// Only the genesis header carries the parameters.
    #[test]
    fn later_headers_pin_nothing() {
        let settings = One::<MbtEngine>::new(MbtParams::new(3, 2).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let mut e = settings.open(dir.path()).unwrap().unwrap();
        for n in 0..2 {
            let mut extra = vec![0u8; lightprov_types::family::EXTRA_COMMITMENTS_LEN];
            e.stage(n, &writes(n), &mut extra).unwrap();
            e.commit().unwrap();
            assert_eq!(MBT_PARAMS.read(&extra) == Some([0; 32]), n > 0, "block {n}");
        }
    }
}
