//! BN254 (alt_bn128, the curve of Ethereum's pairing precompile, EIP-197) on the wasm32
//! backend: the tower Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − (9 + u)), Fp12 = Fp6[w]/(w² − v),
//! G1: y² = x³ + 3 over Fp, G2: y² = x³ + 3/(9 + u) over Fp2 (a D-twist), and the optimal ate
//! pairing (arkworks' `Bn` generics). The constants are `ark-bn254`'s own, taken through its
//! public items. G1 is the whole curve (cofactor 1); G2's subgroup check is the endomorphism test
//! ψ(P) = [6x²]P (Housni, Guillevic and Piellard, eprint 2022/352 §4.3), as arkworks' BN254.

use ark_bn254 as ark;
use ark_ec::{
    AffineRepr,
    bn::{Bn, BnConfig, TwistType},
    scalar_mul::glv::GLVConfig,
    short_weierstrass::{Affine, Projective},
};
use ark_ff::{CyclotomicMultSubgroup, Field};

crate::tower::tower_and_groups!(
    ark,
    4,
    |fe: &mut Fq2| {
        // ξ = 9 + u: (c0 + c1·u)(9 + u) = (9·c0 − c1) + (9·c1 + c0)·u.
        let (c0, c1) = (fe.c0, fe.c1);
        let mut nine_c0 = c0.double();
        nine_c0.double_in_place().double_in_place();
        nine_c0 += c0;
        let mut nine_c1 = c1.double();
        nine_c1.double_in_place().double_in_place();
        nine_c1 += c1;
        fe.c0 = nine_c0 - c1;
        fe.c1 = nine_c1 + c0;
    },
    {
        /// GLV (the endomorphism (x, y) ↦ (βx, y), λ), as arkworks' BN254 multiplies, for
        /// scalars of at most four words (an `Fr`'s); longer ones by double-and-add, where
        /// `Fr::from_sign_and_limbs` would panic.
        fn mul_projective(p: &G1Projective, scalar: &[u64]) -> G1Projective {
            if scalar.len() > 4 {
                return ark_ec::scalar_mul::sw_double_and_add_projective(p, scalar);
            }
            <G1Config as GLVConfig>::glv_mul_projective(*p, Fr::from_sign_and_limbs(true, scalar))
        }
    },
    {
        /// ψ(P) = [6x²]P.
        fn is_in_correct_subgroup_assuming_on_curve(p: &G2Affine) -> bool {
            crate::bn254::g2_in_subgroup(p)
        }
    }
);

pub type G1Affine = ark_ec::bn::G1Affine<Config>;
pub type G1Projective = ark_ec::bn::G1Projective<Config>;
pub type G2Affine = ark_ec::bn::G2Affine<Config>;
pub type G2Projective = ark_ec::bn::G2Projective<Config>;
/// The pairing.
pub type Bn254 = Bn<Config>;

/// G2 prepared for the Miller loop: every line's coefficients.
pub type G2Prepared = ark_ec::bn::G2Prepared<Config>;

/// The Miller loop of any number of pairs with one Fp12 accumulator, squared once per step.
/// arkworks' `multi_miller_loop` keeps an accumulator per 4 pairs (its chunks for threads) and
/// squares each; the product is the same element (squaring distributes over it), so this
/// equals arkworks' output, with one squaring per step for any number of pairs. Pairs with a
/// point at infinity are skipped (their factor is 1), as there. `None` if a prepared point has
/// fewer lines than the loop takes (never, for one made by `G2Prepared::from`).
pub fn multi_miller_loop<'a>(
    pairs: impl IntoIterator<Item = (G1Affine, &'a G2Prepared)>,
) -> Option<ark_ec::pairing::MillerLoopOutput<Bn254>> {
    type Lines<'a> = core::slice::Iter<'a, ark_ec::bn::g2::EllCoeff<Config>>;
    let mut pairs: alloc::vec::Vec<(G1Affine, Lines<'a>)> = pairs
        .into_iter()
        .filter(|(p, q)| !p.infinity && !q.infinity)
        .map(|(p, q)| (p, q.ell_coeffs.iter()))
        .collect();
    // Every pair's next line, evaluated at its G1 point (a D-twist: c0·y, c1·x) into f.
    let lines = |f: &mut Fq12, pairs: &mut [(G1Affine, Lines<'a>)]| -> Option<()> {
        for (p, coeffs) in pairs.iter_mut() {
            let (c0, c1, c2) = coeffs.next()?;
            let (mut c0, mut c1) = (*c0, *c1);
            c0.mul_assign_by_fp(&p.y);
            c1.mul_assign_by_fp(&p.x);
            f.mul_by_034(&c0, &c1, c2);
        }
        Some(())
    };
    let count = <Config as BnConfig>::ATE_LOOP_COUNT;
    let mut f = Fq12::ONE;
    for i in (1..count.len()).rev() {
        if i != count.len() - 1 {
            f.square_in_place();
        }
        lines(&mut f, &mut pairs)?;
        if matches!(count.get(i - 1), Some(1 | -1)) {
            lines(&mut f, &mut pairs)?;
        }
    }
    if <Config as BnConfig>::X_IS_NEGATIVE {
        f.cyclotomic_inverse_in_place();
    }
    // The two lines of the Frobenius twists of Q.
    lines(&mut f, &mut pairs)?;
    lines(&mut f, &mut pairs)?;
    Some(ark_ec::pairing::MillerLoopOutput(f))
}

/// The curve's pairing parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Config;

impl BnConfig for Config {
    const X: &'static [u64] = <ark::Config as BnConfig>::X;
    const X_IS_NEGATIVE: bool = <ark::Config as BnConfig>::X_IS_NEGATIVE;
    const ATE_LOOP_COUNT: &'static [i8] = <ark::Config as BnConfig>::ATE_LOOP_COUNT;
    const TWIST_TYPE: TwistType = TwistType::D;
    const TWIST_MUL_BY_Q_X: Fq2 = fq2(<ark::Config as BnConfig>::TWIST_MUL_BY_Q_X);
    const TWIST_MUL_BY_Q_Y: Fq2 = fq2(<ark::Config as BnConfig>::TWIST_MUL_BY_Q_Y);
    type Fp = Fq;
    type Fp2Config = Fq2Config;
    type Fp6Config = Fq6Config;
    type Fp12Config = Fq12Config;
    type G1Config = G1Config;
    type G2Config = G2Config;
}

impl GLVConfig for G1Config {
    const ENDO_COEFFS: &'static [Fq] = &[BETA];
    const LAMBDA: Fr = <ark::g1::Config as GLVConfig>::LAMBDA;
    const SCALAR_DECOMP_COEFFS: [(bool, <Fr as ark_ff::PrimeField>::BigInt); 4] =
        <ark::g1::Config as GLVConfig>::SCALAR_DECOMP_COEFFS;

    fn endomorphism(p: &Projective<Self>) -> Projective<Self> {
        let mut r = *p;
        r.x *= BETA;
        r
    }

    fn endomorphism_affine(p: &Affine<Self>) -> Affine<Self> {
        let mut r = *p;
        r.x *= BETA;
        r
    }
}

/// β, a primitive cube root of unity in Fp: (x, y) ↦ (βx, y) is [λ] on G1 (arkworks' value).
const BETA: Fq = from_mont({
    let t = <ark::g1::Config as GLVConfig>::ENDO_COEFFS;
    // arkworks' BN254 has its one coefficient: a shorter table fails to compile.
    #[allow(clippy::indexing_slicing)]
    t[0]
});

/// 6x² = t − 1 (x the curve parameter, t the trace of Frobenius), as 64-bit words (low first).
pub(crate) const SIX_X_SQUARED: [u64; 2] = [17_887_900_258_952_609_094, 8_020_209_761_171_036_667];

/// ψ = untwist ∘ Frobenius ∘ twist on G2: (x, y) ↦ (x^p·ξ^((p − 1)/3), y^p·ξ^((p − 1)/2)), the
/// coefficients the Miller loop's last lines use.
pub(crate) fn psi(p: &G2Affine) -> G2Affine {
    let mut r = *p;
    r.x.frobenius_map_in_place(1);
    r.y.frobenius_map_in_place(1);
    r.x *= Config::TWIST_MUL_BY_Q_X;
    r.y *= Config::TWIST_MUL_BY_Q_Y;
    r
}

/// G2's subgroup check: on the twist, the points of order r are those where ψ acts as
/// multiplication by p ≡ t − 1 = 6x² (mod r); the ones where it does not are refused.
pub(crate) fn g2_in_subgroup(p: &G2Affine) -> bool {
    p.mul_bigint(SIX_X_SQUARED) == psi(p)
}

/// An Fp2 element on arkworks' backend (the words are the same).
pub const fn fq2_to_ark(x: Fq2) -> ark::Fq2 {
    ark::Fq2::new(crate::to_mont(x.c0), crate::to_mont(x.c1))
}

/// `ark-bn254`'s G1 point on this backend, word for word (no check: the same point).
pub const fn g1_from_ark(p: &ark::G1Affine) -> G1Affine {
    G1Affine {
        x: crate::from_mont(p.x),
        y: crate::from_mont(p.y),
        infinity: p.infinity,
    }
}

/// The same G1 point as `ark-bn254`'s.
pub const fn g1_to_ark(p: &G1Affine) -> ark::G1Affine {
    ark::G1Affine {
        x: crate::to_mont(p.x),
        y: crate::to_mont(p.y),
        infinity: p.infinity,
    }
}

/// `ark-bn254`'s G2 point on this backend, word for word.
pub const fn g2_from_ark(p: &ark::G2Affine) -> G2Affine {
    G2Affine {
        x: fq2(p.x),
        y: fq2(p.y),
        infinity: p.infinity,
    }
}

/// The same G2 point as `ark-bn254`'s.
pub const fn g2_to_ark(p: &G2Affine) -> ark::G2Affine {
    ark::G2Affine {
        x: fq2_to_ark(p.x),
        y: fq2_to_ark(p.y),
        infinity: p.infinity,
    }
}
