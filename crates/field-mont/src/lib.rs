//! The Montgomery multiplication of `lightprov-field`'s wasm32 backend, on 32-bit limbs with
//! 64-bit products, for moduli of 4 and 6 words (BN254's and BLS12-381's base fields).
//!
//! A crate of its own so that a build can compile it, and it alone, for speed: its loops must be
//! unrolled (the wasm verifier's profile builds it at opt-level 3) while the towers, curves and
//! hashes around it, arkworks' generics instantiated in `lightprov-field`, are compiled for size.
//! The kernels are plain functions of words (no generics), each with its modulus a constant, so
//! they are compiled here, once, with this crate's settings; [`Kernel`] lets the generic backend
//! call them.
//!
//! The multiplication is the coarsely integrated operand scanning form (Koç, Acar and Kaliski,
//! "Analyzing and comparing Montgomery multiplication algorithms", 1996) over 2N limbs of 32
//! bits, with R = 2^(64N): the Montgomery form of N 64-bit words, arkworks' own.
#![no_std]
// Without a field the kernels have nothing to serve.
#![cfg_attr(not(any(feature = "bls12-381", feature = "bn254")), allow(dead_code))]

/// Limbs of 32 bits: at most 12 (N ≤ 6), and two more words of the CIOS accumulator.
const MAX_LIMBS: usize = 12;
const MASK: u64 = 0xffff_ffff;

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
                *a = mont_sum(core::slice::from_ref(a), core::slice::from_ref(b), &p, inv);
            }

            /// [`Kernel::square_in_place`](crate::Kernel::square_in_place).
            #[inline(never)]
            pub fn square_in_place(a: &mut [u64; N]) {
                let (p, inv) = modulus::<C, N>();
                let x = core::slice::from_ref(a);
                *a = mont_sum(x, x, &p, inv);
            }

            /// [`Kernel::sum2`](crate::Kernel::sum2).
            #[inline(never)]
            pub fn sum2(a: &[[u64; N]; 2], b: &[[u64; N]; 2]) -> [u64; N] {
                let (p, inv) = modulus::<C, N>();
                mont_sum(a, b, &p, inv)
            }

            /// [`Kernel::sum`](crate::Kernel::sum).
            #[inline(never)]
            pub fn sum(a: &[[u64; N]], b: &[[u64; N]]) -> [u64; N] {
                let (p, inv) = modulus::<C, N>();
                mont_sum(a, b, &p, inv)
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

/// `T`'s modulus and `-p^-1 mod 2^32` (arkworks' `-p^-1 mod 2^64` reduced).
#[inline(always)]
fn modulus<T: ark_ff::MontConfig<N>, const N: usize>() -> ([u64; N], u64) {
    (T::MODULUS.0, T::INV & MASK)
}

/// Limb `i` (little-endian) of `x`, as a 64-bit word.
#[inline(always)]
fn limb<const N: usize>(x: &[u64; N], i: usize) -> u64 {
    // The index is below 2N: the callers' loops run to 2N.
    #[allow(clippy::indexing_slicing)]
    let w = x[i / 2];
    (w >> (32 * (i % 2))) & MASK
}

/// `Σ a_k·b_k·2^(-64N) mod p`: every product's row added in each round of the operand scanning,
/// then one Montgomery step. Every sum `t + x·y + carry` is at most
/// `(2^32-1) + (2^32-1)^2 + (2^32-1) < 2^64`, so one 64-bit word holds it. The running value
/// stays under (k + 1)·p·2^(32·2N) for k products, so it fits the two extra words, and the
/// result is under (k·p/2^(64N) + 1)·p < 2p: one conditional subtraction reduces it fully.
#[inline(always)]
// The accumulator and limb indices are bounded by the loops (2N + 2 ≤ 14 words).
#[allow(clippy::indexing_slicing)]
fn mont_sum<const N: usize>(a: &[[u64; N]], b: &[[u64; N]], p: &[u64; N], inv: u64) -> [u64; N] {
    let () = LimbsFit::<N>::OK;
    let n = 2 * N;
    let mut t = [0u64; MAX_LIMBS + 2];
    for i in 0..n {
        for (a, b) in a.iter().zip(b) {
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

/// The CIOS accumulator holds 2N + 2 limbs of 32 bits: N ≤ 6 (a compile-time error else).
struct LimbsFit<const N: usize>;

impl<const N: usize> LimbsFit<N> {
    const OK: () = assert!(N <= MAX_LIMBS / 2, "at most 6 words");
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
