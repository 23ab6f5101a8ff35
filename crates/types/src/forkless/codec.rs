//! The forkless family's parameters, wire format and hashing rules (documented on the family
//! module).

use alloc::vec::Vec;

use crate::{
    Address, B256, DecodeError, Word,
    codec::{Reader, SpanSink, Spans, Writer, spanned},
};

/// The wire format version this module reads and writes.
pub const VERSION: u8 = 1;
/// The smallest page: one record of the widest file (a storage key record, 52 bytes) must fit.
pub const MIN_PAGE_SIZE: u32 = 64;
/// The largest page (bounds the bytes a proof carries per opened record).
pub const MAX_PAGE_SIZE: u32 = 1 << 16;
/// The largest branching factor of the hash trees over pages.
pub const MAX_FANOUT: u8 = 64;
/// The most levels a hash tree over pages may have (2^64 records need fewer at fanout 2).
pub const MAX_HEIGHT: u32 = 64;
/// The most entries a bucket of a key index may hold in a proof (the load factor bounds the
/// mean; keys can be ground to crowd one bucket, so the cap is far above it).
pub const MAX_BUCKET_ENTRIES: u32 = 4096;
/// The most links a history proof may carry.
pub const MAX_LINKS: u32 = 1 << 20;

/// The parameters a LiveDB is built with, bound into its state root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    /// Bytes of a page of an attribute file (the unit the hash trees hash), 64 ..= 65536.
    pub page_size: u32,
    /// Children of an inner node of the hash trees, 2 ..= 64.
    pub fanout: u8,
    /// Keys per bucket of the key indexes at which a bucket is split (linear hashing), ≥ 1.
    pub bucket_load: u8,
}

/// The defaults: 512-byte pages under binary trees. The paper pages its files by 4 KiB, a disk
/// page; here a page is only the unit the hash trees hash (the files are read and written
/// whole), and a proof carries whole pages and every sibling on its path, so both are chosen
/// from our page study (docs/benchmarks.md): 256 B to 1 KiB pages recompute the root fastest,
/// and at 512 B a fanout of 2 costs no block time against 4 KiB and 32 while a 128-block
/// history proof is 2.4× and a value proof 5.9× smaller.
impl Default for Params {
    fn default() -> Self {
        Self {
            page_size: 512,
            fanout: 2,
            bucket_load: 8,
        }
    }
}

impl Params {
    /// Checks the bounds; the error names the field.
    pub fn validate(&self) -> Result<(), DecodeError> {
        if !(MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&self.page_size) {
            return Err(DecodeError::new("params.pageSize", "not in 64..=65536"));
        }
        if !(2..=MAX_FANOUT).contains(&self.fanout) {
            return Err(DecodeError::new("params.fanout", "not in 2..=64"));
        }
        if self.bucket_load == 0 {
            return Err(DecodeError::new("params.bucketLoad", "zero"));
        }
        Ok(())
    }

    /// Records of `component` per page.
    pub const fn items_per_page(&self, component: Component) -> u64 {
        (self.page_size / component.item_size()) as u64
    }

    /// Bytes of a page of `component` that are hashed (whole records only).
    pub const fn page_bytes(&self, component: Component) -> usize {
        (self.page_size / component.item_size() * component.item_size()) as usize
    }

    /// Pages of a file of `count` records of `component`.
    pub const fn pages(&self, component: Component, count: u64) -> u64 {
        count.div_ceil(self.items_per_page(component))
    }

    /// The height of the hash tree over `pages` pages: the fewest levels of inner nodes above
    /// the pages such that `fanout^height ≥ pages` (0 for zero or one page).
    pub fn height(&self, pages: u64) -> u32 {
        let mut h = 0u32;
        let mut span: u128 = 1;
        while span < u128::from(pages) {
            span = span.saturating_mul(u128::from(self.fanout));
            h += 1;
        }
        h
    }

    /// Buckets of a key index holding `keys` keys: `max(1, ⌈keys / bucketLoad⌉)`.
    pub fn buckets(&self, keys: u64) -> u64 {
        keys.div_ceil(u64::from(self.bucket_load)).max(1)
    }
}

/// The files of a LiveDB, each a dense array of fixed-size records hashed by its own tree, in
/// the order their tree roots enter the state root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Component {
    /// Account record → address (the accounts' reverse table).
    AccountKeys = 0,
    /// Account record → balance.
    Balance = 1,
    /// Account record → nonce (u64).
    Nonce = 2,
    /// Account record → head of the balance's history chain.
    BalanceChain = 3,
    /// Account record → head of the nonce's history chain.
    NonceChain = 4,
    /// Slot record → address ‖ slot (the slots' reverse table).
    SlotKeys = 5,
    /// Slot record → storage value.
    SlotValue = 6,
    /// Slot record → head of the value's history chain.
    SlotChain = 7,
    /// Bucket number → hash of the accounts' index bucket.
    AccountBuckets = 8,
    /// Bucket number → hash of the slots' index bucket.
    SlotBuckets = 9,
}

impl Component {
    /// Every component, in state-root order.
    pub const ALL: [Component; 10] = [
        Self::AccountKeys,
        Self::Balance,
        Self::Nonce,
        Self::BalanceChain,
        Self::NonceChain,
        Self::SlotKeys,
        Self::SlotValue,
        Self::SlotChain,
        Self::AccountBuckets,
        Self::SlotBuckets,
    ];

    /// Bytes of one record.
    pub const fn item_size(self) -> u32 {
        match self {
            Self::AccountKeys => 20,
            Self::Nonce => 8,
            Self::SlotKeys => 52,
            _ => 32,
        }
    }

    /// Its place in [`Component::ALL`] and in the proof's list of tree roots.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The name the docs and error paths use.
    pub const fn name(self) -> &'static str {
        match self {
            Self::AccountKeys => "accountKeys",
            Self::Balance => "balance",
            Self::Nonce => "nonce",
            Self::BalanceChain => "balanceChain",
            Self::NonceChain => "nonceChain",
            Self::SlotKeys => "slotKeys",
            Self::SlotValue => "slotValue",
            Self::SlotChain => "slotChain",
            Self::AccountBuckets => "accountBuckets",
            Self::SlotBuckets => "slotBuckets",
        }
    }
}

/// A piece of state, as the LiveDB files it: an account attribute or a storage slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ForklessKey {
    /// An account's balance.
    Balance(Address),
    /// An account's nonce.
    Nonce(Address),
    /// A storage slot of an account.
    Storage(Address, B256),
}

impl ForklessKey {
    /// The wire/hash tag of the key's kind: 1 balance, 2 nonce, 3 storage (as the state keys of
    /// docs/architecture.md).
    pub const fn kind(&self) -> u8 {
        match self {
            Self::Balance(_) => 1,
            Self::Nonce(_) => 2,
            Self::Storage(..) => 3,
        }
    }

    /// The account the key belongs to.
    pub const fn address(&self) -> Address {
        match self {
            Self::Balance(a) | Self::Nonce(a) | Self::Storage(a, _) => *a,
        }
    }

    /// The reverse table holding the key's record.
    pub const fn keys_component(&self) -> Component {
        match self {
            Self::Storage(..) => Component::SlotKeys,
            _ => Component::AccountKeys,
        }
    }

    /// The file holding the key's value.
    pub const fn value_component(&self) -> Component {
        match self {
            Self::Balance(_) => Component::Balance,
            Self::Nonce(_) => Component::Nonce,
            Self::Storage(..) => Component::SlotValue,
        }
    }

    /// The file holding the head of the key's history chain.
    pub const fn chain_component(&self) -> Component {
        match self {
            Self::Balance(_) => Component::BalanceChain,
            Self::Nonce(_) => Component::NonceChain,
            Self::Storage(..) => Component::SlotChain,
        }
    }

    /// The index whose buckets prove the key's record absent.
    pub const fn buckets_component(&self) -> Component {
        match self {
            Self::Storage(..) => Component::SlotBuckets,
            _ => Component::AccountBuckets,
        }
    }

    /// The record the reverse table holds for this key: the address (20 bytes) or address ‖
    /// slot (52 bytes).
    pub fn record_key(&self) -> Vec<u8> {
        match self {
            Self::Balance(a) | Self::Nonce(a) => a.to_vec(),
            Self::Storage(a, s) => [a.as_slice(), s.as_slice()].concat(),
        }
    }

    /// The value as its file stores it, or `None` for a nonce over 64 bits (EIP-2681 caps them).
    pub fn value_record(&self, value: &Word) -> Option<Vec<u8>> {
        match self {
            Self::Nonce(_) => {
                let (high, low) = value.split_at(24);
                high.iter().all(|b| *b == 0).then(|| low.to_vec())
            }
            _ => Some(value.to_vec()),
        }
    }

    /// The value a record of the key's value file holds, as a 32-byte word.
    pub fn word_of_record(record: &[u8]) -> Word {
        let mut w = [0u8; 32];
        let n = record.len().min(32);
        if let (Some(dst), Some(src)) = (w.get_mut(32 - n..), record.get(record.len() - n..)) {
            dst.copy_from_slice(src);
        }
        w
    }

    fn encode(&self, w: &mut Writer) {
        w.u8(self.kind());
        w.raw(self.address().as_slice());
        if let Self::Storage(_, s) = self {
            w.raw(s.as_slice());
        }
    }

    fn read<K: SpanSink>(r: &mut Reader<'_, K>) -> Result<Self, DecodeError> {
        let kind = r.u8("key.kind")?;
        let a = Address::from(r.array::<20>("key.address")?);
        match kind {
            1 => Ok(Self::Balance(a)),
            2 => Ok(Self::Nonce(a)),
            3 => Ok(Self::Storage(a, r.b256("key.slot")?)),
            _ => Err(DecodeError::new(
                "key.kind",
                "not 1 (balance), 2 (nonce) or 3 (storage)",
            )),
        }
    }
}

/// One record opened in a file: the page holding it and the sibling hashes from that page up to
/// the top of the file's tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Records in the file (bound into the file's tree root; the tree's height follows from it).
    pub count: u64,
    /// The page's hashed bytes (records past `count` are zero).
    pub page: Vec<u8>,
    /// Per level, bottom up, the `fanout − 1` other children of the node on the path, left to
    /// right (the verifier places the path's own child at the position it computes).
    pub siblings: Vec<B256>,
}

/// Where the queried key stands in the index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Located {
    /// The key has record `record`: the reverse table's page holding the key at that record.
    Present {
        /// The record number.
        record: u64,
        /// The reverse table's opening at `record`.
        keys: Opening,
    },
    /// The key has no record: the whole bucket the key hashes to, and its place in the index's
    /// bucket file.
    Absent {
        /// The bucket's entries (record key, record number), in increasing key order.
        entries: Vec<(Vec<u8>, u64)>,
        /// The bucket file's opening at the bucket.
        buckets: Opening,
    },
}

/// One change of a key: the block that wrote it and the value written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// The block.
    pub block: u64,
    /// The value written (zero = deleted).
    pub value: Word,
}

/// The links of a key's history chain from the one in force at a range's first block up to the
/// chain's head, oldest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    /// The chain value before the oldest link given, or `None` when the oldest link is the key's
    /// first change (its predecessor is the constant `c₀`).
    pub base: Option<B256>,
    /// The links, oldest first.
    pub links: Vec<Link>,
}

/// What a proof proves about the key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Its value in the state the root commits: the value file's opening (present keys only).
    Value(Option<Opening>),
    /// Its history over `lo..=hi`: the chain file's opening and the chain (present keys only).
    History {
        /// First block of the range.
        lo: u64,
        /// Last block of the range.
        hi: u64,
        /// The chain head's opening and the links (present keys only).
        chain: Option<(Opening, Chain)>,
    },
}

/// A LiveDB proof: a key's value or history against a forkless state root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The key.
    pub key: ForklessKey,
    /// The LiveDB's parameters.
    pub params: Params,
    /// Every file's tree root, in [`Component::ALL`] order.
    pub roots: [B256; 10],
    /// The key's record, or the bucket proving it has none.
    pub located: Located,
    /// What is proven.
    pub claim: Claim,
}

const MAX_OPENING_SIBLINGS: usize = MAX_HEIGHT as usize * (MAX_FANOUT as usize - 1);

impl Proof {
    /// The wire encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(VERSION);
        self.key.encode(&mut w);
        w.u32(self.params.page_size);
        w.u8(self.params.fanout);
        w.u8(self.params.bucket_load);
        w.b256s(&self.roots);
        match &self.claim {
            Claim::Value(_) => w.u8(0),
            Claim::History { lo, hi, .. } => {
                w.u8(1);
                w.u64(*lo);
                w.u64(*hi);
            }
        }
        match &self.located {
            Located::Present { record, keys } => {
                w.u8(1);
                w.u64(*record);
                encode_opening(&mut w, keys);
            }
            Located::Absent { entries, buckets } => {
                w.u8(0);
                w.count_u32(entries.len());
                for (k, r) in entries {
                    w.raw(k);
                    w.u64(*r);
                }
                encode_opening(&mut w, buckets);
            }
        }
        match &self.claim {
            Claim::Value(Some(o)) => encode_opening(&mut w, o),
            Claim::History {
                chain: Some((o, c)),
                ..
            } => {
                encode_opening(&mut w, o);
                match &c.base {
                    None => w.u8(0),
                    Some(b) => {
                        w.u8(1);
                        w.raw(b.as_slice());
                    }
                }
                w.count_u32(c.links.len());
                for l in &c.links {
                    w.u64(l.block);
                    w.raw(&l.value);
                }
            }
            _ => {}
        }
        w.out
    }

    /// Decodes the wire encoding (one encoding per proof: nothing may follow it).
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        let p = Self::read(&mut r)?;
        r.finish("proof")?;
        Ok(p)
    }

    /// Decodes and records where each field sits (for the inspector).
    pub fn decode_with_spans(buf: &[u8]) -> Result<(Self, Spans), DecodeError> {
        spanned(buf, |r| {
            let p = Self::read(r)?;
            r.check_end("proof")?;
            Ok(p)
        })
    }

    fn read<K: SpanSink>(r: &mut Reader<'_, K>) -> Result<Self, DecodeError> {
        r.version(VERSION, "not 1")?;
        let start = r.pos();
        let key = ForklessKey::read(r)?;
        r.span(start, || "key".into());
        let start = r.pos();
        let params = Params {
            page_size: r.u32("params.pageSize")?,
            fanout: r.u8("params.fanout")?,
            bucket_load: r.u8("params.bucketLoad")?,
        };
        params.validate()?;
        r.span(start, || "params".into());
        let mut roots = [B256::ZERO; 10];
        for (c, root) in Component::ALL.iter().zip(roots.iter_mut()) {
            let start = r.pos();
            *root = r.b256("roots")?;
            r.span(start, || alloc::format!("roots.{}", c.name()));
        }
        let range = match r.u8("claim")? {
            0 => None,
            1 => {
                let lo = r.u64("claim.lo")?;
                let hi = r.u64("claim.hi")?;
                Some((lo, hi))
            }
            _ => return Err(DecodeError::new("claim", "not 0 (value) or 1 (history)")),
        };
        let located = match r.u8("located")? {
            1 => {
                let record = r.u64("located.record")?;
                let keys = read_opening(r, &params, key.keys_component(), "located.keys")?;
                Located::Present { record, keys }
            }
            0 => {
                let n = r.u32("located.entries")?;
                if n > MAX_BUCKET_ENTRIES {
                    return Err(DecodeError::new(
                        "located.entries",
                        "more than 4096 entries",
                    ));
                }
                let width = key.keys_component().item_size() as usize;
                let mut entries = Vec::new();
                for i in 0..n {
                    let start = r.pos();
                    let k = r.take(width, "located.entries")?.to_vec();
                    let rec = r.u64("located.entries")?;
                    r.span(start, || alloc::format!("located.entries[{i}]"));
                    entries.push((k, rec));
                }
                let buckets = read_opening(r, &params, key.buckets_component(), "located.buckets")?;
                Located::Absent { entries, buckets }
            }
            _ => return Err(DecodeError::new("located", "not 0 (absent) or 1 (present)")),
        };
        let present = matches!(located, Located::Present { .. });
        let claim = match range {
            None => Claim::Value(if present {
                Some(read_opening(
                    r,
                    &params,
                    key.value_component(),
                    "claim.value",
                )?)
            } else {
                None
            }),
            Some((lo, hi)) => {
                let chain = if present {
                    let head = read_opening(r, &params, key.chain_component(), "claim.head")?;
                    let base = match r.u8("claim.base")? {
                        0 => None,
                        1 => Some(r.b256("claim.base")?),
                        _ => {
                            return Err(DecodeError::new(
                                "claim.base",
                                "not 0 (from the first change) or 1 (a chain value)",
                            ));
                        }
                    };
                    let n = r.u32("claim.links")?;
                    if n > MAX_LINKS {
                        return Err(DecodeError::new("claim.links", "more than 2^20 links"));
                    }
                    if (n as usize).saturating_mul(40) > r.remaining() {
                        return Err(DecodeError::new("claim.links", "input ends early"));
                    }
                    let mut links = Vec::with_capacity(n as usize);
                    for i in 0..n {
                        let start = r.pos();
                        let block = r.u64("claim.links")?;
                        let value = r.array::<32>("claim.links")?;
                        r.span(start, || alloc::format!("claim.links[{i}]"));
                        links.push(Link { block, value });
                    }
                    Some((head, Chain { base, links }))
                } else {
                    None
                };
                Claim::History { lo, hi, chain }
            }
        };
        Ok(Self {
            key,
            params,
            roots,
            located,
            claim,
        })
    }
}

fn encode_opening(w: &mut Writer, o: &Opening) {
    w.u64(o.count);
    w.raw(&o.page);
    w.count_u16(o.siblings.len());
    w.b256s(&o.siblings);
}

fn read_opening<K: SpanSink>(
    r: &mut Reader<'_, K>,
    params: &Params,
    component: Component,
    field: &'static str,
) -> Result<Opening, DecodeError> {
    let start = r.pos();
    let count = r.u64(field)?;
    let page = r.take(params.page_bytes(component), field)?.to_vec();
    r.span(start, || alloc::format!("{field}.page"));
    let n = r.u16(field)? as usize;
    if n > MAX_OPENING_SIBLINGS {
        return Err(DecodeError::new(field, "more siblings than any tree has"));
    }
    let start = r.pos();
    let siblings = r.b256s(n, field)?;
    r.span(start, || alloc::format!("{field}.siblings"));
    Ok(Opening {
        count,
        page,
        siblings,
    })
}

/// Hashing rules shared by the engine, the verifier and the inspector (see the module docs).
pub mod hash {
    use super::{B256, Component, ForklessKey, Link, Opening, Params};
    use crate::codec::digest;
    use sha2::{Digest, Sha256};

    /// Domain byte of a page.
    pub const PAGE: u8 = 0x60;
    /// Domain byte of an inner node of a file's tree.
    pub const NODE: u8 = 0x61;
    /// Domain byte of an empty subtree.
    pub const EMPTY: u8 = 0x62;
    /// Domain byte of a file's tree root.
    pub const TREE: u8 = 0x63;
    /// Domain byte of the state root.
    pub const STATE: u8 = 0x64;
    /// Domain byte of a key's bucket selector.
    pub const BUCKET_OF: u8 = 0x65;
    /// Domain byte of a bucket.
    pub const BUCKET: u8 = 0x66;
    /// Domain byte of a history-chain link.
    pub const LINK: u8 = 0x67;
    /// Domain byte of the empty history chain `c₀`.
    pub const CHAIN_START: u8 = 0x68;

    /// A page of `component`: `0x60 ‖ component(u8) ‖ page bytes`.
    pub fn page(component: Component, bytes: &[u8]) -> B256 {
        let mut h = Sha256::new();
        h.update([PAGE, component as u8]);
        h.update(bytes);
        digest(h)
    }

    /// An inner node at `level` (≥ 1) over its children: `0x61 ‖ level(u8) ‖ child × fanout`.
    pub fn node<'a>(level: u32, children: impl IntoIterator<Item = &'a B256>) -> B256 {
        let mut h = Sha256::new();
        h.update([NODE, level as u8]);
        for c in children {
            h.update(c);
        }
        digest(h)
    }

    /// The hash standing for an absent subtree at `level` (0 = an absent page): `0x62 ‖ level(u8)`.
    pub fn empty(level: u32) -> B256 {
        digest(Sha256::new().chain_update([EMPTY, level as u8]))
    }

    /// A file's tree root: `0x63 ‖ component(u8) ‖ height(u8) ‖ count(u64) ‖ top`.
    pub fn tree(component: Component, height: u32, count: u64, top: &B256) -> B256 {
        let mut h = Sha256::new();
        h.update([TREE, component as u8, height as u8]);
        h.update(count.to_be_bytes());
        h.update(top);
        digest(h)
    }

    /// The state root: `0x64 ‖ pageSize(u32) ‖ fanout(u8) ‖ bucketLoad(u8) ‖ tree root × 10`.
    pub fn state(params: &Params, roots: &[B256; 10]) -> B256 {
        let mut h = Sha256::new();
        h.update([STATE]);
        h.update(params.page_size.to_be_bytes());
        h.update([params.fanout, params.bucket_load]);
        for r in roots {
            h.update(r);
        }
        digest(h)
    }

    /// The 64-bit selector a record key is bucketed by: the first 8 bytes of
    /// `0x65 ‖ component(u8) ‖ record key`, big-endian.
    pub fn selector(component: Component, record_key: &[u8]) -> u64 {
        let d = Sha256::new()
            .chain_update([BUCKET_OF, component as u8])
            .chain_update(record_key)
            .finalize();
        let mut b = [0u8; 8];
        for (dst, src) in b.iter_mut().zip(d.iter()) {
            *dst = *src;
        }
        u64::from_be_bytes(b)
    }

    /// The bucket of `selector` among `buckets` (linear hashing): with `L = ⌊log₂ buckets⌋`,
    /// `selector mod 2^(L+1)`, or `selector mod 2^L` when that is not below `buckets`.
    pub fn bucket_index(selector: u64, buckets: u64) -> u64 {
        let buckets = buckets.max(1);
        let level = 63 - buckets.leading_zeros();
        let wide = selector & mask(level + 1);
        if wide < buckets {
            wide
        } else {
            selector & mask(level)
        }
    }

    fn mask(bits: u32) -> u64 {
        if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        }
    }

    /// A bucket: `0x66 ‖ component(u8) ‖ bucket(u64) ‖ n(u32) ‖ (record key ‖ record(u64)) × n`.
    pub fn bucket<'a>(
        component: Component,
        index: u64,
        entries: impl ExactSizeIterator<Item = (&'a [u8], u64)>,
    ) -> B256 {
        let mut h = Sha256::new();
        h.update([BUCKET, component as u8]);
        h.update(index.to_be_bytes());
        h.update((entries.len() as u32).to_be_bytes());
        for (k, r) in entries {
            h.update(k);
            h.update(r.to_be_bytes());
        }
        digest(h)
    }

    /// The tree root an opening of `record` of `component` recomputes: its page placed at the
    /// position the record number gives, hashed up through its siblings, bound to the file's
    /// count and height. `None` if the opening does not hold `height × (fanout − 1)` siblings
    /// for the height its count implies, or the parameters are out of bounds.
    pub fn opening_root(
        params: &Params,
        component: Component,
        record: u64,
        o: &Opening,
    ) -> Option<B256> {
        params.validate().ok()?;
        let fanout = usize::from(params.fanout);
        let height = params.height(params.pages(component, o.count));
        let per_level = fanout - 1;
        if o.siblings.len() != height as usize * per_level {
            return None;
        }
        let mut pos = record / params.items_per_page(component);
        let mut h = page(component, &o.page);
        let mut children: alloc::vec::Vec<B256> = alloc::vec::Vec::with_capacity(fanout);
        for (level, siblings) in (1..=height).zip(o.siblings.chunks_exact(per_level)) {
            let at = (pos % u64::from(params.fanout)) as usize;
            children.clear();
            children.extend(siblings.iter().take(at));
            children.push(h);
            children.extend(siblings.iter().skip(at));
            h = node(level, &children);
            pos /= u64::from(params.fanout);
        }
        Some(tree(component, height, o.count, &h))
    }

    /// `c₀`, the chain before a key's first change: `0x68`.
    pub fn chain_start() -> B256 {
        digest(Sha256::new().chain_update([CHAIN_START]))
    }

    /// The next chain value: `0x67 ‖ kind(u8) ‖ address(20) ‖ [slot(32)] ‖ block(u64) ‖
    /// value(32) ‖ previous`.
    pub fn link(key: &ForklessKey, link: &Link, previous: &B256) -> B256 {
        let mut h = Sha256::new();
        h.update([LINK, key.kind()]);
        h.update(key.address());
        if let ForklessKey::Storage(_, s) = key {
            h.update(s);
        }
        h.update(link.block.to_be_bytes());
        h.update(link.value);
        h.update(previous);
        digest(h)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn heights_follow_page_counts() {
        let p = Params {
            fanout: 4,
            ..Params::default()
        };
        assert_eq!(
            [0, 1, 2, 4, 5, 16, 17].map(|n| p.height(n)),
            [0, 0, 1, 1, 2, 2, 3]
        );
    }

    #[test]
    fn linear_hashing_splits_one_bucket_at_a_time() {
        // With 3 buckets, selectors ending in 0b11 fold back to bucket 1; with 4 they get their own.
        assert_eq!(hash::bucket_index(0b111, 3), 1);
        assert_eq!(hash::bucket_index(0b111, 4), 3);
        assert_eq!(hash::bucket_index(0b110, 3), 2);
        assert_eq!(hash::bucket_index(12345, 1), 0);
        for n in 1..40u64 {
            for s in 0..200u64 {
                assert!(hash::bucket_index(s, n) < n);
            }
        }
    }

    #[test]
    fn nonces_over_64_bits_have_no_record() {
        let k = ForklessKey::Nonce(Address::ZERO);
        let mut w = [0u8; 32];
        w[31] = 7;
        assert_eq!(
            k.value_record(&w),
            Some(alloc::vec![0, 0, 0, 0, 0, 0, 0, 7])
        );
        w[0] = 1;
        assert_eq!(k.value_record(&w), None);
        assert_eq!(
            ForklessKey::word_of_record(&[0, 0, 0, 0, 0, 0, 0, 7])[31],
            7
        );
    }

    #[test]
    fn decoding_any_prefix_of_a_proof_fails_cleanly() {
        let params = Params {
            page_size: 64,
            fanout: 2,
            bucket_load: 2,
        };
        let opening = |c: Component| Opening {
            count: 3,
            page: alloc::vec![7; params.page_bytes(c)],
            siblings: alloc::vec![B256::repeat_byte(1); 2],
        };
        let key = ForklessKey::Storage(Address::repeat_byte(2), B256::repeat_byte(3));
        let proof = Proof {
            key,
            params,
            roots: [B256::repeat_byte(9); 10],
            located: Located::Present {
                record: 1,
                keys: opening(Component::SlotKeys),
            },
            claim: Claim::History {
                lo: 1,
                hi: 5,
                chain: Some((
                    opening(Component::SlotChain),
                    Chain {
                        base: Some(B256::repeat_byte(4)),
                        links: alloc::vec![Link {
                            block: 2,
                            value: [5; 32]
                        }],
                    },
                )),
            },
        };
        let bytes = proof.encode();
        assert_eq!(Proof::decode(&bytes).unwrap(), proof);
        for n in 0..bytes.len() {
            assert!(Proof::decode(&bytes[..n]).is_err(), "prefix of {n} bytes");
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(Proof::decode(&long).is_err());
    }
}
