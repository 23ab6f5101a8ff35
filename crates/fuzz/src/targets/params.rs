//! `params`: LVMT verifier parameters through `Params::decode` (depth, then D + 1 compressed
//! G2 points, each checked on the curve, in the subgroup and canonically encoded).
//!
//! Seeds: the D = 4 parameters of the vectors, and parameters of D = 1 and D = 16 built here
//! from a known τ. Fails when a decoded value does not re-encode to the input (clients pin the
//! parameters by the SHA-256 of their encoding, so only one encoding may decode).

use ark_bn254::{Fr, G2Affine, G2Projective};
use ark_ec::{AffineRepr as _, CurveGroup as _, PrimeGroup as _};
use ark_ff::Field as _;
use lightprov_types::hex;
use lightprov_verifier::lvmt::amt::{G2_BYTES, Params, g2_to_bytes};
use serde_json::json;

use crate::{Corpus, Depth, Finding, Outcome, Regression, Target, rng::Rng, strip_digits, vectors};

/// The `params` target.
#[derive(Debug)]
pub struct ParamsTarget {
    corpus: Corpus,
    /// Valid G2 points (for structure-aware swaps).
    points: Vec<[u8; G2_BYTES]>,
    /// An LVMT vector to wrap a failing input in.
    lvmt_inputs: Option<(String, serde_json::Value)>,
}

/// Parameters of depth `depth` for a τ everyone knows (fuzzing only).
fn known_tau_params(depth: u8) -> anyhow::Result<Params> {
    let tau = Fr::from(0x5eed_u64 + u64::from(depth));
    let g = G2Projective::generator();
    let mut points = vec![G2Affine::generator()];
    let mut power = tau;
    for _ in 0..depth {
        points.push((g * power).into_affine());
        power = power.square();
    }
    Params::new(depth, points).map_err(|e| anyhow::anyhow!("{e}"))
}

impl ParamsTarget {
    /// The vectors' parameters and two built here.
    pub fn new() -> anyhow::Result<Self> {
        let mut seeds: Vec<(String, Vec<u8>)> = Vec::new();
        let mut lvmt_inputs = None;
        for (name, v) in vectors::load("lvmt", "valid")? {
            let p = vectors::data(&v["inputs"], "params")?;
            if lvmt_inputs.is_none() {
                lvmt_inputs = Some((name.clone(), v["inputs"].clone()));
            }
            if !seeds.iter().any(|(_, s)| *s == p) {
                seeds.push((format!("{name} params"), p));
            }
        }
        for d in [1u8, 16] {
            seeds.push((format!("known-tau D = {d}"), known_tau_params(d)?.encode()));
        }
        let mut points = Vec::new();
        for (_, s) in &seeds {
            for c in s.get(1..).unwrap_or_default().chunks_exact(G2_BYTES) {
                let mut a = [0u8; G2_BYTES];
                a.copy_from_slice(c);
                points.push(a);
            }
        }
        // the negation of the generator: a valid point whose sign flag differs
        points.push(g2_to_bytes(&(-G2Affine::generator())));
        let t = Self {
            corpus: Corpus {
                name: "params",
                seeds,
            },
            points,
            lvmt_inputs,
        };
        Ok(t)
    }
}

impl Target for ParamsTarget {
    fn run(&self, _seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        match Params::decode(data) {
            Ok(p) if p.encode() != data => Err(Finding::new(
                "non-canonical",
                format!(
                    "decoded {} but it encodes to {}",
                    hex::encode(data),
                    hex::encode(&p.encode())
                ),
            )),
            Ok(_) => Ok(Outcome::new(Depth::Accepted, "ok")),
            Err(e) => {
                let depth = if e.field == "params" {
                    Depth::Undecoded
                } else if e.field.starts_with("params.g2") {
                    Depth::Decoded
                } else {
                    Depth::Final
                };
                Ok(Outcome::new(
                    depth,
                    format!("{}:{}", strip_digits(&e.field), e.reason),
                ))
            }
        }
    }

    fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    fn mutate(&self, _seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        let (&depth, rest) = data.split_first()?;
        let mut pts: Vec<Vec<u8>> = rest.chunks(G2_BYTES).map(<[u8]>::to_vec).collect();
        let mut depth = depth;
        match rng.below(6) {
            0 if !pts.is_empty() => {
                let i = rng.below(pts.len());
                pts[i] = rng.pick(&self.points)?.to_vec();
            }
            1 if pts.len() > 1 => {
                let (i, j) = (rng.below(pts.len()), rng.below(pts.len()));
                pts.swap(i, j);
            }
            2 => {
                // depth and length agree, points from elsewhere
                depth = rng.below(30) as u8;
                pts.resize_with(usize::from(depth) + 1, || {
                    rng.pick(&self.points)
                        .map(|p| p.to_vec())
                        .unwrap_or_default()
                });
            }
            3 if !pts.is_empty() => {
                // flip the flag bits of a point (sign, infinity)
                let i = rng.below(pts.len());
                if let Some(b) = pts[i].last_mut() {
                    *b ^= [0x80, 0x40, 0xc0][rng.below(3)];
                }
            }
            4 if !pts.is_empty() => {
                // the x coordinate at or past the field modulus
                let i = rng.below(pts.len());
                let n = pts[i].len();
                for b in pts[i].iter_mut().take(n.min(32)).skip(24) {
                    *b = 0xff;
                }
            }
            _ => depth = depth.wrapping_add(1),
        }
        let mut out = vec![depth];
        for p in pts {
            out.extend(p);
        }
        Some(out)
    }

    fn dictionary(&self) -> Vec<Vec<u8>> {
        vec![
            vec![0],
            vec![28],
            vec![29],
            vec![0x80],
            vec![0x40],
            vec![0xc0],
        ]
    }

    fn regression(&self, _seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        // An LVMT vector whose params are the failing bytes (and the rest a valid vector's).
        let (name, inputs) = self.lvmt_inputs.as_ref()?;
        let mut inputs = inputs.clone();
        inputs["params"] = json!(hex::encode(data));
        Some(vectors::regression_vector(
            "lvmt", "params", name, inputs, why, data,
        ))
    }
}
