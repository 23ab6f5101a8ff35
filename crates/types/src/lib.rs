#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod codec;
pub mod error_code;
pub mod family;
pub mod hex;

// The proof families, one module each with the same files (`mod.rs`, `codec.rs`, `error.rs`),
// and the registry that lists them. A new family is its module line and its line in FAMILIES.
pub mod beacon;
pub mod cole;
pub mod forkless;
pub mod header;
pub mod lvmt;
pub mod mbt;
pub mod mpt;
pub mod pos;

/// Every proof family, in the order documentation lists them.
pub const FAMILIES: &[&Family] = &[
    &header::FAMILY,
    &mpt::FAMILY,
    &cole::FAMILY,
    &lvmt::FAMILY,
    &forkless::FAMILY,
    &beacon::FAMILY,
    &mbt::FAMILY,
    &pos::FAMILY,
];

pub use alloy_primitives::{Address, B256};
pub use codec::DecodeError;
pub use error_code::ErrorCode;
pub use family::{Evidence, Family, Rejection};

/// A 256-bit unsigned integer as 32 big-endian bytes (balances, storage values, difficulty).
///
/// Kept as bytes on purpose: verifiers compare words, they never do arithmetic on them.
pub type Word = [u8; 32];

/// keccak256 of the empty string: the code hash of an account without code.
pub const KECCAK_EMPTY: B256 = alloy_primitives::KECCAK256_EMPTY;

/// keccak256(RLP("")): the root of an empty Merkle-Patricia trie.
pub const EMPTY_ROOT_HASH: B256 =
    alloy_primitives::b256!("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421");
