//! Reader for Powers-of-Tau files in the snarkjs `.ptau` format (the format of the Perpetual
//! Powers of Tau and Hermez ceremony outputs), BN254 only.
//!
//! The container: magic `"ptau"`, `u32` version (1), `u32` section count, then sections
//! `u32 id, u64 size, size bytes`, integers little-endian. Sections read here:
//!
//! * 1, header: `u32 n8` (32), the base-field modulus q as n8 little-endian bytes, `u32 power`,
//!   `u32 ceremonyPower` — exactly 44 bytes;
//! * 2, `tauG1`: `2·2^power − 1` points `[τ^i]₁`, 64 bytes each;
//! * 3, `tauG2`: `2^power` points `[τ^i]₂`, 128 bytes each.
//!
//! Other sections (alpha/beta powers, contributions, the Lagrange sections of a prepared file)
//! are skipped. Points are affine, uncompressed, every coordinate 32 bytes little-endian in
//! Montgomery form (`x·2^256 mod q`); a G2 coordinate is `c0` then `c1`; the point at infinity is
//! all zeros. Only the points a depth-D setup needs are read (the first 2^D of `tauG1` and the
//! D + 1 points `[τ^{2^i}]₂`), by seeking; each is checked to be canonical, on the curve, in the
//! prime-order subgroup and not the point at infinity. The full layout is in
//! `docs/lvmt-setup.md`.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use ark_bn254::{Fq, Fq2, G1Affine, G2Affine};
use ark_ff::{BigInt, BigInteger, Field, PrimeField};

use crate::input::{MAX_DEPTH, SetupError, check_point};

/// First four bytes of a `.ptau` file.
pub const MAGIC: [u8; 4] = *b"ptau";
/// The only container version there is.
pub const VERSION: u32 = 1;
/// Section ids.
pub const SECTION_HEADER: u32 = 1;
/// `[τ^i]₁`, `i < 2·2^power − 1`.
pub const SECTION_TAU_G1: u32 = 2;
/// `[τ^i]₂`, `i < 2^power`.
pub const SECTION_TAU_G2: u32 = 3;
/// Bytes of a base-field element.
pub const FQ_BYTES: usize = 32;
/// Bytes of a G1 point.
pub const G1_BYTES: usize = 2 * FQ_BYTES;
/// Bytes of a G2 point.
pub const G2_BYTES: usize = 4 * FQ_BYTES;
/// Bytes of the header section.
pub const HEADER_BYTES: u64 = 4 + FQ_BYTES as u64 + 4 + 4;

/// G1 points decoded per read.
const CHUNK: usize = 1 << 12;

/// What the header section says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtauHeader {
    /// Container version (always [`VERSION`]).
    pub version: u32,
    /// The file holds `[τ^i]₁` for `i < 2·2^power − 1` and `[τ^i]₂` for `i < 2^power`.
    pub power: u32,
    /// The power of the ceremony the file was cut from.
    pub ceremony_power: u32,
}

/// The points a depth-D setup needs.
#[derive(Clone, Debug)]
pub struct PtauPowers {
    /// The header.
    pub header: PtauHeader,
    /// `[τ^i]₁` for `i < 2^D`.
    pub tau_g1: Vec<G1Affine>,
    /// `[1]₂, [τ]₂, [τ²]₂, [τ⁴]₂, …, [τ^{2^{D−1}}]₂`: D + 1 points.
    pub tau_g2: Vec<G2Affine>,
}

#[derive(Clone, Copy)]
struct Section {
    pos: u64,
    size: u64,
}

fn section_name(id: u32) -> String {
    match id {
        SECTION_HEADER => "section 1 (header)".into(),
        SECTION_TAU_G1 => "section 2 (tauG1)".into(),
        SECTION_TAU_G2 => "section 3 (tauG2)".into(),
        _ => format!("section {id}"),
    }
}

/// `read_exact`, with running out of bytes reported against `field`.
fn read_into(r: &mut impl Read, buf: &mut [u8], field: &str) -> Result<(), SetupError> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => {
            SetupError::format(field, "the data ends before this field")
        }
        _ => SetupError::Io(e),
    })
}

fn read_u32(r: &mut impl Read, field: &str) -> Result<u32, SetupError> {
    let mut b = [0u8; 4];
    read_into(r, &mut b, field)?;
    Ok(u32::from_le_bytes(b))
}

fn read_u64(r: &mut impl Read, field: &str) -> Result<u64, SetupError> {
    let mut b = [0u8; 8];
    read_into(r, &mut b, field)?;
    Ok(u64::from_le_bytes(b))
}

/// Reads the container and the header; returns the header and the two point sections.
fn read_layout<R: Read + Seek>(r: &mut R) -> Result<(PtauHeader, Section, Section), SetupError> {
    let file_len = r.seek(SeekFrom::End(0))?;
    r.seek(SeekFrom::Start(0))?;
    let mut magic = [0u8; 4];
    read_into(r, &mut magic, "magic")?;
    if magic != MAGIC {
        return Err(SetupError::format(
            "magic",
            "not a .ptau file (expected \"ptau\")",
        ));
    }
    let version = read_u32(r, "version")?;
    if version != VERSION {
        return Err(SetupError::format(
            "version",
            format!("unsupported .ptau version {version} (only {VERSION} is known)"),
        ));
    }
    let count = read_u32(r, "section count")?;
    let mut found: [Option<Section>; 3] = [None; 3];
    for k in 0..count {
        let id = read_u32(r, &format!("section table entry {k}"))?;
        let size = read_u64(r, &format!("section table entry {k}"))?;
        let pos = r.stream_position()?;
        let end = pos
            .checked_add(size)
            .filter(|&e| e <= file_len)
            .ok_or_else(|| {
                SetupError::format(
                    section_name(id),
                    format!("{size} bytes at offset {pos} run past the end of the file ({file_len} bytes)"),
                )
            })?;
        if let Some(slot) = id
            .checked_sub(1)
            .and_then(|i| found.get_mut(usize::try_from(i).ok()?))
        {
            if slot.is_some() {
                return Err(SetupError::format(
                    section_name(id),
                    "appears more than once",
                ));
            }
            *slot = Some(Section { pos, size });
        }
        r.seek(SeekFrom::Start(end))?;
    }
    let [header, g1, g2] = found;
    let missing = |id| SetupError::format(section_name(id), "missing");
    let header = header.ok_or_else(|| missing(SECTION_HEADER))?;
    let g1 = g1.ok_or_else(|| missing(SECTION_TAU_G1))?;
    let g2 = g2.ok_or_else(|| missing(SECTION_TAU_G2))?;

    let hname = section_name(SECTION_HEADER);
    r.seek(SeekFrom::Start(header.pos))?;
    let mut hdr = r.by_ref().take(header.size);
    let n8 = read_u32(&mut hdr, "header.n8")?;
    if usize::try_from(n8).ok() != Some(FQ_BYTES) {
        return Err(SetupError::format(
            "header.n8",
            format!("a {n8}-byte base field; BN254's is {FQ_BYTES} bytes (another curve?)"),
        ));
    }
    let mut q = [0u8; FQ_BYTES];
    read_into(&mut hdr, &mut q, "header.q")?;
    if q.as_slice() != Fq::MODULUS.to_bytes_le().as_slice() {
        return Err(SetupError::format(
            "header.q",
            "the base-field modulus is not BN254's (another curve)",
        ));
    }
    let power = read_u32(&mut hdr, "header.power")?;
    let ceremony_power = read_u32(&mut hdr, "header.ceremonyPower")?;
    if header.size != HEADER_BYTES {
        return Err(SetupError::format(
            hname,
            format!("{} bytes; the BN254 header is {HEADER_BYTES}", header.size),
        ));
    }
    let header = PtauHeader {
        version,
        power,
        ceremony_power,
    };

    // Section sizes must match the power exactly.
    let points = 1u64.checked_shl(power).filter(|_| power < 48);
    let g1_size = points
        .and_then(|p| p.checked_mul(2))
        .and_then(|p| p.checked_sub(1))
        .and_then(|p| p.checked_mul(G1_BYTES as u64));
    let g2_size = points.and_then(|p| p.checked_mul(G2_BYTES as u64));
    let (Some(g1_size), Some(g2_size)) = (g1_size, g2_size) else {
        return Err(SetupError::format(
            "header.power",
            format!("{power} is implausibly large"),
        ));
    };
    // A section of `size` bytes holds the `points` (as the message counts them) of `want` bytes.
    let sized = |id: u32, size: u64, points: &str, want: u64| {
        if size == want {
            return Ok(());
        }
        Err(SetupError::format(
            section_name(id),
            format!("{size} bytes; power {power} means {points} points, {want} bytes"),
        ))
    };
    sized(
        SECTION_TAU_G1,
        g1.size,
        &format!("2·2^{power} − 1"),
        g1_size,
    )?;
    sized(SECTION_TAU_G2, g2.size, &format!("2^{power}"), g2_size)?;
    Ok((header, g1, g2))
}

/// Reads the header of a `.ptau` file (and checks the container and the section sizes).
pub fn read_header(mut reader: impl Read + Seek) -> Result<PtauHeader, SetupError> {
    read_layout(&mut reader).map(|(h, _, _)| h)
}

/// Reads the points a depth-`depth` setup needs: the first 2^D points of `tauG1` and
/// `[τ^{2^i}]₂` (with `[1]₂`) from `tauG2`, each validated.
pub fn read_powers(depth: u8, mut reader: impl Read + Seek) -> Result<PtauPowers, SetupError> {
    if depth == 0 || depth > MAX_DEPTH {
        return Err(SetupError::Depth(depth));
    }
    let r = &mut reader;
    let (header, g1s, g2s) = read_layout(r)?;
    if header.power < u32::from(depth) {
        return Err(SetupError::format(
            "header.power",
            format!(
                "the file holds powers up to 2^{} (power {}); depth {depth} needs power ≥ {depth}",
                header.power, header.power
            ),
        ));
    }
    let decoder = Decoder::new()?;
    let n = 1usize << depth;

    let g1name = section_name(SECTION_TAU_G1);
    r.seek(SeekFrom::Start(g1s.pos))?;
    let mut tau_g1 = Vec::with_capacity(n);
    let mut buf = vec![0u8; CHUNK * G1_BYTES];
    while tau_g1.len() < n {
        let count = CHUNK.min(n - tau_g1.len());
        let bytes = buf
            .get_mut(..count * G1_BYTES)
            .ok_or_else(|| SetupError::format(g1name.as_str(), "buffer"))?;
        read_into(r, bytes, &g1name)?;
        for c in bytes.chunks_exact(G1_BYTES) {
            let i = tau_g1.len();
            tau_g1.push(decoder.g1(c, &format!("tauG1[{i}]"))?);
        }
    }

    let g2name = section_name(SECTION_TAU_G2);
    let mut tau_g2 = Vec::with_capacity(usize::from(depth) + 1);
    let mut b = [0u8; G2_BYTES];
    for i in 0..=u32::from(depth) {
        let e: u64 = match i.checked_sub(1) {
            None => 0,
            Some(k) => 1u64 << k,
        };
        let offset = e
            .checked_mul(G2_BYTES as u64)
            .and_then(|o| o.checked_add(g2s.pos))
            .ok_or_else(|| SetupError::format(g2name.as_str(), "offset overflow"))?;
        r.seek(SeekFrom::Start(offset))?;
        read_into(r, &mut b, &g2name)?;
        tau_g2.push(decoder.g2(&b, &format!("tauG2[{e}]"))?);
    }
    Ok(PtauPowers {
        header,
        tau_g1,
        tau_g2,
    })
}

/// [`read_powers`] on a file.
pub fn read_powers_file(depth: u8, path: impl AsRef<Path>) -> Result<PtauPowers, SetupError> {
    let file = File::open(path)?;
    read_powers(depth, BufReader::with_capacity(1 << 20, file))
}

/// Montgomery-form decoding.
struct Decoder {
    /// 2^{−256} mod q.
    r_inv: Fq,
}

impl Decoder {
    fn new() -> Result<Self, SetupError> {
        let r_inv = Fq::from(2u64)
            .pow([256u64])
            .inverse()
            .ok_or_else(|| SetupError::format("field", "2 is not invertible"))?;
        Ok(Self { r_inv })
    }

    /// One coordinate: 32 bytes little-endian of `x·2^256 mod q`, which must be below q.
    fn fq(&self, b: &[u8], field: &str) -> Result<Fq, SetupError> {
        let mut limbs = [0u64; 4];
        for (limb, c) in limbs.iter_mut().zip(b.chunks_exact(8)) {
            *limb = u64::from_le_bytes(c.try_into().unwrap_or_default());
        }
        Fq::from_bigint(BigInt::new(limbs))
            .map(|m| m * self.r_inv)
            .ok_or_else(|| SetupError::format(field, "a coordinate is not below the modulus q"))
    }

    fn g1(&self, b: &[u8], field: &str) -> Result<G1Affine, SetupError> {
        if b.iter().all(|&x| x == 0) {
            return Err(SetupError::format(field, "is the point at infinity"));
        }
        let (x, y) = b.split_at(FQ_BYTES);
        let p = G1Affine::new_unchecked(self.fq(x, field)?, self.fq(y, field)?);
        check_point(&p, field, "G1")?;
        Ok(p)
    }

    fn g2(&self, b: &[u8], field: &str) -> Result<G2Affine, SetupError> {
        if b.iter().all(|&x| x == 0) {
            return Err(SetupError::format(field, "is the point at infinity"));
        }
        let mut c = b.chunks_exact(FQ_BYTES);
        let mut next = || -> Result<Fq, SetupError> {
            let chunk = c
                .next()
                .ok_or_else(|| SetupError::format(field, "short point"))?;
            self.fq(chunk, field)
        };
        let x = Fq2::new(next()?, next()?);
        let y = Fq2::new(next()?, next()?);
        let p = G2Affine::new_unchecked(x, y);
        check_point(&p, field, "G2")?;
        Ok(p)
    }
}
