//! The multi-level AMT (paper §3.2, Alg. 1–5), in memory: key placement, version bumps,
//! sub-AMT commitment versions, and per block the tuple tree and the history root.
//!
//! Placement (docs/proofs.md, LVMT): the key's entry index at level `l` is bits `[D·l, D·(l+1))`
//! of keccak256(stateKey), most significant first; the sub-AMT at level `l` is named by the first
//! `D·l` bits (its *prefix*). A new key takes, from the root AMT down, the first entry on its
//! path with a vacant key slot (slots 1..=5 in order); a slot, once taken, is the key's for good.
//! A sub-AMT hangs under the entry of its parent at its own index, and every change of its
//! commitment bumps slot 0 of that entry.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::Arc,
};

use alloy_primitives::{B256, keccak256};
use ark_bn254::G1Projective;
use ark_ec::CurveGroup;
use ark_ff::Zero;
use lightprov_amt::g1_to_bytes;
use lightprov_types::{Word, lvmt};

use crate::{
    amt::{Amt, AmtError, Proofs},
    setup::Setup,
};

/// Key slots per entry (slot 0 is the sub-AMT's).
pub const KEY_SLOTS: u8 = 5;

pub use lightprov_types::lvmt::{index_at, prefix_at};

/// `count` state keys whose keccak256 hashes share their first `bits` bits (the first is
/// `B256::repeat_byte(seed)`): keys forced onto one path, into deeper levels — for tests and
/// benchmarks. Costs about `count · 2^bits` hashes.
pub fn colliding_keys(seed: u8, bits: usize, count: usize) -> Vec<B256> {
    let first = B256::repeat_byte(seed);
    let target = keccak256(first);
    let bit = |h: &B256, b: usize| h.get(b / 8).map(|x| (x >> (7 - b % 8)) & 1);
    let mut out = vec![first];
    let mut i = u64::from(seed) << 40;
    while out.len() < count {
        let k = keccak256(i.to_be_bytes());
        let h = keccak256(k);
        if (0..bits.min(256)).all(|b| bit(&h, b) == bit(&target, b)) {
            out.push(k);
        }
        i += 1;
    }
    out
}

/// One tuple of a block's tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tuple {
    /// A key's new version and value, where its version lives.
    Key {
        /// The state key.
        key: B256,
        /// Its version after the block.
        version: u64,
        /// The value written.
        value: Word,
        /// The level of its AMT.
        level: u8,
        /// Its slot (1..=5) in the entry.
        slot: u8,
    },
    /// A sub-AMT's new commitment and the version slot 0 of its parent entry now holds.
    Amt {
        /// Its level (≥ 1).
        level: u8,
        /// Its prefix.
        prefix: B256,
        /// The version.
        version: u64,
        /// Its commitment, compressed.
        commitment: [u8; 32],
    },
}

impl Tuple {
    /// The leaf hash in the block's tree.
    pub fn leaf(&self) -> B256 {
        match self {
            Self::Key {
                key,
                version,
                value,
                level,
                slot,
            } => lvmt::key_tuple(key, *version, value, *level, *slot),
            Self::Amt {
                level,
                prefix,
                version,
                commitment,
            } => lvmt::amt_tuple(*level, prefix, *version, commitment),
        }
    }
}

/// Why a commit failed.
#[derive(Debug, PartialEq, Eq)]
pub enum TreeError {
    /// A key's path ran out of levels (only with keys chosen to collide on every bit).
    PathExhausted,
    /// An AMT refused a bump.
    Amt(AmtError),
    /// A key is listed twice in one block's writes.
    DuplicateKey(B256),
}

impl std::fmt::Display for TreeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::PathExhausted => f.write_str("a key's path ran out of levels"),
            Self::Amt(AmtError::OutOfRange) => f.write_str("an AMT bump out of range"),
            Self::Amt(AmtError::VersionOverflow) => f.write_str("a version would exceed 2^40 - 1"),
            Self::DuplicateKey(k) => write!(f, "key {k} is written twice in one block"),
        }
    }
}

impl std::error::Error for TreeError {}

/// A block's writes as a list in ascending state-key order: the order lightprov's node lists
/// them in ([`Lvmt::commit`] allocates slots to new keys in list order).
pub fn in_key_order<'a>(
    writes: impl IntoIterator<Item = (&'a B256, &'a Word)>,
) -> Vec<(B256, Word)> {
    let mut out: Vec<(B256, Word)> = writes.into_iter().map(|(k, v)| (*k, *v)).collect();
    out.sort_by_key(|(k, _)| *k);
    out
}

/// The multi-level AMT and its tuple trees.
#[derive(Debug)]
pub struct Lvmt {
    setup: Arc<Setup>,
    depth: u8,
    /// The openings kept current in the root AMT (every sub-AMT under a kept entry keeps all).
    proofs: Proofs,
    /// (level, prefix) → AMT.
    amts: HashMap<(u8, B256), Amt>,
    /// state key → (level, slot).
    slots: HashMap<B256, (u8, u8)>,
    /// (level, prefix, entry) → the keys holding slots 1..=5.
    occupants: HashMap<(u8, B256, u32), [Option<B256>; 5]>,
    /// Per block: its tuples.
    blocks: Vec<Vec<Tuple>>,
    /// Per block: its tuple tree.
    trees: Vec<lvmt::MerkleLog>,
    /// The history tree over every block's leaf.
    history: lvmt::MerkleLog,
    /// Where each key's and each sub-AMT's latest tuple is: (block, index).
    locations: HashMap<Loc, (u64, u32)>,
    /// Each key's latest value.
    values: HashMap<B256, Word>,
    /// Each key's versions: (block, index) of version v at position v − 1.
    versions: HashMap<B256, Vec<(u64, u32)>>,
}

/// What a tuple is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Loc {
    Key(B256),
    Amt(u8, B256),
}

impl Lvmt {
    /// An empty LVMT over `setup`'s AMTs, keeping every opening current.
    pub fn new(setup: Arc<Setup>) -> Self {
        Self::with_proofs(setup, Proofs::All)
    }

    /// An empty LVMT keeping current the openings of the root AMT that `proofs` names, and
    /// every opening of the sub-AMTs below them (the paper's proof sharding): it proves only
    /// keys whose root entry is in the shard, and writes faster. With [`Proofs::None`] it keeps
    /// only commitments and proves nothing.
    pub fn with_proofs(setup: Arc<Setup>, proofs: Proofs) -> Self {
        let depth = setup.depth();
        Self {
            setup,
            depth,
            proofs,
            amts: HashMap::new(),
            slots: HashMap::new(),
            occupants: HashMap::new(),
            blocks: Vec::new(),
            trees: Vec::new(),
            history: lvmt::MerkleLog::new(),
            locations: HashMap::new(),
            values: HashMap::new(),
            versions: HashMap::new(),
        }
    }

    /// Where a key's versions live, if it was ever written.
    pub fn slot_of(&self, key: &B256) -> Option<(u8, u8)> {
        self.slots.get(key).copied()
    }

    /// Which root-AMT openings this LVMT keeps.
    pub const fn proofs(&self) -> Proofs {
        self.proofs
    }

    /// Whether this LVMT can prove `key` (its root entry is in the proof shard).
    pub fn serves(&self, key: &B256) -> bool {
        index_at(&keccak256(key), 0, self.depth).is_some_and(|j| self.proofs.keeps_entry(j))
    }

    /// The openings an AMT at (level, prefix) keeps: the root's shard; below the root, all of
    /// them under a kept root entry, none elsewhere.
    pub(crate) fn proofs_for(&self, level: u8, prefix: &B256) -> Proofs {
        if level == 0 || matches!(self.proofs, Proofs::All | Proofs::None) {
            return self.proofs;
        }
        if index_at(prefix, 0, self.depth).is_some_and(|j| self.proofs.keeps_entry(j)) {
            Proofs::All
        } else {
            Proofs::None
        }
    }

    /// The AMT at (level, prefix), if any entry of it was ever bumped.
    pub fn amt(&self, level: u8, prefix: &B256) -> Option<&Amt> {
        self.amts.get(&(level, *prefix))
    }

    /// The keys holding slots 1..=5 of an entry.
    pub fn occupants(&self, level: u8, prefix: &B256, index: u32) -> [Option<B256>; 5] {
        self.occupants
            .get(&(level, *prefix, index))
            .copied()
            .unwrap_or_default()
    }

    /// The tuples block `b` wrote.
    pub fn block_tuples(&self, b: u64) -> Option<&[Tuple]> {
        usize::try_from(b)
            .ok()
            .and_then(|b| self.blocks.get(b))
            .map(Vec::as_slice)
    }

    /// The root AMT's commitment (`aroot`, the header's `lvmtRoot`), compressed.
    pub fn aroot(&self) -> [u8; 32] {
        self.amts.get(&(0, B256::ZERO)).map_or_else(
            || g1_to_bytes(&Amt::new(self.depth).commitment()),
            |a| g1_to_bytes(&a.commitment()),
        )
    }

    /// The history root over every block's tuple tree (the header's `lvmtHistoryRoot`).
    pub fn history_root(&self) -> B256 {
        self.history.root()
    }

    fn allocate(&mut self, key: &B256, hash: &B256) -> Result<(u8, u8), TreeError> {
        let max_level = u8::try_from(256 / usize::from(self.depth)).unwrap_or(u8::MAX);
        for level in 0..max_level {
            let idx = index_at(hash, level, self.depth).ok_or(TreeError::PathExhausted)?;
            let prefix = prefix_at(hash, level, self.depth);
            let occ = self.occupants.entry((level, prefix, idx)).or_default();
            if let Some(pos) = occ.iter().position(Option::is_none) {
                if let Some(o) = occ.get_mut(pos) {
                    *o = Some(*key);
                }
                let slot = u8::try_from(pos + 1).unwrap_or(KEY_SLOTS);
                self.slots.insert(*key, (level, slot));
                return Ok((level, slot));
            }
        }
        Err(TreeError::PathExhausted)
    }

    /// Commits the next block's writes (Alg. 1): bumps every written key's version, then, from
    /// the deepest level up, slot 0 of the parent entry of every changed sub-AMT; records the
    /// block's tuples and returns `(aroot, history root)`.
    ///
    /// The writes are a list: new keys take their slots in the order the list gives (two new
    /// keys contending for the same entry get its slots in that order). The block's tree lists
    /// the key tuples in ascending state-key order, then the sub-AMT tuples, whatever the list's
    /// order. A key listed twice is refused ([`TreeError::DuplicateKey`])
    /// before anything changes. lightprov's node lists a block's writes in ascending state-key
    /// order ([`in_key_order`]).
    pub fn commit(&mut self, writes: &[(B256, Word)]) -> Result<([u8; 32], B256), TreeError> {
        let mut seen = std::collections::HashSet::with_capacity(writes.len());
        if let Some((k, _)) = writes.iter().find(|(k, _)| !seen.insert(*k)) {
            return Err(TreeError::DuplicateKey(*k));
        }
        let mut tuples = Vec::new();
        let mut touched: BTreeSet<(u8, B256, B256)> = BTreeSet::new(); // (level, prefix, a key hash under it)
        for (key, value) in writes {
            let hash = keccak256(key);
            let (level, slot) = match self.slots.get(key) {
                Some(s) => *s,
                None => self.allocate(key, &hash)?,
            };
            let idx = index_at(&hash, level, self.depth).ok_or(TreeError::PathExhausted)?;
            let prefix = prefix_at(&hash, level, self.depth);
            let (depth, proofs) = (self.depth, self.proofs_for(level, &prefix));
            let amt = self
                .amts
                .entry((level, prefix))
                .or_insert_with(|| Amt::with_proofs(depth, proofs));
            let version = amt
                .bump(&self.setup, idx, usize::from(slot))
                .map_err(TreeError::Amt)?;
            tuples.push(Tuple::Key {
                key: *key,
                version,
                value: *value,
                level,
                slot,
            });
            touched.insert((level, prefix, hash));
        }
        // The block's tree lists key tuples in ascending state-key order whatever the list's
        // order: the order of the writes shows in the roots only through slot allocation.
        tuples.sort_by_key(|t| match t {
            Tuple::Key { key, .. } => *key,
            Tuple::Amt { prefix, .. } => *prefix,
        });
        // Sub-AMTs from the deepest level up: each changed one bumps its parent's slot 0 once.
        let mut level_sets: BTreeMap<u8, BTreeMap<B256, B256>> = BTreeMap::new();
        for (level, prefix, hash) in &touched {
            level_sets.entry(*level).or_default().insert(*prefix, *hash);
        }
        while let Some((level, subs)) = level_sets.pop_last() {
            if level == 0 {
                break;
            }
            // This level's AMTs are final now (their keys and the sub-AMTs below are bumped):
            // their commitments, converted to affine in one batch.
            let projective: Vec<G1Projective> = subs
                .keys()
                .map(|prefix| {
                    self.amts
                        .get(&(level, *prefix))
                        .map_or_else(G1Projective::zero, Amt::commitment_projective)
                })
                .collect();
            let affine = G1Projective::normalize_batch(&projective);
            for ((prefix, hash), c) in subs.into_iter().zip(&affine) {
                let commitment = g1_to_bytes(c);
                let parent_level = level - 1;
                let parent_prefix = prefix_at(&hash, parent_level, self.depth);
                let idx =
                    index_at(&hash, parent_level, self.depth).ok_or(TreeError::PathExhausted)?;
                let (depth, proofs) = (self.depth, self.proofs_for(parent_level, &parent_prefix));
                let parent = self
                    .amts
                    .entry((parent_level, parent_prefix))
                    .or_insert_with(|| Amt::with_proofs(depth, proofs));
                let version = parent.bump(&self.setup, idx, 0).map_err(TreeError::Amt)?;
                tuples.push(Tuple::Amt {
                    level,
                    prefix,
                    version,
                    commitment,
                });
                level_sets
                    .entry(parent_level)
                    .or_default()
                    .insert(parent_prefix, hash);
            }
        }
        let block = self.blocks.len() as u64;
        for (i, t) in tuples.iter().enumerate() {
            let loc = match t {
                Tuple::Key { key, value, .. } => {
                    self.values.insert(*key, *value);
                    self.versions
                        .entry(*key)
                        .or_default()
                        .push((block, u32::try_from(i).unwrap_or(u32::MAX)));
                    Loc::Key(*key)
                }
                Tuple::Amt { level, prefix, .. } => Loc::Amt(*level, *prefix),
            };
            self.locations
                .insert(loc, (block, u32::try_from(i).unwrap_or(u32::MAX)));
        }
        let mut tree = lvmt::MerkleLog::new();
        for t in &tuples {
            tree.push(t.leaf());
        }
        self.history.push(lvmt::history_leaf(block, &tree.root()));
        self.trees.push(tree);
        self.blocks.push(tuples);
        Ok((self.aroot(), self.history_root()))
    }
}

impl Lvmt {
    /// An LVMT from stored parts: its AMTs, every key's slot and every block's tuples. The
    /// entry occupants, the block trees, the history tree, each key's versions and latest value
    /// are derived (hashing only: no curve arithmetic). Refuses parts that do not fit together,
    /// naming what is wrong.
    pub(crate) fn from_parts(
        setup: Arc<Setup>,
        proofs: Proofs,
        amts: HashMap<(u8, B256), Amt>,
        slots: HashMap<B256, (u8, u8)>,
        blocks: Vec<Vec<Tuple>>,
    ) -> Result<Self, String> {
        let mut t = Self::with_proofs(setup, proofs);
        for (key, (level, slot)) in &slots {
            let hash = keccak256(key);
            let idx = index_at(&hash, *level, t.depth)
                .ok_or_else(|| format!("slot of key {key}: level {level} beyond the path"))?;
            let prefix = prefix_at(&hash, *level, t.depth);
            let occ = t.occupants.entry((*level, prefix, idx)).or_default();
            let at = usize::from(*slot)
                .checked_sub(1)
                .and_then(|s| occ.get_mut(s))
                .ok_or_else(|| format!("slot of key {key}: slot {slot} is not 1..=5"))?;
            if let Some(other) = at {
                return Err(format!("keys {other} and {key} hold the same slot"));
            }
            *at = Some(*key);
        }
        t.slots = slots;
        t.amts = amts;
        for (block, tuples) in blocks.into_iter().enumerate() {
            let block = block as u64;
            let mut tree = lvmt::MerkleLog::new();
            for (i, tuple) in tuples.iter().enumerate() {
                let i = u32::try_from(i).map_err(|_| format!("block {block}: too many tuples"))?;
                let loc = match tuple {
                    Tuple::Key {
                        key,
                        version,
                        value,
                        level,
                        slot,
                    } => {
                        if t.slots.get(key) != Some(&(*level, *slot)) {
                            return Err(format!(
                                "tuple {i} of block {block}: key {key} is not at level {level}, slot {slot}"
                            ));
                        }
                        let list = t.versions.entry(*key).or_default();
                        if *version != list.len() as u64 + 1 {
                            return Err(format!(
                                "tuple {i} of block {block}: key {key} at version {version} after {} versions",
                                list.len()
                            ));
                        }
                        list.push((block, i));
                        t.values.insert(*key, *value);
                        Loc::Key(*key)
                    }
                    Tuple::Amt { level, prefix, .. } => Loc::Amt(*level, *prefix),
                };
                t.locations.insert(loc, (block, i));
                tree.push(tuple.leaf());
            }
            t.history.push(lvmt::history_leaf(block, &tree.root()));
            t.trees.push(tree);
            t.blocks.push(tuples);
        }
        t.check_versions()?;
        Ok(t)
    }

    /// Every version an AMT entry holds is the count of its holder's tuples: a key slot's, the
    /// key's versions; slot 0's, the version of the sub-AMT's latest tuple.
    fn check_versions(&self) -> Result<(), String> {
        for ((level, prefix), amt) in &self.amts {
            for (j, versions) in amt.entries() {
                let at = || format!("entry {j} of the AMT at level {level}, prefix {prefix}");
                let occupants = self.occupants(*level, prefix, j);
                for (s, v) in versions.iter().enumerate().skip(1) {
                    let holder = occupants.get(s - 1).copied().flatten();
                    let count = holder
                        .and_then(|k| self.versions.get(&k))
                        .map_or(0, |l| l.len() as u64);
                    if *v != count {
                        return Err(format!(
                            "{}: slot {s} holds version {v}, its key has {count} tuples",
                            at()
                        ));
                    }
                }
                let sub = level.checked_add(1).map(|l| {
                    let mut p = *prefix;
                    // The sub-AMT below entry j: the prefix extended by j's D bits.
                    let start = usize::from(*level) * usize::from(self.depth);
                    for b in 0..usize::from(self.depth) {
                        if (j >> (usize::from(self.depth) - 1 - b)) & 1 == 1
                            && let Some(byte) = p.get_mut((start + b) / 8)
                        {
                            *byte |= 0x80 >> ((start + b) % 8);
                        }
                    }
                    (l, p)
                });
                let latest = sub
                    .and_then(|(l, p)| self.locations.get(&Loc::Amt(l, p)))
                    .and_then(|(b, i)| {
                        self.blocks
                            .get(usize::try_from(*b).ok()?)?
                            .get(usize::try_from(*i).ok()?)
                    })
                    .map_or(0, |t| match t {
                        Tuple::Amt { version, .. } => *version,
                        Tuple::Key { .. } => 0,
                    });
                if versions[0] != latest {
                    return Err(format!(
                        "{}: slot 0 holds version {}, the sub-AMT below is at {latest}",
                        at(),
                        versions[0]
                    ));
                }
            }
        }
        Ok(())
    }

    /// The value of `key` after block `block`: the last version written at or before it (zero
    /// if none).
    pub fn value_at(&self, key: &B256, block: u64) -> Word {
        let Some(all) = self.versions.get(key) else {
            return [0; 32];
        };
        let n = all.partition_point(|(b, _)| *b <= block);
        n.checked_sub(1)
            .and_then(|i| all.get(i))
            .and_then(|(b, i)| {
                self.blocks
                    .get(usize::try_from(*b).ok()?)?
                    .get(usize::try_from(*i).ok()?)
            })
            .map_or([0; 32], |t| match t {
                Tuple::Key { value, .. } => *value,
                Tuple::Amt { .. } => [0; 32],
            })
    }

    fn path(&self, loc: Loc) -> Option<lvmt::TuplePath> {
        let (block, index) = *self.locations.get(&loc)?;
        self.path_at(block, index)
    }

    /// The history of `key` over `lo..=hi`: its latest version, then its tuples from the
    /// version in force at `lo` to the first one after `hi` (or the latest).
    pub fn prove_history(&self, key: &B256, lo: u64, hi: u64) -> Option<lvmt::LvmtHistory> {
        let latest = self.prove(key)?;
        let all = self.versions.get(key).map(Vec::as_slice).unwrap_or(&[]);
        let mut tuples = Vec::new();
        let mut first = 0;
        if !all.is_empty() {
            // Version f (1-based) in force at lo: the last with block ≤ lo, else the first.
            let f = all.partition_point(|(b, _)| *b <= lo).max(1);
            let after = all.partition_point(|(b, _)| *b <= hi);
            let e = (after + 1).min(all.len()).max(f);
            first = f as u64;
            for &(block, index) in all.get(f - 1..e)? {
                let value = match self
                    .blocks
                    .get(usize::try_from(block).ok()?)?
                    .get(usize::try_from(index).ok()?)?
                {
                    Tuple::Key { value, .. } => *value,
                    Tuple::Amt { .. } => return None,
                };
                tuples.push((value, self.path_at(block, index)?));
            }
        }
        Some(lvmt::LvmtHistory {
            lo,
            hi,
            latest,
            first,
            tuples,
        })
    }

    fn path_at(&self, block: u64, index: u32) -> Option<lvmt::TuplePath> {
        let tree = self.trees.get(usize::try_from(block).ok()?)?;
        Some(lvmt::TuplePath {
            block,
            size: u32::try_from(tree.len()).ok()?,
            index,
            path: tree.audit_path(usize::try_from(index).ok()?),
            history: self.history.audit_path(usize::try_from(block).ok()?),
        })
    }

    /// The proof of `key`'s latest value, or of its absence, against the current `aroot` and
    /// history root (Alg. 6, 8–10); `None` for a key outside the proof shard.
    pub fn prove(&self, key: &B256) -> Option<lvmt::LvmtProof> {
        if !self.serves(key) {
            return None;
        }
        let hash = keccak256(key);
        let empty = Amt::new(self.depth);
        let mut levels = Vec::new();
        let mut others = Vec::new();
        let slot = self.slots.get(key).copied();
        let max_level = u8::try_from(256 / usize::from(self.depth)).unwrap_or(u8::MAX);
        for level in 0..max_level {
            let prefix = prefix_at(&hash, level, self.depth);
            let index = index_at(&hash, level, self.depth)?;
            let amt = self.amts.get(&(level, prefix)).unwrap_or(&empty);
            let opening = amt.open(index)?;
            let versions = amt.versions(index);
            let commitment = if level == 0 {
                None
            } else {
                Some((
                    g1_to_bytes(&opening.commitment),
                    self.path(Loc::Amt(level, prefix))?,
                ))
            };
            levels.push(lvmt::LevelProof {
                versions,
                quotients: opening.quotients.iter().map(g1_to_bytes).collect(),
                commitment,
            });
            match slot {
                Some((l, _)) if l == level => break,
                Some(_) => continue,
                None => {}
            }
            // Absence: the occupants of this entry, then stop where the path ends.
            for (s, holder) in self.occupants(level, &prefix, index).iter().enumerate() {
                if versions.get(s + 1).is_some_and(|v| *v > 0) {
                    let k = (*holder)?;
                    others.push(lvmt::OtherKey {
                        key: k,
                        value: *self.values.get(&k)?,
                        path: self.path(Loc::Key(k))?,
                    });
                }
            }
            if versions.iter().skip(1).any(|v| *v == 0) || versions[0] == 0 {
                break;
            }
        }
        let kind = match slot {
            Some((_, s)) => lvmt::Kind::Presence {
                slot: s,
                value: *self.values.get(key)?,
                path: self.path(Loc::Key(*key))?,
            },
            None => lvmt::Kind::Absence { others },
        };
        Some(lvmt::LvmtProof {
            depth: self.depth,
            key: *key,
            levels,
            kind,
        })
    }

    /// Blocks committed.
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// The AMT parameters.
    pub fn setup(&self) -> &Setup {
        &self.setup
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::amt::packed;
    use lightprov_verifier::lvmt::amt::verify;

    #[test]
    fn index_and_prefix_follow_the_hash_bits() {
        let h = B256::from([
            0xab, 0xcd, 0xef, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0x77,
        ]);
        assert_eq!(index_at(&h, 0, 16), Some(0xabcd));
        assert_eq!(index_at(&h, 1, 16), Some(0xef12));
        assert_eq!(index_at(&h, 0, 4), Some(0xa));
        assert_eq!(index_at(&h, 1, 4), Some(0xb));
        assert_eq!(index_at(&h, 15, 16), Some(0x0077));
        assert_eq!(index_at(&h, 16, 16), None);
        assert_eq!(prefix_at(&h, 0, 16), B256::ZERO);
        assert_eq!(&prefix_at(&h, 1, 16)[..3], &[0xab, 0xcd, 0]);
        assert_eq!(&prefix_at(&h, 1, 4)[..2], &[0xa0, 0]);
        assert_eq!(&prefix_at(&h, 3, 4)[..2], &[0xab, 0xc0]);
    }

    #[test]
    fn collisions_push_keys_to_deeper_levels_and_every_entry_opens() {
        let depth = 4u8;
        let setup = Arc::new(Setup::dev_insecure(depth, b"tree").unwrap());
        let mut t = Lvmt::new(setup.clone());
        // 12 keys sharing 8 bits: 5 at level 0, 5 at level 1, the rest at level 2.
        let keys = colliding_keys(0xee, 8, 12);
        for (b, chunk) in keys.chunks(3).enumerate() {
            let writes: Vec<(B256, Word)> = chunk.iter().map(|k| (*k, [b as u8 + 1; 32])).collect();
            t.commit(&writes).unwrap();
        }
        let levels: Vec<u8> = keys.iter().map(|k| t.slot_of(k).unwrap().0).collect();
        assert_eq!(levels.iter().filter(|l| **l == 0).count(), 5);
        assert_eq!(levels.iter().filter(|l| **l == 1).count(), 5);
        assert_eq!(levels.iter().filter(|l| **l == 2).count(), 2);
        // Rewrites bump versions; sub-AMT versions count the blocks that changed them.
        let deep = *keys.iter().find(|k| t.slot_of(k).unwrap().0 == 2).unwrap();
        t.commit(&[(deep, [9; 32])]).unwrap();
        let h = keccak256(deep);
        let (lvl, slot) = t.slot_of(&deep).unwrap();
        let amt = t.amt(lvl, &prefix_at(&h, lvl, depth)).unwrap();
        let idx = index_at(&h, lvl, depth).unwrap();
        assert_eq!(amt.versions(idx)[usize::from(slot)], 2);
        // Every AMT on the path opens: the key's entry, then slot 0 up to the root.
        for level in 0..=lvl {
            let a = t.amt(level, &prefix_at(&h, level, depth)).unwrap();
            let i = index_at(&h, level, depth).unwrap();
            let o = a.open(i).unwrap();
            assert_eq!(o.value, packed(&a.versions(i)));
            verify(setup.params(), &[o]).unwrap();
        }
        // The last block's tuples: the key, then its sub-AMTs from the deepest up.
        let tuples = t.block_tuples(4).unwrap();
        assert!(matches!(tuples[0], Tuple::Key { version: 2, .. }));
        assert!(matches!(tuples[1], Tuple::Amt { level: 2, .. }));
        assert!(matches!(tuples[2], Tuple::Amt { level: 1, .. }));
        assert_eq!(tuples.len(), 3);
    }

    #[test]
    fn same_writes_same_roots() {
        let setup = Arc::new(Setup::dev_insecure(4, b"tree").unwrap());
        let run = || {
            let mut t = Lvmt::new(setup.clone());
            (0..20u64)
                .map(|b| {
                    let w: BTreeMap<B256, Word> = (0..(b % 7))
                        .map(|k| (keccak256((k * 31 + b).to_be_bytes()), [b as u8; 32]))
                        .collect();
                    t.commit(&in_key_order(&w)).unwrap()
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(), run());
    }
}
