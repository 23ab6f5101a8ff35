//! Strict `0x`-hex parsing for JSON-RPC values, with the field named in every error.
//!
//! `DATA` values must have an even number of digits and, where a width is fixed, exactly that
//! width. `QUANTITY` values are numbers: leading zeros are tolerated (some clients pad them),
//! `0x` alone is not.

use alloc::vec::Vec;

use crate::{DecodeError, Word};

fn strip<'a>(s: &'a str, field: &str) -> Result<&'a [u8], DecodeError> {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .map(str::as_bytes)
        .ok_or_else(|| DecodeError::new(field, "expected a 0x-prefixed hex string"))
}

/// Decodes `0x`-hex `DATA` of any even length.
pub fn data(s: &str, field: &str) -> Result<Vec<u8>, DecodeError> {
    let digits = strip(s, field)?;
    if digits.len() % 2 != 0 {
        return Err(DecodeError::new(field, "odd number of hex digits"));
    }
    ::hex::decode(digits).map_err(|_| DecodeError::new(field, "invalid hex digit"))
}

/// Decodes `0x`-hex `DATA` of exactly `N` bytes.
pub fn fixed<const N: usize>(s: &str, field: &str) -> Result<[u8; N], DecodeError> {
    let v = data(s, field)?;
    v.try_into()
        .map_err(|_| DecodeError::new(field, "wrong length"))
}

/// Decodes a `QUANTITY` of at most 256 bits into a big-endian word.
pub fn word(s: &str, field: &str) -> Result<Word, DecodeError> {
    let digits = strip(s, field)?;
    if digits.is_empty() {
        return Err(DecodeError::new(field, "empty quantity"));
    }
    let first = digits
        .iter()
        .position(|&c| c != b'0')
        .unwrap_or(digits.len());
    let digits = digits.get(first..).unwrap_or_default();
    if digits.len() > 64 {
        return Err(DecodeError::new(field, "quantity exceeds 256 bits"));
    }
    let mut padded = [b'0'; 64];
    padded
        .get_mut(64 - digits.len()..)
        .unwrap_or_default()
        .copy_from_slice(digits);
    let mut out = [0u8; 32];
    ::hex::decode_to_slice(padded, &mut out)
        .map_err(|_| DecodeError::new(field, "invalid hex digit"))?;
    Ok(out)
}

/// Decodes a `QUANTITY` of at most 64 bits.
pub fn u64(s: &str, field: &str) -> Result<u64, DecodeError> {
    let w = word(s, field)?;
    let (high, low) = w.split_at(24);
    if high.iter().any(|&b| b != 0) {
        return Err(DecodeError::new(field, "quantity exceeds 64 bits"));
    }
    let mut b = [0u8; 8];
    b.copy_from_slice(low);
    Ok(u64::from_be_bytes(b))
}

/// Displays bytes as lowercase `0x`-hex: the small writer error messages use, so that a wasm
/// module that only reports errors carries no hex encoder besides it.
#[derive(Clone, Copy, Debug)]
pub struct Hex<'a>(pub &'a [u8]);

impl core::fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use core::fmt::Write;
        let digit = |n: u8| char::from(if n < 10 { b'0' + n } else { b'a' + n - 10 });
        f.write_str("0x")?;
        for b in self.0 {
            f.write_char(digit(b >> 4))?;
            f.write_char(digit(b & 15))?;
        }
        Ok(())
    }
}

/// [`Hex`] of anything that is bytes (a hash, a key, an address): what the families' error
/// messages show.
pub(crate) fn hex<T: AsRef<[u8]> + ?Sized>(b: &T) -> Hex<'_> {
    Hex(b.as_ref())
}

/// Encodes bytes as lowercase `0x`-hex `DATA`.
pub fn encode(b: &[u8]) -> alloc::string::String {
    let mut s = alloc::string::String::with_capacity(2 + 2 * b.len());
    s.push_str("0x");
    s.push_str(&::hex::encode(b));
    s
}

/// Encodes a big-endian word as a minimal `QUANTITY` (`0x0` for zero).
pub fn encode_quantity(w: &[u8]) -> alloc::string::String {
    let h = ::hex::encode(w);
    let t = h.trim_start_matches('0');
    alloc::format!("0x{}", if t.is_empty() { "0" } else { t })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_quantities_and_names_the_field() {
        assert_eq!(u64("0x0", "n"), Ok(0));
        assert_eq!(u64("0x00ff", "n"), Ok(255));
        assert_eq!(word("0x1", "v").map(|w| w[31]), Ok(1));
        assert_eq!(u64("0x", "nonce").map_err(|e| e.field), Err("nonce".into()));
        assert!(u64("0x10000000000000000", "n").is_err());
        assert!(word(&alloc::format!("0x1{}", "0".repeat(64)), "w").is_err());
        assert!(word("12", "w").is_err());
        assert!(word("0xg", "w").is_err());
    }

    #[test]
    fn hex_display_matches_the_encoder() {
        let bytes: alloc::vec::Vec<u8> = (0..=255).collect();
        assert_eq!(alloc::format!("{}", Hex(&bytes)), encode(&bytes));
        assert_eq!(alloc::format!("{}", Hex(&[])), "0x");
    }

    #[test]
    fn data_is_strict() {
        assert_eq!(data("0x", "d"), Ok(alloc::vec![]));
        assert_eq!(data("0xA0b1", "d"), Ok(alloc::vec![0xa0, 0xb1]));
        assert!(data("0xabc", "d").is_err());
        assert!(fixed::<2>("0xabcdef", "d").is_err());
        assert_eq!(encode_quantity(&[0, 0, 1, 0]), "0x100");
        assert_eq!(encode_quantity(&[0, 0]), "0x0");
    }
}
