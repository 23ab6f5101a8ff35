//! The beacon family: Ethereum's beacon chain followed from a trusted checkpoint by its sync
//! committee (the Altair light-client protocol, consensus specs
//! `specs/altair/light-client/sync-protocol.md`, with its Capella, Deneb and Electra
//! revisions; Fulu changes nothing in it).
//!
//! A [`LightClientStore`] starts from a `LightClientBootstrap` whose header hashes to a trusted
//! beacon block root and whose branch proves the current sync committee against that header's
//! state. Each `LightClientUpdate` then proves, against the store, in this order (the codes
//! are the [`BeaconError`]'s):
//!
//! 1. at least `MIN_SYNC_COMMITTEE_PARTICIPANTS` members signed — `LOW_PARTICIPATION`;
//! 2. the attested header is valid for its fork: no execution data before Capella, no blob gas
//!    before Deneb (`UNEXPECTED_FIELD`), its execution payload header proven against its block
//!    body root (`EXECUTION_BRANCH_MISMATCH`);
//! 3. `current slot ≥ signature slot > attested slot ≥ finalized slot` — `SLOT_ORDER`;
//! 4. the signature's period is one the store has a committee for — `PERIOD_MISMATCH`;
//! 5. the update advances the store (a newer attested header, or the next committee the store
//!    lacks) — `STALE_UPDATE`;
//! 6. the finalized header (empty unless a finality branch is given) is valid and proven
//!    against the attested state root — `UNEXPECTED_FIELD`, `EXECUTION_BRANCH_MISMATCH`,
//!    `FINALITY_BRANCH_MISMATCH`;
//! 7. the next sync committee (empty unless its branch is given) equals the one the store
//!    already knows for that period and is proven against the attested state root —
//!    `SYNC_COMMITTEE_MISMATCH`, `SYNC_COMMITTEE_BRANCH_MISMATCH`;
//! 8. the participants' aggregate BLS signature verifies over the attested beacon block root in
//!    the sync-committee domain of the fork at the signature slot and of the network's genesis
//!    validators root — `BAD_SYNC_SIGNATURE`.
//!
//! A bootstrap fails with `CHECKPOINT_MISMATCH` (header root), `SYNC_COMMITTEE_BRANCH_MISMATCH`
//! (current committee branch) or the header checks of step 2; bytes that are not the fork's SSZ
//! container with `BAD_ENCODING`.
//!
//! Domains and fork versions come from the store's [`Network`] only.
//!
//! The store's optimistic header is the specification's, which one member's signature moves on
//! a fresh store; the head a client follows is [`SignedHead`]'s: the newest header a
//! supermajority of the committee signed, or the finalized one.

mod bls;
mod head;
mod merkle;
mod store;

pub use bls::{
    DST, G1Affine, G1Projective, G2Affine, aggregate, eth_fast_aggregate_verify,
    fast_aggregate_verify, hash_to_g2, hash_to_g2_with, public_key, signature, verify,
};
pub use head::SignedHead;
pub use lightprov_types::beacon::{
    BeaconError, Branch, Fork, LightClientBootstrap, LightClientFinalityUpdate, LightClientHeader,
    LightClientOptimisticUpdate, LightClientUpdate, Network, ObjectKind, Preset, Root,
};
pub use merkle::{BranchFault, branch_root, check_normalized, depth_and_index};
pub use store::{
    LightClientStore, Progress, compute_domain, compute_signing_root, execution_root,
    is_better_update, is_supermajority, sync_committee_signing_root,
};

/// Decodes a bootstrap (`fork`'s SSZ container) and starts a store from it if it proves
/// itself against `trusted_block_root`.
pub fn bootstrap(
    network: Network,
    trusted_block_root: &Root,
    fork: Fork,
    ssz: &[u8],
) -> Result<LightClientStore, BeaconError> {
    let b = LightClientBootstrap::decode(ssz, fork, &network.preset)?;
    LightClientStore::bootstrap(network, trusted_block_root, b)
}

crate::family::verify_shape! {
    /// A bootstrap against a trusted block root, in the one verify shape: the commitment is the
    /// network and the trusted root, the query the fork of the bootstrap's container, the proof
    /// its SSZ bytes, and what it proves a store that follows the chain from there.
    pub struct Bootstrap: &lightprov_types::beacon::FAMILY;
    fn verify(
        (network, root): &(Network, Root),
        fork: &Fork,
        ssz,
    ) -> Result<LightClientStore, BeaconError> {
        bootstrap(*network, root, *fork, ssz)
    }
}
