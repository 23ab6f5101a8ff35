//! The chain: a Clique-style proof-of-authority chain with one signer, whose state lives in the
//! MPT engine and whose blocks, transactions and receipts live in the same store. A block is
//! committed in one atomic, synced batch with its state, so a crash never loses a committed
//! block nor leaves half of one. Every block's writes also go to the engines of the proof
//! families the node runs ([`crate::families`]), whose commitments the header carries.

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Instant, SystemTime},
};

use alloy_consensus::{
    Header, Receipt, ReceiptEnvelope, ReceiptWithBloom, SignableTransaction, Transaction,
    TxEip1559, TxEnvelope, TxType, constants::EMPTY_OMMER_ROOT_HASH, proofs,
    transaction::SignerRecoverable,
};
use alloy_eips::eip2718::{Decodable2718, Encodable2718};
use alloy_primitives::{Address, B256, Bloom, Bytes, TxKind, U256, keccak256};
use alloy_rlp::{Decodable, Encodable, RlpDecodable, RlpEncodable};
use alloy_signer_local::PrivateKeySigner;
use lightprov_blockstore::{Block, BlockStore, Layout, Tuning};
use lightprov_engine_api::{
    Key, StateEngine, Write,
    kv::{BatchOp, FjallStore, KvStore},
    u64_from_word,
};
use lightprov_engine_mpt::MptEngine;
use lightprov_types::{Word, family};

use lightprov_evm::ChainSpec;

use crate::{
    engines::{Engine, Settings, downcast},
    exec::{self, BlockState, Refused},
    workload::{self, Workload},
};

/// The code changes of a block: the code hashes it set (for the account trie) and the code it
/// deployed (stored by hash with the block).
#[derive(Debug, Default)]
struct Code {
    hashes: Vec<(Address, B256)>,
    new: Vec<(B256, Bytes)>,
}

const META: &str = "chain_meta";
/// Each block's state writes as `(stateKey ‖ value)*`, to bring a lagging engine up to date.
const WRITES: &str = "chain_writes";
/// State key → the key it hashes (kind byte, address, slot), for history by state key.
const PREIMAGES: &str = "chain_preimages";

/// Gas of a plain value transfer.
pub const TRANSFER_GAS: u64 = 21_000;
/// Intrinsic gas per address of an access list (EIP-2930).
pub const ACCESS_LIST_ADDRESS_GAS: u64 = 2_400;
/// Intrinsic gas per storage key of an access list (EIP-2930).
pub const ACCESS_LIST_KEY_GAS: u64 = 1_900;
/// Where a value transfer's log comes from (EIP-7708: the system address), so that every
/// transfer leaves an event in its receipt.
pub const TRANSFER_LOG_ADDRESS: Address = Address::new([
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xfe,
]);
/// The (constant) base fee per gas: 1 gwei.
pub const BASE_FEE: u64 = 1_000_000_000;
/// Block gas limit.
pub const GAS_LIMIT: u64 = 30_000_000;
/// Bytes of extraData before the seal: the families' commitments (where each sits: the
/// commitment table of `lightprov_types::family`).
pub const EXTRA_ROOTS: usize = family::EXTRA_COMMITMENTS_LEN;
/// Genesis timestamp (fixed, so the genesis hash depends only on the configuration).
const GENESIS_TIME: u64 = 1_700_000_000;
/// Balance of each dev account at genesis: 1,000,000 ETH.
const DEV_BALANCE: u128 = 1_000_000 * 10u128.pow(18);

/// A block as the chain reads it: the header's RLP, the raw transactions, their senders and
/// receipts (the block store keeps header, body and receipts under keys of their own).
#[derive(Clone, Debug)]
pub struct BlockRecord {
    /// RLP of the sealed header.
    pub header: Bytes,
    /// EIP-2718 encodings of the transactions.
    pub txs: Vec<Bytes>,
    /// Recovered senders, one per transaction.
    pub senders: Vec<Address>,
    /// EIP-2718 encodings of the receipts.
    pub receipts: Vec<Bytes>,
}

impl BlockRecord {
    /// The decoded header.
    pub fn header(&self) -> anyhow::Result<Header> {
        Ok(Header::decode(&mut self.header.as_ref())?)
    }

    /// The decoded transactions.
    pub fn transactions(&self) -> anyhow::Result<Vec<TxEnvelope>> {
        self.txs
            .iter()
            .map(|t| Ok(TxEnvelope::decode_2718(&mut t.as_ref())?))
            .collect()
    }

    /// The decoded receipts.
    pub fn receipts(&self) -> anyhow::Result<Vec<ReceiptEnvelope>> {
        self.receipts
            .iter()
            .map(|r| Ok(ReceiptEnvelope::decode_2718(&mut r.as_ref())?))
            .collect()
    }
}

/// A block's body as stored: its transactions and their recovered senders.
#[derive(Debug, RlpEncodable, RlpDecodable)]
struct StoredBody {
    txs: Vec<Bytes>,
    senders: Vec<Address>,
}

/// Why a transaction was refused (the message is returned to the sender).
#[derive(Debug, thiserror::Error)]
pub enum TxError {
    /// Not a valid EIP-2718 transaction.
    #[error("invalid transaction encoding: {0}")]
    Decode(String),
    /// The signature does not recover.
    #[error("invalid signature")]
    Signature,
    /// Signed for another chain.
    #[error("wrong chain id: expected {expected}, got {got:?}")]
    ChainId {
        /// This chain's id.
        expected: u64,
        /// The transaction's.
        got: Option<u64>,
    },
    /// A transaction type this node does not execute.
    #[error("{0}")]
    UnsupportedType(&'static str),
    /// Gas limit below the transaction's intrinsic gas.
    #[error("intrinsic gas too low: have {have}, want {want}")]
    GasTooLow {
        /// The limit given.
        have: u64,
        /// Its intrinsic gas.
        want: u64,
    },
    /// Fee cap below the base fee.
    #[error("max fee per gas less than block base fee: have {have}, want {BASE_FEE}")]
    FeeTooLow {
        /// The fee cap given.
        have: u128,
    },
    /// Nonce already used.
    #[error("nonce too low: next nonce {expected}, tx nonce {got}")]
    NonceTooLow {
        /// The next nonce of the sender.
        expected: u64,
        /// The transaction's.
        got: u64,
    },
    /// Nonce leaves a gap.
    #[error("nonce too high: next nonce {expected}, tx nonce {got}")]
    NonceTooHigh {
        /// The next nonce of the sender.
        expected: u64,
        /// The transaction's.
        got: u64,
    },
    /// Not enough balance for value + gas.
    #[error("insufficient funds for gas * price + value: have {have} want {want}")]
    InsufficientFunds {
        /// The sender's balance.
        have: U256,
        /// value + gas limit * fee cap.
        want: U256,
    },
    /// Already in the pool or in a block.
    #[error("already known")]
    Known,
}

/// A validated transaction waiting for a block.
#[derive(Clone, Debug)]
struct Pending {
    tx: TxEnvelope,
    sender: Address,
}

pub use crate::dishonest::Dishonest;

/// Settings fixed at genesis.
#[derive(Clone, Debug)]
pub struct Config {
    /// EIP-155 chain id.
    pub chain_id: u64,
    /// The block signer.
    pub signer: PrivateKeySigner,
    /// Funded dev accounts.
    pub dev_accounts: Vec<PrivateKeySigner>,
    /// Funded accounts the node's own transfers (`--transfers`) come from: never the dev
    /// accounts, whose nonces belong to the users sending from them.
    pub transfer_senders: Vec<PrivateKeySigner>,
    /// Block filler, if any.
    pub workload: Option<Workload>,
    /// The settings of each proof family the node runs, in registry order.
    pub families: Vec<Arc<dyn Settings>>,
    /// How the block store lays out blocks (fixed when the data directory is created).
    pub blocks: Layout,
    /// Value transfers between the dev accounts the node signs and adds to every block.
    pub transfers: usize,
}

impl Config {
    /// The dev chain without its families: chain id 1337, a signer and 10 funded accounts whose
    /// keys are derived from public strings — **insecure, for development only**.
    /// [`Config::dev`] (beside the family registry, [`crate::families`]) adds every family that
    /// runs without flags.
    pub(crate) fn dev_without_families(workload: Option<Workload>) -> anyhow::Result<Self> {
        let key = |s: &str| PrivateKeySigner::from_bytes(&keccak256(s.as_bytes()));
        Ok(Self {
            chain_id: 1337,
            signer: key("lightprov dev signer")?,
            dev_accounts: (0..10)
                .map(|i| key(&format!("lightprov dev account {i}")))
                .collect::<Result<_, _>>()?,
            transfer_senders: (0..5)
                .map(|i| key(&format!("lightprov transfer sender {i}")))
                .collect::<Result<_, _>>()?,
            workload,
            families: Vec::new(),
            blocks: Layout::default(),
            transfers: 0,
        })
    }

    /// Runs a family with `settings`, in place of its settings of the same type if there are.
    pub fn set<S: Settings>(&mut self, settings: S) {
        let same = |s: &Arc<dyn Settings>| {
            let any: &dyn std::any::Any = &**s;
            any.is::<S>()
        };
        match self.families.iter().position(same) {
            Some(i) => {
                if let Some(slot) = self.families.get_mut(i) {
                    *slot = Arc::new(settings);
                }
            }
            None => self.families.push(Arc::new(settings)),
        }
    }

    /// The settings of type `S`, if the node runs that family.
    pub fn get<S: Settings>(&self) -> Option<&S> {
        self.families.iter().find_map(|s| {
            let any: &dyn std::any::Any = &**s;
            any.downcast_ref()
        })
    }
}

/// The chain and its state.
pub struct Chain {
    engine: MptEngine,
    /// Headers, bodies, receipts and the transaction index.
    blocks: BlockStore,
    /// The proof families' engines, each in its own directory of the data directory; brought
    /// level with the chain when the node starts and before each block.
    families: Vec<Box<dyn Engine>>,
    store: Arc<FjallStore>,
    config: Config,
    head: Header,
    head_hash: B256,
    pool: Vec<Pending>,
    /// `--dishonest fork`: seal a branch of its own.
    fork: bool,
    /// The fork schedule the EVM runs blocks under.
    spec: ChainSpec,
}

impl std::fmt::Debug for Chain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chain")
            .field("head", &self.head.number)
            .field("hash", &self.head_hash)
            .finish_non_exhaustive()
    }
}

/// The hash a Clique-style seal signs: the header with the 65-byte seal cut from extraData.
pub fn seal_hash(header: &Header) -> B256 {
    let mut h = header.clone();
    h.extra_data = h.extra_data.slice(..EXTRA_ROOTS.min(h.extra_data.len()));
    h.hash_slow()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Chain {
    /// Opens the chain in `dir`, creating the genesis block if the store is new. Refuses a
    /// store made with another configuration.
    pub fn open(dir: &std::path::Path, config: Config) -> anyhow::Result<Self> {
        let store = Arc::new(FjallStore::open(&dir.join("chain"))?);
        let engine = MptEngine::open(store.clone())?;
        if engine.head().is_some() && !BlockStore::exists(&store)? {
            anyhow::bail!(
                "the data directory was written by an older lightprov-node, which kept blocks outside the block store; use another --data-dir"
            );
        }
        let blocks = BlockStore::open(store.clone(), config.blocks, Tuning::default())
            .map_err(|e| match e {
                lightprov_blockstore::Error::Layout { ref stored, .. } => anyhow::anyhow!(
                    "{e}: start with the --block-layout and --block-group it was created with ({stored}), or use another --data-dir"
                ),
                e => e.into(),
            })?;
        let fingerprint = Self::fingerprint(&config);
        let mut families = Vec::new();
        for s in &config.families {
            families.extend(s.open(dir)?);
        }
        let spec = exec::chain_spec(config.chain_id);
        let mut chain = Self {
            spec,
            families,
            engine,
            blocks,
            store,
            config,
            head: Header::default(),
            head_hash: B256::ZERO,
            pool: Vec::new(),
            fork: false,
        };
        match chain.engine.head() {
            None => {
                for f in &chain.families {
                    let n = f.blocks();
                    if n > 0 {
                        anyhow::bail!(
                            "the data directory's {} files hold {n} blocks of another chain; use another --data-dir",
                            f.name()
                        );
                    }
                }
                chain
                    .store
                    .write(vec![(META, b"config".to_vec(), Some(fingerprint.to_vec()))])?;
                chain.genesis()?;
            }
            Some(h) => {
                let stored = chain.store.get(META, b"config")?;
                if stored.as_deref() != Some(fingerprint.as_slice()) {
                    anyhow::bail!(
                        "the data directory holds a chain made with other settings (chain id, signer, workload or a family's parameters); use another --data-dir"
                    );
                }
                let record = chain
                    .block(h)?
                    .ok_or_else(|| anyhow::anyhow!("block {h} is missing from the store"))?;
                chain.head = record.header()?;
                chain.head_hash = chain.head.hash_slow();
                for i in 0..chain.families.len() {
                    chain.catch_up(i, h)?;
                    if let Some(f) = chain.families.get(i) {
                        f.check(&chain.head)?;
                    }
                }
            }
        }
        Ok(chain)
    }

    /// Brings family `i`'s engine to block `to` by applying the stored write sets of the
    /// blocks it lacks (a crash between the chain's commit and the engine's leaves it a block
    /// behind; an engine directory older than the chain's may lack more).
    fn catch_up(&mut self, i: usize, to: u64) -> anyhow::Result<()> {
        let Some(f) = self.families.get_mut(i) else {
            return Ok(());
        };
        let from = f.blocks();
        if from > to + 1 {
            anyhow::bail!(
                "{} holds {from} blocks, the chain {}; use another --data-dir",
                f.name(),
                to + 1
            );
        }
        let started = Instant::now();
        let mut writes = 0usize;
        for b in from..=to {
            let w = stored_writes(&self.store, b)?;
            writes += w.len();
            f.apply(b, &w)
                .map_err(|e| anyhow::anyhow!("applying block {b} to {}: {e}", f.name()))?;
            if b > from && (b - from) % 10_000 == 0 {
                tracing::info!(
                    "{}: applied {} of {} missing blocks",
                    f.name(),
                    b - from,
                    to + 1 - from
                );
            }
        }
        if from <= to {
            tracing::info!(
                "{}: {} missing blocks ({writes} writes) applied in {:.2?}",
                f.name(),
                to + 1 - from,
                started.elapsed()
            );
        }
        Ok(())
    }

    /// The engine of the family of type `T`, if the node runs it.
    pub fn family<T: Engine>(&self) -> Option<&T> {
        self.families.iter().find_map(|f| downcast(&**f))
    }

    /// The engines of the proof families the node runs.
    pub fn families(&self) -> impl Iterator<Item = &dyn Engine> {
        self.families.iter().map(|f| &**f)
    }

    /// The key a state key hashes, if the chain ever wrote it.
    pub fn preimage(&self, state_key: &B256) -> anyhow::Result<Option<Key>> {
        preimage_in(&self.store, state_key)
    }

    fn fingerprint(config: &Config) -> B256 {
        let w = config
            .workload
            .map(|w| format!("{:?}/{}/{}", w.kind, w.seed, w.ops_per_block))
            .unwrap_or_default();
        let families: String = config.families.iter().map(|f| f.fingerprint()).collect();
        // `clique2`: blocks after genesis carry Clique's in-turn difficulty (2); a directory
        // from before sealed them with 1, which clients now refuse. `evm`: blocks are executed
        // by the EVM under Prague's rules and headers have Prague's layout; a directory from
        // before holds London headers and workload writes no transaction made.
        keccak256(format!(
            "{}/{}/{w}{families}/clique2/evm",
            config.chain_id,
            config.signer.address(),
        ))
    }

    /// TESTS ONLY (`--dishonest fork`): from now on, seal blocks that differ from an honest
    /// node's (a later timestamp), so that a copy of a data directory forks from it.
    pub fn fork(&mut self) {
        self.fork = true;
    }

    /// The settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The state engine.
    pub fn engine(&self) -> &MptEngine {
        &self.engine
    }

    /// The head header and its hash.
    pub fn head(&self) -> (&Header, B256) {
        (&self.head, self.head_hash)
    }

    /// The stored block `number`.
    pub fn block(&self, number: u64) -> anyhow::Result<Option<BlockRecord>> {
        let Some(header) = self.blocks.header(number)? else {
            return Ok(None);
        };
        let body = self
            .blocks
            .body(number)?
            .ok_or_else(|| anyhow::anyhow!("block {number} has no body"))?;
        let body = StoredBody::decode(&mut body.as_slice())?;
        let receipts = self
            .blocks
            .receipts(number)?
            .ok_or_else(|| anyhow::anyhow!("block {number} has no receipts"))?;
        let receipts = Vec::<Bytes>::decode(&mut receipts.as_slice())?;
        Ok(Some(BlockRecord {
            header: header.into(),
            txs: body.txs,
            senders: body.senders,
            receipts,
        }))
    }

    /// The header of block `number`.
    pub fn header(&self, number: u64) -> anyhow::Result<Option<Header>> {
        match self.blocks.header(number)? {
            None => Ok(None),
            Some(rlp) => Ok(Some(Header::decode(&mut rlp.as_slice())?)),
        }
    }

    /// The number of the block with this hash.
    pub fn number_of(&self, hash: &B256) -> anyhow::Result<Option<u64>> {
        Ok(self.blocks.number_of(&hash.0)?)
    }

    /// Where a transaction landed: block number and index.
    pub fn tx_location(&self, hash: &B256) -> anyhow::Result<Option<(u64, usize)>> {
        Ok(self
            .blocks
            .tx_location(&hash.0)?
            .map(|(n, i)| (n, i as usize)))
    }

    /// The block store.
    pub fn block_store(&self) -> &BlockStore {
        &self.blocks
    }

    /// The code of `address` after block `block` (empty for an account without code).
    pub fn code(&self, address: &Address, block: u64) -> anyhow::Result<Bytes> {
        let Some(a) = self.engine.account_at(address, block)? else {
            return Ok(Bytes::new());
        };
        if a.code_hash == lightprov_types::KECCAK_EMPTY {
            return Ok(Bytes::new());
        }
        let code = self
            .store
            .get(exec::CODE, a.code_hash.as_slice())?
            .ok_or_else(|| {
                anyhow::anyhow!("the code {} of {address} is not stored", a.code_hash)
            })?;
        Ok(code.into())
    }

    fn state(&self, key: &Key) -> anyhow::Result<Word> {
        Ok(self.engine.get(key, self.head.number)?)
    }

    /// The sender's next nonce, counting its transactions waiting in the pool.
    pub fn pending_nonce(&self, addr: &Address) -> anyhow::Result<u64> {
        let base = u64_from_word(&self.state(&Key::Nonce(*addr))?).unwrap_or(u64::MAX);
        Ok(base + self.pool.iter().filter(|p| p.sender == *addr).count() as u64)
    }

    /// Validates a raw transaction and adds it to the pool; returns its hash.
    pub fn submit(&mut self, raw: &[u8]) -> Result<B256, TxError> {
        let tx =
            TxEnvelope::decode_2718(&mut &raw[..]).map_err(|e| TxError::Decode(e.to_string()))?;
        match tx.tx_type() {
            TxType::Legacy | TxType::Eip2930 | TxType::Eip1559 | TxType::Eip7702 => {}
            TxType::Eip4844 => {
                return Err(TxError::UnsupportedType(
                    "blob transactions (type 3) are not executed by this node: it keeps no blobs and no blob gas",
                ));
            }
        }
        if tx.chain_id() != Some(self.config.chain_id) {
            return Err(TxError::ChainId {
                expected: self.config.chain_id,
                got: tx.chain_id(),
            });
        }
        let sender = tx.recover_signer().map_err(|_| TxError::Signature)?;
        let hash = *tx.tx_hash();
        // An included transaction is caught by its nonce ("nonce too low"), as geth does.
        if self.pool.iter().any(|p| *p.tx.tx_hash() == hash) {
            return Err(TxError::Known);
        }
        let want = self.intrinsic_gas(&tx, sender);
        if tx.gas_limit() < want {
            return Err(TxError::GasTooLow {
                have: tx.gas_limit(),
                want,
            });
        }
        if tx.max_fee_per_gas() < u128::from(BASE_FEE) {
            return Err(TxError::FeeTooLow {
                have: tx.max_fee_per_gas(),
            });
        }
        let expected = self
            .pending_nonce(&sender)
            .map_err(|e| TxError::Decode(e.to_string()))?;
        match tx.nonce() {
            n if n < expected => return Err(TxError::NonceTooLow { expected, got: n }),
            n if n > expected => return Err(TxError::NonceTooHigh { expected, got: n }),
            _ => {}
        }
        let balance = U256::from_be_bytes(
            self.state(&Key::Balance(sender))
                .map_err(|e| TxError::Decode(e.to_string()))?,
        );
        let queued: U256 = self
            .pool
            .iter()
            .filter(|p| p.sender == sender)
            .map(|p| max_cost(&p.tx))
            .sum();
        let want = max_cost(&tx) + queued;
        if balance < want {
            return Err(TxError::InsufficientFunds {
                have: balance,
                want,
            });
        }
        self.pool.push(Pending { tx, sender });
        Ok(hash)
    }

    /// Transactions waiting for a block.
    pub fn pool_len(&self) -> usize {
        self.pool.len()
    }

    fn genesis(&mut self) -> anyhow::Result<()> {
        let no_hashes = |_: u64| None;
        let mut state = BlockState::new(&self.engine, None, &no_hashes);
        for a in self
            .config
            .dev_accounts
            .iter()
            .chain(&self.config.transfer_senders)
        {
            state.set_genesis_account(a.address(), U256::from(DEV_BALANCE), None)?;
        }
        if let Some(w) = &self.config.workload {
            for a in w.senders() {
                state.set_genesis_account(a, U256::from(workload::ACCOUNT_BALANCE), None)?;
            }
            for (address, code) in w.contracts() {
                state.set_genesis_account(address, U256::ZERO, Some(code))?;
            }
            let deployments = w.deployments();
            if !deployments.is_empty() {
                // Their creation code runs as it would in transactions of no gas price, with
                // room for any constructor; the genesis block holds no transaction.
                let (fork, mut env) =
                    exec::environment(&self.spec, &self.template(0, B256::ZERO, GENESIS_TIME))?;
                env.gas_limit = 1 << 40;
                env.basefee = 0;
                let txs: Vec<_> = deployments
                    .into_iter()
                    .enumerate()
                    .map(|(i, code)| revm::context::TxEnv {
                        caller: workload::GENESIS_DEPLOYER,
                        gas_limit: 1 << 32,
                        kind: TxKind::Create,
                        data: code,
                        nonce: i as u64,
                        chain_id: Some(self.config.chain_id),
                        ..Default::default()
                    })
                    .collect();
                for (i, o) in exec::run_block(&mut state, fork, self.config.chain_id, &env, &txs)
                    .into_iter()
                    .enumerate()
                {
                    match o {
                        Ok(o) if o.success => {}
                        Ok(_) => anyhow::bail!("genesis contract {i} failed to deploy"),
                        Err(Refused::Db(e)) => anyhow::bail!("genesis contract {i}: {e}"),
                        Err(Refused::Invalid(e)) => anyhow::bail!("genesis contract {i}: {e}"),
                        Err(Refused::Full) => anyhow::bail!("genesis contract {i}: no gas"),
                    }
                }
            }
        }
        let mut writes = std::mem::take(&mut state.writes);
        let code = Code {
            hashes: std::mem::take(&mut state.code_hashes),
            new: std::mem::take(&mut state.new_code),
        };
        drop(state);
        if let Some(w) = self.config.workload.as_ref().filter(|w| !w.deploys()) {
            writes.extend(w.genesis());
        }
        let header = self.template(0, B256::ZERO, GENESIS_TIME);
        self.seal_and_commit(header, writes, code, Vec::new())
    }

    /// The header of block `number` before execution: everything but its roots, bloom, gas used
    /// and seal.
    fn template(&self, number: u64, parent_hash: B256, timestamp: u64) -> Header {
        Header {
            parent_hash,
            ommers_hash: EMPTY_OMMER_ROOT_HASH,
            beneficiary: self.config.signer.address(),
            difficulty: U256::from(difficulty(number)),
            number,
            gas_limit: GAS_LIMIT,
            timestamp,
            // What a family binds at genesis (LVMT: its parameters), so a client trusting the
            // genesis hash trusts it; zero otherwise and later.
            mix_hash: match number {
                0 => self
                    .config
                    .families
                    .iter()
                    .find_map(|f| f.genesis_mix_hash())
                    .unwrap_or_default(),
                _ => B256::ZERO,
            },
            nonce: Default::default(),
            base_fee_per_gas: Some(BASE_FEE),
            // Prague's layout: no withdrawals, no blobs, no beacon root, no requests.
            withdrawals_root: Some(alloy_trie::EMPTY_ROOT_HASH),
            blob_gas_used: Some(0),
            excess_blob_gas: Some(0),
            parent_beacon_block_root: Some(B256::ZERO),
            requests_hash: Some(alloy_eips::eip7685::EMPTY_REQUESTS_HASH),
            ..Default::default()
        }
    }

    /// Gas a transaction needs before it runs: its intrinsic gas, or the EIP-7623 floor if
    /// higher, under the rules of the next block.
    fn intrinsic_gas(&self, tx: &TxEnvelope, sender: Address) -> u64 {
        let next = self.template(self.head.number + 1, self.head_hash, now());
        let fork =
            exec::environment(&self.spec, &next).map_or(lightprov_evm::Fork::Prague, |e| e.0);
        let g = revm::context_interface::cfg::gas::calculate_initial_tx_gas_for_tx(
            exec::tx_env(tx, sender),
            fork.spec(),
            None,
        );
        g.initial_total_gas().max(g.floor_gas())
    }

    /// Produces the next block: the workload's transactions, then the pool's in arrival order,
    /// each executed by the EVM after those before it (a transaction the state no longer
    /// allows is dropped; one the block has no gas left for waits for the next).
    pub fn produce_block(&mut self) -> anyhow::Result<u64> {
        let number = self.head.number + 1;
        for j in 0..self.config.transfers {
            let raw = self.dev_transfer(number, j)?;
            self.submit(&raw)
                .map_err(|e| anyhow::anyhow!("the node's own transfer {j}: {e}"))?;
        }
        // A forking node (tests only) stamps its blocks a second later than an honest node would,
        // so that from the same parent it seals other blocks.
        let timestamp = now().max(self.head.timestamp + 1) + u64::from(self.fork);
        let header = self.template(number, self.head_hash, timestamp);
        let (fork, env) = exec::environment(&self.spec, &header)?;
        let pool = std::mem::take(&mut self.pool);
        let blocks = &self.blocks;
        let hashes = |n: u64| blocks.header(n).ok().flatten().map(keccak256);
        let mut state = BlockState::new(&self.engine, Some(self.head.number), &hashes);
        let mut candidates: Vec<(Pending, bool)> = Vec::new();
        if let Some(w) = &self.config.workload {
            let mut next: HashMap<Address, u64> = HashMap::new();
            let txs = w.transactions(
                number,
                self.config.chain_id,
                u128::from(2 * BASE_FEE),
                &mut |a| {
                    let n = match next.get(&a) {
                        Some(n) => *n,
                        None => state.nonce(a)?,
                    };
                    next.insert(a, n + 1);
                    Ok(n)
                },
            )?;
            candidates.extend(
                txs.into_iter()
                    .map(|(tx, sender)| (Pending { tx, sender }, false)),
            );
        }
        candidates.extend(pool.into_iter().map(|p| (p, true)));
        let envs: Vec<_> = candidates
            .iter()
            .map(|(p, _)| exec::tx_env(&p.tx, p.sender))
            .collect();
        let outcomes = exec::run_block(&mut state, fork, self.config.chain_id, &env, &envs);
        let mut included = Vec::new();
        let mut waiting = Vec::new();
        for ((p, from_pool), outcome) in candidates.into_iter().zip(outcomes) {
            match outcome {
                Ok(o) => included.push((p, o)),
                Err(Refused::Full) if from_pool => waiting.push(p),
                Err(Refused::Full) => {}
                Err(Refused::Invalid(e)) => {
                    tracing::warn!(tx = %p.tx.tx_hash(), "dropped: {e}");
                }
                Err(Refused::Db(e)) => {
                    drop(state);
                    self.pool = waiting;
                    anyhow::bail!("executing block {number}: {e}");
                }
            }
        }
        let writes = std::mem::take(&mut state.writes);
        let code = Code {
            hashes: std::mem::take(&mut state.code_hashes),
            new: std::mem::take(&mut state.new_code),
        };
        drop(state);
        self.pool = waiting;
        self.seal_and_commit(header, writes, code, included)?;
        Ok(number)
    }

    /// Transfer `j` of block `number` (`--transfers`): from transfer sender `(number + j) mod
    /// n` to a dev account, of 10^12..10^15 wei, EIP-1559, signed with the sender's (public) key.
    fn dev_transfer(&self, number: u64, j: usize) -> anyhow::Result<Vec<u8>> {
        let (senders, devs) = (&self.config.transfer_senders, &self.config.dev_accounts);
        if senders.is_empty() || devs.is_empty() {
            anyhow::bail!("--transfers needs transfer senders and dev accounts");
        }
        let (Some(from), Some(to)) = (
            senders.get((number as usize + j) % senders.len()),
            devs.get((number as usize * 7 + j) % devs.len()),
        ) else {
            anyhow::bail!("account out of range");
        };
        let tx = TxEip1559 {
            chain_id: self.config.chain_id,
            nonce: self.pending_nonce(&from.address())?,
            gas_limit: TRANSFER_GAS,
            max_fee_per_gas: u128::from(2 * BASE_FEE),
            max_priority_fee_per_gas: u128::from(BASE_FEE / 10),
            to: TxKind::Call(to.address()),
            value: U256::from(10u64.pow(12) * (1 + (number * 31 + j as u64) % 1000)),
            ..Default::default()
        };
        let sig = crate::sign::sign_hash(from, &tx.signature_hash())?;
        Ok(TxEnvelope::from(tx.into_signed(sig)).encoded_2718())
    }

    fn seal_and_commit(
        &mut self,
        mut header: Header,
        writes: Vec<Write>,
        code: Code,
        included: Vec<(Pending, exec::Outcome)>,
    ) -> anyhow::Result<()> {
        let number = header.number;
        let staged = self.engine.stage_with_code(number, &writes, &code.hashes)?;
        let keyed: Vec<(B256, Word)> = writes.iter().map(|(k, v)| (k.state_key(), *v)).collect();
        let mut extra_roots = vec![0u8; EXTRA_ROOTS];
        for i in 0..self.families.len() {
            // A family lags only if writing an earlier block to it failed: apply what it lacks.
            if number > 0 {
                self.catch_up(i, number - 1)?;
            }
            let Some(f) = self.families.get_mut(i) else {
                continue;
            };
            if f.blocks() != number {
                anyhow::bail!(
                    "{} holds {} blocks, the chain is at block {number}",
                    f.name(),
                    f.blocks()
                );
            }
            // Each family writes its commitments at their place in the table.
            if let Err(e) = f.stage(number, &writes, &mut extra_roots) {
                let name = f.name();
                self.discard_staged(i);
                anyhow::bail!("{name} refused block {number}: {e}");
            }
        }
        let txs: Vec<TxEnvelope> = included.iter().map(|(p, _)| p.tx.clone()).collect();
        let mut cumulative = 0;
        let mut logs_bloom = Bloom::ZERO;
        let receipts: Vec<ReceiptEnvelope> = included
            .iter()
            .map(|(p, o)| {
                cumulative += o.gas_used;
                let value = p.tx.value();
                // The node's rule (EIP-7708's log): a successful transfer of value leaves an
                // event, before the logs of the code it ran.
                let mut logs = Vec::with_capacity(o.logs.len() + 1);
                if o.success && !value.is_zero() {
                    let to = p.tx.to().unwrap_or_else(|| p.sender.create(p.tx.nonce()));
                    logs.push(transfer_log(p.sender, to, value));
                }
                logs.extend(o.logs.iter().cloned());
                let r = ReceiptWithBloom::from(Receipt {
                    status: o.success.into(),
                    cumulative_gas_used: cumulative,
                    logs,
                });
                logs_bloom |= r.logs_bloom;
                match p.tx.tx_type() {
                    TxType::Eip2930 => ReceiptEnvelope::Eip2930(r),
                    TxType::Eip1559 => ReceiptEnvelope::Eip1559(r),
                    TxType::Eip4844 => ReceiptEnvelope::Eip4844(r),
                    TxType::Eip7702 => ReceiptEnvelope::Eip7702(r),
                    TxType::Legacy => ReceiptEnvelope::Legacy(r),
                }
            })
            .collect();
        header.state_root = staged.root;
        header.transactions_root = proofs::calculate_transaction_root(&txs);
        header.receipts_root = proofs::calculate_receipt_root(&receipts);
        header.logs_bloom = logs_bloom;
        header.gas_used = cumulative;
        // The families' commitments (zero for one the node does not run).
        header.extra_data = Bytes::from(extra_roots);
        let sig = crate::sign::sign_hash(&self.config.signer, &seal_hash(&header))?;
        let mut extra = header.extra_data.to_vec();
        // Clique's seal layout: r ‖ s ‖ v with v ∈ {0, 1} (not Ethereum's 27/28).
        extra.extend_from_slice(&sig.r().to_be_bytes::<32>());
        extra.extend_from_slice(&sig.s().to_be_bytes::<32>());
        extra.push(u8::from(sig.v()));
        header.extra_data = extra.into();
        let hash = header.hash_slow();

        let mut rlp = Vec::new();
        header.encode(&mut rlp);
        let mut body = Vec::new();
        StoredBody {
            txs: txs.iter().map(|t| t.encoded_2718().into()).collect(),
            senders: included.iter().map(|(p, _)| p.sender).collect(),
        }
        .encode(&mut body);
        let receipts: Vec<Bytes> = receipts.iter().map(|r| r.encoded_2718().into()).collect();
        let mut receipts_rlp = Vec::new();
        receipts.encode(&mut receipts_rlp);
        let tx_hashes: Vec<[u8; 32]> = txs.iter().map(|t| t.tx_hash().0).collect();
        let mut ops: Vec<BatchOp> = self.blocks.ops(&Block {
            number,
            hash: hash.0,
            header: &rlp,
            body: &body,
            receipts: &receipts_rlp,
            tx_hashes: &tx_hashes,
        })?;
        let write_set = lightprov_engine_cole::wal::encode_writes(&keyed);
        ops.push((WRITES, number.to_be_bytes().to_vec(), Some(write_set)));
        for (hash, code) in code.new {
            ops.push((exec::CODE, hash.to_vec(), Some(code.to_vec())));
        }
        for (k, _) in &writes {
            ops.push((PREIMAGES, k.state_key().to_vec(), Some(k.preimage())));
        }
        if let Err(e) = self.engine.commit(staged, ops) {
            self.discard_staged(self.families.len());
            return Err(e.into());
        }
        // A group the store fails to seal (its blocks are durable either way) is sealed when
        // the node next opens the store.
        if let Err(e) = self.blocks.committed(number) {
            tracing::error!("block store: sealing the group of block {number}: {e}");
        }
        // The chain's batch above is the block's commit point. A family that fails to commit
        // drops the block and lags; the next block (or the next start) applies it again from
        // the stored write set, so the chain goes on with the block committed.
        self.head = header;
        self.head_hash = hash;
        let mut failed = None;
        for f in &mut self.families {
            if let Err(e) = f.commit() {
                tracing::error!(
                    "{}: block {number} not committed ({e}); it will catch up",
                    f.name()
                );
                failed.get_or_insert_with(|| anyhow::anyhow!("{}: {e}", f.name()));
            }
        }
        failed.map_or(Ok(()), Err)
    }

    /// Drops what the first `n` families staged (the block will not be committed).
    fn discard_staged(&mut self, n: usize) {
        for f in self.families.iter_mut().take(n) {
            if let Err(e) = f.discard() {
                tracing::error!("{}: dropping a staged block failed: {e}", f.name());
            }
        }
    }
}

/// Clique's difficulty: 2 for a block sealed in turn, 1 out of turn. The chain's one signer is
/// always in turn; the genesis block (the anchor, trusted by its hash) has 1.
pub const fn difficulty(number: u64) -> u64 {
    if number == 0 { 1 } else { 2 }
}

/// The sum of [`difficulty`] over blocks `0..=number`.
pub const fn total_difficulty(number: u64) -> u64 {
    difficulty(0) + number.saturating_mul(2)
}

/// Intrinsic gas of an access list (EIP-2930).
pub fn access_list_gas(list: &alloy_eips::eip2930::AccessList) -> u64 {
    list.iter()
        .map(|i| ACCESS_LIST_ADDRESS_GAS + ACCESS_LIST_KEY_GAS * i.storage_keys.len() as u64)
        .sum()
}

/// topic0 of `Transfer(address,address,uint256)`.
pub fn transfer_topic() -> B256 {
    keccak256("Transfer(address,address,uint256)")
}

/// The event a value transfer leaves (EIP-7708's shape): from [`TRANSFER_LOG_ADDRESS`], topics
/// `Transfer(address,address,uint256)`, sender and recipient, data the value.
pub fn transfer_log(from: Address, to: Address, value: U256) -> alloy_primitives::Log {
    alloy_primitives::Log::new_unchecked(
        TRANSFER_LOG_ADDRESS,
        vec![transfer_topic(), from.into_word(), to.into_word()],
        Bytes::from(value.to_be_bytes::<32>().to_vec()),
    )
}

/// value + gas limit × fee cap: what a transaction may cost at most.
fn max_cost(tx: &TxEnvelope) -> U256 {
    tx.value() + U256::from(tx.gas_limit()) * U256::from(tx.max_fee_per_gas())
}

fn preimage_in(store: &FjallStore, state_key: &B256) -> anyhow::Result<Option<Key>> {
    let Some(raw) = store.get(PREIMAGES, state_key.as_slice())? else {
        return Ok(None);
    };
    Ok(match raw.as_slice() {
        [1, a @ ..] if a.len() == 20 => Some(Key::Balance(Address::from_slice(a))),
        [2, a @ ..] if a.len() == 20 => Some(Key::Nonce(Address::from_slice(a))),
        [3, rest @ ..] if rest.len() == 52 => {
            let (a, s) = rest.split_at(20);
            Some(Key::Storage(Address::from_slice(a), B256::from_slice(s)))
        }
        _ => anyhow::bail!("corrupt preimage of state key {state_key}"),
    })
}

/// Block `block`'s writes as stored (by state key), typed again through the preimages written
/// in the same batch.
fn stored_writes(store: &FjallStore, block: u64) -> anyhow::Result<Vec<Write>> {
    let raw = store.get(WRITES, &block.to_be_bytes())?.unwrap_or_default();
    let keyed = lightprov_engine_cole::wal::decode_writes(&raw)
        .ok_or_else(|| anyhow::anyhow!("corrupt write set of block {block}"))?;
    keyed
        .into_iter()
        .map(|(k, v)| {
            let key = preimage_in(store, &k)?.ok_or_else(|| {
                anyhow::anyhow!("block {block} wrote state key {k}, whose preimage is not stored")
            })?;
            Ok((key, v))
        })
        .collect()
}
