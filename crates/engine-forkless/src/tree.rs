//! A file of fixed-size records and the paged hash tree over it (paper §3.1–§3.2), kept in
//! memory and recomputed lazily: a write marks its page dirty, and [`Records::rehash`] at block
//! end rehashes the dirty pages and their ancestors only.

use std::collections::BTreeSet;

use lightprov_types::{
    B256,
    forkless::{Component, Opening, Params, hash},
};

/// One file: its records, densely, and its tree.
#[derive(Debug)]
pub(crate) struct Records {
    pub(crate) component: Component,
    params: Params,
    item: usize,
    ipp: u64,
    /// `count × item` bytes.
    pub(crate) bytes: Vec<u8>,
    /// Pages written since the last rehash.
    dirty: BTreeSet<u64>,
    /// Pages written since the last flush to disk.
    pub(crate) unflushed: BTreeSet<u64>,
    /// `levels[0]` are the page hashes, `levels[l]` the inner nodes of level `l`.
    levels: Vec<Vec<B256>>,
    /// The empty-subtree constant of each level.
    empty: Vec<B256>,
}

impl Records {
    pub(crate) fn new(component: Component, params: Params) -> Self {
        Self {
            component,
            params,
            item: component.item_size() as usize,
            ipp: params.items_per_page(component),
            bytes: Vec::new(),
            dirty: BTreeSet::new(),
            unflushed: BTreeSet::new(),
            levels: vec![Vec::new()],
            empty: vec![hash::empty(0)],
        }
    }

    /// Records held.
    pub(crate) fn count(&self) -> u64 {
        (self.bytes.len() / self.item) as u64
    }

    /// Record `r`'s bytes (empty past the end).
    pub(crate) fn get(&self, r: u64) -> &[u8] {
        let at = r as usize * self.item;
        self.bytes.get(at..at + self.item).unwrap_or(&[])
    }

    /// Writes record `r` (growing the file by zero records up to it).
    pub(crate) fn set(&mut self, r: u64, value: &[u8]) {
        let at = r as usize * self.item;
        if self.bytes.len() < at + self.item {
            // Records skipped over are zero, and their pages new: hash them too.
            let from = self.count() / self.ipp;
            self.bytes.resize(at + self.item, 0);
            self.dirty.extend(from..r / self.ipp);
            self.unflushed.extend(from..r / self.ipp);
        }
        if let Some(dst) = self.bytes.get_mut(at..at + self.item) {
            let n = value.len().min(self.item);
            dst.fill(0);
            if let Some(d) = dst.get_mut(self.item - n..) {
                d.copy_from_slice(value.get(value.len() - n..).unwrap_or(&[]));
            }
        }
        let page = r / self.ipp;
        self.dirty.insert(page);
        self.unflushed.insert(page);
    }

    /// Replaces the whole content (at open), every page dirty for the next rehash.
    pub(crate) fn load(&mut self, bytes: Vec<u8>) {
        self.bytes = bytes;
        self.levels = vec![Vec::new()];
        self.dirty = (0..self.pages()).collect();
    }

    fn pages(&self) -> u64 {
        self.params.pages(self.component, self.count())
    }

    /// The hashed bytes of page `p` (records past the count are zero).
    pub(crate) fn page(&self, p: u64) -> Vec<u8> {
        let len = self.params.page_bytes(self.component);
        let from = p as usize * self.ipp as usize * self.item;
        let mut out = vec![0u8; len];
        let have = self.bytes.len().saturating_sub(from).min(len);
        if let (Some(dst), Some(src)) = (out.get_mut(..have), self.bytes.get(from..from + have)) {
            dst.copy_from_slice(src);
        }
        out
    }

    fn empty_at(&mut self, level: usize) -> B256 {
        while self.empty.len() <= level {
            let l = self.empty.len() as u32;
            self.empty.push(hash::empty(l));
        }
        self.empty.get(level).copied().unwrap_or_default()
    }

    /// Rehashes the dirty pages and their ancestors; returns the file's tree root.
    pub(crate) fn rehash(&mut self) -> B256 {
        let pages = self.pages();
        let height = self.params.height(pages) as usize;
        let fanout = u64::from(self.params.fanout);
        self.levels.resize(height + 1, Vec::new());
        self.levels.truncate(height + 1);
        let mut dirty: BTreeSet<u64> = std::mem::take(&mut self.dirty);
        if let Some(l0) = self.levels.first_mut() {
            l0.resize(pages as usize, B256::ZERO);
        }
        for &p in &dirty {
            let h = hash::page(self.component, &self.page(p));
            if let Some(slot) = self.levels.first_mut().and_then(|l| l.get_mut(p as usize)) {
                *slot = h;
            }
        }
        let mut width = pages;
        for level in 1..=height {
            width = width.div_ceil(fanout);
            let below_empty = self.empty_at(level - 1);
            let parents: BTreeSet<u64> = dirty.iter().map(|p| p / fanout).collect();
            let mut computed = Vec::with_capacity(parents.len());
            if let Some(below) = self.levels.get(level - 1) {
                for &parent in &parents {
                    let first = (parent * fanout) as usize;
                    let children: Vec<B256> = (first..first + fanout as usize)
                        .map(|i| below.get(i).copied().unwrap_or(below_empty))
                        .collect();
                    computed.push((parent, hash::node(level as u32, &children)));
                }
            }
            if let Some(this) = self.levels.get_mut(level) {
                this.resize(width as usize, B256::ZERO);
                for (parent, h) in computed {
                    if let Some(slot) = this.get_mut(parent as usize) {
                        *slot = h;
                    }
                }
            }
            dirty = parents;
        }
        let top = match self.levels.get(height).and_then(|l| l.first()) {
            Some(t) => *t,
            None => self.empty_at(0),
        };
        hash::tree(self.component, height as u32, self.count(), &top)
    }

    /// The opening of record `r` (after a rehash).
    pub(crate) fn open(&self, r: u64) -> Opening {
        let fanout = u64::from(self.params.fanout);
        let height = self.levels.len().saturating_sub(1);
        let mut siblings = Vec::with_capacity(height * (fanout as usize - 1));
        let mut pos = r / self.ipp;
        for level in 0..height {
            let empty = self
                .empty
                .get(level)
                .copied()
                .unwrap_or_else(|| hash::empty(level as u32));
            let first = pos / fanout * fanout;
            if let Some(nodes) = self.levels.get(level) {
                for i in first..first + fanout {
                    if i != pos {
                        siblings.push(nodes.get(i as usize).copied().unwrap_or(empty));
                    }
                }
            }
            pos /= fanout;
        }
        Opening {
            count: self.count(),
            page: self.page(r / self.ipp),
            siblings,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn from_scratch(params: Params, c: Component, bytes: &[u8]) -> B256 {
        let mut r = Records::new(c, params);
        r.load(bytes.to_vec());
        r.rehash()
    }

    #[test]
    fn lazy_rehash_equals_a_rehash_from_scratch() {
        for fanout in [2u8, 3, 32] {
            let params = Params {
                page_size: 64,
                fanout,
                bucket_load: 4,
            };
            let mut r = Records::new(Component::Balance, params);
            assert_eq!(r.rehash(), from_scratch(params, Component::Balance, &[]));
            for i in 0..70u64 {
                r.set(i * 7 % 50 + i / 3, &[i as u8 + 1; 32]);
                if i % 3 == 0 {
                    let root = r.rehash();
                    assert_eq!(
                        root,
                        from_scratch(params, Component::Balance, &r.bytes),
                        "{fanout} {i}"
                    );
                }
            }
        }
    }
}
