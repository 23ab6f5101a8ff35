//! Deterministic workloads that fill blocks: each block's operations follow from the seed and
//! the block number alone, so two nodes with the same flags produce the same chain.
//!
//! Mapping onto state (see README):
//! - `transfer`: accounts `acct(i)` (i < 1000); a transfer moves 1..=1000 wei from one to another:
//!   two balance writes and the sender's nonce.
//! - `smallbank`: a contract-style account `SMALLBANK` holds, per customer `c` (c < 1000),
//!   `checking(c)` at slot keccak256(c ‖ 0) and `savings(c)` at keccak256(c ‖ 1). Operations in
//!   the usual SmallBank mix: Balance (read only), DepositChecking, TransactSavings,
//!   Amalgamate, WriteCheck, SendPayment.
//! - `kvstore`: YCSB workload A over a contract-style account `KVSTORE`: record `k` (k < 10 000)
//!   is slot keccak256(k); half the operations read a record, half overwrite it with 32 random
//!   bytes.

use std::collections::HashMap;

use alloy_primitives::{Address, B256, U256, keccak256};
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
}

/// The contract-style account that holds SmallBank's slots.
pub const SMALLBANK: Address = Address::new([0x5b; 20]);
/// The contract-style account that holds the key-value store's slots.
pub const KVSTORE: Address = Address::new([0xcc; 20]);
const ACCOUNTS: u64 = 1000;
const RECORDS: u64 = 10_000;

/// Synthetic account `i` of the transfer workload.
pub fn account(i: u64) -> Address {
    let h = keccak256([b"lightprov transfer account".as_slice(), &i.to_be_bytes()].concat());
    Address::from_word(h)
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
                .map(|i| (Key::Balance(account(i)), word(U256::from(1_000_000_000u64))))
                .collect(),
            Kind::Smallbank => (0..ACCOUNTS)
                .flat_map(|c| {
                    [
                        (checking(c), word(U256::from(10_000))),
                        (savings(c), word(U256::from(10_000))),
                    ]
                })
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

    /// The writes of block `number`, reading current values through `read`.
    pub fn block(&self, number: u64, read: &dyn Fn(&Key) -> Word) -> Vec<Write> {
        let mut rng =
            ChaCha8Rng::seed_from_u64(self.seed ^ number.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut v = View {
            read,
            written: HashMap::new(),
            order: Vec::new(),
        };
        for _ in 0..self.ops_per_block {
            match self.kind {
                Kind::Transfer => {
                    let (from, to) = (rng.random_range(0..ACCOUNTS), rng.random_range(0..ACCOUNTS));
                    let amount = U256::from(rng.random_range(1..=1000u64));
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
                Kind::Smallbank => {
                    let c = rng.random_range(0..ACCOUNTS);
                    let amount = U256::from(rng.random_range(1..=100u64));
                    match rng.random_range(0..6u8) {
                        0 => {} // Balance: reads checking + savings, writes nothing
                        1 => {
                            let k = checking(c);
                            v.set(k, word(num(&v.get(&k)) + amount));
                        }
                        2 => {
                            let k = savings(c);
                            v.set(k, word(num(&v.get(&k)) + amount));
                        }
                        3 => {
                            // Amalgamate: move all of c's funds into d's checking.
                            let d = rng.random_range(0..ACCOUNTS);
                            let total = num(&v.get(&checking(c))) + num(&v.get(&savings(c)));
                            v.set(checking(c), [0; 32]);
                            v.set(savings(c), [0; 32]);
                            v.set(checking(d), word(num(&v.get(&checking(d))) + total));
                        }
                        4 => {
                            // WriteCheck: debit checking (with a penalty of 1 when overdrawn).
                            let have = num(&v.get(&checking(c)));
                            let total = have + num(&v.get(&savings(c)));
                            let debit = if total < amount {
                                amount + U256::from(1)
                            } else {
                                amount
                            };
                            v.set(checking(c), word(have.saturating_sub(debit)));
                        }
                        _ => {
                            // SendPayment: checking c -> checking d, if funds allow.
                            let d = rng.random_range(0..ACCOUNTS);
                            let have = num(&v.get(&checking(c)));
                            if c != d && have >= amount {
                                v.set(checking(c), word(have - amount));
                                v.set(checking(d), word(num(&v.get(&checking(d))) + amount));
                            }
                        }
                    }
                }
                Kind::Kvstore => {
                    let k = rng.random_range(0..RECORDS);
                    if rng.random_bool(0.5) {
                        let _ = v.get(&record(k)); // read
                    } else {
                        let mut value = [0u8; 32];
                        rng.fill(&mut value);
                        v.set(record(k), value);
                    }
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
