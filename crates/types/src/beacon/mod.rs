//! The beacon family: the beacon chain's sync-committee light-client protocol (Altair light
//! client, Ethereum consensus specs `specs/altair/light-client/sync-protocol.md` and its Capella,
//! Deneb and Electra revisions). A bootstrap is checked against a trusted block root, then every
//! update against the sync committee the store holds: an aggregate BLS signature of the committee
//! over an attested header, and Merkle branches from that header's state to a finalized header
//! and to the next committee. The verified execution payload header of the finalized or attested
//! beacon block gives the execution block's number, hash and state root, the trusted header the
//! other families' proofs are checked against.
//!
//! The family has no commitment in an execution header: what it proves *is* a header, and its
//! trust anchor is a beacon block root (a weak-subjectivity checkpoint).
//!
//! The containers here are the light-client containers of the specification, for every fork
//! from Altair to Fulu, decoded from and encoded to SSZ ([`codec`]'s size-checked readers) with
//! their `hash_tree_root`. One in-memory form serves every fork: a field a fork does not have is
//! zero, and the [`Fork`] a value was decoded as is kept so that it encodes back to the same
//! bytes. Networks (fork versions and epochs, genesis validators root, preset) are data
//! ([`Network`]).

pub mod codec;
mod error;
mod network;

pub use codec::*;
pub use error::{BeaconError, Branch};
pub use network::{ForkSchedule, Network, ObjectKind, Preset};

use alloc::vec::Vec;

use crate::{
    ErrorCode as E,
    family::{Family, Tamper},
};

/// A beacon-chain slot.
pub type Slot = u64;

/// A 32-byte SSZ root or chunk.
pub type Root = [u8; 32];

/// A compressed BLS12-381 public key (G1).
pub type PublicKeyBytes = [u8; 48];

/// A compressed BLS12-381 signature (G2).
pub type SignatureBytes = [u8; 96];

/// The forks that define or change light-client containers or rules, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fork {
    /// Light-client headers are beacon block headers.
    Altair = 0,
    /// The same containers as Altair (the execution payload exists but light-client headers do
    /// not carry it yet).
    Bellatrix = 1,
    /// Headers carry the execution payload header and its branch to the block body.
    Capella = 2,
    /// The execution payload header gains the blob gas fields.
    Deneb = 3,
    /// The beacon state grows: finality and sync-committee branches are one level deeper.
    Electra = 4,
    /// No light-client change (its containers are Electra's).
    Fulu = 5,
}

impl Fork {
    /// Every fork, in order.
    pub const ALL: [Fork; 6] = [
        Fork::Altair,
        Fork::Bellatrix,
        Fork::Capella,
        Fork::Deneb,
        Fork::Electra,
        Fork::Fulu,
    ];

    /// The fork's name as the beacon API spells it (`Eth-Consensus-Version`).
    pub const fn name(self) -> &'static str {
        match self {
            Fork::Altair => "altair",
            Fork::Bellatrix => "bellatrix",
            Fork::Capella => "capella",
            Fork::Deneb => "deneb",
            Fork::Electra => "electra",
            Fork::Fulu => "fulu",
        }
    }

    /// The fork named `name`.
    pub fn from_name(name: &str) -> Option<Fork> {
        // The names start with `a` to `f`, in the forks' order.
        let i = name.as_bytes().first()?.checked_sub(b'a')?;
        Fork::ALL
            .get(usize::from(i))
            .copied()
            .filter(|f| f.name() == name)
    }

    /// Whether light-client headers of this fork carry the execution payload header.
    pub const fn has_execution(self) -> bool {
        self as u8 >= Fork::Capella as u8
    }

    /// Depth of the finality branch in this fork's containers (`floorlog2(FINALIZED_ROOT_GINDEX)`).
    pub const fn finality_depth(self) -> usize {
        if self as u8 >= Fork::Electra as u8 {
            7
        } else {
            6
        }
    }

    /// Depth of the sync-committee branches in this fork's containers.
    pub const fn sync_committee_depth(self) -> usize {
        if self as u8 >= Fork::Electra as u8 {
            6
        } else {
            5
        }
    }

    /// The generalized index of the finalized checkpoint's root in this fork's `BeaconState`.
    pub const fn finalized_root_gindex(self) -> u64 {
        if self as u8 >= Fork::Electra as u8 {
            169
        } else {
            105
        }
    }

    /// The generalized index of `current_sync_committee` in this fork's `BeaconState`.
    pub const fn current_sync_committee_gindex(self) -> u64 {
        if self as u8 >= Fork::Electra as u8 {
            86
        } else {
            54
        }
    }

    /// The generalized index of `next_sync_committee` in this fork's `BeaconState`.
    pub const fn next_sync_committee_gindex(self) -> u64 {
        self.current_sync_committee_gindex() + 1
    }
}

/// `EXECUTION_PAYLOAD_GINDEX`: the execution payload in a `BeaconBlockBody` (Capella on).
pub const EXECUTION_PAYLOAD_GINDEX: u64 = 25;

/// Depth of the execution branch (`floorlog2(EXECUTION_PAYLOAD_GINDEX)`).
pub const EXECUTION_DEPTH: usize = 4;

/// `DOMAIN_SYNC_COMMITTEE`.
pub const DOMAIN_SYNC_COMMITTEE: [u8; 4] = [7, 0, 0, 0];

/// `BeaconBlockHeader`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BeaconBlockHeader {
    /// `slot`.
    pub slot: Slot,
    /// `proposer_index`.
    pub proposer_index: u64,
    /// `parent_root`.
    pub parent_root: Root,
    /// `state_root`: the beacon state after the block.
    pub state_root: Root,
    /// `body_root`.
    pub body_root: Root,
}

/// `ExecutionPayloadHeader` of Bellatrix (14 fields), Capella (15) or Deneb through Fulu (17).
/// Fields of later forks are zero in earlier ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutionPayloadHeader {
    /// `parent_hash`.
    pub parent_hash: Root,
    /// `fee_recipient`.
    pub fee_recipient: [u8; 20],
    /// `state_root`: the execution state root the other families' proofs are checked against.
    pub state_root: Root,
    /// `receipts_root`.
    pub receipts_root: Root,
    /// `logs_bloom`.
    pub logs_bloom: [u8; 256],
    /// `prev_randao`.
    pub prev_randao: Root,
    /// `block_number`.
    pub block_number: u64,
    /// `gas_limit`.
    pub gas_limit: u64,
    /// `gas_used`.
    pub gas_used: u64,
    /// `timestamp`.
    pub timestamp: u64,
    /// `extra_data` (at most [`MAX_EXTRA_DATA_BYTES`]).
    pub extra_data: Vec<u8>,
    /// `base_fee_per_gas`, a uint256 as its 32 little-endian SSZ bytes.
    pub base_fee_per_gas: [u8; 32],
    /// `block_hash`: the execution block's hash.
    pub block_hash: Root,
    /// `transactions_root`.
    pub transactions_root: Root,
    /// `withdrawals_root` (Capella on).
    pub withdrawals_root: Root,
    /// `blob_gas_used` (Deneb on).
    pub blob_gas_used: u64,
    /// `excess_blob_gas` (Deneb on).
    pub excess_blob_gas: u64,
}

impl Default for ExecutionPayloadHeader {
    fn default() -> Self {
        Self {
            parent_hash: [0; 32],
            fee_recipient: [0; 20],
            state_root: [0; 32],
            receipts_root: [0; 32],
            logs_bloom: [0; 256],
            prev_randao: [0; 32],
            block_number: 0,
            gas_limit: 0,
            gas_used: 0,
            timestamp: 0,
            extra_data: Vec::new(),
            base_fee_per_gas: [0; 32],
            block_hash: [0; 32],
            transactions_root: [0; 32],
            withdrawals_root: [0; 32],
            blob_gas_used: 0,
            excess_blob_gas: 0,
        }
    }
}

/// Whether every byte of `parts` is zero.
fn zero(parts: &[&[u8]]) -> bool {
    parts.iter().all(|p| p.iter().all(|b| *b == 0))
}

impl ExecutionPayloadHeader {
    /// Whether every field is zero (the spec's `ExecutionPayloadHeader()`).
    pub fn is_empty(&self) -> bool {
        self.extra_data.is_empty()
            && (self.block_number
                | self.gas_limit
                | self.gas_used
                | self.timestamp
                | self.blob_gas_used
                | self.excess_blob_gas)
                == 0
            && zero(&[
                &self.parent_hash,
                &self.fee_recipient,
                &self.state_root,
                &self.receipts_root,
                &self.logs_bloom,
                &self.prev_randao,
                &self.base_fee_per_gas,
                &self.block_hash,
                &self.transactions_root,
                &self.withdrawals_root,
            ])
    }
}

/// `LightClientHeader`: the beacon block header and, from Capella on, the execution payload
/// header with its branch to the block body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LightClientHeader {
    /// The fork whose container this was decoded as (decides its encoding).
    pub fork: Fork,
    /// `beacon`.
    pub beacon: BeaconBlockHeader,
    /// `execution` (zero before Capella).
    pub execution: ExecutionPayloadHeader,
    /// `execution_branch` (zero before Capella).
    pub execution_branch: [Root; EXECUTION_DEPTH],
}

impl LightClientHeader {
    /// The empty header of `fork`'s container.
    pub fn empty(fork: Fork) -> Self {
        Self {
            fork,
            beacon: BeaconBlockHeader::default(),
            execution: ExecutionPayloadHeader::default(),
            execution_branch: [[0; 32]; EXECUTION_DEPTH],
        }
    }

    /// Whether every field is zero (the spec's `LightClientHeader()`, in any fork's container).
    pub fn is_empty(&self) -> bool {
        let b = &self.beacon;
        b.slot == 0
            && b.proposer_index == 0
            && zero(&[&b.parent_root, &b.state_root, &b.body_root])
            && self.execution.is_empty()
            && zero(&self.execution_branch.each_ref().map(|r| &r[..]))
    }
}

/// `SyncCommittee`: the members' public keys and their aggregate, as compressed points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncCommittee {
    /// `pubkeys` ([`Preset::sync_committee_size`] of them).
    pub pubkeys: Vec<PublicKeyBytes>,
    /// `aggregate_pubkey`.
    pub aggregate_pubkey: PublicKeyBytes,
}

impl SyncCommittee {
    /// The all-zero committee of `size` members (the spec's `SyncCommittee()`).
    pub fn empty(size: usize) -> Self {
        Self {
            pubkeys: alloc::vec![[0; 48]; size],
            aggregate_pubkey: [0; 48],
        }
    }

    /// Whether every key is zero.
    pub fn is_empty(&self) -> bool {
        zero(&[&self.aggregate_pubkey]) && self.pubkeys.iter().all(|k| zero(&[k]))
    }
}

/// `SyncAggregate`: which members signed, and their aggregate signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncAggregate {
    /// `sync_committee_bits`, as its SSZ bytes (bit `i` of the committee is bit `i % 8` of byte
    /// `i / 8`).
    pub sync_committee_bits: Vec<u8>,
    /// `sync_committee_signature`.
    pub sync_committee_signature: SignatureBytes,
}

impl SyncAggregate {
    /// How many members signed.
    pub fn participants(&self) -> usize {
        self.sync_committee_bits
            .iter()
            .map(|b| b.count_ones() as usize)
            .sum()
    }

    /// Whether member `i` signed.
    pub fn signed(&self, i: usize) -> bool {
        self.sync_committee_bits
            .get(i / 8)
            .is_some_and(|b| b >> (i % 8) & 1 == 1)
    }

    /// The committee's size: the bitfield's bits.
    pub fn committee_size(&self) -> usize {
        self.sync_committee_bits.len().saturating_mul(8)
    }
}

/// `LightClientBootstrap`: a header, the sync committee of its period and the branch from its
/// state root to that committee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LightClientBootstrap {
    /// `header`.
    pub header: LightClientHeader,
    /// `current_sync_committee`.
    pub current_sync_committee: SyncCommittee,
    /// `current_sync_committee_branch`.
    pub current_sync_committee_branch: Vec<Root>,
}

/// `LightClientUpdate`, and the finality and optimistic updates as the spec reads them (an
/// update whose absent fields are empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LightClientUpdate {
    /// `attested_header`: the header the sync committee signed.
    pub attested_header: LightClientHeader,
    /// `next_sync_committee` (empty if the update does not carry it).
    pub next_sync_committee: SyncCommittee,
    /// `next_sync_committee_branch` (zero if absent).
    pub next_sync_committee_branch: Vec<Root>,
    /// `finalized_header` (empty if the update proves no finality).
    pub finalized_header: LightClientHeader,
    /// `finality_branch` (zero if absent).
    pub finality_branch: Vec<Root>,
    /// `sync_aggregate`.
    pub sync_aggregate: SyncAggregate,
    /// `signature_slot`: the slot of the block that carries the signature.
    pub signature_slot: Slot,
}

impl LightClientUpdate {
    /// `is_sync_committee_update`: whether the update carries a next sync committee branch.
    pub fn is_sync_committee_update(&self) -> bool {
        self.next_sync_committee_branch
            .iter()
            .any(|r| *r != [0; 32])
    }

    /// `is_finality_update`: whether the update carries a finality branch.
    pub fn is_finality_update(&self) -> bool {
        self.finality_branch.iter().any(|r| *r != [0; 32])
    }
}

/// `LightClientFinalityUpdate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LightClientFinalityUpdate {
    /// `attested_header`.
    pub attested_header: LightClientHeader,
    /// `finalized_header`.
    pub finalized_header: LightClientHeader,
    /// `finality_branch`.
    pub finality_branch: Vec<Root>,
    /// `sync_aggregate`.
    pub sync_aggregate: SyncAggregate,
    /// `signature_slot`.
    pub signature_slot: Slot,
}

/// `LightClientOptimisticUpdate`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LightClientOptimisticUpdate {
    /// `attested_header`.
    pub attested_header: LightClientHeader,
    /// `sync_aggregate`.
    pub sync_aggregate: SyncAggregate,
    /// `signature_slot`.
    pub signature_slot: Slot,
}

impl LightClientFinalityUpdate {
    /// The update the spec processes for it (no next sync committee; a zero branch of the
    /// fork's depth).
    pub fn into_update(self, committee_size: usize) -> LightClientUpdate {
        let mut u = LightClientOptimisticUpdate {
            attested_header: self.attested_header,
            sync_aggregate: self.sync_aggregate,
            signature_slot: self.signature_slot,
        }
        .into_update(committee_size);
        u.finalized_header = self.finalized_header;
        u.finality_branch = self.finality_branch;
        u
    }
}

impl LightClientOptimisticUpdate {
    /// The update the spec processes for it (no finality, no next sync committee).
    pub fn into_update(self, committee_size: usize) -> LightClientUpdate {
        let fork = self.attested_header.fork;
        LightClientUpdate {
            attested_header: self.attested_header,
            next_sync_committee: SyncCommittee::empty(committee_size),
            next_sync_committee_branch: alloc::vec![[0; 32]; fork.sync_committee_depth()],
            finalized_header: LightClientHeader::empty(fork),
            finality_branch: alloc::vec![[0; 32]; fork.finality_depth()],
            sync_aggregate: self.sync_aggregate,
            signature_slot: self.signature_slot,
        }
    }
}

/// The beacon family's registry entry (in [`crate::FAMILIES`]). It has no header commitment:
/// what it trusts is a checkpoint block root the application gives, not a field of a header.
pub const FAMILY: Family = Family {
    name: "beacon",
    about: "a beacon block header and its execution payload header, followed from a trusted checkpoint by sync-committee signatures",
    commitments: &[],
    max_history_blocks: None,
    codes: &[
        E::BadEncoding,
        E::CheckpointMismatch,
        E::LowParticipation,
        E::SlotOrder,
        E::PeriodMismatch,
        E::StaleUpdate,
        E::UnexpectedField,
        E::FinalityBranchMismatch,
        E::SyncCommitteeBranchMismatch,
        E::ExecutionBranchMismatch,
        E::SyncCommitteeMismatch,
        E::BadSyncSignature,
    ],
    tampers: &[
        Tamper::new(
            "bootstrap-wrong-checkpoint",
            E::CheckpointMismatch,
            "a bootstrap checked against another block root",
        ),
        Tamper::new(
            "bootstrap-committee-branch",
            E::SyncCommitteeBranchMismatch,
            "one node of the bootstrap's current sync committee branch changed",
        ),
        Tamper::new(
            "no-participants",
            E::LowParticipation,
            "every participation bit cleared",
        ),
        Tamper::new(
            "signature-slot-not-after-attested",
            E::SlotOrder,
            "the signature slot moved to the attested header's slot",
        ),
        Tamper::new(
            "signature-period-too-far",
            E::PeriodMismatch,
            "the signature slot moved two periods ahead",
        ),
        Tamper::new(
            "attested-not-newer",
            E::StaleUpdate,
            "a signed update over a header older than the finalized one, bringing no committee",
        ),
        Tamper::new(
            "finalized-header-without-branch",
            E::UnexpectedField,
            "a finalized header with a zero finality branch",
        ),
        Tamper::new(
            "finality-branch",
            E::FinalityBranchMismatch,
            "one node of the finality branch changed",
        ),
        Tamper::new(
            "next-committee-branch",
            E::SyncCommitteeBranchMismatch,
            "one node of the next sync committee branch changed",
        ),
        Tamper::new(
            "execution-branch",
            E::ExecutionBranchMismatch,
            "one node of the attested header's execution branch changed",
        ),
        Tamper::new(
            "execution-state-root",
            E::ExecutionBranchMismatch,
            "the execution payload header's state root changed",
        ),
        Tamper::new(
            "next-committee-differs",
            E::SyncCommitteeMismatch,
            "a next sync committee other than the one the store verified",
        ),
        Tamper::new(
            "signature-bit-flipped",
            E::BadSyncSignature,
            "one bit of the aggregate signature flipped",
        ),
        Tamper::new(
            "participation-bit-flipped",
            E::BadSyncSignature,
            "one participation bit flipped",
        ),
        Tamper::new(
            "other-period-committee",
            E::BadSyncSignature,
            "signed by the sync committee of another period",
        ),
        Tamper::new(
            "other-network",
            E::BadSyncSignature,
            "checked with another network's genesis validators root",
        ),
        Tamper::new(
            "truncated",
            E::BadEncoding,
            "the last byte of the SSZ encoding removed",
        ),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tampers_are_unique_and_answer_codes_of_the_family() {
        for (i, t) in FAMILY.tampers.iter().enumerate() {
            assert!(
                FAMILY.tampers[..i].iter().all(|o| o.name != t.name),
                "{}",
                t.name
            );
            assert!(FAMILY.codes.contains(&t.code), "{}", t.name);
        }
    }

    #[test]
    fn emptiness_is_every_field_zero() {
        let mut h = LightClientHeader::empty(Fork::Deneb);
        assert!(h.is_empty());
        h.execution.excess_blob_gas = 1;
        assert!(!h.is_empty());
        h.execution.excess_blob_gas = 0;
        h.execution.extra_data.push(0);
        assert!(!h.is_empty());
        h.execution.extra_data.clear();
        h.execution_branch[3][31] = 1;
        assert!(!h.is_empty());
        h.execution_branch[3][31] = 0;
        h.beacon.proposer_index = 1;
        assert!(!h.is_empty());
        let mut c = SyncCommittee::empty(4);
        assert!(c.is_empty());
        c.pubkeys[3][47] = 1;
        assert!(!c.is_empty());
    }

    #[test]
    fn generalized_indices_are_each_forks() {
        assert_eq!(Fork::Deneb.finalized_root_gindex(), 105);
        assert_eq!(Fork::Fulu.finalized_root_gindex(), 169);
        assert_eq!(Fork::Capella.next_sync_committee_gindex(), 55);
        assert_eq!(Fork::Electra.current_sync_committee_gindex(), 86);
        assert_eq!(1 << Fork::Electra.finality_depth(), 128);
        for f in Fork::ALL {
            assert_eq!(Fork::from_name(f.name()), Some(f));
        }
        assert_eq!(Fork::from_name("gloas"), None);
        assert_eq!(Fork::from_name("altai"), None);
        assert_eq!(Fork::from_name(""), None);
    }
}
