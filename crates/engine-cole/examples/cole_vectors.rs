//! Writes the COLE test vectors: provenance proofs from real COLE and COLE* engines over a
//! deterministic workload (several levels, merges in flight), and for each a forgery per check
//! of the verifier, with the code it must be rejected with.
//!
//! `cargo run -p lightprov-engine-cole --example cole_vectors -- tests/vectors/cole`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::time::Duration;

use alloy_primitives::{B256, keccak256};
use lightprov_engine_cole::{ColeEngine, Options, Params};
use lightprov_testkit::vectors::VectorDir;
use lightprov_types::{
    ErrorCode,
    cole::{FAMILY, HistoryProof, Part, Structure, StructureKind, Tree, hash},
    hex,
};
use lightprov_verifier::cole::{Variant, verify_history_in_header};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

const BLOCKS: u64 = 160;

fn params(async_merge: bool) -> Params {
    Params {
        size_ratio: 3,
        fanout: 4,
        epsilon: 8,
        l0_capacity: 24,
        async_merge,
    }
}

fn key(i: u64) -> B256 {
    keccak256(i.to_be_bytes())
}

fn writes(b: u64) -> Vec<(B256, [u8; 32])> {
    let mut rng = ChaCha8Rng::seed_from_u64(b);
    (0..rng.random_range(0..6u32))
        .map(|_| {
            let mut v = [0u8; 32];
            v[24..].copy_from_slice(&rng.random_range(1u64..1_000_000).to_be_bytes());
            (key(rng.random_range(0..20)), v)
        })
        .collect()
}

struct Ctx {
    variant: Variant,
    header: B256,
    sibling: B256,
}

fn scheme(v: Variant) -> &'static str {
    match v {
        Variant::Cole => "cole",
        Variant::ColeStar => "cole-star",
    }
}

fn check(ctx: &Ctx, key: &B256, lo: u64, hi: u64, proof: &[u8]) -> Result<Value, ErrorCode> {
    let h = verify_history_in_header(&ctx.header, ctx.variant, &ctx.sibling, key, lo, hi, proof)
        .map_err(|e| e.code())?;
    let v = |x: &lightprov_verifier::cole::Version| json!({ "block": format!("0x{:x}", x.block), "value": hex::encode(&x.value) });
    Ok(json!({
        "ok": true,
        "atFrom": h.at_lo.as_ref().map(v),
        "versions": h.versions.iter().map(v).collect::<Vec<_>>(),
    }))
}

fn inputs(ctx: &Ctx, key: &B256, lo: u64, hi: u64, proof: &[u8]) -> Value {
    json!({
        "scheme": scheme(ctx.variant),
        "coleRoot": ctx.header,
        "siblingRoot": ctx.sibling,
        "stateKey": key,
        "fromBlock": format!("0x{lo:x}"),
        "toBlock": format!("0x{hi:x}"),
        "proof": hex::encode(proof),
    })
}

fn leaves_mut(t: &mut Tree) -> Vec<&mut Tree> {
    match t {
        Tree::Leaf(_) => vec![t],
        Tree::Hash(_) => vec![],
        Tree::Node(c) => c.iter_mut().flat_map(leaves_mut).collect(),
    }
}

fn node_with_leaves(t: &mut Tree) -> Option<&mut Vec<Tree>> {
    let Tree::Node(c) = t else { return None };
    if c.iter().filter(|x| matches!(x, Tree::Leaf(_))).count() >= 2 {
        return Some(c);
    }
    c.iter_mut().find_map(node_with_leaves)
}

/// Prunes every inner node that reveals no entry to its hash, as an honest prover would: a
/// forgery that hides entries then differs from an honest proof only where it lies.
fn normalize(t: &mut Tree) -> (B256, bool) {
    match t {
        Tree::Leaf(e) => (hash::leaf(e), true),
        Tree::Hash(h) => (*h, false),
        Tree::Node(c) => {
            let parts: Vec<(B256, bool)> = c.iter_mut().map(normalize).collect();
            let h = hash::node(parts.iter().map(|(h, _)| h));
            let reveals = parts.iter().any(|(_, r)| *r);
            if !reveals {
                *t = Tree::Hash(h);
            }
            (h, reveals)
        }
    }
}

fn searched(p: &mut HistoryProof) -> Vec<&mut Structure> {
    p.parts
        .iter_mut()
        .filter_map(|x| match x {
            Part::Searched(s) => Some(s),
            Part::Skipped(_) => None,
        })
        .collect()
}

/// Over the searched structures in order, the first node of two leaves or more (one to a tree)
/// whose first leaf is followed by another: its children and that first leaf's position.
fn leaf_pair(p: &mut HistoryProof) -> Option<(&mut Vec<Tree>, usize)> {
    for s in searched(p) {
        if let Some(n) = node_with_leaves(&mut s.tree) {
            let a = n.iter().position(|x| matches!(x, Tree::Leaf(_))).unwrap();
            if matches!(n.get(a + 1), Some(Tree::Leaf(_))) {
                return Some((n, a));
            }
        }
    }
    None
}

/// Forgeries of an honest proof, each with the check that must catch it.
fn forgeries(
    e: &ColeEngine,
    honest: &HistoryProof,
) -> Vec<(&'static str, HistoryProof, ErrorCode)> {
    let mut out = Vec::new();
    let (k, lo, hi) = (honest.key, honest.lo, honest.hi);
    let mut add = |name, f: &dyn Fn(&mut HistoryProof) -> bool, code| {
        let mut p = honest.clone();
        if f(&mut p) {
            for part in &mut p.parts {
                if let Part::Searched(s) = part {
                    normalize(&mut s.tree);
                }
            }
            out.push((name, p, code));
        }
    };
    add(
        "value-changed",
        &|p| {
            let mut s = searched(p);
            let Some(leaf) = s.iter_mut().flat_map(|s| leaves_mut(&mut s.tree)).next() else {
                return false;
            };
            if let Tree::Leaf(x) = leaf {
                x.value[31] ^= 1;
            }
            true
        },
        ErrorCode::RootMismatch,
    );
    add(
        "result-hidden",
        &|p| {
            for s in searched(p) {
                let mut l = leaves_mut(&mut s.tree);
                if l.len() >= 3 {
                    let mid = l.len() / 2;
                    if let Tree::Leaf(x) = &*l[mid] {
                        let h = hash::leaf(x);
                        *l[mid] = Tree::Hash(h);
                        return true;
                    }
                }
            }
            false
        },
        ErrorCode::IncompleteRange,
    );
    add(
        "left-neighbour-hidden",
        &|p| {
            let Some(s) = searched(p).into_iter().next() else {
                return false;
            };
            let mut l = leaves_mut(&mut s.tree);
            if l.len() < 2 {
                return false;
            }
            if let Tree::Leaf(x) = &*l[0] {
                let h = hash::leaf(x);
                *l[0] = Tree::Hash(h);
            }
            true
        },
        ErrorCode::IncompleteRange,
    );
    add(
        "results-swapped",
        &|p| leaf_pair(p).map(|(n, a)| n.swap(a, a + 1)).is_some(),
        ErrorCode::ResultsOutOfOrder,
    );
    add(
        "result-duplicated",
        &|p| leaf_pair(p).map(|(n, a)| n[a + 1] = n[a].clone()).is_some(),
        ErrorCode::ResultsOutOfOrder,
    );
    add(
        "stopped-early",
        &|p| {
            let Some(i) = p.parts.iter().position(|x| matches!(x, Part::Searched(_))) else {
                return false;
            };
            p.parts[i] = Part::Skipped(B256::repeat_byte(7));
            true
        },
        ErrorCode::WrongEarlyStop,
    );
    add(
        "bloom-changed",
        &|p| {
            for s in searched(p) {
                if let StructureKind::Run { bloom } = &mut s.kind {
                    bloom.0[0] ^= 1;
                    return true;
                }
            }
            false
        },
        ErrorCode::RootMismatch,
    );
    add(
        "run-height-wrong",
        &|p| {
            for s in searched(p) {
                if matches!(s.kind, StructureKind::Run { .. }) {
                    s.height += 1;
                    return true;
                }
            }
            false
        },
        ErrorCode::BadShape,
    );
    add(
        "fanout-wrong",
        &|p| {
            p.fanout = 3;
            searched(p).iter().any(|s| {
                matches!(s.kind, StructureKind::Run { .. })
                    && hash::complete_height(s.n, 3) != s.height
            })
        },
        ErrorCode::BadShape,
    );
    add(
        "structure-dropped",
        &|p| p.parts.pop().is_some(),
        ErrorCode::RootMismatch,
    );
    add(
        "other-key",
        &|p| {
            p.key = key(999);
            true
        },
        ErrorCode::KeyMismatch,
    );
    add(
        "other-range",
        &|p| {
            p.lo += 1;
            p.lo <= p.hi
        },
        ErrorCode::RangeMismatch,
    );
    // A wider honest proof presented for the narrower range.
    if lo > 1 {
        let mut wide = e.prove_history(&k, lo - 2, hi).unwrap();
        wide.lo = lo;
        out.push(("extra-neighbours", wide, ErrorCode::ExtraResults));
    }
    // The search continued past the stop: a structure after it given as searched (taken
    // from the proof of a range that searches it).
    let stops = honest
        .parts
        .iter()
        .position(|x| matches!(x, Part::Skipped(_)));
    if let Some(i) = stops {
        let full = e.prove_history(&k, 0, hi).unwrap();
        if let Some(Part::Searched(s)) = full.parts.get(i) {
            let mut p = honest.clone();
            p.parts[i] = Part::Searched(s.clone());
            out.push(("searched-after-stop", p, ErrorCode::WrongEarlyStop));
        }
    }
    out
}

fn main() {
    let mut out = VectorDir::from_args(&FAMILY, "crates/engine-cole/examples/cole_vectors.rs");
    for variant in [Variant::Cole, Variant::ColeStar] {
        let dir = tempfile::tempdir().unwrap();
        let opts = Options {
            merge_delay: Duration::from_millis(1),
            ..Options::default()
        };
        let mut e =
            ColeEngine::open(dir.path(), params(variant == Variant::ColeStar), opts).unwrap();
        for b in 0..BLOCKS {
            e.apply(b, &writes(b)).unwrap();
        }
        let h_state = e.root_at(BLOCKS - 1).unwrap();
        let sibling = B256::repeat_byte(0x5a);
        let header = match variant {
            Variant::Cole => hash::header_root(&h_state, &sibling),
            Variant::ColeStar => hash::header_root(&sibling, &h_state),
        };
        let ctx = Ctx {
            variant,
            header,
            sibling,
        };
        let queries = [
            (1u64, 0, 159),
            (3, 150, 159),
            (5, 40, 80),
            (7, 100, 101),
            (11, 0, 0),
            (19, 60, 60),
            (500, 0, 159),
            (2, 159, 159),
        ];
        for (ki, lo, hi) in queries {
            let k = key(ki);
            let proof = e.prove_history(&k, lo, hi).unwrap();
            let bytes = proof.encode();
            let expect = check(&ctx, &k, lo, hi, &bytes).expect("honest proofs verify");
            let name = format!("{}-key{ki}-{lo}-{hi}", scheme(variant));
            out.valid(&name, inputs(&ctx, &k, lo, hi, &bytes), expect);
            // Forgeries.
            for (what, forged, code) in forgeries(&e, &proof) {
                let fb = forged.encode();
                let got = check(&ctx, &k, lo, hi, &fb);
                if what == "extra-neighbours" && got.is_ok() {
                    // No version in the two extra blocks: the wider proof is also the honest
                    // proof of the narrower range.
                    continue;
                }
                assert_eq!(got.as_ref().err(), Some(&code), "{name} {what}");
                out.invalid(
                    &format!("{name}-{what}"),
                    inputs(&ctx, &k, lo, hi, &fb),
                    code,
                );
            }
            // Encoding-level and context-level tampers.
            let mut t = bytes.clone();
            t.truncate(bytes.len() / 2);
            out.invalid(
                &format!("{name}-truncated"),
                inputs(&ctx, &k, lo, hi, &t),
                ErrorCode::BadEncoding,
            );
            let mut t = bytes.clone();
            t.push(0);
            out.invalid(
                &format!("{name}-trailing-byte"),
                inputs(&ctx, &k, lo, hi, &t),
                ErrorCode::BadEncoding,
            );
            let other = Ctx {
                variant: if variant == Variant::Cole {
                    Variant::ColeStar
                } else {
                    Variant::Cole
                },
                header,
                sibling,
            };
            assert_eq!(
                check(&other, &k, lo, hi, &bytes).err(),
                Some(ErrorCode::RootMismatch)
            );
            out.invalid(
                &format!("{name}-other-engine"),
                inputs(&other, &k, lo, hi, &bytes),
                ErrorCode::RootMismatch,
            );
            let wrong_sibling = Ctx {
                variant,
                header,
                sibling: B256::ZERO,
            };
            out.invalid(
                &format!("{name}-wrong-sibling"),
                inputs(&wrong_sibling, &k, lo, hi, &bytes),
                ErrorCode::RootMismatch,
            );
        }
    }
    out.finish();
}
