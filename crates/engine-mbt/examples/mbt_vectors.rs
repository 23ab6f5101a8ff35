//! Writes the Merkle Bucket Tree test vectors: value, diff and history proofs from a real engine
//! over a deterministic workload (b = 5, m = 3: four inner levels, empty buckets and slots past
//! the last bucket), and for each tamper class of the family's registry entry a forgery, with
//! the code it must be rejected with (taken from the class, and checked against the verifier).
//!
//! `cargo run -p lightprov-engine-mbt --example mbt_vectors -- tests/vectors/mbt`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use alloy_primitives::{B256, keccak256};
use lightprov_engine_mbt::MbtEngine;
use lightprov_testkit::vectors::VectorDir;
use lightprov_types::{
    ErrorCode, Word, hex,
    mbt::{DiffNode, DiffProof, Entry, FAMILY, HistoryProof, MbtParams, MbtProof, hash},
};
use lightprov_verifier::mbt::{
    DiffTrusted, HistoryQuery, HistoryTrusted, verify_diff, verify_history, verify_value,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

const GENERATOR: &str = "crates/engine-mbt/examples/mbt_vectors.rs";
const BLOCKS: u64 = 24;

fn params() -> MbtParams {
    MbtParams::new(5, 3).unwrap()
}

fn key(i: u64) -> B256 {
    keccak256(i.to_be_bytes())
}

/// Block `b`'s writes: a few of 48 keys, some deleted.
fn writes(b: u64) -> Vec<(B256, Word)> {
    let mut rng = ChaCha8Rng::seed_from_u64(b ^ 0x006d_6274);
    let n = if b == 0 {
        40
    } else {
        rng.random_range(1..5u32)
    };
    (0..n)
        .map(|_| {
            let mut v = [0u8; 32];
            if !rng.random_bool(0.1) {
                v[24..].copy_from_slice(&rng.random_range(1u64..1_000_000).to_be_bytes());
            }
            (key(rng.random_range(0..48)), v)
        })
        .collect()
}

fn engine(params: MbtParams) -> (tempfile::TempDir, MbtEngine) {
    let dir = tempfile::tempdir().unwrap();
    let mut e = MbtEngine::open(dir.path(), params).unwrap();
    for b in 0..BLOCKS {
        e.apply(b, &writes(b)).unwrap();
    }
    (dir, e)
}

fn h(b: &B256) -> String {
    hex::encode(b.as_slice())
}

fn word_json(w: &Word) -> Value {
    if *w == [0; 32] {
        Value::Null
    } else {
        Value::String(hex::encode(w))
    }
}

/// What a vector asks: the kind of proof, its trusted inputs and the query.
#[derive(Clone)]
enum Query {
    Value {
        root: B256,
        key: B256,
        claimed: Option<Option<Word>>,
    },
    Diff {
        from: u64,
        to: u64,
        old_root: B256,
        new_root: B256,
    },
    History {
        key: B256,
        lo: u64,
        hi: u64,
        roots: Vec<B256>,
    },
}

fn run(q: &Query, proof: &[u8]) -> Result<Value, ErrorCode> {
    let p = params();
    match q {
        Query::Value { root, key, claimed } => {
            let found =
                lightprov_verifier::mbt::verify(&p, root, key, proof).map_err(|e| e.code())?;
            if let Some(c) = claimed {
                verify_value(&p, root, key, c.as_ref(), proof).map_err(|e| e.code())?;
            }
            Ok(json!({ "ok": true, "value": word_json(&found.unwrap_or([0; 32])) }))
        }
        Query::Diff {
            old_root, new_root, ..
        } => {
            let t = DiffTrusted {
                params: p,
                old_root: *old_root,
                new_root: *new_root,
            };
            let changes = verify_diff(&t, proof).map_err(|e| e.code())?;
            Ok(json!({
                "ok": true,
                "changes": changes.iter().map(|c| json!({
                    "stateKey": h(&c.key), "old": word_json(&c.old), "new": word_json(&c.new),
                })).collect::<Vec<_>>(),
            }))
        }
        Query::History { key, lo, hi, roots } => {
            let t = HistoryTrusted { params: p, roots };
            let q = HistoryQuery {
                key: *key,
                lo: *lo,
                hi: *hi,
            };
            let hist = verify_history(&t, &q, proof).map_err(|e| e.code())?;
            Ok(json!({
                "ok": true,
                "values": hist.values.iter().map(word_json).collect::<Vec<_>>(),
            }))
        }
    }
}

fn inputs(q: &Query, proof: &[u8]) -> Value {
    let p = params();
    let mut v = match q {
        Query::Value { root, key, claimed } => {
            let mut v = json!({ "kind": "value", "root": h(root), "stateKey": h(key) });
            if let Some(c) = claimed {
                v["value"] = word_json(&c.unwrap_or([0; 32]));
            }
            v
        }
        Query::Diff {
            from,
            to,
            old_root,
            new_root,
        } => json!({
            "kind": "diff",
            "fromBlock": format!("0x{from:x}"),
            "toBlock": format!("0x{to:x}"),
            "oldRoot": h(old_root),
            "newRoot": h(new_root),
        }),
        Query::History { key, lo, hi, roots } => json!({
            "kind": "history",
            "stateKey": h(key),
            "fromBlock": format!("0x{lo:x}"),
            "toBlock": format!("0x{hi:x}"),
            "roots": roots.iter().map(h).collect::<Vec<_>>(),
        }),
    };
    v["bucketBits"] = json!(p.bucket_bits());
    v["fanout"] = json!(p.fanout());
    v["proof"] = json!(hex::encode(proof));
    v
}

/// The vectors, each written with its inputs and what the verifier answers.
struct Out(VectorDir);

impl Out {
    fn valid(&mut self, name: &str, q: &Query, proof: &[u8]) {
        let expected = run(q, proof).unwrap_or_else(|e| panic!("{name}: honest proof fails: {e}"));
        self.0.valid(name, inputs(q, proof), expected);
    }

    /// A forgery of class `tamper`: the verifier must answer the class's code.
    fn invalid(&mut self, base: &str, tamper: &str, q: &Query, proof: &[u8]) {
        let name = format!("{base}-{tamper}");
        let (class, _) = self.0.tamper_code(tamper, &name, run(q, proof));
        self.0.write(
            false,
            &name,
            &format!("{base}: {}", class.about),
            inputs(q, proof),
            json!({ "error": class.code.as_str() }),
        );
    }
}

/// The hash of bucket `bucket` with `entries`, and the path's full children at the level above.
fn full_bottom(p: &MbtParams, proof: &MbtProof, bucket: u32) -> (B256, Vec<B256>) {
    let bh = hash::bucket(p, bucket, &proof.entries);
    let last = proof.levels.len() - 1;
    let mut full = proof.levels[last].clone();
    full.insert(p.slot(bucket, last as u8), bh);
    (bh, full)
}

/// Sends the first differing bucket of `n` (node of `level` at child slots `path`) as the same
/// subtree (its old hash), and collapses each node above it that then differs in nothing, as a
/// prover hiding that change would.
fn hide_first_change(n: &mut DiffNode, level: u8, path: &mut Vec<usize>) -> bool {
    let hidden = match n {
        DiffNode::Same(_) => return false,
        DiffNode::Bucket { .. } => true,
        DiffNode::Inner(children) => {
            let mut found = false;
            for (j, c) in children.iter_mut().enumerate() {
                path.push(j);
                found = hide_first_change(c, level + 1, path);
                path.pop();
                if found {
                    break;
                }
            }
            if !found {
                return false;
            }
            children.iter().all(|c| matches!(c, DiffNode::Same(_)))
        }
    };
    if hidden {
        *n = DiffNode::Same(old_of(&params(), n, level, path));
    }
    true
}

const DIFF_FROM: u64 = 9;
const DIFF_TO: u64 = 14;

/// The old hash of a diff subtree (node of `level` at child slots `path`).
fn old_of(p: &MbtParams, n: &DiffNode, level: u8, path: &[usize]) -> B256 {
    match n {
        DiffNode::Same(h) => *h,
        DiffNode::Bucket { old, .. } => {
            let index = path
                .iter()
                .fold(0u64, |i, j| i * u64::from(p.fanout()) + *j as u64);
            hash::bucket(p, index as u32, old)
        }
        DiffNode::Inner(c) => {
            let children: Vec<B256> = c
                .iter()
                .enumerate()
                .map(|(j, x)| {
                    let mut sub = path.to_vec();
                    sub.push(j);
                    old_of(p, x, level + 1, &sub)
                })
                .collect();
            hash::inner(p, level, children.iter())
        }
    }
}

fn first_bucket(n: &mut DiffNode) -> Option<(&mut Vec<Entry>, &mut Vec<Entry>)> {
    match n {
        DiffNode::Same(_) => None,
        DiffNode::Bucket { old, new } => Some((old, new)),
        DiffNode::Inner(c) => c.iter_mut().find_map(first_bucket),
    }
}

fn main() {
    let mut out = Out(VectorDir::from_args(&FAMILY, GENERATOR));
    let p = params();
    let (_d, e) = engine(p);
    let head = BLOCKS - 1;
    let root = e.root_at(head).unwrap();
    let value = |k: &B256, block: u64| Query::Value {
        root: e.root_at(block).unwrap(),
        key: *k,
        claimed: None,
    };

    // ---- value proofs ----
    // A present key in a bucket of at least two entries, with an empty slot beside it.
    let present = (0..48)
        .map(key)
        .find(|k| {
            let pr = e.prove_at(k, head).unwrap();
            let bucket = p.bucket_of(k);
            pr.entries.len() >= 2
                && pr.entries.iter().any(|x| x.key == *k)
                && pr.levels[pr.levels.len() - 1].contains(&hash::empty_bucket(&p))
                && full_bottom(&p, &pr, bucket).1.len() == 3
        })
        .expect("a crowded bucket beside an empty one");
    let absent_in_bucket = (1000..)
        .map(key)
        .find(|k| p.bucket_of(k) == p.bucket_of(&present))
        .unwrap();
    let absent_empty = (1000..)
        .map(key)
        .find(|k| e.prove_at(k, head).unwrap().entries.is_empty())
        .unwrap();
    let honest = e.prove_at(&present, head).unwrap();
    let q = value(&present, head);
    out.valid("value-present", &q, &honest.encode());
    out.valid(
        "value-absent-in-its-bucket",
        &value(&absent_in_bucket, head),
        &e.prove_at(&absent_in_bucket, head).unwrap().encode(),
    );
    out.valid(
        "value-absent-empty-bucket",
        &value(&absent_empty, head),
        &e.prove_at(&absent_empty, head).unwrap().encode(),
    );
    out.valid(
        "value-at-block-3",
        &value(&present, 3),
        &e.prove_at(&present, 3).unwrap().encode(),
    );
    let base = "value-present";
    let bucket = p.bucket_of(&present);
    let at = honest
        .entries
        .iter()
        .position(|x| x.key == present)
        .unwrap();

    let mut f = honest.clone();
    f.entries[at].value[31] ^= 1;
    out.invalid(base, "value-changed", &q, &f.encode());

    let mut f = honest.clone();
    f.entries.remove(at);
    out.invalid(base, "entry-dropped", &q, &f.encode());

    let (bh, full) = full_bottom(&p, &honest, bucket);
    let mut f = honest.clone();
    f.entries.clear();
    let last = f.levels.len() - 1;
    let empty_at = f.levels[last]
        .iter()
        .position(|x| *x == hash::empty_bucket(&p))
        .unwrap();
    f.levels[last][empty_at] = bh;
    out.invalid(base, "bucket-moved-to-empty-slot", &q, &f.encode());

    let mut f = honest.clone();
    let mut forged = full.clone();
    forged.remove((p.slot(bucket, last as u8) + 1) % 3);
    f.levels[last] = forged;
    out.invalid(base, "siblings-permuted", &q, &f.encode());

    let mut f = honest.clone();
    f.entries.swap(0, 1);
    out.invalid(base, "entries-swapped", &q, &f.encode());

    let mut f = honest.clone();
    f.entries.insert(at, f.entries[at]);
    out.invalid(base, "entry-duplicated", &q, &f.encode());

    let mut f = honest.clone();
    let stranger = (0..48).map(key).find(|k| p.bucket_of(k) != bucket).unwrap();
    f.entries.push(Entry {
        key: stranger,
        value: [7; 32],
    });
    f.entries.sort();
    out.invalid(base, "foreign-entry", &q, &f.encode());

    let other_key = Query::Value {
        root,
        key: absent_in_bucket,
        claimed: None,
    };
    out.invalid(base, "other-key", &other_key, &honest.encode());

    let (_d2, e2) = engine(MbtParams::new(5, 4).unwrap());
    out.invalid(
        base,
        "other-params",
        &q,
        &e2.prove_at(&present, head).unwrap().encode(),
    );

    let mut f = honest.clone();
    f.levels.remove(0);
    out.invalid(base, "level-dropped", &q, &f.encode());

    let mut f = honest.clone();
    f.levels.push(vec![B256::ZERO; 2]);
    out.invalid(base, "level-added", &q, &f.encode());

    let claimed = Query::Value {
        root,
        key: present,
        claimed: Some(Some([9; 32])),
    };
    out.invalid(base, "claimed-other-value", &claimed, &honest.encode());

    let bytes = honest.encode();
    out.invalid(base, "truncated", &q, &bytes[..bytes.len() - 1]);
    let mut long = bytes.clone();
    long.push(0);
    out.invalid(base, "trailing-byte", &q, &long);

    // ---- diff proofs ----
    let diff_q = |from: u64, to: u64| Query::Diff {
        from,
        to,
        old_root: e.root_at(from).unwrap(),
        new_root: e.root_at(to).unwrap(),
    };
    for (from, to) in [(DIFF_FROM, DIFF_TO), (head - 1, head), (0, head), (5, 5)] {
        out.valid(
            &format!("diff-{from}-{to}"),
            &diff_q(from, to),
            &e.prove_diff(from, to).unwrap().encode(),
        );
    }
    let base = "diff-9-14";
    let q = diff_q(DIFF_FROM, DIFF_TO);
    let honest: DiffProof = e.prove_diff(DIFF_FROM, DIFF_TO).unwrap();

    let mut f = honest.clone();
    assert!(hide_first_change(&mut f.root, 0, &mut Vec::new()));
    out.invalid(base, "diff-change-omitted", &q, &f.encode());

    let mut f = honest.clone();
    let (old, new) = first_bucket(&mut f.root).unwrap();
    let b = p.bucket_of(&new.first().or(old.first()).map(|x| x.key).unwrap());
    let extra = (0..)
        .map(key)
        .find(|k| p.bucket_of(k) == b && new.iter().all(|x| x.key != *k))
        .unwrap();
    new.push(Entry {
        key: extra,
        value: [3; 32],
    });
    new.sort();
    out.invalid(base, "diff-change-added", &q, &f.encode());

    let mut f = honest.clone();
    let (old, new) = first_bucket(&mut f.root).unwrap();
    std::mem::swap(old, new);
    out.invalid(base, "diff-old-new-swapped", &q, &f.encode());

    let bytes = honest.encode();
    out.invalid(base, "truncated", &q, &bytes[..bytes.len() - 1]);

    // ---- history proofs ----
    let hist_q = |k: &B256, lo: u64, hi: u64| Query::History {
        key: *k,
        lo,
        hi,
        roots: (lo..=hi).map(|b| e.root_at(b).unwrap()).collect(),
    };
    for (k, lo, hi) in [
        (present, 0, head),
        (present, 6, 16),
        (absent_empty, 0, head),
    ] {
        let name = if k == present {
            format!("history-present-{lo}-{hi}")
        } else {
            format!("history-absent-{lo}-{hi}")
        };
        out.valid(
            &name,
            &hist_q(&k, lo, hi),
            &e.prove_history(&k, lo, hi).unwrap().encode(),
        );
    }
    let (lo, hi) = (6, 16);
    let base = "history-present-6-16";
    let q = hist_q(&present, lo, hi);
    let honest: HistoryProof = e.prove_history(&present, lo, hi).unwrap();
    let bucket_order = |b: &Vec<Entry>| hash::bucket(&p, bucket, b);
    let outside = e.prove_history(&present, 0, lo - 1).unwrap();

    let mut f = honest.clone();
    let stale = outside
        .buckets
        .iter()
        .find(|b| !f.buckets.contains(b))
        .expect("a version of the bucket before the range")
        .clone();
    f.buckets[0] = stale.clone();
    f.buckets.sort_by_key(bucket_order);
    out.invalid(base, "history-node-of-other-version", &q, &f.encode());

    let mut f = honest.clone();
    f.levels[0].remove(0);
    out.invalid(base, "history-root-dropped", &q, &f.encode());

    out.invalid(
        base,
        "history-block-missing",
        &q,
        &e.prove_history(&present, lo, hi - 1).unwrap().encode(),
    );

    let mut f = honest.clone();
    let l = (0..f.levels.len())
        .filter(|l| f.levels[*l].len() >= 2)
        .min_by_key(|l| f.levels[*l].len())
        .unwrap();
    let n = f.levels[l][0].clone();
    f.levels[l].insert(0, n);
    out.invalid(base, "history-node-duplicated", &q, &f.encode());

    let mut f = honest.clone();
    f.levels[0].swap(0, 1);
    out.invalid(base, "history-nodes-reordered", &q, &f.encode());

    let mut f = honest.clone();
    f.buckets.push(stale);
    f.buckets.sort_by_key(bucket_order);
    out.invalid(base, "history-unused-node", &q, &f.encode());

    let mut f = honest.clone();
    f.buckets[0].swap(0, 1);
    out.invalid(base, "entries-swapped", &q, &f.encode());

    let other = Query::History {
        key: absent_in_bucket,
        lo,
        hi,
        roots: (lo..=hi).map(|b| e.root_at(b).unwrap()).collect(),
    };
    out.invalid(base, "other-key", &other, &honest.encode());

    let mut long = honest.encode();
    long.push(0);
    out.invalid(base, "trailing-byte", &q, &long);

    out.0.finish();
}
