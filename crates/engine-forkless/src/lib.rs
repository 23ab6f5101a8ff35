#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod archive;
mod index;
pub mod tree;

use std::{
    collections::HashMap,
    fs,
    io::{Read as _, Write as _},
    path::{Path, PathBuf},
};

use fjall::{Keyspace, PersistMode};
use lightprov_engine_api::{Key, StateEngine, Write, kv::FjallStore};
use lightprov_types::{
    Address, B256, Word,
    forkless::{Chain, Claim, Component, ForklessKey, Link, Located, Params, Proof, hash},
};

use archive::{Archive, Row, RowKey};
use index::Index;
use tree::Records;

/// Engine failures.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The key-value store failed.
    #[error("store: {0}")]
    Kv(String),
    /// A file of the LiveDB failed.
    #[error("file: {0}")]
    Io(#[from] std::io::Error),
    /// The archive writer failed.
    #[error("archive: {0}")]
    Archive(String),
    /// Blocks must be applied in order.
    #[error("block {got} applied, expected {expected}")]
    NotNext {
        /// The block expected.
        expected: u64,
        /// The block given.
        got: u64,
    },
    /// A nonce over 64 bits (EIP-2681 caps nonces at 2^64 − 1).
    #[error("block {block}: a nonce over 64 bits")]
    NonceTooLarge {
        /// The block.
        block: u64,
    },
    /// The block is not applied.
    #[error("block {0} is not applied")]
    NoBlock(u64),
    /// The store is opened with other parameters than it was built with.
    #[error(
        "the store was built with page size {stored_page}, fanout {stored_fanout} and bucket load \
         {stored_load}; open it with those (--forkless-page-size, --forkless-fanout, \
         --forkless-bucket-load)"
    )]
    ParamsMismatch {
        /// Page size in the store.
        stored_page: u32,
        /// Fanout in the store.
        stored_fanout: u8,
        /// Bucket load in the store.
        stored_load: u8,
    },
    /// What is on disk does not add up.
    #[error("corrupt store: {0}")]
    Corrupt(String),
}

impl Error {
    fn kv(e: impl std::fmt::Display) -> Self {
        Self::Kv(e.to_string())
    }
}

/// How the engine is built.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The LiveDB's page size, fanout and bucket load (bound into its root).
    pub params: Params,
    /// Blocks between two flushes of the LiveDB files (the journal covers the rest).
    pub checkpoint_every: u64,
    /// Whether archive rows are written by a background thread (paper §4.1) or inline.
    pub background_archive: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            params: Params::default(),
            checkpoint_every: 64,
            background_archive: true,
        }
    }
}

const PERSISTED: [Component; 8] = [
    Component::AccountKeys,
    Component::Balance,
    Component::Nonce,
    Component::BalanceChain,
    Component::NonceChain,
    Component::SlotKeys,
    Component::SlotValue,
    Component::SlotChain,
];

const PARAMS: &[u8] = b"params";
const CHECKPOINT: &[u8] = b"checkpoint";

/// One key's change in a block, as journalled: enough to redo it on the files.
#[derive(Clone, Copy, Debug)]
struct Change {
    key: ForklessKey,
    record: u64,
    new: bool,
    value: Word,
    chain: B256,
}

impl Change {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.key.kind());
        out.extend_from_slice(self.key.address().as_slice());
        out.extend_from_slice(match &self.key {
            ForklessKey::Storage(_, s) => s.as_slice(),
            _ => &[0; 32],
        });
        out.extend_from_slice(&self.record.to_be_bytes());
        out.push(u8::from(self.new));
        out.extend_from_slice(&self.value);
        out.extend_from_slice(self.chain.as_slice());
    }

    const LEN: usize = 1 + 20 + 32 + 8 + 1 + 32 + 32;

    fn decode(b: &[u8]) -> Option<Self> {
        let address = Address::from_slice(b.get(1..21)?);
        let slot = B256::from_slice(b.get(21..53)?);
        let key = match b.first()? {
            1 => ForklessKey::Balance(address),
            2 => ForklessKey::Nonce(address),
            3 => ForklessKey::Storage(address, slot),
            _ => return None,
        };
        Some(Self {
            key,
            record: u64::from_be_bytes(b.get(53..61)?.try_into().ok()?),
            new: *b.get(61)? == 1,
            value: b.get(62..94)?.try_into().ok()?,
            chain: B256::from_slice(b.get(94..126)?),
        })
    }
}

/// The engine's key as the LiveDB files it.
pub fn forkless_key(key: &Key) -> ForklessKey {
    match *key {
        Key::Balance(a) => ForklessKey::Balance(a),
        Key::Nonce(a) => ForklessKey::Nonce(a),
        Key::Storage(a, s) => ForklessKey::Storage(a, s),
    }
}

/// A forkless LiveDB + ArchiveDB (see the crate docs).
pub struct ForklessEngine {
    dir: PathBuf,
    options: Options,
    store: FjallStore,
    journal: Keyspace,
    roots: Keyspace,
    meta: Keyspace,
    files: Vec<Records>,
    accounts: Index,
    slots: Index,
    tree_roots: [B256; 10],
    archive: Archive,
    head: Option<u64>,
    checkpoint: Option<u64>,
    /// A block taken in memory and not yet durable: its number, changes and root.
    staged: Option<(u64, Vec<Change>, B256)>,
    /// Set when the memory holds changes that are not durable and cannot be: the files must not
    /// be flushed from it again.
    poisoned: bool,
}

impl std::fmt::Debug for ForklessEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForklessEngine")
            .field("dir", &self.dir)
            .field("head", &self.head)
            .field("checkpoint", &self.checkpoint)
            .finish_non_exhaustive()
    }
}

impl ForklessEngine {
    /// Opens (or creates) the engine in `dir` with the default options.
    pub fn open_dir(dir: &Path) -> Result<Self, Error> {
        Self::open(dir, Options::default())
    }

    /// Opens (or creates) the engine in `dir`: reads the LiveDB files as of the last checkpoint,
    /// redoes the journalled blocks after it, rebuilds the indexes and hash trees, checks the
    /// head's root, and hands the archive writer the blocks it has not written.
    pub fn open(dir: &Path, options: Options) -> Result<Self, Error> {
        options
            .params
            .validate()
            .map_err(|e| Error::Corrupt(e.to_string()))?;
        let params = options.params;
        let store = FjallStore::open(&dir.join("archive")).map_err(Error::kv)?;
        let space = |name: &'static str| {
            store
                .keyspace_with(name, fjall::KeyspaceCreateOptions::default)
                .map_err(Error::kv)
        };
        let (journal, roots, meta, rows) = (
            space("journal")?,
            space("roots")?,
            space("meta")?,
            space("rows")?,
        );
        let mut stored = [0u8; 6];
        stored[..4].copy_from_slice(&params.page_size.to_be_bytes());
        stored[4] = params.fanout;
        stored[5] = params.bucket_load;
        match meta.get(PARAMS).map_err(Error::kv)? {
            Some(v) if v[..] != stored[..] => {
                let v = v.to_vec();
                return Err(Error::ParamsMismatch {
                    stored_page: u32::from_be_bytes(
                        v.get(..4)
                            .and_then(|b| b.try_into().ok())
                            .unwrap_or_default(),
                    ),
                    stored_fanout: v.get(4).copied().unwrap_or_default(),
                    stored_load: v.get(5).copied().unwrap_or_default(),
                });
            }
            Some(_) => {}
            None => meta.insert(PARAMS, stored).map_err(Error::kv)?,
        }
        let live = dir.join("live");
        fs::create_dir_all(&live)?;
        let mut files: Vec<Records> = Component::ALL
            .iter()
            .map(|c| Records::new(*c, params))
            .collect();
        let (checkpoint, accounts_n, slots_n) = match meta.get(CHECKPOINT).map_err(Error::kv)? {
            Some(v) if v.len() == 24 => {
                let word = |i: usize| {
                    v.get(i * 8..i * 8 + 8)
                        .and_then(|b| b.try_into().ok())
                        .map_or(0, u64::from_be_bytes)
                };
                (Some(word(0)), word(1), word(2))
            }
            Some(_) => return Err(Error::Corrupt("the checkpoint record".into())),
            None => (None, 0, 0),
        };
        for c in PERSISTED {
            let count = if (c as usize) < 5 {
                accounts_n
            } else {
                slots_n
            };
            let want = count as usize * c.item_size() as usize;
            let mut bytes = Vec::new();
            if let Ok(mut f) = fs::File::open(live.join(file_name(c))) {
                f.read_to_end(&mut bytes)?;
            }
            if bytes.len() < want {
                return Err(Error::Corrupt(format!(
                    "{} holds {} bytes, the checkpoint needs {want}",
                    file_name(c),
                    bytes.len()
                )));
            }
            bytes.truncate(want);
            if let Some(f) = files.get_mut(c.index()) {
                f.load(bytes);
            }
        }
        let mut engine = Self {
            dir: dir.to_path_buf(),
            accounts: Index::new(Component::AccountKeys, params),
            slots: Index::new(Component::SlotKeys, params),
            files,
            options,
            journal,
            roots,
            meta: meta.clone(),
            tree_roots: [B256::ZERO; 10],
            archive: Archive::open(
                store.database().clone(),
                rows,
                meta,
                options.background_archive,
            )?,
            store,
            head: None,
            checkpoint,
            staged: None,
            poisoned: false,
        };
        engine.rebuild_indexes();
        engine.head = match engine.roots.last_key_value() {
            Some(g) => {
                let k = g.key().map_err(Error::kv)?;
                Some(u64::from_be_bytes(
                    k[..]
                        .try_into()
                        .map_err(|_| Error::Corrupt("a root key".into()))?,
                ))
            }
            None => None,
        };
        let first = checkpoint.map_or(0, |c| c + 1);
        if let Some(head) = engine.head {
            for n in first..=head {
                let changes = engine.journalled(n)?;
                for c in &changes {
                    engine.redo(c);
                }
            }
        }
        engine.commit_buckets();
        engine.rehash();
        if let Some(head) = engine.head {
            let want = engine.root(head)?;
            let got = hash::state(&params, &engine.tree_roots);
            if want != got {
                return Err(Error::Corrupt(format!(
                    "block {head}'s root is {want}, the files recompute {got}"
                )));
            }
            let from = engine.archive.archived().map_or(0, |a| a + 1);
            for n in from..=head {
                let rows = engine.journalled(n)?.iter().map(row).collect();
                engine.archive.push(n, rows)?;
            }
        }
        Ok(engine)
    }

    /// The parameters the LiveDB is built with.
    pub fn params(&self) -> Params {
        self.options.params
    }

    // `files` is built with one entry per component, in `Component::ALL` order, and never
    // resized: the index is always in bounds.
    #[allow(clippy::indexing_slicing)]
    fn file(&self, c: Component) -> &Records {
        &self.files[c.index()]
    }

    #[allow(clippy::indexing_slicing)]
    fn file_mut(&mut self, c: Component) -> &mut Records {
        &mut self.files[c.index()]
    }

    fn index(&self, key: &ForklessKey) -> &Index {
        match key {
            ForklessKey::Storage(..) => &self.slots,
            _ => &self.accounts,
        }
    }

    fn rebuild_indexes(&mut self) {
        for (c, is_slots) in [(Component::AccountKeys, false), (Component::SlotKeys, true)] {
            let n = self.file(c).count();
            for r in 0..n {
                let k = self.file(c).get(r).to_vec();
                if is_slots {
                    self.slots.insert(k, r);
                } else {
                    self.accounts.insert(k, r);
                }
            }
        }
    }

    fn journalled(&self, n: u64) -> Result<Vec<Change>, Error> {
        let v = self
            .journal
            .get(n.to_be_bytes())
            .map_err(Error::kv)?
            .ok_or_else(|| Error::Corrupt(format!("block {n} is missing from the journal")))?;
        v.chunks(Change::LEN)
            .map(|c| Change::decode(c).ok_or_else(|| Error::Corrupt(format!("journal {n}"))))
            .collect()
    }

    /// Applies one change to the index and the files (idempotent: redone at open).
    fn redo(&mut self, c: &Change) {
        let record_key = c.key.record_key();
        if c.new && self.index(&c.key).get(&record_key).is_none() {
            let start = hash::chain_start();
            match c.key {
                ForklessKey::Storage(..) => {
                    self.slots.insert(record_key.clone(), c.record);
                    self.file_mut(Component::SlotValue).set(c.record, &[]);
                    self.file_mut(Component::SlotChain)
                        .set(c.record, start.as_slice());
                }
                _ => {
                    self.accounts.insert(record_key.clone(), c.record);
                    for f in [Component::Balance, Component::Nonce] {
                        self.file_mut(f).set(c.record, &[]);
                    }
                    for f in [Component::BalanceChain, Component::NonceChain] {
                        self.file_mut(f).set(c.record, start.as_slice());
                    }
                }
            }
            self.file_mut(c.key.keys_component())
                .set(c.record, &record_key);
        }
        let value = c.key.value_record(&c.value).unwrap_or_default();
        self.file_mut(c.key.value_component()).set(c.record, &value);
        self.file_mut(c.key.chain_component())
            .set(c.record, c.chain.as_slice());
    }

    /// Writes the changed buckets' hashes into the bucket files.
    fn commit_buckets(&mut self) {
        for (ix, c) in [
            (false, Component::AccountBuckets),
            (true, Component::SlotBuckets),
        ] {
            let index = if ix {
                &mut self.slots
            } else {
                &mut self.accounts
            };
            let dirty = index.take_dirty();
            let hashes: Vec<(u64, B256)> = dirty
                .into_iter()
                .map(|b| (b, index.bucket_hash(b)))
                .collect();
            for (b, h) in hashes {
                self.file_mut(c).set(b, h.as_slice());
            }
        }
    }

    fn rehash(&mut self) -> B256 {
        for (root, f) in self.tree_roots.iter_mut().zip(self.files.iter_mut()) {
            *root = f.rehash();
        }
        hash::state(&self.options.params, &self.tree_roots)
    }

    /// Flushes the pages written since the last checkpoint to the files, syncs them, and records
    /// the checkpoint; then drops the journal entries both the files and the archive cover.
    pub fn checkpoint(&mut self) -> Result<(), Error> {
        let Some(head) = self.head else {
            return Ok(());
        };
        if self.staged.is_some() || self.poisoned {
            return Err(Error::Corrupt(
                "memory holds a block that is not durable; reopen the engine".into(),
            ));
        }
        if self.checkpoint == Some(head) {
            return Ok(());
        }
        let live = self.dir.join("live");
        let page_size = self.options.params;
        for c in PERSISTED {
            let f = self.file_mut(c);
            let mut file = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(live.join(file_name(c)))?;
            let span = page_size.page_bytes(c);
            for p in std::mem::take(&mut f.unflushed) {
                let from = p as usize * span;
                let to = (from + span).min(f.bytes.len());
                if let Some(bytes) = f.bytes.get(from..to) {
                    use std::io::Seek as _;
                    file.seek(std::io::SeekFrom::Start(from as u64))?;
                    file.write_all(bytes)?;
                }
            }
            file.sync_all()?;
        }
        let mut v = Vec::with_capacity(24);
        v.extend_from_slice(&head.to_be_bytes());
        v.extend_from_slice(&self.file(Component::AccountKeys).count().to_be_bytes());
        v.extend_from_slice(&self.file(Component::SlotKeys).count().to_be_bytes());
        // The archive's rows are written unsynced: read how far they reach, then sync them,
        // before the journal entries they cover go.
        let covered = self.archive.archived().map_or(0, |a| a.min(head) + 1);
        self.store
            .database()
            .persist(PersistMode::SyncAll)
            .map_err(Error::kv)?;
        let mut batch = self
            .store
            .database()
            .batch()
            .durability(Some(PersistMode::SyncAll));
        batch.insert(&self.meta, CHECKPOINT, v);
        for g in self.journal.range(..covered.to_be_bytes()) {
            let k = g.key().map_err(Error::kv)?;
            batch.remove(&self.journal, k);
        }
        batch.commit().map_err(Error::kv)?;
        self.checkpoint = Some(head);
        Ok(())
    }

    /// Takes block `number` in memory and returns its root; nothing is durable until
    /// [`ForklessEngine::commit`]. A staged block is dropped by reopening the engine (the files
    /// never see it: checkpoints wait for the commit).
    pub fn stage(&mut self, number: u64, writes: &[Write]) -> Result<B256, Error> {
        if self.staged.is_some() || self.poisoned {
            return Err(Error::Corrupt(
                "a block is staged, or a commit failed; reopen the engine".into(),
            ));
        }
        let expected = self.head.map_or(0, |h| h + 1);
        if number != expected {
            return Err(Error::NotNext {
                expected,
                got: number,
            });
        }
        // The block's last write of each key, in the order keys first appear (record numbers
        // are handed out in that order, the same on every node).
        let mut order: Vec<(ForklessKey, Word)> = Vec::new();
        let mut at: HashMap<ForklessKey, usize> = HashMap::new();
        for (k, v) in writes {
            let k = forkless_key(k);
            if k.value_record(v).is_none() {
                return Err(Error::NonceTooLarge { block: number });
            }
            match at.get(&k) {
                Some(&i) => {
                    if let Some(slot) = order.get_mut(i) {
                        slot.1 = *v;
                    }
                }
                None => {
                    at.insert(k, order.len());
                    order.push((k, *v));
                }
            }
        }
        let mut changes = Vec::with_capacity(order.len());
        for (key, value) in order {
            let record_key = key.record_key();
            let index = self.index(&key);
            let (record, new) = match index.get(&record_key) {
                Some(r) => (r, false),
                None => (index.len(), true),
            };
            let previous = if new {
                hash::chain_start()
            } else {
                B256::from_slice(self.file(key.chain_component()).get(record))
            };
            let chain = hash::link(
                &key,
                &Link {
                    block: number,
                    value,
                },
                &previous,
            );
            let c = Change {
                key,
                record,
                new,
                value,
                chain,
            };
            self.redo(&c);
            changes.push(c);
        }
        self.commit_buckets();
        let root = self.rehash();
        self.staged = Some((number, changes, root));
        Ok(root)
    }

    /// Makes the staged block durable: its changes and root go to the journal in one synced
    /// batch, its rows to the archive writer; then, every `checkpoint_every` blocks, the files
    /// are flushed.
    pub fn commit(&mut self) -> Result<(), Error> {
        let Some((number, changes, root)) = self.staged.take() else {
            return Err(Error::Corrupt("no block is staged".into()));
        };
        let mut entry = Vec::with_capacity(changes.len() * Change::LEN);
        for c in &changes {
            c.encode(&mut entry);
        }
        let mut batch = self
            .store
            .database()
            .batch()
            .durability(Some(PersistMode::SyncAll));
        batch.insert(&self.journal, number.to_be_bytes(), entry);
        batch.insert(&self.roots, number.to_be_bytes(), root.as_slice());
        if let Err(e) = batch.commit() {
            // The in-memory state holds the block: nothing may flush it now.
            self.poisoned = true;
            return Err(Error::kv(e));
        }
        self.head = Some(number);
        self.archive
            .push(number, changes.iter().map(row).collect())?;
        if self.checkpoint.map_or(number + 1, |c| number - c) >= self.options.checkpoint_every {
            self.checkpoint()?;
        }
        Ok(())
    }

    /// A proof of `key`'s value in the head state, against the head's root.
    pub fn prove_value(&self, key: &ForklessKey) -> Result<Proof, Error> {
        let (located, record) = self.locate(key);
        let value = record.map(|r| self.file(key.value_component()).open(r));
        Ok(self.proof(key, located, Claim::Value(value)))
    }

    /// A proof of `key`'s complete history over `lo..=hi` against the head's root: the key's
    /// chain head in the LiveDB and the chain's links back to the change in force at `lo`.
    pub fn prove_history(&self, key: &ForklessKey, lo: u64, hi: u64) -> Result<Proof, Error> {
        let head = self.head.ok_or(Error::NoBlock(hi))?;
        if hi > head {
            return Err(Error::NoBlock(hi));
        }
        let (located, record) = self.locate(key);
        let chain = match record {
            None => None,
            Some(r) => {
                self.archive.wait(head)?;
                let rows = self.archive.back_to(&row_key(key, r), lo)?;
                // Newest first: the changes down to the one in force at `lo`, then older ones
                // down to the nearest that keeps its chain value. The links start at the one in
                // force at `lo`; the base is the chain value after the change before it, folded
                // forward from that nearest kept value.
                let inforce = rows.iter().position(|o| o.block <= lo);
                let (links, base) = match inforce {
                    Some(i) if i + 1 < rows.len() => {
                        let older = rows.get(i + 1..).unwrap_or_default();
                        let (last, rest) = older
                            .split_last()
                            .ok_or_else(|| Error::Corrupt("an archive row".into()))?;
                        let kept = last.chain.ok_or_else(|| {
                            Error::Corrupt(format!(
                                "{key:?}: no chain value kept at block {}",
                                last.block
                            ))
                        })?;
                        let base = rest.iter().rev().fold(kept, |c, o| {
                            hash::link(
                                key,
                                &Link {
                                    block: o.block,
                                    value: o.value,
                                },
                                &c,
                            )
                        });
                        (rows.get(..=i).unwrap_or_default(), Some(base))
                    }
                    _ => (&rows[..], None),
                };
                let links = links
                    .iter()
                    .rev()
                    .map(|o| Link {
                        block: o.block,
                        value: o.value,
                    })
                    .collect();
                Some((
                    self.file(key.chain_component()).open(r),
                    Chain { base, links },
                ))
            }
        };
        Ok(self.proof(key, located, Claim::History { lo, hi, chain }))
    }

    /// The bucket `key` falls in and its opening in the bucket file, whether or not the key
    /// has a record (an absence proof's evidence; the inspector shows it for any key).
    pub fn bucket_of(&self, key: &ForklessKey) -> Located {
        let index = self.index(key);
        let b = index.bucket_of(&key.record_key());
        Located::Absent {
            entries: index.bucket(b),
            buckets: self.file(key.buckets_component()).open(b),
        }
    }

    fn locate(&self, key: &ForklessKey) -> (Located, Option<u64>) {
        let record_key = key.record_key();
        let index = self.index(key);
        match index.get(&record_key) {
            Some(r) => (
                Located::Present {
                    record: r,
                    keys: self.file(key.keys_component()).open(r),
                },
                Some(r),
            ),
            None => (self.bucket_of(key), None),
        }
    }

    fn proof(&self, key: &ForklessKey, located: Located, claim: Claim) -> Proof {
        Proof {
            key: *key,
            params: self.options.params,
            roots: self.tree_roots,
            located,
            claim,
        }
    }

    /// The last block whose archive rows are durable.
    pub fn archived(&self) -> Option<u64> {
        self.archive.archived()
    }

    /// Bytes of the LiveDB's files and of the archive (with its journal), apart.
    pub fn disk_split(&self) -> (u64, u64) {
        let live = lightprov_engine_api::kv::dir_size(&self.dir.join("live"));
        let archive = lightprov_engine_api::kv::dir_size(self.store.dir());
        (live, archive)
    }
}

fn file_name(c: Component) -> String {
    format!("{}.dat", c.name())
}

fn row(c: &Change) -> Row {
    Row {
        key: row_key(&c.key, c.record),
        value: c.value,
        chain: c.chain,
    }
}

/// Where the archive keeps the rows of `key`, whose LiveDB record is `record`.
fn row_key(key: &ForklessKey, record: u64) -> RowKey {
    RowKey {
        kind: key.kind(),
        record,
    }
}

impl StateEngine for ForklessEngine {
    type Proof = Proof;
    type Error = Error;

    fn apply_block(&mut self, number: u64, writes: &[Write]) -> Result<B256, Error> {
        let root = self.stage(number, writes)?;
        self.commit()?;
        Ok(root)
    }

    fn head(&self) -> Option<u64> {
        self.head
    }

    fn root(&self, block: u64) -> Result<B256, Error> {
        let v = self
            .roots
            .get(block.to_be_bytes())
            .map_err(Error::kv)?
            .ok_or(Error::NoBlock(block))?;
        B256::try_from(&v[..]).map_err(|_| Error::Corrupt(format!("block {block}'s root")))
    }

    fn get(&self, key: &Key, block: u64) -> Result<Word, Error> {
        let head = self.head.ok_or(Error::NoBlock(block))?;
        if block > head {
            return Err(Error::NoBlock(block));
        }
        let fk = forkless_key(key);
        if block == head {
            return Ok(match self.index(&fk).get(&fk.record_key()) {
                Some(r) => ForklessKey::word_of_record(self.file(fk.value_component()).get(r)),
                None => [0; 32],
            });
        }
        // A key without a record was never written: zero at every block.
        let Some(record) = self.index(&fk).get(&fk.record_key()) else {
            return Ok([0; 32]);
        };
        self.archive.wait(block)?;
        Ok(self
            .archive
            .at(&row_key(&fk, record), block)?
            .map_or([0; 32], |s| s.value))
    }

    fn prove(&self, key: &Key, block: u64) -> Result<Proof, Error> {
        self.prove_history(&forkless_key(key), block, block)
    }

    fn proof_anchor(&self, block: u64) -> u64 {
        self.head.unwrap_or(block)
    }

    fn disk_bytes(&self) -> u64 {
        lightprov_engine_api::kv::dir_size(&self.dir)
    }
}

impl Drop for ForklessEngine {
    fn drop(&mut self) {
        self.archive.close();
        // Flushes only durable blocks: with a block staged or a failed commit it refuses, and
        // the journal redoes the durable ones at the next open.
        let _ = self.checkpoint();
    }
}
