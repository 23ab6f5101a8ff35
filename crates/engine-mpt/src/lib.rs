#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
    sync::{Arc, RwLock},
};

use alloy_primitives::{Address, B256};
use alloy_rlp::{Decodable, Encodable, Header};
use eth_trie::{EthTrie, Trie, TrieError};
use lightprov_engine_api::{
    Key, StateEngine, Write,
    kv::{BatchOp, FjallStore, KvError, KvStore},
    u64_from_word, word_from_u64,
};
use lightprov_types::{
    EMPTY_ROOT_HASH, KECCAK_EMPTY, Word,
    mpt::{AccountProof, StorageProof},
};
use sha3::{Digest, Keccak256};

/// Keyspace of trie nodes: keccak256(node) → node RLP. Nodes are never deleted (archive).
const NODES: &str = "mpt_nodes";
/// Keyspace of state roots: block number (u64 BE) → state root.
const ROOTS: &str = "mpt_roots";

/// Why the engine failed.
#[derive(Debug, thiserror::Error)]
pub enum MptEngineError {
    /// The store failed.
    #[error(transparent)]
    Kv(#[from] KvError),
    /// The trie library failed (a missing node means a corrupt store).
    #[error("trie: {0}")]
    Trie(String),
    /// Stored data does not decode.
    #[error("corrupt store: {0}")]
    Corrupt(&'static str),
    /// Blocks must be applied in order.
    #[error("block {got} applied out of order; the next block is {expected}")]
    BlockOrder {
        /// The next block number.
        expected: u64,
        /// The number given.
        got: u64,
    },
    /// The block is beyond the head.
    #[error("unknown block {0}")]
    UnknownBlock(u64),
    /// A nonce write does not fit in 64 bits.
    #[error("nonce of {0} exceeds 64 bits")]
    NonceOverflow(Address),
}

impl From<TrieError> for MptEngineError {
    fn from(e: TrieError) -> Self {
        Self::Trie(e.to_string())
    }
}

/// The node database the trie library reads and writes: reads fall through to the store;
/// writes wait in `pending` until the block is committed in one atomic batch. Removals are
/// ignored, so every past root stays readable (archive).
struct NodeDb<S: KvStore> {
    store: Arc<S>,
    pending: RwLock<HashMap<Vec<u8>, Vec<u8>>>,
}

impl<S: KvStore> std::fmt::Debug for NodeDb<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeDb").finish_non_exhaustive()
    }
}

impl<S: KvStore> eth_trie::DB for NodeDb<S> {
    type Error = KvError;

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, KvError> {
        if let Some(v) = self
            .pending
            .read()
            .map_err(|_| KvError("node cache poisoned".into()))?
            .get(key)
        {
            return Ok(Some(v.clone()));
        }
        self.store.get(NODES, key)
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> Result<(), KvError> {
        self.pending
            .write()
            .map_err(|_| KvError("node cache poisoned".into()))?
            .insert(key.to_vec(), value);
        Ok(())
    }

    fn remove(&self, _key: &[u8]) -> Result<(), KvError> {
        Ok(())
    }

    fn flush(&self) -> Result<(), KvError> {
        Ok(())
    }
}

/// An account as the state trie stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Account {
    nonce: u64,
    balance: Word,
    storage_root: B256,
    code_hash: B256,
}

impl Account {
    const EMPTY: Self = Self {
        nonce: 0,
        balance: [0; 32],
        storage_root: EMPTY_ROOT_HASH,
        code_hash: KECCAK_EMPTY,
    };

    fn rlp(&self) -> Vec<u8> {
        let balance = trimmed(&self.balance);
        let payload = self.nonce.length()
            + balance.length()
            + self.storage_root.length()
            + self.code_hash.length();
        let mut out = Vec::with_capacity(payload + 3);
        Header {
            list: true,
            payload_length: payload,
        }
        .encode(&mut out);
        self.nonce.encode(&mut out);
        balance.encode(&mut out);
        self.storage_root.encode(&mut out);
        self.code_hash.encode(&mut out);
        out
    }

    fn decode(mut buf: &[u8]) -> Result<Self, MptEngineError> {
        let bad = |_| MptEngineError::Corrupt("account RLP");
        let mut body = Header::decode_bytes(&mut buf, true).map_err(bad)?;
        let nonce = u64::decode(&mut body).map_err(bad)?;
        let balance = Header::decode_bytes(&mut body, false).map_err(bad)?;
        let storage_root = B256::decode(&mut body).map_err(bad)?;
        let code_hash = B256::decode(&mut body).map_err(bad)?;
        let mut w = [0u8; 32];
        w.get_mut(32usize.saturating_sub(balance.len())..)
            .filter(|d| d.len() == balance.len())
            .ok_or(MptEngineError::Corrupt("account balance"))?
            .copy_from_slice(balance);
        Ok(Self {
            nonce,
            balance: w,
            storage_root,
            code_hash,
        })
    }
}

fn trimmed(w: &[u8]) -> &[u8] {
    let start = w.iter().position(|&b| b != 0).unwrap_or(w.len());
    w.get(start..).unwrap_or_default()
}

fn keccak(data: &[u8]) -> B256 {
    B256::from(<[u8; 32]>::from(Keccak256::digest(data)))
}

/// The RLP of a storage word as stored: the integer without leading zeros.
fn storage_rlp(w: &Word) -> Vec<u8> {
    let mut out = Vec::with_capacity(33);
    trimmed(w).encode(&mut out);
    out
}

fn storage_word(mut rlp: &[u8]) -> Result<Word, MptEngineError> {
    let v = Header::decode_bytes(&mut rlp, false)
        .map_err(|_| MptEngineError::Corrupt("storage value RLP"))?;
    let mut w = [0u8; 32];
    w.get_mut(32usize.saturating_sub(v.len())..)
        .filter(|d| d.len() == v.len())
        .ok_or(MptEngineError::Corrupt("storage value"))?
        .copy_from_slice(v);
    Ok(w)
}

/// Changes to one account within a block.
#[derive(Default)]
struct AccountChanges {
    nonce: Option<Word>,
    balance: Option<Word>,
    code_hash: Option<B256>,
    storage: BTreeMap<B256, Word>,
}

/// An account as the state trie holds it after some block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccountState {
    /// Nonce.
    pub nonce: u64,
    /// Balance (32-byte big-endian).
    pub balance: Word,
    /// Root of its storage trie.
    pub storage_root: B256,
    /// keccak256 of its code.
    pub code_hash: B256,
}

/// Ethereum-compatible state — an account trie keyed by keccak256(address), a storage trie per
/// account keyed by keccak256(slot) — with every block's root kept, so any past block can be read
/// and proven (`eth_getProof` shape). The trie operations come from `eth_trie`; nodes live in a
/// [`KvStore`] (fjall by default) and each block is committed in one atomic, synced batch.
pub struct MptEngine<S: KvStore = FjallStore> {
    store: Arc<S>,
    db: Arc<NodeDb<S>>,
    head: Option<u64>,
}

impl<S: KvStore> std::fmt::Debug for MptEngine<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MptEngine")
            .field("head", &self.head)
            .finish_non_exhaustive()
    }
}

impl MptEngine<FjallStore> {
    /// Opens (or creates) an engine on a fjall store in `dir`.
    pub fn open_dir(dir: &Path) -> Result<Self, MptEngineError> {
        Self::open(Arc::new(FjallStore::open(dir)?))
    }
}

impl<S: KvStore> MptEngine<S> {
    /// Opens an engine on `store`, resuming at the last committed block.
    pub fn open(store: Arc<S>) -> Result<Self, MptEngineError> {
        let head = match store.last_with_prefix(ROOTS, &[])? {
            None => None,
            Some((k, _)) => {
                let b: [u8; 8] = k
                    .try_into()
                    .map_err(|_| MptEngineError::Corrupt("root key"))?;
                Some(u64::from_be_bytes(b))
            }
        };
        let db = Arc::new(NodeDb {
            store: store.clone(),
            pending: RwLock::new(HashMap::new()),
        });
        Ok(Self { store, db, head })
    }

    fn trie(&self, root: B256) -> Result<EthTrie<NodeDb<S>>, MptEngineError> {
        if root == EMPTY_ROOT_HASH {
            Ok(EthTrie::new(self.db.clone()))
        } else {
            Ok(EthTrie::from(self.db.clone(), root)?)
        }
    }

    fn account(
        trie: &EthTrie<NodeDb<S>>,
        addr: &Address,
    ) -> Result<Option<Account>, MptEngineError> {
        trie.get(keccak(addr.as_slice()).as_slice())?
            .map(|v| Account::decode(&v))
            .transpose()
    }

    fn current_root(&self) -> Result<B256, MptEngineError> {
        match self.head {
            None => Ok(EMPTY_ROOT_HASH),
            Some(h) => self.root(h),
        }
    }

    /// The account at `address` after block `block` (`None`: no account).
    pub fn account_at(
        &self,
        address: &Address,
        block: u64,
    ) -> Result<Option<AccountState>, MptEngineError> {
        let state = self.trie(self.root(block)?)?;
        Ok(Self::account(&state, address)?.map(|a| AccountState {
            nonce: a.nonce,
            balance: a.balance,
            storage_root: a.storage_root,
            code_hash: a.code_hash,
        }))
    }

    /// The value of `slot` in the storage trie whose root is `storage_root` (an account's, from
    /// [`MptEngine::account_at`]): zero if absent.
    pub fn slot_in(&self, storage_root: B256, slot: &B256) -> Result<Word, MptEngineError> {
        if storage_root == EMPTY_ROOT_HASH {
            return Ok([0; 32]);
        }
        self.trie(storage_root)?
            .get(keccak(slot.as_slice()).as_slice())?
            .map(|v| storage_word(&v))
            .transpose()
            .map(Option::unwrap_or_default)
    }

    /// The `eth_getProof` answer for `address` and `slots` after block `block`.
    pub fn account_proof(
        &self,
        address: &Address,
        slots: &[B256],
        block: u64,
    ) -> Result<AccountProof, MptEngineError> {
        let mut state = self.trie(self.root(block)?)?;
        let path = keccak(address.as_slice());
        let account_proof = state.get_proof(path.as_slice())?;
        let account = Self::account(&state, address)?;
        let a = account.unwrap_or(Account::EMPTY);
        let mut storage = self.trie(a.storage_root)?;
        let storage_proof = slots
            .iter()
            .map(|slot| {
                let k = keccak(slot.as_slice());
                let value = storage
                    .get(k.as_slice())?
                    .map(|v| storage_word(&v))
                    .transpose()?
                    .unwrap_or([0; 32]);
                Ok(StorageProof {
                    key: *slot,
                    value,
                    proof: storage.get_proof(k.as_slice())?,
                })
            })
            .collect::<Result<_, MptEngineError>>()?;
        Ok(AccountProof {
            address: *address,
            balance: a.balance,
            nonce: a.nonce,
            code_hash: a.code_hash,
            storage_hash: a.storage_root,
            account_proof,
            storage_proof,
        })
    }
}

/// A block whose state is computed but not yet written: its root, and the store writes that
/// make it durable. Commit it with [`MptEngine::commit`], together with other writes that must
/// land atomically with it (the node's block header, for instance).
#[derive(Debug)]
pub struct StagedBlock {
    /// The block number.
    pub number: u64,
    /// The state root after the block.
    pub root: B256,
    ops: Vec<BatchOp>,
}

impl<S: KvStore> MptEngine<S> {
    /// Computes block `number`'s state (see [`StateEngine::apply_block`]) without writing it.
    pub fn stage(&mut self, number: u64, writes: &[Write]) -> Result<StagedBlock, MptEngineError> {
        self.stage_with_code(number, writes, &[])
    }

    /// [`MptEngine::stage`], with the code hashes the block sets (`KECCAK_EMPTY` removes an
    /// account's code). Code is no state key of the proof families: only the account trie
    /// commits to it, and the code itself is kept by whoever ran it, by hash.
    pub fn stage_with_code(
        &mut self,
        number: u64,
        writes: &[Write],
        code_hashes: &[(Address, B256)],
    ) -> Result<StagedBlock, MptEngineError> {
        let expected = self.head.map_or(0, |h| h + 1);
        if number != expected {
            return Err(MptEngineError::BlockOrder {
                expected,
                got: number,
            });
        }
        // Nodes left by a block that failed half-way are dropped, not committed with this one.
        self.db
            .pending
            .write()
            .map_err(|_| KvError("node cache poisoned".into()))?
            .clear();
        let mut changes: BTreeMap<Address, AccountChanges> = BTreeMap::new();
        for (key, value) in writes {
            let c = changes.entry(key.address()).or_default();
            match key {
                Key::Balance(_) => c.balance = Some(*value),
                Key::Nonce(_) => c.nonce = Some(*value),
                Key::Storage(_, slot) => {
                    c.storage.insert(*slot, *value);
                }
            }
        }
        for (address, hash) in code_hashes {
            changes.entry(*address).or_default().code_hash = Some(*hash);
        }
        let mut state = self.trie(self.current_root()?)?;
        for (addr, c) in changes {
            let path = keccak(addr.as_slice());
            let mut a = Self::account(&state, &addr)?.unwrap_or(Account::EMPTY);
            if let Some(n) = c.nonce {
                a.nonce = u64_from_word(&n).ok_or(MptEngineError::NonceOverflow(addr))?;
            }
            if let Some(b) = c.balance {
                a.balance = b;
            }
            if let Some(h) = c.code_hash {
                a.code_hash = h;
            }
            if !c.storage.is_empty() {
                let mut storage = self.trie(a.storage_root)?;
                for (slot, value) in &c.storage {
                    let k = keccak(slot.as_slice());
                    if *value == [0; 32] {
                        storage.remove(k.as_slice())?;
                    } else {
                        storage.insert(k.as_slice(), &storage_rlp(value))?;
                    }
                }
                a.storage_root = storage.root_hash()?;
            }
            // EIP-161: an account with no nonce, balance, code or storage does not exist.
            if a == Account::EMPTY {
                state.remove(path.as_slice())?;
            } else {
                state.insert(path.as_slice(), &a.rlp())?;
            }
        }
        let root = state.root_hash()?;
        let pending = std::mem::take(
            &mut *self
                .db
                .pending
                .write()
                .map_err(|_| KvError("node cache poisoned".into()))?,
        );
        let mut ops: Vec<BatchOp> = pending
            .into_iter()
            .map(|(k, v)| (NODES, k, Some(v)))
            .collect();
        ops.push((ROOTS, number.to_be_bytes().to_vec(), Some(root.to_vec())));
        Ok(StagedBlock { number, root, ops })
    }

    /// Writes a staged block and `extra` in one atomic, synced batch, and moves the head.
    pub fn commit(
        &mut self,
        staged: StagedBlock,
        extra: Vec<BatchOp>,
    ) -> Result<B256, MptEngineError> {
        let expected = self.head.map_or(0, |h| h + 1);
        if staged.number != expected {
            return Err(MptEngineError::BlockOrder {
                expected,
                got: staged.number,
            });
        }
        let mut ops = staged.ops;
        ops.extend(extra);
        self.store.write(ops)?;
        self.head = Some(staged.number);
        Ok(staged.root)
    }

    /// The store the engine writes to (shared with the node's own data).
    pub fn store(&self) -> &Arc<S> {
        &self.store
    }
}

impl<S: KvStore> StateEngine for MptEngine<S> {
    type Proof = AccountProof;
    type Error = MptEngineError;

    fn apply_block(&mut self, number: u64, writes: &[Write]) -> Result<B256, MptEngineError> {
        let staged = self.stage(number, writes)?;
        self.commit(staged, Vec::new())
    }

    fn head(&self) -> Option<u64> {
        self.head
    }

    fn root(&self, block: u64) -> Result<B256, MptEngineError> {
        if self.head.is_none_or(|h| block > h) {
            return Err(MptEngineError::UnknownBlock(block));
        }
        let v = self
            .store
            .get(ROOTS, &block.to_be_bytes())?
            .ok_or(MptEngineError::Corrupt("missing root"))?;
        B256::try_from(v.as_slice()).map_err(|_| MptEngineError::Corrupt("root length"))
    }

    fn get(&self, key: &Key, block: u64) -> Result<Word, MptEngineError> {
        let state = self.trie(self.root(block)?)?;
        let a = Self::account(&state, &key.address())?.unwrap_or(Account::EMPTY);
        Ok(match key {
            Key::Balance(_) => a.balance,
            Key::Nonce(_) => word_from_u64(a.nonce),
            Key::Storage(_, slot) => {
                let storage = self.trie(a.storage_root)?;
                storage
                    .get(keccak(slot.as_slice()).as_slice())?
                    .map(|v| storage_word(&v))
                    .transpose()?
                    .unwrap_or([0; 32])
            }
        })
    }

    fn prove(&self, key: &Key, block: u64) -> Result<AccountProof, MptEngineError> {
        let slots: &[B256] = match key {
            Key::Storage(_, slot) => std::slice::from_ref(slot),
            _ => &[],
        };
        self.account_proof(&key.address(), slots, block)
    }

    fn disk_bytes(&self) -> u64 {
        self.store.disk_bytes()
    }
}

#[cfg(test)]
mod tests;
