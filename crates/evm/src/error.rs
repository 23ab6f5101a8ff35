//! Why a call's state or environment is refused. Three kinds, kept apart because they are answered
//! differently: a node's data that does not verify ([`StateError`], with the stable code of the
//! check), a block whose fork this EVM does not run or whose header contradicts the chain's
//! schedule ([`ForkError`], defined beside the schedule), and a request that cannot be run as asked
//! ([`RequestError`]). A transaction the chain's rules reject (too little balance, a fee cap under
//! the base fee) is none of these: it is the call's answer ([`crate::Invalid`]), as it is geth's.

use alloc::string::String;
use core::fmt;

use lightprov_types::{
    Address, B256, DecodeError, ErrorCode, Evidence, Rejection,
    header::HeaderVerifyError,
    hex::Hex,
    mpt::{AccountProofError, MptError},
};

use crate::chain::ForkError;

/// A node's data for the call failed a check; nothing of it was used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateError {
    /// An account proof (with its storage proofs) did not verify against the pinned state root,
    /// or is not for the account and slots asked.
    Proof {
        /// The account asked.
        address: Address,
        /// Why.
        error: AccountProofError,
    },
    /// The code served for an account does not hash to its proven code hash.
    CodeHashMismatch {
        /// The account.
        address: Address,
        /// Its proven code hash.
        expected: B256,
        /// keccak256 of the code served.
        found: B256,
    },
    /// The pinned header, or an ancestor header given for `BLOCKHASH`, is not the block it must
    /// be (it does not hash to the verified hash, or does not decode).
    Header {
        /// The header's block number (the pinned block's for the pinned header).
        number: u64,
        /// Why.
        error: HeaderVerifyError,
    },
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Proof { address, error } => {
                write!(f, "the proof of account {address}: {error}")
            }
            Self::CodeHashMismatch {
                address,
                expected,
                found,
            } => write!(
                f,
                "the code served for {address} hashes to {found}, not to its proven code hash {expected}"
            ),
            Self::Header { number, error } => write!(f, "the header of block {number}: {error}"),
        }
    }
}

impl Rejection for StateError {
    fn code(&self) -> ErrorCode {
        match self {
            Self::Proof { error, .. } => error.code(),
            Self::CodeHashMismatch { .. } => ErrorCode::CodeHashMismatch,
            Self::Header { error, .. } => error.code(),
        }
    }

    /// The field is a path into the call's state: `proofs[0xab…].storageProof[2]`,
    /// `code[0xab…]`, `headers[12]`.
    fn evidence(&self) -> Evidence {
        match self {
            Self::Proof { address, error } => {
                let inner = error.evidence();
                let at = alloc::format!("proofs[{}]", Hex(address.as_slice()));
                Evidence {
                    field: if inner.field.is_empty() {
                        at
                    } else {
                        alloc::format!("{at}.{}", inner.field)
                    },
                    ..inner
                }
            }
            Self::CodeHashMismatch {
                address,
                expected,
                found,
            } => Evidence::diff(
                alloc::format!("code[{}]", Hex(address.as_slice())),
                Hex(expected.as_slice()),
                Hex(found.as_slice()),
            ),
            Self::Header { number, error } => Evidence {
                field: alloc::format!("headers[{number}]"),
                ..error.evidence()
            },
        }
    }
}

impl From<DecodeError> for StateError {
    fn from(e: DecodeError) -> Self {
        // Only proofs are decoded from a node's bytes.
        Self::Proof {
            address: Address::ZERO,
            error: AccountProofError::Decode(e),
        }
    }
}

impl StateError {
    pub(crate) fn proof(address: Address, error: impl Into<AccountProofError>) -> Self {
        Self::Proof {
            address,
            error: error.into(),
        }
    }

    pub(crate) fn storage_keys(address: Address, index: usize) -> Self {
        Self::proof(
            address,
            AccountProofError::Storage {
                index,
                error: MptError::Decode(DecodeError::new(
                    "key",
                    "not the slot asked for at this place",
                )),
            },
        )
    }
}

/// A request that cannot be run as asked (the caller's mistake, or a feature not supported).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestError {
    /// The field at fault (`request.to`, `code`, `headers`).
    pub field: &'static str,
    /// Why.
    pub reason: String,
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

impl RequestError {
    pub(crate) fn new(field: &'static str, reason: impl Into<String>) -> Self {
        Self {
            field,
            reason: reason.into(),
        }
    }
}

impl From<DecodeError> for RequestError {
    fn from(e: DecodeError) -> Self {
        Self {
            field: "request",
            reason: alloc::format!("{e}"),
        }
    }
}

/// Any of the three.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvmError {
    /// A node's data failed a check.
    State(StateError),
    /// The block's fork is not run, or contradicts the schedule.
    Fork(ForkError),
    /// The request cannot be run as asked.
    Request(RequestError),
}

impl fmt::Display for EvmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::State(e) => e.fmt(f),
            Self::Fork(e) => e.fmt(f),
            Self::Request(e) => e.fmt(f),
        }
    }
}

impl From<StateError> for EvmError {
    fn from(e: StateError) -> Self {
        Self::State(e)
    }
}

impl From<ForkError> for EvmError {
    fn from(e: ForkError) -> Self {
        Self::Fork(e)
    }
}

impl From<RequestError> for EvmError {
    fn from(e: RequestError) -> Self {
        Self::Request(e)
    }
}
