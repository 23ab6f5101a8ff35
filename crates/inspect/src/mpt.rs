//! MPT outlines: an `eth_getProof` answer in the compact wire format
//! ([`AccountProofRef::decode_with_spans`]), each trie walked along the key's nibbles as the
//! verifier walks it, but without ever failing: a node that does not hash to the reference its
//! parent holds is drawn and marked, a malformed node ends the walk.

use std::{format, string::String, vec::Vec};

use alloy_rlp::Header;
use lightprov_types::{B256, DecodeError, codec::Spans, mpt::AccountProofRef};
use lightprov_verifier::keccak256;

use crate::{
    Family, Node, NodeKind, Outline, RootCheck, decimal, hex, hex_number, root_node, short_hex,
    span,
};

/// keccak256 of the empty string's RLP: the root of the empty trie.
const EMPTY_ROOT: &str = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";

/// Nested lists deeper than this are not trie nodes (and would only cost stack).
const MAX_RLP_DEPTH: u8 = 16;

/// An RLP item.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Rlp<'a> {
    Bytes(&'a [u8]),
    List(Vec<Rlp<'a>>),
}

impl Rlp<'_> {
    /// The empty string: an empty branch slot.
    fn is_empty(&self) -> bool {
        matches!(self, Rlp::Bytes(b) if b.is_empty())
    }
}

fn rlp_item<'a>(buf: &mut &'a [u8], depth: u8) -> Option<Rlp<'a>> {
    if depth > MAX_RLP_DEPTH {
        return None;
    }
    let h = Header::decode(buf).ok()?;
    let payload = buf.get(..h.payload_length)?;
    *buf = buf.get(h.payload_length..)?;
    if !h.list {
        return Some(Rlp::Bytes(payload));
    }
    let mut rest = payload;
    let mut items = Vec::new();
    while !rest.is_empty() {
        items.push(rlp_item(&mut rest, depth + 1)?);
    }
    Some(Rlp::List(items))
}

/// One whole RLP item (no trailing bytes), canonical as alloy-rlp reads it.
fn rlp(b: &[u8]) -> Option<Rlp<'_>> {
    let mut buf = b;
    let item = rlp_item(&mut buf, 0)?;
    buf.is_empty().then_some(item)
}

fn nibbles(b: &[u8]) -> Vec<u8> {
    b.iter().flat_map(|x| [x >> 4, x & 15]).collect()
}

fn nibble_hex(ns: &[u8]) -> String {
    let mut s = String::from("0x");
    for n in ns {
        s.push(char::from_digit(u32::from(*n), 16).unwrap_or('0'));
    }
    s
}

/// A hex-prefix path: whether it ends in a leaf, and its nibbles (`None` if malformed).
fn hex_prefix(b: &[u8]) -> Option<(bool, Vec<u8>)> {
    let ns = nibbles(b);
    let flag = *ns.first()?;
    if flag > 3 {
        return None;
    }
    let skip = if flag & 1 == 1 { 1 } else { 2 };
    Some((flag & 2 == 2, ns.into_iter().skip(skip).collect()))
}

/// Where a walk ended.
#[derive(Debug, PartialEq, Eq)]
enum Value<'a> {
    /// The stored value.
    Found(&'a [u8]),
    /// The key is absent.
    Absent,
    /// The path broke off (a missing or malformed node).
    Broken,
}

/// A walk drawn as a chain of nodes.
struct Walked<'a> {
    /// The chain, first node first (each node becomes the child of the one before).
    chain: Vec<Node>,
    /// Listed nodes after the end of the path.
    extra: Vec<Node>,
    value: Value<'a>,
}

impl Walked<'_> {
    /// The chain nested, with `result` hung from its last node; `result` alone if the chain is
    /// empty.
    fn nest(self, result: Node) -> Vec<Node> {
        let mut it = self.chain.into_iter().rev();
        let head = match it.next() {
            None => result,
            Some(last) => it.fold(last.child(result), |child, parent| parent.child(child)),
        };
        std::iter::once(head).chain(self.extra).collect()
    }
}

/// What the walk follows next.
enum Next<'a> {
    /// A node listed in the proof, by hash.
    Hash(String),
    /// A node embedded in its parent.
    Embedded(Rlp<'a>),
}

/// Follows `key` (nibbles) through listed nodes, as the verifier's walk does, without failing.
/// `spans` holds node `i`'s span under `{field}[i]`.
fn walk<'a>(
    nodes: &[&'a [u8]],
    spans: &Spans,
    field: &str,
    key: &[u8],
    root_label: &str,
    root: &str,
) -> Walked<'a> {
    if nodes.is_empty() && root == EMPTY_ROOT {
        // `[]` proves the empty trie.
        return Walked {
            chain: Vec::new(),
            extra: Vec::new(),
            value: Value::Absent,
        };
    }
    let mut chain: Vec<Node> = Vec::new();
    let mut mismatched: Vec<usize> = Vec::new();
    let mut next = Next::Hash(String::from(root));
    let mut pos = 0usize;
    let mut i = 0usize;
    let value = loop {
        let (mut node, decoded, embedded) = match next {
            Next::Hash(want) => {
                let Some(raw) = nodes.get(i).copied() else {
                    chain.push(
                        Node::new(NodeKind::Sibling, "missing node (not in the proof)")
                            .hash_hex(want),
                    );
                    break Value::Broken;
                };
                let h = hex(keccak256(raw).as_slice());
                if h != want {
                    mismatched.push(chain.len());
                }
                let node = Node::new(NodeKind::Node, "node")
                    .hash_hex(h)
                    .range(span(spans, &format!("{field}[{i}]")));
                i += 1;
                let Some(decoded) = rlp(raw) else {
                    chain.push(Node {
                        label: "malformed node (not RLP)".into(),
                        ..node
                    });
                    break Value::Broken;
                };
                (node, decoded, false)
            }
            Next::Embedded(d) => (Node::new(NodeKind::Node, "node"), d, true),
        };
        let place = if embedded {
            " (embedded in its parent)"
        } else {
            ""
        };
        let Rlp::List(items) = decoded else {
            node.label = format!("malformed node (not a list){place}");
            chain.push(node);
            break Value::Broken;
        };
        // Where the walk goes from this node: `Some(child, via)` or a value.
        let (child, via) = match items.as_slice() {
            [slots @ .., branch_value] if slots.len() == 16 => {
                node.label = format!("branch node{place}");
                let Some(nib) = key.get(pos).copied() else {
                    node.detail = Some("the key ends here: the branch value".into());
                    chain.push(node);
                    break match branch_value {
                        Rlp::Bytes(v) if !v.is_empty() => Value::Found(v),
                        _ => Value::Absent,
                    };
                };
                pos += 1;
                let taken = slots.iter().filter(|c| !c.is_empty()).count();
                (
                    slots.get(usize::from(nib)).cloned(),
                    format!("nibble 0x{nib:x} ({taken} of 16 slots taken)"),
                )
            }
            [path, second] => {
                let Some((leaf, path)) = (match path {
                    Rlp::Bytes(b) => hex_prefix(b),
                    Rlp::List(_) => None,
                }) else {
                    node.label = format!("malformed node (bad hex-prefix path){place}");
                    chain.push(node);
                    break Value::Broken;
                };
                let rest = key.get(pos..).unwrap_or_default();
                if leaf {
                    node.kind = NodeKind::Leaf;
                    node.label = format!("leaf node, {} nibbles{place}", path.len());
                    let same = rest == path.as_slice();
                    let p = short_hex(&nibble_hex(&path));
                    node.detail = Some(if same {
                        format!("path {p}: the key's leaf")
                    } else {
                        format!("path {p}: another key's leaf (the key is absent)")
                    });
                    chain.push(node);
                    break match second {
                        Rlp::Bytes(v) if same => Value::Found(v),
                        _ => Value::Absent,
                    };
                }
                node.label = format!("extension node, {} nibbles{place}", path.len());
                let follows = path.iter().enumerate().all(|(k, n)| rest.get(k) == Some(n));
                if !follows {
                    node.detail = Some(format!(
                        "shared nibbles {} diverge from the key: absent",
                        nibble_hex(&path)
                    ));
                    chain.push(node);
                    break Value::Absent;
                }
                pos += path.len();
                (
                    Some(second.clone()),
                    format!("shared nibbles {}", nibble_hex(&path)),
                )
            }
            other => {
                node.label = format!("malformed node ({} items){place}", other.len());
                chain.push(node);
                break Value::Broken;
            }
        };
        match child {
            None => {
                node.detail = Some(format!("{via} → empty: the key is absent"));
                chain.push(node);
                break Value::Absent;
            }
            Some(c) if c.is_empty() => {
                node.detail = Some(format!("{via} → empty: the key is absent"));
                chain.push(node);
                break Value::Absent;
            }
            Some(Rlp::Bytes(h)) => {
                let h = hex(h);
                node.detail = Some(format!("{via} → {}", short_hex(&h)));
                next = Next::Hash(h);
            }
            Some(list) => {
                node.detail = Some(format!("{via} → an embedded node"));
                next = Next::Embedded(list);
            }
        }
        chain.push(node);
    };
    for k in mismatched {
        if let Some(n) = chain.get_mut(k) {
            if k == 0 {
                n.label.push_str(&format!(" — its hash ≠ the {root_label}"));
            } else {
                n.label
                    .push_str(" — its hash ≠ the reference its parent holds");
            }
        }
    }
    let extra = nodes
        .iter()
        .enumerate()
        .skip(i)
        .map(|(k, raw)| {
            Node::new(NodeKind::Node, "extra node (off the key’s path)")
                .hash(keccak256(raw).as_slice())
                .range(span(spans, &format!("{field}[{k}]")))
        })
        .collect();
    Walked {
        chain,
        extra,
        value,
    }
}

impl Node {
    fn hash_hex(mut self, h: String) -> Self {
        self.hash = Some(h);
        self
    }
}

fn root_of(nodes: &[&[u8]]) -> String {
    nodes
        .first()
        .map_or_else(|| EMPTY_ROOT.into(), |n| hex(keccak256(n).as_slice()))
}

/// The account a leaf holds, drawn against the claimed fields.
fn account_result(p: &AccountProofRef<'_>, value: &Value<'_>) -> Node {
    let claimed_nonce = decimal(&p.nonce.to_be_bytes());
    let claimed_balance = decimal(&p.balance);
    let leaf = match value {
        Value::Broken => return Node::new(NodeKind::Result, "no answer: the path breaks off"),
        Value::Absent => {
            let empty = p.nonce == 0 && p.balance.iter().all(|b| *b == 0);
            return Node::new(NodeKind::Result, "absent account").detail(if empty {
                String::from("the answer claims an empty account")
            } else {
                format!("the answer claims nonce {claimed_nonce}, balance {claimed_balance} ✗")
            });
        }
        Value::Found(v) => v,
    };
    let fields = match rlp(leaf) {
        Some(Rlp::List(items)) => match items.as_slice() {
            [
                Rlp::Bytes(n),
                Rlp::Bytes(b),
                Rlp::Bytes(s),
                Rlp::Bytes(c),
                ..,
            ] => Some((*n, *b, *s, *c)),
            _ => None,
        },
        _ => None,
    };
    let Some((nonce, balance, sroot, chash)) = fields else {
        return Node::new(NodeKind::Result, "the leaf holds no account (malformed)");
    };
    let (n, b, s, c) = (decimal(nonce), decimal(balance), hex(sroot), hex(chash));
    let mut parts = std::vec![format!(
        "storageRoot {}, codeHash {}",
        short_hex(&s),
        short_hex(&c)
    )];
    let mut claims = Vec::new();
    for (what, in_leaf, claimed) in [
        ("nonce", n.clone(), claimed_nonce),
        ("balance", b.clone(), claimed_balance),
        ("storageHash", s, hex(p.storage_hash.as_slice())),
        ("codeHash", c, hex(p.code_hash.as_slice())),
    ] {
        if in_leaf != claimed {
            claims.push(format!("the answer claims {what} {claimed} ✗"));
        }
    }
    if claims.is_empty() {
        parts.push("= the answer".into());
    } else {
        parts.extend(claims);
    }
    Node::new(NodeKind::Result, format!("account: nonce {n}, balance {b}")).detail(parts.join("; "))
}

/// A storage slot's value as the walk found it, drawn against the claimed one.
fn slot_result(value: &Value<'_>, claimed: &[u8; 32]) -> Node {
    let stored = match value {
        Value::Found(v) => match rlp(v) {
            Some(Rlp::Bytes(b)) => Some(hex_number(b)),
            _ => None,
        },
        Value::Absent => Some(String::from("0x0")),
        Value::Broken => None,
    };
    let label = match (&stored, value) {
        (None, _) => String::from("no value (the path breaks off or the leaf is malformed)"),
        (Some(_), Value::Absent) => String::from("absent slot (value 0)"),
        (Some(s), _) => format!("value {s}"),
    };
    let claimed = hex_number(claimed);
    let detail = if stored.as_deref() == Some(claimed.as_str()) {
        String::from("= the answer")
    } else {
        format!("the answer claims {claimed} ✗")
    };
    Node::new(NodeKind::Result, label).detail(detail)
}

/// Draws an `eth_getProof` answer in the compact wire format (`AccountProof::encode`; the SDK
/// encodes the JSON answer): the account's trie path (`branch`/`extension` nodes with the
/// nibble taken, the `leaf`, each with its keccak256), then each storage slot's path; the
/// account found is compared with the claimed fields. `root` compares keccak256 of the first
/// account node with the header's `state_root`; `roots` adds each slot's storage root against
/// the claimed `storageHash`.
pub fn outline(proof: &[u8], state_root: &B256) -> Result<Outline, DecodeError> {
    let (p, spans) = AccountProofRef::decode_with_spans(proof)?;
    let state_root = hex(state_root.as_slice());
    let storage_hash = hex(p.storage_hash.as_slice());
    let path = keccak256(p.address.as_slice());
    let w = walk(
        &p.account_proof,
        &spans,
        "accountProof",
        &nibbles(path.as_slice()),
        "header’s stateRoot",
        &state_root,
    );
    let result = account_result(&p, &w.value);
    let recomputed = root_of(&p.account_proof);
    let account = Node::new(
        NodeKind::Structure,
        format!(
            "account trie: path keccak256(address) = {}",
            short_hex(&hex(path.as_slice()))
        ),
    )
    .hash_hex(recomputed.clone())
    .detail(format!("{} node(s)", p.account_proof.len()))
    .range(span(&spans, "accountProof"))
    .children(w.nest(result));

    let mut roots = std::vec![RootCheck::new(
        "stateRoot",
        recomputed.clone(),
        state_root.clone()
    )];
    let mut storage = Vec::with_capacity(p.storage_proof.len());
    for (k, s) in p.storage_proof.iter().enumerate() {
        let slot = short_hex(&hex(s.key.as_slice()));
        let slot_path = keccak256(s.key.as_slice());
        let field = format!("storageProof[{k}].proof");
        let sw = walk(
            &s.proof,
            &spans,
            &field,
            &nibbles(slot_path.as_slice()),
            "claimed storageHash",
            &storage_hash,
        );
        let res = slot_result(&sw.value, &s.value);
        let sroot = root_of(&s.proof);
        roots.push(RootCheck::new(
            format!("storageHash (slot {slot})"),
            sroot.clone(),
            storage_hash.clone(),
        ));
        storage.push(
            Node::new(
                NodeKind::Structure,
                format!(
                    "storage slot {slot}: path keccak256(slot) = {}",
                    short_hex(&hex(slot_path.as_slice()))
                ),
            )
            .hash_hex(sroot)
            .detail(format!(
                "storageProof[{k}], {} node(s); its root must be the account's storageHash",
                s.proof.len()
            ))
            .range(span(&spans, &format!("storageProof[{k}]")))
            .children(sw.nest(res)),
        );
    }
    let label = format!(
        "eth_getProof: account {}, {} storage slot(s)",
        short_hex(&hex(p.address.as_slice())),
        p.storage_proof.len()
    );
    let detail = "each node must hash to the reference its parent holds for the key’s next \
                  nibble; the first to the state root";
    let tree = root_node(label, detail, proof)
        .hash_hex(recomputed)
        .child(account)
        .children(storage);
    let root = roots
        .first()
        .cloned()
        .unwrap_or_else(|| RootCheck::new("stateRoot", String::new(), state_root.clone()));
    Ok(Outline::new(Family::Mpt, proof, tree, root, roots))
}

/// The family's wasm exports (feature `wasm`).
#[cfg(feature = "wasm")]
pub mod wasm {
    use std::string::String;

    use wasm_bindgen::prelude::*;

    use crate::wasm::{hash32, json};

    /// Outlines an `eth_getProof` answer in the compact wire format (JSON, see
    /// `sdk/src/inspect/inspector.ts`).
    #[wasm_bindgen(js_name = outlineMptProof)]
    pub fn outline_mpt_proof(proof: &[u8], state_root: &[u8]) -> Result<String, JsValue> {
        let root = hash32(state_root, "stateRoot")?;
        json(super::outline(proof, &root))
    }
}
