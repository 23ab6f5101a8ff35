//! The cole family's wire format and hashing rules (documented on the family module).

use alloc::{string::String, vec::Vec};

use crate::{
    B256, DecodeError, Word,
    codec::{Reader, SpanSink, Spans, Writer, spanned},
};

/// The wire format version this module reads and writes.
pub const VERSION: u8 = 1;
/// The highest tree a proof may describe (a run of 4^32 entries is far beyond any disk).
pub const MAX_HEIGHT: u8 = 32;
/// The smallest fanout: a B+-tree of fanout 2 cannot stay balanced (a split leaves a full node).
pub const MIN_FANOUT: u8 = 3;
/// The most parts (structures searched or skipped) a proof may hold: far above the levels × runs
/// of any store (COLE at T = 4 has 4 runs per level and 17 levels at 2^40 entries), and the
/// bound on a verifier's work for one proof.
pub const MAX_PARTS: u16 = 1024;
const _: () = assert!(MAX_PARTS == 1024, "the decoder's message names the limit");

/// One version of one state key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Entry {
    /// The state key.
    pub key: B256,
    /// The block that wrote the value.
    pub block: u64,
    /// The value written (zero = deleted).
    pub value: Word,
}

impl Entry {
    /// The compound key ⟨stateKey, block⟩ the entry is sorted by.
    pub fn compound(&self) -> (B256, u64) {
        (self.key, self.block)
    }
}

/// A Merkle tree with some subtrees pruned to their hashes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tree {
    /// A revealed entry.
    Leaf(Entry),
    /// A pruned subtree (an entry or an inner node).
    Hash(B256),
    /// An inner node and its children, left to right.
    Node(Vec<Tree>),
}

/// What kind of structure a searched part proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructureKind {
    /// An in-memory MB-tree group of level 0.
    MbTree,
    /// An on-disk sorted run; `bloom` is the hash of its Bloom filter.
    Run {
        /// SHA-256 commitment to the run's Bloom filter over state keys.
        bloom: B256,
    },
}

/// One structure searched by the query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structure {
    /// MB-tree or run.
    pub kind: StructureKind,
    /// Entries in the structure (≥ 1).
    pub n: u64,
    /// Inner-node levels above the entries.
    pub height: u8,
    /// The partial tree.
    pub tree: Tree,
}

/// One element of the structure list, in search order (newest first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    /// A structure the query searched.
    Searched(Structure),
    /// A structure after the early stop: its digest only.
    Skipped(B256),
}

/// A provenance proof for `key` over blocks `lo..=hi`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryProof {
    /// The state key.
    pub key: B256,
    /// First block of the range.
    pub lo: u64,
    /// Last block of the range.
    pub hi: u64,
    /// The tree fanout `m` the state was built with.
    pub fanout: u8,
    /// Every structure of the state, newest first.
    pub parts: Vec<Part>,
}

impl HistoryProof {
    /// The wire encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(VERSION);
        w.raw(self.key.as_slice());
        w.u64(self.lo);
        w.u64(self.hi);
        w.u8(self.fanout);
        w.count_u16(self.parts.len());
        for part in &self.parts {
            match part {
                Part::Searched(s) => {
                    match s.kind {
                        StructureKind::MbTree => {
                            w.u8(0);
                            w.u64(s.n);
                            w.u8(s.height);
                        }
                        StructureKind::Run { bloom } => {
                            w.u8(1);
                            w.u64(s.n);
                            w.u8(s.height);
                            w.raw(bloom.as_slice());
                        }
                    }
                    encode_tree(&mut w, &s.tree, &self.key);
                }
                Part::Skipped(d) => {
                    w.u8(2);
                    w.raw(d.as_slice());
                }
            }
        }
        w.out
    }

    /// Decodes the one accepted encoding.
    pub fn decode(buf: &[u8]) -> Result<Self, DecodeError> {
        Self::read(&mut Reader::new(buf))
    }

    /// [`HistoryProof::decode`], also reporting where each element sits: `parts[i]` (a whole
    /// part), `parts[i].tree` (a searched structure's tree) and its subtrees `parts[i].tree.j`,
    /// `parts[i].tree.j.k`, … (child `j`, then its child `k`).
    pub fn decode_with_spans(buf: &[u8]) -> Result<(Self, Spans), DecodeError> {
        spanned(buf, Self::read)
    }

    fn read<K: SpanSink>(r: &mut Reader<'_, K>) -> Result<Self, DecodeError> {
        let buf_len = r.pos() + r.remaining();
        r.version(VERSION, "unsupported version")?;
        let key = r.b256("stateKey")?;
        let lo = r.u64("lo")?;
        let hi = r.u64("hi")?;
        let fanout = r.u8("fanout")?;
        if fanout < MIN_FANOUT {
            return Err(DecodeError::new("fanout", "must be at least 3"));
        }
        // Each part takes at least 33 input bytes, and the buffer is reserved for no more parts
        // than the input can hold (a count of 1024 would otherwise reserve tens of kilobytes
        // for a proof of a few bytes).
        let count = r.u16("count")?;
        if count > MAX_PARTS {
            return Err(DecodeError::new("count", "more than 1024 parts"));
        }
        let mut parts = Vec::with_capacity(usize::from(count).min(buf_len / 33));
        for i in 0..count {
            let field = |name: &str| alloc::format!("parts[{i}].{name}");
            let start = r.pos();
            let part = match r.u8(&field("kind"))? {
                k @ (0 | 1) => {
                    let n = r.u64(&field("n"))?;
                    if n == 0 {
                        return Err(DecodeError::new(field("n"), "a structure is never empty"));
                    }
                    let height = r.u8(&field("height"))?;
                    if height > MAX_HEIGHT {
                        return Err(DecodeError::new(field("height"), "too high"));
                    }
                    let kind = if k == 0 {
                        StructureKind::MbTree
                    } else {
                        StructureKind::Run {
                            bloom: r.b256(&field("bloom"))?,
                        }
                    };
                    let path = if r.recording() {
                        field("tree")
                    } else {
                        String::new()
                    };
                    let tree = decode_tree(r, &key, height, &field("tree"), &path)?;
                    Part::Searched(Structure {
                        kind,
                        n,
                        height,
                        tree,
                    })
                }
                2 => Part::Skipped(r.b256(&field("digest"))?),
                _ => return Err(DecodeError::new(field("kind"), "unknown part kind")),
            };
            r.span(start, || alloc::format!("parts[{i}]"));
            parts.push(part);
        }
        r.check_end("proof")?;
        Ok(Self {
            key,
            lo,
            hi,
            fanout,
            parts,
        })
    }
}

fn encode_tree(w: &mut Writer, t: &Tree, key: &B256) {
    match t {
        Tree::Leaf(e) if e.key == *key => {
            w.u8(1);
            w.u64(e.block);
            w.raw(&e.value);
        }
        Tree::Leaf(e) => {
            w.u8(0);
            w.raw(e.key.as_slice());
            w.u64(e.block);
            w.raw(&e.value);
        }
        Tree::Hash(h) => {
            w.u8(2);
            w.raw(h.as_slice());
        }
        Tree::Node(children) => {
            w.u8(3);
            w.count_u8(children.len());
            for c in children {
                encode_tree(w, c, key);
            }
        }
    }
}

/// Decodes a tree no deeper than `budget` inner levels (so recursion is bounded by
/// [`MAX_HEIGHT`]).
/// `path` names the tree's span (empty when the reader records none).
fn decode_tree<K: SpanSink>(
    r: &mut Reader<'_, K>,
    key: &B256,
    budget: u8,
    field: &str,
    path: &str,
) -> Result<Tree, DecodeError> {
    let start = r.pos();
    let tree = match r.u8(field)? {
        0 => {
            let k = r.b256(field)?;
            if k == *key {
                return Err(DecodeError::new(
                    field,
                    "an entry of the proof's key must use the short form",
                ));
            }
            Tree::Leaf(Entry {
                key: k,
                block: r.u64(field)?,
                value: r.array::<32>(field)?,
            })
        }
        1 => Tree::Leaf(Entry {
            key: *key,
            block: r.u64(field)?,
            value: r.array::<32>(field)?,
        }),
        2 => Tree::Hash(r.b256(field)?),
        3 => {
            let Some(budget) = budget.checked_sub(1) else {
                return Err(DecodeError::new(field, "tree is higher than its height"));
            };
            let arity = r.u8(field)?;
            if arity == 0 {
                return Err(DecodeError::new(field, "inner node without children"));
            }
            let mut children = Vec::with_capacity(usize::from(arity));
            for j in 0..arity {
                let sub = if r.recording() {
                    alloc::format!("{path}.{j}")
                } else {
                    String::new()
                };
                children.push(decode_tree(r, key, budget, field, &sub)?);
            }
            Tree::Node(children)
        }
        _ => return Err(DecodeError::new(field, "unknown tree node kind")),
    };
    r.span(start, || String::from(path));
    Ok(tree)
}

/// Hashing rules shared by the engine and the verifier (see the module docs).
pub mod hash {
    use super::{B256, Entry};
    use crate::codec::digest;
    use sha2::{Digest, Sha256};

    /// Domain byte of an entry.
    pub const LEAF: u8 = 0x00;
    /// Domain byte of an inner node.
    pub const NODE: u8 = 0x01;
    /// Domain byte of an MB-tree digest.
    pub const MBTREE: u8 = 0x02;
    /// Domain byte of a run digest.
    pub const RUN: u8 = 0x03;
    /// Domain byte of `H_state`.
    pub const STATE: u8 = 0x04;
    /// Domain byte of a Bloom filter commitment.
    pub const BLOOM: u8 = 0x05;
    /// Domain byte of the header's `coleRoot`.
    pub const HEADER: u8 = 0x06;

    /// The hash of an entry.
    pub fn leaf(e: &Entry) -> B256 {
        let mut h = Sha256::new();
        h.update([LEAF]);
        h.update(e.key);
        h.update(e.block.to_be_bytes());
        h.update(e.value);
        digest(h)
    }

    /// The hash of an inner node over its children's hashes.
    pub fn node<'a>(children: impl IntoIterator<Item = &'a B256>) -> B256 {
        let mut h = Sha256::new();
        h.update([NODE]);
        for c in children {
            h.update(c);
        }
        digest(h)
    }

    /// The digest of an MB-tree of `n` entries.
    pub fn mbtree_digest(n: u64, height: u8, root: &B256) -> B256 {
        let mut h = Sha256::new();
        h.update([MBTREE]);
        h.update(n.to_be_bytes());
        h.update([height]);
        h.update(root);
        digest(h)
    }

    /// The digest of a run of `n` entries.
    pub fn run_digest(n: u64, height: u8, root: &B256, bloom: &B256) -> B256 {
        let mut h = Sha256::new();
        h.update([RUN]);
        h.update(n.to_be_bytes());
        h.update([height]);
        h.update(root);
        h.update(bloom);
        digest(h)
    }

    /// The commitment to a Bloom filter's parameters and bits.
    pub fn bloom(hashes: u8, bits: &[u8]) -> B256 {
        let mut h = Sha256::new();
        h.update([BLOOM, hashes]);
        h.update((bits.len() as u64).to_be_bytes());
        h.update(bits);
        digest(h)
    }

    /// `H_state` over the digests of every structure, newest first.
    pub fn state<'a>(fanout: u8, digests: impl ExactSizeIterator<Item = &'a B256>) -> B256 {
        let mut h = Sha256::new();
        h.update([STATE, fanout]);
        h.update(
            u16::try_from(digests.len())
                .unwrap_or(u16::MAX)
                .to_be_bytes(),
        );
        for d in digests {
            h.update(d);
        }
        digest(h)
    }

    /// The header's `coleRoot`: one commitment to the `H_state` of COLE and of COLE* (a node
    /// runs both over the same writes; zero stands for an engine it does not run).
    pub fn header_root(cole: &B256, cole_star: &B256) -> B256 {
        let mut h = Sha256::new();
        h.update([HEADER]);
        h.update(cole);
        h.update(cole_star);
        digest(h)
    }

    /// The height of an `m`-ary complete Merkle tree over `n` entries (Alg. 4): the least `h`
    /// with `m^h ≥ n`.
    pub fn complete_height(n: u64, m: u8) -> u8 {
        let mut h = 0u8;
        let mut cap: u128 = 1;
        while cap < u128::from(n) {
            cap = cap.saturating_mul(u128::from(m.max(2)));
            h = h.saturating_add(1);
        }
        h
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// A proof of `n` skipped structures (the smallest parts).
    fn skipped(n: usize) -> HistoryProof {
        HistoryProof {
            key: B256::repeat_byte(1),
            lo: 0,
            hi: 9,
            fanout: 4,
            parts: (0..n)
                .map(|i| Part::Skipped(B256::with_last_byte(i as u8)))
                .collect(),
        }
    }

    #[test]
    fn at_most_max_parts() {
        let at = skipped(usize::from(MAX_PARTS));
        assert_eq!(HistoryProof::decode(&at.encode()).unwrap(), at);
        let over = skipped(usize::from(MAX_PARTS) + 1).encode();
        let e = HistoryProof::decode(&over).unwrap_err();
        assert_eq!(e.field, "count");
        assert_eq!(e.code(), crate::ErrorCode::BadEncoding);
    }

    /// The worked example of docs/proofs.md: level 0 holds two versions of one key; the proof of
    /// blocks 2..=3 reveals both (the version at block 1 is the left neighbour).
    fn worked_example() -> HistoryProof {
        let key = B256::repeat_byte(0x11);
        let word = |v: u8| {
            let mut w = [0u8; 32];
            w[31] = v;
            w
        };
        HistoryProof {
            key,
            lo: 2,
            hi: 3,
            fanout: 4,
            parts: alloc::vec![Part::Searched(Structure {
                kind: StructureKind::MbTree,
                n: 2,
                height: 1,
                tree: Tree::Node(alloc::vec![
                    Tree::Leaf(Entry {
                        key,
                        block: 1,
                        value: word(5)
                    }),
                    Tree::Leaf(Entry {
                        key,
                        block: 3,
                        value: word(7)
                    }),
                ]),
            })],
        }
    }

    #[test]
    fn worked_example_of_docs_proofs_md() {
        let p = worked_example();
        let bytes = p.encode();
        let hex = |b: &[u8]| {
            b.iter()
                .map(|x| alloc::format!("{x:02x}"))
                .collect::<String>()
        };
        assert_eq!(bytes.len(), 146);
        assert_eq!(
            hex(&bytes[..52]),
            alloc::format!("01{}{:016x}{:016x}040001", "11".repeat(32), 2, 3)
        );
        assert_eq!(hex(&bytes[52..64]), "000000000000000002010302");
        assert_eq!(HistoryProof::decode(&bytes).unwrap(), p);
        let Part::Searched(s) = &p.parts[0] else {
            unreachable!()
        };
        let Tree::Node(leaves) = &s.tree else {
            unreachable!()
        };
        let hashes: alloc::vec::Vec<B256> = leaves
            .iter()
            .map(|l| match l {
                Tree::Leaf(e) => hash::leaf(e),
                _ => unreachable!(),
            })
            .collect();
        let root = hash::node(hashes.iter());
        let digest = hash::mbtree_digest(2, 1, &root);
        let h_state = hash::state(4, [digest].iter());
        assert_eq!(
            alloc::format!("{h_state}"),
            "0x3c67a7aae3e67dee7beaef66fc77b527b6a34b8b6a59add481972af272bcd99e"
        );
    }
}
