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
use ark_ff::{CyclotomicMultSubgroup, Field, Zero};

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

/// G2 prepared for the Miller loop the way arkworks prepares it: every line's three
/// coefficients. [`G2Lines`] is what [`multi_miller_loop`] takes.
pub type G2Prepared = ark_ec::bn::G2Prepared<Config>;

/// A G2 point's Miller-loop lines, computed once, each divided by its first coefficient.
///
/// On a D-twist each line of the loop evaluates at a G1 point P as `c0·y + c1·x·w + c2·v·w`
/// (arkworks' `mul_by_034`). Divided by `c0·y`, an element of Fp2, it is
/// `1 + (c1/c0)·(x/y)·w + (c2/c0)·(1/y)·v·w`: multiplying the accumulator by it takes 10 Fp2
/// products where arkworks' line takes 13, and `x/y`, `1/y` are computed once per pair. The
/// factors dropped are elements of Fp2, which the final exponentiation maps to 1 (p² − 1
/// divides (p¹² − 1)/r), so the pairing — the loop's output after it — is unchanged; the
/// loop's output itself differs from arkworks' by such a factor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct G2Lines {
    /// `(c1/c0, c2/c0)` of each line, in the loop's order.
    lines: alloc::vec::Vec<(Fq2, Fq2)>,
    infinity: bool,
}

impl G2Lines {
    /// The lines of `q`'s Miller loop. `None` if a line's first coefficient is 0, which no point
    /// of G2 gives: for the doubling steps it is −2yz of a point of odd order, for the additions
    /// x_R − x_Q·z_R with R ≠ ±Q.
    pub fn new(q: &G2Affine) -> Option<Self> {
        let prepared = G2Prepared::from(*q);
        let mut inverses: alloc::vec::Vec<Fq2> =
            prepared.ell_coeffs.iter().map(|(c0, _, _)| *c0).collect();
        if inverses.iter().any(|c0| c0.is_zero()) {
            return None;
        }
        ark_ff::batch_inversion(&mut inverses);
        let lines = prepared
            .ell_coeffs
            .iter()
            .zip(&inverses)
            .map(|((_, c1, c2), inv)| (*c1 * inv, *c2 * inv))
            .collect();
        Some(Self {
            lines,
            infinity: prepared.infinity,
        })
    }

    /// Whether the point is at infinity (no lines: its pairs are dropped).
    pub const fn is_infinity(&self) -> bool {
        self.infinity
    }

    /// The lines, `(c1/c0, c2/c0)` each.
    pub fn lines(&self) -> &[(Fq2, Fq2)] {
        &self.lines
    }

    /// The same with the last `n` lines dropped (a malformed point, for the tests).
    #[cfg(test)]
    pub(crate) fn truncated(mut self, n: usize) -> Self {
        self.lines.truncate(self.lines.len().saturating_sub(n));
        self
    }
}

/// Fp12's twelve Fp coordinates (Montgomery words) in arkworks' order, the layout of
/// `lightprov_field_mont::bn254_line::mul_by_line`.
pub(crate) fn fq12_words(f: &Fq12) -> [[u64; 4]; 12] {
    let c = [f.c0.c0, f.c0.c1, f.c0.c2, f.c1.c0, f.c1.c1, f.c1.c2];
    core::array::from_fn(|i| {
        let e = c.get(i / 2).copied().unwrap_or_default();
        if i % 2 == 0 { e.c0.0.0 } else { e.c1.0.0 }
    })
}

/// The element of [`fq12_words`]' words.
pub(crate) fn fq12_from_words(w: &[[u64; 4]; 12]) -> Fq12 {
    let fq = |i: usize| {
        ark_ff::Fp(
            ark_ff::BigInt(w.get(i).copied().unwrap_or_default()),
            core::marker::PhantomData,
        )
    };
    let fq2 = |i: usize| Fq2::new(fq(i), fq(i + 1));
    Fq12::new(
        Fq6::new(fq2(0), fq2(2), fq2(4)),
        Fq6::new(fq2(6), fq2(8), fq2(10)),
    )
}

/// The Miller loop of any number of pairs with one Fp12 accumulator, squared once per step,
/// every line normalised ([`G2Lines`]): its final exponentiation is arkworks' pairing product
/// (arkworks keeps an accumulator per 4 pairs and multiplies by lines as they are; the loop's
/// output differs from arkworks' by a factor in Fp2, which the final exponentiation removes).
/// Pairs with a point at infinity are skipped (their factor is 1), as there. `None` if a G1
/// point has y = 0 (no point of BN254's G1 has: the group's order is odd) or a G2 point has
/// fewer lines than the loop takes (never, for one made by [`G2Lines::new`]).
pub fn multi_miller_loop<'a>(
    pairs: impl IntoIterator<Item = (G1Affine, &'a G2Lines)>,
) -> Option<ark_ec::pairing::MillerLoopOutput<Bn254>> {
    type Lines<'a> = core::slice::Iter<'a, (Fq2, Fq2)>;
    let (points, lines): (alloc::vec::Vec<G1Affine>, alloc::vec::Vec<Lines<'a>>) = pairs
        .into_iter()
        .filter(|(p, q)| !p.infinity && !q.infinity)
        .map(|(p, q)| (p, q.lines.iter()))
        .unzip();
    // (x/y, 1/y) of each G1 point: one inversion for all.
    let mut inv_y: alloc::vec::Vec<Fq> = points.iter().map(|p| p.y).collect();
    if inv_y.iter().any(|y| y.is_zero()) {
        return None;
    }
    ark_ff::batch_inversion(&mut inv_y);
    let mut pairs: alloc::vec::Vec<(Fq, Fq, Lines<'a>)> = points
        .iter()
        .zip(inv_y)
        .zip(lines)
        .map(|((p, iy), l)| (p.x * iy, iy, l))
        .collect();
    // Every pair's next line, evaluated at its G1 point, into f: one kernel call a line,
    // f in the kernel's words meanwhile.
    let lines = |f: &mut Fq12, pairs: &mut [(Fq, Fq, Lines<'a>)]| -> Option<()> {
        let mut w = fq12_words(f);
        for (x, y, coeffs) in pairs.iter_mut() {
            let (c1, c2) = coeffs.next()?;
            let c = [c1.c0.0.0, c1.c1.0.0, c2.c0.0.0, c2.c1.0.0];
            lightprov_field_mont::bn254_line::mul_by_line(&mut w, &c, &[x.0.0, y.0.0]);
        }
        *f = fq12_from_words(&w);
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
