//! The pairing-friendly curve crates measured in wasm32 on what our verifiers spend their time in:
//! a base-field multiplication, an Fp12 multiplication, a pairing check `e(a, b) = e(c, d)` (one
//! multi-Miller loop of two pairs and one final exponentiation, the G2 points prepared inside),
//! hash to G2 with the Ethereum ciphersuite's tag (BLS12-381) and a G2 subgroup check.
//!
//! `run(op, n)` runs `op` `n` times and returns how many of its checks held (a pairing check on
//! valid points holds; a count below `n` is a wrong result, which the script refuses); JavaScript
//! times the call. Every input is made once, by `setup`, outside the timings.

mod mont;

use core::hint::black_box;
use std::sync::OnceLock;

use wasm_bindgen::prelude::*;

/// The Ethereum consensus ciphersuite's tag (proof of possession, signatures in G2).
const DST: &[u8] = b"BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";
/// A 32-byte message, as a signing root.
const MSG: [u8; 32] = [0x5a; 32];
/// The secret scalar of the pairing check's points.
const S: u64 = 0x1234_5678_9abc_def1;

/// zkcrypto's `bls12_381` (what the beacon module uses).
mod zk {
    use bls12_381::{
        G1Affine, G2Affine, G2Prepared, G2Projective, Gt, Scalar,
        hash_to_curve::{ExpandMsgXmd, HashToCurve},
        multi_miller_loop, pairing,
    };

    use super::{DST, MSG, S, black_box};

    pub(crate) struct Inputs {
        a: G1Affine,
        b: G2Affine,
        neg_c: G1Affine,
        d: G2Affine,
        gt1: Gt,
        gt2: Gt,
    }

    pub(crate) fn setup() -> Inputs {
        let s = Scalar::from(S);
        let a = G1Affine::from(G1Affine::generator() * s);
        let d = G2Affine::from(G2Affine::generator() * s);
        Inputs {
            a,
            b: G2Affine::generator(),
            neg_c: -G1Affine::generator(),
            d,
            gt1: pairing(&a, &G2Affine::generator()),
            gt2: pairing(&G1Affine::generator(), &d),
        }
    }

    pub(crate) fn pairing_check(i: &Inputs) -> bool {
        let b = G2Prepared::from(black_box(i.b));
        let d = G2Prepared::from(black_box(i.d));
        multi_miller_loop(&[(&i.a, &b), (&i.neg_c, &d)]).final_exponentiation() == Gt::identity()
    }

    pub(crate) fn fp12_mul(i: &Inputs, n: u32) -> bool {
        let mut x = i.gt1;
        for _ in 0..n {
            x = black_box(x + i.gt2);
        }
        x != Gt::identity()
    }

    pub(crate) fn hash_to_g2() -> bool {
        let p = <G2Projective as HashToCurve<ExpandMsgXmd<sha2::Sha256>>>::hash_to_curve(
            [black_box(&MSG[..])],
            DST,
        );
        bool::from(G2Affine::from(p).is_torsion_free())
    }

    pub(crate) fn g2_subgroup(i: &Inputs) -> bool {
        bool::from(black_box(i.d).is_torsion_free())
    }
}

/// arkworks' curves, one module per release (their APIs are the same).
macro_rules! arkworks {
    ($name:ident, $ec:ident, $ff:ident, $bls:ident, $bn:ident) => {
        mod $name {
            use $ec::{
                AffineRepr, CurveGroup,
                hashing::{
                    HashToCurve, curve_maps::wb::WBMap, map_to_curve_hasher::MapToCurveBasedHasher,
                },
                pairing::Pairing,
            };
            use $ff::{Field, One, Zero, field_hashers::DefaultFieldHasher};

            use super::{DST, MSG, S, black_box};

            pub(crate) struct Inputs<E: Pairing> {
                fq: E::BaseField,
                a: E::G1Affine,
                b: E::G2Affine,
                neg_c: E::G1Affine,
                d: E::G2Affine,
                gt1: E::TargetField,
                gt2: E::TargetField,
            }

            pub(crate) fn setup<E: Pairing>() -> Inputs<E> {
                let s = E::ScalarField::from(S);
                let a = (E::G1Affine::generator() * s).into_affine();
                let d = (E::G2Affine::generator() * s).into_affine();
                let mut fq = -E::BaseField::from(7u64);
                for _ in 0..5 {
                    fq = fq.square() + E::BaseField::from(3u64);
                }
                Inputs {
                    fq,
                    a,
                    b: E::G2Affine::generator(),
                    neg_c: (E::G1Affine::generator() * -E::ScalarField::one()).into_affine(),
                    d,
                    gt1: E::pairing(a, E::G2Affine::generator()).0,
                    gt2: E::pairing(E::G1Affine::generator(), d).0,
                }
            }

            #[allow(dead_code)]
            pub(crate) fn fq<E: Pairing>(i: &Inputs<E>) -> E::BaseField {
                i.fq
            }

            pub(crate) fn fp_mul<E: Pairing>(i: &Inputs<E>, n: u32) -> bool {
                let mut x = i.fq;
                for _ in 0..n {
                    x = black_box(x * i.fq);
                }
                !x.is_zero()
            }

            pub(crate) fn fp12_mul<E: Pairing>(i: &Inputs<E>, n: u32) -> bool {
                let mut x = i.gt1;
                for _ in 0..n {
                    x = black_box(x * i.gt2);
                }
                !x.is_zero()
            }

            pub(crate) fn pairing_check<E: Pairing>(i: &Inputs<E>) -> bool {
                E::multi_pairing([i.a, i.neg_c], [black_box(i.b), black_box(i.d)])
                    .0
                    .is_one()
            }

            pub(crate) fn g2_subgroup_bls(i: &Inputs<Bls>) -> bool {
                black_box(i.d).is_in_correct_subgroup_assuming_on_curve()
            }

            pub(crate) fn g2_subgroup_bn(i: &Inputs<Bn>) -> bool {
                black_box(i.d).is_in_correct_subgroup_assuming_on_curve()
            }

            pub(crate) type Bls = $bls::Bls12_381;
            pub(crate) type Bn = $bn::Bn254;

            pub(crate) fn hash_to_g2() -> bool {
                let hasher = MapToCurveBasedHasher::<
                    $bls::G2Projective,
                    DefaultFieldHasher<sha2::Sha256, 128>,
                    WBMap<$bls::g2::Config>,
                >::new(DST);
                match hasher.and_then(|h| h.hash(black_box(&MSG[..]))) {
                    Ok(p) => p.is_in_correct_subgroup_assuming_on_curve(),
                    Err(_) => false,
                }
            }
        }
    };
}

arkworks!(ark05, ark05_ec, ark05_ff, ark05_bls12_381, ark05_bn254);
arkworks!(ark06, ark06_ec, ark06_ff, ark06_bls12_381, ark06_bn254);

/// parity's `substrate-bn` (BN254).
mod sbn {
    use substrate_bn::{AffineG2, Fq, Fr, G1, G2, Group, Gt, pairing_batch};

    use super::{S, black_box};

    pub(crate) struct Inputs {
        fq: Fq,
        a: G1,
        b: G2,
        neg_c: G1,
        d: G2,
        d_affine: AffineG2,
        gt1: Gt,
        gt2: Gt,
    }

    pub(crate) fn setup() -> Inputs {
        let s = Fr::from_str(&S.to_string()).unwrap_or_else(Fr::one);
        let a = G1::one() * s;
        let d = G2::one() * s;
        let mut fq = -Fq::from_str("7").unwrap_or_else(Fq::one);
        for _ in 0..5 {
            fq = fq * fq + Fq::one();
        }
        Inputs {
            fq,
            a,
            b: G2::one(),
            neg_c: -G1::one(),
            d,
            d_affine: AffineG2::from_jacobian(d).unwrap_or_else(|| {
                AffineG2::from_jacobian(G2::one()).unwrap_or_else(|| unreachable!())
            }),
            gt1: substrate_bn::pairing(a, G2::one()),
            gt2: substrate_bn::pairing(G1::one(), d),
        }
    }

    pub(crate) fn fp_mul(i: &Inputs, n: u32) -> bool {
        let mut x = i.fq;
        for _ in 0..n {
            x = black_box(x * i.fq);
        }
        !x.is_zero()
    }

    pub(crate) fn fp12_mul(i: &Inputs, n: u32) -> bool {
        let mut x = i.gt1;
        for _ in 0..n {
            x = black_box(x * i.gt2);
        }
        x != Gt::one()
    }

    pub(crate) fn pairing_check(i: &Inputs) -> bool {
        pairing_batch(&[(i.a, black_box(i.b)), (i.neg_c, black_box(i.d))]) == Gt::one()
    }

    /// `AffineG2::new` checks the point is on the curve and of the group's order.
    pub(crate) fn g2_subgroup(i: &Inputs) -> bool {
        let p = black_box(i.d_affine);
        AffineG2::new(p.x(), p.y()).is_ok()
    }
}

/// `blst` (C, built for wasm32 without assembly): a reference point.
#[cfg(feature = "blst")]
#[allow(unsafe_code)]
mod blst_ref {
    use blst::*;

    use super::{DST, MSG, S, black_box};

    pub(crate) struct Inputs {
        fp: blst_fp,
        a: blst_p1_affine,
        b: blst_p2_affine,
        neg_c: blst_p1_affine,
        d: blst_p2_affine,
        gt1: blst_fp12,
        gt2: blst_fp12,
    }

    pub(crate) fn setup() -> Inputs {
        let scalar = S.to_le_bytes();
        // SAFETY: every pointer is to a live, initialised value of the type blst expects.
        unsafe {
            let mut p1 = blst_p1::default();
            blst_p1_mult(&mut p1, blst_p1_generator(), scalar.as_ptr(), 64);
            let mut a = blst_p1_affine::default();
            blst_p1_to_affine(&mut a, &p1);
            let mut g1 = *blst_p1_generator();
            blst_p1_cneg(&mut g1, true);
            let mut neg_c = blst_p1_affine::default();
            blst_p1_to_affine(&mut neg_c, &g1);
            let mut p2 = blst_p2::default();
            blst_p2_mult(&mut p2, blst_p2_generator(), scalar.as_ptr(), 64);
            let mut d = blst_p2_affine::default();
            blst_p2_to_affine(&mut d, &p2);
            let mut b = blst_p2_affine::default();
            blst_p2_to_affine(&mut b, blst_p2_generator());
            let mut g1a = blst_p1_affine::default();
            blst_p1_to_affine(&mut g1a, blst_p1_generator());
            let (mut gt1, mut gt2) = (blst_fp12::default(), blst_fp12::default());
            blst_miller_loop(&mut gt1, &b, &a);
            blst_final_exp(&mut gt1, &gt1);
            blst_miller_loop(&mut gt2, &d, &g1a);
            blst_final_exp(&mut gt2, &gt2);
            let mut fp = blst_fp::default();
            let limbs = [S, S.rotate_left(17), 3, 5, 7, 11];
            blst_fp_from_uint64(&mut fp, limbs.as_ptr());
            Inputs {
                fp,
                a,
                b,
                neg_c,
                d,
                gt1,
                gt2,
            }
        }
    }

    pub(crate) fn fp_mul(i: &Inputs, n: u32) -> bool {
        let mut x = i.fp;
        for _ in 0..n {
            // SAFETY: as in `setup`.
            unsafe { blst_fp_mul(&mut x, &x, &i.fp) };
            x = black_box(x);
        }
        x != blst_fp::default()
    }

    pub(crate) fn fp12_mul(i: &Inputs, n: u32) -> bool {
        let mut x = i.gt1;
        for _ in 0..n {
            // SAFETY: as in `setup`.
            unsafe { blst_fp12_mul(&mut x, &x, &i.gt2) };
            x = black_box(x);
        }
        // SAFETY: as in `setup`.
        unsafe { !blst_fp12_is_one(&x) }
    }

    /// One Miller loop over both pairs (`blst_miller_loop_n`), one final exponentiation.
    pub(crate) fn pairing_check(i: &Inputs) -> bool {
        let qs = [
            &black_box(i.b) as *const blst_p2_affine,
            &black_box(i.d) as *const _,
        ];
        let ps = [&i.a as *const blst_p1_affine, &i.neg_c as *const _];
        let mut r = blst_fp12::default();
        // SAFETY: as in `setup`; two points in each array.
        unsafe {
            blst_miller_loop_n(&mut r, qs.as_ptr(), ps.as_ptr(), 2);
            blst_final_exp(&mut r, &r);
            blst_fp12_is_one(&r)
        }
    }

    pub(crate) fn hash_to_g2() -> bool {
        let msg = black_box(MSG);
        let mut p = blst_p2::default();
        let mut a = blst_p2_affine::default();
        // SAFETY: as in `setup`; the lengths are the slices'.
        unsafe {
            blst_hash_to_g2(
                &mut p,
                msg.as_ptr(),
                msg.len(),
                DST.as_ptr(),
                DST.len(),
                core::ptr::null(),
                0,
            );
            blst_p2_to_affine(&mut a, &p);
            blst_p2_affine_in_g2(&a)
        }
    }

    pub(crate) fn g2_subgroup(i: &Inputs) -> bool {
        // SAFETY: as in `setup`.
        unsafe { blst_p2_affine_in_g2(&black_box(i.d)) }
    }
}

struct All {
    zk: zk::Inputs,
    ark05_bls: ark05::Inputs<ark05::Bls>,
    ark05_bn: ark05::Inputs<ark05::Bn>,
    ark06_bls: ark06::Inputs<ark06::Bls>,
    ark06_bn: ark06::Inputs<ark06::Bn>,
    sbn: sbn::Inputs,
    ours_bls: ark05::Inputs<lightprov_field::bls12_381::Bls12_381>,
    ours_bn: ark05::Inputs<lightprov_field::bn254::Bn254>,
    #[cfg(feature = "blst")]
    blst: blst_ref::Inputs,
}

static INPUTS: OnceLock<All> = OnceLock::new();

fn inputs() -> &'static All {
    INPUTS.get_or_init(|| All {
        zk: zk::setup(),
        ark05_bls: ark05::setup(),
        ark05_bn: ark05::setup(),
        ark06_bls: ark06::setup(),
        ark06_bn: ark06::setup(),
        sbn: sbn::setup(),
        ours_bls: ark05::setup(),
        ours_bn: ark05::setup(),
        #[cfg(feature = "blst")]
        blst: blst_ref::setup(),
    })
}

/// Makes every input (untimed).
#[wasm_bindgen]
pub fn setup() {
    inputs();
}

/// `curve crate op` for every operation `run` knows, one a line. The multiplications are timed
/// `n` at a time in one call (`*_mul`), the rest one per call.
#[wasm_bindgen]
pub fn ops() -> String {
    let mut ops = alloc_ops();
    if cfg!(feature = "blst") {
        ops.extend(
            [
                "fp_mul",
                "fp12_mul",
                "pairing_check",
                "hash_to_g2",
                "g2_subgroup",
            ]
            .map(|op| format!("bls12-381 blst {op}")),
        );
    }
    ops.join("\n")
}

fn alloc_ops() -> Vec<String> {
    let mut ops: Vec<String> = ["fp12_mul", "pairing_check", "hash_to_g2", "g2_subgroup"]
        .map(|op| format!("bls12-381 zkcrypto {op}"))
        .into();
    for v in ["ark05", "ark06"] {
        for op in [
            "fp_mul",
            "fp12_mul",
            "pairing_check",
            "hash_to_g2",
            "g2_subgroup",
        ] {
            ops.push(format!("bls12-381 {v} {op}"));
        }
        for op in ["fp_mul", "fp12_mul", "pairing_check", "g2_subgroup"] {
            ops.push(format!("bn254 {v} {op}"));
        }
    }
    for op in ["fp_mul", "fp12_mul", "pairing_check", "g2_subgroup"] {
        ops.push(format!("bn254 substrate-bn {op}"));
    }
    // Ours: arkworks' generic BLS12-381 on the wasm32 backend (crates/field).
    for curve in ["bls12-381", "bn254"] {
        ops.extend(["fp_mul", "fp12_mul", "pairing_check"].map(|op| format!("{curve} ours {op}")));
    }
    // The prototypes of a wasm32-minded multiplication (src/mont.rs).
    ops.extend(
        [
            "bls12-381 mont32 fp_mul",
            "bls12-381 mont24 fp_mul",
            "bn254 mont32 fp_mul",
        ]
        .map(String::from),
    );
    ops
}

/// `n` multiplications in a chain from `y`; whether the result is not zero.
fn proto_chain<const W: usize>(mul: impl Fn(&[u64; W]) -> [u64; W], y: [u64; W], n: u32) -> bool {
    let mut x = y;
    for _ in 0..n {
        x = black_box(mul(&x));
    }
    x != [0; W]
}

/// Runs `op` (one line of [`ops`]) `n` times; how many of its checks held.
#[wasm_bindgen]
pub fn run(op: &str, n: u32) -> Result<u32, JsValue> {
    let i = inputs();
    // A multiplication chain is one check of `n` multiplications.
    let chain = |ok: bool| Ok(if ok { n } else { 0 });
    let each = |f: &dyn Fn() -> bool| Ok((0..n).filter(|_| f()).count() as u32);
    match op {
        "bls12-381 zkcrypto fp12_mul" => chain(zk::fp12_mul(&i.zk, n)),
        "bls12-381 zkcrypto pairing_check" => each(&|| zk::pairing_check(&i.zk)),
        "bls12-381 zkcrypto hash_to_g2" => each(&zk::hash_to_g2),
        "bls12-381 zkcrypto g2_subgroup" => each(&|| zk::g2_subgroup(&i.zk)),
        "bls12-381 ark05 fp_mul" => chain(ark05::fp_mul(&i.ark05_bls, n)),
        "bls12-381 ark05 fp12_mul" => chain(ark05::fp12_mul(&i.ark05_bls, n)),
        "bls12-381 ark05 pairing_check" => each(&|| ark05::pairing_check(&i.ark05_bls)),
        "bls12-381 ark05 hash_to_g2" => each(&ark05::hash_to_g2),
        "bls12-381 ark05 g2_subgroup" => each(&|| ark05::g2_subgroup_bls(&i.ark05_bls)),
        "bn254 ark05 fp_mul" => chain(ark05::fp_mul(&i.ark05_bn, n)),
        "bn254 ark05 fp12_mul" => chain(ark05::fp12_mul(&i.ark05_bn, n)),
        "bn254 ark05 pairing_check" => each(&|| ark05::pairing_check(&i.ark05_bn)),
        "bn254 ark05 g2_subgroup" => each(&|| ark05::g2_subgroup_bn(&i.ark05_bn)),
        "bls12-381 ark06 fp_mul" => chain(ark06::fp_mul(&i.ark06_bls, n)),
        "bls12-381 ark06 fp12_mul" => chain(ark06::fp12_mul(&i.ark06_bls, n)),
        "bls12-381 ark06 pairing_check" => each(&|| ark06::pairing_check(&i.ark06_bls)),
        "bls12-381 ark06 hash_to_g2" => each(&ark06::hash_to_g2),
        "bls12-381 ark06 g2_subgroup" => each(&|| ark06::g2_subgroup_bls(&i.ark06_bls)),
        "bn254 ark06 fp_mul" => chain(ark06::fp_mul(&i.ark06_bn, n)),
        "bn254 ark06 fp12_mul" => chain(ark06::fp12_mul(&i.ark06_bn, n)),
        "bn254 ark06 pairing_check" => each(&|| ark06::pairing_check(&i.ark06_bn)),
        "bn254 ark06 g2_subgroup" => each(&|| ark06::g2_subgroup_bn(&i.ark06_bn)),
        "bn254 substrate-bn fp_mul" => chain(sbn::fp_mul(&i.sbn, n)),
        "bn254 substrate-bn fp12_mul" => chain(sbn::fp12_mul(&i.sbn, n)),
        "bn254 substrate-bn pairing_check" => each(&|| sbn::pairing_check(&i.sbn)),
        "bn254 substrate-bn g2_subgroup" => each(&|| sbn::g2_subgroup(&i.sbn)),
        #[cfg(feature = "blst")]
        "bls12-381 blst fp_mul" => chain(blst_ref::fp_mul(&i.blst, n)),
        #[cfg(feature = "blst")]
        "bls12-381 blst fp12_mul" => chain(blst_ref::fp12_mul(&i.blst, n)),
        #[cfg(feature = "blst")]
        "bls12-381 blst pairing_check" => each(&|| blst_ref::pairing_check(&i.blst)),
        #[cfg(feature = "blst")]
        "bls12-381 blst hash_to_g2" => each(&blst_ref::hash_to_g2),
        #[cfg(feature = "blst")]
        "bls12-381 blst g2_subgroup" => each(&|| blst_ref::g2_subgroup(&i.blst)),
        "bls12-381 ours fp_mul" => chain(ark05::fp_mul(&i.ours_bls, n)),
        "bls12-381 ours fp12_mul" => chain(ark05::fp12_mul(&i.ours_bls, n)),
        "bls12-381 ours pairing_check" => each(&|| ark05::pairing_check(&i.ours_bls)),
        "bn254 ours fp_mul" => chain(ark05::fp_mul(&i.ours_bn, n)),
        "bn254 ours fp12_mul" => chain(ark05::fp12_mul(&i.ours_bn, n)),
        "bn254 ours pairing_check" => each(&|| ark05::pairing_check(&i.ours_bn)),
        "bls12-381 mont32 fp_mul" => {
            let m =
                mont::Mont32::<6>::new(<ark05_bls12_381::Fq as ark05_ff::PrimeField>::MODULUS.0);
            let y = ark05::fq(&i.ark05_bls).0.0;
            chain(proto_chain(|x| m.mul(x, &y), y, n))
        }
        "bls12-381 mont24 fp_mul" => {
            let m = mont::Mont24::new(<ark05_bls12_381::Fq as ark05_ff::PrimeField>::MODULUS.0);
            let y = ark05::fq(&i.ark05_bls).0.0;
            chain(proto_chain(|x| m.mul(x, &y), y, n))
        }
        "bn254 mont32 fp_mul" => {
            let m = mont::Mont32::<4>::new(<ark05_bn254::Fq as ark05_ff::PrimeField>::MODULUS.0);
            let y = ark05::fq(&i.ark05_bn).0.0;
            chain(proto_chain(|x| m.mul(x, &y), y, n))
        }
        _ => Err(JsValue::from_str(&format!("unknown op {op}"))),
    }
}
