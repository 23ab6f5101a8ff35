//! A key index committed by bucket: linear hashing over a tagged hash of the record key, one
//! bucket split each time the keys outgrow `bucketLoad` per bucket. The buckets' hashes are the
//! records of the index's bucket file, so a key with no record is proven absent by its bucket.

use std::collections::{BTreeSet, HashMap};

use lightprov_types::forkless::{Component, Params, hash};

/// One index: record key → record number, and the same entries by bucket.
#[derive(Debug)]
pub(crate) struct Index {
    /// The reverse table this index belongs to (its tag in every hash).
    component: Component,
    params: Params,
    records: HashMap<Vec<u8>, u64>,
    /// Per bucket, its entries sorted by key, with their selectors.
    buckets: Vec<Vec<(Vec<u8>, u64, u64)>>,
    /// Buckets changed since the last [`Index::take_dirty`].
    dirty: BTreeSet<u64>,
}

impl Index {
    pub(crate) fn new(component: Component, params: Params) -> Self {
        Self {
            component,
            params,
            records: HashMap::new(),
            buckets: vec![Vec::new()],
            dirty: BTreeSet::from([0]),
        }
    }

    /// The record of `key`.
    pub(crate) fn get(&self, key: &[u8]) -> Option<u64> {
        self.records.get(key).copied()
    }

    /// Keys held.
    pub(crate) fn len(&self) -> u64 {
        self.records.len() as u64
    }

    /// Adds `key` with record `record` (the next record number).
    pub(crate) fn insert(&mut self, key: Vec<u8>, record: u64) {
        self.records.insert(key.clone(), record);
        let target = self.params.buckets(self.len());
        while (self.buckets.len() as u64) < target {
            self.split();
        }
        let selector = hash::selector(self.component, &key);
        let b = hash::bucket_index(selector, self.buckets.len() as u64);
        if let Some(bucket) = self.buckets.get_mut(b as usize) {
            let at = bucket.partition_point(|(k, _, _)| *k < key);
            bucket.insert(at, (key, record, selector));
        }
        self.dirty.insert(b);
    }

    /// Adds bucket `n`, moving to it the entries of the bucket it splits.
    fn split(&mut self) {
        let n = self.buckets.len() as u64;
        let level = 63 - n.leading_zeros();
        let from = n - (1u64 << level);
        let mut moved = Vec::new();
        if let Some(bucket) = self.buckets.get_mut(from as usize) {
            let (stay, go): (Vec<_>, Vec<_>) = std::mem::take(bucket)
                .into_iter()
                .partition(|(_, _, s)| hash::bucket_index(*s, n + 1) == from);
            *bucket = stay;
            moved = go;
        }
        self.buckets.push(moved);
        self.dirty.insert(from);
        self.dirty.insert(n);
    }

    /// Buckets.
    pub(crate) fn bucket_count(&self) -> u64 {
        self.buckets.len() as u64
    }

    /// The hash of bucket `b`.
    pub(crate) fn bucket_hash(&self, b: u64) -> lightprov_types::B256 {
        let entries = self
            .buckets
            .get(b as usize)
            .map_or(&[][..], |v| v.as_slice());
        hash::bucket(
            self.component,
            b,
            entries.iter().map(|(k, r, _)| (k.as_slice(), *r)),
        )
    }

    /// The entries of bucket `b`.
    pub(crate) fn bucket(&self, b: u64) -> Vec<(Vec<u8>, u64)> {
        self.buckets
            .get(b as usize)
            .map(|v| v.iter().map(|(k, r, _)| (k.clone(), *r)).collect())
            .unwrap_or_default()
    }

    /// The bucket `key` falls in.
    pub(crate) fn bucket_of(&self, key: &[u8]) -> u64 {
        hash::bucket_index(hash::selector(self.component, key), self.bucket_count())
    }

    /// The buckets changed since the last call.
    pub(crate) fn take_dirty(&mut self) -> BTreeSet<u64> {
        std::mem::take(&mut self.dirty)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_stays_in_the_bucket_its_key_hashes_to() {
        let params = Params {
            bucket_load: 3,
            ..Params::default()
        };
        let mut ix = Index::new(Component::AccountKeys, params);
        for i in 0..500u32 {
            ix.insert(i.to_be_bytes().repeat(5), u64::from(i));
            assert_eq!(ix.bucket_count(), params.buckets(ix.len()));
            if i % 37 == 0 || i == 499 {
                for (b, bucket) in ix.buckets.iter().enumerate() {
                    assert!(bucket.windows(2).all(|w| w[0].0 < w[1].0));
                    for (k, _, _) in bucket {
                        assert_eq!(ix.bucket_of(k), b as u64);
                    }
                }
            }
        }
        assert_eq!(ix.get(&7u32.to_be_bytes().repeat(5)), Some(7));
    }
}
