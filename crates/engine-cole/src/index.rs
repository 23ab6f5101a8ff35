//! Disk-resident learned index for one COLE run (FAST'24 "COLE: A Column-based
//! Learned Storage for Blockchain Systems", §4.1 Algorithms 2 and 3, §6.1
//! Algorithm 7).
//!
//! A run is an immutable file of fixed-size records sorted by key. The caller
//! projects every record's key to `x: u128` and streams the projections into an
//! [`IndexWriter`] in position order. [`LearnedIndex::window`] later maps a
//! projected key to a small inclusive window of record positions.
//!
//! # Algorithm
//! * **Bottom layer (Algorithm 2).** Points `(x, position)` are segmented with
//!   the optimal streaming piecewise-linear approximation of O'Rourke (1981),
//!   as in PGM-index's `OptimalPiecewiseLinearModel`: the lower convex hull of
//!   the points `(x, y + ε)` and the upper convex hull of `(x, y - ε)` are kept
//!   together with the "rectangle" of the two extreme feasible lines. When a new
//!   point makes the band infeasible the current segment is emitted and a new
//!   one starts at that point. Hull coordinates are relative to the segment's
//!   first point (`dx: u128`, `y: i128`) and every feasibility / convexity test
//!   is an exact 256-bit cross-multiplication, so segmentation is exactly
//!   optimal (greedy-maximal) for any `u128` keys. The emitted line is the
//!   average of the two extreme lines (mid slope through their intersection,
//!   as PGM), which is feasible by convexity; only that final line is `f64`.
//! * **Points indexed.** Like PGM, only the *first* position of each distinct
//!   `x` is a point (its lower bound). After a run of ≥ 2 equal keys `k` an
//!   extra point `(k + 1, lower_bound(k + 1))` is added (PGM's adjustment), so
//!   keys falling after a long duplicate run are still predicted within ε. A key
//!   smaller than the largest key seen so far (non-monotone projection) is not
//!   indexed; it only advances the positions. Hence every layer's keys are
//!   strictly increasing, whatever the input.
//! * **Upper layers (Algorithm 3).** The stream `(k_min of model j, j)` of the
//!   layer just written is re-read from the file and learned with the same
//!   algorithm and the same ε, recursively, until a layer has at most
//!   [`MODELS_PER_PAGE`] models (one page). Memory while building: one hull
//!   (compacted) and one page buffer per layer being written.
//! * **Search (Algorithm 7).** The top layer is held in memory. At each lower
//!   layer the predicted model index selects a page; at most one neighbouring
//!   page is read to locate *exactly* the last model with `k_min <= x` (the
//!   first model if `x` is below all). Should the prediction be off by more
//!   than a page (impossible for exact arithmetic, possible only through
//!   floating-point error), a binary search over the layer's pages takes over,
//!   so the descent is always exact. The bottom model's prediction gives the
//!   window `[pred - (ε+1), pred + (ε+1)]` clamped to `[0, n-1]`.
//!
//! # Guarantee
//! For non-decreasing input with `n + 2ε < 2^44` (so the `f64` rounding of the
//! final lines stays below ½), for every indexed point `(x, y)`:
//! `|predict(x) - y| <= ε` (tested: the measured maximum is ≤ ε; the documented
//! bound is ε + 1). For any query `x`, the lower bound `lb(x)` (first position
//! whose key is `>= x`, `n` if none) satisfies `lo <= lb(x) <= hi + 1`.
//! For non-monotone input the window is always inside `[0, n-1]` but need not
//! contain the record; the caller must widen. `n == 0` yields `Ok((0, 0))`
//! with [`LearnedIndex::n`] `== 0`. With `ε <= MODELS_PER_PAGE / 2` every
//! layer below the top costs at most two page reads ([`Probe::page_reads`]).
//!
//! # File format (all integers little-endian, page = 4096 bytes)
//! Pages `0..P` hold the layers bottom-up, each starting on a new page; the
//! last page is the trailer. File length = `(P + 1) * 4096` exactly.
//!
//! | model page bytes | content                                             |
//! |------------------|-----------------------------------------------------|
//! | `48*i..48*i+48`  | model `i` of the page, `i < 85` (unused slots zero) |
//! | `4080..4088`     | zero                                                |
//! | `4088..4096`     | checksum of bytes `0..4088`, seeded with page number|
//!
//! | model (48 B) | field                       |
//! |--------------|-----------------------------|
//! | `0..16`      | `k_min: u128`               |
//! | `16..24`     | `slope: f64` (IEEE bits)    |
//! | `24..32`     | `intercept: f64`            |
//! | `32..40`     | `p_min: u64`                |
//! | `40..48`     | `p_max: u64`                |
//!
//! | trailer bytes    | content                                            |
//! |------------------|----------------------------------------------------|
//! | `0..8`           | magic `b"COLELIX1"`                                |
//! | `8..12`          | version `u32` = 1                                  |
//! | `12..16`         | model size `u32` = 48                              |
//! | `16..20`         | page size `u32` = 4096                             |
//! | `20..24`         | layer count `L: u32` (0 iff n == 0, at most 64)    |
//! | `24..32`         | `n: u64` records                                   |
//! | `32..40`         | `epsilon: u64`                                     |
//! | `40..48`         | indexed points `u64`                               |
//! | `48..56`         | out-of-order records skipped `u64`                 |
//! | `56..64`         | zero                                               |
//! | `64+16*i..+16`   | layer `i` (0 = bottom): model count, first page    |
//! | `4088..4096`     | checksum of bytes `0..4088`, seeded with `!page_no`|
//!
//! `predict(x) = clamp(round(slope * (x - k_min) + intercept), p_min, p_max)`
//! where `p_*` index the layer below (record positions for the bottom layer).

use std::cmp::Ordering;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

/// Page size of the index file.
pub const PAGE_SIZE: usize = 4096;
/// Size of one serialized model.
pub const MODEL_SIZE: usize = 48;
/// Models stored per page (`PAGE_SIZE / MODEL_SIZE`).
pub const MODELS_PER_PAGE: usize = PAGE_SIZE / MODEL_SIZE;
/// Extra slack (beyond ε) of the returned window, absorbing `f64` rounding.
pub const WINDOW_SLACK: u64 = 1;

const MPP: u64 = MODELS_PER_PAGE as u64;
const PAGE: u64 = PAGE_SIZE as u64;
const SUM_OFF: usize = PAGE_SIZE - 8;
const MAGIC: [u8; 8] = *b"COLELIX1";
const VERSION: u32 = 1;
const MAX_LAYERS: usize = 64;
const LAYER_TABLE: usize = 64;

/// ε as half the number of models fitting in one page (paper §4.1).
pub fn epsilon_for_page(page_bytes: usize) -> u64 {
    (page_bytes / MODEL_SIZE / 2) as u64
}

fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

// ---------------------------------------------------------------- encoding

fn put(buf: &mut [u8], off: usize, bytes: &[u8]) -> io::Result<()> {
    buf.get_mut(off..off.saturating_add(bytes.len()))
        .ok_or_else(|| io::Error::other("internal: encode out of range"))?
        .copy_from_slice(bytes);
    Ok(())
}

fn get_arr<const N: usize>(buf: &[u8], off: usize) -> Option<[u8; N]> {
    buf.get(off..off.checked_add(N)?)?.try_into().ok()
}

fn get_u32(buf: &[u8], off: usize) -> Option<u32> {
    get_arr(buf, off).map(u32::from_le_bytes)
}

fn get_u64(buf: &[u8], off: usize) -> Option<u64> {
    get_arr(buf, off).map(u64::from_le_bytes)
}

/// Word-wise multiplicative hash; every step is a bijection of the state, so
/// any single changed 8-byte word (hence any byte flip) changes the result.
fn checksum(data: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ 0x243F_6A88_85A3_08D3;
    for w in data.chunks_exact(8) {
        let w = <[u8; 8]>::try_from(w).map_or(0, u64::from_le_bytes);
        h = (h.rotate_left(23) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h ^ (h >> 29)
}

fn seal(page: &mut [u8], page_no: u64) -> io::Result<()> {
    let sum = checksum(page.get(..SUM_OFF).unwrap_or(&[]), page_no);
    put(page, SUM_OFF, &sum.to_le_bytes())
}

fn verify(page: &[u8], seed: u64, what: &str) -> io::Result<()> {
    let body = page
        .get(..SUM_OFF)
        .ok_or_else(|| invalid(format!("{what} page is short")))?;
    if get_u64(page, SUM_OFF) != Some(checksum(body, seed)) {
        return Err(invalid(format!("{what}: checksum mismatch")));
    }
    Ok(())
}

// ---------------------------------------------------------------- model

/// One linear model: `predict(x) = clamp(round(slope*(x-k_min)+intercept), p_min, p_max)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// Smallest key covered by the model.
    pub k_min: u128,
    /// Positions per key unit.
    pub slope: f64,
    /// Predicted position at `k_min`.
    pub intercept: f64,
    /// Lowest position the model predicts.
    pub p_min: u64,
    /// Highest position the model predicts.
    pub p_max: u64,
}

impl Model {
    /// Predicted position (in the layer below) for `x`; never panics, NaN maps to `p_min`.
    pub fn predict(&self, x: u128) -> u64 {
        let d = if x >= self.k_min {
            (x - self.k_min) as f64
        } else {
            -((self.k_min - x) as f64)
        };
        let v = (self.slope * d + self.intercept).round();
        if v.is_nan() || v <= self.p_min as f64 {
            self.p_min
        } else if v >= self.p_max as f64 {
            self.p_max
        } else {
            (v as u64).clamp(self.p_min, self.p_max.max(self.p_min))
        }
    }

    fn encode(&self, buf: &mut [u8], off: usize) -> io::Result<()> {
        put(buf, off, &self.k_min.to_le_bytes())?;
        put(buf, off + 16, &self.slope.to_bits().to_le_bytes())?;
        put(buf, off + 24, &self.intercept.to_bits().to_le_bytes())?;
        put(buf, off + 32, &self.p_min.to_le_bytes())?;
        put(buf, off + 40, &self.p_max.to_le_bytes())
    }

    fn decode(buf: &[u8], off: usize) -> Option<Model> {
        Some(Model {
            k_min: u128::from_le_bytes(get_arr(buf, off)?),
            slope: f64::from_bits(get_u64(buf, off + 16)?),
            intercept: f64::from_bits(get_u64(buf, off + 24)?),
            p_min: get_u64(buf, off + 32)?,
            p_max: get_u64(buf, off + 40)?,
        })
    }
}

/// Reads page `page_no`, checks its checksum and decodes its first `count` models.
fn read_models(file: &File, page_no: u64, count: u64) -> io::Result<Vec<Model>> {
    let mut buf = vec![0u8; PAGE_SIZE];
    let off = page_no
        .checked_mul(PAGE)
        .ok_or_else(|| invalid("page offset overflow"))?;
    file.read_exact_at(&mut buf, off)?;
    verify(&buf, page_no, &format!("model page {page_no}"))?;
    (0..count.min(MPP) as usize)
        .map(|i| Model::decode(&buf, i * MODEL_SIZE).ok_or_else(|| invalid("model decode")))
        .collect()
}

// ---------------------------------------------------------------- exact geometry

/// Full 256-bit product `a * b` as `(high, low)`.
fn mul_wide(a: u128, b: u128) -> (u128, u128) {
    const M: u128 = u64::MAX as u128;
    let (a0, a1, b0, b1) = (a & M, a >> 64, b & M, b >> 64);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    let mid = (p00 >> 64) + (p01 & M) + (p10 & M);
    let lo = (p00 & M) | (mid << 64);
    let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
    (hi, lo)
}

/// Exact comparison of `a * b` with `c * d`.
fn cmp_prod(a: i128, b: u128, c: i128, d: u128) -> Ordering {
    let prod = |s: i128, u: u128| {
        let (h, l) = mul_wide(s.unsigned_abs(), u);
        (s < 0 && (h | l) != 0, h, l)
    };
    match (prod(a, b), prod(c, d)) {
        ((false, ..), (true, ..)) => Ordering::Greater,
        ((true, ..), (false, ..)) => Ordering::Less,
        ((false, h1, l1), (false, h2, l2)) => (h1, l1).cmp(&(h2, l2)),
        ((true, h1, l1), (true, h2, l2)) => (h2, l2).cmp(&(h1, l1)),
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Pt {
    dx: u128,
    y: i128,
}

#[derive(Clone, Copy, Debug)]
struct Slope {
    dx: u128,
    dy: i128,
}

/// Slope from `a` to a later point `b`.
fn slope(a: Pt, b: Pt) -> Slope {
    Slope {
        dx: b.dx.saturating_sub(a.dx),
        dy: b.y.saturating_sub(a.y),
    }
}

fn less(a: Slope, b: Slope) -> bool {
    cmp_prod(a.dy, b.dx, b.dy, a.dx) == Ordering::Less
}

impl Slope {
    fn to_f64(self) -> f64 {
        if self.dx == 0 {
            0.0
        } else {
            self.dy as f64 / self.dx as f64
        }
    }
}

/// Optimal streaming PLA (O'Rourke; PGM `OptimalPiecewiseLinearModel`).
#[derive(Debug, Default)]
struct Pla {
    eps: i128,
    npts: u64,
    first_x: u128,
    last_x: u128,
    first_y: u64,
    upper: Vec<Pt>,
    lower: Vec<Pt>,
    us: usize,
    ls: usize,
    r0: Pt,
    r1: Pt,
    r2: Pt,
    r3: Pt,
}

fn compact(v: &mut Vec<Pt>, start: &mut usize) {
    if *start >= 64 && *start * 2 >= v.len() {
        v.drain(..(*start).min(v.len()));
        *start = 0;
    }
}

impl Pla {
    fn new(eps: u64) -> Pla {
        Pla {
            eps: i128::from(eps),
            ..Pla::default()
        }
    }

    /// Adds a point with `x` greater than the previous one. Returns false (and
    /// leaves the segment unchanged) if the point does not fit the ε band.
    fn add(&mut self, x: u128, y: u64) -> bool {
        let yi = i128::from(y);
        if self.npts == 0 {
            let (p1, p2) = (
                Pt {
                    dx: 0,
                    y: yi + self.eps,
                },
                Pt {
                    dx: 0,
                    y: yi - self.eps,
                },
            );
            (self.first_x, self.last_x, self.first_y) = (x, x, y);
            self.upper.clear();
            self.lower.clear();
            self.upper.push(p1);
            self.lower.push(p2);
            (self.us, self.ls) = (0, 0);
            (self.r0, self.r1, self.r2, self.r3) = (p1, p2, p2, p1);
            self.npts = 1;
            return true;
        }
        if x <= self.last_x {
            return false;
        }
        let dx = x - self.first_x;
        let (p1, p2) = (
            Pt {
                dx,
                y: yi + self.eps,
            },
            Pt {
                dx,
                y: yi - self.eps,
            },
        );
        if self.npts == 1 {
            (self.r2, self.r3) = (p2, p1);
            self.upper.push(p1);
            self.lower.push(p2);
            self.npts = 2;
            self.last_x = x;
            return true;
        }
        let slope1 = slope(self.r0, self.r2);
        let slope2 = slope(self.r1, self.r3);
        if less(slope(self.r2, p1), slope1) || less(slope2, slope(self.r3, p2)) {
            return false;
        }
        if less(slope(self.r1, p1), slope2) {
            let Some(&start) = self.lower.get(self.ls) else {
                return false;
            };
            let (mut min, mut min_i) = (slope(start, p1), self.ls);
            for (i, &q) in self.lower.iter().enumerate().skip(self.ls + 1) {
                let v = slope(q, p1);
                if less(min, v) {
                    break;
                }
                (min, min_i) = (v, i);
            }
            let Some(&pivot) = self.lower.get(min_i) else {
                return false;
            };
            (self.r1, self.r3, self.ls) = (pivot, p1, min_i);
            let mut end = self.upper.len();
            while end >= self.us + 2 {
                match (self.upper.get(end - 2), self.upper.get(end - 1)) {
                    (Some(&o), Some(&a)) if !less(slope(o, a), slope(o, p1)) => end -= 1,
                    _ => break,
                }
            }
            self.upper.truncate(end);
            self.upper.push(p1);
        }
        if less(slope1, slope(self.r0, p2)) {
            let Some(&start) = self.upper.get(self.us) else {
                return false;
            };
            let (mut max, mut max_i) = (slope(start, p2), self.us);
            for (i, &q) in self.upper.iter().enumerate().skip(self.us + 1) {
                let v = slope(q, p2);
                if less(v, max) {
                    break;
                }
                (max, max_i) = (v, i);
            }
            let Some(&pivot) = self.upper.get(max_i) else {
                return false;
            };
            (self.r0, self.r2, self.us) = (pivot, p2, max_i);
            let mut end = self.lower.len();
            while end >= self.ls + 2 {
                match (self.lower.get(end - 2), self.lower.get(end - 1)) {
                    (Some(&o), Some(&a)) if !less(slope(o, p2), slope(o, a)) => end -= 1,
                    _ => break,
                }
            }
            self.lower.truncate(end);
            self.lower.push(p2);
        }
        compact(&mut self.upper, &mut self.us);
        compact(&mut self.lower, &mut self.ls);
        self.npts += 1;
        self.last_x = x;
        true
    }

    /// `(slope, intercept at first_x)`: the average of the two extreme lines.
    fn line(&self) -> (f64, f64) {
        if self.npts <= 1 {
            return (0.0, self.first_y as f64);
        }
        let fy = i128::from(self.first_y);
        let (s1, s2) = (
            slope(self.r0, self.r2).to_f64(),
            slope(self.r1, self.r3).to_f64(),
        );
        let b1 = (self.r0.y - fy) as f64 - s1 * self.r0.dx as f64;
        let b2 = (self.r1.y - fy) as f64 - s2 * self.r1.dx as f64;
        ((s1 + s2) / 2.0, self.first_y as f64 + (b1 + b2) / 2.0)
    }
}

// ---------------------------------------------------------------- writing

/// Turns the record stream into PLA points (see module doc).
#[derive(Debug, Default)]
struct PointGen {
    last: Option<u128>,
    run: u64,
    out_of_order: u64,
}

impl PointGen {
    fn push(&mut self, x: u128, pos: u64) -> [Option<(u128, u64)>; 2] {
        match self.last {
            Some(k) if x <= k => {
                self.out_of_order += u64::from(x < k);
                self.run = self.run.saturating_add(1);
                [None, None]
            }
            prev => {
                let extra = prev
                    .filter(|_| self.run >= 2)
                    .and_then(|k| k.checked_add(1))
                    .filter(|&k1| k1 < x)
                    .map(|k1| (k1, pos));
                (self.last, self.run) = (Some(x), 1);
                [extra, Some((x, pos))]
            }
        }
    }

    fn finish(&self, n: u64) -> Option<(u128, u64)> {
        let k1 = self.last?.checked_add(1)?;
        (self.run >= 2).then_some((k1, n))
    }
}

/// Buffers one page of models at a time and writes it sealed.
#[derive(Debug)]
struct LayerWriter {
    first_page: u64,
    count: u64,
    pages: u64,
    in_page: usize,
    buf: Vec<u8>,
}

impl LayerWriter {
    fn push(&mut self, file: &File, m: &Model) -> io::Result<()> {
        m.encode(&mut self.buf, self.in_page * MODEL_SIZE)?;
        self.in_page += 1;
        self.count += 1;
        if self.in_page == MODELS_PER_PAGE {
            self.flush(file)?;
        }
        Ok(())
    }

    fn flush(&mut self, file: &File) -> io::Result<()> {
        if self.in_page == 0 {
            return Ok(());
        }
        let page_no = self.first_page + self.pages;
        seal(&mut self.buf, page_no)?;
        file.write_all_at(&self.buf, page_no * PAGE)?;
        self.buf.fill(0);
        self.in_page = 0;
        self.pages += 1;
        Ok(())
    }
}

/// PLA plus writer for one layer.
#[derive(Debug)]
struct LayerBuilder {
    pla: Pla,
    out: LayerWriter,
    points: u64,
}

impl LayerBuilder {
    fn new(eps: u64, first_page: u64) -> LayerBuilder {
        LayerBuilder {
            pla: Pla::new(eps),
            out: LayerWriter {
                first_page,
                count: 0,
                pages: 0,
                in_page: 0,
                buf: vec![0; PAGE_SIZE],
            },
            points: 0,
        }
    }

    /// Feeds point `(x, y)`; `cap` bounds `p_max` (last valid position).
    fn feed(&mut self, file: &File, x: u128, y: u64, cap: u64) -> io::Result<()> {
        self.points += 1;
        if self.pla.add(x, y) {
            return Ok(());
        }
        self.emit(file, y.min(cap))?;
        self.pla.npts = 0;
        if self.pla.add(x, y) {
            Ok(())
        } else {
            Err(io::Error::other("internal: PLA rejected a first point"))
        }
    }

    fn emit(&mut self, file: &File, p_max: u64) -> io::Result<()> {
        if self.pla.npts == 0 {
            return Ok(());
        }
        let (slope, intercept) = self.pla.line();
        let m = Model {
            k_min: self.pla.first_x,
            slope,
            intercept,
            p_min: self.pla.first_y.min(p_max),
            p_max,
        };
        self.out.push(file, &m)
    }

    fn finish(&mut self, file: &File, cap: u64) -> io::Result<(u64, u64)> {
        self.emit(file, cap)?;
        self.pla.npts = 0;
        self.out.flush(file)?;
        Ok((self.out.count, self.out.pages))
    }
}

/// Summary of a written index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexMeta {
    /// Number of records pushed.
    pub n: u64,
    /// Error bound ε.
    pub epsilon: u64,
    /// Number of layers (0 iff `n == 0`).
    pub layers: usize,
    /// Models per layer, bottom first.
    pub models_per_layer: Vec<u64>,
    /// Index file size in bytes.
    pub byte_size: u64,
    /// Points given to the bottom PLA (distinct keys plus duplicate-run points).
    pub indexed_points: u64,
    /// Records whose key was smaller than an earlier key (not indexed).
    pub out_of_order: u64,
}

/// Streaming builder. The file must be open for reading and writing (upper
/// layers are built by re-reading the layer below); it is overwritten from
/// offset 0 and truncated to the index size. After an error, discard the writer.
#[derive(Debug)]
pub struct IndexWriter {
    file: File,
    eps: u64,
    n: u64,
    gen_: PointGen,
    bottom: LayerBuilder,
}

impl IndexWriter {
    /// Starts an index with error bound `epsilon`.
    pub fn new(file: File, epsilon: u64) -> IndexWriter {
        IndexWriter {
            file,
            eps: epsilon,
            n: 0,
            gen_: PointGen::default(),
            bottom: LayerBuilder::new(epsilon, 0),
        }
    }

    /// Adds the projected key of the record at position `n` (0, 1, 2, ...).
    pub fn push(&mut self, x: u128) -> io::Result<()> {
        let pos = self.n;
        self.n = self.n.saturating_add(1);
        for (px, py) in self.gen_.push(x, pos).into_iter().flatten() {
            self.bottom.feed(&self.file, px, py, u64::MAX)?;
        }
        Ok(())
    }

    /// Writes the remaining models, upper layers and trailer, then `sync_all`s.
    pub fn finish(mut self) -> io::Result<IndexMeta> {
        let n = self.n;
        let mut layers: Vec<(u64, u64)> = Vec::new();
        let mut next_page = 0u64;
        if n > 0 {
            if let Some((px, py)) = self.gen_.finish(n) {
                self.bottom.feed(&self.file, px, py, n - 1)?;
            }
            let (count, pages) = self.bottom.finish(&self.file, n - 1)?;
            layers.push((count, 0));
            next_page = pages;
            while let Some(&(count, first)) = layers.last() {
                if count <= MPP {
                    break;
                }
                if layers.len() >= MAX_LAYERS {
                    return Err(io::Error::other("index needs too many layers"));
                }
                let (c, pages) = build_upper(&self.file, self.eps, count, first, next_page)?;
                layers.push((c, next_page));
                next_page += pages;
            }
        }
        let mut t = vec![0u8; PAGE_SIZE];
        put(&mut t, 0, &MAGIC)?;
        put(&mut t, 8, &VERSION.to_le_bytes())?;
        put(&mut t, 12, &(MODEL_SIZE as u32).to_le_bytes())?;
        put(&mut t, 16, &(PAGE_SIZE as u32).to_le_bytes())?;
        put(&mut t, 20, &(layers.len() as u32).to_le_bytes())?;
        put(&mut t, 24, &n.to_le_bytes())?;
        put(&mut t, 32, &self.eps.to_le_bytes())?;
        put(&mut t, 40, &self.bottom.points.to_le_bytes())?;
        put(&mut t, 48, &self.gen_.out_of_order.to_le_bytes())?;
        for (i, &(count, first)) in layers.iter().enumerate() {
            put(&mut t, LAYER_TABLE + 16 * i, &count.to_le_bytes())?;
            put(&mut t, LAYER_TABLE + 16 * i + 8, &first.to_le_bytes())?;
        }
        seal(&mut t, !next_page)?;
        self.file.write_all_at(&t, next_page * PAGE)?;
        let byte_size = (next_page + 1) * PAGE;
        self.file.set_len(byte_size)?;
        self.file.sync_all()?;
        Ok(IndexMeta {
            n,
            epsilon: self.eps,
            layers: layers.len(),
            models_per_layer: layers.iter().map(|l| l.0).collect(),
            byte_size,
            indexed_points: self.bottom.points,
            out_of_order: self.gen_.out_of_order,
        })
    }
}

/// Learns the layer above `(count, first)`, writing it from `dest`; returns `(count, pages)`.
fn build_upper(file: &File, eps: u64, count: u64, first: u64, dest: u64) -> io::Result<(u64, u64)> {
    let mut b = LayerBuilder::new(eps, dest);
    let mut j = 0u64;
    for p in 0..count.div_ceil(MPP) {
        for m in read_models(file, first + p, count - p * MPP)? {
            b.feed(file, m.k_min, j, count - 1)?;
            j += 1;
        }
    }
    b.finish(file, count - 1)
}

// ---------------------------------------------------------------- reading

#[derive(Clone, Copy, Debug)]
struct LayerInfo {
    count: u64,
    first_page: u64,
}

/// Result of one descent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// First candidate position (inclusive).
    pub lo: u64,
    /// Last candidate position (inclusive).
    pub hi: u64,
    /// Bottom model's prediction, clamped to `[0, n-1]`.
    pub predicted: u64,
    /// Index pages read by this descent (the in-memory top layer is free).
    pub page_reads: u32,
    /// Largest number of pages read in any single layer.
    pub max_layer_reads: u32,
}

/// Opened index: the top layer in memory, lower layers read on demand.
#[derive(Debug)]
pub struct LearnedIndex {
    file: File,
    n: u64,
    eps: u64,
    layers: Vec<LayerInfo>,
    top: Vec<Model>,
    reads: AtomicU64,
}

fn cover(page: &[Model], x: u128) -> io::Result<Model> {
    let i = page.partition_point(|m| m.k_min <= x).saturating_sub(1);
    page.get(i)
        .copied()
        .ok_or_else(|| invalid("empty model page"))
}

fn first_key(page: &[Model]) -> io::Result<u128> {
    page.first()
        .map(|m| m.k_min)
        .ok_or_else(|| invalid("empty model page"))
}

impl LearnedIndex {
    /// Opens and strictly validates an index (every page's checksum and model).
    pub fn open(file: File) -> io::Result<LearnedIndex> {
        let len = file.metadata()?.len();
        if len < PAGE || len % PAGE != 0 {
            return Err(invalid(format!(
                "index length {len} is not a positive multiple of {PAGE}"
            )));
        }
        let trailer_page = len / PAGE - 1;
        let mut t = vec![0u8; PAGE_SIZE];
        file.read_exact_at(&mut t, trailer_page * PAGE)?;
        verify(&t, !trailer_page, "trailer")?;
        let field = |off: usize| get_u64(&t, off).ok_or_else(|| invalid("trailer too short"));
        if get_arr::<8>(&t, 0) != Some(MAGIC) {
            return Err(invalid("bad magic"));
        }
        let u32_at = |off| get_u32(&t, off).unwrap_or(0);
        if u32_at(8) != VERSION {
            return Err(invalid(format!("unsupported version {}", u32_at(8))));
        }
        if u32_at(12) as usize != MODEL_SIZE || u32_at(16) as usize != PAGE_SIZE {
            return Err(invalid("model or page size mismatch"));
        }
        let nl = u32_at(20) as usize;
        let (n, eps, points) = (field(24)?, field(32)?, field(40)?);
        if nl > MAX_LAYERS {
            return Err(invalid(format!("layer count {nl} exceeds {MAX_LAYERS}")));
        }
        if (n == 0) != (nl == 0) {
            return Err(invalid(format!("n = {n} with {nl} layers")));
        }
        let mut layers = Vec::with_capacity(nl);
        let mut next_page = 0u64;
        for i in 0..nl {
            let (count, first_page) = (
                field(LAYER_TABLE + 16 * i)?,
                field(LAYER_TABLE + 16 * i + 8)?,
            );
            let below = layers.last().map_or(u64::MAX, |l: &LayerInfo| l.count);
            if count == 0 || count >= below {
                return Err(invalid(format!("layer {i}: bad model count {count}")));
            }
            if (i + 1 == nl) != (count <= MPP) {
                return Err(invalid(format!(
                    "layer {i}: count {count} vs top-page rule"
                )));
            }
            if first_page != next_page {
                return Err(invalid(format!(
                    "layer {i}: first page {first_page} != {next_page}"
                )));
            }
            next_page = next_page.saturating_add(count.div_ceil(MPP));
            layers.push(LayerInfo { count, first_page });
        }
        if next_page != trailer_page {
            return Err(invalid(format!(
                "layers need {next_page} pages but file has {trailer_page}"
            )));
        }
        if let Some(b) = layers.first()
            && (points < b.count || points > n)
        {
            return Err(invalid(format!("indexed points {points} inconsistent")));
        }
        let mut top = Vec::new();
        for (i, l) in layers.iter().enumerate() {
            let below = if i == 0 {
                n
            } else {
                layers.get(i - 1).map_or(0, |b| b.count)
            };
            let mut prev: Option<u128> = None;
            for p in 0..l.count.div_ceil(MPP) {
                let models = read_models(&file, l.first_page + p, l.count - p * MPP)?;
                for m in &models {
                    if !m.slope.is_finite() || !m.intercept.is_finite() {
                        return Err(invalid(format!("layer {i}: non-finite model")));
                    }
                    if m.p_min > m.p_max || m.p_max >= below {
                        return Err(invalid(format!(
                            "layer {i}: model range [{}, {}] outside [0, {below})",
                            m.p_min, m.p_max
                        )));
                    }
                    if prev.is_some_and(|k| k >= m.k_min) {
                        return Err(invalid(format!("layer {i}: k_min not increasing")));
                    }
                    prev = Some(m.k_min);
                }
                if i + 1 == nl {
                    top.extend(models);
                }
            }
        }
        Ok(LearnedIndex {
            file,
            n,
            eps,
            layers,
            top,
            reads: AtomicU64::new(0),
        })
    }

    /// Number of records.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// Error bound ε.
    pub fn epsilon(&self) -> u64 {
        self.eps
    }

    /// Models per layer, bottom first.
    pub fn layer_counts(&self) -> Vec<u64> {
        self.layers.iter().map(|l| l.count).collect()
    }

    /// Total page reads of all descents so far.
    pub fn total_page_reads(&self) -> u64 {
        self.reads.load(AtomicOrdering::Relaxed)
    }

    /// Inclusive candidate window `[lo, hi]` for `x` (see module doc for the guarantee).
    pub fn window(&self, x: u128) -> io::Result<(u64, u64)> {
        self.probe(x).map(|p| (p.lo, p.hi))
    }

    /// Like [`window`](Self::window), with the prediction and page-read statistics.
    pub fn probe(&self, x: u128) -> io::Result<Probe> {
        let mut probe = Probe {
            lo: 0,
            hi: 0,
            predicted: 0,
            page_reads: 0,
            max_layer_reads: 0,
        };
        if self.n == 0 {
            return Ok(probe);
        }
        let mut model = cover(&self.top, x)?;
        for li in (0..self.layers.len().saturating_sub(1)).rev() {
            let l = *self.layers.get(li).ok_or_else(|| invalid("layer"))?;
            let mut reads = 0u32;
            let res = self.find_in_layer(l, x, model.predict(x), &mut reads);
            probe.page_reads += reads;
            probe.max_layer_reads = probe.max_layer_reads.max(reads);
            self.reads
                .fetch_add(u64::from(reads), AtomicOrdering::Relaxed);
            model = res?;
        }
        let last = self.n - 1;
        let w = self.eps.saturating_add(WINDOW_SLACK);
        probe.predicted = model.predict(x).min(last);
        probe.lo = probe.predicted.saturating_sub(w);
        probe.hi = probe.predicted.saturating_add(w).min(last);
        Ok(probe)
    }

    fn page(&self, l: LayerInfo, p: u64, reads: &mut u32) -> io::Result<Vec<Model>> {
        *reads += 1;
        let page_no = l.first_page.saturating_add(p);
        let models = read_models(&self.file, page_no, l.count.saturating_sub(p * MPP))?;
        if models.is_empty() {
            return Err(invalid("empty model page"));
        }
        Ok(models)
    }

    /// Exact last model of layer `l` with `k_min <= x` (first if none), starting at index `target`.
    fn find_in_layer(
        &self,
        l: LayerInfo,
        x: u128,
        target: u64,
        reads: &mut u32,
    ) -> io::Result<Model> {
        let last_page = (l.count - 1) / MPP;
        let p0 = (target / MPP).min(last_page);
        let page0 = self.page(l, p0, reads)?;
        if first_key(&page0)? > x && p0 > 0 {
            let page1 = self.page(l, p0 - 1, reads)?;
            if first_key(&page1)? <= x || p0 == 1 {
                return cover(&page1, x);
            }
            return self.search_pages(l, x, 0, p0 - 2, reads);
        }
        let last0 = page0
            .last()
            .copied()
            .ok_or_else(|| invalid("empty model page"))?;
        if last0.k_min <= x && p0 < last_page {
            let page1 = self.page(l, p0 + 1, reads)?;
            if first_key(&page1)? > x {
                return Ok(last0);
            }
            if page1.last().is_some_and(|m| m.k_min > x) || p0 + 1 == last_page {
                return cover(&page1, x);
            }
            return self.search_pages(l, x, p0 + 1, last_page, reads);
        }
        cover(&page0, x)
    }

    /// Fallback: binary search over pages `lo..=hi` of layer `l` by first key.
    fn search_pages(
        &self,
        l: LayerInfo,
        x: u128,
        lo: u64,
        hi: u64,
        reads: &mut u32,
    ) -> io::Result<Model> {
        let (mut lo, mut hi) = (lo, hi);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if first_key(&self.page(l, mid, reads)?)? <= x {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        cover(&self.page(l, lo, reads)?, x)
    }
}
