//! Forgeries that break exactly one check of the beacon verifier each. The specification's
//! vectors hold only valid updates (a verifier that checks nothing passes them all), so every
//! check is exercised here: each test changes one thing in an honest bootstrap or update from
//! the spec's minimal Capella sync case (real BLS signatures of its test chain) or from real
//! mainnet data, asserts the check's own code, and checks that the honest input passes.
//!
//! Where a forgery needs a signature (a committee of another period, fewer signers), it is made
//! with the test chain's keys: the spec's test validators have secret key `index + 1`.

use crate::beacon_common::{SyncCase, fixtures, secret_keys, sign};
use lightprov_verifier::{
    ErrorCode, Rejection,
    beacon::{
        BeaconError, Fork, LightClientBootstrap, LightClientStore, LightClientUpdate, Network,
    },
};

fn capella() -> SyncCase {
    SyncCase::load(
        &fixtures().join("tests/minimal/capella/light_client/sync/pyspec_tests/light_client_sync"),
    )
}

fn mainnet() -> SyncCase {
    SyncCase::load(&fixtures().join("real/sync/helios_capella_periods_862_867"))
}

fn store(case: &SyncCase) -> LightClientStore {
    LightClientStore::bootstrap(
        case.network,
        &case.trusted_block_root,
        case.bootstrap.clone(),
    )
    .unwrap()
}

/// The code a store just bootstrapped from `case` answers for `update` at `slot`; the honest
/// first update of the case must pass on the same store.
fn reject(case: &SyncCase, update: LightClientUpdate, slot: u64) -> BeaconError {
    let mut s = store(case);
    let (honest, honest_slot) = case.updates[0].clone();
    s.clone().process_update(honest, honest_slot).unwrap();
    let e = s.process_update(update, slot).unwrap_err();
    // Every rejection names its field.
    assert!(!e.evidence().field.is_empty(), "{e}");
    e
}

fn first(case: &SyncCase) -> (LightClientUpdate, u64) {
    case.updates[0].clone()
}

/// [`reject`] for the Capella case's first update changed by `forge`, at its own slot.
fn reject_first(forge: impl FnOnce(&SyncCase, &mut LightClientUpdate)) -> BeaconError {
    let case = capella();
    let (mut u, slot) = first(&case);
    forge(&case, &mut u);
    reject(&case, u, slot)
}

/// What bootstrapping from the Capella case's bootstrap changed by `forge` answers.
fn reject_bootstrap(forge: impl FnOnce(&mut LightClientBootstrap)) -> BeaconError {
    let case = capella();
    let mut b = case.bootstrap.clone();
    forge(&mut b);
    LightClientStore::bootstrap(case.network, &case.trusted_block_root, b).unwrap_err()
}

/// `e` is `code`, with evidence at `field`.
fn assert_rejected(e: &BeaconError, code: ErrorCode, field: &str) {
    assert_eq!(e.code(), code);
    assert_eq!(e.evidence().field, field);
}

fn flip(root: &mut [u8; 32]) {
    root[7] ^= 0x10;
}

#[test]
fn honest_updates_pass_and_move_the_store() {
    let case = capella();
    let mut s = store(&case);
    for (u, slot) in case.updates.iter().take(2).cloned() {
        let progress = s.process_update(u, slot).unwrap();
        assert!(progress.applied);
    }
    assert_eq!(s.finalized_header().beacon.slot, 72);
    assert!(s.next_sync_committee().is_some());
}

#[test]
fn rejects_bootstrap_checked_against_another_block_root() {
    let case = capella();
    let mut other = case.trusted_block_root;
    flip(&mut other);
    let e = LightClientStore::bootstrap(case.network, &other, case.bootstrap.clone()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::CheckpointMismatch);
}

#[test]
fn rejects_bootstrap_whose_current_committee_branch_is_altered() {
    let e = reject_bootstrap(|b| flip(&mut b.current_sync_committee_branch[2]));
    assert_rejected(
        &e,
        ErrorCode::SyncCommitteeBranchMismatch,
        "bootstrap.current_sync_committee_branch",
    );
}

#[test]
fn rejects_bootstrap_whose_committee_is_not_the_proven_one() {
    let e = reject_bootstrap(|b| b.current_sync_committee.pubkeys.swap(0, 1));
    assert_eq!(e.code(), ErrorCode::SyncCommitteeBranchMismatch);
}

#[test]
fn rejects_bootstrap_whose_execution_branch_is_altered() {
    let e = reject_bootstrap(|b| flip(&mut b.header.execution_branch[0]));
    assert_rejected(
        &e,
        ErrorCode::ExecutionBranchMismatch,
        "bootstrap.header.execution_branch",
    );
}

#[test]
fn rejects_update_without_participants() {
    let e = reject_first(|_, u| u.sync_aggregate.sync_committee_bits.fill(0));
    assert_eq!(e.code(), ErrorCode::LowParticipation);
}

#[test]
fn rejects_participation_below_the_networks_minimum() {
    let case = capella();
    let participants = first(&case).0.sync_aggregate.participants();
    let e = reject_on(case, |n| {
        n.preset.min_sync_committee_participants = participants + 1;
    });
    assert_eq!(e.code(), ErrorCode::LowParticipation);
}

/// As [`reject`] on a store where the honest update need not pass (the network changed).
fn reject_fresh(case: &SyncCase, update: LightClientUpdate, slot: u64) -> BeaconError {
    store(case).process_update(update, slot).unwrap_err()
}

/// [`reject_fresh`] for `case`'s honest first update, on the network `change` makes of the
/// case's.
fn reject_on(mut case: SyncCase, change: impl FnOnce(&mut Network)) -> BeaconError {
    change(&mut case.network);
    let (u, slot) = first(&case);
    reject_fresh(&case, u, slot)
}

#[test]
fn rejects_signature_slot_not_after_the_attested_slot() {
    let e = reject_first(|_, u| u.signature_slot = u.attested_header.beacon.slot);
    assert_rejected(
        &e,
        ErrorCode::SlotOrder,
        "update.attested_header.beacon.slot",
    );
}

#[test]
fn rejects_signature_slot_after_the_current_slot() {
    let case = capella();
    let (u, _) = first(&case);
    let now = u.signature_slot - 1;
    let e = reject(&case, u, now);
    assert_eq!(e.code(), ErrorCode::SlotOrder);
    assert_eq!(e.evidence().field, "update.signature_slot");
}

#[test]
fn rejects_finalized_slot_after_the_attested_slot() {
    let e = reject_first(|_, u| {
        u.finalized_header.beacon.slot = u.attested_header.beacon.slot + 1;
    });
    assert_rejected(
        &e,
        ErrorCode::SlotOrder,
        "update.finalized_header.beacon.slot",
    );
}

#[test]
fn rejects_signature_two_periods_ahead() {
    let case = capella();
    let (mut u, _) = first(&case);
    u.signature_slot += 2 * case.network.preset.update_timeout();
    let now = u.signature_slot;
    assert_eq!(reject(&case, u, now).code(), ErrorCode::PeriodMismatch);
}

#[test]
fn rejects_next_period_signature_before_the_next_committee_is_known() {
    let case = capella();
    // The second update is signed by period 1's committee, which only the first one proves.
    let (u, slot) = case.updates[1].clone();
    assert_eq!(u.signature_slot / 64, 1);
    assert_eq!(reject(&case, u, slot).code(), ErrorCode::PeriodMismatch);
}

#[test]
fn rejects_update_that_advances_nothing() {
    // Real mainnet: the first update is older than the bootstrap but brings period 863's
    // committee; once that is known, the same update advances nothing.
    let case = mainnet();
    let mut s = store(&case);
    let (u, slot) = first(&case);
    assert!(u.attested_header.beacon.slot < s.finalized_header().beacon.slot);
    s.process_update(u.clone(), slot).unwrap();
    let e = s.process_update(u, slot).unwrap_err();
    assert_eq!(e.code(), ErrorCode::StaleUpdate);
}

#[test]
fn rejects_finalized_header_without_finality_branch() {
    let e = reject_first(|_, u| u.finality_branch.iter_mut().for_each(|n| *n = [0; 32]));
    assert_rejected(&e, ErrorCode::UnexpectedField, "update.finalized_header");
}

#[test]
fn rejects_next_committee_without_its_branch() {
    let e = reject_first(|_, u| {
        u.next_sync_committee_branch
            .iter_mut()
            .for_each(|n| *n = [0; 32]);
    });
    assert_rejected(&e, ErrorCode::UnexpectedField, "update.next_sync_committee");
}

#[test]
fn rejects_blob_gas_in_a_header_before_deneb() {
    let e = reject_first(|_, u| u.attested_header.execution.blob_gas_used = 1);
    assert_rejected(
        &e,
        ErrorCode::UnexpectedField,
        "update.attested_header.execution",
    );
}

#[test]
fn rejects_altered_finality_branch() {
    let e = reject_first(|_, u| flip(&mut u.finality_branch[3]));
    assert_rejected(
        &e,
        ErrorCode::FinalityBranchMismatch,
        "update.finality_branch",
    );
}

#[test]
fn rejects_finalized_header_the_branch_does_not_prove() {
    let e = reject_first(|_, u| u.finalized_header.beacon.proposer_index += 1);
    assert_eq!(e.code(), ErrorCode::FinalityBranchMismatch);
}

#[test]
fn rejects_altered_next_committee_branch() {
    let e = reject_first(|_, u| flip(&mut u.next_sync_committee_branch[0]));
    assert_rejected(
        &e,
        ErrorCode::SyncCommitteeBranchMismatch,
        "update.next_sync_committee_branch",
    );
}

#[test]
fn rejects_altered_attested_execution_branch() {
    let e = reject_first(|_, u| flip(&mut u.attested_header.execution_branch[1]));
    assert_rejected(
        &e,
        ErrorCode::ExecutionBranchMismatch,
        "update.attested_header.execution_branch",
    );
}

#[test]
fn rejects_execution_state_root_the_branch_does_not_prove() {
    let e = reject_first(|_, u| flip(&mut u.finalized_header.execution.state_root));
    assert_rejected(
        &e,
        ErrorCode::ExecutionBranchMismatch,
        "update.finalized_header.execution_branch",
    );
}

#[test]
fn rejects_next_committee_other_than_the_verified_one() {
    let case = capella();
    let mut s = store(&case);
    let (u, slot) = first(&case);
    s.process_update(u.clone(), slot).unwrap();
    // The same period again, its next committee with two members swapped (its branch honest).
    let mut forged = u;
    forged.next_sync_committee.pubkeys.swap(0, 1);
    let e = s.process_update(forged, slot).unwrap_err();
    assert_eq!(e.code(), ErrorCode::SyncCommitteeMismatch);
}

#[test]
fn rejects_signature_with_a_byte_changed() {
    let e = reject_first(|_, u| u.sync_aggregate.sync_committee_signature[40] ^= 1);
    assert_eq!(e.code(), ErrorCode::BadSyncSignature);
}

#[test]
fn rejects_valid_signature_over_another_header() {
    let e = reject_first(|case, u| {
        u.sync_aggregate.sync_committee_signature =
            case.updates[1].0.sync_aggregate.sync_committee_signature;
    });
    assert_eq!(e.code(), ErrorCode::BadSyncSignature);
}

#[test]
fn rejects_participation_bit_flipped() {
    let case = mainnet();
    // 511 of 512 signed the first real update: claim the missing member signed too.
    let (mut u, slot) = first(&case);
    assert_eq!(u.sync_aggregate.participants(), 511);
    let missing = (0..512).find(|i| !u.sync_aggregate.signed(*i)).unwrap();
    u.sync_aggregate.sync_committee_bits[missing / 8] ^= 1 << (missing % 8);
    assert_eq!(reject(&case, u, slot).code(), ErrorCode::BadSyncSignature);
}

#[test]
fn rejects_signature_under_another_networks_genesis_validators_root() {
    let e = reject_on(capella(), |n| {
        n.genesis_validators_root = Network::MAINNET.genesis_validators_root;
    });
    assert_eq!(e.code(), ErrorCode::BadSyncSignature);
}

#[test]
fn rejects_signature_under_another_networks_fork_version() {
    let e = reject_on(capella(), |n| {
        n.forks[Fork::Capella as usize].version = Network::MAINNET.schedule(Fork::Capella).version;
    });
    assert_eq!(e.code(), ErrorCode::BadSyncSignature);
}

#[test]
fn rejects_real_mainnet_bootstrap_under_sepolias_fork_schedule() {
    let mut case = mainnet();
    case.network = Network {
        preset: Network::MAINNET.preset,
        ..Network::SEPOLIA
    };
    // The bootstrap's slot is Deneb's on Sepolia: its execution payload header is read as
    // Deneb's, whose root the block body does not commit to.
    let e = LightClientStore::bootstrap(case.network, &case.trusted_block_root, case.bootstrap)
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::ExecutionBranchMismatch);
}

#[test]
fn rejects_real_mainnet_update_under_another_genesis_validators_root() {
    let e = reject_on(mainnet(), |n| {
        n.genesis_validators_root = Network::SEPOLIA.genesis_validators_root;
    });
    assert_eq!(e.code(), ErrorCode::BadSyncSignature);
}

#[test]
fn resigning_with_the_right_committee_passes() {
    // The signer itself is sound: the honest update re-signed by its own committee passes.
    let case = capella();
    let keys = secret_keys(&case.bootstrap.current_sync_committee);
    let (mut u, slot) = first(&case);
    sign(&case.network, &mut u, &keys);
    assert_eq!(
        u.sync_aggregate.sync_committee_signature,
        first(&case).0.sync_aggregate.sync_committee_signature
    );
    store(&case).process_update(u, slot).unwrap();
}

#[test]
fn rejects_signature_by_the_committee_of_another_period() {
    let e = reject_first(|case, u| {
        // Period 2's committee (proven by the second update) signs period 0's header. (Period
        // 1's is period 0's: at genesis both are the same.)
        let other = &case.updates[1].0.next_sync_committee;
        assert_ne!(other, &case.bootstrap.current_sync_committee);
        let keys = secret_keys(other);
        sign(&case.network, u, &keys);
    });
    assert_rejected(
        &e,
        ErrorCode::BadSyncSignature,
        "update.sync_aggregate.sync_committee_signature",
    );
}

#[test]
fn below_two_thirds_an_update_moves_only_the_optimistic_head() {
    let case = capella();
    let keys = secret_keys(&case.bootstrap.current_sync_committee);
    let (mut u, slot) = first(&case);
    // 20 of 32 signers: valid, above the safety threshold, below the supermajority.
    let bits = &mut u.sync_aggregate.sync_committee_bits;
    bits.fill(0);
    for i in 0..20 {
        bits[i / 8] |= 1 << (i % 8);
    }
    sign(&case.network, &mut u, &keys);
    let mut s = store(&case);
    let finalized = s.finalized_header().beacon.slot;
    let progress = s.process_update(u.clone(), slot).unwrap();
    assert!(!progress.applied && progress.optimistic);
    assert_eq!(s.finalized_header().beacon.slot, finalized);
    assert_eq!(s.optimistic_header().beacon, u.attested_header.beacon);
    assert!(s.next_sync_committee().is_none());
    assert_eq!(s.best_valid_update(), Some(&u));
}

#[test]
fn rejects_truncated_update_bytes() {
    let case = capella();
    let (u, _) = first(&case);
    let bytes = u.encode();
    let e = LightClientUpdate::decode(
        &bytes[..bytes.len() - 1],
        Fork::Capella,
        &case.network.preset,
    )
    .unwrap_err();
    assert_eq!(BeaconError::from(e).code(), ErrorCode::BadEncoding);
}

/// A store that holds the next committee keeps its root once an update proves it again; an
/// update carrying the very same committee must still prove it with its own branch.
#[test]
fn rejects_altered_next_committee_branch_once_the_root_is_kept() {
    // The first update, of either case, that a store still takes once it has applied it and
    // holds the next committee the update carries.
    let mut kept = None;
    for case in [capella(), mainnet()] {
        let mut s = store(&case);
        for (u, slot) in case.updates.clone() {
            if s.process_update(u.clone(), slot).is_ok()
                && s.next_sync_committee() == Some(&u.next_sync_committee)
                && s.clone().validate_update(&u, slot).is_ok()
            {
                kept = Some((s, u, slot));
                break;
            }
        }
        if kept.is_some() {
            break;
        }
    }
    let (mut s, u, slot) = kept.unwrap();
    // Twice: the second run takes the kept root.
    s.validate_update(&u, slot).unwrap();
    s.validate_update(&u, slot).unwrap();
    let mut forged = u.clone();
    flip(&mut forged.next_sync_committee_branch[2]);
    let e = s.validate_update(&forged, slot).unwrap_err();
    assert_rejected(
        &e,
        ErrorCode::SyncCommitteeBranchMismatch,
        "update.next_sync_committee_branch",
    );
    s.validate_update(&u, slot).unwrap();
}
