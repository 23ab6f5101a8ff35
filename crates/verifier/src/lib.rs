#![doc = include_str!("../README.md")]
#![cfg_attr(not(feature = "std"), no_std)]
#![forbid(unsafe_code)]

// Not every feature set allocates.
#[allow(unused_extern_crates)]
extern crate alloc;

mod family;
mod keccak;

#[cfg(feature = "beacon")]
pub mod beacon;
#[cfg(feature = "cole")]
pub mod cole;
#[cfg(feature = "forkless")]
pub mod forkless;
#[cfg(feature = "header")]
pub mod header;
#[cfg(feature = "lvmt")]
pub mod lvmt;
#[cfg(feature = "mbt")]
pub mod mbt;
#[cfg(feature = "mpt")]
pub mod mpt;
#[cfg(feature = "header")]
mod ordered;
#[cfg(feature = "pos")]
pub mod pos;

pub use family::{HistoryQuery, Verify};
pub use keccak::keccak256;
pub use lightprov_types::{ErrorCode, Evidence, FAMILIES, Family, Rejection};
#[cfg(feature = "header")]
pub use ordered::ordered_trie_root;
