//! The latest value of a key — or its absence — against a header's `lvmtRoot` (the root AMT's
//! commitment) and `lvmtHistoryRoot`.
//!
//! Checks, cheap ones first, the pairing last:
//! 1. the proof decodes (every version below 2^40, also when the proof was not decoded from
//!    bytes), is for the asked key and for the parameters' depth — `BAD_ENCODING`,
//!    `KEY_MISMATCH`;
//! 2. the levels follow the placement: every level before the last has all five key slots
//!    taken and a sub-AMT below (slot 0 > 0); at the last level a presence proof's slot holds a
//!    version, an absence proof's path ends (a vacant key slot, or no sub-AMT) — `LEVEL_MISMATCH`;
//! 3. every tuple — each sub-AMT's `(level, prefix, version, commitment)` with the version its
//!    parent entry's slot 0 holds, the key's `(key, version, value, level, slot)` with the version
//!    its slot holds, each other key holding a slot on the path (absence) — leads through its
//!    block's tree and the history tree to the trusted history root — `HISTORY_MISMATCH`; an
//!    occupant must be another key whose hash follows the same path — `KEY_MISMATCH`,
//!    `LEVEL_MISMATCH`;
//! 4. every level's entry opens its AMT — the root AMT's commitment is the trusted `lvmtRoot`,
//!    never one from the proof — all in one multi-Miller loop — `PAIRING_CHECK_FAILED`.
//!
//! A stale tuple fails 3 (the version in its leaf is the one the AMT proves now); a proof
//! without a value cannot be encoded.

use alloc::{format, string::String, vec::Vec};

pub use lightprov_types::lvmt::{LevelFault, ListFault, LvmtError};
use lightprov_types::{
    B256, DecodeError, Word,
    lvmt::{self, Kind, LvmtProof, TuplePath, index_at, prefix_at},
};

use super::amt::{self, Opening, Params, g1_from_bytes, packed};
use crate::keccak256;

/// What the header says.
#[derive(Clone, Copy, Debug)]
pub struct Trusted<'a> {
    /// The AMT parameters (pinned by their SHA-256).
    pub params: &'a Params,
    /// `lvmtRoot`: the root AMT's commitment, compressed.
    pub aroot: [u8; 32],
    /// `lvmtHistoryRoot`.
    pub history_root: B256,
    /// Blocks the history root covers (the header's number + 1).
    pub blocks: u64,
}

/// What a proof proves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Proven {
    /// The key's latest version, its value and the block that wrote it.
    Present {
        /// Version (≥ 1).
        version: u64,
        /// Value.
        value: Word,
        /// The block of that version.
        block: u64,
    },
    /// The key was never written.
    Absent,
}

/// Decodes and verifies an LVMT proof for `key`.
pub fn verify(t: &Trusted<'_>, key: &B256, proof: &[u8]) -> Result<Proven, LvmtError> {
    let p = LvmtProof::decode(proof)?;
    verify_proof(t, key, &p)
}

/// [`verify`] with every opening checked on its own, one full pairing per factor
/// ([`super::baseline`]): the reference the batched check is benchmarked against.
#[cfg(feature = "bench-baseline")]
pub fn verify_separate_pairings(
    t: &Trusted<'_>,
    key: &B256,
    proof: &[u8],
) -> Result<Proven, LvmtError> {
    let p = LvmtProof::decode(proof)?;
    verify_with(t, key, &p, super::baseline::verify_separate)
}

/// Checks a tuple's leaf against the history root.
fn in_history(
    t: &Trusted<'_>,
    leaf: &B256,
    path: &TuplePath,
    field: impl FnOnce() -> String,
) -> Result<(), LvmtError> {
    let block_root = lvmt::root_from_path(
        leaf,
        u64::from(path.index),
        u64::from(path.size),
        &path.path,
    );
    let root = block_root.and_then(|r| {
        lvmt::root_from_path(
            &lvmt::history_leaf(path.block, &r),
            path.block,
            t.blocks,
            &path.history,
        )
    });
    if root != Some(t.history_root) {
        return Err(LvmtError::HistoryMismatch { field: field() });
    }
    Ok(())
}

/// Verifies a decoded LVMT proof (see the module docs).
pub fn verify_proof(t: &Trusted<'_>, key: &B256, p: &LvmtProof) -> Result<Proven, LvmtError> {
    verify_with(t, key, p, amt::verify)
}

/// [`verify_proof`] with the openings checked by `check`.
fn verify_with(
    t: &Trusted<'_>,
    key: &B256,
    p: &LvmtProof,
    check: fn(&Params, &[Opening]) -> Result<(), amt::AmtError>,
) -> Result<Proven, LvmtError> {
    if p.key != *key {
        return Err(LvmtError::KeyMismatch {
            expected: *key,
            found: p.key,
        });
    }
    let depth = t.params.depth();
    if p.depth != depth {
        return Err(LvmtError::DepthMismatch {
            expected: depth,
            found: p.depth,
        });
    }
    let hash = keccak256(key);
    let last = p.levels.len().saturating_sub(1);
    let mut openings = Vec::with_capacity(p.levels.len());
    for (l, level) in p.levels.iter().enumerate() {
        let field = |name: &str| format!("proof.levels[{l}].{name}");
        let level_error = |fault| LvmtError::Level {
            field: format!("proof.levels[{l}]"),
            fault,
        };
        let lu = u8::try_from(l).map_err(|_| level_error(LevelFault::TooManyLevels))?;
        // A version of 40 bits or more would carry into the next slot of the packed value (or
        // wrap modulo r): `[v0 + v1·2^40, 0, …]` opens like `[v0, v1, …]`. The decoder refuses
        // it; a proof built another way must be refused here too.
        if level.versions.iter().any(|v| *v >= 1 << 40) {
            return Err(LvmtError::Decode(DecodeError::new(
                field("versions"),
                "a version is 40 bits",
            )));
        }
        let index =
            index_at(&hash, lu, depth).ok_or_else(|| level_error(LevelFault::DeeperThanHash))?;
        let keys_full = level.versions.iter().skip(1).all(|v| *v > 0);
        let has_sub = level.versions.first().is_some_and(|v| *v > 0);
        if l < last && !(keys_full && has_sub) {
            return Err(level_error(LevelFault::PathGoesOn));
        }
        // This AMT's commitment: the trusted root at level 0, else proven by its tuple.
        let commitment = match (&level.commitment, l.checked_sub(1)) {
            (None, None) => g1_from_bytes(&t.aroot, "lvmtRoot")?,
            (Some((c, path)), Some(up)) => {
                let parent = p.levels.get(up).map(|x| x.versions[0]).unwrap_or_default();
                let leaf = lvmt::amt_tuple(lu, &prefix_at(&hash, lu, depth), parent, c);
                in_history(t, &leaf, path, || field("commitment"))?;
                g1_from_bytes(c, &field("commitment"))?
            }
            (Some(_), None) => {
                return Err(LvmtError::Decode(DecodeError::new(
                    field("commitment"),
                    "the root AMT's commitment is the header's, never the proof's",
                )));
            }
            (None, Some(_)) => {
                return Err(LvmtError::Decode(DecodeError::new(
                    field("commitment"),
                    "a sub-AMT without its commitment",
                )));
            }
        };
        let quotients = level
            .quotients
            .iter()
            .map(|q| g1_from_bytes(q, &field("quotients")))
            .collect::<Result<Vec<_>, _>>()?;
        openings.push(Opening {
            commitment,
            index: u64::from(index),
            value: packed(&level.versions),
            quotients,
        });
    }
    let last_level = p.levels.last().ok_or_else(|| LvmtError::Level {
        field: "proof.levels".into(),
        fault: LevelFault::NoLevel,
    })?;
    let last_u8 = u8::try_from(last).unwrap_or(u8::MAX);
    let proven = match &p.kind {
        Kind::Presence { slot, value, path } => {
            let version = if (1..=5).contains(slot) {
                last_level
                    .versions
                    .get(usize::from(*slot))
                    .copied()
                    .unwrap_or(0)
            } else {
                0
            };
            if version == 0 {
                return Err(LvmtError::Level {
                    field: format!("proof.levels[{last}].versions[{slot}]"),
                    fault: LevelFault::SlotEmpty,
                });
            }
            let leaf = lvmt::key_tuple(key, version, value, last_u8, *slot);
            in_history(t, &leaf, path, || "proof.value".into())?;
            Proven::Present {
                version,
                value: *value,
                block: path.block,
            }
        }
        Kind::Absence { others } => {
            let vacant = last_level.versions.iter().skip(1).any(|v| *v == 0);
            if !vacant && last_level.versions[0] > 0 {
                return Err(LvmtError::Level {
                    field: format!("proof.levels[{last}]"),
                    fault: LevelFault::LastLevelFull,
                });
            }
            let mut it = others.iter().enumerate();
            for (l, level) in p.levels.iter().enumerate() {
                let lu = u8::try_from(l).unwrap_or(u8::MAX);
                let want = usize::from(lu) * usize::from(depth) + usize::from(depth);
                for (s, v) in level.versions.iter().enumerate().skip(1) {
                    if *v == 0 {
                        continue;
                    }
                    let (k, o) = it.next().ok_or_else(|| {
                        LvmtError::Decode(DecodeError::new(
                            "proof.others",
                            "an occupant is missing",
                        ))
                    })?;
                    let occupant = || format!("proof.others[{k}]");
                    if o.key == *key {
                        return Err(LvmtError::OccupantIsKey { field: occupant() });
                    }
                    let oh = keccak256(o.key);
                    if !same_bits(&hash, &oh, want) {
                        return Err(LvmtError::Level {
                            field: occupant(),
                            fault: LevelFault::OccupantOffPath,
                        });
                    }
                    let leaf = lvmt::key_tuple(&o.key, *v, &o.value, lu, s as u8);
                    in_history(t, &leaf, &o.path, occupant)?;
                }
            }
            if it.next().is_some() {
                return Err(LvmtError::Decode(DecodeError::new(
                    "proof.others",
                    "more occupants than slots",
                )));
            }
            Proven::Absent
        }
    };
    check(t.params, &openings).map_err(|e| match e {
        amt::AmtError::Encoding(d) => LvmtError::Decode(d),
        amt::AmtError::PairingCheckFailed => LvmtError::PairingCheckFailed,
    })?;
    Ok(proven)
}

/// Whether two hashes agree on their first `bits` bits.
fn same_bits(a: &B256, b: &B256, bits: usize) -> bool {
    (0..bits.min(256)).all(|i| {
        let (x, y) = (a.get(i / 8), b.get(i / 8));
        matches!((x, y), (Some(x), Some(y)) if (x >> (7 - i % 8)) & 1 == (y >> (7 - i % 8)) & 1)
    })
}

/// One version of a key in a verified history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Version {
    /// The block that wrote it.
    pub block: u64,
    /// Its version number (1 = the first write).
    pub version: u64,
    /// The value.
    pub value: Word,
}

/// A verified LVMT history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// Every version written in the range, oldest first.
    pub versions: Vec<Version>,
    /// The version in force at the range's first block (`None`: never written by then).
    pub at_lo: Option<Version>,
}

/// Verifies an LVMT history proof for `key` over `lo..=hi`: complete, because a key's versions
/// are consecutive numbers and each is bound to its block.
pub fn verify_history(
    t: &Trusted<'_>,
    key: &B256,
    lo: u64,
    hi: u64,
    proof: &[u8],
) -> Result<History, LvmtError> {
    let h = lvmt::LvmtHistory::decode(proof)?;
    if (h.lo, h.hi) != (lo, hi) || lo > hi {
        return Err(LvmtError::RangeMismatch {
            expected: (lo, hi),
            found: (h.lo, h.hi),
        });
    }
    if hi >= t.blocks {
        return Err(LvmtError::AfterHeader {
            hi,
            blocks: t.blocks,
        });
    }
    let list = |field: String, fault| LvmtError::List { field, fault };
    let tuples = || String::from("history.tuples");
    let latest = verify_proof(t, key, &h.latest)?;
    let (current, slot) = match (&latest, &h.latest.kind) {
        (Proven::Absent, _) => {
            if !h.tuples.is_empty() {
                return Err(list(tuples(), ListFault::ListedForAbsentKey));
            }
            return Ok(History::default());
        }
        (Proven::Present { version, .. }, Kind::Presence { slot, .. }) => (*version, *slot),
        (Proven::Present { .. }, Kind::Absence { .. }) => {
            return Err(LvmtError::Decode(DecodeError::new(
                "history.latest.kind",
                "an absence proof that proves presence",
            )));
        }
    };
    let level = u8::try_from(h.latest.levels.len().saturating_sub(1)).unwrap_or(u8::MAX);
    if h.tuples.is_empty() || h.first == 0 {
        return Err(list(tuples(), ListFault::NothingListed));
    }
    let mut listed: Vec<Version> = Vec::with_capacity(h.tuples.len());
    for (i, (value, path)) in h.tuples.iter().enumerate() {
        let version = h.first.saturating_add(i as u64);
        let at = || format!("history.tuples[{i}]");
        if version > current {
            return Err(list(at(), ListFault::AfterLatest));
        }
        let leaf = lvmt::key_tuple(key, version, value, level, slot);
        in_history(t, &leaf, path, at)?;
        if listed.last().is_some_and(|p| p.block >= path.block) {
            return Err(list(at(), ListFault::BlocksNotIncreasing));
        }
        listed.push(Version {
            block: path.block,
            version,
            value: *value,
        });
    }
    // The left edge: the first listed is the version in force at lo, or the key's first.
    let (first, second) = (listed.first(), listed.get(1));
    if let Some(f) = first
        && f.version > 1
        && f.block > lo
    {
        return Err(list("history.tuples[0]".into(), ListFault::MissingBefore));
    }
    if second.is_some_and(|s| s.block <= lo) {
        return Err(list("history.tuples[1]".into(), ListFault::ExtraBefore));
    }
    // The right edge: the latest version, or the first one after hi.
    let n = listed.len();
    if let Some(l) = listed.last()
        && l.version < current
        && l.block <= hi
    {
        return Err(list(
            format!("history.tuples[{}]", listed.len().saturating_sub(1)),
            ListFault::MissingAfter,
        ));
    }
    if n >= 2 && listed.get(n - 2).is_some_and(|p| p.block > hi) {
        return Err(list(
            format!("history.tuples[{}]", n - 1),
            ListFault::ExtraAfter,
        ));
    }
    let at_lo = listed.first().filter(|v| v.block <= lo).copied();
    Ok(History {
        versions: listed
            .iter()
            .filter(|v| (lo..=hi).contains(&v.block))
            .copied()
            .collect(),
        at_lo,
    })
}

crate::family::verify_shape! {
    /// LVMT value proofs (presence or absence) in the one verify shape.
    pub struct LatestValue: &lightprov_types::lvmt::FAMILY;
    fn verify(t: &Trusted<'a>, key: &B256, proof) -> Result<Proven, LvmtError> {
        verify(t, key, proof)
    }
}

/// A key's history over `lo..=hi`.
pub use crate::HistoryQuery;

crate::family::verify_shape! {
    /// LVMT history proofs in the one verify shape.
    pub struct KeyHistory: &lightprov_types::lvmt::FAMILY;
    fn verify(t: &Trusted<'a>, q: &HistoryQuery, proof) -> Result<History, LvmtError> {
        verify_history(t, &q.key, q.lo, q.hi, proof)
    }
}
