//! The Montgomery multiplication of `lightprov-field`'s wasm32 backend, on 30-bit limbs with
//! 64-bit products, for moduli of 4 and 6 words (BN254's and BLS12-381's base fields).
//!
//! A crate of its own so that a build can compile it, and it alone, for speed: its loops must be
//! unrolled (the wasm verifier's profile builds it at opt-level 3) while the towers, curves and
//! hashes around it, arkworks' generics instantiated in `lightprov-field`, are compiled for size.
//! The kernels are plain functions of words (no generics), each with its modulus a constant, so
//! they are compiled here, once, with this crate's settings; [`Kernel`] lets the generic backend
//! call them.
//!
//! The multiplication is operand scanning with the reduction interleaved (Koç, Acar and Kaliski,
//! "Analyzing and comparing Montgomery multiplication algorithms", 1996) over ⌈64N/30⌉ limbs of
//! 30 bits whose column sums are carried only every few rounds (each limb product is one
//! `i64.mul` and one `i64.add`), with R = 2^(64N): the Montgomery form of N 64-bit words,
//! arkworks' own. On 32-bit limbs, as first written, every product also needed its carry split
//! off (a mask, a shift and another addition); in the wasm verifier the 30-bit form made a
//! beacon update with a cached committee 1.24× faster and an LVMT proof 1.12× faster
//! (docs/benchmarks.md).
#![no_std]
// Without a field the kernels have nothing to serve.
#![cfg_attr(not(any(feature = "bls12-381", feature = "bn254")), allow(dead_code))]

/// Bits per limb of the multiplication: 30, so that a limb product is under 2^60 and fifteen
/// of them add up in one 64-bit word with room for the carries.
const W: usize = 30;
const MASK: u64 = (1 << W) - 1;
/// Limbs of 30 bits for 6 words (13: 390 bits), the most a kernel has.
const MAX_LIMBS: usize = 13;
/// The most pairs a sum takes (k·p < 2^(64N): 9 for BLS12-381, 5 for BN254).
pub const MAX_PAIRS: usize = 9;
/// Limb products (and the carries of a round) one accumulator word takes between two
/// normalisations: 15·(2^30 − 1)² + 2^30 + 2^35 < 2^64.
const PRODUCTS_PER_WORD: usize = 15;

/// The Montgomery kernels of one modulus of `N` words (`ark_ff::MontConfig`'s, implemented for
/// BLS12-381's and BN254's base fields): the modulus a constant of each kernel. The operations
/// of one element work in place, so that a caller's call is all it pays (no result copied back).
pub trait Kernel<const N: usize> {
    /// `a ← a·b·2^(-64N) mod p` for `a, b < p`, fully reduced.
    fn mul_assign(a: &mut [u64; N], b: &[u64; N]);

    /// `a ← a²·2^(-64N) mod p` for `a < p`.
    fn square_in_place(a: &mut [u64; N]);

    /// `a₀·b₀ + a₁·b₁` (times 2^(-64N)) mod p for values under p, fully reduced: one reduction.
    fn sum2(a: &[[u64; N]; 2], b: &[[u64; N]; 2]) -> [u64; N];

    /// `Σ a_k·b_k·2^(-64N) mod p` over the pairs of `a` and `b` (values under p, as many pairs
    /// as the shorter has, k of them with k·p < 2^(64N)), fully reduced: one reduction.
    fn sum(a: &[[u64; N]], b: &[[u64; N]]) -> [u64; N];

    /// `a ← a + b mod p` for `a, b < p`.
    fn add_assign(a: &mut [u64; N], b: &[u64; N]);

    /// `a ← 2a mod p` for `a < p`.
    fn double_in_place(a: &mut [u64; N]);

    /// `a ← a − b mod p` for `a, b < p`.
    fn sub_assign(a: &mut [u64; N], b: &[u64; N]);

    /// `a ← −a mod p` for `a < p`.
    fn neg_in_place(a: &mut [u64; N]);

    /// The Montgomery form of `a⁻¹` for `a` in Montgomery form (arkworks' `MontBackend`
    /// inversion, the binary extended Euclidean algorithm): None for 0.
    fn inv(a: &[u64; N]) -> Option<[u64; N]>;
}

/// The kernels of one field, `$name::*` for `$config`'s modulus.
macro_rules! kernels {
    ($feature:literal, $config:ty, $n:literal, $name:ident) => {
        #[cfg(feature = $feature)]
        impl Kernel<$n> for $config {
            #[inline]
            fn mul_assign(a: &mut [u64; $n], b: &[u64; $n]) {
                $name::mul_assign(a, b)
            }

            #[inline]
            fn square_in_place(a: &mut [u64; $n]) {
                $name::square_in_place(a)
            }

            #[inline]
            fn sum2(a: &[[u64; $n]; 2], b: &[[u64; $n]; 2]) -> [u64; $n] {
                $name::sum2(a, b)
            }

            #[inline]
            fn sum(a: &[[u64; $n]], b: &[[u64; $n]]) -> [u64; $n] {
                $name::sum(a, b)
            }

            #[inline]
            fn add_assign(a: &mut [u64; $n], b: &[u64; $n]) {
                $name::add_assign(a, b)
            }

            #[inline]
            fn double_in_place(a: &mut [u64; $n]) {
                $name::double_in_place(a)
            }

            #[inline]
            fn sub_assign(a: &mut [u64; $n], b: &[u64; $n]) {
                $name::sub_assign(a, b)
            }

            #[inline]
            fn neg_in_place(a: &mut [u64; $n]) {
                $name::neg_in_place(a)
            }

            #[inline]
            fn inv(a: &[u64; $n]) -> Option<[u64; $n]> {
                $name::inv(a)
            }
        }

        #[doc = concat!("The kernels of `", stringify!($config), "`.")]
        #[cfg(feature = $feature)]
        pub mod $name {
            use super::{add_mod, modulus, mont_sum, neg_mod, sub_mod};

            type C = $config;
            const N: usize = $n;

            /// [`Kernel::mul_assign`](crate::Kernel::mul_assign).
            #[inline(never)]
            pub fn mul_assign(a: &mut [u64; N], b: &[u64; N]) {
                let (p, inv) = modulus::<C, N>();
                *a = mont_sum::<N, 1>(core::slice::from_ref(a), core::slice::from_ref(b), &p, inv);
            }

            /// [`Kernel::square_in_place`](crate::Kernel::square_in_place).
            #[inline(never)]
            pub fn square_in_place(a: &mut [u64; N]) {
                let (p, inv) = modulus::<C, N>();
                let x = core::slice::from_ref(a);
                *a = mont_sum::<N, 1>(x, x, &p, inv);
            }

            /// [`Kernel::sum2`](crate::Kernel::sum2).
            #[inline(never)]
            pub fn sum2(a: &[[u64; N]; 2], b: &[[u64; N]; 2]) -> [u64; N] {
                let (p, inv) = modulus::<C, N>();
                mont_sum::<N, 2>(a, b, &p, inv)
            }

            /// [`Kernel::sum`](crate::Kernel::sum).
            #[inline(never)]
            pub fn sum(a: &[[u64; N]], b: &[[u64; N]]) -> [u64; N] {
                let (p, inv) = modulus::<C, N>();
                mont_sum::<N, { super::MAX_PAIRS }>(a, b, &p, inv)
            }

            /// [`Kernel::add_assign`](crate::Kernel::add_assign).
            #[inline(never)]
            pub fn add_assign(a: &mut [u64; N], b: &[u64; N]) {
                let (p, _) = modulus::<C, N>();
                *a = add_mod(a, b, &p);
            }

            /// [`Kernel::double_in_place`](crate::Kernel::double_in_place).
            #[inline(never)]
            pub fn double_in_place(a: &mut [u64; N]) {
                let (p, _) = modulus::<C, N>();
                *a = add_mod(a, a, &p);
            }

            /// [`Kernel::sub_assign`](crate::Kernel::sub_assign).
            #[inline(never)]
            pub fn sub_assign(a: &mut [u64; N], b: &[u64; N]) {
                let (p, _) = modulus::<C, N>();
                *a = sub_mod(a, b, &p);
            }

            /// [`Kernel::neg_in_place`](crate::Kernel::neg_in_place).
            #[inline(never)]
            pub fn neg_in_place(a: &mut [u64; N]) {
                let (p, _) = modulus::<C, N>();
                *a = neg_mod(a, &p);
            }

            /// [`Kernel::inv`](crate::Kernel::inv).
            #[inline(never)]
            pub fn inv(a: &[u64; N]) -> Option<[u64; N]> {
                use ark_ff::{BigInt, Fp, FpConfig, MontBackend};
                let a: Fp<MontBackend<C, N>, N> = Fp(BigInt(*a), core::marker::PhantomData);
                <MontBackend<C, N> as FpConfig<N>>::inverse(&a).map(|r| r.0.0)
            }
        }
    };
}

kernels!("bls12-381", ark_bls12_381::FqConfig, 6, bls12_381);
kernels!("bn254", ark_bn254::FqConfig, 4, bn254);

/// `T`'s modulus and `-p^-1 mod 2^30` (arkworks' `-p^-1 mod 2^64` reduced).
#[inline(always)]
fn modulus<T: ark_ff::MontConfig<N>, const N: usize>() -> ([u64; N], u64) {
    (T::MODULUS.0, T::INV & MASK)
}

/// 30-bit limbs of N words: ⌈64N / 30⌉ (13 for 6 words, 9 for 4).
const fn limb_count(n: usize) -> usize {
    (64 * n).div_ceil(W)
}

/// `$body` for `$j` = 0, 1, … below `$n` (at most [`MAX_LIMBS`]), written out: each index a
/// constant, so that the accumulator stays in locals. LLVM unrolls a 13-limb loop only in part,
/// and a window indexed by a loop variable lives in memory (measured: the kernels 6–10% slower).
macro_rules! limbs {
    ($j:ident, $n:expr, $body:block) => {
        limbs!(@each $j, $n, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12)
    };
    (@each $j:ident, $n:expr, $body:block, $($k:literal)*) => {
        $(
            {
                let $j: usize = $k;
                if $j < $n $body
            }
        )*
    };
}

/// The 30-bit limbs of `x·2^shift` (little-endian; `x·2^shift < 2^(30·L)`): limb j holds bits
/// `30j − shift ..` of `x`.
#[inline(always)]
// The word indices are checked against N; the limb index is below L ≤ 13.
#[allow(clippy::indexing_slicing)]
fn split<const N: usize>(x: &[u64; N], shift: usize) -> [u64; MAX_LIMBS] {
    let mut out = [0u64; MAX_LIMBS];
    limbs!(j, limb_count(N), {
        let bit = W * j;
        out[j] = if bit < shift {
            (x[0] << (shift - bit)) & MASK
        } else {
            let at = bit - shift;
            let (w, o) = (at / 64, at % 64);
            let mut v = if w < N { x[w] >> o } else { 0 };
            if o + W > 64 && w + 1 < N {
                v |= x[w + 1] << (64 - o);
            }
            v & MASK
        };
    });
    out
}

/// The words of `Σ limb_j·2^(30j)` for limbs under 2^30 whose value is under 2^(64N).
#[inline(always)]
// Word indices are checked against N; limb indices are below L ≤ 13.
#[allow(clippy::indexing_slicing)]
fn join<const N: usize>(limbs: &[u64; MAX_LIMBS + 1]) -> [u64; N] {
    let mut r = [0u64; N];
    limbs!(j, limb_count(N), {
        let bit = W * j;
        let (w, o) = (bit / 64, bit % 64);
        if w < N {
            r[w] |= limbs[j] << o;
            if o + W > 64 && w + 1 < N {
                r[w + 1] |= limbs[j] >> (64 - o);
            }
        }
    });
    r
}

/// `Σ a_k·b_k·2^(-64N) mod p`, fully reduced, for values under p and k pairs with
/// k·p < 2^(64N) (k ≤ [`MAX_PAIRS`]).
///
/// Operand scanning over L = ⌈64N/30⌉ limbs of 30 bits, each limb product one 64-bit
/// multiplication added to its column's word with no carry: a word takes fifteen products, so the
/// columns are normalised (carried down to 30 bits) only every ⌊15/(k + 1)⌋ rounds, where 32-bit
/// limbs need a carry after every product. Each round adds `a_k`'s limb i times `b_k` for every k,
/// then `m·p` for the `m` that clears column i, and carries column i into the next. The rounds
/// divide by 2^(30L), not by R = 2^(64N): `a_k` enters shifted by 30L − 64N bits (6 for BLS12-381,
/// 14 for BN254), so the result is `Σ a_k·b_k·2^(-64N)`, arkworks' Montgomery form.
///
/// The value left after the rounds is `(Σ a_k·2^s·b_k + M·p) / 2^(30L)` with M < 2^(30L), under
/// `k·p²/2^(64N) + p < 2p`: it fits N words, and one conditional subtraction reduces it.
#[inline(always)]
// Limb and column indices are bounded by the loops (L ≤ 13, columns ≤ 2L ≤ 26).
#[allow(clippy::indexing_slicing)]
fn mont_sum<const N: usize, const K: usize>(
    a: &[[u64; N]],
    b: &[[u64; N]],
    p: &[u64; N],
    inv: u64,
) -> [u64; N] {
    let () = LimbsFit::<N>::OK;
    let () = PairsFit::<K>::OK;
    let l = limb_count(N);
    let shift = W * l - 64 * N;
    let k = a.len().min(b.len());
    assert!(k <= K, "a sum of at most {K} products here");
    let every = PRODUCTS_PER_WORD / (k + 1);
    let mut al = [[0u64; MAX_LIMBS]; K];
    let mut bl = [[0u64; MAX_LIMBS]; K];
    for ((x, y), (xl, yl)) in a.iter().zip(b).zip(al.iter_mut().zip(bl.iter_mut())) {
        *xl = split(x, shift);
        *yl = split(y, 0);
    }
    let pl = split(p, 0);
    // The columns not yet done, lowest first: column i of the sum is t[0] in round i, so that
    // every index below is a constant of the unrolled rounds (the window stays in locals).
    // (One word more than the limbs: the written-out normalisation names t[c + 1] for every c.)
    let mut t = [0u64; MAX_LIMBS + 1];
    for i in 0..l {
        for (xl, yl) in al.iter().zip(&bl).take(k) {
            let ai = xl[i];
            limbs!(j, l, {
                t[j] += ai * yl[j];
            });
        }
        let m = t[0].wrapping_mul(inv) & MASK;
        // Column i plus m·p's lowest limb is a multiple of 2^30: its carry goes up, and the
        // window moves up a column as m·p is added (one pass: a copy of its own would be a
        // memmove, and the window would leave the locals).
        let carry = (t[0] + m * pl[0]) >> W;
        limbs!(j, l, {
            if j >= 1 {
                t[j - 1] = t[j] + m * pl[j];
            }
        });
        t[l - 1] = 0;
        t[0] += carry;
        if (i + 1) % every == 0 {
            limbs!(c, l - 1, {
                t[c + 1] += t[c] >> W;
                t[c] &= MASK;
            });
        }
    }
    limbs!(c, l - 1, {
        t[c + 1] += t[c] >> W;
        t[c] &= MASK;
    });
    // The value is under 2p < 2^(64N) ≤ 2^(30L): the top limb is under 2^30 too.
    let mut r = join::<N>(&t);
    if !less(&r, p) {
        sub_in_place(&mut r, p);
    }
    r
}

/// L = ⌈64N/30⌉ limbs of 30 bits at most 13, and `N`'s shift under 30: N ≤ 6 (a compile-time
/// error else).
struct LimbsFit<const N: usize>;

impl<const N: usize> LimbsFit<N> {
    const OK: () = assert!(limb_count(N) <= MAX_LIMBS, "at most 6 words");
}

/// The arrays of one call hold K ≤ [`MAX_PAIRS`] pairs (a compile-time error else).
struct PairsFit<const K: usize>;

impl<const K: usize> PairsFit<K> {
    const OK: () = assert!(K <= MAX_PAIRS, "at most MAX_PAIRS pairs");
}

/// Whether `a < b` (little-endian words).
#[inline(always)]
pub fn less<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
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

/// `a + b mod p` for `a, b < p` (`p` under 2^(64N-1): the sum has no carry out).
#[inline(always)]
fn add_mod<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N]) -> [u64; N] {
    let mut r = *a;
    let mut carry = false;
    for (x, y) in r.iter_mut().zip(b) {
        let (s, c1) = x.overflowing_add(*y);
        let (s, c2) = s.overflowing_add(u64::from(carry));
        *x = s;
        carry = c1 | c2;
    }
    if !less(&r, p) {
        sub_in_place(&mut r, p);
    }
    r
}

/// `a − b mod p` for `a, b < p`.
#[inline(always)]
fn sub_mod<const N: usize>(a: &[u64; N], b: &[u64; N], p: &[u64; N]) -> [u64; N] {
    let mut r = *a;
    if less(a, b) {
        // a + p − b: a + p < 2^(64N), and it is at least b.
        let mut carry = false;
        for (x, y) in r.iter_mut().zip(p) {
            let (s, c1) = x.overflowing_add(*y);
            let (s, c2) = s.overflowing_add(u64::from(carry));
            *x = s;
            carry = c1 | c2;
        }
    }
    sub_in_place(&mut r, b);
    r
}

/// `−a mod p` for `a < p`: 0 for 0, `p − a` else.
#[inline(always)]
fn neg_mod<const N: usize>(a: &[u64; N], p: &[u64; N]) -> [u64; N] {
    if a.iter().all(|w| *w == 0) {
        return *a;
    }
    let mut r = *p;
    sub_in_place(&mut r, a);
    r
}
