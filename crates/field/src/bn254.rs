//! BN254 (alt_bn128, the curve of Ethereum's pairing precompile, EIP-197) on the wasm32
//! backend: the tower Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − (9 + u)), Fp12 = Fp6[w]/(w² − v),
//! G1: y² = x³ + 3 over Fp, G2: y² = x³ + 3/(9 + u) over Fp2 (a D-twist), and the optimal ate
//! pairing (arkworks' `Bn` generics; the final exponentiation arkworks' algorithm on the fused
//! kernels, the Miller loop of prepared points [`multi_miller_loop`] on normalised lines). The constants are `ark-bn254`'s own, taken through its
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
    bn254_tower,
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
    // Every pair's next line, evaluated at its G1 point, into f: one kernel call a line; f is
    // kept in the kernels' words (the squarings are the fused kernel's too).
    type Words = lightprov_field_mont::bn254_tower::Fq12Words;
    let lines = |f: &mut Words, pairs: &mut [(Fq, Fq, Lines<'a>)]| -> Option<()> {
        for (x, y, coeffs) in pairs.iter_mut() {
            let (c1, c2) = coeffs.next()?;
            let c = [c1.c0.0.0, c1.c1.0.0, c2.c0.0.0, c2.c1.0.0];
            lightprov_field_mont::bn254_line::mul_by_line(f, &c, &[x.0.0, y.0.0]);
        }
        Some(())
    };
    let count = <Config as BnConfig>::ATE_LOOP_COUNT;
    let mut w = fq12_words(&Fq12::ONE);
    for i in (1..count.len()).rev() {
        if i != count.len() - 1 {
            lightprov_field_mont::bn254_tower::fq12_square(&mut w);
        }
        lines(&mut w, &mut pairs)?;
        if matches!(count.get(i - 1), Some(1 | -1)) {
            lines(&mut w, &mut pairs)?;
        }
    }
    if <Config as BnConfig>::X_IS_NEGATIVE {
        let mut f = fq12_from_words(&w);
        f.cyclotomic_inverse_in_place();
        w = fq12_words(&f);
    }
    // The two lines of the Frobenius twists of Q.
    lines(&mut w, &mut pairs)?;
    lines(&mut w, &mut pairs)?;
    let f = fq12_from_words(&w);
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

    /// arkworks' final exponentiation (the same exponent, by the same chain) on the fused
    /// kernels ([`final_exponentiation`]).
    fn final_exponentiation(
        f: ark_ec::pairing::MillerLoopOutput<Bn254>,
    ) -> Option<ark_ec::pairing::PairingOutput<Bn254>> {
        final_exponentiation(&f.0).map(ark_ec::pairing::PairingOutput)
    }
}

/// `f^(2x(6x² + 3x + 1)·(p¹² − 1)/r)`, None for f = 0: the easy part `f^((p⁶ − 1)(p² + 1))`
/// takes f into the cyclotomic subgroup; the hard part raises the result m to
/// 2x(6x² + 3x + 1)·(p⁴ − p² + 1)/r =
/// p³(12x³ + 6x² + 4x − 1) + p²(12x³ + 6x² + 6x) + p(12x³ + 6x² + 4x) + 12x³ + 12x² + 6x + 1
/// (Fuentes-Castañeda, Knapp and Rodríguez-Henríquez, "Faster hashing to G2", 2011), by three
/// exponentiations by −x, as arkworks does: the pairing is arkworks' element (the multiple of the
/// exponent is prime to r). The products, squarings and exponentiations are the fused kernels.
pub(crate) fn final_exponentiation(f: &Fq12) -> Option<Fq12> {
    let conj = conjugate;
    // m^(−x) (x > 0 for BN254).
    let exp_by_neg_x = |g: &Fq12| {
        let e = cyclotomic_exp(g, <Config as BnConfig>::X);
        if <Config as BnConfig>::X_IS_NEGATIVE {
            e
        } else {
            conj(&e)
        }
    };
    let mul = fq12_mul;
    let m = easy_part(f)?;
    // Hard part (the exponent of m in brackets).
    let m2x = cyclotomic_square(&exp_by_neg_x(&m)); // [−2x]
    let m6x = mul(&cyclotomic_square(&m2x), &m2x); // [−6x]
    let m6x2 = exp_by_neg_x(&m6x); // [6x²]
    let m12x3 = conj(&exp_by_neg_x(&cyclotomic_square(&m6x2))); // [12x³]
    let t = mul(&mul(&m12x3, &m6x2), &conj(&m6x)); // [12x³ + 6x² + 6x]
    let u = mul(&t, &m2x); // [12x³ + 6x² + 4x]
    let v = mul(&mul(&t, &m6x2), &m); // [12x³ + 12x² + 6x + 1]
    let w = mul(&mul(&frobenius(&u, 1), &v), &frobenius(&t, 2));
    Some(mul(&frobenius(&mul(&conj(&m), &u), 3), &w))
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
