//! The EVM module's exports: contract calls (`eth_call`, `eth_estimateGas`,
//! `eth_createAccessList`) run by revm over state proven against one verified block
//! (`lightprov-evm`). The SDK loads it on a client's first call only.
//!
//! An `EvmState` pins the block; the SDK adds proofs, code and older headers as a run asks for
//! them. Each method answers `{ missing }` (what to fetch next) or its result. A node's data
//! that fails a check throws an `Error` with its `code` (as every family's); a block this EVM
//! does not run, or a request it cannot run, throws a `RangeError`.

use std::{string::String, vec::Vec};

use js_sys::{Array, Object, RangeError, Reflect, Uint8Array};
use lightprov_evm::{
    AccessListAnswer, CallRequest, ChainSpec, EstimateError, EvmError, Executed, Need, Outcome,
    ProvenState, Status,
};
use lightprov_types::{Address, B256};
use wasm_bindgen::prelude::*;

use crate::{hash32, reject};

fn set(o: &Object, key: &str, v: JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(o, &key.into(), &v);
}

fn bytes(b: &[u8]) -> JsValue {
    Uint8Array::from(b).into()
}

fn range_error(message: &str) -> JsValue {
    RangeError::new(message).into()
}

fn thrown(e: EvmError) -> JsValue {
    match e {
        EvmError::State(s) => reject(&s),
        other => range_error(&other.to_string()),
    }
}

fn address(b: &[u8], field: &str) -> Result<Address, JsValue> {
    Address::try_from(b).map_err(|_| range_error(&format!("{field}: expected 20 bytes")))
}

/// `{ missing: { kind, address?, slot?, number? } }`.
fn missing(need: Need) -> JsValue {
    let m = Object::new();
    match need {
        Need::Account(a) => {
            set(&m, "kind", "account".into());
            set(&m, "address", bytes(a.as_slice()));
        }
        Need::Slot(a, s) => {
            set(&m, "kind", "slot".into());
            set(&m, "address", bytes(a.as_slice()));
            set(&m, "slot", bytes(&s.to_be_bytes::<32>()));
        }
        Need::Code(a) => {
            set(&m, "kind", "code".into());
            set(&m, "address", bytes(a.as_slice()));
        }
        Need::BlockHash(n) => {
            set(&m, "kind", "blockHash".into());
            set(&m, "number", n.into());
        }
    }
    let o = Object::new();
    set(&o, "missing", m.into());
    o.into()
}

fn answer<T>(out: Outcome<T>, done: impl FnOnce(T) -> Object) -> JsValue {
    match out {
        Outcome::Missing(need) => missing(need),
        Outcome::Done(t) => done(t).into(),
    }
}

fn executed(e: Executed) -> Object {
    let o = Object::new();
    let status = match &e.status {
        Status::Success => "success",
        Status::Revert => "revert",
        Status::Halt { message, .. } => {
            set(&o, "message", message.as_str().into());
            "halt"
        }
    };
    set(&o, "status", status.into());
    set(&o, "output", bytes(&e.output));
    set(&o, "gasUsed", e.gas_used.into());
    set(&o, "peakGas", e.peak_gas.into());
    o
}

fn invalid(message: &str) -> Object {
    let o = Object::new();
    set(&o, "invalid", message.into());
    o
}

/// One block's proven state, and the calls over it.
#[wasm_bindgen]
#[derive(Debug)]
pub struct EvmState {
    state: ProvenState,
}

#[wasm_bindgen]
impl EvmState {
    /// Pins the block whose header is `headerRlp` (it must hash to `blockHash`, a hash the
    /// caller verified). `schedule` is the chain's fork schedule, `[londonBlock, shanghaiTime,
    /// cancunTime, pragueTime, osakaTime, laterTime, proofOfAuthority, (time, blobFraction)…]`
    /// with 2^64 - 1 for "never" and `proofOfAuthority` 1 for a Clique-style chain (its headers
    /// keep Clique's difficulty after the merge's forks), else 0; without it, the built-in
    /// schedule of a public chain (mainnet, Sepolia, Hoodi).
    #[wasm_bindgen(constructor)]
    pub fn new(
        header_rlp: &[u8],
        block_hash: &[u8],
        chain_id: u64,
        schedule: Option<Vec<u64>>,
    ) -> Result<EvmState, JsValue> {
        let hash = hash32(block_hash, "blockHash")?;
        let chain = match schedule {
            None => ChainSpec::public(chain_id).ok_or_else(|| {
                range_error(&format!(
                    "chain {chain_id} has no built-in fork schedule: give the chain's forks"
                ))
            })?,
            Some(s) => spec(chain_id, &s)?,
        };
        ProvenState::new(header_rlp, hash, chain)
            .map(|state| EvmState { state })
            .map_err(thrown)
    }

    /// The pinned block's fork (`london` … `osaka`).
    pub fn fork(&self) -> String {
        self.state.fork().name().into()
    }

    /// Verifies an account proof (compact wire format) of `address` with `slots` (32 bytes
    /// each, in the order asked) and takes what it proves.
    #[wasm_bindgen(js_name = addProof)]
    pub fn add_proof(&mut self, address: &[u8], slots: &[u8], proof: &[u8]) -> Result<(), JsValue> {
        let a = self::address(address, "address")?;
        if !slots.len().is_multiple_of(32) {
            return Err(range_error("slots: expected 32 bytes per slot"));
        }
        let keys: Vec<B256> = slots.chunks_exact(32).map(B256::from_slice).collect();
        self.state
            .add_proof(a, &keys, proof)
            .map_err(|e| reject(&e))
    }

    /// Takes `code` as the code of the proven account `address`: it must hash to the proven
    /// code hash (`CODE_HASH_MISMATCH`).
    #[wasm_bindgen(js_name = addCode)]
    pub fn add_code(&mut self, address: &[u8], code: &[u8]) -> Result<(), JsValue> {
        let a = self::address(address, "address")?;
        self.state.add_code(a, code).map_err(thrown)
    }

    /// Takes an older header (RLP) that must hash to the parent hash of the oldest one linked.
    #[wasm_bindgen(js_name = addHeader)]
    pub fn add_header(&mut self, rlp: &[u8]) -> Result<(), JsValue> {
        self.state.add_header(rlp).map_err(thrown)
    }

    /// The oldest block whose hash is known (`BLOCKHASH` further back needs its header first).
    #[wasm_bindgen(js_name = oldestKnown)]
    pub fn oldest_known(&self) -> u64 {
        self.state.oldest_known()
    }

    /// What the state holds: `{ accounts, slots, codes, codeBytes, headers }`.
    pub fn size(&self) -> Object {
        let s = self.state.size();
        let o = Object::new();
        for (k, v) in [
            ("accounts", s.accounts),
            ("slots", s.slots),
            ("codes", s.codes),
            ("codeBytes", s.code_bytes),
            ("headers", s.headers),
        ] {
            set(&o, k, (v as u32).into());
        }
        o
    }

    /// `eth_call` of `request` (the wire format of `lightprov_evm::CallRequest`): `{ missing }`,
    /// `{ invalid }` (geth's message) or `{ status, output, gasUsed, peakGas, message? }`.
    pub fn call(&self, request: &[u8], gas_cap: u64) -> Result<JsValue, JsValue> {
        let req = decode(request)?;
        let out = lightprov_evm::call(&self.state, &req, gas_cap).map_err(|e| thrown(e.into()))?;
        Ok(answer(out, |r| match r {
            Ok(e) => executed(e),
            Err(m) => invalid(&m),
        }))
    }

    /// `eth_estimateGas`: `{ missing }`, `{ gas }`, `{ reverted }` (the revert data) or
    /// `{ failed }` (geth's message).
    #[wasm_bindgen(js_name = estimateGas)]
    pub fn estimate_gas(&self, request: &[u8], gas_cap: u64) -> Result<JsValue, JsValue> {
        let req = decode(request)?;
        let out = lightprov_evm::estimate_gas(&self.state, &req, gas_cap)
            .map_err(|e| thrown(e.into()))?;
        Ok(answer(out, |r| {
            let o = Object::new();
            match r {
                Ok(gas) => set(&o, "gas", gas.into()),
                Err(EstimateError::Reverted(data)) => set(&o, "reverted", bytes(&data)),
                Err(EstimateError::Failed(m)) => set(&o, "failed", m.as_str().into()),
            }
            o
        }))
    }

    /// `eth_createAccessList`: `{ missing }`, `{ invalid }` or `{ accessList: [{ address,
    /// storageKeys }], gasUsed, error? }`.
    #[wasm_bindgen(js_name = createAccessList)]
    pub fn create_access_list(&self, request: &[u8], gas_cap: u64) -> Result<JsValue, JsValue> {
        let req = decode(request)?;
        let out = lightprov_evm::create_access_list(&self.state, &req, gas_cap)
            .map_err(|e| thrown(e.into()))?;
        Ok(answer(out, |r| match r {
            Err(m) => invalid(&m),
            Ok(AccessListAnswer {
                list,
                gas_used,
                error,
            }) => {
                let o = Object::new();
                let entries: Array = list
                    .iter()
                    .map(|(a, keys)| {
                        let e = Object::new();
                        set(&e, "address", bytes(a.as_slice()));
                        let k: Array = keys.iter().map(|k| bytes(k.as_slice())).collect();
                        set(&e, "storageKeys", k.into());
                        JsValue::from(e)
                    })
                    .collect();
                set(&o, "accessList", entries.into());
                set(&o, "gasUsed", gas_used.into());
                if let Some(m) = error {
                    set(&o, "error", m.as_str().into());
                }
                o
            }
        }))
    }
}

fn decode(request: &[u8]) -> Result<CallRequest, JsValue> {
    CallRequest::decode(request).map_err(|e| range_error(&format!("request: {e}")))
}

fn spec(chain_id: u64, s: &[u64]) -> Result<ChainSpec, JsValue> {
    let (head, pairs) = s.split_at(s.len().min(7));
    if head.len() != 7 || !pairs.len().is_multiple_of(2) {
        return Err(range_error(
            "schedule: six fork activations and the proof-of-authority flag, then (time, blob fraction) pairs",
        ));
    }
    let proof_of_authority = match head.get(6) {
        Some(0) => false,
        Some(1) => true,
        _ => {
            return Err(range_error(
                "schedule: the proof-of-authority flag (its seventh entry) is 0 or 1",
            ));
        }
    };
    let at = |i: usize| head.get(i).copied().filter(|&v| v != u64::MAX);
    Ok(ChainSpec {
        chain_id,
        london_block: at(0).unwrap_or(u64::MAX),
        shanghai_time: at(1),
        cancun_time: at(2),
        prague_time: at(3),
        osaka_time: at(4),
        later_time: at(5),
        blob_fractions: pairs
            .chunks_exact(2)
            .map(|p| {
                (
                    p.first().copied().unwrap_or_default(),
                    p.get(1).copied().unwrap_or_default(),
                )
            })
            .collect(),
        proof_of_authority,
    })
}
