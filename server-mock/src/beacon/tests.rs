//! The simulated chain against the core's light client: bootstrap, the updates of several
//! periods (the committee rotating), finality and optimistic updates, participation below two
//! thirds, a restart, and the REST API's answers.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::sync::Arc;

use lightprov_types::beacon::{
    LightClientBootstrap, LightClientFinalityUpdate, LightClientOptimisticUpdate,
    LightClientUpdate, Root,
};
use lightprov_verifier::beacon::{LightClientStore, Progress};

use super::{BeaconChain, FORK, PRESET, Settings, rest::BeaconApi};
use crate::{
    chain::{Chain, Config},
    front::Rest,
    rpc::Node,
};

/// A chain of `blocks` blocks after genesis (no proof family: the beacon chain reads headers).
fn chain(dir: &std::path::Path, blocks: u64) -> Chain {
    let mut config = Config::dev(None).unwrap();
    config.families = Vec::new();
    let mut chain = Chain::open(dir, config).unwrap();
    while chain.head().0.number < blocks {
        chain.produce_block().unwrap();
    }
    chain
}

fn settings(participation: usize) -> Settings {
    Settings { participation }
}

/// The root of the block at `slot`.
fn root(b: &BeaconChain, slot: u64) -> Root {
    b.header(slot).unwrap().1
}

/// A store bootstrapped at the block of `slot`, through the SSZ bytes a client receives.
fn store_at(b: &mut BeaconChain, c: &Chain, slot: u64) -> LightClientStore {
    let trusted = root(b, slot);
    let boot = b.bootstrap(c, &trusted).unwrap().unwrap();
    let bytes = boot.encode();
    let decoded = LightClientBootstrap::decode(&bytes, FORK, &PRESET).unwrap();
    assert_eq!(decoded, boot);
    lightprov_verifier::beacon::bootstrap(*b.network(), &trusted, FORK, &bytes).unwrap()
}

fn apply(store: &mut LightClientStore, u: &LightClientUpdate, now: u64) -> Progress {
    let bytes = u.encode();
    let decoded = LightClientUpdate::decode(&bytes, FORK, &PRESET).unwrap();
    store.process_update(decoded, now).unwrap()
}

#[test]
fn a_light_client_follows_the_chain_across_periods() {
    let dir = tempfile::tempdir().unwrap();
    // Three periods and a bit (64 slots each): the head's state finalizes a checkpoint of
    // its own period.
    let c = chain(dir.path(), 3 * 64 + 30);
    let mut b = BeaconChain::open(&c, settings(30)).unwrap();
    let head = b.head_slot().unwrap();
    assert_eq!(head, 3 * 64 + 30);

    // Bootstrap at the first non-genesis checkpoint (slot 8), then period by period.
    let mut store = store_at(&mut b, &c, 8);
    assert_eq!(store.finalized_header().beacon.slot, 8);
    for period in 0..=3 {
        let u = b.period_update(&c, period).unwrap().unwrap();
        assert_eq!(PRESET.period(u.attested_header.beacon.slot), period);
        assert_eq!(u.sync_aggregate.participants(), 30);
        let p = apply(&mut store, &u, head);
        assert!(p.applied, "period {period}'s update applies");
        let fin = store.finalized_header();
        assert_eq!(fin.beacon.slot, u.finalized_header.beacon.slot);
        assert_eq!(PRESET.period(fin.beacon.slot), period);
        // The committee rotated: the store now holds this period's, and knows the next.
        assert_eq!(*store.current_sync_committee(), b.sync_committee(period));
        assert_eq!(
            store.next_sync_committee(),
            Some(&b.sync_committee(period + 1))
        );
        // The verified execution fields are the node's block's.
        let block = c.header(fin.execution.block_number).unwrap().unwrap();
        assert_eq!(fin.execution.block_number, fin.beacon.slot);
        assert_eq!(fin.execution.block_hash, block.hash_slow().0);
        assert_eq!(fin.execution.state_root, block.state_root.0);
    }
    assert_ne!(
        b.sync_committee(0),
        b.sync_committee(1),
        "committees rotate"
    );

    // The latest finality update moves the finalized head to the head state's checkpoint.
    let fu = b.finality_update(&c).unwrap().unwrap();
    let bytes = fu.encode();
    let fu = LightClientFinalityUpdate::decode(&bytes, FORK, &PRESET).unwrap();
    let expected = b.checkpoints(head - 1).unwrap().finalized;
    assert_eq!(fu.finalized_header.beacon.hash_tree_root(), expected.root);
    store.process_finality_update(fu, head).unwrap();
    assert_eq!(
        store.finalized_header().beacon.slot,
        expected.epoch * PRESET.slots_per_epoch
    );
    // The optimistic update moves the optimistic head to the head's parent.
    let ou = b.optimistic_update(&c).unwrap().unwrap();
    let bytes = ou.encode();
    let ou = LightClientOptimisticUpdate::decode(&bytes, FORK, &PRESET).unwrap();
    store.process_optimistic_update(ou, head).unwrap();
    let opt = store.optimistic_header();
    assert_eq!(opt.beacon.slot, head - 1);
    assert_eq!(
        opt.execution.block_hash,
        c.header(head - 1).unwrap().unwrap().hash_slow().0
    );

    // An update signed after the client's current slot is refused; a forged one too.
    let mut fresh = store_at(&mut b, &c, 8);
    let u = b.period_update(&c, 0).unwrap().unwrap();
    assert!(
        fresh
            .process_update(u.clone(), u.signature_slot - 1)
            .is_err()
    );
    let mut forged = u.clone();
    forged.attested_header.execution.state_root[0] ^= 1;
    assert!(fresh.process_update(forged, head).is_err());
    let mut forged = u;
    forged.sync_aggregate.sync_committee_bits[0] ^= 1;
    assert!(fresh.process_update(forged, head).is_err());

    // Bootstrapping at any block, genesis included, proves its committee.
    for slot in [0, 63, 64, head] {
        let s = store_at(&mut b, &c, slot);
        assert_eq!(*s.current_sync_committee(), b.sync_committee(slot / 64));
    }
}

#[test]
fn below_two_thirds_the_optimistic_head_moves_and_finality_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let c = chain(dir.path(), 64 + 30);
    let mut b = BeaconChain::open(&c, settings(20)).unwrap();
    let head = b.head_slot().unwrap();
    let mut store = store_at(&mut b, &c, 8);
    let u = b.period_update(&c, 0).unwrap().unwrap();
    assert_eq!(u.sync_aggregate.participants(), 20);
    let p = apply(&mut store, &u, head);
    assert!(!p.applied);
    assert!(p.optimistic);
    assert_eq!(store.finalized_header().beacon.slot, 8);
    assert_eq!(
        store.optimistic_header().beacon.slot,
        u.attested_header.beacon.slot
    );
    assert!(store.next_sync_committee().is_none());
    let fu = b.finality_update(&c).unwrap().unwrap();
    // Signed in period 1, whose committee the store has not learned: refused.
    assert!(store.process_finality_update(fu, head).is_err());
    // Past the update timeout, the best update is forced in.
    assert!(store.force_update(head + PRESET.update_timeout()).unwrap());
    assert_eq!(
        store.finalized_header().beacon.slot,
        u.finalized_header.beacon.slot
    );
}

#[test]
fn a_restarted_node_rebuilds_the_same_chain() {
    let dir = tempfile::tempdir().unwrap();
    let (roots, boot, update) = {
        let c = chain(dir.path(), 70);
        let mut b = BeaconChain::open(&c, settings(32)).unwrap();
        let roots: Vec<Root> = (0..=70).map(|s| root(&b, s)).collect();
        let boot = b.bootstrap(&c, &roots[16]).unwrap().unwrap().encode();
        let update = b.period_update(&c, 1).unwrap().unwrap().encode();
        (roots, boot, update)
    };
    let mut config = Config::dev(None).unwrap();
    config.families = Vec::new();
    let mut c = Chain::open(dir.path(), config).unwrap();
    let mut b = BeaconChain::open(&c, settings(32)).unwrap();
    assert_eq!(b.head_slot(), Some(70));
    for (s, r) in roots.iter().enumerate() {
        assert_eq!(root(&b, s as u64), *r, "slot {s}");
    }
    assert_eq!(b.bootstrap(&c, &roots[16]).unwrap().unwrap().encode(), boot);
    assert_eq!(b.period_update(&c, 1).unwrap().unwrap().encode(), update);
    // The chain goes on from there.
    c.produce_block().unwrap();
    b.sync(&c).unwrap();
    assert_eq!(b.head_slot(), Some(71));
    assert_eq!(b.header(71).unwrap().0.parent_root, roots[70]);
}

#[test]
fn the_rest_api_serves_ssz_and_names_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let c = chain(dir.path(), 70);
    let b = BeaconChain::open(&c, settings(30)).unwrap();
    let gvr = b.network().genesis_validators_root;
    let digest = b.fork_digest(0);
    let node = Arc::new(Node {
        on_demand: true,
        ..Node::in_process(c)
    });
    let api = BeaconApi::new(node.clone(), b);
    let get = |path: &str| {
        let (p, q) = match path.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (path, None),
        };
        api.get(p, q, Some("application/octet-stream"))
    };
    let header = |a: &crate::front::RestAnswer, name: &str| {
        a.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.clone())
    };

    let g = get("/eth/v1/beacon/genesis");
    assert_eq!(g.status, 200);
    let g = g.json_body().unwrap();
    assert_eq!(
        g["data"]["genesis_validators_root"],
        lightprov_types::hex::encode(&gvr)
    );
    assert_eq!(g["data"]["genesis_time"], "0");

    let f = get("/eth/v1/beacon/headers/finalized").json_body().unwrap();
    // Head 70 is in epoch 8: epoch 6 is finalized, its first slot 48.
    assert_eq!(f["data"]["header"]["message"]["slot"], "48");
    assert_eq!(f["finalized"], true);
    let root = f["data"]["root"].as_str().unwrap().to_owned();

    // A client bootstraps at an older checkpoint (slot 8) and catches up by periods.
    let h8 = get("/eth/v1/beacon/headers/8").json_body().unwrap();
    let root8 = h8["data"]["root"].as_str().unwrap().to_owned();
    let boot = get(&format!("/eth/v1/beacon/light_client/bootstrap/{root8}"));
    assert_eq!(boot.status, 200);
    assert_eq!(
        header(&boot, "eth-consensus-version").as_deref(),
        Some("fulu")
    );
    assert_eq!(
        header(&boot, "content-type").as_deref(),
        Some("application/octet-stream")
    );
    let trusted: Root = lightprov_types::hex::fixed(&root8, "root").unwrap();
    let network = lightprov_types::beacon::Network::minimal(gvr, FORK);
    let mut store =
        lightprov_verifier::beacon::bootstrap(network, &trusted, FORK, &boot.body).unwrap();

    // Two chunks (periods 0 and 1), the third period not begun.
    let u = get("/eth/v1/beacon/light_client/updates?start_period=0&count=5");
    assert_eq!(u.status, 200);
    let mut rest = u.body.as_slice();
    let mut chunks = Vec::new();
    while !rest.is_empty() {
        let len = u64::from_le_bytes(rest[..8].try_into().unwrap()) as usize;
        let (chunk, tail) = rest[8..].split_at(len);
        chunks.push((chunk[..4].to_vec(), chunk[4..].to_vec()));
        rest = tail;
    }
    assert_eq!(chunks.len(), 2);
    for (d, ssz) in chunks {
        assert_eq!(d, digest);
        let u = LightClientUpdate::decode(&ssz, FORK, &PRESET).unwrap();
        assert!(store.process_update(u, 70).unwrap().applied);
    }
    // Period 0's update taught the next committee (finalizing slot 40); period 1's, attested
    // at 69, finalized the head's checkpoint.
    assert!(store.next_sync_committee().is_some());
    assert_eq!(store.finalized_header().beacon.slot, 48);

    let fu = get("/eth/v1/beacon/light_client/finality_update");
    let fu = LightClientFinalityUpdate::decode(&fu.body, FORK, &PRESET).unwrap();
    store.process_finality_update(fu, 70).unwrap();
    let ou = get("/eth/v1/beacon/light_client/optimistic_update");
    let ou = LightClientOptimisticUpdate::decode(&ou.body, FORK, &PRESET).unwrap();
    store.process_optimistic_update(ou, 70).unwrap();
    assert_eq!(store.optimistic_header().beacon.slot, 69);

    let s = get("/lightprov/v1/beacon/status").json_body().unwrap();
    assert_eq!(s["currentSlot"], "70");
    assert_eq!(s["participation"], 30);
    assert_eq!(s["finalized"]["slot"], "48");

    let cp = get("/eth/v1/beacon/states/head/finality_checkpoints")
        .json_body()
        .unwrap();
    assert_eq!(cp["data"]["finalized"]["epoch"], "6");
    assert_eq!(cp["data"]["finalized"]["root"], root);

    // Errors: unknown roots 404, bad parameters 400 naming them, SSZ refused 406.
    let zero = format!("0x{}", "00".repeat(32));
    // `path` is answered `status`, with a message that names `name`.
    let refused = |path: &str, status, name: &str| {
        let e = get(path);
        assert_eq!(e.status, status, "{path}");
        let m = e.json_body().unwrap()["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(m.contains(name), "{path}: {m}");
    };
    refused(
        &format!("/eth/v1/beacon/light_client/bootstrap/{zero}"),
        404,
        "block_root",
    );
    refused(
        "/eth/v1/beacon/light_client/bootstrap/0x12",
        400,
        "block_root",
    );
    for (q, name) in [
        ("count=1", "start_period"),
        ("start_period=x&count=1", "start_period"),
        ("start_period=0", "count"),
        ("start_period=0&count=0", "count"),
    ] {
        refused(
            &format!("/eth/v1/beacon/light_client/updates?{q}"),
            400,
            name,
        );
    }
    assert_eq!(get("/eth/v1/beacon/headers/71").status, 404);
    assert_eq!(get("/eth/v1/beacon/headers/nope").status, 400);
    assert_eq!(get("/eth/v1/beacon/nothing").status, 404);
    let e = api.get(
        "/eth/v1/beacon/light_client/finality_update",
        None,
        Some("application/json"),
    );
    assert_eq!(e.status, 406);

    // A new block is picked up by the next request.
    node.chain.write().unwrap().produce_block().unwrap();
    let s = get("/lightprov/v1/beacon/status").json_body().unwrap();
    assert_eq!(s["currentSlot"], "71");
}
