//! Block header check: keccak256(RLP(header)) must equal the trusted block hash.

use core::fmt;

use crate::keccak256;
use alloy_primitives::B256;
use lightprov_types::{
    ErrorCode,
    header::{Header, HeaderError},
};

/// Why a header was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderVerifyError {
    /// The header is malformed or of no known layout.
    Header(HeaderError),
    /// keccak256(RLP(header)) is `got`, not the trusted `expected`.
    HashMismatch {
        /// The trusted hash.
        expected: B256,
        /// The header's hash.
        got: B256,
    },
}

impl HeaderVerifyError {
    /// The stable error code.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::Header(e) => e.code(),
            Self::HashMismatch { .. } => ErrorCode::HeaderHashMismatch,
        }
    }
}

impl From<HeaderError> for HeaderVerifyError {
    fn from(e: HeaderError) -> Self {
        Self::Header(e)
    }
}

impl fmt::Display for HeaderVerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Header(e) => e.fmt(f),
            Self::HashMismatch { expected, got } => {
                write!(f, "the header hashes to {got}, not to {expected}")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for HeaderVerifyError {}

/// Checks that `header` hashes to `expected`.
pub fn verify_header(header: &Header, expected: &B256) -> Result<(), HeaderVerifyError> {
    let got = keccak256(header.rlp()?);
    if got == *expected {
        Ok(())
    } else {
        Err(HeaderVerifyError::HashMismatch {
            expected: *expected,
            got,
        })
    }
}

/// Decodes a header from its canonical RLP and checks that it hashes to `expected`.
pub fn verify_header_rlp(rlp: &[u8], expected: &B256) -> Result<Header, HeaderVerifyError> {
    let header = Header::decode_rlp(rlp)?;
    let got = keccak256(rlp);
    if got == *expected {
        Ok(header)
    } else {
        Err(HeaderVerifyError::HashMismatch {
            expected: *expected,
            got,
        })
    }
}
