//! The compact binary codec: fixed-width big-endian integers, length-prefixed byte strings,
//! no trailing bytes. One value has exactly one encoding.

use alloc::{string::String, vec::Vec};
use core::fmt;

use crate::ErrorCode;

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

#[cfg(feature = "std")]
impl std::error::Error for DecodeError {}

/// A cursor over an encoded buffer that never reads past its end.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Starts reading `buf`.
    pub const fn new(buf: &'a [u8]) -> Self {
        Self { buf }
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

    /// Takes a `u32`-length-prefixed byte string.
    pub fn bytes(&mut self, field: &str) -> Result<&'a [u8], DecodeError> {
        let len = self.u32(field)? as usize;
        self.take(len, field)
    }

    /// Fails unless every byte was read.
    pub fn finish(self, field: &str) -> Result<(), DecodeError> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::new(field, "trailing bytes"))
        }
    }
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
