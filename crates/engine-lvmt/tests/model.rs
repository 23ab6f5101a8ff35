//! LVMT against a naive model that knows nothing of proof maintenance: it places keys by the
//! paper's rule, counts versions, and computes every AMT commitment from scratch as
//! `C = Σ_j a_j·[L_j(τ)]₁` (an MSM over all entries, `a_j` the six packed 40-bit versions).
//!
//! - after every block the engine's `aroot` equals the model's (same writes + same τ ⇒ same
//!   root, however the engine got there);
//! - presence, absence and history proofs verify and say what the model says, for random
//!   workloads over keys forced into levels 0–3 by sharing hash bits, absent keys and rewrites;
//! - the verifier's verdict on a presence proof equals a slow reference check — recompute every
//!   level's commitment and entry from the model — for honest proofs and for tampered ones.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::expect_used,
    clippy::panic
)]

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::{Arc, LazyLock},
};

use alloy_primitives::{B256, keccak256};
use ark_bn254::{Fr, G1Affine, G1Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use lightprov_engine_lvmt::{
    setup::Setup,
    tree::{Lvmt, colliding_keys, in_key_order, index_at, prefix_at},
};
use lightprov_types::{
    Word,
    lvmt::{Kind, LvmtProof},
};
use lightprov_verifier::lvmt::{
    amt::{g1_to_bytes, packed},
    proof::{Proven, verify, verify_history, verify_proof},
};
use proptest::prelude::*;

use crate::common;

use common::trusted;

const DEPTH: u8 = 4;

static SETUP: LazyLock<Arc<Setup>> =
    LazyLock::new(|| Arc::new(Setup::dev_insecure(DEPTH, b"model").unwrap()));

/// 16 keys sharing 12 hash bits (five per level: they reach level 3), 8 sharing 4 bits, 24
/// scattered ones; and keys never written.
static KEYS: LazyLock<Vec<B256>> = LazyLock::new(|| {
    let mut k = colliding_keys(0xa7, 12, 16);
    k.extend(colliding_keys(0x3c, 4, 8));
    k.extend((0..24u64).map(|i| keccak256((i + 5_000).to_be_bytes())));
    k
});

#[derive(Default)]
struct Naive {
    slots: HashMap<B256, (u8, u8)>,
    occupants: HashMap<(u8, B256, u32), [Option<B256>; 5]>,
    versions: HashMap<(u8, B256, u32), [u64; 6]>,
    /// key → [(block, value)]
    writes: HashMap<B256, Vec<(u64, Word)>>,
}

impl Naive {
    fn commit(&mut self, block: u64, writes: &BTreeMap<B256, Word>) {
        let mut changed: BTreeSet<(u8, B256)> = BTreeSet::new();
        for (key, value) in writes {
            let h = keccak256(key);
            if !self.slots.contains_key(key) {
                let mut level = 0u8;
                loop {
                    let e = (
                        level,
                        prefix_at(&h, level, DEPTH),
                        index_at(&h, level, DEPTH).unwrap(),
                    );
                    let occ = self.occupants.entry(e).or_default();
                    if let Some(pos) = occ.iter().position(Option::is_none) {
                        occ[pos] = Some(*key);
                        self.slots.insert(*key, (level, pos as u8 + 1));
                        break;
                    }
                    level += 1;
                }
            }
            let (level, slot) = self.slots[key];
            let e = (
                level,
                prefix_at(&h, level, DEPTH),
                index_at(&h, level, DEPTH).unwrap(),
            );
            self.versions.entry(e).or_default()[usize::from(slot)] += 1;
            for l in 1..=level {
                changed.insert((l, prefix_at(&h, l, DEPTH)));
            }
            self.writes.entry(*key).or_default().push((block, *value));
        }
        // Every sub-AMT whose contents changed bumps slot 0 of its parent entry once.
        for (level, prefix) in changed {
            let parent = (
                level - 1,
                prefix_at(&prefix, level - 1, DEPTH),
                index_at(&prefix, level - 1, DEPTH).unwrap(),
            );
            self.versions.entry(parent).or_default()[0] += 1;
        }
    }

    fn entry(&self, level: u8, prefix: &B256, j: u32) -> [u64; 6] {
        self.versions
            .get(&(level, *prefix, j))
            .copied()
            .unwrap_or_default()
    }

    /// `Σ_j a_j·[L_j(τ)]₁` over all 2^D entries.
    fn commitment(&self, level: u8, prefix: &B256) -> [u8; 32] {
        let n = 1u32 << DEPTH;
        let bases: Vec<G1Affine> = (0..n)
            .map(|j| *SETUP.lagrange(j as usize).unwrap())
            .collect();
        let scalars: Vec<Fr> = (0..n)
            .map(|j| packed(&self.entry(level, prefix, j)))
            .collect();
        g1_to_bytes(&G1Projective::msm(&bases, &scalars).unwrap().into_affine())
    }

    /// The slow reference check of a presence proof: every level's entry is the model's, every
    /// level's commitment (the trusted root at level 0) is the model's recomputed one, and the
    /// value and slot are the model's latest.
    fn reference_accepts(&self, aroot: &[u8; 32], key: &B256, p: &LvmtProof) -> bool {
        let h = keccak256(key);
        let Some(&(level, slot)) = self.slots.get(key) else {
            return false;
        };
        if p.levels.len() != usize::from(level) + 1 {
            return false;
        }
        for (l, lp) in p.levels.iter().enumerate() {
            let l = l as u8;
            let prefix = prefix_at(&h, l, DEPTH);
            let commitment = match &lp.commitment {
                None if l == 0 => *aroot,
                Some((c, _)) if l > 0 => *c,
                _ => return false,
            };
            if commitment != self.commitment(l, &prefix)
                || lp.versions != self.entry(l, &prefix, index_at(&h, l, DEPTH).unwrap())
            {
                return false;
            }
        }
        matches!(&p.kind, Kind::Presence { slot: s, value, .. }
            if *s == slot && Some(value) == self.writes[key].last().map(|(_, v)| v))
    }
}

fn run(blocks: &[Vec<(usize, u8)>]) -> (Lvmt, Naive) {
    let mut t = Lvmt::new(SETUP.clone());
    let mut m = Naive::default();
    for (b, ops) in blocks.iter().enumerate() {
        let writes: BTreeMap<B256, Word> = ops
            .iter()
            .map(|(k, v)| (KEYS[*k % KEYS.len()], [*v; 32]))
            .collect();
        t.commit(&in_key_order(&writes)).unwrap();
        m.commit(b as u64, &writes);
        assert_eq!(
            t.aroot(),
            m.commitment(0, &B256::ZERO),
            "aroot after block {b}"
        );
    }
    (t, m)
}

fn workload() -> impl Strategy<Value = Vec<Vec<(usize, u8)>>> {
    prop::collection::vec(
        prop::collection::vec((0..48usize, any::<u8>()), 0..12),
        1..14,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn proofs_say_what_the_model_says(blocks in workload(), lo in 0u64..14, span in 0u64..14) {
        let (t, m) = run(&blocks);
        let tr = trusted(&t);
        let head = t.blocks() - 1;
        let lo = lo.min(head);
        let hi = (lo + span).min(head);
        let absent = (0..4u64).map(|i| keccak256((i + 90_000).to_be_bytes()));
        for key in KEYS.iter().copied().chain(absent) {
            let p = t.prove(&key).unwrap();
            let got = verify(&tr, &key, &p.encode()).unwrap();
            match m.writes.get(&key) {
                Some(w) => {
                    let (block, value) = *w.last().unwrap();
                    prop_assert_eq!(got, Proven::Present { version: w.len() as u64, value, block });
                    prop_assert!(m.reference_accepts(&tr.aroot, &key, &p));
                }
                None => prop_assert_eq!(got, Proven::Absent),
            }
            // History: every version in force somewhere in lo..=hi, in order.
            let h = t.prove_history(&key, lo, hi).unwrap();
            let got = verify_history(&tr, &key, lo, hi, &h.encode()).unwrap();
            let all = m.writes.get(&key).cloned().unwrap_or_default();
            let want_at_lo = all.iter().rev().find(|(b, _)| *b <= lo).copied();
            prop_assert_eq!(got.at_lo.map(|v| (v.block, v.value)), want_at_lo);
            let want_in: Vec<(u64, Word)> =
                all.iter().filter(|(b, _)| *b > lo && *b <= hi).copied().collect();
            let got_in: Vec<(u64, Word)> = got
                .versions
                .iter()
                .filter(|v| v.block > lo && v.block <= hi)
                .map(|v| (v.block, v.value))
                .collect();
            prop_assert_eq!(got_in, want_in);
        }
    }
}

#[test]
fn keys_reach_level_three_and_the_reference_check_agrees_with_the_verifier_on_tampering() {
    // The 16 colliding keys, one block each, then rewrites.
    let blocks: Vec<Vec<(usize, u8)>> = (0..16)
        .map(|i| vec![(i, i as u8 + 1)])
        .chain((0..4).map(|i| vec![(15 - i, 200 + i as u8), (20 + i, 7)]))
        .collect();
    let (t, m) = run(&blocks);
    let tr = trusted(&t);
    assert_eq!(t.slot_of(&KEYS[15]).unwrap().0, 3);
    let mut checked = 0;
    for key in KEYS.iter().take(16) {
        let p = t.prove(key).unwrap();
        assert!(verify_proof(&tr, key, &p).is_ok());
        assert!(m.reference_accepts(&tr.aroot, key, &p));
        // Each tamper: the verifier and the reference both refuse.
        let mut tampers: Vec<LvmtProof> = Vec::new();
        for l in 0..p.levels.len() {
            for s in 0..6 {
                let mut q = p.clone();
                q.levels[l].versions[s] += 1;
                tampers.push(q);
            }
            if l > 0 {
                let mut q = p.clone();
                let other = t.prove(&KEYS[(checked + 20) % KEYS.len()]).unwrap();
                if let (Some((c, _)), Some((oc, _))) = (
                    &mut q.levels[l].commitment,
                    other.levels.get(l).and_then(|x| x.commitment.clone()),
                ) {
                    *c = oc;
                }
                tampers.push(q);
            }
        }
        let mut q = p.clone();
        if let Kind::Presence { value, .. } = &mut q.kind {
            value[0] ^= 1;
        }
        tampers.push(q);
        for q in tampers {
            if q == p {
                continue;
            }
            assert_eq!(
                verify_proof(&tr, key, &q).is_ok(),
                m.reference_accepts(&tr.aroot, key, &q),
                "verdicts differ for a tampered proof of {key}"
            );
            assert!(verify_proof(&tr, key, &q).is_err());
        }
        checked += 1;
    }
    assert_eq!(checked, 16);
}
