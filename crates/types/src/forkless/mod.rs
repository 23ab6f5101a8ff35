//! The forkless family: a key's value, its absence, or its complete history over a block range,
//! from the LiveDB of a forkless chain (Jordan et al., "Efficient Forkless Blockchain
//! Databases", §3–§4) against a header's `forklessRoot`. Rejections are [`ForklessError`]s.
//!
//! The LiveDB keeps only the current state, normalised (§3): an index from address and from
//! (address, slot) to a *record number*, and one dense file of fixed-size records per
//! attribute, read at `record × size`. Its hash (§3.1, §3.2) is a tree over each file's pages,
//! recomputed lazily for the pages a block dirtied. The reference code's hashes cannot serve a
//! light client (no domain tags, a tree height implied by the page count, an index hashed as an
//! insertion-order chain, history chains without the key or the block), so this family hashes:
//!
//! - **ten files**, in this order: the accounts' reverse table (record → address, 20 bytes),
//!   balance (32), nonce (8), the heads of the balance and nonce history chains (32 each), the
//!   slots' reverse table (record → address ‖ slot, 52), slot value (32), the heads of the slot
//!   history chains (32), and the two key indexes' bucket files (bucket → bucket hash, 32);
//! - a file as pages of `⌊pageSize / size⌋` whole records (records past the count are zero), and
//!   pages as the leaves of a `fanout`-ary tree whose absent subtrees are per-level constants;
//!   the tree root binds the file, its height and its record count, so the verifier derives the
//!   height itself and a record at or past the count cannot be opened;
//! - the **key indexes** as linear-hashing tables committed by bucket: a key's bucket is chosen
//!   by a tagged hash of the key and the number of buckets (`⌈keys / bucketLoad⌉`, committed as
//!   the bucket file's count), and a bucket's hash binds its number and its sorted entries. A
//!   key with no record is proven absent by its whole bucket (about `bucketLoad` entries);
//! - a **history chain** per key, `c_j = H(0x67 ‖ key ‖ block_j ‖ value_j ‖ c_{j−1})` from
//!   `c₀ = H(0x68)`, whose head is an attribute of the key's record. The ArchiveDB keeps every
//!   link, so the links from the head back to the change in force at `lo` prove the key's
//!   complete history over `lo..=hi`: leaving a change out breaks the chain.
//!
//! "Absent" and "zero" are distinct: a key that was written (even to zero, which deletes it in
//! the EVM's sense) keeps its record, and its proof is a presence proof of the value zero and of
//! the chain that ends with the zero write; a key never written has no record and is proven
//! absent by its bucket. Both read as the value zero.
//!
//! Hashes (SHA-256, one domain byte each):
//!
//! | what | preimage |
//! |---|---|
//! | page | `0x60 ‖ component(u8) ‖ page bytes` |
//! | inner node at level `l ≥ 1` | `0x61 ‖ l(u8) ‖ child × fanout` |
//! | absent subtree at level `l` | `0x62 ‖ l(u8)` |
//! | file's tree root | `0x63 ‖ component(u8) ‖ height(u8) ‖ count(u64) ‖ top` |
//! | state root (`forklessRoot`) | `0x64 ‖ pageSize(u32) ‖ fanout(u8) ‖ bucketLoad(u8) ‖ tree root × 10` |
//! | bucket selector | first 8 bytes of `0x65 ‖ component(u8) ‖ record key` |
//! | bucket | `0x66 ‖ component(u8) ‖ bucket(u64) ‖ n(u32) ‖ (record key ‖ record(u64)) × n` |
//! | chain link | `0x67 ‖ kind(u8) ‖ address(20) ‖ [slot(32)] ‖ block(u64) ‖ value(32) ‖ previous` |
//! | chain start `c₀` | `0x68` |
//!
//! Wire format v1 (big-endian integers, nothing after the last field):
//!
//! ```text
//! proof   = 0x01 key params root×10 claim located tail
//! key     = kind(u8: 1 balance, 2 nonce, 3 storage) address(20) [slot(32) if storage]
//! params  = pageSize(u32) fanout(u8) bucketLoad(u8)
//! claim   = 0x00                                 -- the key's value
//!         | 0x01 lo(u64) hi(u64)                 -- the key's history over lo..=hi
//! located = 0x01 record(u64) opening             -- present: the reverse table at record
//!         | 0x00 n(u32) (recordKey recordNo(u64))×n opening   -- absent: the bucket, its file
//! opening = count(u64) page(⌊pageSize/size⌋·size bytes) n(u16) sibling(32)×n
//! tail    = (nothing if absent)
//!         | opening                              -- value: the value file at record
//!         | opening base n(u32) (block(u64) value(32))×n     -- history: the chain file, links
//! base    = 0x00 | 0x01 chainValue(32)           -- the links start at the first change, or after it
//! ```

mod codec;
mod error;

pub use codec::*;
pub use error::{ForklessError, Opened};

use crate::{
    ErrorCode as E,
    family::{Commitment, Family, HeaderField, Tamper},
};

/// The LiveDB's state root: extraData bytes 96..128 of a lightprov chain.
pub const FORKLESS_ROOT: Commitment = Commitment::at("forklessRoot", HeaderField::ExtraData, 96);

/// The forkless family's registry entry.
pub const FAMILY: Family = Family {
    name: "forkless",
    about: "a key's value, its absence or its complete history from a forkless LiveDB against a \
            header's forklessRoot",
    commitments: &[&FORKLESS_ROOT],
    max_history_blocks: None,
    codes: &[
        E::BadEncoding,
        E::KeyMismatch,
        E::RangeMismatch,
        E::RecordOutOfRange,
        E::BadShape,
        E::NodeHashMismatch,
        E::ResultsOutOfOrder,
        E::WrongBucket,
        E::KeyPresent,
        E::IncompleteRange,
        E::ExtraResults,
        E::ChainMismatch,
        E::RootMismatch,
    ],
    tampers: &[
        Tamper::new(
            "value-changed",
            E::NodeHashMismatch,
            "a record of the opened value page changed",
        ),
        Tamper::new(
            "wrong-record",
            E::KeyMismatch,
            "the record number of another key",
        ),
        Tamper::new(
            "record-beyond-count",
            E::RecordOutOfRange,
            "a record at or past the file's count",
        ),
        Tamper::new(
            "page-moved",
            E::NodeHashMismatch,
            "the same page opened at another position",
        ),
        Tamper::new(
            "count-changed",
            E::NodeHashMismatch,
            "the file's record count changed within its height",
        ),
        Tamper::new(
            "siblings-dropped",
            E::BadShape,
            "a level of sibling hashes left out",
        ),
        Tamper::new(
            "untagged-page",
            E::NodeHashMismatch,
            "an inner node's children passed off as a page",
        ),
        Tamper::new(
            "link-dropped",
            E::ChainMismatch,
            "a change left out of the chain",
        ),
        Tamper::new("links-reordered", E::ResultsOutOfOrder, "two links swapped"),
        Tamper::new("link-duplicated", E::ResultsOutOfOrder, "a link repeated"),
        Tamper::new(
            "link-block-shifted",
            E::ChainMismatch,
            "a change moved to another block",
        ),
        Tamper::new(
            "chain-of-other-key",
            E::ChainMismatch,
            "the links of another key with the same changes",
        ),
        Tamper::new(
            "chain-cut",
            E::IncompleteRange,
            "the links resumed after the range's start",
        ),
        Tamper::new(
            "extra-link",
            E::ExtraResults,
            "a link before the one in force at the range's start",
        ),
        Tamper::new(
            "bucket-entry-dropped",
            E::NodeHashMismatch,
            "an entry left out of the bucket",
        ),
        Tamper::new(
            "bucket-unsorted",
            E::ResultsOutOfOrder,
            "two bucket entries swapped",
        ),
        Tamper::new(
            "foreign-bucket-entry",
            E::WrongBucket,
            "an entry of another bucket",
        ),
        Tamper::new(
            "absent-but-present",
            E::KeyPresent,
            "absence claimed with the key in its bucket",
        ),
        Tamper::new(
            "listed-root-changed",
            E::RootMismatch,
            "a file's listed tree root changed",
        ),
        Tamper::new(
            "other-block",
            E::RootMismatch,
            "checked against another block's root",
        ),
        Tamper::new("other-key", E::KeyMismatch, "checked for another key"),
        Tamper::OTHER_RANGE,
        Tamper::TRUNCATED,
        Tamper::TRAILING_BYTE,
    ],
};
