//! Making POS-Tree proofs from any store of nodes by hash (the engine's, a test's): the honest
//! prover's side of [the wire formats](super), shared so that every prover prunes alike.

use alloc::{collections::BTreeMap, vec::Vec};

use crate::{
    B256,
    pos::{
        DiffProof, HistoryItem, HistoryProof, MAX_LEVEL, Node, PathProof, RangeProof, Splice, Tree,
        interval_meets,
    },
};

/// Nodes by hash.
pub trait NodeSource {
    /// Why a node cannot be read (a missing node is one).
    type Error;
    /// The node whose hash is `hash`.
    fn node(&self, hash: &B256) -> Result<Node, Self::Error>;
}

/// The path of `key` in the tree of `root`, root first.
pub fn path<S: NodeSource>(src: &S, root: &B256, key: &B256) -> Result<PathProof, S::Error> {
    let mut nodes = Vec::new();
    let mut h = *root;
    for _ in 0..=MAX_LEVEL {
        let n = src.node(&h)?;
        let next = (!n.is_leaf()).then(|| n.child(n.route(key))).flatten();
        nodes.push(n);
        match next {
            Some(c) => h = c,
            None => break,
        }
    }
    Ok(PathProof { nodes })
}

/// The range proof of `[lo, hi]` in the tree of `root`: revealed exactly where the range's keys
/// can be.
pub fn range<S: NodeSource>(
    src: &S,
    root: &B256,
    lo: &B256,
    hi: &B256,
) -> Result<RangeProof, S::Error> {
    fn sub<S: NodeSource>(
        src: &S,
        h: &B256,
        lower: Option<B256>,
        upper: Option<B256>,
        q: (&B256, &B256),
    ) -> Result<Tree, S::Error> {
        if !interval_meets(lower.as_ref(), upper.as_ref(), q.0, q.1) {
            return Ok(Tree::Pruned(*h));
        }
        let n = src.node(h)?;
        if n.is_leaf() {
            return Ok(Tree::Leaf(n.entries));
        }
        let last = n.entries.len().saturating_sub(1);
        let mut before = lower;
        let mut children = Vec::with_capacity(n.entries.len());
        for (j, (sep, child)) in n.entries.iter().enumerate() {
            let up = if j == last { upper } else { Some(*sep) };
            children.push((*sep, sub(src, &B256::from(*child), before, up, q)?));
            before = Some(*sep);
        }
        Ok(Tree::Inner {
            level: n.level,
            children,
        })
    }
    Ok(RangeProof {
        tree: sub(src, root, None, None, (lo, hi))?,
    })
}

/// The diff proof between the trees of `old` and `new`: both pruned at the highest subtrees
/// they share. Found level by level from the top, so only the changed parts are read.
pub fn diff<S: NodeSource>(src: &S, old: &B256, new: &B256) -> Result<DiffProof, S::Error> {
    let mut loaded: BTreeMap<B256, Node> = BTreeMap::new();
    let mut shared: BTreeMap<B256, ()> = BTreeMap::new();
    // Frontier: unshared nodes not yet expanded, (level, hash, side).
    let mut frontier: Vec<(u8, B256, bool)> = Vec::new();
    for (h, side) in [(old, false), (new, true)] {
        let n = src.node(h)?;
        frontier.push((n.level, *h, side));
        loaded.insert(*h, n);
    }
    while !frontier.is_empty() {
        // Subtrees in both trees are pruned in both.
        let new_side: BTreeMap<B256, ()> = frontier
            .iter()
            .filter(|(_, _, s)| *s)
            .map(|(_, h, _)| (*h, ()))
            .collect();
        for (_, h, s) in &frontier {
            if !*s && new_side.contains_key(h) {
                shared.insert(*h, ());
            }
        }
        frontier.retain(|(_, h, _)| !shared.contains_key(h));
        let Some(top) = frontier.iter().map(|(l, _, _)| *l).max() else {
            break;
        };
        let (expand, rest): (Vec<_>, Vec<_>) =
            frontier.into_iter().partition(|(l, _, _)| *l == top);
        frontier = rest;
        if top == 0 {
            break;
        }
        for (level, h, side) in expand {
            let children: Vec<B256> = match loaded.get(&h) {
                Some(n) => n.entries.iter().map(|(_, c)| B256::from(*c)).collect(),
                None => Vec::new(),
            };
            for c in children {
                if let alloc::collections::btree_map::Entry::Vacant(v) = loaded.entry(c) {
                    v.insert(src.node(&c)?);
                }
                frontier.push((level - 1, c, side));
            }
        }
    }
    fn build<S: NodeSource>(
        src: &S,
        h: &B256,
        loaded: &BTreeMap<B256, Node>,
        shared: &BTreeMap<B256, ()>,
    ) -> Result<Tree, S::Error> {
        if shared.contains_key(h) {
            return Ok(Tree::Pruned(*h));
        }
        let n = match loaded.get(h) {
            Some(n) => n.clone(),
            None => src.node(h)?,
        };
        if n.is_leaf() {
            return Ok(Tree::Leaf(n.entries));
        }
        let children = n
            .entries
            .iter()
            .map(|(sep, c)| Ok((*sep, build(src, &B256::from(*c), loaded, shared)?)))
            .collect::<Result<_, S::Error>>()?;
        Ok(Tree::Inner {
            level: n.level,
            children,
        })
    }
    Ok(DiffProof {
        old: build(src, old, &loaded, &shared)?,
        new: build(src, new, &loaded, &shared)?,
    })
}

/// The history proof of `key` over the blocks `from..` whose roots are `roots`: every block's
/// path, each node sent once, a node that differs from the one at its level in the previous
/// block's path sent as a patch of it when that is shorter.
pub fn history<S: NodeSource>(
    src: &S,
    from: u64,
    roots: &[B256],
    key: &B256,
) -> Result<HistoryProof, S::Error> {
    let mut items: Vec<HistoryItem> = Vec::new();
    let mut bases: Vec<Node> = Vec::new();
    let mut index: BTreeMap<B256, usize> = BTreeMap::new();
    // The previous block's path: per level, the item holding its node.
    let mut prev: BTreeMap<u8, usize> = BTreeMap::new();
    for root in roots {
        let p = path(src, root, key)?;
        let mut here = BTreeMap::new();
        for n in p.nodes {
            let h = n.hash();
            if let Some(&i) = index.get(&h) {
                here.insert(n.level, i);
                continue;
            }
            let i = items.len();
            let item = prev
                .get(&n.level)
                .and_then(|&b| bases.get(b).map(|base| (b, base)))
                .and_then(|(b, base)| patch(b, base, &n))
                .unwrap_or_else(|| HistoryItem::Full(n.clone()));
            items.push(item);
            bases.push(n);
            index.insert(h, i);
            here.insert(bases.get(i).map_or(0, |n| n.level), i);
        }
        prev = here;
    }
    let to = from.saturating_add((roots.len() as u64).saturating_sub(1));
    Ok(HistoryProof { from, to, items })
}

/// `node` as a patch of item `b` (`base`), if that is shorter than sending it whole: new values
/// for the same keys when only values (child hashes) changed, else runs of replaced entries,
/// which come from merging the two sorted entry lists by key (an entry of both with the same
/// value is kept, anything else is part of a run).
fn patch(b: usize, base: &Node, node: &Node) -> Option<HistoryItem> {
    let (x, y) = (&base.entries, &node.entries);
    let mut splices: Vec<Splice> = Vec::new();
    let (mut i, mut j) = (0usize, 0usize);
    let mut open: Option<Splice> = None;
    while i < x.len() || j < y.len() {
        let (a, c) = (x.get(i), y.get(j));
        if let (Some(a), Some(c)) = (a, c)
            && a == c
        {
            splices.extend(open.take());
            i += 1;
            j += 1;
            continue;
        }
        let sp = open.get_or_insert_with(|| Splice {
            at: u16::try_from(i).unwrap_or(u16::MAX),
            delete: 0,
            insert: Vec::new(),
        });
        match (a, c) {
            (Some(a), Some(c)) if a.0 == c.0 => {
                sp.delete += 1;
                sp.insert.push(*c);
                i += 1;
                j += 1;
            }
            (Some(a), Some(c)) if a.0 < c.0 => {
                sp.delete += 1;
                i += 1;
            }
            (Some(_), None) => {
                sp.delete += 1;
                i += 1;
            }
            (_, Some(c)) => {
                sp.insert.push(*c);
                j += 1;
            }
            (None, None) => break,
        }
    }
    splices.extend(open);
    let base = u32::try_from(b).ok()?;
    // A full node is 4 bytes besides its entries; a patch 7, and 6 a run besides its entries;
    // new values for the same keys 7, and 34 a value.
    let full = 4 + 64 * y.len();
    let spliced = 7 + splices
        .iter()
        .map(|s| 6 + 64 * s.insert.len())
        .sum::<usize>();
    let same_keys = x.len() == y.len() && x.iter().zip(y).all(|(a, c)| a.0 == c.0);
    let values: Vec<(u16, crate::Word)> = x
        .iter()
        .zip(y)
        .enumerate()
        .filter(|(_, (a, c))| a.1 != c.1)
        .filter_map(|(i, (_, c))| Some((u16::try_from(i).ok()?, c.1)))
        .collect();
    let valued = 7 + 34 * values.len();
    if same_keys && !values.is_empty() && valued < spliced.min(full) {
        return Some(HistoryItem::Values { base, values });
    }
    (spliced < full).then_some(HistoryItem::Patch { base, splices })
}

/// Nodes in memory, by hash: a [`NodeSource`] for tests and tools.
#[derive(Clone, Debug, Default)]
pub struct MemNodes(pub BTreeMap<B256, Node>);

impl MemNodes {
    /// Builds the tree of sorted, distinct `entries` with `rule`, keeps its nodes, and returns
    /// its root.
    pub fn build(&mut self, rule: &crate::pos::SplitRule, entries: &[crate::pos::Entry]) -> B256 {
        let levels = rule.build(entries);
        let mut root = crate::pos::empty_root();
        for n in levels.into_iter().flatten() {
            root = n.hash();
            self.0.insert(root, n);
        }
        root
    }
}

impl NodeSource for MemNodes {
    type Error = B256;
    fn node(&self, hash: &B256) -> Result<Node, B256> {
        self.0.get(hash).cloned().ok_or(*hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pos::SplitRule;

    #[test]
    fn a_patch_is_shorter_than_its_node_or_not_made() {
        let base = Node::leaf(
            (1..=20u8)
                .map(|i| (B256::repeat_byte(i), [i; 32]))
                .collect(),
        );
        let mut node = base.clone();
        node.entries[7].1 = [99; 32];
        node.entries[12].1 = [98; 32];
        node.entries.remove(15);
        node.entries.insert(0, (B256::repeat_byte(0), [1; 32]));
        let Some(HistoryItem::Patch { splices, .. }) = patch(0, &base, &node) else {
            panic!("a few changes are a patch")
        };
        let runs: Vec<_> = splices
            .iter()
            .map(|s| (s.at, s.delete, s.insert.len()))
            .collect();
        assert_eq!(runs, [(0, 0, 1), (7, 1, 1), (12, 1, 1), (15, 1, 0)]);
        let h = HistoryProof {
            from: 0,
            to: 0,
            items: vec![
                HistoryItem::Full(base.clone()),
                HistoryItem::Patch { base: 0, splices },
            ],
        };
        assert_eq!(h.nodes().unwrap()[1], node);
        let other = Node::leaf(vec![(B256::repeat_byte(1), [5; 32])]);
        assert!(patch(0, &base, &other).is_none());
        // Values changed under the same keys: new values only.
        let mut revalued = base.clone();
        revalued.entries[2].1 = [42; 32];
        revalued.entries[9].1 = [43; 32];
        let item = patch(0, &base, &revalued).unwrap();
        assert_eq!(
            item,
            HistoryItem::Values {
                base: 0,
                values: vec![(2, [42; 32]), (9, [43; 32])]
            }
        );
        let h = HistoryProof {
            from: 0,
            to: 0,
            items: vec![HistoryItem::Full(base.clone()), item],
        };
        assert_eq!(
            HistoryProof::decode(&h.encode()).unwrap().nodes().unwrap()[1],
            revalued
        );
    }

    #[test]
    fn the_built_root_is_the_last_levels_node() {
        let entries: Vec<_> = (1..=200u8)
            .map(|i| (B256::repeat_byte(i), [i; 32]))
            .collect();
        let mut m = MemNodes::default();
        let rule = SplitRule::FixedSize { entries: 4 };
        let root = m.build(&rule, &entries);
        let levels = rule.build(&entries);
        // 200 entries → 50 leaves → 13 → 4 → 1.
        assert_eq!(
            levels.iter().map(Vec::len).collect::<Vec<_>>(),
            [50, 13, 4, 1]
        );
        assert_eq!(root, levels[3][0].hash());
        let p = path(&m, &root, &B256::repeat_byte(77)).unwrap();
        assert_eq!(p.nodes.len(), 4);
        assert!(
            p.nodes[3]
                .entries
                .iter()
                .any(|(k, _)| *k == B256::repeat_byte(77))
        );
    }
}
