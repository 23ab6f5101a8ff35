//! Forkless outlines and forgeries, on [`Proof::decode_with_spans`].

use std::{format, string::String, vec::Vec};

use lightprov_types::{
    B256, DecodeError,
    codec::Spans,
    forkless::{Chain, Claim, Component, ForklessKey, Link, Located, Opening, Proof, hash},
};
use lightprov_verifier::forkless::{verify_history_proof, verify_value_proof};

use crate::{
    Family, ForgeError, Forged, Node, NodeKind, Outline, RootCheck, hex, judged, not_applicable,
    note_key, note_range, root_node, short, span, tamper_class, word,
};

fn key_label(k: &ForklessKey) -> String {
    match k {
        ForklessKey::Balance(a) => format!("balance of {}", short(a.as_slice())),
        ForklessKey::Nonce(a) => format!("nonce of {}", short(a.as_slice())),
        ForklessKey::Storage(a, s) => {
            format!("slot {} of {}", short(s.as_slice()), short(a.as_slice()))
        }
    }
}

/// Draws one opening: the page (its record at `record` named) and a level of siblings per tree
/// level; returns the node and the tree root it recomputes (zero if its shape is wrong).
fn opening(
    p: &Proof,
    c: Component,
    record: u64,
    o: &Opening,
    what: &str,
    field: &str,
    spans: &Spans,
) -> (Node, B256) {
    let root = hash::opening_root(&p.params, c, record, o).unwrap_or_default();
    let ipp = p.params.items_per_page(c);
    let size = c.item_size() as usize;
    let at = (record % ipp) as usize * size;
    let bytes = o.page.get(at..at + size).unwrap_or(&[]);
    let page = Node::new(
        NodeKind::Leaf,
        format!("page {} of {} ({ipp} records)", record / ipp, c.name()),
    )
    .hash(hash::page(c, &o.page).as_slice())
    .detail(format!("record {record}: {what} {}", hex(bytes)))
    .range(span(spans, &format!("{field}.page")));
    let fanout = usize::from(p.params.fanout) - 1;
    let levels: Vec<Node> = o
        .siblings
        .chunks(fanout.max(1))
        .enumerate()
        .map(|(l, s)| {
            Node::new(
                NodeKind::Sibling,
                format!("level {}: {} sibling hashes", l + 1, s.len()),
            )
            .detail(
                s.iter()
                    .map(|h| short(h.as_slice()))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        })
        .collect();
    let node = Node::new(
        NodeKind::Structure,
        format!("{} file ({} records)", c.name(), o.count),
    )
    .hash(root.as_slice())
    .detail(format!(
        "tree root = SHA-256(0x63 ‖ file ‖ height ‖ count ‖ top); listed {}",
        short(
            p.roots
                .get(c.index())
                .copied()
                .unwrap_or_default()
                .as_slice()
        )
    ))
    .range(span(spans, &format!("{field}.page")))
    .child(page)
    .children(levels);
    (node, root)
}

fn chain_nodes(key: &ForklessKey, lo: u64, hi: u64, c: &Chain, spans: &Spans) -> (Vec<Node>, B256) {
    let mut out = Vec::new();
    let mut h = match c.base {
        Some(b) => {
            out.push(
                Node::new(NodeKind::Digest, "chain value before the oldest link")
                    .hash(b.as_slice()),
            );
            b
        }
        None => {
            let start = hash::chain_start();
            out.push(
                Node::new(
                    NodeKind::Digest,
                    "c₀: the chain starts at the key's first change",
                )
                .hash(start.as_slice()),
            );
            start
        }
    };
    for (i, l) in c.links.iter().enumerate() {
        h = hash::link(key, l, &h);
        let v = word(&l.value);
        let node = if (lo..=hi).contains(&l.block) {
            Node::new(NodeKind::Result, format!("block {} → {v}", l.block))
        } else if l.block < lo {
            Node::new(
                NodeKind::Leaf,
                format!("block {} → {v} (in force at block {lo})", l.block),
            )
        } else {
            Node::new(
                NodeKind::Leaf,
                format!("block {} → {v} (after the range, up to the head)", l.block),
            )
        };
        out.push(
            node.hash(h.as_slice())
                .range(span(spans, &format!("claim.links[{i}]"))),
        );
    }
    (out, h)
}

/// Draws a forkless proof asked for `key` (a value, or a history over `range`) against the
/// header's `forklessRoot`: the key's record in the reverse table (or the bucket proving it has
/// none), the value or chain-head file opened at the record with its sibling levels, the chain's
/// links (`result` for changes in the range), and the ten listed tree roots. `root` compares the
/// state root recomputed from the listed roots with the header's.
pub fn outline(
    proof: &[u8],
    key: &ForklessKey,
    range: Option<(u64, u64)>,
    forkless_root: &B256,
) -> Result<Outline, DecodeError> {
    let (p, spans) = Proof::decode_with_spans(proof)?;
    let mut kids = Vec::new();
    let mut roots = Vec::new();
    let listed = |c: Component| p.roots.get(c.index()).copied().unwrap_or_default();
    let open = |c: Component, record: u64, o: &Opening, what: &str, field: &str| {
        opening(&p, c, record, o, what, field, &spans)
    };
    // A file's tree root as an opening recomputes it, against the one the proof lists.
    let tree_root = |c: Component, r: &B256| {
        RootCheck::new(
            format!("{} tree root", c.name()),
            hex(r.as_slice()),
            hex(listed(c).as_slice()),
        )
    };
    let record = match &p.located {
        Located::Present { record, keys } => {
            let (n, r) = open(p.key.keys_component(), *record, keys, "key", "located.keys");
            kids.push(n);
            roots.push(tree_root(p.key.keys_component(), &r));
            Some(*record)
        }
        Located::Absent { entries, buckets } => {
            let c = p.key.keys_component();
            let b = hash::bucket_index(hash::selector(c, &p.key.record_key()), buckets.count);
            let entries_nodes: Vec<Node> = entries
                .iter()
                .enumerate()
                .map(|(i, (k, r))| {
                    Node::new(NodeKind::Leaf, format!("{} → record {r}", short(k)))
                        .range(span(&spans, &format!("located.entries[{i}]")))
                })
                .collect();
            let bucket_hash = hash::bucket(c, b, entries.iter().map(|(k, r)| (k.as_slice(), *r)));
            let file = p.key.buckets_component();
            let (n, r) = open(file, b, buckets, "bucket hash", "located.buckets");
            kids.push(
                Node::new(
                    NodeKind::Structure,
                    format!(
                        "bucket {b} of {} ({} entries, the key not among them)",
                        buckets.count,
                        entries.len()
                    ),
                )
                .hash(bucket_hash.as_slice())
                .children(entries_nodes),
            );
            kids.push(n);
            roots.push(tree_root(file, &r));
            None
        }
    };
    match (&p.claim, record) {
        (Claim::Value(Some(o)), Some(r)) => {
            let c = p.key.value_component();
            let (n, root) = open(c, r, o, "value", "claim.value");
            kids.push(n);
            roots.push(tree_root(c, &root));
        }
        (
            Claim::History {
                lo,
                hi,
                chain: Some((o, c)),
            },
            Some(r),
        ) => {
            let comp = p.key.chain_component();
            let (n, root) = open(comp, r, o, "chain head", "claim.head");
            let head = o
                .page
                .get((r % p.params.items_per_page(comp)) as usize * 32..)
                .and_then(|b| b.get(..32))
                .map(B256::from_slice)
                .unwrap_or_default();
            let (links, end) = chain_nodes(&p.key, *lo, *hi, c, &spans);
            kids.push(n);
            kids.push(
                Node::new(
                    NodeKind::Structure,
                    format!("history chain ({} links)", c.links.len()),
                )
                .hash(end.as_slice())
                .children(links),
            );
            roots.push(tree_root(comp, &root));
            roots.push(RootCheck::new(
                "chain head",
                hex(end.as_slice()),
                hex(head.as_slice()),
            ));
        }
        _ => {}
    }
    let state = hash::state(&p.params, &p.roots);
    kids.push(
        Node::new(NodeKind::Digest, "the ten files' tree roots")
            .detail(
                Component::ALL
                    .iter()
                    .map(|c| format!("{} {}", c.name(), short(listed(*c).as_slice())))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
            .range(span(&spans, "roots.accountKeys")),
    );
    let mut detail = format!(
        "page size {}, fanout {}, bucket load {}; forklessRoot = SHA-256(0x64 ‖ params ‖ tree roots)",
        p.params.page_size, p.params.fanout, p.params.bucket_load
    );
    note_key(&mut detail, "", &p.key, key, key_label);
    let what = match &p.claim {
        Claim::History { lo, hi, .. } => {
            if let Some(asked) = range {
                note_range(&mut detail, (*lo, *hi), asked);
            }
            format!("history over blocks {lo}..={hi}")
        }
        Claim::Value(_) => String::from("value"),
    };
    let label = format!(
        "Forkless LiveDB proof: {} of the {}",
        what,
        key_label(&p.key)
    );
    let tree = root_node(label, detail, proof)
        .hash(state.as_slice())
        .children(kids);
    let root = RootCheck::new(
        "forklessRoot",
        hex(state.as_slice()),
        hex(forkless_root.as_slice()),
    );
    let mut all = std::vec![root.clone()];
    all.extend(roots);
    Ok(Outline::new(Family::Forkless, proof, tree, root, all))
}

/// The registry's forkless tamper classes ([`lightprov_types::forkless::FAMILY`]) [`forge`]
/// makes, in the order a picker lists them.
pub const FORGERIES: &[&str] = &[
    "value-changed",
    "link-dropped",
    "link-block-shifted",
    "chain-cut",
    "page-moved",
    "bucket-entry-dropped",
];

/// Tampers with an honest forkless proof. `kind` is one of [`FORGERIES`]: `value-changed` (the
/// last byte of the opened value flipped; value proofs), `link-dropped` (the second link left
/// out), `link-block-shifted` (the newest link moved one block later), `chain-cut` (the links
/// resumed after the change in force at the range's start, from its chain value — the chain
/// still reaches the head), `page-moved` (the same page claimed `fanout` pages away) or
/// `bucket-entry-dropped` (absence proofs). The code is the one the verifier gives the forgery
/// against the root the honest proof recomputes; a code the class does not answer makes the
/// tamper not applicable to this proof.
pub fn forge(kind: &str, proof: &[u8]) -> Result<Forged, ForgeError> {
    let class = tamper_class(&lightprov_types::forkless::FAMILY, FORGERIES, kind)?;
    let honest = Proof::decode(proof)?;
    let mut p = honest.clone();
    let key = p.key;
    let description = match kind {
        "value-changed" => {
            let (Located::Present { record, .. }, Claim::Value(Some(o))) =
                (&p.located, &mut p.claim)
            else {
                return not_applicable("not a value proof of a present key");
            };
            let c = key.value_component();
            let at = ((record % honest.params.items_per_page(c)) + 1) as usize
                * c.item_size() as usize
                - 1;
            let Some(b) = o.page.get_mut(at) else {
                return not_applicable("the page is short");
            };
            *b ^= 0xff;
            format!(
                "flipped the last byte of record {record} in the {} page",
                c.name()
            )
        }
        "link-dropped" | "link-block-shifted" | "chain-cut" => {
            let Claim::History {
                chain: Some((_, c)),
                ..
            } = &mut p.claim
            else {
                return not_applicable("not a history proof of a present key");
            };
            match kind {
                "link-dropped" => {
                    if c.links.len() < 2 {
                        return not_applicable("the chain has fewer than two links");
                    }
                    let l = c.links.remove(1);
                    format!("left out the change of block {}", l.block)
                }
                "link-block-shifted" => {
                    let Some(l) = c.links.last_mut() else {
                        return not_applicable("the chain has no link");
                    };
                    l.block += 1;
                    format!("moved the newest change to block {}", l.block)
                }
                _ => {
                    let Some(base) = c.base else {
                        return not_applicable("the chain starts at the key's first change");
                    };
                    if c.links.len() < 2 {
                        return not_applicable("the chain has fewer than two links");
                    }
                    let first: Link = c.links.remove(0);
                    c.base = Some(hash::link(&key, &first, &base));
                    format!(
                        "resumed the chain after the change of block {} (in force at the range's start), from its chain value",
                        first.block
                    )
                }
            }
        }
        "page-moved" => {
            let Located::Present { record, keys } = &mut p.located else {
                return not_applicable("not a presence proof");
            };
            let step = honest.params.items_per_page(key.keys_component())
                * u64::from(honest.params.fanout);
            let moved = *record + step;
            if moved >= keys.count {
                return not_applicable("no record that far in the file");
            }
            let before = *record;
            *record = moved;
            format!("claimed the reverse table's page of record {before} for record {moved}")
        }
        _ => {
            let Located::Absent { entries, .. } = &mut p.located else {
                return not_applicable("not an absence proof");
            };
            if entries.is_empty() {
                return not_applicable("the bucket is empty");
            }
            entries.remove(0);
            String::from("left the first entry out of the bucket")
        }
    };
    let forged = p.encode();
    let root = hash::state(&honest.params, &honest.roots);
    let verdict = match &honest.claim {
        Claim::Value(_) => verify_value_proof(&root, &key, &p).map(|_| ()),
        Claim::History { lo, hi, .. } => {
            verify_history_proof(&root, &key, *lo, *hi, &p).map(|_| ())
        }
    };
    judged(class, forged, description, verdict)
}

/// The family's wasm exports (feature `wasm`).
#[cfg(feature = "wasm")]
pub mod wasm {
    use std::string::String;

    use lightprov_types::{Address, DecodeError, forkless::ForklessKey};
    use wasm_bindgen::prelude::*;

    use super as forkless;
    use crate::wasm::{decode_error, forged, hash32, json};

    /// Outlines a forkless proof (JSON) of the key (`kind`, `address`, `slot` for storage): a
    /// value proof when `has_range` is false, else a history over `lo..=hi`.
    #[wasm_bindgen(js_name = outlineForklessProof)]
    #[allow(clippy::too_many_arguments)] // one per part of the query
    pub fn outline_forkless_proof(
        proof: &[u8],
        kind: &str,
        address: &[u8],
        slot: &[u8],
        has_range: bool,
        lo: u64,
        hi: u64,
        forkless_root: &[u8],
    ) -> Result<String, JsValue> {
        let a = Address::try_from(address)
            .map_err(|_| decode_error(&DecodeError::new("key.address", "expected 20 bytes")))?;
        let key = match kind {
            "balance" => ForklessKey::Balance(a),
            "nonce" => ForklessKey::Nonce(a),
            "storage" => ForklessKey::Storage(a, hash32(slot, "key.slot")?),
            _ => {
                return Err(decode_error(&DecodeError::new(
                    "key.kind",
                    "expected balance, nonce or storage",
                )));
            }
        };
        let root = hash32(forkless_root, "forklessRoot")?;
        json(forkless::outline(
            proof,
            &key,
            has_range.then_some((lo, hi)),
            &root,
        ))
    }

    /// Tampers with an honest forkless proof (see [`forkless::forge`]). Returns `{proof,
    /// description, expectedCode}`.
    #[wasm_bindgen(js_name = forgeForklessProof)]
    pub fn forge_forkless_proof(kind: &str, proof: &[u8]) -> Result<JsValue, JsValue> {
        forged(forkless::forge(kind, proof))
    }
}
