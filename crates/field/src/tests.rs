//! The backend against arkworks' `MontBackend`: every operation on random and edge values gives
//! the same words, decoding refuses non-canonical encodings, and the curve's pairing equals
//! arkworks' BLS12-381 pairing.

extern crate std;

use std::{vec, vec::Vec};

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

/// Montgomery words at the kernels' edges, all below p: 0, 1, 2, p − 1, p − 2, (p − 1)/2,
/// (p + 1)/2, 2^k, 2^k − 1 and p − 2^k for k at and next to each limb boundary (the kernels'
/// 30-bit limbs, of the second factor and of the first, which enters shifted by 30L − 64N bits,
/// and the words' 32-bit halves) and for the top bits, p's top word less one over words of ones,
/// and words whose 32-bit halves alternate between all ones and zero (the top word capped).
fn word_edges<const N: usize>(p: BigInt<N>) -> Vec<BigInt<N>> {
    let one = BigInt::<N>::from(1u64);
    let sub = |a: BigInt<N>, b: BigInt<N>| {
        let mut r = a;
        r.sub_with_borrow(&b);
        r
    };
    let mut half = p;
    half.div2();
    let mut v = vec![
        BigInt::from(0u64),
        one,
        BigInt::from(2u64),
        sub(p, one),
        sub(p, BigInt::from(2u64)),
        half,
        sub(p, half),
    ];
    let bits = p.num_bits();
    let mut pow = one;
    for k in 0..bits {
        // At and next to each limb's boundary, and the top bits.
        let shift = (64 * N).div_ceil(30) * 30 - 64 * N;
        let at = |k: u32, width: u32| matches!(k % width, 0 | 1) || k % width == width - 1;
        if pow < p && (at(k, 30) || at(k + shift as u32, 30) || at(k, 32) || k + 3 >= bits) {
            v.extend([pow, sub(pow, one), sub(p, pow)]);
        }
        pow.mul2();
    }
    let top = p.0[N - 1];
    let mut ones = BigInt([u64::MAX; N]);
    ones.0[N - 1] = top - 1;
    v.push(ones);
    for pattern in [0xffff_ffff_0000_0000u64, 0x0000_0000_ffff_ffff] {
        let mut w = BigInt([pattern; N]);
        w.0[N - 1] = pattern & top;
        v.push(w);
    }
    v.retain(|w| *w < p);
    v
}

/// Every operation on Montgomery words at the edges, each against a few others, as arkworks
/// computes it: the kernels' carries and final subtraction on words of all-ones limbs, powers
/// of two and values next to p.
#[test]
fn edge_words_give_the_same_words() {
    fn check<const N: usize, F: PrimeField<BigInt = BigInt<N>>>(
        p: BigInt<N>,
        test: impl Fn(F, F),
        make: impl Fn(BigInt<N>) -> F,
    ) {
        let all = word_edges(p);
        // Those with a name: the first seven, the all-ones ones (the last three).
        let few: Vec<BigInt<N>> = all[..7]
            .iter()
            .chain(&all[all.len() - 3..])
            .copied()
            .collect();
        for a in &all {
            for b in &few {
                test(make(*a), make(*b));
            }
        }
    }
    check::<6, ArkBls>(
        <ark_bls12_381::FqConfig as MontConfig<6>>::MODULUS,
        |a, b| same!(ArkBls, OurBls, a, b),
        ArkBls::new_unchecked,
    );
    check::<4, ArkBn>(
        <ark_bn254::FqConfig as MontConfig<4>>::MODULUS,
        |a, b| same!(ArkBn, OurBn, a, b),
        ArkBn::new_unchecked,
    );
}

/// Words made of 30-bit limbs drawn from the carries' edge values (0, 1, 2^29, 2^30 − 2,
/// 2^30 − 1) and random ones, the limbs where the kernels cut the first factor (`shifted`: at
/// bits 30j − (30L − 64N)) or the second (at bits 30j), the top word reduced below p's: long runs
/// of all-ones limbs, which uniform words almost never have.
fn limby<const N: usize>(p: BigInt<N>, shifted: bool) -> impl Strategy<Value = BigInt<N>> {
    let limb = prop_oneof![
        Just(0u64),
        Just(1),
        Just(1 << 29),
        Just((1 << 30) - 2),
        Just((1 << 30) - 1),
        0u64..(1 << 30),
    ];
    let count = (64 * N).div_ceil(30);
    let shift = if shifted { 30 * count - 64 * N } else { 0 };
    proptest::collection::vec(limb, count).prop_map(move |limbs| {
        let mut w = [0u64; N];
        for (j, limb) in limbs.iter().enumerate() {
            // Bits 30j − shift .. of the word: below 0 they are cut off.
            for bit in 0..30 {
                let Some(at) = (30 * j + bit).checked_sub(shift) else {
                    continue;
                };
                if at < 64 * N && limb >> bit & 1 == 1 {
                    w[at / 64] |= 1 << (at % 64);
                }
            }
        }
        // Below p: the top word at most p's less one.
        w[N - 1] %= p.0[N - 1];
        BigInt(w)
    })
}

proptest! {
    /// Montgomery words of edge limbs give the same words on both backends (BLS12-381).
    #[test]
    fn bls12_381_words_of_edge_limbs(
        a in limby(<ark_bls12_381::FqConfig as MontConfig<6>>::MODULUS, true),
        b in limby(<ark_bls12_381::FqConfig as MontConfig<6>>::MODULUS, false),
    ) {
        same!(ArkBls, OurBls, ArkBls::new_unchecked(a), ArkBls::new_unchecked(b));
    }

    /// The same for BN254.
    #[test]
    fn bn254_words_of_edge_limbs(
        a in limby(<ark_bn254::FqConfig as MontConfig<4>>::MODULUS, true),
        b in limby(<ark_bn254::FqConfig as MontConfig<4>>::MODULUS, false),
    ) {
        same!(ArkBn, OurBn, ArkBn::new_unchecked(a), ArkBn::new_unchecked(b));
    }

    /// Any canonical words of BN254 multiply as arkworks multiplies them.
    #[test]
    fn bn254_products_of_any_canonical_words(a in any::<[u64; 4]>(), b in any::<[u64; 4]>()) {
        let (a, b) = (ArkBn::from_bigint(BigInt(a)), ArkBn::from_bigint(BigInt(b)));
        if let (Some(a), Some(b)) = (a, b) {
            same!(ArkBn, OurBn, a, b);
        }
    }

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

/// The kernels' own sums at the most terms their contract allows (k·p < 2^(64N): 9 for
/// BLS12-381, 5 for BN254), every term (p − 1)² and p − 1 times the words of most ones below
/// p: the accumulator's two extra words and the one final subtraction suffice.
#[test]
fn kernel_sums_at_their_bound() {
    fn at_bound<C: MontConfig<N> + Kernel<N>, const N: usize, const K: usize>() {
        type F<C, const N: usize> = ark_ff::Fp<ark_ff::MontBackend<C, N>, N>;
        let p = C::MODULUS.0;
        let top = u128::from(p[N - 1]) + 1;
        assert!(
            top * K as u128 <= 1 << 64 && top * (K as u128 + 1) > 1 << 64,
            "{K} terms"
        );
        let minus_one = (-F::<C, N>::from(1u64)).0.0;
        let mut ones = [u64::MAX; N];
        ones[N - 1] = p[N - 1] - 1;
        for b in [minus_one, ones] {
            let (a, b) = ([minus_one; K], [b; K]);
            let of = |w: [u64; N]| F::<C, N>::new_unchecked(BigInt(w));
            let theirs = F::<C, N>::sum_of_products(&a.map(of), &b.map(of));
            assert_eq!(C::sum(&a, &b), theirs.0.0);
        }
    }
    at_bound::<ark_bls12_381::FqConfig, 6, 9>();
    at_bound::<ark_bn254::FqConfig, 4, 5>();
}
