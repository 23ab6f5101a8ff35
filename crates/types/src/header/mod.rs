//! The header family: a block header (every layout from Frontier to Prague) against the block
//! hash it must hash to, linked to its parent and sealed by a trusted signer. Every other family
//! is checked against a commitment of a header verified here ([`crate::family::commitments`]).
//!
//! Ethereum block headers, Frontier to Prague, as RLP and as `eth_getBlockByNumber` JSON.
//!
//! The block hash is keccak256 of the header's RLP list. Each fork appended fields; which
//! ones are present decides the layout:
//!
//! | layout   | fields | appended                                              |
//! |----------|--------|-------------------------------------------------------|
//! | Frontier | 15     | —                                                     |
//! | London   | 16     | baseFeePerGas                                         |
//! | Shanghai | 17     | withdrawalsRoot                                       |
//! | Cancun   | 20     | blobGasUsed, excessBlobGas, parentBeaconBlockRoot     |
//! | Prague   | 21     | requestsHash                                          |

mod codec;
mod error;

pub use codec::*;
pub use error::{HeaderError, HeaderVerifyError};

use crate::{
    ErrorCode as E,
    family::{Family, Tamper},
};

/// The header family's registry entry.
pub const FAMILY: Family = Family {
    name: "header",
    about: "a block header against its hash, its parent and its seal",
    commitments: &[],
    max_history_blocks: None,
    codes: &[
        E::BadEncoding,
        E::BadHeaderLayout,
        E::HeaderHashMismatch,
        E::ParentMismatch,
        E::BadSeal,
        E::UnknownSigner,
        E::SignerRule,
        E::UnsupportedScheme,
    ],
    tampers: &[
        Tamper::new(
            "wrong-hash",
            E::HeaderHashMismatch,
            "checked against another block hash",
        ),
        Tamper::new(
            "tampered-state-root",
            E::HeaderHashMismatch,
            "the stateRoot changed",
        ),
        Tamper::new(
            "tampered-timestamp",
            E::HeaderHashMismatch,
            "the timestamp changed",
        ),
        Tamper::new(
            "layout-gap",
            E::BadHeaderLayout,
            "a later fork's field without an earlier one",
        ),
        Tamper::new(
            "layout-18-fields",
            E::BadHeaderLayout,
            "a field combination of no fork",
        ),
        Tamper::new(
            "bad-hex-gas-used",
            E::BadEncoding,
            "gasUsed that is not hex",
        ),
        Tamper::new("long-nonce", E::BadEncoding, "a nonce of 9 bytes"),
        Tamper::new("missing-state-root", E::BadEncoding, "no stateRoot"),
        Tamper::new("short-miner", E::BadEncoding, "a miner of 19 bytes"),
    ],
};
