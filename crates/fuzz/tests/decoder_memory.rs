//! No decoder reserves memory for what a count field claims beyond what the input can hold.
//!
//! Regression: the `cole` fuzz target reported 8 MB held by one input — `HistoryProof::decode`
//! reserved room for the 2-byte part count (65,535 parts) before reading any part, for a proof
//! of 60 bytes.

#![allow(unsafe_code, clippy::unwrap_used, clippy::indexing_slicing)]

use std::{
    alloc::{GlobalAlloc, Layout, System},
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering::Relaxed},
    },
};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// SAFETY: forwards every call to `System` unchanged; the counters are bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        // SAFETY: forwarded.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        // SAFETY: forwarded.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Tests run on threads of one process: one measurement at a time.
static ONE: Mutex<()> = Mutex::new(());

/// The most bytes held at once while `f` runs.
fn peak<T>(f: impl FnOnce() -> T) -> usize {
    let _one = ONE.lock().unwrap();
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let out = f();
    drop(out);
    PEAK.load(Relaxed) - base
}

const LIMIT: usize = 64 * 1024;

#[test]
fn cole_part_count_reserves_nothing_the_input_cannot_hold() {
    // version, key, lo, hi, fanout, count = 65535, then one byte of a part
    let mut p = vec![1u8];
    p.extend([7u8; 32]);
    p.extend(0u64.to_be_bytes());
    p.extend(9u64.to_be_bytes());
    p.push(4);
    p.extend(u16::MAX.to_be_bytes());
    p.push(2);
    let used = peak(|| lightprov_types::cole::HistoryProof::decode(&p));
    assert!(used < LIMIT, "{used} bytes for a {}-byte proof", p.len());
}

#[test]
fn other_decoders_on_maximal_counts() {
    use lightprov_types::{
        lvmt::{LvmtHistory, LvmtProof},
        mpt::AccountProofRef,
    };
    // account proof: no nodes, 65535 storage proofs claimed
    let mut a = vec![1u8];
    a.extend([0u8; 20 + 32 + 8 + 32 + 32]);
    a.extend(0u16.to_be_bytes());
    a.extend(u16::MAX.to_be_bytes());
    // LVMT history: an empty latest proof, u32::MAX tuples claimed
    let mut h = vec![1u8];
    h.extend(0u64.to_be_bytes());
    h.extend(0u64.to_be_bytes());
    h.extend(0u32.to_be_bytes());
    h.extend(1u64.to_be_bytes());
    h.extend(u32::MAX.to_be_bytes());
    // LVMT proof: the most levels
    let mut l = vec![1u8, 4];
    l.extend([0u8; 32]);
    l.extend([0, 64]);
    type Case<'a> = (&'a str, Box<dyn Fn() -> bool + 'a>);
    let cases: [Case<'_>; 4] = [
        ("account", Box::new(|| AccountProofRef::decode(&a).is_err())),
        (
            "lvmt history",
            Box::new(|| LvmtHistory::decode(&h).is_err()),
        ),
        ("lvmt proof", Box::new(|| LvmtProof::decode(&l).is_err())),
        (
            "params",
            Box::new(|| {
                let mut b = vec![28u8];
                b.extend([0u8; 64]);
                lightprov_verifier::lvmt::amt::Params::decode(&b).is_err()
            }),
        ),
    ];
    for (name, f) in cases {
        let mut refused = false;
        let used = peak(|| refused = f());
        assert!(refused, "{name}");
        assert!(used < LIMIT, "{name}: {used} bytes");
    }
}
