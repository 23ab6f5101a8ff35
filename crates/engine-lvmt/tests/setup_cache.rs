//! The table cache: a round trip gives the same setup; corruption, truncation and foreign files
//! are refused, naming the field.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::path::{Path, PathBuf};

use lightprov_engine_lvmt::setup::{CACHE_MAGIC, CACHE_VERSION, Setup, SetupError};

const DEPTH: u8 = 5;

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let p = std::env::temp_dir().join(format!("lvmt-cache-test-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Self(p)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn same_setup(a: &Setup, b: &Setup) {
    assert_eq!(a.depth(), b.depth());
    assert_eq!(a.is_insecure(), b.is_insecure());
    assert_eq!(a.params().encode(), b.params().encode());
    assert_eq!(a.params().id(), b.params().id());
    let n = 1usize << a.depth();
    for j in 0..n {
        assert_eq!(a.lagrange(j), b.lagrange(j));
        for d in 1..=usize::from(a.depth()) {
            assert_eq!(a.quotient(d, j), b.quotient(d, j));
        }
    }
}

#[track_caller]
fn refused(path: &Path, want_field: &str) {
    match Setup::read_cache(path) {
        Err(SetupError::Format { field, reason }) => {
            assert_eq!(field, want_field, "reason: {reason}")
        }
        Err(e) => panic!("expected a format error on {want_field}, got {e:?}"),
        Ok(_) => panic!("expected a format error on {want_field}, got a setup"),
    }
}

fn expected_len(depth: u8) -> usize {
    let n = 1usize << depth;
    18 + 1 + 64 * (usize::from(depth) + 1) + 64 * n * (usize::from(depth) + 1) + 32
}

#[test]
fn round_trip_keeps_everything() {
    let dir = TempDir::new("round-trip");
    for (setup, name) in [
        (Setup::dev_insecure(DEPTH, b"cache").unwrap(), "dev"),
        (
            Setup::from_powers(
                2,
                &powers_g1(2, ark_bn254::Fr::from(1234567u64)),
                &powers_g2(2, ark_bn254::Fr::from(1234567u64)),
            )
            .unwrap(),
            "powers",
        ),
    ] {
        let path = dir.path(&format!("{name}.tables"));
        setup.write_cache(&path).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().len() as usize,
            expected_len(setup.depth())
        );
        let back = Setup::read_cache(&path).unwrap();
        same_setup(&setup, &back);
        // Overwriting an existing cache works and leaves no temporary files behind.
        setup.write_cache(&path).unwrap();
        same_setup(&setup, &Setup::read_cache(&path).unwrap());
    }
    let names: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let s = Setup::read_cache(&dir.path("dev.tables")).unwrap();
    assert!(s.is_insecure());
    assert!(
        !Setup::read_cache(&dir.path("powers.tables"))
            .unwrap()
            .is_insecure()
    );
}

fn powers_g1(depth: u8, tau: ark_bn254::Fr) -> Vec<ark_bn254::G1Affine> {
    use ark_ec::{CurveGroup, PrimeGroup};
    use ark_ff::Field;
    (0..1u64 << depth)
        .map(|i| (ark_bn254::G1Projective::generator() * tau.pow([i])).into_affine())
        .collect()
}

fn powers_g2(depth: u8, tau: ark_bn254::Fr) -> Vec<ark_bn254::G2Affine> {
    use ark_ec::{CurveGroup, PrimeGroup};
    use ark_ff::Field;
    std::iter::once(0u64)
        .chain((0..depth).map(|i| 1u64 << i))
        .map(|e| (ark_bn254::G2Projective::generator() * tau.pow([e])).into_affine())
        .collect()
}

#[test]
fn the_header_is_as_documented() {
    let dir = TempDir::new("header");
    let path = dir.path("t");
    Setup::dev_insecure(3, b"h")
        .unwrap()
        .write_cache(&path)
        .unwrap();
    let b = std::fs::read(&path).unwrap();
    assert_eq!(&b[..8], &CACHE_MAGIC);
    assert_eq!(
        u32::from_le_bytes(b[8..12].try_into().unwrap()),
        CACHE_VERSION
    );
    assert_eq!(b[12], 3);
    assert_eq!(b[13], 1);
    assert_eq!(
        u32::from_le_bytes(b[14..18].try_into().unwrap()),
        1 + 64 * 4
    );
    assert_eq!(b[18], 3, "params start with the depth");
    let body_end = b.len() - 32;
    let digest = <sha2::Sha256 as sha2::Digest>::digest(&b[..body_end]);
    assert_eq!(&b[body_end..], &digest[..]);
}

#[test]
fn corruption_anywhere_is_caught() {
    let dir = TempDir::new("corrupt");
    let good = dir.path("good");
    Setup::dev_insecure(DEPTH, b"c")
        .unwrap()
        .write_cache(&good)
        .unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let bad = dir.path("bad");
    // In the params, in the lagrange points, in the quotients, in the checksum itself.
    let n = 1usize << DEPTH;
    for at in [
        20,
        18 + 385 + 5,
        18 + 385 + 64 * n + 100,
        bytes.len() - 64 - 1,
        bytes.len() - 1,
    ] {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        std::fs::write(&bad, &b).unwrap();
        refused(&bad, "checksum");
    }
    // The depth byte: the length no longer fits.
    let mut b = bytes.clone();
    b[12] = DEPTH + 1;
    std::fs::write(&bad, &b).unwrap();
    refused(&bad, "params_len");
    // The insecure flag: checksum (0/1 swapped) or a refused value.
    let mut b = bytes.clone();
    b[13] = 0;
    std::fs::write(&bad, &b).unwrap();
    refused(&bad, "checksum");
    b[13] = 7;
    std::fs::write(&bad, &b).unwrap();
    refused(&bad, "insecure");
}

#[test]
fn truncation_and_extension_are_caught() {
    let dir = TempDir::new("truncate");
    let good = dir.path("good");
    Setup::dev_insecure(DEPTH, b"t")
        .unwrap()
        .write_cache(&good)
        .unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let bad = dir.path("bad");
    for len in [bytes.len() - 1, bytes.len() - 32, bytes.len() / 2, 19] {
        std::fs::write(&bad, &bytes[..len]).unwrap();
        refused(&bad, "length");
    }
    for len in [0, 5, 17] {
        std::fs::write(&bad, &bytes[..len]).unwrap();
        refused(&bad, "length");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    std::fs::write(&bad, &longer).unwrap();
    refused(&bad, "length");
}

#[test]
fn foreign_files_are_refused() {
    let dir = TempDir::new("foreign");
    let good = dir.path("good");
    Setup::dev_insecure(2, b"f")
        .unwrap()
        .write_cache(&good)
        .unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let bad = dir.path("bad");
    let mut b = bytes.clone();
    b[..4].copy_from_slice(b"ptau");
    std::fs::write(&bad, &b).unwrap();
    refused(&bad, "magic");
    let mut b = bytes.clone();
    b[8..12].copy_from_slice(&(CACHE_VERSION + 1).to_le_bytes());
    std::fs::write(&bad, &b).unwrap();
    refused(&bad, "version");
    let mut b = bytes.clone();
    b[12] = 0;
    std::fs::write(&bad, &b).unwrap();
    refused(&bad, "depth");
    b[12] = 21;
    std::fs::write(&bad, &b).unwrap();
    refused(&bad, "depth");
    assert!(matches!(
        Setup::read_cache(&dir.path("absent")),
        Err(SetupError::Io(_))
    ));
    // A directory as the target: the write fails, nothing is left behind.
    let sub = dir.path("sub");
    std::fs::create_dir(&sub).unwrap();
    assert!(
        Setup::dev_insecure(2, b"f")
            .unwrap()
            .write_cache(&sub)
            .is_err()
    );
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 3);
}

#[test]
fn errors_display_their_field() {
    let e = SetupError::Format {
        field: "header.q".into(),
        reason: "not BN254".into(),
    };
    assert_eq!(e.to_string(), "header.q: not BN254");
    let e = SetupError::from(std::io::Error::other("disk on fire"));
    assert!(e.to_string().contains("disk on fire"));
    assert!(std::error::Error::source(&e).is_some());
    assert!(SetupError::Depth(30).to_string().contains("30"));
}
