//! `pos`: POS-Tree path, range, diff and history proofs through their decoders and verifiers,
//! against the roots of `tests/vectors/pos/valid`.
//!
//! Fails when a proof other than the honest one is accepted with an answer other than the
//! honest one (the trusted query — roots, key, range — stays fixed).

use lightprov_types::{
    B256, ErrorCode, Rejection, Word,
    pos::{DiffProof, HistoryItem, HistoryProof, Node, PathProof, RangeProof, Tree},
};
use lightprov_verifier::{
    Verify,
    pos::{BlockRoots, PosDiff, PosHistory, PosRange, PosValue},
};

use super::proof::{ProofQuery, Seed};
use crate::{rng::Rng, vectors};

/// What a seed of the `pos` target asks, with the roots it is checked against.
#[derive(Clone, Debug)]
pub enum Ask {
    Value(B256, B256),
    Range(B256, B256, B256),
    Diff(B256, B256),
    History(u64, Vec<B256>, B256),
}

fn ask_of(i: &serde_json::Value) -> anyhow::Result<Ask> {
    let b = |f: &str| vectors::b256(i, f);
    Ok(match vectors::s(i, "kind")? {
        "value" => Ask::Value(b("posRoot")?, b("stateKey")?),
        "range" => Ask::Range(b("posRoot")?, b("lo")?, b("hi")?),
        "diff" => Ask::Diff(b("oldRoot")?, b("newRoot")?),
        _ => {
            let from = i["fromBlock"]
                .as_u64()
                .ok_or_else(|| anyhow::anyhow!("fromBlock: expected a number"))?;
            Ask::History(from, vectors::b256_list(i, "roots")?, b("stateKey")?)
        }
    })
}

/// One change to a node: an entry's key or value flipped, an entry dropped, duplicated or
/// swapped with its neighbour, or its level moved.
fn mutate_node(n: &mut Node, rng: &mut Rng) {
    let len = n.entries.len();
    match rng.below(6) {
        0 if len > 0 => {
            let i = rng.below(len);
            rng.flip(&mut n.entries[i].0.0)
        }
        1 if len > 0 => {
            let i = rng.below(len);
            rng.flip(&mut n.entries[i].1)
        }
        2 if len > 0 => {
            n.entries.remove(rng.below(len));
        }
        3 if len > 0 => {
            let i = rng.below(len);
            let e = n.entries[i];
            n.entries.insert(i, e);
        }
        4 if len > 1 => {
            let i = rng.below(len - 1);
            n.entries.swap(i, i + 1);
        }
        _ => n.level = n.level.wrapping_add(rng.below(3) as u8).wrapping_sub(1),
    }
}

/// One change somewhere in a partial tree: a revealed subtree pruned to a (wrong or right)
/// hash, a separator or entry flipped, a child dropped or duplicated.
fn mutate_tree(t: &mut Tree, rng: &mut Rng) {
    match t {
        Tree::Pruned(h) => rng.flip(&mut h.0),
        Tree::Leaf(entries) => {
            let mut n = Node::leaf(std::mem::take(entries));
            mutate_node(&mut n, rng);
            *entries = n.entries;
        }
        Tree::Inner { level, children } => {
            let len = children.len();
            match rng.below(6) {
                0 if len > 0 => {
                    let i = rng.below(len);
                    mutate_tree(&mut children[i].1, rng);
                }
                1 if len > 0 => {
                    let i = rng.below(len);
                    rng.flip(&mut children[i].0.0)
                }
                2 if len > 0 => {
                    let i = rng.below(len);
                    children[i].1 = Tree::Pruned(B256::from([rng.byte(); 32]));
                }
                3 if len > 1 => {
                    children.remove(rng.below(len));
                }
                4 if len > 0 => {
                    let i = rng.below(len);
                    let c = children[i].clone();
                    children.insert(i, c);
                }
                _ => *level = level.wrapping_add(1),
            }
        }
    }
}

/// The honest word a node set's item carries, changed.
/// The list mutations of a path proof's nodes and a history proof's items, by `choice`: 0 drops
/// an element (of two or more), 1 repeats one at the end. `false` (nothing done) for another
/// choice or a list too short for it.
fn drop_or_repeat<T: Clone>(v: &mut Vec<T>, choice: usize, rng: &mut Rng) -> bool {
    let len = v.len();
    match choice {
        0 if len > 1 => {
            v.remove(rng.below(len));
        }
        1 if len > 0 => {
            let x = v[rng.below(len)].clone();
            v.push(x);
        }
        _ => return false,
    }
    true
}

fn mutate_item(item: &mut HistoryItem, rng: &mut Rng) {
    match item {
        HistoryItem::Full(n) => mutate_node(n, rng),
        HistoryItem::Patch { base, splices } => match rng.below(3) {
            0 => *base = base.saturating_sub(1),
            1 if !splices.is_empty() => {
                splices.remove(rng.below(splices.len()));
            }
            _ => {
                if let Some(s) = splices.first_mut() {
                    s.delete = s.delete.wrapping_add(1);
                }
            }
        },
        HistoryItem::Values { base, values } => match rng.below(3) {
            0 => *base = base.saturating_sub(1),
            1 if !values.is_empty() => {
                let i = rng.below(values.len());
                let v: &mut Word = &mut values[i].1;
                rng.flip(v);
            }
            _ => {
                if let Some(v) = values.first_mut() {
                    v.0 = v.0.wrapping_add(1);
                }
            }
        },
    }
}

impl ProofQuery for Ask {
    const NAME: &'static str = "pos";
    /// What a proof proves, as text.
    type Answer = String;

    fn seeds(name: &str, i: &serde_json::Value) -> anyhow::Result<Vec<Seed<Self>>> {
        Seed::proof(name, i, ask_of(i)?)
    }

    fn verify(&self, proof: &[u8]) -> Result<String, impl Rejection> {
        match self {
            Ask::Value(root, key) => PosValue::verify(root, key, proof).map(|v| format!("{v:?}")),
            Ask::Range(root, lo, hi) => {
                PosRange::verify(root, &(*lo, *hi), proof).map(|v| format!("{v:?}"))
            }
            Ask::Diff(old, new) => {
                PosDiff::verify(&(*old, *new), &(), proof).map(|v| format!("{v:?}"))
            }
            Ask::History(from, roots, key) => {
                PosHistory::verify(&BlockRoots { from: *from, roots }, key, proof)
                    .map(|v| format!("{v:?}"))
            }
        }
    }

    fn last(&self) -> ErrorCode {
        match self {
            Ask::Value(..) => ErrorCode::ExtraNodes,
            Ask::Range(..) => ErrorCode::ExtraResults,
            Ask::Diff(..) => ErrorCode::UnmatchedSubtree,
            Ask::History(..) => ErrorCode::UnusedNode,
        }
    }

    fn mutate(&self, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        match self {
            Ask::Value(..) => {
                let mut p = PathProof::decode(data).ok()?;
                let choice = rng.below(4);
                if !drop_or_repeat(&mut p.nodes, choice, rng) {
                    if p.nodes.is_empty() {
                        return None;
                    }
                    let i = rng.below(p.nodes.len());
                    mutate_node(&mut p.nodes[i], rng);
                }
                Some(p.encode())
            }
            Ask::Range(..) => {
                let mut p = RangeProof::decode(data).ok()?;
                mutate_tree(&mut p.tree, rng);
                Some(p.encode())
            }
            Ask::Diff(..) => {
                let mut p = DiffProof::decode(data).ok()?;
                if rng.one_in(2) {
                    mutate_tree(&mut p.old, rng);
                } else {
                    mutate_tree(&mut p.new, rng);
                }
                Some(p.encode())
            }
            Ask::History(..) => {
                let mut p = HistoryProof::decode(data).ok()?;
                let choice = rng.below(5);
                if choice == 2 {
                    p.to = p.to.wrapping_add(rng.below(3) as u64).wrapping_sub(1);
                } else if !drop_or_repeat(&mut p.items, choice, rng) {
                    if p.items.is_empty() {
                        return None;
                    }
                    let i = rng.below(p.items.len());
                    mutate_item(&mut p.items[i], rng);
                }
                Some(p.encode())
            }
        }
    }

    fn dictionary() -> Vec<Vec<u8>> {
        vec![vec![0], vec![1], vec![2], vec![0xff]]
    }
}
