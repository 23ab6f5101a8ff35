//! `cole`: COLE / COLE* provenance proofs through `HistoryProof::decode` and
//! `verify_history_in_header`, against the header roots of `tests/vectors/cole/valid`.
//!
//! Fails when a proof other than the honest one is accepted with a history other than the
//! honest one (the trusted query — key, range, roots — stays fixed).

use lightprov_types::{
    B256, ErrorCode, Rejection,
    cole::{Entry, HistoryProof, Part, StructureKind, Tree},
};
use lightprov_verifier::cole::{Variant, Version, verify_history_in_header};

use super::proof::{ProofQuery, Seed};
use crate::{rng::Rng, vectors};

/// What a seed of the `cole` target asks.
#[derive(Clone, Debug)]
pub struct Query {
    cole_root: B256,
    variant: Variant,
    sibling: B256,
    key: B256,
    lo: u64,
    hi: u64,
}

fn edit_tree(t: &mut Tree, key: &B256, rng: &mut Rng) {
    match t {
        Tree::Node(children) if !children.is_empty() && !rng.one_in(4) => {
            let i = rng.below(children.len());
            match rng.below(6) {
                0 if children.len() > 1 => {
                    children.remove(i);
                }
                1 => {
                    let c = children[i].clone();
                    children.insert(i, c);
                }
                2 => {
                    let j = rng.below(children.len());
                    children.swap(i, j);
                }
                _ => edit_tree(&mut children[i], key, rng),
            }
        }
        Tree::Leaf(e) => match rng.below(5) {
            0 => e.block = e.block.wrapping_add(1),
            1 => e.block = e.block.wrapping_sub(1),
            2 => e.value[31] ^= 1,
            3 => e.key = if e.key == *key { B256::ZERO } else { *key },
            _ => *t = Tree::Hash(B256::from([rng.byte(); 32])),
        },
        Tree::Hash(h) => match rng.below(3) {
            0 => h.0[rng.below(32)] ^= 1,
            1 => {
                *t = Tree::Leaf(Entry {
                    key: *key,
                    block: rng.below(200) as u64,
                    value: [rng.byte(); 32],
                });
            }
            _ => *t = Tree::Node(vec![Tree::Hash(*h), Tree::Hash(*h)]),
        },
        Tree::Node(children) => {
            // Pruned to its hash (the right one when every child is a hash: an honest prover's
            // pruning, which must change nothing), or emptied.
            let c = children.clone();
            *t = if rng.one_in(2) {
                Tree::Hash(lightprov_types::cole::hash::node(c.iter().filter_map(
                    |x| match x {
                        Tree::Hash(h) => Some(h),
                        _ => None,
                    },
                )))
            } else {
                Tree::Node(Vec::new())
            };
        }
    }
}

impl ProofQuery for Query {
    const NAME: &'static str = "cole";
    /// The history's versions and the version at its first block.
    type Answer = (Vec<Version>, Option<Version>);

    fn seeds(name: &str, i: &serde_json::Value) -> anyhow::Result<Vec<Seed<Self>>> {
        let variant = match vectors::s(i, "scheme")? {
            "cole" => Variant::Cole,
            _ => Variant::ColeStar,
        };
        let query = Query {
            cole_root: vectors::b256(i, "coleRoot")?,
            variant,
            sibling: vectors::b256(i, "siblingRoot")?,
            key: vectors::b256(i, "stateKey")?,
            lo: vectors::u64(i, "fromBlock")?,
            hi: vectors::u64(i, "toBlock")?,
        };
        Seed::proof(name, i, query)
    }

    fn verify(&self, proof: &[u8]) -> Result<Self::Answer, impl Rejection> {
        verify_history_in_header(
            &self.cole_root,
            self.variant,
            &self.sibling,
            &self.key,
            self.lo,
            self.hi,
            proof,
        )
        .map(|h| (h.versions, h.at_lo))
    }

    fn last(&self) -> ErrorCode {
        ErrorCode::RootMismatch
    }

    fn mutate(&self, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        let mut p = HistoryProof::decode(data).ok()?;
        let key = self.key;
        if p.parts.is_empty() {
            return None;
        }
        let i = rng.below(p.parts.len());
        match rng.below(8) {
            0 if p.parts.len() > 1 => {
                let j = rng.below(p.parts.len());
                p.parts.swap(i, j);
            }
            1 => {
                p.parts.remove(i);
            }
            2 => {
                let c = p.parts[i].clone();
                p.parts.insert(i, c);
            }
            3 => {
                p.parts[i] = Part::Skipped(B256::from([rng.byte(); 32]));
            }
            4 => p.fanout = p.fanout.wrapping_add(rng.below(3) as u8).wrapping_sub(1),
            _ => match &mut p.parts[i] {
                Part::Searched(s) => match rng.below(6) {
                    0 => s.n = s.n.wrapping_add(1),
                    1 => s.height = s.height.wrapping_add(1),
                    2 => {
                        s.kind = match s.kind {
                            StructureKind::MbTree => StructureKind::Run { bloom: B256::ZERO },
                            StructureKind::Run { .. } => StructureKind::MbTree,
                        }
                    }
                    _ => edit_tree(&mut s.tree, &key, rng),
                },
                Part::Skipped(d) => d.0[rng.below(32)] ^= 1 << rng.below(8),
            },
        }
        Some(p.encode())
    }

    fn dictionary() -> Vec<Vec<u8>> {
        vec![vec![0], vec![1], vec![2], vec![3], vec![3, 4], vec![0xff]]
    }
}
