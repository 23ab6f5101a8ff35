#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

#[cfg(feature = "conformance")]
pub mod conformance;
pub mod kv;

use alloy_primitives::{Address, B256};
use lightprov_types::Word;
use sha3::{Digest, Keccak256};

/// A logical piece of state. Every engine indexes the same keys; see [`Key::state_key`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// An account's balance.
    Balance(Address),
    /// An account's nonce.
    Nonce(Address),
    /// A storage slot of an account.
    Storage(Address, B256),
}

impl Key {
    /// The 32-byte state key (docs/architecture.md): `keccak256(0x01 ‖ addr)` for balances,
    /// `keccak256(0x02 ‖ addr)` for nonces, `keccak256(0x03 ‖ addr ‖ slot)` for storage.
    pub fn state_key(&self) -> B256 {
        let (domain, address, slot) = self.parts();
        let mut h = Keccak256::new();
        h.update([domain]);
        h.update(address);
        if let Some(s) = slot {
            h.update(s);
        }
        B256::from(<[u8; 32]>::from(h.finalize()))
    }

    /// What [`Key::state_key`] hashes: `0x01 ‖ addr`, `0x02 ‖ addr` or `0x03 ‖ addr ‖ slot`.
    pub fn preimage(&self) -> Vec<u8> {
        let (domain, address, slot) = self.parts();
        let mut out = Vec::with_capacity(53);
        out.push(domain);
        out.extend_from_slice(address.as_slice());
        if let Some(s) = slot {
            out.extend_from_slice(s.as_slice());
        }
        out
    }

    /// The preimage's parts: the domain byte, the address and the slot (storage only).
    const fn parts(&self) -> (u8, &Address, Option<&B256>) {
        match self {
            Self::Balance(a) => (1, a, None),
            Self::Nonce(a) => (2, a, None),
            Self::Storage(a, s) => (3, a, Some(s)),
        }
    }

    /// The account the key belongs to.
    pub const fn address(&self) -> Address {
        match self {
            Self::Balance(a) | Self::Nonce(a) | Self::Storage(a, _) => *a,
        }
    }
}

/// One state change: the key and its new value (32-byte big-endian word; zero deletes).
pub type Write = (Key, Word);

/// A storage engine: applies each block's writes, keeps every past version, and proves values
/// against the commitment of any block.
pub trait StateEngine {
    /// What `prove` returns.
    type Proof;
    /// Engine failures (storage, corruption). Never used for "not found": absent is zero.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Applies block `number`'s writes, in order (a later write to the same key wins), and
    /// makes the block durable before returning its state commitment. `number` must be the
    /// head plus one (0 for the first block).
    fn apply_block(&mut self, number: u64, writes: &[Write]) -> Result<B256, Self::Error>;

    /// The last applied block, if any.
    fn head(&self) -> Option<u64>;

    /// The state commitment after block `block`.
    fn root(&self, block: u64) -> Result<B256, Self::Error>;

    /// The value of `key` after block `block` (zero if never written or deleted).
    fn get(&self, key: &Key, block: u64) -> Result<Word, Self::Error>;

    /// A proof of the value of `key` after block `block`, against [`StateEngine::root`].
    fn prove(&self, key: &Key, block: u64) -> Result<Self::Proof, Self::Error>;

    /// The block whose [`StateEngine::root`] a proof of `block` is checked against: `block`
    /// itself for engines that prove any past state (MPT archive); the head for engines that
    /// prove history from the current state (COLE).
    fn proof_anchor(&self, block: u64) -> u64 {
        block
    }

    /// Bytes the engine occupies on disk.
    fn disk_bytes(&self) -> u64;
}

/// A word holding a u64 (nonces).
pub fn word_from_u64(v: u64) -> Word {
    let mut w = [0u8; 32];
    w[24..].copy_from_slice(&v.to_be_bytes());
    w
}

/// The u64 in a word, if it fits.
pub fn u64_from_word(w: &Word) -> Option<u64> {
    let (high, low) = w.split_at(24);
    if high.iter().any(|&b| b != 0) {
        return None;
    }
    let mut b = [0u8; 8];
    b.copy_from_slice(low);
    Some(u64::from_be_bytes(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_keys_are_domain_separated() {
        let a = Address::repeat_byte(7);
        let keys = [Key::Balance(a), Key::Nonce(a), Key::Storage(a, B256::ZERO)];
        for (i, k) in keys.iter().enumerate() {
            assert!(keys[..i].iter().all(|o| o.state_key() != k.state_key()));
        }
        // balance(addr) = keccak256(0x01 ‖ addr)
        let mut pre = vec![1u8];
        pre.extend_from_slice(a.as_slice());
        assert_eq!(
            Key::Balance(a).state_key(),
            alloy_primitives::keccak256(pre)
        );
    }

    #[test]
    fn the_state_key_hashes_the_preimage() {
        let a = Address::repeat_byte(7);
        let slot = B256::repeat_byte(9);
        for k in [Key::Balance(a), Key::Nonce(a), Key::Storage(a, slot)] {
            assert_eq!(alloy_primitives::keccak256(k.preimage()), k.state_key());
        }
        let mut pre = vec![3u8];
        pre.extend_from_slice(a.as_slice());
        pre.extend_from_slice(slot.as_slice());
        assert_eq!(Key::Storage(a, slot).preimage(), pre);
    }

    #[test]
    fn u64_words_round_trip() {
        assert_eq!(u64_from_word(&word_from_u64(42)), Some(42));
        assert_eq!(u64_from_word(&[1; 32]), None);
    }
}
