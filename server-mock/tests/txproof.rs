//! `lightprov_getTransactionProof` in-process: every transaction and receipt of a block of
//! legacy and EIP-1559 transfers comes with proofs that lightprov's verifier accepts against the
//! header's roots, indices past the end come with proofs of absence, and bad parameters get
//! errors naming them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use crate::common;

use std::sync::{Arc, RwLock};

use alloy_consensus::{SignableTransaction, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, TxKind, U256};
use alloy_signer::SignerSync;
use jsonrpsee::RpcModule;
use lightprov_node::{
    chain::{BASE_FEE, Chain, Config, TRANSFER_GAS},
    rpc::{Node, module, ordered_trie_proof},
};
use lightprov_testkit::tx::raw_transfer;
use lightprov_types::{hex, mpt::TransactionProof};
use lightprov_verifier::{
    keccak256,
    mpt::{BlockRoots, TransactionQuery, verify_transaction_proof},
};
use serde_json::{Value, json};

/// A node whose block 1 holds `n` transfers from the first dev account, every third one legacy.
fn node_with_block_of(n: u64) -> (tempfile::TempDir, RpcModule<Arc<Node>>) {
    let dir = tempfile::tempdir().unwrap();
    let config = Config::dev(None).unwrap();
    let alice = config.dev_accounts[0].clone();
    let mut chain = Chain::open(dir.path(), config).unwrap();
    let bob = Address::repeat_byte(0xb0);
    for nonce in 0..n {
        let raw = if nonce % 3 == 2 {
            let tx = TxLegacy {
                chain_id: Some(1337),
                nonce,
                gas_limit: TRANSFER_GAS,
                gas_price: u128::from(2 * BASE_FEE),
                to: TxKind::Call(bob),
                value: U256::from(nonce + 1),
                ..Default::default()
            };
            let sig = alice.sign_hash_sync(&tx.signature_hash()).unwrap();
            TxEnvelope::from(tx.into_signed(sig)).encoded_2718()
        } else {
            raw_transfer(&alice, bob, nonce + 1, nonce, 1337)
        };
        chain.submit(&raw).unwrap();
    }
    assert_eq!(chain.produce_block().unwrap(), 1);
    let node = Arc::new(Node {
        chain: RwLock::new(chain),
        dishonest: None,
        new_tx: tokio::sync::Notify::new(),
        on_demand: false,
        max_history_range: 32,
        max_logs_range: 32,
    });
    (dir, module(node).unwrap())
}

/// The answer to one call of `method`: `Ok(result)` or `Err((code, message))`.
fn rpc(m: &RpcModule<Arc<Node>>, method: &str, params: Value) -> Result<Value, (i64, String)> {
    common::rpc(m, method, params).map_err(|e| {
        (
            e["code"].as_i64().unwrap(),
            e["message"].as_str().unwrap().to_owned(),
        )
    })
}

fn call(m: &RpcModule<Arc<Node>>, params: Value) -> Result<Value, (i64, String)> {
    rpc(m, "lightprov_getTransactionProof", params)
}

fn bytes(v: &Value) -> Vec<u8> {
    hex::data(v.as_str().unwrap(), "test").unwrap()
}

fn nodes(v: &Value) -> Vec<Vec<u8>> {
    v.as_array().unwrap().iter().map(bytes).collect()
}

/// The header roots of block `number`, read through `eth_getBlockByNumber`, and its hash.
fn roots(m: &RpcModule<Arc<Node>>, number: u64) -> (BlockRoots, B256) {
    let b = rpc(
        m,
        "eth_getBlockByNumber",
        json!([format!("0x{number:x}"), false]),
    )
    .unwrap();
    let h = |f: &str| B256::from_slice(&bytes(&b[f]));
    (
        BlockRoots {
            transactions_root: h("transactionsRoot"),
            receipts_root: h("receiptsRoot"),
        },
        h("hash"),
    )
}

#[test]
fn every_index_of_a_block_is_proven_and_past_the_end_is_proven_absent() {
    let n = 20;
    let (_dir, m) = node_with_block_of(n);
    let (block_roots, hash) = roots(&m, 1);
    for index in 0..n + 3 {
        // By number and by EIP-1898 hash alike.
        let a = call(&m, json!(["0x1", format!("0x{index:x}")])).unwrap();
        assert_eq!(
            a,
            call(&m, json!([{ "blockHash": hash }, format!("0x{index:x}")])).unwrap()
        );
        assert_eq!(a["blockNumber"], "0x1");
        assert_eq!(B256::from_slice(&bytes(&a["blockHash"])), hash);
        assert_eq!(a["index"], format!("0x{index:x}"));
        let proof = TransactionProof {
            index,
            transaction_proof: nodes(&a["transactionProof"]),
            receipt_proof: nodes(&a["receiptProof"]),
        };
        let claimed = (!a["transaction"].is_null()).then(|| bytes(&a["transaction"]));
        let q = TransactionQuery {
            index,
            hash: claimed.as_ref().map(keccak256),
        };
        let proven = verify_transaction_proof(&block_roots, &q, &proof.as_ref()).unwrap();
        if index < n {
            let p = proven.expect("present");
            assert_eq!(Some(p.transaction.to_vec()), claimed);
            assert_eq!(p.receipt, bytes(&a["receipt"]).as_slice());
            // Every third is legacy: an RLP list, not a type byte.
            assert_eq!(p.transaction[0] >= 0xc0, index % 3 == 2, "#{index}");
        } else {
            assert!(proven.is_none(), "#{index}");
            assert!(a["transaction"].is_null() && a["receipt"].is_null());
        }
    }
}

#[test]
fn the_genesis_block_proves_it_holds_no_transaction() {
    let (_dir, m) = node_with_block_of(1);
    let (block_roots, _) = roots(&m, 0);
    let a = call(&m, json!(["earliest", "0x0"])).unwrap();
    assert!(a["transaction"].is_null());
    let proof = TransactionProof {
        index: 0,
        transaction_proof: nodes(&a["transactionProof"]),
        receipt_proof: nodes(&a["receiptProof"]),
    };
    let q = TransactionQuery {
        index: 0,
        hash: None,
    };
    assert_eq!(
        verify_transaction_proof(&block_roots, &q, &proof.as_ref()),
        Ok(None)
    );
}

#[test]
fn bad_parameters_are_named() {
    let (_dir, m) = node_with_block_of(1);
    let cases = [
        (json!([]), -32602, "invalid block: missing"),
        (json!(["0x1"]), -32602, "invalid index: missing"),
        (json!(["0x1", "0xzz"]), -32602, "invalid index"),
        (
            json!(["0x1", "0x10000000000000000"]),
            -32602,
            "invalid index",
        ),
        (json!(["0x1", -1]), -32602, "invalid index"),
        (json!([true, "0x0"]), -32602, "invalid block"),
        (json!(["0x1", "0x0", "0x0"]), -32602, "at most 2 parameters"),
        (
            json!(["0x99", "0x0"]),
            -32001,
            "unknown block 153 (the head is #1)",
        ),
        (
            json!([{ "blockHash": B256::repeat_byte(1) }, "0x0"]),
            -32001,
            "unknown block 0x0101",
        ),
    ];
    for (params, code, message) in cases {
        let (c, msg) = call(&m, params.clone()).unwrap_err();
        assert_eq!(c, code, "{params}: {msg}");
        assert!(msg.contains(message), "{params}: {msg}");
    }
}

#[test]
fn an_empty_list_is_proven_by_the_empty_node() {
    let (root, proof) = ordered_trie_proof(&[], 0);
    assert_eq!(root, lightprov_types::EMPTY_ROOT_HASH);
    assert_eq!(proof, vec![alloy_primitives::Bytes::from_static(&[0x80])]);
}

/// geth's raw forms: `debug_getRawBlock` is the block's RLP as alloy encodes it (legacy
/// transactions as lists, typed ones as strings), `debug_getRawReceipts` the receipts'
/// encodings; the lists build the header's roots.
#[test]
fn raw_block_and_receipts_are_geths() {
    use alloy_consensus::{Block, BlockBody, Header, ReceiptEnvelope, proofs};
    use alloy_eips::eip2718::Decodable2718;
    use alloy_rlp::Decodable;
    let (_dir, m) = node_with_block_of(7);
    let raw = bytes(&rpc(&m, "debug_getRawBlock", json!(["0x1"])).unwrap());
    let block = Block::<TxEnvelope>::decode(&mut raw.as_slice()).unwrap();
    assert_eq!(block.body.transactions.len(), 7);
    let again = alloy_rlp::encode(Block {
        header: block.header.clone(),
        body: BlockBody {
            transactions: block.body.transactions.clone(),
            ommers: Vec::<Header>::new(),
            // Prague's layout: an empty withdrawals list.
            withdrawals: Some(Default::default()),
        },
    });
    assert_eq!(raw, again);
    assert_eq!(
        proofs::calculate_transaction_root(&block.body.transactions),
        block.header.transactions_root
    );
    let by_hash = bytes(&rpc(&m, "debug_getRawBlock", json!([block.header.hash_slow()])).unwrap());
    assert_eq!(by_hash, raw);
    let receipts: Vec<ReceiptEnvelope> = rpc(&m, "debug_getRawReceipts", json!(["0x1"]))
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| ReceiptEnvelope::decode_2718(&mut bytes(r).as_slice()).unwrap())
        .collect();
    assert_eq!(receipts.len(), 7);
    assert_eq!(
        proofs::calculate_receipt_root(&receipts),
        block.header.receipts_root
    );
    assert_eq!(
        rpc(&m, "debug_getRawBlock", json!(["0x9"])).unwrap(),
        Value::Null
    );
    assert_eq!(
        rpc(&m, "debug_getRawReceipts", json!(["0x9"])).unwrap(),
        Value::Null
    );
}
