//! `mbt`: Merkle Bucket Tree value, diff and history proofs through their decoders and
//! verifiers, against the roots of `tests/vectors/mbt/valid`.
//!
//! Fails when a proof other than the honest one is accepted with an answer other than the
//! honest one (the trusted query — parameters, key, range, roots — stays fixed).

use lightprov_types::{
    B256, ErrorCode, Rejection,
    mbt::{DiffNode, DiffProof, Entry, HistoryProof, MbtParams, MbtProof},
};
use lightprov_verifier::mbt::{
    DiffTrusted, HistoryQuery, HistoryTrusted, verify, verify_diff, verify_history,
};

use super::proof::{ProofQuery, Seed};
use crate::{rng::Rng, vectors};

/// What a seed asks.
#[derive(Clone, Debug)]
pub enum Ask {
    Value { root: B256, key: B256 },
    Diff { old: B256, new: B256 },
    History { roots: Vec<B256>, q: HistoryQuery },
}

/// What a seed of the `mbt` target asks, with the tree's parameters.
#[derive(Clone, Debug)]
pub struct Query {
    params: MbtParams,
    ask: Ask,
}

fn small(i: &serde_json::Value, field: &str) -> anyhow::Result<u8> {
    i[field]
        .as_u64()
        .and_then(|v| u8::try_from(v).ok())
        .ok_or_else(|| anyhow::anyhow!("{field}: expected a small integer"))
}

impl ProofQuery for Query {
    const NAME: &'static str = "mbt";
    /// What a proof proves, as text.
    type Answer = String;

    fn seeds(name: &str, i: &serde_json::Value) -> anyhow::Result<Vec<Seed<Self>>> {
        let params = MbtParams::new(small(i, "bucketBits")?, small(i, "fanout")?)
            .map_err(|e| anyhow::anyhow!("seed {name}: {e:?}"))?;
        let ask = match vectors::s(i, "kind")? {
            "value" => Ask::Value {
                root: vectors::b256(i, "root")?,
                key: vectors::b256(i, "stateKey")?,
            },
            "diff" => Ask::Diff {
                old: vectors::b256(i, "oldRoot")?,
                new: vectors::b256(i, "newRoot")?,
            },
            _ => Ask::History {
                roots: vectors::b256_list(i, "roots")?,
                q: HistoryQuery {
                    key: vectors::b256(i, "stateKey")?,
                    lo: vectors::u64(i, "fromBlock")?,
                    hi: vectors::u64(i, "toBlock")?,
                },
            },
        };
        Seed::proof(name, i, Query { params, ask })
    }

    fn verify(&self, proof: &[u8]) -> Result<String, impl Rejection> {
        let p = self.params;
        match &self.ask {
            Ask::Value { root, key } => verify(&p, root, key, proof).map(|v| format!("{v:?}")),
            Ask::Diff { old, new } => {
                let t = DiffTrusted {
                    params: p,
                    old_root: *old,
                    new_root: *new,
                };
                verify_diff(&t, proof).map(|c| format!("{c:?}"))
            }
            Ask::History { roots, q } => {
                let t = HistoryTrusted { params: p, roots };
                verify_history(&t, q, proof).map(|h| format!("{h:?}"))
            }
        }
    }

    fn last(&self) -> ErrorCode {
        ErrorCode::RootMismatch
    }

    fn mutate(&self, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        match &self.ask {
            Ask::Value { .. } => {
                let mut p = MbtProof::decode(data).ok()?;
                mutate_value(&mut p, rng);
                Some(p.encode())
            }
            Ask::Diff { .. } => {
                let mut p = DiffProof::decode(data).ok()?;
                mutate_diff(&mut p.root, rng);
                Some(p.encode())
            }
            Ask::History { .. } => {
                let mut p = HistoryProof::decode(data).ok()?;
                mutate_history(&mut p, rng);
                Some(p.encode())
            }
        }
    }

    fn dictionary() -> Vec<Vec<u8>> {
        vec![vec![0], vec![1], vec![2], vec![0xff], vec![0, 0, 0, 1]]
    }
}

/// Drops, swaps, duplicates, alters or invents an entry of a bucket.
fn entries(e: &mut Vec<Entry>, rng: &mut Rng) {
    match rng.below(5) {
        0 if !e.is_empty() => {
            e.remove(rng.below(e.len()));
        }
        1 if e.len() > 1 => {
            let (i, j) = (rng.below(e.len()), rng.below(e.len()));
            e.swap(i, j);
        }
        2 if !e.is_empty() => {
            let i = rng.below(e.len());
            let d = e[i];
            e.insert(i, d);
        }
        3 if !e.is_empty() => {
            let i = rng.below(e.len());
            e[i].value[rng.below(32)] ^= 1;
        }
        _ => e.push(Entry {
            key: B256::from([rng.byte(); 32]),
            value: [rng.byte() | 1; 32],
        }),
    }
}

/// Tampers with a node of a diff proof reached by a random walk from `n`.
fn mutate_diff(n: &mut DiffNode, rng: &mut Rng) {
    if let DiffNode::Inner(c) = n
        && !c.is_empty()
        && rng.below(4) != 0
    {
        let i = rng.below(c.len());
        return mutate_diff(&mut c[i], rng);
    }
    match n {
        DiffNode::Same(h) => rng.flip(&mut h.0),
        DiffNode::Inner(c) => match rng.below(3) {
            0 if !c.is_empty() => {
                c.remove(rng.below(c.len()));
            }
            1 if c.len() > 1 => {
                let (i, j) = (rng.below(c.len()), rng.below(c.len()));
                c.swap(i, j);
            }
            _ => c.push(DiffNode::Same(B256::from([rng.byte(); 32]))),
        },
        DiffNode::Bucket { old, new } => {
            if rng.below(2) == 0 {
                entries(old, rng)
            } else {
                entries(new, rng)
            }
        }
    }
}

fn mutate_history(p: &mut HistoryProof, rng: &mut Rng) {
    match rng.below(4) {
        0 if !p.buckets.is_empty() => {
            let i = rng.below(p.buckets.len());
            entries(&mut p.buckets[i], rng);
        }
        1 if !p.buckets.is_empty() => {
            p.buckets.remove(rng.below(p.buckets.len()));
        }
        2 => {
            p.lo = p.lo.wrapping_add(rng.below(3) as u64).wrapping_sub(1);
        }
        _ if !p.levels.is_empty() => {
            let l = rng.below(p.levels.len());
            let level = &mut p.levels[l];
            match rng.below(3) {
                0 if !level.is_empty() => {
                    level.remove(rng.below(level.len()));
                }
                1 if !level.is_empty() => {
                    let i = rng.below(level.len());
                    let d = level[i].clone();
                    level.insert(i, d);
                }
                _ if !level.is_empty() => {
                    let i = rng.below(level.len());
                    let node = &mut level[i];
                    if !node.is_empty() {
                        let j = rng.below(node.len());
                        rng.flip(&mut node[j].0);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

fn mutate_value(p: &mut MbtProof, rng: &mut Rng) {
    match rng.below(4) {
        0 | 1 => entries(&mut p.entries, rng),
        2 if !p.levels.is_empty() => {
            let l = rng.below(p.levels.len());
            let level = &mut p.levels[l];
            if !level.is_empty() {
                let i = rng.below(level.len());
                rng.flip(&mut level[i].0);
            }
        }
        _ => {
            if !p.levels.is_empty() && rng.below(2) == 0 {
                p.levels.pop();
            } else {
                p.key.0[31] ^= 1;
            }
        }
    }
}
