//! Prototypes of a Montgomery multiplication made for wasm32, measured against arkworks' here
//! before one is built into a field backend: the operands and the result are the 6×64-bit (or
//! 4×64-bit) Montgomery form arkworks and zkcrypto use (R = 2^384, 2^256), only the product
//! is computed differently.
//!
//! - `Mont32`: 32-bit limbs, 64-bit products (wasm's `i64.mul`), coarsely integrated operand
//!   scanning (CIOS), one carry per product.
//! - `Mont24` (381-bit moduli): 24-bit limbs in 64-bit words: a product is under 2^48, so a column
//!   of 16 products plus 16 reduction products stays under 2^53 and the carries are taken once
//!   per column rather than once per product; 16 × 24 = 384 keeps R = 2^384.
//!
//! The modulus is given (the benchmark passes arkworks' own); `-p^-1` modulo the limb base is
//! computed from it.

/// `-p^-1 mod 2^bits` for odd `p0` (the low word of the modulus), by Newton's iteration.
const fn neg_inv(p0: u64, bits: u32) -> u64 {
    let mut inv: u64 = 1;
    let mut i = 0;
    while i < 6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(p0.wrapping_mul(inv)));
        i += 1;
    }
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    inv.wrapping_neg() & mask
}

/// Whether `a >= b` (little-endian words).
fn geq<const W: usize>(a: &[u64; W], b: &[u64; W]) -> bool {
    for i in (0..W).rev() {
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

/// `a - b` (little-endian words), `a >= b`.
fn sub_words<const W: usize>(a: &mut [u64; W], b: &[u64; W]) {
    let mut borrow = 0u64;
    for i in 0..W {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow);
        a[i] = d;
        borrow = u64::from(b1 | b2);
    }
}

/// Montgomery multiplication over 32-bit limbs: `W` 64-bit words, `2W` limbs.
#[derive(Clone, Copy, Debug)]
pub struct Mont32<const W: usize> {
    p: [u64; W],
    inv: u64,
}

impl<const W: usize> Mont32<W> {
    pub const fn new(p: [u64; W]) -> Self {
        Self {
            p,
            inv: neg_inv(p[0], 32),
        }
    }

    /// `a · b · 2^(-64W) mod p` for `a, b < p`, fully reduced.
    #[inline]
    pub fn mul(&self, a: &[u64; W], b: &[u64; W]) -> [u64; W] {
        // Limbs (little-endian 32-bit halves), as u64 so each product is one i64.mul.
        let limb = |x: &[u64; W], i: usize| (x[i / 2] >> (32 * (i % 2))) & 0xffff_ffff;
        let n = 2 * W;
        let mut t = [0u64; 26];
        for i in 0..n {
            let ai = limb(a, i);
            let mut c = 0u64;
            for j in 0..n {
                let s = t[j] + ai * limb(b, j) + c;
                t[j] = s & 0xffff_ffff;
                c = s >> 32;
            }
            let s = t[n] + c;
            t[n] = s & 0xffff_ffff;
            t[n + 1] = s >> 32;
            let m = t[0].wrapping_mul(self.inv) & 0xffff_ffff;
            let s = t[0] + m * limb(&self.p, 0);
            let mut c = s >> 32;
            for j in 1..n {
                let s = t[j] + m * limb(&self.p, j) + c;
                t[j - 1] = s & 0xffff_ffff;
                c = s >> 32;
            }
            let s = t[n] + c;
            t[n - 1] = s & 0xffff_ffff;
            t[n] = t[n + 1] + (s >> 32);
        }
        let mut r = [0u64; W];
        for (i, w) in r.iter_mut().enumerate() {
            *w = t[2 * i] | (t[2 * i + 1] << 32);
        }
        if t[n] != 0 || geq(&r, &self.p) {
            sub_words(&mut r, &self.p);
        }
        r
    }
}

/// Montgomery multiplication over 24-bit limbs for a modulus under 2^381 (6 words, 16 limbs).
#[derive(Clone, Copy, Debug)]
pub struct Mont24 {
    p6: [u64; 6],
    p: [u64; 16],
    inv: u64,
}

const MASK24: u64 = (1 << 24) - 1;

/// 6 words as 16 limbs of 24 bits.
#[inline(always)]
fn split24(x: &[u64; 6]) -> [u64; 16] {
    let mut l = [0u64; 16];
    // Every 3 words are 8 limbs.
    for g in 0..2 {
        let (w0, w1, w2) = (x[3 * g], x[3 * g + 1], x[3 * g + 2]);
        let o = 8 * g;
        l[o] = w0 & MASK24;
        l[o + 1] = (w0 >> 24) & MASK24;
        l[o + 2] = ((w0 >> 48) | (w1 << 16)) & MASK24;
        l[o + 3] = (w1 >> 8) & MASK24;
        l[o + 4] = (w1 >> 32) & MASK24;
        l[o + 5] = ((w1 >> 56) | (w2 << 8)) & MASK24;
        l[o + 6] = (w2 >> 16) & MASK24;
        l[o + 7] = w2 >> 40;
    }
    l
}

/// 16 limbs of 24 bits (each under 2^24) as 6 words.
#[inline(always)]
fn join24(l: &[u64; 16]) -> [u64; 6] {
    let mut x = [0u64; 6];
    for g in 0..2 {
        let o = 8 * g;
        x[3 * g] = l[o] | (l[o + 1] << 24) | (l[o + 2] << 48);
        x[3 * g + 1] = (l[o + 2] >> 16) | (l[o + 3] << 8) | (l[o + 4] << 32) | (l[o + 5] << 56);
        x[3 * g + 2] = (l[o + 5] >> 8) | (l[o + 6] << 16) | (l[o + 7] << 40);
    }
    x
}

impl Mont24 {
    pub fn new(p6: [u64; 6]) -> Self {
        Self {
            p6,
            p: split24(&p6),
            inv: neg_inv(p6[0], 24),
        }
    }

    /// `a · b · 2^-384 mod p` for `a, b < p`, fully reduced.
    #[inline]
    pub fn mul(&self, a: &[u64; 6], b: &[u64; 6]) -> [u64; 6] {
        let (a, b) = (split24(a), split24(b));
        let mut t = [0u64; 33];
        // Product scanning: 16 products of < 2^48 per column at most.
        for i in 0..16 {
            for j in 0..16 {
                t[i + j] += a[i] * b[j];
            }
        }
        // Reduction, one limb at a time: a column then holds at most 32 products (< 2^53) and
        // the carry from the one before.
        for i in 0..16 {
            let m = t[i].wrapping_mul(self.inv) & MASK24;
            for j in 0..16 {
                t[i + j] += m * self.p[j];
            }
            t[i + 1] += t[i] >> 24;
        }
        let mut l = [0u64; 16];
        let mut c = 0u64;
        for i in 0..16 {
            let s = t[16 + i] + c;
            l[i] = s & MASK24;
            c = s >> 24;
        }
        let mut r = join24(&l);
        if c != 0 || geq(&r, &self.p6) {
            sub_words(&mut r, &self.p6);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use ark05_ff::{BigInt, PrimeField, UniformRand};

    use super::*;

    type Fq = ark05_bls12_381::Fq;
    type FqBn = ark05_bn254::Fq;

    fn bls_p() -> [u64; 6] {
        Fq::MODULUS.0
    }

    /// Edge values of the field (in Montgomery form): 0, 1, 2, p - 1, p - 2, R mod p's neighbours.
    fn edges<F: PrimeField>() -> Vec<F> {
        vec![
            F::from(0u64),
            F::from(1u64),
            F::from(2u64),
            -F::from(1u64),
            -F::from(2u64),
            F::from(u64::MAX),
            -F::from(u64::MAX),
        ]
    }

    #[test]
    fn mont32_and_mont24_agree_with_arkworks_on_bls12_381() {
        let m32 = Mont32::<6>::new(bls_p());
        let m24 = Mont24::new(bls_p());
        let mut rng = ark05_std::test_rng();
        let mut xs = edges::<Fq>();
        xs.extend((0..200).map(|_| Fq::rand(&mut rng)));
        for a in &xs {
            for b in xs.iter().take(40) {
                let want: BigInt<6> = (*a * b).0;
                assert_eq!(m32.mul(&a.0.0, &b.0.0), want.0, "mont32 {a} * {b}");
                assert_eq!(m24.mul(&a.0.0, &b.0.0), want.0, "mont24 {a} * {b}");
            }
        }
    }

    #[test]
    fn mont32_agrees_with_arkworks_on_bn254() {
        let m32 = Mont32::<4>::new(FqBn::MODULUS.0);
        let mut rng = ark05_std::test_rng();
        let mut xs = edges::<FqBn>();
        xs.extend((0..200).map(|_| FqBn::rand(&mut rng)));
        for a in &xs {
            for b in xs.iter().take(40) {
                assert_eq!(m32.mul(&a.0.0, &b.0.0), (*a * b).0.0, "mont32 {a} * {b}");
            }
        }
    }

    /// The largest operands (p - 1) squared many times: every intermediate stays reduced.
    #[test]
    fn chains_stay_reduced() {
        let m24 = Mont24::new(bls_p());
        let mut x = -Fq::from(1u64);
        let mut y = x.0.0;
        for _ in 0..1000 {
            x *= x;
            y = m24.mul(&y, &y);
            assert_eq!(y, x.0.0);
        }
    }
}
