//! The mbt family's parameters, wire formats and hashing rules (documented on the family module).

use alloc::{vec, vec::Vec};

use crate::{
    B256, DecodeError, Word,
    codec::{Reader, Writer},
};

/// The wire format version this module reads and writes.
pub const VERSION: u8 = 1;
/// The fewest bucket bits: two buckets, so the tree has at least one inner level.
pub const MIN_BUCKET_BITS: u8 = 1;
/// The most bucket bits: 2^24 buckets (a proof's siblings stay under 5 kB at any fanout).
pub const MAX_BUCKET_BITS: u8 = 24;
/// The smallest fanout.
pub const MIN_FANOUT: u8 = 2;
/// The largest fanout: a level of a proof is at most 31 sibling hashes (992 bytes).
pub const MAX_FANOUT: u8 = 32;
/// The most inner levels any valid parameters give (fanout 2, 24 bucket bits).
pub const MAX_DEPTH: u8 = MAX_BUCKET_BITS;
/// The most entries a bucket may hold in a proof (1 MiB of entries): an engine whose buckets
/// grow past it needs more buckets, and a decoder never reads more.
pub const MAX_BUCKET_ENTRIES: u32 = 1 << 14;
/// The most blocks one history proof covers.
pub const MAX_HISTORY_BLOCKS: u64 = 1024;
/// The most bytes a diff proof may take (a diff of two blocks that each rewrote much of the state
/// is better proven bucket by bucket).
pub const MAX_DIFF_BYTES: usize = 32 << 20;

/// The tree's parameters: `2^bucket_bits` buckets under a complete `fanout`-ary tree. Pinned for
/// the life of a chain; a verifier takes them as trusted input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MbtParams {
    bucket_bits: u8,
    fanout: u8,
}

impl MbtParams {
    /// 4,096 buckets (the paper runs 4,000–10,000) under a 16-ary tree: three inner levels.
    pub const DEFAULT: Self = Self {
        bucket_bits: 12,
        fanout: 16,
    };

    /// Parameters within bounds ([`MIN_BUCKET_BITS`]..=[`MAX_BUCKET_BITS`],
    /// [`MIN_FANOUT`]..=[`MAX_FANOUT`]); the error names the field out of bounds.
    pub fn new(bucket_bits: u8, fanout: u8) -> Result<Self, DecodeError> {
        if !(MIN_BUCKET_BITS..=MAX_BUCKET_BITS).contains(&bucket_bits) {
            return Err(DecodeError::new("bucketBits", "must be 1 to 24"));
        }
        if !(MIN_FANOUT..=MAX_FANOUT).contains(&fanout) {
            return Err(DecodeError::new("fanout", "must be 2 to 32"));
        }
        Ok(Self {
            bucket_bits,
            fanout,
        })
    }

    /// The 32-byte word a chain's genesis header pins them in (`mbtParams`, extraData bytes
    /// 192..224 of a lightprov chain): `b ‖ m ‖ 30 zero bytes`.
    pub const fn to_word(&self) -> [u8; 32] {
        let mut w = [0u8; 32];
        w[0] = self.bucket_bits;
        w[1] = self.fanout;
        w
    }

    /// The parameters a genesis header's `mbtParams` word pins: `None` for the zero word (the
    /// chain pins none); an error naming the field for any other word [`MbtParams::to_word`]
    /// does not make.
    pub fn from_word(word: &[u8; 32]) -> Result<Option<Self>, DecodeError> {
        if word.iter().all(|&b| b == 0) {
            return Ok(None);
        }
        let [b, m, rest @ ..] = *word;
        if rest.iter().any(|&x| x != 0) {
            return Err(DecodeError::new("mbtParams", "bytes 2..32 must be zero"));
        }
        Self::new(b, m).map(Some)
    }

    /// `b`: the bucket of a key is the top `b` bits of keccak256(key).
    pub const fn bucket_bits(&self) -> u8 {
        self.bucket_bits
    }

    /// `m`: the children of every inner node.
    pub const fn fanout(&self) -> u8 {
        self.fanout
    }

    /// `B = 2^b`.
    pub const fn buckets(&self) -> u32 {
        1 << self.bucket_bits
    }

    /// Inner levels: the least `d ≥ 1` with `m^d ≥ B`. The root is the node of level 0, the
    /// buckets are at level `d`.
    pub const fn depth(&self) -> u8 {
        let mut d = 0u8;
        let mut cap: u64 = 1;
        while cap < self.buckets() as u64 {
            cap *= self.fanout as u64;
            d += 1;
        }
        d
    }

    /// The bucket of a key whose keccak256 is `hashed`: its top `b` bits.
    pub fn bucket_of_hash(&self, hashed: &[u8; 32]) -> u32 {
        let [a, b, c, d, ..] = *hashed;
        u32::from_be_bytes([a, b, c, d]) >> (32 - u32::from(self.bucket_bits))
    }

    /// The bucket of state key `key` (keccak256 by alloy; verifiers hash with their own keccak
    /// and call [`MbtParams::bucket_of_hash`]).
    pub fn bucket_of(&self, key: &B256) -> u32 {
        self.bucket_of_hash(&alloy_primitives::keccak256(key).0)
    }

    /// `m^e`, for `e ≤ depth` (below 2^30 for any valid parameters).
    fn pow(&self, e: u8) -> u64 {
        (0..e).fold(1u64, |p, _| p.saturating_mul(u64::from(self.fanout)))
    }

    /// The index, among the nodes of level `level`, of the node above `bucket` (level `depth`
    /// is the bucket itself).
    pub fn node_index(&self, bucket: u32, level: u8) -> u64 {
        u64::from(bucket) / self.pow(self.depth().saturating_sub(level))
    }

    /// The slot, in the node of level `level` (`< depth`) above `bucket`, of the child on the
    /// path to `bucket`: the verifier derives every position from the bucket, never from a proof.
    pub fn slot(&self, bucket: u32, level: u8) -> usize {
        let below = self.node_index(bucket, level.saturating_add(1));
        // A remainder of a fanout ≤ 32 fits any usize.
        (below % u64::from(self.fanout)) as usize
    }

    /// The first bucket of the node `index` of level `level`.
    pub fn first_bucket(&self, level: u8, index: u64) -> u64 {
        index.saturating_mul(self.pow(self.depth().saturating_sub(level)))
    }

    /// Reads the head every proof starts with: the version, then the parameters.
    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        r.version(VERSION, "unsupported version")?;
        let b = r.u8("bucketBits")?;
        let m = r.u8("fanout")?;
        Self::new(b, m)
    }

    fn write(&self, w: &mut Writer) {
        w.u8(VERSION);
        w.u8(self.bucket_bits);
        w.u8(self.fanout);
    }
}

/// One key of a bucket and its value (never zero: writing zero deletes the key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Entry {
    /// The state key.
    pub key: B256,
    /// Its value.
    pub value: Word,
}

/// A proof of presence or absence of one state key: the whole bucket of the key and, for every
/// inner level, the siblings of the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MbtProof {
    /// The parameters the proof was made under.
    pub params: MbtParams,
    /// The state key.
    pub key: B256,
    /// Every entry of the key's bucket, in key order.
    pub entries: Vec<Entry>,
    /// Per inner level, the root's first: the node's other `m − 1` children, in slot order.
    pub levels: Vec<Vec<B256>>,
}

/// One subtree of a diff proof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffNode {
    /// A subtree that is the same in both blocks: its hash.
    Same(B256),
    /// An inner node that differs: its `m` children.
    Inner(Vec<DiffNode>),
    /// A bucket that differs: its entries in the old block, then in the new.
    Bucket {
        /// Entries in the old block.
        old: Vec<Entry>,
        /// Entries in the new block.
        new: Vec<Entry>,
    },
}

/// A diff proof: both trees compared position by position, identical subtrees by their hash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffProof {
    /// The parameters both trees were made under.
    pub params: MbtParams,
    /// The root node (level 0).
    pub root: DiffNode,
}

/// A history proof: one key over blocks `lo..=hi`, every node of every block's path once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryProof {
    /// The parameters the trees were made under.
    pub params: MbtParams,
    /// The state key.
    pub key: B256,
    /// First block.
    pub lo: u64,
    /// Last block.
    pub hi: u64,
    /// Per inner level (the root's first), the distinct nodes on the key's path, each its `m`
    /// children, strictly increasing by node hash.
    pub levels: Vec<Vec<Vec<B256>>>,
    /// The distinct non-empty versions of the key's bucket, strictly increasing by bucket hash.
    pub buckets: Vec<Vec<Entry>>,
}

fn write_entries(w: &mut Writer, entries: &[Entry]) {
    w.count_u32(entries.len());
    for e in entries {
        w.raw(e.key.as_slice());
        w.raw(&e.value);
    }
}

/// Reads `count(u32) entry×count`: at most [`MAX_BUCKET_ENTRIES`], no zero value (order and
/// bucket membership are the verifier's checks, with their own codes).
fn read_entries(r: &mut Reader<'_>, field: &str) -> Result<Vec<Entry>, DecodeError> {
    let n = r.u32(field)?;
    if n > MAX_BUCKET_ENTRIES {
        return Err(DecodeError::new(field, "more than 16384 entries"));
    }
    let mut out = Vec::with_capacity((n as usize).min(r.remaining() / 64));
    for i in 0..n {
        let f = || alloc::format!("{field}[{i}]");
        let key = r.b256(&f())?;
        let value = r.array::<32>(&f())?;
        if value == [0; 32] {
            return Err(DecodeError::new(
                f(),
                "a zero value is a deleted key, never an entry",
            ));
        }
        out.push(Entry { key, value });
    }
    Ok(out)
}

impl MbtProof {
    /// The wire encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        self.params.write(&mut w);
        w.raw(self.key.as_slice());
        write_entries(&mut w, &self.entries);
        w.count_u8(self.levels.len());
        for level in &self.levels {
            w.b256s(level);
        }
        w.out
    }

    /// Decodes the one accepted encoding. The number of levels is the proof's claim (at most
    /// [`MAX_DEPTH`]); the verifier compares it with the trusted parameters' depth.
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let params = MbtParams::read(&mut r)?;
        let key = r.b256("stateKey")?;
        let entries = read_entries(&mut r, "entries")?;
        let depth = read_depth(&mut r)?;
        let siblings = usize::from(params.fanout) - 1;
        let mut levels = Vec::with_capacity(usize::from(depth));
        for l in 0..depth {
            levels.push(r.b256s(siblings, &alloc::format!("levels[{l}]"))?);
        }
        r.finish("proof")?;
        Ok(Self {
            params,
            key,
            entries,
            levels,
        })
    }
}

/// Reads a proof's claimed number of inner levels (at most [`MAX_DEPTH`]).
fn read_depth(r: &mut Reader<'_>) -> Result<u8, DecodeError> {
    let depth = r.u8("depth")?;
    if depth > MAX_DEPTH {
        return Err(DecodeError::new("depth", "more than 24 levels"));
    }
    Ok(depth)
}

impl DiffProof {
    /// The wire encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        self.params.write(&mut w);
        encode_diff(&mut w, &self.root);
        w.out
    }

    /// Decodes the one accepted encoding: inner nodes above the buckets' level and buckets at it,
    /// `m` children per inner node, and never a differing node that differs in nothing (an inner
    /// node whose children are all the same, a bucket whose two lists are equal).
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        if buf.len() > MAX_DIFF_BYTES {
            return Err(DecodeError::new("proof", "more than 32 MiB"));
        }
        let mut r = Reader::new(buf);
        let params = MbtParams::read(&mut r)?;
        let root = decode_diff(&mut r, &params, 0, "root")?;
        r.finish("proof")?;
        Ok(Self { params, root })
    }
}

fn encode_diff(w: &mut Writer, n: &DiffNode) {
    match n {
        DiffNode::Same(h) => {
            w.u8(0);
            w.raw(h.as_slice());
        }
        DiffNode::Inner(children) => {
            w.u8(1);
            for c in children {
                encode_diff(w, c);
            }
        }
        DiffNode::Bucket { old, new } => {
            w.u8(2);
            write_entries(w, old);
            write_entries(w, new);
        }
    }
}

/// Decodes the node of level `level`; recursion is bounded by the depth (≤ [`MAX_DEPTH`]).
fn decode_diff(
    r: &mut Reader<'_>,
    params: &MbtParams,
    level: u8,
    field: &str,
) -> Result<DiffNode, DecodeError> {
    let at_buckets = level >= params.depth();
    match r.u8(field)? {
        0 => Ok(DiffNode::Same(r.b256(field)?)),
        1 if !at_buckets => {
            let mut children = Vec::with_capacity(usize::from(params.fanout));
            for j in 0..params.fanout {
                children.push(decode_diff(
                    r,
                    params,
                    level + 1,
                    &alloc::format!("{field}.{j}"),
                )?);
            }
            if children.iter().all(|c| matches!(c, DiffNode::Same(_))) {
                return Err(DecodeError::new(
                    field,
                    "an inner node whose children are all the same is the same",
                ));
            }
            Ok(DiffNode::Inner(children))
        }
        2 if at_buckets => {
            let old = read_entries(r, &alloc::format!("{field}.old"))?;
            let new = read_entries(r, &alloc::format!("{field}.new"))?;
            if old == new {
                return Err(DecodeError::new(
                    field,
                    "a bucket whose entries are equal is the same",
                ));
            }
            Ok(DiffNode::Bucket { old, new })
        }
        1 => Err(DecodeError::new(
            field,
            "an inner node at the buckets' level",
        )),
        2 => Err(DecodeError::new(field, "a bucket above the buckets' level")),
        _ => Err(DecodeError::new(field, "unknown node kind")),
    }
}

impl HistoryProof {
    /// The wire encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        self.params.write(&mut w);
        w.raw(self.key.as_slice());
        w.u64(self.lo);
        w.u64(self.hi);
        w.count_u8(self.levels.len());
        for level in &self.levels {
            w.count_u16(level.len());
            for node in level {
                w.b256s(node);
            }
        }
        w.count_u16(self.buckets.len());
        for b in &self.buckets {
            write_entries(&mut w, b);
        }
        w.out
    }

    /// Decodes the one accepted encoding: `lo ≤ hi` over at most [`MAX_HISTORY_BLOCKS`] blocks,
    /// at most one node per block and level, one bucket per block.
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let params = MbtParams::read(&mut r)?;
        let key = r.b256("stateKey")?;
        let lo = r.u64("lo")?;
        let hi = r.u64("hi")?;
        let Some(blocks) = hi.checked_sub(lo).and_then(|d| d.checked_add(1)) else {
            return Err(DecodeError::new("hi", "before lo"));
        };
        if blocks > MAX_HISTORY_BLOCKS {
            return Err(DecodeError::new("hi", "more than 1024 blocks"));
        }
        let depth = read_depth(&mut r)?;
        let fanout = usize::from(params.fanout);
        let mut levels = Vec::with_capacity(usize::from(depth));
        for l in 0..depth {
            let field = alloc::format!("levels[{l}]");
            let n = r.u16(&field)?;
            if u64::from(n) > blocks {
                return Err(DecodeError::new(field, "more nodes than blocks"));
            }
            let mut nodes = Vec::with_capacity(usize::from(n).min(r.remaining() / 32));
            for i in 0..n {
                nodes.push(r.b256s(fanout, &alloc::format!("levels[{l}][{i}]"))?);
            }
            levels.push(nodes);
        }
        let n = r.u16("buckets")?;
        if u64::from(n) > blocks {
            return Err(DecodeError::new("buckets", "more buckets than blocks"));
        }
        let mut buckets = Vec::with_capacity(usize::from(n).min(r.remaining() / 4));
        for i in 0..n {
            buckets.push(read_entries(&mut r, &alloc::format!("buckets[{i}]"))?);
        }
        r.finish("proof")?;
        Ok(Self {
            params,
            key,
            lo,
            hi,
            levels,
            buckets,
        })
    }
}

/// Hashing rules shared by the engine and the verifier (see the module docs).
pub mod hash {
    use super::{B256, Entry, MbtParams, Vec, vec};
    use crate::codec::digest;
    use sha2::{Digest, Sha256};

    /// Domain byte of a non-empty bucket.
    pub const BUCKET: u8 = 0x40;
    /// Domain byte of the empty bucket.
    pub const EMPTY_BUCKET: u8 = 0x41;
    /// Domain byte of an inner node.
    pub const INNER: u8 = 0x42;

    fn start(tag: u8, p: &MbtParams) -> Sha256 {
        let mut h = Sha256::new();
        h.update([tag, p.bucket_bits(), p.fanout()]);
        h
    }

    /// The hash of bucket `index` holding `entries` (in key order): the empty subtree of the
    /// buckets' level when there are none.
    pub fn bucket(p: &MbtParams, index: u32, entries: &[Entry]) -> B256 {
        if entries.is_empty() {
            return empty_bucket(p);
        }
        let mut h = start(BUCKET, p);
        h.update(index.to_be_bytes());
        h.update(
            u32::try_from(entries.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        );
        for e in entries {
            h.update(e.key);
            h.update(e.value);
        }
        digest(h)
    }

    /// The empty bucket, the same at every index: `SHA-256(0x41 ‖ b ‖ m ‖ depth)`.
    pub fn empty_bucket(p: &MbtParams) -> B256 {
        let mut h = start(EMPTY_BUCKET, p);
        h.update([p.depth()]);
        digest(h)
    }

    /// The hash of an inner node of level `level` over its children, slot 0 first (the
    /// caller gives exactly `m`).
    pub fn inner<'a>(
        p: &MbtParams,
        level: u8,
        children: impl IntoIterator<Item = &'a B256>,
    ) -> B256 {
        let mut h = start(INNER, p);
        h.update([level]);
        for c in children {
            h.update(c);
        }
        digest(h)
    }

    /// The empty subtree of every level, the root's (level 0) first and the empty bucket's
    /// (level `depth`) last: the per-level constants an empty child slot holds.
    pub fn empty_levels(p: &MbtParams) -> Vec<B256> {
        let d = p.depth();
        let mut out = vec![empty_bucket(p); usize::from(d) + 1];
        for l in (0..d).rev() {
            let below = out.get(usize::from(l) + 1).copied().unwrap_or_default();
            let children = vec![below; usize::from(p.fanout())];
            if let Some(slot) = out.get_mut(usize::from(l)) {
                *slot = inner(p, l, children.iter());
            }
        }
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn params_are_bounded_and_name_the_field() {
        assert_eq!(MbtParams::new(0, 16).unwrap_err().field, "bucketBits");
        assert_eq!(MbtParams::new(25, 16).unwrap_err().field, "bucketBits");
        assert_eq!(MbtParams::new(8, 1).unwrap_err().field, "fanout");
        assert_eq!(MbtParams::new(8, 33).unwrap_err().field, "fanout");
        assert_eq!(MbtParams::new(12, 16).unwrap(), MbtParams::DEFAULT);
    }

    #[test]
    fn depth_is_the_least_covering_height() {
        let d = |b, m| MbtParams::new(b, m).unwrap().depth();
        assert_eq!(d(1, 2), 1);
        assert_eq!(d(12, 16), 3);
        assert_eq!(d(13, 16), 4);
        assert_eq!(d(24, 2), 24);
        assert_eq!(d(4, 3), 3); // 27 ≥ 16 > 9
        assert_eq!(d(24, 32), 5);
        for b in MIN_BUCKET_BITS..=MAX_BUCKET_BITS {
            for m in MIN_FANOUT..=MAX_FANOUT {
                let p = MbtParams::new(b, m).unwrap();
                assert!(p.depth() <= MAX_DEPTH);
                // Every proof of these parameters has at most 5 kB of siblings.
                assert!(usize::from(p.depth()) * (usize::from(m) - 1) * 32 <= 5 * 1024);
            }
        }
    }

    #[test]
    fn slots_spell_the_bucket_in_base_m() {
        let p = MbtParams::new(4, 3).unwrap(); // depth 3: buckets 0..16 of 27 leaves
        // 14 = 1·9 + 1·3 + 2
        assert_eq!((0..3).map(|l| p.slot(14, l)).collect::<Vec<_>>(), [1, 1, 2]);
        assert_eq!(p.node_index(14, 3), 14);
        assert_eq!(p.node_index(14, 2), 4);
        assert_eq!(p.node_index(14, 0), 0);
        assert_eq!(p.first_bucket(2, 4), 12);
        let mut k = [0u8; 32];
        k[0] = 0xf0;
        assert_eq!(p.bucket_of_hash(&k), 15);
    }

    fn entry(k: u8, v: u8) -> Entry {
        Entry {
            key: B256::repeat_byte(k),
            value: [v; 32],
        }
    }

    #[test]
    fn proofs_round_trip() {
        let params = MbtParams::new(4, 3).unwrap();
        let p = MbtProof {
            params,
            key: B256::repeat_byte(1),
            entries: vec![entry(1, 2), entry(3, 4)],
            levels: vec![vec![B256::repeat_byte(9); 2]; 3],
        };
        assert_eq!(MbtProof::decode(&p.encode()).unwrap(), p);
        let d = DiffProof {
            params,
            root: DiffNode::Inner(vec![
                DiffNode::Same(B256::repeat_byte(1)),
                DiffNode::Inner(vec![
                    DiffNode::Same(B256::ZERO),
                    DiffNode::Inner(vec![
                        DiffNode::Bucket {
                            old: vec![],
                            new: vec![entry(5, 5)],
                        },
                        DiffNode::Same(B256::ZERO),
                        DiffNode::Same(B256::ZERO),
                    ]),
                    DiffNode::Same(B256::ZERO),
                ]),
                DiffNode::Same(B256::repeat_byte(2)),
            ]),
        };
        assert_eq!(DiffProof::decode(&d.encode()).unwrap(), d);
        let h = HistoryProof {
            params,
            key: B256::repeat_byte(1),
            lo: 3,
            hi: 4,
            levels: vec![vec![vec![B256::repeat_byte(7); 3]; 2]; 3],
            buckets: vec![vec![entry(1, 1)]],
        };
        assert_eq!(HistoryProof::decode(&h.encode()).unwrap(), h);
    }

    #[test]
    fn decoders_refuse_non_canonical_and_oversized_input() {
        let params = MbtParams::new(1, 2).unwrap();
        let p = MbtProof {
            params,
            key: B256::ZERO,
            entries: vec![entry(1, 0)],
            levels: vec![vec![B256::ZERO]],
        };
        assert_eq!(
            MbtProof::decode(&p.encode()).unwrap_err().field,
            "entries[0]"
        );
        let mut bytes = MbtProof {
            entries: vec![],
            ..p
        }
        .encode();
        bytes[35..39].copy_from_slice(&(MAX_BUCKET_ENTRIES + 1).to_be_bytes());
        assert_eq!(MbtProof::decode(&bytes).unwrap_err().field, "entries");
        let same = DiffProof {
            params,
            root: DiffNode::Inner(vec![DiffNode::Same(B256::ZERO); 2]),
        };
        assert_eq!(DiffProof::decode(&same.encode()).unwrap_err().field, "root");
        let equal = DiffProof {
            params,
            root: DiffNode::Inner(vec![
                DiffNode::Same(B256::ZERO),
                DiffNode::Bucket {
                    old: vec![entry(1, 1)],
                    new: vec![entry(1, 1)],
                },
            ]),
        };
        assert_eq!(
            DiffProof::decode(&equal.encode()).unwrap_err().field,
            "root.1"
        );
        let wide = HistoryProof {
            params,
            key: B256::ZERO,
            lo: 0,
            hi: MAX_HISTORY_BLOCKS,
            levels: vec![],
            buckets: vec![],
        };
        assert_eq!(
            HistoryProof::decode(&wide.encode()).unwrap_err().field,
            "hi"
        );
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod worked_example {
    use super::*;

    /// The worked example of docs/proofs.md: two buckets under one binary node (b = 1, m = 2),
    /// one key holding 5; its bucket is bucket 1 (keccak256 of the key starts with bit 1), and
    /// its sibling is the empty bucket.
    fn proof() -> (MbtProof, B256) {
        let p = MbtParams::new(1, 2).unwrap();
        let key = B256::repeat_byte(0x11);
        let mut five = [0u8; 32];
        five[31] = 5;
        let entries = vec![Entry { key, value: five }];
        let bucket = p.bucket_of(&key);
        let mut children = [hash::empty_bucket(&p); 2];
        children[bucket as usize] = hash::bucket(&p, bucket, &entries);
        let root = hash::inner(&p, 0, children.iter());
        let proof = MbtProof {
            params: p,
            key,
            entries,
            levels: vec![vec![hash::empty_bucket(&p)]],
        };
        (proof, root)
    }

    #[test]
    fn worked_example_of_docs_proofs_md() {
        let (proof, root) = proof();
        let p = proof.params;
        let hex = |b: &[u8]| {
            b.iter()
                .map(|x| alloc::format!("{x:02x}"))
                .collect::<alloc::string::String>()
        };
        let bytes = proof.encode();
        assert_eq!(p.bucket_of(&proof.key), 1);
        assert_eq!(
            alloc::format!("{}", hash::empty_bucket(&p)),
            "0x5a2f68bca079bac13db8022b00332297877a21ed2e8a69873969e68b7d13b29f"
        );
        assert_eq!(
            alloc::format!("{}", hash::bucket(&p, 1, &proof.entries)),
            "0xf02836ae466c5a005ad2f086c005fa6a04060bce8ee1182bdabba71ade0dbac3"
        );
        assert_eq!(
            alloc::format!("{root}"),
            "0x07b2a7a31b857ca7b66d378bf8a9ff6e152d3c7ed518c897e7a6f5153c57cbd4"
        );
        assert_eq!(bytes.len(), 136);
        assert_eq!(
            hex(&bytes[..39]),
            alloc::format!("010102{}00000001", "11".repeat(32))
        );
        assert_eq!(
            hex(&bytes[39..]),
            alloc::format!(
                "{}{}01{}",
                "11".repeat(32),
                "0".repeat(62) + "05",
                "5a2f68bca079bac13db8022b00332297877a21ed2e8a69873969e68b7d13b29f"
            )
        );
        assert_eq!(MbtProof::decode(&bytes).unwrap(), proof);
    }
}
