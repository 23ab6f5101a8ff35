//! SSZ encoding and `hash_tree_root` of the light-client containers (consensus specs,
//! `ssz/simple-serialize.md`), for every fork from Altair to Fulu.
//!
//! Every container here has one size or, from Capella on, a size bounded by the execution
//! header's `extra_data` (at most 32 bytes): decoders check the exact length of each part, the
//! offsets of variable parts (the first must end the fixed part, none may go back or past the
//! end), and never read past the input. A sync committee's size comes from the [`Preset`]
//! (`SYNC_COMMITTEE_SIZE`), the branch depths and the execution header's fields from the
//! [`Fork`].
//!
//! Written by hand: the maintained SSZ crates of the Rust ecosystem (`ethereum_ssz` and
//! `tree_hash`) need `std`, and these few containers are fixed enough that their codec is
//! shorter than the glue a generic one would need.

use alloc::{string::String, vec::Vec};

use sha2::{Digest, Sha256};

use super::{
    BeaconBlockHeader, EXECUTION_DEPTH, ExecutionPayloadHeader, Fork, LightClientBootstrap,
    LightClientFinalityUpdate, LightClientHeader, LightClientOptimisticUpdate, LightClientUpdate,
    Preset, PublicKeyBytes, Root, SyncAggregate, SyncCommittee,
};
use crate::DecodeError;

/// `MAX_EXTRA_DATA_BYTES`.
pub const MAX_EXTRA_DATA_BYTES: usize = 32;

/// Bytes of a `BeaconBlockHeader`.
pub const BEACON_BLOCK_HEADER_LEN: usize = 112;

/// SHA-256 of two chunks: an inner node of every SSZ Merkle tree.
pub fn hash_pair(a: &Root, b: &Root) -> Root {
    let mut h = Sha256::new();
    h.update(a);
    h.update(b);
    h.finalize().into()
}

/// `merkleize(chunks, limit)`: the root of the tree over `chunks` padded with zero chunks to the
/// next power of two of `limit` (at least the chunks' count).
pub fn merkleize(chunks: &[Root], limit: usize) -> Root {
    let leaves = limit.max(chunks.len()).max(1);
    let mut depth = 0u32;
    while (1usize << depth) < leaves {
        depth += 1;
    }
    let mut layer: Vec<Root> = chunks.to_vec();
    let mut zero = [0u8; 32];
    for _ in 0..depth {
        let mut next = Vec::with_capacity(layer.len().div_ceil(2));
        let mut pairs = layer.chunks(2);
        for pair in &mut pairs {
            next.push(match pair {
                [a, b] => hash_pair(a, b),
                [a] => hash_pair(a, &zero),
                _ => zero,
            });
        }
        layer = next;
        zero = hash_pair(&zero, &zero);
    }
    layer.first().copied().unwrap_or(zero)
}

/// `mix_in_length(root, length)`.
pub fn mix_in_length(root: &Root, length: usize) -> Root {
    let mut len = [0u8; 32];
    if let Some(dst) = len.get_mut(..8) {
        dst.copy_from_slice(&(length as u64).to_le_bytes());
    }
    hash_pair(root, &len)
}

/// The chunks of `bytes`, the last one zero-padded.
fn pack(bytes: &[u8]) -> Vec<Root> {
    bytes
        .chunks(32)
        .map(|c| {
            let mut chunk = [0u8; 32];
            if let Some(dst) = chunk.get_mut(..c.len()) {
                dst.copy_from_slice(c);
            }
            chunk
        })
        .collect()
}

/// The root of a fixed-size byte vector.
fn bytes_root(bytes: &[u8]) -> Root {
    let chunks = pack(bytes);
    merkleize(&chunks, chunks.len())
}

/// The root of a `uint64`.
fn u64_root(v: u64) -> Root {
    let mut chunk = [0u8; 32];
    if let Some(dst) = chunk.get_mut(..8) {
        dst.copy_from_slice(&v.to_le_bytes());
    }
    chunk
}

/// The root of a `Vector[Bytes32, N]` (a Merkle branch).
pub fn branch_root(branch: &[Root]) -> Root {
    merkleize(branch, branch.len())
}

/// The root of a compressed public key (`Bytes48`).
pub fn pubkey_root(key: &PublicKeyBytes) -> Root {
    bytes_root(key)
}

/// `path.name`, built only where an error names it.
fn at(path: &str, name: &str) -> String {
    let mut s = String::with_capacity(path.len() + 1 + name.len());
    s.push_str(path);
    s.push('.');
    s.push_str(name);
    s
}

/// A reader over a container's fixed part, made once its length is checked: reads within
/// that length cannot fail (one error per container, not per field, keeps the decoders small).
struct Fixed<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Fixed<'a> {
    /// A reader of `bytes`, which must hold at least `len` bytes.
    fn new(bytes: &'a [u8], len: usize, path: &str) -> Result<Self, DecodeError> {
        if bytes.len() < len {
            return Err(DecodeError::new(path, "truncated"));
        }
        Ok(Self { bytes, pos: 0 })
    }

    /// A reader of `bytes`, which must be exactly `len` bytes long.
    fn exact(bytes: &'a [u8], len: usize, path: &str) -> Result<Self, DecodeError> {
        expect_len(bytes, len, path)?;
        Self::new(bytes, len, path)
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let end = self.pos.saturating_add(n);
        let out = self.bytes.get(self.pos..end).unwrap_or_default();
        self.pos = end;
        out
    }

    /// The next `N` bytes (out of line, as [`put`]: the decoders read a field at a time, and
    /// the beacon module's size is budgeted; decoding is not where an update's time goes).
    #[inline(never)]
    fn array<const N: usize>(&mut self) -> [u8; N] {
        self.take(N).try_into().unwrap_or([0; N])
    }

    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.array())
    }

    fn offset(&mut self) -> usize {
        u32::from_le_bytes(self.array()) as usize
    }

    fn branch(&mut self, depth: usize) -> Vec<Root> {
        (0..depth).map(|_| self.array()).collect()
    }
}

/// Splits `bytes` at the offsets read from its fixed part (`fixed` bytes long): the variable
/// parts, in order. The first offset must be `fixed`, each one at or after the one before, none
/// past the end.
fn variable_parts<'a>(
    bytes: &'a [u8],
    fixed: usize,
    offsets: &[usize],
    path: &str,
) -> Result<Vec<&'a [u8]>, DecodeError> {
    if offsets.first().is_some_and(|o| *o != fixed) {
        return Err(DecodeError::new(
            path,
            "the first offset does not end the fixed part",
        ));
    }
    let mut parts = Vec::with_capacity(offsets.len());
    for (i, start) in offsets.iter().enumerate() {
        let end = offsets.get(i + 1).copied().unwrap_or(bytes.len());
        let part = bytes
            .get(*start..end)
            .ok_or_else(|| DecodeError::new(path, "offset out of order or past the end"))?;
        parts.push(part);
    }
    Ok(parts)
}

fn expect_len(bytes: &[u8], len: usize, path: &str) -> Result<(), DecodeError> {
    match bytes.len().cmp(&len) {
        core::cmp::Ordering::Equal => Ok(()),
        core::cmp::Ordering::Less => Err(DecodeError::new(path, "truncated")),
        core::cmp::Ordering::Greater => Err(DecodeError::new(path, "trailing bytes")),
    }
}

/// Appends `bytes` (out of line: the encoders append a field at a time, and inlined each
/// append is a capacity check and a copy of its own, about 1 kB gzip of the beacon module).
#[inline(never)]
fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(bytes);
}

fn put_offset(out: &mut Vec<u8>, offset: usize) {
    put(out, &(offset as u32).to_le_bytes());
}

fn put_branch(out: &mut Vec<u8>, branch: &[Root]) {
    for node in branch {
        put(out, node);
    }
}

impl BeaconBlockHeader {
    /// Decodes the 112 SSZ bytes of a header.
    pub fn decode(bytes: &[u8], path: &str) -> Result<Self, DecodeError> {
        let mut r = Fixed::exact(bytes, BEACON_BLOCK_HEADER_LEN, path)?;
        Ok(Self {
            slot: r.u64(),
            proposer_index: r.u64(),
            parent_root: r.array(),
            state_root: r.array(),
            body_root: r.array(),
        })
    }

    /// Appends the SSZ encoding.
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        put(out, &self.slot.to_le_bytes());
        put(out, &self.proposer_index.to_le_bytes());
        put(out, &self.parent_root);
        put(out, &self.state_root);
        put(out, &self.body_root);
    }

    /// `hash_tree_root`: the beacon block root.
    pub fn hash_tree_root(&self) -> Root {
        merkleize(
            &[
                u64_root(self.slot),
                u64_root(self.proposer_index),
                self.parent_root,
                self.state_root,
                self.body_root,
            ],
            8,
        )
    }
}

/// The execution payload header's container in `fork`: Bellatrix's (also what the Altair and
/// Bellatrix light-client containers would hold), Capella's, or Deneb's (Electra and Fulu keep it).
pub const fn payload_fork(fork: Fork) -> Fork {
    match fork {
        Fork::Altair | Fork::Bellatrix => Fork::Bellatrix,
        Fork::Capella => Fork::Capella,
        Fork::Deneb | Fork::Electra | Fork::Fulu => Fork::Deneb,
    }
}

impl ExecutionPayloadHeader {
    /// Bytes of the fixed part in `fork`'s container.
    pub const fn fixed_len(fork: Fork) -> usize {
        match payload_fork(fork) {
            Fork::Capella => 568,
            Fork::Bellatrix => 536,
            _ => 584,
        }
    }

    /// Decodes `fork`'s `ExecutionPayloadHeader`.
    pub fn decode(bytes: &[u8], fork: Fork, path: &str) -> Result<Self, DecodeError> {
        let layout = payload_fork(fork);
        let fixed = Self::fixed_len(layout);
        if bytes.len() > fixed + MAX_EXTRA_DATA_BYTES {
            return Err(DecodeError::new(path, "longer than its container allows"));
        }
        let mut r = Fixed::new(bytes, fixed, path)?;
        let mut h = Self {
            parent_hash: r.array(),
            fee_recipient: r.array(),
            state_root: r.array(),
            receipts_root: r.array(),
            logs_bloom: r.array(),
            prev_randao: r.array(),
            block_number: r.u64(),
            gas_limit: r.u64(),
            gas_used: r.u64(),
            timestamp: r.u64(),
            ..Self::default()
        };
        let extra_offset = r.offset();
        h.base_fee_per_gas = r.array();
        h.block_hash = r.array();
        h.transactions_root = r.array();
        if layout >= Fork::Capella {
            h.withdrawals_root = r.array();
        }
        if layout >= Fork::Deneb {
            h.blob_gas_used = r.u64();
            h.excess_blob_gas = r.u64();
        }
        let parts = variable_parts(bytes, fixed, &[extra_offset], path)?;
        let extra = parts.first().copied().unwrap_or_default();
        if extra.len() > MAX_EXTRA_DATA_BYTES {
            return Err(DecodeError::new(
                at(path, "extra_data"),
                "longer than 32 bytes",
            ));
        }
        h.extra_data = extra.to_vec();
        Ok(h)
    }

    /// Appends the SSZ encoding of `fork`'s container.
    pub fn encode_to(&self, fork: Fork, out: &mut Vec<u8>) {
        let layout = payload_fork(fork);
        put(out, &self.parent_hash);
        put(out, &self.fee_recipient);
        put(out, &self.state_root);
        put(out, &self.receipts_root);
        put(out, &self.logs_bloom);
        put(out, &self.prev_randao);
        for v in [
            self.block_number,
            self.gas_limit,
            self.gas_used,
            self.timestamp,
        ] {
            put(out, &v.to_le_bytes());
        }
        put_offset(out, Self::fixed_len(layout));
        put(out, &self.base_fee_per_gas);
        put(out, &self.block_hash);
        put(out, &self.transactions_root);
        if layout >= Fork::Capella {
            put(out, &self.withdrawals_root);
        }
        if layout >= Fork::Deneb {
            put(out, &self.blob_gas_used.to_le_bytes());
            put(out, &self.excess_blob_gas.to_le_bytes());
        }
        put(out, &self.extra_data);
    }

    /// `hash_tree_root` as `fork`'s container.
    pub fn hash_tree_root(&self, fork: Fork) -> Root {
        let layout = payload_fork(fork);
        let mut fee = [0u8; 32];
        if let Some(dst) = fee.get_mut(..20) {
            dst.copy_from_slice(&self.fee_recipient);
        }
        let extra = mix_in_length(
            &merkleize(&pack(&self.extra_data), 1),
            self.extra_data.len(),
        );
        let mut leaves = Vec::with_capacity(17);
        leaves.extend_from_slice(&[
            self.parent_hash,
            fee,
            self.state_root,
            self.receipts_root,
            bytes_root(&self.logs_bloom),
            self.prev_randao,
            u64_root(self.block_number),
            u64_root(self.gas_limit),
            u64_root(self.gas_used),
            u64_root(self.timestamp),
            extra,
            self.base_fee_per_gas,
            self.block_hash,
            self.transactions_root,
        ]);
        if layout >= Fork::Capella {
            leaves.push(self.withdrawals_root);
        }
        if layout >= Fork::Deneb {
            leaves.push(u64_root(self.blob_gas_used));
            leaves.push(u64_root(self.excess_blob_gas));
        }
        merkleize(&leaves, leaves.len())
    }
}

impl LightClientHeader {
    /// Bytes of the fixed part of `fork`'s container.
    const fn fixed_len(fork: Fork) -> usize {
        if fork.has_execution() {
            BEACON_BLOCK_HEADER_LEN + 4 + 32 * EXECUTION_DEPTH
        } else {
            BEACON_BLOCK_HEADER_LEN
        }
    }

    /// Whether `fork`'s container has a variable size.
    const fn is_variable(fork: Fork) -> bool {
        fork.has_execution()
    }

    /// Decodes `fork`'s `LightClientHeader`.
    pub fn decode(bytes: &[u8], fork: Fork, path: &str) -> Result<Self, DecodeError> {
        if !fork.has_execution() {
            return Ok(Self {
                beacon: BeaconBlockHeader::decode(bytes, &at(path, "beacon"))?,
                ..Self::empty(fork)
            });
        }
        let fixed = Self::fixed_len(fork);
        let mut r = Fixed::new(bytes, fixed, path)?;
        let beacon =
            BeaconBlockHeader::decode(r.take(BEACON_BLOCK_HEADER_LEN), &at(path, "beacon"))?;
        let offset = r.offset();
        let mut execution_branch = [[0u8; 32]; EXECUTION_DEPTH];
        for node in &mut execution_branch {
            *node = r.array();
        }
        let parts = variable_parts(bytes, fixed, &[offset], path)?;
        let execution = ExecutionPayloadHeader::decode(
            parts.first().copied().unwrap_or_default(),
            fork,
            &at(path, "execution"),
        )?;
        Ok(Self {
            fork,
            beacon,
            execution,
            execution_branch,
        })
    }

    /// Appends the SSZ encoding.
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        self.beacon.encode_to(out);
        if self.fork.has_execution() {
            put_offset(out, Self::fixed_len(self.fork));
            put_branch(out, &self.execution_branch);
            self.execution.encode_to(self.fork, out);
        }
    }

    /// The SSZ encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_to(&mut out);
        out
    }

    /// `hash_tree_root` of the light-client header (not the beacon block root: that is
    /// `self.beacon.hash_tree_root()`).
    pub fn hash_tree_root(&self) -> Root {
        if !self.fork.has_execution() {
            return self.beacon.hash_tree_root();
        }
        merkleize(
            &[
                self.beacon.hash_tree_root(),
                self.execution.hash_tree_root(self.fork),
                branch_root(&self.execution_branch),
            ],
            4,
        )
    }
}

impl SyncCommittee {
    /// Bytes of a committee of `size` members.
    pub const fn len(size: usize) -> usize {
        48 * size + 48
    }

    /// Decodes a committee of `preset.sync_committee_size` members.
    pub fn decode(bytes: &[u8], preset: &Preset, path: &str) -> Result<Self, DecodeError> {
        let size = preset.sync_committee_size;
        let mut r = Fixed::exact(bytes, Self::len(size), path)?;
        let pubkeys = (0..size).map(|_| r.array::<48>()).collect();
        Ok(Self {
            pubkeys,
            aggregate_pubkey: r.array(),
        })
    }

    /// Appends the SSZ encoding.
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        for k in &self.pubkeys {
            put(out, k);
        }
        put(out, &self.aggregate_pubkey);
    }

    /// `hash_tree_root`.
    pub fn hash_tree_root(&self) -> Root {
        let keys: Vec<Root> = self.pubkeys.iter().map(pubkey_root).collect();
        merkleize(
            &[
                merkleize(&keys, keys.len()),
                pubkey_root(&self.aggregate_pubkey),
            ],
            2,
        )
    }
}

impl SyncAggregate {
    /// Bytes of the aggregate of a committee of `size` members.
    pub const fn len(size: usize) -> usize {
        size.div_ceil(8) + 96
    }

    /// Decodes the aggregate of a committee of `preset.sync_committee_size` members.
    pub fn decode(bytes: &[u8], preset: &Preset, path: &str) -> Result<Self, DecodeError> {
        let size = preset.sync_committee_size;
        let mut r = Fixed::exact(bytes, Self::len(size), path)?;
        let bits = r.take(size.div_ceil(8));
        Ok(Self {
            sync_committee_bits: bits.to_vec(),
            sync_committee_signature: r.array(),
        })
    }

    /// Appends the SSZ encoding.
    pub fn encode_to(&self, out: &mut Vec<u8>) {
        put(out, &self.sync_committee_bits);
        put(out, &self.sync_committee_signature);
    }

    /// `hash_tree_root`.
    pub fn hash_tree_root(&self) -> Root {
        let bits = pack(&self.sync_committee_bits);
        merkleize(
            &[
                merkleize(&bits, bits.len()),
                bytes_root(&self.sync_committee_signature),
            ],
            2,
        )
    }
}

/// One field of a container, for [`split`]: its fixed size, or variable (a header from Capella
/// on).
#[derive(Clone, Copy)]
enum Part {
    Fixed(usize),
    Header,
}

/// Splits a container into its fields' bytes, reading the offsets of variable fields.
fn split<'a>(
    bytes: &'a [u8],
    fork: Fork,
    parts: &[Part],
    path: &str,
) -> Result<Vec<&'a [u8]>, DecodeError> {
    let header_len = LightClientHeader::fixed_len(fork);
    let variable = LightClientHeader::is_variable(fork);
    let size = |p: &Part| match p {
        Part::Fixed(n) => *n,
        Part::Header if variable => 4,
        Part::Header => header_len,
    };
    let fixed: usize = parts.iter().map(size).sum();
    let mut r = Fixed::new(bytes, fixed, path)?;
    let mut out = Vec::with_capacity(parts.len());
    let mut offsets = Vec::new();
    for p in parts {
        if variable && matches!(p, Part::Header) {
            offsets.push(r.offset());
            out.push(&[][..]);
        } else {
            out.push(r.take(size(p)));
        }
    }
    if !variable {
        expect_len(bytes, fixed, path)?;
        return Ok(out);
    }
    let mut var = variable_parts(bytes, fixed, &offsets, path)?.into_iter();
    for (p, slot) in parts.iter().zip(out.iter_mut()) {
        if matches!(p, Part::Header) {
            *slot = var.next().unwrap_or_default();
        }
    }
    Ok(out)
}

/// Writes a container: fixed fields in place, headers (variable from Capella on) by offset.
fn join(fork: Fork, fields: &[Field<'_>]) -> Vec<u8> {
    let mut out = Vec::new();
    if !fork.has_execution() {
        for f in fields {
            f.write(&mut out);
        }
        return out;
    }
    let fixed: usize = fields
        .iter()
        .map(|f| match f {
            Field::Header(_) => 4,
            Field::Bytes(b) => b.len(),
        })
        .sum();
    let mut tail = Vec::new();
    for f in fields {
        match f {
            Field::Header(h) => {
                put_offset(&mut out, fixed + tail.len());
                h.encode_to(&mut tail);
            }
            Field::Bytes(b) => put(&mut out, b),
        }
    }
    put(&mut out, &tail);
    out
}

enum Field<'a> {
    Header(&'a LightClientHeader),
    Bytes(Vec<u8>),
}

impl Field<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Field::Header(h) => h.encode_to(out),
            Field::Bytes(b) => put(out, b),
        }
    }
}

/// The SSZ encoding `encode_to` appends.
fn bytes_of(encode_to: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut v = Vec::new();
    encode_to(&mut v);
    v
}

fn read_branch(bytes: &[u8], depth: usize, path: &str) -> Result<Vec<Root>, DecodeError> {
    Ok(Fixed::exact(bytes, 32 * depth, path)?.branch(depth))
}

fn read_slot(bytes: &[u8], path: &str) -> Result<u64, DecodeError> {
    Ok(Fixed::exact(bytes, 8, path)?.u64())
}

/// The codec of a light-client container from its fields in order, each with its kind:
/// `decode` (errors name `path.field`), `encode` (in the fork of the header named by `fork`) and
/// `hash_tree_root`. A kind says how its field is split off, read, written and hashed (`@part`,
/// `@read`, `@write`, `@root`).
macro_rules! container {
    ($name:ident, $path:literal, fork of $fork:ident { $($field:ident: $kind:ident,)+ }) => {
        impl $name {
            #[doc = concat!("Decodes `fork`'s `", stringify!($name), "`.")]
            pub fn decode(bytes: &[u8], fork: Fork, preset: &Preset) -> Result<Self, DecodeError> {
                let size = preset.sync_committee_size;
                let parts = [$(container!(@part $kind, fork, size)),+];
                let mut parts = split(bytes, fork, &parts, $path)?.into_iter();
                Ok(Self {
                    $($field: {
                        let bytes = parts.next().unwrap_or_default();
                        let path = concat!($path, ".", stringify!($field));
                        container!(@read $kind, bytes, fork, preset, path)?
                    },)+
                })
            }

            #[doc = concat!("The SSZ encoding (in the fork of its `", stringify!($fork), "`).")]
            pub fn encode(&self) -> Vec<u8> {
                join(self.$fork.fork, &[$(container!(@write $kind, &self.$field)),+])
            }

            /// `hash_tree_root`.
            pub fn hash_tree_root(&self) -> Root {
                let roots = [$(container!(@root $kind, &self.$field)),+];
                merkleize(&roots, roots.len())
            }
        }
    };
    (@part Header, $fork:ident, $size:ident) => { Part::Header };
    (@part Committee, $fork:ident, $size:ident) => { Part::Fixed(SyncCommittee::len($size)) };
    (@part CommitteeBranch, $fork:ident, $size:ident) => {
        Part::Fixed(32 * $fork.sync_committee_depth())
    };
    (@part FinalityBranch, $fork:ident, $size:ident) => { Part::Fixed(32 * $fork.finality_depth()) };
    (@part Aggregate, $fork:ident, $size:ident) => { Part::Fixed(SyncAggregate::len($size)) };
    (@part Slot, $fork:ident, $size:ident) => { Part::Fixed(8) };
    (@read Header, $b:ident, $fork:ident, $preset:ident, $path:ident) => {
        LightClientHeader::decode($b, $fork, $path)
    };
    (@read Committee, $b:ident, $fork:ident, $preset:ident, $path:ident) => {
        SyncCommittee::decode($b, $preset, $path)
    };
    (@read CommitteeBranch, $b:ident, $fork:ident, $preset:ident, $path:ident) => {
        read_branch($b, $fork.sync_committee_depth(), $path)
    };
    (@read FinalityBranch, $b:ident, $fork:ident, $preset:ident, $path:ident) => {
        read_branch($b, $fork.finality_depth(), $path)
    };
    (@read Aggregate, $b:ident, $fork:ident, $preset:ident, $path:ident) => {
        SyncAggregate::decode($b, $preset, $path)
    };
    (@read Slot, $b:ident, $fork:ident, $preset:ident, $path:ident) => { read_slot($b, $path) };
    (@write Header, $v:expr) => { Field::Header($v) };
    (@write Committee, $v:expr) => { Field::Bytes(bytes_of(|out| $v.encode_to(out))) };
    (@write CommitteeBranch, $v:expr) => { Field::Bytes(bytes_of(|out| put_branch(out, $v))) };
    (@write FinalityBranch, $v:expr) => { Field::Bytes(bytes_of(|out| put_branch(out, $v))) };
    (@write Aggregate, $v:expr) => { Field::Bytes(bytes_of(|out| $v.encode_to(out))) };
    (@write Slot, $v:expr) => { Field::Bytes($v.to_le_bytes().to_vec()) };
    (@root CommitteeBranch, $v:expr) => { branch_root($v) };
    (@root FinalityBranch, $v:expr) => { branch_root($v) };
    (@root Slot, $v:expr) => { u64_root(*$v) };
    (@root $kind:ident, $v:expr) => { $v.hash_tree_root() };
}

container!(LightClientBootstrap, "bootstrap", fork of header {
    header: Header,
    current_sync_committee: Committee,
    current_sync_committee_branch: CommitteeBranch,
});

container!(LightClientUpdate, "update", fork of attested_header {
    attested_header: Header,
    next_sync_committee: Committee,
    next_sync_committee_branch: CommitteeBranch,
    finalized_header: Header,
    finality_branch: FinalityBranch,
    sync_aggregate: Aggregate,
    signature_slot: Slot,
});

container!(LightClientFinalityUpdate, "finality_update", fork of attested_header {
    attested_header: Header,
    finalized_header: Header,
    finality_branch: FinalityBranch,
    sync_aggregate: Aggregate,
    signature_slot: Slot,
});

container!(LightClientOptimisticUpdate, "optimistic_update", fork of attested_header {
    attested_header: Header,
    sync_aggregate: Aggregate,
    signature_slot: Slot,
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merkleize_pads_with_zero_subtrees() {
        let a = [1u8; 32];
        let z = [0u8; 32];
        assert_eq!(merkleize(&[a], 1), a);
        assert_eq!(merkleize(&[a], 2), hash_pair(&a, &z));
        assert_eq!(
            merkleize(&[a], 4),
            hash_pair(&hash_pair(&a, &z), &hash_pair(&z, &z))
        );
        assert_eq!(merkleize(&[], 2), hash_pair(&z, &z));
    }

    #[test]
    fn worked_example_of_docs_proofs_md() {
        let bytes = ::hex::decode(
            "1000000000000000\
             2500000000000000\
             5d73a3ff836ece90d81ab395b970c56ec848e5d9fc6438d801aca923edf74c7c\
             0135e35e66c418262757703722f873ecd70ce73c5d56e299b94a59bdf469e5b7\
             2fafb34536be96df08cae9d40b7ad736ea5499ccdd0cd4fd9431a008bc347a6e",
        )
        .unwrap();
        let h = BeaconBlockHeader::decode(&bytes, "header").unwrap();
        assert_eq!((h.slot, h.proposer_index), (16, 37));
        assert_eq!(
            ::hex::encode(h.hash_tree_root()),
            "640977acd146f22cf29725695aa2f0fb7198f44ebd1547d239d3f3e6386dcb87"
        );
        let mut out = Vec::new();
        h.encode_to(&mut out);
        assert_eq!(out, bytes);
    }

    #[test]
    fn update_decoder_rejects_offsets_that_do_not_end_the_fixed_part() {
        let preset = Preset::MINIMAL;
        let h = LightClientHeader::empty(Fork::Capella);
        let u = LightClientOptimisticUpdate {
            attested_header: h,
            sync_aggregate: SyncAggregate {
                sync_committee_bits: alloc::vec![0; 4],
                sync_committee_signature: [0; 96],
            },
            signature_slot: 1,
        };
        let mut bytes = u.encode();
        assert_eq!(
            LightClientOptimisticUpdate::decode(&bytes, Fork::Capella, &preset).as_ref(),
            Ok(&u)
        );
        if let Some(b) = bytes.first_mut() {
            *b = b.wrapping_add(1);
        }
        let e = LightClientOptimisticUpdate::decode(&bytes, Fork::Capella, &preset);
        assert_eq!(e.map_err(|e| e.field), Err("optimistic_update".into()));
    }
}
