//! Diff proofs: every key whose value differs between two blocks, complete (paper §4.1.3:
//! POS-Tree diff descends only into subtrees whose hashes differ).
//!
//! The proof is both trees, pruned to the same set of subtrees: a subtree pruned in both holds
//! the same entries in both (its hash binds them), so every change is in the revealed leaves.
//! A subtree pruned in one tree only could hide changes and is rejected; one revealed in both
//! shows nothing that changed and is rejected too (one proof per answer). The changes are the
//! keys of the revealed leaves whose values differ (absent on one side: created or deleted).

use alloc::{collections::BTreeMap, string::String, vec::Vec};

use lightprov_types::{
    B256, Word,
    pos::{DiffProof, Entry, PosError, Side},
};

use super::walk::{Interval, Visit, hash_tree};

/// One changed key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// The state key.
    pub key: B256,
    /// Its value at the first block (`None`: absent).
    pub old: Option<Word>,
    /// Its value at the second block (`None`: absent).
    pub new: Option<Word>,
}

#[derive(Default)]
struct Collect {
    pruned: Vec<(B256, String)>,
    revealed: Vec<(B256, String)>,
    entries: BTreeMap<B256, Word>,
}

impl Visit for Collect {
    fn pruned(&mut self, hash: &B256, _: Interval<'_>, at: &str) -> Result<(), PosError> {
        self.pruned.push((*hash, at.into()));
        Ok(())
    }

    fn revealed(&mut self, _: Interval<'_>, _: &str) -> Result<(), PosError> {
        Ok(())
    }

    fn leaf(&mut self, entries: &[Entry]) {
        self.entries.extend(entries.iter().copied());
    }

    fn hashed(&mut self, hash: &B256, at: &str) {
        self.revealed.push((*hash, at.into()));
    }
}

fn side(root: &B256, tree: &lightprov_types::pos::Tree, name: &str) -> Result<Collect, PosError> {
    let mut c = Collect::default();
    let found = hash_tree(tree, None, None, None, name, &mut c)?;
    if found != *root {
        return Err(PosError::RootMismatch {
            expected: *root,
            found,
        });
    }
    c.pruned.sort_unstable();
    c.revealed.sort_unstable();
    Ok(c)
}

/// Verifies a decoded diff proof between the trees of `old_root` and `new_root`: every changed
/// key, in key order.
pub fn verify_diff(
    old_root: &B256,
    new_root: &B256,
    proof: &DiffProof,
) -> Result<Vec<Change>, PosError> {
    let old = side(old_root, &proof.old, "old")?;
    let new = side(new_root, &proof.new, "new")?;
    for (s, this, other) in [(Side::Old, &old, &new), (Side::New, &new, &old)] {
        for (h, at) in &this.pruned {
            if other.pruned.binary_search_by(|(o, _)| o.cmp(h)).is_err() {
                return Err(PosError::UnmatchedSubtree {
                    side: s,
                    at: at.clone(),
                    hash: *h,
                });
            }
        }
    }
    // A subtree in both versions is pruned in both: revealing it shows nothing that changed.
    for (h, at) in &new.revealed {
        if old.revealed.binary_search_by(|(o, _)| o.cmp(h)).is_ok() {
            return Err(PosError::ExtraResults { at: at.clone() });
        }
    }
    let mut changes: Vec<Change> = Vec::new();
    let keys: BTreeMap<&B256, ()> = old
        .entries
        .keys()
        .chain(new.entries.keys())
        .map(|k| (k, ()))
        .collect();
    for key in keys.into_keys() {
        let (o, n) = (old.entries.get(key).copied(), new.entries.get(key).copied());
        if o != n {
            changes.push(Change {
                key: *key,
                old: o,
                new: n,
            });
        }
    }
    Ok(changes)
}
