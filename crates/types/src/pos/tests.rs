use alloc::vec;

use super::*;
use crate::B256;

fn k(b: u8) -> B256 {
    B256::repeat_byte(b)
}

fn leaf(keys: &[u8]) -> Node {
    Node::leaf(keys.iter().map(|&b| (k(b), [b; 32])).collect())
}

#[test]
fn node_encoding_is_its_hash_preimage_and_round_trips() {
    let l = leaf(&[1, 2, 3]);
    let bytes = l.encode();
    assert_eq!(bytes.len(), l.encoded_len());
    assert_eq!(&bytes[..3], &[0x00, 0x00, 0x03]);
    assert_eq!(Node::decode(&bytes).unwrap(), l);
    let inner = Node {
        level: 1,
        entries: vec![(k(3), l.hash().0)],
    };
    let ib = inner.encode();
    assert_eq!(&ib[..4], &[0x01, 0x01, 0x00, 0x01]);
    assert_eq!(Node::decode(&ib).unwrap(), inner);
    use sha2::{Digest, Sha256};
    assert_eq!(inner.hash().0, <[u8; 32]>::from(Sha256::digest(&ib)));
    assert_eq!(
        empty_root().0,
        <[u8; 32]>::from(Sha256::digest([0u8, 0, 0]))
    );
    assert_ne!(empty_root(), B256::ZERO);
}

#[test]
fn decoders_refuse_what_has_no_honest_encoding() {
    // A zero value in a leaf (a deleted key is not stored).
    let mut z = leaf(&[1]);
    z.entries[0].1 = [0; 32];
    assert!(Node::decode(&z.encode()).is_err());
    // An inner node without children, at level 0 or above 32, an unknown tag.
    assert!(Node::decode(&[0x01, 0x01, 0x00, 0x00]).is_err());
    assert!(Node::decode(&[0x01, 0x00, 0x00, 0x00]).is_err());
    assert!(Node::decode(&[0x01, 33, 0x00, 0x00]).is_err());
    assert!(Node::decode(&[0x02, 0x00, 0x00]).is_err());
    // A count the bytes cannot hold, or over the cap, before any allocation.
    assert!(Node::decode(&[0x00, 0xff, 0xff]).is_err());
    let mut big = vec![0x00, 0x01, 0x01];
    big.resize(3 + 257 * 64, 1);
    assert!(Node::decode(&big).is_err());
    // Trailing bytes.
    let mut t = leaf(&[1]).encode();
    t.push(0);
    assert!(Node::decode(&t).is_err());
}

#[test]
fn proofs_round_trip() {
    let l = leaf(&[1, 2]);
    let root = Node {
        level: 1,
        entries: vec![(k(2), l.hash().0), (k(9), [7; 32])],
    };
    let p = PathProof {
        nodes: vec![root, l.clone()],
    };
    assert_eq!(PathProof::decode(&p.encode()).unwrap(), p);
    let tree = Tree::Inner {
        level: 1,
        children: vec![
            (k(2), Tree::Leaf(l.entries.clone())),
            (k(9), Tree::Pruned(k(7))),
        ],
    };
    let r = RangeProof { tree: tree.clone() };
    assert_eq!(RangeProof::decode(&r.encode()).unwrap(), r);
    let d = DiffProof {
        old: tree.clone(),
        new: Tree::Pruned(k(1)),
    };
    assert_eq!(DiffProof::decode(&d.encode()).unwrap(), d);
    let h = HistoryProof {
        from: 3,
        to: 5,
        items: vec![
            HistoryItem::Full(l.clone()),
            HistoryItem::Patch {
                base: 0,
                splices: vec![Splice {
                    at: 1,
                    delete: 1,
                    insert: vec![(k(5), [5; 32])],
                }],
            },
        ],
    };
    let back = HistoryProof::decode(&h.encode()).unwrap();
    assert_eq!(back, h);
    let nodes = back.nodes().unwrap();
    assert_eq!(nodes[1], leaf(&[1, 5]));
}

#[test]
fn tree_children_must_be_below_their_parent() {
    // An inner node at level 1 holding an inner node at level 1.
    let bad = Tree::Inner {
        level: 1,
        children: vec![(
            k(1),
            Tree::Inner {
                level: 1,
                children: vec![(k(1), Tree::Pruned(k(1)))],
            },
        )],
    };
    assert!(RangeProof::decode(&RangeProof { tree: bad }.encode()).is_err());
}

#[test]
fn history_patches_are_bounded_by_their_base() {
    let h = HistoryProof {
        from: 0,
        to: 0,
        items: vec![
            HistoryItem::Full(leaf(&[1])),
            HistoryItem::Patch {
                base: 0,
                splices: vec![Splice {
                    at: 1,
                    delete: 1,
                    insert: vec![],
                }],
            },
        ],
    };
    assert!(HistoryProof::decode(&h.encode()).unwrap().nodes().is_err());
    // Runs out of order, touching, or changing nothing.
    let sp = |at, delete, n: u8| Splice {
        at,
        delete,
        insert: (0..n).map(|i| (k(100 + i), [1; 32])).collect(),
    };
    let splices = [
        vec![sp(2, 1, 1), sp(0, 1, 1)],
        vec![sp(0, 1, 1), sp(1, 1, 1)],
        vec![sp(1, 0, 0)],
        vec![sp(0, 2, 0), sp(1, 0, 1)],
    ]
    .map(|splices| HistoryItem::Patch { base: 0, splices });
    // New values out of order, outside the base, unchanged, or none.
    let values = [
        vec![(2, [9; 32]), (1, [9; 32])],
        vec![(4, [9; 32])],
        vec![(0, [1; 32])],
        vec![],
    ]
    .map(|values| HistoryItem::Values { base: 0, values });
    for patch in splices.into_iter().chain(values) {
        let h = HistoryProof {
            from: 0,
            to: 0,
            items: vec![HistoryItem::Full(leaf(&[1, 2, 3, 4])), patch],
        };
        assert!(h.nodes().is_err(), "{h:?}");
    }
    let later = HistoryProof {
        from: 0,
        to: 0,
        items: vec![HistoryItem::Patch {
            base: 0,
            splices: vec![],
        }],
    };
    assert!(HistoryProof::decode(&later.encode()).is_err());
    let long = HistoryProof {
        from: 0,
        to: MAX_HISTORY_BLOCKS,
        items: vec![],
    };
    assert!(HistoryProof::decode(&long.encode()).is_err());
}

#[test]
fn decoders_never_panic_on_arbitrary_bytes() {
    // A deterministic stream of inputs: every prefix of valid encodings with bytes flipped,
    // and xorshift noise.
    let l = leaf(&[1, 2, 3]);
    let valid = [
        PathProof {
            nodes: vec![l.clone()],
        }
        .encode(),
        RangeProof {
            tree: Tree::Leaf(l.entries.clone()),
        }
        .encode(),
        HistoryProof {
            from: 1,
            to: 2,
            items: vec![HistoryItem::Full(l)],
        }
        .encode(),
    ];
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for v in &valid {
        for cut in 0..v.len() {
            for flip in [0usize, 1, 2, 5] {
                let mut b = v[..cut].to_vec();
                if let Some(byte) = b.get_mut(flip) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    *byte ^= x as u8;
                }
                let _ = PathProof::decode(&b);
                let _ = RangeProof::decode(&b);
                let _ = DiffProof::decode(&b);
                let _ = HistoryProof::decode(&b).map(|h| h.nodes());
            }
        }
    }
}

#[test]
fn split_rules_cut_where_they_say() {
    let rule = SplitRule::DEFAULT;
    // The hard cap cuts whatever the key.
    assert!(rule.cuts_after(0, 256, &k(0)));
    // Below the minimum, never.
    assert!(!rule.cuts_after(0, 1, &k(0)));
    // About one key in 16 is a boundary at a level, independently per level.
    let hits = (0u16..4096)
        .filter(|i| {
            let mut b = [0u8; 32];
            b[..2].copy_from_slice(&i.to_be_bytes());
            split::is_boundary(4, 0, &B256::from(b))
        })
        .count();
    assert!((180..340).contains(&hits), "{hits} boundaries in 4096 keys");
    assert!(SplitRule::DEFAULT.is_valid() && SplitRule::FIXED_16.is_valid());
    let fixed = SplitRule::FIXED_16;
    assert!(!fixed.cuts_after(0, 15, &k(0)) && fixed.cuts_after(0, 16, &k(0)));
}

#[test]
fn family_entry_is_consistent() {
    for t in FAMILY.tampers {
        assert!(FAMILY.codes.contains(&t.code), "{}", t.name);
    }
    assert_eq!(POS_ROOT.offset, 160);
}

/// The tree of docs/proofs.md's POS-Tree worked example: three keys, two leaves of at most two
/// entries, one root.
fn worked_example() -> (Node, Node, Node) {
    let e = |b: u8| {
        let mut v = [0u8; 32];
        v[31] = b;
        (B256::repeat_byte(b * 0x11), v)
    };
    let rule = SplitRule::FixedSize { entries: 2 };
    let levels = rule.build(&[e(1), e(2), e(3)]);
    let [a, b] = [levels[0][0].clone(), levels[0][1].clone()];
    (levels[1][0].clone(), a, b)
}

#[test]
fn worked_example_of_docs_proofs_md() {
    let (root, _, leaf) = worked_example();
    let proof = PathProof {
        nodes: vec![root.clone(), leaf],
    }
    .encode();
    let docs = include_str!("../../../../docs/proofs.md");
    let root_hex = crate::hex::encode(root.hash().as_slice());
    let proof_hex = crate::hex::encode(&proof);
    std::println!("root {root_hex}\nproof {} bytes {proof_hex}", proof.len());
    assert!(
        docs.contains(&root_hex),
        "docs/proofs.md names the root {root_hex}"
    );
    assert!(docs.contains(&proof_hex), "docs/proofs.md holds the proof");
    assert_eq!(proof.len(), 201);
}

#[test]
fn spans_point_at_each_node_subtree_and_item() {
    let (root, a, b) = worked_example();
    let p = PathProof {
        nodes: vec![root.clone(), b.clone()],
    };
    let bytes = p.encode();
    let (back, spans) = PathProof::decode_with_spans(&bytes).unwrap();
    assert_eq!(back, p);
    let r = root.encoded_len();
    assert_eq!(spans.get("nodes[0]"), Some((2, 2 + r)));
    assert_eq!(spans.get("nodes[1]"), Some((2 + r, bytes.len())));
    assert_eq!(&bytes[2 + r..], b.encode().as_slice());

    let tree = Tree::Inner {
        level: 1,
        children: vec![
            (k(0x22), Tree::Pruned(a.hash())),
            (k(0x33), Tree::Leaf(b.entries.clone())),
        ],
    };
    let bytes = RangeProof { tree }.encode();
    let (_, spans) = RangeProof::decode_with_spans(&bytes).unwrap();
    assert_eq!(spans.get("tree"), Some((1, bytes.len())));
    // version, tag, level, count, separator: the first child starts at 1 + 4 + 32.
    assert_eq!(spans.get("tree.0"), Some((37, 37 + 33)));
    assert_eq!(spans.get("tree.1"), Some((37 + 33 + 32, bytes.len())));

    let h = HistoryProof {
        from: 0,
        to: 1,
        items: vec![
            HistoryItem::Full(a.clone()),
            HistoryItem::Values {
                base: 0,
                values: vec![(0, [9; 32])],
            },
        ],
    };
    let bytes = h.encode();
    let (_, spans) = HistoryProof::decode_with_spans(&bytes).unwrap();
    let first = 1 + 16 + 4;
    assert_eq!(
        spans.get("items[0]"),
        Some((first, first + 1 + a.encoded_len()))
    );
    assert_eq!(
        spans.get("items[0].node"),
        Some((first + 1, first + 1 + a.encoded_len()))
    );
    assert_eq!(
        spans.get("items[1]"),
        Some((first + 1 + a.encoded_len(), bytes.len()))
    );
}
