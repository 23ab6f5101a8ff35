//! `forkless`: forkless LiveDB proofs through `Proof::decode` and the value and history
//! verifiers, against the state roots of `tests/vectors/forkless/valid`.
//!
//! Fails when a proof other than the honest one is accepted with an answer other than the
//! honest one (the trusted query — key, range, root — stays fixed).

use lightprov_types::{
    Address, B256,
    forkless::{Claim, ForklessKey, Link, Located, Proof},
    hex,
};
use lightprov_verifier::forkless::{verify_history, verify_value};
use serde_json::json;

use crate::{Finding, Outcome, Regression, Target, rng::Rng, vectors};

#[derive(Clone, Debug)]
struct Query {
    root: B256,
    key: ForklessKey,
    range: Option<(u64, u64)>,
    honest: String,
    vector: String,
    inputs: serde_json::Value,
}

/// The `forkless` target.
#[derive(Debug)]
pub struct Forkless {
    seeds: Vec<(String, Vec<u8>)>,
    queries: Vec<Query>,
}

fn key_of(i: &serde_json::Value) -> anyhow::Result<ForklessKey> {
    let k = &i["key"];
    let a = Address::from(hex::fixed::<20>(vectors::s(k, "address")?, "address")?);
    Ok(match vectors::s(k, "kind")? {
        "balance" => ForklessKey::Balance(a),
        "nonce" => ForklessKey::Nonce(a),
        _ => ForklessKey::Storage(a, vectors::b256(k, "slot")?),
    })
}

/// What a proof proves, as text (the honest answer is compared with it).
fn verify(q: &Query, proof: &[u8]) -> Result<String, lightprov_verifier::forkless::ForklessError> {
    match q.range {
        None => verify_value(&q.root, &q.key, proof).map(|v| format!("{v:?}")),
        Some((lo, hi)) => verify_history(&q.root, &q.key, lo, hi, proof).map(|h| format!("{h:?}")),
    }
}

impl Forkless {
    /// Reads the seeds from `tests/vectors/forkless/valid`.
    pub fn new() -> anyhow::Result<Self> {
        let mut seeds = Vec::new();
        let mut queries = Vec::new();
        for (name, v) in vectors::load("forkless", "valid")? {
            let i = &v["inputs"];
            let proof = vectors::data(i, "proof")?;
            let range = match i.get("fromBlock") {
                Some(_) => Some((vectors::u64(i, "fromBlock")?, vectors::u64(i, "toBlock")?)),
                None => None,
            };
            let mut q = Query {
                root: vectors::b256(i, "forklessRoot")?,
                key: key_of(i)?,
                range,
                honest: String::new(),
                vector: name.clone(),
                inputs: i.clone(),
            };
            q.honest = verify(&q, &proof).map_err(|e| anyhow::anyhow!("seed {name}: {e}"))?;
            seeds.push((name, proof));
            queries.push(q);
        }
        anyhow::ensure!(!seeds.is_empty(), "no forkless seeds");
        Ok(Self { seeds, queries })
    }
}

impl Target for Forkless {
    fn name(&self) -> &'static str {
        "forkless"
    }

    fn seeds(&self) -> &[(String, Vec<u8>)] {
        &self.seeds
    }

    fn run(&self, seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        let q = &self.queries[seed];
        crate::judge(
            verify(q, data),
            &q.honest,
            &self.seeds[seed].1,
            data,
            lightprov_types::ErrorCode::RootMismatch,
        )
    }

    fn mutate(&self, _seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        let mut p = Proof::decode(data).ok()?;
        match rng.below(8) {
            0 => match &mut p.located {
                Located::Present { record, keys } => match rng.below(4) {
                    0 => *record = record.wrapping_add(1),
                    1 => *record = record.wrapping_sub(1),
                    2 => keys.count = keys.count.wrapping_add(rng.below(3) as u64).wrapping_sub(1),
                    _ => rng.flip(&mut keys.page),
                },
                Located::Absent { entries, buckets } => match rng.below(4) {
                    0 if !entries.is_empty() => {
                        entries.remove(rng.below(entries.len()));
                    }
                    1 if entries.len() > 1 => {
                        let (i, j) = (rng.below(entries.len()), rng.below(entries.len()));
                        entries.swap(i, j);
                    }
                    2 => buckets.count = buckets.count.wrapping_add(1),
                    _ => rng.flip(&mut buckets.page),
                },
            },
            1 => {
                let i = rng.below(p.roots.len());
                p.roots[i].0[rng.below(32)] ^= 1;
            }
            2 => {
                p.params.fanout = p
                    .params
                    .fanout
                    .wrapping_add(rng.below(3) as u8)
                    .wrapping_sub(1)
            }
            _ => match &mut p.claim {
                Claim::Value(Some(o)) => rng.flip(&mut o.page),
                Claim::History {
                    chain: Some((o, c)),
                    ..
                } => match rng.below(6) {
                    0 if !c.links.is_empty() => {
                        c.links.remove(rng.below(c.links.len()));
                    }
                    1 if !c.links.is_empty() => {
                        let i = rng.below(c.links.len());
                        c.links[i].block = c.links[i].block.wrapping_add(1);
                    }
                    2 if c.links.len() > 1 => {
                        let (i, j) = (rng.below(c.links.len()), rng.below(c.links.len()));
                        c.links.swap(i, j);
                    }
                    3 => {
                        c.base = match c.base {
                            Some(_) => None,
                            None => Some(B256::from([rng.byte(); 32])),
                        }
                    }
                    4 => c.links.push(Link {
                        block: rng.below(64) as u64,
                        value: [rng.byte(); 32],
                    }),
                    _ => rng.flip(&mut o.page),
                },
                _ => return None,
            },
        }
        Some(p.encode())
    }

    fn dictionary(&self) -> Vec<Vec<u8>> {
        vec![vec![0], vec![1], vec![2], vec![3], vec![0xff]]
    }

    fn regression(&self, seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        let q = &self.queries[seed];
        let mut inputs = q.inputs.clone();
        inputs["proof"] = json!(hex::encode(data));
        Some(vectors::regression_vector(
            "forkless", "forkless", &q.vector, inputs, why, data,
        ))
    }
}
