//! `eth_call`, `eth_estimateGas` and `eth_createAccessList`, answered by the same code that
//! answers the SDK's verified calls (`lightprov-evm`: geth's rules, its gas search, its access-list
//! tracer, its messages), over the node's own state: where a run reaches a piece of state it does
//! not hold, the node proves it from its MPT archive (an `eth_getProof`, the code, an ancestor
//! header) and runs again, as a light client does against an untrusted node.

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_rpc_types_eth::TransactionRequest;
use alloy_sol_types::{Revert, SolError};
use jsonrpsee::types::ErrorObjectOwned;
use lightprov_evm::{
    AccessListAnswer, CallRequest, DEFAULT_GAS_CAP, EstimateError, Executed, Need, Outcome,
    ProvenState, RequestError, Status,
};

use crate::{
    chain::Chain,
    exec,
    handler::{Node, RpcResult, arg, args, internal, invalid, opt_arg, read, resolve},
};

/// The most pieces of state one call may prove (each costs a run).
pub const MAX_NEEDS: usize = 4096;

/// The call object of `eth_call` and its kin, as geth reads it (`input` or `data`).
pub fn request(v: serde_json::Value) -> RpcResult<CallRequest> {
    if !v.is_object() {
        return Err(invalid("transaction", "expected an object"));
    }
    let t: TransactionRequest = serde_json::from_value(v).map_err(|e| invalid("transaction", e))?;
    let input = t
        .input
        .try_into_unique_input()
        .map_err(|e| invalid("transaction.input", e))?
        .unwrap_or_default();
    Ok(CallRequest {
        from: t.from.unwrap_or_default(),
        to: t.to.and_then(|k| k.to().copied()),
        gas: t.gas,
        gas_price: t.gas_price.map(U256::from),
        max_fee_per_gas: t.max_fee_per_gas.map(U256::from),
        max_priority_fee_per_gas: t.max_priority_fee_per_gas.map(U256::from),
        value: t.value.unwrap_or_default(),
        input,
        nonce: t.nonce,
        chain_id: t.chain_id,
        access_list: t.access_list.map(|l| {
            l.0.into_iter()
                .map(|i| (i.address, i.storage_keys))
                .collect()
        }),
        blob_hashes: t.blob_versioned_hashes,
        max_fee_per_blob_gas: t.max_fee_per_blob_gas.map(U256::from),
    })
}

/// Proves to `state` the piece of block `block`'s state a run needs.
fn supply(chain: &Chain, state: &mut ProvenState, need: Need, block: u64) -> anyhow::Result<()> {
    let proof = |address: &Address, slots: &[B256]| -> anyhow::Result<Vec<u8>> {
        Ok(chain
            .engine()
            .account_proof(address, slots, block)?
            .encode())
    };
    match need {
        Need::Account(a) => state
            .add_proof(a, &[], &proof(&a, &[])?)
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        Need::Slot(a, s) => {
            let slot = B256::from(s.to_be_bytes::<32>());
            state
                .add_proof(a, &[slot], &proof(&a, &[slot])?)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        Need::Code(a) => state
            .add_code(a, &chain.code(&a, block)?)
            .map_err(|e| anyhow::anyhow!("{e}"))?,
        Need::BlockHash(_) => {
            let oldest = state.oldest_known();
            let header = chain
                .header(oldest)?
                .ok_or_else(|| anyhow::anyhow!("block {oldest} is not stored"))?;
            state
                .add_header(&alloy_rlp::encode(&header))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
    }
    Ok(())
}

/// One of the three methods as an RPC handler: its params `[tx, block?]`, `method` run over the
/// block's state (see [`answer`]), its answer shaped by `shape`.
pub fn handle<T, R>(
    p: &jsonrpsee::types::Params<'_>,
    node: &Node,
    method: fn(&ProvenState, &CallRequest, u64) -> Result<Outcome<T>, RequestError>,
    shape: fn(T) -> RpcResult<R>,
) -> RpcResult<R> {
    let a = args(p, 2)?;
    let req = request(arg(&a, 0, "transaction")?)?;
    let chain = read(node)?;
    let block = resolve(&chain, opt_arg(&a, 1, "block")?)?;
    shape(answer(&chain, block, |s, cap| method(s, &req, cap))?)
}

/// Runs `method` over block `block`'s state, proving what it reaches until it answers.
pub fn answer<T>(
    chain: &Chain,
    block: u64,
    method: impl Fn(&ProvenState, u64) -> Result<Outcome<T>, RequestError>,
) -> RpcResult<T> {
    let header = chain
        .header(block)
        .map_err(internal)?
        .ok_or_else(|| internal(format!("block {block} is not stored")))?;
    let rlp = alloy_rlp::encode(&header);
    let spec = exec::chain_spec(chain.config().chain_id);
    let mut state = ProvenState::new(&rlp, header.hash_slow(), spec).map_err(internal)?;
    for _ in 0..=MAX_NEEDS {
        match method(&state, DEFAULT_GAS_CAP).map_err(|e| invalid(e.field, e.reason))? {
            Outcome::Done(t) => return Ok(t),
            Outcome::Missing(need) => supply(chain, &mut state, need, block).map_err(internal)?,
        }
    }
    Err(ErrorObjectOwned::owned(
        -32005,
        format!("the call reaches more than {MAX_NEEDS} pieces of state"),
        None::<()>,
    ))
}

/// geth's panic reasons (`abi.UnpackRevert`).
fn panic_reason(code: U256) -> String {
    let known = match u64::try_from(code) {
        Ok(0x00) => "generic panic",
        Ok(0x01) => "assert(false)",
        Ok(0x11) => "arithmetic underflow or overflow",
        Ok(0x12) => "division or modulo by zero",
        Ok(0x21) => "enum overflow",
        Ok(0x22) => "invalid encoded storage byte array accessed",
        Ok(0x31) => "out-of-bounds array access; popping on an empty array",
        Ok(0x32) => "out-of-bounds access of an array or bytesN",
        Ok(0x41) => "out of memory",
        Ok(0x51) => "uninitialized function",
        _ => return format!("unknown panic code: {code:#x}"),
    };
    known.into()
}

/// geth's error for a revert: code 3, `execution reverted` with the reason it decodes
/// (`Error(string)` or `Panic(uint256)`), the revert data as `data`.
pub fn reverted(data: &Bytes) -> ErrorObjectOwned {
    let reason = if let Ok(r) = Revert::abi_decode(data) {
        Some(r.reason)
    } else if let Ok(p) = alloy_sol_types::Panic::abi_decode(data) {
        Some(panic_reason(p.code))
    } else {
        None
    };
    let message = reason.map_or_else(
        || "execution reverted".to_string(),
        |r| format!("execution reverted: {r}"),
    );
    ErrorObjectOwned::owned(3, message, Some(data.to_string()))
}

fn failed(message: impl Into<String>) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(-32000, message.into(), None::<()>)
}

/// `eth_call`'s answer: the return data, or geth's error.
pub fn call_result(r: Result<Executed, String>) -> RpcResult<Bytes> {
    let e = r.map_err(failed)?;
    match e.status {
        Status::Success => Ok(e.output),
        Status::Revert => Err(reverted(&e.output)),
        Status::Halt { message, .. } => Err(failed(message)),
    }
}

/// `eth_estimateGas`'s answer: the gas, or geth's error.
pub fn estimate_result(r: Result<u64, EstimateError>) -> RpcResult<U256> {
    match r {
        Ok(g) => Ok(U256::from(g)),
        Err(EstimateError::Reverted(data)) => Err(reverted(&data)),
        Err(EstimateError::Failed(m)) => Err(failed(m)),
    }
}

/// `eth_createAccessList`'s answer as geth shapes it: `accessList`, `gasUsed`, and `error` when
/// the run with the list failed.
pub fn access_list_result(r: Result<AccessListAnswer, String>) -> RpcResult<serde_json::Value> {
    let a = r.map_err(failed)?;
    let list: Vec<serde_json::Value> = a
        .list
        .iter()
        .map(|(address, keys)| serde_json::json!({ "address": address, "storageKeys": keys }))
        .collect();
    let mut v = serde_json::json!({
        "accessList": list,
        "gasUsed": format!("{:#x}", a.gas_used),
    });
    if let (Some(e), Some(o)) = (a.error, v.as_object_mut()) {
        o.insert("error".into(), e.into());
    }
    Ok(v)
}
