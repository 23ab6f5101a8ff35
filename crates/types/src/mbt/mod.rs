//! The mbt family: a state key's value or its absence at a block, the changes between two blocks
//! and a key's history over a block range, against each block's `mbtRoot` (a Merkle Bucket Tree).
//! Rejections are [`MbtError`]s; the tree's parameters are the verifier's trusted input.
//!
//! The Merkle Bucket Tree (Yue et al., "Analysis of Indexing Structures for Immutable Data",
//! SIGMOD'20, §3.4.2 and §4.1) is a Merkle tree over a hash table: `B = 2^b` buckets, the bucket
//! of a state key being the top `b` bits of keccak256(stateKey), entries kept sorted by key
//! inside a bucket, and a complete `m`-ary tree of `d` inner levels above the buckets (`d` the
//! least with `m^d ≥ B`; slots past the last bucket are empty). The root is the node of level 0,
//! the buckets are at level `d`, and the position of bucket `i` in the node of level `l` above
//! it is digit `l` of `i` written in base `m` with `d` digits — a verifier derives every
//! position from the key, never from a proof.
//!
//! Hashes (SHA-256; `b`, `m` one byte each, integers big-endian):
//!
//! | what | preimage |
//! |---|---|
//! | bucket `i` with `n ≥ 1` entries | `0x40 ‖ b ‖ m ‖ i(u32) ‖ n(u32) ‖ (key(32) ‖ value(32)) × n` |
//! | the empty bucket (any index) | `0x41 ‖ b ‖ m ‖ d(u8)` |
//! | inner node of level `l` | `0x42 ‖ b ‖ m ‖ l(u8) ‖ child × m` |
//! | `mbtRoot` | the inner node of level 0 |
//!
//! An empty child is the per-level constant `E_l`: `E_d` the empty bucket, `E_l` the inner node
//! of level `l` whose `m` children are all `E_{l+1}`. So every inner node hashes exactly `m`
//! slots and a child's position is bound by where it sits: unlike Fabric 0.6's bucket tree,
//! which concatenates only the non-empty children and passes a lone child's hash up unchanged,
//! a bucket's hash cannot be moved to an empty neighbour's slot (a forged absence) and one hash
//! never stands for two levels. The bucket's index and entry count are inside its hash, and `b`,
//! `m` inside every hash, so a proof made under other parameters fails against the root.
//!
//! Wire formats v1 (big-endian integers, nothing after the last field):
//!
//! ```text
//! value   = 0x01 b(u8) m(u8) stateKey(32) entries depth(u8) level×depth
//! level   = sibling(32) × (m − 1)          -- the root's level first; the node's slots in order,
//!                                           -- the path's own slot left out
//! entries = count(u32 ≤ 16384) (key(32) value(32 ≠ 0)) × count    -- a whole bucket, key order
//!
//! diff    = 0x01 b(u8) m(u8) node           -- node of level 0
//! node    = 0x00 hash(32)                   -- a subtree the same in both blocks
//!         | 0x01 node × m                   -- an inner node that differs (level < d)
//!         | 0x02 entries entries            -- a bucket that differs (level d): old, then new
//!
//! history = 0x01 b(u8) m(u8) stateKey(32) lo(u64) hi(u64) depth(u8) hlevel×depth
//!           count(u16) entries×count        -- the bucket's distinct non-empty versions
//! hlevel  = count(u16) (child(32) × m) × count   -- the level's distinct nodes on the key's path
//! ```
//!
//! A diff proof never sends a differing node that differs in nothing (an inner node whose
//! children are all the same, a bucket whose two lists are equal), and a history proof's nodes
//! of each level, and its buckets, are strictly increasing by hash: each proof has one encoding.

mod codec;
mod error;

pub use codec::*;
pub use error::MbtError;

use crate::{
    ErrorCode as E,
    family::{Commitment, Family, HeaderField, Tamper},
};

/// The Merkle Bucket Tree's root after the block: extraData bytes 128..160 of a lightprov chain.
pub const MBT_ROOT: Commitment = Commitment::at("mbtRoot", HeaderField::ExtraData, 128);

/// The tree's parameters, pinned once per chain: extraData bytes 192..224 of a lightprov
/// chain's genesis header ([`MbtParams::to_word`]; zero in every later header). Every hash of
/// the tree binds them too, so a proof made under other parameters fails either way; the pin
/// lets a client know them before it asks a node anything.
pub const MBT_PARAMS: Commitment = Commitment::at_genesis("mbtParams", HeaderField::ExtraData, 192);

/// The mbt family's registry entry (in [`crate::FAMILIES`]).
pub const FAMILY: Family = Family {
    name: "mbt",
    about: "a state key's value or absence, two blocks' changes or a key's history against mbtRoot",
    commitments: &[&MBT_ROOT, &MBT_PARAMS],
    max_history_blocks: Some(MAX_HISTORY_BLOCKS),
    codes: &[
        E::BadEncoding,
        E::ParamsMismatch,
        E::KeyMismatch,
        E::RangeMismatch,
        E::TruncatedProof,
        E::ExtraNodes,
        E::ResultsOutOfOrder,
        E::WrongBucket,
        E::ValueMismatch,
        E::DuplicateNode,
        E::NodesOutOfOrder,
        E::NodeHashMismatch,
        E::RootMismatch,
    ],
    tampers: &[
        Tamper::new(
            "value-changed",
            E::RootMismatch,
            "a bucket entry's value changed",
        ),
        Tamper::new(
            "entry-dropped",
            E::RootMismatch,
            "the key's entry left out of its bucket, to claim it absent",
        ),
        Tamper::new(
            "bucket-moved-to-empty-slot",
            E::RootMismatch,
            "the bucket claimed empty and its hash moved to an empty neighbour's slot",
        ),
        Tamper::new(
            "siblings-permuted",
            E::RootMismatch,
            "a level's siblings reordered, as if the path took another slot",
        ),
        Tamper::new(
            "entries-swapped",
            E::ResultsOutOfOrder,
            "two bucket entries swapped",
        ),
        Tamper::new(
            "entry-duplicated",
            E::ResultsOutOfOrder,
            "a bucket entry repeated",
        ),
        Tamper::new(
            "foreign-entry",
            E::WrongBucket,
            "an entry of another bucket listed in the key's",
        ),
        Tamper::new("other-key", E::KeyMismatch, "checked for another state key"),
        Tamper::new(
            "other-params",
            E::ParamsMismatch,
            "made under other bucket bits or fanout",
        ),
        Tamper::new(
            "level-dropped",
            E::TruncatedProof,
            "an inner level left out",
        ),
        Tamper::new("level-added", E::ExtraNodes, "an inner level appended"),
        Tamper::new(
            "claimed-other-value",
            E::ValueMismatch,
            "an honest proof checked against another claimed value",
        ),
        Tamper::new(
            "diff-change-omitted",
            E::RootMismatch,
            "a changed bucket sent as the same subtree",
        ),
        Tamper::new(
            "diff-change-added",
            E::RootMismatch,
            "an entry added to a bucket's new list",
        ),
        Tamper::new(
            "diff-old-new-swapped",
            E::RootMismatch,
            "a bucket's old and new lists swapped",
        ),
        Tamper::new(
            "history-node-of-other-version",
            E::NodeHashMismatch,
            "a bucket replaced by another block's version",
        ),
        Tamper::new(
            "history-root-dropped",
            E::NodeHashMismatch,
            "the root node of a block left out",
        ),
        Tamper::new(
            "history-block-missing",
            E::RangeMismatch,
            "the range's last block left out",
        ),
        Tamper::new(
            "history-node-duplicated",
            E::DuplicateNode,
            "a node of the set repeated",
        ),
        Tamper::new(
            "history-nodes-reordered",
            E::NodesOutOfOrder,
            "two nodes of a level swapped",
        ),
        Tamper::new(
            "history-unused-node",
            E::ExtraNodes,
            "a bucket version on no block's path added",
        ),
        Tamper::TRUNCATED,
        Tamper::TRAILING_BYTE,
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_family_is_registered_and_its_root_follows_forkless_root() {
        assert!(crate::FAMILIES.iter().any(|f| core::ptr::eq(*f, &FAMILY)));
        // mbtRoot follows the four extraData commitments of the families registered before it.
        assert_eq!(
            MBT_ROOT.offset,
            crate::forkless::FORKLESS_ROOT.offset + crate::family::Commitment::LEN
        );
    }

    #[test]
    fn the_params_word_round_trips_and_refuses_any_other_word() {
        for p in [
            MbtParams::DEFAULT,
            MbtParams::new(1, 2).unwrap(),
            MbtParams::new(24, 32).unwrap(),
        ] {
            assert_eq!(MbtParams::from_word(&p.to_word()).unwrap(), Some(p));
        }
        // The zero word: the chain pins no parameters.
        assert_eq!(MbtParams::from_word(&[0; 32]).unwrap(), None);
        // A nonzero byte after the two: refused, naming the word.
        let mut w = MbtParams::DEFAULT.to_word();
        w[31] = 1;
        assert_eq!(MbtParams::from_word(&w).unwrap_err().field, "mbtParams");
        // Out of bounds: refused, naming the parameter.
        let mut w = [0u8; 32];
        w[0] = 25;
        w[1] = 16;
        assert_eq!(MbtParams::from_word(&w).unwrap_err().field, "bucketBits");
        w[0] = 12;
        w[1] = 1;
        assert_eq!(MbtParams::from_word(&w).unwrap_err().field, "fanout");
        // It sits after posRoot, only in the genesis header.
        assert_eq!(MBT_PARAMS.field, HeaderField::ExtraData);
        assert!(crate::family::commitment("mbtParams").is_some_and(|c| c.genesis_only));
        assert_eq!(
            MBT_PARAMS.offset,
            crate::pos::POS_ROOT.offset + crate::family::Commitment::LEN
        );
    }
}
