//! Deterministic workloads that fill blocks: each block's operations follow from the seed and
//! the block number alone, so two nodes with the same flags produce the same chain. The node
//! runs each operation as a transaction signed by a funded workload account ([`account`]),
//! executed by the EVM; [`Workload::block`] is the operations' model as state writes (what the
//! transactions write to the workload's own keys), which the engines' benchmarks replay without
//! an EVM and a test checks against execution.
//!
//! Mapping onto state (see README):
//! - `transfer`: accounts `acct(i)` (i < 1000); a transfer moves 1..=1000 wei from one to another:
//!   two balance writes and the sender's nonce.
//! - `smallbank`: the contract `SmallBank` (tests/contracts/src/SmallBank.sol) at `SMALLBANK`
//!   holds, per customer `c` (c < 1000), `checking(c)` at slot keccak256(c ‖ 0) and `savings(c)`
//!   at keccak256(c ‖ 1). Operations in the usual SmallBank mix: Balance (read only),
//!   DepositChecking, TransactSavings, Amalgamate, WriteCheck, SendPayment.
//! - `kvstore`: YCSB workload A over the contract `KvStore` at `KVSTORE`: record `k`
//!   (k < 10 000) is slot keccak256(k); half the operations read a record (`get`), half
//!   overwrite it with 32 random bytes (`put`).

use std::{collections::HashMap, sync::OnceLock};

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_primitives::{Address, B256, Bytes, TxKind, U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use lightprov_engine_api::{Key, Write, u64_from_word, word_from_u64};
use lightprov_types::Word;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Which workload fills blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Balance transfers between accounts.
    Transfer,
    /// SmallBank operations on contract storage slots.
    Smallbank,
    /// YCSB-style read/update of storage slots.
    Kvstore,
    /// ERC-20 token transfers between the workload accounts (an OpenZeppelin token and a
    /// Multicall3 deployed at genesis).
    Erc20,
}

/// The contract-style account that holds SmallBank's slots.
pub const SMALLBANK: Address = Address::new([0x5b; 20]);
/// The contract-style account that holds the key-value store's slots.
pub const KVSTORE: Address = Address::new([0xcc; 20]);
const ACCOUNTS: u64 = 1000;
/// Tokens each workload account holds at genesis (`erc20`).
pub const TOKENS_EACH: u64 = 1_000_000;
/// The account that deploys the genesis contracts of `erc20` (no key: it sends no transaction).
pub const GENESIS_DEPLOYER: Address = Address::new([0xde; 20]);

/// The `erc20` workload's token (`LightToken`: OpenZeppelin's ERC-20), the deployer's first
/// creation.
pub fn token() -> Address {
    GENESIS_DEPLOYER.create(0)
}

/// The `erc20` workload's Multicall3 (`aggregate3`), the deployer's second creation.
pub fn multicall() -> Address {
    GENESIS_DEPLOYER.create(1)
}

/// The token balance of `holder`: OpenZeppelin's `_balances` mapping at slot 0.
fn token_balance(holder: Address) -> Key {
    Key::Storage(token(), slot(&[holder.into_word().as_slice(), &[0; 32]]))
}
const RECORDS: u64 = 10_000;

/// The workload accounts' keys: account `i`'s is keccak256("lightprov transfer account" ‖ i as
/// 8 bytes big-endian) — public, like the dev keys.
fn keys() -> &'static [PrivateKeySigner] {
    static KEYS: OnceLock<Vec<PrivateKeySigner>> = OnceLock::new();
    KEYS.get_or_init(|| {
        (0..ACCOUNTS)
            .filter_map(|i| {
                let k = keccak256(
                    [b"lightprov transfer account".as_slice(), &i.to_be_bytes()].concat(),
                );
                PrivateKeySigner::from_bytes(&k).ok()
            })
            .collect()
    })
}

/// Workload account `i` (i < 1000): the transfer workload's accounts, and the senders of every
/// workload's transactions.
pub fn account(i: u64) -> Address {
    signer(i).map(|s| s.address()).unwrap_or_default()
}

fn signer(i: u64) -> Option<&'static PrivateKeySigner> {
    keys().get(usize::try_from(i).ok()?)
}

/// What each workload account holds at genesis: 1000 ETH, for the gas of its transactions.
pub const ACCOUNT_BALANCE: u128 = 1_000 * 10u128.pow(18);

/// One operation of a workload, as drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Transfer { from: u64, to: u64, amount: U256 },
    Balance { c: u64 },
    DepositChecking { c: u64, amount: U256 },
    TransactSavings { c: u64, amount: U256 },
    Amalgamate { c: u64, d: u64 },
    WriteCheck { c: u64, amount: U256 },
    SendPayment { c: u64, d: u64, amount: U256 },
    Read { k: u64 },
    Write { k: u64, value: Word },
    TokenTransfer { from: u64, to: u64, amount: U256 },
}

/// Calldata: the function's selector, then its arguments as 32-byte words.
fn calldata(signature: &str, args: &[U256]) -> Bytes {
    let hash = keccak256(signature.as_bytes());
    let mut out = hash.get(..4).unwrap_or_default().to_vec();
    for a in args {
        out.extend_from_slice(&a.to_be_bytes::<32>());
    }
    out.into()
}

impl Op {
    /// The transaction's callee, value and calldata, and the gas limit it is sent with.
    fn call(&self) -> (Address, U256, Bytes, u64) {
        let n = |x: u64| U256::from(x);
        let bank = |sig: &str, args: &[U256]| (SMALLBANK, U256::ZERO, calldata(sig, args), 100_000);
        match *self {
            Op::Transfer { to, amount, .. } => (account(to), amount, Bytes::new(), 21_000),
            Op::Balance { c } => bank("balance(uint64)", &[n(c)]),
            Op::DepositChecking { c, amount } => {
                bank("depositChecking(uint64,uint256)", &[n(c), amount])
            }
            Op::TransactSavings { c, amount } => {
                bank("transactSavings(uint64,uint256)", &[n(c), amount])
            }
            Op::Amalgamate { c, d } => bank("amalgamate(uint64,uint64)", &[n(c), n(d)]),
            Op::WriteCheck { c, amount } => bank("writeCheck(uint64,uint256)", &[n(c), amount]),
            Op::SendPayment { c, d, amount } => {
                bank("sendPayment(uint64,uint64,uint256)", &[n(c), n(d), amount])
            }
            Op::Read { k } => (
                KVSTORE,
                U256::ZERO,
                calldata("get(uint64)", &[n(k)]),
                60_000,
            ),
            Op::TokenTransfer { to, amount, .. } => (
                token(),
                U256::ZERO,
                calldata(
                    "transfer(address,uint256)",
                    &[U256::from_be_slice(account(to).as_slice()), amount],
                ),
                60_000,
            ),
            Op::Write { k, value } => (
                KVSTORE,
                U256::ZERO,
                calldata("put(uint64,bytes32)", &[n(k), U256::from_be_bytes(value)]),
                60_000,
            ),
        }
    }
}

/// The deployed code of a contract compiled from tests/contracts/src by the pinned solc.
fn deployed(artifact: &str) -> Bytes {
    serde_json::from_str::<serde_json::Value>(artifact)
        .ok()
        .and_then(|v| v.get("deployedBytecode")?.as_str()?.parse().ok())
        .unwrap_or_default()
}

fn slot(parts: &[&[u8]]) -> B256 {
    keccak256(parts.concat())
}

fn checking(c: u64) -> Key {
    Key::Storage(SMALLBANK, slot(&[&c.to_be_bytes(), &[0]]))
}

fn savings(c: u64) -> Key {
    Key::Storage(SMALLBANK, slot(&[&c.to_be_bytes(), &[1]]))
}

fn record(k: u64) -> Key {
    Key::Storage(KVSTORE, slot(&[&k.to_be_bytes()]))
}

fn word(v: U256) -> Word {
    v.to_be_bytes()
}

fn num(w: &Word) -> U256 {
    U256::from_be_bytes(*w)
}

/// A workload bound to its seed.
#[derive(Clone, Copy, Debug)]
pub struct Workload {
    /// Which operations.
    pub kind: Kind,
    /// Seed of every block's randomness.
    pub seed: u64,
    /// Operations per block.
    pub ops_per_block: usize,
}

/// State as the block sees it so far: the writes made in this block over the head's state.
struct View<'a> {
    read: &'a dyn Fn(&Key) -> Word,
    written: HashMap<Key, Word>,
    order: Vec<Key>,
}

impl View<'_> {
    fn get(&self, k: &Key) -> Word {
        self.written
            .get(k)
            .copied()
            .unwrap_or_else(|| (self.read)(k))
    }

    fn set(&mut self, k: Key, v: Word) {
        if self.written.insert(k, v).is_none() {
            self.order.push(k);
        }
    }
}

impl Workload {
    /// The state the workload starts from, written at genesis: funded accounts, SmallBank
    /// customers with 10 000 in checking and savings, or 10 000 initial records.
    pub fn genesis(&self) -> Vec<Write> {
        match self.kind {
            Kind::Transfer => (0..ACCOUNTS)
                .map(|i| (Key::Balance(account(i)), word(U256::from(ACCOUNT_BALANCE))))
                .collect(),
            Kind::Smallbank => (0..ACCOUNTS)
                .flat_map(|c| {
                    [
                        (checking(c), word(U256::from(10_000))),
                        (savings(c), word(U256::from(10_000))),
                    ]
                })
                .collect(),
            Kind::Erc20 => (0..ACCOUNTS)
                .map(|i| (token_balance(account(i)), word(U256::from(TOKENS_EACH))))
                .collect(),
            Kind::Kvstore => (0..RECORDS)
                .map(|k| {
                    (
                        record(k),
                        keccak256([b"init".as_slice(), &k.to_be_bytes()].concat()).0,
                    )
                })
                .collect(),
        }
    }

    /// The contracts the workload runs on, deployed at genesis: address and code.
    pub fn contracts(&self) -> Vec<(Address, Bytes)> {
        match self.kind {
            Kind::Transfer | Kind::Erc20 => Vec::new(),
            Kind::Smallbank => vec![(
                SMALLBANK,
                deployed(include_str!("../../tests/contracts/build/SmallBank.json")),
            )],
            Kind::Kvstore => vec![(
                KVSTORE,
                deployed(include_str!("../../tests/contracts/build/KvStore.json")),
            )],
        }
    }

    /// The contracts the workload deploys at genesis by running their creation code from
    /// [`GENESIS_DEPLOYER`], in order: `erc20`'s token (minting [`TOKENS_EACH`] to every
    /// workload account) and Multicall3.
    pub fn deployments(&self) -> Vec<Bytes> {
        if self.kind != Kind::Erc20 {
            return Vec::new();
        }
        let artifact = |a: &str| -> Bytes {
            serde_json::from_str::<serde_json::Value>(a)
                .ok()
                .and_then(|v| v.get("bytecode")?.as_str()?.parse().ok())
                .unwrap_or_default()
        };
        let mut token =
            artifact(include_str!("../../tests/contracts/build/LightToken.json")).to_vec();
        // constructor(address[] holders, uint256 each): the array's offset, `each`, the array.
        let word = |v: U256| v.to_be_bytes::<32>();
        token.extend_from_slice(&word(U256::from(64)));
        token.extend_from_slice(&word(U256::from(TOKENS_EACH)));
        token.extend_from_slice(&word(U256::from(ACCOUNTS)));
        for i in 0..ACCOUNTS {
            token.extend_from_slice(account(i).into_word().as_slice());
        }
        vec![
            token.into(),
            artifact(include_str!("../../tests/contracts/build/Multicall.json")),
        ]
    }

    /// Whether the workload's genesis state comes from its deployments (`erc20`) rather than
    /// from the writes of [`Workload::genesis`].
    pub fn deploys(&self) -> bool {
        self.kind == Kind::Erc20
    }

    /// The accounts that send the workload's transactions (funded at genesis).
    pub fn senders(&self) -> impl Iterator<Item = Address> {
        (0..ACCOUNTS).map(account)
    }

    /// Block `number`'s operations, as drawn from the seed.
    fn ops(&self, number: u64) -> Vec<Op> {
        let mut rng =
            ChaCha8Rng::seed_from_u64(self.seed ^ number.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        (0..self.ops_per_block)
            .map(|_| match self.kind {
                Kind::Transfer => {
                    let (from, to) = (rng.random_range(0..ACCOUNTS), rng.random_range(0..ACCOUNTS));
                    let amount = U256::from(rng.random_range(1..=1000u64));
                    Op::Transfer { from, to, amount }
                }
                Kind::Smallbank => {
                    let c = rng.random_range(0..ACCOUNTS);
                    let amount = U256::from(rng.random_range(1..=100u64));
                    match rng.random_range(0..6u8) {
                        0 => Op::Balance { c },
                        1 => Op::DepositChecking { c, amount },
                        2 => Op::TransactSavings { c, amount },
                        3 => Op::Amalgamate {
                            c,
                            d: rng.random_range(0..ACCOUNTS),
                        },
                        4 => Op::WriteCheck { c, amount },
                        _ => Op::SendPayment {
                            c,
                            d: rng.random_range(0..ACCOUNTS),
                            amount,
                        },
                    }
                }
                Kind::Erc20 => {
                    let (from, to) = (rng.random_range(0..ACCOUNTS), rng.random_range(0..ACCOUNTS));
                    let amount = U256::from(rng.random_range(1..=1000u64));
                    Op::TokenTransfer { from, to, amount }
                }
                Kind::Kvstore => {
                    let k = rng.random_range(0..RECORDS);
                    if rng.random_bool(0.5) {
                        Op::Read { k }
                    } else {
                        let mut value = [0u8; 32];
                        rng.fill(&mut value);
                        Op::Write { k, value }
                    }
                }
            })
            .collect()
    }

    /// Block `number`'s operations as signed EIP-1559 transactions with their senders: the
    /// transfer workload's from the account it moves wei from, the others' from workload
    /// account `(number × ops + i) mod 1000` for operation `i`; `nonce` gives each sender's next
    /// nonce (counting those of the block's earlier transactions is left to it). A transfer to
    /// its own sender is not sent.
    pub fn transactions(
        &self,
        number: u64,
        chain_id: u64,
        max_fee_per_gas: u128,
        nonce: &mut dyn FnMut(Address) -> anyhow::Result<u64>,
    ) -> anyhow::Result<Vec<(TxEnvelope, Address)>> {
        let mut out = Vec::with_capacity(self.ops_per_block);
        for (i, op) in self.ops(number).into_iter().enumerate() {
            let from = match op {
                Op::Transfer { from, to, .. } | Op::TokenTransfer { from, to, .. }
                    if from == to =>
                {
                    continue;
                }
                Op::Transfer { from, .. } | Op::TokenTransfer { from, .. } => from,
                _ => (number.wrapping_mul(self.ops_per_block as u64) + i as u64) % ACCOUNTS,
            };
            let signer = signer(from)
                .ok_or_else(|| anyhow::anyhow!("workload account {from} has no key"))?;
            let sender = signer.address();
            let (to, value, input, gas_limit) = op.call();
            let tx = TxEip1559 {
                chain_id,
                nonce: nonce(sender)?,
                gas_limit,
                max_fee_per_gas,
                max_priority_fee_per_gas: 0,
                to: TxKind::Call(to),
                value,
                input,
                ..Default::default()
            };
            let sig = crate::sign::sign_hash(signer, &tx.signature_hash())?;
            out.push((TxEnvelope::from(tx.into_signed(sig)), sender));
        }
        Ok(out)
    }

    /// The model of block `number`: the writes its operations make to the workload's own keys
    /// (balances and nonces of the transfer workload's accounts, the contracts' slots), reading
    /// current values through `read`. Executed, the block's transactions write the same, and
    /// besides them the senders' fees and nonces.
    pub fn block(&self, number: u64, read: &dyn Fn(&Key) -> Word) -> Vec<Write> {
        let mut v = View {
            read,
            written: HashMap::new(),
            order: Vec::new(),
        };
        for op in self.ops(number) {
            match op {
                Op::Transfer { from, to, amount } => {
                    let (fb, tb) = (Key::Balance(account(from)), Key::Balance(account(to)));
                    let have = num(&v.get(&fb));
                    if from == to || have < amount {
                        continue;
                    }
                    v.set(fb, word(have - amount));
                    v.set(tb, word(num(&v.get(&tb)) + amount));
                    let nk = Key::Nonce(account(from));
                    let n = u64_from_word(&v.get(&nk)).unwrap_or(0);
                    v.set(nk, word_from_u64(n.saturating_add(1)));
                }
                Op::Balance { .. } | Op::Read { .. } => {}
                Op::DepositChecking { c, amount } => {
                    let k = checking(c);
                    v.set(k, word(num(&v.get(&k)) + amount));
                }
                Op::TransactSavings { c, amount } => {
                    let k = savings(c);
                    v.set(k, word(num(&v.get(&k)) + amount));
                }
                Op::Amalgamate { c, d } => {
                    let total = num(&v.get(&checking(c))) + num(&v.get(&savings(c)));
                    v.set(checking(c), [0; 32]);
                    v.set(savings(c), [0; 32]);
                    v.set(checking(d), word(num(&v.get(&checking(d))) + total));
                }
                Op::WriteCheck { c, amount } => {
                    let have = num(&v.get(&checking(c)));
                    let total = have + num(&v.get(&savings(c)));
                    let debit = if total < amount {
                        amount + U256::from(1)
                    } else {
                        amount
                    };
                    v.set(checking(c), word(have.saturating_sub(debit)));
                }
                Op::SendPayment { c, d, amount } => {
                    let have = num(&v.get(&checking(c)));
                    if c != d && have >= amount {
                        v.set(checking(c), word(have - amount));
                        v.set(checking(d), word(num(&v.get(&checking(d))) + amount));
                    }
                }
                Op::Write { k, value } => v.set(record(k), value),
                Op::TokenTransfer { from, to, amount } => {
                    let (fb, tb) = (token_balance(account(from)), token_balance(account(to)));
                    let have = num(&v.get(&fb));
                    if from == to || have < amount {
                        continue;
                    }
                    v.set(fb, word(have - amount));
                    v.set(tb, word(num(&v.get(&tb)) + amount));
                }
            }
        }
        v.order
            .iter()
            .filter_map(|k| v.written.get(k).map(|w| (*k, *w)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_deterministic_and_conserve_money() {
        for kind in [Kind::Transfer, Kind::Smallbank, Kind::Kvstore] {
            let w = Workload {
                kind,
                seed: 7,
                ops_per_block: 50,
            };
            let genesis: HashMap<Key, Word> = w.genesis().into_iter().collect();
            let read = |k: &Key| genesis.get(k).copied().unwrap_or([0; 32]);
            let a = w.block(3, &read);
            assert_eq!(a, w.block(3, &read));
            assert_ne!(a, w.block(4, &read));
            assert!(!a.is_empty());
            if kind == Kind::Transfer {
                let before: U256 = a
                    .iter()
                    .filter(|(k, _)| matches!(k, Key::Balance(_)))
                    .map(|(k, _)| num(&read(k)))
                    .sum();
                let after: U256 = a
                    .iter()
                    .filter(|(k, _)| matches!(k, Key::Balance(_)))
                    .map(|(_, v)| num(v))
                    .sum();
                assert_eq!(before, after, "transfers move money, never make it");
            }
        }
    }
}
