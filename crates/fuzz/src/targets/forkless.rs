//! `forkless`: forkless LiveDB proofs through `Proof::decode` and the value and history
//! verifiers, against the state roots of `tests/vectors/forkless/valid`.
//!
//! Fails when a proof other than the honest one is accepted with an answer other than the
//! honest one (the trusted query — key, range, root — stays fixed).

use lightprov_types::{
    Address, B256, ErrorCode, Rejection,
    forkless::{Claim, ForklessKey, Link, Located, Proof},
    hex,
};
use lightprov_verifier::forkless::{verify_history, verify_value};

use super::proof::{ProofQuery, Seed};
use crate::{rng::Rng, vectors};

/// What a seed of the `forkless` target asks.
#[derive(Clone, Debug)]
pub struct Query {
    root: B256,
    key: ForklessKey,
    range: Option<(u64, u64)>,
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

impl ProofQuery for Query {
    const NAME: &'static str = "forkless";
    /// What a proof proves, as text.
    type Answer = String;

    fn seeds(name: &str, i: &serde_json::Value) -> anyhow::Result<Vec<Seed<Self>>> {
        let range = match i.get("fromBlock") {
            Some(_) => Some((vectors::u64(i, "fromBlock")?, vectors::u64(i, "toBlock")?)),
            None => None,
        };
        let query = Query {
            root: vectors::b256(i, "forklessRoot")?,
            key: key_of(i)?,
            range,
        };
        Seed::proof(name, i, query)
    }

    fn verify(&self, proof: &[u8]) -> Result<String, impl Rejection> {
        match self.range {
            None => verify_value(&self.root, &self.key, proof).map(|v| format!("{v:?}")),
            Some((lo, hi)) => {
                verify_history(&self.root, &self.key, lo, hi, proof).map(|h| format!("{h:?}"))
            }
        }
    }

    fn last(&self) -> ErrorCode {
        ErrorCode::RootMismatch
    }

    fn mutate(&self, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
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

    fn dictionary() -> Vec<Vec<u8>> {
        vec![vec![0], vec![1], vec![2], vec![3], vec![0xff]]
    }
}
