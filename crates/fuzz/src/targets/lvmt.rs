//! `lvmt`: LVMT proofs (`verify`) and histories (`verify_history`) against the trusted roots of
//! `tests/vectors/lvmt/valid` (D = 4, so one full verification costs about a millisecond).
//!
//! Fails when bytes other than the honest proof are accepted with a result other than the
//! honest one.

use lightprov_types::{
    B256, ErrorCode, Rejection,
    lvmt::{Kind, LvmtHistory, LvmtProof, TuplePath},
};
use lightprov_verifier::lvmt::{
    amt::Params,
    proof::{History, Proven, Trusted, verify, verify_history},
};

use super::proof::{ProofQuery, Seed};
use crate::{Depth, rng::Rng, vectors};

/// What an accepted proof or history proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Honest {
    Proof(Proven),
    History(History),
}

/// What a seed of the `lvmt` target asks.
#[derive(Debug)]
pub struct Query {
    params: Params,
    aroot: [u8; 32],
    history_root: B256,
    blocks: u64,
    key: B256,
    range: Option<(u64, u64)>,
}

fn edit_path(p: &mut TuplePath, rng: &mut Rng) {
    match rng.below(7) {
        0 => p.block = p.block.wrapping_add(1),
        1 => p.index = p.index.wrapping_add(1),
        2 => p.size = p.size.wrapping_add(1),
        3 if !p.path.is_empty() => {
            p.path.pop();
        }
        4 => p.history.push(B256::from([rng.byte(); 32])),
        5 if !p.history.is_empty() => {
            let i = rng.below(p.history.len());
            p.history[i].0[0] ^= 1;
        }
        _ => std::mem::swap(&mut p.path, &mut p.history),
    }
}

fn edit_proof(p: &mut LvmtProof, rng: &mut Rng) {
    let n = p.levels.len();
    match rng.below(9) {
        0 if n > 0 => {
            let l = rng.below(n);
            let s = rng.below(6);
            p.levels[l].versions[s] = match rng.below(4) {
                0 => 0,
                1 => p.levels[l].versions[s].wrapping_add(1),
                2 => (1 << 40) - 1,
                _ => 1 << 40,
            };
        }
        1 if n > 0 => {
            let l = rng.below(n);
            let q = &mut p.levels[l].quotients;
            if q.len() > 1 {
                let j = rng.below(q.len());
                q.swap(0, j);
            } else {
                q.push([rng.byte(); 32]);
            }
        }
        2 if n > 1 => {
            p.levels.remove(rng.below(n));
        }
        3 if n > 0 => {
            let l = p.levels[rng.below(n)].clone();
            p.levels.push(l);
        }
        4 => {
            if let Some((c, path)) = p
                .levels
                .iter_mut()
                .filter_map(|l| l.commitment.as_mut())
                .next()
            {
                if rng.one_in(2) {
                    c[rng.below(32)] ^= 1 << rng.below(8);
                } else {
                    edit_path(path, rng);
                }
            }
        }
        5 => match &mut p.kind {
            Kind::Presence { slot, value, path } => match rng.below(3) {
                0 => *slot = rng.below(7) as u8,
                1 => value[31] ^= 1,
                _ => edit_path(path, rng),
            },
            Kind::Absence { others } => {
                if let Some(o) = others.first_mut() {
                    match rng.below(3) {
                        0 => o.value[31] ^= 1,
                        1 => o.key.0[31] ^= 1,
                        _ => edit_path(&mut o.path, rng),
                    }
                } else {
                    others.push(lightprov_types::lvmt::OtherKey {
                        key: p.key,
                        value: [0; 32],
                        path: TuplePath {
                            block: 0,
                            size: 1,
                            index: 0,
                            path: Vec::new(),
                            history: Vec::new(),
                        },
                    });
                }
            }
        },
        6 => p.depth = p.depth.wrapping_add(rng.below(3) as u8).wrapping_sub(1),
        7 => p.key.0[rng.below(32)] ^= 1,
        _ if n > 0 => {
            let l = rng.below(n);
            p.levels[l].commitment = None;
        }
        _ => {}
    }
}

impl ProofQuery for Query {
    const NAME: &'static str = "lvmt";
    type Answer = Honest;

    fn seeds(name: &str, i: &serde_json::Value) -> anyhow::Result<Vec<Seed<Self>>> {
        let params = Params::decode(&vectors::data(i, "params")?)
            .map_err(|e| anyhow::anyhow!("{name}: params: {e}"))?;
        let aroot: [u8; 32] = vectors::data(i, "lvmtRoot")?
            .try_into()
            .map_err(|_| anyhow::anyhow!("{name}: lvmtRoot is not 32 bytes"))?;
        let range = match i.get("fromBlock") {
            Some(_) => Some((vectors::u64(i, "fromBlock")?, vectors::u64(i, "toBlock")?)),
            None => None,
        };
        let query = Query {
            params,
            aroot,
            history_root: vectors::b256(i, "lvmtHistoryRoot")?,
            blocks: vectors::u64(i, "number")? + 1,
            key: vectors::b256(i, "stateKey")?,
            range,
        };
        Seed::proof(name, i, query)
    }

    fn verify(&self, proof: &[u8]) -> Result<Honest, impl Rejection> {
        let t = Trusted {
            params: &self.params,
            aroot: self.aroot,
            history_root: self.history_root,
            blocks: self.blocks,
        };
        match self.range {
            Some((lo, hi)) => verify_history(&t, &self.key, lo, hi, proof).map(Honest::History),
            None => verify(&t, &self.key, proof).map(Honest::Proof),
        }
    }

    fn last(&self) -> ErrorCode {
        ErrorCode::PairingCheckFailed
    }

    /// The verifier's `BAD_ENCODING` also covers points that are not on the curve, found after
    /// decoding: whether the bytes decode tells the two apart.
    fn depth(&self, data: &[u8], code: ErrorCode) -> Depth {
        let decodes = || {
            if self.range.is_some() {
                LvmtHistory::decode(data).is_ok()
            } else {
                LvmtProof::decode(data).is_ok()
            }
        };
        match code {
            ErrorCode::BadEncoding if !decodes() => Depth::Undecoded,
            ErrorCode::PairingCheckFailed => Depth::Final,
            _ => Depth::Decoded,
        }
    }

    fn mutate(&self, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        if self.range.is_some() {
            let mut h = LvmtHistory::decode(data).ok()?;
            match rng.below(6) {
                0 => h.first = h.first.wrapping_add(rng.below(3) as u64).wrapping_sub(1),
                1 if !h.tuples.is_empty() => {
                    h.tuples.remove(rng.below(h.tuples.len()));
                }
                2 if !h.tuples.is_empty() => {
                    let i = rng.below(h.tuples.len());
                    if rng.one_in(2) {
                        h.tuples[i].0[31] ^= 1;
                    } else {
                        edit_path(&mut h.tuples[i].1, rng);
                    }
                }
                3 if h.tuples.len() > 1 => {
                    let j = rng.below(h.tuples.len());
                    h.tuples.swap(0, j);
                }
                4 => {
                    let t = h.tuples.first().cloned()?;
                    h.tuples.push(t);
                }
                _ => edit_proof(&mut h.latest, rng),
            }
            Some(h.encode())
        } else {
            let mut p = LvmtProof::decode(data).ok()?;
            edit_proof(&mut p, rng);
            Some(p.encode())
        }
    }

    fn dictionary() -> Vec<Vec<u8>> {
        vec![
            vec![1, 4],
            vec![0, 0, 0, 0, 0, 0, 0, 1],
            vec![0xff; 5],
            vec![0x40],
            vec![0x80],
        ]
    }
}
