//! The on-disk table cache: deriving the tables from a ceremony takes minutes at D = 16, loading
//! them back well under a second.
//!
//! Layout (integers little-endian; points as arkworks' uncompressed encoding, 64 bytes: x then y,
//! each 32 bytes little-endian, flags in the top bits of y):
//!
//! | offset | bytes | field |
//! |---|---|---|
//! | 0 | 8 | magic [`CACHE_MAGIC`] |
//! | 8 | 4 | format version [`CACHE_VERSION`] |
//! | 12 | 1 | depth D |
//! | 13 | 1 | insecure flag (0 or 1) |
//! | 14 | 4 | P = length of the params encoding (1 + 64·(D + 1)) |
//! | 18 | P | `Params::encode()` |
//! | 18 + P | 64·N | lagrange, `j < N` |
//! | … | 64·D·N | quotient, `(d − 1)·N + j` |
//! | end − 32 | 32 | SHA-256 of every byte before it |

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use ark_bn254::G1Affine;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use lightprov_amt::Params;
use sha2::{Digest, Sha256};

use super::Setup;
use crate::input::{MAX_DEPTH, SetupError};

/// First bytes of a table cache file.
pub const CACHE_MAGIC: [u8; 8] = *b"LPLVMTtb";
/// The cache format this build writes and reads.
pub const CACHE_VERSION: u32 = 1;

/// Magic, version, depth, flag, params length.
const FIXED: usize = 8 + 4 + 1 + 1 + 4;
const POINT: usize = 64;
const CHECKSUM: usize = 32;

/// Makes temporary file names unique within the process.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn params_len(depth: u8) -> usize {
    1 + 64 * (usize::from(depth) + 1)
}

/// Everything after the fixed header, or `None` if it does not fit in memory sizes.
fn body_len(depth: u8) -> Option<u64> {
    let n = 1u64.checked_shl(u32::from(depth))?;
    let points = n.checked_mul(u64::from(depth) + 1)?;
    (params_len(depth) as u64)
        .checked_add(points.checked_mul(POINT as u64)?)?
        .checked_add(CHECKSUM as u64)
}

impl Setup {
    /// Writes the tables and params to `path` atomically: a temporary file in the same
    /// directory, flushed to disk, renamed over `path`, then the directory synced. The format is
    /// described in `docs/lvmt-setup.md`.
    pub fn write_cache(&self, path: &Path) -> io::Result<()> {
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "cache path has no file name")
        })?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let tmp = dir.join(format!(
            ".{}.tmp-{}-{}",
            name.to_string_lossy(),
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let result = (|| {
            let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
            let mut w = BufWriter::with_capacity(1 << 20, file);
            self.encode_cache(&mut w)?;
            let file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
            file.sync_all()?;
            drop(file);
            fs::rename(&tmp, path)?;
            sync_dir(dir)
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    fn encode_cache(&self, w: &mut impl Write) -> io::Result<()> {
        let mut h = Sha256::new();
        let mut put = |bytes: &[u8]| -> io::Result<()> {
            h.update(bytes);
            w.write_all(bytes)
        };
        let params = self.params.encode();
        let plen = u32::try_from(params.len())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "params too long"))?;
        put(&CACHE_MAGIC)?;
        put(&CACHE_VERSION.to_le_bytes())?;
        put(&[self.depth, u8::from(self.insecure)])?;
        put(&plen.to_le_bytes())?;
        put(&params)?;
        let mut buf = [0u8; POINT];
        for p in self.lagrange.iter().chain(&self.quotient) {
            p.serialize_with_mode(&mut buf[..], Compress::No)
                .map_err(io::Error::other)?;
            put(&buf)?;
        }
        let digest = h.finalize();
        w.write_all(&digest)?;
        w.flush()
    }

    /// Reads a cache written by [`Setup::write_cache`]. Checks the magic, the format version,
    /// the depth, the file length and the SHA-256 checksum, and rebuilds (and validates) the
    /// params. The table points are decoded without curve checks: the file is the node's own and
    /// the checksum catches corruption.
    pub fn read_cache(path: &Path) -> Result<Setup, SetupError> {
        let mut file = File::open(path)?;
        let file_len = file.metadata()?.len();
        let mut head = [0u8; FIXED];
        file.read_exact(&mut head).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => SetupError::format(
                "length",
                format!("{file_len} bytes is shorter than the {FIXED}-byte header"),
            ),
            _ => SetupError::Io(e),
        })?;
        let (magic, rest) = head.split_at(8);
        if magic != CACHE_MAGIC {
            return Err(SetupError::format("magic", "not an LVMT table cache"));
        }
        let (version, rest) = rest.split_at(4);
        let version = u32::from_le_bytes(version.try_into().unwrap_or_default());
        if version != CACHE_VERSION {
            return Err(SetupError::format(
                "version",
                format!("format version {version}; this build reads {CACHE_VERSION}"),
            ));
        }
        let (&depth, rest) = rest
            .split_first()
            .ok_or_else(|| SetupError::format("depth", "missing"))?;
        if depth == 0 || depth > MAX_DEPTH {
            return Err(SetupError::format(
                "depth",
                format!("{depth} is outside 1..={MAX_DEPTH}"),
            ));
        }
        let (&flag, rest) = rest
            .split_first()
            .ok_or_else(|| SetupError::format("insecure", "missing"))?;
        let insecure = match flag {
            0 => false,
            1 => true,
            _ => {
                return Err(SetupError::format(
                    "insecure",
                    format!("flag {flag} is not 0 or 1"),
                ));
            }
        };
        let plen = u32::from_le_bytes(rest.try_into().unwrap_or_default());
        if usize::try_from(plen).ok() != Some(params_len(depth)) {
            return Err(SetupError::format(
                "params_len",
                format!(
                    "{plen}; depth {depth} params are {} bytes",
                    params_len(depth)
                ),
            ));
        }
        let body = body_len(depth).ok_or_else(|| SetupError::format("depth", "too large"))?;
        let expected = body + FIXED as u64;
        if file_len != expected {
            return Err(SetupError::format(
                "length",
                format!("{file_len} bytes; a depth-{depth} cache is {expected}"),
            ));
        }
        let body = usize::try_from(body).map_err(|_| SetupError::format("length", "too large"))?;
        let mut bytes = vec![0u8; body];
        file.read_exact(&mut bytes).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => SetupError::format("length", "the file shrank"),
            _ => SetupError::Io(e),
        })?;
        let (content, stored) = bytes.split_at(body - CHECKSUM);
        let digest = Sha256::new()
            .chain_update(head)
            .chain_update(content)
            .finalize();
        if &*digest != stored {
            return Err(SetupError::format(
                "checksum",
                "SHA-256 does not match: the file is corrupted",
            ));
        }
        let (params, points) = content.split_at(params_len(depth));
        let params =
            Params::decode(params).map_err(|e| SetupError::format("params", e.to_string()))?;
        if params.depth() != depth {
            return Err(SetupError::format(
                "params",
                "depth differs from the header's",
            ));
        }
        let n = 1usize << depth;
        let (lagrange, quotient) = points.split_at(n * POINT);
        Ok(Setup {
            depth,
            lagrange: decode_points(lagrange, "lagrange")?,
            quotient: decode_points(quotient, "quotient")?,
            params,
            insecure,
        })
    }
}

fn decode_points(bytes: &[u8], name: &str) -> Result<Vec<G1Affine>, SetupError> {
    bytes
        .chunks_exact(POINT)
        .enumerate()
        .map(|(i, c)| {
            G1Affine::deserialize_with_mode(c, Compress::No, Validate::No)
                .map_err(|e| SetupError::format(format!("{name}[{i}]"), e.to_string()))
        })
        .collect()
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}
