//! The lvmt family's wire format and hashing rules (documented on the family module).

use alloc::vec::Vec;

use sha2::{Digest, Sha256};

use crate::{
    B256, DecodeError, Word,
    codec::{Reader, SpanSink, Spans, Writer, digest, spanned},
};

/// Domain byte of a key tuple.
pub const KEY_TUPLE: u8 = 0x20;
/// Domain byte of a sub-AMT tuple.
pub const AMT_TUPLE: u8 = 0x21;
/// Domain byte of an inner node.
pub const NODE: u8 = 0x22;
/// Domain byte of a history leaf.
pub const HISTORY_LEAF: u8 = 0x23;
/// Domain byte of an empty tree.
pub const EMPTY: u8 = 0x24;

/// The entry index of a key hash at `level` for AMTs of depth `depth`.
pub fn index_at(hash: &B256, level: u8, depth: u8) -> Option<u32> {
    let start = usize::from(level) * usize::from(depth);
    let end = start + usize::from(depth);
    if end > 256 {
        return None;
    }
    let mut v = 0u32;
    for bit in start..end {
        let byte = hash.get(bit / 8)?;
        v = (v << 1) | u32::from((byte >> (7 - bit % 8)) & 1);
    }
    Some(v)
}

/// The prefix naming the sub-AMT of a key hash at `level`: its first `D·level` bits.
pub fn prefix_at(hash: &B256, level: u8, depth: u8) -> B256 {
    let bits = usize::from(level) * usize::from(depth);
    let mut p = B256::ZERO;
    for (i, b) in hash.iter().enumerate() {
        let keep = bits.saturating_sub(i * 8).min(8);
        if let Some(x) = p.get_mut(i) {
            *x = if keep == 0 {
                0
            } else {
                b & (0xffu8 << (8 - keep))
            };
        }
    }
    p
}

/// The leaf hash of a key tuple.
pub fn key_tuple(key: &B256, version: u64, value: &Word, level: u8, slot: u8) -> B256 {
    let mut h = Sha256::new();
    h.update([KEY_TUPLE]);
    h.update(key);
    h.update(version.to_be_bytes());
    h.update(value);
    h.update([level, slot]);
    digest(h)
}

/// The leaf hash of a sub-AMT tuple.
pub fn amt_tuple(level: u8, prefix: &B256, version: u64, commitment: &[u8; 32]) -> B256 {
    let mut h = Sha256::new();
    h.update([AMT_TUPLE, level]);
    h.update(prefix);
    h.update(version.to_be_bytes());
    h.update(commitment);
    digest(h)
}

/// An inner node.
pub fn node(left: &B256, right: &B256) -> B256 {
    let mut h = Sha256::new();
    h.update([NODE]);
    h.update(left);
    h.update(right);
    digest(h)
}

/// The leaf of block `block` in the history tree.
pub fn history_leaf(block: u64, block_root: &B256) -> B256 {
    let mut h = Sha256::new();
    h.update([HISTORY_LEAF]);
    h.update(block.to_be_bytes());
    h.update(block_root);
    digest(h)
}

/// The root of an empty tree (a block that wrote nothing).
pub fn empty() -> B256 {
    digest(Sha256::new().chain_update([EMPTY]))
}

/// The RFC 9162 root over leaf hashes.
pub fn root(leaves: &[B256]) -> B256 {
    match leaves {
        [] => empty(),
        [one] => *one,
        _ => {
            let k = split(leaves.len());
            let (l, r) = leaves.split_at(k);
            node(&root(l), &root(r))
        }
    }
}

/// The largest power of two below `n` (n ≥ 2).
fn split(n: usize) -> usize {
    let mut k = 1;
    while k * 2 < n {
        k *= 2;
    }
    k
}

/// The RFC 9162 audit path of leaf `index` (siblings from the leaf up).
pub fn audit_path(leaves: &[B256], index: usize) -> Vec<B256> {
    let mut path = Vec::new();
    collect_path(leaves, index, &mut path);
    path
}

fn collect_path(leaves: &[B256], index: usize, path: &mut Vec<B256>) {
    if leaves.len() <= 1 {
        return;
    }
    let k = split(leaves.len());
    let (l, r) = leaves.split_at(k);
    if index < k {
        collect_path(l, index, path);
        path.push(root(r));
    } else {
        collect_path(r, index - k, path);
        path.push(root(l));
    }
}

/// An append-only RFC 9162 tree that keeps the hash of every complete aligned subtree, so a
/// root or an audit path costs O(log² n) hashes instead of rehashing all n leaves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MerkleLog {
    /// `levels[h][i]`: the root of leaves `[i·2^h, (i+1)·2^h)`.
    levels: Vec<Vec<B256>>,
}

impl MerkleLog {
    /// An empty tree.
    pub const fn new() -> Self {
        Self { levels: Vec::new() }
    }

    /// Leaves so far.
    pub fn len(&self) -> usize {
        self.levels.first().map_or(0, Vec::len)
    }

    /// Whether there are no leaves.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The leaf hashes.
    pub fn leaves(&self) -> &[B256] {
        self.levels.first().map_or(&[], Vec::as_slice)
    }

    /// Appends a leaf hash.
    pub fn push(&mut self, leaf: B256) {
        let mut carry = leaf;
        for h in 0.. {
            if self.levels.len() <= h {
                self.levels.push(Vec::new());
            }
            let Some(level) = self.levels.get_mut(h) else {
                return;
            };
            level.push(carry);
            if level.len() % 2 == 1 {
                return;
            }
            let n = level.len();
            match (level.get(n - 2), level.get(n - 1)) {
                (Some(l), Some(r)) => carry = node(l, r),
                _ => return,
            }
        }
    }

    /// The root of leaves `[lo, lo + n)` (n ≥ 1, inside the tree).
    fn range(&self, lo: usize, n: usize) -> B256 {
        if n.is_power_of_two() && lo.is_multiple_of(n) {
            let h = n.trailing_zeros() as usize;
            if let Some(x) = self.levels.get(h).and_then(|l| l.get(lo / n)) {
                return *x;
            }
        }
        if n == 1 {
            return empty();
        }
        let k = split(n);
        node(&self.range(lo, k), &self.range(lo + k, n - k))
    }

    /// The root (the empty-tree hash for no leaves).
    pub fn root(&self) -> B256 {
        match self.len() {
            0 => empty(),
            n => self.range(0, n),
        }
    }

    /// The audit path of leaf `index` in the current tree (empty if out of range).
    pub fn audit_path(&self, index: usize) -> Vec<B256> {
        let mut path = Vec::new();
        if index < self.len() {
            self.collect(0, self.len(), index, &mut path);
        }
        path
    }

    fn collect(&self, lo: usize, n: usize, index: usize, path: &mut Vec<B256>) {
        if n <= 1 {
            return;
        }
        let k = split(n);
        if index < lo + k {
            self.collect(lo, k, index, path);
            path.push(self.range(lo + k, n - k));
        } else {
            self.collect(lo + k, n - k, index, path);
            path.push(self.range(lo, k));
        }
    }
}

/// The RFC 9162 §2.1.3.2 check: recomputes the root from a leaf hash, its index, the tree size
/// and the audit path. `None` if the path cannot belong to a tree of that size.
///
/// As in RFC 9162, a path can fit more than one tree size; what a leaf means is in its own
/// contents (a history leaf names its block, a tuple its key and version), never in its index.
pub fn root_from_path(leaf: &B256, index: u64, size: u64, path: &[B256]) -> Option<B256> {
    if index >= size {
        return None;
    }
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in path {
        if s == 0 {
            return None;
        }
        if f & 1 == 1 || f == s {
            r = node(p, &r);
            if f & 1 == 0 {
                while f & 1 == 0 && f != 0 {
                    f >>= 1;
                    s >>= 1;
                }
            }
        } else {
            r = node(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    (s == 0).then_some(r)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    #[test]
    fn the_merkle_log_matches_the_plain_tree() {
        let mut log = super::MerkleLog::new();
        assert_eq!(log.root(), super::empty());
        let mut leaves = alloc::vec::Vec::new();
        for i in 0u64..70 {
            let leaf = super::history_leaf(i, &crate::B256::repeat_byte(i as u8));
            log.push(leaf);
            leaves.push(leaf);
            assert_eq!(log.root(), super::root(&leaves), "root at {}", i + 1);
            for j in 0..leaves.len() {
                assert_eq!(
                    log.audit_path(j),
                    super::audit_path(&leaves, j),
                    "path {j} of {}",
                    i + 1
                );
            }
        }
        assert_eq!(log.len(), 70);
        assert!(log.audit_path(70).is_empty());
    }

    use super::*;

    fn leaf(i: u64) -> B256 {
        history_leaf(i, &B256::repeat_byte(i as u8))
    }

    #[test]
    fn every_leaf_of_every_size_proves_and_nothing_else_does() {
        for n in 1..=40usize {
            let leaves: Vec<B256> = (0..n as u64).map(leaf).collect();
            let r = root(&leaves);
            for i in 0..n {
                let path = audit_path(&leaves, i);
                assert_eq!(
                    root_from_path(&leaves[i], i as u64, n as u64, &path),
                    Some(r)
                );
                // Another index, size or leaf does not give the root.
                for j in 0..n {
                    if j != i {
                        assert_ne!(
                            root_from_path(&leaves[i], j as u64, n as u64, &path),
                            Some(r)
                        );
                    }
                }
                assert_ne!(
                    root_from_path(&leaf(99), i as u64, n as u64, &path),
                    Some(r)
                );
                if !path.is_empty() {
                    let mut short = path.clone();
                    short.pop();
                    assert_ne!(
                        root_from_path(&leaves[i], i as u64, n as u64, &short),
                        Some(r)
                    );
                    let mut long = path.clone();
                    long.push(r);
                    assert_ne!(
                        root_from_path(&leaves[i], i as u64, n as u64, &long),
                        Some(r)
                    );
                }
            }
        }
        assert_eq!(root(&[]), empty());
        assert_eq!(root_from_path(&leaf(0), 0, 0, &[]), None);
    }

    #[test]
    fn leaf_kinds_are_domain_separated() {
        let k = B256::repeat_byte(1);
        let a = key_tuple(&k, 1, &[2; 32], 0, 1);
        let b = amt_tuple(0, &k, 1, &[2; 32]);
        let c = node(&k, &k);
        let d = history_leaf(1, &k);
        let all = [a, b, c, d, empty()];
        for (i, x) in all.iter().enumerate() {
            assert!(all[..i].iter().all(|y| y != x));
        }
    }
}

pub use proof::{Kind, LevelProof, LvmtProof, OtherKey, TuplePath};

/// The LVMT proof of a key's latest value (or of its absence), wire format v1:
///
/// ```text
/// proof     = 0x01 depth(u8) stateKey(32) kind(u8) count(u8) level*count tail
/// level     = versions(6 × u64) quotients(depth × 32)
///             [ commitment(32) path ]                      -- levels ≥ 1: the sub-AMT's tuple
/// path      = block(u64) size(u32) index(u32) n(u8) hash*n m(u8) hash*m
///                                                          -- tuple tree audit path, then the
///                                                             history tree audit path
/// tail      = slot(u8) value(32) path                      -- kind 0: presence
///           | (stateKey(32) value(32) path)*               -- kind 1: absence, one per occupied
///                                                             key slot of every level, in order
/// ```
///
/// Levels go from the root AMT (level 0) down to the key's level (presence) or to the level
/// where its path ends (absence). Points are compressed BN254 G1 (32 B); a proof decodes only if
/// every count matches what the versions and the depth imply.
pub mod proof {
    use alloc::{format, vec::Vec};

    use crate::{
        B256, DecodeError, Word,
        codec::{Reader, SpanSink, Spans, Writer, spanned},
    };

    /// Wire format version.
    pub const VERSION: u8 = 1;
    /// Most levels a proof may hold (256 hash bits / 16 bits per level at D = 16; more at
    /// smaller D is refused).
    pub const MAX_LEVELS: u8 = 64;

    /// Where a tuple sits: its block's tree and the history tree.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct TuplePath {
        /// The block that wrote it.
        pub block: u64,
        /// Tuples in that block's tree.
        pub size: u32,
        /// Its index there.
        pub index: u32,
        /// Audit path in the block's tree.
        pub path: Vec<B256>,
        /// Audit path of the block's leaf in the history tree.
        pub history: Vec<B256>,
    }

    /// One level on the key's path.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LevelProof {
        /// The six versions of the entry on the path (slot 0: the sub-AMT below).
        pub versions: [u64; 6],
        /// The AMT opening's quotient points, compressed.
        pub quotients: Vec<[u8; 32]>,
        /// Levels ≥ 1: this AMT's commitment and the tuple proving it.
        pub commitment: Option<([u8; 32], TuplePath)>,
    }

    /// Another key holding a slot on the path (absence proofs).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct OtherKey {
        /// The key.
        pub key: B256,
        /// Its latest value.
        pub value: Word,
        /// Its latest tuple.
        pub path: TuplePath,
    }

    /// What is proven.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Kind {
        /// The key's latest version and value.
        Presence {
            /// Its slot (1..=5) at the last level.
            slot: u8,
            /// Its value.
            value: Word,
            /// Its latest tuple.
            path: TuplePath,
        },
        /// The key was never written: every occupied key slot on its path is another key's.
        Absence {
            /// The occupants, level by level, slot by slot.
            others: Vec<OtherKey>,
        },
    }

    /// A proof about one key.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct LvmtProof {
        /// The AMT depth D.
        pub depth: u8,
        /// The state key.
        pub key: B256,
        /// Levels from the root down.
        pub levels: Vec<LevelProof>,
        /// Presence or absence.
        pub kind: Kind,
    }

    pub(super) fn put_path(w: &mut Writer, p: &TuplePath) {
        w.u64(p.block);
        w.u32(p.size);
        w.u32(p.index);
        w.count_u8(p.path.len());
        w.b256s(&p.path);
        w.count_u8(p.history.len());
        w.b256s(&p.history);
    }

    /// Reads an audit path: a count and that many hashes (spans `{field}.{name}[k]`).
    fn hashes<K: SpanSink>(
        r: &mut Reader<'_, K>,
        field: &str,
        name: &str,
    ) -> Result<Vec<B256>, DecodeError> {
        let n = r.u8(&format!("{field}.{name}"))?;
        if n > 64 {
            return Err(DecodeError::new(
                format!("{field}.{name}"),
                "longer than any tree",
            ));
        }
        (0..n)
            .map(|k| {
                let at = r.pos();
                let h = r.b256(&format!("{field}.{name}"));
                r.span(at, || format!("{field}.{name}[{k}]"));
                h
            })
            .collect()
    }

    /// Reads a tuple path; spans: `{field}.path` (block, size, index and the tuple-tree audit
    /// path), `{field}.path[k]`, `{field}.history` (the history audit path with its count),
    /// `{field}.history[k]`.
    pub(super) fn get_path<K: SpanSink>(
        r: &mut Reader<'_, K>,
        field: &str,
    ) -> Result<TuplePath, DecodeError> {
        let start = r.pos();
        let block = r.u64(&format!("{field}.block"))?;
        let size = r.u32(&format!("{field}.size"))?;
        let index = r.u32(&format!("{field}.index"))?;
        if index >= size {
            return Err(DecodeError::new(
                format!("{field}.index"),
                "not below the tree size",
            ));
        }
        let path = hashes(r, field, "path")?;
        r.span(start, || format!("{field}.path"));
        let history_start = r.pos();
        let history = hashes(r, field, "history")?;
        r.span(history_start, || format!("{field}.history"));
        Ok(TuplePath {
            block,
            size,
            index,
            path,
            history,
        })
    }

    impl LvmtProof {
        /// The wire encoding.
        pub fn encode(&self) -> Vec<u8> {
            let mut w = Writer::default();
            w.u8(VERSION);
            w.u8(self.depth);
            w.raw(self.key.as_slice());
            w.u8(match self.kind {
                Kind::Presence { .. } => 0,
                Kind::Absence { .. } => 1,
            });
            w.count_u8(self.levels.len());
            for l in &self.levels {
                for v in l.versions {
                    w.u64(v);
                }
                for q in &l.quotients {
                    w.raw(q);
                }
                if let Some((c, p)) = &l.commitment {
                    w.raw(c);
                    put_path(&mut w, p);
                }
            }
            match &self.kind {
                Kind::Presence { slot, value, path } => {
                    w.u8(*slot);
                    w.raw(value);
                    put_path(&mut w, path);
                }
                Kind::Absence { others } => {
                    for o in others {
                        w.raw(o.key.as_slice());
                        w.raw(&o.value);
                        put_path(&mut w, &o.path);
                    }
                }
            }
            w.out
        }

        /// Decodes the one accepted encoding. The number of occupants of an absence proof is
        /// read from the versions (every non-zero key slot of every level).
        pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
            Self::read(&mut Reader::new(buf))
        }

        /// [`LvmtProof::decode`], also reporting where each element sits: `levels[l]`,
        /// `levels[l].quotients`, `levels[l].quotients[d]`, `levels[l].commitmentTuple` (the
        /// commitment and its tuple path), `tail` (presence: slot, value and path; absence: every
        /// occupant), `others[i]` (an occupant), and for every tuple path `P` (`tuple`,
        /// `others[i]`, `levels[l].commitmentTuple`) the spans of `P.path` and `P.history`
        /// with their hashes `P.path[k]`, `P.history[k]`.
        pub fn decode_with_spans(buf: &[u8]) -> Result<(Self, Spans), DecodeError> {
            spanned(buf, Self::read)
        }

        fn read<K: SpanSink>(r: &mut Reader<'_, K>) -> Result<Self, DecodeError> {
            r.version(VERSION, "unsupported version")?;
            let depth = r.u8("depth")?;
            if depth == 0 || depth > 28 {
                return Err(DecodeError::new("depth", "out of range 1..=28"));
            }
            let key = r.b256("stateKey")?;
            let kind = r.u8("kind")?;
            if kind > 1 {
                return Err(DecodeError::new(
                    "kind",
                    "neither presence (0) nor absence (1)",
                ));
            }
            let count = r.u8("levels")?;
            if count == 0 || count > MAX_LEVELS || usize::from(count) * usize::from(depth) > 256 {
                return Err(DecodeError::new(
                    "levels",
                    "not a level count the key hash allows",
                ));
            }
            let mut levels = Vec::with_capacity(usize::from(count));
            for l in 0..count {
                let f = |name: &str| format!("levels[{l}].{name}");
                let level_start = r.pos();
                let mut versions = [0u64; 6];
                for v in &mut versions {
                    *v = r.u64(&f("versions"))?;
                    if *v >= 1 << 40 {
                        return Err(DecodeError::new(f("versions"), "a version is 40 bits"));
                    }
                }
                let quotients_start = r.pos();
                let quotients = (0..depth)
                    .map(|d| {
                        let at = r.pos();
                        let q = r.array::<32>(&f("quotients"));
                        r.span(at, || format!("levels[{l}].quotients[{d}]"));
                        q
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                r.span(quotients_start, || f("quotients"));
                let commitment = if l == 0 {
                    None
                } else {
                    let at = r.pos();
                    let c = (
                        r.array::<32>(&f("commitment"))?,
                        get_path(r, &f("commitmentTuple"))?,
                    );
                    r.span(at, || f("commitmentTuple"));
                    Some(c)
                };
                r.span(level_start, || format!("levels[{l}]"));
                levels.push(LevelProof {
                    versions,
                    quotients,
                    commitment,
                });
            }
            let tail_start = r.pos();
            let kind = if kind == 0 {
                let slot = r.u8("slot")?;
                if !(1..=5).contains(&slot) {
                    return Err(DecodeError::new("slot", "a key slot is 1..=5"));
                }
                Kind::Presence {
                    slot,
                    value: r.array::<32>("value")?,
                    path: get_path(r, "tuple")?,
                }
            } else {
                let occupied: usize = levels
                    .iter()
                    .map(|l| l.versions.iter().skip(1).filter(|v| **v > 0).count())
                    .sum();
                let others = (0..occupied)
                    .map(|i| {
                        let f = format!("others[{i}]");
                        let at = r.pos();
                        let o = OtherKey {
                            key: r.b256(&format!("{f}.key"))?,
                            value: r.array::<32>(&format!("{f}.value"))?,
                            path: get_path(r, &f)?,
                        };
                        r.span(at, || f);
                        Ok(o)
                    })
                    .collect::<Result<Vec<_>, DecodeError>>()?;
                Kind::Absence { others }
            };
            r.span(tail_start, || "tail".into());
            r.check_end("proof")?;
            Ok(Self {
                depth,
                key,
                levels,
                kind,
            })
        }
    }
}

/// An LVMT history proof, wire format v1: the key's latest version (a presence proof), then its
/// tuples for consecutive versions `first, first + 1, …` — the version in force at `lo` (if any),
/// every version written in `lo..=hi`, and the next version after `hi` (unless the last listed
/// is the latest):
///
/// ```text
/// history = 0x01 lo(u64) hi(u64) len(u32) presence(len bytes) first(u64) count(u32)
///           (value(32) path)*count
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LvmtHistory {
    /// First block of the range.
    pub lo: u64,
    /// Last block of the range.
    pub hi: u64,
    /// The proof of the key's latest version.
    pub latest: LvmtProof,
    /// The version of the first listed tuple.
    pub first: u64,
    /// Values and paths of versions `first, first + 1, …`.
    pub tuples: Vec<(Word, TuplePath)>,
}

impl LvmtHistory {
    /// The wire encoding.
    pub fn encode(&self) -> Vec<u8> {
        let latest = self.latest.encode();
        let mut w = Writer::default();
        w.u8(proof::VERSION);
        w.u64(self.lo);
        w.u64(self.hi);
        w.bytes(&latest);
        w.u64(self.first);
        w.count_u32(self.tuples.len());
        for (value, path) in &self.tuples {
            w.raw(value);
            proof::put_path(&mut w, path);
        }
        w.out
    }

    /// Decodes the one accepted encoding.
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        Self::read(&mut Reader::new(buf))
    }

    /// [`LvmtHistory::decode`], also reporting where each element sits: `latest` (the
    /// latest-version proof, without its length) and its spans prefixed `latest.` (see
    /// [`LvmtProof::decode_with_spans`]), `tuples[i]` (value and path) and, for each,
    /// `tuples[i].path`, `tuples[i].history` and their hashes.
    pub fn decode_with_spans(buf: &[u8]) -> Result<(Self, Spans), DecodeError> {
        spanned(buf, Self::read)
    }

    fn read<K: SpanSink>(r: &mut Reader<'_, K>) -> Result<Self, DecodeError> {
        r.version(proof::VERSION, "unsupported version")?;
        let lo = r.u64("lo")?;
        let hi = r.u64("hi")?;
        let inner = r.bytes("latest")?;
        let base = r.pos() - inner.len();
        let latest = if r.recording() {
            let (p, spans) = LvmtProof::decode_with_spans(inner)?;
            r.nest("latest.", base, spans);
            r.span(base, || "latest".into());
            p
        } else {
            LvmtProof::decode(inner)?
        };
        let first = r.u64("first")?;
        let count = r.u32("count")?;
        // Each tuple takes at least 50 bytes: the count cannot outrun the input.
        let mut tuples = Vec::new();
        for i in 0..count {
            let f = alloc::format!("tuples[{i}]");
            let at = r.pos();
            let value = r.array::<32>(&alloc::format!("{f}.value"))?;
            tuples.push((value, proof::get_path(r, &f)?));
            r.span(at, || f);
        }
        r.check_end("history")?;
        Ok(Self {
            lo,
            hi,
            latest,
            first,
            tuples,
        })
    }
}
