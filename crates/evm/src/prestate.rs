//! geth's `prestateTracer` (`eth/tracers/native/prestate.go`) for `debug_traceCall`: the state
//! a call reads, as it was before the call, and with `diffMode` what the call changed.
//!
//! geth looks up an account or a slot the first time its hooks see it: the sender, the callee
//! (or the created address) and the coinbase when the transaction starts, then before each
//! instruction that names one — `SLOAD`/`SSTORE` (a slot of the running account), `BALANCE`,
//! `EXTCODE*`, `SELFDESTRUCT` (an address), the callee of each `CALL` kind (and from Prague the
//! account it delegates to), the address a `CREATE`/`CREATE2` makes. An instruction that fails
//! its stack or gas check is not seen (geth traces it only after the checks). Each first look-up
//! precedes every write to what it looks up, so its value is the block's: the inspector records
//! only *what* geth looks up, and the values come from the proven state, which stops the trace
//! at anything not proven yet, as a call stops ([`Outcome::Missing`]).

use alloc::{
    collections::{BTreeMap, BTreeSet},
    format,
    string::String,
    vec::Vec,
};

use lightprov_types::{Address, B256, KECCAK_EMPTY};
use revm::{
    bytecode::opcode as op,
    context_interface::{ContextTr, JournalTr},
    inspector::Inspector,
    interpreter::{
        InstructionResult, Interpreter, InterpreterAction,
        interpreter::EthInterpreter,
        interpreter_types::{InputsTr, Jumps, LoopControl, MemoryTr},
    },
    primitives::{Bytes, U256, keccak256},
    state::EvmState,
};

use crate::{
    call::{call_gas, nonce_of},
    chain::Fork,
    db::Need,
    error::RequestError,
    request::CallRequest,
    run::{Outcome, address_of, check_request, done, fees, run_with_state},
    state::ProvenState,
};

/// The tracer's options (geth's `tracerConfig`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrestateConfig {
    /// `diffMode`: the accounts the call changed, before (`pre`) and after (`post`).
    pub diff_mode: bool,
    /// `disableCode`: no `code` fields.
    pub disable_code: bool,
    /// `disableStorage`: no storage looked up, no `storage` fields.
    pub disable_storage: bool,
    /// `includeEmpty`: keep the accounts that were empty before the call (not with `diffMode`).
    pub include_empty: bool,
}

/// An account as the tracer prints it; `None` (and a nonce of 0, an empty storage) are left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TracedAccount {
    /// Balance in wei.
    pub balance: Option<U256>,
    /// Code (in `post`, `0x` when the call removed the code).
    pub code: Option<Bytes>,
    /// keccak256 of the code: not printed for an account without code (in `post`, the zero hash
    /// for an account that does not exist after the call, as geth prints it).
    pub code_hash: Option<B256>,
    /// Nonce (printed as a JSON number, left out when 0).
    pub nonce: u64,
    /// Slots and their values.
    pub storage: BTreeMap<B256, B256>,
}

/// The tracer's answer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrestateTrace {
    /// Every account looked up, with its state before the call (with `diffMode`, those the call
    /// changed, with the slots it changed).
    pub pre: BTreeMap<Address, TracedAccount>,
    /// With `diffMode`: what changed, after the call.
    pub post: Option<BTreeMap<Address, TracedAccount>>,
}

/// What the instruction about to run looks up, kept once it passed its checks.
#[derive(Clone, Copy, Debug)]
enum Touch {
    Account(Address),
    /// A callee: itself, and from Prague the account its code delegates to.
    Callee(Address),
    Slot(Address, U256),
    Created(Address),
    Deleted(Address),
}

/// How often (in instructions) a run asks whether to stop.
const POLL_EVERY: u64 = 1024;

/// The inspector: what geth's `OnOpcode` looks up.
struct Recorder<'i> {
    accounts: BTreeSet<Address>,
    callees: BTreeSet<Address>,
    slots: BTreeMap<Address, BTreeSet<U256>>,
    created: BTreeSet<Address>,
    deleted: BTreeSet<Address>,
    pending: Vec<Touch>,
    /// EIP-6780: a `SELFDESTRUCT` deletes only an account created by the same transaction.
    cancun: bool,
    stop: &'i dyn Fn() -> bool,
    steps: u64,
    stopped: bool,
}

impl Recorder<'_> {
    fn keep(&mut self, t: Touch) {
        match t {
            Touch::Account(a) => {
                self.accounts.insert(a);
            }
            Touch::Callee(a) => {
                self.accounts.insert(a);
                self.callees.insert(a);
            }
            Touch::Slot(a, s) => {
                self.accounts.insert(a);
                self.slots.entry(a).or_default().insert(s);
            }
            Touch::Created(a) => {
                self.accounts.insert(a);
                self.created.insert(a);
            }
            Touch::Deleted(a) => {
                self.deleted.insert(a);
            }
        }
    }
}

/// geth's `GetMemoryCopyPadded`: memory `[offset, offset + size)`, zeros past its end, at most
/// 1 MiB of them.
fn memory_padded(memory: &impl MemoryTr, offset: &U256, size: &U256) -> Option<Vec<u8>> {
    let offset = usize::try_from(*offset).ok()?;
    let size = usize::try_from(*size).ok()?;
    let end = offset.checked_add(size)?;
    let len = memory.size();
    if end.saturating_sub(len) > 1024 * 1024 {
        return None;
    }
    let mut out = alloc::vec![0u8; size];
    if offset < len {
        let have = memory.slice(offset..end.min(len));
        out.get_mut(..have.len())?.copy_from_slice(&have);
    }
    Some(out)
}

impl<CTX> Inspector<CTX, EthInterpreter> for Recorder<'_>
where
    CTX: ContextTr<Journal: JournalTr<State = EvmState>>,
{
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, ctx: &mut CTX) {
        if !self.stopped && self.steps.is_multiple_of(POLL_EVERY) && (self.stop)() {
            self.stopped = true;
        }
        if self.stopped {
            // Every frame ends at its next instruction, as geth's `evm.Cancel()` ends them.
            interp.halt(InstructionResult::OutOfGas);
            return;
        }
        self.steps += 1;
        self.pending.clear();
        let stack = interp.stack.data();
        let top = |i: usize| stack.len().checked_sub(i + 1).and_then(|j| stack.get(j));
        let here = interp.input.target_address();
        match interp.bytecode.opcode() {
            op::SLOAD | op::SSTORE => {
                if let Some(slot) = top(0) {
                    self.pending.push(Touch::Slot(here, *slot));
                }
            }
            o @ (op::EXTCODECOPY
            | op::EXTCODEHASH
            | op::EXTCODESIZE
            | op::BALANCE
            | op::SELFDESTRUCT) => {
                if let Some(a) = top(0) {
                    self.pending.push(Touch::Account(address_of(a)));
                    if o == op::SELFDESTRUCT && (!self.cancun || self.created.contains(&here)) {
                        self.pending.push(Touch::Deleted(here));
                    }
                }
            }
            op::DELEGATECALL | op::CALL | op::STATICCALL | op::CALLCODE if stack.len() >= 5 => {
                if let Some(a) = top(1) {
                    self.pending.push(Touch::Callee(address_of(a)));
                }
            }
            op::CREATE => {
                // The running account's nonce now (each creation raises it).
                let nonce = ctx
                    .journal()
                    .evm_state()
                    .get(&here)
                    .map_or(0, |a| a.info.nonce);
                self.pending.push(Touch::Created(here.create(nonce)));
            }
            op::CREATE2 => {
                if let (Some(offset), Some(size), Some(salt)) = (top(1), top(2), top(3))
                    && let Some(init) = memory_padded(&interp.memory, offset, size)
                {
                    let salt = B256::from(salt.to_be_bytes::<32>());
                    let created = here.create2(salt, keccak256(&init));
                    self.pending.push(Touch::Created(created));
                }
            }
            _ => {}
        }
    }

    fn step_end(&mut self, interp: &mut Interpreter<EthInterpreter>, _: &mut CTX) {
        if self.pending.is_empty() {
            return;
        }
        // geth checks the stack and charges the gas before its hook: an instruction that fails
        // either is not seen.
        let unseen = matches!(
            interp.bytecode.action(),
            Some(InterpreterAction::Return(r)) if matches!(
                r.result,
                InstructionResult::OutOfGas
                    | InstructionResult::MemoryOOG
                    | InstructionResult::MemoryLimitOOG
                    | InstructionResult::InvalidOperandOOG
                    | InstructionResult::ReentrancySentryOOG
                    | InstructionResult::StackUnderflow
                    | InstructionResult::StackOverflow
            )
        );
        let pending = core::mem::take(&mut self.pending);
        if !unseen {
            for t in &pending {
                self.keep(*t);
            }
        }
        self.pending = pending;
        self.pending.clear();
    }
}

/// geth's `types.ParseDelegation`: the account an EIP-7702 delegation designates.
fn delegation(code: &[u8]) -> Option<Address> {
    match code {
        [0xef, 0x01, 0x00, rest @ ..] if rest.len() == 20 => Some(Address::from_slice(rest)),
        _ => None,
    }
}

/// An account before the call; one that does not exist has the zero code hash (geth's
/// `GetCodeHash`).
#[derive(Clone, Debug)]
struct Before {
    exists: bool,
    balance: U256,
    nonce: u64,
    code_hash: B256,
    code: Bytes,
}

impl Before {
    /// geth's `empty`: no nonce, no balance, no code.
    fn empty(&self) -> bool {
        self.nonce == 0 && self.balance.is_zero() && self.code.is_empty()
    }
}

/// The proven account at `a` (with its code unless `without_code`).
fn before(state: &ProvenState, a: Address, without_code: bool) -> Outcome<Before> {
    let Some(p) = state.account(&a) else {
        return Outcome::Missing(Need::Account(a));
    };
    if !p.exists {
        return Outcome::Done(Before {
            exists: false,
            balance: U256::ZERO,
            nonce: 0,
            code_hash: B256::ZERO,
            code: Bytes::new(),
        });
    }
    let code = if p.code_hash == KECCAK_EMPTY {
        Bytes::new()
    } else if without_code {
        // Only its emptiness counts: any code will do.
        Bytes::from_static(&[0])
    } else {
        match state.code(&p.code_hash) {
            Some(c) => c.original_bytes(),
            None => return Outcome::Missing(Need::Code(a)),
        }
    };
    Outcome::Done(Before {
        exists: true,
        balance: p.balance,
        nonce: p.nonce,
        code_hash: p.code_hash,
        code,
    })
}

/// The proven value of slot `s` of `a`.
fn slot_before(state: &ProvenState, a: Address, s: U256) -> Outcome<U256> {
    match state.account(&a) {
        None => Outcome::Missing(Need::Account(a)),
        Some(p) if !p.exists => Outcome::Done(U256::ZERO),
        Some(p) => p
            .slot(&s)
            .map_or(Outcome::Missing(Need::Slot(a, s)), Outcome::Done),
    }
}

fn word(v: U256) -> B256 {
    B256::from(v.to_be_bytes::<32>())
}

/// `debug_traceCall` with `prestateTracer`: the call run as geth's `eth_call` runs it (the same
/// gas, fees and checks), its answer the accounts and slots geth's tracer prints. `stop` is asked
/// now and then during the run; once it says so, the run ends and the answer is geth's
/// `execution timeout`. Errors are geth's messages: a request its defaults refuse as they word
/// it, a transaction its rules refuse as `tracing failed: …`.
pub fn prestate_trace(
    state: &ProvenState,
    req: &CallRequest,
    gas_cap: u64,
    config: &PrestateConfig,
    stop: &dyn Fn() -> bool,
) -> Result<Outcome<Result<PrestateTrace, String>>, RequestError> {
    if config.diff_mode && config.include_empty {
        return Ok(Outcome::Done(Err(
            "cannot use diffMode with includeEmpty".into()
        )));
    }
    if let Err(e) = check_request(state, req) {
        return Ok(Outcome::Done(Err(e.message)));
    }
    let fork = state.fork();
    let mut rec = Recorder {
        accounts: BTreeSet::new(),
        callees: BTreeSet::new(),
        slots: BTreeMap::new(),
        created: BTreeSet::new(),
        deleted: BTreeSet::new(),
        pending: Vec::new(),
        cancun: fork >= Fork::Cancun,
        stop,
        steps: 0,
        stopped: false,
    };
    // The transaction's start (geth's `OnTxStart`), before any instruction runs.
    match req.to {
        Some(to) => {
            rec.keep(Touch::Callee(to));
        }
        None => {
            let nonce = done!(nonce_of(state, req.from));
            rec.keep(Touch::Created(req.from.create(nonce)));
        }
    }
    rec.keep(Touch::Account(req.from));
    rec.keep(Touch::Account(state.header().beneficiary));
    let gas = call_gas(req, gas_cap);
    let ran = done!(run_with_state(state, req, gas, None, &mut rec)?);
    if rec.stopped {
        return Ok(Outcome::Done(Err("execution timeout".into())));
    }
    let after = match ran {
        Ok((_, after)) => after,
        Err(e) => return Ok(Outcome::Done(Err(format!("tracing failed: {}", e.message)))),
    };
    if config.disable_storage {
        rec.slots.clear();
    }
    // From Prague, each callee's delegation target (its code as of before the call: a call
    // cannot set a delegation).
    if fork >= Fork::Prague {
        for c in &rec.callees {
            let b = done!(before(state, *c, false));
            if let Some(target) = delegation(&b.code) {
                rec.accounts.insert(target);
            }
        }
    }
    let mut accounts: BTreeMap<Address, Before> = BTreeMap::new();
    for a in &rec.accounts {
        accounts.insert(*a, done!(before(state, *a, config.disable_code)));
    }
    let mut storage: BTreeMap<Address, BTreeMap<U256, U256>> = BTreeMap::new();
    for (a, slots) in &rec.slots {
        let mut values = BTreeMap::new();
        for s in slots {
            values.insert(*s, done!(slot_before(state, *a, *s)));
        }
        storage.insert(*a, values);
    }
    let traced = |a: &Address, b: &Before| TracedAccount {
        balance: Some(b.balance),
        code: (!config.disable_code && !b.code.is_empty()).then(|| b.code.clone()),
        code_hash: (b.code_hash != B256::ZERO && b.code_hash != KECCAK_EMPTY)
            .then_some(b.code_hash),
        nonce: b.nonce,
        storage: storage
            .get(a)
            .map(|m| m.iter().map(|(k, v)| (word(*k), word(*v))).collect())
            .unwrap_or_default(),
    };
    if !config.diff_mode {
        let pre = accounts
            .iter()
            .filter(|(_, b)| config.include_empty || !b.empty())
            .map(|(a, b)| (*a, traced(a, b)))
            .collect();
        return Ok(Outcome::Done(Ok(PrestateTrace { pre, post: None })));
    }
    let coinbase = state.header().beneficiary;
    let no_fee = fees(state, req).is_ok_and(|f| f.cap.is_zero() && f.tip.is_zero());
    let mut pre = BTreeMap::new();
    let mut post = BTreeMap::new();
    for (a, b) in &accounts {
        let mut p = traced(a, b);
        if rec.deleted.contains(a) {
            // Kept whole in `pre`, left out of `post`.
            if !b.empty() {
                pre.insert(*a, p);
            }
            continue;
        }
        // geth pays no fee to the coinbase of a call that pays none, so it does not touch it
        // (revm pays it 0, which would delete an empty one, EIP-161).
        let now = After::of(&after, a, b, no_fee && *a == coinbase);
        let mut changed = TracedAccount::default();
        if now.balance != b.balance {
            changed.balance = Some(now.balance);
        }
        if now.nonce != b.nonce {
            changed.nonce = now.nonce;
        }
        // geth compares with the empty code's hash for an account without one.
        let was = if b.code_hash == B256::ZERO {
            KECCAK_EMPTY
        } else {
            b.code_hash
        };
        let mut modified = now.balance != b.balance || now.nonce != b.nonce;
        if now.code_hash != was {
            modified = true;
            changed.code_hash = Some(now.code_hash);
        }
        if !config.disable_code {
            let code = now.code(state, b);
            if code != b.code {
                modified = true;
                changed.code = Some(code);
            }
        }
        let mut kept = BTreeMap::new();
        for (k, v) in &p.storage {
            let new = word(now.slot(a, U256::from_be_bytes(k.0), &storage));
            if new != *v {
                modified = true;
                if *v != B256::ZERO {
                    kept.insert(*k, *v);
                }
                if new != B256::ZERO {
                    changed.storage.insert(*k, new);
                }
            }
        }
        p.storage = kept;
        if modified {
            post.insert(*a, changed);
            if !b.empty() {
                pre.insert(*a, p);
            }
        }
    }
    Ok(Outcome::Done(Ok(PrestateTrace {
        pre,
        post: Some(post),
    })))
}

/// An account after the call, as geth's state reads once the transaction is finalised: an
/// account the call destroyed or touched and left empty (EIP-161), or one that never existed
/// and was not created, does not exist (a zero code hash, no code, zero storage).
struct After<'s> {
    exists: bool,
    balance: U256,
    nonce: u64,
    code_hash: B256,
    account: Option<&'s revm::state::Account>,
}

impl<'s> After<'s> {
    /// `untouched`: an empty account the call's own touch does not delete (the coinbase of a
    /// call paying no fee).
    fn of(after: &'s EvmState, a: &Address, b: &Before, untouched: bool) -> Self {
        let gone = Self {
            exists: false,
            balance: U256::ZERO,
            nonce: 0,
            code_hash: B256::ZERO,
            account: None,
        };
        match after.get(a) {
            None if b.exists => Self {
                exists: true,
                balance: b.balance,
                nonce: b.nonce,
                code_hash: b.code_hash,
                account: None,
            },
            None => gone,
            Some(acc)
                if acc.is_selfdestructed()
                    || (acc.is_touched() && acc.is_empty() && !(untouched && b.exists))
                    || acc.is_loaded_as_not_existing_not_touched() =>
            {
                gone
            }
            Some(acc) => Self {
                exists: true,
                balance: acc.info.balance,
                nonce: acc.info.nonce,
                code_hash: acc.info.code_hash,
                account: Some(acc),
            },
        }
    }

    /// The code now: the same as before unless its hash changed (then revm holds it).
    fn code(&self, state: &ProvenState, b: &Before) -> Bytes {
        if !self.exists || self.code_hash == KECCAK_EMPTY {
            return Bytes::new();
        }
        if self.code_hash == b.code_hash {
            return b.code.clone();
        }
        self.account
            .and_then(|acc| acc.info.code.as_ref())
            .map(|c| c.original_bytes())
            .or_else(|| state.code(&self.code_hash).map(|c| c.original_bytes()))
            .unwrap_or_default()
    }

    /// The value of slot `s` now: revm's if the call read or wrote it, zero in an account
    /// created by the call, else the value before.
    fn slot(&self, a: &Address, s: U256, before: &BTreeMap<Address, BTreeMap<U256, U256>>) -> U256 {
        if !self.exists {
            return U256::ZERO;
        }
        if let Some(acc) = self.account {
            if let Some(v) = acc.storage.get(&s) {
                return v.present_value;
            }
            if acc.is_created() {
                return U256::ZERO;
            }
        }
        before
            .get(a)
            .and_then(|m| m.get(&s))
            .copied()
            .unwrap_or_default()
    }
}
