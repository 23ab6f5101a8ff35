//! The parts two pairing-friendly curves on the wasm32 backend share: a tower
//! Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − ξ), Fp12 = Fp6[w]/(w² − v) and the groups G1 over
//! Fp and G2 over Fp2 (short Weierstrass, a = 0), declared from an arkworks curve crate's
//! public constants, re-typed word for word (the Montgomery form is the same), so that the two
//! cannot drift apart. `$tower` is the curve's module of fused tower kernels in
//! `lightprov-field-mont`, which the Miller loops and final exponentiations run on (the
//! conversions to and from its words, Fp12's inverse, cyclotomic squaring and exponentiation
//! are declared here). `$xi_mul` multiplies an Fp2 element by ξ in place; `$g1` and `$g2` are
//! further items of the groups' `SWCurveConfig` impls (a curve's own subgroup checks and cofactor
//! clearing).

macro_rules! tower_and_groups {
    ($ark:ident, $words:literal, $tower:ident, $xi_mul:expr, { $($g1:tt)* }, { $($g2:tt)* }) => {
        use ark_ec::models::{CurveConfig, short_weierstrass::SWCurveConfig};
        use ark_ff::{
            AdditiveGroup, CubicExtField, Fp, Fp2Config, Fp6Config, Fp12Config, QuadExtField,
            fields::models::{fp2::Fp2, fp6_3over2::Fp6},
        };

        use crate::backend::{Wasm32Backend, from_mont};

        /// The base field, on the wasm32 backend.
        pub type Fq = Fp<Wasm32Backend<$ark::FqConfig, $words>, $words>;
        /// The scalar field (arkworks' own: the pairing does not multiply in it).
        pub type Fr = $ark::Fr;
        /// Fp2.
        pub type Fq2 = Fp2<Fq2Config>;
        /// Fp6.
        pub type Fq6 = Fp6<Fq6Config>;
        /// Fp12, where the pairing takes its values.
        pub type Fq12 = ark_ff::Fp12<Fq12Config>;

        /// An Fp2 element of arkworks' curve on this backend.
        pub const fn fq2(x: $ark::Fq2) -> Fq2 {
            QuadExtField::new(from_mont(x.c0), from_mont(x.c1))
        }

        /// The first `M` entries of arkworks' Fp2 table `t`, on this backend.
        const fn fq2_table<const M: usize>(t: &[$ark::Fq2]) -> [Fq2; M] {
            let mut out = [Fq2::new(Fq::ZERO, Fq::ZERO); M];
            let mut i = 0;
            while i < M {
                // `t` has at least `M` entries: a shorter table fails to compile.
                #[allow(clippy::indexing_slicing)]
                {
                    out[i] = fq2(t[i]);
                }
                i += 1;
            }
            out
        }

        /// Fp2 = Fp[u]/(u² + 1).
        #[derive(Clone, Copy, Debug)]
        pub struct Fq2Config;

        const FROBENIUS_FP2: [Fq; 2] = {
            let t = <$ark::Fq2Config as Fp2Config>::FROBENIUS_COEFF_FP2_C1;
            #[allow(clippy::indexing_slicing)]
            [from_mont(t[0]), from_mont(t[1])]
        };

        impl Fp2Config for Fq2Config {
            type Fp = Fq;
            const NONRESIDUE: Fq = from_mont(<$ark::Fq2Config as Fp2Config>::NONRESIDUE);
            const FROBENIUS_COEFF_FP2_C1: &'static [Fq] = &FROBENIUS_FP2;

            /// The non-residue is −1.
            #[inline(always)]
            fn mul_fp_by_nonresidue_in_place(fp: &mut Fq) -> &mut Fq {
                fp.neg_in_place()
            }

            /// `y = y − β·x = y + x`.
            #[inline(always)]
            fn sub_and_mul_fp_by_nonresidue(y: &mut Fq, x: &Fq) {
                *y += x;
            }

            /// `y = y·(β + 1) + x = x` (β + 1 = 0).
            #[inline(always)]
            fn mul_fp_by_nonresidue_plus_one_and_add(y: &mut Fq, x: &Fq) {
                *y = *x;
            }

            /// `y = β·y + x = x − y`.
            #[inline(always)]
            fn mul_fp_by_nonresidue_and_add(y: &mut Fq, x: &Fq) {
                y.neg_in_place();
                *y += x;
            }
        }

        /// Fp6 = Fp2[v]/(v³ − ξ).
        #[derive(Clone, Copy, Debug)]
        pub struct Fq6Config;

        const FROBENIUS_FP6_C1: [Fq2; 6] =
            fq2_table(<$ark::Fq6Config as Fp6Config>::FROBENIUS_COEFF_FP6_C1);
        const FROBENIUS_FP6_C2: [Fq2; 6] =
            fq2_table(<$ark::Fq6Config as Fp6Config>::FROBENIUS_COEFF_FP6_C2);

        impl Fp6Config for Fq6Config {
            type Fp2Config = Fq2Config;
            const NONRESIDUE: Fq2 = fq2(<$ark::Fq6Config as Fp6Config>::NONRESIDUE);
            const FROBENIUS_COEFF_FP6_C1: &'static [Fq2] = &FROBENIUS_FP6_C1;
            const FROBENIUS_COEFF_FP6_C2: &'static [Fq2] = &FROBENIUS_FP6_C2;

            #[inline(always)]
            fn mul_fp2_by_nonresidue_in_place(fe: &mut Fq2) -> &mut Fq2 {
                let xi_mul: fn(&mut Fq2) = $xi_mul;
                xi_mul(fe);
                fe
            }
        }

        /// Fp12 = Fp6[w]/(w² − v).
        #[derive(Clone, Copy, Debug)]
        pub struct Fq12Config;

        const FROBENIUS_FP12_C1: [Fq2; 12] =
            fq2_table(<$ark::Fq12Config as Fp12Config>::FROBENIUS_COEFF_FP12_C1);

        impl Fp12Config for Fq12Config {
            type Fp6Config = Fq6Config;
            const NONRESIDUE: Fq6 = {
                let n = <$ark::Fq12Config as Fp12Config>::NONRESIDUE;
                CubicExtField::new(fq2(n.c0), fq2(n.c1), fq2(n.c2))
            };
            const FROBENIUS_COEFF_FP12_C1: &'static [Fq2] = &FROBENIUS_FP12_C1;
        }

        /// An Fp6 element's three Fp2 coordinates as words.
        fn fq6_words(x: &Fq6) -> lightprov_field_mont::$tower::Fq6Words {
            [x.c0, x.c1, x.c2].map(|e| [e.c0.0.0, e.c1.0.0])
        }

        /// The element of [`fq6_words`]' words.
        fn fq6_from_words(w: &lightprov_field_mont::$tower::Fq6Words) -> Fq6 {
            let [a, b, c] = w.map(|[re, im]| {
                Fq2::new(
                    Fp(ark_ff::BigInt(re), core::marker::PhantomData),
                    Fp(ark_ff::BigInt(im), core::marker::PhantomData),
                )
            });
            Fq6::new(a, b, c)
        }

        /// The six Fp2 coordinates of an Fp12 element as words, in arkworks' order.
        pub(crate) fn fq12_words(f: &Fq12) -> lightprov_field_mont::$tower::Fq12Words {
            let (g, h) = (fq6_words(&f.c0), fq6_words(&f.c1));
            [g[0], g[1], g[2], h[0], h[1], h[2]]
        }

        /// The element of [`fq12_words`]' words.
        pub(crate) fn fq12_from_words(w: &lightprov_field_mont::$tower::Fq12Words) -> Fq12 {
            Fq12::new(
                fq6_from_words(&[w[0], w[1], w[2]]),
                fq6_from_words(&[w[3], w[4], w[5]]),
            )
        }

        /// `a·b` in Fp12, one fused kernel call.
        pub(crate) fn fq12_mul(a: &Fq12, b: &Fq12) -> Fq12 {
            fq12_from_words(&lightprov_field_mont::$tower::fq12_mul(
                &fq12_words(a),
                &fq12_words(b),
            ))
        }

        /// `f⁻¹` in Fp12 = Fp6[w]/(w² − v), None for 0: with f = g + h·w, f·(g − h·w) =
        /// g² − v·h² is in Fp6, so f⁻¹ = (g − h·w)/(g² − v·h²): four fused Fp6 products and one
        /// Fp6 inversion.
        pub(crate) fn fq12_inverse(f: &Fq12) -> Option<Fq12> {
            use lightprov_field_mont::$tower::fq6_mul;

            let (g, h) = (fq6_words(&f.c0), fq6_words(&f.c1));
            let mut vhh = fq6_from_words(&fq6_mul(&h, &h));
            Fq12Config::mul_fp6_by_nonresidue_in_place(&mut vhh);
            let inv = fq6_words(&(fq6_from_words(&fq6_mul(&g, &g)) - vhh).inverse()?);
            Some(Fq12::new(
                fq6_from_words(&fq6_mul(&g, &inv)),
                -fq6_from_words(&fq6_mul(&h, &inv)),
            ))
        }

        /// `conj(g)`: g's p⁶-th power, its inverse in the cyclotomic subgroup.
        pub(crate) fn conjugate(g: &Fq12) -> Fq12 {
            use ark_ff::CyclotomicMultSubgroup;

            let mut c = *g;
            c.cyclotomic_inverse_in_place();
            c
        }

        /// `g^(p^k)`.
        pub(crate) fn frobenius(g: &Fq12, k: usize) -> Fq12 {
            let mut c = *g;
            c.frobenius_map_in_place(k);
            c
        }

        /// The final exponentiation's easy part, `f^((p⁶ − 1)(p² + 1))`: conj(f)/f = f^(p⁶ − 1),
        /// then times its p²-th power. It takes f into the cyclotomic subgroup; None for 0.
        pub(crate) fn easy_part(f: &Fq12) -> Option<Fq12> {
            let m = fq12_mul(&conjugate(f), &fq12_inverse(f)?);
            Some(fq12_mul(&m, &frobenius(&m, 2)))
        }

        /// `g²` for g in the cyclotomic subgroup, one kernel call (arkworks' Granger–Scott
        /// squaring).
        pub(crate) fn cyclotomic_square(g: &Fq12) -> Fq12 {
            let mut w = fq12_words(g);
            lightprov_field_mont::$tower::cyclotomic_square(&mut w);
            fq12_from_words(&w)
        }

        /// `g^e` for g in the cyclotomic subgroup and e given by its 64-bit words (low first):
        /// square and multiply over e's bits from the highest set one, the squarings and
        /// products the fused kernels (the element arkworks' `cyclotomic_exp` gives).
        pub(crate) fn cyclotomic_exp(g: &Fq12, e: &[u64]) -> Fq12 {
            use lightprov_field_mont::$tower::{cyclotomic_square, fq12_mul};

            let gw = fq12_words(g);
            let mut bits = ark_ff::BitIteratorBE::without_leading_zeros(e);
            // The highest bit is set: g itself (e = 0 gives 1).
            if bits.next().is_none() {
                return Fq12::ONE;
            }
            let mut w = gw;
            for bit in bits {
                cyclotomic_square(&mut w);
                if bit {
                    w = fq12_mul(&w, &gw);
                }
            }
            fq12_from_words(&w)
        }

        /// G1 over Fp.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct G1Config;

        impl CurveConfig for G1Config {
            type BaseField = Fq;
            type ScalarField = Fr;
            const COFACTOR: &'static [u64] = <$ark::g1::Config as CurveConfig>::COFACTOR;
            const COFACTOR_INV: Fr = <$ark::g1::Config as CurveConfig>::COFACTOR_INV;
        }

        impl SWCurveConfig for G1Config {
            const COEFF_A: Fq = from_mont(<$ark::g1::Config as SWCurveConfig>::COEFF_A);
            const COEFF_B: Fq = from_mont(<$ark::g1::Config as SWCurveConfig>::COEFF_B);
            const GENERATOR: ark_ec::short_weierstrass::Affine<Self> = {
                let g = <$ark::g1::Config as SWCurveConfig>::GENERATOR;
                ark_ec::short_weierstrass::Affine::new_unchecked(from_mont(g.x), from_mont(g.y))
            };

            #[inline(always)]
            fn mul_by_a(_: Fq) -> Fq {
                Fq::ZERO
            }

            $($g1)*
        }

        /// G2 over Fp2.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct G2Config;

        impl CurveConfig for G2Config {
            type BaseField = Fq2;
            type ScalarField = Fr;
            const COFACTOR: &'static [u64] = <$ark::g2::Config as CurveConfig>::COFACTOR;
            const COFACTOR_INV: Fr = <$ark::g2::Config as CurveConfig>::COFACTOR_INV;
        }

        impl SWCurveConfig for G2Config {
            const COEFF_A: Fq2 = fq2(<$ark::g2::Config as SWCurveConfig>::COEFF_A);
            const COEFF_B: Fq2 = fq2(<$ark::g2::Config as SWCurveConfig>::COEFF_B);
            const GENERATOR: ark_ec::short_weierstrass::Affine<Self> = {
                let g = <$ark::g2::Config as SWCurveConfig>::GENERATOR;
                ark_ec::short_weierstrass::Affine::new_unchecked(fq2(g.x), fq2(g.y))
            };

            #[inline(always)]
            fn mul_by_a(_: Fq2) -> Fq2 {
                Fq2::ZERO
            }

            $($g2)*
        }
    };
}

pub(crate) use tower_and_groups;
