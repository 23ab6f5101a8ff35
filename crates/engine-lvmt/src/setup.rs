//! The AMT parameters: per-entry points the engine adds on a version bump, and the G2 powers
//! the verifier pairs with.
//!
//! For entry `j` (`y = ω^j`, `N = 2^D`), a version bump in slot `s` adds `2^{40s}` to `a_j`, so
//! the commitment moves by `2^{40s}·[L_j(τ)]₁` with `L_j(τ) = (y/N)(τ^N − 1)/(τ − y)`, and the
//! proof node of depth `d − 1` on `j`'s path moves by `2^{40s}·U_{d,j}` with
//! `U_{d,j} = [(1/2m)·y^{1−2m}·(τ^m − y^m)/(τ − y)]₁`, `m = 2^{D−d}` (the top half of `L_j` modulo
//! `x^{2m} − y^{2m}`). These D + 1 points per entry are precomputed once.
//!
//! Where they come from: [`Setup::dev_insecure`] (τ public — **insecure**, tests only),
//! [`Setup::from_ptau_file`] / [`Setup::from_ptau`] (a Powers-of-Tau ceremony, see
//! [`crate::ptau`]) or [`Setup::from_powers`] (powers from elsewhere), both via FFTs over G1
//! without knowing τ; and [`Setup::read_cache`], the tables saved by [`Setup::write_cache`].
//! Formats, formulas and costs: `docs/lvmt-setup.md`.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use ark_bn254::{Bn254, Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::{
    AffineRepr, CurveGroup, PrimeGroup, VariableBaseMSM, pairing::Pairing, scalar_mul::ScalarMul,
};
use ark_ff::{Field, One, PrimeField, Zero, batch_inversion};
use ark_serialize::{CanonicalSerialize, Compress};
use lightprov_amt::Params;
use sha2::{Digest, Sha256};

pub use crate::input::{MAX_DEPTH, SetupError};
use crate::{
    g1fft::{self, Recoded},
    input::check_point,
};

mod cache;

pub use cache::{CACHE_MAGIC, CACHE_VERSION};

/// Engine tables and verifier parameters for AMTs of depth D.
#[derive(Debug)]
pub struct Setup {
    depth: u8,
    /// `[L_j(τ)]₁`, `j < N`.
    lagrange: Vec<G1Affine>,
    /// `U_{d,j}` at `(d − 1)·N + j`.
    quotient: Vec<G1Affine>,
    params: Params,
    /// True for a setup whose τ is public.
    insecure: bool,
}

impl Setup {
    /// **INSECURE — for development and tests only.** τ is derived from a public seed, so
    /// anyone can forge proofs against it. Real deployments load a powers-of-τ ceremony.
    pub fn dev_insecure(depth: u8, seed: &[u8]) -> Result<Self, SetupError> {
        let h = Sha256::new()
            .chain_update(b"lightprov/lvmt/dev-setup/INSECURE/v1")
            .chain_update([depth])
            .chain_update(seed)
            .finalize();
        let tau = Fr::from_be_bytes_mod_order(&h);
        let mut s = Self::from_tau(depth, tau)?;
        s.insecure = true;
        Ok(s)
    }

    fn from_tau(depth: u8, tau: Fr) -> Result<Self, SetupError> {
        if depth == 0 || depth > MAX_DEPTH {
            return Err(SetupError::Depth(depth));
        }
        let n = 1usize << depth;
        let d = usize::from(depth);
        let omega = lightprov_amt::domain_root(depth).ok_or(SetupError::Depth(depth))?;
        // ω^j, and 1/(τ − ω^j) for every j at once.
        let mut ys = Vec::with_capacity(n);
        let mut y = Fr::one();
        for _ in 0..n {
            ys.push(y);
            y *= omega;
        }
        let mut inv: Vec<Fr> = ys.iter().map(|y| tau - y).collect();
        if inv.iter().any(Zero::is_zero) {
            return Err(SetupError::DegenerateTau);
        }
        batch_inversion(&mut inv);
        let n_inv = Fr::from(n as u64)
            .inverse()
            .ok_or(SetupError::Depth(depth))?;
        let tau_n = tau.pow([n as u64]);
        let mut scalars = Vec::with_capacity(n * (d + 1));
        for (y, i) in ys.iter().zip(&inv) {
            scalars.push(*y * n_inv * (tau_n - Fr::one()) * i);
        }
        for level in 1..=d {
            let m = 1u64 << (d - level);
            let tau_m = tau.pow([m]);
            let half_inv = Fr::from(2 * m).inverse().ok_or(SetupError::Depth(depth))?;
            for (y, i) in ys.iter().zip(&inv) {
                let y_m = y.pow([m]);
                // y^{1−2m} = y · (y^{2m})^{−1}
                let y_pow = *y * (y_m * y_m).inverse().unwrap_or_default();
                scalars.push(half_inv * y_pow * (tau_m - y_m) * i);
            }
        }
        let mut points = G1Projective::generator().batch_mul(&scalars);
        let quotient = points.split_off(n);
        let lagrange = points;
        let g2 = G2Projective::generator();
        let mut g2s = vec![g2];
        let mut t = tau;
        for _ in 0..depth {
            g2s.push(g2 * t);
            t.square_in_place();
        }
        let params = Params::new(depth, G2Projective::normalize_batch(&g2s))
            .map_err(|_| SetupError::Depth(depth))?;
        Ok(Self::from_tables(depth, lagrange, quotient, params))
    }

    /// A setup of derived tables, secure as far as its τ is unknown (the constructors of a
    /// public τ mark it insecure).
    const fn from_tables(
        depth: u8,
        lagrange: Vec<G1Affine>,
        quotient: Vec<G1Affine>,
        params: Params,
    ) -> Self {
        Self {
            depth,
            lagrange,
            quotient,
            params,
            insecure: false,
        }
    }

    /// **Test support, INSECURE.** The tables for a known τ, computed directly (the reference
    /// the ceremony path is checked against). Marked insecure: whoever knows τ can forge.
    #[doc(hidden)]
    pub fn from_known_tau_for_tests(depth: u8, tau: Fr) -> Result<Self, SetupError> {
        let mut s = Self::from_tau(depth, tau)?;
        s.insecure = true;
        Ok(s)
    }

    /// The tables from a snarkjs / Perpetual Powers of Tau `.ptau` file (BN254): reads the first
    /// 2^D points of `tauG1` and the D + 1 points `[τ^{2^i}]₂` of `tauG2` (seeking, so a
    /// multi-gigabyte file costs only those reads), validates them (see [`crate::ptau`]) and
    /// derives the tables with [`Setup::from_powers`].
    pub fn from_ptau(depth: u8, reader: impl Read + Seek) -> Result<Self, SetupError> {
        let powers = crate::ptau::read_powers(depth, reader)?;
        Self::from_powers_named(depth, &powers.tau_g1, &powers.tau_g2, "tauG1", "tauG2")
    }

    /// [`Setup::from_ptau`] on a file.
    pub fn from_ptau_file(depth: u8, path: impl AsRef<Path>) -> Result<Self, SetupError> {
        let file = File::open(path)?;
        Self::from_ptau(depth, BufReader::with_capacity(1 << 20, file))
    }

    /// The tables from powers of a τ nobody knows.
    ///
    /// * `g1`: `[τ^i]₁` for `i < 2^D` (extra points after those are ignored);
    /// * `g2`: either the D + 1 points `[1]₂, [τ]₂, [τ²]₂, [τ⁴]₂, …, [τ^{2^{D−1}}]₂` (what
    ///   [`Params::new`] takes), or the consecutive powers `[τ^i]₂` for `i ≤ 2^{D−1}` at least
    ///   (`g2[i] = [τ^i]₂`), from which those are picked. The two readings agree for D ≤ 2; for
    ///   D ≥ 3 the length tells them apart.
    ///
    /// Refused: points off the curve or outside the subgroup, the point at infinity, a first
    /// point that is not the generator, powers that are not consecutive powers of one τ (checked
    /// with one random linear combination and a 3-pair pairing product), and τ ∈ μ_{2^D}.
    ///
    /// `lagrange` is the inverse DFT of the G1 powers; level d (m = 2^{D−d}) is
    /// `U_{d,j} = (1/2m)·Σ_{k<m} ω^{−j(m+k)}·[τ^k]₁`, one size-m transform per coset of the
    /// m-th roots of unity. The result equals what a known τ gives, point for point.
    pub fn from_powers(depth: u8, g1: &[G1Affine], g2: &[G2Affine]) -> Result<Self, SetupError> {
        Self::from_powers_named(depth, g1, g2, "g1", "g2")
    }

    fn from_powers_named(
        depth: u8,
        g1: &[G1Affine],
        g2: &[G2Affine],
        g1_name: &str,
        g2_name: &str,
    ) -> Result<Self, SetupError> {
        if depth == 0 || depth > MAX_DEPTH {
            return Err(SetupError::Depth(depth));
        }
        let n = 1usize << depth;
        let g1 = g1.get(..n).ok_or_else(|| {
            SetupError::format(
                g1_name,
                format!(
                    "{n} points [τ^i]₁ (i < 2^{depth}) are needed, {} given",
                    g1.len()
                ),
            )
        })?;
        let g2 = select_g2(depth, g2, g2_name)?;
        for (i, p) in g1.iter().enumerate() {
            check_g1(p, &format!("{g1_name}[{i}]"))?;
        }
        for (i, p) in g2.iter().enumerate() {
            check_g2(p, &format!("{g2_name} ([τ^{}]₂)", g2_exponent(i)))?;
        }
        if g1.first() != Some(&G1Affine::generator()) {
            return Err(SetupError::format(
                format!("{g1_name}[0]"),
                "is not the BN254 G1 generator",
            ));
        }
        if g2.first() != Some(&G2Affine::generator()) {
            return Err(SetupError::format(
                format!("{g2_name}[0]"),
                "is not the BN254 G2 generator",
            ));
        }
        check_powers(depth, g1, &g2, g1_name, g2_name)?;
        // τ^N = 1 ⇔ e([τ^{N/2}]₁, [τ^{N/2}]₂) = e([1]₁, [1]₂).
        let half = g1.get(n / 2).copied().unwrap_or_default();
        let top = g2.get(usize::from(depth)).copied().unwrap_or_default();
        if pairing_is_one(
            [half, (-G1Projective::generator()).into_affine()],
            [top, G2Affine::generator()],
        ) {
            return Err(SetupError::DegenerateTau);
        }
        let (lagrange, quotient) = tables(depth, g1)?;
        let params =
            Params::new(depth, g2).map_err(|e| SetupError::format(g2_name, e.to_string()))?;
        Ok(Self::from_tables(depth, lagrange, quotient, params))
    }

    /// D.
    pub const fn depth(&self) -> u8 {
        self.depth
    }

    /// Whether τ is public (the dev setup).
    pub const fn is_insecure(&self) -> bool {
        self.insecure
    }

    /// What the verifier needs.
    pub const fn params(&self) -> &Params {
        &self.params
    }

    /// `[L_j(τ)]₁`.
    pub fn lagrange(&self, j: usize) -> Option<&G1Affine> {
        self.lagrange.get(j)
    }

    /// `U_{d,j}` for `1 ≤ d ≤ D`.
    pub fn quotient(&self, d: usize, j: usize) -> Option<&G1Affine> {
        let n = 1usize << self.depth;
        d.checked_sub(1)
            .and_then(|r| self.quotient.get(r * n + j))
            .filter(|_| j < n)
    }
}

/// The exponent of entry `i` of the compact G2 list: 0, 1, 2, 4, …
fn g2_exponent(i: usize) -> u64 {
    match i.checked_sub(1) {
        None => 0,
        Some(k) => 1u64
            .checked_shl(u32::try_from(k).unwrap_or(u32::MAX))
            .unwrap_or(0),
    }
}

/// The D + 1 points `[τ^{2^i}]₂` (plus `[1]₂` first) from either accepted form of `g2`.
fn select_g2(depth: u8, g2: &[G2Affine], name: &str) -> Result<Vec<G2Affine>, SetupError> {
    let d = usize::from(depth);
    if g2.len() == d + 1 {
        return Ok(g2.to_vec());
    }
    let needed = (1usize << (d - 1)) + 1;
    if g2.len() >= needed {
        return (0..=d)
            .map(|i| {
                let e = usize::try_from(g2_exponent(i)).unwrap_or(usize::MAX);
                g2.get(e).copied()
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| SetupError::format(name, "too few points"));
    }
    Err(SetupError::format(
        name,
        format!(
            "{} points given; expected the {} points [1]₂, [τ]₂, [τ²]₂, …, [τ^{{2^{}}}]₂ or the \
             powers [τ^i]₂ for i ≤ 2^{} ({needed} points)",
            g2.len(),
            d + 1,
            d - 1,
            d - 1
        ),
    ))
}

fn check_g1(p: &G1Affine, field: &str) -> Result<(), SetupError> {
    check_point(p, field, "G1")
}

fn check_g2(p: &G2Affine, field: &str) -> Result<(), SetupError> {
    check_point(p, field, "G2")
}

/// Whether `Π e(aᵢ, bᵢ) = 1`.
fn pairing_is_one<const K: usize>(a: [G1Affine; K], b: [G2Affine; K]) -> bool {
    let ml = Bn254::multi_miller_loop(a, b);
    matches!(Bn254::final_exponentiation(ml), Some(out) if out.is_zero())
}

/// Checks that `g1[i] = [σ^i]₁` and `g2[i] = [σ^{2^{i−1}}]₂` for one σ: with coefficients
/// `rᵢ`, `sᵢ` hashed from every input point,
/// `e(Σ rᵢ·g1[i+1] + Σ sᵢ·g1[2^{i−1}], [1]₂) = e(Σ rᵢ·g1[i], g2[1]) · e([1]₁, Σ sᵢ·g2[i])`.
fn check_powers(
    depth: u8,
    g1: &[G1Affine],
    g2: &[G2Affine],
    g1_name: &str,
    g2_name: &str,
) -> Result<(), SetupError> {
    let mut h = Sha256::new();
    h.update(b"lightprov/lvmt/powers-check/v1");
    h.update([depth]);
    let mut buf = Vec::with_capacity(128);
    for p in g1 {
        buf.clear();
        let _ = p.serialize_with_mode(&mut buf, Compress::No);
        h.update(&buf);
    }
    for p in g2 {
        buf.clear();
        let _ = p.serialize_with_mode(&mut buf, Compress::No);
        h.update(&buf);
    }
    let seed = h.finalize();
    let coef = |i: u64| -> Fr {
        let out = Sha256::new()
            .chain_update(seed)
            .chain_update(i.to_le_bytes())
            .finalize();
        Fr::from_le_bytes_mod_order(out.get(..16).unwrap_or(&[1]))
    };
    let n = g1.len();
    let r: Vec<Fr> = (0..n.saturating_sub(1) as u64).map(coef).collect();
    let (lo, hi) = (
        g1.get(..n - 1).unwrap_or_default(),
        g1.get(1..).unwrap_or_default(),
    );
    let a = G1Projective::msm(hi, &r).map_err(|_| SetupError::format(g1_name, "length"))?;
    let b = G1Projective::msm(lo, &r).map_err(|_| SetupError::format(g1_name, "length"))?;
    let mut c = G1Projective::zero();
    let mut e = G2Projective::zero();
    for (i, q) in g2.iter().enumerate().skip(1) {
        let s = coef((n + i) as u64);
        let idx = usize::try_from(g2_exponent(i)).unwrap_or(usize::MAX);
        let p = g1.get(idx).copied().unwrap_or_default();
        c += p * s;
        e += *q * s;
    }
    let tau2 = g2.get(1).copied().unwrap_or_default();
    let ok = pairing_is_one(
        [
            (a + c).into_affine(),
            (-b).into_affine(),
            (-G1Projective::generator()).into_affine(),
        ],
        [G2Affine::generator(), tau2, e.into_affine()],
    );
    if ok {
        Ok(())
    } else {
        Err(SetupError::format(
            format!("{g1_name}/{g2_name}"),
            "the points are not consecutive powers of one τ",
        ))
    }
}

/// The Lagrange and quotient tables from `g1 = [τ^i]₁`, `i < N`.
fn tables(depth: u8, g1: &[G1Affine]) -> Result<(Vec<G1Affine>, Vec<G1Affine>), SetupError> {
    let n = 1usize << depth;
    let d = usize::from(depth);
    let omega = lightprov_amt::domain_root(depth).ok_or(SetupError::Depth(depth))?;
    let inv = g1fft::inverse_roots(omega.inverse().ok_or(SetupError::Depth(depth))?, n);
    let powers: Vec<G1Projective> = g1.iter().map(|p| p.into_group()).collect();
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let root = |e: usize| inv.get(e % n).copied().unwrap_or_default();
    let power = |k: usize| powers.get(k).copied().unwrap_or_default();

    // L_j = (1/N)·Σ_{k<N} ω^{−jk}·[τ^k]. Split j = p + 2u: a size-N/2 transform of
    // a⁽ᵖ⁾_k = (ω^{−pk}/N)·([τ^k] + (−1)^p·[τ^{k+N/2}]) per parity p.
    let n_inv = Fr::from(n as u64)
        .inverse()
        .ok_or(SetupError::Depth(depth))?;
    let half = n / 2;
    let lagrange = cosets(n, 2, threads, &inv, |p| {
        let scale = Recoded::new(n_inv);
        (0..half)
            .map(|k| {
                if p == 0 {
                    scale.mul(&(power(k) + power(k + half)))
                } else {
                    Recoded::new(root(k) * n_inv).mul(&(power(k) - power(k + half)))
                }
            })
            .collect()
    })?;
    let lagrange = G1Projective::normalize_batch(&lagrange);

    // Level d, m = 2^{D−d}: U_{d,j} = (1/2m)·Σ_{k<m} ω^{−j(m+k)}·[τ^k]. For j = t + (N/m)·u,
    // ω^{−j(m+k)} = ω^{−t(m+k)}·ω_m^{−uk}: a size-m transform of the twisted powers per coset t.
    let mut quotient = Vec::with_capacity(n * d);
    for level in 1..=d {
        let m = 1usize << (d - level);
        let inv_2m = Fr::from(2 * m as u64)
            .inverse()
            .ok_or(SetupError::Depth(depth))?;
        let row = cosets(n, n / m, threads, &inv, |t| {
            let first = Recoded::new(inv_2m);
            (0..m)
                .map(|k| {
                    if t == 0 {
                        first.mul(&power(k))
                    } else {
                        Recoded::new(root(t * (m + k)) * inv_2m).mul(&power(k))
                    }
                })
                .collect()
        })?;
        quotient.extend(G1Projective::normalize_batch(&row));
    }
    Ok((lagrange, quotient))
}

/// Runs `twist(t)` and a size-`n/count` inverse transform for every coset `t < count` on up to
/// `threads` threads; output `u` of coset `t` lands at `t + count·u`.
fn cosets<F>(
    n: usize,
    count: usize,
    threads: usize,
    inv: &[Fr],
    twist: F,
) -> Result<Vec<G1Projective>, SetupError>
where
    F: Fn(usize) -> Vec<G1Projective> + Sync,
{
    let next = AtomicUsize::new(0);
    let workers = threads.clamp(1, count.max(1));
    let work = || -> Option<Vec<(usize, Vec<G1Projective>)>> {
        let mut done = Vec::new();
        loop {
            let t = next.fetch_add(1, Ordering::Relaxed);
            if t >= count {
                return Some(done);
            }
            let mut a = twist(t);
            if !g1fft::inverse_dft_unscaled(&mut a, inv, n) {
                return None;
            }
            done.push((t, a));
        }
    };
    let results = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers).map(|_| s.spawn(work)).collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect::<Option<Vec<_>>>()
    })
    .ok_or_else(|| SetupError::format("tables", "a table worker failed"))?;
    let mut out = vec![G1Projective::zero(); n];
    for (t, vals) in results.into_iter().flatten() {
        for (u, v) in vals.into_iter().enumerate() {
            if let Some(slot) = out.get_mut(t + count * u) {
                *slot = v;
            }
        }
    }
    Ok(out)
}
