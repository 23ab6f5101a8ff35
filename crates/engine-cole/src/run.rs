//! An on-disk sorted run: value file, index file, Merkle file and Bloom filter (§4).
//!
//! | file | content |
//! |---|---|
//! | `<id>.val` | `n` records of 72 bytes: `stateKey(32) ‖ block(u64 BE) ‖ value(32)`, sorted |
//! | `<id>.idx` | the learned index over the records' key projection ([`crate::index`]) |
//! | `<id>.mht` | the `m`-ary complete Merkle tree, layer by layer from the leaves' parents up (Alg. 4; the entries' own hashes are recomputed from the value file, not stored) |
//! | `<id>.blm` | the Bloom filter over state keys ([`crate::bloom`]) |
//!
//! All four are written in one streaming pass ([`RunBuilder`]) and fsynced before a manifest
//! names the run; a run is never modified afterwards.

use std::{
    fs::{self, File},
    io::{self, BufReader, BufWriter, Read, Write},
    os::unix::fs::FileExt,
    path::{Path, PathBuf},
};

use alloy_primitives::B256;
use lightprov_types::cole::{Entry, Tree, hash};
use serde::{Deserialize, Serialize};

use crate::{
    bloom::Bloom,
    index::{IndexWriter, LearnedIndex},
    mbtree::CKey,
};

/// Bytes per value-file record.
pub const RECORD: usize = 72;
const RECORD_U64: u64 = RECORD as u64;
/// Entries between two write-backs of a run being built (≈ 1 MiB of values).
const SYNC_EVERY: u64 = 16 * 1024;
/// Bytes gathered per layer before a positional write of the Merkle file.
const WRITE_CHUNK: usize = 64 * 1024;

/// What the manifest records of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunMeta {
    /// File name stem.
    pub id: u64,
    /// Entries.
    pub n: u64,
    /// Merkle root.
    pub root: B256,
    /// Bloom filter commitment.
    pub bloom: B256,
}

impl RunMeta {
    /// The run's digest in `H_state`.
    pub fn digest(&self, fanout: u8) -> B256 {
        hash::run_digest(
            self.n,
            hash::complete_height(self.n, fanout),
            &self.root,
            &self.bloom,
        )
    }
}

/// The four paths of run `id` in `dir`.
pub fn paths(dir: &Path, id: u64) -> [PathBuf; 4] {
    ["val", "idx", "mht", "blm"].map(|ext| dir.join(format!("{id:010}.{ext}")))
}

/// The 128-bit projection of a compound key the learned index models: the state key's first
/// 88 bits, then the block number's low 40 bits. Monotone except between state keys that
/// share 88 bits, which the exact search below tolerates.
pub fn project(q: &CKey) -> u128 {
    let mut hi = [0u8; 16];
    if let (Some(src), Some(dst)) = (q.0.get(..11), hi.get_mut(5..16)) {
        dst.copy_from_slice(src);
    }
    let prefix = u128::from_be_bytes(hi);
    (prefix << 40) | u128::from(q.1.min((1 << 40) - 1))
}

fn encode(e: &Entry) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    let (k, rest) = r.split_at_mut(32);
    let (b, v) = rest.split_at_mut(8);
    k.copy_from_slice(e.key.as_slice());
    b.copy_from_slice(&e.block.to_be_bytes());
    v.copy_from_slice(&e.value);
    r
}

fn decode(r: &[u8]) -> Entry {
    let mut key = [0u8; 32];
    let mut block = [0u8; 8];
    let mut value = [0u8; 32];
    if let (Some(k), Some(b), Some(v)) = (r.get(..32), r.get(32..40), r.get(40..72)) {
        key.copy_from_slice(k);
        block.copy_from_slice(b);
        value.copy_from_slice(v);
    }
    Entry {
        key: B256::from(key),
        block: u64::from_be_bytes(block),
        value,
    }
}

/// Layer sizes of the complete `m`-ary tree over `n` leaves: `n, ⌈n/m⌉, …, 1`.
fn layer_sizes(n: u64, m: u8) -> Vec<u64> {
    let m = u64::from(m.max(2));
    let mut sizes = vec![n.max(1)];
    while let Some(&last) = sizes.last() {
        if last <= 1 {
            break;
        }
        sizes.push(last.div_ceil(m));
    }
    sizes
}

/// Where each layer starts in the Merkle file. Layer 0 (the entries' hashes) is not stored —
/// an entry's hash is recomputed from its record when a proof needs it — which saves 32 bytes
/// per entry, a quarter of a run.
fn layer_offsets(sizes: &[u64]) -> Vec<u64> {
    let mut off = Vec::with_capacity(sizes.len());
    let mut acc = 0u64;
    for (i, s) in sizes.iter().enumerate() {
        off.push(acc);
        if i > 0 {
            acc = acc.saturating_add(s.saturating_mul(32));
        }
    }
    off
}

/// Bytes of the Merkle file: every layer but the entries'.
fn merkle_bytes(sizes: &[u64]) -> u64 {
    sizes.iter().skip(1).sum::<u64>().saturating_mul(32)
}

/// Writes a run in one streaming pass over its entries in compound-key order.
#[allow(missing_debug_implementations)]
pub struct RunBuilder {
    id: u64,
    n: u64,
    fanout: u8,
    paths: [PathBuf; 4],
    val: BufWriter<File>,
    mht: File,
    index: IndexWriter,
    bloom: Bloom,
    /// Per layer: hashes waiting for their `m` siblings.
    pending: Vec<Vec<B256>>,
    /// Per layer: bytes waiting to be written, and where they go.
    out: Vec<(u64, Vec<u8>)>,
    pushed: u64,
    last: Option<CKey>,
}

impl RunBuilder {
    /// Starts run `id` of exactly `n` entries in `dir`.
    pub fn new(dir: &Path, id: u64, n: u64, fanout: u8, epsilon: u64) -> io::Result<Self> {
        let paths = paths(dir, id);
        let [val, idx, mht, _] = &paths;
        let sizes = layer_sizes(n, fanout);
        let offsets = layer_offsets(&sizes);
        Ok(Self {
            id,
            n,
            fanout,
            val: BufWriter::with_capacity(WRITE_CHUNK, File::create(val)?),
            mht: File::create(mht)?,
            // The index writer re-reads its lower layers to learn the upper ones.
            index: IndexWriter::new(
                fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(idx)?,
                epsilon,
            ),
            bloom: Bloom::with_capacity(n),
            pending: vec![Vec::new(); sizes.len()],
            out: offsets.into_iter().map(|o| (o, Vec::new())).collect(),
            pushed: 0,
            last: None,
            paths,
        })
    }

    fn emit(&mut self, layer: usize, h: B256) -> io::Result<()> {
        if layer == 0 {
            return Ok(());
        }
        if let Some((_, buf)) = self.out.get_mut(layer) {
            buf.extend_from_slice(h.as_slice());
            if buf.len() >= WRITE_CHUNK {
                self.flush_layer(layer)?;
            }
        }
        Ok(())
    }

    fn flush_layer(&mut self, layer: usize) -> io::Result<()> {
        if let Some((off, buf)) = self.out.get_mut(layer) {
            self.mht.write_all_at(buf, *off)?;
            *off = off.saturating_add(buf.len() as u64);
            buf.clear();
        }
        Ok(())
    }

    /// Adds the next entry (strictly after the previous one).
    pub fn push(&mut self, e: &Entry) -> io::Result<()> {
        let k = e.compound();
        if self.last.is_some_and(|l| l >= k) || self.pushed >= self.n {
            return Err(io::Error::other(
                "run entries must be strictly increasing and exactly n",
            ));
        }
        self.last = Some(k);
        self.pushed += 1;
        // Write back as we go: a merge's dirty pages would otherwise be flushed by whichever
        // fsync comes next — the level-0 log's, on the block path.
        if self.pushed.is_multiple_of(SYNC_EVERY) {
            self.val.flush()?;
            self.val.get_ref().sync_data()?;
            for layer in 0..self.out.len() {
                self.flush_layer(layer)?;
            }
            self.mht.sync_data()?;
        }
        self.val.write_all(&encode(e))?;
        self.index.push(project(&k))?;
        self.bloom.insert(&e.key);
        let m = usize::from(self.fanout);
        let mut h = hash::leaf(e);
        let mut layer = 0;
        loop {
            self.emit(layer, h)?;
            let Some(p) = self.pending.get_mut(layer) else {
                break;
            };
            p.push(h);
            if p.len() < m || layer + 1 >= self.out.len() {
                break;
            }
            h = hash::node(p.iter());
            p.clear();
            layer += 1;
        }
        Ok(())
    }

    /// Completes the files, fsyncs them and returns the run's metadata.
    pub fn finish(mut self) -> io::Result<RunMeta> {
        if self.pushed != self.n || self.n == 0 {
            return Err(io::Error::other("a run got fewer entries than announced"));
        }
        // Close the partial groups bottom-up (Alg. 4, lines 14–17).
        let layers = self.pending.len();
        let mut root = B256::ZERO;
        for layer in 0..layers {
            let group = std::mem::take(self.pending.get_mut(layer).unwrap_or(&mut Vec::new()));
            if layer + 1 == layers {
                root = group.first().copied().unwrap_or(B256::ZERO);
                break;
            }
            if !group.is_empty() {
                let h = hash::node(group.iter());
                self.emit(layer + 1, h)?;
                if let Some(p) = self.pending.get_mut(layer + 1) {
                    p.push(h);
                }
            }
        }
        for layer in 0..layers {
            self.flush_layer(layer)?;
        }
        self.mht.sync_all()?;
        self.val.flush()?;
        self.val.get_ref().sync_all()?;
        self.index.finish()?;
        let [.., blm] = &self.paths;
        let mut f = File::create(blm)?;
        f.write_all(self.bloom.as_bytes())?;
        f.sync_all()?;
        Ok(RunMeta {
            id: self.id,
            n: self.n,
            root,
            bloom: self.bloom.commitment(),
        })
    }
}

/// An open run.
#[derive(Debug)]
pub struct Run {
    /// What the manifest says of it.
    pub meta: RunMeta,
    fanout: u8,
    val: File,
    mht: File,
    index: LearnedIndex,
    bloom: Bloom,
    offsets: Vec<u64>,
    sizes: Vec<u64>,
    paths: [PathBuf; 4],
}

fn corrupt(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

impl Run {
    /// Opens a run the manifest names, checking the files' sizes and the Merkle root.
    pub fn open(dir: &Path, meta: RunMeta, fanout: u8) -> io::Result<Self> {
        let paths = paths(dir, meta.id);
        let [val, idx, mht, blm] = &paths;
        let val = File::open(val)?;
        let mht = File::open(mht)?;
        let sizes = layer_sizes(meta.n, fanout);
        let offsets = layer_offsets(&sizes);
        let want_val = meta.n.saturating_mul(RECORD_U64);
        if val.metadata()?.len() != want_val {
            return Err(corrupt(format!(
                "run {}: value file is not {want_val} bytes",
                meta.id
            )));
        }
        let want_mht = merkle_bytes(&sizes);
        if mht.metadata()?.len() != want_mht {
            return Err(corrupt(format!(
                "run {}: Merkle file is not {want_mht} bytes",
                meta.id
            )));
        }
        let bloom = Bloom::from_bytes(fs::read(blm)?);
        if bloom.commitment() != meta.bloom {
            return Err(corrupt(format!(
                "run {}: Bloom filter differs from the manifest",
                meta.id
            )));
        }
        let run = Self {
            index: LearnedIndex::open(File::open(idx)?)?,
            meta,
            fanout,
            val,
            mht,
            bloom,
            offsets,
            sizes,
            paths,
        };
        let top = run.sizes.len().saturating_sub(1);
        if run.hash_at(top, 0)? != meta.root {
            return Err(corrupt(format!(
                "run {}: Merkle root differs from the manifest",
                meta.id
            )));
        }
        Ok(run)
    }

    /// Removes the run's files.
    pub fn delete_files(dir: &Path, id: u64) {
        for p in paths(dir, id) {
            let _ = fs::remove_file(p);
        }
    }

    /// Bytes on disk.
    pub fn disk_bytes(&self) -> u64 {
        self.paths
            .iter()
            .filter_map(|p| fs::metadata(p).ok())
            .map(|m| m.len())
            .sum()
    }

    /// The run's digest in `H_state`.
    pub fn digest(&self) -> B256 {
        self.meta.digest(self.fanout)
    }

    /// Whether the Bloom filter admits `key`.
    pub fn may_contain(&self, key: &B256) -> bool {
        self.bloom.may_contain(key)
    }

    fn record(&self, pos: u64) -> io::Result<Entry> {
        let mut r = [0u8; RECORD];
        self.val
            .read_exact_at(&mut r, pos.saturating_mul(RECORD_U64))?;
        Ok(decode(&r))
    }

    fn records(&self, first: u64, last: u64) -> io::Result<Vec<Entry>> {
        let count = last.saturating_sub(first).saturating_add(1);
        let len = usize::try_from(count.saturating_mul(RECORD_U64))
            .map_err(|_| io::Error::other("range too large"))?;
        let mut buf = vec![0u8; len];
        self.val
            .read_exact_at(&mut buf, first.saturating_mul(RECORD_U64))?;
        Ok(buf.chunks_exact(RECORD).map(decode).collect())
    }

    fn hash_at(&self, layer: usize, index: u64) -> io::Result<B256> {
        if layer == 0 {
            return Ok(hash::leaf(&self.record(index)?));
        }
        let off = self
            .offsets
            .get(layer)
            .copied()
            .unwrap_or(0)
            .saturating_add(index.saturating_mul(32));
        let mut h = [0u8; 32];
        self.mht.read_exact_at(&mut h, off)?;
        Ok(B256::from(h))
    }

    /// The first position whose compound key is ≥ `q` (> `q` if `strict`), or `n`: exact,
    /// whatever the learned models predict.
    pub fn lower_bound(&self, q: &CKey, strict: bool) -> io::Result<u64> {
        let n = self.meta.n;
        let before = |e: &Entry| {
            if strict {
                e.compound() <= *q
            } else {
                e.compound() < *q
            }
        };
        let (lo, hi) = self.index.window(project(q))?;
        let (lo, hi) = (
            lo.min(n.saturating_sub(1)),
            hi.min(n.saturating_sub(1)).max(lo),
        );
        let window = self.records(lo, hi)?;
        let p = lo + window.partition_point(|e| before(e)) as u64;
        // The model's window must be bracketed by an entry before q and one at/after q.
        let left_ok = p > lo || lo == 0 || before(&self.record(lo - 1)?);
        let right_ok = p <= hi || p >= n || !before(&self.record(p)?);
        if left_ok && right_ok {
            return Ok(p);
        }
        // A miss (keys sharing the projection): binary search the whole run.
        let (mut a, mut b) = (0u64, n);
        while a < b {
            let mid = a + (b - a) / 2;
            if before(&self.record(mid)?) {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        Ok(a)
    }

    /// The last entry with compound key ≤ `q`, if it has `q`'s state key.
    pub fn floor(&self, q: &CKey) -> io::Result<Option<Entry>> {
        if !self.may_contain(&q.0) {
            return Ok(None);
        }
        let p = self.lower_bound(q, true)?;
        if p == 0 {
            return Ok(None);
        }
        let e = self.record(p - 1)?;
        Ok((e.key == q.0).then_some(e))
    }

    /// The partial tree proving every entry of `key` in `lo..=hi` and its neighbours.
    pub fn prove_range(&self, key: &B256, lo: u64, hi: u64) -> io::Result<Tree> {
        let n = self.meta.n;
        let p = self.lower_bound(&(*key, lo), false)?;
        let r = self.lower_bound(&(*key, hi), true)?;
        let a = p.saturating_sub(1);
        let b = r.min(n.saturating_sub(1));
        let leaves = self.records(a, b)?;
        let top = self.sizes.len().saturating_sub(1);
        self.subtree(top, 0, a, &leaves)
    }

    fn subtree(&self, layer: usize, index: u64, a: u64, leaves: &[Entry]) -> io::Result<Tree> {
        let m = u64::from(self.fanout);
        let span = m.saturating_pow(u32::try_from(layer).unwrap_or(u32::MAX));
        let first = index.saturating_mul(span);
        let last = first
            .saturating_add(span - 1)
            .min(self.meta.n.saturating_sub(1));
        let b = a + leaves.len() as u64 - 1;
        if last < a || first > b {
            return Ok(Tree::Hash(self.hash_at(layer, index)?));
        }
        if layer == 0 {
            let e = leaves
                .get(usize::try_from(index - a).unwrap_or(usize::MAX))
                .ok_or_else(|| io::Error::other("leaf outside the read range"))?;
            return Ok(Tree::Leaf(*e));
        }
        let below = self.sizes.get(layer - 1).copied().unwrap_or(0);
        let first_child = index.saturating_mul(m);
        let children = (first_child..first_child.saturating_add(m).min(below))
            .map(|c| self.subtree(layer - 1, c, a, leaves))
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Tree::Node(children))
    }

    /// A sequential reader over the entries, for merges.
    pub fn iter(&self) -> io::Result<RunIter> {
        let [val, ..] = &self.paths;
        Ok(RunIter {
            r: BufReader::with_capacity(WRITE_CHUNK, File::open(val)?),
            left: self.meta.n,
        })
    }
}

/// Reads a run's entries in order.
#[derive(Debug)]
pub struct RunIter {
    r: BufReader<File>,
    left: u64,
}

impl Iterator for RunIter {
    type Item = io::Result<Entry>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let mut rec = [0u8; RECORD];
        Some(self.r.read_exact(&mut rec).map(|()| decode(&rec)))
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]
mod tests {
    use super::*;
    use alloy_primitives::keccak256;

    /// A run large enough for a learned index of several layers, probed at every entry, between
    /// entries and with keys that share their 88-bit projection prefix.
    #[test]
    fn large_run_lookups_are_exact_and_proofs_verify() {
        let dir = tempfile::tempdir().unwrap();
        let mut entries: Vec<Entry> = (0..3000u64)
            .flat_map(|k| {
                let key = keccak256(k.to_be_bytes());
                (0..(k % 7) + 1).map(move |b| Entry {
                    key,
                    block: b * 3 + (k % 5),
                    value: [(k % 251) as u8; 32],
                })
            })
            .collect();
        // Two keys equal in their first 11 bytes: the projection cannot tell them apart.
        let mut twin = entries[0].key;
        twin.0[20] ^= 0xff;
        for b in 0..40u64 {
            entries.push(Entry {
                key: twin,
                block: b,
                value: [9; 32],
            });
        }
        entries.sort();
        let n = entries.len() as u64;
        let mut b = RunBuilder::new(dir.path(), 1, n, 4, 4).unwrap();
        for e in &entries {
            b.push(e).unwrap();
        }
        let meta = b.finish().unwrap();
        let run = Run::open(dir.path(), meta, 4).unwrap();
        for (i, e) in entries.iter().enumerate() {
            assert_eq!(run.lower_bound(&e.compound(), false).unwrap(), i as u64);
            assert_eq!(run.lower_bound(&e.compound(), true).unwrap(), i as u64 + 1);
            assert_eq!(run.floor(&e.compound()).unwrap(), Some(*e));
        }
        for probe in 0..500u64 {
            let q = (keccak256((probe + 1_000_000).to_be_bytes()), probe);
            let want = entries.partition_point(|e| e.compound() < q) as u64;
            assert_eq!(run.lower_bound(&q, false).unwrap(), want);
        }
        let root = hash::state(4, [run.digest()].iter());
        for key in [
            entries[0].key,
            twin,
            entries[5000].key,
            keccak256(b"absent"),
        ] {
            let tree = run.prove_range(&key, 2, 9).unwrap();
            let proof = lightprov_types::cole::HistoryProof {
                key,
                lo: 2,
                hi: 9,
                fanout: 4,
                parts: vec![lightprov_types::cole::Part::Searched(
                    lightprov_types::cole::Structure {
                        kind: lightprov_types::cole::StructureKind::Run { bloom: meta.bloom },
                        n,
                        height: hash::complete_height(n, 4),
                        tree,
                    },
                )],
            };
            let h = lightprov_verifier::cole::verify_history(&root, &key, 2, 9, &proof.encode())
                .unwrap();
            let want: Vec<u64> = entries
                .iter()
                .filter(|e| e.key == key && (2..=9).contains(&e.block))
                .map(|e| e.block)
                .collect();
            assert_eq!(h.versions.iter().map(|v| v.block).collect::<Vec<_>>(), want);
        }
    }
}
