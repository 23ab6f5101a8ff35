//! The head a client follows ([`SignedHead`], what the wasm module's `BeaconStore` keeps and the
//! SDK's follower takes as its execution head) against the specification's optimistic header:
//! on a fresh store one committee member's signature moves the optimistic header (the safety
//! threshold is zero), never the followed head, which needs a supermajority by default.
//!
//! Real mainnet updates cannot be signed again, so each preset gets a chain of its own: a
//! committee whose secret keys are known (member `i` holds `i + 1`), a bootstrap whose
//! committee branch and execution branch lead from arbitrary siblings (the core's
//! `branch_root`) to the header's state and body roots, and updates signed by as many members
//! as a case asks — 1 of 512 on mainnet's schedule (Fulu), 1 of 32 on a minimal chain.

use crate::beacon_common::sign;
use bls12_381::{G1Affine, G1Projective, Scalar};
use lightprov_types::beacon::{
    BeaconBlockHeader, EXECUTION_DEPTH, EXECUTION_PAYLOAD_GINDEX, ExecutionPayloadHeader,
    LightClientBootstrap, LightClientHeader, LightClientOptimisticUpdate, SyncAggregate,
    SyncCommittee,
};
use lightprov_verifier::beacon::{
    Fork, LightClientStore, LightClientUpdate, Network, Root, SignedHead, branch_root,
    depth_and_index, execution_root, is_supermajority,
};

/// A chain of `network` whose committee's secret keys are known.
pub(crate) struct Chain {
    pub(crate) network: Network,
    keys: Vec<Scalar>,
    committee: SyncCommittee,
    /// The first slot of the test: the bootstrap's.
    pub(crate) start: u64,
}

/// `n` siblings of a branch, each different and none zero.
fn siblings(n: usize, tag: u8) -> Vec<Root> {
    (0..n)
        .map(|i| {
            let mut r = [tag; 32];
            r[0] = i as u8 + 1;
            r
        })
        .collect()
}

/// The root a branch of arbitrary siblings leads `leaf` to at generalized index `gindex`, and
/// the branch.
fn root_over(leaf: &Root, gindex: u64, tag: u8) -> (Root, Vec<Root>) {
    let (depth, index) = depth_and_index(gindex);
    let branch = siblings(depth, tag);
    (branch_root(leaf, &branch, index), branch)
}

impl Chain {
    fn new(network: Network, start: u64) -> Self {
        let size = network.preset.sync_committee_size;
        let keys: Vec<Scalar> = (1..=size as u64).map(Scalar::from).collect();
        // Member i's key is (i + 1)·G: one addition each, their sum the aggregate.
        let mut points = Vec::with_capacity(size);
        let mut p = G1Projective::identity();
        for _ in 0..size {
            p += G1Affine::generator();
            points.push(p);
        }
        Self::of_keys(network, start, keys, points)
    }

    /// A chain whose member `i` holds the secret key `keys[i]` (a key may repeat).
    pub(crate) fn with_keys(network: Network, start: u64, keys: Vec<Scalar>) -> Self {
        let points = keys.iter().map(|k| G1Affine::generator() * k).collect();
        Self::of_keys(network, start, keys, points)
    }

    fn of_keys(network: Network, start: u64, keys: Vec<Scalar>, points: Vec<G1Projective>) -> Self {
        let total = points.iter().fold(G1Projective::identity(), |a, p| a + p);
        let committee = SyncCommittee {
            pubkeys: points
                .iter()
                .map(|p| G1Affine::from(p).to_compressed())
                .collect(),
            aggregate_pubkey: G1Affine::from(total).to_compressed(),
        };
        Self {
            network,
            keys,
            committee,
            start,
        }
    }

    fn fork(&self, slot: u64) -> Fork {
        self.network.fork_at_slot(slot).unwrap()
    }

    /// A light-client header at `slot` carrying execution block `number` (its hash made up
    /// from `number` and `tag`), its state root `state_root`.
    fn header(&self, slot: u64, number: u64, tag: u8, state_root: Root) -> LightClientHeader {
        let fork = self.fork(slot);
        let mut h = LightClientHeader::empty(fork);
        h.execution = ExecutionPayloadHeader {
            block_number: number,
            block_hash: [tag; 32],
            state_root: [tag ^ 0xff; 32],
            ..ExecutionPayloadHeader::default()
        };
        h.beacon = BeaconBlockHeader {
            slot,
            ..BeaconBlockHeader::default()
        };
        let (body_root, branch) = root_over(
            &execution_root(&self.network, &h),
            EXECUTION_PAYLOAD_GINDEX,
            7,
        );
        h.execution_branch = <[Root; EXECUTION_DEPTH]>::try_from(branch).unwrap();
        h.beacon.body_root = body_root;
        h.beacon.state_root = state_root;
        h
    }

    /// The bootstrap at the start slot and its block root: the committee proven against its
    /// state root.
    fn bootstrap(&self) -> (LightClientBootstrap, Root) {
        let gindex = self.fork(self.start).current_sync_committee_gindex();
        let (state_root, branch) = root_over(&self.committee.hash_tree_root(), gindex, 9);
        let header = self.header(self.start, 1000, 1, state_root);
        let root = header.beacon.hash_tree_root();
        let b = LightClientBootstrap {
            header,
            current_sync_committee: self.committee.clone(),
            current_sync_committee_branch: branch,
        };
        (b, root)
    }

    /// An optimistic update attesting the header at `start + offset` (execution block hash
    /// `[tag; 32]`), signed at the next slot by the first `signers` members.
    fn update(&self, offset: u64, tag: u8, signers: usize) -> LightClientUpdate {
        self.update_by(offset, tag, &(0..signers).collect::<Vec<_>>())
    }

    /// As [`Chain::update`], signed by the members `signers`.
    pub(crate) fn update_by(&self, offset: u64, tag: u8, signers: &[usize]) -> LightClientUpdate {
        let slot = self.start + offset;
        let size = self.network.preset.sync_committee_size;
        let mut bits = vec![0u8; size / 8];
        for i in signers {
            bits[i / 8] |= 1 << (i % 8);
        }
        let mut u = LightClientOptimisticUpdate {
            attested_header: self.header(slot, 1000 + offset, tag, [tag; 32]),
            sync_aggregate: SyncAggregate {
                sync_committee_bits: bits,
                sync_committee_signature: [0; 96],
            },
            signature_slot: slot + 1,
        }
        .into_update(size);
        sign(&self.network, &mut u, &self.keys);
        u
    }

    pub(crate) fn fresh(&self) -> (LightClientStore, SignedHead) {
        let (b, root) = self.bootstrap();
        let store = LightClientStore::bootstrap(self.network, &root, b).unwrap();
        (store, SignedHead::new())
    }
}

/// Mainnet's schedule and preset (512 members), in Fulu, 40 slots into a period.
fn mainnet() -> Chain {
    let n = Network::MAINNET;
    Chain::new(n, n.schedule(Fork::Fulu).epoch * 32 + 40)
}

/// A minimal chain (32 members), Fulu from genesis.
pub(crate) fn minimal() -> Chain {
    Chain::new(Network::minimal([5; 32], Fork::Fulu), 16)
}

/// The smallest supermajority of the chain's committee.
fn two_thirds(c: &Chain) -> usize {
    let size = c.network.preset.sync_committee_size;
    (1..=size).find(|n| is_supermajority(*n, size)).unwrap()
}

fn one_member_moves_the_optimistic_header_but_not_the_followed_head(c: &Chain) {
    let size = c.network.preset.sync_committee_size;
    let (mut store, mut head) = c.fresh();
    let boot = store.finalized_header().clone();
    assert_eq!(store.safety_threshold(), 0);

    // One member signs a header whose execution payload it chose.
    let forged = c.update(1, 0xee, 1);
    let p = head
        .process(&mut store, forged.clone(), c.start + 2)
        .unwrap();
    assert!(
        p.optimistic,
        "the spec's store takes it as its optimistic header"
    );
    assert_eq!(store.optimistic_header(), &forged.attested_header);
    assert_eq!(store.optimistic_header().execution.block_hash, [0xee; 32]);
    assert_eq!(head.header(&store), &boot, "the followed head stays");
    assert_eq!(head.participation(), (1, size));

    // One member short of two thirds: still not followed (the store's optimistic header moves).
    let short = c.update(2, 0xdd, two_thirds(c) - 1);
    head.process(&mut store, short.clone(), c.start + 3)
        .unwrap();
    assert_eq!(store.optimistic_header(), &short.attested_header);
    assert_eq!(head.header(&store), &boot);

    // Two thirds: followed.
    let honest = c.update(3, 0x11, two_thirds(c));
    head.process(&mut store, honest.clone(), c.start + 4)
        .unwrap();
    assert_eq!(head.header(&store), &honest.attested_header);
    assert_eq!(head.participation(), (two_thirds(c), size));
    assert_eq!(
        store.finalized_header(),
        &boot,
        "no finality: only the head moved"
    );
}

#[test]
fn mainnet_one_of_512_moves_the_spec_optimistic_header_not_the_followed_head() {
    let c = mainnet();
    assert_eq!(c.network.preset.sync_committee_size, 512);
    assert_eq!(two_thirds(&c), 342);
    one_member_moves_the_optimistic_header_but_not_the_followed_head(&c);
}

#[test]
fn minimal_one_of_32_moves_the_spec_optimistic_header_not_the_followed_head() {
    let c = minimal();
    assert_eq!(two_thirds(&c), 22);
    one_member_moves_the_optimistic_header_but_not_the_followed_head(&c);
}

#[test]
fn a_supermajority_header_is_followed_when_the_optimistic_header_does_not_move() {
    for c in [mainnet(), minimal()] {
        let (mut store, mut head) = c.fresh();
        // One member signs the newest slot first: the store's optimistic header is there.
        let forged = c.update(5, 0xee, 1);
        head.process(&mut store, forged.clone(), c.start + 6)
            .unwrap();
        // The committee signs an older slot: the optimistic header stays, the head follows it.
        let honest = c.update(4, 0x11, c.network.preset.sync_committee_size);
        let p = head
            .process(&mut store, honest.clone(), c.start + 6)
            .unwrap();
        assert!(!p.optimistic);
        assert_eq!(store.optimistic_header(), &forged.attested_header);
        assert_eq!(head.header(&store), &honest.attested_header);
        // An update the store refuses (here: no newer than the finalized header, and no
        // committee) changes neither the head nor the participation shown.
        let before = head.participation();
        let stale = c.update(0, 0x22, c.network.preset.sync_committee_size);
        assert!(head.process(&mut store, stale, c.start + 6).is_err());
        assert_eq!(head.header(&store), &honest.attested_header);
        assert_eq!(head.participation(), before);
    }
}

#[test]
fn a_lowered_threshold_follows_what_it_allows() {
    for c in [mainnet(), minimal()] {
        let (mut store, mut head) = c.fresh();
        head.set_min_participants(0); // at least one: the store refuses an update nobody signed
        let forged = c.update(1, 0xee, 1);
        head.process(&mut store, forged.clone(), c.start + 2)
            .unwrap();
        assert_eq!(head.header(&store), &forged.attested_header);
    }
}

#[test]
fn a_header_whose_signature_fails_is_not_followed() {
    let c = minimal();
    let (mut store, mut head) = c.fresh();
    let mut u = c.update(1, 0x11, 32);
    u.attested_header.execution.block_hash = [0xee; 32];
    let (body_root, branch) = root_over(
        &execution_root(&c.network, &u.attested_header),
        EXECUTION_PAYLOAD_GINDEX,
        7,
    );
    u.attested_header.execution_branch = branch.try_into().unwrap();
    u.attested_header.beacon.body_root = body_root;
    assert!(head.process(&mut store, u, c.start + 2).is_err());
    assert_eq!(head.header(&store), store.finalized_header());
    assert_eq!(head.participation(), (0, 0));
}
