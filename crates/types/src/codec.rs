//! The compact binary codec: fixed-width big-endian integers, length-prefixed byte strings,
//! no trailing bytes. One value has exactly one encoding.
//!
//! Every family's decoders read through [`Reader`] (the version byte, fixed-width integers and
//! arrays, byte strings, the end of the input, and the spans a decoder reports, see
//! [`spanned`]) and every encoder writes through [`Writer`]; the families' hashes end in
//! [`digest`].

use alloc::{string::String, vec::Vec};
use core::fmt;

use crate::{B256, ErrorCode};

/// An input that is not the one accepted encoding; `field` names where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// The field (a dotted path, e.g. `storageProof[2].value`).
    pub field: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl DecodeError {
    /// A new error for `field`.
    pub fn new(field: impl Into<String>, reason: &'static str) -> Self {
        Self {
            field: field.into(),
            reason,
        }
    }

    /// Always [`ErrorCode::BadEncoding`].
    pub const fn code(&self) -> ErrorCode {
        ErrorCode::BadEncoding
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl core::error::Error for DecodeError {}

/// Where a decoded element sits in the input: `[from, to)` byte offsets, named by its field
/// path (`parts[0].tree.1`, `levels[2].quotients[0]`, `storageProof[1].proof[3]`; each family's
/// `decode_with_spans` documents its names).
///
/// Spans are reported by the decoders themselves, for tools that point into the wire bytes
/// (the proof inspector); they never change what is accepted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spans {
    entries: Vec<(String, usize, usize)>,
}

impl Spans {
    /// The span of the element named `path`, if the decoder reported one.
    pub fn get(&self, path: &str) -> Option<(usize, usize)> {
        self.entries
            .iter()
            .find(|(p, _, _)| p == path)
            .map(|(_, a, b)| (*a, *b))
    }

    /// Every span, in the order the decoder closed them.
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize, usize)> {
        self.entries.iter().map(|(p, a, b)| (p.as_str(), *a, *b))
    }

    /// Adds `inner`'s spans, each shifted by `base` and named `prefix` + its name.
    pub fn nest(&mut self, prefix: &str, base: usize, inner: Spans) {
        for (p, a, b) in inner.entries {
            let mut name = String::with_capacity(prefix.len() + p.len());
            name.push_str(prefix);
            name.push_str(&p);
            self.entries.push((name, a + base, b + base));
        }
    }
}

/// Where a [`Reader`] puts the spans decoders report: [`Spans`], or nowhere ([`NoSpans`], the
/// default). A type rather than a flag, so that a decoder instantiated for plain reading (the
/// verifiers') carries no span code at all.
pub trait SpanSink: fmt::Debug {
    /// Whether spans are kept (decoders build span names only then).
    const ON: bool;
    /// Keeps one span.
    fn push(&mut self, path: String, from: usize, to: usize);
    /// Keeps a nested encoding's spans.
    fn nest(&mut self, prefix: &str, base: usize, inner: Spans);
}

/// Spans are not kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoSpans;

impl SpanSink for NoSpans {
    const ON: bool = false;
    fn push(&mut self, _: String, _: usize, _: usize) {}
    fn nest(&mut self, _: &str, _: usize, _: Spans) {}
}

impl SpanSink for Spans {
    const ON: bool = true;
    fn push(&mut self, path: String, from: usize, to: usize) {
        self.entries.push((path, from, to));
    }
    fn nest(&mut self, prefix: &str, base: usize, inner: Spans) {
        Spans::nest(self, prefix, base, inner);
    }
}

/// A cursor over an encoded buffer that never reads past its end; `K` keeps the spans decoders
/// report ([`Reader::with_spans`]) or drops them (the default).
#[derive(Debug)]
pub struct Reader<'a, K: SpanSink = NoSpans> {
    buf: &'a [u8],
    len: usize,
    spans: K,
}

impl<'a> Reader<'a> {
    /// Starts reading `buf`.
    pub const fn new(buf: &'a [u8]) -> Self {
        Self {
            buf,
            len: buf.len(),
            spans: NoSpans,
        }
    }
}

impl<'a> Reader<'a, Spans> {
    /// Starts reading `buf`, recording the spans the decoder reports with [`Reader::span`].
    pub const fn with_spans(buf: &'a [u8]) -> Self {
        Self {
            buf,
            len: buf.len(),
            spans: Spans {
                entries: Vec::new(),
            },
        }
    }
}

impl<'a, K: SpanSink> Reader<'a, K> {
    /// Bytes read so far: the offset of the next byte in the input.
    pub const fn pos(&self) -> usize {
        self.len - self.buf.len()
    }

    /// Whether spans are being recorded (decoders build span names only then).
    pub const fn recording(&self) -> bool {
        K::ON
    }

    /// Records the span `[from, pos())` under the name `path()` (evaluated only when recording).
    #[inline(always)]
    pub fn span(&mut self, from: usize, path: impl FnOnce() -> String) {
        if K::ON {
            let to = self.pos();
            self.spans.push(path(), from, to);
        }
    }

    /// Adds spans of a nested encoding that starts at `base` (see [`Spans::nest`]).
    pub fn nest(&mut self, prefix: &str, base: usize, inner: Spans) {
        self.spans.nest(prefix, base, inner);
    }

    /// What was kept of the spans.
    pub fn into_spans(self) -> K {
        self.spans
    }

    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize, field: &str) -> Result<&'a [u8], DecodeError> {
        if self.buf.len() < n {
            return Err(DecodeError::new(field, "input ends early"));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    /// Takes a fixed-size array.
    pub fn array<const N: usize>(&mut self, field: &str) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, field)?);
        Ok(out)
    }

    /// Takes a big-endian `u8`.
    pub fn u8(&mut self, field: &str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(field)?[0])
    }

    /// Takes a big-endian `u16`.
    pub fn u16(&mut self, field: &str) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array(field)?))
    }

    /// Takes a big-endian `u32`.
    pub fn u32(&mut self, field: &str) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array(field)?))
    }

    /// Takes a big-endian `u64`.
    pub fn u64(&mut self, field: &str) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array(field)?))
    }

    /// Takes a 32-byte hash, key or root.
    pub fn b256(&mut self, field: &str) -> Result<B256, DecodeError> {
        self.array::<32>(field).map(B256::from)
    }

    /// Takes `n` 32-byte hashes (the count read before, or fixed by the format), reserving no
    /// more than the input can hold.
    pub fn b256s(&mut self, n: usize, field: &str) -> Result<Vec<B256>, DecodeError> {
        let mut out = Vec::with_capacity(n.min(self.remaining() / 32));
        for _ in 0..n {
            out.push(self.b256(field)?);
        }
        Ok(out)
    }

    /// Takes the version byte every wire format starts with: fails on any other version than
    /// `expected`, naming the field `version` with `reason`.
    #[inline]
    pub fn version(&mut self, expected: u8, reason: &'static str) -> Result<(), DecodeError> {
        if self.u8("version")? != expected {
            return Err(DecodeError::new("version", reason));
        }
        Ok(())
    }

    /// Takes a `u32`-length-prefixed byte string.
    pub fn bytes(&mut self, field: &str) -> Result<&'a [u8], DecodeError> {
        let len = self.u32(field)? as usize;
        self.take(len, field)
    }

    /// Bytes left to read.
    pub const fn remaining(&self) -> usize {
        self.buf.len()
    }

    /// Fails unless every byte was read (without consuming the reader).
    pub fn check_end(&self, field: &str) -> Result<(), DecodeError> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::new(field, "trailing bytes"))
        }
    }

    /// Fails unless every byte was read.
    pub fn finish(self, field: &str) -> Result<(), DecodeError> {
        self.check_end(field)
    }
}

/// Runs a decoder over `buf` with a reader that records spans, and returns them with what it
/// decoded: the body of every family's `decode_with_spans`.
pub fn spanned<'a, T>(
    buf: &'a [u8],
    read: impl FnOnce(&mut Reader<'a, Spans>) -> Result<T, DecodeError>,
) -> Result<(T, Spans), DecodeError> {
    let mut r = Reader::with_spans(buf);
    let t = read(&mut r)?;
    Ok((t, r.into_spans()))
}

/// The writing half of [`Reader`].
#[derive(Debug, Default)]
pub struct Writer {
    /// The bytes written so far.
    pub out: Vec<u8>,
}

impl Writer {
    /// Appends raw bytes.
    pub fn raw(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    /// Appends a `u8`.
    pub fn u8(&mut self, v: u8) {
        self.out.push(v);
    }

    /// Appends a big-endian `u16`.
    pub fn u16(&mut self, v: u16) {
        self.raw(&v.to_be_bytes());
    }

    /// Appends a big-endian `u32`.
    pub fn u32(&mut self, v: u32) {
        self.raw(&v.to_be_bytes());
    }

    /// Appends a big-endian `u64`.
    pub fn u64(&mut self, v: u64) {
        self.raw(&v.to_be_bytes());
    }

    /// Appends 32-byte hashes, keys or roots (their count is the caller's).
    pub fn b256s(&mut self, hashes: &[B256]) {
        for h in hashes {
            self.raw(h.as_slice());
        }
    }

    /// Appends the count of a list as a `u8`, [`u8::MAX`] if it has more items (which its
    /// decoder rejects).
    pub fn count_u8(&mut self, n: usize) {
        self.u8(u8::try_from(n).unwrap_or(u8::MAX));
    }

    /// Appends the count of a list as a big-endian `u16`, [`u16::MAX`] if it has more items
    /// (which its decoder rejects).
    pub fn count_u16(&mut self, n: usize) {
        self.u16(u16::try_from(n).unwrap_or(u16::MAX));
    }

    /// Appends the count of a list as a big-endian `u32`, [`u32::MAX`] if it has more items
    /// (which its decoder rejects).
    pub fn count_u32(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }

    /// Appends a `u32`-length-prefixed byte string.
    ///
    /// # Panics
    /// If `b` is 4 GiB or longer, which no proof is.
    #[allow(clippy::expect_used)]
    pub fn bytes(&mut self, b: &[u8]) {
        let len = u32::try_from(b.len()).expect("byte string under 4 GiB");
        self.raw(&len.to_be_bytes());
        self.raw(b);
    }
}

/// A finished SHA-256 as a [`B256`]: where every family's hashing rules end.
pub fn digest(h: sha2::Sha256) -> B256 {
    use sha2::Digest;
    B256::from(<[u8; 32]>::from(h.finalize()))
}
