//! The simulated beacon chain (`--consensus sync-committee`): a minimal-preset chain beside the
//! execution chain, one beacon block per execution block, whose sync committee signs with real
//! BLS12-381 keys, so that a light client follows the node offline through the light-client API
//! ([`rest`]) with the core's verifier unchanged.
//!
//! - **Slots.** The beacon block of execution block `n` is at slot `n`; the node's current slot is
//!   its head's ([`BeaconChain::head_slot`]). Every fork through [`FORK`] (Fulu) is active from
//!   genesis (`Network::minimal(genesis_validators_root, Fulu)`).
//! - **Blocks.** A block's body is a Fulu `BeaconBlockBody` whose `execution_payload` is the
//!   execution block's, as an `ExecutionPayloadHeader` ([`payload_header`]); its other fields are
//!   fixed roots. Its `BeaconState` is a Fulu state whose `slot`, `genesis_validators_root`,
//!   justified and finalized checkpoints, current and next sync committees and latest execution
//!   payload header are the chain's, the other fields fixed roots: the branches the light-client
//!   objects carry are branches of those real trees.
//! - **Finality.** The state at slot `s` finalizes the checkpoint of epoch `epoch(s) − 2` (the
//!   genesis checkpoint, root zero, while that is epoch 0), and justifies epoch `epoch(s) − 1`.
//! - **Committees.** The 32 secret keys of period `p` are derived from a seed (from the execution
//!   genesis hash) and `p`, so committees rotate every period. The members that sign for
//!   signature slot `t` are `i` with `(i + t) mod 32 < participation` (`--sync-participation`).
//!   Each signs the attested block root in the sync-committee domain (the verifier's
//!   `sync_committee_signing_root`); the aggregate is the sum of the signatures.
//! - **Persistence.** Everything is derived from the stored execution chain and the seed: a
//!   restarted node rebuilds the same roots (participation changes signatures, never roots).

pub mod rest;

use std::{
    collections::HashMap,
    sync::{Arc, LazyLock},
};

use alloy_consensus::Header;
use bls12_381::{
    G1Affine, G1Projective, G2Affine, G2Projective, Scalar,
    hash_to_curve::{ExpandMsgXmd, HashToCurve},
};
use lightprov_types::beacon::{
    BeaconBlockHeader, ExecutionPayloadHeader, Fork, LightClientBootstrap,
    LightClientFinalityUpdate, LightClientHeader, LightClientOptimisticUpdate, LightClientUpdate,
    Network, Preset, Root, Slot, SyncAggregate, SyncCommittee, hash_pair, merkleize, mix_in_length,
};
use lightprov_verifier::beacon::{
    DST, compute_domain, compute_signing_root, sync_committee_signing_root,
};
use sha2::{Digest, Sha256};

use crate::chain::Chain;

/// The fork of every block: the newest the core supports.
pub const FORK: Fork = Fork::Fulu;
/// The preset.
pub const PRESET: Preset = Preset::MINIMAL;
/// `SYNC_COMMITTEE_SIZE` of the preset.
pub const COMMITTEE_SIZE: usize = PRESET.sync_committee_size;
/// Epochs between a state's epoch and the checkpoint it finalizes.
pub const FINALITY_LAG_EPOCHS: u64 = 2;
/// `MAX_REQUEST_LIGHT_CLIENT_UPDATES`: periods one `updates` request may ask for.
pub const MAX_REQUEST_LIGHT_CLIENT_UPDATES: u64 = 128;
/// `DOMAIN_BEACON_PROPOSER`.
const DOMAIN_BEACON_PROPOSER: [u8; 4] = [0, 0, 0, 0];
/// `MAX_BLOBS_PER_BLOCK_ELECTRA`: the blob parameters of a chain with no blob schedule (Fulu's
/// `get_blob_parameters` falls back to Electra's), mixed into Fulu's fork digest.
const MAX_BLOBS_PER_BLOCK_ELECTRA: u64 = 9;
/// Validators the proposer index cycles through.
const PROPOSERS: u64 = 64;

// Field indices of a Fulu `BeaconState` (38 fields: a tree of 64 leaves).
const STATE_LEAVES: usize = 64;
const STATE_GENESIS_TIME: usize = 0;
const STATE_GENESIS_VALIDATORS_ROOT: usize = 1;
const STATE_SLOT: usize = 2;
const STATE_PREVIOUS_JUSTIFIED: usize = 18;
const STATE_CURRENT_JUSTIFIED: usize = 19;
const STATE_FINALIZED: usize = 20;
const STATE_CURRENT_SYNC_COMMITTEE: usize = 22;
const STATE_NEXT_SYNC_COMMITTEE: usize = 23;
const STATE_EXECUTION_PAYLOAD_HEADER: usize = 24;
const STATE_FIELDS: usize = 38;

// Field indices of a Fulu `BeaconBlockBody` (13 fields: a tree of 16 leaves).
const BODY_LEAVES: usize = 16;
const BODY_GRAFFITI: usize = 2;
const BODY_EXECUTION_PAYLOAD: usize = 9;
const BODY_FIELDS: usize = 13;

/// How the committee signs (`--sync-participation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Members that sign each aggregate, 1 to [`COMMITTEE_SIZE`].
    pub participation: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self { participation: 30 }
    }
}

/// A checkpoint: an epoch and the root of the block at its first slot (zero for genesis).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// `epoch`.
    pub epoch: u64,
    /// `root`.
    pub root: Root,
}

impl Checkpoint {
    fn hash_tree_root(&self) -> Root {
        hash_pair(&u64_chunk(self.epoch), &self.root)
    }
}

/// The checkpoints of the state at a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoints {
    /// `previous_justified_checkpoint`.
    pub previous_justified: Checkpoint,
    /// `current_justified_checkpoint`.
    pub current_justified: Checkpoint,
    /// `finalized_checkpoint`.
    pub finalized: Checkpoint,
}

/// One period's sync committee: its members' secret keys and the committee as the state holds it.
struct Committee {
    secrets: Vec<Scalar>,
    keys: SyncCommittee,
    root: Root,
}

/// A beacon block of the chain.
#[derive(Clone, Copy, Debug)]
struct Block {
    header: BeaconBlockHeader,
    root: Root,
}

/// The simulated beacon chain, grown block by block from the execution chain
/// ([`BeaconChain::sync`]).
pub struct BeaconChain {
    settings: Settings,
    seed: Root,
    network: Network,
    blocks: Vec<Block>,
    committees: HashMap<u64, Arc<Committee>>,
    /// Signed aggregates by signature slot (cleared when it grows past a bound).
    aggregates: HashMap<Slot, SyncAggregate>,
}

impl std::fmt::Debug for BeaconChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BeaconChain")
            .field("slots", &self.blocks.len())
            .field("participation", &self.settings.participation)
            .finish_non_exhaustive()
    }
}

fn sha256(parts: &[&[u8]]) -> Root {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

fn u64_chunk(v: u64) -> Root {
    let mut c = [0u8; 32];
    if let Some(dst) = c.get_mut(..8) {
        dst.copy_from_slice(&v.to_le_bytes());
    }
    c
}

/// Fixed roots standing for the fields the light client never opens: `fields` of them, then
/// zero chunks up to `leaves`.
fn fillers(what: &str, fields: usize, leaves: usize) -> Vec<Root> {
    (0..leaves)
        .map(|i| match i < fields {
            true => sha256(&[
                b"lightprov simulated beacon ",
                what.as_bytes(),
                &(i as u64).to_le_bytes(),
            ]),
            false => [0; 32],
        })
        .collect()
}

/// The state's and the body's leaves before the chain's own are set (hashed once).
static STATE_FILLERS: LazyLock<Vec<Root>> =
    LazyLock::new(|| fillers("state field", STATE_FIELDS, STATE_LEAVES));
static BODY_FILLERS: LazyLock<Vec<Root>> =
    LazyLock::new(|| fillers("body field", BODY_FIELDS, BODY_LEAVES));

/// `leaves` with the leaves `set` gives.
fn with_leaves(leaves: &[Root], set: &[(usize, Root)]) -> Vec<Root> {
    let mut out = leaves.to_vec();
    for (i, v) in set {
        if let Some(l) = out.get_mut(*i) {
            *l = *v;
        }
    }
    out
}

/// The root of a tree over `leaves` (a power of two) and the branch (bottom up) of leaf `index`.
pub fn tree_branch(leaves: &[Root], index: usize) -> (Root, Vec<Root>) {
    let mut layer = leaves.to_vec();
    let mut i = index;
    let mut branch = Vec::new();
    while layer.len() > 1 {
        branch.push(layer.get(i ^ 1).copied().unwrap_or_default());
        layer = layer
            .chunks(2)
            .map(|p| match p {
                [a, b] => hash_pair(a, b),
                [a] => hash_pair(a, &[0; 32]),
                _ => [0; 32],
            })
            .collect();
        i /= 2;
    }
    (layer.first().copied().unwrap_or_default(), branch)
}

/// The execution block as an `ExecutionPayloadHeader` (Deneb's container, which Fulu keeps):
/// parent hash, fee recipient (the signer), state root, receipts root, logs bloom, `prev_randao`
/// (the header's `mixHash`), number, gas limit and used, timestamp, base fee and block hash are
/// the block's. `transactions_root` is the header's transaction trie root (not the SSZ list
/// root of a real payload); `extra_data` is empty (the header's 161 bytes do not fit the
/// payload's 32); withdrawals and blob gas are the empty list's root and zero (the chain has
/// neither).
pub fn payload_header(header: &Header, hash: Root) -> ExecutionPayloadHeader {
    let mut base_fee = [0u8; 32];
    if let (Some(dst), Some(fee)) = (base_fee.get_mut(..8), header.base_fee_per_gas) {
        dst.copy_from_slice(&fee.to_le_bytes());
    }
    ExecutionPayloadHeader {
        parent_hash: header.parent_hash.0,
        fee_recipient: header.beneficiary.0.0,
        state_root: header.state_root.0,
        receipts_root: header.receipts_root.0,
        logs_bloom: header.logs_bloom.0.0,
        prev_randao: header.mix_hash.0,
        block_number: header.number,
        gas_limit: header.gas_limit,
        gas_used: header.gas_used,
        timestamp: header.timestamp,
        extra_data: Vec::new(),
        base_fee_per_gas: base_fee,
        block_hash: hash,
        transactions_root: header.transactions_root.0,
        // `List[Withdrawal, MAX_WITHDRAWALS_PER_PAYLOAD = 16]`, empty.
        withdrawals_root: mix_in_length(&merkleize(&[], 16), 0),
        blob_gas_used: 0,
        excess_blob_gas: 0,
    }
}

/// The leaves of a block body committing to `payload`.
fn body_leaves(payload: &ExecutionPayloadHeader) -> Vec<Root> {
    let mut graffiti = [0u8; 32];
    if let Some(dst) = graffiti.get_mut(..9) {
        dst.copy_from_slice(b"lightprov");
    }
    with_leaves(
        &BODY_FILLERS,
        &[
            (BODY_EXECUTION_PAYLOAD, payload.hash_tree_root(FORK)),
            (BODY_GRAFFITI, graffiti),
        ],
    )
}

fn bad(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

impl BeaconChain {
    /// An empty chain for the execution chain whose genesis hash is `genesis_hash`; it grows
    /// with [`BeaconChain::sync`].
    pub fn new(genesis_hash: Root, settings: Settings) -> anyhow::Result<Self> {
        if settings.participation == 0 || settings.participation > COMMITTEE_SIZE {
            anyhow::bail!(
                "--sync-participation must be 1 to {COMMITTEE_SIZE} members, got {}",
                settings.participation
            );
        }
        let seed = sha256(&[b"lightprov sync committee seed", &genesis_hash]);
        let gvr = sha256(&[b"lightprov genesis validators root", &genesis_hash]);
        Ok(Self {
            settings,
            seed,
            network: Network::minimal(gvr, FORK),
            blocks: Vec::new(),
            committees: HashMap::new(),
            aggregates: HashMap::new(),
        })
    }

    /// A chain following `chain` to its head.
    pub fn open(chain: &Chain, settings: Settings) -> anyhow::Result<Self> {
        let genesis = chain
            .header(0)?
            .ok_or_else(|| anyhow::anyhow!("the execution chain has no genesis block"))?
            .hash_slow();
        let mut b = Self::new(genesis.0, settings)?;
        b.sync(chain)?;
        Ok(b)
    }

    /// The network a light client of this chain passes to the verifier.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// The settings.
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The slot of the head block: the node's current slot (`None` before [`sync`]).
    ///
    /// [`sync`]: BeaconChain::sync
    pub fn head_slot(&self) -> Option<Slot> {
        (self.blocks.len() as u64).checked_sub(1)
    }

    /// Adds the beacon blocks of the execution blocks the chain has and this one lacks.
    pub fn sync(&mut self, chain: &Chain) -> anyhow::Result<()> {
        let head = chain.head().0.number;
        for n in self.blocks.len() as u64..=head {
            let header = chain
                .header(n)?
                .ok_or_else(|| anyhow::anyhow!("execution block {n} is missing"))?;
            self.push(&header)?;
        }
        Ok(())
    }

    /// Adds the beacon block of execution block `header` (the next one).
    fn push(&mut self, header: &Header) -> anyhow::Result<()> {
        let slot = self.blocks.len() as u64;
        if header.number != slot {
            anyhow::bail!(
                "execution block {} given for beacon slot {slot}",
                header.number
            );
        }
        let payload = payload_header(header, header.hash_slow().0);
        let body_root = merkleize(&body_leaves(&payload), BODY_LEAVES);
        let state_root = merkleize(&self.state_leaves(slot, &payload)?, STATE_LEAVES);
        let beacon = BeaconBlockHeader {
            slot,
            proposer_index: slot % PROPOSERS,
            parent_root: self.blocks.last().map(|b| b.root).unwrap_or_default(),
            state_root,
            body_root,
        };
        self.blocks.push(Block {
            header: beacon,
            root: beacon.hash_tree_root(),
        });
        Ok(())
    }

    fn block(&self, slot: Slot) -> anyhow::Result<&Block> {
        self.blocks
            .get(slot as usize)
            .ok_or_else(|| anyhow::anyhow!("no beacon block at slot {slot}"))
    }

    /// The beacon block header at `slot` and its root.
    pub fn header(&self, slot: Slot) -> Option<(BeaconBlockHeader, Root)> {
        self.blocks.get(slot as usize).map(|b| (b.header, b.root))
    }

    /// The slot of the block whose root is `root`.
    pub fn slot_of(&self, root: &Root) -> Option<Slot> {
        // Newest first: clients mostly ask for recent checkpoints.
        self.blocks
            .iter()
            .rposition(|b| b.root == *root)
            .map(|i| i as u64)
    }

    /// The checkpoint of `epoch`, as the state of a later slot holds it.
    fn checkpoint(&self, epoch: u64) -> anyhow::Result<Checkpoint> {
        let root = match epoch {
            0 => [0; 32],
            e => self.block(e * PRESET.slots_per_epoch)?.root,
        };
        Ok(Checkpoint { epoch, root })
    }

    /// The justified and finalized checkpoints of the state at `slot`.
    pub fn checkpoints(&self, slot: Slot) -> anyhow::Result<Checkpoints> {
        let epoch = PRESET.epoch(slot);
        Ok(Checkpoints {
            previous_justified: self.checkpoint(epoch.saturating_sub(FINALITY_LAG_EPOCHS))?,
            current_justified: self.checkpoint(epoch.saturating_sub(1))?,
            finalized: self.checkpoint(epoch.saturating_sub(FINALITY_LAG_EPOCHS))?,
        })
    }

    /// The committee of `period`, derived once.
    fn committee(&mut self, period: u64) -> Arc<Committee> {
        let seed = self.seed;
        self.committees
            .entry(period)
            .or_insert_with(|| Arc::new(derive_committee(&seed, period)))
            .clone()
    }

    /// The sync committee of `period` (its public keys and aggregate).
    pub fn sync_committee(&mut self, period: u64) -> SyncCommittee {
        self.committee(period).keys.clone()
    }

    /// The leaves of the state at `slot` (its block's payload `payload`).
    fn state_leaves(
        &mut self,
        slot: Slot,
        payload: &ExecutionPayloadHeader,
    ) -> anyhow::Result<Vec<Root>> {
        let c = self.checkpoints(slot)?;
        let period = PRESET.period(slot);
        let current = self.committee(period).root;
        let next = self.committee(period + 1).root;
        let n = &self.network;
        Ok(with_leaves(
            &STATE_FILLERS,
            &[
                (STATE_GENESIS_TIME, u64_chunk(n.genesis_time)),
                (STATE_GENESIS_VALIDATORS_ROOT, n.genesis_validators_root),
                (STATE_SLOT, u64_chunk(slot)),
                (
                    STATE_PREVIOUS_JUSTIFIED,
                    c.previous_justified.hash_tree_root(),
                ),
                (
                    STATE_CURRENT_JUSTIFIED,
                    c.current_justified.hash_tree_root(),
                ),
                (STATE_FINALIZED, c.finalized.hash_tree_root()),
                (STATE_CURRENT_SYNC_COMMITTEE, current),
                (STATE_NEXT_SYNC_COMMITTEE, next),
                (STATE_EXECUTION_PAYLOAD_HEADER, payload.hash_tree_root(FORK)),
            ],
        ))
    }

    /// The state leaves of the block at `slot` (read back from the execution chain).
    fn state_of(&mut self, chain: &Chain, slot: Slot) -> anyhow::Result<Vec<Root>> {
        let payload = self.payload(chain, slot)?;
        let leaves = self.state_leaves(slot, &payload)?;
        let (root, _) = tree_branch(&leaves, 0);
        if root != self.block(slot)?.header.state_root {
            anyhow::bail!("the state of slot {slot} no longer matches its block");
        }
        Ok(leaves)
    }

    fn payload(&self, chain: &Chain, slot: Slot) -> anyhow::Result<ExecutionPayloadHeader> {
        let header = chain
            .header(slot)?
            .ok_or_else(|| anyhow::anyhow!("execution block {slot} is missing"))?;
        Ok(payload_header(&header, header.hash_slow().0))
    }

    /// The `LightClientHeader` of the block at `slot`: its beacon header, its execution payload
    /// header and the branch from the payload to the body root.
    pub fn light_client_header(
        &self,
        chain: &Chain,
        slot: Slot,
    ) -> anyhow::Result<LightClientHeader> {
        let block = self.block(slot)?;
        let execution = self.payload(chain, slot)?;
        let (body_root, branch) = tree_branch(&body_leaves(&execution), BODY_EXECUTION_PAYLOAD);
        if body_root != block.header.body_root {
            anyhow::bail!("the body of slot {slot} no longer matches its block");
        }
        Ok(LightClientHeader {
            fork: FORK,
            beacon: block.header,
            execution,
            execution_branch: branch.try_into().map_err(|_| bad("execution branch"))?,
        })
    }

    /// `LightClientBootstrap` for the block whose root is `root` (`None`: no such block).
    pub fn bootstrap(
        &mut self,
        chain: &Chain,
        root: &Root,
    ) -> anyhow::Result<Option<LightClientBootstrap>> {
        let Some(slot) = self.slot_of(root) else {
            return Ok(None);
        };
        let header = self.light_client_header(chain, slot)?;
        let leaves = self.state_of(chain, slot)?;
        let (_, branch) = tree_branch(&leaves, STATE_CURRENT_SYNC_COMMITTEE);
        Ok(Some(LightClientBootstrap {
            header,
            current_sync_committee: self.sync_committee(PRESET.period(slot)),
            current_sync_committee_branch: branch,
        }))
    }

    /// The `LightClientUpdate` whose attested header is the block at `attested`, signed in the
    /// next slot: with the next sync committee, and the finalized checkpoint's header.
    pub fn update(&mut self, chain: &Chain, attested: Slot) -> anyhow::Result<LightClientUpdate> {
        let mut u = self.unsigned_update(chain, attested)?;
        self.sign(&mut u);
        Ok(u)
    }

    /// [`BeaconChain::update`] before [`BeaconChain::sign`]: what needs the execution chain
    /// (its sync aggregate is empty).
    pub fn unsigned_update(
        &mut self,
        chain: &Chain,
        attested: Slot,
    ) -> anyhow::Result<LightClientUpdate> {
        let signature_slot = attested + 1;
        if self.head_slot().is_none_or(|h| signature_slot > h) {
            anyhow::bail!("no block at slot {signature_slot} signs slot {attested} yet");
        }
        let attested_header = self.light_client_header(chain, attested)?;
        let leaves = self.state_of(chain, attested)?;
        let (_, next_branch) = tree_branch(&leaves, STATE_NEXT_SYNC_COMMITTEE);
        let (_, state_branch) = tree_branch(&leaves, STATE_FINALIZED);
        let finalized = self.checkpoints(attested)?.finalized;
        // The root's sibling in the checkpoint (its epoch), then the checkpoint's branch.
        let mut finality_branch = vec![u64_chunk(finalized.epoch)];
        finality_branch.extend(state_branch);
        let finalized_header = match finalized.epoch {
            0 => LightClientHeader::empty(FORK),
            e => self.light_client_header(chain, e * PRESET.slots_per_epoch)?,
        };
        Ok(LightClientUpdate {
            attested_header,
            next_sync_committee: self.sync_committee(PRESET.period(attested) + 1),
            next_sync_committee_branch: next_branch,
            finalized_header,
            finality_branch,
            sync_aggregate: SyncAggregate {
                sync_committee_bits: vec![0; COMMITTEE_SIZE / 8],
                sync_committee_signature: [0; 96],
            },
            signature_slot,
        })
    }

    /// Signs `update`: the aggregate of the participating members' signatures over its attested
    /// block root, by the committee of its signature slot's period (cached by signature slot).
    pub fn sign(&mut self, update: &mut LightClientUpdate) {
        let slot = update.signature_slot;
        if let Some(a) = self.aggregates.get(&slot) {
            update.sync_aggregate = a.clone();
            return;
        }
        let committee = self.committee(PRESET.period(slot));
        let message = sync_committee_signing_root(&self.network, update);
        let h = hash_to_g2(&message);
        let mut bits = vec![0u8; COMMITTEE_SIZE / 8];
        let mut signature = G2Projective::identity();
        for (i, sk) in committee.secrets.iter().enumerate() {
            if (i + slot as usize) % COMMITTEE_SIZE < self.settings.participation {
                if let Some(b) = bits.get_mut(i / 8) {
                    *b |= 1 << (i % 8);
                }
                // Each member's own signature, summed.
                signature += h * sk;
            }
        }
        let a = SyncAggregate {
            sync_committee_bits: bits,
            sync_committee_signature: G2Affine::from(signature).to_compressed(),
        };
        if self.aggregates.len() >= 4096 {
            self.aggregates.clear();
        }
        self.aggregates.insert(slot, a.clone());
        update.sync_aggregate = a;
    }

    /// The attested slot of the best update of `period` (spec: the one a server keeps): the
    /// period's last slot but one, signed at its last slot; in the head's period, the head's
    /// parent, signed by the head. `None` while the period has no two blocks.
    pub fn period_attested(&self, period: u64) -> Option<Slot> {
        let head = self.head_slot()?;
        let per = PRESET.update_timeout();
        let first = period.saturating_mul(per);
        let signature = head.min(first.saturating_add(per - 1));
        (signature > first).then(|| signature - 1)
    }

    /// The attested slot of the latest finality and optimistic updates: the head's parent,
    /// signed by the head (`None` for a chain of one block).
    pub fn latest_attested(&self) -> Option<Slot> {
        self.head_slot()?.checked_sub(1)
    }

    /// The best update of `period` ([`BeaconChain::period_attested`]).
    pub fn period_update(
        &mut self,
        chain: &Chain,
        period: u64,
    ) -> anyhow::Result<Option<LightClientUpdate>> {
        self.period_attested(period)
            .map(|a| self.update(chain, a))
            .transpose()
    }

    /// The update of the latest attested slot ([`BeaconChain::latest_attested`]): what the
    /// finality and optimistic updates are cut from.
    fn latest_update(&mut self, chain: &Chain) -> anyhow::Result<Option<LightClientUpdate>> {
        self.latest_attested()
            .map(|a| self.update(chain, a))
            .transpose()
    }

    /// The latest `LightClientFinalityUpdate`.
    pub fn finality_update(
        &mut self,
        chain: &Chain,
    ) -> anyhow::Result<Option<LightClientFinalityUpdate>> {
        Ok(self.latest_update(chain)?.map(finality_of))
    }

    /// The latest `LightClientOptimisticUpdate`.
    pub fn optimistic_update(
        &mut self,
        chain: &Chain,
    ) -> anyhow::Result<Option<LightClientOptimisticUpdate>> {
        Ok(self.latest_update(chain)?.map(optimistic_of))
    }

    /// `compute_fork_digest` at `epoch` (Fulu's: the fork data root's first 4 bytes XORed with
    /// the hash of the blob parameters, Electra's for a chain with no blob schedule).
    pub fn fork_digest(&self, epoch: u64) -> [u8; 4] {
        let version = self.network.fork_version_at_epoch(epoch);
        let mut v = [0u8; 32];
        if let Some(dst) = v.get_mut(..4) {
            dst.copy_from_slice(&version);
        }
        let base = hash_pair(&v, &self.network.genesis_validators_root);
        let blobs = sha256(&[
            &self.network.schedule(Fork::Electra).epoch.to_le_bytes(),
            &MAX_BLOBS_PER_BLOCK_ELECTRA.to_le_bytes(),
        ]);
        let mut d = [0u8; 4];
        for (i, b) in d.iter_mut().enumerate() {
            *b = base.get(i).copied().unwrap_or_default();
            if self
                .network
                .is_active(Fork::Fulu, epoch * PRESET.slots_per_epoch)
            {
                *b ^= blobs.get(i).copied().unwrap_or_default();
            }
        }
        d
    }

    /// The proposer's signature of the block header at `slot` (`DOMAIN_BEACON_PROPOSER`), by a
    /// key derived from the seed and the proposer index.
    pub fn proposer_signature(&self, slot: Slot) -> anyhow::Result<[u8; 96]> {
        let block = self.block(slot)?;
        let version = self
            .network
            .fork_version_at_epoch(PRESET.epoch(block.header.slot));
        let domain = compute_domain(
            DOMAIN_BEACON_PROPOSER,
            version,
            &self.network.genesis_validators_root,
        );
        let message = compute_signing_root(&block.root, &domain);
        let sk = secret(&self.seed, b"proposer", block.header.proposer_index, 0);
        Ok(G2Affine::from(hash_to_g2(&message) * sk).to_compressed())
    }
}

/// `hash_to_curve(message)` in G2 with the signature ciphersuite's tag, by zkcrypto's
/// `bls12_381` (the node signs with it; the verifier checks with its own implementation).
fn hash_to_g2(message: &[u8]) -> G2Projective {
    <G2Projective as HashToCurve<ExpandMsgXmd<Sha256>>>::hash_to_curve([message], DST)
}

/// The finality update of `u`: its attested and finalized headers, signature and slot.
pub fn finality_of(u: LightClientUpdate) -> LightClientFinalityUpdate {
    LightClientFinalityUpdate {
        attested_header: u.attested_header,
        finalized_header: u.finalized_header,
        finality_branch: u.finality_branch,
        sync_aggregate: u.sync_aggregate,
        signature_slot: u.signature_slot,
    }
}

/// The optimistic update of `u`: its attested header, signature and slot.
pub fn optimistic_of(u: LightClientUpdate) -> LightClientOptimisticUpdate {
    LightClientOptimisticUpdate {
        attested_header: u.attested_header,
        sync_aggregate: u.sync_aggregate,
        signature_slot: u.signature_slot,
    }
}

/// A secret key from the seed, a label and two numbers (a scalar from 64 hashed bytes: uniform
/// mod r, never zero in practice).
fn secret(seed: &Root, label: &[u8], a: u64, b: u64) -> Scalar {
    let mut wide = [0u8; 64];
    for (half, chunk) in wide.chunks_mut(32).enumerate() {
        chunk.copy_from_slice(&sha256(&[
            seed,
            label,
            &a.to_le_bytes(),
            &b.to_le_bytes(),
            &[half as u8],
        ]));
    }
    Scalar::from_bytes_wide(&wide)
}

/// The committee of `period`: 32 keys from the seed, and `aggregate_pubkey` their sum (as
/// `eth_aggregate_pubkeys` makes it).
fn derive_committee(seed: &Root, period: u64) -> Committee {
    let secrets: Vec<Scalar> = (0..COMMITTEE_SIZE as u64)
        .map(|i| secret(seed, b"sync committee member", period, i))
        .collect();
    let points: Vec<G1Projective> = secrets
        .iter()
        .map(|sk| G1Affine::generator() * sk)
        .collect();
    let total = points
        .iter()
        .fold(G1Projective::identity(), |acc, p| acc + p);
    let keys = SyncCommittee {
        pubkeys: points
            .iter()
            .map(|p| G1Affine::from(p).to_compressed())
            .collect(),
        aggregate_pubkey: G1Affine::from(total).to_compressed(),
    };
    let root = keys.hash_tree_root();
    Committee {
        secrets,
        keys,
        root,
    }
}

#[cfg(test)]
mod tests;
