//! Writes the forkless test vectors: value and history proofs from a real engine over a
//! deterministic chain (present, zeroed and absent keys; ranges before, across and after a key's
//! changes), and for each tamper class of `lightprov_types::forkless::FAMILY` forgeries of them,
//! with the code the verifier must reject each with.
//!
//! `cargo run -p lightprov-engine-forkless --example forkless_vectors -- tests/vectors/forkless`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lightprov_engine_api::{Key, StateEngine, word_from_u64};
use lightprov_engine_forkless::{ForklessEngine, Options, forkless_key};
use lightprov_testkit::vectors::VectorDir;
use lightprov_types::{
    Address, B256, ErrorCode,
    forkless::{
        Chain, Claim, Component, FAMILY, ForklessKey, Located, Opening, Params, Proof, hash,
    },
    hex,
};
use lightprov_verifier::forkless::{History, Value, verify_history, verify_value};
use serde_json::{Value as Json, json};

const GENERATOR: &str = "crates/engine-forkless/examples/forkless_vectors.rs";
const BLOCKS: u64 = 40;
const PARAMS: Params = Params {
    page_size: 128,
    fanout: 4,
    bucket_load: 3,
};

fn addr(i: u8) -> Address {
    Address::repeat_byte(i)
}

/// Block `n`'s writes: account `1`'s balance every 4th block (zeroed at block 36), accounts 2
/// and 3's nonces alike every block, a new account and slot per block, and slot 1 of account 5
/// every 5th block.
fn writes(n: u64) -> Vec<(Key, [u8; 32])> {
    let mut w = vec![
        (Key::Nonce(addr(2)), word_from_u64(n)),
        (Key::Nonce(addr(3)), word_from_u64(n)),
        (Key::Balance(addr(40 + n as u8)), word_from_u64(n * 7 + 1)),
        (
            Key::Storage(addr(40 + n as u8), B256::with_last_byte(n as u8)),
            word_from_u64(n + 100),
        ),
    ];
    if n.is_multiple_of(4) {
        let v = if n == 36 { 0 } else { 1000 + n };
        w.push((Key::Balance(addr(1)), word_from_u64(v)));
    }
    if n.is_multiple_of(5) {
        w.push((
            Key::Storage(addr(5), B256::with_last_byte(1)),
            word_from_u64(n),
        ));
    }
    if n == 13 {
        w.clear(); // an empty block
    }
    w
}

fn key_json(k: &ForklessKey) -> Json {
    match k {
        ForklessKey::Balance(a) => {
            json!({ "kind": "balance", "address": hex::encode(a.as_slice()) })
        }
        ForklessKey::Nonce(a) => json!({ "kind": "nonce", "address": hex::encode(a.as_slice()) }),
        ForklessKey::Storage(a, s) => json!({
            "kind": "storage", "address": hex::encode(a.as_slice()), "slot": hex::encode(s.as_slice())
        }),
    }
}

fn q(v: u64) -> String {
    format!("0x{v:x}")
}

fn value_json(v: &Value) -> Json {
    json!({ "ok": true, "exists": v.exists, "value": hex::encode(&v.value) })
}

fn history_json(h: &History) -> Json {
    let l = |x: &lightprov_types::forkless::Link| json!({ "block": q(x.block), "value": hex::encode(&x.value) });
    json!({
        "ok": true,
        "exists": h.exists,
        "atFrom": h.at_lo.as_ref().map(l),
        "versions": h.versions.iter().map(l).collect::<Vec<_>>(),
    })
}

/// What is asked: a value, or a history over a range.
#[derive(Clone, Copy)]
enum Ask {
    Value,
    History(u64, u64),
}

fn check(root: &B256, key: &ForklessKey, ask: Ask, bytes: &[u8]) -> Result<Json, ErrorCode> {
    match ask {
        Ask::Value => verify_value(root, key, bytes).map(|v| value_json(&v)),
        Ask::History(lo, hi) => verify_history(root, key, lo, hi, bytes).map(|h| history_json(&h)),
    }
    .map_err(|e| e.code())
}

fn inputs(root: &B256, key: &ForklessKey, ask: Ask, bytes: &[u8]) -> Json {
    let mut inputs = json!({
        "forklessRoot": hex::encode(root.as_slice()),
        "key": key_json(key),
        "proof": hex::encode(bytes),
    });
    if let Ask::History(lo, hi) = ask {
        inputs["fromBlock"] = json!(q(lo));
        inputs["toBlock"] = json!(q(hi));
    }
    inputs
}

fn present(p: &mut Proof) -> Option<(&mut u64, &mut Opening)> {
    match &mut p.located {
        Located::Present { record, keys } => Some((record, keys)),
        Located::Absent { .. } => None,
    }
}

fn chain(p: &mut Proof) -> Option<&mut Chain> {
    match &mut p.claim {
        Claim::History {
            chain: Some((_, c)),
            ..
        } => Some(c),
        _ => None,
    }
}

fn entries(p: &mut Proof) -> Option<&mut Vec<(Vec<u8>, u64)>> {
    match &mut p.located {
        Located::Absent { entries, .. } => Some(entries),
        Located::Present { .. } => None,
    }
}

struct Ctx<'a> {
    engine: &'a ForklessEngine,
    root: B256,
    old_root: B256,
}

/// The forgeries of one honest proof: (tamper class, what is checked against, forged bytes).
fn forgeries(
    ctx: &Ctx<'_>,
    key: &ForklessKey,
    ask: Ask,
    honest: &Proof,
) -> Vec<(&'static str, B256, Ask, Vec<u8>)> {
    let mut out = Vec::new();
    type Out = Vec<(&'static str, B256, Ask, Vec<u8>)>;
    let add = |out: &mut Out, class: &'static str, p: Option<Proof>| {
        if let Some(p) = p {
            out.push((class, ctx.root, ask, p.encode()));
        }
    };
    let with = |f: &dyn Fn(&mut Proof) -> Option<()>| {
        let mut p = honest.clone();
        f(&mut p).map(|()| p)
    };
    add(
        &mut out,
        "value-changed",
        with(&|p| {
            let (record, _) = present(p)?;
            let r = *record;
            let Claim::Value(Some(o)) = &mut p.claim else {
                return None;
            };
            let at = (r % PARAMS.items_per_page(key.value_component())) as usize
                * key.value_component().item_size() as usize;
            *o.page.get_mut(at)? ^= 1;
            Some(())
        }),
    );
    add(
        &mut out,
        "record-beyond-count",
        with(&|p| {
            let (record, keys) = present(p)?;
            *record = keys.count;
            Some(())
        }),
    );
    add(
        &mut out,
        "page-moved",
        with(&|p| {
            // Another record at the same place of a page `fanout` pages away: same bytes,
            // same siblings, another position.
            let ipp = PARAMS.items_per_page(key.keys_component());
            let (record, keys) = present(p)?;
            let moved = *record + ipp * u64::from(PARAMS.fanout);
            (moved < keys.count).then(|| *record = moved)
        }),
    );
    add(
        &mut out,
        "count-changed",
        with(&|p| {
            let c = key.keys_component();
            let height = |n| PARAMS.height(PARAMS.pages(c, n));
            let (record, keys) = present(p)?;
            let n = [keys.count + 1, keys.count.saturating_sub(1)]
                .into_iter()
                .find(|n| height(*n) == height(keys.count) && *n > *record)?;
            keys.count = n;
            Some(())
        }),
    );
    add(
        &mut out,
        "siblings-dropped",
        with(&|p| {
            let (_, keys) = present(p)?;
            let n = keys
                .siblings
                .len()
                .checked_sub(usize::from(PARAMS.fanout) - 1)?;
            keys.siblings.truncate(n);
            Some(())
        }),
    );
    add(
        &mut out,
        "untagged-page",
        with(&|p| {
            // The page replaced by its own hash beside its first-level siblings, as if the inner
            // node above it were a page one level lower (what an untagged tree accepts).
            let (_, keys) = present(p)?;
            let own = hash::page(key.keys_component(), &keys.page);
            let mut bytes: Vec<u8> = own.to_vec();
            for s in keys.siblings.iter().take(usize::from(PARAMS.fanout) - 1) {
                bytes.extend_from_slice(s.as_slice());
            }
            bytes.resize(keys.page.len(), 0);
            keys.page = bytes;
            Some(())
        }),
    );
    add(
        &mut out,
        "listed-root-changed",
        with(&|p| {
            p.roots[Component::SlotBuckets.index()].0[0] ^= 1;
            Some(())
        }),
    );
    if let Ask::History(lo, _) = ask {
        add(
            &mut out,
            "link-dropped",
            with(&|p| {
                let c = chain(p)?;
                (c.links.len() >= 3).then(|| {
                    c.links.remove(1);
                })
            }),
        );
        add(
            &mut out,
            "links-reordered",
            with(&|p| {
                let c = chain(p)?;
                (c.links.len() >= 2).then(|| c.links.swap(0, 1))
            }),
        );
        add(
            &mut out,
            "link-duplicated",
            with(&|p| {
                let c = chain(p)?;
                let l = *c.links.first()?;
                c.links.insert(0, l);
                Some(())
            }),
        );
        add(
            &mut out,
            "link-block-shifted",
            with(&|p| {
                let c = chain(p)?;
                let n = c.links.len();
                let last = c.links.get_mut(n.checked_sub(1)?)?;
                last.block += 1;
                Some(())
            }),
        );
        add(
            &mut out,
            "chain-cut",
            with(&|p| {
                let c = chain(p)?;
                let base = c.base?;
                (c.links.len() >= 2).then_some(())?;
                let first = c.links.remove(0);
                c.base = Some(hash::link(key, &first, &base));
                Some(())
            }),
        );
        // The links of another key with the same changes (accounts 2 and 3's nonces).
        if let ForklessKey::Nonce(a) = key {
            let twin = ForklessKey::Nonce(if *a == addr(2) { addr(3) } else { addr(2) });
            if let Ask::History(lo, hi) = ask {
                let mut twin_proof = ctx.engine.prove_history(&twin, lo, hi).unwrap();
                let mut p = honest.clone();
                if let (Some(c), Some(tc)) = (chain(&mut p), chain(&mut twin_proof)) {
                    c.base = tc.base;
                    c.links = tc.links.clone();
                    out.push(("chain-of-other-key", ctx.root, ask, p.encode()));
                }
            }
        }
        // A link before the one in force at `lo`: the honest proof of a wider range, asked for
        // this one.
        if lo > 0 {
            let mut wide = ctx
                .engine
                .prove_history(
                    key,
                    0,
                    match ask {
                        Ask::History(_, hi) => hi,
                        Ask::Value => 0,
                    },
                )
                .unwrap();
            if let Claim::History { lo: l, .. } = &mut wide.claim {
                *l = lo;
            }
            let extra =
                chain(&mut wide).is_some_and(|c| c.links.get(1).is_some_and(|l| l.block <= lo));
            if extra {
                out.push(("extra-link", ctx.root, ask, wide.encode()));
            }
        }
    }
    add(
        &mut out,
        "bucket-entry-dropped",
        with(&|p| {
            let e = entries(p)?;
            (!e.is_empty()).then(|| {
                e.remove(0);
            })
        }),
    );
    add(
        &mut out,
        "bucket-unsorted",
        with(&|p| {
            let e = entries(p)?;
            (e.len() >= 2).then(|| e.swap(0, 1))
        }),
    );
    add(
        &mut out,
        "foreign-bucket-entry",
        with(&|p| {
            let Located::Absent { buckets, .. } = &p.located else {
                return None;
            };
            let n = buckets.count;
            let c = key.keys_component();
            let mine = hash::bucket_index(hash::selector(c, &key.record_key()), n);
            let foreign = (0..=255u8)
                .map(|i| {
                    let mut k = key.record_key();
                    k[0] = i;
                    k
                })
                .find(|k| hash::bucket_index(hash::selector(c, k), n) != mine)?;
            let e = entries(p)?;
            e.push((foreign, 999));
            e.sort();
            Some(())
        }),
    );
    // Presence turned into a claimed absence: the key's own bucket.
    if matches!(honest.located, Located::Present { .. }) {
        let mut p = honest.clone();
        p.located = ctx.engine.bucket_of(key);
        p.claim = match p.claim {
            Claim::Value(_) => Claim::Value(None),
            Claim::History { lo, hi, .. } => Claim::History {
                lo,
                hi,
                chain: None,
            },
        };
        out.push(("absent-but-present", ctx.root, ask, p.encode()));
        // The record number of another key (its own proof's record and openings).
        let other = ForklessKey::Balance(addr(41));
        let other_key = if *key == other {
            ForklessKey::Balance(addr(42))
        } else {
            other
        };
        if key.keys_component() == other_key.keys_component() {
            let theirs = match ask {
                Ask::Value => ctx.engine.prove_value(&other_key),
                Ask::History(lo, hi) => ctx.engine.prove_history(&other_key, lo, hi),
            }
            .unwrap();
            let mut p = honest.clone();
            p.located = theirs.located;
            p.claim = theirs.claim;
            out.push(("wrong-record", ctx.root, ask, p.encode()));
        }
    }
    let bytes = honest.encode();
    out.push(("other-block", ctx.old_root, ask, bytes.clone()));
    out.push((
        "truncated",
        ctx.root,
        ask,
        bytes[..bytes.len() / 2].to_vec(),
    ));
    let mut t = bytes.clone();
    t.push(0);
    out.push(("trailing-byte", ctx.root, ask, t));
    if let Ask::History(lo, hi) = ask {
        out.push((
            "other-range",
            ctx.root,
            Ask::History(lo, hi + 1),
            bytes.clone(),
        ));
    }
    out
}

fn main() {
    let mut out = VectorDir::from_args(&FAMILY, GENERATOR);
    let dir = tempfile::tempdir().unwrap();
    let mut engine = ForklessEngine::open(
        dir.path(),
        Options {
            params: PARAMS,
            checkpoint_every: 8,
            background_archive: false,
        },
    )
    .unwrap();
    let mut old_root = B256::ZERO;
    for n in 0..BLOCKS {
        let r = engine.apply_block(n, &writes(n)).unwrap();
        if n == BLOCKS - 2 {
            old_root = r;
        }
    }
    let root = engine.root(BLOCKS - 1).unwrap();
    let ctx = Ctx {
        engine: &engine,
        root,
        old_root,
    };
    let slot = |a: u8, s: u8| forkless_key(&Key::Storage(addr(a), B256::with_last_byte(s)));
    let queries: Vec<(&str, ForklessKey, Ask)> = vec![
        (
            "balance-present",
            forkless_key(&Key::Balance(addr(50))),
            Ask::Value,
        ),
        (
            "balance-zeroed",
            forkless_key(&Key::Balance(addr(1))),
            Ask::Value,
        ),
        (
            "balance-absent",
            forkless_key(&Key::Balance(addr(200))),
            Ask::Value,
        ),
        (
            "nonce-present",
            forkless_key(&Key::Nonce(addr(2))),
            Ask::Value,
        ),
        ("slot-present", slot(45, 5), Ask::Value),
        ("slot-absent", slot(45, 6), Ask::Value),
        (
            "balance-history-6-30",
            forkless_key(&Key::Balance(addr(1))),
            Ask::History(6, 30),
        ),
        (
            "balance-history-0-39",
            forkless_key(&Key::Balance(addr(1))),
            Ask::History(0, 39),
        ),
        (
            "balance-history-37-39",
            forkless_key(&Key::Balance(addr(1))),
            Ask::History(37, 39),
        ),
        (
            "nonce-history-20-25",
            forkless_key(&Key::Nonce(addr(2))),
            Ask::History(20, 25),
        ),
        (
            "nonce-history-3-8",
            forkless_key(&Key::Nonce(addr(3))),
            Ask::History(3, 8),
        ),
        ("slot-history-7-27", slot(5, 1), Ask::History(7, 27)),
        (
            "slot-history-before-first-change",
            slot(48, 8),
            Ask::History(0, 5),
        ),
        (
            "history-absent",
            forkless_key(&Key::Nonce(addr(201))),
            Ask::History(0, 39),
        ),
    ];
    for (name, key, ask) in queries {
        let honest = match ask {
            Ask::Value => engine.prove_value(&key),
            Ask::History(lo, hi) => engine.prove_history(&key, lo, hi),
        }
        .unwrap();
        let bytes = honest.encode();
        let expected = check(&root, &key, ask, &bytes).expect("honest proofs verify");
        out.valid(name, inputs(&root, &key, ask, &bytes), expected);
        for (class, against, ask2, forged) in forgeries(&ctx, &key, ask, &honest) {
            let vname = format!("{name}-{class}");
            let got = check(&against, &key, ask2, &forged);
            let (_, code) = out.tamper_code(class, &vname, got);
            out.invalid(&vname, inputs(&against, &key, ask2, &forged), code);
        }
        // Checked for another key (of the same kind, so the wire decodes alike).
        let other = match key {
            ForklessKey::Balance(a) => ForklessKey::Balance(Address::repeat_byte(a.0[0] ^ 0x80)),
            ForklessKey::Nonce(a) => ForklessKey::Nonce(Address::repeat_byte(a.0[0] ^ 0x80)),
            ForklessKey::Storage(a, s) => {
                ForklessKey::Storage(a, B256::repeat_byte(s.0[31] ^ 0x80))
            }
        };
        let vname = format!("{name}-other-key");
        let got = check(&root, &other, ask, &bytes);
        let (_, code) = out.tamper_code("other-key", &vname, got);
        out.invalid(&vname, inputs(&root, &other, ask, &bytes), code);
    }
    out.assert_every_tamper();
    out.finish();
}
