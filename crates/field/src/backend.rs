//! [`Wasm32Backend`]: an `ark_ff::FpConfig` whose multiplication and squaring run on 32-bit limbs.
//!
//! wasm32 has a 64×64→64-bit multiplication (`i64.mul`) but none that gives the high half of a
//! 128-bit product: zkcrypto's `bls12_381` calls the compiler runtime's `__multi3` for every limb
//! product, and arkworks splits each 64-bit product into four 32-bit ones and recombines them
//! through 128-bit additions. Here a field element is split into 32-bit limbs, each limb product
//! is one `i64.mul`, and the Montgomery multiplication is the coarsely integrated operand scanning
//! form (Koç, Acar and Kaliski, "Analyzing and comparing Montgomery multiplication algorithms",
//! 1996) with one carry per product.
//!
//! The element stays in arkworks' form — `N` 64-bit words holding `a·R mod p`, fully reduced,
//! with R = 2^(64N) = 2^(32·2N) — so the 32-bit limbs give the same R and every value is
//! bit-identical to the one `MontBackend` computes: addition, subtraction, negation, inversion,
//! square roots, encoding and decoding are `MontBackend`'s own, on the same words.

use core::marker::PhantomData;

use ark_ff::{BigInt, Fp, FpConfig, MontBackend, MontConfig, SqrtPrecomputation};

/// The wasm32 backend of the field of `T`'s modulus (`N` 64-bit words, N ≤ 6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wasm32Backend<T, const N: usize>(PhantomData<T>);

/// An element of `T`'s field on arkworks' backend.
type Mont<T, const N: usize> = Fp<MontBackend<T, N>, N>;
/// An element of `T`'s field on this backend.
type Ours<T, const N: usize> = Fp<Wasm32Backend<T, N>, N>;

/// The same element on this backend (the words are the same).
pub const fn from_mont<T: MontConfig<N>, const N: usize>(x: Mont<T, N>) -> Ours<T, N> {
    Fp(x.0, PhantomData)
}

/// The same element on arkworks' backend.
pub const fn to_mont<T: MontConfig<N>, const N: usize>(x: Ours<T, N>) -> Mont<T, N> {
    Fp(x.0, PhantomData)
}

const fn sqrt_precomp<T: MontConfig<N>, const N: usize>(
    p: Option<SqrtPrecomputation<Mont<T, N>>>,
) -> Option<SqrtPrecomputation<Ours<T, N>>> {
    match p {
        None => None,
        Some(SqrtPrecomputation::Case3Mod4 {
            modulus_plus_one_div_four,
        }) => Some(SqrtPrecomputation::Case3Mod4 {
            modulus_plus_one_div_four,
        }),
        Some(SqrtPrecomputation::TonelliShanks {
            two_adicity,
            quadratic_nonresidue_to_trace,
            trace_of_modulus_minus_one_div_two,
        }) => Some(SqrtPrecomputation::TonelliShanks {
            two_adicity,
            quadratic_nonresidue_to_trace: from_mont(quadratic_nonresidue_to_trace),
            trace_of_modulus_minus_one_div_two,
        }),
        // A kind arkworks may add later: no square roots (the tests compare them).
        Some(_) => None,
    }
}

/// Limbs of 32 bits: at most 12 (N ≤ 6), and two more words of the CIOS accumulator.
const MAX_LIMBS: usize = 12;
/// The most products `sum_of_products` sums before one reduction.
const MAX_TERMS: usize = 8;

/// Limb `i` (little-endian) of `x`, as a 64-bit word.
#[inline(always)]
fn limb<const N: usize>(x: &[u64; N], i: usize) -> u64 {
    // The index is below 2N: the callers' loops run to 2N.
    #[allow(clippy::indexing_slicing)]
    let w = x[i / 2];
    (w >> (32 * (i % 2))) & 0xffff_ffff
}

/// `a·b·2^(-64N) mod p` for `a, b < p` (`p` odd, under 2^(64N-1)), fully reduced; `inv` is
/// `-p^-1 mod 2^32`: [`mont_sum`] of one product.
#[inline]
pub(crate) fn mont_mul<const N: usize>(
    a: &[u64; N],
    b: &[u64; N],
    p: &[u64; N],
    inv: u64,
) -> [u64; N] {
    mont_sum(core::iter::once((a, b)), p, inv)
}

/// `Σ a_k·b_k·2^(-64N) mod p` for the pairs `terms` (values under p; at most
/// [`terms_per_reduction`] of them, `p` odd), fully reduced; `inv` is `-p^-1 mod 2^32`.
///
/// Coarsely integrated operand scanning (Koç, Acar and Kaliski, 1996) over 2N limbs of 32 bits,
/// every product's row added in each round and then one Montgomery step: every sum
/// `t + x·y + carry` is at most `(2^32-1) + (2^32-1)^2 + (2^32-1) < 2^64`, so one 64-bit word
/// holds it. The running value stays under (k + 1)·p·2^(32·2N) for k products, so it fits the
/// two extra words, and the result is under (k·p/2^(64N) + 1)·p < 2p: one conditional
/// subtraction reduces it fully.
#[inline]
// The accumulator and limb indices are bounded by the loops (2N + 2 ≤ 14 words).
#[allow(clippy::indexing_slicing)]
pub(crate) fn mont_sum<'a, const N: usize>(
    terms: impl Iterator<Item = (&'a [u64; N], &'a [u64; N])> + Clone,
    p: &[u64; N],
    inv: u64,
) -> [u64; N] {
    let n = 2 * N;
    let mut t = [0u64; MAX_LIMBS + 2];
    for i in 0..n {
        for (a, b) in terms.clone() {
            let ai = limb(a, i);
            let mut c = 0u64;
            for (j, tj) in t.iter_mut().enumerate().take(n) {
                let s = *tj + ai * limb(b, j) + c;
                *tj = s & MASK;
                c = s >> 32;
            }
            let s = t[n] + c;
            t[n] = s & MASK;
            t[n + 1] += s >> 32;
        }
        let m = t[0].wrapping_mul(inv) & MASK;
        let s = t[0] + m * limb(p, 0);
        let mut c = s >> 32;
        for j in 1..n {
            let s = t[j] + m * limb(p, j) + c;
            t[j - 1] = s & MASK;
            c = s >> 32;
        }
        let s = t[n] + c;
        t[n - 1] = s & MASK;
        t[n] = t[n + 1] + (s >> 32);
        t[n + 1] = 0;
    }
    let mut r = [0u64; N];
    for (i, w) in r.iter_mut().enumerate() {
        *w = t[2 * i] | (t[2 * i + 1] << 32);
    }
    if t[n] != 0 || !less(&r, p) {
        sub_in_place(&mut r, p);
    }
    r
}

const MASK: u64 = 0xffff_ffff;

/// How many products may be summed before one reduction for the modulus `p`: k products with
/// k·p < 2^(64N), which `2^64 / (p's top word + 1)` products satisfy (9 for BLS12-381, 5 for
/// BN254).
// N ≥ 1 (a modulus has a word): the index is in bounds, checked at compile time.
#[allow(clippy::indexing_slicing)]
const fn terms_per_reduction<const N: usize>(p: &[u64; N]) -> usize {
    let top = p[N - 1];
    (u64::MAX / (top + 1)) as usize
}

/// Whether `a < b` (little-endian words).
#[inline(always)]
fn less<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    for (x, y) in a.iter().zip(b.iter()).rev() {
        if x != y {
            return x < y;
        }
    }
    false
}

/// `a -= b` (little-endian words, `a ≥ b` as integers once `a`'s lost top carry is counted).
#[inline(always)]
fn sub_in_place<const N: usize>(a: &mut [u64; N], b: &[u64; N]) {
    let mut borrow = false;
    for (x, y) in a.iter_mut().zip(b.iter()) {
        let (d, b1) = x.overflowing_sub(*y);
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        *x = d;
        borrow = b1 | b2;
    }
}

impl<T: MontConfig<N>, const N: usize> Wasm32Backend<T, N> {
    /// `-p^-1 mod 2^32`: arkworks' `-p^-1 mod 2^64` reduced.
    const INV32: u64 = T::INV & 0xffff_ffff;
    /// The CIOS accumulator holds 2N + 2 limbs of 32 bits: N ≤ 6 (a compile-time error else).
    const LIMBS_FIT: () = assert!(N <= MAX_LIMBS / 2, "at most 6 words");
    /// Products per reduction in `sum_of_products` (at least 1: p < 2^(64N-1)).
    const TERMS: usize = {
        let k = terms_per_reduction(&T::MODULUS.0);
        let k = if k > MAX_TERMS { MAX_TERMS } else { k };
        assert!(k >= 1, "the modulus's top bit must be clear");
        k
    };

    /// Runs `f` on `a` as arkworks' element, keeping the result's words.
    #[inline(always)]
    fn via_mont(a: &mut Ours<T, N>, f: impl FnOnce(&mut Mont<T, N>)) {
        let mut m = to_mont(*a);
        f(&mut m);
        *a = from_mont(m);
    }
}

impl<T: MontConfig<N>, const N: usize> FpConfig<N> for Wasm32Backend<T, N> {
    const MODULUS: BigInt<N> = T::MODULUS;
    const GENERATOR: Ours<T, N> = from_mont(T::GENERATOR);
    const ZERO: Ours<T, N> = from_mont(<MontBackend<T, N> as FpConfig<N>>::ZERO);
    const ONE: Ours<T, N> = from_mont(<MontBackend<T, N> as FpConfig<N>>::ONE);
    const TWO_ADICITY: u32 = <MontBackend<T, N> as FpConfig<N>>::TWO_ADICITY;
    const TWO_ADIC_ROOT_OF_UNITY: Ours<T, N> =
        from_mont(<MontBackend<T, N> as FpConfig<N>>::TWO_ADIC_ROOT_OF_UNITY);
    const SMALL_SUBGROUP_BASE: Option<u32> = T::SMALL_SUBGROUP_BASE;
    const SMALL_SUBGROUP_BASE_ADICITY: Option<u32> = T::SMALL_SUBGROUP_BASE_ADICITY;
    const LARGE_SUBGROUP_ROOT_OF_UNITY: Option<Ours<T, N>> =
        match <MontBackend<T, N> as FpConfig<N>>::LARGE_SUBGROUP_ROOT_OF_UNITY {
            Some(r) => Some(from_mont(r)),
            None => None,
        };
    const SQRT_PRECOMP: Option<SqrtPrecomputation<Ours<T, N>>> =
        sqrt_precomp(<MontBackend<T, N> as FpConfig<N>>::SQRT_PRECOMP);

    #[inline(always)]
    fn add_assign(a: &mut Ours<T, N>, b: &Ours<T, N>) {
        Self::via_mont(a, |m| MontBackend::<T, N>::add_assign(m, &to_mont(*b)));
    }

    #[inline(always)]
    fn sub_assign(a: &mut Ours<T, N>, b: &Ours<T, N>) {
        Self::via_mont(a, |m| MontBackend::<T, N>::sub_assign(m, &to_mont(*b)));
    }

    #[inline(always)]
    fn double_in_place(a: &mut Ours<T, N>) {
        Self::via_mont(a, MontBackend::<T, N>::double_in_place);
    }

    #[inline(always)]
    fn neg_in_place(a: &mut Ours<T, N>) {
        Self::via_mont(a, MontBackend::<T, N>::neg_in_place);
    }

    // One copy per field, called rather than inlined into every tower and curve function (with
    // decoding on this backend, the beacon module went from 94.6 to 87.4 kB gzip at no cost in
    // time: docs/benchmarks.md).
    #[inline(never)]
    fn mul_assign(a: &mut Ours<T, N>, b: &Ours<T, N>) {
        let () = Self::LIMBS_FIT;
        a.0 = BigInt(mont_mul(&a.0.0, &b.0.0, &T::MODULUS.0, Self::INV32));
    }

    #[inline(never)]
    fn sum_of_products<const M: usize>(a: &[Ours<T, N>; M], b: &[Ours<T, N>; M]) -> Ours<T, N> {
        let () = Self::LIMBS_FIT;
        // As many products as one reduction takes at a time; the reduced parts added.
        let mut sum: Option<Ours<T, N>> = None;
        for (xs, ys) in a.chunks(Self::TERMS).zip(b.chunks(Self::TERMS)) {
            let part = Fp(
                BigInt(mont_sum(
                    xs.iter().zip(ys).map(|(x, y)| (&x.0.0, &y.0.0)),
                    &T::MODULUS.0,
                    Self::INV32,
                )),
                PhantomData,
            );
            match &mut sum {
                Some(s) => Self::add_assign(s, &part),
                None => sum = Some(part),
            }
        }
        sum.unwrap_or(Self::ZERO)
    }

    // One copy per field, called rather than inlined into every tower and curve function (with
    // decoding on this backend, the beacon module went from 94.6 to 87.4 kB gzip at no cost in
    // time: docs/benchmarks.md).
    #[inline(never)]
    fn square_in_place(a: &mut Ours<T, N>) {
        let () = Self::LIMBS_FIT;
        // The operand scanning multiplication: a squaring that skips the repeated products
        // needs a double-width accumulator and carries that ripple, slower here in wasm.
        let x = a.0.0;
        a.0 = BigInt(mont_mul(&x, &x, &T::MODULUS.0, Self::INV32));
    }

    fn inverse(a: &Ours<T, N>) -> Option<Ours<T, N>> {
        MontBackend::<T, N>::inverse(&to_mont(*a)).map(from_mont)
    }

    /// `r·R mod p` by this backend's multiplication by R² (arkworks' own would bring its 64-bit
    /// multiplication into the module): None at or above p.
    fn from_bigint(r: BigInt<N>) -> Option<Ours<T, N>> {
        let () = Self::LIMBS_FIT;
        if !less(&r.0, &T::MODULUS.0) {
            return None;
        }
        Some(Fp(
            BigInt(mont_mul(&r.0, &T::R2.0, &T::MODULUS.0, Self::INV32)),
            PhantomData,
        ))
    }

    /// `a·R⁻¹ mod p`: the Montgomery multiplication by 1.
    fn into_bigint(a: Ours<T, N>) -> BigInt<N> {
        let () = Self::LIMBS_FIT;
        let mut one = [0u64; N];
        if let Some(w) = one.first_mut() {
            *w = 1;
        }
        BigInt(mont_mul(&a.0.0, &one, &T::MODULUS.0, Self::INV32))
    }
}
