//! A strict, zero-copy decoder for Merkle-Patricia trie nodes (Ethereum Yellow Paper, App. D).
//!
//! Accepts exactly the canonical encodings a trie produces: a branch of 16 child references
//! and a value, or a two-item leaf/extension with a hex-prefix path. Child references are the
//! empty string, a 32-byte hash, or an inline node whose whole RLP is under 32 bytes.

use alloy_rlp::{EMPTY_STRING_CODE, Header};

/// A reference from a node to its child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Child<'a> {
    Empty,
    Hash(&'a [u8; 32]),
    /// An embedded node: its full RLP, under 32 bytes.
    Inline(&'a [u8]),
}

/// A hex-prefix-encoded path: `bytes` after the flag byte, plus the odd nibble if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Path<'a> {
    odd: Option<u8>,
    bytes: &'a [u8],
}

impl Path<'_> {
    pub(crate) fn len(&self) -> usize {
        2 * self.bytes.len() + usize::from(self.odd.is_some())
    }

    pub(crate) fn nibble(&self, i: usize) -> u8 {
        match self.odd {
            Some(first) if i == 0 => first,
            Some(_) => nibble(self.bytes, i - 1),
            None => nibble(self.bytes, i),
        }
    }
}

/// Nibble `i` of `bytes`, high nibble first. `i` must be below `2 * bytes.len()`.
#[allow(clippy::indexing_slicing)]
pub(crate) fn nibble(bytes: &[u8], i: usize) -> u8 {
    (bytes[i / 2] >> if i.is_multiple_of(2) { 4 } else { 0 }) & 0x0f
}

// A branch is large (16 references) but lives on the stack for one step of the walk; boxing it
// would put an allocation on the hot path.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Node<'a> {
    Branch {
        children: [Child<'a>; 16],
        value: Option<&'a [u8]>,
    },
    Extension {
        path: Path<'a>,
        child: Child<'a>,
    },
    Leaf {
        path: Path<'a>,
        value: &'a [u8],
    },
}

/// Why bytes are not a canonical trie node.
pub(crate) type Malformed = &'static str;

fn item<'a>(buf: &mut &'a [u8]) -> Result<(&'a [u8], bool, &'a [u8]), Malformed> {
    let start = *buf;
    let h = Header::decode(buf).map_err(|_| "invalid RLP")?;
    let (payload, rest) = buf
        .split_at_checked(h.payload_length)
        .ok_or("invalid RLP")?;
    *buf = rest;
    let raw = start.get(..start.len() - rest.len()).ok_or("invalid RLP")?;
    Ok((raw, h.list, payload))
}

fn child<'a>(raw: &'a [u8], list: bool, payload: &'a [u8]) -> Result<Child<'a>, Malformed> {
    if list {
        if raw.len() >= 32 {
            return Err("an inline child node is 32 bytes or longer");
        }
        // Validate embedded nodes even off the key's path, so junk cannot pose as an entry.
        // Recursion is bounded: each level is shorter than the last.
        Node::decode(raw)?;
        Ok(Child::Inline(raw))
    } else if payload.is_empty() {
        Ok(Child::Empty)
    } else {
        payload
            .try_into()
            .map(Child::Hash)
            .map_err(|_| "a child reference is not a 32-byte hash")
    }
}

impl<'a> Node<'a> {
    /// Decodes one node; the whole of `buf` must be the node.
    pub(crate) fn decode(mut buf: &'a [u8]) -> Result<Self, Malformed> {
        let (_, list, mut payload) = item(&mut buf)?;
        if !buf.is_empty() {
            return Err("trailing bytes after the node");
        }
        if !list {
            return Err("a node is an RLP list");
        }
        let mut items = [(&[][..], false, &[][..]); 17];
        let mut n = 0;
        while !payload.is_empty() {
            let slot = items.get_mut(n).ok_or("a node has 2 or 17 items")?;
            *slot = item(&mut payload)?;
            n += 1;
        }
        match n {
            17 => Self::branch(&items),
            2 => Self::short(items[0], items[1]),
            _ => Err("a node has 2 or 17 items"),
        }
    }

    #[allow(clippy::indexing_slicing)] // `items` has 17 entries
    fn branch(items: &[(&'a [u8], bool, &'a [u8]); 17]) -> Result<Self, Malformed> {
        let mut children = [Child::Empty; 16];
        let mut used = 0;
        for (slot, &(raw, list, payload)) in children.iter_mut().zip(items.iter()) {
            *slot = child(raw, list, payload)?;
            used += usize::from(*slot != Child::Empty);
        }
        let (_, list, value) = items[16];
        if list {
            return Err("a branch value is a list");
        }
        let value = (!value.is_empty()).then_some(value);
        if used + usize::from(value.is_some()) < 2 {
            return Err("a branch has fewer than two entries");
        }
        Ok(Self::Branch { children, value })
    }

    fn short(
        (_, path_list, hp): (&'a [u8], bool, &'a [u8]),
        (raw, list, payload): (&'a [u8], bool, &'a [u8]),
    ) -> Result<Self, Malformed> {
        if path_list {
            return Err("a hex-prefix path is a list");
        }
        let (&flag, rest) = hp.split_first().ok_or("a hex-prefix path is empty")?;
        let odd = match flag >> 4 {
            0 | 2 if flag & 0x0f == 0 => None,
            1 | 3 => Some(flag & 0x0f),
            _ => return Err("invalid hex-prefix flag"),
        };
        let path = Path { odd, bytes: rest };
        if flag >> 4 >= 2 {
            if list {
                return Err("a leaf value is a list");
            }
            if payload.is_empty() {
                return Err("a leaf value is empty");
            }
            return Ok(Self::Leaf {
                path,
                value: payload,
            });
        }
        if path.len() == 0 {
            return Err("an extension has an empty path");
        }
        match child(raw, list, payload)? {
            Child::Empty => Err("an extension has no child"),
            c => Ok(Self::Extension { path, child: c }),
        }
    }
}

/// True for the one-byte RLP of the empty string, which some clients send as the proof of an
/// empty trie.
pub(crate) fn is_empty_string(node: &[u8]) -> bool {
    node == [EMPTY_STRING_CODE]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_leaf_and_extension_paths() {
        // leaf, odd path [1,2,3], value "a"
        let leaf = [0xc4, 0x82, 0x31, 0x23, 0x61];
        let Ok(Node::Leaf { path, value }) = Node::decode(&leaf) else {
            panic!("leaf")
        };
        assert_eq!(
            (path.len(), path.nibble(0), path.nibble(2), value),
            (3, 1, 3, &b"a"[..])
        );
        // even-flag with a non-zero padding nibble is not canonical
        assert!(Node::decode(&[0xc4, 0x82, 0x21, 0x23, 0x61]).is_err());
        assert!(
            Node::decode(&[0xc3, 0x81, 0x20, 0x80]).is_err(),
            "empty leaf value"
        );
        assert!(Node::decode(&[0xc3, 0x81, 0x40, 0x61]).is_err(), "flag 4");
        assert!(
            Node::decode(&[0xc2, 0x00, 0x61]).is_err(),
            "extension with empty path"
        );
        assert!(
            Node::decode(&[0xc4, 0x82, 0x31, 0x23, 0x61, 0x00]).is_err(),
            "trailing"
        );
    }

    #[test]
    fn rejects_bad_child_references() {
        let mut branch = alloc::vec![0xd1];
        branch.extend([0x80; 17]);
        assert_eq!(
            Node::decode(&branch),
            Err("a branch has fewer than two entries")
        );
        // a 2-byte string is not a hash reference
        let mut b2 = alloc::vec![0xd3, 0x82, 1, 2];
        b2.extend([0x80; 16]);
        assert_eq!(
            Node::decode(&b2),
            Err("a child reference is not a 32-byte hash")
        );
    }
}
