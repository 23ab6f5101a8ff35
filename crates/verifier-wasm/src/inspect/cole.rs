//! COLE outlines and forgeries.

use std::{format, string::String, vec::Vec};

use lightprov_types::{
    B256, DecodeError,
    cole::{Entry, HistoryProof, Part, Structure, StructureKind, Tree, hash},
};
use lightprov_verifier::cole::verify_history;

use super::{
    ForgeError, Forged, Node, RootCheck, first_difference, hex, increment, not_applicable,
    outline_json, short, word,
};

/// Wire bytes before the first part: version, key, lo, hi, fanout, count.
const HEADER: usize = 1 + 32 + 8 + 8 + 1 + 2;

// Hashing, kept out of line: inlined at every call it would cost more than the outline code.
#[inline(never)]
fn leaf_hash(e: &Entry) -> B256 {
    hash::leaf(e)
}

#[inline(never)]
fn node_hash(children: &[B256]) -> B256 {
    hash::node(children.iter())
}

struct Ctx<'a> {
    key: &'a B256,
    lo: u64,
    hi: u64,
    /// "MB-tree node" or "run node".
    noun: &'static str,
}

/// Draws a partial tree from wire offset `pos`; returns the node, its hash and its size.
fn tree(t: &Tree, c: &Ctx<'_>, pos: usize) -> (Node, B256, usize) {
    match t {
        Tree::Leaf(e) => {
            let own = e.key == *c.key;
            let size = if own { 1 + 8 + 32 } else { 1 + 32 + 8 + 32 };
            let h = leaf_hash(e);
            let v = word(&e.value);
            let node = if own && (c.lo..=c.hi).contains(&e.block) {
                Node::new("result", format!("block {} → {v}", e.block))
            } else if own && e.block < c.lo {
                Node::new(
                    "leaf",
                    format!(
                        "left neighbour: block {} → {v} (in force at block {})",
                        e.block, c.lo
                    ),
                )
            } else if own {
                Node::new(
                    "leaf",
                    format!("right neighbour: block {} → {v} (after the range)", e.block),
                )
            } else {
                Node::new(
                    "leaf",
                    format!(
                        "neighbour: key {}, block {}",
                        short(e.key.as_slice()),
                        e.block
                    ),
                )
            };
            let node = node
                .hash(h.as_slice())
                .detail(format!("value {}", hex(&e.value)))
                .range(pos, pos + size);
            (node, h, size)
        }
        Tree::Hash(h) => (
            Node::new("sibling", "pruned subtree".into())
                .hash(h.as_slice())
                .range(pos, pos + 33),
            *h,
            33,
        ),
        Tree::Node(children) => {
            let mut at = pos + 2;
            let mut kids = Vec::with_capacity(children.len());
            let mut hashes = Vec::with_capacity(children.len());
            for ch in children {
                let (n, h, size) = tree(ch, c, at);
                at += size;
                kids.push(n);
                hashes.push(h);
            }
            let h = node_hash(&hashes);
            let node = Node::new("node", format!("{} ({} children)", c.noun, children.len()))
                .hash(h.as_slice())
                .range(pos, at)
                .children(kids);
            (node, h, at - pos)
        }
    }
}

/// The hash of a partial tree, unchecked.
fn tree_hash(t: &Tree) -> B256 {
    match t {
        Tree::Leaf(e) => leaf_hash(e),
        Tree::Hash(h) => *h,
        Tree::Node(c) => {
            let hashes: Vec<B256> = c.iter().map(tree_hash).collect();
            node_hash(&hashes)
        }
    }
}

fn digest(s: &Structure, root: &B256) -> B256 {
    match s.kind {
        StructureKind::MbTree => hash::mbtree_digest(s.n, s.height, root),
        StructureKind::Run { bloom } => hash::run_digest(s.n, s.height, root, &bloom),
    }
}

/// `H_state` recomputed from the proof, unchecked.
fn h_state(p: &HistoryProof) -> B256 {
    let digests: Vec<B256> = p
        .parts
        .iter()
        .map(|part| match part {
            Part::Searched(s) => digest(s, &tree_hash(&s.tree)),
            Part::Skipped(d) => *d,
        })
        .collect();
    hash::state(p.fanout, digests.iter())
}

pub(super) fn outline(
    proof: &[u8],
    key: &B256,
    lo: u64,
    hi: u64,
    cole_root: &B256,
    sibling: &B256,
    star: bool,
) -> Result<String, DecodeError> {
    let p = HistoryProof::decode(proof)?;
    let mut pos = HEADER;
    let mut kids = Vec::with_capacity(p.parts.len());
    let mut digests = Vec::with_capacity(p.parts.len());
    let (mut mbtrees, mut runs, mut searched) = (0u32, 0u32, 0usize);
    let total = p.parts.len();
    for (i, part) in p.parts.iter().enumerate() {
        match part {
            Part::Searched(s) => {
                searched += 1;
                let (head, label, noun, bloom) = match s.kind {
                    StructureKind::MbTree => {
                        mbtrees += 1;
                        (
                            1 + 8 + 1,
                            format!("MB-tree L0 #{mbtrees} (n = {}, height {})", s.n, s.height),
                            "MB-tree node",
                            None,
                        )
                    }
                    StructureKind::Run { bloom } => {
                        runs += 1;
                        (
                            1 + 8 + 1 + 32,
                            format!("run #{runs} (n = {}, height {})", s.n, s.height),
                            "run node",
                            Some(bloom),
                        )
                    }
                };
                let c = Ctx {
                    key: &p.key,
                    lo: p.lo,
                    hi: p.hi,
                    noun,
                };
                let (t, root, size) = tree(&s.tree, &c, pos + head);
                let d = digest(s, &root);
                let mut detail = format!(
                    "structure {} of {total}, searched; tree root {}",
                    i + 1,
                    short(root.as_slice())
                );
                if let Some(b) = bloom {
                    detail.push_str("; Bloom filter ");
                    detail.push_str(&short(b.as_slice()));
                }
                kids.push(
                    Node::new("structure", label)
                        .hash(d.as_slice())
                        .detail(detail)
                        .range(pos, pos + head + size)
                        .child(t),
                );
                digests.push(d);
                pos += head + size;
            }
            Part::Skipped(d) => {
                kids.push(
                    Node::new(
                        "digest",
                        format!(
                            "structure {} of {total}: digest only (after the early stop)",
                            i + 1
                        ),
                    )
                    .hash(d.as_slice())
                    .range(pos, pos + 33),
                );
                digests.push(*d);
                pos += 33;
            }
        }
    }
    let state = hash::state(p.fanout, digests.iter());
    let recomputed = if star {
        hash::header_root(sibling, &state)
    } else {
        hash::header_root(&state, sibling)
    };
    let mut detail = format!(
        "fanout {}, {total} structures ({searched} searched); H_state = SHA-256(0x04 ‖ fanout ‖ \
         count ‖ digests), coleRoot = SHA-256(0x06 ‖ {})",
        p.fanout,
        if star {
            "sibling ‖ H_state"
        } else {
            "H_state ‖ sibling"
        }
    );
    if p.key != *key {
        detail.push_str(&format!(
            "; the proof is for key {}, not the asked {}",
            short(p.key.as_slice()),
            short(key.as_slice())
        ));
    }
    if (p.lo, p.hi) != (lo, hi) {
        detail.push_str(&format!(
            "; the proof answers blocks {}..={}, not {lo}..={hi}",
            p.lo, p.hi
        ));
    }
    let tree = Node::new(
        "root",
        format!(
            "{} provenance proof: key {}, blocks {}..={}",
            if star { "COLE*" } else { "COLE" },
            short(p.key.as_slice()),
            p.lo,
            p.hi
        ),
    )
    .hash(state.as_slice())
    .detail(detail)
    .range(0, proof.len())
    .children(kids);
    let root = || RootCheck {
        label: "coleRoot".into(),
        recomputed: hex(recomputed.as_slice()),
        expected: hex(cole_root.as_slice()),
    };
    let family = if star { "cole-star" } else { "cole" };
    Ok(outline_json(family, proof.len(), &tree, &root(), &[root()]))
}

/// Every revealed entry of a tree, left to right.
fn leaves_mut(t: &mut Tree) -> Vec<&mut Tree> {
    match t {
        Tree::Leaf(_) => std::vec![t],
        Tree::Hash(_) => Vec::new(),
        Tree::Node(c) => c.iter_mut().flat_map(leaves_mut).collect(),
    }
}

/// Prunes every inner node that reveals no entry to its hash, as an honest prover would.
fn normalize(t: &mut Tree) -> (B256, bool) {
    match t {
        Tree::Leaf(e) => (leaf_hash(e), true),
        Tree::Hash(h) => (*h, false),
        Tree::Node(c) => {
            let parts: Vec<(B256, bool)> = c.iter_mut().map(normalize).collect();
            let hashes: Vec<B256> = parts.iter().map(|(h, _)| *h).collect();
            let h = node_hash(&hashes);
            let reveals = parts.iter().any(|(_, r)| *r);
            if !reveals {
                *t = Tree::Hash(h);
            }
            (h, reveals)
        }
    }
}

/// The entry a tamper targets: the first version of the key in the range, else the first
/// version of the key (a neighbour), else the first revealed entry; with its structure's index.
fn target(p: &mut HistoryProof) -> Option<(usize, &mut Tree)> {
    let (key, lo, hi) = (p.key, p.lo, p.hi);
    let rank = |t: &Tree| match t {
        Tree::Leaf(e) if e.key == key && (lo..=hi).contains(&e.block) => 0,
        Tree::Leaf(e) if e.key == key => 1,
        _ => 2,
    };
    let mut best = 3;
    for part in &mut p.parts {
        if let Part::Searched(s) = part {
            for t in leaves_mut(&mut s.tree) {
                best = best.min(rank(t));
            }
        }
    }
    for (i, part) in p.parts.iter_mut().enumerate() {
        if let Part::Searched(s) = part
            && let Some(t) = leaves_mut(&mut s.tree)
                .into_iter()
                .find(|t| rank(t) == best)
        {
            return Some((i, t));
        }
    }
    None
}

fn entry_name(t: &Tree, key: &B256) -> String {
    match t {
        Tree::Leaf(e) if e.key == *key => format!("the version of block {}", e.block),
        Tree::Leaf(e) => format!(
            "the neighbour entry (key {}, block {})",
            short(e.key.as_slice()),
            e.block
        ),
        _ => String::from("an entry"),
    }
}

pub(super) fn forge(kind: &str, proof: &[u8]) -> Result<Forged, ForgeError> {
    let honest = HistoryProof::decode(proof)?;
    let mut p = honest.clone();
    let key = p.key;
    let description = match kind {
        "flip-byte" | "wrong-value" => {
            let Some((i, t)) = target(&mut p) else {
                return not_applicable("the proof reveals no entry");
            };
            let name = entry_name(t, &key);
            let Tree::Leaf(e) = t else {
                return not_applicable("the proof reveals no entry");
            };
            let before = word(&e.value);
            if kind == "flip-byte" {
                if let Some(b) = e.value.last_mut() {
                    *b ^= 0xff;
                }
                format!(
                    "flipped the last byte of the value of {name} in structure {} ({before} → {})",
                    i + 1,
                    word(&e.value)
                )
            } else {
                increment(&mut e.value);
                format!(
                    "changed the value of {name} in structure {} from {before} to {}",
                    i + 1,
                    word(&e.value)
                )
            }
        }
        "drop-result" => {
            let Some((i, t)) = target(&mut p) else {
                return not_applicable("the proof reveals no entry");
            };
            let name = entry_name(t, &key);
            *t = Tree::Hash(tree_hash(t));
            if let Some(Part::Searched(s)) = p.parts.get_mut(i) {
                normalize(&mut s.tree);
            }
            format!(
                "hid {name} in structure {} behind its hash (the tree still hashes to the same root)",
                i + 1
            )
        }
        "swap-structures" => {
            let searched: Vec<usize> = p
                .parts
                .iter()
                .enumerate()
                .filter(|(_, x)| matches!(x, Part::Searched(_)))
                .map(|(i, _)| i)
                .collect();
            let (a, b) = match (searched.first(), searched.get(1)) {
                (Some(a), Some(b)) => (*a, *b),
                _ if p.parts.len() >= 2 => (0, 1),
                _ => return not_applicable("the proof holds one structure: nothing to swap"),
            };
            p.parts.swap(a, b);
            format!(
                "swapped structures {} and {} (a newer and an older one)",
                a + 1,
                b + 1
            )
        }
        other => {
            return not_applicable(format!(
                "{other}: not a COLE forgery (flip-byte, wrong-value, drop-result, swap-structures)"
            ));
        }
    };
    let forged = p.encode();
    let description = match first_difference(proof, &forged) {
        Some(at) if forged.len() == proof.len() && kind == "flip-byte" => {
            format!("{description}; wire byte {at}")
        }
        _ => description,
    };
    // What the verifier says against the root the honest proof recomputes — the header's, for
    // an honest proof.
    let code = match verify_history(&h_state(&honest), &key, honest.lo, honest.hi, &forged) {
        Err(e) => e.code().as_str(),
        Ok(_) => return not_applicable("the verifier accepts this tamper of this proof"),
    };
    Ok(Forged {
        proof: forged,
        description,
        code,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use lightprov_types::cole::{Entry, Structure};

    use super::*;

    /// The worked example of docs/proofs.md (two versions of one key in one MB-tree leaf).
    fn worked_example() -> Vec<u8> {
        let key = B256::repeat_byte(0x11);
        let word = |v: u8| {
            let mut w = [0u8; 32];
            w[31] = v;
            w
        };
        HistoryProof {
            key,
            lo: 2,
            hi: 3,
            fanout: 4,
            parts: std::vec![Part::Searched(Structure {
                kind: StructureKind::MbTree,
                n: 2,
                height: 1,
                tree: Tree::Node(std::vec![
                    Tree::Leaf(Entry {
                        key,
                        block: 1,
                        value: word(5)
                    }),
                    Tree::Leaf(Entry {
                        key,
                        block: 3,
                        value: word(7)
                    }),
                ]),
            })],
        }
        .encode()
    }

    #[test]
    fn outlines_the_worked_example_with_its_h_state() {
        let proof = worked_example();
        let h_state: B256 = "0x3c67a7aae3e67dee7beaef66fc77b527b6a34b8b6a59add481972af272bcd99e"
            .parse()
            .unwrap();
        let sibling = B256::ZERO;
        let cole_root = hash::header_root(&h_state, &sibling);
        let key = B256::repeat_byte(0x11);
        let json = outline(&proof, &key, 2, 3, &cole_root, &sibling, false).unwrap();
        assert!(json.contains(&std::format!("\"hash\":\"{h_state}\"")));
        assert!(json.contains("left neighbour: block 1 → 0x5 (in force at block 2)"));
        assert!(json.contains("\"kind\":\"result\",\"label\":\"block 3 → 0x7\""));
        assert!(json.contains("\"range\":[52,146]"));
        assert!(json.contains("\"matches\":true"));
    }

    #[test]
    fn forgeries_of_the_worked_example_carry_the_verifiers_code() {
        let proof = worked_example();
        for (kind, code) in [
            ("flip-byte", "ROOT_MISMATCH"),
            ("wrong-value", "ROOT_MISMATCH"),
            ("drop-result", "INCOMPLETE_RANGE"),
        ] {
            let f = forge(kind, &proof).unwrap();
            assert_eq!(f.code, code, "{kind}: {}", f.description);
        }
        assert!(matches!(
            forge("swap-structures", &proof),
            Err(ForgeError::NotApplicable(_))
        ));
        assert!(matches!(
            forge("flip-byte", &proof[..40]),
            Err(ForgeError::Decode(_))
        ));
    }
}
