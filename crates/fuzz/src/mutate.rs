//! Byte-level mutations (AFL-style havoc): bit and byte flips, interesting values, big-endian
//! length-field edits, insertions, deletions, duplications, truncation, extension, dictionary
//! tokens and splices with other corpus entries.

use crate::rng::Rng;

/// Inputs never grow past this (the largest seed is a few kilobytes).
pub const MAX_LEN: usize = 1 << 20;

const INTERESTING_8: [u8; 9] = [0, 1, 0x7f, 0x80, 0xff, 0x20, 0x40, 0xc0, 0xf8];

/// Applies one random byte-level mutation. `other` is another corpus entry (for splices),
/// `dict` the target's tokens.
pub fn once(data: &mut Vec<u8>, rng: &mut Rng, other: &[u8], dict: &[Vec<u8>]) {
    let len = data.len();
    match rng.below(16) {
        // flip a bit
        0 if len > 0 => {
            let i = rng.below(len);
            data[i] ^= 1 << rng.below(8);
        }
        // an interesting byte
        1 if len > 0 => {
            let i = rng.below(len);
            data[i] = *rng.pick(&INTERESTING_8).unwrap_or(&0);
        }
        // add or subtract a little
        2 if len > 0 => {
            let i = rng.below(len);
            let d = 1 + rng.byte() % 16;
            data[i] = if rng.one_in(2) {
                data[i].wrapping_add(d)
            } else {
                data[i].wrapping_sub(d)
            };
        }
        // a random byte
        3 if len > 0 => {
            let i = rng.below(len);
            data[i] = rng.byte();
        }
        // a big-endian integer field of 1, 2, 4 or 8 bytes: the field formats here are all
        // big-endian and length-prefixed, so this hits counts and lengths
        4 | 5 if len > 0 => {
            let w = *rng.pick(&[1usize, 2, 4, 8]).unwrap_or(&4);
            if len >= w {
                let at = rng.below(len - w + 1);
                edit_int(&mut data[at..at + w], rng);
            }
        }
        // delete a range
        6 if len > 0 => {
            let at = rng.below(len);
            let n = 1 + rng.below((len - at).min(64));
            data.drain(at..at + n);
        }
        // insert random bytes
        7 => {
            let at = rng.below(len + 1);
            let n = 1 + rng.below(16);
            let ins = if rng.one_in(2) {
                rng.bytes(n)
            } else {
                vec![if rng.one_in(2) { 0 } else { 0xff }; n]
            };
            data.splice(at..at, ins);
        }
        // duplicate a range in place
        8 if len > 0 => {
            let at = rng.below(len);
            let n = 1 + rng.below((len - at).min(256));
            let chunk = data[at..at + n].to_vec();
            let to = rng.below(len + 1);
            data.splice(to..to, chunk);
        }
        // copy a range over another
        9 if len > 1 => {
            let from = rng.below(len);
            let n = 1 + rng.below((len - from).min(64));
            let to = rng.below(len - n + 1);
            let chunk = data[from..from + n].to_vec();
            data[to..to + n].copy_from_slice(&chunk);
        }
        // truncate
        10 if len > 0 => data.truncate(rng.below(len)),
        // extend
        11 => {
            let n = 1 + rng.below(64);
            let tail = if rng.one_in(2) {
                vec![0; n]
            } else {
                rng.bytes(n)
            };
            data.extend(tail);
        }
        // splice: our prefix, the other entry's suffix
        12 if !other.is_empty() => {
            let cut = rng.below(len + 1);
            let from = rng.below(other.len());
            data.truncate(cut);
            data.extend_from_slice(&other[from..]);
        }
        // insert or overwrite with a chunk of the other entry
        13 if !other.is_empty() => {
            let from = rng.below(other.len());
            let n = 1 + rng.below((other.len() - from).min(512));
            let chunk = &other[from..from + n];
            let at = rng.below(len + 1);
            if rng.one_in(2) || at + n > len {
                data.splice(at..at, chunk.iter().copied());
            } else {
                data[at..at + n].copy_from_slice(chunk);
            }
        }
        // a dictionary token
        14 | 15 if !dict.is_empty() => {
            let tok = rng.pick(dict).cloned().unwrap_or_default();
            let at = rng.below(len + 1);
            if rng.one_in(2) || at + tok.len() > len {
                data.splice(at..at, tok);
            } else {
                data[at..at + tok.len()].copy_from_slice(&tok);
            }
        }
        _ => {
            // the chosen operation did not apply: flip a bit or add a byte
            if len > 0 {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            } else {
                data.push(rng.byte());
            }
        }
    }
    data.truncate(MAX_LEN);
}

/// Rewrites a big-endian integer field: 0, 1, its maximum, ±small, a power of two, a byte
/// swap, or random.
pub fn edit_int(field: &mut [u8], rng: &mut Rng) {
    let w = field.len();
    let mut v = field.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b));
    let max = if w >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * w)) - 1
    };
    v = match rng.below(8) {
        0 => 0,
        1 => 1,
        2 => max,
        3 => v.wrapping_add(1 + rng.below(16) as u64),
        4 => v.wrapping_sub(1 + rng.below(16) as u64),
        5 => 1u64 << rng.below(8 * w.min(8)),
        6 => max / 2 + 1,
        _ => rng.next_u64(),
    } & max;
    for (i, b) in field.iter_mut().enumerate() {
        *b = (v >> (8 * (w - 1 - i))) as u8;
    }
}

/// A stack of 1 to 8 mutations (half the time just one).
pub fn havoc(data: &[u8], rng: &mut Rng, other: &[u8], dict: &[Vec<u8>]) -> Vec<u8> {
    let mut out = data.to_vec();
    let n = if rng.one_in(2) { 1 } else { 1 << rng.below(4) };
    for _ in 0..n {
        once(&mut out, rng, other, dict);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_int_stays_in_its_field() {
        let mut rng = Rng::new(7);
        for _ in 0..1000 {
            let mut f = [0x12, 0x34];
            edit_int(&mut f, &mut rng);
            let mut g = [0u8; 8];
            edit_int(&mut g, &mut rng);
        }
    }

    #[test]
    fn havoc_is_deterministic_and_bounded() {
        let seed = vec![1u8; 100];
        let a: Vec<_> = {
            let mut r = Rng::new(1);
            (0..500)
                .map(|_| havoc(&seed, &mut r, &[9; 50], &[vec![0xaa]]))
                .collect()
        };
        let b: Vec<_> = {
            let mut r = Rng::new(1);
            (0..500)
                .map(|_| havoc(&seed, &mut r, &[9; 50], &[vec![0xaa]]))
                .collect()
        };
        assert_eq!(a, b);
        assert!(a.iter().all(|x| x.len() <= MAX_LEN));
        assert!(a.iter().filter(|x| **x != seed).count() > 450);
    }
}
