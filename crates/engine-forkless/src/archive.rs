//! The ArchiveDB (paper §4): every change of every key as a row of a fjall keyspace, keyed
//! `stateKey ‖ BE64(!block)` so that "the latest value at or before block b" is one forward
//! seek, holding the value and the key's history-chain value after the change. Rows are written
//! by a background thread (paper §4.1, Fig. 7), so block import does not wait for them; reads
//! wait until the rows they need are in.

use std::{
    sync::{Arc, Condvar, Mutex, mpsc},
    thread::JoinHandle,
};

use fjall::{Keyspace, PersistMode};
use lightprov_types::{B256, Word};

use crate::Error;

/// One archive row: a key's change at a block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    pub(crate) state_key: B256,
    pub(crate) value: Word,
    pub(crate) chain: B256,
}

/// A row read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stored {
    pub(crate) block: u64,
    pub(crate) value: Word,
    pub(crate) chain: B256,
}

pub(crate) const ARCHIVED: &[u8] = b"archived";

fn row_key(state_key: &B256, block: u64) -> [u8; 40] {
    let mut k = [0u8; 40];
    k[..32].copy_from_slice(state_key.as_slice());
    k[32..].copy_from_slice(&(!block).to_be_bytes());
    k
}

fn decode(k: &[u8], v: &[u8]) -> Option<Stored> {
    let block = !u64::from_be_bytes(k.get(32..40)?.try_into().ok()?);
    Some(Stored {
        block,
        value: v.get(..32)?.try_into().ok()?,
        chain: B256::from(<[u8; 32]>::try_from(v.get(32..64)?).ok()?),
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
}

fn write(
    db: &fjall::Database,
    rows: &Keyspace,
    meta: &Keyspace,
    block: u64,
    batch_rows: &[Row],
) -> Result<(), String> {
    let mut batch = db.batch().durability(Some(PersistMode::SyncAll));
    for r in batch_rows {
        let mut v = [0u8; 64];
        v[..32].copy_from_slice(&r.value);
        v[32..].copy_from_slice(r.chain.as_slice());
        batch.insert(rows, row_key(&r.state_key, block), v);
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
                    for (block, batch) in rx {
                        let result = write(&db, &rows, &meta, block, &batch);
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
                write(&self.db, &self.rows, &self.meta, block, &rows).map_err(Error::Archive)?;
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
    pub(crate) fn at(&self, state_key: &B256, block: u64) -> Result<Option<Stored>, Error> {
        let from = row_key(state_key, block);
        let to = row_key(state_key, 0);
        match self.rows.range(from..=to).next() {
            None => Ok(None),
            Some(g) => {
                let (k, v) = g.into_inner().map_err(Error::kv)?;
                Ok(decode(&k, &v))
            }
        }
    }

    /// The key's changes from the newest back to (and including) the first at or before
    /// `lo`, and the one before that if any; newest first.
    pub(crate) fn back_to(&self, state_key: &B256, lo: u64) -> Result<Vec<Stored>, Error> {
        let mut out = Vec::new();
        let mut reached = false;
        for g in self.rows.prefix(state_key.as_slice()) {
            let (k, v) = g.into_inner().map_err(Error::kv)?;
            let row = decode(&k, &v).ok_or_else(|| Error::Corrupt("an archive row".into()))?;
            out.push(row);
            if reached {
                break;
            }
            reached = row.block <= lo;
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
