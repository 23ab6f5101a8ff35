//! LVMT persisted on fjall: every block's changes in one atomic, synced batch, and an open that
//! reads the state back instead of replaying the chain.
//!
//! Keyspaces (all keys big-endian, so a keyspace iterates in block / level order):
//!
//! | keyspace      | key                                   | value |
//! |---------------|---------------------------------------|-------|
//! | `lvmt_meta`   | `config`                              | depth ‖ SHA-256 id of the AMT parameters ‖ proof shard (tag, bits, residue u32) |
//! | `lvmt_meta`   | `head`                                | the last complete block (u64) |
//! | `lvmt_blocks` | block (u64)                           | `aroot` (32) ‖ history root (32) ‖ tuple count (u32) |
//! | `lvmt_tuples` | block (u64) ‖ index (u32)             | a tuple: `0 ‖ key ‖ version ‖ value ‖ level ‖ slot` or `1 ‖ level ‖ prefix ‖ version ‖ commitment` |
//! | `lvmt_slots`  | state key (32)                        | level ‖ slot |
//! | `lvmt_versions` | level ‖ prefix (32) ‖ entry (u32)   | six versions (u64 each) |
//! | `lvmt_points` | level ‖ prefix (32) ‖ index (u32)     | six G1 accumulators, affine uncompressed (64 B each); index 0 is the commitment, `2^e + p` the proof node `(e, p)` |
//!
//! A block's batch holds its tuples, its block record, the new head, the slots of the keys it
//! placed, and the versions and accumulators of every entry it bumped (keys' entries and, above
//! every changed sub-AMT, slot 0 of its parent entry). fjall writes the batch to its journal
//! atomically and syncs it before `commit` returns: after a crash the store opens at the last
//! block whose batch completed.
//!
//! Open reads every keyspace back: the AMTs from their versions and accumulators, the slots,
//! and the tuples; it rebuilds the occupants, the block trees and the history tree by hashing
//! (no curve arithmetic, no replay of writes), and checks the root AMT's commitment and the
//! history root against the head's block record.

use std::{
    collections::{BTreeSet, HashMap},
    path::{Path, PathBuf},
    sync::Arc,
};

use alloy_primitives::{B256, keccak256};
use ark_bn254::{G1Affine, G1Projective};
use ark_ec::CurveGroup;
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use lightprov_engine_api::{
    Key, StateEngine, Write,
    kv::{KeyValue, dir_size},
};
use lightprov_types::{Word, lvmt::LvmtHistory};

use crate::{
    amt::{Acc, Amt, Proofs, SLOTS},
    setup::Setup,
    tree::{Lvmt, TreeError, Tuple, in_key_order, index_at, prefix_at},
};

const META: &str = "lvmt_meta";
const BLOCKS: &str = "lvmt_blocks";
const TUPLES: &str = "lvmt_tuples";
const SLOT_MAP: &str = "lvmt_slots";
const VERSIONS: &str = "lvmt_versions";
const POINTS: &str = "lvmt_points";

/// Bytes of an affine G1 point, uncompressed.
const POINT: usize = 64;

/// Why the store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// fjall failed.
    #[error("LVMT store: {0}")]
    Kv(String),
    /// A record on disk is not what the store writes.
    #[error("LVMT store: {what} is corrupt: {why}")]
    Corrupt {
        /// The record.
        what: String,
        /// What is wrong with it.
        why: String,
    },
    /// The store was made with other AMT parameters or another proof shard.
    #[error("LVMT store: made with {stored}, opened with {given}")]
    Settings {
        /// The stored settings.
        stored: String,
        /// The settings asked for.
        given: String,
    },
    /// The tree refused the block (nothing of it was kept).
    #[error("LVMT refused the block: {0}")]
    Tree(#[from] TreeError),
    /// Blocks are applied in order.
    #[error("LVMT store: block {got} is not the next block ({expected})")]
    BlockOrder {
        /// The next block.
        expected: u64,
        /// The block given.
        got: u64,
    },
    /// A block after the head.
    #[error("LVMT store: block {0} is not stored")]
    UnknownBlock(u64),
    /// A block is staged already: persist or discard it first.
    #[error("LVMT store: a staged block is neither persisted nor discarded")]
    Staged,
    /// A key outside this store's proof shard.
    #[error("LVMT store: key {0} is outside this store's proof shard")]
    NotServed(B256),
}

fn kv(e: impl std::fmt::Display) -> StoreError {
    StoreError::Kv(e.to_string())
}

fn corrupt(what: impl Into<String>, why: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        what: what.into(),
        why: why.into(),
    }
}

/// The roots after a block: `aroot` (the header's `lvmtRoot`) and the history root.
pub type Roots = ([u8; 32], B256);

/// An LVMT on disk, with its state held in memory for proving.
pub struct LvmtStore {
    db: fjall::Database,
    dir: PathBuf,
    spaces: Spaces,
    setup: Arc<Setup>,
    lvmt: Lvmt,
    /// Per durable block: its roots.
    roots: Vec<Roots>,
    /// The roots of a block applied in memory, not yet written.
    staged: Option<Roots>,
}

impl std::fmt::Debug for LvmtStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LvmtStore")
            .field("dir", &self.dir)
            .field("blocks", &self.roots.len())
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
struct Spaces {
    meta: fjall::Keyspace,
    blocks: fjall::Keyspace,
    tuples: fjall::Keyspace,
    slots: fjall::Keyspace,
    versions: fjall::Keyspace,
    points: fjall::Keyspace,
}

fn config_bytes(setup: &Setup, proofs: Proofs) -> Vec<u8> {
    let mut out = vec![setup.depth()];
    out.extend_from_slice(&setup.params().id());
    match proofs {
        Proofs::All => out.extend_from_slice(&[0, 0, 0, 0, 0, 0]),
        Proofs::None => out.extend_from_slice(&[2, 0, 0, 0, 0, 0]),
        Proofs::Shard { bits, residue } => {
            out.extend_from_slice(&[1, bits]);
            out.extend_from_slice(&residue.to_be_bytes());
        }
    }
    out
}

fn describe_config(b: &[u8]) -> String {
    match b {
        [depth, rest @ ..] if rest.len() == 38 => {
            let id = B256::from_slice(rest.get(..32).unwrap_or(&[0; 32]));
            let shard = match rest.get(32..) {
                Some([0, ..]) => "every opening".to_string(),
                Some([2, ..]) => "no openings".to_string(),
                Some([1, bits, r @ ..]) => format!(
                    "shard {bits} bits residue {}",
                    u32::from_be_bytes(r.try_into().unwrap_or([0; 4]))
                ),
                _ => "an unknown shard".to_string(),
            };
            format!("D = {depth}, parameters {id}, {shard}")
        }
        _ => format!("an unreadable configuration of {} bytes", b.len()),
    }
}

fn amt_key(level: u8, prefix: &B256, index: u32) -> Vec<u8> {
    let mut k = Vec::with_capacity(37);
    k.push(level);
    k.extend_from_slice(prefix.as_slice());
    k.extend_from_slice(&index.to_be_bytes());
    k
}

fn tuple_key(block: u64, index: u32) -> Vec<u8> {
    let mut k = block.to_be_bytes().to_vec();
    k.extend_from_slice(&index.to_be_bytes());
    k
}

fn encode_tuple(t: &Tuple) -> Vec<u8> {
    let mut out = Vec::with_capacity(75);
    match t {
        Tuple::Key {
            key,
            version,
            value,
            level,
            slot,
        } => {
            out.push(0);
            out.extend_from_slice(key.as_slice());
            out.extend_from_slice(&version.to_be_bytes());
            out.extend_from_slice(value);
            out.extend_from_slice(&[*level, *slot]);
        }
        Tuple::Amt {
            level,
            prefix,
            version,
            commitment,
        } => {
            out.push(1);
            out.push(*level);
            out.extend_from_slice(prefix.as_slice());
            out.extend_from_slice(&version.to_be_bytes());
            out.extend_from_slice(commitment);
        }
    }
    out
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn b256_at(b: &[u8], at: usize) -> Option<B256> {
    b.get(at..at + 32).map(B256::from_slice)
}

fn word_at(b: &[u8], at: usize) -> Option<Word> {
    b.get(at..at + 32)?.try_into().ok()
}

fn decode_tuple(b: &[u8]) -> Option<Tuple> {
    match (b.first()?, b.len()) {
        (0, 75) => Some(Tuple::Key {
            key: b256_at(b, 1)?,
            version: u64_at(b, 33)?,
            value: word_at(b, 41)?,
            level: *b.get(73)?,
            slot: *b.get(74)?,
        }),
        (1, 74) => Some(Tuple::Amt {
            level: *b.get(1)?,
            prefix: b256_at(b, 2)?,
            version: u64_at(b, 34)?,
            commitment: word_at(b, 42)?,
        }),
        _ => None,
    }
}

fn encode_block(r: &Roots, tuples: usize) -> Vec<u8> {
    let mut out = r.0.to_vec();
    out.extend_from_slice(r.1.as_slice());
    out.extend_from_slice(&u32::try_from(tuples).unwrap_or(u32::MAX).to_be_bytes());
    out
}

/// `(level, prefix, entry)` from the key of a versions or points record.
fn decode_amt_key(k: &[u8]) -> Option<(u8, B256, u32)> {
    if k.len() != 37 {
        return None;
    }
    Some((*k.first()?, b256_at(k, 1)?, u32_at(k, 33)?))
}

fn decode_accumulators(b: &[u8]) -> Option<Acc> {
    if b.len() != SLOTS * POINT {
        return None;
    }
    let mut acc = [G1Projective::default(); SLOTS];
    for (a, c) in acc.iter_mut().zip(b.chunks_exact(POINT)) {
        let p = G1Affine::deserialize_with_mode(c, Compress::No, Validate::Yes).ok()?;
        *a = p.into();
    }
    Some(acc)
}

/// Every record of a keyspace, in key order.
fn scan(space: &fjall::Keyspace) -> Result<Vec<KeyValue>, StoreError> {
    space
        .iter()
        .map(|g| {
            let (k, v) = g.into_inner().map_err(kv)?;
            Ok((k.to_vec(), v.to_vec()))
        })
        .collect()
}

impl LvmtStore {
    /// Opens (creating if needed) the LVMT stored in `dir`, over `setup`'s AMTs, keeping the
    /// openings `proofs` names (see [`Lvmt::with_proofs`]). A store made with other parameters
    /// or another shard is refused.
    pub fn open(dir: &Path, setup: Arc<Setup>, proofs: Proofs) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(kv)?;
        let db = fjall::Database::builder(dir).open().map_err(kv)?;
        let space = |name: &str| {
            db.keyspace(name, fjall::KeyspaceCreateOptions::default)
                .map_err(kv)
        };
        let spaces = Spaces {
            meta: space(META)?,
            blocks: space(BLOCKS)?,
            tuples: space(TUPLES)?,
            slots: space(SLOT_MAP)?,
            versions: space(VERSIONS)?,
            points: space(POINTS)?,
        };
        let config = config_bytes(&setup, proofs);
        match spaces.meta.get("config").map_err(kv)? {
            Some(stored) if stored.as_ref() != config.as_slice() => {
                return Err(StoreError::Settings {
                    stored: describe_config(&stored),
                    given: describe_config(&config),
                });
            }
            Some(_) => {}
            None => {
                if spaces.meta.get("head").map_err(kv)?.is_some() {
                    return Err(corrupt("lvmt_meta", "a head without a configuration"));
                }
                let mut batch = db.batch().durability(Some(fjall::PersistMode::SyncAll));
                batch.insert(&spaces.meta, "config", config);
                batch.commit().map_err(kv)?;
            }
        }
        let (lvmt, roots) = load(&spaces, setup.clone(), proofs)?;
        Ok(Self {
            db,
            dir: dir.to_path_buf(),
            spaces,
            setup,
            lvmt,
            roots,
            staged: None,
        })
    }

    /// The LVMT, to prove from (with the staged block, if one is).
    pub const fn tree(&self) -> &Lvmt {
        &self.lvmt
    }

    /// Blocks durably committed.
    pub fn blocks(&self) -> u64 {
        self.roots.len() as u64
    }

    /// The roots after block `block`.
    pub fn roots_at(&self, block: u64) -> Option<Roots> {
        usize::try_from(block)
            .ok()
            .and_then(|b| self.roots.get(b))
            .copied()
    }

    /// Bytes the store occupies on disk (allocated blocks of its files).
    pub fn disk_bytes(&self) -> u64 {
        dir_size(&self.dir)
    }

    /// Commits the next block's writes, listed in the order slots are allocated
    /// ([`Lvmt::commit`]), and makes it durable in one batch before returning its roots. A
    /// refused or failed block leaves the store as it was.
    pub fn commit(&mut self, writes: &[(B256, Word)]) -> Result<Roots, StoreError> {
        let roots = self.stage(writes)?;
        self.persist_staged()?;
        Ok(roots)
    }

    /// Applies the next block's writes in memory only and returns its roots; the block is
    /// durable after [`LvmtStore::persist_staged`], dropped by [`LvmtStore::discard_staged`].
    /// For a caller whose own commit point comes between the two (the node's chain: its header
    /// holds these roots). A refused block leaves the store as it was.
    pub fn stage(&mut self, writes: &[(B256, Word)]) -> Result<Roots, StoreError> {
        if self.staged.is_some() {
            return Err(StoreError::Staged);
        }
        match self.lvmt.commit(writes) {
            Ok(r) => {
                self.staged = Some(r);
                Ok(r)
            }
            Err(e) => {
                self.reload()?;
                Err(e.into())
            }
        }
    }

    /// Writes the staged block in one synced batch. On failure the staged block is dropped
    /// (the store is as it was before [`LvmtStore::stage`]).
    pub fn persist_staged(&mut self) -> Result<(), StoreError> {
        let Some(roots) = self.staged else {
            return Ok(());
        };
        if let Err(e) = self.persist_last(roots) {
            self.reload()?;
            return Err(e);
        }
        self.staged = None;
        self.roots.push(roots);
        Ok(())
    }

    /// Drops the staged block, if any.
    pub fn discard_staged(&mut self) -> Result<(), StoreError> {
        if self.staged.is_some() {
            self.reload()?;
        }
        Ok(())
    }

    /// Reads the state back from disk (after a block that failed half-way in memory).
    fn reload(&mut self) -> Result<(), StoreError> {
        let (lvmt, roots) = load(&self.spaces, self.setup.clone(), self.lvmt.proofs())?;
        self.lvmt = lvmt;
        self.roots = roots;
        self.staged = None;
        Ok(())
    }

    /// Writes the last committed block of the in-memory LVMT in one synced batch.
    fn persist_last(&self, roots: Roots) -> Result<(), StoreError> {
        let t = &self.lvmt;
        let depth = t.setup().depth();
        let block = t.blocks().saturating_sub(1);
        let tuples = t
            .block_tuples(block)
            .ok_or(StoreError::UnknownBlock(block))?;
        let mut batch = self
            .db
            .batch()
            .durability(Some(fjall::PersistMode::SyncAll));
        // The entries the block bumped: each key's, and slot 0 above each changed sub-AMT.
        let mut entries: BTreeSet<(u8, B256, u32)> = BTreeSet::new();
        for (i, tuple) in tuples.iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| corrupt("block", "too many tuples"))?;
            batch.insert(
                &self.spaces.tuples,
                tuple_key(block, i),
                encode_tuple(tuple),
            );
            match tuple {
                Tuple::Key {
                    key,
                    version,
                    level,
                    slot,
                    ..
                } => {
                    let hash = keccak256(key);
                    let idx = index_at(&hash, *level, depth).ok_or(TreeError::PathExhausted)?;
                    entries.insert((*level, prefix_at(&hash, *level, depth), idx));
                    if *version == 1 {
                        batch.insert(&self.spaces.slots, key.as_slice(), [*level, *slot]);
                    }
                }
                Tuple::Amt { level, prefix, .. } => {
                    let parent = level.saturating_sub(1);
                    let idx = index_at(prefix, parent, depth).ok_or(TreeError::PathExhausted)?;
                    entries.insert((parent, prefix_at(prefix, parent, depth), idx));
                }
            }
        }
        // The accumulators those bumps moved, converted to affine in one batch.
        let mut moved: BTreeSet<(u8, B256, u32)> = BTreeSet::new();
        for (level, prefix, j) in &entries {
            let amt = t
                .amt(*level, prefix)
                .ok_or_else(|| corrupt("memory", "a bumped AMT is missing"))?;
            let mut v = Vec::with_capacity(SLOTS * 8);
            for x in amt.versions(*j) {
                v.extend_from_slice(&x.to_be_bytes());
            }
            batch.insert(&self.spaces.versions, amt_key(*level, prefix, *j), v);
            for idx in amt.moved_by(*j) {
                moved.insert((*level, *prefix, idx));
            }
        }
        let mut projective = Vec::with_capacity(moved.len() * SLOTS);
        for (level, prefix, idx) in &moved {
            let acc = t
                .amt(*level, prefix)
                .and_then(|a| a.accumulators(*idx))
                .ok_or_else(|| corrupt("memory", "a moved proof node is missing"))?;
            projective.extend_from_slice(acc);
        }
        let affine = G1Projective::normalize_batch(&projective);
        for ((level, prefix, idx), points) in moved.iter().zip(affine.chunks_exact(SLOTS)) {
            let mut v = Vec::with_capacity(SLOTS * POINT);
            for p in points {
                p.serialize_with_mode(&mut v, Compress::No).map_err(kv)?;
            }
            batch.insert(&self.spaces.points, amt_key(*level, prefix, *idx), v);
        }
        batch.insert(
            &self.spaces.blocks,
            block.to_be_bytes(),
            encode_block(&roots, tuples.len()),
        );
        batch.insert(&self.spaces.meta, "head", block.to_be_bytes());
        batch.commit().map_err(kv)
    }
}

/// Reads the whole LVMT back (see the module docs) and checks it against the head's record.
fn load(
    spaces: &Spaces,
    setup: Arc<Setup>,
    proofs: Proofs,
) -> Result<(Lvmt, Vec<Roots>), StoreError> {
    let depth = setup.depth();
    let head =
        match spaces.meta.get("head").map_err(kv)? {
            None => None,
            Some(b) => Some(u64_at(&b, 0).filter(|_| b.len() == 8).ok_or_else(|| {
                corrupt("lvmt_meta/head", format!("{} bytes, not a u64", b.len()))
            })?),
        };
    let count = head.map_or(0, |h| h + 1);

    // Block records: 0..=head, nothing after.
    let mut roots: Vec<Roots> = Vec::new();
    let mut sizes: Vec<u32> = Vec::new();
    for (k, v) in scan(&spaces.blocks)? {
        let b = u64_at(&k, 0)
            .filter(|_| k.len() == 8)
            .ok_or_else(|| corrupt("lvmt_blocks", "a key that is not a block number"))?;
        let what = || format!("lvmt_blocks/{b}");
        if b != roots.len() as u64 || b >= count {
            return Err(corrupt(
                what(),
                format!("unexpected: {} blocks up to the head", count),
            ));
        }
        let (aroot, history, size) = match (word_at(&v, 0), b256_at(&v, 32), u32_at(&v, 64)) {
            (Some(a), Some(h), Some(n)) if v.len() == 68 => (a, h, n),
            _ => return Err(corrupt(what(), format!("{} bytes, not 68", v.len()))),
        };
        roots.push((aroot, history));
        sizes.push(size);
    }
    if roots.len() as u64 != count {
        return Err(corrupt(
            "lvmt_blocks",
            format!("{} block records for {count} blocks", roots.len()),
        ));
    }

    // Tuples, block by block, each block complete.
    let mut blocks: Vec<Vec<Tuple>> = sizes
        .iter()
        .map(|n| Vec::with_capacity(*n as usize))
        .collect();
    for (k, v) in scan(&spaces.tuples)? {
        let (b, i) = match (u64_at(&k, 0), u32_at(&k, 8)) {
            (Some(b), Some(i)) if k.len() == 12 => (b, i),
            _ => return Err(corrupt("lvmt_tuples", "a key that is not (block, index)")),
        };
        let what = || format!("lvmt_tuples/{b}/{i}");
        let list = usize::try_from(b)
            .ok()
            .and_then(|b| blocks.get_mut(b))
            .ok_or_else(|| corrupt(what(), "a tuple of a block after the head"))?;
        if i as usize != list.len() {
            return Err(corrupt(what(), format!("expected tuple {}", list.len())));
        }
        list.push(decode_tuple(&v).ok_or_else(|| corrupt(what(), "not a tuple"))?);
    }
    for (b, (list, n)) in blocks.iter().zip(&sizes).enumerate() {
        if list.len() != *n as usize {
            return Err(corrupt(
                format!("lvmt_tuples/{b}"),
                format!("{} tuples, the block record says {n}", list.len()),
            ));
        }
    }

    // Slots.
    let mut slots: HashMap<B256, (u8, u8)> = HashMap::new();
    for (k, v) in scan(&spaces.slots)? {
        let key = b256_at(&k, 0)
            .filter(|_| k.len() == 32)
            .ok_or_else(|| corrupt("lvmt_slots", "a key that is not a state key"))?;
        match v.as_slice() {
            [level, slot] => {
                slots.insert(key, (*level, *slot));
            }
            _ => return Err(corrupt(format!("lvmt_slots/{key}"), "not (level, slot)")),
        }
    }

    // AMTs: versions and accumulators.
    let mut versions: HashMap<(u8, B256), HashMap<u32, [u64; SLOTS]>> = HashMap::new();
    for (k, v) in scan(&spaces.versions)? {
        let (level, prefix, j) =
            decode_amt_key(&k).ok_or_else(|| corrupt("lvmt_versions", "a malformed key"))?;
        let what = || format!("lvmt_versions/{level}/{prefix}/{j}");
        if v.len() != SLOTS * 8 || index_at(&prefix, level, depth).is_none() {
            return Err(corrupt(what(), "not six versions of an entry on a path"));
        }
        let mut vs = [0u64; SLOTS];
        for (s, x) in vs.iter_mut().enumerate() {
            *x = u64_at(&v, 8 * s).ok_or_else(|| corrupt(what(), "short"))?;
            if *x > crate::amt::MAX_VERSION {
                return Err(corrupt(what(), format!("version {x} beyond 2^40 - 1")));
            }
        }
        if j >= 1u32 << depth {
            return Err(corrupt(what(), format!("entry {j} beyond 2^{depth}")));
        }
        versions.entry((level, prefix)).or_default().insert(j, vs);
    }
    let mut points: HashMap<(u8, B256), HashMap<u32, Acc>> = HashMap::new();
    for (k, v) in scan(&spaces.points)? {
        let (level, prefix, idx) =
            decode_amt_key(&k).ok_or_else(|| corrupt("lvmt_points", "a malformed key"))?;
        let what = || format!("lvmt_points/{level}/{prefix}/{idx}");
        if idx >= 1u32 << depth {
            return Err(corrupt(what(), format!("node {idx} beyond 2^{depth}")));
        }
        let acc = decode_accumulators(&v)
            .ok_or_else(|| corrupt(what(), "not six uncompressed points of G1"))?;
        points.entry((level, prefix)).or_default().insert(idx, acc);
    }
    let shell = Lvmt::with_proofs(setup.clone(), proofs);
    let mut amts: HashMap<(u8, B256), Amt> = HashMap::new();
    for (id, mut nodes) in points {
        let commitment = nodes.remove(&0).ok_or_else(|| {
            corrupt(
                format!("lvmt_points/{}/{}", id.0, id.1),
                "proof nodes without a commitment",
            )
        })?;
        let vs = versions.remove(&id).unwrap_or_default();
        let p = shell.proofs_for(id.0, &id.1);
        amts.insert(id, Amt::from_parts(depth, p, vs, commitment, nodes));
    }
    if let Some(((level, prefix), _)) = versions.into_iter().next() {
        return Err(corrupt(
            format!("lvmt_versions/{level}/{prefix}"),
            "versions of an AMT without a commitment",
        ));
    }

    let lvmt = Lvmt::from_parts(setup, proofs, amts, slots, blocks)
        .map_err(|why| corrupt("lvmt_tuples", why))?;
    if let Some(last) = roots.last()
        && (lvmt.aroot(), lvmt.history_root()) != *last
    {
        return Err(corrupt(
            format!("lvmt_blocks/{}", roots.len() - 1),
            "the stored AMTs and tuples do not give the recorded roots",
        ));
    }
    Ok((lvmt, roots))
}

/// The one-word commitment [`StateEngine::root`] returns: `keccak256(aroot ‖ history root)`.
/// The header carries both (`lvmtRoot`, `lvmtHistoryRoot`); a proof names them and is checked
/// against this word first.
pub fn state_root(roots: &Roots) -> B256 {
    let mut b = [0u8; 64];
    b[..32].copy_from_slice(&roots.0);
    b[32..].copy_from_slice(roots.1.as_slice());
    keccak256(b)
}

/// [`StateEngine::prove`]'s proof: the history of the key over `block..=block` against the
/// anchor's roots, and those roots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateProof {
    /// The anchor's `aroot`.
    pub aroot: [u8; 32],
    /// The anchor's history root.
    pub history_root: B256,
    /// Blocks the anchor's history root covers (the anchor + 1).
    pub blocks: u64,
    /// The history proof ([`LvmtHistory`]).
    pub history: LvmtHistory,
}

impl StateEngine for LvmtStore {
    type Proof = StateProof;
    type Error = StoreError;

    /// The writes' last value per key, listed in ascending state-key order (as the node does).
    fn apply_block(&mut self, number: u64, writes: &[Write]) -> Result<B256, StoreError> {
        let expected = self.blocks();
        if number != expected {
            return Err(StoreError::BlockOrder {
                expected,
                got: number,
            });
        }
        let last: std::collections::BTreeMap<B256, Word> =
            writes.iter().map(|(k, v)| (k.state_key(), *v)).collect();
        let roots = self.commit(&in_key_order(&last))?;
        Ok(state_root(&roots))
    }

    fn head(&self) -> Option<u64> {
        self.blocks().checked_sub(1)
    }

    fn root(&self, block: u64) -> Result<B256, StoreError> {
        self.roots_at(block)
            .map(|r| state_root(&r))
            .ok_or(StoreError::UnknownBlock(block))
    }

    fn get(&self, key: &Key, block: u64) -> Result<Word, StoreError> {
        if block >= self.blocks() {
            return Err(StoreError::UnknownBlock(block));
        }
        Ok(self.lvmt.value_at(&key.state_key(), block))
    }

    fn prove(&self, key: &Key, block: u64) -> Result<StateProof, StoreError> {
        let head = self.head().ok_or(StoreError::UnknownBlock(block))?;
        if block > head {
            return Err(StoreError::UnknownBlock(block));
        }
        let k = key.state_key();
        let history = self
            .lvmt
            .prove_history(&k, block, block)
            .ok_or(StoreError::NotServed(k))?;
        let (aroot, history_root) = self.roots_at(head).ok_or(StoreError::UnknownBlock(head))?;
        Ok(StateProof {
            aroot,
            history_root,
            blocks: head + 1,
            history,
        })
    }

    /// LVMT proves history from the current state: every proof is checked against the head.
    fn proof_anchor(&self, _block: u64) -> u64 {
        self.head().unwrap_or(0)
    }

    fn disk_bytes(&self) -> u64 {
        LvmtStore::disk_bytes(self)
    }
}
