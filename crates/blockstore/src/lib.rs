#![doc = include_str!("../README.md")]
//!
//! lightprov-node's block store: headers, bodies, receipts, the canonical chain and the
//! transaction-hash index, on the same fjall database as the node's state, written in the same
//! atomic batch as the block's state.
//!
//! Two layouts, so that one can be measured against the other on the same store:
//!
//! - [`Layout::HashKeyed`]: geth's key schema (`core/rawdb/schema.go`) in one keyspace —
//!   `h‖num‖hash` header, `b‖num‖hash` body, `r‖num‖hash` receipts, `h‖num‖n` canonical hash,
//!   `H‖hash` number, `l‖txhash` transaction lookup. The random `H` and `l` keys (and the
//!   interleaved types) make every table overlap every other, so the LSM tree merges.
//! - [`Layout::BlockOrdered`] (Block-LSM, Chen et al.): every key of a block starts with its
//!   group, `BE32(⌊num / group⌋) ‖ type ‖ BE64(num) [‖ hash]`, so block data arrives in key
//!   order and tables never overlap (fjall moves them down without rewriting them). With
//!   [`Options::align`], a group's blocks wait in a journalled staging keyspace and, when the
//!   group closes, are ingested into the data keyspace as tables of their own (fjall's public
//!   ingestion API), after which the staging keyspace is cleared (one journal record, no
//!   tombstones): no table spans two groups. With [`Options::separate_index`], the
//!   random-keyed index (`H`, `l`) lives in its own keyspace with its own memtable, confining
//!   its merges to itself.
//!
//! Reads need only what a reader knows: a block's keys follow from its number (the group is
//! `⌊num / group⌋`, fixed when the store is created and stored in it), a transaction's from the
//! index. The index is a hint, not evidence: a light client proves a transaction by its block's
//! `transactionsRoot`, and no header commits to the index, so "not in the index" proves nothing.
//!
//! Crash safety: a block's keys are written in the caller's batch, atomically with its state,
//! through fjall's journal. Sealing a group ingests it before it clears it from staging, and
//! [`BlockStore::open`] finishes a seal a crash interrupted (or prevented), so a block once
//! committed is always readable.

use std::sync::Arc;

use fjall::{Keyspace, KeyspaceCreateOptions};
use lightprov_engine_api::kv::{BatchOp, FjallStore, KvError, KvStore};

/// Where block data lives (geth's layout, and Block-LSM's data keyspace).
pub const BLOCKS: &str = "blocks";
/// Block-LSM with alignment: the open group's blocks until the group closes.
pub const STAGING: &str = "blocks_open";
/// Block-LSM with a separate index: the transaction and block-hash index.
pub const INDEX: &str = "blocks_index";
/// The layout the store was created with.
const META: &str = "blocks_meta";

/// First byte of the index keys in the block-ordered layout: above every group prefix, so the
/// index never interleaves with block data in a shared keyspace.
const INDEX_TAG: u8 = 0xff;
/// Groups numbers stay below this, so that a group prefix never starts with [`INDEX_TAG`].
pub const MAX_GROUPS: u64 = 0xff00_0000;

/// A 32-byte hash (block or transaction).
pub type Hash = [u8; 32];

/// Where one transaction sits: block number and index in the block.
pub type TxLocation = (u64, u32);

/// Block-LSM's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Blocks per group (the paper: 100).
    pub group: u64,
    /// Ingest each closed group as tables of its own, so that no table spans two groups
    /// (SSTable alignment). A group should fit in a memtable (fjall: 64 MiB by default): a
    /// staging memtable that fills up is flushed, and its tables are written for nothing.
    pub align: bool,
    /// The transaction and block-hash index in its own keyspace, with its own memtable.
    pub separate_index: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            group: 100,
            align: true,
            separate_index: true,
        }
    }
}

/// How the store lays out its keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// geth's schema, in one keyspace.
    HashKeyed,
    /// Block-LSM: group-prefixed keys.
    BlockOrdered(Options),
}

impl Default for Layout {
    fn default() -> Self {
        Self::BlockOrdered(Options::default())
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::HashKeyed => f.write_str("hash-keyed"),
            Self::BlockOrdered(o) => {
                write!(f, "block-ordered/group={}", o.group)?;
                if o.align {
                    f.write_str("/aligned")?;
                }
                if o.separate_index {
                    f.write_str("/separate-index")?;
                }
                Ok(())
            }
        }
    }
}

/// Memory and table sizes of the store's keyspaces (fjall's defaults when `None`); the same
/// for every keyspace, so that layouts compare on equal terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tuning {
    /// Bytes of a memtable before it is flushed (fjall: 64 MiB).
    pub memtable: Option<u64>,
    /// Target size of a table written by compaction (fjall: 64 MiB).
    pub table: Option<u64>,
}

/// A block to store: its encodings as the node keeps them.
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    /// Block number.
    pub number: u64,
    /// Block hash.
    pub hash: Hash,
    /// RLP of the header.
    pub header: &'a [u8],
    /// The body (the caller's encoding).
    pub body: &'a [u8],
    /// The receipts (the caller's encoding).
    pub receipts: &'a [u8],
    /// The hashes of the block's transactions, in block order.
    pub tx_hashes: &'a [Hash],
}

/// A block store failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The key-value store failed.
    #[error(transparent)]
    Kv(#[from] KvError),
    /// fjall failed.
    #[error("block store: {0}")]
    Fjall(#[from] fjall::Error),
    /// The store was created with another layout.
    #[error("the block store was created with layout {stored}, not {requested}")]
    Layout {
        /// The layout on disk.
        stored: String,
        /// The layout asked for.
        requested: String,
    },
    /// A setting is out of range.
    #[error("{field}: {reason}")]
    Setting {
        /// The setting.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A block number beyond what the layout can address.
    #[error("block {number}: beyond the {MAX_GROUPS} groups the layout addresses")]
    TooFar {
        /// The number.
        number: u64,
    },
    /// A stored value is not what it should be.
    #[error("block store: corrupt {0}")]
    Corrupt(String),
}

/// Kinds of block data.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Header,
    Body,
    Receipts,
}

impl Kind {
    const fn tag(self) -> u8 {
        match self {
            Self::Header => b'h',
            Self::Body => b'b',
            Self::Receipts => b'r',
        }
    }
}

/// The block store.
pub struct BlockStore {
    kv: Arc<FjallStore>,
    layout: Layout,
    main: Keyspace,
    staging: Option<Keyspace>,
    index: Option<Keyspace>,
}

impl std::fmt::Debug for BlockStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockStore")
            .field("layout", &self.layout)
            .finish_non_exhaustive()
    }
}

fn be32(v: u64) -> [u8; 4] {
    // Callers check `v < MAX_GROUPS`, which fits 32 bits.
    (v as u32).to_be_bytes()
}

impl BlockStore {
    /// Opens the block store on `kv` (the node's database), creating it with `layout` if it
    /// is new; refuses a store created with another layout. Finishes a group seal that a
    /// crash interrupted.
    pub fn open(kv: Arc<FjallStore>, layout: Layout, tuning: Tuning) -> Result<Self, Error> {
        if let Layout::BlockOrdered(o) = layout
            && o.group == 0
        {
            return Err(Error::Setting {
                field: "group",
                reason: "a group holds at least one block".into(),
            });
        }
        let options = move || {
            let mut o = KeyspaceCreateOptions::default();
            if let Some(m) = tuning.memtable {
                o = o.max_memtable_size(m);
            }
            if let Some(t) = tuning.table {
                o = o.compaction_strategy(Arc::new(
                    fjall::compaction::Leveled::default().with_table_target_size(t),
                ));
            }
            o
        };
        let main = kv.keyspace_with(BLOCKS, options)?;
        let (staging, index) = match layout {
            Layout::HashKeyed => (None, None),
            Layout::BlockOrdered(o) => (
                o.align
                    .then(|| kv.keyspace_with(STAGING, options))
                    .transpose()?,
                o.separate_index
                    .then(|| kv.keyspace_with(INDEX, options))
                    .transpose()?,
            ),
        };
        let requested = layout.to_string();
        match kv.get(META, b"layout")? {
            Some(stored) if stored != requested.as_bytes() => {
                return Err(Error::Layout {
                    stored: String::from_utf8_lossy(&stored).into_owned(),
                    requested,
                });
            }
            Some(_) => {}
            None => kv.write(vec![(
                META,
                b"layout".to_vec(),
                Some(requested.into_bytes()),
            )])?,
        }
        let store = Self {
            kv,
            layout,
            main,
            staging,
            index,
        };
        store.recover()?;
        Ok(store)
    }

    /// Whether a store exists on `kv` (a layout was recorded).
    pub fn exists(kv: &FjallStore) -> Result<bool, Error> {
        Ok(kv.get(META, b"layout")?.is_some())
    }

    /// The layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    fn options(&self) -> Option<Options> {
        match self.layout {
            Layout::HashKeyed => None,
            Layout::BlockOrdered(o) => Some(o),
        }
    }

    fn group_of(&self, number: u64) -> Result<Option<u64>, Error> {
        let Some(o) = self.options() else {
            return Ok(None);
        };
        let g = number / o.group;
        if g >= MAX_GROUPS {
            return Err(Error::TooFar { number });
        }
        Ok(Some(g))
    }

    fn data_key(&self, kind: Kind, number: u64, hash: &Hash) -> Result<Vec<u8>, Error> {
        let mut k = Vec::with_capacity(45);
        if let Some(g) = self.group_of(number)? {
            k.extend_from_slice(&be32(g));
        }
        k.push(kind.tag());
        k.extend_from_slice(&number.to_be_bytes());
        k.extend_from_slice(hash);
        Ok(k)
    }

    fn canonical_key(&self, number: u64) -> Result<Vec<u8>, Error> {
        Ok(match self.group_of(number)? {
            // geth: `h ‖ num ‖ n`.
            None => [&[b'h'][..], &number.to_be_bytes(), b"n"].concat(),
            Some(g) => [&be32(g)[..], b"n", &number.to_be_bytes()].concat(),
        })
    }

    fn index_key(&self, tag: u8, hash: &Hash) -> Vec<u8> {
        match self.layout {
            Layout::HashKeyed => [&[tag][..], hash].concat(),
            Layout::BlockOrdered(_) => [&[INDEX_TAG, tag][..], hash].concat(),
        }
    }

    /// Where a block's data keys are written.
    fn data_space(&self) -> &'static str {
        if self.staging.is_some() {
            STAGING
        } else {
            BLOCKS
        }
    }

    /// Where index keys are written.
    fn index_space(&self) -> &'static str {
        if self.index.is_some() {
            INDEX
        } else {
            self.data_space()
        }
    }

    fn last_of_group(&self, g: u64) -> u64 {
        let group = self.options().map_or(1, |o| o.group);
        (g + 1) * group - 1
    }

    /// The writes that store `block`, for the caller's atomic batch. Call
    /// [`committed`](Self::committed) once the batch is durable.
    pub fn ops(&self, block: &Block<'_>) -> Result<Vec<BatchOp>, Error> {
        let data = self.data_space();
        let index = self.index_space();
        let n = block.number;
        let mut ops: Vec<BatchOp> = vec![
            (
                data,
                self.data_key(Kind::Header, n, &block.hash)?,
                Some(block.header.to_vec()),
            ),
            (
                data,
                self.data_key(Kind::Body, n, &block.hash)?,
                Some(block.body.to_vec()),
            ),
            (
                data,
                self.data_key(Kind::Receipts, n, &block.hash)?,
                Some(block.receipts.to_vec()),
            ),
            (data, self.canonical_key(n)?, Some(block.hash.to_vec())),
            (
                index,
                self.index_key(b'H', &block.hash),
                Some(n.to_be_bytes().to_vec()),
            ),
        ];
        for (i, h) in block.tx_hashes.iter().enumerate() {
            let i = u32::try_from(i).map_err(|_| Error::Setting {
                field: "tx_hashes",
                reason: "more than 2^32 transactions in a block".into(),
            })?;
            let mut loc = n.to_be_bytes().to_vec();
            loc.extend_from_slice(&i.to_be_bytes());
            ops.push((index, self.index_key(b'l', h), Some(loc)));
        }
        Ok(ops)
    }

    /// Tells the store that the batch holding block `number`'s [`ops`](Self::ops) is durable:
    /// with alignment, the block that closes a group seals it.
    pub fn committed(&self, number: u64) -> Result<(), Error> {
        if let Some(o) = self.options()
            && self.staging.is_some()
            && (number + 1).is_multiple_of(o.group)
        {
            self.seal()?;
        }
        Ok(())
    }

    /// Stores `block` in a batch of its own (for callers with no state to commit with it).
    pub fn insert(&self, block: &Block<'_>) -> Result<(), Error> {
        self.kv.write(self.ops(block)?)?;
        self.committed(block.number)
    }

    /// Whether group `g`'s blocks are in the data keyspace (with alignment: it was sealed).
    pub fn is_sealed(&self, g: u64) -> Result<bool, Error> {
        if g >= MAX_GROUPS {
            return Ok(false);
        }
        let last = self.canonical_key(self.last_of_group(g))?;
        Ok(self.main.contains_key(last)?)
    }

    /// Seals every complete group in staging: ingests each (its blocks in key order, and with a
    /// shared index its index entries after them) into tables of its own in the data keyspace,
    /// unless a seal a crash interrupted already did; then clears staging, or, if it also holds
    /// an open group's blocks (only after a failed seal), deletes the sealed groups' keys.
    fn seal(&self) -> Result<(), Error> {
        let Some(staging) = &self.staging else {
            return Ok(());
        };
        let groups = self.staged_groups()?;
        let mut sealed = Vec::new();
        let mut open = false;
        for &g in &groups {
            let last = self.canonical_key(self.last_of_group(g))?;
            if !staging.contains_key(&last)? {
                open = true;
                continue;
            }
            let pairs = self.staged(g)?;
            if !self.main.contains_key(&last)? {
                let mut ingestion = self.main.start_ingestion()?;
                for (k, v) in &pairs {
                    ingestion.write(k.clone(), v.clone())?;
                }
                ingestion.finish()?;
            }
            sealed.extend(pairs.into_iter().map(|(k, _)| k));
        }
        if sealed.is_empty() {
            return Ok(());
        }
        if open {
            self.kv.write(
                sealed
                    .into_iter()
                    .map(|k| (STAGING, k.to_vec(), None))
                    .collect(),
            )?;
        } else {
            staging.clear()?;
        }
        Ok(())
    }

    /// Group `g`'s staged keys and values, in key order: its blocks, then (shared index) its
    /// index entries.
    fn staged(&self, g: u64) -> Result<Vec<(fjall::UserKey, fjall::UserValue)>, Error> {
        let Some(staging) = &self.staging else {
            return Ok(Vec::new());
        };
        let mut pairs = Vec::new();
        for guard in staging.prefix(be32(g)) {
            pairs.push(guard.into_inner()?);
        }
        if self.index.is_none() {
            let group = self.options().map_or(1, |o| o.group);
            let (lo, hi) = (g * group, self.last_of_group(g));
            for guard in staging.prefix([INDEX_TAG]) {
                let (k, v) = guard.into_inner()?;
                let number = v
                    .get(..8)
                    .and_then(|b| b.try_into().ok())
                    .map(u64::from_be_bytes)
                    .ok_or_else(|| Error::Corrupt("index entry".into()))?;
                if (lo..=hi).contains(&number) {
                    pairs.push((k, v));
                }
            }
        }
        Ok(pairs)
    }

    /// The groups whose blocks wait in staging (with alignment: the open group; more only when
    /// a seal failed or a crash prevented it, until the store is opened again).
    pub fn staged_groups(&self) -> Result<Vec<u64>, Error> {
        let Some(staging) = &self.staging else {
            return Ok(Vec::new());
        };
        let mut groups: Vec<u64> = Vec::new();
        for guard in staging.range(..[INDEX_TAG].as_slice()) {
            let k = guard.key()?;
            let g = k
                .get(..4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_be_bytes)
                .ok_or_else(|| Error::Corrupt("staged key".into()))?;
            if groups.last() != Some(&u64::from(g)) {
                groups.push(u64::from(g));
            }
        }
        Ok(groups)
    }

    /// Finishes a seal a crash interrupted or prevented.
    fn recover(&self) -> Result<(), Error> {
        self.seal()
    }

    fn get(&self, key: &[u8], index: bool) -> Result<Option<Vec<u8>>, Error> {
        if let (true, Some(i)) = (index, &self.index) {
            return Ok(i.get(key)?.map(|v| v.to_vec()));
        }
        if let Some(v) = self.main.get(key)? {
            return Ok(Some(v.to_vec()));
        }
        match &self.staging {
            Some(s) => Ok(s.get(key)?.map(|v| v.to_vec())),
            None => Ok(None),
        }
    }

    /// The hash of canonical block `number`.
    pub fn canonical_hash(&self, number: u64) -> Result<Option<Hash>, Error> {
        match self.get(&self.canonical_key(number)?, false)? {
            None => Ok(None),
            Some(v) => {
                Ok(Some(v.try_into().map_err(|_| {
                    Error::Corrupt(format!("canonical hash of {number}"))
                })?))
            }
        }
    }

    fn data(&self, kind: Kind, number: u64) -> Result<Option<Vec<u8>>, Error> {
        let Some(hash) = self.canonical_hash(number)? else {
            return Ok(None);
        };
        match self.get(&self.data_key(kind, number, &hash)?, false)? {
            Some(v) => Ok(Some(v)),
            None => Err(Error::Corrupt(format!(
                "block {number}: canonical but no {kind:?}"
            ))),
        }
    }

    /// The header RLP of canonical block `number`.
    pub fn header(&self, number: u64) -> Result<Option<Vec<u8>>, Error> {
        self.data(Kind::Header, number)
    }

    /// The body of canonical block `number`.
    pub fn body(&self, number: u64) -> Result<Option<Vec<u8>>, Error> {
        self.data(Kind::Body, number)
    }

    /// The receipts of canonical block `number`.
    pub fn receipts(&self, number: u64) -> Result<Option<Vec<u8>>, Error> {
        self.data(Kind::Receipts, number)
    }

    /// The number of the block with this hash.
    pub fn number_of(&self, hash: &Hash) -> Result<Option<u64>, Error> {
        match self.get(&self.index_key(b'H', hash), true)? {
            None => Ok(None),
            Some(v) => {
                Ok(Some(u64::from_be_bytes(v.try_into().map_err(|_| {
                    Error::Corrupt("block number index".into())
                })?)))
            }
        }
    }

    /// Where a transaction sits, by the index (a hint: see the crate's documentation).
    pub fn tx_location(&self, hash: &Hash) -> Result<Option<TxLocation>, Error> {
        let Some(v) = self.get(&self.index_key(b'l', hash), true)? else {
            return Ok(None);
        };
        match (v.get(..8), v.get(8..)) {
            (Some(n), Some(i)) if v.len() == 12 => Ok(Some((
                u64::from_be_bytes(
                    n.try_into()
                        .map_err(|_| Error::Corrupt("tx index".into()))?,
                ),
                u32::from_be_bytes(
                    i.try_into()
                        .map_err(|_| Error::Corrupt("tx index".into()))?,
                ),
            ))),
            _ => Err(Error::Corrupt("transaction index".into())),
        }
    }

    /// Tables of the store's keyspaces (data, staging, index).
    pub fn stats(&self) -> Stats {
        let space = |k: &Keyspace| SpaceStats {
            tables: k.table_count(),
            l0_tables: k.l0_table_count(),
            disk_bytes: k.disk_space(),
        };
        Stats {
            layout: self.layout.to_string(),
            data: space(&self.main),
            staging: self.staging.as_ref().map(space),
            index: self.index.as_ref().map(space),
        }
    }
}

impl BlockStore {
    /// The store's keyspaces by name, and their directories.
    pub fn keyspaces(&self) -> Vec<(&'static str, std::path::PathBuf)> {
        let mut all = vec![(BLOCKS, self.main.path().to_path_buf())];
        all.extend(
            self.staging
                .as_ref()
                .map(|k| (STAGING, k.path().to_path_buf())),
        );
        all.extend(self.index.as_ref().map(|k| (INDEX, k.path().to_path_buf())));
        all
    }
}

/// One keyspace's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceStats {
    /// Tables.
    pub tables: usize,
    /// Tables in level 0.
    pub l0_tables: usize,
    /// Bytes of its tables.
    pub disk_bytes: u64,
}

/// The store's tables, per keyspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// The layout, as [`Layout`] displays it.
    pub layout: String,
    /// The data keyspace.
    pub data: SpaceStats,
    /// The staging keyspace (alignment).
    pub staging: Option<SpaceStats>,
    /// The index keyspace (separate index).
    pub index: Option<SpaceStats>,
}

/// Bytes the caller asked to store with `ops` (keys and values): the denominator of write
/// amplification.
pub fn user_bytes(ops: &[BatchOp]) -> u64 {
    ops.iter()
        .map(|(_, k, v)| (k.len() + v.as_ref().map_or(0, Vec::len)) as u64)
        .sum()
}
