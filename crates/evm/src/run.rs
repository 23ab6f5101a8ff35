//! One run of a call over the proven state, with geth's `eth_call` rules: the nonce is not
//! checked, a sender with code may call, the gas limit may exceed the block's and Osaka's
//! transaction cap, and a call that pays no gas price sees a base fee of 0 (geth's `NoBaseFee`).
//! Nothing is committed: every run starts from the same proven state.

use alloc::{
    format,
    string::{String, ToString},
    vec::Vec,
};

use lightprov_types::{Address, B256};
use revm::{
    Context, InspectEvm, MainBuilder, MainContext,
    context::{BlockEnv, CfgEnv, TxEnv},
    context_interface::{
        block::BlobExcessGasAndPrice,
        result::{
            EVMError, ExecutionResult, HaltReason, InvalidTransaction, OutOfGasError, Output,
        },
        transaction::{AccessList as RevmAccessList, AccessListItem},
    },
    handler::MainnetContext,
    inspector::Inspector,
    interpreter::{Interpreter, interpreter::EthInterpreter},
    primitives::{Bytes, TxKind, U256},
    state::EvmState,
};

use lightprov_types::header::Header;

use crate::{
    chain::{ChainSpec, Fork},
    db::{Need, ProvenDb, Unproven},
    error::RequestError,
    request::CallRequest,
    state::ProvenState,
};

/// What a run ended in, when it ran on proven state alone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Executed {
    /// How it ended.
    pub status: Status,
    /// Return data (success), revert data (revert), or nothing (halt).
    pub output: Bytes,
    /// Gas used, after refunds and the EIP-7623 floor (the receipt's `gasUsed`).
    pub gas_used: u64,
    /// Gas used before refunds (at least the floor): geth's `MaxUsedGas`.
    pub peak_gas: u64,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// It returned (or stopped).
    Success,
    /// It reverted (`REVERT`), returning revert data.
    Revert,
    /// It halted exceptionally, spending all its gas; the message is geth's for the same error.
    Halt {
        /// geth's message (`out of gas`, `invalid opcode: INVALID`, …).
        message: String,
        /// Whether it ran out of gas (geth's `ErrOutOfGas`), which `eth_estimateGas` answers
        /// by searching higher.
        out_of_gas: bool,
    },
}

/// A transaction the chain's rules refuse before running it; the message is geth's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// geth's message (`insufficient funds for gas * price + value: …`).
    pub message: String,
    /// Whether geth's gas estimation takes it as too little gas (intrinsic gas, the gas cap)
    /// rather than failing.
    pub needs_gas: bool,
}

/// What asking for a result gave: the result, or the first piece of unproven state the run
/// touched (fetch and prove it, then ask again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    /// Ran on proven state alone.
    Done(T),
    /// Stopped at state not yet proven.
    Missing(Need),
}

/// Unwraps a [`Outcome::Done`] inside a function returning `Result<Outcome<_>, _>`.
macro_rules! done {
    ($e:expr) => {
        match $e {
            $crate::run::Outcome::Done(t) => t,
            $crate::run::Outcome::Missing(n) => return Ok($crate::run::Outcome::Missing(n)),
        }
    };
}
pub(crate) use done;

/// A run's answer: executed, or refused by the chain's rules.
pub(crate) type Ran = Result<Executed, Invalid>;

/// A run's answer with the state it leaves.
pub(crate) type RanWithState = Result<(Executed, EvmState), Invalid>;

/// The EIP-2930 tracer of geth's `eth_createAccessList` (its `AccessListTracer`), when on:
/// before each instruction, the slot an `SLOAD`/`SSTORE` names (of the running account), the
/// address a `BALANCE`/`EXTCODE*`/`SELFDESTRUCT` names and the callee of each `CALL` kind,
/// unless excluded.
#[derive(Debug, Default)]
pub(crate) struct Tracer {
    pub(crate) on: bool,
    pub(crate) exclude: Vec<Address>,
    pub(crate) list: alloc::collections::BTreeMap<Address, alloc::collections::BTreeSet<B256>>,
}

impl Tracer {
    fn address(&mut self, a: Address) {
        if !self.exclude.contains(&a) {
            self.list.entry(a).or_default();
        }
    }
}

pub(crate) fn address_of(word: &U256) -> Address {
    Address::from_word(B256::from(word.to_be_bytes::<32>()))
}

impl<CTX> Inspector<CTX, EthInterpreter> for Tracer {
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, _: &mut CTX) {
        if !self.on {
            return;
        }
        use revm::bytecode::opcode as op;
        use revm::interpreter::interpreter_types::{InputsTr, Jumps};
        let stack = interp.stack.data();
        let top = |i: usize| stack.len().checked_sub(i + 1).and_then(|j| stack.get(j));
        match interp.bytecode.opcode() {
            op::SLOAD | op::SSTORE => {
                if let Some(slot) = top(0) {
                    let here = interp.input.target_address();
                    self.list
                        .entry(here)
                        .or_default()
                        .insert(B256::from(slot.to_be_bytes::<32>()));
                }
            }
            op::EXTCODECOPY
            | op::EXTCODEHASH
            | op::EXTCODESIZE
            | op::BALANCE
            | op::SELFDESTRUCT => {
                if let Some(a) = top(0) {
                    self.address(address_of(a));
                }
            }
            op::DELEGATECALL | op::CALL | op::STATICCALL | op::CALLCODE if stack.len() >= 5 => {
                if let Some(a) = top(1) {
                    self.address(address_of(a));
                }
            }
            _ => {}
        }
    }
}

/// The fees as geth's `TransactionArgs.ToMessage` reads them, after `CallDefaults`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fees {
    /// The price paid per gas (0: geth lowers the block's base fee to 0).
    pub(crate) price: U256,
    /// The fee cap.
    pub(crate) cap: U256,
    /// The tip cap.
    pub(crate) tip: U256,
    /// Whether the legacy `gasPrice` was given.
    pub(crate) legacy: bool,
}

pub(crate) fn fees(state: &ProvenState, req: &CallRequest) -> Result<Fees, Invalid> {
    if req.gas_price.is_some()
        && (req.max_fee_per_gas.is_some() || req.max_priority_fee_per_gas.is_some())
    {
        return Err(invalid(
            "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified",
        ));
    }
    if let Some(p) = req.gas_price {
        return Ok(Fees {
            price: p,
            cap: p,
            tip: p,
            legacy: true,
        });
    }
    let cap = req.max_fee_per_gas.unwrap_or_default();
    let tip = req.max_priority_fee_per_gas.unwrap_or_default();
    let base = base_fee(state);
    let price = if cap.is_zero() && tip.is_zero() {
        U256::ZERO
    } else {
        tip.saturating_add(base).min(cap)
    };
    Ok(Fees {
        price,
        cap,
        tip,
        legacy: false,
    })
}

fn base_fee(state: &ProvenState) -> U256 {
    state
        .header()
        .base_fee_per_gas
        .map_or(U256::ZERO, U256::from_be_bytes)
}

fn invalid(message: impl Into<String>) -> Invalid {
    Invalid {
        message: message.into(),
        needs_gas: false,
    }
}

/// Checks what geth's `CallDefaults` checks before any run.
pub(crate) fn check_request(state: &ProvenState, req: &CallRequest) -> Result<(), Invalid> {
    if req.to.is_none() && req.blob_hashes.is_some() {
        return Err(invalid("blob transaction of type create"));
    }
    let chain = state.chain().chain_id;
    match req.chain_id {
        Some(id) if id != chain => Err(invalid(format!(
            "chainId does not match node's (have={id}, want={chain})"
        ))),
        _ => fees(state, req).map(|_| ()),
    }
}

/// Runs `req` with gas limit `gas` and, when given, `access_list` in place of the request's,
/// `inspector` watching.
pub(crate) fn run<'a>(
    state: &'a ProvenState,
    req: &CallRequest,
    gas: u64,
    access_list: Option<&[(Address, Vec<B256>)]>,
    inspector: impl Inspector<MainnetContext<ProvenDb<'a>>>,
) -> Result<Outcome<Ran>, RequestError> {
    Ok(
        match run_with_state(state, req, gas, access_list, inspector)? {
            Outcome::Done(ran) => Outcome::Done(ran.map(|(e, _)| e)),
            Outcome::Missing(need) => Outcome::Missing(need),
        },
    )
}

/// [`run`], with the state the run leaves: revm's journal, finalized (every account it loaded,
/// with its status and the slots it read or wrote).
pub(crate) fn run_with_state<'a>(
    state: &'a ProvenState,
    req: &CallRequest,
    gas: u64,
    access_list: Option<&[(Address, Vec<B256>)]>,
    inspector: impl Inspector<MainnetContext<ProvenDb<'a>>>,
) -> Result<Outcome<RanWithState>, RequestError> {
    let fees = match fees(state, req) {
        Ok(f) => f,
        Err(e) => return Ok(Outcome::Done(Err(e))),
    };
    let fork = state.fork();
    let chain = state.chain();
    let u128_of = |w: U256, field: &'static str| {
        u128::try_from(w).map_err(|_| RequestError::new(field, "above 2^128 - 1 wei"))
    };
    let mut block = block_env(state.header(), fork, chain)?;
    // geth's `NoBaseFee`: a call that pays no gas price sees a base fee of 0.
    if fees.price.is_zero() {
        block.basefee = 0;
    }
    // geth lowers the blob base fee to 0 for a call with blobs and a blob fee cap of 0.
    if let Some(blob) = &mut block.blob_excess_gas_and_price
        && req.blob_hashes.is_some()
        && req.max_fee_per_blob_gas.unwrap_or_default().is_zero()
    {
        blob.blob_gasprice = 0;
    }

    let mut cfg = CfgEnv::new_with_spec(fork.spec());
    cfg.chain_id = chain.chain_id;
    cfg.tx_chain_id_check = false;
    cfg.disable_nonce_check = true;
    cfg.disable_eip3607 = true;
    cfg.disable_block_gas_limit = true;
    cfg.tx_gas_limit_cap = Some(u64::MAX);

    let list = access_list
        .map(<[_]>::to_vec)
        .or_else(|| req.access_list.clone());
    let tx_type = if req.blob_hashes.is_some() {
        3
    } else if !fees.legacy {
        2
    } else if list.is_some() {
        1
    } else {
        0
    };
    let tx = TxEnv {
        tx_type,
        caller: req.from,
        gas_limit: gas,
        gas_price: u128_of(fees.cap, "maxFeePerGas")?,
        kind: req.to.map_or(TxKind::Create, TxKind::Call),
        value: req.value,
        data: req.input.clone(),
        nonce: req.nonce.unwrap_or_default(),
        chain_id: Some(chain.chain_id),
        access_list: RevmAccessList(
            list.unwrap_or_default()
                .into_iter()
                .map(|(address, storage_keys)| AccessListItem {
                    address,
                    storage_keys,
                })
                .collect(),
        ),
        gas_priority_fee: (!fees.legacy)
            .then(|| u128_of(fees.tip, "maxPriorityFeePerGas"))
            .transpose()?,
        blob_hashes: req.blob_hashes.clone().unwrap_or_default(),
        max_fee_per_blob_gas: u128_of(
            req.max_fee_per_blob_gas.unwrap_or_default(),
            "maxFeePerBlobGas",
        )?,
        authorization_list: Vec::new(),
    };

    let mut evm = Context::mainnet()
        .with_db(ProvenDb(state))
        .with_block(block)
        .with_cfg(cfg)
        .build_mainnet_with_inspector(inspector);
    let result = evm.inspect_tx(tx);
    Ok(match result {
        Ok(r) => Outcome::Done(Ok((executed(r.result), r.state))),
        Err(EVMError::Database(Unproven(need))) => Outcome::Missing(need),
        Err(EVMError::Transaction(e)) => {
            Outcome::Done(Err(invalid_tx(&e, req, &fees, base_fee(state))))
        }
        Err(e) => return Err(RequestError::new("request", e.to_string())),
    })
}

/// The environment of the block `header` heads, under `fork` of `chain`: number, coinbase,
/// time, gas limit, base fee, difficulty (or `PREVRANDAO` from `mixHash` after the merge) and,
/// from Cancun, the blob base fee from `excessBlobGas`.
pub fn block_env(header: &Header, fork: Fork, chain: &ChainSpec) -> Result<BlockEnv, RequestError> {
    let basefee = u64::try_from(
        header
            .base_fee_per_gas
            .map_or(U256::ZERO, U256::from_be_bytes),
    )
    .map_err(|_| {
        RequestError::new(
            "header",
            "a base fee above 2^64 - 1 wei, which revm cannot hold",
        )
    })?;
    Ok(BlockEnv {
        number: U256::from(header.number),
        beneficiary: header.beneficiary,
        timestamp: U256::from(header.timestamp),
        gas_limit: header.gas_limit,
        basefee,
        difficulty: U256::from_be_bytes(header.difficulty),
        prevrandao: (fork >= Fork::Paris).then_some(header.mix_hash),
        blob_excess_gas_and_price: (fork >= Fork::Cancun).then(|| {
            BlobExcessGasAndPrice::new(
                header.excess_blob_gas.unwrap_or_default(),
                chain.blob_fraction(fork, header.timestamp),
            )
        }),
        slot_num: 0,
    })
}

fn executed(r: ExecutionResult) -> Executed {
    let gas = *r.gas();
    let gas_used = gas.tx_gas_used();
    let peak_gas = gas.total_gas_spent().max(gas.floor_gas());
    let (status, output) = match r {
        ExecutionResult::Success { output, .. } => (
            Status::Success,
            match output {
                Output::Call(b) => b,
                // A creation returns the deployed code, as geth's eth_call does.
                Output::Create(b, _) => b,
            },
        ),
        ExecutionResult::Revert { output, .. } => (Status::Revert, output),
        ExecutionResult::Halt { reason, .. } => (
            Status::Halt {
                out_of_gas: matches!(
                    reason,
                    HaltReason::OutOfGas(
                        OutOfGasError::Basic
                            | OutOfGasError::Memory
                            | OutOfGasError::MemoryLimit
                            | OutOfGasError::Precompile
                            | OutOfGasError::ReentrancySentry
                    )
                ),
                message: halt_message(&reason),
            },
            Bytes::new(),
        ),
    };
    Executed {
        status,
        output,
        gas_used,
        peak_gas,
    }
}

/// geth's message for the same exceptional halt (core/vm/errors.go).
pub fn halt_message(reason: &HaltReason) -> String {
    match reason {
        HaltReason::OutOfGas(OutOfGasError::InvalidOperand) => "gas uint64 overflow".into(),
        HaltReason::OutOfGas(_) => "out of gas".into(),
        HaltReason::OpcodeNotFound | HaltReason::NotActivated => "invalid opcode".into(),
        HaltReason::InvalidFEOpcode => "invalid opcode: INVALID".into(),
        HaltReason::InvalidJump => "invalid jump destination".into(),
        HaltReason::StackUnderflow => "stack underflow".into(),
        HaltReason::StackOverflow => "stack limit reached 1024".into(),
        HaltReason::OutOfOffset => "return data out of bounds".into(),
        HaltReason::CreateCollision => "contract address collision".into(),
        HaltReason::PrecompileError => "precompile failed".into(),
        HaltReason::PrecompileErrorWithContext(m) => m.clone(),
        HaltReason::NonceOverflow => "nonce uint64 overflow".into(),
        HaltReason::CreateContractSizeLimit => "max code size exceeded".into(),
        HaltReason::CreateContractStartingWithEF => "invalid code: must not begin with 0xef".into(),
        HaltReason::CreateInitCodeSizeLimit => "max initcode size exceeded".into(),
        HaltReason::StateChangeDuringStaticCall | HaltReason::CallNotAllowedInsideStatic => {
            "write protection".into()
        }
        HaltReason::OutOfFunds => "insufficient balance for transfer".into(),
        HaltReason::CallTooDeep => "max call depth exceeded".into(),
        other => format!("{other}"),
    }
}

/// geth's message for a transaction its rules refuse (core/error.go), as `eth_call` words it.
fn invalid_tx(e: &InvalidTransaction, req: &CallRequest, fees: &Fees, base_fee: U256) -> Invalid {
    let from = req.from;
    let (message, needs_gas) = match e {
        InvalidTransaction::LackOfFundForMaxFee { fee, balance } => (
            format!(
                "insufficient funds for gas * price + value: address {from} have {balance} want {fee}"
            ),
            false,
        ),
        InvalidTransaction::GasPriceLessThanBasefee => (
            format!(
                "max fee per gas less than block base fee: address {from}, maxFeePerGas: {}, baseFee: {base_fee}",
                fees.cap
            ),
            false,
        ),
        InvalidTransaction::PriorityFeeGreaterThanMaxFee => (
            format!(
                "max priority fee per gas higher than max fee per gas: address {from}, maxPriorityFeePerGas: {}, maxFeePerGas: {}",
                fees.tip, fees.cap
            ),
            false,
        ),
        InvalidTransaction::CallGasCostMoreThanGasLimit {
            initial_gas,
            gas_limit,
        } => (
            format!("intrinsic gas too low: have {gas_limit}, want {initial_gas}"),
            true,
        ),
        InvalidTransaction::GasFloorMoreThanGasLimit {
            gas_floor,
            gas_limit,
        } => (
            format!("insufficient gas for floor data gas cost: have {gas_limit}, want {gas_floor}"),
            false,
        ),
        InvalidTransaction::TxGasLimitGreaterThanCap { gas_limit, cap } => (
            format!("transaction gas limit too high (cap: {cap}, tx: {gas_limit})"),
            true,
        ),
        InvalidTransaction::CreateInitCodeSizeLimit => (
            format!(
                "max initcode size exceeded: code size {} limit 49152",
                req.input.len()
            ),
            false,
        ),
        InvalidTransaction::BlobCreateTransaction => {
            ("blob transaction of type create".into(), false)
        }
        InvalidTransaction::EmptyBlobs => ("blob transaction missing blob hashes".into(), false),
        InvalidTransaction::TooManyBlobs { max, have } => (
            format!("blob transaction has too many blobs: have {have}, max {max}"),
            false,
        ),
        InvalidTransaction::BlobGasPriceGreaterThanMax {
            block_blob_gas_price,
            tx_max_fee_per_blob_gas,
        } => (
            format!(
                "max fee per blob gas less than block blob gas fee: address {from} blobGasFeeCap: {tx_max_fee_per_blob_gas}, blobBaseFee: {block_blob_gas_price}"
            ),
            false,
        ),
        other => (format!("{other}"), false),
    };
    Invalid { message, needs_gas }
}
