//! What every RPC handler shares, the server's ([`crate::rpc`]) and each family room's
//! ([`crate::families`]): the node it answers for ([`Node`]), its parameters read and checked
//! (a block resolved against the chain), and the errors it answers with, each naming the
//! parameter at fault. It uses neither the server nor the rooms, so both can use it.

use std::sync::RwLock;

use alloy_eips::{BlockId, BlockNumberOrTag};
use alloy_primitives::B256;
use jsonrpsee::types::{ErrorObjectOwned, Params};
use serde_json::Value;
use tokio::sync::Notify;

use crate::{
    chain::{Chain, Dishonest},
    dishonest::{self, Family},
};

/// Shared by the handlers and the block producer.
pub struct Node {
    /// The chain.
    pub chain: RwLock<Chain>,
    /// Misbehaviour for client tests, if any.
    pub dishonest: Option<Dishonest>,
    /// Woken when a transaction arrives (on-demand block production).
    pub new_tx: Notify,
    /// Produce a block as soon as a transaction arrives.
    pub on_demand: bool,
    /// The most blocks one `lightprov_getHistory` call may span.
    pub max_history_range: u64,
    /// The most blocks one `eth_getLogs` call may span.
    pub max_logs_range: u64,
}

impl Node {
    /// An honest node serving `chain` in-process (for tests and the fuzzer): blocks only when
    /// asked, history and log queries of at most 32 blocks.
    pub fn in_process(chain: Chain) -> Self {
        Self {
            chain: RwLock::new(chain),
            dishonest: None,
            new_tx: Notify::new(),
            on_demand: false,
            max_history_range: 32,
            max_logs_range: 32,
        }
    }
}

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node").finish_non_exhaustive()
    }
}

/// A handler's answer: its result, or the JSON-RPC error it answers with.
pub(crate) type RpcResult<T> = Result<T, ErrorObjectOwned>;

/// Bad input: names the parameter. The reason is cut to 200 characters: it may quote the input.
pub(crate) fn invalid(field: &str, why: impl std::fmt::Display) -> ErrorObjectOwned {
    let why = why.to_string();
    let why = match why.char_indices().nth(200) {
        Some((cut, _)) => format!(
            "{}… ({} bytes)",
            why.get(..cut).unwrap_or_default(),
            why.len()
        ),
        None => why,
    };
    ErrorObjectOwned::owned(-32602, format!("invalid {field}: {why}"), None::<()>)
}

pub(crate) fn unknown_block(what: impl std::fmt::Display) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(-32001, format!("unknown block {what}"), None::<()>)
}

/// `e` with the parameter it is about named first.
pub(crate) fn about(field: &str, e: ErrorObjectOwned) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(e.code(), format!("{field}: {}", e.message()), None::<()>)
}

pub(crate) fn over_limit(what: impl std::fmt::Display) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(-32005, format!("limit exceeded: {what}"), None::<()>)
}

pub(crate) fn not_served(what: impl std::fmt::Display) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(-32006, format!("not served here: {what}"), None::<()>)
}

/// COLE or LVMT proof bytes as hex, as served (corrupted in some `--dishonest` modes).
pub(crate) fn proof_hex(n: &Node, family: Family, bytes: Vec<u8>) -> String {
    lightprov_types::hex::encode(&dishonest::proof_bytes(n.dishonest, family, bytes))
}

/// Block `n` as an answer names it: `0x…` (another block in the `other-block` `--dishonest` mode).
pub(crate) fn block_hex(n: &Node, block: u64) -> String {
    format!("0x{:x}", dishonest::claimed_block(n.dishonest, block))
}

/// The optional `fromBlock` and `toBlock` at `a[i]` and `a[i + 1]`: both or neither, and
/// `fromBlock ≤ toBlock ≤` the head when given.
pub(crate) fn opt_block_range(
    chain: &Chain,
    a: &[Value],
    i: usize,
) -> RpcResult<Option<(u64, u64)>> {
    let from: Option<alloy_primitives::U64> = opt_arg(a, i, "fromBlock")?;
    let to: Option<alloy_primitives::U64> = opt_arg(a, i + 1, "toBlock")?;
    let (from, to) = match (from, to) {
        (None, None) => return Ok(None),
        (Some(f), Some(t)) => (f.to::<u64>(), t.to::<u64>()),
        _ => {
            return Err(invalid(
                "toBlock",
                "give both fromBlock and toBlock, or neither",
            ));
        }
    };
    let head = chain.head().0.number;
    if from > to || to > head {
        return Err(invalid(
            "toBlock",
            format!("expected fromBlock ≤ toBlock ≤ the head (#{head})"),
        ));
    }
    Ok(Some((from, to)))
}

/// `fromBlock` and `toBlock` at `a[i]` and `a[i + 1]`, both required, `fromBlock ≤ toBlock ≤`
/// the head.
pub(crate) fn block_range(chain: &Chain, a: &[Value], i: usize) -> RpcResult<(u64, u64)> {
    opt_block_range(chain, a, i)?
        .ok_or_else(|| invalid("toBlock", "expected fromBlock and toBlock"))
}

pub(crate) fn internal(e: impl std::fmt::Display) -> ErrorObjectOwned {
    tracing::error!("internal error: {e}");
    ErrorObjectOwned::owned(-32603, format!("internal error: {e}"), None::<()>)
}

pub(crate) fn read(node: &Node) -> RpcResult<std::sync::RwLockReadGuard<'_, Chain>> {
    node.chain
        .read()
        .map_err(|_| internal("chain lock poisoned"))
}

/// Positional parameters as raw JSON values, at most `max`.
pub(crate) fn args(p: &Params<'_>, max: usize) -> RpcResult<Vec<Value>> {
    let v: Vec<Value> = if p.is_object() {
        return Err(invalid("params", "expected an array"));
    } else {
        // serde_json's own message (e.g. its nesting limit), not jsonrpsee's "Invalid params".
        serde_json::from_str::<Option<Vec<Value>>>(p.as_str().unwrap_or("null"))
            .map_err(|e| invalid("params", e))?
            .unwrap_or_default()
    };
    if v.len() > max {
        return Err(invalid("params", format!("at most {max} parameters")));
    }
    Ok(v)
}

pub(crate) fn arg<T: serde::de::DeserializeOwned>(
    a: &[Value],
    i: usize,
    field: &str,
) -> RpcResult<T> {
    let v = a.get(i).cloned().ok_or_else(|| invalid(field, "missing"))?;
    serde_json::from_value(v).map_err(|e| invalid(field, e))
}

pub(crate) fn opt_arg<T: serde::de::DeserializeOwned>(
    a: &[Value],
    i: usize,
    field: &str,
) -> RpcResult<Option<T>> {
    match a.get(i) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .map_err(|e| invalid(field, e)),
    }
}

/// A storage slot as clients send it: a number of at most 32 bytes, in hex.
pub(crate) fn slot(v: &Value, field: &str) -> RpcResult<B256> {
    let s = v
        .as_str()
        .ok_or_else(|| invalid(field, "expected a hex string"))?;
    lightprov_types::hex::word(s, field)
        .map(B256::from)
        .map_err(|e| invalid(field, e.reason))
}

/// A 32-byte state key in hex, the parameter `stateKey`.
pub(crate) fn state_key(a: &[Value], i: usize) -> RpcResult<B256> {
    let s: String = arg(a, i, "stateKey")?;
    if s.len() != 66 && (s.starts_with("0x") || s.starts_with("0X")) {
        return Err(invalid(
            "stateKey",
            format!(
                "expected 32 bytes (0x and 64 hex digits), got {} digits",
                s.len() - 2
            ),
        ));
    }
    lightprov_types::hex::fixed::<32>(&s, "stateKey")
        .map(B256::from)
        .map_err(|e| invalid("stateKey", e.reason))
}

/// Resolves a block tag, number or EIP-1898 hash to a block number (≤ head).
pub(crate) fn resolve(chain: &Chain, id: Option<BlockId>) -> RpcResult<u64> {
    let head = chain.head().0.number;
    match id.unwrap_or(BlockId::Number(BlockNumberOrTag::Latest)) {
        BlockId::Hash(h) => chain
            .number_of(&h.block_hash)
            .map_err(internal)?
            .ok_or_else(|| unknown_block(h.block_hash)),
        BlockId::Number(BlockNumberOrTag::Number(n)) if n <= head => Ok(n),
        BlockId::Number(BlockNumberOrTag::Number(n)) => {
            Err(unknown_block(format!("{n} (the head is #{head})")))
        }
        BlockId::Number(BlockNumberOrTag::Earliest) => Ok(0),
        BlockId::Number(_) => Ok(head),
    }
}
