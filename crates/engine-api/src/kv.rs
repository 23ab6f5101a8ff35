//! The key-value store engines persist on, behind a small trait so another store can be
//! measured against the default ([`FjallStore`], an LSM tree).

#[cfg(feature = "redb")]
use redb::ReadableDatabase;
use std::path::Path;
#[cfg(feature = "fjall")]
use std::{collections::HashMap, path::PathBuf, sync::Mutex};

/// A store failure.
#[derive(Debug, thiserror::Error)]
#[error("key-value store: {0}")]
pub struct KvError(pub String);

/// One write of a batch: `(keyspace, key, Some(value))` to set, `None` to delete.
pub type BatchOp = (&'static str, Vec<u8>, Option<Vec<u8>>);

/// A key and its value.
pub type KeyValue = (Vec<u8>, Vec<u8>);

/// An embedded, ordered key-value store with named keyspaces and atomic, durable batches.
pub trait KvStore: Send + Sync + 'static {
    /// Reads a value.
    fn get(&self, space: &'static str, key: &[u8]) -> Result<Option<Vec<u8>>, KvError>;

    /// Writes all of `ops` atomically; when it returns, the batch survives a crash (fsync).
    fn write(&self, ops: Vec<BatchOp>) -> Result<(), KvError>;

    /// The last key in `space` that starts with `prefix`, and its value.
    fn last_with_prefix(
        &self,
        space: &'static str,
        prefix: &[u8],
    ) -> Result<Option<KeyValue>, KvError>;

    /// Bytes on disk.
    fn disk_bytes(&self) -> u64;
}

#[cfg(feature = "fjall")]
/// [`KvStore`] on fjall: each keyspace is an LSM tree; batches are journaled and synced.
pub struct FjallStore {
    db: fjall::Database,
    dir: PathBuf,
    spaces: Mutex<HashMap<&'static str, fjall::Keyspace>>,
}

#[cfg(feature = "fjall")]
impl std::fmt::Debug for FjallStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FjallStore")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

#[cfg(any(feature = "fjall", feature = "redb"))]
fn err(e: impl std::fmt::Display) -> KvError {
    KvError(e.to_string())
}

#[cfg(feature = "fjall")]
impl FjallStore {
    /// Opens (creating if needed) the store in `dir`.
    pub fn open(dir: &Path) -> Result<Self, KvError> {
        std::fs::create_dir_all(dir).map_err(err)?;
        let db = fjall::Database::builder(dir).open().map_err(err)?;
        Ok(Self {
            db,
            dir: dir.to_path_buf(),
            spaces: Mutex::new(HashMap::new()),
        })
    }

    fn space(&self, name: &'static str) -> Result<fjall::Keyspace, KvError> {
        self.keyspace_with(name, fjall::KeyspaceCreateOptions::default)
    }

    /// The keyspace `name`, opened with `options` the first time this store opens it (a
    /// store that lays out its own keyspaces calls this before it writes through [`KvStore`]):
    /// for what the store's batches cannot do, such as bulk ingestion.
    pub fn keyspace_with(
        &self,
        name: &'static str,
        options: impl FnOnce() -> fjall::KeyspaceCreateOptions,
    ) -> Result<fjall::Keyspace, KvError> {
        let mut spaces = self
            .spaces
            .lock()
            .map_err(|_| KvError("keyspace table poisoned".into()))?;
        if let Some(k) = spaces.get(name) {
            return Ok(k.clone());
        }
        let k = self.db.keyspace(name, options).map_err(err)?;
        spaces.insert(name, k.clone());
        Ok(k)
    }

    /// The directory the store lives in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The fjall database (its statistics: flushes and compactions in flight).
    pub fn database(&self) -> &fjall::Database {
        &self.db
    }
}

#[cfg(feature = "fjall")]
impl KvStore for FjallStore {
    fn get(&self, space: &'static str, key: &[u8]) -> Result<Option<Vec<u8>>, KvError> {
        Ok(self
            .space(space)?
            .get(key)
            .map_err(err)?
            .map(|v| v.to_vec()))
    }

    fn write(&self, ops: Vec<BatchOp>) -> Result<(), KvError> {
        let mut batch = self
            .db
            .batch()
            .durability(Some(fjall::PersistMode::SyncAll));
        for (space, key, value) in ops {
            let ks = self.space(space)?;
            match value {
                Some(v) => batch.insert(&ks, key, v),
                None => batch.remove(&ks, key),
            }
        }
        batch.commit().map_err(err)
    }

    fn last_with_prefix(
        &self,
        space: &'static str,
        prefix: &[u8],
    ) -> Result<Option<KeyValue>, KvError> {
        let ks = self.space(space)?;
        match ks.prefix(prefix).next_back() {
            None => Ok(None),
            Some(guard) => {
                let (k, v) = guard.into_inner().map_err(err)?;
                Ok(Some((k.to_vec(), v.to_vec())))
            }
        }
    }

    fn disk_bytes(&self) -> u64 {
        dir_size(&self.dir)
    }
}

#[cfg(feature = "redb")]
/// [`KvStore`] on redb: a copy-on-write B-tree in one file; each batch is one durable write
/// transaction. The alternative to measure [`FjallStore`] against.
pub struct RedbStore {
    db: redb::Database,
    dir: PathBuf,
}

#[cfg(feature = "redb")]
impl std::fmt::Debug for RedbStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedbStore")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "redb")]
fn table(name: &'static str) -> redb::TableDefinition<'static, &'static [u8], &'static [u8]> {
    redb::TableDefinition::new(name)
}

#[cfg(feature = "redb")]
impl RedbStore {
    /// Opens (creating if needed) the store in `dir` (file `store.redb`).
    pub fn open(dir: &Path) -> Result<Self, KvError> {
        std::fs::create_dir_all(dir).map_err(err)?;
        let db = redb::Database::create(dir.join("store.redb")).map_err(err)?;
        Ok(Self {
            db,
            dir: dir.to_path_buf(),
        })
    }
}

#[cfg(feature = "redb")]
/// A redb table of byte keys and values, read-only.
type RedbTable = redb::ReadOnlyTable<&'static [u8], &'static [u8]>;

#[cfg(feature = "redb")]
impl RedbStore {
    /// `space` in a fresh read transaction; `None` if nothing was ever written to it.
    fn read_table(&self, space: &'static str) -> Result<Option<RedbTable>, KvError> {
        let txn = self.db.begin_read().map_err(err)?;
        match txn.open_table(table(space)) {
            Ok(t) => Ok(Some(t)),
            Err(redb::TableError::TableDoesNotExist(_)) => Ok(None),
            Err(e) => Err(err(e)),
        }
    }
}

#[cfg(feature = "redb")]
impl KvStore for RedbStore {
    fn get(&self, space: &'static str, key: &[u8]) -> Result<Option<Vec<u8>>, KvError> {
        let Some(t) = self.read_table(space)? else {
            return Ok(None);
        };
        Ok(t.get(key).map_err(err)?.map(|v| v.value().to_vec()))
    }

    fn write(&self, ops: Vec<BatchOp>) -> Result<(), KvError> {
        let txn = self.db.begin_write().map_err(err)?;
        for (space, key, value) in ops {
            let mut t = txn.open_table(table(space)).map_err(err)?;
            match value {
                Some(v) => {
                    t.insert(key.as_slice(), v.as_slice()).map_err(err)?;
                }
                None => {
                    t.remove(key.as_slice()).map_err(err)?;
                }
            }
        }
        txn.commit().map_err(err)
    }

    fn last_with_prefix(
        &self,
        space: &'static str,
        prefix: &[u8],
    ) -> Result<Option<KeyValue>, KvError> {
        let Some(t) = self.read_table(space)? else {
            return Ok(None);
        };
        // Keys with the prefix are contiguous from `prefix` on; keep the last of them.
        let mut last = None;
        for entry in t.range::<&[u8]>(prefix..).map_err(err)? {
            let (k, v) = entry.map_err(err)?;
            if !k.value().starts_with(prefix) {
                break;
            }
            last = Some((k.value().to_vec(), v.value().to_vec()));
        }
        Ok(last)
    }

    fn disk_bytes(&self) -> u64 {
        dir_size(&self.dir)
    }
}

/// Bytes the files under `dir` occupy on disk (allocated blocks, as `du` counts them: fjall
/// preallocates its journal as a sparse file, whose length says nothing).
pub fn dir_size(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => dir_size(&e.path()),
            Ok(m) => allocated(&m),
            Err(_) => 0,
        })
        .sum()
}

#[cfg(unix)]
fn allocated(m: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.blocks() * 512
}

#[cfg(not(unix))]
fn allocated(m: &std::fs::Metadata) -> u64 {
    m.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "fjall")]
    #[test]
    fn fjall_batches_are_atomic_and_survive_reopen() {
        check_store(FjallStore::open);
    }

    #[cfg(feature = "redb")]
    #[test]
    fn redb_batches_are_atomic_and_survive_reopen() {
        check_store(RedbStore::open);
    }

    #[allow(dead_code)] // without a store feature there is nothing to check
    fn check_store<S: KvStore>(open: fn(&Path) -> Result<S, KvError>) {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(open(dir.path()).unwrap().get("never", b"k").unwrap(), None);
        {
            let s = open(dir.path()).unwrap();
            s.write(vec![
                ("a", b"k1".to_vec(), Some(b"v1".to_vec())),
                ("b", b"k2".to_vec(), Some(b"v2".to_vec())),
            ])
            .unwrap();
            s.write(vec![("a", b"k1".to_vec(), None)]).unwrap();
        }
        let s = open(dir.path()).unwrap();
        assert_eq!(s.get("a", b"k1").unwrap(), None);
        assert_eq!(s.get("b", b"k2").unwrap(), Some(b"v2".to_vec()));
        s.write(vec![
            ("r", vec![1, 0, 1], Some(vec![1])),
            ("r", vec![1, 0, 2], Some(vec![2])),
            ("r", vec![2], Some(vec![3])),
        ])
        .unwrap();
        assert_eq!(
            s.last_with_prefix("r", &[1]).unwrap(),
            Some((vec![1, 0, 2], vec![2]))
        );
        assert!(s.disk_bytes() > 0);
    }
}
