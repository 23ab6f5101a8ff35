//! keccak256, from RustCrypto's `sha3` 0.10.
//!
//! Hashing is most of the cost of verifying an MPT proof. Measured in wasm under Node 20 on
//! 532-byte branch nodes: sha3 0.10 ≈ 300 MB/s, tiny-keccak ≈ 275 MB/s, sha3 0.11 ≈ 140 MB/s;
//! so this crate pins 0.10 rather than taking whichever keccak alloy-primitives enables.

use alloy_primitives::B256;
use sha3::{Digest, Keccak256};

/// keccak256 of `data`.
#[inline]
pub fn keccak256(data: impl AsRef<[u8]>) -> B256 {
    B256::from(<[u8; 32]>::from(Keccak256::digest(data.as_ref())))
}
