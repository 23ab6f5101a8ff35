//! BN254 (alt_bn128, the curve of Ethereum's pairing precompile, EIP-197) on the wasm32
//! backend: the tower Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − (9 + u)), Fp12 = Fp6[w]/(w² − v),
//! G1: y² = x³ + 3 over Fp, G2: y² = x³ + 3/(9 + u) over Fp2 (a D-twist), and the optimal ate
//! pairing (arkworks' `Bn` generics). The constants are `ark-bn254`'s own, taken through its
//! public items; G2 subgroup checks are still the generic ones here.

use ark_bn254 as ark;
use ark_ec::bn::{Bn, BnConfig, TwistType};

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
    {},
    {}
);

pub type G1Affine = ark_ec::bn::G1Affine<Config>;
pub type G1Projective = ark_ec::bn::G1Projective<Config>;
pub type G2Affine = ark_ec::bn::G2Affine<Config>;
pub type G2Projective = ark_ec::bn::G2Projective<Config>;
/// The pairing.
pub type Bn254 = Bn<Config>;

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
