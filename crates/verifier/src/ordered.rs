//! The root of a block's ordered trie (key `RLP(i)`, value item `i`) built from the items
//! alone: what a header's `transactionsRoot` and `receiptsRoot` commit to. For checking a
//! block's whole list against its header (a light client's `getLogs` rebuilds two per block),
//! not a proof: part of the header family.

use alloc::vec::Vec;

use alloy_primitives::B256;

use crate::keccak256;

/// The root of the ordered trie of `items`: the empty trie's root for none.
pub fn ordered_trie_root(items: &[&[u8]]) -> B256 {
    // Keys in byte order, which is the trie's: RLP(1..=127) are the bytes 0x01..0x7f, RLP(0)
    // is 0x80, and from 128 on RLP(i) is 0x80 + its length, then i big-endian — in numeric
    // order. No sort needed.
    let n = items.len();
    let order = (1..n.min(128)).chain((n > 0).then_some(0)).chain(128..n);
    let entries: Vec<(Vec<u8>, &[u8])> = order
        .filter_map(|i| Some((key_nibbles(i as u64), *items.get(i)?)))
        .collect();
    if entries.is_empty() {
        return keccak256([EMPTY]);
    }
    keccak256(node(&entries, 0))
}

const EMPTY: u8 = 0x80;

/// The nibbles of `RLP(i)`.
fn key_nibbles(i: u64) -> Vec<u8> {
    let be = i.to_be_bytes();
    let skip = be.iter().take_while(|b| **b == 0).count();
    let digits = be.get(skip..).unwrap_or_default();
    let mut key = Vec::with_capacity(9);
    match digits {
        [] => key.push(EMPTY),
        [b] if *b < 0x80 => key.push(*b),
        _ => {
            key.push(EMPTY + digits.len() as u8);
            key.extend_from_slice(digits);
        }
    }
    let mut out = Vec::with_capacity(key.len() * 2);
    for b in key {
        out.push(b >> 4);
        out.push(b & 15);
    }
    out
}

/// An RLP header: `short` (0x80 strings, 0xc0 lists) plus the payload's length.
fn header(short: u8, len: usize, out: &mut Vec<u8>) {
    if len < 56 {
        out.push(short + len as u8);
        return;
    }
    let be = (len as u64).to_be_bytes();
    let skip = be.iter().take_while(|b| **b == 0).count();
    let digits = be.get(skip..).unwrap_or_default();
    out.push(short + 55 + digits.len() as u8);
    out.extend_from_slice(digits);
}

/// Hex-prefix encoding of a nibble path (Yellow Paper, appendix C).
fn hex_prefix(path: &[u8], leaf: bool) -> Vec<u8> {
    let odd = path.len() % 2;
    let mut out = Vec::with_capacity(1 + path.len() / 2);
    let flag = (u8::from(leaf) * 2 + odd as u8) << 4;
    let rest = if odd == 1 {
        out.push(flag | path.first().copied().unwrap_or(0));
        path.get(1..).unwrap_or_default()
    } else {
        out.push(flag);
        path
    };
    out.extend(
        rest.chunks(2)
            .map(|c| (c.first().copied().unwrap_or(0) << 4) | c.get(1).copied().unwrap_or(0)),
    );
    out
}

/// `bytes` as an RLP string.
fn string(bytes: &[u8], out: &mut Vec<u8>) {
    match bytes {
        [b] if *b < 0x80 => out.push(*b),
        _ => {
            header(0x80, bytes.len(), out);
            out.extend_from_slice(bytes);
        }
    }
}

/// `payload` (encoded items) as an RLP list.
fn list(payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + 9);
    header(0xc0, payload.len(), &mut out);
    out.extend_from_slice(payload);
    out
}

/// How a parent holds a child node: the node itself under 32 bytes, else its hash.
fn reference(encoded: Vec<u8>, out: &mut Vec<u8>) {
    if encoded.len() < 32 {
        out.extend_from_slice(&encoded);
    } else {
        string(keccak256(&encoded).as_slice(), out);
    }
}

/// The RLP of the node over `entries` (sorted, keys prefix-free), all sharing `key[..depth]`.
fn node(entries: &[(Vec<u8>, &[u8])], depth: usize) -> Vec<u8> {
    let (Some(first), Some(last)) = (entries.first(), entries.last()) else {
        return list(&[]);
    };
    let suffix = first.0.get(depth..).unwrap_or_default();
    if entries.len() == 1 {
        let mut payload = Vec::with_capacity(first.1.len() + 40);
        string(&hex_prefix(suffix, true), &mut payload);
        string(first.1, &mut payload);
        return list(&payload);
    }
    // The longest prefix every key shares from `depth` on.
    let common = suffix
        .iter()
        .zip(last.0.get(depth..).unwrap_or_default())
        .take_while(|(a, b)| a == b)
        .count();
    if common > 0 {
        let mut payload = Vec::new();
        string(
            &hex_prefix(suffix.get(..common).unwrap_or_default(), false),
            &mut payload,
        );
        reference(node(entries, depth + common), &mut payload);
        return list(&payload);
    }
    let mut payload = Vec::new();
    let mut rest = entries;
    for nibble in 0..16u8 {
        let n = rest
            .iter()
            .take_while(|e| e.0.get(depth) == Some(&nibble))
            .count();
        let (group, after) = rest.split_at(n);
        if group.is_empty() {
            payload.push(EMPTY);
        } else {
            reference(node(group, depth + 1), &mut payload);
        }
        rest = after;
    }
    // RLP(i) keys are prefix-free: no key ends at a branch, so its value slot is empty.
    payload.push(EMPTY);
    list(&payload)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    fn index_key(i: u64) -> Vec<u8> {
        alloy_rlp::encode(i)
    }

    /// alloy-trie's root of the same list, as an independent reference.
    fn reference_root(items: &[Vec<u8>]) -> B256 {
        use alloy_trie::{HashBuilder, Nibbles};
        let mut leaves: Vec<(Nibbles, &Vec<u8>)> = items
            .iter()
            .enumerate()
            .map(|(i, v)| (Nibbles::unpack(index_key(i as u64)), v))
            .collect();
        leaves.sort_unstable_by_key(|a| a.0);
        let mut hb = HashBuilder::default();
        for (k, v) in leaves {
            hb.add_leaf(k, v);
        }
        hb.root()
    }

    #[test]
    fn keys_are_rlp_of_the_index() {
        for i in [0u64, 1, 127, 128, 255, 256, 65_535, 65_536, u64::MAX] {
            let want: Vec<u8> = index_key(i).iter().flat_map(|b| [b >> 4, b & 15]).collect();
            assert_eq!(key_nibbles(i), want, "{i}");
        }
    }

    #[test]
    fn roots_match_alloy_trie_for_lists_of_every_shape() {
        // Sizes across the single-byte keys (< 128), the two-byte ones, and values both under
        // and over 32 bytes (inline and hashed nodes).
        for n in [0usize, 1, 2, 3, 15, 16, 17, 127, 128, 129, 200, 300] {
            for width in [1usize, 5, 40, 300] {
                let items: Vec<Vec<u8>> = (0..n)
                    .map(|i| (0..width).map(|k| (i * 31 + k * 7) as u8).collect())
                    .collect();
                let refs: Vec<&[u8]> = items.iter().map(Vec::as_slice).collect();
                assert_eq!(
                    ordered_trie_root(&refs),
                    reference_root(&items),
                    "n {n}, width {width}"
                );
            }
        }
    }
}
