//! BLS12-381 on the wasm32 backend: the tower Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − (u + 1)),
//! Fp12 = Fp6[w]/(w² − v), the groups G1: y² = x³ + 4 over Fp and G2: y² = x³ + 4(u + 1) over
//! Fp2 (an M-twist), and the optimal ate pairing with the curve parameter
//! x = −0xd201000000010000 (the definitions of the IETF pairing-friendly curves draft and
//! EIP-2537). The Miller loop and the final exponentiation are arkworks' `Bls12` generics.
//!
//! The constants — the modulus and its Montgomery constants, the Frobenius coefficients, the
//! generators, the cofactors — are `ark-bls12-381`'s own, taken through its public items. G2
//! subgroup checks and cofactor clearing are still the generic ones here (a multiplication by
//! the group order): the endomorphism tests come next.

use ark_bls12_381 as ark;
use ark_ec::bls12::{Bls12, Bls12Config, TwistType};

crate::tower::tower_and_groups!(ark, 6, |fe: &mut Fq2| {
    // ξ = 1 + u: (c0 + c1·u)(1 + u) = (c0 − c1) + (c0 + c1)·u.
    let c0 = fe.c0;
    fe.c0 -= fe.c1;
    fe.c1 += c0;
});

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
}

/// Whether e(a₀, b₀)·e(a₁, b₁) = 1: one multi-Miller loop and one final exponentiation. (A
/// function of this crate, so that the pairing is compiled with this crate's optimisation
/// settings wherever it is called.)
pub fn pairing_product_is_one(a: [G1Affine; 2], b: [G2Affine; 2]) -> bool {
    use ark_ec::pairing::Pairing;
    use ark_ff::One;
    Bls12_381::multi_pairing(a, b).0.is_one()
}
