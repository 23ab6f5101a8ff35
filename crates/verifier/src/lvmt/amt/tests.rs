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
