//! Why a header is rejected: malformed, of no known layout, not hashing to the trusted hash, not
//! linking to its parent, or sealed badly.

use core::fmt;

use crate::{
    B256, DecodeError,
    family::{Evidence, rejection},
    hex::Hex,
};

rejection! {
    /// Why a header could not be taken.
    pub enum HeaderError {
        /// A field is missing or malformed.
        #[code(BadEncoding)]
        #[from]
        Decode(DecodeError),
        /// Present optional fields do not form a known layout; `fields` is how many there are.
        #[code(BadHeaderLayout)]
        Layout {
            /// Number of fields present.
            fields: usize,
        },
    }
}

impl HeaderError {
    /// Where the rejection points: the field at fault, and what was expected and found there.
    fn evidence(&self) -> Evidence {
        match self {
            Self::Decode(d) => Evidence::at(d.field.clone()),
            Self::Layout { fields } => Evidence::diff(
                "header",
                "a known layout",
                alloc::format!("{fields} fields"),
            ),
        }
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

rejection! {
    /// Why a header was rejected.
    pub enum HeaderVerifyError {
        /// The header is malformed or of no known layout.
        #[code(via 0)]
        #[from]
        Header(HeaderError),
        /// keccak256(RLP(header)) is `got`, not the trusted `expected`.
        #[code(HeaderHashMismatch)]
        HashMismatch {
            /// The trusted hash.
            expected: B256,
            /// The header's hash.
            got: B256,
        },
        /// The header's parentHash is not the verified parent's hash.
        #[code(ParentMismatch)]
        ParentMismatch {
            /// The verified parent's hash.
            expected: B256,
            /// The header's parentHash.
            got: B256,
        },
        /// The seal is malformed or does not recover.
        #[code(BadSeal)]
        BadSeal {
            /// What is wrong.
            reason: &'static str,
        },
        /// The seal recovers a key that is not trusted.
        #[code(UnknownSigner)]
        UnknownSigner {
            /// The address that signed.
            signer: crate::Address,
        },
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

impl HeaderVerifyError {
    /// Where the rejection points: the field at fault, and what was expected and found there.
    fn evidence(&self) -> Evidence {
        match self {
            Self::Header(e) => e.evidence(),
            Self::HashMismatch { expected, got } => Evidence::diff_hex("hash", expected, got),
            Self::ParentMismatch { expected, got } => {
                Evidence::diff_hex("parentHash", expected, got)
            }
            Self::BadSeal { reason } => Evidence::diff("extraData", "a valid seal", reason),
            Self::UnknownSigner { signer } => {
                Evidence::diff("extraData", "a trusted signer", Hex(signer.as_slice()))
            }
        }
    }
}
