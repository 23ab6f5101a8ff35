//! [`Wasm32Backend`]: an `ark_ff::FpConfig` whose multiplication and squaring run on 30-bit limbs.
//!
//! wasm32 has a 64×64→64-bit multiplication (`i64.mul`) but none that gives the high half of a
//! 128-bit product: zkcrypto's `bls12_381` calls the compiler runtime's `__multi3` for every limb
//! product, and arkworks splits each 64-bit product into four 32-bit ones and recombines them
//! through 128-bit additions. Here a field element is split into 30-bit limbs, each limb product
//! is one `i64.mul` added to its column with no carry, and the Montgomery multiplication is
//! operand scanning with the reduction interleaved (Koç, Acar and Kaliski, "Analyzing and
//! comparing Montgomery multiplication algorithms", 1996), the columns carried every few rounds.
//!
//! The element stays in arkworks' form — `N` 64-bit words holding `a·R mod p`, fully reduced,
//! with R = 2^(64N) — and the kernels keep that R (the first factor enters shifted by the bits
//! their limbs hold beyond 64N), so every value is bit-identical to the one `MontBackend`
//! computes. The multiplication, sums of products,
//! addition, subtraction, negation and inversion (`MontBackend`'s algorithm) are
//! `lightprov_field_mont`'s kernels (compiled apart, for speed, while this crate's generic code
//! is compiled for size); square roots are arkworks' own, encoding and decoding the
//! multiplication by R² and by 1.

use core::marker::PhantomData;

use ark_ff::{BigInt, Fp, FpConfig, MontBackend, MontConfig, SqrtPrecomputation};
use lightprov_field_mont::{Kernel, less};

/// The wasm32 backend of the field of `T`'s modulus (`N` 64-bit words, N ≤ 6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wasm32Backend<T, const N: usize>(PhantomData<T>);

/// An element of `T`'s field on arkworks' backend.
type Mont<T, const N: usize> = Fp<MontBackend<T, N>, N>;
/// An element of `T`'s field on this backend.
type Ours<T, const N: usize> = Fp<Wasm32Backend<T, N>, N>;

/// The same element on this backend (the words are the same).
pub const fn from_mont<T: MontConfig<N> + Kernel<N>, const N: usize>(x: Mont<T, N>) -> Ours<T, N> {
    Fp(x.0, PhantomData)
}

/// The same element on arkworks' backend.
pub const fn to_mont<T: MontConfig<N> + Kernel<N>, const N: usize>(x: Ours<T, N>) -> Mont<T, N> {
    Fp(x.0, PhantomData)
}

const fn sqrt_precomp<T: MontConfig<N> + Kernel<N>, const N: usize>(
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

/// The most products `sum_of_products` sums before one reduction.
const MAX_TERMS: usize = 8;

/// How many products may be summed before one reduction for the modulus `p`: k products with
/// k·p < 2^(64N), which `2^64 / (p's top word + 1)` products satisfy (9 for BLS12-381, 5 for
/// BN254).
// N ≥ 1 (a modulus has a word): the index is in bounds, checked at compile time.
#[allow(clippy::indexing_slicing)]
const fn terms_per_reduction<const N: usize>(p: &[u64; N]) -> usize {
    let top = p[N - 1];
    (u64::MAX / (top + 1)) as usize
}

impl<T: MontConfig<N> + Kernel<N>, const N: usize> Wasm32Backend<T, N> {
    /// Products per reduction in `sum_of_products` (at least 1: p < 2^(64N-1)).
    const TERMS: usize = {
        let k = terms_per_reduction(&T::MODULUS.0);
        let k = if k > MAX_TERMS { MAX_TERMS } else { k };
        assert!(k >= 1, "the modulus's top bit must be clear");
        k
    };
}

impl<T: MontConfig<N> + Kernel<N>, const N: usize> FpConfig<N> for Wasm32Backend<T, N> {
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
        <T as Kernel<N>>::add_assign(&mut a.0.0, &b.0.0);
    }

    #[inline(always)]
    fn sub_assign(a: &mut Ours<T, N>, b: &Ours<T, N>) {
        <T as Kernel<N>>::sub_assign(&mut a.0.0, &b.0.0);
    }

    #[inline(always)]
    fn double_in_place(a: &mut Ours<T, N>) {
        <T as Kernel<N>>::double_in_place(&mut a.0.0);
    }

    #[inline(always)]
    fn neg_in_place(a: &mut Ours<T, N>) {
        <T as Kernel<N>>::neg_in_place(&mut a.0.0);
    }

    // The kernel is one function per field, called from every tower and curve function.
    #[inline(never)]
    fn mul_assign(a: &mut Ours<T, N>, b: &Ours<T, N>) {
        <T as Kernel<N>>::mul_assign(&mut a.0.0, &b.0.0);
    }

    #[inline(never)]
    fn sum_of_products<const M: usize>(a: &[Ours<T, N>; M], b: &[Ours<T, N>; M]) -> Ours<T, N> {
        // Two products (every sum arkworks' towers and curves take): one kernel of its own.
        if let ([x0, x1], [y0, y1]) = (a.as_slice(), b.as_slice())
            && Self::TERMS >= 2
        {
            let sum = <T as Kernel<N>>::sum2(&[x0.0.0, x1.0.0], &[y0.0.0, y1.0.0]);
            return Fp(BigInt(sum), PhantomData);
        }
        // As many products as one reduction takes at a time; the reduced parts added.
        let mut sum: Option<Ours<T, N>> = None;
        for (xs, ys) in a.chunks(Self::TERMS).zip(b.chunks(Self::TERMS)) {
            let mut aw = [[0u64; N]; MAX_TERMS];
            let mut bw = [[0u64; N]; MAX_TERMS];
            for ((x, y), (aw, bw)) in xs.iter().zip(ys).zip(aw.iter_mut().zip(bw.iter_mut())) {
                *aw = x.0.0;
                *bw = y.0.0;
            }
            // A chunk has at most TERMS ≤ MAX_TERMS pairs.
            #[allow(clippy::indexing_slicing)]
            let (aw, bw) = (&aw[..xs.len()], &bw[..xs.len()]);
            let part = Fp(BigInt(<T as Kernel<N>>::sum(aw, bw)), PhantomData);
            match &mut sum {
                Some(s) => Self::add_assign(s, &part),
                None => sum = Some(part),
            }
        }
        sum.unwrap_or(Self::ZERO)
    }

    #[inline(never)]
    fn square_in_place(a: &mut Ours<T, N>) {
        // The operand scanning multiplication: a squaring that skips the repeated products
        // needs a double-width accumulator and carries that ripple, slower here in wasm.
        <T as Kernel<N>>::square_in_place(&mut a.0.0);
    }

    fn inverse(a: &Ours<T, N>) -> Option<Ours<T, N>> {
        <T as Kernel<N>>::inv(&a.0.0).map(|r| Fp(BigInt(r), PhantomData))
    }

    /// `r·R mod p` by this backend's multiplication by R² (arkworks' own would bring its 64-bit
    /// multiplication into the module): None at or above p.
    fn from_bigint(r: BigInt<N>) -> Option<Ours<T, N>> {
        if !less(&r.0, &T::MODULUS.0) {
            return None;
        }
        let mut w = r.0;
        <T as Kernel<N>>::mul_assign(&mut w, &T::R2.0);
        Some(Fp(BigInt(w), PhantomData))
    }

    /// `a·R⁻¹ mod p`: the Montgomery multiplication by 1.
    fn into_bigint(a: Ours<T, N>) -> BigInt<N> {
        let mut one = [0u64; N];
        if let Some(w) = one.first_mut() {
            *w = 1;
        }
        let mut w = a.0.0;
        <T as Kernel<N>>::mul_assign(&mut w, &one);
        BigInt(w)
    }
}
