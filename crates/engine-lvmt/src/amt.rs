//! One AMT with proof maintenance: the commitment and the N − 1 proof nodes, moved by
//! precomputed points on every version bump (no scalar multiplication on the write path).
//!
//! An entry packs six 40-bit versions, `a_j = Σ_s v_s·2^{40s}` (slot 0: the sub-AMT's
//! commitment version, slots 1–5: keys). Each point the AMT keeps is held as six per-slot
//! accumulators `A_s` (a bump in slot s adds the table point to `A_s`), combined as
//! `Σ_s 2^{40s}·A_s` — 200 doublings — only when a commitment or a proof is read.
//!
//! Proof nodes: node `(e, p)`, `0 ≤ e < D`, `p < 2^e`, at index `2^e + p`, is shared by every
//! entry `j ≡ p (mod 2^e)`; the opening of `i` is `Q_d = node(d − 1, i mod 2^{d−1})`. Two
//! siblings always carry the same quotient, so N − 1 points hold every proof, and a bump moves D
//! of them plus C. Nodes are stored sparsely: a sub-AMT with few entries keeps few points.

use std::collections::HashMap;

use ark_bn254::{G1Affine, G1Projective};
use ark_ec::{AdditiveGroup, CurveGroup};
use ark_ff::Zero;
use lightprov_verifier::lvmt::amt::Opening;

use crate::setup::Setup;

/// Versions per entry.
pub const SLOTS: usize = 6;
/// Bits per version.
pub const VERSION_BITS: u32 = 40;
/// The largest version a slot holds.
pub const MAX_VERSION: u64 = (1 << VERSION_BITS) - 1;

/// A point kept as per-slot accumulators.
type Acc = [G1Projective; SLOTS];

fn combine(a: &Acc) -> G1Projective {
    let mut out = G1Projective::zero();
    for s in (0..SLOTS).rev() {
        for _ in 0..VERSION_BITS {
            out.double_in_place();
        }
        if let Some(x) = a.get(s) {
            out += x;
        }
    }
    out
}

pub use lightprov_verifier::lvmt::amt::packed;

/// Why a bump was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum AmtError {
    /// Entry or slot out of range.
    OutOfRange,
    /// The slot's version would exceed 2^40 − 1.
    VersionOverflow,
}

/// An AMT of depth D.
#[derive(Clone, Debug)]
pub struct Amt {
    depth: u8,
    versions: HashMap<u32, [u64; SLOTS]>,
    commitment: Acc,
    nodes: HashMap<u32, Acc>,
}

impl Amt {
    /// An AMT whose entries are all zero (every slot vacant).
    pub fn new(depth: u8) -> Self {
        Self {
            depth,
            versions: HashMap::new(),
            commitment: [G1Projective::zero(); SLOTS],
            nodes: HashMap::new(),
        }
    }

    /// The versions of entry `j`.
    pub fn versions(&self, j: u32) -> [u64; SLOTS] {
        self.versions.get(&j).copied().unwrap_or([0; SLOTS])
    }

    /// Increments the version in `slot` of entry `j`; returns the new version.
    pub fn bump(&mut self, setup: &Setup, j: u32, slot: usize) -> Result<u64, AmtError> {
        let n = 1u32 << self.depth;
        if j >= n || slot >= SLOTS || setup.depth() != self.depth {
            return Err(AmtError::OutOfRange);
        }
        let v = self.versions.entry(j).or_insert([0; SLOTS]);
        let cur = v.get(slot).copied().unwrap_or(0);
        if cur >= MAX_VERSION {
            return Err(AmtError::VersionOverflow);
        }
        if let Some(x) = v.get_mut(slot) {
            *x = cur + 1;
        }
        let ju = j as usize;
        if let (Some(l), Some(c)) = (setup.lagrange(ju), self.commitment.get_mut(slot)) {
            *c += l;
        }
        for d in 1..=usize::from(self.depth) {
            let half = 1u32 << (d - 1);
            let idx = half + (j % half);
            let node = self
                .nodes
                .entry(idx)
                .or_insert([G1Projective::zero(); SLOTS]);
            if let (Some(u), Some(a)) = (setup.quotient(d, ju), node.get_mut(slot)) {
                *a += u;
            }
        }
        Ok(cur + 1)
    }

    /// The commitment `C`.
    pub fn commitment(&self) -> G1Affine {
        combine(&self.commitment).into_affine()
    }

    /// The opening of entry `i`: its packed versions and the D quotient points.
    pub fn open(&self, i: u32) -> Opening {
        let d = usize::from(self.depth);
        let quotients: Vec<G1Projective> = (1..=d)
            .map(|level| {
                let half = 1u32 << (level - 1);
                self.nodes
                    .get(&(half + (i % half)))
                    .map_or(G1Projective::zero(), combine)
            })
            .collect();
        Opening {
            commitment: self.commitment(),
            index: u64::from(i),
            value: packed(&self.versions(i)),
            quotients: G1Projective::normalize_batch(&quotients),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ec::{PrimeGroup, VariableBaseMSM};
    use ark_ff::Field;
    use lightprov_verifier::lvmt::amt::{AmtError as VerifyError, verify};

    #[test]
    fn combine_is_horner() {
        let g = G1Projective::generator();
        let mut a = [G1Projective::zero(); SLOTS];
        for (s, x) in a.iter_mut().enumerate() {
            *x = g * Fr::from(s as u64 + 1);
        }
        let want: Fr = (0..SLOTS)
            .map(|s| Fr::from(s as u64 + 1) * Fr::from(2u64).pow([40 * s as u64]))
            .sum();
        assert_eq!(combine(&a), g * want);
    }

    #[test]
    fn maintained_openings_verify_and_match_the_values() {
        for depth in [1u8, 3, 6] {
            let setup = Setup::dev_insecure(depth, b"test").unwrap();
            let n = 1u32 << depth;
            let mut amt = Amt::new(depth);
            // Bumps in every slot, some entries many times, some never.
            let mut x = 7u32;
            for _ in 0..(3 * n) {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let j = (x >> 8) % n;
                let slot = ((x >> 3) % 6) as usize;
                if j % 5 != 4 {
                    amt.bump(&setup, j, slot).unwrap();
                }
            }
            // C = Σ a_j·[L_j(τ)]₁
            let (bases, scalars): (Vec<G1Affine>, Vec<Fr>) = (0..n)
                .map(|j| {
                    (
                        *setup.lagrange(j as usize).unwrap(),
                        packed(&amt.versions(j)),
                    )
                })
                .unzip();
            assert_eq!(
                G1Projective::msm(&bases, &scalars).unwrap().into_affine(),
                amt.commitment()
            );
            let openings: Vec<Opening> = (0..n).map(|i| amt.open(i)).collect();
            for o in &openings {
                verify(setup.params(), std::slice::from_ref(o)).unwrap();
            }
            verify(setup.params(), &openings).unwrap();
            // A stale version (one bump behind) is refused.
            let mut stale = amt.open(1);
            stale.value -= Fr::from(1u64);
            assert_eq!(
                verify(setup.params(), &[stale]),
                Err(VerifyError::PairingCheckFailed)
            );
        }
    }

    #[test]
    fn bumps_out_of_range_are_refused() {
        let setup = Setup::dev_insecure(2, b"t").unwrap();
        let mut amt = Amt::new(2);
        assert_eq!(amt.bump(&setup, 4, 0), Err(AmtError::OutOfRange));
        assert_eq!(amt.bump(&setup, 0, 6), Err(AmtError::OutOfRange));
        assert_eq!(amt.bump(&setup, 3, 5), Ok(1));
        let mut wrong = Amt::new(3);
        assert_eq!(wrong.bump(&setup, 0, 0), Err(AmtError::OutOfRange));
    }
}
