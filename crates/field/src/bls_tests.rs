//! BLS12-381's subgroup checks, cofactor clearing, hash to G2 and ZCash encoding on the wasm32
//! backend against the slow definitions and against arkworks' BLS12-381: the endomorphism
//! tests agree with the multiplication by the group order on points of the subgroup and on
//! points of the curve outside it, and decoding refuses each malformed encoding.

extern crate std;

use std::{vec, vec::Vec};

use ark_bls12_381 as ark;
use ark_ec::{
    AffineRepr, CurveGroup,
    hashing::{HashToCurve, curve_maps::wb::WBMap, map_to_curve_hasher::MapToCurveBasedHasher},
};
use ark_ff::{
    BigInteger, Field, PrimeField, QuadExtField, UniformRand, Zero,
    field_hashers::DefaultFieldHasher,
};
use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};

use crate::{
    bls12_381::{
        G1Affine, G2Affine, g1_from_compressed, g1_to_compressed, g2_from_compressed,
        g2_to_compressed, hash_to_g2,
    },
    from_mont, to_mont,
};

fn g1(p: ark::G1Affine) -> G1Affine {
    if p.infinity {
        return G1Affine::identity();
    }
    G1Affine::new_unchecked(from_mont(p.x), from_mont(p.y))
}

fn f2(x: ark::Fq2) -> crate::bls12_381::Fq2 {
    QuadExtField::new(from_mont(x.c0), from_mont(x.c1))
}

fn g2(p: ark::G2Affine) -> G2Affine {
    if p.infinity {
        return G2Affine::identity();
    }
    G2Affine::new_unchecked(f2(p.x), f2(p.y))
}

fn same_g2(ours: &G2Affine, theirs: &ark::G2Affine) -> bool {
    ours.infinity == theirs.infinity
        && (
            to_mont(ours.x.c0),
            to_mont(ours.x.c1),
            to_mont(ours.y.c0),
            to_mont(ours.y.c1),
        ) == (theirs.x.c0, theirs.x.c1, theirs.y.c0, theirs.y.c1)
}

/// Points of G1 and of the whole curve E(Fp) (random x until x³ + 4 is a square: outside
/// the subgroup but for a chance of 1/h).
fn g1_points(n: usize) -> (Vec<ark::G1Affine>, Vec<ark::G1Affine>) {
    let mut rng = ark_std::test_rng();
    let inside = (0..n)
        .map(|_| (ark::G1Affine::generator() * ark::Fr::rand(&mut rng)).into_affine())
        .collect();
    let mut outside = Vec::new();
    while outside.len() < n {
        let x = ark::Fq::rand(&mut rng);
        if let Some(p) = ark::G1Affine::get_point_from_x_unchecked(x, false) {
            outside.push(p);
        }
    }
    (inside, outside)
}

fn g2_points(n: usize) -> (Vec<ark::G2Affine>, Vec<ark::G2Affine>) {
    let mut rng = ark_std::test_rng();
    let inside = (0..n)
        .map(|_| (ark::G2Affine::generator() * ark::Fr::rand(&mut rng)).into_affine())
        .collect();
    let mut outside = Vec::new();
    while outside.len() < n {
        let x = ark::Fq2::rand(&mut rng);
        if let Some(p) = ark::G2Affine::get_point_from_x_unchecked(x, true) {
            outside.push(p);
        }
    }
    (inside, outside)
}

/// The slow check: r·P = O.
fn slow_in_subgroup<P: AffineRepr>(p: &P) -> bool {
    p.mul_bigint(ark::Fr::MODULUS).is_zero()
}

#[test]
fn g1_subgroup_check_is_the_slow_one() {
    let (inside, outside) = g1_points(8);
    for p in inside {
        let ours = g1(p);
        assert!(ours.is_on_curve() && slow_in_subgroup(&ours));
        assert!(ours.is_in_correct_subgroup_assuming_on_curve());
    }
    for p in outside {
        let ours = g1(p);
        assert!(ours.is_on_curve() && !slow_in_subgroup(&ours));
        assert!(!ours.is_in_correct_subgroup_assuming_on_curve());
        // Its cofactor-cleared multiple is in the subgroup, by both checks.
        let cleared = ours.clear_cofactor();
        assert!(slow_in_subgroup(&cleared) && cleared.is_in_correct_subgroup_assuming_on_curve());
    }
    assert!(G1Affine::identity().is_in_correct_subgroup_assuming_on_curve());
}

#[test]
fn g2_subgroup_check_is_the_slow_one() {
    let (inside, outside) = g2_points(8);
    for p in inside {
        let ours = g2(p);
        assert!(ours.is_on_curve() && slow_in_subgroup(&ours));
        assert!(ours.is_in_correct_subgroup_assuming_on_curve());
    }
    for p in outside {
        let ours = g2(p);
        assert!(ours.is_on_curve() && !slow_in_subgroup(&ours));
        assert!(!ours.is_in_correct_subgroup_assuming_on_curve());
    }
    assert!(G2Affine::identity().is_in_correct_subgroup_assuming_on_curve());
}

#[test]
fn g2_cofactor_clearing_is_arkworks() {
    let (_, outside) = g2_points(8);
    for p in outside {
        let ours = g2(p).clear_cofactor();
        assert!(same_g2(&ours, &p.clear_cofactor()));
        assert!(slow_in_subgroup(&ours) && !ours.is_zero());
    }
}

#[test]
fn hash_to_g2_is_arkworks() {
    type Theirs = MapToCurveBasedHasher<
        ark::G2Projective,
        DefaultFieldHasher<sha2::Sha256, 128>,
        WBMap<ark::g2::Config>,
    >;
    // The Ethereum tag, a tag of 255 bytes (the longest used as it is) and one of 256 (hashed
    // first, RFC 9380 §5.3.3).
    let long: Vec<u8> = (0..256).map(|i| (i * 5) as u8).collect();
    let tags = [
        &b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"[..],
        &long[..255],
        &long,
    ];
    for dst in tags {
        let theirs = Theirs::new(dst).unwrap();
        for len in [0usize, 1, 32, 100, 300] {
            let msg: Vec<u8> = (0..len).map(|i| (i * 7 + len) as u8).collect();
            let ours = hash_to_g2(&msg, dst).unwrap();
            assert!(
                same_g2(&ours, &theirs.hash(&msg).unwrap()),
                "{len} {}",
                dst.len()
            );
            assert!(slow_in_subgroup(&ours));
        }
    }
}

#[test]
fn compressed_points_decode_as_arkworks_and_round_trip() {
    let (g1s, _) = g1_points(6);
    let (g2s, _) = g2_points(6);
    let mut rng = ark_std::test_rng();
    for p in g1s.into_iter().chain([ark::G1Affine::identity()]) {
        let mut bytes = [0u8; 48];
        p.serialize_compressed(&mut bytes[..]).unwrap();
        assert_eq!(g1_to_compressed(&g1(p)), bytes);
        let ours = g1_from_compressed(&bytes).unwrap();
        assert_eq!(ours, g1(p));
        assert_eq!(
            ark::G1Affine::deserialize_compressed(&bytes[..]).unwrap(),
            p
        );
    }
    for p in g2s.into_iter().chain([ark::G2Affine::identity()]) {
        let mut bytes = [0u8; 96];
        p.serialize_compressed(&mut bytes[..]).unwrap();
        assert_eq!(g2_to_compressed(&g2(p)), bytes);
        assert!(same_g2(&g2_from_compressed(&bytes).unwrap(), &p));
    }
    // Both roots of y: the sort flag picks the larger.
    let p = (ark::G2Affine::generator() * ark::Fr::rand(&mut rng)).into_affine();
    let q = -p;
    let (bp, bq) = (g2_to_compressed(&g2(p)), g2_to_compressed(&g2(q)));
    assert_eq!(bp[0] ^ bq[0], 0x20);
    assert!(same_g2(&g2_from_compressed(&bq).unwrap(), &q));
}

/// A 384-bit integer's 48 big-endian bytes.
fn be48(x: ark_ff::BigInt<6>) -> [u8; 48] {
    let mut out = [0u8; 48];
    out.copy_from_slice(&x.to_bytes_be());
    out
}

/// p's 48 big-endian bytes.
fn modulus_bytes() -> [u8; 48] {
    be48(ark::Fq::MODULUS)
}

/// The 48 big-endian bytes of c + p, the non-canonical encoding of c.
fn plus_p(c: ark::Fq) -> [u8; 48] {
    let mut s = ark::Fq::MODULUS;
    s.add_with_carry(&c.into_bigint());
    be48(s)
}

#[test]
fn malformed_g1_encodings_are_refused() {
    let p = g1_to_compressed(&g1(ark::G1Affine::generator()));
    assert!(g1_from_compressed(&p).is_some());
    // No compression flag.
    let mut b = p;
    b[0] &= 0x7f;
    assert!(g1_from_compressed(&b).is_none());
    // Infinity: with the sort flag, with a bit of x, without the compression flag.
    let mut inf = [0u8; 48];
    inf[0] = 0xc0;
    assert!(g1_from_compressed(&inf).unwrap().is_zero());
    let mut b = inf;
    b[0] |= 0x20;
    assert!(g1_from_compressed(&b).is_none());
    let mut b = inf;
    b[47] = 1;
    assert!(g1_from_compressed(&b).is_none());
    let mut b = inf;
    b[0] = 0x40;
    assert!(g1_from_compressed(&b).is_none());
    // x = p and x = p + the generator's x (non-canonical: x ≥ p), with and without sort.
    let m = modulus_bytes();
    for sort in [0x80u8, 0xa0] {
        let mut b = m;
        b[0] |= sort;
        assert!(g1_from_compressed(&b).is_none());
    }
    // (A point of G1 whose x + p fits below the flag bits.)
    let (inside, _) = g1_points(40);
    let q = inside
        .into_iter()
        .find(|q| plus_p(q.x)[0] & 0xe0 == 0)
        .unwrap();
    let mut b = g1_to_compressed(&g1(q));
    assert!(g1_from_compressed(&b).is_some());
    let flags = b[0] & 0xe0;
    b = plus_p(q.x);
    b[0] |= flags;
    assert!(g1_from_compressed(&b).is_none());
    // An x with x³ + 4 not a square (not on the curve).
    let mut x = ark::Fq::from(1u64);
    while (x.square() * x + ark::Fq::from(4u64)).sqrt().is_some() {
        x += ark::Fq::from(1u64);
    }
    let mut b = be48(x.into_bigint());
    b[0] |= 0x80;
    assert!(g1_from_compressed(&b).is_none());
    // A point of the curve outside the subgroup.
    let (_, outside) = g1_points(1);
    let b = g1_to_compressed(&g1(outside[0]));
    assert!(g1_from_compressed(&b).is_none());
}

#[test]
fn malformed_g2_encodings_are_refused() {
    let p = g2_to_compressed(&g2(ark::G2Affine::generator()));
    assert!(g2_from_compressed(&p).is_some());
    let mut b = p;
    b[0] &= 0x7f;
    assert!(g2_from_compressed(&b).is_none());
    let mut inf = [0u8; 96];
    inf[0] = 0xc0;
    assert!(g2_from_compressed(&inf).unwrap().is_zero());
    let mut b = inf;
    b[0] |= 0x20;
    assert!(g2_from_compressed(&b).is_none());
    let mut b = inf;
    b[95] = 1;
    assert!(g2_from_compressed(&b).is_none());
    // x.c1 + p and x.c0 + p of a point of G2 (whose coordinates plus p fit below the flag
    // bits): each non-canonical alone.
    let (inside, _) = g2_points(60);
    let q = inside
        .into_iter()
        .find(|q| plus_p(q.x.c1)[0] & 0xe0 == 0 && plus_p(q.x.c0)[0] & 0xe0 == 0)
        .unwrap();
    let good = g2_to_compressed(&g2(q));
    assert!(g2_from_compressed(&good).is_some());
    for (i, c) in [(0usize, q.x.c1), (48, q.x.c0)] {
        let mut b = good;
        b[i..i + 48].copy_from_slice(&plus_p(c));
        b[0] |= good[0] & 0xe0;
        assert!(g2_from_compressed(&b).is_none(), "{i}");
    }
    // An x off the curve.
    let mut x = ark::Fq2::new(ark::Fq::from(1u64), ark::Fq::from(1u64));
    while (x.square() * x + <ark::g2::Config as ark_ec::short_weierstrass::SWCurveConfig>::COEFF_B)
        .sqrt()
        .is_some()
    {
        x += ark::Fq2::from(1u64);
    }
    let mut b = [0u8; 96];
    b[..48].copy_from_slice(&x.c1.into_bigint().to_bytes_be());
    b[48..].copy_from_slice(&x.c0.into_bigint().to_bytes_be());
    b[0] |= 0x80;
    assert!(g2_from_compressed(&b).is_none());
    // A point of the curve outside the subgroup.
    let (_, outside) = g2_points(1);
    assert!(g2_from_compressed(&g2_to_compressed(&g2(outside[0]))).is_none());
}

/// The Fp2 square root of hash to G2 finds a root exactly where arkworks' does: on random
/// elements (about half of them squares), on squares, on elements of Fp (all squares in Fp2),
/// and on 0.
#[test]
fn fq2_sqrt_is_a_root_where_arkworks_finds_one() {
    use crate::bls12_381::fq2_sqrt;
    let mut rng = ark_std::test_rng();
    let mut elements: Vec<ark::Fq2> = (0..200).map(|_| ark::Fq2::rand(&mut rng)).collect();
    elements.extend((0..50).map(|_| ark::Fq2::rand(&mut rng).square()));
    elements.extend((0..50).map(|_| ark::Fq2::new(ark::Fq::rand(&mut rng), ark::Fq::zero())));
    elements.push(ark::Fq2::zero());
    let mut squares = 0;
    for a in elements {
        let ours = fq2_sqrt(&f2(a));
        assert_eq!(ours.is_some(), a.sqrt().is_some(), "{a}");
        if let Some(r) = ours {
            assert_eq!(r.square(), f2(a));
            squares += 1;
        }
    }
    // 101 squares by construction, and about half of the 200 random elements.
    assert!((160..245).contains(&squares), "{squares}");
}

/// `a / d` and `a mod d` for a small divisor.
fn div_small<const N: usize>(a: &[u64], d: u64) -> ([u64; N], u64) {
    let mut q = [0u64; N];
    let mut r = 0u128;
    for (q, w) in q.iter_mut().zip(a).rev() {
        let cur = (r << 64) | u128::from(*w);
        *q = (cur / u128::from(d)) as u64;
        r = cur % u128::from(d);
    }
    (q, r as u64)
}

/// ψ's constants by their definitions, with arkworks' Fp2 arithmetic: ψ(x, y) =
/// (x^p·(1 + u)^(−(p − 1)/3), y^p·(1 + u)^(−(p − 1)/2)), and ψ² = ψ∘ψ; on points of G2 and
/// of the whole curve E'(Fp2), ψ satisfies Frobenius's characteristic polynomial
/// ψ² − [t]ψ + [p] = 0 with the trace t = x + 1, and ψ(P) = [x]P exactly on G2.
#[test]
fn psi_is_the_untwisted_frobenius() {
    use crate::bls12_381::{G2Projective, psi, psi2};
    let p = ark::Fq::MODULUS;
    let mut p_minus_1 = p;
    p_minus_1.sub_with_borrow(&ark_ff::BigInt::from(1u64));
    let (third, r3) = div_small::<6>(&p_minus_1.0, 3);
    let (half, r2) = div_small::<6>(&p_minus_1.0, 2);
    assert_eq!((r3, r2), (0, 0));
    let xi = ark::Fq2::new(ark::Fq::from(1u64), ark::Fq::from(1u64));
    let cx = xi.pow(third).inverse().unwrap();
    let cy = xi.pow(half).inverse().unwrap();
    let by_definition = |q: &ark::G2Affine| {
        let (mut x, mut y) = (q.x, q.y);
        x.frobenius_map_in_place(1);
        y.frobenius_map_in_place(1);
        ark::G2Affine::new_unchecked(x * cx, y * cy)
    };
    // |t| = |x| − 1 (x and t negative).
    let t_abs = [<ark::Config as ark_ec::bls12::Bls12Config>::X[0] - 1];
    let (inside, outside) = g2_points(6);
    for q in inside.iter().chain(&outside) {
        let ours = psi(&g2(*q));
        assert!(same_g2(&ours, &by_definition(q)));
        assert!(ours.is_on_curve());
        let twice = psi2(&G2Projective::from(g2(*q))).into_affine();
        assert_eq!(twice, psi(&ours));
        // ψ²(P) + [|t|]ψ(P) + [p]P = O.
        let sum = G2Projective::from(twice) + ours.mul_bigint(t_abs) + g2(*q).mul_bigint(p);
        assert!(sum.is_zero());
    }
    // ψ(O) = O.
    assert!(psi(&G2Affine::identity()).is_zero());
}

/// A point of the curve whose order is a power of `q` (a prime factor of the cofactor h) other
/// than 1: [r·h/q^k]R, q^k the largest power of q dividing h, for points R of the whole curve
/// until one is not O (None if every one is).
fn torsion_point<P: AffineRepr>(q: u64, outside: &[P]) -> Option<P> {
    use ark_ec::{CurveConfig, PrimeGroup};
    let mut h = [0u64; 8];
    for (h, c) in h.iter_mut().zip(P::Config::COFACTOR) {
        *h = *c;
    }
    let mut divided = 0;
    loop {
        let (h_q, rem) = div_small::<8>(&h, q);
        if rem != 0 {
            break;
        }
        h = h_q;
        divided += 1;
    }
    assert!(divided > 0, "{q} divides the cofactor");
    let t = outside
        .iter()
        .map(|p| p.mul_bigint(h).mul_bigint(ark::Fr::MODULUS).into_affine())
        .find(|t| !t.is_zero())?;
    // Its order divides q^k.
    let mut qk = t;
    for _ in 0..divided {
        qk = qk.mul_bigint([q]).into_affine();
    }
    assert!(qk.is_zero());
    Some(t)
}

/// The subgroup checks against points of the curve that differ from a point of the subgroup
/// by a point of small order (a factor of the cofactor: 3 for G1, 13 and 23 for G2), the
/// points an attacker would try: each is refused, as the slow check refuses it.
#[test]
fn subgroup_checks_refuse_small_order_components() {
    let (inside, outside) = g1_points(8);
    let outside: Vec<G1Affine> = outside.into_iter().map(g1).collect();
    let t = torsion_point(3, &outside).unwrap();
    assert!(t.is_on_curve() && !slow_in_subgroup(&t));
    assert!(!t.is_in_correct_subgroup_assuming_on_curve());
    for p in inside {
        let q = (g1(p) + t).into_affine();
        assert!(q.is_on_curve() && !slow_in_subgroup(&q));
        assert!(!q.is_in_correct_subgroup_assuming_on_curve());
    }
    let (inside, outside) = g2_points(8);
    let outside: Vec<G2Affine> = outside.into_iter().map(g2).collect();
    let t13 = torsion_point(13, &outside).unwrap();
    let t23 = torsion_point(23, &outside).unwrap();
    let t299 = (t13 + t23).into_affine();
    for t in [t13, t23, t299] {
        assert!(t.is_on_curve() && !slow_in_subgroup(&t));
        assert!(!t.is_in_correct_subgroup_assuming_on_curve());
        for p in &inside {
            let q = (g2(*p) + t).into_affine();
            assert!(q.is_on_curve() && !slow_in_subgroup(&q));
            assert!(!q.is_in_correct_subgroup_assuming_on_curve());
            // Decoding refuses it too.
            assert!(g2_from_compressed(&g2_to_compressed(&q)).is_none());
        }
    }
}

/// `parity` (RFC 9380 §4.1's sgn0, used by the SSWU map's sign fix) on Fp2 elements with edge
/// coordinates: sgn0(c0 + c1·u) = (c0 mod 2) ∨ (c0 = 0 ∧ c1 mod 2), read from arkworks'
/// canonical integers.
#[test]
fn parity_is_rfc_9380_sgn0() {
    use ark_ec::hashing::curve_maps::parity;
    let one = ark::Fq::from(1u64);
    let mut half = ark::Fq::MODULUS;
    half.div2();
    let mut rng = ark_std::test_rng();
    let mut coords: Vec<ark::Fq> = vec![
        ark::Fq::zero(),
        one,
        ark::Fq::from(2u64),
        -one,
        -ark::Fq::from(2u64),
        ark::Fq::from_bigint(half).unwrap(),
        ark::Fq::from_bigint(half).unwrap() + one,
    ];
    coords.extend((0..6).map(|_| ark::Fq::rand(&mut rng)));
    let odd = |c: ark::Fq| c.into_bigint().is_odd();
    for c0 in &coords {
        for c1 in &coords {
            let rfc = odd(*c0) || (c0.is_zero() && odd(*c1));
            let x = f2(ark::Fq2::new(*c0, *c1));
            assert_eq!(parity(&x), rfc, "{c0} {c1}");
        }
    }
    // p − 1 is even: sgn0(−1) = 0, sgn0(1) = 1, sgn0(u) = 1, sgn0(−u) = 0, sgn0(0) = 0.
    let u = ark::Fq2::new(ark::Fq::zero(), one);
    assert!(!parity(&f2(-ark::Fq2::from(1u64))));
    assert!(parity(&f2(ark::Fq2::from(1u64))));
    assert!(parity(&f2(u)) && !parity(&f2(-u)));
    assert!(!parity(&f2(ark::Fq2::zero())));
}

/// Elements of G_Φ12: random Fp12 elements raised to (p⁶ − 1)(p² + 1), and 1.
fn cyclotomic_elements() -> Vec<crate::bls12_381::Fq12> {
    use crate::bls12_381::Fq12;

    let mut rng = ark_std::test_rng();
    let mut v = vec![Fq12::ONE];
    for _ in 0..6 {
        let f = Fq12::rand(&mut rng);
        let mut g = f;
        g.conjugate_in_place();
        g *= f.inverse().unwrap_or(Fq12::ONE);
        let g2 = g.frobenius_map(2);
        v.push(g * g2);
    }
    v
}

/// The fused Fp2 product equals arkworks' on edge and random coordinates (0, 1, p − 1,
/// (p − 1)/2 in either), and the fused cyclotomic squaring equals arkworks' Granger–Scott
/// squaring on elements of G_Φ12, over a run of squarings.
#[test]
fn fused_tower_operations_are_arkworks() {
    use ark_ff::{CyclotomicMultSubgroup, One};
    use lightprov_field_mont::bls12_381_tower::fq2_mul;

    use crate::bls12_381::{Fq, Fq2};

    let mut rng = ark_std::test_rng();
    let half = Fq::from(2u64).inverse().unwrap() - Fq::one(); // (p − 1)/2
    let mut coords = vec![Fq::zero(), Fq::one(), -Fq::one(), half];
    coords.extend((0..4).map(|_| Fq::rand(&mut rng)));
    let values: Vec<Fq2> = coords
        .iter()
        .flat_map(|a| coords.iter().map(|b| Fq2::new(*a, *b)))
        .collect();
    let words = |x: &Fq2| [x.c0.0.0, x.c1.0.0];
    for (i, a) in values.iter().enumerate() {
        for b in values.iter().skip(i % 7).step_by(7) {
            let want = *a * b;
            assert_eq!(fq2_mul(&words(a), &words(b)), words(&want), "{a} · {b}");
        }
    }
    for g in cyclotomic_elements() {
        let mut ours = g;
        for k in 0..8 {
            let want = ours.cyclotomic_square();
            ours = crate::bls12_381::cyclotomic_square(&ours);
            assert_eq!(ours, want, "square {k}");
        }
    }
}

/// The exponentiation by x (the fused squarings) equals arkworks' conjugated (x < 0), and the
/// final exponentiation arkworks' BLS12-381's, on elements of G_Φ12 and random ones (none for 0).
#[test]
fn exponentiations_are_arkworks() {
    use ark_ec::{
        bls12::Bls12Config,
        pairing::{MillerLoopOutput, Pairing},
    };
    use ark_ff::CyclotomicMultSubgroup;

    use crate::bls12_381::{Config, Fq12, exp_by_x, final_exponentiation};

    for g in cyclotomic_elements() {
        let mut want = g.cyclotomic_exp(<Config as Bls12Config>::X);
        want.cyclotomic_inverse_in_place();
        assert_eq!(exp_by_x(&g), want);
    }
    let back2 = |x: crate::bls12_381::Fq2| ark::Fq2::new(to_mont(x.c0), to_mont(x.c1));
    let back6 = |x: crate::bls12_381::Fq6| ark::Fq6::new(back2(x.c0), back2(x.c1), back2(x.c2));
    let back12 = |x: Fq12| ark::Fq12::new(back6(x.c0), back6(x.c1));
    let mut rng = ark_std::test_rng();
    for _ in 0..4 {
        let f = Fq12::rand(&mut rng);
        let theirs = ark::Bls12_381::final_exponentiation(MillerLoopOutput(back12(f)))
            .unwrap()
            .0;
        assert_eq!(final_exponentiation(&f).map(back12), Some(theirs));
    }
    assert!(final_exponentiation(&Fq12::zero()).is_none());
}

/// The fused Fp12 product, squaring, line product and inverse equal arkworks' (`*`, `square`,
/// `mul_by_014`, `inverse`) on random elements and elements with zero and p − 1 coordinates.
#[test]
fn fused_fp12_operations_are_arkworks() {
    use ark_ff::One;
    use lightprov_field_mont::bls12_381_tower::{fq12_mul, fq12_square, mul_by_014};

    use crate::bls12_381::{Fq, Fq2, Fq6, Fq12, fq12_from_words, fq12_words};

    let mut rng = ark_std::test_rng();
    let m1 = -Fq::one();
    let edge2 = [
        Fq2::zero(),
        Fq2::new(m1, m1),
        Fq2::new(Fq::zero(), m1),
        Fq2::one(),
    ];
    let mut values: Vec<Fq12> = (0..6).map(|_| Fq12::rand(&mut rng)).collect();
    for (i, e) in edge2.iter().enumerate() {
        let r = Fq2::rand(&mut rng);
        values.push(Fq12::new(
            Fq6::new(*e, r, *e),
            Fq6::new(edge2[(i + 1) % 4], *e, r),
        ));
    }
    let words = |x: &Fq2| [x.c0.0.0, x.c1.0.0];
    // The inverse, on elements with g or h zero too, and none for 0.
    let (z6, r6) = (Fq6::zero(), Fq6::rand(&mut rng));
    for a in values.iter().chain(&[Fq12::new(r6, z6), Fq12::new(z6, r6)]) {
        assert_eq!(crate::bls12_381::fq12_inverse(a), a.inverse());
    }
    assert_eq!(crate::bls12_381::fq12_inverse(&Fq12::zero()), None);
    for (i, a) in values.iter().enumerate() {
        let b = values[(i + 3) % values.len()];
        assert_eq!(
            fq12_from_words(&fq12_mul(&fq12_words(a), &fq12_words(&b))),
            *a * b
        );
        let mut sq = fq12_words(a);
        fq12_square(&mut sq);
        assert_eq!(fq12_from_words(&sq), a.square());
        let (c0, c1, c4) = (
            edge2[i % 4],
            Fq2::rand(&mut rng),
            if i % 3 == 0 {
                Fq2::new(m1, m1)
            } else {
                Fq2::rand(&mut rng)
            },
        );
        let mut want = *a;
        want.mul_by_014(&c0, &c1, &c4);
        let mut ours = fq12_words(a);
        mul_by_014(&mut ours, &words(&c0), &words(&c1), &words(&c4));
        assert_eq!(fq12_from_words(&ours), want);
    }
}

/// The Miller loops (the fused kernels, on prepared points and with the lines computed on the
/// fly) equal arkworks' BLS12-381 Miller loop, word for word, on 0 to 3 random pairs, pairs with
/// a point at infinity among them; the pairing check accepts and refuses as it should.
#[test]
fn miller_loop_is_arkworks() {
    use ark_ec::pairing::Pairing;

    use crate::bls12_381::Bls12_381;

    let back2 = |x: crate::bls12_381::Fq2| ark::Fq2::new(to_mont(x.c0), to_mont(x.c1));
    let back6 = |x: crate::bls12_381::Fq6| ark::Fq6::new(back2(x.c0), back2(x.c1), back2(x.c2));
    let back12 = |x: crate::bls12_381::Fq12| ark::Fq12::new(back6(x.c0), back6(x.c1));
    let mut rng = ark_std::test_rng();
    for n in 0..4 {
        let mut a: Vec<ark::G1Affine> = (0..n)
            .map(|_| (ark::G1Affine::generator() * ark::Fr::rand(&mut rng)).into_affine())
            .collect();
        let b: Vec<ark::G2Affine> = (0..n)
            .map(|_| (ark::G2Affine::generator() * ark::Fr::rand(&mut rng)).into_affine())
            .collect();
        if n == 3 {
            a[1] = ark::G1Affine::identity();
        }
        let ours = Bls12_381::multi_miller_loop(
            a.iter().map(|p| g1(*p)).collect::<Vec<_>>(),
            b.iter().map(|q| g2(*q)).collect::<Vec<_>>(),
        );
        let on_the_fly = crate::bls12_381::miller_loop_of_points(
            &a.iter().map(|p| g1(*p)).collect::<Vec<_>>(),
            &b.iter().map(|q| g2(*q)).collect::<Vec<_>>(),
        );
        let theirs = ark::Bls12_381::multi_miller_loop(a, b);
        assert_eq!(back12(ours.0), theirs.0, "{n} pairs");
        assert_eq!(back12(on_the_fly), theirs.0, "{n} pairs, lines on the fly");
    }
    // The generators, their negations, doubles and (r − 1) multiples (the steps' additions
    // meet R = ±Q-adjacent values along the loop), against arkworks.
    let (g, h) = (ark::G1Affine::generator(), ark::G2Affine::generator());
    let scalars = [
        ark::Fr::from(1u64),
        -ark::Fr::from(1u64),
        ark::Fr::from(2u64),
    ];
    for s1 in scalars {
        for s2 in scalars {
            let (p, q) = ((g * s1).into_affine(), (h * s2).into_affine());
            let ours = crate::bls12_381::miller_loop_of_points(&[g1(p)], &[g2(q)]);
            assert_eq!(back12(ours), ark::Bls12_381::multi_miller_loop([p], [q]).0);
        }
    }
    // The loop of prepared points fails closed: lists of different lengths, or a prepared point
    // short of a line, give 0, which has no final exponentiation.
    {
        use ark_ff::Zero;

        use crate::bls12_381::{Fq12, G2Affine};

        let p1 = g1(g);
        let short = Bls12_381::multi_miller_loop([p1, p1], [g2(h)]);
        assert!(short.0.is_zero() && Bls12_381::final_exponentiation(short).is_none());
        let mut prepared = ark_ec::bls12::G2Prepared::from(G2Affine::generator());
        prepared.ell_coeffs.pop();
        let cut = Bls12_381::multi_miller_loop([p1], [prepared]);
        assert_eq!(cut.0, Fq12::zero());
    }
    // The check the beacon verifier makes: e(P, Q)·e(−P, Q) = 1, e(P, Q)·e(P, Q) ≠ 1, and a
    // pair at infinity drops out.
    use crate::bls12_381::{G1Affine as P1, G2Affine as P2, pairing_product_is_one};
    let p = g1((ark::G1Affine::generator() * ark::Fr::rand(&mut rng)).into_affine());
    let q = g2((ark::G2Affine::generator() * ark::Fr::rand(&mut rng)).into_affine());
    assert!(pairing_product_is_one([p, -p], [q, q]));
    assert!(!pairing_product_is_one([p, p], [q, q]));
    assert!(pairing_product_is_one(
        [P1::identity(), p],
        [q, P2::identity()]
    ));
    assert!(!pairing_product_is_one([p, P1::identity()], [q, q]));
}

/// The sliding-window exponentiation equals arkworks' `pow` (exponents 0, 1, 2, 31, 32, 33,
/// runs of ones across words, (p − 3)/4 and random ones), and the Fp square root finds a root
/// exactly where arkworks' does (0, 1, p − 1, squares and non-squares).
#[test]
fn fp_exponentiation_and_square_root_are_arkworks() {
    use ark_ff::One;

    use crate::bls12_381::{Fq, fp_pow, fp_sqrt};

    let mut rng = ark_std::test_rng();
    let bases = [
        Fq::zero(),
        Fq::one(),
        -Fq::one(),
        Fq::rand(&mut rng),
        Fq::rand(&mut rng),
    ];
    let mut exps: Vec<Vec<u64>> = vec![
        vec![0],
        vec![1],
        vec![2],
        vec![31],
        vec![32],
        vec![33],
        vec![u64::MAX, u64::MAX],
        vec![0, 1 << 63],
        vec![0x1f, 0, 0x3e],
    ];
    let mut p_div_4 = <Fq as PrimeField>::MODULUS;
    p_div_4.div2();
    p_div_4.div2();
    exps.push(p_div_4.0.to_vec());
    exps.extend((0..4).map(|_| Fq::rand(&mut rng).into_bigint().0.to_vec()));
    for a in bases {
        for e in &exps {
            assert_eq!(fp_pow(&a, e), a.pow(e), "{a}^{e:?}");
        }
    }
    let mut values = vec![
        Fq::zero(),
        Fq::one(),
        -Fq::one(),
        Fq::from(2u64),
        Fq::from(4u64),
    ];
    values.extend((0..20).map(|_| Fq::rand(&mut rng)));
    values.extend((0..5).map(|_| Fq::rand(&mut rng).square()));
    for a in values {
        let ours = fp_sqrt(&a);
        assert_eq!(ours.is_some(), a.sqrt().is_some(), "{a}");
        if let Some(r) = ours {
            assert_eq!(r.square(), a);
        }
    }
}
