//! A stored node and its record: `0x01 ‖ child × m` for an inner node, `0x02 ‖ (key ‖ value) × n`
//! for a non-empty bucket. The level and bucket index are not stored: the reader knows the level
//! it reads at, a bucket's index is its first key's, and both are inside the hash the record is
//! stored under — checked on every read, so a damaged store is refused, never proven from.

use alloy_primitives::B256;
use lightprov_types::{
    Word,
    mbt::{Entry, MbtParams, hash},
};

use crate::MbtEngineError;

/// A node of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// An inner node's `m` children.
    Inner(Vec<B256>),
    /// A bucket's entries, in key order.
    Bucket(Vec<Entry>),
}

const INNER: u8 = 1;
const BUCKET: u8 = 2;

impl Node {
    /// The node's record.
    pub(crate) fn encode(&self) -> Vec<u8> {
        match self {
            Self::Inner(children) => {
                let mut out = Vec::with_capacity(1 + 32 * children.len());
                out.push(INNER);
                for c in children {
                    out.extend_from_slice(c.as_slice());
                }
                out
            }
            Self::Bucket(entries) => {
                let mut out = Vec::with_capacity(1 + 64 * entries.len());
                out.push(BUCKET);
                for e in entries {
                    out.extend_from_slice(e.key.as_slice());
                    out.extend_from_slice(&e.value);
                }
                out
            }
        }
    }

    /// Decodes the record stored under `h` for a node of `level`, checking it hashes to `h`.
    pub(crate) fn decode(
        p: &MbtParams,
        bytes: &[u8],
        level: u8,
        h: &B256,
    ) -> Result<Self, &'static str> {
        let (node, found) = match bytes.split_first() {
            Some((&INNER, rest)) if level < p.depth() => {
                if rest.len() != 32 * usize::from(p.fanout()) {
                    return Err("an inner node of another width");
                }
                let children: Vec<B256> = rest.chunks_exact(32).map(B256::from_slice).collect();
                let found = hash::inner(p, level, children.iter());
                (Self::Inner(children), found)
            }
            Some((&BUCKET, rest)) if level == p.depth() => {
                if rest.is_empty() || rest.len() % 64 != 0 {
                    return Err("a bucket record of a partial entry");
                }
                let entries: Vec<Entry> = rest
                    .chunks_exact(64)
                    .map(|c| {
                        let (k, v) = c.split_at(32);
                        let mut value = [0u8; 32];
                        value.copy_from_slice(v);
                        Entry {
                            key: B256::from_slice(k),
                            value,
                        }
                    })
                    .collect();
                let bucket = entries.first().map_or(0, |e| p.bucket_of(&e.key));
                let found = hash::bucket(p, bucket, &entries);
                (Self::Bucket(entries), found)
            }
            _ => return Err("a record of another kind than its level's"),
        };
        if found != *h {
            return Err("does not hash to its key");
        }
        Ok(node)
    }

    /// Child `slot` of an inner node.
    pub(crate) fn child(&self, slot: usize) -> Result<B256, MbtEngineError> {
        self.children()?
            .get(slot)
            .copied()
            .ok_or_else(|| MbtEngineError::Corrupt(format!("no child slot {slot}")))
    }

    /// An inner node's children.
    pub(crate) fn children(&self) -> Result<&[B256], MbtEngineError> {
        match self {
            Self::Inner(c) => Ok(c),
            Self::Bucket(_) => Err(MbtEngineError::Corrupt("a bucket above the buckets".into())),
        }
    }

    /// A bucket's entries.
    pub(crate) fn entries(&self) -> Result<&[Entry], MbtEngineError> {
        match self {
            Self::Bucket(e) => Ok(e),
            Self::Inner(_) => Err(MbtEngineError::Corrupt(
                "an inner node at the buckets' level".into(),
            )),
        }
    }

    /// A bucket's value for `key`.
    pub(crate) fn lookup(&self, key: &B256) -> Option<Word> {
        let entries = self.entries().ok()?;
        let i = entries.binary_search_by(|e| e.key.cmp(key)).ok()?;
        entries.get(i).map(|e| e.value)
    }
}
