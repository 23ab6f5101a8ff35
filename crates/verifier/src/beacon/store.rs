//! The light-client store and the specification's functions over it
//! (`specs/altair/light-client/sync-protocol.md` with the Capella, Deneb and Electra revisions):
//! `initialize_light_client_store` ([`LightClientStore::bootstrap`]),
//! `validate_light_client_update` ([`LightClientStore::validate_update`]),
//! `process_light_client_update` ([`LightClientStore::process_update`]),
//! `process_light_client_store_force_update` ([`LightClientStore::force_update`]) and
//! `is_better_update` ([`is_better_update`]).
//!
//! One store type serves every fork: the containers of every fork decode to one form (a field a
//! fork lacks is zero), and what changed between forks — the generalized indices of the
//! finality and sync-committee branches, the execution payload header's fields — is chosen by
//! the slot of the header at hand against the [`Network`]'s fork schedule, as the
//! specification's `*_gindex_at_slot` and `get_lc_execution_root` do. Branches of an older
//! fork's container are checked as the specification's normalized branches.
//!
//! The store keeps the decompressed public keys of its current and next sync committees: a key
//! is decompressed (with its subgroup check) the first time a signature needs it, and the keys
//! move with the committee when the period rolls over. A signature by most of the committee is
//! checked against the committee's aggregate key less the absent members' keys.

use alloc::vec::Vec;

use ark_ff::Zero;

use super::bls::{G1Affine, G1Projective};
use lightprov_types::DecodeError;
use lightprov_types::beacon::{
    BeaconError, Branch, DOMAIN_SYNC_COMMITTEE, EXECUTION_PAYLOAD_GINDEX, Fork,
    LightClientBootstrap, LightClientFinalityUpdate, LightClientHeader,
    LightClientOptimisticUpdate, LightClientUpdate, Network, Root, Slot, SyncAggregate,
    SyncCommittee, hash_pair,
};

use super::{
    bls,
    merkle::{BranchFault, check_normalized},
};

/// `GENESIS_SLOT`.
const GENESIS_SLOT: Slot = 0;

/// The field names of one header of the input, for evidence.
#[derive(Clone, Copy)]
struct HeaderNames {
    execution: &'static str,
    execution_branch: &'static str,
}

/// The field names of the header at `$path`.
macro_rules! header_names {
    ($path:literal) => {
        HeaderNames {
            execution: concat!($path, ".execution"),
            execution_branch: concat!($path, ".execution_branch"),
        }
    };
}

const BOOTSTRAP_HEADER: HeaderNames = header_names!("bootstrap.header");
const ATTESTED_HEADER: HeaderNames = header_names!("update.attested_header");
const SAVED_FINALIZED: HeaderNames = header_names!("store.finalized_header");
const SAVED_OPTIMISTIC: HeaderNames = header_names!("store.optimistic_header");
const FINALIZED_HEADER: HeaderNames = header_names!("update.finalized_header");

/// `compute_domain(domain_type, fork_version, genesis_validators_root)`.
pub fn compute_domain(domain_type: [u8; 4], fork_version: [u8; 4], gvr: &Root) -> Root {
    let mut version = [0u8; 32];
    if let Some(dst) = version.get_mut(..4) {
        dst.copy_from_slice(&fork_version);
    }
    let fork_data_root = hash_pair(&version, gvr);
    let mut domain = [0u8; 32];
    if let (Some(head), Some(tail)) = (domain.get_mut(..4), fork_data_root.get(..28)) {
        head.copy_from_slice(&domain_type);
        if let Some(rest) = domain.get_mut(4..) {
            rest.copy_from_slice(tail);
        }
    }
    domain
}

/// `compute_signing_root(object_root, domain)`.
pub fn compute_signing_root(object_root: &Root, domain: &Root) -> Root {
    hash_pair(object_root, domain)
}

/// The root the sync committee signs for `update`: its attested beacon block root in the
/// sync-committee domain of the fork in force at the slot before the signature slot.
pub fn sync_committee_signing_root(network: &Network, update: &LightClientUpdate) -> Root {
    let fork_version_slot = update.signature_slot.max(1) - 1;
    let fork_version = network.fork_version_at_epoch(network.preset.epoch(fork_version_slot));
    let domain = compute_domain(
        DOMAIN_SYNC_COMMITTEE,
        fork_version,
        &network.genesis_validators_root,
    );
    compute_signing_root(&update.attested_header.beacon.hash_tree_root(), &domain)
}

/// `get_lc_execution_root(header)`: the root of the execution payload header as the container
/// of the fork at the header's slot (Capella's or Deneb's), zero before Capella.
pub fn execution_root(network: &Network, header: &LightClientHeader) -> Root {
    let slot = header.beacon.slot;
    if network.is_active(Fork::Deneb, slot) {
        header.execution.hash_tree_root(Fork::Deneb)
    } else if network.is_active(Fork::Capella, slot) {
        header.execution.hash_tree_root(Fork::Capella)
    } else {
        [0; 32]
    }
}

/// The fork whose generalized indices hold at `slot` (Electra's from Electra on, Altair's before).
fn gindex_fork(network: &Network, slot: Slot) -> Fork {
    if network.is_active(Fork::Electra, slot) {
        Fork::Electra
    } else {
        Fork::Altair
    }
}

/// `is_valid_light_client_header(header)`, naming the field at fault.
fn check_header(
    network: &Network,
    header: &LightClientHeader,
    names: HeaderNames,
) -> Result<(), BeaconError> {
    let slot = header.beacon.slot;
    if !network.is_active(Fork::Capella, slot) {
        if !header.execution.is_empty() {
            return Err(BeaconError::UnexpectedField {
                field: names.execution,
                reason: "no execution data before Capella",
            });
        }
        if header.execution_branch != [[0; 32]; 4] {
            return Err(BeaconError::UnexpectedField {
                field: names.execution_branch,
                reason: "no execution data before Capella",
            });
        }
        return Ok(());
    }
    if !network.is_active(Fork::Deneb, slot)
        && (header.execution.blob_gas_used != 0 || header.execution.excess_blob_gas != 0)
    {
        return Err(BeaconError::UnexpectedField {
            field: names.execution,
            reason: "a header before Deneb has no blob gas",
        });
    }
    branch(
        &execution_root(network, header),
        &header.execution_branch,
        EXECUTION_PAYLOAD_GINDEX,
        &header.beacon.body_root,
        Branch::Execution,
        names.execution_branch,
    )
}

/// A normalized branch check with the evidence of its failure.
fn branch(
    leaf: &Root,
    nodes: &[Root],
    gindex: u64,
    root: &Root,
    which: Branch,
    field: &'static str,
) -> Result<(), BeaconError> {
    check_normalized(leaf, nodes, gindex, root).map_err(|fault| match fault {
        BranchFault::TooShort => {
            BeaconError::Decode(DecodeError::new(field, "shorter than its depth"))
        }
        BranchFault::NonZeroPadding => BeaconError::UnexpectedField {
            field,
            reason: "nodes above the branch's depth must be zero",
        },
        BranchFault::Leads(found) => BeaconError::BranchMismatch {
            branch: which,
            field,
            expected: *root,
            found,
        },
    })
}

/// A committee of the store: its keys as given, each key decompressed (with its subgroup
/// check) the first time a signature needs it, and its root the first time an update proves it
/// again.
#[derive(Clone, Debug)]
struct Committee {
    keys: SyncCommittee,
    points: Vec<Option<G1Affine>>,
    total: Option<G1Affine>,
    root: Option<Root>,
}

fn bad_key(field: &'static str) -> BeaconError {
    BeaconError::BadSyncSignature {
        field,
        reason: "a committee key is not a valid public key",
    }
}

impl Committee {
    fn new(keys: SyncCommittee) -> Self {
        Self {
            points: alloc::vec![None; keys.pubkeys.len()],
            keys,
            total: None,
            root: None,
        }
    }

    /// The committee, unless it is the empty one (`is_next_sync_committee_known` is false for
    /// an empty next committee).
    fn known(keys: SyncCommittee) -> Option<Self> {
        (!keys.is_empty()).then(|| Self::new(keys))
    }

    /// `hash_tree_root` of the keys, computed once.
    fn root(&mut self) -> Root {
        if let Some(r) = self.root {
            return r;
        }
        let r = self.keys.hash_tree_root();
        self.root = Some(r);
        r
    }

    /// Member `i`'s key.
    fn point(&mut self, i: usize) -> Result<G1Affine, BeaconError> {
        let slot = self
            .points
            .get_mut(i)
            .ok_or(bad_key("sync_committee.pubkeys"))?;
        if let Some(p) = slot {
            return Ok(*p);
        }
        let bytes = self
            .keys
            .pubkeys
            .get(i)
            .ok_or(bad_key("sync_committee.pubkeys"))?;
        let p = bls::public_key(bytes).ok_or(bad_key("sync_committee.pubkeys"))?;
        *slot = Some(p);
        Ok(p)
    }

    /// The sum of the keys of the members `aggregate` says signed. With more than half
    /// signing, it is the committee's `aggregate_pubkey` less the absent members' keys: the
    /// committee is proven as a whole (its root covers `aggregate_pubkey`), and the beacon
    /// state holds there the sum of its keys (`eth_aggregate_pubkeys`), so few keys are ever
    /// decompressed (a cold committee costs about as much as a cached one).
    fn signers_key(&mut self, aggregate: &SyncAggregate) -> Result<G1Projective, BeaconError> {
        let size = self.keys.pubkeys.len();
        if aggregate.participants().saturating_mul(2) > size {
            let total = match self.total {
                Some(t) => t,
                None => {
                    let t = bls::public_key(&self.keys.aggregate_pubkey)
                        .ok_or(bad_key("sync_committee.aggregate_pubkey"))?;
                    self.total = Some(t);
                    t
                }
            };
            let mut acc = G1Projective::from(total);
            for i in (0..size).filter(|i| !aggregate.signed(*i)) {
                bls::g1_sub(&mut acc, &self.point(i)?);
            }
            Ok(acc)
        } else {
            let mut acc = G1Projective::zero();
            for i in (0..size).filter(|i| aggregate.signed(*i)) {
                bls::g1_add(&mut acc, &self.point(i)?);
            }
            Ok(acc)
        }
    }
}

/// `LightClientStore`, for one network.
#[derive(Clone, Debug)]
pub struct LightClientStore {
    network: Network,
    finalized_header: LightClientHeader,
    current: Committee,
    next: Option<Committee>,
    best_valid_update: Option<LightClientUpdate>,
    optimistic_header: LightClientHeader,
    previous_max_active_participants: usize,
    current_max_active_participants: usize,
}

/// What processing an update changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// The finalized header moved (or the next committee was learned).
    pub applied: bool,
    /// The optimistic header moved.
    pub optimistic: bool,
}

impl LightClientStore {
    /// `initialize_light_client_store(trusted_block_root, bootstrap)`: the bootstrap's header
    /// must be valid, hash to the trusted block root, and prove its sync committee.
    pub fn bootstrap(
        network: Network,
        trusted_block_root: &Root,
        bootstrap: LightClientBootstrap,
    ) -> Result<Self, BeaconError> {
        check_header(&network, &bootstrap.header, BOOTSTRAP_HEADER)?;
        let found = bootstrap.header.beacon.hash_tree_root();
        if found != *trusted_block_root {
            return Err(BeaconError::CheckpointMismatch {
                expected: *trusted_block_root,
                found,
            });
        }
        check_committee_size(
            &network,
            &bootstrap.current_sync_committee,
            "bootstrap.current_sync_committee",
        )?;
        let slot = bootstrap.header.beacon.slot;
        branch(
            &bootstrap.current_sync_committee.hash_tree_root(),
            &bootstrap.current_sync_committee_branch,
            gindex_fork(&network, slot).current_sync_committee_gindex(),
            &bootstrap.header.beacon.state_root,
            Branch::CurrentSyncCommittee,
            "bootstrap.current_sync_committee_branch",
        )?;
        Ok(Self {
            network,
            optimistic_header: bootstrap.header.clone(),
            finalized_header: bootstrap.header,
            current: Committee::new(bootstrap.current_sync_committee),
            next: None,
            best_valid_update: None,
            previous_max_active_participants: 0,
            current_max_active_participants: 0,
        })
    }

    /// The network the store follows.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The latest finalized header.
    pub fn finalized_header(&self) -> &LightClientHeader {
        &self.finalized_header
    }

    /// The latest header signed by more than the safety threshold (half the most participation
    /// seen: on a fresh store, one member's signature moves it; see [`super::SignedHead`]).
    pub fn optimistic_header(&self) -> &LightClientHeader {
        &self.optimistic_header
    }

    /// The sync committee of the finalized header's period.
    pub fn current_sync_committee(&self) -> &SyncCommittee {
        &self.current.keys
    }

    /// The sync committee of the next period, once verified.
    pub fn next_sync_committee(&self) -> Option<&SyncCommittee> {
        self.next.as_ref().map(|c| &c.keys)
    }

    /// The best valid update kept for a forced update.
    pub fn best_valid_update(&self) -> Option<&LightClientUpdate> {
        self.best_valid_update.as_ref()
    }

    /// `get_safety_threshold(store)`.
    pub fn safety_threshold(&self) -> usize {
        self.previous_max_active_participants
            .max(self.current_max_active_participants)
            / 2
    }

    fn period(&self, slot: Slot) -> u64 {
        self.network.preset.period(slot)
    }

    /// `validate_light_client_update(store, update, current_slot, genesis_validators_root)`.
    pub fn validate_update(
        &mut self,
        update: &LightClientUpdate,
        current_slot: Slot,
    ) -> Result<(), BeaconError> {
        let network = self.network;
        let aggregate = &update.sync_aggregate;
        check_aggregate_size(&network, aggregate)?;
        let participants = aggregate.participants();
        let min = network.preset.min_sync_committee_participants;
        if participants < min {
            return Err(BeaconError::LowParticipation { participants, min });
        }
        check_header(&network, &update.attested_header, ATTESTED_HEADER)?;
        let attested = &update.attested_header.beacon;
        let finalized_slot = update.finalized_header.beacon.slot;
        if current_slot < update.signature_slot {
            return Err(BeaconError::SlotOrder {
                field: "update.signature_slot",
                bound: current_slot,
                slot: update.signature_slot,
            });
        }
        if update.signature_slot <= attested.slot {
            return Err(BeaconError::SlotOrder {
                field: "update.attested_header.beacon.slot",
                bound: update.signature_slot,
                slot: attested.slot,
            });
        }
        if attested.slot < finalized_slot {
            return Err(BeaconError::SlotOrder {
                field: "update.finalized_header.beacon.slot",
                bound: attested.slot,
                slot: finalized_slot,
            });
        }
        let store_period = self.period(self.finalized_header.beacon.slot);
        let signature_period = self.period(update.signature_slot);
        let next_known = self.next.is_some();
        let last = if next_known {
            store_period.saturating_add(1)
        } else {
            store_period
        };
        if signature_period < store_period || signature_period > last {
            return Err(BeaconError::PeriodMismatch {
                field: "update.signature_slot",
                accepted: (store_period, last),
                found: signature_period,
            });
        }
        let attested_period = self.period(attested.slot);
        let brings_next_committee =
            !next_known && update.is_sync_committee_update() && attested_period == store_period;
        if attested.slot <= self.finalized_header.beacon.slot && !brings_next_committee {
            return Err(BeaconError::StaleUpdate {
                finalized_slot: self.finalized_header.beacon.slot,
                attested_slot: attested.slot,
            });
        }

        // The finalized header, proven against the attested state.
        if !update.is_finality_update() {
            if !update.finalized_header.is_empty() {
                return Err(BeaconError::UnexpectedField {
                    field: "update.finalized_header",
                    reason: "no finality branch proves it",
                });
            }
        } else {
            let finalized_root = if finalized_slot == GENESIS_SLOT {
                if !update.finalized_header.is_empty() {
                    return Err(BeaconError::UnexpectedField {
                        field: "update.finalized_header",
                        reason: "the genesis checkpoint's header is empty",
                    });
                }
                [0; 32]
            } else {
                check_header(&network, &update.finalized_header, FINALIZED_HEADER)?;
                update.finalized_header.beacon.hash_tree_root()
            };
            branch(
                &finalized_root,
                &update.finality_branch,
                gindex_fork(&network, attested.slot).finalized_root_gindex(),
                &attested.state_root,
                Branch::Finality,
                "update.finality_branch",
            )?;
        }

        // The next sync committee, proven against the attested state.
        if !update.is_sync_committee_update() {
            if !update.next_sync_committee.is_empty() {
                return Err(BeaconError::UnexpectedField {
                    field: "update.next_sync_committee",
                    reason: "no next sync committee branch proves it",
                });
            }
        } else {
            check_committee_size(
                &network,
                &update.next_sync_committee,
                "update.next_sync_committee",
            )?;
            if let Some(next) = &self.next
                && attested_period == store_period
                && next.keys != update.next_sync_committee
            {
                return Err(BeaconError::SyncCommitteeMismatch {
                    expected: next.keys.hash_tree_root(),
                    found: update.next_sync_committee.hash_tree_root(),
                });
            }
            // The root of the next committee the store holds, when the update carries the very
            // same keys (each update of a period does): the same bytes have the same root.
            let root = match &mut self.next {
                Some(next) if next.keys == update.next_sync_committee => next.root(),
                _ => update.next_sync_committee.hash_tree_root(),
            };
            branch(
                &root,
                &update.next_sync_committee_branch,
                gindex_fork(&network, attested.slot).next_sync_committee_gindex(),
                &attested.state_root,
                Branch::NextSyncCommittee,
                "update.next_sync_committee_branch",
            )?;
        }

        // The committee's signature over the attested beacon block root.
        let committee = if signature_period == store_period {
            &mut self.current
        } else {
            match self.next.as_mut() {
                Some(next) => next,
                None => {
                    return Err(BeaconError::PeriodMismatch {
                        field: "update.signature_slot",
                        accepted: (store_period, store_period),
                        found: signature_period,
                    });
                }
            }
        };
        let signers = committee.signers_key(aggregate)?;
        let signing_root = sync_committee_signing_root(&network, update);
        let field = "update.sync_aggregate.sync_committee_signature";
        let sig = bls::signature(&aggregate.sync_committee_signature).ok_or(
            BeaconError::BadSyncSignature {
                field,
                reason: "not a point of the signature group",
            },
        )?;
        if !bls::verify(&signers, &signing_root, &sig) {
            return Err(BeaconError::BadSyncSignature {
                field,
                reason: "does not verify over the attested header",
            });
        }
        Ok(())
    }

    /// `process_light_client_update(store, update, current_slot, genesis_validators_root)`.
    pub fn process_update(
        &mut self,
        update: LightClientUpdate,
        current_slot: Slot,
    ) -> Result<Progress, BeaconError> {
        self.validate_update(&update, current_slot)?;
        let participants = update.sync_aggregate.participants();
        let size = update.sync_aggregate.committee_size();
        let mut progress = Progress::default();

        let replaces_best = match &self.best_valid_update {
            None => true,
            Some(best) => is_better_update(&self.network, &update, best),
        };
        self.current_max_active_participants =
            self.current_max_active_participants.max(participants);
        if participants > self.safety_threshold()
            && update.attested_header.beacon.slot > self.optimistic_header.beacon.slot
        {
            self.optimistic_header = update.attested_header.clone();
            progress.optimistic = true;
        }
        let finalizes_next_committee = self.next.is_none()
            && update.is_sync_committee_update()
            && update.is_finality_update()
            && self.period(update.finalized_header.beacon.slot)
                == self.period(update.attested_header.beacon.slot);
        let applies = is_supermajority(participants, size)
            && (update.finalized_header.beacon.slot > self.finalized_header.beacon.slot
                || finalizes_next_committee);
        if applies {
            self.apply(update)?;
            self.best_valid_update = None;
            progress.applied = true;
        } else if replaces_best {
            self.best_valid_update = Some(update);
        }
        Ok(progress)
    }

    /// `process_light_client_finality_update`.
    pub fn process_finality_update(
        &mut self,
        update: LightClientFinalityUpdate,
        current_slot: Slot,
    ) -> Result<Progress, BeaconError> {
        let size = self.network.preset.sync_committee_size;
        self.process_update(update.into_update(size), current_slot)
    }

    /// `process_light_client_optimistic_update`.
    pub fn process_optimistic_update(
        &mut self,
        update: LightClientOptimisticUpdate,
        current_slot: Slot,
    ) -> Result<Progress, BeaconError> {
        let size = self.network.preset.sync_committee_size;
        self.process_update(update.into_update(size), current_slot)
    }

    /// `process_light_client_store_force_update(store, current_slot)`: after a period without
    /// finality, applies the best valid update, its attested header taken as finalized. Whether
    /// it applied one.
    pub fn force_update(&mut self, current_slot: Slot) -> Result<bool, BeaconError> {
        let timeout = self.network.preset.update_timeout();
        if current_slot <= self.finalized_header.beacon.slot.saturating_add(timeout) {
            return Ok(false);
        }
        let Some(mut best) = self.best_valid_update.take() else {
            return Ok(false);
        };
        if best.finalized_header.beacon.slot <= self.finalized_header.beacon.slot {
            // The attested header is finalized in its place (apply reads no attested header).
            core::mem::swap(&mut best.finalized_header, &mut best.attested_header);
        }
        self.apply(best)?;
        Ok(true)
    }

    /// `apply_light_client_update(store, update)`.
    fn apply(&mut self, update: LightClientUpdate) -> Result<(), BeaconError> {
        let store_period = self.period(self.finalized_header.beacon.slot);
        let finalized_period = self.period(update.finalized_header.beacon.slot);
        match self.next.take() {
            None => {
                if finalized_period != store_period {
                    return Err(BeaconError::PeriodMismatch {
                        field: "update.finalized_header.beacon.slot",
                        accepted: (store_period, store_period),
                        found: finalized_period,
                    });
                }
                self.next = Committee::known(update.next_sync_committee);
            }
            Some(next) if finalized_period == store_period.saturating_add(1) => {
                self.current = next;
                self.next = Committee::known(update.next_sync_committee);
                self.previous_max_active_participants = self.current_max_active_participants;
                self.current_max_active_participants = 0;
            }
            Some(next) => self.next = Some(next),
        }
        if update.finalized_header.beacon.slot > self.finalized_header.beacon.slot {
            self.finalized_header = update.finalized_header;
            if self.finalized_header.beacon.slot > self.optimistic_header.beacon.slot {
                self.optimistic_header = self.finalized_header.clone();
            }
        }
        Ok(())
    }
}

/// The version byte of [`LightClientStore::to_bytes`].
const STORE_FORMAT: u8 = 1;

/// A strict reader of a saved store.
struct Saved<'a> {
    bytes: &'a [u8],
}

impl<'a> Saved<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], BeaconError> {
        if n > self.bytes.len() {
            return Err(BeaconError::Decode(DecodeError::new("store", "truncated")));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, BeaconError> {
        Ok(self.take(1)?.first().copied().unwrap_or_default())
    }

    fn u32(&mut self) -> Result<usize, BeaconError> {
        let b: [u8; 4] = self.take(4)?.try_into().unwrap_or_default();
        Ok(u32::from_le_bytes(b) as usize)
    }

    fn u64(&mut self) -> Result<u64, BeaconError> {
        let b: [u8; 8] = self.take(8)?.try_into().unwrap_or_default();
        Ok(u64::from_le_bytes(b))
    }

    fn fork(&mut self) -> Result<Fork, BeaconError> {
        let b = self.byte()?;
        Fork::ALL
            .get(usize::from(b))
            .copied()
            .ok_or_else(|| BeaconError::Decode(DecodeError::new("store", "unknown fork")))
    }

    fn flag(&mut self) -> Result<bool, BeaconError> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(BeaconError::Decode(DecodeError::new(
                "store",
                "flag not 0 or 1",
            ))),
        }
    }

    fn header(&mut self, field: &str) -> Result<LightClientHeader, BeaconError> {
        let fork = self.fork()?;
        let len = self.u32()?;
        Ok(LightClientHeader::decode(self.take(len)?, fork, field)?)
    }
}

fn put_header(out: &mut Vec<u8>, h: &LightClientHeader) {
    let bytes = h.encode();
    out.push(h.fork as u8);
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes);
}

impl LightClientStore {
    /// The store as bytes, to keep across restarts so that a client within the same period
    /// needs no sync: `format(u8) ‖ finalized ‖ optimistic ‖ current committee ‖ next? ‖
    /// previous max participants(u64) ‖ current max participants(u64)`, a header as
    /// `fork(u8) ‖ length(u32) ‖ SSZ`, the next committee after a 0/1 byte. Not kept: the
    /// decompressed keys, and the best update held for a forced update (it only matters after
    /// a period without finality, and a restarted client fetches the period's updates again).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = alloc::vec![STORE_FORMAT];
        put_header(&mut out, &self.finalized_header);
        put_header(&mut out, &self.optimistic_header);
        self.current.keys.encode_to(&mut out);
        match &self.next {
            Some(next) => {
                out.push(1);
                next.keys.encode_to(&mut out);
            }
            None => out.push(0),
        }
        for n in [
            self.previous_max_active_participants,
            self.current_max_active_participants,
        ] {
            out.extend_from_slice(&(n as u64).to_le_bytes());
        }
        out
    }

    /// A store saved by [`LightClientStore::to_bytes`] for `network`. The bytes are the app's
    /// own earlier state, verified when it was made, so no signature is checked again; they are
    /// decoded strictly (`BAD_ENCODING`, never a panic) and the headers must still be valid for
    /// the network (a store saved for another network is refused).
    pub fn from_bytes(network: Network, bytes: &[u8]) -> Result<Self, BeaconError> {
        let mut r = Saved { bytes };
        if r.byte()? != STORE_FORMAT {
            return Err(BeaconError::Decode(DecodeError::new(
                "store",
                "unknown store format",
            )));
        }
        let finalized_header = r.header("store.finalized_header")?;
        let optimistic_header = r.header("store.optimistic_header")?;
        check_header(&network, &finalized_header, SAVED_FINALIZED)?;
        check_header(&network, &optimistic_header, SAVED_OPTIMISTIC)?;
        let committee_len = SyncCommittee::len(network.preset.sync_committee_size);
        let current = SyncCommittee::decode(
            r.take(committee_len)?,
            &network.preset,
            "store.current_sync_committee",
        )?;
        let next = if r.flag()? {
            Committee::known(SyncCommittee::decode(
                r.take(committee_len)?,
                &network.preset,
                "store.next_sync_committee",
            )?)
        } else {
            None
        };
        let previous_max_active_participants = r.u64()? as usize;
        let current_max_active_participants = r.u64()? as usize;
        if !r.bytes.is_empty() {
            return Err(BeaconError::Decode(DecodeError::new(
                "store",
                "trailing bytes",
            )));
        }
        Ok(Self {
            network,
            finalized_header,
            current: Committee::new(current),
            next,
            best_valid_update: None,
            optimistic_header,
            previous_max_active_participants,
            current_max_active_participants,
        })
    }
}

fn check_committee_size(
    network: &Network,
    committee: &SyncCommittee,
    field: &'static str,
) -> Result<(), BeaconError> {
    if committee.pubkeys.len() == network.preset.sync_committee_size {
        Ok(())
    } else {
        Err(BeaconError::Decode(DecodeError::new(
            field,
            "not the preset's sync committee size",
        )))
    }
}

fn check_aggregate_size(network: &Network, aggregate: &SyncAggregate) -> Result<(), BeaconError> {
    if aggregate.committee_size() == network.preset.sync_committee_size {
        Ok(())
    } else {
        Err(BeaconError::Decode(DecodeError::new(
            "update.sync_aggregate.sync_committee_bits",
            "not the preset's sync committee size",
        )))
    }
}

/// `participants * 3 >= size * 2`: a supermajority of a committee of `size`, what
/// `process_light_client_update` asks of an update before it moves the finalized header.
pub fn is_supermajority(participants: usize, size: usize) -> bool {
    participants.saturating_mul(3) >= size.saturating_mul(2)
}

/// `is_better_update(new_update, old_update)`: whether `new` should replace `old` as the best
/// update of a period (more participation, a relevant next committee, finality, then older data).
pub fn is_better_update(
    network: &Network,
    new: &LightClientUpdate,
    old: &LightClientUpdate,
) -> bool {
    let preset = &network.preset;
    let max = new.sync_aggregate.committee_size();
    let new_n = new.sync_aggregate.participants();
    let old_n = old.sync_aggregate.participants();
    let new_super = is_supermajority(new_n, max);
    let old_super = is_supermajority(old_n, max);
    if new_super != old_super {
        return new_super;
    }
    if !new_super && new_n != old_n {
        return new_n > old_n;
    }
    let relevant = |u: &LightClientUpdate| {
        u.is_sync_committee_update()
            && preset.period(u.attested_header.beacon.slot) == preset.period(u.signature_slot)
    };
    let (new_rel, old_rel) = (relevant(new), relevant(old));
    if new_rel != old_rel {
        return new_rel;
    }
    let (new_fin, old_fin) = (new.is_finality_update(), old.is_finality_update());
    if new_fin != old_fin {
        return new_fin;
    }
    if new_fin {
        let committee_final = |u: &LightClientUpdate| {
            preset.period(u.finalized_header.beacon.slot)
                == preset.period(u.attested_header.beacon.slot)
        };
        let (a, b) = (committee_final(new), committee_final(old));
        if a != b {
            return a;
        }
    }
    if new_n != old_n {
        return new_n > old_n;
    }
    if new.attested_header.beacon.slot != old.attested_header.beacon.slot {
        return new.attested_header.beacon.slot < old.attested_header.beacon.slot;
    }
    new.signature_slot < old.signature_slot
}
