//! The towers Fp2, Fp6 and Fp12 on the wasm32 backend against arkworks' own (BLS12-381's and
//! BN254's): every operation the pairing and the hash use — multiplication, squaring,
//! inversion, the Frobenius maps, conjugation, the sparse multiplications of the Miller loop,
//! the cyclotomic squaring, inversion and exponentiation of the final exponentiation, Fp2's
//! square root, and the fused kernels the Miller loops and final exponentiations run on — gives
//! the same words, on random elements and on elements built from the edge
//! values of Fp (0, 1, p − 1, (p ± 1)/2, …) and sparse ones, and zero has no inverse.

extern crate std;

use std::vec::Vec;

/// The tower tests for one curve: `$ark` is arkworks' crate, `$ours` this crate's module.
macro_rules! tower_tests {
    ($name:ident, $feature:literal, $ark:ident, $ours:ident, $tower:ident) => {
        #[cfg(feature = $feature)]
        mod $name {
            use super::{ParamOf, Vec};

            use ark_ff::{
                AdditiveGroup, BigInteger, CubicExtField, CyclotomicMultSubgroup, Field,
                PrimeField, QuadExtField, UniformRand, Zero,
            };
            use $ark as ark;

            use crate::to_mont;
            use crate::$ours::{Fq2, Fq6, Fq12, fq2};

            fn fq6(x: ark::Fq6) -> Fq6 {
                CubicExtField::new(fq2(x.c0), fq2(x.c1), fq2(x.c2))
            }

            fn fq12(x: ark::Fq12) -> Fq12 {
                QuadExtField::new(fq6(x.c0), fq6(x.c1))
            }

            fn back2(x: Fq2) -> ark::Fq2 {
                ark::Fq2::new(to_mont(x.c0), to_mont(x.c1))
            }

            fn back6(x: Fq6) -> ark::Fq6 {
                ark::Fq6::new(back2(x.c0), back2(x.c1), back2(x.c2))
            }

            fn back12(x: Fq12) -> ark::Fq12 {
                ark::Fq12::new(back6(x.c0), back6(x.c1))
            }

            /// 0, 1, 2, p − 1, p − 2, (p − 1)/2, (p + 1)/2, 2^(bits − 1) and the value below p
            /// of the most one bits (p's top word less one over words of ones).
            fn fp_edges() -> Vec<ark::Fq> {
                let p = ark::Fq::MODULUS;
                let half = ark::Fq::MODULUS_MINUS_ONE_DIV_TWO;
                let mut top = ark::Fq::MODULUS;
                for w in top.0.iter_mut() {
                    *w = u64::MAX;
                }
                if let (Some(t), Some(pt)) = (top.0.last_mut(), p.0.last()) {
                    *t = pt - 1;
                }
                let mut high = <ark::Fq as PrimeField>::BigInt::from(1u64);
                for _ in 1..p.num_bits() {
                    high.mul2();
                }
                let mut v: Vec<ark::Fq> = [0u64, 1, 2].iter().map(|x| ark::Fq::from(*x)).collect();
                v.extend([-ark::Fq::from(1u64), -ark::Fq::from(2u64)]);
                for b in [half, top, high] {
                    v.push(ark::Fq::from_bigint(b).unwrap());
                }
                v.push(ark::Fq::from_bigint(half).unwrap() + ark::Fq::from(1u64));
                v
            }

            /// Fp2 elements of edge coordinates (every pair of a few), and random ones.
            fn fq2_values() -> Vec<ark::Fq2> {
                let e = fp_edges();
                let mut v = Vec::new();
                for a in &e {
                    for b in &e {
                        v.push(ark::Fq2::new(*a, *b));
                    }
                }
                let mut rng = ark_std::test_rng();
                v.extend((0..40).map(|_| ark::Fq2::rand(&mut rng)));
                v
            }

            /// Fp6 elements: zero, one, sparse ones with edge coordinates, random ones.
            fn fq6_values() -> Vec<ark::Fq6> {
                let mut rng = ark_std::test_rng();
                let z = ark::Fq2::zero();
                let mut v = Vec::new();
                for (i, e) in fq2_values().into_iter().enumerate().step_by(7) {
                    let r = ark::Fq2::rand(&mut rng);
                    v.extend([
                        ark::Fq6::new(e, z, z),
                        ark::Fq6::new(z, e, z),
                        ark::Fq6::new(z, z, e),
                        ark::Fq6::new(e, r, if i % 2 == 0 { e } else { z }),
                    ]);
                }
                v.extend((0..20).map(|_| ark::Fq6::rand(&mut rng)));
                v
            }

            /// Fp12 elements: zero, sparse ones, random ones.
            fn fq12_values() -> Vec<ark::Fq12> {
                let mut rng = ark_std::test_rng();
                let z = ark::Fq6::zero();
                let mut v = Vec::new();
                for e in fq6_values().into_iter().step_by(5) {
                    v.extend([ark::Fq12::new(e, z), ark::Fq12::new(z, e)]);
                }
                v.extend((0..12).map(|_| ark::Fq12::rand(&mut rng)));
                v
            }

            #[test]
            fn fq2_operations_are_arkworks() {
                let values = fq2_values();
                let mut rng = ark_std::test_rng();
                for a in &values {
                    let x = fq2(*a);
                    let b = ark::Fq2::rand(&mut rng);
                    for (b, y) in [(b, fq2(b)), (*a, x)] {
                        assert_eq!(back2(x * y), *a * b, "mul {a} {b}");
                        assert_eq!(back2(x + y), *a + b, "add {a} {b}");
                        assert_eq!(back2(x - y), *a - b, "sub {a} {b}");
                    }
                    assert_eq!(back2(x.square()), a.square(), "square {a}");
                    assert_eq!(back2(x.double()), a.double(), "double {a}");
                    assert_eq!(back2(-x), -*a, "neg {a}");
                    assert_eq!(x.inverse().map(back2), a.inverse(), "inverse {a}");
                    assert_eq!(x.is_zero(), a.is_zero());
                    assert_eq!(x.inverse().is_none(), a.is_zero(), "inverse of 0 {a}");
                    assert_eq!(back2(x.frobenius_map(1)), a.frobenius_map(1), "frob {a}");
                    assert_eq!(to_mont(x.norm()), a.norm(), "norm {a}");
                    assert_eq!(x.legendre(), a.legendre(), "legendre {a}");
                    assert_eq!(x.sqrt().map(back2), a.sqrt(), "sqrt {a}");
                    let mut c = x;
                    c.conjugate_in_place();
                    let mut d = *a;
                    d.conjugate_in_place();
                    assert_eq!(back2(c), d, "conjugate {a}");
                    // ξ·a, through the Fp6 non-residue multiplication.
                    let xi = <crate::$ours::Fq6Config as ark_ff::Fp6Config>::NONRESIDUE;
                    let mut m = x;
                    <crate::$ours::Fq6Config as ark_ff::Fp6Config>::mul_fp2_by_nonresidue_in_place(
                        &mut m,
                    );
                    assert_eq!(m, x * xi, "xi {a}");
                    assert_eq!(
                        back2(m),
                        *a * <ark::Fq6Config as ark_ff::Fp6Config>::NONRESIDUE
                    );
                    // The Fp2 non-residue helpers (β = −1) against their definitions.
                    type C = crate::$ours::Fq2Config;
                    let beta = <C as ark_ff::Fp2Config>::NONRESIDUE;
                    let (p, q) = (x.c0, x.c1);
                    let mut y = q;
                    <C as ark_ff::Fp2Config>::mul_fp_by_nonresidue_in_place(&mut y);
                    assert_eq!(y, beta * q);
                    let mut y = q;
                    <C as ark_ff::Fp2Config>::mul_fp_by_nonresidue_and_add(&mut y, &p);
                    assert_eq!(y, p + beta * q);
                    let mut y = q;
                    <C as ark_ff::Fp2Config>::mul_fp_by_nonresidue_plus_one_and_add(&mut y, &p);
                    assert_eq!(y, p + beta * q + q);
                    let mut y = q;
                    <C as ark_ff::Fp2Config>::sub_and_mul_fp_by_nonresidue(&mut y, &p);
                    assert_eq!(y, p - beta * q);
                }
            }

            #[test]
            fn fq6_operations_are_arkworks() {
                let values = fq6_values();
                let mut rng = ark_std::test_rng();
                for a in &values {
                    let x = fq6(*a);
                    let b = ark::Fq6::rand(&mut rng);
                    let y = fq6(b);
                    assert_eq!(back6(x * y), *a * b, "mul {a}");
                    assert_eq!(back6(x * x), *a * a, "mul self {a}");
                    assert_eq!(back6(x.square()), a.square(), "square {a}");
                    assert_eq!(x.inverse().map(back6), a.inverse(), "inverse {a}");
                    assert_eq!(x.inverse().is_none(), a.is_zero(), "inverse of 0 {a}");
                    for i in 0..6 {
                        assert_eq!(back6(x.frobenius_map(i)), a.frobenius_map(i), "frob {i}");
                    }
                    let (c0, c1) = (ark::Fq2::rand(&mut rng), ark::Fq2::rand(&mut rng));
                    let (mut m, mut n) = (x, *a);
                    m.mul_by_01(&fq2(c0), &fq2(c1));
                    n.mul_by_01(&c0, &c1);
                    assert_eq!(back6(m), n, "mul_by_01 {a}");
                    let (mut m, mut n) = (x, *a);
                    m.mul_by_1(&fq2(c1));
                    n.mul_by_1(&c1);
                    assert_eq!(back6(m), n, "mul_by_1 {a}");
                }
            }

            #[test]
            fn fq12_operations_are_arkworks() {
                let values = fq12_values();
                let mut rng = ark_std::test_rng();
                for a in &values {
                    let x = fq12(*a);
                    let b = ark::Fq12::rand(&mut rng);
                    let y = fq12(b);
                    assert_eq!(back12(x * y), *a * b, "mul {a}");
                    assert_eq!(back12(x.square()), a.square(), "square {a}");
                    assert_eq!(x.inverse().map(back12), a.inverse(), "inverse {a}");
                    assert_eq!(x.inverse().is_none(), a.is_zero(), "inverse of 0 {a}");
                    assert_eq!(x.cyclotomic_inverse().is_none(), a.is_zero());
                    for i in 0..12 {
                        assert_eq!(back12(x.frobenius_map(i)), a.frobenius_map(i), "frob {i}");
                    }
                    let (c0, c1, c4) = (
                        ark::Fq2::rand(&mut rng),
                        ark::Fq2::rand(&mut rng),
                        ark::Fq2::rand(&mut rng),
                    );
                    let (mut m, mut n) = (x, *a);
                    m.mul_by_014(&fq2(c0), &fq2(c1), &fq2(c4));
                    n.mul_by_014(&c0, &c1, &c4);
                    assert_eq!(back12(m), n, "mul_by_014 {a}");
                    let (mut m, mut n) = (x, *a);
                    m.mul_by_034(&fq2(c0), &fq2(c1), &fq2(c4));
                    n.mul_by_034(&c0, &c1, &c4);
                    assert_eq!(back12(m), n, "mul_by_034 {a}");
                    let (mut m, mut n) = (x, *a);
                    m.conjugate_in_place();
                    n.conjugate_in_place();
                    assert_eq!(back12(m), n, "conjugate {a}");
                }
            }

            /// Elements of the cyclotomic subgroup (f^((p⁶ − 1)(p² + 1)) of random and sparse f):
            /// the squaring, inversion and exponentiation by the curve parameter of the final
            /// exponentiation, against arkworks' and against the plain field operations.
            #[test]
            fn cyclotomic_operations_are_arkworks() {
                let x_param = <ark::Config as ParamOf>::X;
                for f in fq12_values().into_iter().filter(|f| !f.is_zero()) {
                    // f^(p⁶ − 1) = conj(f)/f, then ^(p² + 1).
                    let mut g = f;
                    g.conjugate_in_place();
                    let g = g * f.inverse().unwrap();
                    let g = g.frobenius_map(2) * g;
                    let ours = fq12(g);
                    assert_eq!(back12(ours.cyclotomic_square()), g.cyclotomic_square());
                    assert_eq!(ours.cyclotomic_square(), ours.square(), "cyclotomic square");
                    assert_eq!(
                        ours.cyclotomic_inverse(),
                        ours.inverse(),
                        "cyclotomic inverse"
                    );
                    assert_eq!(
                        ours.cyclotomic_inverse().map(back12),
                        g.cyclotomic_inverse()
                    );
                    let e = ours.cyclotomic_exp(x_param);
                    assert_eq!(back12(e), g.cyclotomic_exp(x_param), "cyclotomic exp");
                    assert_eq!(e, ours.pow(x_param), "cyclotomic exp is pow");
                }
            }

            /// The fused kernels (`lightprov_field_mont`'s tower module of the curve) against
            /// arkworks' own towers: Fp12 products, squarings and inverses on the Fp12 values
            /// (sparse, with edge coordinates, random; none for 0); cyclotomic squarings and
            /// exponentiations (by the curve parameter, by 0, 1, 2 and a 128-bit exponent) on
            /// elements of the cyclotomic subgroup.
            #[test]
            fn fused_kernels_are_arkworks() {
                use crate::$ours::{
                    cyclotomic_exp, cyclotomic_square, fq12_from_words, fq12_inverse, fq12_mul,
                    fq12_words,
                };

                let x_param = <ark::Config as ParamOf>::X;
                let mut rng = ark_std::test_rng();
                for a in fq12_values() {
                    let x = fq12(a);
                    let b = ark::Fq12::rand(&mut rng);
                    assert_eq!(back12(fq12_mul(&x, &fq12(b))), a * b, "mul {a}");
                    assert_eq!(fq12_from_words(&fq12_words(&x)), x);
                    let mut w = fq12_words(&x);
                    lightprov_field_mont::$tower::fq12_square(&mut w);
                    assert_eq!(back12(fq12_from_words(&w)), a.square(), "square {a}");
                    assert_eq!(fq12_inverse(&x).map(back12), a.inverse(), "inverse {a}");
                    if a.is_zero() {
                        continue;
                    }
                    // The cyclotomic part of a.
                    let mut g = a;
                    g.conjugate_in_place();
                    let g = g * a.inverse().unwrap();
                    let g = g.frobenius_map(2) * g;
                    let ours = fq12(g);
                    assert_eq!(back12(cyclotomic_square(&ours)), g.cyclotomic_square());
                    for e in [
                        x_param,
                        &[0][..],
                        &[1],
                        &[2],
                        &[u64::MAX, 0x1234_5678_9abc_def0],
                    ] {
                        assert_eq!(
                            back12(cyclotomic_exp(&ours, e)),
                            g.cyclotomic_exp(e),
                            "exp {e:?}"
                        );
                    }
                }
            }

            /// Zero and one of each level have no inverse and are their own inverse.
            #[test]
            fn zero_has_no_inverse_and_one_is_its_own() {
                assert!(Fq2::zero().inverse().is_none());
                assert!(Fq6::zero().inverse().is_none());
                assert!(Fq12::zero().inverse().is_none());
                assert_eq!(Fq2::ONE.inverse(), Some(Fq2::ONE));
                assert_eq!(Fq6::ONE.inverse(), Some(Fq6::ONE));
                assert_eq!(Fq12::ONE.inverse(), Some(Fq12::ONE));
                assert_eq!(-Fq2::zero(), Fq2::zero());
                assert!((-Fq12::zero()).is_zero());
            }
        }
    };
}

/// The curve parameter of a pairing configuration, for one expression over BLS12 and BN curves.
trait ParamOf {
    const X: &'static [u64];
}

#[cfg(feature = "bls12-381")]
impl ParamOf for ark_bls12_381::Config {
    const X: &'static [u64] = <Self as ark_ec::bls12::Bls12Config>::X;
}

#[cfg(feature = "bn254")]
impl ParamOf for ark_bn254::Config {
    const X: &'static [u64] = <Self as ark_ec::bn::BnConfig>::X;
}

tower_tests!(
    bls12_381,
    "bls12-381",
    ark_bls12_381,
    bls12_381,
    bls12_381_tower
);
tower_tests!(bn254, "bn254", ark_bn254, bn254, bn254_tower);
