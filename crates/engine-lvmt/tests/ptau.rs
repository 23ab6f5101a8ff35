//! The `.ptau` loader and `Setup::from_powers` against a setup from a known τ: a test-only
//! writer produces small `.ptau` files, and every refusal is fed exactly its defect.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::io::Cursor;

use ark_bn254::{Fq, Fq2, Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::{AffineRepr, CurveGroup, PrimeGroup};
use ark_ff::{BigInteger, Field, PrimeField, Zero};
use lightprov_engine_lvmt::ptau;
use lightprov_engine_lvmt::setup::{Setup, SetupError};
use proptest::prelude::*;
use sha2::{Digest, Sha256};

const POWER: u32 = 6;

fn tau() -> Fr {
    Fr::from_be_bytes_mod_order(&Sha256::digest(b"lightprov ptau test tau"))
}

// ---------------------------------------------------------------- test-only .ptau writer

fn mont(x: Fq) -> [u8; 32] {
    let r = Fq::from(2u64).pow([256u64]);
    let b = (x * r).into_bigint().to_bytes_le();
    b.try_into().unwrap()
}

fn g1_bytes(p: &G1Affine) -> Vec<u8> {
    match p.xy() {
        None => vec![0; 64],
        Some((x, y)) => [mont(x), mont(y)].concat(),
    }
}

fn g2_bytes(p: &G2Affine) -> Vec<u8> {
    match p.xy() {
        None => vec![0; 128],
        Some((x, y)) => [mont(x.c0), mont(x.c1), mont(y.c0), mont(y.c1)].concat(),
    }
}

/// The sections of a valid file for `tau` and `power`, in id order (ids 1–7 as snarkjs writes
/// them; 4–7 are filler the loader must skip).
fn sections(tau: Fr, power: u32) -> Vec<(u32, Vec<u8>)> {
    let n = 1usize << power;
    let mut header = Vec::new();
    header.extend(32u32.to_le_bytes());
    header.extend(Fq::MODULUS.to_bytes_le());
    header.extend(power.to_le_bytes());
    header.extend(28u32.to_le_bytes());
    let mut g1 = Vec::new();
    let mut t = Fr::from(1u64);
    for _ in 0..2 * n - 1 {
        g1.extend(g1_bytes(&(G1Projective::generator() * t).into_affine()));
        t *= tau;
    }
    let mut g2 = Vec::new();
    let mut t = Fr::from(1u64);
    for _ in 0..n {
        g2.extend(g2_bytes(&(G2Projective::generator() * t).into_affine()));
        t *= tau;
    }
    let filler_g1: Vec<u8> = (0..n)
        .flat_map(|_| g1_bytes(&G1Affine::generator()))
        .collect();
    vec![
        (1, header),
        (2, g1),
        (3, g2),
        (4, filler_g1.clone()),
        (5, filler_g1),
        (6, g2_bytes(&G2Affine::generator())),
        (7, 0u32.to_le_bytes().to_vec()),
    ]
}

fn assemble(magic: &[u8], version: u32, sections: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let mut out = magic.to_vec();
    out.extend(version.to_le_bytes());
    out.extend((sections.len() as u32).to_le_bytes());
    for (id, data) in sections {
        out.extend(id.to_le_bytes());
        out.extend((data.len() as u64).to_le_bytes());
        out.extend(data);
    }
    out
}

fn valid_file() -> Vec<u8> {
    assemble(b"ptau", 1, &sections(tau(), POWER))
}

/// Byte offset of section `id`'s data in a file laid out by [`assemble`].
fn data_offset(sections: &[(u32, Vec<u8>)], id: u32) -> usize {
    let mut off = 12;
    for (i, d) in sections {
        off += 12;
        if *i == id {
            return off;
        }
        off += d.len();
    }
    panic!("no section {id}");
}

// ---------------------------------------------------------------- helpers

fn same_tables(a: &Setup, b: &Setup) {
    assert_eq!(a.depth(), b.depth());
    let n = 1usize << a.depth();
    for j in 0..n {
        assert_eq!(
            a.lagrange(j),
            b.lagrange(j),
            "lagrange[{j}] at depth {}",
            a.depth()
        );
        for d in 1..=usize::from(a.depth()) {
            assert_eq!(
                a.quotient(d, j),
                b.quotient(d, j),
                "U[{d},{j}] at depth {}",
                a.depth()
            );
        }
    }
    assert!(a.lagrange(n).is_none());
    assert_eq!(a.params().encode(), b.params().encode());
}

fn load(bytes: &[u8], depth: u8) -> Result<Setup, SetupError> {
    Setup::from_ptau(depth, Cursor::new(bytes))
}

#[track_caller]
fn refused(r: Result<Setup, SetupError>, want_field: &str) {
    match r {
        Err(SetupError::Format { field, reason }) => {
            assert_eq!(field, want_field, "reason: {reason}");
            let shown = SetupError::Format {
                field: field.clone(),
                reason: reason.clone(),
            }
            .to_string();
            assert!(shown.starts_with(&field), "{shown}");
        }
        Err(e) => panic!("expected a format error on {want_field}, got {e:?}"),
        Ok(_) => panic!("expected a format error on {want_field}, got a setup"),
    }
}

fn patch(bytes: &mut [u8], at: usize, with: &[u8]) {
    bytes[at..at + with.len()].copy_from_slice(with);
}

// ---------------------------------------------------------------- equality with a known τ

#[test]
fn ptau_tables_equal_known_tau_tables() {
    let file = valid_file();
    for depth in 1..=POWER as u8 {
        let from_file = load(&file, depth).unwrap();
        assert!(!from_file.is_insecure());
        let reference = Setup::from_known_tau_for_tests(depth, tau()).unwrap();
        same_tables(&from_file, &reference);
    }
}

#[test]
fn from_powers_accepts_both_g2_forms() {
    let depth = 5u8;
    let n = 1usize << depth;
    let powers_g1: Vec<G1Affine> = (0..n as u64)
        .map(|i| (G1Projective::generator() * tau().pow([i])).into_affine())
        .collect();
    let full_g2: Vec<G2Affine> = (0..=n as u64 / 2)
        .map(|i| (G2Projective::generator() * tau().pow([i])).into_affine())
        .collect();
    let compact: Vec<G2Affine> = [0usize, 1, 2, 4, 8, 16]
        .iter()
        .map(|&e| full_g2[e])
        .collect();
    let reference = Setup::from_known_tau_for_tests(depth, tau()).unwrap();
    same_tables(
        &Setup::from_powers(depth, &powers_g1, &compact).unwrap(),
        &reference,
    );
    same_tables(
        &Setup::from_powers(depth, &powers_g1, &full_g2).unwrap(),
        &reference,
    );
    // Neither form: 4 points at depth 5.
    assert!(matches!(
        Setup::from_powers(depth, &powers_g1, &full_g2[..4]),
        Err(SetupError::Format { ref field, .. }) if field == "g2"
    ));
    // Too few G1 powers.
    assert!(matches!(
        Setup::from_powers(depth, &powers_g1[..n - 1], &compact),
        Err(SetupError::Format { ref field, .. }) if field == "g1"
    ));
    // A power of another τ.
    let mut bad = powers_g1.clone();
    bad[7] = (G1Projective::generator() * (tau().pow([7]) + Fr::from(1u64))).into_affine();
    assert!(matches!(
        Setup::from_powers(depth, &bad, &compact),
        Err(SetupError::Format { ref field, .. }) if field == "g1/g2"
    ));
    let mut bad = compact.clone();
    bad[3] = (G2Projective::generator() * tau().pow([5])).into_affine();
    assert!(matches!(
        Setup::from_powers(depth, &powers_g1, &bad),
        Err(SetupError::Format { ref field, .. }) if field == "g1/g2"
    ));
    // Points off the curve.
    let mut bad = powers_g1.clone();
    bad[3] = G1Affine::new_unchecked(bad[3].x, bad[3].y + Fq::from(1u64));
    assert!(matches!(
        Setup::from_powers(depth, &bad, &compact),
        Err(SetupError::Format { ref field, .. }) if field == "g1[3]"
    ));
    assert!(matches!(
        Setup::from_powers(0, &powers_g1, &compact),
        Err(SetupError::Depth(0))
    ));
    assert!(matches!(
        Setup::from_powers(21, &powers_g1, &compact),
        Err(SetupError::Depth(21))
    ));
}

#[test]
fn ptau_from_a_file_path() {
    let dir = std::env::temp_dir().join(format!("lvmt-ptau-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tiny.ptau");
    std::fs::write(&path, valid_file()).unwrap();
    let s = Setup::from_ptau_file(3, &path).unwrap();
    same_tables(&s, &Setup::from_known_tau_for_tests(3, tau()).unwrap());
    let powers = ptau::read_powers_file(4, &path).unwrap();
    assert_eq!(powers.header.power, POWER);
    assert_eq!(powers.header.ceremony_power, 28);
    assert_eq!(powers.tau_g1.len(), 16);
    assert_eq!(powers.tau_g2.len(), 5);
    assert!(matches!(
        Setup::from_ptau_file(3, dir.join("missing.ptau")),
        Err(SetupError::Io(_))
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sections_in_any_order_and_unknown_ones_skipped() {
    let mut s = sections(tau(), POWER);
    s.reverse();
    s.push((99, vec![1, 2, 3]));
    s.push((0, vec![]));
    let file = assemble(b"ptau", 1, &s);
    let h = ptau::read_header(Cursor::new(&file)).unwrap();
    assert_eq!(h.power, POWER);
    same_tables(
        &load(&file, 4).unwrap(),
        &Setup::from_known_tau_for_tests(4, tau()).unwrap(),
    );
}

// ---------------------------------------------------------------- refusals

#[test]
fn refuses_wrong_magic() {
    refused(load(&assemble(b"ptaw", 1, &sections(tau(), 2)), 2), "magic");
    refused(load(&assemble(b"zkey", 1, &sections(tau(), 2)), 2), "magic");
    refused(load(b"pt", 2), "magic");
    refused(load(b"", 2), "magic");
}

#[test]
fn refuses_unsupported_version() {
    refused(
        load(&assemble(b"ptau", 2, &sections(tau(), 2)), 2),
        "version",
    );
    refused(
        load(&assemble(b"ptau", 0, &sections(tau(), 2)), 2),
        "version",
    );
}

#[test]
fn refuses_other_curves() {
    // BLS12-381: a 48-byte base field.
    let mut s = sections(tau(), 2);
    let mut header = 48u32.to_le_bytes().to_vec();
    header.extend(vec![0xab; 48]);
    header.extend(2u32.to_le_bytes());
    header.extend(2u32.to_le_bytes());
    s[0].1 = header;
    refused(load(&assemble(b"ptau", 1, &s), 2), "header.n8");
    // 32 bytes, but the scalar-field modulus instead of the base field's.
    let mut s = sections(tau(), 2);
    s[0].1[4..36].copy_from_slice(&Fr::MODULUS.to_bytes_le());
    refused(load(&assemble(b"ptau", 1, &s), 2), "header.q");
}

#[test]
fn refuses_too_small_power() {
    let file = assemble(b"ptau", 1, &sections(tau(), 3));
    refused(load(&file, 4), "header.power");
    assert!(load(&file, 3).is_ok());
}

#[test]
fn refuses_bad_depth() {
    assert!(matches!(load(&valid_file(), 0), Err(SetupError::Depth(0))));
    assert!(matches!(
        load(&valid_file(), 21),
        Err(SetupError::Depth(21))
    ));
}

#[test]
fn refuses_missing_sections() {
    for (id, name) in [
        (1, "section 1 (header)"),
        (2, "section 2 (tauG1)"),
        (3, "section 3 (tauG2)"),
    ] {
        let s: Vec<_> = sections(tau(), 2)
            .into_iter()
            .filter(|(i, _)| *i != id)
            .collect();
        refused(load(&assemble(b"ptau", 1, &s), 2), name);
    }
}

#[test]
fn refuses_duplicate_sections() {
    let mut s = sections(tau(), 2);
    s.push(s[2].clone());
    refused(load(&assemble(b"ptau", 1, &s), 2), "section 3 (tauG2)");
}

#[test]
fn refuses_short_sections() {
    // One point short.
    let mut s = sections(tau(), 3);
    let l = s[1].1.len();
    s[1].1.truncate(l - 64);
    refused(load(&assemble(b"ptau", 1, &s), 2), "section 2 (tauG1)");
    let mut s = sections(tau(), 3);
    let l = s[2].1.len();
    s[2].1.truncate(l - 128);
    refused(load(&assemble(b"ptau", 1, &s), 2), "section 3 (tauG2)");
    // A point too many is as wrong.
    let mut s = sections(tau(), 3);
    s[1].1.extend(vec![0; 64]);
    refused(load(&assemble(b"ptau", 1, &s), 2), "section 2 (tauG1)");
    // A header section of the wrong length.
    let mut s = sections(tau(), 3);
    s[0].1.extend([0; 4]);
    refused(load(&assemble(b"ptau", 1, &s), 2), "section 1 (header)");
    let mut s = sections(tau(), 3);
    s[0].1.truncate(40);
    refused(load(&assemble(b"ptau", 1, &s), 2), "header.ceremonyPower");
}

#[test]
fn refuses_truncated_files() {
    let file = valid_file();
    let s = sections(tau(), POWER);
    // Cut inside tauG2: the section table says it runs past the end.
    let cut = data_offset(&s, 3) + 100;
    refused(load(&file[..cut], 2), "section 3 (tauG2)");
    // Cut inside the section table.
    refused(load(&file[..20], 2), "section table entry 0");
    refused(load(&file[..10], 2), "section count");
}

#[test]
fn refuses_points_off_the_curve() {
    let s = sections(tau(), POWER);
    let mut file = valid_file();
    let p = (G1Projective::generator() * tau().pow([3u64])).into_affine();
    let (x, y) = p.xy().unwrap();
    patch(
        &mut file,
        data_offset(&s, 2) + 3 * 64,
        &[mont(x), mont(y + Fq::from(1u64))].concat(),
    );
    refused(load(&file, 3), "tauG1[3]");
    // Beyond the points a depth-1 setup reads: not looked at.
    assert!(load(&file, 1).is_ok());

    let mut file = valid_file();
    let at = data_offset(&s, 3) + 2 * 128; // tauG2[2].x.c0
    file[at] ^= 1;
    refused(load(&file, 3), "tauG2[2]");
}

#[test]
fn refuses_g2_points_outside_the_subgroup() {
    // A point on the twist curve but (overwhelmingly likely) not of order r.
    let off = (0u64..)
        .find_map(|i| {
            let h = |t: &[u8]| {
                Fq::from_le_bytes_mod_order(
                    &Sha256::new()
                        .chain_update(t)
                        .chain_update(i.to_le_bytes())
                        .finalize(),
                )
            };
            let x = Fq2::new(h(b"c0"), h(b"c1"));
            G2Affine::get_point_from_x_unchecked(x, false)
                .filter(|p| !p.is_in_correct_subgroup_assuming_on_curve())
        })
        .unwrap();
    let mut s = sections(tau(), POWER);
    s[2].1[4 * 128..5 * 128].copy_from_slice(&g2_bytes(&off));
    let file = assemble(b"ptau", 1, &s);
    refused(load(&file, 3), "tauG2[4]");
    assert!(load(&file, 2).is_ok(), "tauG2[4] is not read at depth 2");
}

#[test]
fn refuses_points_at_infinity() {
    let s = sections(tau(), POWER);
    let mut file = valid_file();
    patch(&mut file, data_offset(&s, 2) + 64, &[0; 64]);
    refused(load(&file, 2), "tauG1[1]");
    let mut file = valid_file();
    patch(&mut file, data_offset(&s, 3) + 128, &[0; 128]);
    refused(load(&file, 2), "tauG2[1]");
    let mut file = valid_file();
    patch(&mut file, data_offset(&s, 3), &[0; 128]);
    refused(load(&file, 1), "tauG2[0]");
}

#[test]
fn refuses_non_canonical_coordinates() {
    let s = sections(tau(), POWER);
    let mut file = valid_file();
    patch(&mut file, data_offset(&s, 2) + 2 * 64, &[0xff; 32]);
    refused(load(&file, 2), "tauG1[2]");
}

#[test]
fn refuses_a_first_point_that_is_not_the_generator() {
    let mut s = sections(tau(), POWER);
    let other = (G1Projective::generator() * Fr::from(5u64)).into_affine();
    s[1].1[..64].copy_from_slice(&g1_bytes(&other));
    refused(load(&assemble(b"ptau", 1, &s), 2), "tauG1[0]");
    let mut s = sections(tau(), POWER);
    let other = (G2Projective::generator() * Fr::from(5u64)).into_affine();
    s[2].1[..128].copy_from_slice(&g2_bytes(&other));
    refused(load(&assemble(b"ptau", 1, &s), 2), "tauG2[0]");
}

#[test]
fn refuses_powers_of_different_taus() {
    // tauG1[5] from another τ: every point valid, the sequence not.
    let mut s = sections(tau(), POWER);
    let other = (G1Projective::generator() * (tau().pow([5u64]) + Fr::from(1u64))).into_affine();
    s[1].1[5 * 64..6 * 64].copy_from_slice(&g1_bytes(&other));
    let file = assemble(b"ptau", 1, &s);
    refused(load(&file, 3), "tauG1/tauG2");
    assert!(load(&file, 2).is_ok(), "tauG1[5] is not read at depth 2");
    // tauG2 from another τ.
    let mut s = sections(tau(), POWER);
    let other = (G2Projective::generator() * Fr::from(12345u64)).into_affine();
    s[2].1[2 * 128..3 * 128].copy_from_slice(&g2_bytes(&other));
    refused(load(&assemble(b"ptau", 1, &s), 3), "tauG1/tauG2");
}

#[test]
fn refuses_a_degenerate_tau() {
    // τ = −1 is a root of unity of every domain; τ = ω₈ of the depth-3 one only.
    let file = assemble(b"ptau", 1, &sections(-Fr::from(1u64), 3));
    for depth in 1..=3 {
        assert!(matches!(load(&file, depth), Err(SetupError::DegenerateTau)));
    }
    let w8: Fr = ark_ff::FftField::get_root_of_unity(8).unwrap();
    let file = assemble(b"ptau", 1, &sections(w8, 4));
    assert!(matches!(load(&file, 3), Err(SetupError::DegenerateTau)));
    assert!(matches!(load(&file, 4), Err(SetupError::DegenerateTau)));
    assert!(load(&file, 2).is_ok());
    // τ = 0: the powers are the point at infinity.
    let file = assemble(b"ptau", 1, &sections(Fr::zero(), 2));
    refused(load(&file, 2), "tauG1[1]");
}

// ---------------------------------------------------------------- no panics on any input

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn arbitrary_damage_never_panics(
        flips in proptest::collection::vec((0usize..12_000, any::<u8>()), 1..6),
        cut in proptest::option::of(0usize..12_000),
        depth in 1u8..=3,
    ) {
        let mut file = assemble(b"ptau", 1, &sections(tau(), 3));
        for (at, v) in flips {
            let at = at % file.len();
            file[at] ^= v;
        }
        if let Some(c) = cut {
            file.truncate(c.min(file.len()));
        }
        let _ = load(&file, depth);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let mut file = b"ptau\x01\x00\x00\x00".to_vec();
        file.extend(bytes);
        let _ = load(&file, 2);
    }
}
