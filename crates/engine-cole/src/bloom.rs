//! A Bloom filter over the state keys of a run.
//!
//! Its bits are part of the run's digest (through [`lightprov_types::cole::hash::bloom`]), so
//! every node must build the very same filter: the layout is fixed here rather than borrowed
//! from a library whose internals may change between versions. State keys are keccak256
//! outputs already, so the bit positions come from the key's own bytes by double hashing.

use alloy_primitives::B256;

/// Bits per key (≈ 1 % false positives with [`HASHES`] probes).
pub const BITS_PER_KEY: u64 = 10;
/// Probes per key.
pub const HASHES: u8 = 7;

/// A Bloom filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bloom {
    bits: Vec<u8>,
}

impl Bloom {
    /// An empty filter sized for `keys` keys.
    pub fn with_capacity(keys: u64) -> Self {
        let bits = keys.saturating_mul(BITS_PER_KEY).max(64);
        let bytes = usize::try_from(bits.div_ceil(8)).unwrap_or(usize::MAX);
        Self {
            bits: vec![0; bytes],
        }
    }

    /// A filter from its bytes (as stored).
    pub fn from_bytes(bits: Vec<u8>) -> Self {
        Self { bits }
    }

    /// The stored bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bits
    }

    fn probes(&self, key: &B256) -> impl Iterator<Item = (usize, u8)> + use<> {
        let nbits = (self.bits.len() as u64).saturating_mul(8).max(1);
        let mut a = [0u8; 8];
        let mut b = [0u8; 8];
        a.copy_from_slice(key.get(..8).unwrap_or(&[0; 8]));
        b.copy_from_slice(key.get(8..16).unwrap_or(&[0; 8]));
        let h1 = u64::from_be_bytes(a);
        let h2 = u64::from_be_bytes(b) | 1;
        (0..u64::from(HASHES)).map(move |i| {
            let bit = h1.wrapping_add(i.wrapping_mul(h2)) % nbits;
            (usize::try_from(bit / 8).unwrap_or(0), 1u8 << (bit % 8))
        })
    }

    /// Adds a key.
    pub fn insert(&mut self, key: &B256) {
        for (byte, mask) in self.probes(key) {
            if let Some(b) = self.bits.get_mut(byte) {
                *b |= mask;
            }
        }
    }

    /// Whether the key may have been added (false: certainly not).
    pub fn may_contain(&self, key: &B256) -> bool {
        self.probes(key)
            .all(|(byte, mask)| self.bits.get(byte).is_some_and(|b| b & mask != 0))
    }

    /// The commitment bound into the run's digest.
    pub fn commitment(&self) -> B256 {
        lightprov_types::cole::hash::bloom(HASHES, &self.bits)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use alloy_primitives::keccak256;

    #[test]
    fn no_false_negatives_and_few_false_positives() {
        let mut b = Bloom::with_capacity(1000);
        for i in 0u32..1000 {
            b.insert(&keccak256(i.to_be_bytes()));
        }
        assert!((0u32..1000).all(|i| b.may_contain(&keccak256(i.to_be_bytes()))));
        let fp = (1000u32..11000)
            .filter(|i| b.may_contain(&keccak256(i.to_be_bytes())))
            .count();
        assert!(fp < 300, "{fp} false positives in 10000");
    }
}
