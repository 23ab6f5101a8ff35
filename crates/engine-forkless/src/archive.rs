//! The ArchiveDB (paper §4): every change of every key as a row of a fjall keyspace, keyed
//! `kind(u8) ‖ BE64(record) ‖ BE64(!block)` — the key by its LiveDB record number (stable: a key
//! keeps its record for good), not its 32-byte state key — so that "the latest value at or
//! before block b" is one forward seek. A row holds the value, and the key's history-chain
//! value after the change on one row in [`CHAIN_EVERY`] of the key's (its first, then each
//! `CHAIN_EVERY`-th): a proof's base is the chain value before its range, folded forward from
//! the nearest row that holds one, at most `CHAIN_EVERY − 1` links. Rows are written by a
//! background thread (paper §4.1, Fig. 7), so block import does not wait for them; reads wait
//! until the rows they need are in.

use std::{
    collections::HashMap,
    sync::{Arc, Condvar, Mutex, mpsc},
    thread::JoinHandle,
};

use fjall::Keyspace;
use lightprov_types::{B256, Word};

use crate::Error;

/// One row in this many of a key's holds its chain value.
pub(crate) const CHAIN_EVERY: u32 = 16;

/// Where a key's rows are: its kind (balance, nonce, storage) and LiveDB record number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct RowKey {
    pub(crate) kind: u8,
    pub(crate) record: u64,
}

impl RowKey {
    fn prefix(&self) -> [u8; 9] {
        let mut k = [0u8; 9];
        k[0] = self.kind;
        k[1..].copy_from_slice(&self.record.to_be_bytes());
        k
    }

    fn at(&self, block: u64) -> [u8; 17] {
        let mut k = [0u8; 17];
        k[..9].copy_from_slice(&self.prefix());
        k[9..].copy_from_slice(&(!block).to_be_bytes());
        k
    }
}

/// One archive row: a key's change at a block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    pub(crate) key: RowKey,
    pub(crate) value: Word,
    pub(crate) chain: B256,
}

/// A row read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stored {
    pub(crate) block: u64,
    pub(crate) value: Word,
    /// The chain value after this change, on the rows that keep it.
    pub(crate) chain: Option<B256>,
}

pub(crate) const ARCHIVED: &[u8] = b"archived";

fn decode(k: &[u8], v: &[u8]) -> Option<Stored> {
    let block = !u64::from_be_bytes(k.get(9..17)?.try_into().ok()?);
    let chain = match v.len() {
        32 => None,
        64 => Some(B256::from(<[u8; 32]>::try_from(v.get(32..64)?).ok()?)),
        _ => return None,
    };
    Some(Stored {
        block,
        value: v.get(..32)?.try_into().ok()?,
        chain,
    })
}

#[derive(Debug, Default)]
struct State {
    archived: Option<u64>,
    failed: Option<String>,
}

#[derive(Debug, Default)]
struct Progress {
    state: Mutex<State>,
    changed: Condvar,
}

/// The archive and its writer.
pub(crate) struct Archive {
    db: fjall::Database,
    rows: Keyspace,
    meta: Keyspace,
    progress: Arc<Progress>,
    tx: Option<mpsc::Sender<(u64, Vec<Row>)>>,
    worker: Option<JoinHandle<()>>,
    /// The inline writer's [`Since`] (the background writer keeps its own).
    since: Mutex<Since>,
}

/// Rows written since each key's last row with a chain value (filled from the keyspace the first
/// time a key is seen): the writer's own state.
type Since = HashMap<RowKey, u32>;

/// How many of `key`'s newest rows have no chain value (up to [`CHAIN_EVERY`]); `CHAIN_EVERY`
/// for a key without rows, so that its first row keeps one.
fn rows_since_chain(rows: &Keyspace, key: &RowKey) -> Result<u32, String> {
    for (n, g) in (0..CHAIN_EVERY).zip(rows.prefix(key.prefix())) {
        let (_, v) = g.into_inner().map_err(|e| e.to_string())?;
        if v.len() == 64 {
            return Ok(n);
        }
    }
    Ok(CHAIN_EVERY)
}

fn write(
    db: &fjall::Database,
    rows: &Keyspace,
    meta: &Keyspace,
    since: &mut Since,
    block: u64,
    batch_rows: &[Row],
) -> Result<(), String> {
    // Not synced: the journal keeps a block's changes until a checkpoint has synced the archive
    // (`ForklessEngine::checkpoint`), so rows lost with the process are written again at open.
    let mut batch = db.batch().durability(None);
    for r in batch_rows {
        let n = match since.get(&r.key) {
            Some(n) => *n,
            None => rows_since_chain(rows, &r.key)?,
        };
        let mut v = [0u8; 64];
        v[..32].copy_from_slice(&r.value);
        if n + 1 >= CHAIN_EVERY {
            v[32..].copy_from_slice(r.chain.as_slice());
            batch.insert(rows, r.key.at(block), v);
            since.insert(r.key, 0);
        } else {
            batch.insert(rows, r.key.at(block), &v[..32]);
            since.insert(r.key, n + 1);
        }
    }
    batch.insert(meta, ARCHIVED, block.to_be_bytes());
    batch.commit().map_err(|e| e.to_string())
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("archived", &self.archived())
            .finish_non_exhaustive()
    }
}

impl Archive {
    /// Opens the archive over `rows` (and its progress in `meta`); with `background`, rows are
    /// written by a thread of their own, else in [`Archive::push`] itself.
    pub(crate) fn open(
        db: fjall::Database,
        rows: Keyspace,
        meta: Keyspace,
        background: bool,
    ) -> Result<Self, Error> {
        let archived = meta
            .get(ARCHIVED)
            .map_err(Error::kv)?
            .and_then(|v| <[u8; 8]>::try_from(&v[..]).ok())
            .map(u64::from_be_bytes);
        let progress = Arc::new(Progress {
            state: Mutex::new(State {
                archived,
                failed: None,
            }),
            changed: Condvar::new(),
        });
        let (tx, worker) = if background {
            let (tx, rx) = mpsc::channel::<(u64, Vec<Row>)>();
            let (db, rows, meta, progress) =
                (db.clone(), rows.clone(), meta.clone(), progress.clone());
            let worker = std::thread::Builder::new()
                .name("forkless-archive".into())
                .spawn(move || {
                    let mut since = Since::new();
                    for (block, batch) in rx {
                        let result = write(&db, &rows, &meta, &mut since, block, &batch);
                        let mut s = match progress.state.lock() {
                            Ok(s) => s,
                            Err(p) => p.into_inner(),
                        };
                        match result {
                            Ok(()) => s.archived = Some(block),
                            Err(e) => {
                                s.failed = Some(e);
                                progress.changed.notify_all();
                                return;
                            }
                        }
                        progress.changed.notify_all();
                    }
                })
                .map_err(Error::Io)?;
            (Some(tx), Some(worker))
        } else {
            (None, None)
        };
        Ok(Self {
            db,
            rows,
            meta,
            progress,
            tx,
            worker,
            since: Mutex::new(Since::new()),
        })
    }

    /// The last block whose rows are durable.
    pub(crate) fn archived(&self) -> Option<u64> {
        self.lock().archived
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        match self.progress.state.lock() {
            Ok(s) => s,
            Err(p) => p.into_inner(),
        }
    }

    /// Queues (or, without a background writer, writes) block `block`'s rows.
    pub(crate) fn push(&self, block: u64, rows: Vec<Row>) -> Result<(), Error> {
        match &self.tx {
            Some(tx) => tx
                .send((block, rows))
                .map_err(|_| Error::Archive("the archive writer stopped".into())),
            None => {
                let mut since = match self.since.lock() {
                    Ok(s) => s,
                    Err(p) => p.into_inner(),
                };
                write(&self.db, &self.rows, &self.meta, &mut since, block, &rows)
                    .map_err(Error::Archive)?;
                self.lock().archived = Some(block);
                Ok(())
            }
        }
    }

    /// Waits until the rows of every block up to `block` are written.
    pub(crate) fn wait(&self, block: u64) -> Result<(), Error> {
        let mut s = self.lock();
        loop {
            if let Some(e) = &s.failed {
                return Err(Error::Archive(e.clone()));
            }
            if s.archived.is_some_and(|a| a >= block) {
                return Ok(());
            }
            s = match self.progress.changed.wait(s) {
                Ok(s) => s,
                Err(p) => p.into_inner(),
            };
        }
    }

    /// The row in force at `block`: the latest change at or before it.
    pub(crate) fn at(&self, key: &RowKey, block: u64) -> Result<Option<Stored>, Error> {
        match self.rows.range(key.at(block)..=key.at(0)).next() {
            None => Ok(None),
            Some(g) => {
                let (k, v) = g.into_inner().map_err(Error::kv)?;
                Ok(decode(&k, &v))
            }
        }
    }

    /// The key's changes from the newest back to (and including) the first at or before
    /// `lo`, then older ones down to the first that holds its chain value (at most
    /// [`CHAIN_EVERY`] more), or to the key's first; newest first.
    pub(crate) fn back_to(&self, key: &RowKey, lo: u64) -> Result<Vec<Stored>, Error> {
        let mut out = Vec::new();
        let mut reached = false;
        for g in self.rows.prefix(key.prefix()) {
            let (k, v) = g.into_inner().map_err(Error::kv)?;
            let row = decode(&k, &v).ok_or_else(|| Error::Corrupt("an archive row".into()))?;
            let before = reached;
            reached = reached || row.block <= lo;
            out.push(row);
            if before && row.chain.is_some() {
                break;
            }
        }
        Ok(out)
    }

    /// Stops the writer after the rows queued so far.
    pub(crate) fn close(&mut self) {
        self.tx = None;
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

impl Drop for Archive {
    fn drop(&mut self) {
        self.close();
    }
}
