//! BN254's G2 subgroup check on the wasm32 backend against the slow definition (r·P = O) on
//! points of the subgroup and on points of the twist outside it, and its constant 6x² against
//! the curve parameter.

extern crate std;

use std::vec::Vec;

use ark_bn254 as ark;
use ark_ec::{AffineRepr, CurveGroup, bn::BnConfig};
use ark_ff::{AdditiveGroup, BigInteger, Field};
use ark_ff::{PrimeField, UniformRand, Zero};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};

use crate::bn254::{
    Config, G1Affine, G2Affine, SIX_X_SQUARED, g1_from_ark, g1_to_ark, g2_from_ark, g2_to_ark,
};

/// The slow check: r·P = O.
fn slow_in_subgroup(p: &G2Affine) -> bool {
    p.mul_bigint(ark::Fr::MODULUS).is_zero()
}

#[test]
fn six_x_squared_is_six_times_the_parameter_squared() {
    let [x] = <Config as BnConfig>::X else {
        panic!("x is one word");
    };
    let want = 6 * u128::from(*x) * u128::from(*x);
    let got = u128::from(SIX_X_SQUARED[0]) | (u128::from(SIX_X_SQUARED[1]) << 64);
    assert_eq!(got, want);
}

#[test]
fn g2_subgroup_check_is_the_slow_one() {
    let mut rng = ark_std::test_rng();
    for _ in 0..8 {
        let p = (ark::G2Affine::generator() * ark::Fr::rand(&mut rng)).into_affine();
        let ours = g2_from_ark(&p);
        assert!(ours.is_on_curve() && slow_in_subgroup(&ours));
        assert!(ours.is_in_correct_subgroup_assuming_on_curve());
        assert_eq!(g2_to_ark(&ours), p);
    }
    // Points of the twist from random x: outside the subgroup but for a chance of 1/h.
    let mut outside = Vec::new();
    while outside.len() < 8 {
        let x = ark::Fq2::rand(&mut rng);
        if let Some(p) = ark::G2Affine::get_point_from_x_unchecked(x, true) {
            outside.push(p);
        }
    }
    for p in outside {
        let ours = g2_from_ark(&p);
        assert!(ours.is_on_curve() && !slow_in_subgroup(&ours));
        assert!(!ours.is_in_correct_subgroup_assuming_on_curve());
        // arkworks' own check agrees; its cofactor-cleared multiple is in the subgroup.
        assert!(!p.is_in_correct_subgroup_assuming_on_curve());
        let cleared = g2_from_ark(&p.clear_cofactor());
        assert!(slow_in_subgroup(&cleared) && cleared.is_in_correct_subgroup_assuming_on_curve());
    }
    assert!(G2Affine::identity().is_in_correct_subgroup_assuming_on_curve());
}

#[test]
fn g1_conversions_are_word_for_word() {
    let mut rng = ark_std::test_rng();
    for p in [
        ark::G1Affine::identity(),
        ark::G1Affine::generator(),
        (ark::G1Affine::generator() * ark::Fr::rand(&mut rng)).into_affine(),
    ] {
        let ours = g1_from_ark(&p);
        assert!(ours.is_on_curve());
        assert_eq!(g1_to_ark(&ours), p);
    }
}

#[test]
fn g1_multiplication_is_arkworks() {
    use ark_ec::PrimeGroup;
    let mut rng = ark_std::test_rng();
    let g = ark::G1Projective::generator();
    for k in [
        ark::Fr::from(0u64),
        ark::Fr::from(1u64),
        -ark::Fr::from(1u64),
        ark::Fr::from(u64::MAX),
        ark::Fr::rand(&mut rng),
        ark::Fr::rand(&mut rng),
    ] {
        let p = (g * ark::Fr::rand(&mut rng)).into_affine();
        let ours = (g1_from_ark(&p) * k).into_affine();
        assert_eq!(g1_to_ark(&ours), (p * k).into_affine());
    }
}

/// The pairing of `a` and `b` as `ark-bn254` computes it (its Miller loop and final
/// exponentiation on its own backend), on this crate's types.
// A test helper (the lints' test exemption covers test functions only).
#[allow(clippy::unwrap_used)]
fn ark_pairing(a: &[G1Affine], b: &[G2Affine]) -> crate::bn254::Fq12 {
    use ark_ec::pairing::Pairing;
    use ark_ff::{CubicExtField, QuadExtField};

    use crate::bn254::fq2;

    let out = ark::Bn254::multi_pairing(
        a.iter().map(g1_to_ark).collect::<Vec<_>>(),
        b.iter().map(g2_to_ark).collect::<Vec<_>>(),
    )
    .0;
    let six = |x: ark::Fq6| CubicExtField::new(fq2(x.c0), fq2(x.c1), fq2(x.c2));
    QuadExtField::new(six(out.c0), six(out.c1))
}

/// The normalised loop's output, after the final exponentiation.
#[allow(clippy::unwrap_used)]
fn our_pairing(a: &[G1Affine], lines: &[crate::bn254::G2Lines]) -> crate::bn254::Fq12 {
    use ark_ec::pairing::Pairing;

    use crate::bn254::{Bn254, multi_miller_loop};

    let ml = multi_miller_loop(a.iter().copied().zip(lines)).unwrap();
    Bn254::final_exponentiation(ml).unwrap().0
}

#[test]
fn one_accumulator_normalised_miller_loop_is_arkworks_pairing() {
    use crate::bn254::{G1Affine, G2Lines, multi_miller_loop};

    let mut rng = ark_std::test_rng();
    let g1 =
        |rng: &mut _| g1_from_ark(&(ark::G1Affine::generator() * ark::Fr::rand(rng)).into_affine());
    let g2 =
        |rng: &mut _| g2_from_ark(&(ark::G2Affine::generator() * ark::Fr::rand(rng)).into_affine());
    // 0 to 17 pairs (one to five of arkworks' chunks of 4), some with a point at infinity.
    for n in [0usize, 1, 2, 4, 5, 8, 9, 17] {
        let mut a: Vec<G1Affine> = (0..n).map(|_| g1(&mut rng)).collect();
        let b: Vec<G2Affine> = (0..n).map(|_| g2(&mut rng)).collect();
        if n > 3 {
            a[2] = G1Affine::identity();
        }
        let lines: Vec<G2Lines> = b.iter().map(|q| G2Lines::new(q).unwrap()).collect();
        assert_eq!(our_pairing(&a, &lines), ark_pairing(&a, &b), "{n} pairs");
        // The generators and their negations: the product of e(P, Q) and e(−P, Q) is 1.
        if n == 1 {
            let (p, q) = (G1Affine::generator(), G2Affine::generator());
            let lq = G2Lines::new(&q).unwrap();
            let ml = multi_miller_loop([(p, &lq), (-p, &lq)]).unwrap();
            use ark_ec::pairing::Pairing;
            let out = crate::bn254::Bn254::final_exponentiation(ml).unwrap().0;
            assert_eq!(out, crate::bn254::Fq12::ONE);
        }
    }
    // Each line keeps arkworks' ratios c1/c0 and c2/c0.
    let q = g2(&mut rng);
    let theirs = crate::bn254::G2Prepared::from(q);
    let ours = G2Lines::new(&q).unwrap();
    assert_eq!(ours.lines().len(), theirs.ell_coeffs.len());
    for ((c1n, c2n), (c0, c1, c2)) in ours.lines().iter().zip(&theirs.ell_coeffs) {
        assert_eq!((*c1n * c0, *c2n * c0), (*c1, *c2));
    }
    // A G2 point missing its last line is refused, not read past.
    let short = G2Lines::new(&g2(&mut rng)).unwrap().truncated(1);
    assert!(multi_miller_loop([(g1(&mut rng), &short)]).is_none());
}

/// The loop refuses what it cannot normalise: a G1 point with y = 0 (none is on the curve) and
/// a G2 point whose first doubling line has c0 = −2yz = 0 (y = 0: not a point of G2).
#[test]
fn normalised_miller_loop_refuses_a_zero_to_divide_by() {
    use crate::bn254::{Fq, G1Affine, G2Lines, multi_miller_loop};

    let q = G2Lines::new(&G2Affine::generator()).unwrap();
    let flat = G1Affine::new_unchecked(G1Affine::generator().x, Fq::ZERO);
    assert!(multi_miller_loop([(G1Affine::generator(), &q), (flat, &q)]).is_none());
    assert!(multi_miller_loop([(G1Affine::generator(), &q)]).is_some());
    let g = G2Affine::generator();
    let flat2 = G2Affine::new_unchecked(g.x, crate::bn254::Fq2::ZERO);
    assert!(G2Lines::new(&flat2).is_none());
}

/// `a / d` for little-endian words and a one-word divisor, and the remainder.
// A test helper (the lints' test exemption covers test functions only).
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
fn div_small(a: &[u64], d: u64) -> (Vec<u64>, u64) {
    let mut q = std::vec![0u64; a.len()];
    let mut rem = 0u128;
    for (i, w) in a.iter().enumerate().rev() {
        let cur = (rem << 64) | u128::from(*w);
        q[i] = u64::try_from(cur / u128::from(d)).unwrap();
        rem = cur % u128::from(d);
    }
    (q, u64::try_from(rem).unwrap())
}

/// The twist E'(Fp2) has order r·h with h = 2p − r = 10069 · 5864401 · 1875725156269 · ℓ₄ (four
/// primes, ℓ₄ of 177 bits): for each prime ℓ of h, a point T of order exactly ℓ (no component
/// in G2 at all) and G + T (a G2 point plus a small-order component) are refused by the
/// endomorphism test, by the slow check and by decoding. The test ψ(P) = [6x²]P is sound on
/// BN curves because ψ² − tψ + p = 0 on E', so a point where ψ acts as t − 1 has
/// ((t − 1)² − t(t − 1) + p)·P = (p + 1 − t)·P = r·P = O, and r² does not divide r·h.
#[test]
fn g2_subgroup_check_refuses_every_small_order_component() {
    let h = <ark::g2::Config as ark_ec::CurveConfig>::COFACTOR;
    let small = [10069u64, 5_864_401, 1_875_725_156_269];
    let mut big = h.to_vec();
    for l in small {
        let (q, rem) = div_small(&big, l);
        assert_eq!(rem, 0, "{l} divides h");
        big = q;
    }
    let small_product = small.iter().map(|l| u128::from(*l)).product::<u128>();
    let small_product = [small_product as u64, (small_product >> 64) as u64];
    // (ℓ, h/ℓ) for every prime factor ℓ of h.
    let mut factors: Vec<(Vec<u64>, Vec<u64>)> = small
        .iter()
        .map(|l| (std::vec![*l], div_small(h, *l).0))
        .collect();
    factors.push((big, small_product.to_vec()));

    let mut rng = ark_std::test_rng();
    let g = G2Affine::generator();
    for (l, cofactor_over_l) in &factors {
        // T = [r·h/ℓ]P for a random point P of the twist: order ℓ unless O (chance 1/ℓ).
        let t = loop {
            let x = ark::Fq2::rand(&mut rng);
            let Some(p) = ark::G2Affine::get_point_from_x_unchecked(x, true) else {
                continue;
            };
            let t = g2_from_ark(&p)
                .mul_bigint(ark::Fr::MODULUS)
                .into_affine()
                .mul_bigint(cofactor_over_l)
                .into_affine();
            if !t.is_zero() {
                break t;
            }
        };
        assert!(
            t.is_on_curve() && t.mul_bigint(l).is_zero(),
            "T has order {l:?}"
        );
        let mixed = (g + t).into_affine();
        for p in [t, mixed, (-mixed.into_group()).into_affine()] {
            assert!(p.is_on_curve() && !slow_in_subgroup(&p));
            assert!(!p.is_in_correct_subgroup_assuming_on_curve(), "ℓ = {l:?}");
            let mut b = [0u8; 64];
            p.serialize_compressed(&mut b[..]).unwrap();
            assert!(G2Affine::deserialize_compressed(&b[..]).is_err());
            assert!(G2Affine::deserialize_compressed_unchecked(&b[..]).is_ok());
        }
    }
}

/// G1's GLV multiplication (projective points) against the plain double-and-add of affine
/// points (arkworks' generic `mul_affine`, no endomorphism): at the scalars where the
/// decomposition's rounding or signs turn (0, 1, λ, r − λ, (r ± 1)/2, 2^127, 2^128, r − 1,
/// r − 2^128) and at random ones; and [λ]P is the endomorphism (βx, y).
#[test]
fn g1_glv_multiplication_is_double_and_add() {
    use ark_ec::scalar_mul::glv::GLVConfig;

    use crate::bn254::G1Config;

    let mut rng = ark_std::test_rng();
    let lambda = <G1Config as GLVConfig>::LAMBDA;
    let two = ark::Fr::from(2u64);
    let half = two.inverse().unwrap();
    let mut scalars = std::vec![
        ark::Fr::zero(),
        ark::Fr::from(1u64),
        lambda,
        -lambda,
        lambda + ark::Fr::from(1u64),
        -ark::Fr::from(1u64) * half,
        ark::Fr::from(1u64) * half,
        two.pow([127u64]),
        two.pow([128u64]),
        -two.pow([128u64]),
        -ark::Fr::from(1u64),
    ];
    scalars.extend((0..64).map(|_| ark::Fr::rand(&mut rng)));
    let p = g1_from_ark(&(ark::G1Affine::generator() * ark::Fr::rand(&mut rng)).into_affine());
    assert_eq!(
        (p * lambda).into_affine(),
        <G1Config as GLVConfig>::endomorphism_affine(&p)
    );
    for k in scalars {
        let ((_, k1), (_, k2)) = <G1Config as GLVConfig>::scalar_decomposition(k);
        assert!(k1.into_bigint().num_bits() <= 128 && k2.into_bigint().num_bits() <= 128);
        let glv = (p.into_group() * k).into_affine();
        let plain = (p * k).into_affine();
        assert_eq!(glv, plain, "k = {k}");
    }
}

/// A scalar of more than four words (longer than an `Fr`) multiplies by double-and-add, with no
/// panic: [2^256 + 3]P = [2^256 mod r + 3]P.
#[test]
fn g1_multiplication_by_a_five_word_scalar() {
    use ark_ec::short_weierstrass::SWCurveConfig;

    use crate::bn254::G1Config;

    let mut rng = ark_std::test_rng();
    let p = g1_from_ark(&(ark::G1Affine::generator() * ark::Fr::rand(&mut rng)).into_affine());
    let long = <G1Config as SWCurveConfig>::mul_projective(&p.into_group(), &[3, 0, 0, 0, 1]);
    let k = ark::Fr::from(2u64).pow([256u64]) + ark::Fr::from(3u64);
    assert_eq!(long.into_affine(), (p * k).into_affine());
}

/// A G2 point at infinity among the prepared points (what parameters holding the identity
/// would give) drops its pair, as in arkworks' loop, and only its pair: the others still count.
#[test]
fn miller_loop_drops_a_pair_with_g2_at_infinity_only() {
    use crate::bn254::{G1Affine, G2Lines};

    let mut rng = ark_std::test_rng();
    let a: Vec<G1Affine> = (0..3)
        .map(|_| g1_from_ark(&(ark::G1Affine::generator() * ark::Fr::rand(&mut rng)).into_affine()))
        .collect();
    let mut b: Vec<G2Affine> = (0..3)
        .map(|_| g2_from_ark(&(ark::G2Affine::generator() * ark::Fr::rand(&mut rng)).into_affine()))
        .collect();
    b[1] = G2Affine::identity();
    let lines: Vec<G2Lines> = b.iter().map(|q| G2Lines::new(q).unwrap()).collect();
    assert!(lines[1].is_infinity() && lines[1].lines().is_empty());
    let ours = our_pairing(&a, &lines);
    assert_eq!(ours, ark_pairing(&a, &b));
    let without = our_pairing(&[a[0], a[2]], &[lines[0].clone(), lines[2].clone()]);
    assert_eq!(ours, without);
    let one = our_pairing(&a[..1], &lines[..1]);
    assert_ne!(ours, one);
}

/// The line kernel (one call a line: twelve sums of four products) equals arkworks' Fp12
/// product f·(1 + (a + b·v)·w), a = c1·x and b = c2·y, on random values and on edge ones:
/// coordinates 0, 1, p − 1, p − 2 and (p − 1)/2 in f and in the line (x = y = 1 makes a and b
/// the line's own coordinates, so that ξa and ξb meet their largest sums, 9(p − 1) + p − 1).
#[test]
fn line_kernel_is_the_fp12_product() {
    use ark_ff::{One, PrimeField};

    use crate::bn254::{Fq, Fq2, Fq6, Fq12, fq12_from_words, fq12_words};

    let mut rng = ark_std::test_rng();
    let p_minus = |k: u64| -Fq::from(k);
    let half = Fq::from_bigint({
        let mut m = <Fq as PrimeField>::MODULUS;
        m.div2();
        m
    })
    .unwrap();
    let edges = [Fq::ZERO, Fq::one(), p_minus(1), p_minus(2), half];
    let mut fq_values: Vec<Fq> = edges.to_vec();
    fq_values.extend((0..5).map(|_| Fq::rand(&mut rng)));
    let pick = |i: usize| fq_values[i % fq_values.len()];
    for case in 0..60 {
        let f = if case % 3 == 0 {
            Fq12::rand(&mut rng)
        } else {
            let e = |j: usize| Fq2::new(pick(case + j), pick(case * 7 + j * 3));
            Fq12::new(Fq6::new(e(0), e(1), e(2)), Fq6::new(e(3), e(4), e(5)))
        };
        let (c1, c2) = (
            Fq2::new(pick(case * 3), pick(case * 5 + 1)),
            Fq2::new(pick(case * 11 + 2), pick(case + 4)),
        );
        let (x, y) = if case % 2 == 0 {
            (Fq::one(), Fq::one())
        } else {
            (Fq::rand(&mut rng), Fq::rand(&mut rng))
        };
        let (mut a, mut b) = (c1, c2);
        a.mul_assign_by_fp(&x);
        b.mul_assign_by_fp(&y);
        let line = Fq12::new(
            Fq6::new(Fq2::one(), Fq2::ZERO, Fq2::ZERO),
            Fq6::new(a, b, Fq2::ZERO),
        );
        let mut w = fq12_words(&f);
        let c = [c1.c0.0.0, c1.c1.0.0, c2.c0.0.0, c2.c1.0.0];
        lightprov_field_mont::bn254_line::mul_by_line(&mut w, &c, &[x.0.0, y.0.0]);
        assert_eq!(fq12_from_words(&w), f * line, "case {case}");
        assert_eq!(fq12_from_words(&fq12_words(&f)), f);
    }
}
