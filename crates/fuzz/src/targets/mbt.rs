//! `mbt`: Merkle Bucket Tree value, diff and history proofs through their decoders and
//! verifiers, against the roots of `tests/vectors/mbt/valid`.
//!
//! Fails when a proof other than the honest one is accepted with an answer other than the
//! honest one (the trusted query — parameters, key, range, roots — stays fixed).

use lightprov_types::{
    B256,
    mbt::{DiffNode, DiffProof, Entry, HistoryProof, MbtError, MbtParams, MbtProof},
};
use lightprov_verifier::mbt::{
    DiffTrusted, HistoryQuery, HistoryTrusted, verify, verify_diff, verify_history,
};
use serde_json::json;

use crate::{Finding, Outcome, Regression, Target, rng::Rng, vectors};

/// What a seed asks.
#[derive(Clone, Debug)]
enum Ask {
    Value { root: B256, key: B256 },
    Diff { old: B256, new: B256 },
    History { roots: Vec<B256>, q: HistoryQuery },
}

#[derive(Clone, Debug)]
struct Query {
    params: MbtParams,
    ask: Ask,
    honest: String,
    vector: String,
    inputs: serde_json::Value,
}

/// The `mbt` target.
#[derive(Debug)]
pub struct Mbt {
    seeds: Vec<(String, Vec<u8>)>,
    queries: Vec<Query>,
}

/// What a proof proves, as text (the honest answer is compared with it).
fn run(q: &Query, proof: &[u8]) -> Result<String, MbtError> {
    let p = q.params;
    match &q.ask {
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

fn small(i: &serde_json::Value, field: &str) -> anyhow::Result<u8> {
    i[field]
        .as_u64()
        .and_then(|v| u8::try_from(v).ok())
        .ok_or_else(|| anyhow::anyhow!("{field}: expected a small integer"))
}

impl Mbt {
    /// Reads the seeds from `tests/vectors/mbt/valid`.
    pub fn new() -> anyhow::Result<Self> {
        let mut seeds = Vec::new();
        let mut queries = Vec::new();
        for (name, v) in vectors::load("mbt", "valid")? {
            let i = &v["inputs"];
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
                    roots: i["roots"]
                        .as_array()
                        .ok_or_else(|| anyhow::anyhow!("seed {name}: roots"))?
                        .iter()
                        .map(|r| {
                            let h = r.as_str().ok_or_else(|| anyhow::anyhow!("roots"))?;
                            Ok(B256::from(lightprov_types::hex::fixed::<32>(h, "roots")?))
                        })
                        .collect::<anyhow::Result<_>>()?,
                    q: HistoryQuery {
                        key: vectors::b256(i, "stateKey")?,
                        lo: vectors::u64(i, "fromBlock")?,
                        hi: vectors::u64(i, "toBlock")?,
                    },
                },
            };
            let proof = vectors::data(i, "proof")?;
            let mut q = Query {
                params,
                ask,
                honest: String::new(),
                vector: name.clone(),
                inputs: i.clone(),
            };
            q.honest = run(&q, &proof).map_err(|e| anyhow::anyhow!("seed {name}: {e}"))?;
            seeds.push((name, proof));
            queries.push(q);
        }
        anyhow::ensure!(!seeds.is_empty(), "no mbt seeds");
        Ok(Self { seeds, queries })
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

impl Target for Mbt {
    fn name(&self) -> &'static str {
        "mbt"
    }

    fn seeds(&self) -> &[(String, Vec<u8>)] {
        &self.seeds
    }

    fn run(&self, seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        let q = &self.queries[seed];
        crate::judge(
            run(q, data),
            &q.honest,
            &self.seeds[seed].1,
            data,
            lightprov_types::ErrorCode::RootMismatch,
        )
    }

    fn mutate(&self, seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        match &self.queries[seed].ask {
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

    fn dictionary(&self) -> Vec<Vec<u8>> {
        vec![vec![0], vec![1], vec![2], vec![0xff], vec![0, 0, 0, 1]]
    }

    fn regression(&self, seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        let q = &self.queries[seed];
        let mut inputs = q.inputs.clone();
        inputs["proof"] = json!(lightprov_types::hex::encode(data));
        Some(vectors::regression_vector(
            "mbt", "mbt", &q.vector, inputs, why, data,
        ))
    }
}
