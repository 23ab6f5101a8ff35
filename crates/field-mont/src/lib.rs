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

            /// [`Kernel::square_in_place`](crate::Kernel::square_in_place): the multiplication's
            /// code (a copy of its own, measured, was no faster and 1.9 kB larger).
            #[inline(never)]
            pub fn square_in_place(a: &mut [u64; N]) {
                let b = *a;
                mul_assign(a, &b);
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
    let mut al = [[0u64; MAX_LIMBS]; K];
    let mut bl = [[0u64; MAX_LIMBS]; K];
    for ((x, y), (xl, yl)) in a.iter().zip(b).zip(al.iter_mut().zip(bl.iter_mut())) {
        *xl = split(x, shift);
        *yl = split(y, 0);
    }
    let pl = split(p, 0);
    mont_limbs::<N, K>(al.each_ref(), bl.each_ref(), k, &pl, p, inv)
}

/// [`mont_sum`] on factors already cut into limbs: the first `k` of `al` (split with the shift)
/// and of `bl` (without), `pl` the modulus' limbs.
#[inline(always)]
// Limb and column indices are bounded by the loops (L ≤ 13, columns ≤ 2L ≤ 26).
#[allow(clippy::indexing_slicing)]
fn mont_limbs<const N: usize, const K: usize>(
    al: [&[u64; MAX_LIMBS]; K],
    bl: [&[u64; MAX_LIMBS]; K],
    k: usize,
    pl: &[u64; MAX_LIMBS],
    p: &[u64; N],
    inv: u64,
) -> [u64; N] {
    let l = limb_count(N);
    let every = PRODUCTS_PER_WORD / (k + 1);
    // The columns not yet done, lowest first: column i of the sum is t[0] in round i, so that
    // every index below is a constant of the unrolled rounds (the window stays in locals).
    // (One word more than the limbs: the written-out normalisation names t[c + 1] for every c.)
    let mut t = [0u64; MAX_LIMBS + 1];
    for i in 0..l {
        for (xl, yl) in al.iter().zip(bl).take(k) {
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

/// BN254's Miller-loop line product, Fp12 = Fp6[w]/(w² − v), Fp6 = Fp2[v]/(v³ − ξ),
/// Fp2 = Fp[u]/(u² + 1), ξ = 9 + u, on Montgomery words (arkworks' form): one call per line, every
/// Fp coordinate of the product one sum of four products with one reduction, no Fp2 or Fp6
/// operation of its own.
#[cfg(feature = "bn254")]
pub mod bn254_line {
    use super::{MAX_LIMBS, add_mod, limb_count, modulus, mont_limbs, mont_sum, neg_mod, split};

    type C = ark_bn254::FqConfig;
    const N: usize = 4;
    const L: usize = limb_count(N);

    /// `x·2^s` for s < 8 as five words.
    // i < N and i + 1 ≤ N index the five words.
    #[allow(clippy::indexing_slicing)]
    const fn shifted(x: &[u64; N], s: u32) -> [u64; N + 1] {
        let mut out = [0u64; N + 1];
        let mut i = 0;
        while i < N {
            out[i] |= x[i] << s;
            if s > 0 {
                out[i + 1] = x[i] >> (64 - s);
            }
            i += 1;
        }
        out
    }

    /// 8p, 4p, 2p and p as five words: 9x + y < 10p is reduced by subtracting each that fits.
    const MULTIPLES: [[u64; N + 1]; 4] = {
        let p = <C as ark_ff::MontConfig<N>>::MODULUS.0;
        [
            shifted(&p, 3),
            shifted(&p, 2),
            shifted(&p, 1),
            shifted(&p, 0),
        ]
    };

    /// Whether `a ≥ b` (five little-endian words).
    fn at_least(a: &[u64; N + 1], b: &[u64; N + 1]) -> bool {
        for (x, y) in a.iter().zip(b).rev() {
            if x != y {
                return x > y;
            }
        }
        true
    }

    /// `9x + y mod p` for x, y < p.
    // Word indices are below five.
    #[allow(clippy::indexing_slicing)]
    pub(crate) fn nine_x_plus_y(x: &[u64; N], y: &[u64; N]) -> [u64; N] {
        let x8 = shifted(x, 3);
        let mut t = [0u64; N + 1];
        let mut carry = 0u64;
        for (i, slot) in t.iter_mut().enumerate() {
            let xi = x.get(i).copied().unwrap_or(0);
            let yi = y.get(i).copied().unwrap_or(0);
            let wide = u128::from(x8[i]) + u128::from(xi) + u128::from(yi) + u128::from(carry);
            *slot = wide as u64;
            carry = (wide >> 64) as u64;
        }
        for m in &MULTIPLES {
            if at_least(&t, m) {
                let mut borrow = false;
                for (a, b) in t.iter_mut().zip(m) {
                    let (d, b1) = a.overflowing_sub(*b);
                    let (d, b2) = d.overflowing_sub(u64::from(borrow));
                    *a = d;
                    borrow = b1 | b2;
                }
            }
        }
        [t[0], t[1], t[2], t[3]]
    }

    /// `old + Σ_k x_k·y_k` (times 2^(−256)) mod p: four products, one reduction.
    #[inline(never)]
    fn add_sum4(
        old: &[u64; N],
        x: [&[u64; MAX_LIMBS]; 4],
        y: [&[u64; MAX_LIMBS]; 4],
        pl: &[u64; MAX_LIMBS],
    ) -> [u64; N] {
        let (p, inv) = modulus::<C, N>();
        add_mod(old, &mont_limbs::<N, 4>(x, y, 4, pl, &p, inv), &p)
    }

    /// `f ← f·(1 + (a + b·v)·w)` with `a = c1·x`, `b = c2·y`: a line of the Miller loop divided
    /// by its first coefficient, evaluated at a G1 point (`x`, `y` are that point's x/y and 1/y).
    /// `f12` holds Fp12's six Fp2 coordinates in arkworks' order (c0.c0, c0.c1, …, c1.c2), `c`
    /// the line's c1 and c2 (real, imaginary), `xy` the point's x/y and 1/y;
    /// every value under p.
    ///
    /// With f = g + h·w and t = a + b·v: f·t·w = (g·t)·w + (h·t)·v, so
    /// g₀ += ξ(h₁b + h₂a), g₁ += h₀a + ξh₂b, g₂ += h₀b + h₁a, h₀ += g₀a + ξg₂b, h₁ += g₀b + g₁a,
    /// h₂ += g₁b + g₂a (ξ taken into the factors a and b).
    #[inline(never)]
    // Indices are constants below the arrays' lengths.
    #[allow(clippy::indexing_slicing)]
    pub fn mul_by_line(f12: &mut [[[u64; N]; 2]; 6], c: &[[u64; N]; 4], xy: &[[u64; N]; 2]) {
        let mut flat: [[u64; N]; 12] = core::array::from_fn(|i| f12[i / 2][i % 2]);
        let f = &mut flat;
        let (p, inv) = modulus::<C, N>();
        let pl = split(&p, 0);
        let one = |u: &[u64; N], v: &[u64; N]| {
            mont_sum::<N, 1>(core::slice::from_ref(u), core::slice::from_ref(v), &p, inv)
        };
        // a, b and ξa, ξb (ξ(r + i·u) = (9r − i) + (9i + r)·u), real and imaginary parts.
        let a = [one(&c[0], &xy[0]), one(&c[1], &xy[0])];
        let b = [one(&c[2], &xy[1]), one(&c[3], &xy[1])];
        let xi = |z: &[[u64; N]; 2]| {
            [
                nine_x_plus_y(&z[0], &neg_mod(&z[1], &p)),
                nine_x_plus_y(&z[1], &z[0]),
            ]
        };
        let (xa, xb) = (xi(&a), xi(&b));
        // Each factor's limbs: real, imaginary, −imaginary (for the real part's −x₁y₁).
        let factor = |z: &[[u64; N]; 2]| {
            [
                split(&z[0], 0),
                split(&z[1], 0),
                split(&neg_mod(&z[1], &p), 0),
            ]
        };
        let (fa, fb, fxa, fxb) = (factor(&a), factor(&b), factor(&xa), factor(&xb));
        let shift = super::W * L - 64 * N;
        let fl: [[u64; MAX_LIMBS]; 12] = core::array::from_fn(|i| split(&f[i], shift));
        let old = *f;
        // f's Fp2 coordinates: g₀ g₁ g₂ h₀ h₁ h₂ at 0, 2, …, 10.
        let out = |at: usize,
                   (s, y): (usize, &[[u64; MAX_LIMBS]; 3]),
                   (s2, y2): (usize, &[[u64; MAX_LIMBS]; 3])| {
            let x = [&fl[s], &fl[s + 1], &fl[s2], &fl[s2 + 1]];
            let re = add_sum4(&old[at], x, [&y[0], &y[2], &y2[0], &y2[2]], &pl);
            let im = add_sum4(&old[at + 1], x, [&y[1], &y[0], &y2[1], &y2[0]], &pl);
            (re, im)
        };
        let (g0, g1, g2, h0, h1, h2) = (0, 2, 4, 6, 8, 10);
        let outs = [
            (g0, out(g0, (h1, &fxb), (h2, &fxa))),
            (g1, out(g1, (h0, &fa), (h2, &fxb))),
            (g2, out(g2, (h0, &fb), (h1, &fa))),
            (h0, out(h0, (g0, &fa), (g2, &fxb))),
            (h1, out(h1, (g0, &fb), (g1, &fa))),
            (h2, out(h2, (g1, &fb), (g2, &fa))),
        ];
        for (at, (re, im)) in outs {
            f12[at / 2] = [re, im];
        }
    }
}

/// Fp2 = Fp[u]/(u² + 1) products, Fp6 = Fp2[v]/(v³ − ξ) and Fp12 = Fp6[w]/(w² − v) products
/// and squarings, and Fp12's cyclotomic squaring, on Montgomery words (arkworks' form), each one
/// call: the additions, doublings and multiplications by ξ between the products are word
/// operations inside the call, not calls of their own (arkworks' generic towers call a kernel
/// for each). `$xi` multiplies an Fp2 element by ξ (given p).
macro_rules! tower {
    ($feature:literal, $name:ident, $kernels:ident, $config:ty, $n:literal, $xi:expr) => {
        #[doc = concat!("The fused tower operations of `", stringify!($config), "`'s field.")]
        #[cfg(feature = $feature)]
        // Every index here is a constant below its array's length (Fp2 has 2 coordinates, Fp6
        // 3, Fp12 6).
        #[allow(clippy::indexing_slicing)]
        pub mod $name {
            use super::{add_mod, modulus, neg_mod, sub_mod};

            type C = $config;
            const N: usize = $n;
            /// An Fp2 element: real and imaginary words.
            pub type Fq2Words = [[u64; N]; 2];

            fn p() -> [u64; N] {
                modulus::<C, N>().0
            }

            pub(crate) fn add(a: &Fq2Words, b: &Fq2Words) -> Fq2Words {
                let p = p();
                [add_mod(&a[0], &b[0], &p), add_mod(&a[1], &b[1], &p)]
            }

            pub(crate) fn sub(a: &Fq2Words, b: &Fq2Words) -> Fq2Words {
                let p = p();
                [sub_mod(&a[0], &b[0], &p), sub_mod(&a[1], &b[1], &p)]
            }

            /// `a·ξ`.
            pub(crate) fn mul_by_xi(a: &Fq2Words) -> Fq2Words {
                let xi: fn(&Fq2Words, &[u64; N]) -> Fq2Words = $xi;
                xi(a, &p())
            }

            /// `a·b` in Fp2: `(a₀b₀ − a₁b₁) + (a₀b₁ + a₁b₀)·u`, two sums of two products (one
            /// reduction each: the field's `sum2` kernel).
            #[inline(never)]
            pub fn fq2_mul(a: &Fq2Words, b: &Fq2Words) -> Fq2Words {
                let nb1 = neg_mod(&b[1], &p());
                [
                    super::$kernels::sum2(a, &[b[0], nb1]),
                    super::$kernels::sum2(a, &[b[1], b[0]]),
                ]
            }

            /// An Fp6 = Fp2[v]/(v³ − ξ) element: three Fp2 coordinates.
            pub type Fq6Words = [Fq2Words; 3];
            /// An Fp12 = Fp6[w]/(w² − v) element: its six Fp2 coordinates in arkworks' order (c0.c0,
            /// c0.c1, c0.c2, c1.c0, c1.c1, c1.c2).
            pub type Fq12Words = [Fq2Words; 6];

            fn add6(a: &Fq6Words, b: &Fq6Words) -> Fq6Words {
                [add(&a[0], &b[0]), add(&a[1], &b[1]), add(&a[2], &b[2])]
            }

            fn sub6(a: &Fq6Words, b: &Fq6Words) -> Fq6Words {
                [sub(&a[0], &b[0]), sub(&a[1], &b[1]), sub(&a[2], &b[2])]
            }

            /// `a·v = (ξa₂, a₀, a₁)`.
            fn mul6_by_v(a: &Fq6Words) -> Fq6Words {
                [mul_by_xi(&a[2]), a[0], a[1]]
            }

            /// `a·b` in Fp6, Karatsuba: six Fp2 products (v₀ = a₀b₀, v₁ = a₁b₁, v₂ = a₂b₂;
            /// c₀ = v₀ + ξ((a₁ + a₂)(b₁ + b₂) − v₁ − v₂), c₁ = (a₀ + a₁)(b₀ + b₁) − v₀ − v₁ + ξv₂,
            /// c₂ = (a₀ + a₂)(b₀ + b₂) − v₀ − v₂ + v₁).
            #[inline(never)]
            pub fn fq6_mul(a: &Fq6Words, b: &Fq6Words) -> Fq6Words {
                let v0 = fq2_mul(&a[0], &b[0]);
                let v1 = fq2_mul(&a[1], &b[1]);
                let v2 = fq2_mul(&a[2], &b[2]);
                let cross = |i: usize, j: usize, vi: &Fq2Words, vj: &Fq2Words| {
                    sub(
                        &sub(&fq2_mul(&add(&a[i], &a[j]), &add(&b[i], &b[j])), vi),
                        vj,
                    )
                };
                [
                    add(&v0, &mul_by_xi(&cross(1, 2, &v1, &v2))),
                    add(&cross(0, 1, &v0, &v1), &mul_by_xi(&v2)),
                    add(&cross(0, 2, &v0, &v2), &v1),
                ]
            }

            /// `a·(c₀ + c₁v)` in Fp6: five Fp2 products ((a₀c₀ + ξa₂c₁) + (a₀c₁ + a₁c₀)v +
            /// (a₁c₁ + a₂c₀)v², the middle one and the cross terms by Karatsuba).
            #[inline(never)]
            fn fq6_mul_by_01(a: &Fq6Words, c0: &Fq2Words, c1: &Fq2Words) -> Fq6Words {
                let a0c0 = fq2_mul(&a[0], c0);
                let a1c1 = fq2_mul(&a[1], c1);
                let a2c1 = sub(&fq2_mul(&add(&a[1], &a[2]), c1), &a1c1);
                let a2c0 = sub(&fq2_mul(&add(&a[0], &a[2]), c0), &a0c0);
                let mid = sub(
                    &sub(&fq2_mul(&add(&a[0], &a[1]), &add(c0, c1)), &a0c0),
                    &a1c1,
                );
                [add(&a0c0, &mul_by_xi(&a2c1)), mid, add(&a1c1, &a2c0)]
            }

            /// `f ← f·((c₀ + c₁v) + c₄v·w)`, a Miller-loop line on an M-twist (BLS12-381's; arkworks'
            /// `mul_by_014`): with f = g + h·w, A = c₀ + c₁v, B = c₄v, f·(A + Bw) = (gA + v·hB) +
            /// ((g + h)(A + B) − gA − hB)·w, thirteen Fp2 products.
            #[inline(never)]
            pub fn mul_by_014(f: &mut Fq12Words, c0: &Fq2Words, c1: &Fq2Words, c4: &Fq2Words) {
                let g = [f[0], f[1], f[2]];
                let h = [f[3], f[4], f[5]];
                let ga = fq6_mul_by_01(&g, c0, c1);
                // h·c₄v = (ξh₂c₄, h₀c₄, h₁c₄).
                let hb = [
                    mul_by_xi(&fq2_mul(&h[2], c4)),
                    fq2_mul(&h[0], c4),
                    fq2_mul(&h[1], c4),
                ];
                let sum = fq6_mul_by_01(&add6(&g, &h), c0, &add(c1, c4));
                let c1 = sub6(&sub6(&sum, &ga), &hb);
                let c0 = add6(&ga, &mul6_by_v(&hb));
                *f = [c0[0], c0[1], c0[2], c1[0], c1[1], c1[2]];
            }

            /// `a·b` in Fp12, Karatsuba over Fp6: (gg' + v·hh') + ((g + h)(g' + h') − gg' − hh')·w.
            #[inline(never)]
            pub fn fq12_mul(a: &Fq12Words, b: &Fq12Words) -> Fq12Words {
                let (g, h) = ([a[0], a[1], a[2]], [a[3], a[4], a[5]]);
                let (g2, h2) = ([b[0], b[1], b[2]], [b[3], b[4], b[5]]);
                let gg = fq6_mul(&g, &g2);
                let hh = fq6_mul(&h, &h2);
                let c1 = sub6(&sub6(&fq6_mul(&add6(&g, &h), &add6(&g2, &h2)), &gg), &hh);
                let c0 = add6(&gg, &mul6_by_v(&hh));
                [c0[0], c0[1], c0[2], c1[0], c1[1], c1[2]]
            }

            /// `a²` in Fp12 (any element): with t = gh, (g + h)(g + v·h) − t − v·t and 2t, two Fp6
            /// products.
            #[inline(never)]
            pub fn fq12_square(a: &mut Fq12Words) {
                let (g, h) = ([a[0], a[1], a[2]], [a[3], a[4], a[5]]);
                let t = fq6_mul(&g, &h);
                let vt = mul6_by_v(&t);
                let c0 = sub6(
                    &sub6(&fq6_mul(&add6(&g, &h), &add6(&g, &mul6_by_v(&h))), &t),
                    &vt,
                );
                let c1 = add6(&t, &t);
                *a = [c0[0], c0[1], c0[2], c1[0], c1[1], c1[2]];
            }

            /// `(x + y·s)²` for s² = ξ (an Fp4 square, Granger and Scott): `(x² + ξy², 2xy)`, as
            /// `(x + y)(x + ξy) − xy − ξxy` and `2xy`: two Fp2 products.
            fn fp4_square(x: &Fq2Words, y: &Fq2Words) -> (Fq2Words, Fq2Words) {
                let xy = fq2_mul(x, y);
                let s = fq2_mul(&add(x, y), &add(x, &mul_by_xi(y)));
                let sq = sub(&sub(&s, &xy), &mul_by_xi(&xy));
                (sq, add(&xy, &xy))
            }

            /// `3t − 2z` (`minus`) or `3t + 2z`.
            fn three_t_two_z(t: &Fq2Words, z: &Fq2Words, minus: bool) -> Fq2Words {
                let t3 = add(&add(t, t), t);
                let z2 = add(z, z);
                if minus { sub(&t3, &z2) } else { add(&t3, &z2) }
            }

            /// `f ← f²` for f in the cyclotomic subgroup of Fp12 (Granger and Scott, eprint 2009/565:
            /// three Fp4 squarings), `f` as its six Fp2 coordinates in arkworks' order (c0.c0, c0.c1,
            /// c0.c2, c1.c0, c1.c1, c1.c2); arkworks' `cyclotomic_square_in_place` word for word.
            #[inline(never)]
            pub fn cyclotomic_square(f: &mut Fq12Words) {
                let [r0, r4, r3, r2, r1, r5] = *f;
                let (t0, t1) = fp4_square(&r0, &r1);
                let (t2, t3) = fp4_square(&r2, &r3);
                let (t4, t5) = fp4_square(&r4, &r5);
                *f = [
                    three_t_two_z(&t0, &r0, true),
                    three_t_two_z(&t2, &r4, true),
                    three_t_two_z(&t4, &r3, true),
                    three_t_two_z(&mul_by_xi(&t5), &r2, false),
                    three_t_two_z(&t1, &r1, false),
                    three_t_two_z(&t3, &r5, false),
                ];
            }
        }
    };
}

tower!(
    "bls12-381",
    bls12_381_tower,
    bls12_381,
    ark_bls12_381::FqConfig,
    6,
    // ξ = 1 + u: (a₀ − a₁) + (a₀ + a₁)·u.
    |a, p| [sub_mod(&a[0], &a[1], p), add_mod(&a[0], &a[1], p)]
);
tower!(
    "bn254",
    bn254_tower,
    bn254,
    ark_bn254::FqConfig,
    4,
    // ξ = 9 + u: (9a₀ − a₁) + (9a₁ + a₀)·u.
    |a, p| {
        [
            super::bn254_line::nine_x_plus_y(&a[0], &neg_mod(&a[1], p)),
            super::bn254_line::nine_x_plus_y(&a[1], &a[0]),
        ]
    }
);

/// BLS12-381's G2 Miller-loop steps (an M-twist, y² = x³ + 4ξ) in homogeneous projective
/// coordinates on Montgomery words, arkworks' formulas (`G2HomProjective`'s doubling and
/// addition steps, the same line coefficients), each one call: the products the fused Fp2
/// product and the field's squaring kernel, the additions and halvings word operations inside.
#[cfg(feature = "bls12-381")]
// Indices are constants below the arrays' lengths.
#[allow(clippy::indexing_slicing)]
pub mod bls12_381_g2 {
    use super::bls12_381::mul_assign;
    use super::bls12_381_tower::{Fq2Words, add, fq2_mul, mul_by_xi, sub};
    use super::{add_mod, modulus, sub_mod};

    const N: usize = 6;
    /// A point (X, Y, Z) of the twist, (X/Z, Y/Z) in affine coordinates.
    pub type Point = [Fq2Words; 3];
    /// A line's coefficients (c₀, c₁, c₂): at P it is c₀ + c₁·x_P·v + c₂·y_P·vw.
    pub type Line = [Fq2Words; 3];

    /// `a²` in Fp2 = Fp[u]/(u² + 1): ((a₀ + a₁)(a₀ − a₁), 2a₀a₁), two products.
    fn square(a: &Fq2Words) -> Fq2Words {
        let p = modulus::<ark_bls12_381::FqConfig, N>().0;
        let mut re = add_mod(&a[0], &a[1], &p);
        mul_assign(&mut re, &sub_mod(&a[0], &a[1], &p));
        let mut im = a[0];
        mul_assign(&mut im, &a[1]);
        [re, add_mod(&im, &im, &p)]
    }

    /// `a/2` in Fp: a >> 1 for even a, (a + p) >> 1 for odd.
    fn half_fp(a: &[u64; N]) -> [u64; N] {
        let p = modulus::<ark_bls12_381::FqConfig, N>().0;
        let mut t = *a;
        let mut carry = 0u64;
        if t[0] & 1 == 1 {
            let mut c = false;
            for (x, y) in t.iter_mut().zip(&p) {
                let (s1, c1) = x.overflowing_add(*y);
                let (s2, c2) = s1.overflowing_add(u64::from(c));
                *x = s2;
                c = c1 | c2;
            }
            carry = u64::from(c);
        }
        for i in 0..N {
            let next = if i + 1 < N { t[i + 1] } else { carry };
            t[i] = (t[i] >> 1) | (next << 63);
        }
        t
    }

    fn half(a: &Fq2Words) -> Fq2Words {
        [half_fp(&a[0]), half_fp(&a[1])]
    }

    fn triple(a: &Fq2Words) -> Fq2Words {
        add(&add(a, a), a)
    }

    fn neg(a: &Fq2Words) -> Fq2Words {
        sub(&[[0; N], [0; N]], a)
    }

    /// `r ← 2r` and the tangent's line: with A = XY/2, B = Y², C = Z², E = b'·3C (b' = 4ξ),
    /// F = 3E, G = (B + F)/2, H = (Y + Z)² − B − C, I = E − B, J = X²:
    /// X' = A(B − F), Y' = G² − 3E², Z' = BH; the line (I, 3J, −H).
    #[inline(never)]
    pub fn doubling_step(r: &mut Point) -> Line {
        let [x, y, z] = *r;
        let a = half(&fq2_mul(&x, &y));
        let b = square(&y);
        let c = square(&z);
        let e = mul_by_xi(&triple(&c));
        let e = add(&add(&e, &e), &add(&e, &e));
        let f = triple(&e);
        let g = half(&add(&b, &f));
        let h = sub(&sub(&square(&add(&y, &z)), &b), &c);
        let i = sub(&e, &b);
        let j = square(&x);
        *r = [
            fq2_mul(&a, &sub(&b, &f)),
            sub(&square(&g), &triple(&square(&e))),
            fq2_mul(&b, &h),
        ];
        [i, triple(&j), neg(&h)]
    }

    /// `r ← r + q` for q = (qx, qy) affine, and the chord's line: with θ = Y − qy·Z,
    /// λ = X − qx·Z, C = θ², D = λ², E = λD, F = ZC, G = XD, H = E + F − 2G:
    /// X' = λH, Y' = θ(G − H) − EY, Z' = ZE; the line (θ·qx − λ·qy, −θ, λ).
    #[inline(never)]
    pub fn addition_step(r: &mut Point, qx: &Fq2Words, qy: &Fq2Words) -> Line {
        let [x, y, z] = *r;
        let theta = sub(&y, &fq2_mul(qy, &z));
        let lambda = sub(&x, &fq2_mul(qx, &z));
        let c = square(&theta);
        let d = square(&lambda);
        let e = fq2_mul(&lambda, &d);
        let f = fq2_mul(&z, &c);
        let g = fq2_mul(&x, &d);
        let h = sub(&add(&e, &f), &add(&g, &g));
        *r = [
            fq2_mul(&lambda, &h),
            sub(&fq2_mul(&theta, &sub(&g, &h)), &fq2_mul(&e, &y)),
            fq2_mul(&z, &e),
        ];
        let j = sub(&fq2_mul(&theta, qx), &fq2_mul(&lambda, qy));
        [j, neg(&theta), lambda]
    }
}
