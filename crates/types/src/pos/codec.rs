//! POS-Tree nodes and proofs on the wire: encoders, strict decoders with size caps, and the
//! node hash. The grammar is in the [module docs](super).

use alloc::{format, vec::Vec};

use sha2::{Digest, Sha256};

use crate::{
    B256, DecodeError, Word,
    codec::{Reader, SpanSink, Spans, Writer, digest, spanned},
};

/// The one wire version of every POS proof.
pub const VERSION: u8 = 1;
/// Most entries a node may hold (the split rule's hard cap): 16 KiB of entries.
pub const MAX_NODE_ENTRIES: usize = 256;
/// The highest level a node may have (a tree of at most 33 levels).
pub const MAX_LEVEL: u8 = 32;
/// Bytes of one entry: a key (or separator) and a value (or child hash).
pub const ENTRY_LEN: usize = 64;
/// Most blocks one history proof covers.
pub const MAX_HISTORY_BLOCKS: u64 = 4096;
/// Most items of a history proof's node set.
pub const MAX_HISTORY_ITEMS: usize = 16_384;
/// Most entries of all the nodes of a history proof's set together, after patches are applied
/// (16 MiB): a patch is a few bytes on the wire but a whole node in memory.
pub const MAX_HISTORY_ENTRIES: usize = 1 << 18;

const TAG_LEAF: u8 = 0x00;
const TAG_INNER: u8 = 0x01;

const TREE_PRUNED: u8 = 0x00;
const TREE_LEAF: u8 = 0x01;
const TREE_INNER: u8 = 0x02;

const ITEM_FULL: u8 = 0x00;
const ITEM_PATCH: u8 = 0x01;
const ITEM_VALUES: u8 = 0x02;

/// One entry of a node: `(key, value)` in a leaf, `(separator, child hash)` in an inner node.
pub type Entry = (B256, Word);

/// One node: a leaf (`level` 0, state entries) or an inner node (`level` ≥ 1, one
/// `(largest key of the child, child hash)` pair per child).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    /// 0 for a leaf; a child is one level below its parent.
    pub level: u8,
    /// Entries in strictly increasing key order (in an honest tree).
    pub entries: Vec<Entry>,
}

/// SHA-256 of a node's encoding, without building it.
pub fn hash_node(level: u8, entries: &[Entry]) -> B256 {
    let mut h = Sha256::new();
    let n = u16::try_from(entries.len())
        .unwrap_or(u16::MAX)
        .to_be_bytes();
    if level == 0 {
        h.update([TAG_LEAF]);
    } else {
        h.update([TAG_INNER, level]);
    }
    h.update(n);
    for (k, v) in entries {
        h.update(k.as_slice());
        h.update(v);
    }
    digest(h)
}

/// Whether the key interval `(lower, upper]` (`None`: unbounded) meets `[lo, hi]`.
pub fn interval_meets(lower: Option<&B256>, upper: Option<&B256>, lo: &B256, hi: &B256) -> bool {
    lower.is_none_or(|a| a < hi) && upper.is_none_or(|b| b >= lo)
}

/// The root of the empty tree: the hash of the leaf of no entries. It is not zero, and only an
/// absence proof made of that one leaf verifies against it.
pub fn empty_root() -> B256 {
    hash_node(0, &[])
}

impl Node {
    /// A leaf of `entries`.
    pub const fn leaf(entries: Vec<Entry>) -> Self {
        Self { level: 0, entries }
    }

    /// Whether it is a leaf.
    pub const fn is_leaf(&self) -> bool {
        self.level == 0
    }

    /// Its hash (SHA-256 of its encoding).
    pub fn hash(&self) -> B256 {
        hash_node(self.level, &self.entries)
    }

    /// Its largest key: the separator its parent holds for it.
    pub fn max_key(&self) -> Option<&B256> {
        self.entries.last().map(|(k, _)| k)
    }

    /// Its smallest key.
    pub fn min_key(&self) -> Option<&B256> {
        self.entries.first().map(|(k, _)| k)
    }

    /// Index of the child a lookup of `key` descends to (an inner node's): the first whose
    /// separator is `≥ key`, the last if none is (keys above the tree's largest go right).
    pub fn route(&self, key: &B256) -> usize {
        self.entries
            .iter()
            .position(|(sep, _)| key <= sep)
            .unwrap_or(self.entries.len().saturating_sub(1))
    }

    /// Child `i`'s hash (an inner node's).
    pub fn child(&self, i: usize) -> Option<B256> {
        self.entries.get(i).map(|(_, h)| B256::from(*h))
    }

    /// Bytes of its encoding.
    pub fn encoded_len(&self) -> usize {
        let head = if self.level == 0 { 3 } else { 4 };
        head + ENTRY_LEN * self.entries.len()
    }

    /// Appends its encoding.
    pub fn encode_to(&self, w: &mut Writer) {
        if self.level == 0 {
            w.u8(TAG_LEAF);
        } else {
            w.u8(TAG_INNER);
            w.u8(self.level);
        }
        write_entries(w, &self.entries);
    }

    /// Its encoding (also its hash preimage, and how the engine stores it).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        self.encode_to(&mut w);
        w.out
    }

    /// Reads one node.
    pub fn decode_from<K: SpanSink>(
        r: &mut Reader<'_, K>,
        field: &str,
    ) -> Result<Self, DecodeError> {
        let start = r.pos();
        let level = match r.u8(field)? {
            TAG_LEAF => 0,
            TAG_INNER => {
                let level = r.u8(field)?;
                if level == 0 || level > MAX_LEVEL {
                    return Err(DecodeError::new(field, "inner node level not in 1..=32"));
                }
                level
            }
            _ => return Err(DecodeError::new(field, "unknown node tag")),
        };
        let entries = read_entries(r, level, field)?;
        r.span(start, || field.into());
        Ok(Self { level, entries })
    }

    /// Decodes exactly one node.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let n = Self::decode_from(&mut r, "node")?;
        r.finish("node")?;
        Ok(n)
    }
}

fn write_entries(w: &mut Writer, entries: &[Entry]) {
    w.count_u16(entries.len());
    for (k, v) in entries {
        w.raw(k.as_slice());
        w.raw(v);
    }
}

/// Checks an entry count against the cap and the bytes left, before anything is allocated.
fn check_count<K: SpanSink>(
    r: &Reader<'_, K>,
    n: usize,
    per: usize,
    field: &str,
) -> Result<(), DecodeError> {
    if n > MAX_NODE_ENTRIES {
        return Err(DecodeError::new(field, "more than 256 entries"));
    }
    if n.saturating_mul(per) > r.remaining() {
        return Err(DecodeError::new(field, "input ends early"));
    }
    Ok(())
}

/// Checks what every node's entries must satisfy to be encodable: an inner node has at least
/// one child, a leaf no zero value (a zero value is a deleted key, never stored).
fn check_entries(level: u8, entries: &[Entry], field: &str) -> Result<(), DecodeError> {
    if level > 0 && entries.is_empty() {
        return Err(DecodeError::new(field, "inner node without children"));
    }
    if entries.len() > MAX_NODE_ENTRIES {
        return Err(DecodeError::new(field, "more than 256 entries"));
    }
    if level == 0 && entries.iter().any(|(_, v)| *v == [0; 32]) {
        return Err(DecodeError::new(
            field,
            "zero value in a leaf (deleted keys are not stored)",
        ));
    }
    Ok(())
}

fn read_entries<K: SpanSink>(
    r: &mut Reader<'_, K>,
    level: u8,
    field: &str,
) -> Result<Vec<Entry>, DecodeError> {
    let n = usize::from(r.u16(field)?);
    check_count(r, n, ENTRY_LEN, field)?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        let k = r.b256(field)?;
        entries.push((k, r.array::<32>(field)?));
    }
    check_entries(level, &entries, field)?;
    Ok(entries)
}

const UNKNOWN_VERSION: &str = "unknown version";

/// The path of one key, root first: proves its value or its absence at one block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathProof {
    /// The nodes from the root down to the leaf.
    pub nodes: Vec<Node>,
}

impl PathProof {
    /// The wire bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(VERSION);
        w.count_u8(self.nodes.len());
        for n in &self.nodes {
            n.encode_to(&mut w);
        }
        w.out
    }

    /// Decodes the wire bytes (at most 33 nodes, one per level).
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        Self::read(&mut Reader::new(bytes))
    }

    /// Decodes the wire bytes, with the span of each node (`nodes[i]`).
    pub fn decode_with_spans(bytes: &[u8]) -> Result<(Self, Spans), DecodeError> {
        spanned(bytes, Self::read)
    }

    fn read<K: SpanSink>(r: &mut Reader<'_, K>) -> Result<Self, DecodeError> {
        r.version(VERSION, UNKNOWN_VERSION)?;
        let count = r.u8("count")?;
        if count == 0 || count > MAX_LEVEL + 1 {
            return Err(DecodeError::new("count", "not in 1..=33 nodes"));
        }
        let nodes = (0..count)
            .map(|i| Node::decode_from(r, &format!("nodes[{i}]")))
            .collect::<Result<_, _>>()?;
        r.check_end("nodes")?;
        Ok(Self { nodes })
    }
}

/// A partial tree: revealed nodes with their children inline, and subtrees pruned to their
/// hash. Range and diff proofs are made of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tree {
    /// A subtree given by its hash.
    Pruned(B256),
    /// A leaf, whole.
    Leaf(Vec<Entry>),
    /// An inner node, with each child's separator and (partial) subtree.
    Inner {
        /// Its level (≥ 1).
        level: u8,
        /// `(separator, subtree)` per child.
        children: Vec<(B256, Tree)>,
    },
}

impl Tree {
    /// Appends its encoding.
    pub fn encode_to(&self, w: &mut Writer) {
        match self {
            Self::Pruned(h) => {
                w.u8(TREE_PRUNED);
                w.raw(h.as_slice());
            }
            Self::Leaf(entries) => {
                w.u8(TREE_LEAF);
                write_entries(w, entries);
            }
            Self::Inner { level, children } => {
                w.u8(TREE_INNER);
                w.u8(*level);
                w.count_u16(children.len());
                for (sep, child) in children {
                    w.raw(sep.as_slice());
                    child.encode_to(w);
                }
            }
        }
    }

    /// Reads one partial tree whose root may be at most at level `max_level` (children are
    /// below their parent, so recursion is at most 33 deep).
    /// Each subtree's span is named by its path (`tree`, `tree.2`, `old.0.1`).
    pub fn decode_from<K: SpanSink>(
        r: &mut Reader<'_, K>,
        max_level: u8,
        field: &str,
    ) -> Result<Self, DecodeError> {
        let start = r.pos();
        let t = Self::read(r, max_level, field)?;
        r.span(start, || field.into());
        Ok(t)
    }

    fn read<K: SpanSink>(
        r: &mut Reader<'_, K>,
        max_level: u8,
        field: &str,
    ) -> Result<Self, DecodeError> {
        match r.u8(field)? {
            TREE_PRUNED => Ok(Self::Pruned(r.b256(field)?)),
            TREE_LEAF => Ok(Self::Leaf(read_entries(r, 0, field)?)),
            TREE_INNER => {
                let level = r.u8(field)?;
                if level == 0 || level > max_level {
                    return Err(DecodeError::new(
                        field,
                        "inner node level not above its children's or above 32",
                    ));
                }
                let n = usize::from(r.u16(field)?);
                // A child is at least a separator and a pruned hash.
                check_count(r, n, 65, field)?;
                if n == 0 {
                    return Err(DecodeError::new(field, "inner node without children"));
                }
                let mut children = Vec::with_capacity(n);
                for i in 0..n {
                    let sep = r.b256(field)?;
                    let child = Self::decode_from(r, level - 1, &format!("{field}.{i}"))?;
                    children.push((sep, child));
                }
                Ok(Self::Inner { level, children })
            }
            _ => Err(DecodeError::new(field, "unknown tree tag")),
        }
    }

    /// Its root's level, if it is revealed.
    pub fn level(&self) -> Option<u8> {
        match self {
            Self::Pruned(_) => None,
            Self::Leaf(_) => Some(0),
            Self::Inner { level, .. } => Some(*level),
        }
    }
}

/// Every entry of a key range `[lo, hi]` at one block, complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeProof {
    /// The tree, revealed exactly where the range's keys can be.
    pub tree: Tree,
}

impl RangeProof {
    /// The wire bytes.
    pub fn encode(&self) -> Vec<u8> {
        encode_trees(&[&self.tree])
    }

    /// Decodes the wire bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let [tree] = decode_trees(&mut Reader::new(bytes), ["tree"])?;
        Ok(Self { tree })
    }

    /// Decodes the wire bytes, with the span of each subtree (`tree`, `tree.0`, …).
    pub fn decode_with_spans(bytes: &[u8]) -> Result<(Self, Spans), DecodeError> {
        spanned(bytes, |r| {
            let [tree] = decode_trees(r, ["tree"])?;
            Ok(Self { tree })
        })
    }
}

/// `VERSION ‖ tree*`.
fn encode_trees(trees: &[&Tree]) -> Vec<u8> {
    let mut w = Writer::default();
    w.u8(VERSION);
    for t in trees {
        t.encode_to(&mut w);
    }
    w.out
}

/// Reads `VERSION ‖ tree*N`, the trees named `names`, and nothing after.
fn decode_trees<const N: usize, K: SpanSink>(
    r: &mut Reader<'_, K>,
    names: [&str; N],
) -> Result<[Tree; N], DecodeError> {
    r.version(VERSION, UNKNOWN_VERSION)?;
    let mut trees = Vec::with_capacity(N);
    for name in names {
        trees.push(Tree::decode_from(r, MAX_LEVEL, name)?);
    }
    r.check_end("proof")?;
    trees
        .try_into()
        .map_err(|_| DecodeError::new("proof", "tree count"))
}

/// Every key whose value differs between two blocks, complete: both trees, pruned to the same
/// subtrees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffProof {
    /// The tree at the first block.
    pub old: Tree,
    /// The tree at the second block.
    pub new: Tree,
}

impl DiffProof {
    /// The wire bytes.
    pub fn encode(&self) -> Vec<u8> {
        encode_trees(&[&self.old, &self.new])
    }

    /// Decodes the wire bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let [old, new] = decode_trees(&mut Reader::new(bytes), ["old", "new"])?;
        Ok(Self { old, new })
    }

    /// Decodes the wire bytes, with the span of each subtree (`old`, `new.1`, …).
    pub fn decode_with_spans(bytes: &[u8]) -> Result<(Self, Spans), DecodeError> {
        spanned(bytes, |r| {
            let [old, new] = decode_trees(r, ["old", "new"])?;
            Ok(Self { old, new })
        })
    }
}

/// One item of a history proof's node set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HistoryItem {
    /// A node in full.
    Full(Node),
    /// The node of an earlier item with some runs of its entries replaced: a node that
    /// differs from one already sent in a few child hashes costs 70 bytes a run, not a whole
    /// node.
    Patch {
        /// The earlier item.
        base: u32,
        /// The runs replaced, in increasing position, apart from each other.
        splices: Vec<Splice>,
    },
    /// The node of an earlier item with the same keys and some values (child hashes, in an
    /// inner node) replaced: 34 bytes a changed child.
    Values {
        /// The earlier item.
        base: u32,
        /// `(position, new value)`, positions strictly increasing, each value a change.
        values: Vec<(u16, Word)>,
    },
}

/// One run of a patched node's entries replaced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Splice {
    /// The run's first position in the base's entries.
    pub at: u16,
    /// Entries of the base the run removes.
    pub delete: u16,
    /// Entries it puts in their place.
    pub insert: Vec<Entry>,
}

/// One key's paths at every block of `from..=to`, as one node set in which a node shared by
/// several blocks' paths is sent once (and a node that differs from an earlier one a little is
/// sent as a patch of it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryProof {
    /// The first block.
    pub from: u64,
    /// The last block.
    pub to: u64,
    /// The node set.
    pub items: Vec<HistoryItem>,
}

impl HistoryProof {
    /// The wire bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(VERSION);
        w.u64(self.from);
        w.u64(self.to);
        w.count_u32(self.items.len());
        for item in &self.items {
            match item {
                HistoryItem::Full(n) => {
                    w.u8(ITEM_FULL);
                    n.encode_to(&mut w);
                }
                HistoryItem::Values { base, values } => {
                    w.u8(ITEM_VALUES);
                    w.u32(*base);
                    w.count_u16(values.len());
                    for (i, v) in values {
                        w.u16(*i);
                        w.raw(v);
                    }
                }
                HistoryItem::Patch { base, splices } => {
                    w.u8(ITEM_PATCH);
                    w.u32(*base);
                    w.count_u16(splices.len());
                    for sp in splices {
                        w.u16(sp.at);
                        w.u16(sp.delete);
                        write_entries(&mut w, &sp.insert);
                    }
                }
            }
        }
        w.out
    }

    /// Decodes the wire bytes (patches are not applied: see [`HistoryProof::nodes`]).
    pub fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        Self::read(&mut Reader::new(bytes))
    }

    /// Decodes the wire bytes, with the span of each item (`items[i]`, and `items[i].node` for
    /// a node sent in full).
    pub fn decode_with_spans(bytes: &[u8]) -> Result<(Self, Spans), DecodeError> {
        spanned(bytes, Self::read)
    }

    fn read<K: SpanSink>(r: &mut Reader<'_, K>) -> Result<Self, DecodeError> {
        r.version(VERSION, UNKNOWN_VERSION)?;
        let from = r.u64("from")?;
        let to = r.u64("to")?;
        if to < from || to - from >= MAX_HISTORY_BLOCKS {
            return Err(DecodeError::new("to", "not within 4096 blocks from `from`"));
        }
        let count = r.u32("count")? as usize;
        // An item is at least 4 bytes (a leaf of no entries, tagged).
        if count > MAX_HISTORY_ITEMS || count.saturating_mul(4) > r.remaining() {
            return Err(DecodeError::new("count", "too many items for the input"));
        }
        let mut items = Vec::with_capacity(count);
        for i in 0..count {
            let field = format!("items[{i}]");
            let start = r.pos();
            let item = match r.u8(&field)? {
                // The node's own span is the item's less its tag.
                ITEM_FULL => HistoryItem::Full(Node::decode_from(r, &format!("{field}.node"))?),
                ITEM_PATCH => {
                    let base = r.u32(&field)?;
                    if base as usize >= i {
                        return Err(DecodeError::new(field, "patch of a later item"));
                    }
                    let count = usize::from(r.u16(&field)?);
                    // A splice is at least 6 bytes.
                    if count > MAX_NODE_ENTRIES || count.saturating_mul(6) > r.remaining() {
                        return Err(DecodeError::new(field, "too many splices for the input"));
                    }
                    let mut splices = Vec::with_capacity(count);
                    for _ in 0..count {
                        let at = r.u16(&field)?;
                        let delete = r.u16(&field)?;
                        let n = usize::from(r.u16(&field)?);
                        check_count(r, n, ENTRY_LEN, &field)?;
                        let mut insert = Vec::with_capacity(n);
                        for _ in 0..n {
                            let k = r.b256(&field)?;
                            insert.push((k, r.array::<32>(&field)?));
                        }
                        splices.push(Splice { at, delete, insert });
                    }
                    HistoryItem::Patch { base, splices }
                }
                ITEM_VALUES => {
                    let base = r.u32(&field)?;
                    if base as usize >= i {
                        return Err(DecodeError::new(field, "patch of a later item"));
                    }
                    let n = usize::from(r.u16(&field)?);
                    check_count(r, n, 34, &field)?;
                    let mut values = Vec::with_capacity(n);
                    for _ in 0..n {
                        let at = r.u16(&field)?;
                        values.push((at, r.array::<32>(&field)?));
                    }
                    HistoryItem::Values { base, values }
                }
                _ => return Err(DecodeError::new(field, "unknown item tag")),
            };
            r.span(start, || field.clone());
            items.push(item);
        }
        r.check_end("items")?;
        Ok(Self { from, to, items })
    }

    /// The node set with every patch applied, in item order.
    pub fn nodes(&self) -> Result<Vec<Node>, DecodeError> {
        let mut nodes: Vec<Node> = Vec::with_capacity(self.items.len());
        let mut total = 0usize;
        for (i, item) in self.items.iter().enumerate() {
            let field = format!("items[{i}]");
            // Item `b` of the set patched by `apply`; `wrong` says why a patch that does not
            // apply is refused.
            let patched =
                |b: &u32, apply: &dyn Fn(&[Entry]) -> Option<Vec<Entry>>, wrong: &'static str| {
                    let b = nodes
                        .get(*b as usize)
                        .ok_or_else(|| DecodeError::new(field.as_str(), "patch of a later item"))?;
                    let entries =
                        apply(&b.entries).ok_or_else(|| DecodeError::new(field.as_str(), wrong))?;
                    Ok::<_, DecodeError>((b.level, entries))
                };
            let (level, entries) = match item {
                HistoryItem::Full(n) => (n.level, n.entries.clone()),
                HistoryItem::Patch { base, splices } => patched(
                    base,
                    &|e| apply_splices(e, splices),
                    "splices out of order or outside their base",
                )?,
                HistoryItem::Values { base, values } => patched(
                    base,
                    &|e| apply_values(e, values),
                    "values out of order, outside their base or unchanged",
                )?,
            };
            check_entries(level, &entries, &field)?;
            let node = Node { level, entries };
            total = total.saturating_add(node.entries.len());
            if total > MAX_HISTORY_ENTRIES {
                return Err(DecodeError::new(
                    field,
                    "more than 2^18 entries in the node set",
                ));
            }
            nodes.push(node);
        }
        Ok(nodes)
    }
}

/// `base` with `splices` applied, if they are in increasing position, apart (a run right after
/// another is part of it), each changes something, and all lie within `base`.
fn apply_splices(base: &[Entry], splices: &[Splice]) -> Option<Vec<Entry>> {
    let mut out = Vec::with_capacity(base.len());
    let mut pos = 0usize;
    for (i, sp) in splices.iter().enumerate() {
        let (at, del) = (usize::from(sp.at), usize::from(sp.delete));
        if (i > 0 && at <= pos) || at < pos || (del == 0 && sp.insert.is_empty()) {
            return None;
        }
        out.extend_from_slice(base.get(pos..at)?);
        out.extend_from_slice(&sp.insert);
        pos = at.checked_add(del)?;
        if pos > base.len() {
            return None;
        }
    }
    out.extend_from_slice(base.get(pos..)?);
    (out.len() <= MAX_NODE_ENTRIES).then_some(out)
}

/// `base` with `values` put in place, if their positions are strictly increasing, within
/// `base`, there is at least one, and each changes its entry.
fn apply_values(base: &[Entry], values: &[(u16, Word)]) -> Option<Vec<Entry>> {
    let mut out = base.to_vec();
    let mut prev: Option<u16> = None;
    for (at, v) in values {
        if prev.is_some_and(|p| p >= *at) {
            return None;
        }
        prev = Some(*at);
        let e = out.get_mut(usize::from(*at))?;
        if e.1 == *v {
            return None;
        }
        e.1 = *v;
    }
    prev.map(|_| out)
}
