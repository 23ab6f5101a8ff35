//! Transactions executed by revm (the EVM the SDK's verified calls run, `lightprov-evm`) over the
//! chain's state: revm's database reads the MPT archive at the parent block, under what the
//! block's earlier transactions changed; each transaction's changes become the block's state
//! writes (balances, nonces and storage slots for every engine, code hashes for the account
//! trie), in the order the block made them.

use std::collections::{HashMap, HashSet};

use alloy_consensus::{Transaction, TxEnvelope, transaction::SignerRecoverable};
use alloy_primitives::{Address, B256, Bytes, Log, U256, keccak256};
use lightprov_engine_api::{Key, Write, kv::KvStore, word_from_u64};
use lightprov_engine_mpt::MptEngine;
use lightprov_evm::{ChainSpec, Fork};
use lightprov_types::KECCAK_EMPTY;
use revm::{
    Context, Database, ExecuteEvm, MainBuilder, MainContext,
    bytecode::Bytecode,
    context::{BlockEnv, CfgEnv, TxEnv},
    context_interface::{
        either::Either,
        result::{EVMError, ExecutionResult, InvalidTransaction},
        transaction::{AccessList as RevmAccessList, RecoveredAuthority, RecoveredAuthorization},
    },
    database_interface::DBErrorMarker,
    primitives::StorageKey,
    state::{AccountInfo, EvmState},
};

/// Keyspace of contract code: keccak256(code) → code.
pub const CODE: &str = "chain_code";

/// The database failed (a store error: never "not found", which is an empty account).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DbError(pub String);

impl DBErrorMarker for DbError {}

fn db_err(e: impl std::fmt::Display) -> DbError {
    DbError(e.to_string())
}

/// An account as the block sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Info {
    nonce: u64,
    balance: U256,
    code_hash: B256,
    /// Its storage root at the parent block (the empty trie's for an account created since).
    storage_root: B256,
}

impl Info {
    const EMPTY: Self = Self {
        nonce: 0,
        balance: U256::ZERO,
        code_hash: KECCAK_EMPTY,
        storage_root: lightprov_types::EMPTY_ROOT_HASH,
    };

    fn is_empty(&self) -> bool {
        self.nonce == 0 && self.balance.is_zero() && self.code_hash == KECCAK_EMPTY
    }
}

/// The state a block runs on: the MPT archive at the parent block (`None`: before genesis, an
/// empty state) under the block's own changes so far, which it records as writes.
pub struct BlockState<'a, S: KvStore> {
    engine: &'a MptEngine<S>,
    parent: Option<u64>,
    /// Block hashes by number for `BLOCKHASH`, looked up in the store.
    hashes: &'a dyn Fn(u64) -> Option<B256>,
    accounts: HashMap<Address, Info>,
    storage: HashMap<(Address, U256), U256>,
    /// Accounts created or destroyed in this block: their parent storage is gone.
    fresh: HashSet<Address>,
    codes: HashMap<B256, Bytecode>,
    /// The block's writes, in the order made (a later write to a key wins).
    pub writes: Vec<Write>,
    /// The code hashes the block set, in order.
    pub code_hashes: Vec<(Address, B256)>,
    /// Code the block deployed, by hash (to store with the block).
    pub new_code: Vec<(B256, Bytes)>,
}

impl<S: KvStore> std::fmt::Debug for BlockState<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockState")
            .field("parent", &self.parent)
            .field("writes", &self.writes.len())
            .finish_non_exhaustive()
    }
}

impl<'a, S: KvStore> BlockState<'a, S> {
    /// The state after block `parent`.
    pub fn new(
        engine: &'a MptEngine<S>,
        parent: Option<u64>,
        hashes: &'a dyn Fn(u64) -> Option<B256>,
    ) -> Self {
        Self {
            engine,
            parent,
            hashes,
            accounts: HashMap::new(),
            storage: HashMap::new(),
            fresh: HashSet::new(),
            codes: HashMap::new(),
            writes: Vec::new(),
            code_hashes: Vec::new(),
            new_code: Vec::new(),
        }
    }

    fn info(&mut self, address: Address) -> Result<Info, DbError> {
        if let Some(i) = self.accounts.get(&address) {
            return Ok(*i);
        }
        let info = match self.parent {
            None => None,
            Some(p) => self.engine.account_at(&address, p).map_err(db_err)?,
        }
        .map_or(Info::EMPTY, |a| Info {
            nonce: a.nonce,
            balance: U256::from_be_bytes(a.balance),
            code_hash: a.code_hash,
            storage_root: a.storage_root,
        });
        self.accounts.insert(address, info);
        Ok(info)
    }

    fn slot(&mut self, address: Address, slot: U256) -> Result<U256, DbError> {
        if let Some(v) = self.storage.get(&(address, slot)) {
            return Ok(*v);
        }
        let root = self.info(address)?.storage_root;
        let v = if self.fresh.contains(&address) {
            U256::ZERO
        } else {
            U256::from_be_bytes(
                self.engine
                    .slot_in(root, &B256::from(slot.to_be_bytes::<32>()))
                    .map_err(db_err)?,
            )
        };
        self.storage.insert((address, slot), v);
        Ok(v)
    }

    /// Sets a genesis account directly (no transaction): balance and, if given, code.
    pub fn set_genesis_account(
        &mut self,
        address: Address,
        balance: U256,
        code: Option<Bytes>,
    ) -> Result<(), DbError> {
        let mut info = self.info(address)?;
        if info.balance != balance {
            info.balance = balance;
            self.writes
                .push((Key::Balance(address), balance.to_be_bytes()));
        }
        if let Some(code) = code {
            let hash = keccak256(&code);
            info.code_hash = hash;
            self.code_hashes.push((address, hash));
            self.codes.insert(hash, Bytecode::new_raw(code.clone()));
            self.new_code.push((hash, code));
        }
        self.accounts.insert(address, info);
        Ok(())
    }

    /// Takes one transaction's changes (revm's output state) as the block's.
    pub fn apply(&mut self, state: &EvmState) -> Result<(), DbError> {
        let mut addresses: Vec<&Address> = state.keys().collect();
        // revm's map has no order: the writes of one transaction go in address order.
        addresses.sort();
        for address in addresses {
            let Some(account) = state.get(address) else {
                continue;
            };
            if !account.is_touched() {
                continue;
            }
            let address = *address;
            let before = self.info(address)?;
            let mut slots: Vec<(&StorageKey, U256)> = account
                .storage
                .iter()
                .map(|(k, s)| (k, s.present_value))
                .collect();
            slots.sort_by_key(|(k, _)| **k);
            let (after, slots) = if account.is_selfdestructed() {
                // Destroyed (EIP-6780: in the transaction that created it): nothing of it stays.
                self.fresh.insert(address);
                let wiped: Vec<(&StorageKey, U256)> =
                    slots.into_iter().map(|(k, _)| (k, U256::ZERO)).collect();
                (Info::EMPTY, wiped)
            } else {
                if account.is_created() {
                    self.fresh.insert(address);
                }
                let info = &account.info;
                (
                    Info {
                        nonce: info.nonce,
                        balance: info.balance,
                        code_hash: info.code_hash,
                        storage_root: before.storage_root,
                    },
                    slots,
                )
            };
            if after.balance != before.balance {
                self.writes
                    .push((Key::Balance(address), after.balance.to_be_bytes()));
            }
            if after.nonce != before.nonce {
                self.writes
                    .push((Key::Nonce(address), word_from_u64(after.nonce)));
            }
            if after.code_hash != before.code_hash {
                self.code_hashes.push((address, after.code_hash));
                if let Some(code) = account.info.code.as_ref()
                    && after.code_hash != KECCAK_EMPTY
                    && !self.codes.contains_key(&after.code_hash)
                {
                    self.codes.insert(after.code_hash, code.clone());
                    self.new_code.push((after.code_hash, code.original_bytes()));
                }
            }
            self.accounts.insert(address, after);
            for (slot, value) in slots {
                let old = self.slot(address, *slot)?;
                if old != value {
                    self.writes.push((
                        Key::Storage(address, B256::from(slot.to_be_bytes::<32>())),
                        value.to_be_bytes(),
                    ));
                    self.storage.insert((address, *slot), value);
                }
            }
        }
        Ok(())
    }

    /// The account's next nonce as the block sees it.
    pub fn nonce(&mut self, address: Address) -> Result<u64, DbError> {
        Ok(self.info(address)?.nonce)
    }
}

impl<S: KvStore> Database for BlockState<'_, S> {
    type Error = DbError;

    fn basic(&mut self, address: Address) -> Result<Option<AccountInfo>, DbError> {
        let info = self.info(address)?;
        if info.is_empty() {
            return Ok(None);
        }
        Ok(Some(AccountInfo {
            balance: info.balance,
            nonce: info.nonce,
            code_hash: info.code_hash,
            account_id: None,
            code: None,
        }))
    }

    fn code_by_hash(&mut self, code_hash: B256) -> Result<Bytecode, DbError> {
        if code_hash == KECCAK_EMPTY {
            return Ok(Bytecode::default());
        }
        if let Some(c) = self.codes.get(&code_hash) {
            return Ok(c.clone());
        }
        let raw = self
            .engine
            .store()
            .get(CODE, code_hash.as_slice())
            .map_err(db_err)?
            .ok_or_else(|| DbError(format!("the code {code_hash} is not stored")))?;
        let code = Bytecode::new_raw_checked(raw.into())
            .map_err(|e| DbError(format!("stored code {code_hash}: {e}")))?;
        self.codes.insert(code_hash, code.clone());
        Ok(code)
    }

    fn storage(&mut self, address: Address, index: StorageKey) -> Result<U256, DbError> {
        self.slot(address, index)
    }

    fn block_hash(&mut self, number: u64) -> Result<B256, DbError> {
        Ok((self.hashes)(number).unwrap_or_default())
    }
}

/// The chain's fork schedule: every fork through Prague from genesis, under Clique's seals.
pub fn chain_spec(chain_id: u64) -> ChainSpec {
    ChainSpec {
        chain_id,
        london_block: 0,
        shanghai_time: Some(0),
        cancun_time: Some(0),
        prague_time: Some(0),
        osaka_time: None,
        later_time: None,
        blob_fractions: Vec::new(),
        proof_of_authority: true,
    }
}

/// The environment of the block `header` heads (sealed or not): the fork its schedule gives,
/// and the block environment, both as the SDK's verified calls derive them.
pub fn environment(
    spec: &ChainSpec,
    header: &alloy_consensus::Header,
) -> anyhow::Result<(Fork, BlockEnv)> {
    let rlp = alloy_rlp::encode(header);
    let h = lightprov_types::header::Header::decode_rlp(&rlp)
        .map_err(|e| anyhow::anyhow!("the block's header: {e}"))?;
    let fork = spec.fork_of(&h).map_err(|e| anyhow::anyhow!("{e}"))?;
    let block = lightprov_evm::block_env(&h, fork, spec).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((fork, block))
}

/// revm's configuration for the chain's blocks under `fork`.
pub fn cfg(chain_id: u64, fork: Fork) -> CfgEnv {
    let mut cfg = CfgEnv::new_with_spec(fork.spec());
    cfg.chain_id = chain_id;
    cfg
}

/// revm's transaction for `tx` from `sender` (authorizations recovered here).
pub fn tx_env(tx: &TxEnvelope, sender: Address) -> TxEnv {
    let authorization_list = tx
        .authorization_list()
        .map(|list| {
            list.iter()
                .map(|a| {
                    let authority = a
                        .recover_authority()
                        .map_or(RecoveredAuthority::Invalid, RecoveredAuthority::Valid);
                    Either::Right(RecoveredAuthorization::new_unchecked(
                        a.inner().clone(),
                        authority,
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    TxEnv {
        tx_type: tx.tx_type() as u8,
        caller: sender,
        gas_limit: tx.gas_limit(),
        gas_price: tx.max_fee_per_gas(),
        kind: tx.kind(),
        value: tx.value(),
        data: tx.input().clone(),
        nonce: tx.nonce(),
        chain_id: tx.chain_id(),
        access_list: RevmAccessList(tx.access_list().map(|l| l.0.clone()).unwrap_or_default()),
        gas_priority_fee: tx.max_priority_fee_per_gas(),
        blob_hashes: Vec::new(),
        max_fee_per_blob_gas: 0,
        authorization_list,
    }
}

/// What one transaction did.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Whether it succeeded (a revert or halt is included, with status 0).
    pub success: bool,
    /// Gas used (after refunds and the EIP-7623 floor).
    pub gas_used: u64,
    /// Its logs.
    pub logs: Vec<Log>,
}

/// Why a transaction was left out of the block.
#[derive(Debug)]
pub enum Refused {
    /// The block has no room left for its gas limit (it may fit the next block).
    Full,
    /// The chain's rules refuse it now (nonce, funds, fees): geth's message.
    Invalid(String),
    /// The store failed.
    Db(DbError),
}

/// Runs `txs` in order over `state`, each after the changes of those before, as long as the
/// block's gas limit leaves room for each one's; returns each one's outcome (`Err`: left out).
pub fn run_block<S: KvStore>(
    state: &mut BlockState<'_, S>,
    fork: Fork,
    chain_id: u64,
    block: &BlockEnv,
    txs: &[TxEnv],
) -> Vec<Result<Outcome, Refused>> {
    let mut out = Vec::with_capacity(txs.len());
    let mut evm = Context::mainnet()
        .with_db(&mut *state)
        .with_block(block.clone())
        .with_cfg(cfg(chain_id, fork))
        .build_mainnet();
    let mut used = 0u64;
    for tx in txs {
        if used.saturating_add(tx.gas_limit) > block.gas_limit {
            out.push(Err(Refused::Full));
            continue;
        }
        let r = match evm.transact(tx.clone()) {
            Ok(r) => r,
            Err(EVMError::Database(e)) => {
                out.push(Err(Refused::Db(e)));
                continue;
            }
            Err(EVMError::Transaction(e)) => {
                out.push(Err(Refused::Invalid(invalid_message(&e))));
                continue;
            }
            Err(e) => {
                out.push(Err(Refused::Invalid(e.to_string())));
                continue;
            }
        };
        if let Err(e) = evm.ctx.journaled_state.database.apply(&r.state) {
            out.push(Err(Refused::Db(e)));
            continue;
        }
        let gas_used = r.result.tx_gas_used();
        used += gas_used;
        let (success, logs) = match r.result {
            ExecutionResult::Success { logs, .. } => (true, logs),
            _ => (false, Vec::new()),
        };
        out.push(Ok(Outcome {
            success,
            gas_used,
            logs,
        }));
    }
    out
}

fn invalid_message(e: &InvalidTransaction) -> String {
    e.to_string()
}

/// The sender of a signed transaction.
pub fn sender(tx: &TxEnvelope) -> Option<Address> {
    tx.recover_signer().ok()
}
