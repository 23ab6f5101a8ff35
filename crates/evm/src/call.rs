//! The three methods, each as geth answers it over the same state: `eth_call` (one run),
//! `eth_estimateGas` (geth's binary search, `eth/gasestimator`), `eth_createAccessList`
//! (geth's fixed point of its access-list tracer). Each returns [`Outcome::Missing`] at the
//! first unproven piece of state any of its runs touches; asked again once that is proven, it
//! starts over, so its answer comes from runs on proven state alone.

use alloc::{format, string::String, vec::Vec};

use lightprov_types::{Address, B256, KECCAK_EMPTY};
use revm::primitives::{Bytes, U256};

use crate::{
    chain::Fork,
    db::Need,
    error::RequestError,
    request::{AccessList, CallRequest},
    run::{Executed, Invalid, Outcome, Status, Tracer, check_request, done, fees, run},
    state::ProvenState,
};

/// geth's default `RPCGasCap`: the gas a call gets when it names none, and the most it may name.
pub const DEFAULT_GAS_CAP: u64 = 50_000_000;

/// EIP-7825's transaction gas cap, which bounds `eth_estimateGas`'s search from Osaka on.
pub const MAX_TX_GAS: u64 = 1 << 24;

/// geth's `estimateGasErrorRatio`: the search stops once within 1.5 % above the answer.
pub const ESTIMATE_ERROR_RATIO: f64 = 0.015;

/// The most rounds `eth_createAccessList`'s fixed point may take (geth has no bound; each round
/// only adds to the list, so a real call ends in a few).
pub const MAX_ACCESS_LIST_ROUNDS: usize = 64;

const TX_GAS: u64 = 21_000;
const CALL_STIPEND: u64 = 2_300;

/// `eth_call`: the run's result, or the transaction's refusal (geth's message, as its
/// `eth_call` words it: `err: … (supplied gas N)`).
pub fn call(
    state: &ProvenState,
    req: &CallRequest,
    gas_cap: u64,
) -> Result<Outcome<Result<Executed, String>>, RequestError> {
    if let Err(e) = check_request(state, req) {
        return Ok(Outcome::Done(Err(e.message)));
    }
    let gas = call_gas(req, gas_cap);
    let ran = done!(run(state, req, gas, None, &mut Tracer::default())?);
    Ok(Outcome::Done(ran.map_err(|e| {
        format!("err: {} (supplied gas {gas})", e.message)
    })))
}

/// The gas of `eth_call` and `eth_createAccessList`: the request's, at most the cap (geth's
/// `CallDefaults`), or the cap.
pub(crate) fn call_gas(req: &CallRequest, gas_cap: u64) -> u64 {
    req.gas.map_or(gas_cap, |g| g.min(gas_cap))
}

/// Why `eth_estimateGas` has no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EstimateError {
    /// The call reverts at the highest gas allowed: geth answers the revert (error 3).
    Reverted(Bytes),
    /// Any other failure, with geth's message (`gas required exceeds allowance (N)`, an
    /// exceptional halt, a refused transaction).
    Failed(String),
}

/// `eth_estimateGas`: the lowest gas limit (within geth's 1.5 %) at which the call succeeds,
/// searched as geth searches.
pub fn estimate_gas(
    state: &ProvenState,
    req: &CallRequest,
    gas_cap: u64,
) -> Result<Outcome<Result<u64, EstimateError>>, RequestError> {
    let fail = |m: String| Ok(Outcome::Done(Err(EstimateError::Failed(m))));
    if let Err(e) = check_request(state, req) {
        return fail(e.message);
    }
    let header = state.header();
    // geth: the gas argument (capped by the gas cap) when at least 21000, else the block's.
    let given = req.gas.map_or(0, |g| g.min(gas_cap));
    let mut hi = if given >= TX_GAS {
        given
    } else {
        header.gas_limit
    };
    if state.fork() >= Fork::Osaka && hi > MAX_TX_GAS {
        hi = MAX_TX_GAS;
    }
    let fee = match fees(state, req) {
        Ok(f) => f.cap,
        Err(e) => return fail(e.message),
    };
    if !fee.is_zero() {
        let from = done!(account(state, req.from));
        let balance = from.map_or(U256::ZERO, |(b, _)| b);
        // (geth's comparison: a balance of 0 cannot fund even a call of no value.)
        if req.value >= balance {
            return fail("insufficient funds for transfer".into());
        }
        let mut available = balance - req.value;
        if let Some(hashes) = &req.blob_hashes
            && state.fork() >= Fork::Cancun
            && !hashes.is_empty()
        {
            let usage = U256::from(hashes.len() as u64 * 131_072)
                .saturating_mul(req.max_fee_per_blob_gas.unwrap_or_default());
            if usage >= available {
                return fail("insufficient funds for gas * price + value".into());
            }
            available -= usage;
        }
        let allowance = available / fee;
        if let Ok(a) = u64::try_from(allowance)
            && hi > a
        {
            hi = a;
        }
    }
    if gas_cap != 0 && hi > gas_cap {
        hi = gas_cap;
    }
    let mut tracer = Tracer::default();
    let mut execute = |gas: u64| run(state, req, gas, None, &mut tracer);
    // A plain transfer to an account without code: one run at 21000 gas.
    if req.input.is_empty()
        && let Some(to) = req.to
    {
        let code_hash = done!(account(state, to)).map_or(KECCAK_EMPTY, |(_, h)| h);
        if code_hash == KECCAK_EMPTY
            && let Ok(e) = done!(execute(TX_GAS)?)
            && e.status == Status::Success
        {
            return Ok(Outcome::Done(Ok(e.gas_used)));
        }
    }
    // The highest allowance first: if that fails, nothing will do.
    let first = match done!(execute(hi)?) {
        Ok(e) => e,
        Err(Invalid {
            needs_gas: true, ..
        }) => return fail(format!("gas required exceeds allowance ({hi})")),
        Err(e) => return fail(format!("failed with {hi} gas: {}", e.message)),
    };
    match &first.status {
        Status::Success => {}
        Status::Revert => {
            return Ok(Outcome::Done(Err(EstimateError::Reverted(first.output))));
        }
        Status::Halt {
            out_of_gas: true, ..
        } => return fail(format!("gas required exceeds allowance ({hi})")),
        Status::Halt { message, .. } => return fail(message.clone()),
    }
    let mut lo = first.gas_used.saturating_sub(1);
    // Most calls succeed with the gas they used plus the stipend, and 64/63 of it for the
    // calls they make: try that first.
    let optimistic = (first.peak_gas + CALL_STIPEND) * 64 / 63;
    if optimistic < hi {
        if succeeds(done!(execute(optimistic)?), optimistic)? {
            hi = optimistic;
        } else {
            lo = optimistic;
        }
    }
    while lo + 1 < hi {
        if ((hi - lo) as f64) / (hi as f64) < ESTIMATE_ERROR_RATIO {
            break;
        }
        let mut mid = lo + (hi - lo) / 2;
        if mid > lo * 2 {
            // Most calls need little more than they use: bisect towards the low side.
            mid = lo * 2;
        }
        if succeeds(done!(execute(mid)?), mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Outcome::Done(Ok(hi)))
}

/// Whether a run of the search succeeded. A refusal other than "too little gas" ends the search
/// (geth logs it and fails); none happens once the highest allowance ran.
fn succeeds(r: Result<Executed, Invalid>, gas: u64) -> Result<bool, RequestError> {
    match r {
        Ok(e) => Ok(e.status == Status::Success),
        Err(Invalid {
            needs_gas: true, ..
        }) => Ok(false),
        Err(e) => Err(RequestError::new(
            "request",
            format!("failed with {gas} gas: {}", e.message),
        )),
    }
}

/// A proven account's balance and code hash (`None`: it does not exist).
fn account(state: &ProvenState, address: Address) -> Outcome<Option<(U256, B256)>> {
    match state.account(&address) {
        None => Outcome::Missing(Need::Account(address)),
        Some(a) => Outcome::Done(a.exists.then_some((a.balance, a.code_hash))),
    }
}

/// `eth_createAccessList`'s answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessListAnswer {
    /// The list: addresses ascending, each with its storage keys ascending.
    pub list: AccessList,
    /// Gas used by the run with the list (geth's `gasUsed`).
    pub gas_used: u64,
    /// The run's failure, as geth words it (`execution reverted`, `out of gas`), if it failed.
    pub error: Option<String>,
}

/// `eth_createAccessList`: runs the call with its access list until the list of what it touches
/// stops growing, leaving out the sender, the callee (or the created address) and the fork's
/// precompiles, as geth does.
pub fn create_access_list(
    state: &ProvenState,
    req: &CallRequest,
    gas_cap: u64,
) -> Result<Outcome<Result<AccessListAnswer, String>>, RequestError> {
    if let Err(e) = check_request(state, req) {
        return Ok(Outcome::Done(Err(e.message)));
    }
    let gas = call_gas(req, gas_cap);
    let to = match req.to {
        Some(to) => to,
        None => {
            // A creation's address takes the sender's nonce from the state when none is given.
            let nonce = match req.nonce {
                Some(n) => n,
                None => done!(nonce_of(state, req.from)),
            };
            req.from.create(nonce)
        }
    };
    let mut exclude = Vec::with_capacity(24);
    exclude.push(req.from);
    exclude.push(to);
    exclude.extend(precompiles(state.fork()));
    let seed = |list: &[(Address, Vec<B256>)]| {
        let mut t = Tracer {
            on: true,
            exclude: exclude.clone(),
            list: Default::default(),
        };
        for (address, keys) in list {
            if !exclude.contains(address) {
                t.list
                    .entry(*address)
                    .or_default()
                    .extend(keys.iter().copied());
            }
        }
        t
    };
    let mut prev = seed(req.access_list.as_deref().unwrap_or_default());
    for _ in 0..MAX_ACCESS_LIST_ROUNDS {
        let list: AccessList = prev
            .list
            .iter()
            .map(|(a, keys)| (*a, keys.iter().copied().collect()))
            .collect();
        let mut tracer = seed(&list);
        let ran = done!(run(state, req, gas, Some(&list), &mut tracer)?);
        let e = match ran {
            Ok(e) => e,
            Err(e) => {
                let nonce = match req.nonce {
                    Some(n) => n,
                    None => done!(nonce_of(state, req.from)),
                };
                let hash = unsigned_hash(state, req, nonce, gas, &list);
                return Ok(Outcome::Done(Err(format!(
                    "failed to apply transaction: {hash} err: {}",
                    e.message
                ))));
            }
        };
        if tracer.list == prev.list {
            let error = match e.status {
                Status::Success => None,
                Status::Revert => Some("execution reverted".into()),
                Status::Halt { message, .. } => Some(message),
            };
            return Ok(Outcome::Done(Ok(AccessListAnswer {
                list,
                gas_used: e.gas_used,
                error,
            })));
        }
        prev = tracer;
    }
    Err(RequestError::new(
        "request",
        format!("the access list did not settle in {MAX_ACCESS_LIST_ROUNDS} rounds"),
    ))
}

/// The proven nonce of `address` (0 for no account).
pub(crate) fn nonce_of(state: &ProvenState, address: Address) -> Outcome<u64> {
    match state.account(&address) {
        None => Outcome::Missing(Need::Account(address)),
        Some(a) => Outcome::Done(a.nonce),
    }
}

/// The hash geth names a refused `eth_createAccessList` by: that of the unsigned transaction its
/// arguments make once defaulted (`TransactionArgs.ToTransaction`) — with the access list an
/// EIP-2930 transaction when a gas price is given, else an EIP-4844 one with blobs, else an
/// EIP-1559 one (fee caps of 0 when not given) — whose signature values are all zero.
fn unsigned_hash(
    state: &ProvenState,
    req: &CallRequest,
    nonce: u64,
    gas: u64,
    list: &[(Address, Vec<B256>)],
) -> B256 {
    use alloy_rlp::{Encodable, Header};
    fn bytes(out: &mut Vec<u8>, b: &[u8]) {
        b.encode(out);
    }
    fn uint(out: &mut Vec<u8>, v: U256) {
        let w = v.to_be_bytes::<32>();
        let start = w.iter().position(|&b| b != 0).unwrap_or(32);
        bytes(out, w.get(start..).unwrap_or_default());
    }
    fn list_of(out: &mut Vec<u8>, payload: &[u8]) {
        Header {
            list: true,
            payload_length: payload.len(),
        }
        .encode(out);
        out.extend_from_slice(payload);
    }
    let chain_id = U256::from(req.chain_id.unwrap_or(state.chain().chain_id));
    let mut access = Vec::new();
    for (address, keys) in list {
        let mut entry = Vec::new();
        bytes(&mut entry, address.as_slice());
        let mut k = Vec::new();
        for key in keys {
            bytes(&mut k, key.as_slice());
        }
        list_of(&mut entry, &k);
        list_of(&mut access, &entry);
    }
    let zero = U256::ZERO;
    let mut p = Vec::new();
    uint(&mut p, chain_id);
    uint(&mut p, U256::from(nonce));
    let kind = if let Some(price) = req.gas_price {
        uint(&mut p, price);
        1u8
    } else {
        uint(&mut p, req.max_priority_fee_per_gas.unwrap_or(zero));
        uint(&mut p, req.max_fee_per_gas.unwrap_or(zero));
        if req.blob_hashes.is_some() { 3 } else { 2 }
    };
    uint(&mut p, U256::from(gas));
    bytes(&mut p, req.to.as_ref().map_or(&[][..], |a| a.as_slice()));
    uint(&mut p, req.value);
    bytes(&mut p, &req.input);
    list_of(&mut p, &access);
    if let (3, Some(hashes)) = (kind, &req.blob_hashes) {
        uint(&mut p, req.max_fee_per_blob_gas.unwrap_or(zero));
        let mut h = Vec::new();
        for x in hashes {
            bytes(&mut h, x.as_slice());
        }
        list_of(&mut p, &h);
    }
    for _ in 0..3 {
        uint(&mut p, zero);
    }
    let mut tx = alloc::vec![kind];
    list_of(&mut tx, &p);
    lightprov_verifier::keccak256(&tx)
}

/// The precompiles of a fork (geth's `ActivePrecompiles`).
pub fn precompiles(fork: Fork) -> impl Iterator<Item = Address> {
    let last: u64 = match fork {
        Fork::London | Fork::Paris | Fork::Shanghai => 0x09,
        Fork::Cancun => 0x0a,
        Fork::Prague | Fork::Osaka => 0x11,
    };
    let p256 = (fork >= Fork::Osaka).then_some(0x100u64);
    (1..=last)
        .chain(p256)
        .map(|n| Address::from_word(B256::from(U256::from(n).to_be_bytes::<32>())))
}
