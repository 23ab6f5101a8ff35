//! The COLE family: every version of a state key in a block range, complete, from one
//! provenance proof against a header's `coleRoot` (COLE and COLE*).
//! Rejections are [`ColeError`]s.
//!
//! COLE provenance proofs: every version of one state key in a block range, against `H_state`.
//!
//! COLE keeps versions under compound keys ⟨stateKey, block⟩ in a list of *structures*, newest
//! first: the in-memory MB-tree group(s) of level 0, then the on-disk runs of each level. Every
//! structure is a Merkle tree over its entries in compound-key order, so a provenance proof is,
//! per structure, a *partial tree*: the entries in the range, the neighbour entry on each side
//! (which proves nothing between is missing), and a hash for every pruned subtree. Structures
//! after the one holding the version in force at `lo` are given by their digests only.
//!
//! Hashes (SHA-256, one domain byte each):
//!
//! | what | preimage |
//! |---|---|
//! | entry (leaf) | `0x00 ‖ stateKey(32) ‖ block(u64) ‖ value(32)` |
//! | inner node | `0x01 ‖ child hash × arity` |
//! | MB-tree digest | `0x02 ‖ n(u64) ‖ height(u8) ‖ root` |
//! | run digest | `0x03 ‖ n(u64) ‖ height(u8) ‖ root ‖ bloomHash` |
//! | `H_state` | `0x04 ‖ fanout(u8) ‖ count(u16) ‖ digest × count` |
//! | Bloom filter | `0x05 ‖ probes(u8) ‖ bytes(u64) ‖ bits` |
//! | header `coleRoot` | `0x06 ‖ H_state(COLE) ‖ H_state(COLE*)` |
//!
//! Wire format v1 (big-endian integers, nothing after the last part):
//!
//! ```text
//! proof   = 0x01 stateKey(32) lo(u64) hi(u64) fanout(u8) count(u16) part*count
//! part    = 0x00 n(u64) height(u8) tree                -- MB-tree, searched
//!         | 0x01 n(u64) height(u8) bloomHash(32) tree  -- run, searched
//!         | 0x02 digest(32)                            -- structure after the early stop
//! tree    = 0x00 stateKey(32) block(u64) value(32)     -- entry of another key
//!         | 0x01 block(u64) value(32)                  -- entry of the proof's key
//!         | 0x02 hash(32)                              -- pruned subtree
//!         | 0x03 arity(u8 ≥ 1) tree*arity              -- inner node
//! ```
//!
//! An entry of the proof's own key must use the short form `0x01`; the long form for it is
//! rejected, so each proof has one encoding.

mod codec;
mod error;

pub use codec::*;
pub use error::{ColeError, Gap, ShapeFault};

use crate::{
    ErrorCode as E,
    family::{Commitment, Family, HeaderField, Tamper},
};

/// `SHA-256(0x06 ‖ H_state(COLE) ‖ H_state(COLE*))`: extraData bytes 0..32 of a lightprov chain.
pub const COLE_ROOT: Commitment = Commitment::at("coleRoot", HeaderField::ExtraData, 0);

/// The COLE family's registry entry.
pub const FAMILY: Family = Family {
    name: "cole",
    about: "a state key's complete history over a block range against a header's coleRoot",
    commitments: &[&COLE_ROOT],
    max_history_blocks: None,
    codes: &[
        E::BadEncoding,
        E::KeyMismatch,
        E::RangeMismatch,
        E::BadShape,
        E::IncompleteRange,
        E::ResultsOutOfOrder,
        E::ExtraResults,
        E::WrongEarlyStop,
        E::RootMismatch,
    ],
    tampers: &[
        Tamper::new("value-changed", E::RootMismatch, "a revealed value changed"),
        Tamper::new(
            "bloom-changed",
            E::RootMismatch,
            "a run's Bloom filter hash changed",
        ),
        Tamper::new(
            "structure-dropped",
            E::RootMismatch,
            "a structure left out of the list",
        ),
        Tamper::new(
            "other-engine",
            E::RootMismatch,
            "checked as the other COLE engine's proof",
        ),
        Tamper::new(
            "wrong-sibling",
            E::RootMismatch,
            "the other engine's H_state changed",
        ),
        Tamper::new("other-key", E::KeyMismatch, "checked for another state key"),
        Tamper::OTHER_RANGE,
        Tamper::new("fanout-wrong", E::BadShape, "the fanout changed"),
        Tamper::new("run-height-wrong", E::BadShape, "a run's height changed"),
        Tamper::new(
            "result-hidden",
            E::IncompleteRange,
            "a version in the range pruned to a hash",
        ),
        Tamper::new(
            "left-neighbour-hidden",
            E::IncompleteRange,
            "the neighbour before the range pruned",
        ),
        Tamper::new(
            "result-duplicated",
            E::ResultsOutOfOrder,
            "a revealed entry repeated",
        ),
        Tamper::new(
            "results-swapped",
            E::ResultsOutOfOrder,
            "two revealed entries swapped",
        ),
        Tamper::new(
            "extra-neighbours",
            E::ExtraResults,
            "a second neighbour revealed beside the range",
        ),
        Tamper::new(
            "stopped-early",
            E::WrongEarlyStop,
            "a structure skipped before the version at lo",
        ),
        Tamper::new(
            "searched-after-stop",
            E::WrongEarlyStop,
            "a structure searched after the version at lo",
        ),
        Tamper::TRUNCATED,
        Tamper::TRAILING_BYTE,
    ],
};
