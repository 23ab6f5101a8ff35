//! Why a header is rejected: malformed, of no known layout, not hashing to the trusted hash, not
//! linking to its parent, or sealed badly.

use crate::{
    B256, DecodeError,
    family::{Evidence, rejection},
    hex::hex,
};

rejection! {
    /// Why a header could not be taken.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum HeaderError {
        /// A field is missing or malformed.
        #[code(BadEncoding)]
        #[error(transparent)]
        Decode(#[from] DecodeError),
        /// Present optional fields do not form a known layout; `fields` is how many there are.
        #[code(BadHeaderLayout)]
        #[error("no known header layout has {fields} fields in this combination")]
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

rejection! {
    /// Why a header was rejected.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum HeaderVerifyError {
        /// The header is malformed or of no known layout.
        #[code(via 0)]
        #[error(transparent)]
        Header(#[from] HeaderError),
        /// keccak256(RLP(header)) is `got`, not the trusted `expected`.
        #[code(HeaderHashMismatch)]
        #[error("the header hashes to {}, not to {}", hex(.got), hex(.expected))]
        HashMismatch {
            /// The trusted hash.
            expected: B256,
            /// The header's hash.
            got: B256,
        },
        /// The header's parentHash is not the verified parent's hash.
        #[code(ParentMismatch)]
        #[error(
            "the header's parentHash is {}, not the verified parent {}",
            hex(.got),
            hex(.expected),
        )]
        ParentMismatch {
            /// The verified parent's hash.
            expected: B256,
            /// The header's parentHash.
            got: B256,
        },
        /// The seal is malformed or does not recover.
        #[code(BadSeal)]
        #[error("bad seal: {reason}")]
        BadSeal {
            /// What is wrong.
            reason: &'static str,
        },
        /// The seal recovers a key that is not trusted.
        #[code(UnknownSigner)]
        #[error("sealed by {}, which is not a trusted signer", hex(.signer))]
        UnknownSigner {
            /// The address that signed.
            signer: crate::Address,
        },
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
                Evidence::diff("extraData", "a trusted signer", hex(signer))
            }
        }
    }
}
