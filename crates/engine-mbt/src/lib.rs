#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod node;

use std::{
    collections::{BTreeMap, HashMap},
    path::Path,
    sync::{Arc, Mutex},
};

use alloy_primitives::B256;
use lightprov_engine_api::{
    Key, StateEngine, Write,
    kv::{BatchOp, FjallStore, KvError, KvStore},
};
use lightprov_types::{
    Word,
    mbt::{
        DiffNode, DiffProof, Entry, HistoryProof, MAX_BUCKET_ENTRIES, MAX_HISTORY_BLOCKS,
        MbtParams, MbtProof, hash,
    },
};

pub use lightprov_types::mbt;
use node::Node;

/// Nodes by hash (content-addressed, shared by every version that holds them).
const NODES: &str = "mbt_nodes";
/// Each block's root, keyed by the block number (big-endian).
const ROOTS: &str = "mbt_roots";
/// The parameters the store was created with.
const META: &str = "mbt_meta";
/// Nodes kept decoded in memory before the cache starts over.
const CACHE_NODES: usize = 1 << 18;

/// Why the engine failed.
#[derive(Debug, thiserror::Error)]
pub enum MbtEngineError {
    /// The key-value store failed.
    #[error(transparent)]
    Kv(#[from] KvError),
    /// A stored record does not decode or does not hash to its key.
    #[error("corrupt store: {0}")]
    Corrupt(String),
    /// The store was created with other parameters.
    #[error("the store's parameters are b={} m={}, not b={} m={}", .stored.bucket_bits(), .stored.fanout(), .asked.bucket_bits(), .asked.fanout())]
    ParamsDiffer {
        /// The store's.
        stored: MbtParams,
        /// The ones asked for.
        asked: MbtParams,
    },
    /// A block was applied out of order.
    #[error("block {got} applied, the next block is {expected}")]
    NotNextBlock {
        /// The head plus one.
        expected: u64,
        /// The block given.
        got: u64,
    },
    /// A block after the head was asked for.
    #[error("block {0} is not applied yet")]
    UnknownBlock(u64),
    /// A bucket holds more entries than a proof may carry: the tree needs more buckets.
    #[error("bucket {bucket} holds {entries} entries, more than a proof carries (16384)")]
    BucketTooLarge {
        /// The bucket.
        bucket: u32,
        /// Its entries.
        entries: usize,
    },
    /// A history range that is empty or longer than a proof covers.
    #[error("blocks {lo}..={hi}: a history proof covers 1 to 1024 blocks")]
    BadRange {
        /// First block.
        lo: u64,
        /// Last block.
        hi: u64,
    },
}

type Result<T> = std::result::Result<T, MbtEngineError>;

/// A Merkle Bucket Tree on fjall keeping every version: nodes are stored by hash and shared
/// between the blocks that hold them, and each block's root is kept, so any past block can be
/// read and proven.
pub struct MbtEngine {
    params: MbtParams,
    store: FjallStore,
    /// The empty subtree of every level, the root's first.
    empty: Vec<B256>,
    /// Every block's root, block 0 first.
    roots: Vec<B256>,
    cache: Mutex<HashMap<B256, Arc<Node>>>,
    /// A block taken in memory by [`MbtEngine::stage`], not yet durable.
    staged: Option<Staged>,
}

/// A staged block: its number, root and the nodes it adds.
struct Staged {
    number: u64,
    root: B256,
    fresh: Vec<(B256, Node)>,
}

impl std::fmt::Debug for MbtEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MbtEngine")
            .field("params", &self.params)
            .field("blocks", &self.roots.len())
            .finish_non_exhaustive()
    }
}

/// The changes of one block under one node: `(bucket, [(key, value)])`, by bucket.
type Changes = [(u32, Vec<(B256, Word)>)];

impl MbtEngine {
    /// Opens (creating if needed) the engine in `dir` with `params`; a store created with other
    /// parameters is refused.
    pub fn open(dir: &Path, params: MbtParams) -> Result<Self> {
        let store = FjallStore::open(dir)?;
        match store.get(META, b"params")? {
            Some(v) => {
                let stored = match v.as_slice() {
                    [b, m] => MbtParams::new(*b, *m).ok(),
                    _ => None,
                }
                .ok_or_else(|| MbtEngineError::Corrupt("parameters record".into()))?;
                if stored != params {
                    return Err(MbtEngineError::ParamsDiffer {
                        stored,
                        asked: params,
                    });
                }
            }
            None => store.write(vec![(
                META,
                b"params".to_vec(),
                Some(vec![params.bucket_bits(), params.fanout()]),
            )])?,
        }
        let mut roots = Vec::new();
        if let Some((k, _)) = store.last_with_prefix(ROOTS, &[])? {
            let head = block_of(&k)?;
            for b in 0..=head {
                let v = store
                    .get(ROOTS, &b.to_be_bytes())?
                    .ok_or_else(|| MbtEngineError::Corrupt(format!("root of block {b} missing")))?;
                let root = <[u8; 32]>::try_from(v.as_slice())
                    .map_err(|_| MbtEngineError::Corrupt(format!("root of block {b}")))?;
                roots.push(B256::from(root));
            }
        }
        Ok(Self {
            params,
            store,
            empty: hash::empty_levels(&params),
            roots,
            cache: Mutex::new(HashMap::new()),
            staged: None,
        })
    }

    /// The tree's parameters.
    pub fn params(&self) -> MbtParams {
        self.params
    }

    /// The number of blocks applied.
    pub fn blocks(&self) -> u64 {
        self.roots.len() as u64
    }

    /// The root after block `block`.
    pub fn root_at(&self, block: u64) -> Result<B256> {
        usize::try_from(block)
            .ok()
            .and_then(|b| self.roots.get(b))
            .copied()
            .ok_or(MbtEngineError::UnknownBlock(block))
    }

    fn empty_at(&self, level: u8) -> B256 {
        self.empty
            .get(usize::from(level))
            .copied()
            .unwrap_or_default()
    }

    /// The node hashing to `h` at `level` (the empty subtrees are never stored).
    fn load(&self, h: &B256, level: u8) -> Result<Arc<Node>> {
        let depth = self.params.depth();
        if *h == self.empty_at(level) {
            return Ok(Arc::new(if level == depth {
                Node::Bucket(Vec::new())
            } else {
                Node::Inner(vec![
                    self.empty_at(level + 1);
                    usize::from(self.params.fanout())
                ])
            }));
        }
        if let Some(n) = self.cache.lock().ok().and_then(|c| c.get(h).cloned()) {
            return Ok(n);
        }
        let bytes = self
            .store
            .get(NODES, h.as_slice())?
            .ok_or_else(|| MbtEngineError::Corrupt(format!("node {h} missing")))?;
        let n = Arc::new(
            Node::decode(&self.params, &bytes, level, h)
                .map_err(|e| MbtEngineError::Corrupt(format!("node {h}: {e}")))?,
        );
        self.remember(*h, n.clone());
        Ok(n)
    }

    fn remember(&self, h: B256, n: Arc<Node>) {
        if let Ok(mut c) = self.cache.lock() {
            if c.len() >= CACHE_NODES {
                c.clear();
            }
            c.insert(h, n);
        }
    }

    /// Applies block `number`'s writes to state keys, in order (a later write to the same key
    /// wins; zero deletes), and makes the block durable — its new nodes and its root in one
    /// atomic batch — before returning its root: [`MbtEngine::stage`] then
    /// [`MbtEngine::commit`].
    pub fn apply(&mut self, number: u64, writes: &[(B256, Word)]) -> Result<B256> {
        let root = self.stage(number, writes)?;
        self.commit()?;
        Ok(root)
    }

    /// Takes block `number`'s writes in memory and returns its root; nothing reaches the store
    /// until [`MbtEngine::commit`], and reads and proofs see the blocks before it. A block
    /// staged before and not committed is dropped; a refused block leaves nothing staged.
    pub fn stage(&mut self, number: u64, writes: &[(B256, Word)]) -> Result<B256> {
        self.staged = None;
        let expected = self.blocks();
        if number != expected {
            return Err(MbtEngineError::NotNextBlock {
                expected,
                got: number,
            });
        }
        let last: BTreeMap<B256, Word> = writes.iter().copied().collect();
        let mut by_bucket: BTreeMap<u32, Vec<(B256, Word)>> = BTreeMap::new();
        for (k, v) in last {
            by_bucket
                .entry(self.params.bucket_of(&k))
                .or_default()
                .push((k, v));
        }
        let changes: Vec<(u32, Vec<(B256, Word)>)> = by_bucket.into_iter().collect();
        let old = match self.roots.last() {
            Some(r) => *r,
            None => self.empty_at(0),
        };
        let mut fresh = Vec::new();
        let root = self.update(&old, 0, 0, &changes, &mut fresh)?;
        self.staged = Some(Staged {
            number,
            root,
            fresh,
        });
        Ok(root)
    }

    /// Makes the staged block durable: its new nodes and its root in one atomic batch. Without
    /// a staged block, nothing to do. On failure the block is dropped (stage it again).
    pub fn commit(&mut self) -> Result<()> {
        let Some(Staged {
            number,
            root,
            fresh,
        }) = self.staged.take()
        else {
            return Ok(());
        };
        let mut batch: Vec<BatchOp> = fresh
            .iter()
            .map(|(h, n)| (NODES, h.to_vec(), Some(n.encode())))
            .collect();
        batch.push((ROOTS, number.to_be_bytes().to_vec(), Some(root.to_vec())));
        self.store.write(batch)?;
        for (h, n) in fresh {
            self.remember(h, Arc::new(n));
        }
        self.roots.push(root);
        Ok(())
    }

    /// Drops the staged block, if any.
    pub fn discard(&mut self) {
        self.staged = None;
    }

    /// The new hash of the node `old` (node `index` of `level`) after `changes`, which all fall
    /// under it; new nodes are pushed to `fresh`.
    fn update(
        &self,
        old: &B256,
        level: u8,
        index: u64,
        changes: &Changes,
        fresh: &mut Vec<(B256, Node)>,
    ) -> Result<B256> {
        let p = &self.params;
        let node = self.load(old, level)?;
        let new = match (&*node, changes) {
            (Node::Bucket(entries), [(bucket, writes)]) => {
                let mut entries = entries.clone();
                for (k, v) in writes {
                    match (entries.binary_search_by(|e| e.key.cmp(k)), *v == [0; 32]) {
                        (Ok(i), true) => {
                            entries.remove(i);
                        }
                        (Ok(i), false) => {
                            if let Some(e) = entries.get_mut(i) {
                                e.value = *v;
                            }
                        }
                        (Err(_), true) => {}
                        (Err(i), false) => entries.insert(i, Entry { key: *k, value: *v }),
                    }
                }
                let h = hash::bucket(p, *bucket, &entries);
                // A node already stored (the writes changed nothing) is not written again.
                if h != *old && !entries.is_empty() {
                    fresh.push((h, Node::Bucket(entries)));
                }
                h
            }
            (Node::Inner(children), _) => {
                let mut children = children.clone();
                let mut rest = changes;
                while let Some((first, _)) = rest.first() {
                    let slot = p.slot(*first, level);
                    let n = rest
                        .iter()
                        .take_while(|(b, _)| p.slot(*b, level) == slot)
                        .count();
                    let (here, after) = rest.split_at(n);
                    let child_index = index * u64::from(p.fanout()) + slot as u64;
                    let child = children.get(slot).copied().unwrap_or_default();
                    let h = self.update(&child, level + 1, child_index, here, fresh)?;
                    if let Some(c) = children.get_mut(slot) {
                        *c = h;
                    }
                    rest = after;
                }
                let h = hash::inner(p, level, children.iter());
                if h != *old && h != self.empty_at(level) {
                    fresh.push((h, Node::Inner(children)));
                }
                h
            }
            (Node::Bucket(_), _) => {
                return Err(MbtEngineError::Corrupt(format!(
                    "bucket {index} reached with the writes of {} buckets",
                    changes.len()
                )));
            }
        };
        Ok(new)
    }

    /// The nodes on the path to `bucket` in block `block`'s tree, the root's first, then the
    /// bucket's entries.
    fn path(&self, bucket: u32, block: u64) -> Result<(Vec<Arc<Node>>, Arc<Node>)> {
        let mut h = self.root_at(block)?;
        let mut inner = Vec::with_capacity(usize::from(self.params.depth()));
        for l in 0..self.params.depth() {
            let n = self.load(&h, l)?;
            h = n.child(self.params.slot(bucket, l))?;
            inner.push(n);
        }
        Ok((inner, self.load(&h, self.params.depth())?))
    }

    /// The value of state key `key` after block `block` (zero if absent).
    pub fn get_at(&self, key: &B256, block: u64) -> Result<Word> {
        let (_, bucket) = self.path(self.params.bucket_of(key), block)?;
        Ok(bucket.lookup(key).unwrap_or([0; 32]))
    }

    /// A proof of the value (or absence) of state key `key` after block `block`, against
    /// [`MbtEngine::root_at`].
    pub fn prove_at(&self, key: &B256, block: u64) -> Result<MbtProof> {
        let bucket = self.params.bucket_of(key);
        let (inner, leaf) = self.path(bucket, block)?;
        let levels = inner
            .iter()
            .zip(0u8..)
            .map(|(n, l)| {
                let mut siblings = n.children()?.to_vec();
                let slot = self.params.slot(bucket, l);
                if slot < siblings.len() {
                    siblings.remove(slot);
                }
                Ok(siblings)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(MbtProof {
            params: self.params,
            key: *key,
            entries: self.checked_entries(bucket, &leaf)?.to_vec(),
            levels,
        })
    }

    fn checked_entries<'a>(&self, bucket: u32, n: &'a Node) -> Result<&'a [Entry]> {
        let entries = n.entries()?;
        if entries.len() > MAX_BUCKET_ENTRIES as usize {
            return Err(MbtEngineError::BucketTooLarge {
                bucket,
                entries: entries.len(),
            });
        }
        Ok(entries)
    }

    /// A proof of every change between blocks `from` and `to` (either order: the proof's old
    /// tree is `from`'s).
    pub fn prove_diff(&self, from: u64, to: u64) -> Result<DiffProof> {
        let (a, b) = (self.root_at(from)?, self.root_at(to)?);
        Ok(DiffProof {
            params: self.params,
            root: self.diff_node(&a, &b, 0, 0)?,
        })
    }

    fn diff_node(&self, a: &B256, b: &B256, level: u8, index: u64) -> Result<DiffNode> {
        if a == b {
            return Ok(DiffNode::Same(*a));
        }
        let (na, nb) = (self.load(a, level)?, self.load(b, level)?);
        if level == self.params.depth() {
            let bucket = u32::try_from(index).unwrap_or(u32::MAX);
            return Ok(DiffNode::Bucket {
                old: self.checked_entries(bucket, &na)?.to_vec(),
                new: self.checked_entries(bucket, &nb)?.to_vec(),
            });
        }
        let m = u64::from(self.params.fanout());
        na.children()?
            .iter()
            .zip(nb.children()?)
            .zip(0..)
            .map(|((x, y), j)| self.diff_node(x, y, level + 1, index * m + j))
            .collect::<Result<Vec<_>>>()
            .map(DiffNode::Inner)
    }

    /// A proof of state key `key`'s value after every block of `lo..=hi` (at most
    /// [`MAX_HISTORY_BLOCKS`]), against those blocks' roots: each block's path, every node once.
    pub fn prove_history(&self, key: &B256, lo: u64, hi: u64) -> Result<HistoryProof> {
        if hi < lo || hi - lo >= MAX_HISTORY_BLOCKS {
            return Err(MbtEngineError::BadRange { lo, hi });
        }
        let p = &self.params;
        let d = p.depth();
        let bucket = p.bucket_of(key);
        let mut levels: Vec<BTreeMap<B256, Vec<B256>>> = vec![BTreeMap::new(); usize::from(d)];
        let mut buckets: BTreeMap<B256, Vec<Entry>> = BTreeMap::new();
        for block in lo..=hi {
            let mut h = self.root_at(block)?;
            for l in 0..=d {
                if h == self.empty_at(l) {
                    break;
                }
                let n = self.load(&h, l)?;
                if l == d {
                    buckets.insert(h, self.checked_entries(bucket, &n)?.to_vec());
                    break;
                }
                if let Some(set) = levels.get_mut(usize::from(l)) {
                    set.insert(h, n.children()?.to_vec());
                }
                h = n.child(p.slot(bucket, l))?;
            }
        }
        Ok(HistoryProof {
            params: self.params,
            key: *key,
            lo,
            hi,
            levels: levels
                .into_iter()
                .map(|s| s.into_values().collect())
                .collect(),
            buckets: buckets.into_values().collect(),
        })
    }
}

impl MbtEngine {
    /// Every stored node of block `block`'s tree (empty subtrees are not stored), each once,
    /// with the bytes of its record: the page set of that version, to measure how much two
    /// versions share (the SIRI paper's deduplication and node-sharing ratios).
    pub fn nodes_at(&self, block: u64) -> Result<Vec<(B256, usize)>> {
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![(self.root_at(block)?, 0u8)];
        while let Some((h, level)) = stack.pop() {
            if h == self.empty_at(level) || !seen.insert(h) {
                continue;
            }
            let n = self.load(&h, level)?;
            out.push((h, n.encode().len()));
            if level < self.params.depth() {
                stack.extend(n.children()?.iter().map(|c| (*c, level + 1)));
            }
        }
        Ok(out)
    }
}

fn block_of(key: &[u8]) -> Result<u64> {
    <[u8; 8]>::try_from(key)
        .map(u64::from_be_bytes)
        .map_err(|_| MbtEngineError::Corrupt("root key".into()))
}

impl StateEngine for MbtEngine {
    type Proof = MbtProof;
    type Error = MbtEngineError;

    fn apply_block(&mut self, number: u64, writes: &[Write]) -> Result<B256> {
        let writes: Vec<(B256, Word)> = writes.iter().map(|(k, v)| (k.state_key(), *v)).collect();
        self.apply(number, &writes)
    }

    fn head(&self) -> Option<u64> {
        self.blocks().checked_sub(1)
    }

    fn root(&self, block: u64) -> Result<B256> {
        self.root_at(block)
    }

    fn get(&self, key: &Key, block: u64) -> Result<Word> {
        self.get_at(&key.state_key(), block)
    }

    fn prove(&self, key: &Key, block: u64) -> Result<MbtProof> {
        self.prove_at(&key.state_key(), block)
    }

    fn disk_bytes(&self) -> u64 {
        self.store.disk_bytes()
    }
}
