//! LVMT in the node: where its AMT parameters come from (a Powers-of-Tau file, or the insecure
//! dev setup), the derived tables cached on disk, and the proof shard.

use std::{
    path::{Path, PathBuf},
    time::Instant,
};

use alloy_primitives::hex;
use anyhow::Context;
use lightprov_engine_lvmt::{amt::Proofs, setup::Setup};
use sha2::{Digest, Sha256};

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
