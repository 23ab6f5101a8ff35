//! Merkle Bucket Tree outlines and forgeries: a value proof drawn as the key's bucket and its
//! path of sibling levels up to the block's `mbtRoot`; a history proof as its node set, level by
//! level, and its buckets, against the root of every block of its range.

use std::{format, string::String, vec, vec::Vec};

use alloy_primitives::keccak256;
use lightprov_types::{
    B256, DecodeError,
    mbt::{Entry, HistoryProof, MbtParams, MbtProof, hash},
};
use lightprov_verifier::mbt::{HistoryQuery, HistoryTrusted, verify, verify_history};

use crate::{
    Family, ForgeError, Forged, Node, NodeKind, Outline, RootCheck, hex, judged, not_applicable,
    short, tamper_class,
};

fn bucket_of(p: &MbtParams, key: &B256) -> u32 {
    p.bucket_of_hash(&keccak256(key).0)
}

/// The hash of bucket `index` holding `entries` (the empty bucket's constant when none).
fn bucket_hash(p: &MbtParams, index: u32, entries: &[Entry]) -> B256 {
    if entries.is_empty() {
        hash::empty_levels(p)
            .get(usize::from(p.depth()))
            .copied()
            .unwrap_or_default()
    } else {
        hash::bucket(p, index, entries)
    }
}

/// The root a value proof recomputes: its bucket hashed, then each level's node over its
/// siblings with the path's hash put back at the slot the key's bucket gives.
pub fn value_root(p: &MbtProof) -> B256 {
    let params = &p.params;
    let bucket = bucket_of(params, &p.key);
    let mut h = bucket_hash(params, bucket, &p.entries);
    for (l, siblings) in p.levels.iter().enumerate().rev() {
        let level = u8::try_from(l).unwrap_or(u8::MAX);
        let slot = params.slot(bucket, level).min(siblings.len());
        let mut children = siblings.clone();
        children.insert(slot, h);
        h = hash::inner(params, level, children.iter());
    }
    h
}

/// Where the key's path runs through a node of `level`.
fn path_slot(params: &MbtParams, bucket: u32, level: u8) -> String {
    format!(
        "the path at slot {} of {}",
        params.slot(bucket, level),
        params.fanout()
    )
}

fn entry_nodes(key: &B256, entries: &[Entry]) -> Vec<Node> {
    entries
        .iter()
        .map(|e| {
            let kind = if e.key == *key {
                NodeKind::Result
            } else {
                NodeKind::Leaf
            };
            Node::new(kind, format!("entry {}", short(e.key.as_slice())))
                .detail(format!("value {}", hex(&e.value)))
        })
        .collect()
}

/// Draws a value proof against the block's `mbtRoot`.
pub fn outline_value(root: &B256, proof: &[u8]) -> Result<Outline, DecodeError> {
    let p = MbtProof::decode(proof)?;
    let params = &p.params;
    let bucket = bucket_of(params, &p.key);
    let present = p.entries.iter().any(|e| e.key == p.key);
    let bucket_node = Node::new(
        NodeKind::Structure,
        format!("bucket {bucket} ({} entries)", p.entries.len()),
    )
    .hash(bucket_hash(params, bucket, &p.entries).as_slice())
    .detail(if present {
        String::from("holds the key")
    } else {
        String::from("the whole bucket, without the key: absent")
    })
    .children(entry_nodes(&p.key, &p.entries));
    let levels = p.levels.iter().enumerate().map(|(l, s)| {
        let level = u8::try_from(l).unwrap_or(u8::MAX);
        Node::new(
            NodeKind::Sibling,
            format!("level {l}: {} sibling hashes", s.len()),
        )
        .detail(path_slot(params, bucket, level))
    });
    let recomputed = value_root(&p);
    let tree = Node::new(
        NodeKind::Root,
        format!(
            "MBT value proof of {} (2^{} buckets, fanout {})",
            short(p.key.as_slice()),
            params.bucket_bits(),
            params.fanout()
        ),
    )
    .hash(recomputed.as_slice())
    .child(bucket_node)
    .children(levels);
    let check = RootCheck::new("mbtRoot", hex(recomputed.as_slice()), hex(root.as_slice()));
    Ok(Outline::single(Family::Mbt, proof, tree, check))
}

/// Draws a history proof against `roots`, the `mbtRoot` of every block of its range: each
/// block's root is found among the proof's root-level nodes (or is the empty tree's).
pub fn outline_history(roots: &[B256], proof: &[u8]) -> Result<Outline, DecodeError> {
    let p = HistoryProof::decode(proof)?;
    let params = &p.params;
    let bucket = bucket_of(params, &p.key);
    let empty = hash::empty_levels(params);
    let mut top: Vec<B256> = Vec::new();
    let mut tree = Node::new(
        NodeKind::Root,
        format!(
            "MBT history proof of {} over blocks {}..={} (2^{} buckets, fanout {})",
            short(p.key.as_slice()),
            p.lo,
            p.hi,
            params.bucket_bits(),
            params.fanout()
        ),
    );
    for (l, nodes) in p.levels.iter().enumerate() {
        let level = u8::try_from(l).unwrap_or(u8::MAX);
        let hashes: Vec<B256> = nodes
            .iter()
            .map(|n| hash::inner(params, level, n.iter()))
            .collect();
        if l == 0 {
            top.clone_from(&hashes);
        }
        tree = tree.child(
            Node::new(
                NodeKind::Structure,
                format!("level {l}: {} distinct nodes", nodes.len()),
            )
            .detail(path_slot(params, bucket, level))
            .children(
                hashes
                    .iter()
                    .map(|h| Node::new(NodeKind::Node, "inner node").hash(h.as_slice())),
            ),
        );
    }
    tree = tree.child(
        Node::new(
            NodeKind::Structure,
            format!("bucket {bucket}: {} distinct versions", p.buckets.len()),
        )
        .children(p.buckets.iter().map(|b| {
            Node::new(NodeKind::Leaf, format!("{} entries", b.len()))
                .hash(bucket_hash(params, bucket, b).as_slice())
                .children(entry_nodes(&p.key, b))
        })),
    );
    let checks: Vec<RootCheck> = (p.lo..)
        .zip(roots)
        .map(|(block, r)| {
            let found = top.contains(r) || empty.first() == Some(r);
            let recomputed = if found {
                hex(r.as_slice())
            } else {
                String::new()
            };
            RootCheck::new(
                format!("mbtRoot of block {block}"),
                recomputed,
                hex(r.as_slice()),
            )
        })
        .collect();
    let root = checks
        .iter()
        .find(|c| !c.matches)
        .or(checks.last())
        .cloned()
        .unwrap_or_else(|| RootCheck::new("mbtRoot", String::new(), String::new()));
    Ok(Outline::new(Family::MbtHistory, proof, tree, root, checks))
}

/// The tamper classes the inspector forges, in picker order.
pub const FORGERIES: &[&str] = &[
    "value-changed",
    "entry-dropped",
    "entries-swapped",
    "history-node-duplicated",
    "history-nodes-reordered",
];

/// Forges an honest value or history proof (`kind` one of [`FORGERIES`]), with the code the
/// verifier gives it: a value proof against the root the honest proof recomputes; a history
/// proof's forgeries break its node set, which the verifier checks before any root.
pub fn forge(kind: &str, proof: &[u8]) -> Result<Forged, ForgeError> {
    let class = tamper_class(&lightprov_types::mbt::FAMILY, FORGERIES, kind)?;
    if kind.starts_with("history-") {
        return forge_history(class, kind, proof);
    }
    let honest = MbtProof::decode(proof).map_err(|e| match proof.first() {
        // Another of the family's formats: the class does not fit it.
        Some(_) if HistoryProof::decode(proof).is_ok() => {
            ForgeError::NotApplicable(format!("{kind}: forges value proofs, not histories"))
        }
        _ => ForgeError::Decode(e),
    })?;
    let root = value_root(&honest);
    let mut p = honest.clone();
    let description = match kind {
        "value-changed" => {
            let Some(e) = p.entries.first_mut() else {
                return not_applicable("the bucket is empty");
            };
            e.value[31] ^= 1;
            format!("flipped the last byte of entry {}", short(e.key.as_slice()))
        }
        "entry-dropped" => {
            let Some(i) = p.entries.iter().position(|e| e.key == p.key) else {
                return not_applicable("the key is absent: no entry of its own to drop");
            };
            p.entries.remove(i);
            String::from("left the key's entry out of its bucket, to claim it absent")
        }
        _ => {
            if p.entries.len() < 2 {
                return not_applicable("the bucket holds fewer than two entries");
            }
            p.entries.swap(0, 1);
            String::from("swapped the bucket's first two entries")
        }
    };
    let forged = p.encode();
    let verdict = verify(&honest.params, &root, &honest.key, &forged);
    judged(class, forged, description, verdict)
}

fn forge_history(
    class: &'static lightprov_types::family::Tamper,
    kind: &str,
    proof: &[u8],
) -> Result<Forged, ForgeError> {
    let honest = HistoryProof::decode(proof).map_err(|e| {
        if MbtProof::decode(proof).is_ok() {
            ForgeError::NotApplicable(format!("{kind}: forges history proofs, not values"))
        } else {
            ForgeError::Decode(e)
        }
    })?;
    let mut p = honest.clone();
    // The smallest level of two nodes or more (a level of one node is each block's own).
    let Some((l, nodes)) = p
        .levels
        .iter_mut()
        .enumerate()
        .filter(|(_, n)| n.len() >= 2)
        .min_by_key(|(_, n)| n.len())
    else {
        return not_applicable("no level holds two nodes or more");
    };
    let description = if kind.ends_with("reordered") {
        nodes.swap(0, 1);
        format!("swapped the first two nodes of level {l}")
    } else {
        let first = nodes.first().cloned().unwrap_or_default();
        nodes.insert(0, first);
        format!("repeated the first node of level {l}")
    };
    // The node set is checked before any root: roots of the right count suffice.
    let blocks = usize::try_from(honest.hi.saturating_sub(honest.lo))
        .unwrap_or(usize::MAX)
        .saturating_add(1)
        .min(lightprov_types::mbt::MAX_HISTORY_BLOCKS as usize);
    let roots = vec![B256::ZERO; blocks];
    let t = HistoryTrusted {
        params: honest.params,
        roots: &roots,
    };
    let q = HistoryQuery {
        key: honest.key,
        lo: honest.lo,
        hi: honest.hi,
    };
    let forged = p.encode();
    let verdict = verify_history(&t, &q, &forged);
    judged(class, forged, description, verdict)
}

/// The family's wasm exports (feature `wasm`).
#[cfg(feature = "wasm")]
pub mod wasm {
    use std::string::String;

    use lightprov_types::{B256, DecodeError};
    use wasm_bindgen::prelude::*;

    use crate::wasm::{decode_error, forged, hash32, json};

    /// Draws an mbt value proof against the block's `mbtRoot` (JSON of the SDK's `ProofOutline`).
    #[wasm_bindgen(js_name = outlineMbtProof)]
    pub fn outline_mbt_proof(proof: &[u8], mbt_root: &[u8]) -> Result<String, JsValue> {
        json(super::outline_value(&hash32(mbt_root, "mbtRoot")?, proof))
    }

    /// Draws an mbt history proof against `roots`, the `mbtRoot` of every block of its range
    /// concatenated.
    #[wasm_bindgen(js_name = outlineMbtHistory)]
    pub fn outline_mbt_history(proof: &[u8], roots: &[u8]) -> Result<String, JsValue> {
        if !roots.len().is_multiple_of(32) {
            return Err(decode_error(&DecodeError::new(
                "roots",
                "expected 32 bytes per block",
            )));
        }
        let roots: std::vec::Vec<B256> = roots.chunks_exact(32).map(B256::from_slice).collect();
        json(super::outline_history(&roots, proof))
    }

    /// Forges an honest mbt value or history proof: `{ proof, description, expectedCode }`.
    #[wasm_bindgen(js_name = forgeMbtProof)]
    pub fn forge_mbt_proof(kind: &str, proof: &[u8]) -> Result<JsValue, JsValue> {
        forged(super::forge(kind, proof))
    }
}
