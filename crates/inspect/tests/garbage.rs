//! The inspector never panics: on random bytes, on every truncation of the real proofs and on
//! single-byte changes of them (two per byte; every third byte of the long LVMT proofs), each outline and forgery returns (an outline, a decode
//! error or a refusal), and the spans decoders report never change what they accept.
use crate::common::valid;
use lightprov_inspect::{Outline, cole, lvmt, mpt};
use lightprov_types::{
    B256,
    cole::HistoryProof,
    lvmt::{LvmtHistory, LvmtProof},
    mpt::{AccountProof, AccountProofRef},
};
use proptest::prelude::*;

fn anchor() -> lvmt::Anchor {
    lvmt::Anchor {
        aroot: [7; 32],
        history_root: B256::repeat_byte(9),
        blocks: 100,
    }
}

fn sane(o: &Outline, len: usize) {
    assert_eq!(o.bytes, len);
    for n in o.tree.walk() {
        if let Some((a, b)) = n.range {
            assert!(a <= b && b <= len, "{} at {a}..{b} of {len}", n.label);
        }
    }
    assert!(!o.roots.is_empty());
}

/// Runs every entry point on `b`; outlines that succeed must be sane.
fn everything(b: &[u8]) {
    let key = B256::repeat_byte(3);
    for scheme in [cole::Scheme::Cole, cole::Scheme::ColeStar] {
        if let Ok(o) = cole::outline(b, &key, 0, 10, &key, &key, scheme) {
            sane(&o, b.len());
        }
    }
    if let Ok(o) = lvmt::outline_proof(b, &key, &anchor()) {
        sane(&o, b.len());
    }
    if let Ok(o) = lvmt::outline_history(b, &key, 0, 10, &anchor()) {
        sane(&o, b.len());
    }
    if let Ok(o) = mpt::outline(b, &key) {
        sane(&o, b.len());
    }
    for kind in cole::FORGERIES.iter().chain(&["x"]) {
        let _ = cole::forge(kind, b);
    }
    for kind in lvmt::FORGERIES.iter().chain(&["x"]) {
        let _ = lvmt::forge(kind, b, None);
        let _ = lvmt::forge(kind, b, Some(b));
    }
    // Spans are reported without changing what decodes.
    same_decode(HistoryProof::decode(b), HistoryProof::decode_with_spans(b));
    same_decode(LvmtProof::decode(b), LvmtProof::decode_with_spans(b));
    same_decode(LvmtHistory::decode(b), LvmtHistory::decode_with_spans(b));
    same_decode(
        AccountProofRef::decode(b),
        AccountProofRef::decode_with_spans(b),
    );
}

/// A decoder and its spans-reporting twin accept the same bytes, as the same value.
fn same_decode<T: PartialEq + std::fmt::Debug, S, E>(
    plain: Result<T, E>,
    with_spans: Result<(T, S), E>,
) {
    assert_eq!(plain.ok(), with_spans.ok().map(|(p, _)| p));
}

fn real_proofs() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = valid("cole", "")
        .iter()
        .chain(&valid("lvmt", ""))
        .map(|v| v.bytes("proof"))
        .collect();
    out.extend(valid("mpt", "account-").iter().map(|v| {
        AccountProof::from_json(&v.inputs["proof"])
            .unwrap()
            .encode()
    }));
    out
}

#[test]
fn every_truncation_of_every_real_proof() {
    let mut outlined = 0;
    for p in real_proofs() {
        for n in 0..p.len() {
            everything(&p[..n]);
        }
        everything(&p);
        outlined += 1;
    }
    assert_eq!(outlined, 24 + 7 + 1);
}

#[test]
fn every_byte_of_every_real_proof_changed() {
    // The proofs are shared out among threads (the longest test of the crate on one core).
    let proofs = real_proofs();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(p) =
                    proofs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    every_byte_changed(p);
                }
            });
        }
    });
}

/// Each byte of `p` flipped (0x80 and 0xff) in turn, one byte appended, and `p` twice.
fn every_byte_changed(p: &[u8]) {
    let mut q = p.to_vec();
    // Every byte of the short proofs; of the long ones (LVMT, ~1.5 kB) every third.
    let step = if q.len() > 1000 { 3 } else { 1 };
    for i in (0..q.len()).step_by(step) {
        for x in [0x80, 0xff] {
            q[i] ^= x;
            everything(&q);
            q[i] ^= x;
        }
    }
    // Extra bytes and a doubled proof.
    let mut longer = p.to_vec();
    longer.push(0);
    everything(&longer);
    everything(&[p, p].concat());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes(b in proptest::collection::vec(any::<u8>(), 0..400)) {
        everything(&b);
    }

    /// Random bytes behind a valid-looking start: a version byte and plausible counts.
    #[test]
    fn random_bytes_behind_a_version(head in 0u8..3, b in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut x = vec![1u8, head];
        x.extend(b);
        everything(&x);
    }
}
