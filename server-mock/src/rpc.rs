//! The JSON-RPC server: Ethereum methods with geth's shapes, and lightprov's own.

use std::sync::Arc;

use alloy_consensus::{Transaction as _, transaction::Recovered};
use alloy_eips::{BlockId, BlockNumberOrTag};
use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_rpc_types_eth::{
    Block, BlockTransactions, Header as RpcHeader, Transaction as RpcTransaction,
    TransactionReceipt,
};
use jsonrpsee::{RpcModule, types::ErrorObjectOwned};
use lightprov_engine_api::{Key, StateEngine};
use serde_json::{Value, json};

pub use crate::handler::Node;
use crate::{
    calls,
    chain::{BASE_FEE, Chain},
    dishonest, families,
    handler::{
        RpcResult, about, arg, args, internal, invalid, opt_arg, over_limit, read, resolve, slot,
        state_key,
    },
    trace,
};

/// The most logs one `eth_getLogs` answer holds (as common providers limit it).
pub const MAX_LOGS: usize = 10_000;

fn rpc_tx(
    tx: alloy_consensus::TxEnvelope,
    sender: Address,
    header: &alloy_consensus::Header,
    hash: B256,
    index: usize,
) -> RpcTransaction {
    let price = tx.effective_gas_price(Some(BASE_FEE));
    RpcTransaction {
        inner: Recovered::new_unchecked(tx, sender),
        block_hash: Some(hash),
        block_number: Some(header.number),
        transaction_index: Some(index as u64),
        effective_gas_price: Some(price),
        block_timestamp: Some(header.timestamp),
    }
}

fn block_json(node: &Node, chain: &Chain, number: u64, full: bool) -> RpcResult<Value> {
    let Some(record) = chain.block(number).map_err(internal)? else {
        return Ok(Value::Null);
    };
    let header = record.header().map_err(internal)?;
    let hash = header.hash_slow();
    let txs = record.transactions().map_err(internal)?;
    let transactions = if full {
        BlockTransactions::Full(
            txs.into_iter()
                .zip(record.senders.iter())
                .enumerate()
                .map(|(i, (tx, s))| rpc_tx(tx, *s, &header, hash, i))
                .collect(),
        )
    } else {
        BlockTransactions::Hashes(txs.iter().map(|t| *t.tx_hash()).collect())
    };
    // geth's `size`: the length of the block's RLP (`debug_getRawBlock`).
    let size = raw_block(&record).len();
    let block = Block {
        header: RpcHeader {
            hash,
            inner: header,
            total_difficulty: Some(U256::from(crate::chain::total_difficulty(number))),
            size: Some(U256::from(size)),
        },
        uncles: vec![],
        transactions,
        withdrawals: Some(Default::default()),
    };
    let mut v = serde_json::to_value(block).map_err(internal)?;
    dishonest::block(node.dishonest, &mut v);
    Ok(v)
}

/// A block tag's number: a number as it is, `earliest` 0, any other tag the head.
fn block_number(chain: &Chain, tag: BlockNumberOrTag) -> u64 {
    match tag {
        BlockNumberOrTag::Number(x) => x,
        BlockNumberOrTag::Earliest => 0,
        _ => chain.head().0.number,
    }
}

/// The stored block `number`, if there is one.
fn stored_block(chain: &Chain, number: u64) -> RpcResult<Option<crate::chain::BlockRecord>> {
    chain.block(number).map_err(internal)
}

/// A block's RLP as geth's `debug_getRawBlock` gives it — `[header, transactions, ommers,
/// withdrawals]`,
/// typed transactions as byte strings and legacy ones as lists — built from the stored
/// encodings without decoding them.
fn raw_block(record: &crate::chain::BlockRecord) -> Bytes {
    use alloy_rlp::{Encodable, Header};
    let mut txs = Vec::new();
    for tx in &record.txs {
        if tx.first().is_some_and(|b| *b >= 0xc0) {
            txs.extend_from_slice(tx);
        } else {
            tx.as_ref().encode(&mut txs);
        }
    }
    let mut payload = Vec::with_capacity(record.header.len() + txs.len() + 10);
    payload.extend_from_slice(&record.header);
    Header {
        list: true,
        payload_length: txs.len(),
    }
    .encode(&mut payload);
    payload.extend_from_slice(&txs);
    // No ommers, and (Shanghai's layout on) no withdrawals.
    payload.push(alloy_rlp::EMPTY_LIST_CODE);
    payload.push(alloy_rlp::EMPTY_LIST_CODE);
    let mut out = Vec::with_capacity(payload.len() + 9);
    Header {
        list: true,
        payload_length: payload.len(),
    }
    .encode(&mut out);
    out.extend_from_slice(&payload);
    out.into()
}

/// The number and record of the block `id` names (a hash, a number or a tag), if stored.
fn block_by_id(chain: &Chain, id: BlockId) -> RpcResult<Option<(u64, crate::chain::BlockRecord)>> {
    let number = match id {
        BlockId::Hash(h) => match chain.number_of(&h.block_hash).map_err(internal)? {
            Some(x) => x,
            None => return Ok(None),
        },
        BlockId::Number(tag) => block_number(chain, tag),
    };
    Ok(stored_block(chain, number)?.map(|r| (number, r)))
}

/// The EIP-2718 encoding of transaction `index` of block `number`: `None` for an unknown block,
/// empty bytes (`"0x"`, as geth) past the block's last transaction.
fn raw_transaction(chain: &Chain, number: u64, index: u64) -> RpcResult<Option<Bytes>> {
    Ok(stored_block(chain, number)?.map(|r| {
        usize::try_from(index)
            .ok()
            .and_then(|i| r.txs.get(i).cloned())
            .unwrap_or_default()
    }))
}

/// Every receipt of a stored block, with geth's fields (logs numbered through the block).
fn block_receipts(
    record: &crate::chain::BlockRecord,
    block_hash: B256,
    number: u64,
) -> RpcResult<Vec<TransactionReceipt>> {
    let txs = record.transactions().map_err(internal)?;
    let receipts = record.receipts().map_err(internal)?;
    let timestamp = record.header().map_err(internal)?.timestamp;
    let mut log_index = 0u64;
    let mut cumulative = 0u64;
    txs.iter()
        .zip(receipts)
        .zip(record.senders.iter())
        .enumerate()
        .map(|(i, ((tx, receipt), sender))| {
            let tx_hash = *tx.tx_hash();
            let gas_used = receipt.cumulative_gas_used() - cumulative;
            cumulative = receipt.cumulative_gas_used();
            Ok(TransactionReceipt {
                inner: receipt.map_logs(|l| {
                    log_index += 1;
                    alloy_rpc_types_eth::Log {
                        inner: l,
                        block_hash: Some(block_hash),
                        block_number: Some(number),
                        block_timestamp: Some(timestamp),
                        transaction_hash: Some(tx_hash),
                        transaction_index: Some(i as u64),
                        log_index: Some(log_index - 1),
                        removed: false,
                    }
                }),
                transaction_hash: tx_hash,
                transaction_index: Some(i as u64),
                block_hash: Some(block_hash),
                block_number: Some(number),
                gas_used,
                effective_gas_price: tx.effective_gas_price(Some(BASE_FEE)),
                blob_gas_used: None,
                blob_gas_price: None,
                from: *sender,
                to: tx.to(),
                contract_address: tx.to().is_none().then(|| sender.create(tx.nonce())),
            })
        })
        .collect()
}

/// `eth_getLogs`: the logs of the filter's blocks (a range, or one block by hash) that match
/// its addresses and topics, in chain order. A block whose logsBloom cannot match is skipped
/// without reading its receipts.
fn logs(
    chain: &Chain,
    filter: &alloy_rpc_types_eth::Filter,
    max_range: u64,
) -> RpcResult<Vec<alloy_rpc_types_eth::Log>> {
    use alloy_rpc_types_eth::FilterBlockOption;
    let head = chain.head().0.number;
    let (from, to) = match filter.block_option {
        FilterBlockOption::AtBlockHash(h) => match chain.number_of(&h).map_err(internal)? {
            Some(x) => (x, x),
            None => return Err(invalid("filter.blockHash", format!("unknown block {h}"))),
        },
        FilterBlockOption::Range {
            from_block,
            to_block,
        } => {
            let at = |t: Option<BlockNumberOrTag>| t.map_or(head, |t| block_number(chain, t));
            (at(from_block), at(to_block).min(head))
        }
    };
    if from > to {
        if from > head {
            return Ok(Vec::new());
        }
        return Err(invalid(
            "filter.fromBlock",
            format!("{from} is after toBlock {to}"),
        ));
    }
    if to - from >= max_range {
        return Err(over_limit(format!(
            "{} blocks asked, at most {max_range} per eth_getLogs call",
            to - from + 1
        )));
    }
    let mut out = Vec::new();
    for number in from..=to {
        let Some(header) = chain.header(number).map_err(internal)? else {
            continue;
        };
        if !filter.matches_bloom(header.logs_bloom) {
            continue;
        }
        let Some(record) = stored_block(chain, number)? else {
            continue;
        };
        for receipt in block_receipts(&record, header.hash_slow(), number)? {
            for log in receipt.inner.logs() {
                if filter.matches_address(log.address()) && filter.matches_topics(log.topics()) {
                    if out.len() == MAX_LOGS {
                        return Err(over_limit(format!(
                            "more than {MAX_LOGS} logs match; ask for a shorter range"
                        )));
                    }
                    out.push(log.clone());
                }
            }
        }
    }
    Ok(out)
}

/// An included transaction, found by hash.
struct Included {
    record: crate::chain::BlockRecord,
    block_hash: B256,
    number: u64,
    index: usize,
    tx: alloy_consensus::TxEnvelope,
    sender: Address,
}

fn included(chain: &Chain, hash: &B256) -> RpcResult<Option<Included>> {
    let Some((number, index)) = chain.tx_location(hash).map_err(internal)? else {
        return Ok(None);
    };
    let record = chain
        .block(number)
        .map_err(internal)?
        .ok_or_else(|| internal("missing block"))?;
    let block_hash = record.header().map_err(internal)?.hash_slow();
    let tx = record
        .transactions()
        .map_err(internal)?
        .into_iter()
        .nth(index)
        .ok_or_else(|| internal("missing tx"))?;
    let sender = *record
        .senders
        .get(index)
        .ok_or_else(|| internal("missing sender"))?;
    Ok(Some(Included {
        record,
        block_hash,
        number,
        index,
        tx,
        sender,
    }))
}

/// The hashed nodes on the path of the key `RLP(index)` in the ordered trie of `items` (key
/// `RLP(i)`, value item `i`: a block's `transactionsRoot` or `receiptsRoot`), root first; inline
/// nodes (under 32 bytes) stay inside their parents, as in `eth_getProof`. The path ends at the
/// item, or where the trie shows the index holds none. Also returns the trie's root.
pub fn ordered_trie_proof(items: &[Bytes], index: u64) -> (B256, Vec<Bytes>) {
    use alloy_trie::{HashBuilder, Nibbles, proof::ProofRetainer};
    let key = |i: u64| Nibbles::unpack(alloy_rlp::encode(i));
    let target = key(index);
    let mut leaves: Vec<(Nibbles, &Bytes)> =
        (0u64..).zip(items).map(|(i, v)| (key(i), v)).collect();
    leaves.sort_unstable_by_key(|a| a.0);
    let mut hb = HashBuilder::default().with_proof_retainer(ProofRetainer::new(vec![target]));
    for (k, v) in leaves {
        hb.add_leaf(k, v);
    }
    let root = hb.root();
    let nodes = hb
        .take_proof_nodes()
        .matching_nodes_sorted(&target)
        .into_iter()
        .filter(|(path, node)| path.is_empty() || node.len() >= 32)
        .map(|(_, node)| node)
        .collect();
    (root, nodes)
}

/// `lightprov_getTransactionProof`'s answer: the transaction and receipt at `index` of block
/// `number` (or `null`s past its end) with their proofs against the header's roots.
fn transaction_proof_json(chain: &Chain, number: u64, index: u64) -> RpcResult<Value> {
    let record = stored_block(chain, number)?.ok_or_else(|| internal("missing block"))?;
    let header = record.header().map_err(internal)?;
    let (tx_root, tx_proof) = ordered_trie_proof(&record.txs, index);
    let (receipt_root, receipt_proof) = ordered_trie_proof(&record.receipts, index);
    if tx_root != header.transactions_root || receipt_root != header.receipts_root {
        return Err(internal(format!(
            "block {number}'s stored lists do not build its header's roots"
        )));
    }
    let at = |list: &[Bytes]| {
        usize::try_from(index)
            .ok()
            .and_then(|i| list.get(i).cloned())
    };
    Ok(json!({
        "blockNumber": format!("0x{number:x}"),
        "blockHash": header.hash_slow(),
        "index": format!("0x{index:x}"),
        "transaction": at(&record.txs),
        "receipt": at(&record.receipts),
        "transactionProof": tx_proof,
        "receiptProof": receipt_proof,
    }))
}

/// The node's own methods whose calls can take long (proofs over many blocks or keys, logs of
/// many blocks; the status walks the engines' files); each family names its own in its room.
pub const EXPENSIVE_METHODS: &[&str] = &[
    "eth_getProof",
    "eth_getLogs",
    "eth_call",
    "eth_estimateGas",
    "eth_createAccessList",
    "debug_traceCall",
    "lightprov_getHistory",
    "lightprov_status",
];

/// Whether calls of `method` can take long: the server answers only a few of them at once, and
/// other calls need not wait for them.
pub fn is_expensive(method: &str) -> bool {
    EXPENSIVE_METHODS.contains(&method)
        || families::ROOMS
            .iter()
            .any(|r| r.expensive.contains(&method))
}

/// Builds the RPC module.
pub fn module(node: Arc<Node>) -> anyhow::Result<RpcModule<Arc<Node>>> {
    let mut m = RpcModule::new(node);

    m.register_method("eth_chainId", |_, n, _| -> RpcResult<String> {
        Ok(format!("0x{:x}", read(n)?.config().chain_id))
    })?;
    m.register_method("net_version", |_, n, _| -> RpcResult<String> {
        Ok(read(n)?.config().chain_id.to_string())
    })?;
    m.register_method("web3_clientVersion", |_, _, _| -> RpcResult<String> {
        Ok(format!("lightprov-node/{}", env!("CARGO_PKG_VERSION")))
    })?;
    m.register_method("eth_syncing", |_, _, _| -> RpcResult<bool> { Ok(false) })?;
    m.register_method("eth_accounts", |_, n, _| -> RpcResult<Vec<Address>> {
        Ok(read(n)?
            .config()
            .dev_accounts
            .iter()
            .map(|a| a.address())
            .collect())
    })?;
    m.register_method("eth_blockNumber", |_, n, _| -> RpcResult<String> {
        Ok(format!("0x{:x}", read(n)?.head().0.number))
    })?;
    m.register_method("eth_gasPrice", |_, _, _| -> RpcResult<String> {
        Ok(format!("0x{:x}", 2 * BASE_FEE))
    })?;
    m.register_method("eth_maxPriorityFeePerGas", |_, _, _| -> RpcResult<String> {
        Ok(format!("0x{:x}", BASE_FEE))
    })?;
    m.register_method("eth_call", |p, n, _| -> RpcResult<Bytes> {
        calls::handle(&p, n, lightprov_evm::call, calls::call_result)
    })?;
    m.register_method("eth_estimateGas", |p, n, _| -> RpcResult<U256> {
        calls::handle(&p, n, lightprov_evm::estimate_gas, calls::estimate_result)
    })?;
    m.register_method("eth_createAccessList", |p, n, _| -> RpcResult<Value> {
        calls::handle(
            &p,
            n,
            lightprov_evm::create_access_list,
            calls::access_list_result,
        )
    })?;

    m.register_method("debug_traceCall", |p, n, _| -> RpcResult<Value> {
        trace::trace_call(&p, n)
    })?;

    m.register_method("eth_getBlockByNumber", |p, n, _| -> RpcResult<Value> {
        let a = args(&p, 2)?;
        let full: bool = opt_arg(&a, 1, "fullTransactions")?.unwrap_or(false);
        let chain = read(n)?;
        let number = block_number(&chain, arg(&a, 0, "block")?);
        block_json(
            n,
            &chain,
            dishonest::header_block(n.dishonest, number),
            full,
        )
    })?;
    m.register_method("eth_getBlockByHash", |p, n, _| -> RpcResult<Value> {
        let a = args(&p, 2)?;
        let hash: B256 = arg(&a, 0, "blockHash")?;
        let full: bool = opt_arg(&a, 1, "fullTransactions")?.unwrap_or(false);
        let chain = read(n)?;
        match chain.number_of(&hash).map_err(internal)? {
            None => Ok(Value::Null),
            Some(number) => block_json(n, &chain, number, full),
        }
    })?;

    // A block's transaction count and raw transactions, by hash or by number.
    type Locate = fn(&Chain, &[Value]) -> RpcResult<Option<u64>>;
    let by_hash: Locate = |chain, a| {
        let hash: B256 = arg(a, 0, "blockHash")?;
        chain.number_of(&hash).map_err(internal)
    };
    let by_number: Locate = |chain, a| Ok(Some(block_number(chain, arg(a, 0, "block")?)));
    for (count, raw, locate) in [
        (
            "eth_getBlockTransactionCountByHash",
            "eth_getRawTransactionByBlockHashAndIndex",
            by_hash,
        ),
        (
            "eth_getBlockTransactionCountByNumber",
            "eth_getRawTransactionByBlockNumberAndIndex",
            by_number,
        ),
    ] {
        m.register_method(count, move |p, n, _| -> RpcResult<Option<String>> {
            let a = args(&p, 1)?;
            let chain = read(n)?;
            let Some(number) = locate(&chain, &a)? else {
                return Ok(None);
            };
            Ok(stored_block(&chain, number)?.map(|r| format!("0x{:x}", r.txs.len())))
        })?;
        m.register_method(raw, move |p, n, _| -> RpcResult<Option<Bytes>> {
            let a = args(&p, 2)?;
            let chain = read(n)?;
            let index: alloy_primitives::U64 = arg(&a, 1, "index")?;
            let Some(number) = locate(&chain, &a)? else {
                return Ok(None);
            };
            raw_transaction(&chain, number, index.to())
        })?;
    }

    m.register_method("eth_getProof", |p, n, _| -> RpcResult<Value> {
        let a = args(&p, 3)?;
        let address: Address = arg(&a, 0, "address")?;
        let keys: Vec<Value> = arg(&a, 1, "storageKeys")?;
        if keys.len() > 1024 {
            return Err(invalid("storageKeys", "at most 1024 keys"));
        }
        let slots = keys
            .iter()
            .enumerate()
            .map(|(i, k)| slot(k, &format!("storageKeys[{i}]")))
            .collect::<RpcResult<Vec<_>>>()?;
        let chain = read(n)?;
        let block = resolve(&chain, opt_arg(&a, 2, "block")?)?;
        let mut proof = account_proof_json(n, &chain, &address, &slots, block)?;
        // Each storage key as the caller wrote it ("0x1" stays "0x1"), as geth answers.
        if let Some(list) = proof.get_mut("storageProof").and_then(Value::as_array_mut) {
            for (entry, key) in list.iter_mut().zip(&keys) {
                if let Some(o) = entry.as_object_mut() {
                    o.insert("key".into(), key.clone());
                }
            }
        }
        Ok(proof)
    })?;
    m.register_method("eth_getBalance", |p, n, _| -> RpcResult<U256> {
        let a = args(&p, 2)?;
        let address: Address = arg(&a, 0, "address")?;
        let chain = read(n)?;
        let block = resolve(&chain, opt_arg(&a, 1, "block")?)?;
        Ok(U256::from_be_bytes(dishonest::unproven_value(
            n.dishonest,
            chain
                .engine()
                .get(&Key::Balance(address), block)
                .map_err(internal)?,
        )))
    })?;
    m.register_method("eth_getTransactionCount", |p, n, _| -> RpcResult<U256> {
        let a = args(&p, 2)?;
        let address: Address = arg(&a, 0, "address")?;
        let chain = read(n)?;
        let tag: Option<BlockId> = opt_arg(&a, 1, "block")?;
        if tag == Some(BlockId::Number(BlockNumberOrTag::Pending)) {
            return Ok(U256::from(chain.pending_nonce(&address).map_err(internal)?));
        }
        let block = resolve(&chain, tag)?;
        Ok(U256::from_be_bytes(dishonest::unproven_value(
            n.dishonest,
            chain
                .engine()
                .get(&Key::Nonce(address), block)
                .map_err(internal)?,
        )))
    })?;
    m.register_method("eth_getStorageAt", |p, n, _| -> RpcResult<B256> {
        let a = args(&p, 3)?;
        let address: Address = arg(&a, 0, "address")?;
        let s = slot(a.get(1).ok_or_else(|| invalid("slot", "missing"))?, "slot")?;
        let chain = read(n)?;
        let block = resolve(&chain, opt_arg(&a, 2, "block")?)?;
        Ok(B256::from(dishonest::unproven_value(
            n.dishonest,
            chain
                .engine()
                .get(&Key::Storage(address, s), block)
                .map_err(internal)?,
        )))
    })?;
    m.register_method("eth_getCode", |p, n, _| -> RpcResult<Bytes> {
        let a = args(&p, 2)?;
        let address: Address = arg(&a, 0, "address")?;
        let chain = read(n)?;
        let block = resolve(&chain, opt_arg(&a, 1, "block")?)?;
        chain.code(&address, block).map_err(internal)
    })?;

    m.register_method("eth_sendRawTransaction", |p, n, _| -> RpcResult<B256> {
        let a = args(&p, 1)?;
        let raw: Bytes = arg(&a, 0, "transaction")?;
        let hash = n
            .chain
            .write()
            .map_err(|_| internal("chain lock poisoned"))?
            .submit(&raw)
            .map_err(|e| ErrorObjectOwned::owned(-32000, e.to_string(), None::<()>))?;
        if n.on_demand {
            n.new_tx.notify_one();
        }
        Ok(hash)
    })?;
    m.register_method(
        "eth_getTransactionByHash",
        |p, n, _| -> RpcResult<Option<RpcTransaction>> {
            let a = args(&p, 1)?;
            let hash: B256 = arg(&a, 0, "transactionHash")?;
            let Some(t) = included(&*read(n)?, &hash)? else {
                return Ok(None);
            };
            let header = t.record.header().map_err(internal)?;
            Ok(Some(rpc_tx(t.tx, t.sender, &header, t.block_hash, t.index)))
        },
    )?;
    m.register_method(
        "eth_getTransactionReceipt",
        |p, n, _| -> RpcResult<Option<TransactionReceipt>> {
            let a = args(&p, 1)?;
            let hash: B256 = arg(&a, 0, "transactionHash")?;
            let Some(t) = included(&*read(n)?, &hash)? else {
                return Ok(None);
            };
            Ok(block_receipts(&t.record, t.block_hash, t.number)?
                .into_iter()
                .nth(t.index))
        },
    )?;
    m.register_method(
        "eth_getBlockReceipts",
        |p, n, _| -> RpcResult<Option<Vec<TransactionReceipt>>> {
            let a = args(&p, 1)?;
            let chain = read(n)?;
            let Some((number, record)) = block_by_id(&chain, arg(&a, 0, "block")?)? else {
                return Ok(None);
            };
            let hash = record.header().map_err(internal)?.hash_slow();
            block_receipts(&record, hash, number).map(Some)
        },
    )?;
    // geth's raw forms: the block's RLP (header, transactions, no ommers) and its receipts'
    // consensus encodings — what the roots commit to, without JSON's fields around them.
    m.register_method("debug_getRawBlock", |p, n, _| -> RpcResult<Option<Bytes>> {
        let a = args(&p, 1)?;
        let chain = read(n)?;
        Ok(block_by_id(&chain, arg(&a, 0, "block")?)?.map(|(_, r)| raw_block(&r)))
    })?;
    m.register_method(
        "debug_getRawReceipts",
        |p, n, _| -> RpcResult<Option<Vec<Bytes>>> {
            let a = args(&p, 1)?;
            let chain = read(n)?;
            Ok(block_by_id(&chain, arg(&a, 0, "block")?)?.map(|(_, r)| r.receipts))
        },
    )?;

    m.register_method(
        "eth_getLogs",
        |p, n, _| -> RpcResult<Vec<alloy_rpc_types_eth::Log>> {
            let a = args(&p, 1)?;
            let filter: alloy_rpc_types_eth::Filter = arg(&a, 0, "filter")?;
            let chain = read(n)?;
            logs(&chain, &filter, n.max_logs_range)
        },
    )?;

    m.register_method("evm_mine", |_, n, _| -> RpcResult<String> {
        let number = n
            .chain
            .write()
            .map_err(|_| internal("chain lock poisoned"))?
            .produce_block()
            .map_err(internal)?;
        Ok(format!("0x{number:x}"))
    })?;
    m.register_method("lightprov_getHistory", |p, n, _| -> RpcResult<Value> {
        let a = args(&p, 4)?;
        let state_key = state_key(&a, 0)?;
        let scheme: String = arg(&a, 3, "scheme")?;
        let chain = read(n)?;
        let from =
            resolve(&chain, Some(arg(&a, 1, "fromBlock")?)).map_err(|e| about("fromBlock", e))?;
        let to = resolve(&chain, Some(arg(&a, 2, "toBlock")?)).map_err(|e| about("toBlock", e))?;
        if from > to {
            return Err(invalid(
                "fromBlock",
                format!("{from} is after toBlock {to}"),
            ));
        }
        if to - from >= n.max_history_range {
            return Err(over_limit(format!(
                "{} blocks asked, at most {} per call",
                to - from + 1,
                n.max_history_range
            )));
        }
        let base = json!({
            "scheme": scheme,
            "stateKey": state_key,
            "fromBlock": format!("0x{from:x}"),
            "toBlock": format!("0x{to:x}"),
        });
        if scheme == "mpt" {
            return mpt_history(n, &chain, &state_key, from, to, base);
        }
        let Some(room) = families::room_of(&scheme) else {
            let mut known: Vec<&str> = families::engine_names().chain(["mpt"]).collect();
            known.sort_unstable();
            return Err(invalid(
                "scheme",
                format!("`{scheme}` is not one of {}", known.join(", ")),
            ));
        };
        Ok(extend(
            base,
            (room.history)(&families::HistoryQuery {
                node: n,
                chain: &chain,
                scheme: &scheme,
                key: state_key,
                from,
                to,
            })?,
        ))
    })?;
    m.register_method(
        "lightprov_getTransactionProof",
        |p, n, _| -> RpcResult<Value> {
            let a = args(&p, 2)?;
            let block: BlockId = arg(&a, 0, "block")?;
            let index: alloy_primitives::U64 = arg(&a, 1, "index")?;
            let chain = read(n)?;
            let number = resolve(&chain, Some(block))?;
            transaction_proof_json(&chain, number, index.to())
        },
    )?;
    m.register_method("lightprov_status", |_, n, _| -> RpcResult<Value> {
        let chain = read(n)?;
        let (head, hash) = chain.head();
        let mut engines = vec![json!({ "name": "mpt", "head": chain.engine().head(), "diskBytes": chain.engine().disk_bytes() })];
        engines.extend(chain.families().flat_map(|f| f.status()));
        Ok(json!({
            "chainId": chain.config().chain_id,
            "head": { "number": head.number, "hash": hash },
            "signer": chain.config().signer.address(),
            "engines": engines,
            "maxHistoryRange": n.max_history_range,
            "maxLogsRange": n.max_logs_range,
            "pendingTransactions": chain.pool_len(),
            "blockStore": block_store_status(chain.block_store()),
        }))
    })?;
    for room in families::ROOMS {
        (room.rpc)(&mut m)?;
    }
    Ok(m)
}

/// The block store's layout and tables, for `lightprov_status`.
fn block_store_status(store: &lightprov_blockstore::BlockStore) -> Value {
    let stats = store.stats();
    let space = |s: &lightprov_blockstore::SpaceStats| json!({ "tables": s.tables, "l0Tables": s.l0_tables, "diskBytes": s.disk_bytes });
    json!({
        "layout": stats.layout,
        "data": space(&stats.data),
        "staging": stats.staging.as_ref().map(space),
        "index": stats.index.as_ref().map(space),
    })
}

/// `eth_getProof`'s answer for `address` and `slots` at `block`, as served.
fn account_proof_json(
    n: &Node,
    chain: &Chain,
    address: &Address,
    slots: &[B256],
    block: u64,
) -> RpcResult<Value> {
    let proof = chain
        .engine()
        .account_proof(address, slots, dishonest::proof_block(n.dishonest, block))
        .map_err(internal)?;
    let mut v = proof.to_json();
    dishonest::account_proof(n.dishonest, &mut v);
    Ok(v)
}

/// The MPT baseline of `lightprov_getHistory`: one `eth_getProof` answer per block.
fn mpt_history(
    n: &Node,
    chain: &Chain,
    state_key: &B256,
    from: u64,
    to: u64,
    base: Value,
) -> RpcResult<Value> {
    let key = chain
        .preimage(state_key)
        .map_err(internal)?
        .ok_or_else(|| {
            invalid(
                "stateKey",
                "never written on this chain, so its account is unknown; ask eth_getProof directly",
            )
        })?;
    let (address, slots) = match key {
        Key::Balance(a) | Key::Nonce(a) => (a, vec![]),
        Key::Storage(a, s) => (a, vec![s]),
    };
    let proofs = (from..=to)
        .map(|b| account_proof_json(n, chain, &address, &slots, b))
        .collect::<RpcResult<Vec<_>>>()?;
    let (kind, slot) = match key {
        Key::Balance(_) => ("balance", None),
        Key::Nonce(_) => ("nonce", None),
        Key::Storage(_, s) => ("storage", Some(s)),
    };
    Ok(extend(
        base,
        json!({
            "key": { "kind": kind, "address": address, "slot": slot },
            "proofs": proofs,
        }),
    ))
}

/// `base` with the fields of `more` added.
fn extend(mut base: Value, more: Value) -> Value {
    if let (Value::Object(a), Value::Object(b)) = (&mut base, more) {
        a.extend(b);
    }
    base
}
