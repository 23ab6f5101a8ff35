//! Discrete Fourier transforms with G1 coefficients, for deriving the AMT tables from powers of τ
//! without knowing τ (see `Setup::from_powers`).
//!
//! The cost is all in scalar multiplications of G1 points by roots of unity, so they get a
//! dedicated routine: the GLV split `k = k₁ + λ·k₂` (|kᵢ| ≈ 2^127, λ the cube root of unity of
//! BN254's endomorphism `(x, y) ↦ (βx, y)`) with width-5 NAF digits on both halves — 127
//! doublings instead of 254, and about half the time of the generic `G1Projective * Fr`.

use ark_bn254::{Fr, G1Projective, g1::Config};
use ark_ec::{AdditiveGroup, scalar_mul::glv::GLVConfig};
use ark_ff::{BigInteger, PrimeField, Zero};

/// wNAF window: digits are odd and in (−16, 16), so the table holds 8 odd multiples.
const WINDOW: usize = 5;
const TABLE: usize = 1 << (WINDOW - 2);

/// A scalar prepared for repeated multiplication: its GLV halves in wNAF form.
#[derive(Clone, Debug)]
pub(crate) struct Recoded {
    form: Form,
}

#[derive(Clone, Debug)]
enum Form {
    /// `k = s₁·k₁ + s₂·k₂·λ` with `dᵢ` the wNAF digits of `kᵢ` (least significant first).
    Glv {
        d1: Vec<i8>,
        d2: Vec<i8>,
        neg1: bool,
        neg2: bool,
    },
    /// Never expected for BN254; kept so that no input can make the routine fail.
    Plain(Fr),
}

fn digits(k: Fr) -> Option<Vec<i8>> {
    k.into_bigint()
        .find_wnaf(WINDOW)?
        .into_iter()
        .map(|d| i8::try_from(d).ok())
        .collect()
}

impl Recoded {
    pub(crate) fn new(k: Fr) -> Self {
        let ((s1, k1), (s2, k2)) = <Config as GLVConfig>::scalar_decomposition(k);
        let form = match (digits(k1), digits(k2)) {
            (Some(d1), Some(d2)) => Form::Glv {
                d1,
                d2,
                neg1: !s1,
                neg2: !s2,
            },
            _ => Form::Plain(k),
        };
        Self { form }
    }

    /// `k·p`.
    pub(crate) fn mul(&self, p: &G1Projective) -> G1Projective {
        let (d1, d2, neg1, neg2) = match &self.form {
            Form::Glv { d1, d2, neg1, neg2 } => (d1, d2, *neg1, *neg2),
            Form::Plain(k) => return *p * k,
        };
        let base = if neg1 { -*p } else { *p };
        // t1[i] = (2i + 1)·base; t2[i] = ±φ(t1[i]) = (2i + 1)·(±λ·p).
        let mut t1 = [G1Projective::zero(); TABLE];
        let two = base.double();
        let mut acc = base;
        for slot in &mut t1 {
            *slot = acc;
            acc += two;
        }
        let mut t2 = t1;
        for q in &mut t2 {
            *q = <Config as GLVConfig>::endomorphism(q);
            if neg1 != neg2 {
                *q = -*q;
            }
        }
        let len = d1.len().max(d2.len());
        let mut res = G1Projective::zero();
        for i in (0..len).rev() {
            res.double_in_place();
            add_digit(&mut res, &t1, d1.get(i).copied());
            add_digit(&mut res, &t2, d2.get(i).copied());
        }
        res
    }
}

fn add_digit(res: &mut G1Projective, table: &[G1Projective; TABLE], d: Option<i8>) {
    let Some(d) = d else { return };
    if d == 0 {
        return;
    }
    let Some(q) = table.get(usize::from(d.unsigned_abs() / 2)) else {
        return;
    };
    if d > 0 {
        *res += q;
    } else {
        *res -= q;
    }
}

/// `ω^{−e}` for `e < n`, ω the primitive n-th root of unity.
pub(crate) fn inverse_roots(omega_inv: Fr, n: usize) -> Vec<Fr> {
    let mut out = Vec::with_capacity(n);
    let mut w = Fr::from(1u64);
    for _ in 0..n {
        out.push(w);
        w *= omega_inv;
    }
    out
}

/// In place, `a[u] ← Σ_k ω_m^{−u·k}·a[k]` for `m = a.len()`, where `ω_m = ω^{n/m}` and
/// `inv_roots[e] = ω^{−e}` (`e < n/2` is used). `m` must be a power of two dividing `n`;
/// otherwise `a` is left as it is and `false` is returned.
pub(crate) fn inverse_dft_unscaled(a: &mut [G1Projective], inv_roots: &[Fr], n: usize) -> bool {
    let m = a.len();
    if m <= 1 {
        return m == 1;
    }
    if !m.is_power_of_two() || !n.is_power_of_two() || !n.is_multiple_of(m) {
        return false;
    }
    let bits = m.trailing_zeros();
    // Bit-reversal permutation, then iterative radix-2 decimation in time.
    for i in 0..m {
        let r = i
            .reverse_bits()
            .checked_shr(usize::BITS - bits)
            .unwrap_or(0);
        if i < r && r < m {
            a.swap(i, r);
        }
    }
    let mut len = 2;
    while len <= m {
        let half = len / 2;
        let step = n / len;
        // Twiddle-outer order: each root is recoded once per stage.
        for i in 0..half {
            let tw = if i == 0 {
                None
            } else {
                match inv_roots.get(i * step) {
                    Some(w) => Some(Recoded::new(*w)),
                    None => return false,
                }
            };
            for chunk in a.chunks_exact_mut(len) {
                let (lo, hi) = chunk.split_at_mut(half);
                if let (Some(x), Some(y)) = (lo.get_mut(i), hi.get_mut(i)) {
                    let t = match &tw {
                        Some(r) => r.mul(y),
                        None => *y,
                    };
                    *y = *x - t;
                    *x += t;
                }
            }
        }
        len *= 2;
    }
    true
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use ark_ec::PrimeGroup;
    use ark_ff::{FftField, Field};

    #[test]
    fn glv_mul_matches_generic() {
        let g = G1Projective::generator();
        let mut k = Fr::from(0x1234_5678_9abc_def0u64).pow([0x0fed_cba9u64]);
        let p = g * Fr::from(77u64);
        for _ in 0..200 {
            assert_eq!(Recoded::new(k).mul(&p), p * k);
            assert_eq!(Recoded::new(-k).mul(&p), p * -k);
            k = k.square() + Fr::from(3u64);
        }
        for k in [Fr::zero(), Fr::from(1u64), -Fr::from(1u64), Fr::from(2u64)] {
            assert_eq!(Recoded::new(k).mul(&p), p * k);
        }
        assert_eq!(
            Recoded::new(k).mul(&G1Projective::zero()),
            G1Projective::zero()
        );
    }

    #[test]
    fn dft_matches_naive() {
        let n = 32usize;
        let omega = Fr::get_root_of_unity(n as u64).unwrap();
        let inv = inverse_roots(omega.inverse().unwrap(), n);
        let g = G1Projective::generator();
        for m in [1usize, 2, 4, 8, 16, 32] {
            let a: Vec<G1Projective> = (0..m).map(|k| g * Fr::from(k as u64 * 7 + 3)).collect();
            let mut b = a.clone();
            assert!(inverse_dft_unscaled(&mut b, &inv, n));
            let wm_inv = omega.inverse().unwrap().pow([(n / m) as u64]);
            for (u, got) in b.iter().enumerate() {
                let want: G1Projective = a
                    .iter()
                    .enumerate()
                    .map(|(k, x)| *x * wm_inv.pow([(u * k) as u64]))
                    .sum();
                assert_eq!(*got, want, "m = {m}, u = {u}");
            }
        }
        let mut odd = vec![g; 3];
        assert!(!inverse_dft_unscaled(&mut odd, &inv, n));
    }
}
