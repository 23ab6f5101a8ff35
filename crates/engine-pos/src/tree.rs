//! Incremental POS-Tree updates (paper §3.4.3: "re-detect boundaries from the start of that
//! leaf until an existing boundary or the end of the layer, and propagate new split keys up").
//!
//! A batch of changes is applied level by level, bottom up. At each level the changes (state
//! entries at level 0, `(separator, child hash)` entries above) are merged into the old nodes
//! they fall in; re-chunking starts at the start of the first such node — a cut of the old
//! chunking that nothing left of it can move — and goes on through the following old nodes until
//! a new cut falls on an old node's end, where the boundaries have resynchronised and the rest
//! of the level is unchanged. The replaced nodes and the new ones become the next level's
//! changes: each old node's separator deleted, each new node's `(largest key, hash)` inserted.
//! Nodes are located by routing a key from the old root, so the only nodes read are those on
//! the paths of the changes and the few the re-chunking runs into.
//!
//! The tree that comes out is the tree [`SplitRule::build`] makes of the new key set (tested by
//! the history-independence property test), whatever the order and batching of the updates.

use std::collections::BTreeMap;

use alloy_primitives::B256;
use lightprov_types::{
    Word,
    pos::{Entry, MAX_LEVEL, Node, SplitRule, empty_root, prove::NodeSource},
};

/// A tree's root and how many nodes each level holds (`counts[0]` leaves; the last level holds
/// the root alone). The empty tree has no level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The root hash ([`empty_root`] for the empty tree).
    pub root: B256,
    /// Nodes per level, leaves first.
    pub counts: Vec<u64>,
}

impl Meta {
    /// The empty tree.
    pub fn empty() -> Self {
        Self {
            root: empty_root(),
            counts: Vec::new(),
        }
    }

    /// Levels of the tree (0 for the empty tree).
    pub fn height(&self) -> usize {
        self.counts.len()
    }
}

/// Why an update failed: a node could not be read, or the stored tree is not a tree.
#[derive(Debug)]
pub enum UpdateError<E> {
    /// The node source failed.
    Source(E),
    /// The stored tree contradicts itself.
    Corrupt(&'static str),
}

/// What an update produces: the new tree and every node it did not have before.
#[derive(Debug)]
pub struct Updated {
    /// The new tree.
    pub meta: Meta,
    /// New nodes, by hash.
    pub nodes: BTreeMap<B256, Node>,
}

/// An old node a key routes to at some level, with its key interval.
struct Located {
    node: Node,
    /// The separator before it in its parent (its keys are above), if any.
    lower: Option<B256>,
    /// Whether it is its level's last node (its interval then has no upper end).
    last: bool,
}

/// Routes `key` from `root` (a tree of `height` levels) down to `level`.
fn locate<S: NodeSource>(
    src: &S,
    root: &B256,
    height: usize,
    level: usize,
    key: &B256,
) -> Result<Located, UpdateError<S::Error>> {
    let mut node = src.node(root).map_err(UpdateError::Source)?;
    let (mut lower, mut last) = (None, true);
    for expect in (level..height).rev() {
        if usize::from(node.level) != expect {
            return Err(UpdateError::Corrupt("node at the wrong level"));
        }
        if expect == level {
            return Ok(Located { node, lower, last });
        }
        let j = node.route(key);
        if let Some(p) = j.checked_sub(1) {
            lower = node.entries.get(p).map(|(s, _)| *s);
        }
        last &= j + 1 == node.entries.len();
        let child = node
            .child(j)
            .ok_or(UpdateError::Corrupt("inner node without children"))?;
        node = src.node(&child).map_err(UpdateError::Source)?;
    }
    Err(UpdateError::Corrupt("level above the root"))
}

/// The key after `k` (k + 1 as a 256-bit number), if any.
fn successor(k: &B256) -> Option<B256> {
    let mut b = k.0;
    for byte in b.iter_mut().rev() {
        let (v, carry) = byte.overflowing_add(1);
        *byte = v;
        if !carry {
            return Some(B256::from(b));
        }
    }
    None
}

/// Cuts a level into nodes as entries arrive, by `rule`.
struct Chunker<'r> {
    rule: &'r SplitRule,
    level: u8,
    cur: Vec<Entry>,
    out: Vec<Node>,
}

impl Chunker<'_> {
    fn push(&mut self, e: Entry) {
        self.cur.push(e);
        if self.rule.cuts_after(self.level, self.cur.len(), &e.0) {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if !self.cur.is_empty() {
            self.out.push(Node {
                level: self.level,
                entries: std::mem::take(&mut self.cur),
            });
        }
    }
}

/// One level's changes: a key and its new value or child hash, or `None` to delete it.
type Changes = Vec<(B256, Option<Word>)>;

/// What re-chunking a level replaced (the old nodes' separators) and what it made.
type Rechunked = (Vec<B256>, Vec<Node>);

/// Re-chunks level `level` of the old tree around `changes`: the old nodes' separators it
/// replaces and the new nodes.
fn rechunk<S: NodeSource>(
    src: &S,
    old: &Meta,
    rule: &SplitRule,
    level: u8,
    changes: &[(B256, Option<Word>)],
) -> Result<Rechunked, UpdateError<S::Error>> {
    let mut removed = Vec::new();
    let mut ch = Chunker {
        rule,
        level,
        cur: Vec::new(),
        out: Vec::new(),
    };
    let mut rest = changes;
    while let Some((first, _)) = rest.first() {
        let mut at = locate(src, &old.root, old.height(), usize::from(level), first)?;
        loop {
            let max = *at
                .node
                .max_key()
                .ok_or(UpdateError::Corrupt("empty node below the root"))?;
            // The changes in this node's interval: up to its largest key, or all for the last.
            let n = if at.last {
                rest.len()
            } else {
                rest.partition_point(|(k, _)| *k <= max)
            };
            let (mine, after) = rest.split_at(n);
            rest = after;
            if mine
                .first()
                .is_some_and(|(k, _)| at.lower.is_some_and(|l| *k <= l))
            {
                return Err(UpdateError::Corrupt("change routed below its node"));
            }
            merge(&at.node.entries, mine, |e| ch.push(e));
            removed.push(max);
            if at.last {
                ch.flush();
                break;
            }
            if ch.cur.is_empty() {
                // Resynchronised: the old cut after this node is a new cut.
                break;
            }
            let next =
                successor(&max).ok_or(UpdateError::Corrupt("a node after the largest key"))?;
            at = locate(src, &old.root, old.height(), usize::from(level), &next)?;
        }
    }
    Ok((removed, ch.out))
}

/// Merges sorted `entries` with sorted `changes` (a change wins; `None` deletes), in order.
fn merge(entries: &[Entry], changes: &[(B256, Option<Word>)], mut out: impl FnMut(Entry)) {
    let (mut i, mut j) = (0, 0);
    loop {
        match (entries.get(i), changes.get(j)) {
            (Some(e), Some((k, v))) => {
                if e.0 < *k {
                    out(*e);
                    i += 1;
                } else {
                    if let Some(v) = v {
                        out((*k, *v));
                    }
                    if e.0 == *k {
                        i += 1;
                    }
                    j += 1;
                }
            }
            (Some(e), None) => {
                out(*e);
                i += 1;
            }
            (None, Some((k, v))) => {
                if let Some(v) = v {
                    out((*k, *v));
                }
                j += 1;
            }
            (None, None) => return,
        }
    }
}

/// Applies `changes` (state key → new value, `None` or a zero value deletes) to the tree `old`.
pub fn update<S: NodeSource>(
    src: &S,
    old: &Meta,
    rule: &SplitRule,
    changes: &BTreeMap<B256, Word>,
) -> Result<Updated, UpdateError<S::Error>> {
    let mut level_changes: Changes = changes
        .iter()
        .map(|(k, v)| (*k, (*v != [0; 32]).then_some(*v)))
        .collect();
    let mut nodes = BTreeMap::new();
    if level_changes.is_empty() {
        return Ok(Updated {
            meta: old.clone(),
            nodes,
        });
    }
    let mut counts: Vec<u64> = Vec::new();
    // Where the levels end: `Some(None)` for the empty tree, `Some(Some(root))` otherwise.
    let mut top: Option<Option<Node>> = None;
    for level in 0..=MAX_LEVEL {
        let l = usize::from(level);
        let old_count = old.counts.get(l).copied().unwrap_or(0);
        let (removed, added) = if l < old.height() {
            rechunk(src, old, rule, level, &level_changes)?
        } else {
            // Above the old root: the level is what the changes insert.
            let entries: Vec<Entry> = level_changes
                .iter()
                .filter_map(|(k, v)| v.map(|v| (*k, v)))
                .collect();
            (Vec::new(), rule.chunk(level, &entries))
        };
        let count = (old_count + added.len() as u64)
            .checked_sub(removed.len() as u64)
            .ok_or(UpdateError::Corrupt(
                "more nodes replaced than the level holds",
            ))?;
        counts.push(count);
        // The next level's changes: replaced separators deleted, new nodes inserted.
        let mut next: BTreeMap<B256, Option<Word>> =
            removed.into_iter().map(|k| (k, None)).collect();
        for n in &added {
            let max = *n.max_key().ok_or(UpdateError::Corrupt("empty new node"))?;
            next.insert(max, Some(n.hash().0));
        }
        let last = added.last().cloned();
        for n in added {
            nodes.insert(n.hash(), n);
        }
        if l + 1 >= old.height() && count <= 1 {
            // At or above the old root every node of the level is new.
            top = Some(match count {
                0 => None,
                _ => Some(last.ok_or(UpdateError::Corrupt("the level's one node is not new"))?),
            });
            break;
        }
        level_changes = next.into_iter().collect();
    }
    let top = top.ok_or(UpdateError::Corrupt("a tree of more than 33 levels"))?;
    let Some(mut root) = top else {
        // Every key deleted.
        let empty = Node::leaf(Vec::new());
        nodes.insert(empty.hash(), empty);
        return Ok(Updated {
            meta: Meta::empty(),
            nodes,
        });
    };
    // Levels whose only node has one child are not levels of the canonical tree.
    while !root.is_leaf() && root.entries.len() == 1 {
        let child = root.child(0).ok_or(UpdateError::Corrupt("no child"))?;
        root = match nodes.get(&child) {
            Some(n) => n.clone(),
            None => src.node(&child).map_err(UpdateError::Source)?,
        };
        counts.pop();
    }
    let height = usize::from(root.level) + 1;
    counts.truncate(height);
    nodes.retain(|_, n| usize::from(n.level) < height);
    Ok(Updated {
        meta: Meta {
            root: root.hash(),
            counts,
        },
        nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_applies_changes_in_order() {
        let e = |i: u8| (B256::repeat_byte(i), [i; 32]);
        let mut out = Vec::new();
        merge(
            &[e(1), e(3), e(5)],
            &[
                (B256::repeat_byte(0), Some([9; 32])),
                (B256::repeat_byte(3), None),
                (B256::repeat_byte(5), Some([7; 32])),
                (B256::repeat_byte(6), Some([6; 32])),
                (B256::repeat_byte(8), None),
            ],
            |x| out.push(x),
        );
        assert_eq!(
            out,
            vec![
                (B256::repeat_byte(0), [9; 32]),
                e(1),
                (B256::repeat_byte(5), [7; 32]),
                e(6)
            ]
        );
    }

    #[test]
    fn successor_carries() {
        let mut b = [0u8; 32];
        b[31] = 0xff;
        let mut want = [0u8; 32];
        want[30] = 1;
        assert_eq!(successor(&B256::from(b)), Some(B256::from(want)));
        assert_eq!(successor(&B256::repeat_byte(0xff)), None);
    }
}
