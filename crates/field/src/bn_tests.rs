//! BN254's G2 subgroup check on the wasm32 backend against the slow definition (r·P = O) on
//! points of the subgroup and on points of the twist outside it, and its constant 6x² against
//! the curve parameter.

extern crate std;

use std::vec::Vec;

use ark_bn254 as ark;
use ark_ec::{AffineRepr, CurveGroup, bn::BnConfig};
use ark_ff::{PrimeField, UniformRand, Zero};

use crate::bn254::{
    Config, G2Affine, SIX_X_SQUARED, g1_from_ark, g1_to_ark, g2_from_ark, g2_to_ark,
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

#[test]
fn one_accumulator_miller_loop_is_arkworks() {
    use ark_ec::pairing::Pairing;

    use crate::bn254::{Bn254, G1Affine, G2Prepared, multi_miller_loop};

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
        let prepared: Vec<G2Prepared> = b.iter().map(|q| (*q).into()).collect();
        let ours = multi_miller_loop(a.iter().copied().zip(&prepared)).unwrap();
        let theirs = Bn254::multi_miller_loop(a.clone(), b.clone());
        assert_eq!(ours.0, theirs.0, "{n} pairs");
    }
    // A prepared point missing its last line is refused, not read past.
    let mut short: G2Prepared = g2(&mut rng).into();
    short.ell_coeffs.pop();
    assert!(multi_miller_loop([(g1(&mut rng), &short)]).is_none());
}
