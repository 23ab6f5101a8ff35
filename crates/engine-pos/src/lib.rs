#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod tree;

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
    pos::{
        DiffProof, HistoryProof, MAX_HISTORY_BLOCKS, MAX_LEVEL, Node, PathProof, RangeProof,
        SplitRule, prove,
    },
};
pub use tree::Meta;
use tree::UpdateError;

/// Nodes by hash: `hash(32) → node encoding`. Content-addressed, never deleted, shared by every
/// version that holds them.
const NODES: &str = "pos_nodes";
/// Roots by block: `block(u64 BE) → root(32) ‖ levels(u8) ‖ nodes per level (u64 BE each)`.
const ROOTS: &str = "pos_roots";
/// The engine's parameters: `"rule" → the split rule` (pinned at creation).
const PARAMS: &str = "pos_params";
/// Decoded nodes kept in memory (about 1 KiB each); the cache is emptied when it is full.
const CACHE_NODES: usize = 1 << 17;

/// Why the engine failed.
#[derive(Debug, thiserror::Error)]
pub enum PosEngineError {
    /// The key-value store failed.
    #[error(transparent)]
    Kv(#[from] KvError),
    /// A node a root refers to is not stored.
    #[error("node {0} is not stored")]
    MissingNode(B256),
    /// What is stored is not what this engine writes.
    #[error("corrupt store: {0}")]
    Corrupt(&'static str),
    /// A block other than the head's successor.
    #[error("block {got} applied out of order: expected {expected}")]
    BlockOrder {
        /// The block expected.
        expected: u64,
        /// The block given.
        got: u64,
    },
    /// A block the engine has not applied.
    #[error("block {0} is not applied")]
    UnknownBlock(u64),
    /// The store was created with another split rule.
    #[error("the store was created with split rule {stored:?}, not {asked:?}")]
    RuleMismatch {
        /// The store's.
        stored: SplitRule,
        /// The one asked for.
        asked: SplitRule,
    },
    /// A split rule whose nodes could hold under 2 or over 256 entries.
    #[error("split rule {0:?}: nodes of 2 to 256 entries")]
    InvalidRule(SplitRule),
    /// A block range that is empty or too long for one proof.
    #[error("block range {from}..={to}: {why}")]
    BadRange {
        /// First block.
        from: u64,
        /// Last block.
        to: u64,
        /// What is wrong.
        why: &'static str,
    },
}

impl From<UpdateError<PosEngineError>> for PosEngineError {
    fn from(e: UpdateError<PosEngineError>) -> Self {
        match e {
            UpdateError::Source(e) => e,
            UpdateError::Corrupt(why) => Self::Corrupt(why),
        }
    }
}

fn encode_rule(rule: &SplitRule) -> Vec<u8> {
    match *rule {
        SplitRule::ContentDefined { bits, min, max } => {
            let mut v = vec![0, bits];
            v.extend_from_slice(&min.to_be_bytes());
            v.extend_from_slice(&max.to_be_bytes());
            v
        }
        SplitRule::FixedSize { entries } => {
            let mut v = vec![1];
            v.extend_from_slice(&entries.to_be_bytes());
            v
        }
    }
}

fn encode_meta(m: &Meta) -> Vec<u8> {
    let mut v = Vec::with_capacity(33 + 8 * m.counts.len());
    v.extend_from_slice(m.root.as_slice());
    v.push(u8::try_from(m.counts.len()).unwrap_or(u8::MAX));
    for c in &m.counts {
        v.extend_from_slice(&c.to_be_bytes());
    }
    v
}

fn decode_meta(v: &[u8]) -> Result<Meta, PosEngineError> {
    let bad = || PosEngineError::Corrupt("root record");
    let (root, rest) = v.split_first_chunk::<32>().ok_or_else(bad)?;
    let (n, rest) = rest.split_first().ok_or_else(bad)?;
    if rest.len() != usize::from(*n) * 8 {
        return Err(bad());
    }
    let counts = rest
        .chunks_exact(8)
        .map(|c| c.try_into().map(u64::from_be_bytes).map_err(|_| bad()))
        .collect::<Result<_, _>>()?;
    Ok(Meta {
        root: B256::from(*root),
        counts,
    })
}

/// A POS-Tree over the state keys (docs/architecture.md "State keys"), one root per block, on
/// a [`KvStore`] (fjall by default). Every version's nodes are kept and shared by hash, so any
/// past block is readable and provable. See the crate docs.
pub struct PosEngine<S: KvStore = FjallStore> {
    store: Arc<S>,
    rule: SplitRule,
    head: Option<(u64, Meta)>,
    cache: Mutex<HashMap<B256, Arc<Node>>>,
}

impl<S: KvStore> std::fmt::Debug for PosEngine<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PosEngine")
            .field("rule", &self.rule)
            .field("head", &self.head)
            .finish_non_exhaustive()
    }
}

impl PosEngine<FjallStore> {
    /// Opens (or creates) an engine with the default split rule on a fjall store in `dir`.
    pub fn open_dir(dir: &Path) -> Result<Self, PosEngineError> {
        Self::open(Arc::new(FjallStore::open(dir)?), SplitRule::DEFAULT)
    }
}

/// A block whose tree is computed but not yet written: its root, and the store writes that
/// make it durable (its new nodes and its root record), to commit with [`PosEngine::commit`]
/// alone or inside a larger atomic batch.
#[derive(Debug)]
pub struct StagedBlock {
    /// The block number.
    pub number: u64,
    /// The tree after the block.
    pub meta: Meta,
    /// The new nodes and the root record.
    pub ops: Vec<BatchOp>,
}

impl<S: KvStore> PosEngine<S> {
    /// Opens an engine on `store`, resuming at the last committed block. A new store is pinned
    /// to `rule`; an existing one must have been created with it.
    pub fn open(store: Arc<S>, rule: SplitRule) -> Result<Self, PosEngineError> {
        if !rule.is_valid() {
            return Err(PosEngineError::InvalidRule(rule));
        }
        let want = encode_rule(&rule);
        match store.get(PARAMS, b"rule")? {
            Some(stored) if stored != want => {
                return Err(PosEngineError::RuleMismatch {
                    stored: decode_rule(&stored)?,
                    asked: rule,
                });
            }
            Some(_) => {}
            None => store.write(vec![(PARAMS, b"rule".to_vec(), Some(want))])?,
        }
        let head = match store.last_with_prefix(ROOTS, &[])? {
            None => None,
            Some((k, v)) => {
                let b: [u8; 8] = k
                    .try_into()
                    .map_err(|_| PosEngineError::Corrupt("root key"))?;
                Some((u64::from_be_bytes(b), decode_meta(&v)?))
            }
        };
        Ok(Self {
            store,
            rule,
            head,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The split rule the tree is cut by.
    pub const fn rule(&self) -> &SplitRule {
        &self.rule
    }

    /// The tree after block `block`: its root and nodes per level.
    pub fn meta(&self, block: u64) -> Result<Meta, PosEngineError> {
        match &self.head {
            Some((h, m)) if *h == block => Ok(m.clone()),
            Some((h, _)) if block < *h => {
                let v = self
                    .store
                    .get(ROOTS, &block.to_be_bytes())?
                    .ok_or(PosEngineError::UnknownBlock(block))?;
                decode_meta(&v)
            }
            _ => Err(PosEngineError::UnknownBlock(block)),
        }
    }

    fn head_meta(&self) -> Meta {
        self.head
            .as_ref()
            .map_or_else(Meta::empty, |(_, m)| m.clone())
    }

    /// Computes block `number`'s tree (see [`StateEngine::apply_block`]) without writing it.
    pub fn stage(&self, number: u64, writes: &[Write]) -> Result<StagedBlock, PosEngineError> {
        let expected = self.head.as_ref().map_or(0, |(h, _)| h + 1);
        if number != expected {
            return Err(PosEngineError::BlockOrder {
                expected,
                got: number,
            });
        }
        // A later write to the same key wins.
        let changes: BTreeMap<B256, Word> =
            writes.iter().map(|(k, v)| (k.state_key(), *v)).collect();
        let up = tree::update(self, &self.head_meta(), &self.rule, &changes)?;
        let mut ops: Vec<BatchOp> = up
            .nodes
            .iter()
            .map(|(h, n)| (NODES, h.to_vec(), Some(n.encode())))
            .collect();
        ops.push((
            ROOTS,
            number.to_be_bytes().to_vec(),
            Some(encode_meta(&up.meta)),
        ));
        if let Ok(mut c) = self.cache.lock() {
            if c.len() + up.nodes.len() > CACHE_NODES {
                c.clear();
            }
            c.extend(
                up.nodes
                    .into_iter()
                    .take(CACHE_NODES)
                    .map(|(h, n)| (h, Arc::new(n))),
            );
        }
        Ok(StagedBlock {
            number,
            meta: up.meta,
            ops,
        })
    }

    /// Makes a staged block durable (one atomic, synced batch) and the head.
    pub fn commit(&mut self, staged: StagedBlock) -> Result<B256, PosEngineError> {
        self.store.write(staged.ops)?;
        let root = staged.meta.root;
        self.head = Some((staged.number, staged.meta));
        Ok(root)
    }

    /// The path proof of a state key after `block`.
    pub fn prove_key(&self, key: &B256, block: u64) -> Result<PathProof, PosEngineError> {
        prove::path(self, &self.meta(block)?.root, key)
    }

    /// The range proof of `[lo, hi]` after `block`.
    pub fn prove_range(
        &self,
        lo: &B256,
        hi: &B256,
        block: u64,
    ) -> Result<RangeProof, PosEngineError> {
        prove::range(self, &self.meta(block)?.root, lo, hi)
    }

    /// The diff proof between the trees after `from` and after `to`.
    pub fn prove_diff(&self, from: u64, to: u64) -> Result<DiffProof, PosEngineError> {
        prove::diff(self, &self.meta(from)?.root, &self.meta(to)?.root)
    }

    /// The roots of `from..=to`.
    pub fn roots(&self, from: u64, to: u64) -> Result<Vec<B256>, PosEngineError> {
        if to < from || to - from >= MAX_HISTORY_BLOCKS {
            return Err(PosEngineError::BadRange {
                from,
                to,
                why: "empty, or more than 4096 blocks",
            });
        }
        (from..=to).map(|b| Ok(self.meta(b)?.root)).collect()
    }

    /// The history proof of a state key over `from..=to` (one deduplicated node set).
    pub fn prove_history(
        &self,
        key: &B256,
        from: u64,
        to: u64,
    ) -> Result<HistoryProof, PosEngineError> {
        prove::history(self, from, &self.roots(from, to)?, key)
    }
}

impl<S: KvStore> PosEngine<S> {
    /// Every node of block `block`'s tree, each once, with the bytes of its encoding: the page
    /// set of that version, to measure how much two versions share (the SIRI paper's
    /// deduplication and node-sharing ratios).
    pub fn nodes_at(&self, block: u64) -> Result<Vec<(B256, usize)>, PosEngineError> {
        use prove::NodeSource;
        let mut out = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![self.meta(block)?.root];
        while let Some(h) = stack.pop() {
            if !seen.insert(h) {
                continue;
            }
            let n = self.node(&h)?;
            out.push((h, n.encoded_len()));
            if !n.is_leaf() {
                stack.extend((0..n.entries.len()).filter_map(|i| n.child(i)));
            }
        }
        Ok(out)
    }
}

fn decode_rule(v: &[u8]) -> Result<SplitRule, PosEngineError> {
    match v {
        [0, bits, a, b, c, d] => Ok(SplitRule::ContentDefined {
            bits: *bits,
            min: u16::from_be_bytes([*a, *b]),
            max: u16::from_be_bytes([*c, *d]),
        }),
        [1, a, b] => Ok(SplitRule::FixedSize {
            entries: u16::from_be_bytes([*a, *b]),
        }),
        _ => Err(PosEngineError::Corrupt("split rule")),
    }
}

impl<S: KvStore> prove::NodeSource for PosEngine<S> {
    type Error = PosEngineError;

    fn node(&self, hash: &B256) -> Result<Node, PosEngineError> {
        self.shared_node(hash).map(Arc::unwrap_or_clone)
    }
}

impl<S: KvStore> PosEngine<S> {
    /// The node whose hash is `hash`, shared with the cache (a read walks nodes without
    /// copying them).
    fn shared_node(&self, hash: &B256) -> Result<Arc<Node>, PosEngineError> {
        // The empty tree's root is the leaf of no entries, stored or not (a chain whose first
        // blocks write nothing never wrote it).
        if *hash == lightprov_types::pos::empty_root() {
            return Ok(Arc::new(Node::leaf(Vec::new())));
        }
        if let Some(n) = self.cache.lock().ok().and_then(|c| c.get(hash).cloned()) {
            return Ok(n);
        }
        let bytes = self
            .store
            .get(NODES, hash.as_slice())?
            .ok_or(PosEngineError::MissingNode(*hash))?;
        let n = Node::decode(&bytes).map_err(|_| PosEngineError::Corrupt("node encoding"))?;
        if n.hash() != *hash {
            return Err(PosEngineError::Corrupt("node does not hash to its key"));
        }
        let n = Arc::new(n);
        if let Ok(mut c) = self.cache.lock() {
            if c.len() >= CACHE_NODES {
                c.clear();
            }
            c.insert(*hash, Arc::clone(&n));
        }
        Ok(n)
    }
}

impl<S: KvStore> StateEngine for PosEngine<S> {
    type Proof = PathProof;
    type Error = PosEngineError;

    fn apply_block(&mut self, number: u64, writes: &[Write]) -> Result<B256, PosEngineError> {
        let staged = self.stage(number, writes)?;
        self.commit(staged)
    }

    fn head(&self) -> Option<u64> {
        self.head.as_ref().map(|(h, _)| *h)
    }

    fn root(&self, block: u64) -> Result<B256, PosEngineError> {
        Ok(self.meta(block)?.root)
    }

    fn get(&self, key: &Key, block: u64) -> Result<Word, PosEngineError> {
        // The path `prove` takes, without copying its nodes.
        let k = key.state_key();
        let mut h = self.meta(block)?.root;
        for _ in 0..=MAX_LEVEL {
            let n = self.shared_node(&h)?;
            if n.is_leaf() {
                return Ok(n
                    .entries
                    .binary_search_by(|(x, _)| x.cmp(&k))
                    .ok()
                    .and_then(|i| n.entries.get(i))
                    .map_or([0; 32], |(_, v)| *v));
            }
            match n.child(n.route(&k)) {
                Some(c) => h = c,
                None => return Ok([0; 32]),
            }
        }
        Err(PosEngineError::Corrupt(
            "a path longer than the deepest level",
        ))
    }

    fn prove(&self, key: &Key, block: u64) -> Result<PathProof, PosEngineError> {
        self.prove_key(&key.state_key(), block)
    }

    fn disk_bytes(&self) -> u64 {
        self.store.disk_bytes()
    }
}

#[cfg(test)]
mod tests;
