//! History proofs: one state key's value at every block of a range, from one node set in which
//! a node shared by several blocks' paths is sent once (SIRI's recursive identity, paper §3.3
//! and §4.2: versions share every unchanged node).

use alloc::{format, string::String, vec, vec::Vec};

use lightprov_types::{
    B256, Word,
    pos::{HistoryProof, Node, PosError},
};

use super::{
    BlockRoots,
    walk::{self, At, Nodes, Slot},
};

/// The node set, looked up by hash; marks what the walks use.
struct NodeSet<'n> {
    nodes: &'n [Node],
    by_hash: Vec<(B256, usize)>,
    used: Vec<bool>,
    block: usize,
}

impl<'n> Nodes<'n> for NodeSet<'n> {
    fn next(
        &mut self,
        depth: usize,
        expected: &B256,
        _: Option<(&Node, &Slot)>,
    ) -> Result<(&'n Node, At), PosError> {
        let at = || format!("paths[{}][{depth}]", self.block);
        let i = self
            .by_hash
            .binary_search_by(|(h, _)| h.cmp(expected))
            .ok()
            .and_then(|p| self.by_hash.get(p))
            .map(|(_, i)| *i)
            .ok_or_else(|| PosError::Truncated { at: at() })?;
        if let Some(u) = self.used.get_mut(i) {
            *u = true;
        }
        let node = self
            .nodes
            .get(i)
            .ok_or_else(|| PosError::Truncated { at: at() })?;
        Ok((
            node,
            At {
                list: "items",
                index: i,
            },
        ))
    }
}

/// Verifies a decoded history proof of `key` against the roots of consecutive blocks: the
/// key's value (`None`: absent) at each of them, in block order.
pub fn verify_history(
    roots: &BlockRoots<'_>,
    key: &B256,
    proof: &HistoryProof,
) -> Result<Vec<Option<Word>>, PosError> {
    let to = (roots.roots.len() as u64)
        .checked_sub(1)
        .and_then(|n| roots.from.checked_add(n));
    if to != Some(proof.to) || roots.from != proof.from {
        return Err(PosError::RangeMismatch {
            expected: match to {
                Some(to) => format!("blocks {}..={to}", roots.from),
                None => String::from("no block"),
            },
            found: format!("blocks {}..={}", proof.from, proof.to),
        });
    }
    let nodes = proof.nodes()?;
    let mut by_hash: Vec<(B256, usize)> = nodes.iter().map(Node::hash).zip(0..).collect();
    by_hash.sort_unstable();
    for w in by_hash.windows(2) {
        if let [(a, i), (b, j)] = w
            && a == b
        {
            return Err(PosError::DuplicateNode {
                at: format!("items[{}]", i.max(j)),
                first: *i.min(j),
            });
        }
    }
    let mut set = NodeSet {
        nodes: &nodes,
        by_hash,
        used: vec![false; nodes.len()],
        block: 0,
    };
    let mut values = Vec::with_capacity(roots.roots.len());
    for (b, root) in roots.roots.iter().enumerate() {
        set.block = b;
        values.push(walk::walk(root, key, &mut set)?.0);
    }
    if let Some(i) = set.used.iter().position(|u| !u) {
        return Err(PosError::UnusedNode {
            at: format!("items[{i}]"),
        });
    }
    Ok(values)
}
