//! The AMT opening check (the verifier's side; the engine uses it in its tests): see the
//! crate's README and `lightprov-verifier`'s `lvmt::amt` for the equation. Here, with the
//! encodings and [`Params`], so that every BN254 routine is compiled once in a wasm module.

use alloc::vec::Vec;
use core::fmt;

use crate::{Opening, Params, fast_g1_to_bytes, fr_to_be};

use ark_bn254::Fr;
use ark_ec::{AdditiveGroup, AffineRepr, CurveGroup, pairing::Pairing, scalar_mul::glv::GLVConfig};
use ark_ff::{BigInteger, Field, One, PrimeField, Zero};
use lightprov_field::bn254::{
    Bn254, G1Affine, G1Config, G1Projective, G2Lines, g1_from_ark, multi_miller_loop,
};
use lightprov_types::{DecodeError, ErrorCode};
use sha2::{Digest, Sha256};

/// λ, the eigenvalue of G1's endomorphism φ(x, y) = (β·x, y): φ(P) = [λ]P (`ark-bn254`'s GLV
/// constants, which its own multiplication relies on).
const LAMBDA: Fr = <ark_bn254::g1::Config as GLVConfig>::LAMBDA;

/// Why an opening was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AmtError {
    /// An input is not the one accepted encoding (a point off the curve or outside the
    /// subgroup, a non-canonical encoding, a wrong length, an index out of range).
    Encoding(DecodeError),
    /// The pairing equation does not hold: some value, index or quotient is false.
    PairingCheckFailed,
}

impl AmtError {
    /// The stable code.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::Encoding(_) => ErrorCode::BadEncoding,
            Self::PairingCheckFailed => ErrorCode::PairingCheckFailed,
        }
    }
}

impl fmt::Display for AmtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Encoding(e) => write!(f, "{e}"),
            Self::PairingCheckFailed => f.write_str("the AMT opening does not verify"),
        }
    }
}

impl From<DecodeError> for AmtError {
    fn from(e: DecodeError) -> Self {
        Self::Encoding(e)
    }
}

/// The canonical bytes of an opening the batching coefficients are derived from.
fn transcript(o: &FastOpening<'_>, h: &mut Sha256) {
    h.update(fast_g1_to_bytes(&o.commitment));
    h.update(o.opening.index.to_be_bytes());
    h.update(fr_to_be(&o.opening.value));
    for q in &o.quotients {
        h.update(fast_g1_to_bytes(q));
    }
}

/// An opening's points on lightprov-field's backend (the same words), where the check runs.
struct FastOpening<'a> {
    opening: &'a Opening,
    commitment: G1Affine,
    quotients: Vec<G1Affine>,
}

impl<'a> From<&'a Opening> for FastOpening<'a> {
    fn from(opening: &'a Opening) -> Self {
        Self {
            opening,
            commitment: g1_from_ark(&opening.commitment),
            quotients: opening.quotients.iter().map(g1_from_ark).collect(),
        }
    }
}

/// The window of [`msm`]'s signed digits: odd, below 2^(W−1) in absolute value.
const WINDOW: usize = 5;

/// `Σ_i s_i·P_i` by interleaved wNAF (Straus): each point's odd multiples 1·P … 15·P once, then
/// one chain of 254 doublings shared by every point, with an addition per non-zero digit (one
/// in six on average). For the few dozen points of a proof check this takes about half of
/// arkworks' `msm`, whose bucket method (windows of 3 bits below 32 points) pays for its
/// buckets' sums in every window. Points and scalars beyond the shorter list are ignored.
pub(crate) fn msm(bases: &[G1Affine], scalars: &[Fr]) -> G1Projective {
    let digits: Vec<Vec<i64>> = scalars
        .iter()
        .map(|s| s.into_bigint().find_wnaf(WINDOW).unwrap_or_default())
        .collect();
    let per = 1usize << (WINDOW - 2);
    // tables[i·per + t] = (2t + 1)·P_i, made affine at once (one inversion) for mixed additions.
    let mut tables: Vec<G1Projective> = Vec::with_capacity(bases.len() * per);
    for p in bases.iter().take(digits.len()) {
        let p = p.into_group();
        let twice = p.double();
        let mut m = p;
        for _ in 0..per {
            tables.push(m);
            m += twice;
        }
    }
    let tables = G1Projective::normalize_batch(&tables);
    let len = digits.iter().map(Vec::len).max().unwrap_or(0);
    let mut acc = G1Projective::zero();
    for i in (0..len).rev() {
        acc.double_in_place();
        for (ds, table) in digits.iter().zip(tables.chunks_exact(per)) {
            let d = ds.get(i).copied().unwrap_or(0);
            let t = usize::try_from(d.unsigned_abs() / 2).unwrap_or(usize::MAX);
            match (d.signum(), table.get(t)) {
                (1, Some(m)) => acc += m,
                (-1, Some(m)) => acc -= m,
                _ => {}
            }
        }
    }
    acc
}

/// Refuses an opening whose index is beyond the AMT or whose quotient count is not D.
pub fn check_shapes(params: &Params, openings: &[Opening]) -> Result<(), AmtError> {
    let d = usize::from(params.depth());
    let n = 1u64 << params.depth();
    for (k, o) in openings.iter().enumerate() {
        if o.index >= n {
            return Err(DecodeError::new(
                alloc::format!("openings[{k}].index"),
                "beyond the AMT's 2^D entries",
            )
            .into());
        }
        if o.quotients.len() != d {
            return Err(DecodeError::new(
                alloc::format!("openings[{k}].quotients"),
                "exactly D quotient points expected",
            )
            .into());
        }
    }
    Ok(())
}

/// Checks every opening with one multi-Miller loop and one final exponentiation. The openings'
/// points must be points of G1, as [`crate::g1_from_bytes`] and the proof decoders give them:
/// the batch writes ρ·Q as [α]Q + [β]φ(Q), and φ(Q) = [λ]Q holds on the curve only.
pub fn verify(params: &Params, openings: &[Opening]) -> Result<(), AmtError> {
    let d = usize::from(params.depth());
    check_shapes(params, openings)?;
    let openings: Vec<FastOpening<'_>> = openings.iter().map(FastOpening::from).collect();
    // ρ_0 = 1; ρ_k = α_k + β_k·λ for k ≥ 1, α_k and β_k the first two 64-bit words of
    // SHA-256(tag ‖ every opening ‖ k) and λ the eigenvalue of G1's endomorphism
    // φ(x, y) = (β·x, y) = [λ](x, y). The map (α, β) ↦ α + β·λ mod r is one to one on pairs
    // of 64-bit words (a collision would be a vector of the lattice {(x, y) : x ≡ y·λ} shorter
    // than 2^65, whose shortest vectors are about 2^127 long), so ρ_k takes 2^128 values as a
    // 128-bit number would, while ρ_k·Q = [α_k]Q + [β_k]φ(Q) takes 64 doublings, not 128.
    let mut seed = Sha256::new();
    seed.update(b"lightprov/lvmt/amt-batch/v2");
    for o in &openings {
        transcript(o, &mut seed);
    }
    let seed = seed.finalize();
    let rho = |k: usize| -> (Fr, u64, u64) {
        if k == 0 {
            return (Fr::one(), 1, 0);
        }
        let mut h = Sha256::new();
        h.update(seed);
        h.update((k as u64).to_be_bytes());
        let out: [u8; 32] = h.finalize().into();
        let word = |i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(out.get(8 * i..8 * i + 8).unwrap_or(&[0; 8]));
            u64::from_be_bytes(w)
        };
        let (alpha, beta) = (word(0), word(1));
        (Fr::from(alpha) + Fr::from(beta) * LAMBDA, alpha, beta)
    };

    // Left: Σ_k ρ_k·(C_k − a_k·G₁ + Σ_d c_{k,d}·Q_{k,d}); right, per d: Σ_k ρ_k·Q_{k,d}.
    let mut bases: Vec<G1Affine> = Vec::with_capacity(openings.len() * (d + 2));
    let mut scalars: Vec<Fr> = Vec::with_capacity(openings.len() * (d + 2));
    let mut right = alloc::vec![G1Projective::zero(); d];
    // The other openings' quotients and their (α, β), for right_d's sums.
    let mut right_bases: Vec<Vec<G1Affine>> = alloc::vec![Vec::new(); d];
    let mut right_scalars: Vec<Fr> = Vec::with_capacity(2 * openings.len());
    for (k, o) in openings.iter().enumerate() {
        let (r, alpha, beta) = rho(k);
        if k > 0 {
            right_scalars.extend([Fr::from(alpha), Fr::from(beta)]);
        }
        bases.push(o.commitment);
        scalars.push(r);
        bases.push(G1Affine::generator());
        scalars.push(-(r * o.opening.value));
        // c_D = ω^i, c_{d−1} = c_d².
        let mut c = params.omega().pow([o.opening.index]);
        for (j, q) in o.quotients.iter().enumerate().rev() {
            bases.push(*q);
            scalars.push(r * c);
            c.square_in_place();
            // ρ_0 = 1: the first opening's quotients are added as they are; the others' as Q
            // and φ(Q), for [α]Q + [β]φ(Q).
            if k == 0 {
                if let Some(acc) = right.get_mut(j) {
                    *acc += q;
                }
            } else if let Some(b) = right_bases.get_mut(j) {
                b.extend([*q, <G1Config as GLVConfig>::endomorphism_affine(q)]);
            }
        }
    }
    for (acc, b) in right.iter_mut().zip(&right_bases) {
        if !b.is_empty() {
            *acc += msm(b, &right_scalars);
        }
    }
    let left = msm(&bases, &scalars).into_affine();
    // Q_d pairs with [τ^{2^{D−d}}]₂ = g2[D − d + 1]; −right_d, so that the product is 1.
    // (`check_shapes` bounds every index; a missing point fails the check.)
    let prepared = params.prepared();
    let g2 = |i: usize| prepared.get(i).ok_or(AmtError::PairingCheckFailed);
    let mut pairs: Vec<(G1Affine, &G2Lines)> = Vec::with_capacity(d + 1);
    pairs.push((left, g2(0)?));
    let right = G1Projective::normalize_batch(&right);
    for (j, q) in right.iter().enumerate() {
        // quotient index j is d = j + 1.
        pairs.push((-*q, g2(d - j)?));
    }
    // One Miller loop, one accumulator, every line prepared; one final exponentiation.
    let ml = multi_miller_loop(pairs).ok_or(AmtError::PairingCheckFailed)?;
    match Bn254::final_exponentiation(ml) {
        Some(out) if out.is_zero() => Ok(()),
        _ => Err(AmtError::PairingCheckFailed),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ark_ec::{PrimeGroup, VariableBaseMSM};

    /// Parameters of depth `depth` for the (insecure, test-only) trapdoor τ.
    fn params_for(depth: u8, tau: Fr) -> Params {
        let mut g2 = alloc::vec![ark_bn254::G2Affine::generator()];
        let mut t = tau;
        for _ in 0..depth {
            g2.push((ark_bn254::G2Projective::generator() * t).into_affine());
            t.square_in_place();
        }
        Params::new(depth, g2).unwrap()
    }

    /// A true opening of entry `index` made with τ: quotients chosen freely, the commitment the
    /// one they open to `value`.
    fn opening_for(params: &Params, tau: Fr, index: u64, seed: u64) -> Opening {
        let d = usize::from(params.depth());
        let s = |j: u64| Fr::from(seed * 1000 + j + 7);
        let quotients: Vec<ark_bn254::G1Affine> = (0..d as u64)
            .map(|j| (ark_bn254::G1Affine::generator() * s(j)).into_affine())
            .collect();
        let value = s(99);
        let mut c = params.omega().pow([index]);
        let mut commitment = ark_bn254::G1Projective::generator() * value;
        for (j, q) in quotients.iter().enumerate().rev() {
            commitment += *q * (tau.pow([1u64 << (d - 1 - j)]) - c);
            c.square_in_place();
        }
        Opening {
            commitment: commitment.into_affine(),
            index,
            value,
            quotients,
        }
    }

    /// A batch of four openings is accepted, also with an opening repeated, and refused with
    /// any one quotient of any opening changed (Q + G, φ(Q), the identity) or any value off by
    /// one: the first opening (ρ = 1) and the later ones (ρ = α + β·λ, [α]Q + [β]φ(Q)).
    #[test]
    fn batch_refuses_a_changed_quotient_or_value_in_any_opening() {
        let tau = Fr::from(123_456_789u64);
        let params = params_for(3, tau);
        let batch: Vec<Opening> = (0..4u64)
            .map(|k| opening_for(&params, tau, k * 3 % 8, k + 1))
            .collect();
        verify(&params, &batch).unwrap();
        let phi = |q: &ark_bn254::G1Affine| {
            lightprov_field::bn254::g1_to_ark(&<G1Config as GLVConfig>::endomorphism_affine(
                &g1_from_ark(q),
            ))
        };
        for k in 0..batch.len() {
            for j in 0..3 {
                let q = batch[k].quotients[j];
                let changed = [
                    (q + ark_bn254::G1Affine::generator()).into_affine(),
                    phi(&q),
                    ark_bn254::G1Affine::zero(),
                ];
                for (n, bad) in changed.into_iter().enumerate() {
                    let mut b = batch.clone();
                    b[k].quotients[j] = bad;
                    assert_eq!(
                        verify(&params, &b),
                        Err(AmtError::PairingCheckFailed),
                        "opening {k}, quotient {j}, change {n}"
                    );
                }
            }
            let mut b = batch.clone();
            b[k].value += Fr::one();
            assert_eq!(
                verify(&params, &b),
                Err(AmtError::PairingCheckFailed),
                "value {k}"
            );
        }
        let mut b = batch.clone();
        b.extend([batch[1].clone(), batch[1].clone()]);
        verify(&params, &b).unwrap();
    }

    /// φ(x, y) = (β·x, y) is the multiplication by λ on G1 (the batch coefficients
    /// ρ = α + β·λ rely on it), on the generator and random multiples of it.
    #[test]
    fn endomorphism_is_the_multiplication_by_lambda() {
        for seed in 3u64..11 {
            let mut h = Sha256::new();
            h.update(seed.to_be_bytes());
            let s = crate::fr_from_be_mod_order(&h.finalize());
            let p = g1_from_ark(&(ark_bn254::G1Projective::generator() * s).into_affine());
            let phi = <G1Config as GLVConfig>::endomorphism_affine(&p);
            assert_eq!(phi.into_group(), p * LAMBDA);
        }
        let g = G1Affine::generator();
        assert_eq!(
            <G1Config as GLVConfig>::endomorphism_affine(&g).into_group(),
            g * LAMBDA
        );
    }

    /// The interleaved wNAF where its additions hit their exceptional cases — points that
    /// repeat or cancel (P + P, P + (−P)), the identity, scalars 0, 1, r − 1 and equal ones —
    /// equals the sum of the plain double-and-add multiplications (not arkworks' MSM).
    #[test]
    fn msm_at_repeated_and_cancelling_points() {
        let g = G1Projective::generator();
        let p = (g * Fr::from(0x1234_5678u64)).into_affine();
        let neg = -p;
        let r1 = -Fr::one();
        let cases: [(&[G1Affine], &[Fr]); 7] = [
            (&[p, p], &[Fr::one(), Fr::one()]),
            (&[p, neg], &[Fr::one(), Fr::one()]),
            (
                &[p, neg, p],
                &[Fr::from(3u64), Fr::from(3u64), Fr::from(5u64)],
            ),
            (&[p, p, neg], &[r1, Fr::one(), Fr::from(2u64)]),
            (&[p, G1Affine::zero(), p], &[r1, r1, Fr::from(17u64)]),
            (&[p, p], &[r1, Fr::one()]),
            (&[neg, p, p, p], &[Fr::from(31u64); 4]),
        ];
        for (bases, scalars) in cases {
            let want = bases
                .iter()
                .zip(scalars)
                .fold(G1Projective::zero(), |acc, (b, s)| acc + *b * *s);
            assert_eq!(msm(bases, scalars), want, "{scalars:?}");
        }
    }

    /// The interleaved wNAF equals arkworks' bucket method: on 0 to 40 points, with scalars 0,
    /// 1, −1 (r − 1), 2^k, 15, 16, 17 and pseudo-random ones, the identity among the points.
    #[test]
    fn msm_is_arkworks() {
        let mut seed = 7u64;
        let mut next = || {
            let mut h = Sha256::new();
            h.update(seed.to_be_bytes());
            seed += 1;
            crate::fr_from_be_mod_order(&h.finalize())
        };
        let g = G1Projective::generator();
        for n in [0usize, 1, 2, 3, 17, 18, 34, 40] {
            let bases: Vec<G1Affine> = (0..n)
                .map(|i| {
                    if i == 5 {
                        G1Affine::zero()
                    } else {
                        (g * next()).into_affine()
                    }
                })
                .collect();
            let fixed = [
                Fr::zero(),
                Fr::one(),
                -Fr::one(),
                Fr::from(1u64 << 40),
                Fr::from(15u64),
                Fr::from(16u64),
                Fr::from(17u64),
            ];
            let scalars: Vec<Fr> = (0..n)
                .map(|i| fixed.get(i).copied().unwrap_or_else(&mut next))
                .collect();
            let want = G1Projective::msm(&bases, &scalars).unwrap();
            assert_eq!(msm(&bases, &scalars), want, "{n} points");
        }
    }
}
