//! The LVMT family: a key's latest value or its absence against a header's `lvmtRoot` (AMT
//! openings over BN254) and `lvmtHistoryRoot` (Merkle paths of the tuples), and a key's history
//! over a block range. Rejections are [`LvmtError`]s; the verifier parameters are pinned by the
//! genesis header's `lvmtParamsId`.
//!
//! LVMT: the hashing rules of its per-block tuple trees and of the history root.
//!
//! Every block appends one Merkle tree over the tuples it wrote — `(stateKey, version, value,
//! level, slot)` for keys and `(level, prefix, version, commitment)` for sub-AMTs — and the
//! history root is a Merkle tree over the per-block roots, block 0 first. Both are RFC 9162
//! (Certificate Transparency) trees: for `n > 1` leaves, `MTH = H(node ‖ MTH(first k) ‖ MTH(rest))`
//! with `k` the largest power of two below `n`, so a tree only ever grows on the right and an
//! inclusion proof is the RFC's audit path. SHA-256 with one domain byte per kind:
//!
//! | what | preimage |
//! |---|---|
//! | key tuple | `0x20 ‖ stateKey(32) ‖ version(u64) ‖ value(32) ‖ level(u8) ‖ slot(u8)` |
//! | sub-AMT tuple | `0x21 ‖ level(u8) ‖ prefix(32) ‖ version(u64) ‖ commitment(32)` |
//! | inner node | `0x22 ‖ left ‖ right` |
//! | history leaf | `0x23 ‖ block(u64) ‖ block tree root` |
//! | empty tree | `0x24` |
//!
//! A sub-AMT at level `l` is named by `prefix`: keccak256(stateKey) with every bit from `D·l` on
//! cleared (the bits that choose it level by level).

mod codec;
mod error;

pub use codec::*;
pub use error::{LevelFault, ListFault, LvmtError};

use crate::{
    ErrorCode as E,
    family::{Commitment, Family, HeaderField, Tamper},
};

/// The root AMT's commitment (a compressed G1 point): extraData bytes 32..64.
pub const LVMT_ROOT: Commitment = Commitment::at("lvmtRoot", HeaderField::ExtraData, 32);

/// The root of LVMT's history tree over every block's tuple tree: extraData bytes 64..96.
pub const LVMT_HISTORY_ROOT: Commitment =
    Commitment::at("lvmtHistoryRoot", HeaderField::ExtraData, 64);

/// SHA-256 of the LVMT verifier parameters: the genesis header's mixHash (zero without LVMT).
pub const LVMT_PARAMS_ID: Commitment =
    Commitment::at_genesis("lvmtParamsId", HeaderField::MixHash, 0);

/// The LVMT family's registry entry.
pub const FAMILY: Family = Family {
    name: "lvmt",
    about: "a key's latest value, its absence or its history against lvmtRoot and lvmtHistoryRoot",
    commitments: &[&LVMT_ROOT, &LVMT_HISTORY_ROOT, &LVMT_PARAMS_ID],
    max_history_blocks: None,
    codes: &[
        E::BadEncoding,
        E::KeyMismatch,
        E::LevelMismatch,
        E::HistoryMismatch,
        E::PairingCheckFailed,
        E::RangeMismatch,
        E::ExtraResults,
        E::IncompleteRange,
        E::ResultsOutOfOrder,
    ],
    tampers: &[
        Tamper::new(
            "value-changed",
            E::HistoryMismatch,
            "the key's value changed",
        ),
        Tamper::new(
            "stale-tuple",
            E::HistoryMismatch,
            "the tuple of an older version",
        ),
        Tamper::new(
            "version-dropped",
            E::HistoryMismatch,
            "a version left out of a history",
        ),
        Tamper::new(
            "level-dropped",
            E::HistoryMismatch,
            "the last level left out, so the key's own is never reached",
        )
        .or(E::LevelMismatch),
        Tamper::new(
            "level-added",
            E::LevelMismatch,
            "a level appended after the key's last",
        )
        .or(E::HistoryMismatch),
        Tamper::new(
            "quotient-swapped",
            E::PairingCheckFailed,
            "two quotient points swapped",
        ),
        Tamper::new("other-key", E::KeyMismatch, "checked for another key"),
        Tamper::OTHER_RANGE,
        Tamper::TRUNCATED,
    ],
};
