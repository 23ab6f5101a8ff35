//! POS-Tree outlines and forgeries, on the family's `decode_with_spans`.

use std::{collections::BTreeMap, format, string::String, vec::Vec};

use lightprov_types::{
    B256, DecodeError, Word,
    codec::Spans,
    pos::{HistoryItem, HistoryProof, Node as PosNode, PathProof},
};
use lightprov_verifier::pos::{BlockRoots, verify_history, verify_path};

use crate::{
    Family, ForgeError, Forged, Node, NodeKind, Outline, RootCheck, hex, judged, not_applicable,
    note_range, root_node, short, span, tamper_class, word,
};

/// One node of a path: its level, entry count and, for an inner node, the child taken.
fn path_node(n: &PosNode, key: &B256, field: &str, spans: &Spans) -> Node {
    let base = Node::new(
        if n.level == 0 {
            NodeKind::Leaf
        } else {
            NodeKind::Node
        },
        if n.level == 0 {
            format!("leaf ({} entries)", n.entries.len())
        } else {
            format!("level-{} node ({} children)", n.level, n.entries.len())
        },
    )
    .hash(n.hash().as_slice())
    .range(span(spans, field));
    if n.level == 0 {
        return match n.entries.binary_search_by(|(k, _)| k.cmp(key)) {
            Ok(i) => base.child(
                Node::new(
                    NodeKind::Result,
                    format!("{} → {}", short(key.as_slice()), {
                        let v: &Word = n.entries.get(i).map_or(&[0; 32], |(_, v)| v);
                        word(v)
                    }),
                )
                .detail(format!("entry {i} of the leaf")),
            ),
            Err(i) => base.child(
                Node::new(
                    NodeKind::Result,
                    format!("{} absent", short(key.as_slice())),
                )
                .detail(match (n.min_key(), n.max_key()) {
                    (Some(a), Some(b)) => format!(
                        "would sit at entry {i}; the leaf holds {}..{}",
                        short(a.as_slice()),
                        short(b.as_slice())
                    ),
                    _ => String::from("the leaf is empty"),
                }),
            ),
        };
    }
    let i = n.route(key);
    let (sep, child) = n.entries.get(i).copied().unwrap_or_default();
    base.detail(format!(
        "child {i} (separator {}) → {}",
        short(sep.as_slice()),
        short(&child)
    ))
}

/// Draws a POS-Tree path proof of `key` (`lightprov_getPosProof`) against the block's
/// `posRoot`: each node root first (its hash recomputed, the child the key routes to), the
/// key's entry or where it would be. `root` compares the first node's hash with `posRoot`.
pub fn outline_value(proof: &[u8], key: &B256, pos_root: &B256) -> Result<Outline, DecodeError> {
    let (p, spans) = PathProof::decode_with_spans(proof)?;
    let kids: Vec<Node> = p
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| path_node(n, key, &format!("nodes[{i}]"), &spans))
        .collect();
    let top = p.nodes.first().map(PosNode::hash).unwrap_or_default();
    let label = format!(
        "POS-Tree path of {} ({} nodes)",
        short(key.as_slice()),
        p.nodes.len()
    );
    let tree = root_node(
        label,
        "posRoot = SHA-256 of the root node's encoding",
        proof,
    )
    .hash(top.as_slice())
    .children(kids);
    let root = RootCheck::new("posRoot", hex(top.as_slice()), hex(pos_root.as_slice()));
    Ok(Outline::single(Family::Pos, proof, tree, root))
}

/// Draws a POS-Tree history proof of `key` over `from..` against each block's `posRoot`
/// (`roots`, `from`'s first): the node set (each item in full or as a patch of an earlier one,
/// its hash recomputed), then each block's path through it (`result`: the key's value there).
/// `roots` holds one check per block (the set holds a node of that hash, or the path's first
/// node hashes otherwise); `root` is the last block's.
pub fn outline_history(
    proof: &[u8],
    key: &B256,
    from: u64,
    roots: &[B256],
) -> Result<Outline, DecodeError> {
    let (p, spans) = HistoryProof::decode_with_spans(proof)?;
    let nodes = p.nodes()?;
    let by_hash: BTreeMap<B256, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.hash(), i))
        .collect();
    let items: Vec<Node> = p
        .items
        .iter()
        .zip(&nodes)
        .enumerate()
        .map(|(i, (item, n))| {
            let how = match item {
                HistoryItem::Full(_) => String::from("in full"),
                HistoryItem::Patch { base, splices } => {
                    format!("item {base} with {} runs replaced", splices.len())
                }
                HistoryItem::Values { base, values } => {
                    format!("item {base} with {} values replaced", values.len())
                }
            };
            Node::new(
                NodeKind::Node,
                format!(
                    "item {i}: level-{} node ({} entries)",
                    n.level,
                    n.entries.len()
                ),
            )
            .hash(n.hash().as_slice())
            .detail(how)
            .range(span(&spans, &format!("items[{i}]")))
        })
        .collect();
    let mut blocks = Vec::new();
    let mut checks = Vec::new();
    for (b, root) in roots.iter().enumerate() {
        let number = from.saturating_add(b as u64);
        let mut path = Vec::new();
        let mut at = by_hash.get(root).copied();
        checks.push(RootCheck::new(
            format!("posRoot of block {number}"),
            at.map_or_else(String::new, |_| hex(root.as_slice())),
            hex(root.as_slice()),
        ));
        let mut value = None;
        while let Some(i) = at {
            let Some(n) = nodes.get(i) else { break };
            path.push(
                Node::new(
                    if n.level == 0 {
                        NodeKind::Leaf
                    } else {
                        NodeKind::Node
                    },
                    format!("item {i} (level {})", n.level),
                )
                .hash(n.hash().as_slice())
                .range(span(&spans, &format!("items[{i}]"))),
            );
            if n.level == 0 || path.len() > 33 {
                value = Some(
                    n.entries
                        .binary_search_by(|(k, _)| k.cmp(key))
                        .ok()
                        .and_then(|j| n.entries.get(j))
                        .map(|(_, v)| *v),
                );
                break;
            }
            at = n.child(n.route(key)).and_then(|c| by_hash.get(&c).copied());
        }
        let label = match value {
            Some(Some(v)) => format!("block {number} → {}", word(&v)),
            Some(None) => format!("block {number}: absent"),
            None => format!("block {number}: the path leaves the node set"),
        };
        blocks.push(
            Node::new(NodeKind::Result, label)
                .hash(root.as_slice())
                .children(path),
        );
    }
    let to = from.saturating_add(roots.len() as u64).saturating_sub(1);
    let mut detail = format!("{} items, {} blocks", p.items.len(), roots.len());
    note_range(&mut detail, (p.from, p.to), (from, to));
    let label = format!(
        "POS-Tree history of {} over blocks {}..={}",
        short(key.as_slice()),
        p.from,
        p.to
    );
    let tree = root_node(label, detail, proof)
        .child(
            Node::new(
                NodeKind::Structure,
                format!("node set ({} items)", items.len()),
            )
            .children(items),
        )
        .child(Node::new(NodeKind::Structure, "paths, one per block").children(blocks));
    let root = checks
        .last()
        .cloned()
        .unwrap_or_else(|| RootCheck::new("posRoot", String::new(), String::new()));
    Ok(Outline::new(Family::PosHistory, proof, tree, root, checks))
}

/// The registry's POS tamper classes ([`lightprov_types::pos::FAMILY`]) [`forge`] makes, in
/// the order a picker lists them.
pub const FORGERIES: &[&str] = &[
    "value-changed",
    "truncated-path",
    "extra-node",
    "history-node-repeated",
    "history-node-unused",
];

/// A root and key an honest path proof verifies for: its first node's hash and a key its leaf
/// holds (any key of the leaf routes down the same path).
fn path_query(p: &PathProof) -> Result<(B256, B256), ForgeError> {
    let root = p.nodes.first().map(PosNode::hash).unwrap_or_default();
    let Some(key) = p
        .nodes
        .last()
        .and_then(|l| l.entries.first())
        .map(|(k, _)| *k)
    else {
        return not_applicable("the path ends in an empty leaf (the empty tree)");
    };
    if verify_path(&root, &key, p).is_err() {
        return not_applicable("not an honest path proof");
    }
    Ok((root, key))
}

/// Roots and a key an honest history proof verifies for: the nodes of its set no other node
/// refers to (each block's root), in item order, the last repeated to the range's length, and
/// the first key of the set's leaves for which every block's path stays in the set.
fn history_query(p: &HistoryProof) -> Result<(Vec<B256>, B256), ForgeError> {
    let nodes = p.nodes()?;
    let children: std::collections::BTreeSet<Word> = nodes
        .iter()
        .filter(|n| n.level > 0)
        .flat_map(|n| n.entries.iter().map(|(_, c)| *c))
        .collect();
    let mut roots: Vec<B256> = nodes
        .iter()
        .map(PosNode::hash)
        .filter(|h| !children.contains(&h.0))
        .collect();
    let blocks = usize::try_from(p.to - p.from)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    if roots.is_empty() || roots.len() > blocks {
        return not_applicable("the node set's top nodes are not one root per block");
    }
    let last = roots.last().copied().unwrap_or_default();
    roots.resize(blocks, last);
    let q = BlockRoots {
        from: p.from,
        roots: &roots,
    };
    let key = nodes
        .iter()
        .filter(|n| n.level == 0)
        .flat_map(|n| n.entries.iter().map(|(k, _)| *k))
        .take(64)
        .find(|k| verify_history(&q, k, p).is_ok());
    match key {
        Some(k) => Ok((roots, k)),
        None => not_applicable("not an honest history proof"),
    }
}

/// Tampers with an honest POS-Tree proof. `kind` is one of [`FORGERIES`]: on a path proof
/// (`lightprov_getPosProof`), `value-changed` (the last byte of the leaf's last value
/// flipped), `truncated-path` (the leaf left out) or `extra-node` (the leaf sent again after
/// itself); on a history proof, `history-node-repeated` (the first item's node sent again in
/// full) or `history-node-unused` (a leaf no path uses added). The code is the one the verifier
/// gives the forgery against a root (the path's first node; the history's top nodes, one per
/// block) and a key (one its leaves hold) the honest proof verifies for; a code the class does
/// not answer makes the tamper not applicable to this proof.
pub fn forge(kind: &str, proof: &[u8]) -> Result<Forged, ForgeError> {
    let class = tamper_class(&lightprov_types::pos::FAMILY, FORGERIES, kind)?;
    // A proof of the other kind is not applicable (not a decoding error): a picker offers
    // every class for whichever proof it holds.
    let history = kind.starts_with("history-");
    let (as_history, as_path) = (HistoryProof::decode(proof), PathProof::decode(proof));
    match (history, &as_history, &as_path) {
        (true, Err(_), Ok(_)) => {
            return not_applicable(format!("{kind}: not a path proof's class"));
        }
        (false, Ok(_), Err(_)) => {
            return not_applicable(format!("{kind}: not a history proof's class"));
        }
        _ => {}
    }
    if history {
        let honest = as_history?;
        let (roots, key) = history_query(&honest)?;
        let mut p = honest.clone();
        let description = if kind == "history-node-repeated" {
            let Some(first) = honest.nodes()?.into_iter().next() else {
                return not_applicable("the node set is empty");
            };
            p.items.push(HistoryItem::Full(first));
            String::from("sent the first item's node again, in full, at the end")
        } else {
            let leaf = PosNode::leaf(std::vec![(B256::repeat_byte(0xee), [0x01; 32])]);
            p.items.push(HistoryItem::Full(leaf));
            String::from("added a leaf that no block's path uses")
        };
        let q = BlockRoots {
            from: p.from,
            roots: &roots,
        };
        let verdict = verify_history(&q, &key, &p);
        judged(class, p.encode(), description, verdict)
    } else {
        let honest = as_path?;
        let (root, key) = path_query(&honest)?;
        let mut p = honest.clone();
        let description = match kind {
            "value-changed" => {
                let Some(v) = p
                    .nodes
                    .last_mut()
                    .and_then(|l| l.entries.last_mut())
                    .map(|(_, v)| v)
                else {
                    return not_applicable("the leaf is empty");
                };
                v[31] ^= 0x01;
                String::from("flipped the last byte of the leaf's last value")
            }
            "truncated-path" => {
                if p.nodes.len() < 2 {
                    return not_applicable("the path is the root leaf alone");
                }
                p.nodes.pop();
                String::from("left the leaf out")
            }
            "extra-node" => {
                let Some(leaf) = p.nodes.last().cloned() else {
                    return not_applicable("the path is empty");
                };
                p.nodes.push(leaf);
                String::from("sent the leaf again after itself")
            }
            _ => return not_applicable(format!("{kind}: a history proof's tamper class")),
        };
        let verdict = verify_path(&root, &key, &p);
        judged(class, p.encode(), description, verdict)
    }
}

/// The family's wasm exports (feature `wasm`).
#[cfg(feature = "wasm")]
pub mod wasm {
    use std::{string::String, vec::Vec};

    use lightprov_types::{B256, DecodeError};
    use wasm_bindgen::prelude::*;

    use super as pos;
    use crate::wasm::{decode_error, forged, hash32, json};

    /// Outlines a POS-Tree path proof (JSON) of `state_key` against the block's `posRoot`.
    #[wasm_bindgen(js_name = outlinePosProof)]
    pub fn outline_pos_proof(
        proof: &[u8],
        state_key: &[u8],
        pos_root: &[u8],
    ) -> Result<String, JsValue> {
        let key = hash32(state_key, "stateKey")?;
        let root = hash32(pos_root, "posRoot")?;
        json(pos::outline_value(proof, &key, &root))
    }

    /// Outlines a POS-Tree history proof (JSON) of `state_key` over blocks `from..`, against
    /// their `posRoot`s concatenated in `roots` (32 bytes each, `from`'s first).
    #[wasm_bindgen(js_name = outlinePosHistory)]
    pub fn outline_pos_history(
        proof: &[u8],
        state_key: &[u8],
        from: u64,
        roots: &[u8],
    ) -> Result<String, JsValue> {
        let key = hash32(state_key, "stateKey")?;
        if roots.is_empty() || !roots.len().is_multiple_of(32) {
            return Err(decode_error(&DecodeError::new(
                "roots",
                "expected one or more 32-byte roots",
            )));
        }
        let roots: Vec<B256> = roots.chunks_exact(32).map(B256::from_slice).collect();
        json(pos::outline_history(proof, &key, from, &roots))
    }

    /// Tampers with an honest POS-Tree proof (see [`pos::forge`]). Returns `{proof,
    /// description, expectedCode}`.
    #[wasm_bindgen(js_name = forgePosProof)]
    pub fn forge_pos_proof(kind: &str, proof: &[u8]) -> Result<JsValue, JsValue> {
        forged(pos::forge(kind, proof))
    }
}
