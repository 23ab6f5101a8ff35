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
use lightprov_amt::{Opening, shape};

use crate::setup::Setup;

pub use lightprov_amt::{MAX_VERSION, SLOTS, VERSION_BITS};

/// A point kept as per-slot accumulators (`Σ_s 2^{40s}·A_s` is the point).
pub type Acc = [G1Projective; SLOTS];

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

pub use lightprov_amt::packed;

/// Why a bump was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum AmtError {
    /// Entry or slot out of range.
    OutOfRange,
    /// The slot's version would exceed 2^40 − 1.
    VersionOverflow,
}

/// Which openings an AMT keeps current (the paper's proof sharding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Proofs {
    /// Every entry's.
    All,
    /// The entries `j` with `j mod 2^bits = residue`: the subtree of the AMT's proof tree under
    /// node `(bits, residue)`. It keeps about `N / 2^bits` proof nodes instead of `N − 1`.
    Shard {
        /// log2 of the number of shards (`1..=D`).
        bits: u8,
        /// This shard (`< 2^bits`).
        residue: u32,
    },
    /// None: only the commitment moves on a bump.
    None,
}

impl Proofs {
    /// Whether entry `j`'s opening is kept.
    pub const fn keeps_entry(&self, j: u32) -> bool {
        match *self {
            Self::All => true,
            Self::None => false,
            Self::Shard { bits, residue } => j & mask(bits) == residue & mask(bits),
        }
    }

    /// Whether proof node `(e, p)` is on some kept entry's path (`p < 2^e`; the node serves
    /// every `j ≡ p (mod 2^e)`).
    const fn keeps_node(&self, e: u32, p: u32) -> bool {
        match *self {
            Self::All => true,
            Self::None => false,
            Self::Shard { bits, residue } => {
                let b = if (bits as u32) < e { bits as u32 } else { e };
                p & mask_u32(b) == residue & mask_u32(b)
            }
        }
    }
}

const fn mask(bits: u8) -> u32 {
    mask_u32(bits as u32)
}

const fn mask_u32(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

/// An AMT of depth D.
#[derive(Clone, Debug)]
pub struct Amt {
    depth: u8,
    proofs: Proofs,
    versions: HashMap<u32, [u64; SLOTS]>,
    commitment: Acc,
    nodes: HashMap<u32, Acc>,
}

impl Amt {
    /// An AMT whose entries are all zero (every slot vacant), keeping every opening current.
    pub fn new(depth: u8) -> Self {
        Self::with_proofs(depth, Proofs::All)
    }

    /// An empty AMT keeping the openings `proofs` names current.
    pub fn with_proofs(depth: u8, proofs: Proofs) -> Self {
        Self {
            depth,
            proofs,
            versions: HashMap::new(),
            commitment: [G1Projective::zero(); SLOTS],
            nodes: HashMap::new(),
        }
    }

    /// An AMT from its stored parts: the versions of the entries ever bumped, the commitment's
    /// accumulators and the kept proof nodes' (by index, see [`lightprov_amt::shape`]).
    pub fn from_parts(
        depth: u8,
        proofs: Proofs,
        versions: HashMap<u32, [u64; SLOTS]>,
        commitment: Acc,
        nodes: HashMap<u32, Acc>,
    ) -> Self {
        Self {
            depth,
            proofs,
            versions,
            commitment,
            nodes,
        }
    }

    /// D.
    pub const fn depth(&self) -> u8 {
        self.depth
    }

    /// The accumulators at `index`: 0 is the commitment, `2^e + p` the proof node `(e, p)`;
    /// `None` for a node never moved.
    pub fn accumulators(&self, index: u32) -> Option<&Acc> {
        if index == 0 {
            Some(&self.commitment)
        } else {
            self.nodes.get(&index)
        }
    }

    /// The accumulator indices a bump of entry `j` moves: the commitment (0), then the kept
    /// proof nodes on `j`'s path.
    pub fn moved_by(&self, j: u32) -> Vec<u32> {
        let mut out = vec![0];
        for d in 1..=u32::from(self.depth) {
            let idx = shape::quotient_node(d, j);
            let (e, p) = shape::node_at(idx);
            if self.proofs.keeps_node(e, p) {
                out.push(idx);
            }
        }
        out
    }

    /// Every entry ever bumped, with its versions (in no particular order).
    pub fn entries(&self) -> impl Iterator<Item = (u32, [u64; SLOTS])> + '_ {
        self.versions.iter().map(|(j, v)| (*j, *v))
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
            let idx = shape::quotient_node(d as u32, j);
            let (e, p) = shape::node_at(idx);
            if !self.proofs.keeps_node(e, p) {
                continue;
            }
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
        self.commitment_projective().into_affine()
    }

    /// The commitment `C`, before conversion to affine (to convert many at once).
    pub fn commitment_projective(&self) -> G1Projective {
        combine(&self.commitment)
    }

    /// Which openings this AMT keeps.
    pub const fn proofs(&self) -> Proofs {
        self.proofs
    }

    /// The opening of entry `i`: its packed versions and the D quotient points; `None` when
    /// `i` is outside the AMT or its opening is not kept.
    pub fn open(&self, i: u32) -> Option<Opening> {
        if i >= 1u32 << self.depth || !self.proofs.keeps_entry(i) {
            return None;
        }
        let d = usize::from(self.depth);
        let quotients: Vec<G1Projective> = (1..=d)
            .map(|level| {
                self.nodes
                    .get(&shape::quotient_node(level as u32, i))
                    .map_or(G1Projective::zero(), combine)
            })
            .collect();
        Some(Opening {
            commitment: self.commitment(),
            index: u64::from(i),
            value: packed(&self.versions(i)),
            quotients: G1Projective::normalize_batch(&quotients),
        })
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
            let openings: Vec<Opening> = (0..n).map(|i| amt.open(i).unwrap()).collect();
            for o in &openings {
                verify(setup.params(), std::slice::from_ref(o)).unwrap();
            }
            verify(setup.params(), &openings).unwrap();
            // A stale version (one bump behind) is refused.
            let mut stale = amt.open(1).unwrap();
            stale.value -= Fr::from(1u64);
            assert_eq!(
                verify(setup.params(), &[stale]),
                Err(VerifyError::PairingCheckFailed)
            );
        }
    }

    #[test]
    fn a_shard_keeps_exactly_its_openings_and_the_same_commitment() {
        let depth = 5u8;
        let setup = Setup::dev_insecure(depth, b"shard").unwrap();
        let n = 1u32 << depth;
        let shards = [
            Proofs::All,
            Proofs::Shard {
                bits: 2,
                residue: 3,
            },
            Proofs::Shard {
                bits: 5,
                residue: 17,
            },
            Proofs::None,
        ];
        let mut amts: Vec<Amt> = shards.iter().map(|p| Amt::with_proofs(depth, *p)).collect();
        for k in 0..200u32 {
            let j = k.wrapping_mul(2_654_435_761) % n;
            for a in &mut amts {
                a.bump(&setup, j, (k % 6) as usize).unwrap();
            }
        }
        let full = &amts[0];
        for (a, p) in amts.iter().zip(shards) {
            assert_eq!(a.commitment(), full.commitment());
            for j in 0..n {
                let kept = p.keeps_entry(j);
                match a.open(j) {
                    Some(o) => {
                        assert!(kept);
                        assert_eq!(o.quotients, full.open(j).unwrap().quotients);
                        verify(setup.params(), &[o]).unwrap();
                    }
                    None => assert!(!kept),
                }
            }
        }
        // A shard holds about N / 2^bits of the N − 1 nodes.
        assert_eq!(amts[0].nodes.len(), (n - 1) as usize);
        assert!(amts[1].nodes.len() <= (n / 4 + 2) as usize);
        assert!(amts[3].nodes.is_empty());
        assert!(full.open(n).is_none());
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
