//! The backend against arkworks' `MontBackend`: every operation on random and edge values gives
//! the same words, decoding refuses non-canonical encodings, and the curve's pairing equals
//! arkworks' BLS12-381 pairing.

extern crate std;

use std::vec::Vec;

use ark_ff::{AdditiveGroup, BigInt, BigInteger, Field, MontConfig, PrimeField, UniformRand, Zero};
use proptest::prelude::*;

use lightprov_field_mont::Kernel;

use crate::{Wasm32Backend, from_mont, to_mont};

type ArkBls = ark_bls12_381::Fq;
type OurBls = ark_ff::Fp<Wasm32Backend<ark_bls12_381::FqConfig, 6>, 6>;
type ArkBn = ark_bn254::Fq;
type OurBn = ark_ff::Fp<Wasm32Backend<ark_bn254::FqConfig, 4>, 4>;

/// 0, 1, 2, p − 1, p − 2, and the largest values whose Montgomery words are all ones below p.
fn edges<F: PrimeField>() -> Vec<F> {
    let mut v: Vec<F> = [0u64, 1, 2, 3, u64::MAX]
        .iter()
        .map(|x| F::from(*x))
        .collect();
    v.extend(
        [0u64, 1, 2, 3, u64::MAX]
            .iter()
            .map(|x| -F::from(*x) - F::one()),
    );
    v
}

/// Every operation of the two backends on `a`, `b`, word for word.
macro_rules! same {
    ($ark:ty, $ours:ty, $a:expr, $b:expr) => {{
        let (a, b): ($ark, $ark) = ($a, $b);
        let (x, y): ($ours, $ours) = (from_mont(a), from_mont(b));
        assert_eq!((x * y).0, (a * b).0, "mul {a} {b}");
        assert_eq!(x.square().0, a.square().0, "square {a}");
        assert_eq!((x + y).0, (a + b).0, "add {a} {b}");
        assert_eq!((x - y).0, (a - b).0, "sub {a} {b}");
        assert_eq!((-x).0, (-a).0, "neg {a}");
        assert_eq!(x.double().0, a.double().0, "double {a}");
        assert_eq!(
            x.inverse().map(|i| i.0),
            a.inverse().map(|i| i.0),
            "inverse {a}"
        );
        assert_eq!(x.sqrt().map(|i| i.0), a.sqrt().map(|i| i.0), "sqrt {a}");
        assert_eq!(x.into_bigint(), a.into_bigint(), "into_bigint {a}");
        assert_eq!(
            <$ours>::sum_of_products(&[x, y, x], &[y, y, x]).0,
            <$ark>::sum_of_products(&[a, b, a], &[b, b, a]).0,
            "sum_of_products {a} {b}"
        );
        assert_eq!(to_mont(x), a);
    }};
}

#[test]
fn edge_values_give_the_same_words() {
    for a in edges::<ArkBls>() {
        for b in edges::<ArkBls>() {
            same!(ArkBls, OurBls, a, b);
        }
    }
    for a in edges::<ArkBn>() {
        for b in edges::<ArkBn>() {
            same!(ArkBn, OurBn, a, b);
        }
    }
}

#[test]
fn random_values_give_the_same_words() {
    let mut rng = ark_std::test_rng();
    for _ in 0..2000 {
        same!(
            ArkBls,
            OurBls,
            ArkBls::rand(&mut rng),
            ArkBls::rand(&mut rng)
        );
        same!(ArkBn, OurBn, ArkBn::rand(&mut rng), ArkBn::rand(&mut rng));
    }
}

proptest! {
    /// Any canonical words multiply as arkworks multiplies them.
    #[test]
    fn products_of_any_canonical_words(a in any::<[u64; 6]>(), b in any::<[u64; 6]>()) {
        let (a, b) = (ArkBls::from_bigint(BigInt(a)), ArkBls::from_bigint(BigInt(b)));
        if let (Some(a), Some(b)) = (a, b) {
            same!(ArkBls, OurBls, a, b);
        }
    }

    /// Decoding refuses exactly the values ≥ p, as arkworks does.
    #[test]
    fn decoding_refuses_values_at_or_above_the_modulus(w in any::<[u64; 6]>(), k in 0u64..4) {
        let p = <ark_bls12_381::FqConfig as MontConfig<6>>::MODULUS;
        let mut big = p;
        big.add_with_carry(&BigInt::from(k));
        prop_assert!(OurBls::from_bigint(big).is_none());
        let ours = OurBls::from_bigint(BigInt(w)).map(|x| x.0);
        let arks = ArkBls::from_bigint(BigInt(w)).map(|x| x.0);
        prop_assert_eq!(ours, arks);
    }
}

/// The largest value, squared a thousand times: every intermediate stays fully reduced.
#[test]
fn long_chains_stay_reduced() {
    let mut a = -ArkBls::from(1u64);
    let mut x = a.0.0;
    for _ in 0..1000 {
        a.square_in_place();
        <ark_bls12_381::FqConfig as Kernel<6>>::square_in_place(&mut x);
        assert_eq!(x, a.0.0);
    }
    assert!(!a.is_zero());
}

/// The pairing of random points equals arkworks' (its Fp12 value, word for word), and a check
/// e(a, b) = e(c, d) holds exactly when the discrete logarithms agree.
macro_rules! pairings_equal_arkworks {
    ($name:ident, $feature:literal, $ark:ident, $ours:ident, $pairing:ident) => {
        #[cfg(feature = $feature)]
        #[test]
        fn $name() {
            use ark_ec::{AffineRepr, CurveGroup, pairing::Pairing};
            use ark_ff::{One, QuadExtField, UniformRand};

            use crate::$ours::{G1Affine, G2Affine, $pairing};

            let g1 = |p: $ark::G1Affine| G1Affine::new_unchecked(from_mont(p.x), from_mont(p.y));
            let f2 = |x: $ark::Fq2| QuadExtField::new(from_mont(x.c0), from_mont(x.c1));
            let g2 = |p: $ark::G2Affine| G2Affine::new_unchecked(f2(p.x), f2(p.y));
            let mut rng = ark_std::test_rng();
            for _ in 0..4 {
                let s = $ark::Fr::rand(&mut rng);
                let t = $ark::Fr::rand(&mut rng);
                let p = ($ark::G1Affine::generator() * s).into_affine();
                let q = ($ark::G2Affine::generator() * t).into_affine();
                let theirs = $ark::$pairing::pairing(p, q).0;
                let ours = $pairing::pairing(g1(p), g2(q)).0;
                for (o, a) in [(ours.c0, theirs.c0), (ours.c1, theirs.c1)] {
                    for (o, a) in [(o.c0, a.c0), (o.c1, a.c1), (o.c2, a.c2)] {
                        assert_eq!((to_mont(o.c0), to_mont(o.c1)), (a.c0, a.c1));
                    }
                }

                // e(s·G1, G2) · e(−G1, s·G2) = 1, and not with (s + 1)·G2.
                let a = g1(($ark::G1Affine::generator() * s).into_affine());
                let d = g2(($ark::G2Affine::generator() * s).into_affine());
                let d_wrong =
                    g2(($ark::G2Affine::generator() * (s + $ark::Fr::one())).into_affine());
                let neg_g1 = -G1Affine::generator();
                assert!(
                    $pairing::multi_pairing([a, neg_g1], [G2Affine::generator(), d])
                        .0
                        .is_one()
                );
                assert!(
                    !$pairing::multi_pairing([a, neg_g1], [G2Affine::generator(), d_wrong])
                        .0
                        .is_one()
                );
            }
        }
    };
}

pairings_equal_arkworks!(
    bls12_381_pairings_equal_arkworks,
    "bls12-381",
    ark_bls12_381,
    bls12_381,
    Bls12_381
);
pairings_equal_arkworks!(
    bn254_pairings_equal_arkworks,
    "bn254",
    ark_bn254,
    bn254,
    Bn254
);

/// Sums of more products than one reduction takes (BLS12-381: 8 a reduction; BN254: 5) are
/// chunked and still equal arkworks'.
#[test]
fn long_sums_of_products() {
    let mut rng = ark_std::test_rng();
    for _ in 0..50 {
        let a: [ArkBls; 12] = core::array::from_fn(|_| ArkBls::rand(&mut rng));
        let b: [ArkBls; 12] = core::array::from_fn(|i| {
            if i % 5 == 0 {
                -ArkBls::from(1u64)
            } else {
                ArkBls::rand(&mut rng)
            }
        });
        let ours = OurBls::sum_of_products(&a.map(from_mont), &b.map(from_mont));
        assert_eq!(ours.0, ArkBls::sum_of_products(&a, &b).0);
        let a: [ArkBn; 7] = core::array::from_fn(|_| -ArkBn::from(1u64));
        let b: [ArkBn; 7] = core::array::from_fn(|_| ArkBn::rand(&mut rng));
        let ours = OurBn::sum_of_products(&a.map(from_mont), &b.map(from_mont));
        assert_eq!(ours.0, ArkBn::sum_of_products(&a, &b).0);
    }
    // All terms p − 1: the largest sum one reduction takes.
    let m = [-ArkBls::from(1u64); 8];
    assert_eq!(
        OurBls::sum_of_products(&m.map(from_mont), &m.map(from_mont)).0,
        ArkBls::sum_of_products(&m, &m).0
    );
}
