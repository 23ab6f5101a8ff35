//! The write-ahead log of level 0: one file per MB-tree group, one record per block.
//!
//! Record: `len(u32 BE) ‖ body ‖ check(8)` with `body = block(u64) ‖ root(32) ‖ count(u32) ‖
//! (stateKey(32) ‖ value(32)) × count` and `check` = the first 8 bytes of SHA-256(body). A record
//! is durable once [`Wal::append`] returns (fdatasync). Reading stops at the first torn or
//! corrupt record — a crash during an append — and [`Wal::open`] cuts the file there.

use std::{
    fs::{File, OpenOptions},
    io::{self, Read, Write},
    path::{Path, PathBuf},
};

use alloy_primitives::B256;
use lightprov_types::Word;
use sha2::{Digest, Sha256};

/// One block's level-0 writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The block.
    pub block: u64,
    /// `H_state` after the block.
    pub root: B256,
    /// The block's writes, sorted by state key, one per key.
    pub writes: Vec<(B256, Word)>,
}

/// The path of WAL generation `gen` in `dir`.
pub fn path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("wal-{generation:010}.log"))
}

/// An open WAL file, positioned at its end.
#[derive(Debug)]
pub struct Wal {
    file: File,
    sync: bool,
}

fn check(body: &[u8]) -> [u8; 8] {
    let h = Sha256::digest(body);
    let mut c = [0u8; 8];
    c.copy_from_slice(h.get(..8).unwrap_or(&[0; 8]));
    c
}

impl Wal {
    /// Opens (creating) generation `gen`, returns its intact records and cuts a torn tail.
    pub fn open(dir: &Path, generation: u64, sync: bool) -> io::Result<(Self, Vec<Record>)> {
        let p = path(dir, generation);
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&p)?;
        let mut buf = Vec::new();
        file.read_to_end(&mut buf)?;
        let mut records = Vec::new();
        let mut good = 0usize;
        let mut rest = buf.as_slice();
        while let Some((rec, used)) = parse(rest) {
            records.push(rec);
            good += used;
            rest = rest.get(used..).unwrap_or(&[]);
        }
        if good != buf.len() {
            file.set_len(good as u64)?;
            file.sync_all()?;
        }
        Ok((Self { file, sync }, records))
    }

    /// Appends a record and makes it durable.
    pub fn append(&mut self, rec: &Record) -> io::Result<()> {
        let mut body = Vec::with_capacity(44 + rec.writes.len() * 64);
        body.extend_from_slice(&rec.block.to_be_bytes());
        body.extend_from_slice(rec.root.as_slice());
        let count = u32::try_from(rec.writes.len()).map_err(io::Error::other)?;
        body.extend_from_slice(&count.to_be_bytes());
        body.extend_from_slice(&encode_writes(&rec.writes));
        let len = u32::try_from(body.len()).map_err(io::Error::other)?;
        let mut out = Vec::with_capacity(body.len() + 12);
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&body);
        out.extend_from_slice(&check(&body));
        self.file.write_all(&out)?;
        if self.sync {
            self.file.sync_data()?;
        }
        Ok(())
    }
}

/// A block's writes as `(stateKey ‖ value)*`, the form the log stores them in.
pub fn encode_writes(writes: &[(B256, Word)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(writes.len() * 64);
    for (k, v) in writes {
        out.extend_from_slice(k.as_slice());
        out.extend_from_slice(v);
    }
    out
}

/// The inverse of [`encode_writes`]; `None` unless the length is a multiple of 64.
pub fn decode_writes(raw: &[u8]) -> Option<Vec<(B256, Word)>> {
    if !raw.len().is_multiple_of(64) {
        return None;
    }
    Some(
        raw.chunks_exact(64)
            .map(|c| {
                let (k, v) = c.split_at(32);
                let mut w = [0u8; 32];
                w.copy_from_slice(v);
                (B256::from_slice(k), w)
            })
            .collect(),
    )
}

fn parse(buf: &[u8]) -> Option<(Record, usize)> {
    let len = u32::from_be_bytes(buf.get(..4)?.try_into().ok()?) as usize;
    let body = buf.get(4..4 + len)?;
    let c = buf.get(4 + len..12 + len)?;
    if c != check(body) || len < 44 {
        return None;
    }
    let block = u64::from_be_bytes(body.get(..8)?.try_into().ok()?);
    let root = B256::from_slice(body.get(8..40)?);
    let count = u32::from_be_bytes(body.get(40..44)?.try_into().ok()?) as usize;
    let pairs = body.get(44..)?;
    if pairs.len() != count.checked_mul(64)? {
        return None;
    }
    let writes = decode_writes(pairs)?;
    Some((
        Record {
            block,
            root,
            writes,
        },
        12 + len,
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn torn_tail_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let rec = |b: u64| Record {
            block: b,
            root: B256::repeat_byte(b as u8),
            writes: vec![(B256::repeat_byte(1), [b as u8; 32])],
        };
        {
            let (mut w, recs) = Wal::open(dir.path(), 7, true).unwrap();
            assert!(recs.is_empty());
            w.append(&rec(1)).unwrap();
            w.append(&rec(2)).unwrap();
        }
        let p = path(dir.path(), 7);
        let len = std::fs::metadata(&p).unwrap().len();
        // A torn third record.
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(&[0, 0, 0, 90, 1, 2, 3]).unwrap();
        drop(f);
        let (mut w, recs) = Wal::open(dir.path(), 7, true).unwrap();
        assert_eq!(recs, vec![rec(1), rec(2)]);
        assert_eq!(std::fs::metadata(&p).unwrap().len(), len);
        w.append(&rec(3)).unwrap();
        let (_, recs) = Wal::open(dir.path(), 7, true).unwrap();
        assert_eq!(recs.len(), 3);
    }
}
