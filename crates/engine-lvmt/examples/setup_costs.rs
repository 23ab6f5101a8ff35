//! Measures `Setup::from_powers` and the table cache.
//!
//! `cargo run --release -p lightprov-engine-lvmt --example setup_costs -- [--check] [--ptau] 10 12`
//!
//! The powers come from a τ this program picks (so it is a cost measurement, not a setup);
//! `--check` also builds the tables from τ directly and compares them point for point, `--ptau`
//! writes the powers as a `.ptau` file (power D + 2) and times reading the needed points back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::time::Instant;

use std::io::Write;
use std::path::Path;

use ark_bn254::{Fq, Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup, scalar_mul::ScalarMul};
use ark_ff::{BigInteger, Field, PrimeField};
use lightprov_engine_lvmt::{ptau, setup::Setup};
use sha2::{Digest, Sha256};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    let with_ptau = args.iter().any(|a| a == "--ptau");
    let mut depths: Vec<u8> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if depths.is_empty() {
        depths = vec![10, 12, 14];
    }
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    println!("threads: {threads}");
    for depth in depths {
        let n = 1usize << depth;
        let tau = Fr::from_be_bytes_mod_order(&Sha256::digest([b'c', depth]));
        let mut scalars = Vec::with_capacity(n);
        let mut t = Fr::from(1u64);
        for _ in 0..n {
            scalars.push(t);
            t *= tau;
        }
        let g1 = G1Projective::generator().batch_mul(&scalars);
        let g2: Vec<_> = std::iter::once(Fr::from(1u64))
            .chain((0..depth).map(|i| tau.pow([1u64 << i])))
            .map(|s| (G2Projective::generator() * s).into_affine())
            .collect();

        if with_ptau {
            let dir = std::env::temp_dir().join(format!("lvmt-ptau-costs-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join("synthetic.ptau");
            write_ptau(&path, tau, u32::from(depth) + 2);
            let size = std::fs::metadata(&path).unwrap().len();
            let start = Instant::now();
            let powers = ptau::read_powers_file(depth, &path).unwrap();
            println!(
                "D = {depth:2}: read_powers from a {size}-byte power-{} file {:.2?}",
                depth + 2,
                start.elapsed()
            );
            assert_eq!(powers.tau_g1.len(), n);
            assert_eq!(powers.tau_g2, g2);
            std::fs::remove_dir_all(&dir).unwrap();
        }

        let start = Instant::now();
        let setup = Setup::from_powers(depth, &g1, &g2).expect("from_powers");
        let from_powers = start.elapsed();
        println!("D = {depth:2}: from_powers {from_powers:.2?}");

        if check {
            let start = Instant::now();
            let reference = Setup::from_known_tau_for_tests(depth, tau).expect("from_tau");
            println!("        from τ directly {:.2?}", start.elapsed());
            for j in 0..n {
                assert_eq!(setup.lagrange(j), reference.lagrange(j));
                for d in 1..=usize::from(depth) {
                    assert_eq!(setup.quotient(d, j), reference.quotient(d, j));
                }
            }
            assert_eq!(setup.params().encode(), reference.params().encode());
            println!("        tables identical");
        }

        let dir = std::env::temp_dir().join(format!("lvmt-setup-costs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("amt-{depth}.tables"));
        let start = Instant::now();
        setup.write_cache(&path).unwrap();
        let write = start.elapsed();
        let size = std::fs::metadata(&path).unwrap().len();
        let start = Instant::now();
        let back = Setup::read_cache(&path).unwrap();
        let read = start.elapsed();
        assert_eq!(back.lagrange(n - 1), setup.lagrange(n - 1));
        println!("        cache: {size} bytes, write {write:.2?}, read {read:.2?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// `x·2^256 mod q`, 32 bytes little-endian.
fn mont(x: Fq) -> Vec<u8> {
    (x * Fq::from(2u64).pow([256u64]))
        .into_bigint()
        .to_bytes_le()
}

/// A `.ptau` file with sections 1–3 for `tau` (the loader ignores the others).
fn write_ptau(path: &Path, tau: Fr, power: u32) {
    let n = 1usize << power;
    let mut scalars = Vec::with_capacity(2 * n);
    let mut t = Fr::from(1u64);
    for _ in 0..2 * n - 1 {
        scalars.push(t);
        t *= tau;
    }
    let g1: Vec<G1Affine> = G1Projective::generator().batch_mul(&scalars);
    let g2: Vec<G2Affine> = G2Projective::generator().batch_mul(&scalars[..n]);
    let mut header = 32u32.to_le_bytes().to_vec();
    header.extend(Fq::MODULUS.to_bytes_le());
    header.extend(power.to_le_bytes());
    header.extend(power.to_le_bytes());
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    w.write_all(b"ptau").unwrap();
    w.write_all(&1u32.to_le_bytes()).unwrap();
    w.write_all(&3u32.to_le_bytes()).unwrap();
    let mut section = |id: u32, data: &[u8]| {
        w.write_all(&id.to_le_bytes()).unwrap();
        w.write_all(&(data.len() as u64).to_le_bytes()).unwrap();
        w.write_all(data).unwrap();
    };
    section(1, &header);
    let g1_bytes: Vec<u8> = g1
        .iter()
        .flat_map(|p| {
            let (x, y) = p.xy().unwrap();
            [mont(x), mont(y)].concat()
        })
        .collect();
    section(2, &g1_bytes);
    let g2_bytes: Vec<u8> = g2
        .iter()
        .flat_map(|p| {
            let (x, y) = p.xy().unwrap();
            [mont(x.c0), mont(x.c1), mont(y.c0), mont(y.c1)].concat()
        })
        .collect();
    section(3, &g2_bytes);
    w.flush().unwrap();
}
