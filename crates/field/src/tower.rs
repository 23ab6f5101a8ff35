//! The parts two pairing-friendly curves on the wasm32 backend share: a tower
//! Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − ξ), Fp12 = Fp6[w]/(w² − v) and the groups G1 over
//! Fp and G2 over Fp2 (short Weierstrass, a = 0), declared from an arkworks curve crate's
//! public constants, re-typed word for word (the Montgomery form is the same), so that the two
//! cannot drift apart. `$xi_mul` multiplies an Fp2 element by ξ in place; `$g1` and `$g2` are
//! further items of the groups' `SWCurveConfig` impls (a curve's own subgroup checks and cofactor
//! clearing).

macro_rules! tower_and_groups {
    ($ark:ident, $words:literal, $xi_mul:expr, { $($g1:tt)* }, { $($g2:tt)* }) => {
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
