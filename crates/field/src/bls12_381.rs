//! BLS12-381 on the wasm32 backend: the tower Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − (u + 1)),
//! Fp12 = Fp6[w]/(w² − v), the groups G1: y² = x³ + 4 over Fp and G2: y² = x³ + 4(u + 1) over
//! Fp2 (an M-twist), and the optimal ate pairing with the curve parameter
//! x = −0xd201000000010000 (the definitions of the IETF pairing-friendly curves draft and
//! EIP-2537). The Miller loop and the final exponentiation are arkworks' `Bls12` algorithms on
//! `lightprov-field-mont`'s fused kernels (overriding `Bls12Config`'s methods: the same values).
//!
//! The constants — the modulus and its Montgomery constants, the Frobenius coefficients, the
//! generators, the cofactors — are `ark-bls12-381`'s own, taken through its public items; the
//! endomorphisms' and the hash's constants, which it keeps private, are written out here (RFC
//! 9380 Appendix E.3) and tested against its own results.
//!
//! The subgroup checks are the endomorphism tests (G1: φ(P) = −[x²]P, G2: ψ(P) = [x]P), G2's
//! cofactor clearing is Budroni–Pintore's with ψ, and [`hash_to_g2`] is RFC 9380's
//! `BLS12381G2_XMD:SHA-256_SSWU_RO_` (arkworks' SSWU map to the 3-isogenous curve and its
//! isogeny map). [`g1_from_compressed`] and [`g2_from_compressed`] read the ZCash encoding the
//! consensus specs use, with every flag check and the subgroup check.

use ark_bls12_381 as ark;
use ark_ec::{
    AffineRepr, CurveGroup, PrimeGroup,
    bls12::{Bls12, Bls12Config, TwistType},
    hashing::curve_maps::{
        parity,
        swu::SWUConfig,
        wb::{IsogenyMap, WBConfig},
    },
};
use ark_ff::{BigInt, Field, MontFp, PrimeField, Zero};

crate::tower::tower_and_groups!(
    ark,
    6,
    bls12_381_tower,
    |fe: &mut Fq2| {
        // ξ = 1 + u: (c0 + c1·u)(1 + u) = (c0 − c1) + (c0 + c1)·u.
        let c0 = fe.c0;
        fe.c0 -= fe.c1;
        fe.c1 += c0;
    },
    {
        /// φ(P) = −[x²]P, φ(x, y) = (βx, y) (Scott, eprint 2021/1130 §6).
        fn is_in_correct_subgroup_assuming_on_curve(p: &G1Affine) -> bool {
            crate::bls12_381::g1_in_subgroup(p)
        }
    },
    {
        /// ψ(P) = [x]P (Scott, eprint 2021/1130 §4).
        fn is_in_correct_subgroup_assuming_on_curve(p: &G2Affine) -> bool {
            crate::bls12_381::g2_in_subgroup(p)
        }

        /// [h(ψ)]P (Budroni and Pintore, eprint 2017/419 §4.1).
        fn clear_cofactor(p: &G2Affine) -> G2Affine {
            crate::bls12_381::g2_clear_cofactor(p)
        }
    }
);

pub type G1Affine = ark_ec::bls12::G1Affine<Config>;
pub type G1Projective = ark_ec::bls12::G1Projective<Config>;
pub type G2Affine = ark_ec::bls12::G2Affine<Config>;
pub type G2Projective = ark_ec::bls12::G2Projective<Config>;
/// The pairing.
pub type Bls12_381 = Bls12<Config>;

/// The curve's pairing parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Config;

impl Bls12Config for Config {
    const X: &'static [u64] = <ark::Config as Bls12Config>::X;
    const X_IS_NEGATIVE: bool = <ark::Config as Bls12Config>::X_IS_NEGATIVE;
    const TWIST_TYPE: TwistType = TwistType::M;
    type Fp = Fq;
    type Fp2Config = Fq2Config;
    type Fp6Config = Fq6Config;
    type Fp12Config = Fq12Config;
    type G1Config = G1Config;
    type G2Config = G2Config;

    /// arkworks' Miller loop (the same lines in the same order, one accumulator), each line
    /// and squaring one call of a fused kernel ([`miller_loop`]).
    fn multi_miller_loop(
        a: impl IntoIterator<Item = impl Into<ark_ec::bls12::G1Prepared<Self>>>,
        b: impl IntoIterator<Item = impl Into<ark_ec::bls12::G2Prepared<Self>>>,
    ) -> ark_ec::pairing::MillerLoopOutput<Bls12_381> {
        miller_loop(a, b)
    }

    /// arkworks' final exponentiation (the same exponent, by the same chain), its
    /// exponentiations by x on the fused cyclotomic squaring ([`exp_by_x`]).
    fn final_exponentiation(
        f: ark_ec::pairing::MillerLoopOutput<Bls12_381>,
    ) -> Option<ark_ec::pairing::PairingOutput<Bls12_381>> {
        final_exponentiation(&f.0).map(ark_ec::pairing::PairingOutput)
    }
}

/// `f^(3·(p¹² − 1)/r)`, None for f = 0. The easy part, `f^((p⁶ − 1)(p² + 1))`, takes f into the
/// cyclotomic subgroup G_Φ12 (of order p⁴ − p² + 1); the hard part raises the result m to
/// 3·(p⁴ − p² + 1)/r = (x − 1)²·(x + p)·(x² + p² − 1) + 3 (Hayashida, Hayasaka and Teruya,
/// eprint 2020/875) by five exponentiations by x and Frobenius maps, the chain arkworks uses:
/// the pairing is arkworks' element.
pub(crate) fn final_exponentiation(f: &Fq12) -> Option<Fq12> {
    let (mul, conj) = (fq12_mul, conjugate);
    let m = easy_part(f)?;
    // Hard part: a = m^((x − 1)²), b = a^(x + p), then m³·b^(x² + p² − 1).
    let t = mul(&exp_by_x(&m), &conj(&m)); // m^(x − 1)
    let a = mul(&exp_by_x(&t), &conj(&t)); // m^((x − 1)²)
    let b = mul(&exp_by_x(&a), &frobenius(&a, 1)); // a^(x + p)
    let b_x2 = exp_by_x(&exp_by_x(&b));
    let m3 = mul(&cyclotomic_square(&m), &m);
    let tail = mul(&mul(&b_x2, &frobenius(&b, 2)), &conj(&b));
    Some(mul(&m3, &tail))
}

/// The Miller loop of the pairs of `a` and `b` (a pair with a point at infinity is skipped, its
/// factor 1), arkworks' `Bls12` loop with one accumulator: for each bit of |x| after the first,
/// f², then each pair's line (arkworks' prepared coefficients (c₀, c₁, c₂), evaluated at P as
/// c₀ + c₁·x_P·v + c₂·y_P·vw), then a second line for a set bit; f conjugated at the end
/// (x < 0). The squarings and lines are the fused kernels of
/// `lightprov_field_mont::bls12_381_tower`. Lists of different lengths (arkworks panics) or a
/// prepared point short of a line (none made by `G2Prepared::from` is) give 0, which the final
/// exponentiation refuses: the check fails closed.
pub(crate) fn miller_loop(
    a: impl IntoIterator<Item = impl Into<ark_ec::bls12::G1Prepared<Config>>>,
    b: impl IntoIterator<Item = impl Into<ark_ec::bls12::G2Prepared<Config>>>,
) -> ark_ec::pairing::MillerLoopOutput<Bls12_381> {
    use ark_ff::{BitIteratorBE, CyclotomicMultSubgroup};
    use lightprov_field_mont::bls12_381_tower::{Fq12Words, fq12_square, mul_by_014};

    let refused = ark_ec::pairing::MillerLoopOutput(Fq12::ZERO);
    let a: alloc::vec::Vec<G1Affine> = a.into_iter().map(|p| p.into().0).collect();
    let b: alloc::vec::Vec<ark_ec::bls12::G2Prepared<Config>> =
        b.into_iter().map(Into::into).collect();
    if a.len() != b.len() {
        return refused;
    }
    let mut lines: alloc::vec::Vec<_> = a
        .iter()
        .zip(&b)
        .filter(|(p, q)| !p.infinity && !q.infinity)
        .map(|(p, q)| (p, q.ell_coeffs.iter()))
        .collect();
    let words = |x: &Fq2| [x.c0.0.0, x.c1.0.0];
    let mut next_lines = |f: &mut Fq12Words| -> Option<()> {
        for (p, coeffs) in lines.iter_mut() {
            let (c0, c1, c2) = coeffs.next()?;
            let (mut c1, mut c2) = (*c1, *c2);
            c1.mul_assign_by_fp(&p.x);
            c2.mul_assign_by_fp(&p.y);
            mul_by_014(f, &words(c0), &words(&c1), &words(&c2));
        }
        Some(())
    };
    let mut f = fq12_words(&Fq12::ONE);
    for bit in BitIteratorBE::without_leading_zeros(X).skip(1) {
        fq12_square(&mut f);
        if next_lines(&mut f).is_none() || (bit && next_lines(&mut f).is_none()) {
            return refused;
        }
    }
    let mut f = fq12_from_words(&f);
    f.cyclotomic_inverse_in_place();
    ark_ec::pairing::MillerLoopOutput(f)
}

/// `g^x` for g in the cyclotomic subgroup (x = −0xd201000000010000): the fused exponentiation
/// by |x|, then the conjugate.
pub(crate) fn exp_by_x(g: &Fq12) -> Fq12 {
    use ark_ff::CyclotomicMultSubgroup;

    let mut out = cyclotomic_exp(g, X);
    out.cyclotomic_inverse_in_place();
    out
}

/// Whether e(a₀, b₀)·e(a₁, b₁) = 1: one multi-Miller loop and one final exponentiation. (A
/// function of this crate, so that the pairing is compiled with this crate's optimisation
/// settings wherever it is called.)
pub fn pairing_product_is_one(a: [G1Affine; 2], b: [G2Affine; 2]) -> bool {
    use ark_ff::One;
    final_exponentiation(&miller_loop_of_points(&a, &b)).is_some_and(|r| r.is_one())
}

/// [`miller_loop`] of affine points, each G2 point's lines computed as the loop goes (arkworks'
/// doubling and addition steps, the same coefficients, as fused kernels) rather than prepared
/// first: the same element as arkworks' `multi_miller_loop`.
pub(crate) fn miller_loop_of_points(a: &[G1Affine], b: &[G2Affine]) -> Fq12 {
    use ark_ff::{BitIteratorBE, CyclotomicMultSubgroup};
    use lightprov_field_mont::{
        bls12_381_g2::{Line, Point, addition_step, doubling_step},
        bls12_381_tower::{fq12_square, mul_by_014},
    };

    let words = |x: &Fq2| [x.c0.0.0, x.c1.0.0];
    let fq2_of = |w: &[[u64; 6]; 2]| {
        Fq2::new(
            ark_ff::Fp(BigInt(w[0]), core::marker::PhantomData),
            ark_ff::Fp(BigInt(w[1]), core::marker::PhantomData),
        )
    };
    // (P, Q, R = Q in homogeneous projective coordinates) of each pair without infinity.
    let one = words(&Fq2::ONE);
    let mut pairs: alloc::vec::Vec<(&G1Affine, &G2Affine, Point)> = a
        .iter()
        .zip(b)
        .filter(|(p, q)| !p.infinity && !q.infinity)
        .map(|(p, q)| (p, q, [words(&q.x), words(&q.y), one]))
        .collect();
    // The line at P: c₀ + c₁·x_P·v + c₂·y_P·vw.
    let eval =
        |f: &mut lightprov_field_mont::bls12_381_tower::Fq12Words, p: &G1Affine, l: &Line| {
            let (mut c1, mut c2) = (fq2_of(&l[1]), fq2_of(&l[2]));
            c1.mul_assign_by_fp(&p.x);
            c2.mul_assign_by_fp(&p.y);
            mul_by_014(f, &l[0], &words(&c1), &words(&c2));
        };
    let mut f = fq12_words(&Fq12::ONE);
    for bit in BitIteratorBE::without_leading_zeros(X).skip(1) {
        fq12_square(&mut f);
        for (p, _, r) in pairs.iter_mut() {
            let line = doubling_step(r);
            eval(&mut f, p, &line);
        }
        if bit {
            for (p, q, r) in pairs.iter_mut() {
                let line = addition_step(r, &words(&q.x), &words(&q.y));
                eval(&mut f, p, &line);
            }
        }
    }
    let mut f = fq12_from_words(&f);
    f.cyclotomic_inverse_in_place();
    f
}

/// `acc + p`. (This and the next two are functions of this crate, not arkworks' generics
/// instantiated in the caller, so that they are compiled with this crate's optimisation
/// settings wherever they are called.)
pub fn g1_add(acc: &mut G1Projective, p: &G1Affine) {
    *acc += p;
}

/// `acc − p`.
pub fn g1_sub(acc: &mut G1Projective, p: &G1Affine) {
    *acc -= p;
}

/// `p` in affine coordinates.
pub fn g1_to_affine(p: &G1Projective) -> G1Affine {
    p.into_affine()
}

/// The curve parameter's magnitude |x| (x is negative).
const X: &[u64] = <ark::Config as Bls12Config>::X;

/// β, a cube root of unity in Fp: φ(x, y) = (βx, y) acts on G1 as the multiplication by −x².
const BETA: Fq = from_mont(ark::g1::BETA);

/// An Fp2 constant from two arkworks Fp constants.
const fn fq2_of(c0: ark::Fq, c1: ark::Fq) -> Fq2 {
    QuadExtField::new(from_mont(c0), from_mont(c1))
}

/// ψ's x coefficient, 1/(u + 1)^((p − 1)/3), is `PSI_X_C1`·u.
const PSI_X_C1: Fq = from_mont(MontFp!(
    "4002409555221667392624310435006688643935503118305586438271171395842971157480381377015405980053539358417135540939437"
));
/// ψ's y coefficient, 1/(u + 1)^((p − 1)/2).
const PSI_Y: Fq2 = fq2_of(
    MontFp!(
        "2973677408986561043442465346520108879172042883009249989176415018091420807192182638567116318576472649347015917690530"
    ),
    MontFp!(
        "1028732146235106349975324479215795277384839936929757896155643118032610843298655225875571310552543014690878354869257"
    ),
);
/// ψ²'s x coefficient, (u + 1)^((1 − p²)/3), in Fp (ψ² negates y).
const PSI2_X: Fq = from_mont(MontFp!(
    "4002409555221667392624310435006688643935503118305586438271171395842971157480381377015405980053539358417135540939436"
));

/// G1's subgroup check: φ(P) = −[x²]P, with the early exit [x]P = P ≠ O of the paper.
pub(crate) fn g1_in_subgroup(p: &G1Affine) -> bool {
    let xp = p.mul_bigint(X);
    if !p.infinity && xp == *p {
        return false;
    }
    let minus_x2p = -xp.mul_bigint(X);
    let mut phi = *p;
    phi.x *= BETA;
    minus_x2p == phi
}

/// ψ = untwist ∘ Frobenius ∘ twist on G2: (x, y) ↦ (x^p/(u + 1)^((p − 1)/3), y^p/(u + 1)^((p − 1)/2)).
pub(crate) fn psi(p: &G2Affine) -> G2Affine {
    let mut r = *p;
    r.x.frobenius_map_in_place(1);
    r.y.frobenius_map_in_place(1);
    let t = r.x;
    r.x.c0 = -(PSI_X_C1 * t.c1);
    r.x.c1 = PSI_X_C1 * t.c0;
    r.y *= PSI_Y;
    r
}

/// ψ² on a projective point: (x, y) ↦ (x·PSI2_X, −y).
pub(crate) fn psi2(p: &G2Projective) -> G2Projective {
    let mut r = *p;
    r.x.mul_assign_by_fp(&PSI2_X);
    r.y = -r.y;
    r
}

/// G2's subgroup check: ψ(P) = [x]P = −[|x|]P.
pub(crate) fn g2_in_subgroup(p: &G2Affine) -> bool {
    -p.mul_bigint(X) == psi(p)
}

/// [h(ψ)]P = [x² − x − 1]P + [x − 1]ψ(P) + ψ²(2P), as arkworks' BLS12-381 computes it.
pub(crate) fn g2_clear_cofactor(p: &G2Affine) -> G2Affine {
    let pp = p.into_group();
    // [x]P, x negative.
    let x_p = -p.mul_bigint(X);
    let psi_p = psi(p);
    let mut acc = psi2(&pp.double());
    // [x]([x]P + ψ(P)) = [x²]P + [x]ψ(P).
    let t = -(x_p + psi_p).mul_bigint(X);
    acc += t;
    acc -= x_p;
    acc -= psi_p;
    (acc - pp).into_affine()
}

/// The curve 3-isogenous to G2's, E': y² = x³ + 240u·x + 1012(1 + u), where SSWU maps
/// (RFC 9380 §8.8.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct G2IsoConfig;

impl CurveConfig for G2IsoConfig {
    type BaseField = Fq2;
    type ScalarField = Fr;
    const COFACTOR: &'static [u64] = <ark::g2::Config as CurveConfig>::COFACTOR;
    const COFACTOR_INV: Fr = <ark::g2::Config as CurveConfig>::COFACTOR_INV;
}

impl SWCurveConfig for G2IsoConfig {
    const COEFF_A: Fq2 = fq2_of(MontFp!("0"), MontFp!("240"));
    const COEFF_B: Fq2 = fq2_of(MontFp!("1012"), MontFp!("1012"));
    /// arkworks' generator of E' (not used by the hash).
    const GENERATOR: ark_ec::short_weierstrass::Affine<Self> =
        ark_ec::short_weierstrass::Affine::new_unchecked(
            fq2_of(
                MontFp!(
                    "2595569946714414516067015540153643524656442638788025933727967960306287756885400469291119095920626560658971252184199"
                ),
                MontFp!(
                    "1037079738597573406765355774006601850633656296583542639082316151670128374872040593053087014315526494961765370307992"
                ),
            ),
            fq2_of(
                MontFp!(
                    "3927929472994661655038722055497331445175131868678630546921475383290711810401295661250673209427965906654429357114487"
                ),
                MontFp!(
                    "3300326318345570015758639333209189167876318321385223785506096497597561910823001330832964776707374262378602791224889"
                ),
            ),
        );
}

impl SWUConfig for G2IsoConfig {
    /// Z = −(2 + u).
    const ZETA: Fq2 = fq2_of(MontFp!("-2"), MontFp!("-1"));
}

/// k_(1,0..3) of RFC 9380 Appendix E.3.
const ISO_X_NUM: [Fq2; 4] = [
    fq2_of(
        MontFp!(
            "889424345604814976315064405719089812568196182208668418962679585805340366775741747653930584250892369786198727235542"
        ),
        MontFp!(
            "889424345604814976315064405719089812568196182208668418962679585805340366775741747653930584250892369786198727235542"
        ),
    ),
    fq2_of(
        MontFp!("0"),
        MontFp!(
            "2668273036814444928945193217157269437704588546626005256888038757416021100327225242961791752752677109358596181706522"
        ),
    ),
    fq2_of(
        MontFp!(
            "2668273036814444928945193217157269437704588546626005256888038757416021100327225242961791752752677109358596181706526"
        ),
        MontFp!(
            "1334136518407222464472596608578634718852294273313002628444019378708010550163612621480895876376338554679298090853261"
        ),
    ),
    fq2_of(
        MontFp!(
            "3557697382419259905260257622876359250272784728834673675850718343221361467102966990615722337003569479144794908942033"
        ),
        MontFp!("0"),
    ),
];
/// k_(2,0..2), then the leading 1.
const ISO_X_DEN: [Fq2; 3] = [
    fq2_of(
        MontFp!("0"),
        MontFp!(
            "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559715"
        ),
    ),
    fq2_of(
        MontFp!("12"),
        MontFp!(
            "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559775"
        ),
    ),
    fq2_of(MontFp!("1"), MontFp!("0")),
];
/// k_(3,0..3).
const ISO_Y_NUM: [Fq2; 4] = [
    fq2_of(
        MontFp!(
            "3261222600550988246488569487636662646083386001431784202863158481286248011511053074731078808919938689216061999863558"
        ),
        MontFp!(
            "3261222600550988246488569487636662646083386001431784202863158481286248011511053074731078808919938689216061999863558"
        ),
    ),
    fq2_of(
        MontFp!("0"),
        MontFp!(
            "889424345604814976315064405719089812568196182208668418962679585805340366775741747653930584250892369786198727235518"
        ),
    ),
    fq2_of(
        MontFp!(
            "2668273036814444928945193217157269437704588546626005256888038757416021100327225242961791752752677109358596181706524"
        ),
        MontFp!(
            "1334136518407222464472596608578634718852294273313002628444019378708010550163612621480895876376338554679298090853263"
        ),
    ),
    fq2_of(
        MontFp!(
            "2816510427748580758331037284777117739799287910327449993381818688383577828123182200904113516794492504322962636245776"
        ),
        MontFp!("0"),
    ),
];
/// k_(4,0..2), then the leading 1.
const ISO_Y_DEN: [Fq2; 4] = [
    fq2_of(
        MontFp!(
            "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559355"
        ),
        MontFp!(
            "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559355"
        ),
    ),
    fq2_of(
        MontFp!("0"),
        MontFp!(
            "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559571"
        ),
    ),
    fq2_of(
        MontFp!("18"),
        MontFp!(
            "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559769"
        ),
    ),
    fq2_of(MontFp!("1"), MontFp!("0")),
];

impl WBConfig for G2Config {
    type IsogenousCurve = G2IsoConfig;
    const ISOGENY_MAP: IsogenyMap<'static, G2IsoConfig, G2Config> = IsogenyMap {
        x_map_numerator: &ISO_X_NUM,
        x_map_denominator: &ISO_X_DEN,
        y_map_numerator: &ISO_Y_NUM,
        y_map_denominator: &ISO_Y_DEN,
    };
}

/// RFC 9380's `hash_to_curve(message)` in G2 with the suite `BLS12381G2_XMD:SHA-256_SSWU_RO_`
/// and the tag `dst`: expand_message_xmd with SHA-256 to two Fp2 elements, each mapped by SSWU
/// to E' and by the 3-isogeny to G2, their sum's cofactor cleared (arkworks'
/// `MapToCurveBasedHasher` with its `DefaultFieldHasher`, the same steps). A tag over 255 bytes is
/// first hashed, as the RFC says (§5.3.3). None never, in fact: the map is total.
pub fn hash_to_g2(message: &[u8], dst: &[u8]) -> Option<G2Affine> {
    let bytes = expand_message_xmd(message, dst);
    let mut u = [Fq2::ZERO; 2];
    for (ui, b) in u.iter_mut().zip(bytes.chunks_exact(128)) {
        let (c0, c1) = b.split_at(64);
        *ui = Fq2::new(fq_from_be_wide(c0)?, fq_from_be_wide(c1)?);
    }
    let [u0, u1] = u;
    let (q0, q1) = (map_to_g2(u0)?, map_to_g2(u1)?);
    Some((q0 + q1).into_affine().clear_cofactor())
}

/// `map_to_curve` of RFC 9380 for G2: the simplified SWU map to E' (§6.6.2), then the 3-isogeny
/// to G2 (Appendix E.3), as arkworks' `WBMap` computes them, but with the square roots of
/// [`fq2_sqrt`] (one exponentiation fewer than arkworks' Legendre symbol and root) and one
/// inversion for the isogeny's two denominators. None never, in fact: the map is total.
fn map_to_g2(u: Fq2) -> Option<G2Affine> {
    let (a, b, z) = (
        G2IsoConfig::COEFF_A,
        G2IsoConfig::COEFF_B,
        G2IsoConfig::ZETA,
    );
    let zeta_u2 = z * u.square();
    let ta = zeta_u2.square() + zeta_u2;
    let num_x1 = b * (ta + Fq2::ONE);
    let div = a * if ta.is_zero() { z } else { -ta };
    let div2 = div.square();
    let div3 = div2 * div;
    let num_gx1 = (num_x1.square() + a * div2) * num_x1 + b * div3;
    // div ≠ 0: a and Z are not 0.
    let div3_inv = div3.inverse()?;
    let gx1 = num_gx1 * div3_inv;
    // g(x1) a square: x1 and its root; else g(x2) = Z³u⁶·g(x1) is, x2 = Z·u²·x1 and its root
    // Z·u³·√(Z·g(x1)).
    let (num_x, y) = match fq2_sqrt(&gx1) {
        Some(y1) => (num_x1, y1),
        None => (zeta_u2 * num_x1, zeta_u2 * u * fq2_sqrt(&(z * gx1))?),
    };
    // x = num_x/div: div⁻¹ = div²·div3⁻¹.
    let x = num_x * div2 * div3_inv;
    let y = if parity(&y) == parity(&u) { y } else { -y };
    // The isogeny: x' = x_num(x)/x_den(x), y' = y·y_num(x)/y_den(x), both denominators inverted
    // at once (a zero one stays zero, as arkworks' batch inversion leaves it).
    let horner = |c: &[Fq2]| c.iter().rev().fold(Fq2::ZERO, |acc, k| acc * x + k);
    let (xd, yd) = (horner(&ISO_X_DEN), horner(&ISO_Y_DEN));
    let (xd_inv, yd_inv) = match (xd * yd).inverse() {
        Some(i) => (i * yd, i * xd),
        None => (
            xd.inverse().unwrap_or(Fq2::ZERO),
            yd.inverse().unwrap_or(Fq2::ZERO),
        ),
    };
    Some(G2Affine::new_unchecked(
        horner(&ISO_X_NUM) * xd_inv,
        y * horner(&ISO_Y_NUM) * yd_inv,
    ))
}

/// (p + 1)/2, the inverse of 2 in Fp.
const HALF: Fq = from_mont(MontFp!(
    "2001204777610833696708894912867952078278441409969503942666029068062015825245418932221343814564507832018947136279894"
));

/// ⌊p/4⌋ = (p − 3)/4 (p ≡ 3 mod 4), as words (low first).
// i < 6 and i + 1 < 6 index the six words.
#[allow(clippy::indexing_slicing)]
const P_MINUS_3_DIV_4: [u64; 6] = {
    let p = <ark::FqConfig as ark_ff::MontConfig<6>>::MODULUS.0;
    let mut out = [0u64; 6];
    let mut i = 0;
    while i < 6 {
        out[i] = p[i] >> 2;
        if i + 1 < 6 {
            out[i] |= p[i + 1] << 62;
        }
        i += 1;
    }
    out
};

/// `a^e` in Fp for e given by its words (low first): sliding windows of up to five bits over
/// the odd powers a, a³, …, a³¹ (for a 381-bit exponent about 380 squarings and 80 products,
/// where a bit-by-bit exponentiation takes about 190 products).
pub(crate) fn fp_pow(a: &Fq, e: &[u64]) -> Fq {
    let bit = |i: usize| e.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1);
    let a2 = a.square();
    let mut odd = [*a; 16];
    let mut prev = *a;
    for slot in odd.iter_mut().skip(1) {
        prev *= a2;
        *slot = prev;
    }
    let mut r = Fq::ONE;
    let mut i = e.len() * 64;
    while i > 0 {
        if !bit(i - 1) {
            r.square_in_place();
            i -= 1;
            continue;
        }
        // The window [j, i): at most five bits, ending (at j) in a set bit.
        let mut j = i.saturating_sub(5);
        while !bit(j) {
            j += 1;
        }
        let mut value = 0usize;
        for k in (j..i).rev() {
            r.square_in_place();
            value = value << 1 | usize::from(bit(k));
        }
        r *= odd.get(value / 2).copied().unwrap_or(Fq::ONE);
        i = j;
    }
    r
}

/// A square root of `a` in Fp (p ≡ 3 mod 4): `a^((p + 1)/4)` if it squares to a.
pub(crate) fn fp_sqrt(a: &Fq) -> Option<Fq> {
    let t = fp_pow(a, &P_MINUS_3_DIV_4);
    let r = t * a;
    (r.square() == *a).then_some(r)
}

/// A square root of `a` in Fp2 = Fp[u]/(u² + 1), None when `a` is not a square: the complex
/// method (Adj and Rodríguez-Henríquez, eprint 2012/685, Algorithm 8, as arkworks computes it)
/// with each Legendre symbol replaced by the square root it precedes (an Fp root of a non-square
/// fails its own check), and x₀'s inverse from the same exponentiation: t = δ^((p − 3)/4) gives
/// x₀ = tδ and, δ a non-zero square, x₀·t = δ^((p − 1)/2) = 1. Two Fp exponentiations, three
/// for half the inputs, where arkworks takes four, no inversion.
pub(crate) fn fq2_sqrt(a: &Fq2) -> Option<Fq2> {
    if a.c1.is_zero() {
        // Every element of Fp is a square in Fp2: √c0, or √(−c0)·u (−1 is not a square in Fp).
        return match fp_sqrt(&a.c0) {
            Some(r) => Some(Fq2::new(r, Fq::ZERO)),
            None => fp_sqrt(&-a.c0).map(|r| Fq2::new(Fq::ZERO, r)),
        };
    }
    // a = (x0 + x1·u)²: c0 = x0² − x1², c1 = 2·x0·x1, and the norm c0² + c1² = (x0² + x1²)² is a
    // square in Fp exactly when a is one in Fp2.
    let s = fp_sqrt(&(a.c0.square() + a.c1.square()))?;
    // δ = (c0 ± s)/2 is x0² for one sign and −x1², not a square (x1 ≠ 0 as c1 ≠ 0), for the
    // other; x0 ≠ 0 as c1 ≠ 0.
    for delta in [(a.c0 + s) * HALF, (a.c0 - s) * HALF] {
        let t = fp_pow(&delta, &P_MINUS_3_DIV_4);
        let x0 = t * delta;
        if x0 * t == Fq::ONE {
            let r = Fq2::new(x0, a.c1 * HALF * t);
            return (r.square() == *a).then_some(r);
        }
    }
    None
}

/// RFC 9380 §5.3.1 `expand_message_xmd` with SHA-256, 256 bytes (two Fp2 elements of 64 bytes
/// a coordinate: L = 64 for p's 381 bits and k = 128).
fn expand_message_xmd(message: &[u8], dst: &[u8]) -> [u8; 256] {
    use sha2::{Digest, Sha256};
    let long;
    let dst: &[u8] = if dst.len() > 255 {
        long = Sha256::new()
            .chain_update(b"H2C-OVERSIZE-DST-")
            .chain_update(dst)
            .finalize();
        &long
    } else {
        dst
    };
    // DST_prime = DST ‖ I2OSP(len(DST), 1): the length is at most 255 here.
    let dst_len = [dst.len() as u8];
    let mut h = Sha256::new();
    // Z_pad (one SHA-256 block) ‖ msg ‖ I2OSP(256, 2) ‖ I2OSP(0, 1) ‖ DST_prime.
    h.update([0u8; 64]);
    h.update(message);
    h.update([1u8, 0, 0]);
    h.update(dst);
    h.update(dst_len);
    let b0 = h.finalize_reset();
    let mut out = [0u8; 256];
    let mut bi = [0u8; 32];
    for (i, chunk) in (1u8..).zip(out.chunks_exact_mut(32)) {
        // b_i = H(strxor(b_0, b_(i−1)) ‖ I2OSP(i, 1) ‖ DST_prime), b_1 with b_0 alone.
        let mut x = [0u8; 32];
        for (x, (a, b)) in x.iter_mut().zip(b0.iter().zip(&bi)) {
            *x = a ^ b;
        }
        h.update(x);
        h.update([i]);
        h.update(dst);
        h.update(dst_len);
        bi = h.finalize_reset().into();
        chunk.copy_from_slice(&bi);
    }
    out
}

/// 64 big-endian bytes mod p (`OS2IP(tv) mod p` of hash_to_field): the three parts of 16, 24 and
/// 24 bytes, each below p, combined as (hi·2^192 + mid)·2^192 + lo.
fn fq_from_be_wide(bytes: &[u8]) -> Option<Fq> {
    let mut w = [0u64; 8];
    if bytes.len() != 64 {
        return None;
    }
    for (w, chunk) in w.iter_mut().rev().zip(bytes.chunks_exact(8)) {
        *w = u64::from_be_bytes(chunk.try_into().ok()?);
    }
    let [l0, l1, l2, m0, m1, m2, h0, h1] = w;
    let part = |a, b, c| Fq::from_bigint(BigInt([a, b, c, 0, 0, 0]));
    let two_192 = Fq::from_bigint(BigInt([0, 0, 0, 1, 0, 0]))?;
    Some((part(h0, h1, 0)? * two_192 + part(m0, m1, m2)?) * two_192 + part(l0, l1, l2)?)
}

/// The ZCash encoding's flags, in the first byte: compressed, infinity, y the larger root.
const COMPRESSED: u8 = 0x80;
const INFINITY: u8 = 0x40;
const SORT: u8 = 0x20;

/// An Fp element from 48 big-endian bytes (the flag bits cleared): None at or above p.
fn fq_from_be(bytes: &[u8]) -> Option<Fq> {
    let mut words = [0u64; 6];
    if bytes.len() != 48 {
        return None;
    }
    for (w, chunk) in words.iter_mut().rev().zip(bytes.chunks_exact(8)) {
        *w = u64::from_be_bytes(chunk.try_into().ok()?);
    }
    Fq::from_bigint(BigInt(words))
}

/// An Fp element's 48 big-endian bytes.
fn fq_to_be(x: Fq, out: &mut [u8]) {
    let words = x.into_bigint().0;
    for (chunk, w) in out.chunks_exact_mut(8).zip(words.iter().rev()) {
        chunk.copy_from_slice(&w.to_be_bytes());
    }
}

/// Whether `y` is the larger of y and −y (as integers below p).
fn larger(y: Fq) -> bool {
    y.into_bigint() > Fq::MODULUS_MINUS_ONE_DIV_TWO
}

/// Whether `y` is the larger of y and −y in the ZCash order: by c1, by c0 where c1 is zero.
fn larger2(y: Fq2) -> bool {
    if y.c1.is_zero() {
        larger(y.c0)
    } else {
        larger(y.c1)
    }
}

/// The flags of a compressed encoding and its bytes with the flags cleared: None unless the
/// compression flag is set, or for infinity with the sort flag or any other bit set.
fn flags<const L: usize>(bytes: &[u8; L]) -> Option<(bool, bool, [u8; L])> {
    let mut b = *bytes;
    let first = b.first_mut()?;
    let f = *first;
    *first &= 0x1f;
    if f & COMPRESSED == 0 {
        return None;
    }
    let infinity = f & INFINITY != 0;
    if infinity && (f & SORT != 0 || b.iter().any(|x| *x != 0)) {
        return None;
    }
    Some((infinity, f & SORT != 0, b))
}

/// A G1 point from its 48-byte compressed ZCash encoding, in the subgroup (infinity
/// included): None for a missing compression flag, a bad infinity encoding, x ≥ p, an x not on
/// the curve, or a point outside the subgroup.
pub fn g1_from_compressed(bytes: &[u8; 48]) -> Option<G1Affine> {
    let (infinity, sort, b) = flags(bytes)?;
    if infinity {
        return Some(G1Affine::identity());
    }
    let x = fq_from_be(&b)?;
    let mut y = fp_sqrt(&(x.square() * x + G1Config::COEFF_B))?;
    if larger(y) != sort {
        y = -y;
    }
    let p = G1Affine::new_unchecked(x, y);
    p.is_in_correct_subgroup_assuming_on_curve().then_some(p)
}

/// A G2 point from its 96-byte compressed ZCash encoding (x.c1 ‖ x.c0, the flags in the first
/// byte), in the subgroup (infinity included): None as for [`g1_from_compressed`], or for
/// either coordinate of x at or above p.
pub fn g2_from_compressed(bytes: &[u8; 96]) -> Option<G2Affine> {
    let (infinity, sort, b) = flags(bytes)?;
    if infinity {
        return Some(G2Affine::identity());
    }
    let (c1, c0) = b.split_at(48);
    let x = Fq2::new(fq_from_be(c0)?, fq_from_be(c1)?);
    let mut y = fq2_sqrt(&(x.square() * x + G2Config::COEFF_B))?;
    if larger2(y) != sort {
        y = -y;
    }
    let p = G2Affine::new_unchecked(x, y);
    p.is_in_correct_subgroup_assuming_on_curve().then_some(p)
}

/// A G1 point's 48-byte compressed ZCash encoding.
pub fn g1_to_compressed(p: &G1Affine) -> [u8; 48] {
    let mut out = [0u8; 48];
    let flags = if p.infinity {
        COMPRESSED | INFINITY
    } else {
        fq_to_be(p.x, &mut out);
        COMPRESSED | if larger(p.y) { SORT } else { 0 }
    };
    if let Some(first) = out.first_mut() {
        *first |= flags;
    }
    out
}

/// A G2 point's 96-byte compressed ZCash encoding.
pub fn g2_to_compressed(p: &G2Affine) -> [u8; 96] {
    let mut out = [0u8; 96];
    let flags = if p.infinity {
        COMPRESSED | INFINITY
    } else {
        let (c1, c0) = out.split_at_mut(48);
        fq_to_be(p.x.c1, c1);
        fq_to_be(p.x.c0, c0);
        COMPRESSED | if larger2(p.y) { SORT } else { 0 }
    };
    if let Some(first) = out.first_mut() {
        *first |= flags;
    }
    out
}
