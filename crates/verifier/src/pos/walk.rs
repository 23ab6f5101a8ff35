//! The checks every POS-Tree node passes, and the walk of one key's path (paper §3.4.3: lookup
//! by binary search on split keys, each the largest key of its child).
//!
//! The verifier never takes a child index, a key range or a result from the prover: it routes
//! by the separators it hashed, checks that the child it descends to has the level, the largest
//! key and the key range its parent gives it, and reads the answer from the one leaf it reaches.

use alloc::{format, string::ToString};
use core::fmt::Display;

use lightprov_types::{
    B256, Word,
    pos::{Node, PosError},
};

/// Where a node is in its proof (`nodes[3]`, `items[7]`): named only when an error needs it, so
/// that a walk that verifies formats nothing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    /// The list the node is in.
    pub list: &'static str,
    /// Its index there.
    pub index: usize,
}

impl Display for At {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}[{}]", self.list, self.index)
    }
}

/// What a parent says of the child the key routes to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slot {
    /// The child's hash.
    pub hash: B256,
    /// Its index among the parent's children.
    pub index: usize,
    /// Its level (one below the parent's).
    pub level: u8,
    /// Its separator: its largest key.
    pub sep: B256,
    /// The separator before it (its keys are above), if any.
    pub lower: Option<B256>,
}

/// The slot of child `j` of `node`, whose own lower bound is `lower`.
pub(crate) fn slot(node: &Node, j: usize, lower: Option<B256>) -> Option<Slot> {
    let (sep, hash) = node.entries.get(j)?;
    let lower = match j.checked_sub(1) {
        Some(p) => node.entries.get(p).map(|(s, _)| *s),
        None => lower,
    };
    Some(Slot {
        hash: B256::from(*hash),
        index: j,
        level: node.level.checked_sub(1)?,
        sep: *sep,
        lower,
    })
}

/// Keys strictly increasing: separators of an inner node, entries of a leaf (the first too).
pub(crate) fn check_order(
    keys: impl Iterator<Item = B256>,
    leaf: bool,
    at: &(impl Display + ?Sized),
) -> Result<(), PosError> {
    let mut prev: Option<B256> = None;
    for (i, k) in keys.enumerate() {
        if prev.is_some_and(|p| p >= k) {
            let at = at.to_string();
            return Err(if leaf {
                PosError::EntriesOutOfOrder { at, index: i }
            } else {
                PosError::SeparatorsOutOfOrder { at, index: i }
            });
        }
        prev = Some(k);
    }
    Ok(())
}

/// Checks a child against what its parent says of it: its level, its largest key equal to its
/// separator, its smallest key above the separator before it.
pub(crate) fn check_child(
    level: u8,
    min: Option<&B256>,
    max: Option<&B256>,
    slot: &Slot,
    at: &(impl Display + ?Sized),
) -> Result<(), PosError> {
    if level != slot.level {
        return Err(PosError::LevelMismatch {
            at: at.to_string(),
            expected: slot.level,
            found: level,
        });
    }
    if max != Some(&slot.sep) {
        return Err(PosError::SeparatorMismatch {
            at: at.to_string(),
            expected: slot.sep,
            found: max.copied(),
        });
    }
    if let (Some(bound), Some(min)) = (slot.lower, min)
        && *min <= bound
    {
        return Err(PosError::ChildOutOfRange {
            at: at.to_string(),
            bound,
            found: *min,
        });
    }
    Ok(())
}

/// Checks a node of a path: its order, and against its slot when it has a parent.
pub(crate) fn check_node(
    node: &Node,
    slot: Option<&Slot>,
    at: &(impl Display + ?Sized),
) -> Result<(), PosError> {
    if let Some(s) = slot {
        check_child(node.level, node.min_key(), node.max_key(), s, at)?;
    }
    check_order(node.entries.iter().map(|(k, _)| *k), node.is_leaf(), at)
}

/// The value of `key` in `leaf` (`None`: absent). The leaf's entries are checked in order.
pub(crate) fn lookup(leaf: &Node, key: &B256) -> Option<Word> {
    leaf.entries
        .binary_search_by(|(k, _)| k.cmp(key))
        .ok()
        .and_then(|i| leaf.entries.get(i))
        .map(|(_, v)| *v)
}

/// Where a walk finds its nodes: a path proof's list by position, a history proof's set by
/// hash. `next` returns the node for `depth` given the hash the walk expects (the trusted root
/// at depth 0) and the parent's slot, or the error that it cannot.
pub(crate) trait Nodes<'n> {
    fn next(
        &mut self,
        depth: usize,
        expected: &B256,
        parent: Option<(&Node, &Slot)>,
    ) -> Result<(&'n Node, At), PosError>;
}

/// Walks `key`'s path from `root` to its leaf and reads the key's value there (`None`: absent).
/// Returns the value and the number of nodes walked.
pub(crate) fn walk<'n>(
    root: &B256,
    key: &B256,
    nodes: &mut impl Nodes<'n>,
) -> Result<(Option<Word>, usize), PosError> {
    let mut expected = *root;
    let mut parent: Option<(&'n Node, Slot)> = None;
    for depth in 0..=usize::from(lightprov_types::pos::MAX_LEVEL) {
        let (node, at) = nodes.next(depth, &expected, parent.as_ref().map(|(n, s)| (*n, s)))?;
        check_node(node, parent.as_ref().map(|(_, s)| s), &at)?;
        if node.is_leaf() {
            return Ok((lookup(node, key), depth + 1));
        }
        let lower = parent.as_ref().and_then(|(_, s)| s.lower);
        let s = slot(node, node.route(key), lower).ok_or_else(|| PosError::Truncated {
            at: format!("{at}.entries"),
        })?;
        expected = s.hash;
        parent = Some((node, s));
    }
    Err(PosError::Truncated {
        at: format!(
            "nodes[{}]",
            usize::from(lightprov_types::pos::MAX_LEVEL) + 1
        ),
    })
}

/// The key interval `(lower, upper]` the routing gives a node (`None`: unbounded).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Interval<'a> {
    /// Keys above this one.
    pub(crate) lower: Option<&'a B256>,
    /// Keys up to this one.
    pub(crate) upper: Option<&'a B256>,
}

/// What a walk over a partial tree (range and diff proofs) does at pruned and revealed nodes,
/// given their key [`Interval`].
pub(crate) trait Visit {
    /// A subtree given by its hash.
    fn pruned(&mut self, hash: &B256, within: Interval<'_>, at: &str) -> Result<(), PosError>;
    /// A revealed node (before its checks).
    fn revealed(&mut self, within: Interval<'_>, at: &str) -> Result<(), PosError>;
    /// A revealed leaf's entries (after its checks).
    fn leaf(&mut self, entries: &[lightprov_types::pos::Entry]);
    /// A revealed node's hash (after its checks and its children's).
    fn hashed(&mut self, _hash: &B256, _at: &str) {}
}

/// Hashes a partial tree bottom-up, with every check of [`check_node`] on each revealed node
/// (against `slot`, what its parent says of it), and the visitor's at each node.
pub(crate) fn hash_tree(
    tree: &lightprov_types::pos::Tree,
    slot: Option<&Slot>,
    lower: Option<B256>,
    upper: Option<B256>,
    at: &str,
    v: &mut impl Visit,
) -> Result<B256, PosError> {
    use lightprov_types::pos::{Tree, hash_node};
    let within = Interval {
        lower: lower.as_ref(),
        upper: upper.as_ref(),
    };
    match tree {
        Tree::Pruned(h) => {
            v.pruned(h, within, at)?;
            Ok(*h)
        }
        Tree::Leaf(entries) => {
            v.revealed(within, at)?;
            let keys = || entries.iter().map(|(k, _)| k);
            if let Some(s) = slot {
                check_child(0, keys().next(), keys().next_back(), s, at)?;
            }
            check_order(keys().copied(), true, at)?;
            v.leaf(entries);
            let h = hash_node(0, entries);
            v.hashed(&h, at);
            Ok(h)
        }
        Tree::Inner { level, children } => {
            v.revealed(within, at)?;
            let seps = || children.iter().map(|(s, _)| s);
            if let Some(s) = slot {
                check_child(*level, seps().next(), seps().next_back(), s, at)?;
            }
            check_order(seps().copied(), false, at)?;
            let mut entries = alloc::vec::Vec::with_capacity(children.len());
            let mut before = lower;
            let last = children.len().saturating_sub(1);
            for (j, (sep, child)) in children.iter().enumerate() {
                let s = Slot {
                    hash: B256::ZERO,
                    index: j,
                    level: level.saturating_sub(1),
                    sep: *sep,
                    lower: before,
                };
                let up = if j == last { upper } else { Some(*sep) };
                let h = hash_tree(child, Some(&s), before, up, &format!("{at}.{j}"), v)?;
                entries.push((*sep, h.0));
                before = Some(*sep);
            }
            let h = hash_node(*level, &entries);
            v.hashed(&h, at);
            Ok(h)
        }
    }
}
