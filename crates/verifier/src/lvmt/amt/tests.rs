//! A reference prover with a known τ (test only), and a forgery per way an opening can lie.
#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::expect_used)]

use super::*;
use alloc::vec::Vec;
use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::BigInteger;
use ark_ff::{Field, One, PrimeField, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use lightprov_types::ErrorCode;

/// An AMT of depth D with a known trapdoor: commitment and openings by polynomial division
/// (the reference the batched check and the separate-pairings one are tested against).
pub(in crate::lvmt) struct Ref {
    depth: u8,
    tau: Fr,
    /// Coefficients of f.
    coeffs: Vec<Fr>,
    values: Vec<Fr>,
}

/// The value of an entry packing six 40-bit versions, as LVMT does.
fn packed(versions: [u64; 6]) -> Fr {
    let mut a = Fr::zero();
    for (s, v) in versions.iter().enumerate() {
        a += Fr::from(*v) * Fr::from(2u64).pow([40 * s as u64]);
    }
    a
}

impl Ref {
    fn new(depth: u8, tau: u64, values: Vec<Fr>) -> Self {
        let n = 1usize << depth;
        assert_eq!(values.len(), n);
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let coeffs = domain.ifft(&values);
        Self {
            depth,
            tau: Fr::from(tau),
            coeffs,
            values,
        }
    }

    fn eval(p: &[Fr], x: Fr) -> Fr {
        p.iter().rev().fold(Fr::zero(), |acc, c| acc * x + c)
    }

    pub(in crate::lvmt) fn params(&self) -> Params {
        let g = <ark_bn254::G2Projective as PrimeGroup>::generator();
        let mut pts = vec![g.into_affine()];
        let mut t = self.tau;
        for _ in 0..self.depth {
            pts.push((g * t).into_affine());
            t.square_in_place();
        }
        Params::new(self.depth, pts).unwrap()
    }

    fn commitment(&self) -> G1Affine {
        (G1Projective::generator() * Self::eval(&self.coeffs, self.tau)).into_affine()
    }

    pub(in crate::lvmt) fn open(&self, i: u64) -> Opening {
        let d = usize::from(self.depth);
        let omega = self.params().omega();
        let mut r = self.coeffs.clone();
        let mut quotients = Vec::new();
        for level in 1..=d {
            let m = 1usize << (d - level);
            let c = omega.pow([i * m as u64]);
            let q: Vec<Fr> = r[m..2 * m].to_vec();
            let next: Vec<Fr> = (0..m).map(|k| r[k] + c * q[k]).collect();
            quotients.push((G1Projective::generator() * Self::eval(&q, self.tau)).into_affine());
            r = next;
        }
        assert_eq!(r, vec![self.values[i as usize]], "division ends at f(ω^i)");
        Opening {
            commitment: self.commitment(),
            index: i,
            value: self.values[i as usize],
            quotients,
        }
    }
}

fn sample(depth: u8) -> Ref {
    sample_with(depth, 0x5eed_1234_5678 + u64::from(depth))
}

/// An AMT of depth `depth` of sample versions, with trapdoor `tau`.
pub(in crate::lvmt) fn sample_with(depth: u8, tau: u64) -> Ref {
    let n = 1u64 << depth;
    let values = (0..n)
        .map(|j| packed([j % 3, j * 7 % 11, 0, j % 2, 1, j]))
        .collect();
    Ref::new(depth, tau, values)
}

#[test]
fn commitment_is_the_lagrange_sum() {
    // C = Σ a_j·[L_j(τ)]₁, checked against the commitment from coefficients.
    let r = sample(4);
    let n = 16usize;
    let omega = r.params().omega();
    let tau = r.tau;
    let mut c = G1Projective::zero();
    for j in 0..n {
        let y = omega.pow([j as u64]);
        // L_j(τ) = (y/N)(τ^N − 1)/(τ − y)
        let l = y
            * Fr::from(n as u64).inverse().unwrap()
            * (tau.pow([n as u64]) - Fr::one())
            * (tau - y).inverse().unwrap();
        c += G1Projective::generator() * (l * r.values[j]);
    }
    assert_eq!(c.into_affine(), r.commitment());
}

#[test]
fn honest_openings_verify_alone_and_batched() {
    for depth in [1u8, 2, 4, 8] {
        let r = sample(depth);
        let p = r.params();
        let n = 1u64 << depth;
        let idx = [0, 1, n / 2, n - 1, n / 3];
        for &i in &idx {
            verify(&p, &[r.open(i)]).unwrap();
        }
        let all: Vec<Opening> = idx.iter().map(|&i| r.open(i)).collect();
        verify(&p, &all).unwrap();
    }
}

#[test]
fn openings_of_different_amts_batch() {
    let a = sample(6);
    let mut b = sample(6);
    b.values[5] += Fr::from(1u64 << 40);
    b = Ref::new(6, a.tau.into_bigint().0[0], b.values.clone());
    let p = a.params();
    verify(&p, &[a.open(5), b.open(5), b.open(63)]).unwrap();
}

fn rejects(p: &Params, openings: &[Opening]) {
    assert_eq!(verify(p, openings), Err(AmtError::PairingCheckFailed));
}

#[test]
fn false_values_indices_and_quotients_are_rejected() {
    let depth = 8u8;
    let r = sample(depth);
    let p = r.params();
    let n = 1u64 << depth;
    for i in [0u64, 1, 77, n / 2, n - 1] {
        let honest = r.open(i);
        // A value one version off, and the neighbour's value.
        let mut o = honest.clone();
        o.value += Fr::one();
        rejects(&p, &[o]);
        let mut o = honest.clone();
        o.value = r.values[((i + 1) % n) as usize];
        rejects(&p, &[o]);
        // Another index with the same claimed value (i+1, i+7 and the leaf sibling i ⊕ N/2,
        // which shares every quotient).
        for j in [(i + 1) % n, (i + 7) % n, i ^ (n / 2)] {
            let mut o = honest.clone();
            o.index = j;
            if r.values[j as usize] != honest.value {
                rejects(&p, &[o]);
            }
        }
        // Adjacent quotients swapped (where they differ).
        for d in 0..usize::from(depth) - 1 {
            let mut o = honest.clone();
            o.quotients.swap(d, d + 1);
            if o.quotients != honest.quotients {
                rejects(&p, &[o]);
            }
        }
        // Q_d of another index i' with i' ≢ i (mod 2^{d−1}): a different coset.
        let other = r.open((i + 3) % n);
        for d in 1..usize::from(depth) {
            if (i % (1 << d)) != (((i + 3) % n) % (1 << d)) {
                let mut o = honest.clone();
                o.quotients[d] = other.quotients[d];
                if o.quotients != honest.quotients {
                    rejects(&p, &[o]);
                }
            }
        }
        // Another commitment.
        let mut o = honest.clone();
        o.commitment = (o.commitment.into_group() + G1Projective::generator()).into_affine();
        rejects(&p, &[o]);
    }
}

#[test]
fn one_false_opening_spoils_the_batch() {
    let r = sample(6);
    let p = r.params();
    let mut bad = r.open(9);
    bad.value += Fr::one();
    rejects(&p, &[r.open(3), bad.clone(), r.open(40)]);
    rejects(&p, &[bad, r.open(3)]);
}

#[test]
fn malformed_openings_are_encoding_errors() {
    let r = sample(4);
    let p = r.params();
    let mut o = r.open(3);
    o.index = 16;
    assert_eq!(verify(&p, &[o]).unwrap_err().code(), ErrorCode::BadEncoding);
    let mut o = r.open(3);
    o.quotients.pop();
    assert_eq!(verify(&p, &[o]).unwrap_err().code(), ErrorCode::BadEncoding);
    // Parameters of another depth do not fit.
    let p8 = sample(8).params();
    assert_eq!(
        verify(&p8, &[r.open(3)]).unwrap_err().code(),
        ErrorCode::BadEncoding
    );
}

#[test]
fn params_round_trip_and_reject_bad_points() {
    let p = sample(4).params();
    let bytes = p.encode();
    assert_eq!(bytes.len(), 1 + 5 * 64);
    let q = Params::decode(&bytes).unwrap();
    assert_eq!(q.encode(), bytes);
    assert_eq!(q.id(), p.id());
    // Truncated, extended, a flipped byte in a point, a wrong first point.
    assert!(Params::decode(&bytes[..bytes.len() - 1]).is_err());
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(Params::decode(&longer).is_err());
    for at in [1usize, 70, 100, 200, bytes.len() - 1] {
        let mut t = bytes.clone();
        t[at] ^= 0x04;
        assert!(Params::decode(&t).is_err(), "flip at {at} accepted");
    }
    let mut swapped = bytes.clone();
    swapped.copy_within(65..129, 1);
    assert!(Params::decode(&swapped).is_err());
}

#[test]
fn point_and_scalar_encodings_are_canonical() {
    let g = G1Affine::generator();
    let b = g1_to_bytes(&g);
    assert_eq!(g1_from_bytes(&b, "p").unwrap(), g);
    // The identity has one encoding; x ≥ p or off-curve x is refused.
    let id = g1_to_bytes(&G1Affine::identity());
    assert!(g1_from_bytes(&id, "p").is_ok());
    let mut alias = id;
    alias[0] = 1;
    assert!(g1_from_bytes(&alias, "p").is_err());
    assert!(g1_from_bytes(&[0xff; 32], "p").is_err());
    assert!(g1_from_bytes(&b[..31], "p").is_err());
    let modulus_be: [u8; 32] = {
        let mut m = [0u8; 32];
        let bytes = Fr::MODULUS.to_bytes_be();
        m.copy_from_slice(&bytes);
        m
    };
    assert!(fr_from_be(&modulus_be, "a").is_err());
    let mut below = modulus_be;
    below[31] -= 1;
    assert_eq!(fr_to_be(&fr_from_be(&below, "a").unwrap()), below);
}

fn g1(s: Fr) -> G1Affine {
    (G1Projective::generator() * s).into_affine()
}

/// Two false openings whose errors cancel when the batch's coefficients are equal (the value
/// one up in one and one down in the other; a quotient moved by X in one and by −X in the
/// other; the commitment likewise) are refused: ρ_k differs per opening.
#[test]
fn errors_that_cancel_under_equal_coefficients_are_refused() {
    let r = sample(3);
    let p = r.params();
    let honest = r.open(5);
    verify(&p, &[honest.clone(), honest.clone()]).unwrap();
    let x = g1(Fr::from(77u64));
    let shift = |q: &G1Affine, by: Fr| (q.into_group() + x * by).into_affine();

    let (mut a, mut b) = (honest.clone(), honest.clone());
    a.value += Fr::one();
    b.value -= Fr::one();
    rejects(&p, &[a, b]);
    for d in 0..3 {
        let (mut a, mut b) = (honest.clone(), honest.clone());
        a.quotients[d] = shift(&a.quotients[d], Fr::one());
        b.quotients[d] = shift(&b.quotients[d], -Fr::one());
        rejects(&p, &[a, b]);
    }
    let (mut a, mut b) = (honest.clone(), honest);
    a.commitment = shift(&a.commitment, Fr::one());
    b.commitment = shift(&b.commitment, -Fr::one());
    rejects(&p, &[a, b]);
}

/// Points at infinity make pairs of the Miller loop drop out (their factor is 1), never the
/// check: the zero vector (C = O, every Q_d = O) opens to 0 and to nothing else, a constant
/// vector (every Q_d = O) to its constant only, and quotients chosen so that the left side is O
/// (C − a'·G + c_D·Q_D = O for a false a') leave e(−Q_D, [τ]₂) ≠ 1 and are refused.
#[test]
fn points_at_infinity_do_not_make_the_check_trivial() {
    let zero = Ref::new(2, 0xabc, vec![Fr::zero(); 4]);
    let p = zero.params();
    for i in 0..4 {
        let o = zero.open(i);
        assert!(o.commitment.is_zero() && o.quotients.iter().all(|q| q.is_zero()));
        verify(&p, core::slice::from_ref(&o)).unwrap();
        let mut f = o.clone();
        f.value = Fr::one();
        rejects(&p, &[f.clone()]);
        rejects(&p, &[o, f]);
    }
    let constant = Ref::new(2, 0xabc, vec![Fr::from(7u64); 4]);
    let o = constant.open(2);
    assert!(o.quotients.iter().all(|q| q.is_zero()));
    verify(&p, core::slice::from_ref(&o)).unwrap();
    let mut f = o;
    f.value = Fr::from(8u64);
    rejects(&p, &[f]);

    let r = sample_with(2, 0xabc);
    for i in 0..4 {
        let honest = r.open(i);
        verify(&p, core::slice::from_ref(&honest)).unwrap();
        let mut f = honest.clone();
        f.value += Fr::one();
        let c_d = p.omega().pow([i]);
        // Q_D = (a'·G − C)/c_D, the other quotients O: the left side is O.
        let q = (G1Projective::generator() * f.value - f.commitment.into_group())
            * c_d.inverse().unwrap();
        f.quotients = vec![G1Affine::zero(), q.into_affine()];
        let left = f.commitment.into_group() - G1Projective::generator() * f.value + q * c_d;
        assert!(left.is_zero());
        rejects(&p, &[f.clone()]);
        // And batched behind an honest opening.
        rejects(&p, &[honest, f]);
    }
}

/// Which part of an opening [`rho_without`] leaves out of the transcript.
#[derive(Clone, Copy, Debug)]
enum Left {
    Value,
    Quotients,
    Commitment,
}

/// ρ_1 of a batch of two as the check derives it, but from a transcript without `left`: what a
/// prover could compute before choosing that part if the transcript omitted it.
fn rho_without(openings: &[Opening; 2], left: Left) -> Fr {
    use sha2::{Digest, Sha256};
    let mut seed = Sha256::new();
    seed.update(b"lightprov/lvmt/amt-batch/v1");
    for o in openings {
        if !matches!(left, Left::Commitment) {
            seed.update(g1_to_bytes(&o.commitment));
        }
        seed.update(o.index.to_be_bytes());
        if !matches!(left, Left::Value) {
            seed.update(fr_to_be(&o.value));
        }
        if !matches!(left, Left::Quotients) {
            for q in &o.quotients {
                seed.update(g1_to_bytes(q));
            }
        }
    }
    let mut h = Sha256::new();
    h.update(seed.finalize());
    h.update(1u64.to_be_bytes());
    lightprov_amt::fr_from_be_mod_order(&h.finalize()[..16])
}

/// The batched equation of two openings with coefficients 1 and `rho1`, by arkworks' pairing:
/// e(Σ_k ρ_k·(C_k − a_k·G + Σ_d c_d·Q_{k,d}), [1]₂) = Π_d e(Σ_k ρ_k·Q_{k,d}, [τ^{2^{D−d}}]₂).
fn batched_equation_holds(p: &Params, o: &[Opening; 2], rho1: Fr) -> bool {
    use ark_ec::pairing::Pairing;
    let d = usize::from(p.depth());
    let mut left = G1Projective::zero();
    let mut right = vec![G1Projective::zero(); d];
    for (o, rho) in o.iter().zip([Fr::one(), rho1]) {
        let mut c = p.omega().pow([o.index]);
        let mut l = o.commitment.into_group() - G1Projective::generator() * o.value;
        for (j, q) in o.quotients.iter().enumerate().rev() {
            l += *q * c;
            c.square_in_place();
            right[j] += *q * rho;
        }
        left += l * rho;
    }
    let mut a = vec![left.into_affine()];
    let mut b = vec![p.g2()[0]];
    for (j, r) in right.iter().enumerate() {
        a.push((-*r).into_affine());
        b.push(p.g2()[d - j]);
    }
    ark_bn254::Bn254::multi_pairing(a, b).is_zero()
}

/// The batch's coefficients bind every value, quotient and commitment: for each, the forgery a
/// prover could make if ρ_1 were known before choosing that part (two openings of one entry,
/// errors e and −e/ρ_1, so that ρ_0·e + ρ_1·(−e/ρ_1) = 0) is refused — and is a forgery: with
/// that ρ_1 the batched equation holds.
#[test]
fn the_batch_coefficients_bind_every_part_of_every_opening() {
    let r = sample(2);
    let p = r.params();
    let honest = r.open(3);
    let x = g1(Fr::from(5u64));
    let set = |o: &mut Opening, left: Left, e: Fr| match left {
        Left::Value => o.value += e,
        Left::Quotients => o.quotients[1] = (o.quotients[1].into_group() + x * e).into(),
        Left::Commitment => o.commitment = (o.commitment.into_group() + x * e).into(),
    };
    for left in [Left::Value, Left::Quotients, Left::Commitment] {
        let mut pair = [honest.clone(), honest.clone()];
        let e = Fr::from(3u64);
        set(&mut pair[0], left, e);
        let rho1 = rho_without(&pair, left);
        set(&mut pair[1], left, -e * rho1.inverse().unwrap());
        assert_eq!(rho_without(&pair, left), rho1);
        assert!(batched_equation_holds(&p, &pair, rho1), "{left:?}");
        rejects(&p, &pair);
    }
}
