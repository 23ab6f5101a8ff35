//! The inspector's forgeries are the registry's tamper classes: every kind it offers is a tamper
//! of its family in `lightprov_types::FAMILIES`, every forgery of a shared honest vector carries
//! a code its class answers, and the family's verifier really rejects the forged bytes with that
//! code. A kind outside the registry — or a registry class the inspector does not make — is not
//! applicable.
use crate::common::{Vector, roots, roots_match, valid};
use lightprov_inspect::{ForgeError, Forged, cole, forkless, lvmt, mbt, pos};
use lightprov_types::{
    ErrorCode,
    lvmt::{Kind, LvmtHistory, LvmtProof},
};
use lightprov_verifier::{
    cole::{Variant, verify_history_in_header},
    lvmt::{
        amt::Params,
        proof::{Trusted, verify, verify_history},
    },
};

fn not_applicable(r: &Result<Forged, ForgeError>) -> bool {
    matches!(r, Err(ForgeError::NotApplicable(_)))
}

/// `f`, a forgery of kind `kind` of the proof `honest`, is labelled with a class of `family`
/// that answers its code, says what it did, is not the honest proof, and `verify` rejects it
/// with its code.
fn rejected(
    family: &lightprov_types::Family,
    kind: &str,
    f: &Forged,
    honest: &[u8],
    name: &str,
    verify: impl Fn(&[u8]) -> Result<(), ErrorCode>,
) {
    let t = family
        .tamper(kind)
        .unwrap_or_else(|| panic!("{kind} is not a {} tamper class", family.name));
    assert!(
        t.answers(f.code),
        "{name} {kind}: code {} is not an answer of the class ({} / {:?})",
        f.code,
        t.code,
        t.alt
    );
    assert!(!f.description.is_empty(), "{name} {kind}");
    assert_ne!(f.proof, honest, "{name} {kind}");
    assert_eq!(
        verify(&f.proof),
        Err(f.code),
        "{name} {kind}: {}",
        f.description
    );
}

#[test]
fn every_forgery_is_a_registry_tamper_class() {
    for (family, kinds) in [
        (&lightprov_types::cole::FAMILY, cole::FORGERIES),
        (&lightprov_types::lvmt::FAMILY, lvmt::FORGERIES),
        (&lightprov_types::forkless::FAMILY, forkless::FORGERIES),
        (&lightprov_types::mbt::FAMILY, mbt::FORGERIES),
        (&lightprov_types::pos::FAMILY, pos::FORGERIES),
    ] {
        assert!(!kinds.is_empty());
        for kind in kinds {
            assert!(
                family.tamper(kind).is_some(),
                "{kind} is not a {} tamper class",
                family.name
            );
        }
    }
    assert_eq!(
        cole::FORGERIES,
        ["value-changed", "result-hidden", "structure-dropped"]
    );
    assert_eq!(
        lvmt::FORGERIES,
        ["value-changed", "stale-tuple", "level-dropped"]
    );
}

#[test]
fn kinds_outside_the_registry_are_not_applicable() {
    let c = valid("cole", "")[0].bytes("proof");
    let l = valid("lvmt", "proof-")[0].bytes("proof");
    // Names outside the registry, another family's class, and registry classes it does not
    // make: none is forged.
    for kind in [
        "value-flipped",
        "wrong-value",
        "bogus",
        "stale-tuple",
        "bloom-changed",
        "other-key",
    ] {
        assert!(not_applicable(&cole::forge(kind, &c)), "cole {kind}");
    }
    for kind in [
        "value-flipped",
        "wrong-value",
        "bogus",
        "result-hidden",
        "quotient-swapped",
        "other-key",
    ] {
        assert!(not_applicable(&lvmt::forge(kind, &l, None)), "lvmt {kind}");
    }
    // The kind is checked before the bytes: an unknown kind of garbage is not applicable, a
    // known kind of garbage is a decode error.
    assert!(not_applicable(&cole::forge("value-flipped", &[1, 2, 3])));
    assert!(matches!(
        cole::forge("value-changed", &[1, 2, 3]),
        Err(ForgeError::Decode(_))
    ));
    assert!(matches!(
        lvmt::forge("value-changed", &[1, 2, 3], None),
        Err(ForgeError::Decode(_))
    ));
}

fn cole_verify(v: &Vector, proof: &[u8]) -> Result<(), ErrorCode> {
    let variant = match v.str("scheme") {
        "cole" => Variant::Cole,
        "cole-star" => Variant::ColeStar,
        s => panic!("{}: scheme {s}", v.name),
    };
    verify_history_in_header(
        &v.b256("coleRoot"),
        variant,
        &v.b256("siblingRoot"),
        &v.b256("stateKey"),
        v.num("fromBlock"),
        v.num("toBlock"),
        proof,
    )
    .map(|_| ())
    .map_err(|e| e.code())
}

#[test]
fn cole_forgeries_are_rejected_by_the_verifier_with_their_class_code() {
    let vectors = valid("cole", "");
    let mut made = std::collections::BTreeMap::<&str, usize>::new();
    for v in &vectors {
        let proof = v.bytes("proof");
        assert_eq!(
            cole_verify(v, &proof),
            Ok(()),
            "{}: the honest proof",
            v.name
        );
        for kind in cole::FORGERIES {
            let r = cole::forge(kind, &proof);
            let f = match r {
                Ok(f) => f,
                Err(ForgeError::NotApplicable(why)) => {
                    // Only hiding a version may not apply (a proof whose first revealed entry
                    // is a neighbour the range check does not need).
                    assert_eq!(*kind, "result-hidden", "{} {kind}: {why}", v.name);
                    continue;
                }
                Err(e) => panic!("{} {kind}: {e}", v.name),
            };
            // Against the header's coleRoot, as a client checks it.
            rejected(
                &lightprov_types::cole::FAMILY,
                kind,
                &f,
                &proof,
                &v.name,
                |p| cole_verify(v, p),
            );
            *made.entry(kind).or_default() += 1;
        }
    }
    // A changed value and a structure left out apply to every proof; a hidden version to the
    // proofs that reveal one.
    assert_eq!(made.get("value-changed"), Some(&vectors.len()));
    assert_eq!(made.get("structure-dropped"), Some(&vectors.len()));
    assert!(
        made.get("result-hidden").is_some_and(|n| *n > 0),
        "{made:?}"
    );
}

#[test]
fn cole_value_changed_flips_one_byte_and_says_which() {
    let v = &valid("cole", "")[0];
    let honest = v.bytes("proof");
    let f = cole::forge("value-changed", &honest).unwrap();
    assert_eq!(f.code, ErrorCode::RootMismatch);
    assert_eq!(f.proof.len(), honest.len());
    let diff: Vec<usize> = (0..honest.len())
        .filter(|i| honest[*i] != f.proof[*i])
        .collect();
    assert_eq!(diff.len(), 1, "{}", f.description);
    assert_eq!(honest[diff[0]] ^ f.proof[diff[0]], 0xff);
    assert!(
        f.description
            .starts_with("flipped the last byte of the value of ")
            && f.description.ends_with(&format!("; wire byte {}", diff[0])),
        "{}",
        f.description
    );
}

#[test]
fn cole_structure_dropped_leaves_the_last_structure_out() {
    for v in valid("cole", "") {
        let honest = v.bytes("proof");
        let f = cole::forge("structure-dropped", &honest).unwrap();
        let (h, x) = (
            lightprov_types::cole::HistoryProof::decode(&honest).unwrap(),
            lightprov_types::cole::HistoryProof::decode(&f.proof).unwrap(),
        );
        assert_eq!(x.parts.len() + 1, h.parts.len(), "{}", v.name);
        assert_eq!(x.parts[..], h.parts[..x.parts.len()], "{}", v.name);
        assert_eq!(f.code, ErrorCode::RootMismatch, "{}", v.name);
    }
}

struct LvmtCase {
    v: Vector,
    params: Params,
}

impl LvmtCase {
    fn verify(&self, proof: &[u8]) -> Result<(), ErrorCode> {
        let a = self.v.anchor();
        let t = Trusted {
            params: &self.params,
            aroot: a.aroot,
            history_root: a.history_root,
            blocks: a.blocks,
        };
        let key = self.v.b256("stateKey");
        if self.v.name.starts_with("history") {
            verify_history(
                &t,
                &key,
                self.v.num("fromBlock"),
                self.v.num("toBlock"),
                proof,
            )
            .map(|_| ())
        } else {
            verify(&t, &key, proof).map(|_| ())
        }
        .map_err(|e| e.code())
    }

    /// The latest-version proof the forgeries tamper with.
    fn latest(&self) -> LvmtProof {
        let b = self.v.bytes("proof");
        LvmtProof::decode(&b)
            .or_else(|_| LvmtHistory::decode(&b).map(|h| h.latest))
            .unwrap()
    }
}

#[test]
fn lvmt_forgeries_are_rejected_by_the_verifier_with_their_class_code() {
    let cases: Vec<LvmtCase> = valid("lvmt", "")
        .into_iter()
        .map(|v| LvmtCase {
            params: Params::decode(&v.bytes("params")).unwrap(),
            v,
        })
        .collect();
    let mut made = std::collections::BTreeMap::<&str, usize>::new();
    for c in &cases {
        let (name, proof) = (&c.v.name, c.v.bytes("proof"));
        assert_eq!(c.verify(&proof), Ok(()), "{name}: the honest proof");
        let latest = c.latest();
        let key = c.v.b256("stateKey");
        // A history of the same key, for the older tuple of stale-tuple.
        let aux = cases
            .iter()
            .find(|o| o.v.name.starts_with("history") && o.v.b256("stateKey") == key)
            .map(|o| o.v.bytes("proof"));
        for kind in lvmt::FORGERIES {
            let r = lvmt::forge(kind, &proof, aux.as_deref());
            let applies = match *kind {
                "value-changed" => {
                    !matches!(&latest.kind, Kind::Absence { others } if others.is_empty())
                }
                "level-dropped" => latest.levels.len() > 1,
                // A presence proof, and an older version's tuple: from the history given as the
                // proof, or from a history of the key given as aux.
                _ => {
                    matches!(latest.kind, Kind::Presence { .. })
                        && (name.starts_with("history") || aux.is_some())
                }
            };
            let f = match r {
                Ok(f) => f,
                Err(ForgeError::NotApplicable(why)) => {
                    assert!(!applies, "{name} {kind}: not applicable ({why})");
                    continue;
                }
                Err(e) => panic!("{name} {kind}: {e}"),
            };
            assert!(
                applies,
                "{name} {kind}: forged where the class does not apply"
            );
            rejected(
                &lightprov_types::lvmt::FAMILY,
                kind,
                &f,
                &proof,
                name,
                |p| c.verify(p),
            );
            *made.entry(kind).or_default() += 1;
        }
    }
    for kind in lvmt::FORGERIES {
        assert!(made.get(kind).is_some_and(|n| *n > 0), "{kind}: {made:?}");
    }
    // Absence forgeries: an occupant's value, and a level dropped with its occupants.
    let absent = cases
        .iter()
        .filter(|c| matches!(c.latest().kind, Kind::Absence { .. }))
        .count();
    assert!(absent > 0);
}

#[test]
fn lvmt_value_changed_does_not_apply_to_an_absence_with_no_occupant() {
    let mut seen = 0;
    for v in valid("lvmt", "proof-") {
        let proof = v.bytes("proof");
        let p = LvmtProof::decode(&proof).unwrap();
        if let Kind::Absence { others } = &p.kind
            && others.is_empty()
        {
            let r = lvmt::forge("value-changed", &proof, None);
            assert!(not_applicable(&r), "{}: {r:?}", v.name);
            seen += 1;
        }
        if p.levels.len() == 1 {
            assert!(not_applicable(&lvmt::forge("level-dropped", &proof, None)));
        }
    }
    assert!(seen > 0, "no vector is an absence proof without occupants");
}

fn forkless_key(v: &Vector) -> lightprov_types::forkless::ForklessKey {
    use lightprov_types::{Address, forkless::ForklessKey};
    let k = &v.inputs["key"];
    let a = Address::from_slice(
        &lightprov_types::hex::data(k["address"].as_str().unwrap(), "a").unwrap(),
    );
    match k["kind"].as_str().unwrap() {
        "balance" => ForklessKey::Balance(a),
        "nonce" => ForklessKey::Nonce(a),
        _ => ForklessKey::Storage(
            a,
            lightprov_types::B256::from_slice(
                &lightprov_types::hex::data(k["slot"].as_str().unwrap(), "s").unwrap(),
            ),
        ),
    }
}

fn forkless_verify(v: &Vector, proof: &[u8]) -> Result<(), ErrorCode> {
    use lightprov_verifier::forkless::{verify_history, verify_value};
    let root = v.b256("forklessRoot");
    let key = forkless_key(v);
    if v.inputs.get("fromBlock").is_some() {
        verify_history(&root, &key, v.num("fromBlock"), v.num("toBlock"), proof).map(|_| ())
    } else {
        verify_value(&root, &key, proof).map(|_| ())
    }
    .map_err(|e| e.code())
}

/// Forges every kind of `forgeries` from each honest vector (verified by `verify` first), checks
/// each forgery is labelled with a class of `family` answering its code and that `verify` rejects
/// it with that code, calls `outline` on the honest vector, and checks every kind was made once
/// at least.
fn check_forgeries(
    vectors: &[Vector],
    family: &lightprov_types::Family,
    forgeries: &[&'static str],
    forge: fn(&str, &[u8]) -> Result<Forged, ForgeError>,
    verify: fn(&Vector, &[u8]) -> Result<(), ErrorCode>,
    outline: fn(&Vector, &[u8]),
) {
    let mut made = std::collections::BTreeMap::<&str, usize>::new();
    for v in vectors {
        let proof = v.bytes("proof");
        assert_eq!(verify(v, &proof), Ok(()), "{}: the honest proof", v.name);
        for kind in forgeries {
            let f = match forge(kind, &proof) {
                Ok(f) => f,
                Err(ForgeError::NotApplicable(_)) => continue,
                Err(e) => panic!("{} {kind}: {e}", v.name),
            };
            rejected(family, kind, &f, &proof, &v.name, |p| verify(v, p));
            *made.entry(kind).or_default() += 1;
        }
        outline(v, &proof);
    }
    for kind in forgeries {
        assert!(made.get(kind).is_some_and(|n| *n > 0), "{kind}: {made:?}");
    }
}

#[test]
fn forkless_forgeries_are_rejected_by_the_verifier_with_their_class_code() {
    check_forgeries(
        &valid("forkless", ""),
        &lightprov_types::forkless::FAMILY,
        forkless::FORGERIES,
        forkless::forge,
        forkless_verify,
        |v, proof| {
            // The outline of the honest proof matches the header's root.
            let range = v
                .inputs
                .get("fromBlock")
                .map(|_| (v.num("fromBlock"), v.num("toBlock")));
            let o =
                forkless::outline(proof, &forkless_key(v), range, &v.b256("forklessRoot")).unwrap();
            roots_match(&o, &v.name);
        },
    );
}

/// A POS vector's roots (history: one per block) and key, as its runner reads them.
fn pos_verify(v: &Vector, proof: &[u8]) -> Result<(), ErrorCode> {
    use lightprov_verifier::{
        Verify,
        pos::{BlockRoots, PosHistory, PosValue},
    };
    let key = v.b256("stateKey");
    if v.str("kind") == "history" {
        let roots = roots(v);
        let q = BlockRoots {
            from: v.inputs["fromBlock"].as_u64().unwrap(),
            roots: &roots,
        };
        PosHistory::verify(&q, &key, proof).map(|_| ())
    } else {
        PosValue::verify(&v.b256("posRoot"), &key, proof).map(|_| ())
    }
    .map_err(|e| e.code())
}

#[test]
fn pos_forgeries_are_rejected_by_the_verifier_with_their_class_code() {
    let vectors: Vec<Vector> = valid("pos", "")
        .into_iter()
        .filter(|v| matches!(v.str("kind"), "value" | "history"))
        .collect();
    check_forgeries(
        &vectors,
        &lightprov_types::pos::FAMILY,
        pos::FORGERIES,
        pos::forge,
        pos_verify,
        |v, proof| {
            // The outline of the honest proof matches the header's roots, and every block's
            // path reaches a leaf of the set.
            let key = v.b256("stateKey");
            let o = if v.str("kind") == "history" {
                let from = v.inputs["fromBlock"].as_u64().unwrap();
                pos::outline_history(proof, &key, from, &roots(v)).unwrap()
            } else {
                pos::outline_value(proof, &key, &v.b256("posRoot")).unwrap()
            };
            roots_match(&o, &v.name);
            let nodes = o.tree.walk();
            assert!(
                nodes
                    .iter()
                    .any(|n| n.kind == lightprov_inspect::NodeKind::Result),
                "{}",
                v.name
            );
            assert!(
                nodes
                    .iter()
                    .all(|n| !n.label.contains("leaves the node set")),
                "{}",
                v.name
            );
        },
    );
}

/// A forgery of one kind of proof does not apply to the other, and a history outline against
/// the roots of other blocks shows the paths leaving the node set.
#[test]
fn pos_forgeries_fit_their_proof_kind_and_outlines_show_foreign_roots() {
    let value = valid("pos", "value-1").remove(0);
    let history = valid("pos", "history-1").remove(0);
    for kind in ["history-node-repeated", "history-node-unused"] {
        assert!(
            not_applicable(&pos::forge(kind, &value.bytes("proof")))
                || matches!(
                    pos::forge(kind, &value.bytes("proof")),
                    Err(ForgeError::Decode(_))
                ),
            "{kind}"
        );
    }
    for kind in ["value-changed", "truncated-path", "extra-node"] {
        assert!(
            not_applicable(&pos::forge(kind, &history.bytes("proof"))),
            "{kind}"
        );
    }
    assert!(not_applicable(&pos::forge(
        "other-child",
        &value.bytes("proof")
    )));
    let mut roots = roots(&history);
    roots.reverse();
    roots[0] = lightprov_types::B256::repeat_byte(7);
    let o = pos::outline_history(
        &history.bytes("proof"),
        &history.b256("stateKey"),
        history.inputs["fromBlock"].as_u64().unwrap(),
        &roots,
    )
    .unwrap();
    assert!(!o.roots[0].matches);
    assert!(
        o.tree
            .walk()
            .iter()
            .any(|n| n.label.contains("leaves the node set"))
    );
}

fn mbt_verify(v: &Vector, proof: &[u8]) -> Result<(), ErrorCode> {
    use lightprov_types::mbt::MbtParams;
    use lightprov_verifier::mbt::{HistoryQuery, HistoryTrusted, verify, verify_history};
    let p = MbtParams::new(
        v.inputs["bucketBits"].as_u64().unwrap() as u8,
        v.inputs["fanout"].as_u64().unwrap() as u8,
    )
    .unwrap();
    let key = v.b256("stateKey");
    match v.str("kind") {
        "value" => verify(&p, &v.b256("root"), &key, proof).map(|_| ()),
        _ => {
            let roots = roots(v);
            let t = HistoryTrusted {
                params: p,
                roots: &roots,
            };
            let q = HistoryQuery {
                key,
                lo: v.num("fromBlock"),
                hi: v.num("toBlock"),
            };
            verify_history(&t, &q, proof).map(|_| ())
        }
    }
    .map_err(|e| e.code())
}

/// Each forgery of each honest value and history proof is rejected by the verifier, against the
/// real roots, with the code the inspector announced; the honest outlines match every root, a
/// value forgery's recomputed root does not, and a diff proof is no proof the inspector forges.
#[test]
fn mbt_forgeries_are_rejected_by_the_verifier_with_their_class_code() {
    let mut made = std::collections::BTreeMap::<&str, usize>::new();
    for v in valid("mbt", "") {
        let proof = v.bytes("proof");
        if v.str("kind") == "diff" {
            for kind in mbt::FORGERIES {
                assert!(
                    matches!(mbt::forge(kind, &proof), Err(ForgeError::Decode(_))),
                    "{} {kind}",
                    v.name
                );
            }
            continue;
        }
        assert_eq!(
            mbt_verify(&v, &proof),
            Ok(()),
            "{}: the honest proof",
            v.name
        );
        let outline = |p: &[u8]| {
            if v.str("kind") == "value" {
                mbt::outline_value(&v.b256("root"), p)
            } else {
                mbt::outline_history(&roots(&v), p)
            }
        };
        roots_match(&outline(&proof).unwrap(), &v.name);
        for kind in mbt::FORGERIES {
            let f = match mbt::forge(kind, &proof) {
                Ok(f) => f,
                Err(ForgeError::NotApplicable(_)) => continue,
                Err(e) => panic!("{} {kind}: {e}", v.name),
            };
            rejected(
                &lightprov_types::mbt::FAMILY,
                kind,
                &f,
                &proof,
                &v.name,
                |p| mbt_verify(&v, p),
            );
            if f.code == ErrorCode::RootMismatch {
                assert!(
                    !outline(&f.proof).unwrap().root.matches,
                    "{} {kind}",
                    v.name
                );
            }
            *made.entry(kind).or_default() += 1;
        }
    }
    for kind in mbt::FORGERIES {
        assert!(made.get(kind).is_some_and(|n| *n > 0), "{kind}: {made:?}");
    }
    // Kinds outside the family's registry, or not forged, are not applicable.
    let any = valid("mbt", "value-present")[0].bytes("proof");
    for kind in ["bogus", "link-dropped", "other-params"] {
        assert!(not_applicable(&mbt::forge(kind, &any)), "{kind}");
    }
}
