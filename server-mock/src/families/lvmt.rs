//! LVMT in the node: where its AMT parameters come from (a Powers-of-Tau file, or the insecure
//! dev setup), the derived tables cached on disk, the proof shard, the store fed every block,
//! its two header commitments (`lvmtRoot`, `lvmtHistoryRoot`), the `lvmt` scheme of
//! `lightprov_getHistory`, and `lightprov_getLvmtProof` and `lightprov_params`.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::Arc,
    time::Instant,
};

use alloy_consensus::Header;
use alloy_primitives::{B256, hex};
use anyhow::Context;
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_lvmt::{
    amt::Proofs,
    setup::Setup,
    store::{LvmtStore, StoreError},
    tree::{Lvmt, in_key_order},
};
use lightprov_types::{
    Word,
    lvmt::{LVMT_HISTORY_ROOT, LVMT_ROOT},
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{Flags as AllFlags, HistoryQuery, Room, key_at_block, running};
use crate::{
    chain::Chain,
    dishonest::Family,
    engines::{Engine, SettingsResult, Writes},
    handler::{Node, block_hex, internal, invalid, not_served, proof_hex, read},
};

/// The registry's entry.
pub const ROOM: Room = Room {
    engines: &["lvmt"],
    // Its parameters come from a setup: an in-process chain adds them (`Config::set`).
    dev: || None,
    settings,
    history,
    rpc,
    expensive: &["lightprov_getLvmtProof"],
};

/// LVMT's flags.
#[derive(Clone, Debug, clap::Args)]
#[group(id = "lvmt")]
#[command(next_help_heading = "LVMT")]
pub struct Flags {
    /// LVMT's AMT depth D: 2^D entries per AMT, 16 key bits per level at D = 16 (part of the
    /// chain's identity).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u8).range(1..=20))]
    pub lvmt_depth: u8,
    /// A Powers-of-Tau file (snarkjs `.ptau`, BN254, power ≥ D) for LVMT's parameters. Without
    /// it the node uses a dev setup whose τ is public: INSECURE, anyone can forge its proofs.
    #[arg(long)]
    pub lvmt_ptau: Option<PathBuf>,
    /// Where LVMT's derived tables are cached (tens of MB at D = 16; deriving them takes a
    /// while once). Default: $XDG_CACHE_HOME/lightprov or ~/.cache/lightprov.
    #[arg(long)]
    pub lvmt_tables: Option<PathBuf>,
    /// The LVMT proofs this node keeps current: `all`, `none`, or `R/K` — the root-AMT
    /// entries j with j mod K = R (the paper's proof sharding; K a power of two). It answers
    /// LVMT queries only for keys of its shard; the roots are the same for every shard.
    #[arg(long, default_value = "all", value_parser = parse_shard)]
    pub proof_shard: Proofs,
}

fn settings(flags: &AllFlags, engines: &[String], data_dir: &Path) -> SettingsResult {
    if !engines.iter().any(|e| e == "lvmt") {
        return Ok(None);
    }
    let f = &flags.lvmt;
    let source = f
        .lvmt_ptau
        .clone()
        .map_or(SetupSource::Dev, SetupSource::Ptau);
    let tables = f
        .lvmt_tables
        .clone()
        .unwrap_or_else(|| default_tables_dir(data_dir));
    let setup = load_setup(f.lvmt_depth, &source, &tables)?;
    Ok(Some(Arc::new(Settings {
        setup: Arc::new(setup),
        proofs: f.proof_shard,
    })))
}

/// LVMT's settings: the AMT parameters (part of the chain's identity: they shape `lvmtRoot`)
/// and which openings the node keeps current (not part of it: any shard yields the same roots).
#[derive(Clone)]
pub struct Settings {
    /// Tables and verifier parameters.
    pub setup: Arc<Setup>,
    /// The proof shard.
    pub proofs: Proofs,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("depth", &self.setup.depth())
            .field("params", &B256::from(self.setup.params().id()))
            .field("insecure", &self.setup.is_insecure())
            .field("proofs", &self.proofs)
            .finish()
    }
}

impl crate::engines::Settings for Settings {
    fn fingerprint(&self) -> String {
        format!("/lvmt:{}", B256::from(self.setup.params().id()))
    }

    /// Genesis binds the chain to its LVMT parameters: mixHash = their SHA-256, so a client
    /// trusting the genesis hash trusts them.
    fn genesis_mix_hash(&self) -> Option<B256> {
        Some(B256::from(self.setup.params().id()))
    }

    fn banner(&self) -> Option<String> {
        Some(format!(
            "lvmt          D = {}, params {}, proof shard {}{}",
            self.setup.depth(),
            B256::from(self.setup.params().id()),
            shard_label(self.proofs),
            if self.setup.is_insecure() {
                " — INSECURE dev setup (public τ): its proofs can be forged"
            } else {
                ""
            }
        ))
    }

    /// Opens the store in `<dir>/lvmt`. A store kept with another proof shard (the shard is the
    /// node's choice, not the chain's: every shard has the same roots) is rebuilt from the
    /// chain's write sets; other AMT parameters cannot reach here (the chain's settings check
    /// refuses them first).
    fn open(&self, dir: &Path) -> anyhow::Result<Option<Box<dyn Engine>>> {
        let path = dir.join("lvmt");
        let store = match LvmtStore::open(&path, self.setup.clone(), self.proofs) {
            Err(StoreError::Settings { stored, given }) => {
                tracing::warn!(
                    "LVMT's store was kept with {stored}, the node runs {given}: rebuilding it from the stored write sets"
                );
                std::fs::remove_dir_all(&path)
                    .map_err(|e| anyhow::anyhow!("removing {}: {e}", path.display()))?;
                LvmtStore::open(&path, self.setup.clone(), self.proofs)
            }
            other => other,
        }
        .map_err(|e| anyhow::anyhow!("opening {}: {e}", path.display()))?;
        Ok(Some(Box::new(Store(store))))
    }
}

/// LVMT's store, on disk in `<data dir>/lvmt`.
pub struct Store(LvmtStore);

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("blocks", &self.0.blocks())
            .finish_non_exhaustive()
    }
}

impl Store {
    /// The tree, for proofs.
    pub fn tree(&self) -> &Lvmt {
        self.0.tree()
    }
}

/// A block's writes in the order LVMT allocates slots: ascending state key (docs/proofs.md).
fn ordered(writes: &Writes) -> Vec<(B256, Word)> {
    let w: BTreeMap<B256, Word> = writes.iter().map(|(k, v)| (k.state_key(), *v)).collect();
    in_key_order(&w)
}

impl Engine for Store {
    fn name(&self) -> &'static str {
        "LVMT"
    }

    fn blocks(&self) -> u64 {
        self.0.blocks()
    }

    fn apply(&mut self, _: u64, writes: &Writes) -> anyhow::Result<()> {
        self.0.commit(&ordered(writes))?;
        Ok(())
    }

    fn check(&self, header: &Header) -> anyhow::Result<()> {
        let t = self.0.tree();
        if (t.aroot(), t.history_root()) != roots_of(header) {
            anyhow::bail!(
                "LVMT's roots differ from the header of block {}: the AMT parameters are not the ones this chain was made with",
                header.number
            );
        }
        Ok(())
    }

    fn stage(&mut self, _: u64, writes: &Writes, extra: &mut [u8]) -> anyhow::Result<()> {
        // Staged in memory: written after the chain's commit point; a refused block leaves the
        // store as it was.
        let (aroot, history) = self.0.stage(&ordered(writes))?;
        LVMT_ROOT.write(extra, &aroot);
        LVMT_HISTORY_ROOT.write(extra, &history.0);
        Ok(())
    }

    fn commit(&mut self) -> anyhow::Result<()> {
        Ok(self.0.persist_staged()?)
    }

    fn discard(&mut self) -> anyhow::Result<()> {
        Ok(self.0.discard_staged()?)
    }

    fn status(&self) -> Vec<Value> {
        let t = self.0.tree();
        vec![json!({
            "name": "lvmt",
            "head": t.blocks().checked_sub(1),
            "depth": t.setup().depth(),
            "insecureSetup": t.setup().is_insecure(),
            "proofShard": shard_label(t.proofs()),
        })]
    }
}

/// The `lvmtRoot` and `lvmtHistoryRoot` commitments of a header (zero if absent).
pub fn roots_of(header: &Header) -> ([u8; 32], B256) {
    let extra = &header.extra_data;
    let aroot = LVMT_ROOT.read(extra).unwrap_or_default();
    let history = LVMT_HISTORY_ROOT.read(extra).unwrap_or_default();
    (aroot, B256::from(history))
}

/// The running LVMT, or an error naming the scheme.
fn lvmt_of(chain: &Chain) -> Result<&Lvmt, ErrorObjectOwned> {
    running::<Store>(chain, "lvmt").map(Store::tree)
}

/// Refuses a key outside the node's LVMT proof shard.
fn check_shard(t: &Lvmt, key: &B256) -> Result<(), ErrorObjectOwned> {
    if t.serves(key) {
        return Ok(());
    }
    Err(not_served(format!(
        "state key {key} is outside this node's LVMT proof shard {} (ask a node of its shard)",
        shard_label(t.proofs())
    )))
}

fn history(q: &HistoryQuery<'_>) -> Result<Value, ErrorObjectOwned> {
    let t = lvmt_of(q.chain)?;
    check_shard(t, &q.key)?;
    let proof = t
        .prove_history(&q.key, q.from, q.to)
        .ok_or_else(|| internal("LVMT could not prove the history"))?;
    Ok(json!({
        "block": block_hex(q.node, q.chain.head().0.number),
        "proof": proof_hex(q.node, Family::Lvmt, proof.encode()),
    }))
}

fn rpc(m: &mut RpcModule<Arc<Node>>) -> anyhow::Result<()> {
    m.register_method(
        "lightprov_getLvmtProof",
        |p, n, _| -> Result<Value, ErrorObjectOwned> {
            let (state_key, chain, block) = key_at_block(&p, n)?;
            let head = chain.head().0.number;
            if block != head {
                return Err(invalid(
                    "blockTag",
                    format!(
                        "LVMT proves against the head (#{head}) only; for block {block} ask lightprov_getHistory(stateKey, {block}, {block}, \"lvmt\")"
                    ),
                ));
            }
            let t = lvmt_of(&chain)?;
            check_shard(t, &state_key)?;
            let proof = t
                .prove(&state_key)
                .ok_or_else(|| internal("LVMT could not prove the key"))?;
            Ok(json!({
                "stateKey": state_key,
                "block": block_hex(n, block),
                "proof": proof_hex(n, Family::Lvmt, proof.encode()),
            }))
        },
    )?;
    m.register_method(
        "lightprov_params",
        |_, n, _| -> Result<Value, ErrorObjectOwned> {
            let chain = read(n)?;
            let t = lvmt_of(&chain)?;
            let setup = t.setup();
            Ok(json!({
                "lvmt": {
                    "depth": setup.depth(),
                    "params": lightprov_types::hex::encode(&setup.params().encode()),
                    "id": B256::from(setup.params().id()),
                    "insecure": setup.is_insecure(),
                    "proofShard": shard_label(t.proofs()),
                }
            }))
        },
    )?;
    Ok(())
}

/// The public seed of the dev setup.
pub const DEV_SEED: &[u8] = b"lightprov dev setup";

/// Where τ comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupSource {
    /// **INSECURE**: τ derived from [`DEV_SEED`], so anyone can forge proofs.
    Dev,
    /// A Powers-of-Tau ceremony file (snarkjs `.ptau`, BN254).
    Ptau(PathBuf),
}

/// Parses `--proof-shard`: `all`, `none`, or `R/K` — the root-AMT entries `j` with
/// `j mod K = R`, `K` a power of two.
pub fn parse_shard(s: &str) -> Result<Proofs, String> {
    match s.trim() {
        "all" => return Ok(Proofs::All),
        "none" => return Ok(Proofs::None),
        _ => {}
    }
    let (r, k) = s
        .split_once('/')
        .ok_or_else(|| format!("`{s}` is not `all`, `none` or R/K (e.g. 3/8)"))?;
    let r: u32 = r
        .trim()
        .parse()
        .map_err(|_| format!("`{r}` in `{s}` is not a shard number"))?;
    let k: u32 = k
        .trim()
        .parse()
        .map_err(|_| format!("`{k}` in `{s}` is not a shard count"))?;
    if !k.is_power_of_two() || k < 2 {
        return Err(format!(
            "the shard count {k} must be a power of two, at least 2"
        ));
    }
    if r >= k {
        return Err(format!("shard {r} does not exist among {k} (0..{k})"));
    }
    Ok(Proofs::Shard {
        bits: u8::try_from(k.trailing_zeros()).unwrap_or(u8::MAX),
        residue: r,
    })
}

/// `all`, `none` or `R/K`.
pub fn shard_label(p: Proofs) -> String {
    match p {
        Proofs::All => "all".into(),
        Proofs::None => "none".into(),
        Proofs::Shard { bits, residue } => format!("{residue}/{}", 1u64 << bits),
    }
}

/// The default directory for derived tables: `$XDG_CACHE_HOME/lightprov`, else
/// `$HOME/.cache/lightprov`, else `fallback`.
pub fn default_tables_dir(fallback: &Path) -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .map_or_else(|| fallback.to_path_buf(), |d| d.join("lightprov"))
}

/// A name for the tables of `source` at `depth`: the dev seed, or the ptau file's canonical
/// path, length and modification time.
fn tables_name(depth: u8, source: &SetupSource) -> anyhow::Result<String> {
    let mut h = Sha256::new();
    match source {
        SetupSource::Dev => {
            h.update(b"dev\0");
            h.update(DEV_SEED);
        }
        SetupSource::Ptau(p) => {
            let canonical = p
                .canonicalize()
                .with_context(|| format!("--lvmt-ptau {}", p.display()))?;
            let meta = std::fs::metadata(&canonical)
                .with_context(|| format!("--lvmt-ptau {}", p.display()))?;
            h.update(b"ptau\0");
            h.update(canonical.to_string_lossy().as_bytes());
            h.update(meta.len().to_be_bytes());
            let mtime = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            h.update(mtime.to_be_bytes());
        }
    }
    let id = h.finalize();
    Ok(format!(
        "lvmt-d{depth}-{}.tables",
        hex::encode(id.get(..8).unwrap_or_default())
    ))
}

/// The AMT tables of depth `depth` for `source`: read from `tables_dir` when they were derived
/// before, else derived (seconds to minutes at D = 16) and written there for the next start.
pub fn load_setup(depth: u8, source: &SetupSource, tables_dir: &Path) -> anyhow::Result<Setup> {
    let path = tables_dir.join(tables_name(depth, source)?);
    if path.exists() {
        let started = Instant::now();
        match Setup::read_cache(&path) {
            Ok(s) if s.depth() == depth && s.is_insecure() == (*source == SetupSource::Dev) => {
                tracing::info!(
                    "LVMT: tables for D = {depth} read from {} in {:.2?}",
                    path.display(),
                    started.elapsed()
                );
                return Ok(s);
            }
            Ok(_) => tracing::warn!(
                "LVMT: {} holds tables for other settings; deriving them again",
                path.display()
            ),
            Err(e) => tracing::warn!(
                "LVMT: cannot use {} ({e}); deriving the tables again",
                path.display()
            ),
        }
    }
    let started = Instant::now();
    tracing::info!(
        "LVMT: deriving the tables for D = {depth} (once; cached in {})",
        tables_dir.display()
    );
    let setup = match source {
        SetupSource::Dev => Setup::dev_insecure(depth, DEV_SEED)
            .map_err(|e| anyhow::anyhow!("LVMT dev setup: {e}"))?,
        SetupSource::Ptau(p) => Setup::from_ptau_file(depth, p)
            .map_err(|e| anyhow::anyhow!("--lvmt-ptau {}: {e}", p.display()))?,
    };
    tracing::info!("LVMT: tables derived in {:.2?}", started.elapsed());
    if let Err(e) = std::fs::create_dir_all(tables_dir).and_then(|()| setup.write_cache(&path)) {
        tracing::warn!(
            "LVMT: could not cache the tables in {} ({e}); they will be derived again next start",
            path.display()
        );
    }
    Ok(setup)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_print() {
        assert_eq!(parse_shard("all"), Ok(Proofs::All));
        assert_eq!(parse_shard("none"), Ok(Proofs::None));
        assert_eq!(
            parse_shard("3/8"),
            Ok(Proofs::Shard {
                bits: 3,
                residue: 3
            })
        );
        assert_eq!(shard_label(parse_shard("3/8").unwrap()), "3/8");
        for bad in ["", "3", "8/8", "1/3", "1/1", "x/4", "1/y", "-1/4"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dev_tables_are_cached_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let a = load_setup(4, &SetupSource::Dev, dir.path()).unwrap();
        assert!(a.is_insecure());
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1);
        let b = load_setup(4, &SetupSource::Dev, dir.path()).unwrap();
        assert_eq!(a.params().id(), b.params().id());
        assert_eq!(a.lagrange(3), b.lagrange(3));
        // A corrupted cache is derived again, not trusted.
        let f = files.into_iter().next().unwrap().unwrap().path();
        let mut bytes = std::fs::read(&f).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid] ^= 1;
        std::fs::write(&f, bytes).unwrap();
        let c = load_setup(4, &SetupSource::Dev, dir.path()).unwrap();
        assert_eq!(c.params().id(), a.params().id());
        assert_eq!(c.quotient(2, 5), a.quotient(2, 5));
    }
}
