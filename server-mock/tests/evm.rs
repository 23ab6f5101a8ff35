//! The node executes transactions with the EVM: contract creation, calls, logs, reverts, gas,
//! EIP-7702 delegations, and the workloads as transactions whose writes are the workloads'.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use crate::common::rpc;

use alloy_consensus::{
    SignableTransaction, Transaction, TxEip1559, TxEip7702, TxEnvelope, TxReceipt,
};
use alloy_eips::{eip2718::Encodable2718, eip7702::Authorization};
use alloy_primitives::{Address, B256, Bytes, TxKind, U256, keccak256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use lightprov_engine_api::{Key, StateEngine};
use lightprov_node::{
    chain::{BASE_FEE, Chain, Config},
    workload::{Kind, Workload},
};

fn artifact(name: &str) -> serde_json::Value {
    let path = format!(
        "{}/../tests/contracts/build/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn hex_field(v: &serde_json::Value, field: &str) -> Bytes {
    v[field].as_str().unwrap().parse().unwrap()
}

fn calldata(signature: &str, args: &[U256]) -> Bytes {
    let mut out = keccak256(signature.as_bytes())[..4].to_vec();
    for a in args {
        out.extend_from_slice(&a.to_be_bytes::<32>());
    }
    out.into()
}

fn send(chain: &mut Chain, key: &PrivateKeySigner, nonce: u64, to: TxKind, input: Bytes) {
    let tx = TxEip1559 {
        chain_id: 1337,
        nonce,
        gas_limit: 1_000_000,
        max_fee_per_gas: u128::from(2 * BASE_FEE),
        max_priority_fee_per_gas: u128::from(BASE_FEE),
        to,
        input,
        ..Default::default()
    };
    let sig = key.sign_hash_sync(&tx.signature_hash()).unwrap();
    chain
        .submit(&TxEnvelope::from(tx.into_signed(sig)).encoded_2718())
        .unwrap();
}

/// The chain behind the node's RPC handlers.
fn serve(chain: Chain) -> std::sync::Arc<lightprov_node::rpc::Node> {
    std::sync::Arc::new(lightprov_node::rpc::Node {
        chain: std::sync::RwLock::new(chain),
        dishonest: None,
        new_tx: tokio::sync::Notify::new(),
        on_demand: false,
        max_history_range: 32,
        max_logs_range: 32,
    })
}

/// Alice deploys Store with her first transaction, in block 1.
fn deploy_store(chain: &mut Chain, alice: &PrivateKeySigner) -> serde_json::Value {
    let store = artifact("Store");
    send(
        chain,
        alice,
        0,
        TxKind::Create,
        hex_field(&store, "bytecode"),
    );
    chain.produce_block().unwrap();
    store
}

fn slot(chain: &Chain, a: Address, s: B256, block: u64) -> U256 {
    U256::from_be_bytes(chain.engine().get(&Key::Storage(a, s), block).unwrap())
}

#[test]
fn contracts_deploy_run_log_and_revert() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::dev(None).unwrap();
    let alice = config.dev_accounts[0].clone();
    let miner = config.signer.address();
    let mut chain = Chain::open(dir.path(), config).unwrap();
    let store = deploy_store(&mut chain, &alice);
    let at = alice.address().create(0);
    assert_eq!(
        chain.code(&at, 1).unwrap(),
        hex_field(&store, "deployedBytecode")
    );
    assert!(chain.code(&at, 0).unwrap().is_empty());
    // The account trie commits to the code: eth_getProof gives its hash.
    let proof = chain.engine().account_proof(&at, &[], 1).unwrap();
    assert_eq!(
        proof.code_hash,
        keccak256(hex_field(&store, "deployedBytecode"))
    );
    assert_eq!(proof.nonce, 1, "EIP-161: a contract starts at nonce 1");

    // set(7, 42) writes `value` (slot 0) and entries[7], and emits Set(7, 42).
    send(
        &mut chain,
        &alice,
        1,
        TxKind::Call(at),
        calldata("set(uint256,uint256)", &[U256::from(7), U256::from(42)]),
    );
    // nonZero(0) reverts: included, status 0, its gas spent, nothing written.
    send(
        &mut chain,
        &alice,
        2,
        TxKind::Call(at),
        calldata("nonZero(uint256)", &[U256::ZERO]),
    );
    let miner_before = U256::from_be_bytes(chain.engine().get(&Key::Balance(miner), 1).unwrap());
    chain.produce_block().unwrap();
    assert_eq!(slot(&chain, at, B256::ZERO, 2), U256::from(42));
    let mut pre = [0u8; 64];
    pre[31] = 7;
    pre[63] = 1;
    assert_eq!(slot(&chain, at, keccak256(pre), 2), U256::from(42));

    let record = chain.block(2).unwrap().unwrap();
    let receipts = record.receipts().unwrap();
    let txs = record.transactions().unwrap();
    assert_eq!(receipts.len(), 2);
    assert!(receipts[0].status());
    assert!(!receipts[1].status());
    let [log] = receipts[0].logs() else {
        panic!("one Set event, got {:?}", receipts[0].logs())
    };
    assert_eq!(log.address, at);
    assert_eq!(log.topics()[0], keccak256("Set(uint256,uint256)"));
    assert_eq!(log.topics()[1], B256::from(U256::from(7)));
    assert!(receipts[1].logs().is_empty());
    // Real gas: more than a transfer's, summed in the receipts and the header.
    let used0 = receipts[0].cumulative_gas_used();
    let used1 = receipts[1].cumulative_gas_used() - used0;
    assert!(
        used0 > 40_000 && used1 > 21_000 && used1 < 30_000,
        "{used0} {used1}"
    );
    assert_eq!(record.header().unwrap().gas_used, used0 + used1);
    // The coinbase takes the tips (1 gwei per gas); the sender pays base fee and tip.
    let miner_after = U256::from_be_bytes(chain.engine().get(&Key::Balance(miner), 2).unwrap());
    assert_eq!(
        miner_after - miner_before,
        U256::from(BASE_FEE) * U256::from(used0 + used1)
    );
    let spent = U256::from_be_bytes(
        chain
            .engine()
            .get(&Key::Balance(alice.address()), 1)
            .unwrap(),
    ) - U256::from_be_bytes(
        chain
            .engine()
            .get(&Key::Balance(alice.address()), 2)
            .unwrap(),
    );
    assert_eq!(spent, U256::from(2 * BASE_FEE) * U256::from(used0 + used1));
    assert_eq!(txs[1].nonce(), 2);
    assert_eq!(
        chain.engine().get(&Key::Nonce(alice.address()), 2).unwrap()[31],
        3,
        "the reverted call used its nonce"
    );
}

#[test]
fn set_code_transactions_delegate_an_account_to_a_contract() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::dev(None).unwrap();
    let alice = config.dev_accounts[0].clone();
    let bob = config.dev_accounts[1].clone();
    let mut chain = Chain::open(dir.path(), config).unwrap();
    let store = deploy_store(&mut chain, &alice);
    let target = alice.address().create(0);
    assert!(!store["deployedBytecode"].is_null());
    // Bob delegates his account to Store (his authorization), alice sends it and calls
    // set(1, 5) on bob's address, which runs Store's code over bob's storage.
    let auth = Authorization {
        chain_id: U256::from(1337),
        address: target,
        nonce: 0,
    };
    let sig = bob.sign_hash_sync(&auth.signature_hash()).unwrap();
    let tx = TxEip7702 {
        chain_id: 1337,
        nonce: 1,
        gas_limit: 1_000_000,
        max_fee_per_gas: u128::from(2 * BASE_FEE),
        max_priority_fee_per_gas: 1,
        to: bob.address(),
        input: calldata("set(uint256,uint256)", &[U256::from(1), U256::from(5)]),
        authorization_list: vec![auth.into_signed(sig)],
        ..Default::default()
    };
    let sig = alice.sign_hash_sync(&tx.signature_hash()).unwrap();
    chain
        .submit(&TxEnvelope::from(tx.into_signed(sig)).encoded_2718())
        .unwrap();
    chain.produce_block().unwrap();
    let receipts = chain.block(2).unwrap().unwrap().receipts().unwrap();
    assert!(receipts[0].status());
    let mut designator = vec![0xef, 0x01, 0x00];
    designator.extend_from_slice(target.as_slice());
    assert_eq!(
        chain.code(&bob.address(), 2).unwrap(),
        Bytes::from(designator)
    );
    assert_eq!(slot(&chain, bob.address(), B256::ZERO, 2), U256::from(5));
    assert_eq!(slot(&chain, target, B256::ZERO, 2), U256::ZERO);
    // The authorization used bob's nonce.
    assert_eq!(
        chain.engine().get(&Key::Nonce(bob.address()), 2).unwrap()[31],
        1
    );
}

/// Executed, a workload's transactions write what its model says to the workload's own keys,
/// and every block's receipts are successful calls.
#[test]
fn workload_transactions_write_what_the_model_says() {
    for kind in [Kind::Kvstore, Kind::Smallbank, Kind::Transfer, Kind::Erc20] {
        let dir = tempfile::tempdir().unwrap();
        let w = Workload {
            kind,
            seed: 5,
            ops_per_block: 60,
        };
        let mut chain = Chain::open(dir.path(), Config::dev(Some(w)).unwrap()).unwrap();
        for number in 1..=3u64 {
            chain.produce_block().unwrap();
            let engine = chain.engine();
            let read = |k: &Key| engine.get(k, number - 1).unwrap();
            let model = w.block(number, &read);
            assert!(!model.is_empty(), "{kind:?} block {number}");
            for (k, v) in &model {
                // The transfer workload's senders pay gas too: only the contracts' slots and
                // the recipients' gains compare exactly.
                if let Key::Storage(..) = k {
                    assert_eq!(
                        engine.get(k, number).unwrap(),
                        *v,
                        "{kind:?} block {number} {k:?}"
                    );
                }
            }
            let record = chain.block(number).unwrap().unwrap();
            let receipts = record.receipts().unwrap();
            assert!(!receipts.is_empty());
            assert!(
                receipts.iter().all(TxReceipt::status),
                "{kind:?} block {number}"
            );
            if kind == Kind::Transfer {
                let txs = record.transactions().unwrap();
                for tx in &txs {
                    assert!(tx.input().is_empty() && !tx.value().is_zero());
                }
            }
        }
    }
}

/// eth_call, eth_estimateGas, eth_createAccessList and eth_getCode over deployed code, with
/// geth's answers and error shapes (a revert is code 3 with its reason and data).
#[test]
fn calls_answer_as_geth_does() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::dev(None).unwrap();
    let alice = config.dev_accounts[0].clone();
    let mut chain = Chain::open(dir.path(), config).unwrap();
    let store = deploy_store(&mut chain, &alice);
    let at = alice.address().create(0);
    send(
        &mut chain,
        &alice,
        1,
        TxKind::Call(at),
        calldata("set(uint256,uint256)", &[U256::from(7), U256::from(42)]),
    );
    chain.produce_block().unwrap();
    let node = serve(chain);
    let m = lightprov_node::rpc::module(node).unwrap();
    let from = alice.address();
    let tx = |data: Bytes| serde_json::json!({"from": from, "to": at, "data": data});

    let code = rpc(&m, "eth_getCode", serde_json::json!([at, "latest"])).unwrap();
    assert_eq!(
        code.as_str().unwrap(),
        store["deployedBytecode"].as_str().unwrap()
    );
    assert_eq!(
        rpc(&m, "eth_getCode", serde_json::json!([at, "0x0"])).unwrap(),
        "0x"
    );

    let value = rpc(
        &m,
        "eth_call",
        serde_json::json!([tx(calldata("value()", &[])), "latest"]),
    )
    .unwrap();
    assert_eq!(
        value.as_str().unwrap(),
        format!("0x{}", "0".repeat(62) + "2a")
    );
    // At block 1, before set: 0.
    let before = rpc(
        &m,
        "eth_call",
        serde_json::json!([tx(calldata("value()", &[])), "0x1"]),
    )
    .unwrap();
    assert_eq!(before.as_str().unwrap(), format!("0x{}", "0".repeat(64)));

    let e = rpc(
        &m,
        "eth_call",
        serde_json::json!([tx(calldata("nonZero(uint256)", &[U256::ZERO])), "latest"]),
    )
    .unwrap_err();
    assert_eq!(e["code"], 3);
    assert_eq!(e["message"], "execution reverted: x is zero");
    assert!(e["data"].as_str().unwrap().starts_with("0x08c379a0"));
    let e = rpc(
        &m,
        "eth_call",
        serde_json::json!([tx(calldata("refuse(uint256)", &[U256::from(5)])), "latest"]),
    )
    .unwrap_err();
    assert_eq!(e["code"], 3);
    assert_eq!(e["message"], "execution reverted");
    let selector = &keccak256("Refused(address,uint256)")[..4];
    assert!(
        e["data"]
            .as_str()
            .unwrap()
            .starts_with(&Bytes::copy_from_slice(selector).to_string())
    );

    let gas = rpc(
        &m,
        "eth_estimateGas",
        serde_json::json!([tx(calldata(
            "set(uint256,uint256)",
            &[U256::from(8), U256::from(1)]
        ))]),
    )
    .unwrap();
    let gas = u64::from_str_radix(gas.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    assert!((40_000..100_000).contains(&gas), "{gas}");
    let e = rpc(
        &m,
        "eth_estimateGas",
        serde_json::json!([tx(calldata("nonZero(uint256)", &[U256::ZERO]))]),
    )
    .unwrap_err();
    assert_eq!(e["code"], 3);

    let list = rpc(
        &m,
        "eth_createAccessList",
        serde_json::json!([
            tx(calldata(
                "set(uint256,uint256)",
                &[U256::from(8), U256::from(1)]
            )),
            "latest"
        ]),
    )
    .unwrap();
    // The callee's address is left out, but not the slots it touched (geth's tracer): set
    // touches `value` and entries[8].
    let mut pre = [0u8; 64];
    pre[31] = 8;
    pre[63] = 1;
    assert_eq!(
        list["accessList"],
        serde_json::json!([{"address": at, "storageKeys": [B256::ZERO, keccak256(pre)]}])
    );
    assert!(list.get("error").is_none());
    assert!(list["gasUsed"].as_str().unwrap().starts_with("0x"));
}

/// `--workload erc20`: the token and Multicall3 deployed at genesis answer calls, every workload
/// account holds its tokens, and each block's token transfers leave ERC-20 Transfer events.
#[test]
fn the_erc20_workload_deploys_a_token_and_moves_it() {
    use lightprov_node::workload::{TOKENS_EACH, account, multicall, token};
    let dir = tempfile::tempdir().unwrap();
    let w = Workload {
        kind: Kind::Erc20,
        seed: 2,
        ops_per_block: 20,
    };
    let mut chain = Chain::open(dir.path(), Config::dev(Some(w)).unwrap()).unwrap();
    chain.produce_block().unwrap();
    let node = serve(chain);
    let m = lightprov_node::rpc::module(node.clone()).unwrap();
    let call = |to: Address, data: Bytes, block: &str| {
        rpc(
            &m,
            "eth_call",
            serde_json::json!([{"to": to, "data": data}, block]),
        )
        .unwrap()
    };
    let holder = U256::from_be_slice(account(3).as_slice());
    let at_genesis = call(token(), calldata("balanceOf(address)", &[holder]), "0x0");
    assert_eq!(
        at_genesis.as_str().unwrap(),
        format!("{:#066x}", TOKENS_EACH)
    );
    let supply = call(token(), calldata("totalSupply()", &[]), "latest");
    assert_eq!(
        supply.as_str().unwrap(),
        format!("{:#066x}", TOKENS_EACH * 1000)
    );
    let number = call(multicall(), calldata("getBlockNumber()", &[]), "latest");
    assert_eq!(number.as_str().unwrap(), format!("{:#066x}", 1));
    let chain = node.chain.read().unwrap();
    let receipts = chain.block(1).unwrap().unwrap().receipts().unwrap();
    assert!(!receipts.is_empty());
    for r in &receipts {
        assert!(r.status());
        let [log] = r.logs() else {
            panic!("one Transfer event, got {:?}", r.logs())
        };
        assert_eq!(log.address, token());
        assert_eq!(
            log.topics()[0],
            keccak256("Transfer(address,address,uint256)")
        );
    }
}

/// geth's `prestateTracer` through `debug_traceCall`, on the `erc20` workload's genesis (every
/// holder with `TOKENS_EACH` tokens): a token transfer, a plain transfer, a creation and calls
/// that revert, in both modes, and the errors for what is not served.
#[test]
fn debug_trace_call_prestate_answers_as_geth_does() {
    use lightprov_node::workload::{TOKENS_EACH, account, token};
    let dir = tempfile::tempdir().unwrap();
    let w = Workload {
        kind: Kind::Erc20,
        seed: 2,
        ops_per_block: 20,
    };
    let config = Config::dev(Some(w)).unwrap();
    let coinbase = config.signer.address();
    let chain = Chain::open(dir.path(), config).unwrap();
    let m = lightprov_node::rpc::module(serve(chain)).unwrap();
    let trace = |tx: serde_json::Value, cfg: serde_json::Value| {
        rpc(&m, "debug_traceCall", serde_json::json!([tx, "0x0", cfg]))
    };
    let prestate = serde_json::json!({"tracer": "prestateTracer"});
    let diff = serde_json::json!({"tracer": "prestateTracer", "tracerConfig": {"diffMode": true}});
    let hex = |v: u64| format!("{v:#x}");
    let word = |v: u64| format!("{:#066x}", v);
    let key = |a: Address| format!("{a:#x}");
    let (from, to) = (account(3), account(4));
    let balance_slot = |a: Address| {
        let mut pre = [0u8; 64];
        pre[12..32].copy_from_slice(a.as_slice());
        keccak256(pre).to_string()
    };
    let balance = rpc(&m, "eth_getBalance", serde_json::json!([from, "0x0"])).unwrap();
    assert_ne!(balance, "0x0");
    // The coinbase (the signer) holds nothing at genesis: geth leaves empty accounts out.
    assert_eq!(
        rpc(&m, "eth_getBalance", serde_json::json!([coinbase, "0x0"])).unwrap(),
        "0x0"
    );
    let code = rpc(&m, "eth_getCode", serde_json::json!([token(), "0x0"])).unwrap();
    let code_hash = keccak256(hex_field(&serde_json::json!({ "c": code }), "c")).to_string();
    let token_pre = |storage: serde_json::Value| {
        serde_json::json!({
            "balance": "0x0", "code": code, "codeHash": code_hash, "nonce": 1, "storage": storage,
        })
    };

    // A token transfer: the sender, and the token with the two balances it reads, as they were.
    let transfer = |amount: U256| {
        serde_json::json!({
            "from": from, "to": token(),
            "data": calldata("transfer(address,uint256)", &[U256::from_be_slice(to.as_slice()), amount]),
        })
    };
    let five = transfer(U256::from(5));
    let mut both = serde_json::Map::new();
    both.insert(balance_slot(from), word(TOKENS_EACH).into());
    both.insert(balance_slot(to), word(TOKENS_EACH).into());
    assert_eq!(
        trace(five.clone(), prestate.clone()).unwrap(),
        serde_json::json!({
            key(from): {"balance": balance},
            key(token()): token_pre(both.clone().into()),
        })
    );
    // diffMode: what changed, before and after; the coinbase, which exists neither before nor
    // after, gets the zero code hash geth gives a missing account.
    let mut after = serde_json::Map::new();
    after.insert(balance_slot(from), word(TOKENS_EACH - 5).into());
    after.insert(balance_slot(to), word(TOKENS_EACH + 5).into());
    let absent = serde_json::json!({"codeHash": B256::ZERO});
    assert_eq!(
        trace(five.clone(), diff.clone()).unwrap(),
        serde_json::json!({
            "post": {
                key(from): {"nonce": 1},
                key(token()): {"storage": after},
                key(coinbase): absent,
            },
            "pre": {
                key(from): {"balance": balance},
                key(token()): token_pre(both.into()),
            },
        })
    );
    // No code, no storage.
    let bare = trace(
        five.clone(),
        serde_json::json!({"tracer": "prestateTracer", "tracerConfig": {"disableCode": true, "disableStorage": true}}),
    )
    .unwrap();
    assert_eq!(
        bare[key(token())],
        serde_json::json!({"balance": "0x0", "codeHash": code_hash, "nonce": 1})
    );

    // A transfer of more tokens than the sender holds reverts after reading its balance alone:
    // still a trace, not an error.
    let too_many = transfer(U256::from(TOKENS_EACH + 1));
    let mut read = serde_json::Map::new();
    read.insert(balance_slot(from), word(TOKENS_EACH).into());
    assert_eq!(
        trace(too_many.clone(), prestate.clone()).unwrap(),
        serde_json::json!({
            key(from): {"balance": balance},
            key(token()): token_pre(read.into()),
        })
    );
    assert_eq!(
        trace(too_many, diff.clone()).unwrap(),
        serde_json::json!({
            "post": {key(from): {"nonce": 1}, key(coinbase): absent},
            "pre": {key(from): {"balance": balance}},
        })
    );

    // A plain transfer to a new account: only the sender existed before.
    let bb = Address::repeat_byte(0xbb);
    let plain = serde_json::json!({"from": from, "to": bb, "value": hex(7)});
    assert_eq!(
        trace(plain.clone(), prestate.clone()).unwrap(),
        serde_json::json!({ key(from): {"balance": balance} })
    );
    let before =
        U256::from_str_radix(balance.as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    assert_eq!(
        trace(plain.clone(), diff.clone()).unwrap(),
        serde_json::json!({
            "post": {
                key(from): {"balance": format!("{:#x}", before - U256::from(7)), "nonce": 1},
                key(bb): {"balance": "0x7"},
                key(coinbase): absent,
            },
            "pre": { key(from): {"balance": balance} },
        })
    );
    // includeEmpty keeps the accounts that did not exist; not with diffMode.
    let all = trace(
        plain.clone(),
        serde_json::json!({"tracer": "prestateTracer", "tracerConfig": {"includeEmpty": true}}),
    )
    .unwrap();
    assert_eq!(all[key(bb)], serde_json::json!({"balance": "0x0"}));
    assert_eq!(all[key(coinbase)], serde_json::json!({"balance": "0x0"}));
    let e = trace(
        plain.clone(),
        serde_json::json!({"tracer": "prestateTracer", "tracerConfig": {"diffMode": true, "includeEmpty": true}}),
    )
    .unwrap_err();
    assert_eq!(e["message"], "cannot use diffMode with includeEmpty");

    // A creation that stores 1 at slot 0, and the same reverting: the created account exists
    // after the first only (geth prints the zero code hash for it after the second).
    let created = from.create(0);
    let create = |tail: &str| serde_json::json!({"from": from, "data": format!("0x600160005560006000{tail}")});
    let mut one = serde_json::Map::new();
    one.insert(B256::ZERO.to_string(), word(1).into());
    assert_eq!(
        trace(create("f3"), diff.clone()).unwrap(),
        serde_json::json!({
            "post": {
                key(from): {"nonce": 1},
                key(created): {"nonce": 1, "storage": one},
                key(coinbase): absent,
            },
            "pre": { key(from): {"balance": balance} },
        })
    );
    assert_eq!(
        trace(create("fd"), diff).unwrap(),
        serde_json::json!({
            "post": {key(from): {"nonce": 1}, key(created): absent, key(coinbase): absent},
            "pre": { key(from): {"balance": balance} },
        })
    );

    // What is not served, and geth's errors.
    let e = trace(five.clone(), serde_json::json!({"tracer": "callTracer"})).unwrap_err();
    assert_eq!(e["code"], -32006);
    assert!(e["message"].as_str().unwrap().contains("callTracer"), "{e}");
    let e = trace(five.clone(), serde_json::json!({})).unwrap_err();
    assert_eq!(e["code"], -32006);
    assert!(
        e["message"].as_str().unwrap().contains("struct logger"),
        "{e}"
    );
    let e = rpc(
        &m,
        "debug_traceCall",
        serde_json::json!([five.clone(), "pending", prestate.clone()]),
    )
    .unwrap_err();
    assert_eq!(e["message"], "tracing on top of pending is not supported");
    for field in ["stateOverrides", "blockOverrides", "txIndex"] {
        let e = trace(
            five.clone(),
            serde_json::json!({"tracer": "prestateTracer", field: {}}),
        )
        .unwrap_err();
        assert_eq!(e["code"], -32602);
        assert!(e["message"].as_str().unwrap().contains(field), "{e}");
    }
    // geth's message for a name it does not know (it takes it for JavaScript), fields of the
    // wrong type, a timeout that is no Go duration, and one that runs out (geth's error).
    for (cfg, code, message) in [
        (
            serde_json::json!({"tracer": "fooTracer"}),
            -32000,
            "ReferenceError: fooTracer is not defined at <eval>:1:2(0)",
        ),
        (
            serde_json::json!({"tracer": "prestateTracer", "tracerConfig": {"diffMode": "yes"}}),
            -32602,
            "invalid tracerConfig.diffMode: expected a boolean",
        ),
        (
            serde_json::json!({"tracer": "prestateTracer", "timeout": "1d"}),
            -32602,
            "invalid timeout: time: unknown unit \"d\" in duration \"1d\"",
        ),
        (
            serde_json::json!({"tracer": "prestateTracer", "timeout": "1ns"}),
            -32000,
            "execution timeout",
        ),
    ] {
        let e = trace(five.clone(), cfg).unwrap_err();
        assert_eq!(
            (e["code"].as_i64(), e["message"].as_str()),
            (Some(code), Some(message))
        );
    }
    assert!(
        trace(
            five,
            serde_json::json!({"tracer": "prestateTracer", "timeout": "1m30s"})
        )
        .is_ok()
    );
    // A transaction the chain's rules refuse: geth's `tracing failed: …`.
    let poor = Address::repeat_byte(0xcc);
    let e = trace(
        serde_json::json!({"from": poor, "to": bb, "value": "0x1"}),
        prestate,
    )
    .unwrap_err();
    assert_eq!(
        e["message"],
        format!(
            "tracing failed: insufficient funds for gas * price + value: address {poor} have 0 want 1"
        )
    );
}
