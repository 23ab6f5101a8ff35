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

/// One side of PGM's update for a new point `p` (`up`: `p` is an upper point
/// tightening the maximum slope). Finds the new pivot on the opposite hull
/// `pivots[from..]` (extreme slope towards `p`) and appends `p` to `chain`
/// after popping points that are no longer convex (never below `keep`).
fn tighten(
    pivots: &[Pt],
    from: usize,
    chain: &mut Vec<Pt>,
    keep: usize,
    p: Pt,
    up: bool,
) -> Option<(usize, Pt)> {
    let lt = |a: Slope, b: Slope| if up { less(a, b) } else { less(b, a) };
    let mut best = (from, slope(*pivots.get(from)?, p));
    for (i, &q) in pivots.iter().enumerate().skip(from + 1) {
        let v = slope(q, p);
        if lt(best.1, v) {
            break;
        }
        best = (i, v);
    }
    let mut end = chain.len();
    while end >= keep + 2 {
        match (chain.get(end - 2), chain.get(end - 1)) {
            (Some(&o), Some(&a)) if !lt(slope(o, a), slope(o, p)) => end -= 1,
            _ => break,
        }
    }
    chain.truncate(end);
    chain.push(p);
    Some((best.0, *pivots.get(best.0)?))
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

    /// The upper and lower band points of `(dx, y)`.
    fn band(&self, dx: u128, y: i128) -> (Pt, Pt) {
        (
            Pt {
                dx,
                y: y + self.eps,
            },
            Pt {
                dx,
                y: y - self.eps,
            },
        )
    }

    /// Adds a point with `x` greater than the previous one. Returns false (and
    /// leaves the segment unchanged) if the point does not fit the ε band.
    fn add(&mut self, x: u128, y: u64) -> bool {
        let yi = i128::from(y);
        if self.npts == 0 {
            let (p1, p2) = self.band(0, yi);
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
        let (p1, p2) = self.band(dx, yi);
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
            let Some((i, pivot)) =
                tighten(&self.lower, self.ls, &mut self.upper, self.us, p1, true)
            else {
                return false;
            };
            (self.r1, self.r3, self.ls) = (pivot, p1, i);
        }
        if less(slope1, slope(self.r0, p2)) {
            let Some((i, pivot)) =
                tighten(&self.upper, self.us, &mut self.lower, self.ls, p2, false)
            else {
                return false;
            };
            (self.r0, self.r2, self.us) = (pivot, p2, i);
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
        let f = |s: Slope| {
            if s.dx == 0 {
                0.0
            } else {
                s.dy as f64 / s.dx as f64
            }
        };
        let (s1, s2) = (f(slope(self.r0, self.r2)), f(slope(self.r1, self.r3)));
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
#[derive(Debug, Default)]
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
                buf: vec![0; PAGE_SIZE],
                ..LayerWriter::default()
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
        let mut t = MAGIC.to_vec();
        for w in [
            VERSION,
            MODEL_SIZE as u32,
            PAGE_SIZE as u32,
            layers.len() as u32,
        ] {
            t.extend(w.to_le_bytes());
        }
        let (pts, ooo) = (self.bottom.points, self.gen_.out_of_order);
        for w in [n, self.eps, pts, ooo, 0]
            .into_iter()
            .chain(layers.iter().flat_map(|l| [l.0, l.1]))
        {
            t.extend(w.to_le_bytes());
        }
        t.resize(PAGE_SIZE, 0);
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
        if layers
            .first()
            .is_some_and(|b| points < b.count || points > n)
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
        let mut probe = Probe::default();
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

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn u128(&mut self) -> u128 {
            (u128::from(self.next()) << 64) | u128::from(self.next())
        }
        fn below(&mut self, n: u64) -> u64 {
            if n == 0 { 0 } else { self.next() % n }
        }
    }

    fn uniform(r: &mut Rng, n: usize) -> Vec<u128> {
        let mut v: Vec<u128> = (0..n).map(|_| r.u128()).collect();
        v.sort_unstable();
        v
    }

    fn clustered(r: &mut Rng, n: usize) -> Vec<u128> {
        let bases: Vec<u128> = (0..1 + n / 1000).map(|_| r.u128()).collect();
        let mut v: Vec<u128> = (0..n)
            .map(|_| {
                let b = bases[r.below(bases.len() as u64) as usize];
                b.saturating_add(u128::from(r.next() >> 44))
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// `(88-bit hash << 40) | 40-bit block`, many versions per hash.
    fn versioned(r: &mut Rng, n: usize) -> Vec<u128> {
        let mut v = Vec::with_capacity(n + 64);
        while v.len() < n {
            let h = r.u128() >> 40;
            let mut blk = r.below(1 << 30);
            for _ in 0..1 + r.below(60) {
                blk += 1 + r.below(1000);
                v.push((h << 40) | u128::from(blk & ((1 << 40) - 1)));
            }
        }
        v.truncate(n);
        v.sort_unstable();
        v
    }

    fn dups(r: &mut Rng, n: usize) -> Vec<u128> {
        let dom = (n / 20 + 1) as u64;
        let mut v: Vec<u128> = (0..n).map(|_| u128::from(r.below(dom)) * 1000).collect();
        let runs = (n / 3).min(3000);
        if n > 0 {
            let k = v[r.below(n as u64) as usize];
            for i in 0..runs {
                let j = i * 7 % n;
                v[j] = k + 1; // one long run of a single key
            }
        }
        v.sort_unstable();
        v
    }

    /// Heavy-tailed gaps: hard to fit, many models.
    fn gaps(r: &mut Rng, n: usize) -> Vec<u128> {
        let mut k = 0u128;
        (0..n)
            .map(|_| {
                let shift = r.below(100) as u32;
                k = k.saturating_add(1 + ((r.u128() >> 28) >> shift));
                k
            })
            .collect()
    }

    /// Self-similar runs: base-86 digits of `i` spaced `2^32` apart, so every
    /// layer sees runs of ~86 close keys followed by a huge gap (many layers).
    fn fractal(r: &mut Rng, n: usize) -> Vec<u128> {
        let jitter = r.below(1000) as u128;
        (0..n as u128)
            .map(|i| {
                let (mut i, mut k, mut shift) = (i, jitter, 0);
                while i > 0 {
                    k += (i % 86) << shift;
                    (i, shift) = (i / 86, shift + 32);
                }
                k
            })
            .collect()
    }

    type Gen = fn(&mut Rng, usize) -> Vec<u128>;
    const GENS: [(&str, Gen); 5] = [
        ("uniform", uniform),
        ("clustered", clustered),
        ("versioned", versioned),
        ("dups", dups),
        ("gaps", gaps),
    ];

    fn build_file(keys: &[u128], eps: u64) -> (IndexMeta, File) {
        let f = tempfile::tempfile().unwrap();
        let mut w = IndexWriter::new(f.try_clone().unwrap(), eps);
        for &k in keys {
            w.push(k).unwrap();
        }
        let meta = w.finish().unwrap();
        assert_eq!(f.metadata().unwrap().len(), meta.byte_size);
        (meta, f)
    }

    fn build(keys: &[u128], eps: u64) -> (IndexMeta, LearnedIndex) {
        let (meta, f) = build_file(keys, eps);
        let idx = LearnedIndex::open(f).unwrap();
        assert_eq!(idx.layer_counts(), meta.models_per_layer);
        assert_eq!(idx.epsilon(), eps);
        (meta, idx)
    }

    #[derive(Debug, Default)]
    struct Stats {
        max_err: u64,
        max_layer_reads: u32,
    }

    fn queries(r: &mut Rng, keys: &[u128], count: usize) -> Vec<u128> {
        let mut q = vec![0, 1, u128::MAX, u128::MAX - 1];
        for _ in 0..count {
            q.push(r.u128());
            if !keys.is_empty() {
                let k = keys[r.below(keys.len() as u64) as usize];
                q.extend([k.wrapping_add(1), k.wrapping_sub(1), k.wrapping_add(2)]);
            }
        }
        q
    }

    /// Checks the documented contract for non-decreasing `keys`.
    fn check_sorted(keys: &[u128], eps: u64, qs: &[u128]) -> (IndexMeta, Stats) {
        let (meta, idx) = build(keys, eps);
        let n = keys.len() as u64;
        assert_eq!(idx.n(), n);
        let mut st = Stats::default();
        if n == 0 {
            assert_eq!(meta.layers, 0);
            assert_eq!(idx.window(123).unwrap(), (0, 0));
            return (meta, st);
        }
        assert!(
            *meta.models_per_layer.last().unwrap() <= MPP,
            "top fits one page"
        );
        for (i, &k) in keys.iter().enumerate() {
            if i > 0 && keys[i - 1] == k {
                continue;
            }
            let p = idx.probe(k).unwrap();
            let lb = i as u64;
            assert!(
                p.lo <= lb && lb <= p.hi,
                "key {k} lb {lb} not in {p:?} (eps {eps})"
            );
            st.max_err = st.max_err.max(p.predicted.abs_diff(lb));
            st.max_layer_reads = st.max_layer_reads.max(p.max_layer_reads);
        }
        for &q in qs {
            let lb = keys.partition_point(|&k| k < q) as u64;
            let p = idx.probe(q).unwrap();
            assert!(p.lo <= p.hi && p.hi < n);
            assert!(
                p.lo <= lb && lb <= p.hi + 1,
                "query {q} lb {lb} not in {p:?}"
            );
            st.max_layer_reads = st.max_layer_reads.max(p.max_layer_reads);
        }
        assert!(
            st.max_err <= eps + WINDOW_SLACK,
            "max error {} > eps+1",
            st.max_err
        );
        (meta, st)
    }

    #[test]
    fn contract_small_and_medium() {
        let mut r = Rng(1);
        for (name, g) in GENS {
            for n in [0usize, 1, 2, 3, 5, 17, 100, 1000, 5000] {
                for eps in [0u64, 1, 2, 8, 42, 51, 300] {
                    let keys = g(&mut r, n);
                    let qs = queries(&mut r, &keys, 200);
                    let (_, st) = check_sorted(&keys, eps, &qs);
                    assert!(st.max_err <= eps, "{name} n={n} eps={eps}: {st:?}");
                }
            }
        }
    }

    #[test]
    fn contract_large() {
        let mut r = Rng(2);
        for (name, g) in GENS {
            for eps in [1u64, 42, 51] {
                let keys = g(&mut r, 200_000);
                let qs = queries(&mut r, &keys, 20_000);
                let (meta, st) = check_sorted(&keys, eps, &qs);
                println!("{name} eps={eps}: {st:?} {:?}", meta.models_per_layer);
                assert!(st.max_err <= eps);
            }
        }
    }

    #[test]
    fn special_shapes() {
        let mut r = Rng(3);
        let shapes: Vec<Vec<u128>> = vec![
            vec![7; 10_000],
            (0..10_000).collect(),
            (0..10_000).map(|i| u128::MAX - 10_000 + i).collect(),
            (0..10_000).map(|i| i * i * i).collect(),
            (0..10_000u128).map(|i| i / 100).collect(),
            (0..10_000u128)
                .map(|i| if i < 9000 { 0 } else { u128::MAX })
                .collect(),
            vec![u128::MAX; 300],
            vec![0, u128::MAX],
            vec![0, 0, u128::MAX, u128::MAX],
        ];
        for keys in shapes {
            for eps in [0u64, 1, 5, 42] {
                let qs = queries(&mut r, &keys, 300);
                let (_, st) = check_sorted(&keys, eps, &qs);
                assert!(st.max_err <= eps);
            }
        }
    }

    fn points_of(keys: &[u128]) -> Vec<(u128, u64)> {
        let mut g = PointGen::default();
        let mut pts: Vec<(u128, u64)> = Vec::new();
        for (i, &k) in keys.iter().enumerate() {
            pts.extend(g.push(k, i as u64).into_iter().flatten());
        }
        pts.extend(g.finish(keys.len() as u64));
        pts
    }

    /// Greedy shrinking cone (line forced through each segment's first point), exact.
    fn cone_segments(pts: &[(u128, u64)], eps: u64) -> u64 {
        let e = i128::from(eps);
        let mut count = 0;
        let mut origin: Option<(u128, i128)> = None;
        let (mut lo, mut hi): (Option<Slope>, Option<Slope>) = (None, None);
        for &(x, y) in pts {
            let y = i128::from(y);
            if let Some((x0, y0)) = origin {
                let dx = x - x0;
                let s_lo = Slope { dx, dy: y - e - y0 };
                let s_hi = Slope { dx, dy: y + e - y0 };
                let nlo = match lo {
                    Some(l) if less(s_lo, l) => l,
                    _ => s_lo,
                };
                let nhi = match hi {
                    Some(h) if less(h, s_hi) => h,
                    _ => s_hi,
                };
                if !less(nhi, nlo) {
                    (lo, hi) = (Some(nlo), Some(nhi));
                    continue;
                }
            }
            origin = Some((x, y));
            (lo, hi) = (None, None);
            count += 1;
        }
        count
    }

    #[test]
    fn hull_beats_greedy_cone() {
        let mut r = Rng(4);
        for (name, g) in GENS {
            for eps in [0u64, 1, 4, 42, 51] {
                let keys = g(&mut r, 50_000);
                let (meta, _) = build(&keys, eps);
                let cone = cone_segments(&points_of(&keys), eps);
                let hull = meta.models_per_layer[0];
                println!("{name} eps={eps}: hull {hull} cone {cone}");
                assert!(hull <= cone, "{name} eps={eps}: hull {hull} > cone {cone}");
                assert!(*meta.models_per_layer.last().unwrap() <= MPP);
                for w in meta.models_per_layer.windows(2) {
                    assert!(w[1] < w[0]);
                }
            }
        }
    }

    #[test]
    fn page_reads_at_most_two_per_layer() {
        let mut r = Rng(5);
        let eps = epsilon_for_page(PAGE_SIZE);
        assert_eq!(eps, 42);
        for (keys, e, min_layers) in [
            (fractal(&mut r, 1_000_000), eps, 3),
            (versioned(&mut r, 200_000), 2, 3),
            (gaps(&mut r, 200_000), 0, 4),
            (uniform(&mut r, 200_000), 5, 2),
        ] {
            let qs = queries(&mut r, &keys, 20_000);
            let (meta, st) = check_sorted(&keys, e, &qs);
            println!("eps={e} layers {:?} {st:?}", meta.models_per_layer);
            assert!(meta.layers >= min_layers, "{:?}", meta.models_per_layer);
            assert!(st.max_layer_reads <= 2, "{st:?}");
        }
    }

    #[test]
    fn non_monotone_streams() {
        let mut r = Rng(6);
        let mut cases: Vec<Vec<u128>> = Vec::new();
        let mut v = uniform(&mut r, 50_000);
        for _ in 0..200 {
            let (a, b) = (r.below(50_000) as usize, r.below(50_000) as usize);
            v.swap(a, b);
        }
        cases.push(v);
        let mut v = versioned(&mut r, 50_000);
        v[10_000..20_000].reverse();
        cases.push(v);
        cases.push((0..20_000u128).rev().collect());
        cases.push((0..20_000).map(|_| r.u128()).collect());
        cases.push((0..20_000u128).map(|i| (i % 100) << 100).collect());
        for keys in cases {
            for eps in [0u64, 3, 42] {
                let (meta, idx) = build(&keys, eps);
                assert!(meta.out_of_order > 0);
                let n = keys.len() as u64;
                for &k in keys.iter().chain(queries(&mut r, &keys, 500).iter()) {
                    let p = idx.probe(k).unwrap();
                    assert!(p.lo <= p.predicted && p.predicted <= p.hi && p.hi < n);
                }
            }
        }
    }

    fn index_bytes() -> Vec<u8> {
        let mut r = Rng(7);
        let keys = gaps(&mut r, 20_000);
        let (meta, f) = build_file(&keys, 2);
        assert!(meta.layers >= 2);
        let mut b = vec![0u8; meta.byte_size as usize];
        f.read_exact_at(&mut b, 0).unwrap();
        b
    }

    fn open_bytes(b: &[u8]) -> io::Result<LearnedIndex> {
        let f = tempfile::tempfile().unwrap();
        f.write_all_at(b, 0).unwrap();
        LearnedIndex::open(f)
    }

    fn assert_invalid(r: io::Result<LearnedIndex>) {
        match r {
            Err(e) => assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}"),
            Ok(_) => panic!("corrupt index accepted"),
        }
    }

    #[test]
    fn corrupted_and_truncated_files() {
        let good = index_bytes();
        open_bytes(&good).unwrap();
        let len = good.len();
        let trailer = len - PAGE_SIZE;
        for pos in (trailer..len).chain((0..trailer).step_by(13)) {
            for mask in [0x01u8, 0x80, 0xFF] {
                let mut b = good.clone();
                b[pos] ^= mask;
                assert_invalid(open_bytes(&b));
            }
        }
        for cut in [
            0,
            1,
            8,
            4095,
            4096,
            4097,
            len - PAGE_SIZE,
            len - 1,
            len + 1,
            len + 4096,
        ] {
            let mut b = good.clone();
            b.resize(cut, 0);
            assert_invalid(open_bytes(&b));
        }
        // Swapped pages are caught by the page-number seed.
        let mut b = good.clone();
        let (p0, p1) = b.split_at_mut(PAGE_SIZE);
        p0.swap_with_slice(&mut p1[..PAGE_SIZE]);
        assert_invalid(open_bytes(&b));
    }

    /// Re-seals an edited trailer so the semantic checks are exercised.
    fn edit_trailer(good: &[u8], off: usize, val: u64) -> Vec<u8> {
        let mut b = good.to_vec();
        let t = b.len() - PAGE_SIZE;
        b[t + off..t + off + 8].copy_from_slice(&val.to_le_bytes());
        let tp = (b.len() / PAGE_SIZE - 1) as u64;
        seal(&mut b[t..], !tp).unwrap();
        b
    }

    #[test]
    fn semantic_header_checks() {
        let good = index_bytes();
        let t = good.len() - PAGE_SIZE;
        let n = get_u64(&good, t + 24).unwrap();
        let layers = get_u32(&good, t + 20).unwrap();
        let bottom = get_u64(&good, t + LAYER_TABLE).unwrap();
        for (off, val) in [
            (24, 0),                     // n == 0 with layers
            (24, n / 2),                 // positions beyond n
            (16, 0),                     // page size / layer count word
            (20, u64::from(layers) + 1), // extra layer
            (20, u64::from(layers) - 1), // missing layer (top too big)
            (40, 0),                     // indexed points
            (LAYER_TABLE, bottom + 1),   // count
            (LAYER_TABLE + 8, 1),        // first page
            (LAYER_TABLE + 16, bottom),  // layer 1 not smaller
            (8, 2),                      // version
        ] {
            assert_invalid(open_bytes(&edit_trailer(&good, off, val)));
        }
        // An n == 0 index is a single trailer page.
        let (meta, idx) = build(&[], 42);
        assert_eq!((meta.byte_size, idx.n()), (PAGE, 0));
        assert_eq!(idx.window(5).unwrap(), (0, 0));
    }

    #[test]
    fn corruption_after_open_is_an_error_not_a_panic() {
        let mut r = Rng(8);
        let keys = gaps(&mut r, 20_000);
        let (_, f) = build_file(&keys, 2);
        let idx = LearnedIndex::open(f.try_clone().unwrap()).unwrap();
        f.write_all_at(&[0xAB; 64], 100).unwrap();
        let mut errors = 0;
        for &k in keys.iter().step_by(7) {
            match idx.probe(k) {
                Ok(p) => assert!(p.lo <= p.hi && p.hi < keys.len() as u64),
                Err(e) => {
                    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
                    errors += 1;
                }
            }
        }
        assert!(errors > 0);
    }

    #[test]
    fn report_stats() {
        let mut r = Rng(9);
        for (name, g) in [("uniform", uniform as Gen), ("versioned", versioned)] {
            for eps in [42u64, 51] {
                let keys = g(&mut r, 200_000);
                let qs = queries(&mut r, &keys, 10_000);
                let (meta, st) = check_sorted(&keys, eps, &qs);
                println!(
                    "REPORT {name} n=200000 eps={eps}: max_err={} models/layer={:?} \
                     models/point={:.6} points={} bytes={} max_layer_reads={}",
                    st.max_err,
                    meta.models_per_layer,
                    meta.models_per_layer[0] as f64 / 200_000.0,
                    meta.indexed_points,
                    meta.byte_size,
                    st.max_layer_reads
                );
            }
        }
    }

    #[test]
    fn wide_arithmetic() {
        assert_eq!(mul_wide(u128::MAX, u128::MAX), (u128::MAX - 1, 1));
        assert_eq!(mul_wide(1 << 64, 1 << 64), (1, 0));
        let mut r = Rng(10);
        for _ in 0..100_000 {
            let (a, c) = ((r.next() as i64) as i128, (r.next() as i64) as i128);
            let (b, d) = (u128::from(r.next()), u128::from(r.next()));
            assert_eq!(cmp_prod(a, b, c, d), (a * b as i128).cmp(&(c * d as i128)));
        }
        assert_eq!(cmp_prod(-1, u128::MAX, 0, 5), Ordering::Less);
        assert_eq!(
            cmp_prod(i128::MIN + 1, u128::MAX, i128::MIN + 1, u128::MAX - 1),
            Ordering::Less
        );
    }

    /// The per-layer search is exact from any starting prediction (walk + fallback).
    #[test]
    fn layer_search_exact_from_any_target() {
        let mut r = Rng(11);
        let keys = gaps(&mut r, 100_000);
        let (_, idx) = build(&keys, 1);
        for l in idx.layers.clone() {
            let mut all = Vec::new();
            for p in 0..l.count.div_ceil(MPP) {
                all.extend(read_models(&idx.file, l.first_page + p, l.count - p * MPP).unwrap());
            }
            for _ in 0..3000 {
                let x = if r.below(2) == 0 {
                    all[r.below(all.len() as u64) as usize].k_min + u128::from(r.below(3))
                } else {
                    r.u128() >> r.below(128)
                };
                let want = cover(&all, x).unwrap();
                let target = r.below(l.count);
                let mut reads = 0;
                assert_eq!(idx.find_in_layer(l, x, target, &mut reads).unwrap(), want);
                let near = all.partition_point(|m| m.k_min <= x).saturating_sub(1) as u64;
                let mut reads = 0;
                let t = (near + r.below(3))
                    .saturating_sub(1 + r.below(3))
                    .min(l.count - 1);
                idx.find_in_layer(l, x, t, &mut reads).unwrap();
                assert!(reads <= 2, "target {t} near {near}: {reads} reads");
            }
        }
    }

    fn sorted_keys() -> impl Strategy<Value = Vec<u128>> {
        prop_oneof![
            prop::collection::vec(any::<u128>(), 0..1500),
            prop::collection::vec(0u128..40, 0..1500),
            prop::collection::vec((0u128..1000).prop_map(|v| v << 100), 0..1500),
            prop::collection::vec(any::<u64>().prop_map(u128::from), 0..1500),
        ]
        .prop_map(|mut v| {
            v.sort_unstable();
            v
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn prop_contract(keys in sorted_keys(), eps in 0u64..100,
                         extra in prop::collection::vec(any::<u128>(), 0..50),
                         small in prop::collection::vec(0u128..50, 0..50)) {
            let mut qs = extra;
            qs.extend(small);
            qs.extend(small_shifted(&keys));
            let (_, st) = check_sorted(&keys, eps, &qs);
            prop_assert!(st.max_err <= eps);
        }

        #[test]
        fn prop_random_byte_flip(pos in any::<prop::sample::Index>(), mask in 1u8..=255) {
            let good = good_bytes();
            let mut b = good.clone();
            let i = pos.index(b.len());
            b[i] ^= mask;
            assert_invalid(open_bytes(&b));
        }

        #[test]
        fn prop_garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..9000),
                                     pages in 0usize..4) {
            let mut b = bytes;
            b.resize(b.len().max(pages * PAGE_SIZE), 7);
            prop_assert!(open_bytes(&b).is_err());
        }
    }

    fn small_shifted(keys: &[u128]) -> Vec<u128> {
        keys.iter()
            .step_by(17)
            .map(|k| k.wrapping_add(1) << 1)
            .collect()
    }

    fn good_bytes() -> &'static Vec<u8> {
        static GOOD: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        GOOD.get_or_init(index_bytes)
    }
}
