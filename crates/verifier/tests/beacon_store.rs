//! The beacon store across a restart (saved and restored bytes), and decoders and the store
//! fed arbitrary bytes: never a panic, only `BAD_ENCODING` or a verdict.

use crate::beacon_common::{SyncCase, fixtures};
use lightprov_verifier::{
    ErrorCode, Rejection,
    beacon::{
        Fork, LightClientBootstrap, LightClientFinalityUpdate, LightClientOptimisticUpdate,
        LightClientStore, LightClientUpdate, Network, Preset,
    },
};
use proptest::prelude::*;

fn mainnet() -> SyncCase {
    SyncCase::load(&fixtures().join("real/sync/helios_capella_periods_862_867"))
}

#[test]
fn a_restored_store_follows_the_chain_like_the_one_it_was_saved_from() {
    let case = mainnet();
    let mut store = case.store_after(3);
    let after = &case.updates[3..];
    let saved = store.to_bytes();
    let mut restored = LightClientStore::from_bytes(case.network, &saved).unwrap();
    assert_eq!(restored.to_bytes(), saved);
    for (u, slot) in after {
        store.process_update(u.clone(), *slot).unwrap();
        restored.process_update(u.clone(), *slot).unwrap();
        assert_eq!(restored.finalized_header(), store.finalized_header());
        assert_eq!(restored.optimistic_header(), store.optimistic_header());
    }
    assert_eq!(restored.to_bytes(), store.to_bytes());
}

#[test]
fn a_saved_store_is_refused_truncated_extended_or_for_another_network() {
    let case = mainnet();
    let saved = case.store_after(1).to_bytes();
    for n in (0..saved.len()).step_by(97).chain([saved.len() - 1]) {
        let e = LightClientStore::from_bytes(case.network, &saved[..n]).unwrap_err();
        assert_eq!(e.code(), ErrorCode::BadEncoding, "prefix {n}");
    }
    let longer = [saved.clone(), vec![0]].concat();
    assert!(LightClientStore::from_bytes(case.network, &longer).is_err());
    // Sepolia's schedule makes the saved headers Deneb's: their execution branches fail.
    let sepolia = Network {
        preset: Preset::MAINNET,
        ..Network::SEPOLIA
    };
    let e = LightClientStore::from_bytes(sepolia, &saved).unwrap_err();
    assert_eq!(e.code(), ErrorCode::ExecutionBranchMismatch);
    assert_eq!(
        e.evidence().field,
        "store.finalized_header.execution_branch"
    );
    // The minimal preset's committees are another size.
    let minimal = Network::minimal(case.network.genesis_validators_root, Fork::Capella);
    assert!(LightClientStore::from_bytes(minimal, &saved).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn decoders_take_any_bytes_without_panicking(
        bytes in proptest::collection::vec(any::<u8>(), 0..4000),
        fork in 0usize..6,
    ) {
        let fork = Fork::ALL[fork];
        let p = Preset::MINIMAL;
        let _ = LightClientBootstrap::decode(&bytes, fork, &p);
        let _ = LightClientUpdate::decode(&bytes, fork, &p);
        let _ = LightClientFinalityUpdate::decode(&bytes, fork, &p);
        let _ = LightClientOptimisticUpdate::decode(&bytes, fork, &p);
        let _ = LightClientStore::from_bytes(Network::minimal([0; 32], fork), &bytes);
    }

    #[test]
    fn an_update_with_any_byte_changed_is_rejected_or_harmless(
        at in 0usize..3676,
        xor in 1u8..=255,
    ) {
        // The Capella case's first update, one byte changed anywhere: the store either
        // refuses it or, if the byte is one no check covers (not signed and not proven, such
        // as a zero byte of an empty field read back the same), accepts it unchanged in effect.
        let case = SyncCase::load(
            &fixtures().join("tests/minimal/capella/light_client/sync/pyspec_tests/light_client_sync"),
        );
        let (u, slot) = case.updates[0].clone();
        let mut bytes = u.encode();
        prop_assume!(at < bytes.len());
        bytes[at] ^= xor;
        let mut store = case.store_after(0);
        let forged = LightClientUpdate::decode(&bytes, Fork::Capella, &case.network.preset);
        if let Ok(forged) = forged
            && store.process_update(forged, slot).is_ok()
        {
            // Accepted: then only the signature slot can have changed (it is not signed)
            // and the store must be where the honest update takes it.
            let honest = case.store_after(1);
            prop_assert_eq!(store.finalized_header(), honest.finalized_header());
            prop_assert_eq!(store.optimistic_header(), honest.optimistic_header());
        }
    }
}
