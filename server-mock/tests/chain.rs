//! The chain end to end in-process: signed transfers, blocks, proofs checked by the verifier,
//! headers checked by hash and seal, restarts.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use alloy_consensus::{SignableTransaction, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use lightprov_engine_api::{Key, StateEngine};
use lightprov_node::{
    chain::{BASE_FEE, Chain, Config, TRANSFER_GAS, TxError, seal_hash},
    families::{cole, lvmt},
    workload::{Kind, Workload},
};
use lightprov_testkit::tx::raw_transfer;
use lightprov_types::header::Header as LpHeader;
use lightprov_verifier::{header::verify_header, mpt::verify_account_proof};

fn balance(chain: &Chain, a: Address) -> U256 {
    U256::from_be_bytes(
        chain
            .engine()
            .get(&Key::Balance(a), chain.head().0.number)
            .unwrap(),
    )
}

/// The header as lightprov's own verifier sees it (through the JSON an RPC client gets).
fn lp_header(chain: &Chain, number: u64) -> (LpHeader, B256) {
    let h = chain.block(number).unwrap().unwrap().header().unwrap();
    let hash = h.hash_slow();
    let rpc = alloy_rpc_types_eth::Header {
        hash,
        inner: h,
        total_difficulty: None,
        size: None,
    };
    (
        LpHeader::from_json(&serde_json::to_value(rpc).unwrap()).unwrap(),
        hash,
    )
}

/// The tests' signed transfers (lightprov-testkit's, shared with the fuzz targets) are in this
/// chain's shape: its transfer gas, its base fee and the dev chain's id.
#[test]
fn test_transfers_follow_the_chains_constants() {
    assert_eq!(lightprov_testkit::tx::BASE_FEE, BASE_FEE);
    assert_eq!(lightprov_testkit::tx::TRANSFER_GAS, TRANSFER_GAS);
    assert_eq!(
        lightprov_testkit::tx::DEV_CHAIN_ID,
        Config::dev(None).unwrap().chain_id
    );
}

#[test]
fn a_transfer_moves_value_and_every_proof_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::dev(None).unwrap();
    let (alice, bob) = (config.dev_accounts[0].clone(), Address::repeat_byte(0xb0));
    let mut chain = Chain::open(dir.path(), config.clone()).unwrap();
    let before = balance(&chain, alice.address());

    let hash = chain
        .submit(&raw_transfer(&alice, bob, 12345, 0, 1337))
        .unwrap();
    assert!(matches!(
        chain.submit(&raw_transfer(&alice, bob, 12345, 0, 1337)),
        Err(TxError::Known)
    ));
    assert_eq!(chain.pending_nonce(&alice.address()).unwrap(), 1);
    let n = chain.produce_block().unwrap();
    assert_eq!(n, 1);
    assert_eq!(chain.tx_location(&hash).unwrap(), Some((1, 0)));
    assert_eq!(balance(&chain, bob), U256::from(12345));
    let fee = U256::from(2 * BASE_FEE) * U256::from(TRANSFER_GAS); // base fee + 1 gwei tip
    assert_eq!(
        balance(&chain, alice.address()),
        before - U256::from(12345) - fee
    );

    for number in [0, 1] {
        let (header, hash) = lp_header(&chain, number);
        verify_header(&header, &hash).unwrap();
        // Clique-style seal: the last 65 bytes of extraData sign the header without them.
        let h = chain.block(number).unwrap().unwrap().header().unwrap();
        let commitments = lightprov_types::family::EXTRA_COMMITMENTS_LEN;
        assert_eq!(h.extra_data.len(), commitments + 65);
        let sig = alloy_primitives::Signature::from_raw(&h.extra_data[commitments..]).unwrap();
        assert_eq!(
            sig.recover_address_from_prehash(&seal_hash(&h)).unwrap(),
            config.signer.address()
        );
        for a in [alice.address(), bob, Address::repeat_byte(0x77)] {
            let p = chain
                .engine()
                .account_proof(&a, &[B256::ZERO], number)
                .unwrap();
            let v = verify_account_proof(&header.state_root, &p.as_ref()).unwrap();
            assert_eq!(
                U256::from_be_bytes(v.balance),
                U256::from_be_bytes(chain.engine().get(&Key::Balance(a), number).unwrap())
            );
        }
    }
    // Bob did not exist at genesis: proven absent there, present after block 1.
    let (g, _) = lp_header(&chain, 0);
    let p = chain.engine().account_proof(&bob, &[], 0).unwrap();
    assert!(
        !verify_account_proof(&g.state_root, &p.as_ref())
            .unwrap()
            .exists
    );
}

#[test]
fn bad_transactions_are_refused_with_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::dev(None).unwrap();
    let alice = config.dev_accounts[0].clone();
    let mut chain = Chain::open(dir.path(), config).unwrap();
    let bob = Address::repeat_byte(0xb0);
    assert!(matches!(
        chain.submit(&raw_transfer(&alice, bob, 1, 0, 1)),
        Err(TxError::ChainId {
            expected: 1337,
            got: Some(1)
        })
    ));
    assert!(matches!(
        chain.submit(&raw_transfer(&alice, bob, 1, 5, 1337)),
        Err(TxError::NonceTooHigh {
            expected: 0,
            got: 5
        })
    ));
    let pauper = PrivateKeySigner::from_bytes(&B256::repeat_byte(9)).unwrap();
    assert!(matches!(
        chain.submit(&raw_transfer(&pauper, bob, 1, 0, 1337)),
        Err(TxError::InsufficientFunds { .. })
    ));
    assert!(matches!(
        chain.submit(&[0xde, 0xad]),
        Err(TxError::Decode(_))
    ));
    chain
        .submit(&raw_transfer(&alice, bob, 1, 0, 1337))
        .unwrap();
    chain.produce_block().unwrap();
    assert!(matches!(
        chain.submit(&raw_transfer(&alice, bob, 1, 0, 1337)),
        Err(TxError::NonceTooLow {
            expected: 1,
            got: 0
        })
    ));
    // A legacy (EIP-155) transfer works too.
    let legacy = TxLegacy {
        chain_id: Some(1337),
        nonce: 1,
        gas_limit: TRANSFER_GAS,
        gas_price: u128::from(BASE_FEE),
        to: TxKind::Call(bob),
        value: U256::from(5),
        ..Default::default()
    };
    let sig = alice.sign_hash_sync(&legacy.signature_hash()).unwrap();
    chain
        .submit(&TxEnvelope::from(legacy.into_signed(sig)).encoded_2718())
        .unwrap();
    chain.produce_block().unwrap();
    assert_eq!(balance(&chain, bob), U256::from(6));
}

#[test]
fn restart_resumes_at_the_same_head_and_refuses_other_settings() {
    let dir = tempfile::tempdir().unwrap();
    let w = Some(Workload {
        kind: Kind::Smallbank,
        seed: 3,
        ops_per_block: 40,
    });
    let (head, hash, root) = {
        let mut chain = Chain::open(dir.path(), Config::dev(w).unwrap()).unwrap();
        for _ in 0..5 {
            chain.produce_block().unwrap();
        }
        let (h, hash) = chain.head();
        (h.number, hash, h.state_root)
    };
    let chain = Chain::open(dir.path(), Config::dev(w).unwrap()).unwrap();
    assert_eq!(
        (
            chain.head().0.number,
            chain.head().1,
            chain.head().0.state_root
        ),
        (head, hash, root)
    );
    drop(chain);
    let other = Some(Workload {
        kind: Kind::Kvstore,
        seed: 3,
        ops_per_block: 40,
    });
    assert!(Chain::open(dir.path(), Config::dev(other).unwrap()).is_err());
}

#[test]
fn workloads_fill_blocks_deterministically() {
    for kind in [Kind::Transfer, Kind::Smallbank, Kind::Kvstore] {
        let w = Some(Workload {
            kind,
            seed: 11,
            ops_per_block: 30,
        });
        let roots: Vec<Vec<B256>> = (0..2)
            .map(|_| {
                let dir = tempfile::tempdir().unwrap();
                let mut chain = Chain::open(dir.path(), Config::dev(w).unwrap()).unwrap();
                (0..4)
                    .map(|_| {
                        chain.produce_block().unwrap();
                        chain.head().0.state_root
                    })
                    .collect()
            })
            .collect();
        assert_eq!(roots[0], roots[1], "{kind:?}: same seed, same state roots");
        assert!(
            roots[0].windows(2).all(|p| p[0] != p[1]),
            "{kind:?}: every block changes state"
        );
    }
}

/// Small COLE parameters so that a few dozen blocks build several levels and merges.
fn small_cole(async_merge: bool) -> lightprov_engine_cole::Params {
    lightprov_engine_cole::Params {
        size_ratio: 3,
        fanout: 4,
        epsilon: 8,
        l0_capacity: 64,
        async_merge,
    }
}

#[test]
fn cole_histories_verify_against_the_header_and_match_mpt() {
    use lightprov_verifier::cole::{Variant, verify_history_in_header};
    let dir = tempfile::tempdir().unwrap();
    let w = Some(Workload {
        kind: Kind::Kvstore,
        seed: 5,
        ops_per_block: 12,
    });
    let mut config = Config::dev(w).unwrap();
    config.set(cole::Settings {
        cole: Some(small_cole(false)),
        cole_star: Some(small_cole(true)),
    });
    let mut chain = Chain::open(dir.path(), config.clone()).unwrap();
    for _ in 0..60 {
        chain.produce_block().unwrap();
    }
    let head = chain.head().0.number;
    let header = chain.block(head).unwrap().unwrap().header().unwrap();
    let cole_root = cole::root_of(&header);
    let engines = chain.family::<cole::Engines>().unwrap();
    let (cole, star) = engines.roots(head).unwrap();
    assert_eq!(
        cole_root,
        lightprov_types::cole::hash::header_root(&cole, &star)
    );
    // Keys the workload wrote (records whose value moved since genesis), a record it never
    // touched, and a dev balance that only genesis wrote.
    let record = |k: u64| {
        Key::Storage(
            lightprov_node::workload::KVSTORE,
            alloy_primitives::keccak256(k.to_be_bytes()),
        )
    };
    let mut keys: Vec<Key> = (0..10_000u64)
        .map(record)
        .filter(|k| chain.engine().get(k, head).unwrap() != chain.engine().get(k, 0).unwrap())
        .take(12)
        .collect();
    keys.push(record(20_000));
    keys.push(Key::Balance(config.dev_accounts[3].address()));
    let versions: usize = keys
        .iter()
        .map(|k| {
            let p = engines
                .engine(cole::Variant::Cole)
                .unwrap()
                .prove_history(&k.state_key(), 1, head)
                .unwrap();
            verify_history_in_header(
                &cole_root,
                Variant::Cole,
                &star,
                &k.state_key(),
                1,
                head,
                &p.encode(),
            )
            .unwrap()
            .versions
            .len()
        })
        .sum();
    assert!(
        versions >= 12,
        "the sample keys changed only {versions} times"
    );
    for key in &keys {
        for (lo, hi) in [(0, head), (10, 25), (head - 3, head), (0, 0)] {
            for (variant, v) in [
                (cole::Variant::Cole, Variant::Cole),
                (cole::Variant::ColeStar, Variant::ColeStar),
            ] {
                let proof = engines
                    .engine(variant)
                    .unwrap()
                    .prove_history(&key.state_key(), lo, hi)
                    .unwrap();
                let sibling = if v == Variant::Cole { star } else { cole };
                let h = verify_history_in_header(
                    &cole_root,
                    v,
                    &sibling,
                    &key.state_key(),
                    lo,
                    hi,
                    &proof.encode(),
                )
                .unwrap();
                // The same values, block by block, as the MPT engine's archive.
                for b in lo..=hi {
                    assert_eq!(
                        h.value_at(b),
                        chain.engine().get(key, b).unwrap(),
                        "{variant:?} {key:?} at block {b}"
                    );
                }
                // The other engine's root is no substitute.
                let wrong = if v == Variant::Cole {
                    Variant::ColeStar
                } else {
                    Variant::Cole
                };
                assert!(
                    verify_history_in_header(
                        &cole_root,
                        wrong,
                        &sibling,
                        &key.state_key(),
                        lo,
                        hi,
                        &proof.encode()
                    )
                    .is_err()
                );
            }
        }
    }
    // Restarting keeps the engines at the head with the same roots.
    drop(chain);
    let chain = Chain::open(dir.path(), config).unwrap();
    assert_eq!(
        chain
            .family::<cole::Engines>()
            .unwrap()
            .roots(head)
            .unwrap(),
        (cole, star)
    );
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// LVMT on a small dev setup, keeping the openings `proofs` names.
fn lvmt_config(proofs: lightprov_engine_lvmt::amt::Proofs) -> Config {
    use std::sync::{Arc, LazyLock};
    static SETUP: LazyLock<Arc<lightprov_engine_lvmt::setup::Setup>> = LazyLock::new(|| {
        Arc::new(lightprov_engine_lvmt::setup::Setup::dev_insecure(4, b"node test").unwrap())
    });
    let mut config = Config::dev(Some(Workload {
        kind: Kind::Kvstore,
        seed: 11,
        ops_per_block: 25,
    }))
    .unwrap();
    config.set(lvmt::Settings {
        setup: SETUP.clone(),
        proofs,
    });
    config
}

/// LVMT's roots and blocks equal the head header's, and a proof of a key genesis wrote (a dev
/// account's balance) verifies against that header.
fn check_lvmt(chain: &Chain) {
    use lightprov_engine_lvmt::amt::Proofs;
    use lightprov_verifier::lvmt::proof::{Proven, Trusted, verify};
    let (head, _) = chain.head();
    let t = chain.family::<lvmt::Store>().unwrap().tree();
    assert_eq!(t.blocks(), head.number + 1, "LVMT holds every block");
    let (aroot, history_root) = lvmt::roots_of(head);
    assert_eq!((t.aroot(), t.history_root()), (aroot, history_root));
    let trusted = Trusted {
        params: t.setup().params(),
        aroot,
        history_root,
        blocks: head.number + 1,
    };
    let funded = lvmt_config(Proofs::All).dev_accounts[0].address();
    let key = Key::Balance(funded).state_key();
    let proof = t.prove(&key).unwrap().encode();
    let got = verify(&trusted, &key, &proof);
    assert!(matches!(got, Ok(Proven::Present { .. })), "{got:?}");
}

#[test]
fn lvmt_reopens_from_its_store_and_gets_only_the_blocks_it_lacks() {
    use lightprov_engine_lvmt::amt::Proofs;
    let dir = tempfile::tempdir().unwrap();
    let lagging = tempfile::tempdir().unwrap();
    {
        let mut chain = Chain::open(dir.path(), lvmt_config(Proofs::All)).unwrap();
        for _ in 0..4 {
            chain.produce_block().unwrap();
        }
        check_lvmt(&chain);
    }
    // A copy of LVMT's store four blocks behind what the chain will have.
    copy_dir(&dir.path().join("lvmt"), lagging.path());
    let head = {
        let mut chain = Chain::open(dir.path(), lvmt_config(Proofs::All)).unwrap();
        check_lvmt(&chain);
        for _ in 0..4 {
            chain.produce_block().unwrap();
        }
        check_lvmt(&chain);
        chain.head().0.number
    };
    std::fs::remove_dir_all(dir.path().join("lvmt")).unwrap();
    copy_dir(lagging.path(), &dir.path().join("lvmt"));
    {
        let mut chain = Chain::open(dir.path(), lvmt_config(Proofs::All)).unwrap();
        assert_eq!(chain.head().0.number, head);
        check_lvmt(&chain);
        chain.produce_block().unwrap();
        check_lvmt(&chain);
    }
    // Another proof shard: the store is rebuilt, with the same roots.
    let shard = Proofs::Shard {
        bits: 1,
        residue: 0,
    };
    let chain = Chain::open(dir.path(), lvmt_config(shard)).unwrap();
    let t = chain.family::<lvmt::Store>().unwrap().tree();
    assert_eq!(t.proofs(), shard);
    assert_eq!(
        (t.aroot(), t.history_root()),
        lvmt::roots_of(chain.head().0)
    );
}

/// Every block's roots and bloom, rebuilt from what the block store returns.
fn check_roots(chain: &Chain, number: u64) {
    use alloy_consensus::proofs;
    let record = chain.block(number).unwrap().unwrap();
    let header = record.header().unwrap();
    let txs = record.transactions().unwrap();
    let receipts = record.receipts().unwrap();
    assert_eq!(
        proofs::calculate_transaction_root(&txs),
        header.transactions_root
    );
    assert_eq!(
        proofs::calculate_receipt_root(&receipts),
        header.receipts_root
    );
    let mut bloom = alloy_primitives::Bloom::ZERO;
    for r in &receipts {
        bloom |= *r.logs_bloom();
    }
    assert_eq!(bloom, header.logs_bloom, "block {number}");
    for (i, tx) in txs.iter().enumerate() {
        assert_eq!(chain.tx_location(tx.tx_hash()).unwrap(), Some((number, i)));
    }
    assert_eq!(chain.number_of(&header.hash_slow()).unwrap(), Some(number));
}

#[test]
fn transfers_leave_events_and_typed_receipts_whose_roots_match_the_header() {
    use alloy_consensus::{Transaction, TxEip2930, TxEip4844};
    use alloy_eips::eip2930::{AccessList, AccessListItem};
    use lightprov_node::chain::{TRANSFER_LOG_ADDRESS, access_list_gas, transfer_topic};
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::dev(None).unwrap();
    config.transfers = 3;
    let alice = config.dev_accounts[0].clone();
    let bob = Address::repeat_byte(0xb0);
    let mut chain = Chain::open(dir.path(), config).unwrap();
    // An access-list transaction (type 1) pays for its list.
    let list = AccessList(vec![AccessListItem {
        address: Address::repeat_byte(0x11),
        storage_keys: vec![B256::ZERO, B256::repeat_byte(1)],
    }]);
    let with_list = TxEip2930 {
        chain_id: 1337,
        nonce: 0,
        gas_price: u128::from(BASE_FEE),
        gas_limit: TRANSFER_GAS,
        to: TxKind::Call(bob),
        value: U256::from(9),
        access_list: list.clone(),
        input: Bytes::new(),
    };
    let sign = |tx: TxEip2930| {
        let sig = alice.sign_hash_sync(&tx.signature_hash()).unwrap();
        TxEnvelope::from(tx.into_signed(sig)).encoded_2718()
    };
    let want = TRANSFER_GAS + 2_400 + 2 * 1_900;
    assert!(matches!(
        chain.submit(&sign(with_list.clone())),
        Err(TxError::GasTooLow { have: TRANSFER_GAS, want: w }) if w == want
    ));
    chain
        .submit(&sign(TxEip2930 {
            gas_limit: want,
            ..with_list
        }))
        .unwrap();
    // Blob transactions are refused by type, with the reason.
    let blob = TxEip4844 {
        chain_id: 1337,
        to: bob,
        gas_limit: TRANSFER_GAS,
        max_fee_per_gas: u128::from(BASE_FEE),
        max_fee_per_blob_gas: 1,
        blob_versioned_hashes: vec![B256::repeat_byte(1)],
        ..Default::default()
    };
    let sig = alice.sign_hash_sync(&blob.signature_hash()).unwrap();
    let err = chain
        .submit(&TxEnvelope::from(blob.into_signed(sig)).encoded_2718())
        .unwrap_err();
    assert!(err.to_string().contains("type 3"), "{err}");

    for _ in 0..4 {
        chain.produce_block().unwrap();
    }
    check_roots(&chain, 0);
    for number in 1..=4 {
        check_roots(&chain, number);
        let record = chain.block(number).unwrap().unwrap();
        let txs = record.transactions().unwrap();
        let receipts = record.receipts().unwrap();
        // The node's own 3 transfers (and, in block 1, alice's access-list transaction first).
        assert_eq!(txs.len(), if number == 1 { 4 } else { 3 }, "block {number}");
        let mut cumulative = 0;
        for ((tx, r), sender) in txs.iter().zip(&receipts).zip(&record.senders) {
            assert_eq!(r.tx_type() as u8, tx.tx_type() as u8);
            assert!(r.status());
            cumulative += TRANSFER_GAS + tx.access_list().map_or(0, access_list_gas);
            assert_eq!(r.cumulative_gas_used(), cumulative);
            let [log] = r.logs() else {
                panic!(
                    "block {number}: one Transfer event per transfer, got {:?}",
                    r.logs()
                )
            };
            assert_eq!(log.address, TRANSFER_LOG_ADDRESS);
            assert_eq!(
                log.topics(),
                [
                    transfer_topic(),
                    sender.into_word(),
                    tx.to().unwrap().into_word()
                ]
            );
            assert_eq!(log.data.data.as_ref(), tx.value().to_be_bytes::<32>());
        }
        assert_eq!(record.header().unwrap().gas_used, cumulative);
    }
    assert_eq!(balance(&chain, bob), U256::from(9));
}

#[test]
fn a_data_directory_keeps_its_block_layout() {
    use lightprov_blockstore::{Layout, Options};
    let dir = tempfile::tempdir().unwrap();
    for layout in [
        Layout::HashKeyed,
        Layout::BlockOrdered(Options {
            group: 2,
            align: true,
            separate_index: false,
        }),
    ] {
        let dir = dir.path().join(layout.to_string().replace('/', "_"));
        let mut config = Config::dev(None).unwrap();
        config.blocks = layout;
        config.transfers = 2;
        let mut chain = Chain::open(&dir, config.clone()).unwrap();
        for _ in 0..5 {
            chain.produce_block().unwrap();
        }
        drop(chain);
        let chain = Chain::open(&dir, config.clone()).unwrap();
        for n in 0..=5 {
            check_roots(&chain, n);
        }
        drop(chain);
        config.blocks = Layout::default();
        let err = Chain::open(&dir, config).unwrap_err().to_string();
        assert!(err.contains("--block-layout"), "{err}");
    }
}
