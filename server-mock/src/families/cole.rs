//! COLE and COLE* in the node: two engines, one header commitment (`coleRoot`, both roots under
//! one hash), and the `cole` and `cole-star` schemes of `lightprov_getHistory`.

use std::{
    path::{Path, PathBuf},
    sync::Arc,
};

use alloy_consensus::Header;
use alloy_primitives::B256;
use jsonrpsee::types::ErrorObjectOwned;
use lightprov_engine_cole::{ColeEngine, Params};
use lightprov_types::cole::{COLE_ROOT, hash::header_root};
use serde_json::{Value, json};

use super::{Flags as AllFlags, HistoryQuery, Room};
use crate::{
    dishonest::Family,
    engines::{Engine, SettingsResult, Writes, keyed},
    handler::{block_hex, internal, invalid, proof_hex},
};

/// The registry's entry.
pub const ROOM: Room = Room {
    engines: &["cole", "cole-star"],
    dev: || Some(Arc::new(Settings::both())),
    settings,
    history,
    rpc: |_| Ok(()),
    expensive: &[],
};

/// COLE's flags (both engines share them).
#[derive(Clone, Debug, clap::Args)]
#[group(id = "cole")]
#[command(next_help_heading = "COLE and COLE*")]
pub struct Flags {
    /// COLE/COLE* level-0 capacity B, in entries (part of the chain's identity: it shapes
    /// coleRoot). Small values make many levels quickly, for trying merges out.
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    pub cole_l0_capacity: u64,
    /// COLE/COLE* size ratio T: runs per level before they merge into the next.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(2..=64))]
    pub cole_size_ratio: u16,
    /// COLE/COLE* Merkle fanout m.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(3..=64))]
    pub cole_fanout: u8,
}

/// The two COLE engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// COLE.
    Cole,
    /// COLE*.
    ColeStar,
}

impl Variant {
    const BOTH: [Self; 2] = [Self::Cole, Self::ColeStar];

    /// Its engine name, scheme and directory.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Cole => "cole",
            Self::ColeStar => "cole-star",
        }
    }
}

/// The parameters of each COLE engine the node runs.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// COLE's, if it runs.
    pub cole: Option<Params>,
    /// COLE*'s, if it runs.
    pub cole_star: Option<Params>,
}

impl Settings {
    /// Both engines with the paper's parameters.
    pub fn both() -> Self {
        Self {
            cole: Some(Params::cole()),
            cole_star: Some(Params::cole_star()),
        }
    }

    fn params(&self, v: Variant) -> Option<Params> {
        match v {
            Variant::Cole => self.cole,
            Variant::ColeStar => self.cole_star,
        }
    }
}

fn settings(flags: &AllFlags, engines: &[String], _: &Path) -> SettingsResult {
    let f = &flags.cole;
    let pick = |v: Variant, base: Params| {
        engines.iter().any(|e| e == v.name()).then_some(Params {
            l0_capacity: f.cole_l0_capacity,
            size_ratio: usize::from(f.cole_size_ratio),
            fanout: f.cole_fanout,
            ..base
        })
    };
    // Kept when neither engine runs: the chain's identity has always named both.
    Ok(Some(Arc::new(Settings {
        cole: pick(Variant::Cole, Params::cole()),
        cole_star: pick(Variant::ColeStar, Params::cole_star()),
    })))
}

impl crate::engines::Settings for Settings {
    fn fingerprint(&self) -> String {
        format!("/{:?}/{:?}", self.cole, self.cole_star)
    }

    fn open(&self, dir: &Path) -> anyhow::Result<Option<Box<dyn Engine>>> {
        if self.cole.is_none() && self.cole_star.is_none() {
            return Ok(None);
        }
        let mut e = Engines {
            dir: dir.to_path_buf(),
            settings: self.clone(),
            cole: None,
            cole_star: None,
        };
        for v in Variant::BOTH {
            e.reopen(v)?;
        }
        Ok(Some(Box::new(e)))
    }
}

/// The COLE engines the node runs.
#[derive(Debug)]
pub struct Engines {
    dir: PathBuf,
    settings: Settings,
    cole: Option<ColeEngine>,
    cole_star: Option<ColeEngine>,
}

impl Engines {
    /// The engine of `v`, if the node runs it.
    pub fn engine(&self, v: Variant) -> Option<&ColeEngine> {
        match v {
            Variant::Cole => self.cole.as_ref(),
            Variant::ColeStar => self.cole_star.as_ref(),
        }
    }

    fn slot(&mut self, v: Variant) -> &mut Option<ColeEngine> {
        match v {
            Variant::Cole => &mut self.cole,
            Variant::ColeStar => &mut self.cole_star,
        }
    }

    /// (Re)opens the engine of `v` from its files: what it staged and did not commit is gone.
    fn reopen(&mut self, v: Variant) -> anyhow::Result<()> {
        let Some(p) = self.settings.params(v) else {
            return Ok(());
        };
        let path = self.dir.join(v.name());
        *self.slot(v) = None;
        let e = ColeEngine::open(&path, p, Default::default())
            .map_err(|e| anyhow::anyhow!("opening {}: {e}", path.display()))?;
        *self.slot(v) = Some(e);
        Ok(())
    }

    /// `H_state` of both engines after `block` (zero for one the node does not run).
    pub fn roots(&self, block: u64) -> anyhow::Result<(B256, B256)> {
        let root = |v| -> anyhow::Result<B256> {
            self.engine(v)
                .map(|e| e.root_at(block))
                .transpose()
                .map(Option::unwrap_or_default)
                .map_err(|err| anyhow::anyhow!("{}: {err}", v.name()))
        };
        Ok((root(Variant::Cole)?, root(Variant::ColeStar)?))
    }

    fn running(&mut self) -> impl Iterator<Item = (Variant, &mut ColeEngine)> {
        [
            (Variant::Cole, self.cole.as_mut()),
            (Variant::ColeStar, self.cole_star.as_mut()),
        ]
        .into_iter()
        .filter_map(|(v, e)| Some((v, e?)))
    }
}

fn blocks_of(e: &ColeEngine) -> u64 {
    e.head_block().map_or(0, |h| h + 1)
}

impl Engine for Engines {
    fn name(&self) -> &'static str {
        "COLE"
    }

    fn blocks(&self) -> u64 {
        Variant::BOTH
            .into_iter()
            .filter_map(|v| self.engine(v).map(blocks_of))
            .min()
            .unwrap_or(0)
    }

    fn apply(&mut self, number: u64, writes: &Writes) -> anyhow::Result<()> {
        let writes = keyed(writes);
        // After a crash one engine may be a block ahead of the other.
        for (v, e) in self.running() {
            if blocks_of(e) == number {
                e.apply(number, &writes)
                    .map_err(|err| anyhow::anyhow!("{}: {err}", v.name()))?;
            }
        }
        Ok(())
    }

    fn check(&self, header: &Header) -> anyhow::Result<()> {
        let (a, b) = self.roots(header.number)?;
        if root_of(header) != header_root(&a, &b) {
            anyhow::bail!(
                "the COLE engines' roots differ from the header of block {}",
                header.number
            );
        }
        Ok(())
    }

    fn stage(&mut self, number: u64, writes: &Writes, extra: &mut [u8]) -> anyhow::Result<()> {
        let writes = keyed(writes);
        let (mut cole, mut cole_star) = (B256::ZERO, B256::ZERO);
        for v in Variant::BOTH {
            let Some(e) = self.slot(v).as_mut() else {
                continue;
            };
            match (e.stage(number, &writes), v) {
                (Ok(r), Variant::Cole) => cole = r,
                (Ok(r), Variant::ColeStar) => cole_star = r,
                (Err(err), _) => {
                    self.discard()?;
                    anyhow::bail!("{}: {err}", v.name());
                }
            }
        }
        COLE_ROOT.write(extra, &header_root(&cole, &cole_star).0);
        Ok(())
    }

    fn commit(&mut self) -> anyhow::Result<()> {
        for v in Variant::BOTH {
            let Some(e) = self.slot(v).as_mut() else {
                continue;
            };
            if let Err(err) = e.commit() {
                // The engine's own rule: after a failed commit, reopen it.
                self.reopen(v)?;
                anyhow::bail!("{}: {err}", v.name());
            }
        }
        Ok(())
    }

    fn discard(&mut self) -> anyhow::Result<()> {
        for v in Variant::BOTH {
            self.reopen(v)?;
        }
        Ok(())
    }

    fn status(&self) -> Vec<Value> {
        Variant::BOTH
            .into_iter()
            .filter_map(|v| {
                let e = self.engine(v)?;
                let (structures, merging) = e.shape();
                Some(json!({
                    "name": v.name(),
                    "head": e.head_block(),
                    "diskBytes": e.bytes_on_disk(),
                    "structures": structures,
                    "mergesInFlight": merging,
                }))
            })
            .collect()
    }
}

/// The `coleRoot` commitment of a header (zero if absent).
pub fn root_of(header: &Header) -> B256 {
    B256::from(COLE_ROOT.read(&header.extra_data).unwrap_or_default())
}

fn history(q: &HistoryQuery<'_>) -> Result<Value, ErrorObjectOwned> {
    let variant = if q.scheme == Variant::Cole.name() {
        Variant::Cole
    } else {
        Variant::ColeStar
    };
    let engines = q.chain.family::<Engines>();
    let engine = engines
        .and_then(|e| e.engine(variant))
        .ok_or_else(|| invalid("scheme", format!("this node does not run {}", q.scheme)))?;
    let block = q.chain.head().0.number;
    let proof = engine
        .prove_history(&q.key, q.from, q.to)
        .map_err(internal)?;
    let (cole, star) = engines
        .map(|e| e.roots(block))
        .transpose()
        .map_err(internal)?
        .unwrap_or_default();
    let sibling = match variant {
        Variant::Cole => star,
        Variant::ColeStar => cole,
    };
    Ok(json!({
        "block": block_hex(q.node, block),
        "siblingRoot": sibling,
        "proof": proof_hex(q.node, Family::Cole, proof.encode()),
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::families::Settings as _;
    use lightprov_types::Word;

    fn small() -> Settings {
        let p = |async_merge| Params {
            l0_capacity: 4,
            size_ratio: 2,
            async_merge,
            ..Params::cole()
        };
        Settings {
            cole: Some(p(false)),
            cole_star: Some(p(true)),
        }
    }

    fn writes(b: u64) -> Vec<(lightprov_engine_api::Key, Word)> {
        crate::engines::balance_writes(3, b as u8)
    }

    /// A block the chain did not commit is dropped: the engines take the same number again and
    /// reach the roots of engines that never saw it.
    #[test]
    fn a_discarded_block_is_gone_and_the_next_one_takes_its_number() {
        let dir = tempfile::tempdir().unwrap();
        crate::engines::discarded_blocks_leave_no_trace(&small(), writes, 6, dir.path());
    }

    /// After a crash between the two engines' commits, catching up applies the block to the
    /// one that lacks it only, and both reach the roots of engines that never crashed.
    #[test]
    fn apply_skips_the_engine_that_already_has_the_block() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut e = small().open(a.path()).unwrap().unwrap();
        let mut clean = small().open(b.path()).unwrap().unwrap();
        for n in 0..2 {
            clean.apply(n, &writes(n)).unwrap();
        }
        e.apply(0, &writes(0)).unwrap();
        let engines: &mut Engines = {
            let any: &mut dyn std::any::Any = &mut *e;
            any.downcast_mut().unwrap()
        };
        // COLE alone takes block 1, as if the node died before COLE* committed it.
        engines
            .cole
            .as_mut()
            .unwrap()
            .apply(1, &crate::families::keyed(&writes(1)))
            .unwrap();
        assert_eq!(engines.blocks(), 1);
        engines.apply(1, &writes(1)).unwrap();
        assert_eq!(engines.blocks(), 2);
        let clean: &Engines = crate::families::downcast(&*clean).unwrap();
        assert_eq!(engines.roots(1).unwrap(), clean.roots(1).unwrap());
    }
}
