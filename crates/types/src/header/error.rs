//! Why a header is rejected: malformed, of no known layout, not hashing to the trusted hash, not
//! linking to its parent, or sealed badly.

use core::fmt;

use crate::{
    B256, DecodeError, ErrorCode,
    family::{Evidence, Rejection},
    hex::Hex,
};

/// Why a header could not be taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// A field is missing or malformed.
    Decode(DecodeError),
    /// Present optional fields do not form a known layout; `fields` is how many there are.
    Layout {
        /// Number of fields present.
        fields: usize,
    },
}

impl From<DecodeError> for HeaderError {
    fn from(e: DecodeError) -> Self {
        Self::Decode(e)
    }
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Decode(e) => e.fmt(f),
            Self::Layout { fields } => write!(
                f,
                "no known header layout has {fields} fields in this combination"
            ),
        }
    }
}

impl HeaderError {
    /// The stable error code.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::Decode(_) => ErrorCode::BadEncoding,
            Self::Layout { .. } => ErrorCode::BadHeaderLayout,
        }
    }
}

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
    /// The header's parentHash is not the verified parent's hash.
    ParentMismatch {
        /// The verified parent's hash.
        expected: B256,
        /// The header's parentHash.
        got: B256,
    },
    /// The seal is malformed or does not recover.
    BadSeal {
        /// What is wrong.
        reason: &'static str,
    },
    /// The seal recovers a key that is not trusted.
    UnknownSigner {
        /// The address that signed.
        signer: crate::Address,
    },
}

impl HeaderVerifyError {
    /// The stable error code.
    pub const fn code(&self) -> ErrorCode {
        match self {
            Self::Header(e) => e.code(),
            Self::HashMismatch { .. } => ErrorCode::HeaderHashMismatch,
            Self::ParentMismatch { .. } => ErrorCode::ParentMismatch,
            Self::BadSeal { .. } => ErrorCode::BadSeal,
            Self::UnknownSigner { .. } => ErrorCode::UnknownSigner,
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
                write!(
                    f,
                    "the header hashes to {}, not to {}",
                    Hex(got.as_slice()),
                    Hex(expected.as_slice())
                )
            }
            Self::ParentMismatch { expected, got } => {
                write!(
                    f,
                    "the header's parentHash is {}, not the verified parent {}",
                    Hex(got.as_slice()),
                    Hex(expected.as_slice())
                )
            }
            Self::BadSeal { reason } => write!(f, "bad seal: {reason}"),
            Self::UnknownSigner { signer } => {
                write!(
                    f,
                    "sealed by {}, which is not a trusted signer",
                    Hex(signer.as_slice())
                )
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for HeaderVerifyError {}

impl Rejection for HeaderVerifyError {
    fn code(&self) -> ErrorCode {
        HeaderVerifyError::code(self)
    }

    fn evidence(&self) -> Evidence {
        match self {
            Self::Header(HeaderError::Decode(d)) => Evidence::at(d.field.clone()),
            Self::Header(HeaderError::Layout { fields }) => Evidence::diff(
                "header",
                "a known layout",
                alloc::format!("{fields} fields"),
            ),
            Self::HashMismatch { expected, got } => {
                Evidence::diff("hash", Hex(expected.as_slice()), Hex(got.as_slice()))
            }
            Self::ParentMismatch { expected, got } => {
                Evidence::diff("parentHash", Hex(expected.as_slice()), Hex(got.as_slice()))
            }
            Self::BadSeal { reason } => Evidence::diff("extraData", "a valid seal", reason),
            Self::UnknownSigner { signer } => {
                Evidence::diff("extraData", "a trusted signer", Hex(signer.as_slice()))
            }
        }
    }
}
