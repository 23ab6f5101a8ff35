//! The AMT parameters: per-entry points the engine adds on a version bump, and the G2 powers
//! the verifier pairs with.
//!
//! For entry `j` (`y = ω^j`, `N = 2^D`), a version bump in slot `s` adds `2^{40s}` to `a_j`, so
//! the commitment moves by `2^{40s}·[L_j(τ)]₁` with `L_j(τ) = (y/N)(τ^N − 1)/(τ − y)`, and the
//! proof node of depth `d − 1` on `j`'s path moves by `2^{40s}·U_{d,j}` with
//! `U_{d,j} = [(1/2m)·y^{1−2m}·(τ^m − y^m)/(τ − y)]₁`, `m = 2^{D−d}` (the top half of `L_j` modulo
//! `x^{2m} − y^{2m}`). These D + 1 points per entry are precomputed once.

use ark_bn254::{Fr, G1Affine, G1Projective, G2Projective};
use ark_ec::{CurveGroup, PrimeGroup, scalar_mul::ScalarMul};
use ark_ff::{FftField, Field, One, PrimeField, Zero, batch_inversion};
use lightprov_verifier::lvmt::amt::Params;
use sha2::{Digest, Sha256};

/// Setup failures.
#[derive(Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The depth is outside what the engine supports.
    Depth(u8),
    /// τ hit a root of unity (only for a pathological seed).
    DegenerateTau,
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Depth(d) => write!(f, "AMT depth {d} is outside 1..=20"),
            Self::DegenerateTau => f.write_str("τ is a root of unity of the domain"),
        }
    }
}

impl std::error::Error for SetupError {}

/// The deepest AMT the engine builds tables for.
pub const MAX_DEPTH: u8 = 20;

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
        let omega = Fr::get_root_of_unity(n as u64).ok_or(SetupError::Depth(depth))?;
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
        Ok(Self {
            depth,
            lagrange,
            quotient,
            params,
            insecure: false,
        })
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
