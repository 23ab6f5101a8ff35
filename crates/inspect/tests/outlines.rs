//! Each family's outline of the real proofs of tests/vectors: the structure drawn (what the
//! proof answers, as the vector expects it), every root recomputed equal to the header's, and
//! every wire range pointing at the bytes its node was decoded from.
use crate::common::{self, Vector, cole_outline, number, roots_match, valid};
use lightprov_inspect::{Family, Node, NodeKind, Outline, cole, hex, lvmt, mpt, word};
use lightprov_types::mpt::AccountProof;
use lightprov_verifier::keccak256;

/// Ranges lie inside the proof, and inside their parent's range when both have one (MPT chains
/// excepted: there each node is drawn below the one that references it, not inside it).
fn ranges_nest(o: &Outline) {
    fn check(n: &Node, outer: (usize, usize), nested: bool, name: &str) {
        let here = match n.range {
            Some((a, b)) => {
                assert!(a <= b, "{name}: {} has range {a}..{b}", n.label);
                if nested {
                    assert!(
                        outer.0 <= a && b <= outer.1,
                        "{name}: {} at {a}..{b} outside {outer:?}",
                        n.label
                    );
                }
                (a, b)
            }
            None => outer,
        };
        for c in &n.children {
            check(c, here, nested, name);
        }
    }
    assert_eq!(o.tree.kind, NodeKind::Root);
    assert_eq!(o.tree.range, Some((0, o.bytes)));
    let nested = o.family != Family::Mpt;
    check(&o.tree, (0, o.bytes), nested, &format!("{:?}", o.family));
    for n in o.tree.walk() {
        if let Some((_, b)) = n.range {
            assert!(b <= o.bytes);
        }
        if let Some(h) = &n.hash {
            assert_eq!(h.len(), 66, "{}", n.label);
        }
    }
}

fn bytes_at(proof: &[u8], n: &Node) -> Vec<u8> {
    let (a, b) = n
        .range
        .unwrap_or_else(|| panic!("{} has no range", n.label));
    proof[a..b].to_vec()
}

fn of_kind(o: &Outline, kind: NodeKind) -> Vec<&Node> {
    o.tree
        .walk()
        .into_iter()
        .filter(|n| n.kind == kind)
        .collect()
}

fn value_word(v: &serde_json::Value) -> String {
    let b: [u8; 32] = common::hex(v.as_str().unwrap()).try_into().unwrap();
    word(&b)
}

/// Every audit-path hash and digest of `o` is drawn from its own wire bytes: `tag` (the
/// encoding's kind byte, if it has one) and the hash.
fn hashes_are_their_bytes(proof: &[u8], o: &Outline, tag: &[u8], name: &str) {
    for n in o.tree.walk() {
        if matches!(n.kind, NodeKind::Sibling | NodeKind::Digest) {
            let mut wire = tag.to_vec();
            wire.extend(common::hex(n.hash.as_deref().unwrap()));
            assert_eq!(bytes_at(proof, n), wire, "{name}: {}", n.label);
        }
    }
}

#[test]
fn cole_outlines_show_the_versions_in_range_and_recompute_cole_root() {
    for v in valid("cole", "") {
        let proof = v.bytes("proof");
        let o = cole_outline(&v, &proof);
        let star = v.str("scheme") == "cole-star";
        assert_eq!(o.family, if star { Family::ColeStar } else { Family::Cole });
        assert_eq!(o.bytes, proof.len());
        assert!(o.root.matches, "{}: {:?}", v.name, o.root);
        assert_eq!(o.root.expected, v.str("coleRoot"));
        assert_eq!(o.roots, vec![o.root.clone()]);
        ranges_nest(&o);
        // The answer: one `result` per version in the range, each `block b → value`.
        let mut got: Vec<String> = of_kind(&o, NodeKind::Result)
            .iter()
            .map(|n| n.label.clone())
            .collect();
        let mut want: Vec<String> = v.expected["versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                format!(
                    "block {} → {}",
                    number(&x["block"]),
                    value_word(&x["value"])
                )
            })
            .collect();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}", v.name);
        if let Some(at) = v.expected["atFrom"].as_object() {
            let label = format!(
                "left neighbour: block {} → {} (in force at block {})",
                number(&at["block"]),
                value_word(&at["value"]),
                v.num("fromBlock")
            );
            assert!(
                of_kind(&o, NodeKind::Leaf).iter().any(|n| n.label == label),
                "{}: no {label}",
                v.name
            );
        }
        // The structures tile the proof after its fixed fields; each pruned subtree's or
        // skipped structure's range is its wire form (kind 2, then the hash).
        let parts = &o.tree.children;
        assert!(!parts.is_empty());
        for w in parts.windows(2) {
            assert_eq!(w[0].range.unwrap().1, w[1].range.unwrap().0);
        }
        assert_eq!(parts.last().unwrap().range.unwrap().1, proof.len());
        hashes_are_their_bytes(&proof, &o, &[2], &v.name);
        for n in o.tree.walk() {
            if matches!(n.kind, NodeKind::Result | NodeKind::Leaf) {
                let value = n.detail.as_deref().unwrap().trim_start_matches("value ");
                assert!(bytes_at(&proof, n).ends_with(&common::hex(value)));
            }
        }
    }
}

#[test]
fn cole_worked_example_of_docs_proofs_md() {
    use lightprov_types::{
        B256,
        cole::{Entry, HistoryProof, Part, Structure, StructureKind, Tree, hash},
    };
    let key = B256::repeat_byte(0x11);
    let w = |v: u8| {
        let mut x = [0u8; 32];
        x[31] = v;
        x
    };
    let proof = HistoryProof {
        key,
        lo: 2,
        hi: 3,
        fanout: 4,
        parts: vec![Part::Searched(Structure {
            kind: StructureKind::MbTree,
            n: 2,
            height: 1,
            tree: Tree::Node(vec![
                Tree::Leaf(Entry {
                    key,
                    block: 1,
                    value: w(5),
                }),
                Tree::Leaf(Entry {
                    key,
                    block: 3,
                    value: w(7),
                }),
            ]),
        })],
    }
    .encode();
    let h_state = "0x3c67a7aae3e67dee7beaef66fc77b527b6a34b8b6a59add481972af272bcd99e";
    let sibling = B256::ZERO;
    let cole_root = hash::header_root(&h_state.parse().unwrap(), &sibling);
    let o = cole::outline(&proof, &key, 2, 3, &cole_root, &sibling, cole::Scheme::Cole).unwrap();
    assert_eq!(o.tree.hash.as_deref(), Some(h_state));
    assert!(o.root.matches);
    let s = &o.tree.children[0];
    assert_eq!(s.kind, NodeKind::Structure);
    assert_eq!(s.label, "MB-tree L0 #1 (n = 2, height 1)");
    // After version, key, lo, hi, fanout and the count: 52 bytes; the whole rest is the part.
    assert_eq!(s.range, Some((52, 146)));
    let tree = &s.children[0];
    assert_eq!(tree.label, "MB-tree node (2 children)");
    assert_eq!(tree.range, Some((62, 146)));
    let [left, right] = &tree.children[..] else {
        panic!("two leaves")
    };
    assert_eq!(left.kind, NodeKind::Leaf);
    assert_eq!(
        left.label,
        "left neighbour: block 1 → 0x5 (in force at block 2)"
    );
    assert_eq!(left.range, Some((64, 105)));
    assert_eq!(right.kind, NodeKind::Result);
    assert_eq!(right.label, "block 3 → 0x7");
    assert_eq!(right.range, Some((105, 146)));
    // Asked for another range, the outline says so but still draws the proof.
    let other =
        cole::outline(&proof, &key, 1, 3, &cole_root, &sibling, cole::Scheme::Cole).unwrap();
    assert!(
        other
            .tree
            .detail
            .unwrap()
            .contains("the proof answers blocks 2..=3, not 1..=3")
    );
}

#[test]
fn cole_forgeries_carry_the_verifiers_code() {
    for v in valid("cole", "") {
        let proof = v.bytes("proof");
        for kind in cole::FORGERIES {
            let Ok(f) = cole::forge(kind, &proof) else {
                // An absent key's proof may reveal no entry of the key, yet neighbours: only
                // `NotApplicable` is allowed.
                assert!(matches!(
                    cole::forge(kind, &proof),
                    Err(lightprov_inspect::ForgeError::NotApplicable(_))
                ));
                continue;
            };
            let code = lightprov_verifier::cole::verify_history(
                &o_state(&v),
                &v.b256("stateKey"),
                v.num("fromBlock"),
                v.num("toBlock"),
                &f.proof,
            )
            .map(|_| "accepted")
            .unwrap_or_else(|e| e.code().as_str());
            assert_eq!(
                code,
                f.code.as_str(),
                "{} {kind}: {}",
                v.name,
                f.description
            );
            // A forgery is drawn like an honest proof.
            let o = cole_outline(&v, &f.proof);
            ranges_nest(&o);
            assert_eq!(
                o.root.matches,
                *kind == "result-hidden",
                "{} {kind}",
                v.name
            );
        }
    }
    assert!(matches!(
        cole::forge("bogus", &valid("cole", "")[0].bytes("proof")),
        Err(lightprov_inspect::ForgeError::NotApplicable(_))
    ));
}

/// The `H_state` the honest proof recomputes (the outline's root node hash).
fn o_state(v: &Vector) -> lightprov_types::B256 {
    cole_outline(v, &v.bytes("proof"))
        .tree
        .hash
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn lvmt_outlines_show_the_key_and_recompute_the_history_root() {
    for v in valid("lvmt", "proof-") {
        let proof = v.bytes("proof");
        let o = lvmt::outline_proof(&proof, &v.b256("stateKey"), &v.anchor()).unwrap();
        assert_eq!(o.family, Family::Lvmt);
        ranges_nest(&o);
        roots_match(&o, &v.name);
        assert_eq!(o.roots[0].expected, v.str("lvmtRoot"));
        let levels = of_kind(&o, NodeKind::Level);
        assert!(!levels.is_empty());
        assert!(levels[0].label.starts_with("level 0: root AMT, entry "));
        assert_eq!(levels[0].hash.as_deref(), Some(v.str("lvmtRoot")));
        let result = o.tree.children.last().unwrap();
        assert_eq!(result.kind, NodeKind::Result);
        if v.expected["present"].as_bool().unwrap() {
            assert_eq!(o.root.label, "lvmtHistoryRoot");
            assert_eq!(o.root.expected, v.str("lvmtHistoryRoot"));
            assert_eq!(
                result.label,
                format!(
                    "key tuple: version {} → {} (written in block {})",
                    number(&v.expected["version"]),
                    value_word(&v.expected["value"]),
                    number(&v.expected["block"])
                )
            );
        } else {
            assert!(
                result.label.starts_with("absent: the path ends at level "),
                "{}",
                result.label
            );
        }
        // Every audit-path hash and quotient point is drawn from its own 32 wire bytes.
        hashes_are_their_bytes(&proof, &o, &[], &v.name);
        // The levels and the tail tile the proof after its fixed fields.
        let parts = &o.tree.children;
        for w in parts.windows(2) {
            assert_eq!(w[0].range.unwrap().1, w[1].range.unwrap().0, "{}", v.name);
        }
        assert_eq!(parts.last().unwrap().range.unwrap().1, proof.len());
    }
}

#[test]
fn lvmt_history_outlines_list_every_version() {
    for v in valid("lvmt", "history-") {
        let proof = v.bytes("proof");
        let (lo, hi) = (v.num("fromBlock"), v.num("toBlock"));
        let o = lvmt::outline_history(&proof, &v.b256("stateKey"), lo, hi, &v.anchor()).unwrap();
        assert_eq!(o.family, Family::LvmtHistory);
        ranges_nest(&o);
        roots_match(&o, &v.name);
        let latest = &o.tree.children[0];
        assert_eq!(latest.kind, NodeKind::Structure);
        assert!(latest.label.starts_with("LVMT presence proof: key "));
        for x in v.expected["versions"].as_array().unwrap() {
            let label = format!(
                "version {}: block {} → {}",
                number(&x["version"]),
                number(&x["block"]),
                value_word(&x["value"])
            );
            let n = o.tree.children.iter().find(|n| n.label == label);
            let n = n.unwrap_or_else(|| panic!("{}: no {label}", v.name));
            let block = number(&x["block"]);
            let want = if (lo..=hi).contains(&block) {
                NodeKind::Result
            } else {
                NodeKind::Leaf
            };
            assert_eq!(n.kind, want);
        }
        hashes_are_their_bytes(&proof, &o, &[], &v.name);
    }
}

#[test]
fn lvmt_forgeries_are_drawn_and_named() {
    for v in valid("lvmt", "") {
        let proof = v.bytes("proof");
        for kind in lvmt::FORGERIES {
            let Ok(f) = lvmt::forge(kind, &proof, None) else {
                continue;
            };
            assert!(!f.description.is_empty());
            assert_ne!(f.proof, proof, "{} {kind}", v.name);
        }
        // A changed value is caught by the history check, where there is a value to change.
        if let Ok(f) = lvmt::forge("value-changed", &proof, None) {
            assert_eq!(f.code.as_str(), "HISTORY_MISMATCH", "{}", v.name);
        }
    }
    let h = valid("lvmt", "history-")[0].bytes("proof");
    let f = lvmt::forge("stale-tuple", &h, None).unwrap();
    assert_eq!(f.code.as_str(), "HISTORY_MISMATCH");
    assert!(
        f.description
            .starts_with("replaced the key's tuple (version ")
    );
}

#[test]
fn mpt_outlines_walk_each_trie_to_the_answer() {
    for v in valid("mpt", "account-") {
        let wire = AccountProof::from_json(&v.inputs["proof"])
            .unwrap()
            .encode();
        let o = mpt::outline(&wire, &v.b256("stateRoot")).unwrap();
        assert_eq!(o.family, Family::Mpt);
        assert_eq!(o.bytes, wire.len());
        ranges_nest(&o);
        roots_match(&o, &v.name);
        assert_eq!(o.root.label, "stateRoot");
        assert_eq!(o.root.expected, v.str("stateRoot"));
        let e = &v.expected;
        let results = of_kind(&o, NodeKind::Result);
        let account = results[0];
        if e["exists"].as_bool().unwrap() {
            let balance =
                u128::from_str_radix(e["balance"].as_str().unwrap().trim_start_matches("0x"), 16)
                    .unwrap();
            assert_eq!(
                account.label,
                format!("account: nonce {}, balance {balance}", number(&e["nonce"]))
            );
            assert!(
                account
                    .detail
                    .as_deref()
                    .unwrap()
                    .ends_with("; = the answer")
            );
        } else {
            assert_eq!(account.label, "absent account");
        }
        let storage = e["storage"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        assert_eq!(results.len(), 1 + storage.len(), "{}", v.name);
        assert_eq!(o.roots.len(), 1 + storage.len());
        for (s, r) in storage.iter().zip(&results[1..]) {
            let value = common::hex(s["value"].as_str().unwrap());
            let label = if value.iter().all(|b| *b == 0) {
                String::from("absent slot (value 0)")
            } else {
                format!("value {}", lightprov_inspect::hex_number(&value))
            };
            assert_eq!(r.label, label, "{}", v.name);
            assert_eq!(r.detail.as_deref(), Some("= the answer"));
        }
        // Each listed node's range holds exactly the bytes that hash to it.
        let mut listed = 0;
        for n in o.tree.walk() {
            if let (Some(h), Some(_), NodeKind::Node | NodeKind::Leaf) = (&n.hash, n.range, n.kind)
            {
                assert_eq!(
                    hex(keccak256(bytes_at(&wire, n)).as_slice()),
                    *h,
                    "{}: {}",
                    v.name,
                    n.label
                );
                listed += 1;
            }
        }
        assert!(listed > 0);
    }
}

#[test]
fn mpt_a_forged_claim_is_marked_not_refused() {
    let v = &valid("mpt", "account-mainnet-eoa-500000")[0];
    let mut p = AccountProof::from_json(&v.inputs["proof"]).unwrap();
    p.balance[31] ^= 1;
    let o = mpt::outline(&p.encode(), &v.b256("stateRoot")).unwrap();
    assert!(o.root.matches, "the trie is untouched");
    let account = &of_kind(&o, NodeKind::Result)[0];
    assert!(
        account
            .detail
            .as_deref()
            .unwrap()
            .contains("the answer claims balance ")
    );
    assert!(account.detail.as_deref().unwrap().ends_with(" ✗"));
    // A wrong state root: the first node is marked.
    let o = mpt::outline(&p.encode(), &lightprov_types::B256::repeat_byte(1)).unwrap();
    assert!(!o.root.matches);
    let first = &o.tree.children[0].children[0];
    assert!(
        first
            .label
            .ends_with(" — its hash ≠ the header’s stateRoot"),
        "{}",
        first.label
    );
    // A dropped last node: the walk breaks off at a missing node.
    p.account_proof.pop();
    let o = mpt::outline(&p.encode(), &v.b256("stateRoot")).unwrap();
    let missing: Vec<_> = o
        .tree
        .walk()
        .into_iter()
        .filter(|n| n.label == "missing node (not in the proof)")
        .collect();
    assert_eq!(missing.len(), 1);
    assert_eq!(
        of_kind(&o, NodeKind::Result)[0].label,
        "no answer: the path breaks off"
    );
}
