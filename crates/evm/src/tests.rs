//! A small chain state built with an independent trie (eth_trie), its proofs, and calls over it:
//! each check of the proven state broken exactly once.

use alloc::{collections::BTreeMap, sync::Arc, vec, vec::Vec};

use alloy_rlp::{Encodable, Header as RlpHeader};
use eth_trie::{EthTrie, MemoryDB, Trie};
use lightprov_types::{
    Address, B256, EMPTY_ROOT_HASH, ErrorCode, KECCAK_EMPTY, Rejection,
    header::Header,
    mpt::{AccountProof, StorageProof},
};
use lightprov_verifier::keccak256;
use revm::primitives::{Bytes, U256};

use crate::*;

fn addr(n: u8) -> Address {
    Address::repeat_byte(n)
}

fn word(n: u64) -> U256 {
    U256::from(n)
}

/// Storage slot `n` as a key.
fn key(n: u64) -> B256 {
    B256::from(word(n).to_be_bytes::<32>())
}

#[derive(Clone, Default)]
struct Acct {
    nonce: u64,
    balance: U256,
    code: Vec<u8>,
    storage: BTreeMap<U256, U256>,
}

/// Accounts, their tries, and a header over them.
struct World {
    accounts: BTreeMap<Address, Acct>,
    chain: ChainSpec,
    number: u64,
    timestamp: u64,
    coinbase: Address,
    base_fee: u64,
}

fn trimmed(w: &[u8]) -> &[u8] {
    &w[w.iter().position(|&b| b != 0).unwrap_or(w.len())..]
}

fn storage_trie(storage: &BTreeMap<U256, U256>) -> EthTrie<MemoryDB> {
    let mut t = EthTrie::new(Arc::new(MemoryDB::new(true)));
    for (k, v) in storage {
        if v.is_zero() {
            continue;
        }
        let mut rlp = vec![];
        trimmed(&v.to_be_bytes::<32>()).encode(&mut rlp);
        t.insert(keccak256(k.to_be_bytes::<32>()).as_slice(), &rlp)
            .unwrap();
    }
    t
}

fn account_rlp(a: &Acct, storage_root: B256) -> Vec<u8> {
    let balance = a.balance.to_be_bytes::<32>();
    let balance = trimmed(&balance);
    let code_hash = keccak256(&a.code);
    let payload = a.nonce.length() + balance.length() + storage_root.length() + code_hash.length();
    let mut out = vec![];
    RlpHeader {
        list: true,
        payload_length: payload,
    }
    .encode(&mut out);
    a.nonce.encode(&mut out);
    balance.encode(&mut out);
    storage_root.encode(&mut out);
    code_hash.encode(&mut out);
    out
}

/// The mainnet-like schedule of the tests: every fork through Osaka at time 0.
fn osaka_chain() -> ChainSpec {
    ChainSpec {
        chain_id: 1337,
        london_block: 0,
        shanghai_time: Some(0),
        cancun_time: Some(0),
        prague_time: Some(0),
        osaka_time: Some(0),
        later_time: None,
        blob_fractions: vec![],
        proof_of_authority: false,
    }
}

impl World {
    fn new() -> Self {
        Self {
            accounts: BTreeMap::new(),
            chain: osaka_chain(),
            number: 100,
            timestamp: 1_000,
            coinbase: addr(0xcb),
            base_fee: 7,
        }
    }

    fn with(mut self, a: Address, acct: Acct) -> Self {
        self.accounts.insert(a, acct);
        self
    }

    fn with_code(self, a: Address, code: Vec<u8>) -> Self {
        self.with(
            a,
            Acct {
                code,
                ..Default::default()
            },
        )
    }

    fn state_trie(&self) -> EthTrie<MemoryDB> {
        let mut t = EthTrie::new(Arc::new(MemoryDB::new(true)));
        for (a, acct) in &self.accounts {
            let root = storage_trie(&acct.storage).root_hash().unwrap();
            t.insert(keccak256(a).as_slice(), &account_rlp(acct, root))
                .unwrap();
        }
        t
    }

    fn header(&self) -> Header {
        Header {
            parent_hash: B256::repeat_byte(0x99),
            ommers_hash: B256::repeat_byte(0x1d),
            beneficiary: self.coinbase,
            state_root: self.state_trie().root_hash().unwrap(),
            transactions_root: EMPTY_ROOT_HASH,
            receipts_root: EMPTY_ROOT_HASH,
            number: self.number,
            gas_limit: 30_000_000,
            timestamp: self.timestamp,
            mix_hash: B256::repeat_byte(0x42),
            base_fee_per_gas: Some(U256::from(self.base_fee).to_be_bytes::<32>()),
            withdrawals_root: Some(EMPTY_ROOT_HASH),
            blob_gas_used: Some(0),
            excess_blob_gas: Some(0),
            parent_beacon_block_root: Some(B256::ZERO),
            requests_hash: Some(B256::ZERO),
            ..Header::default()
        }
    }

    fn state(&self) -> ProvenState {
        let rlp = self.header().rlp().unwrap();
        ProvenState::new(&rlp, keccak256(&rlp), self.chain.clone()).unwrap()
    }

    /// The `eth_getProof` answer, as the wire format.
    fn proof_of(&self, a: Address, slots: &[U256]) -> AccountProof {
        let mut t = self.state_trie();
        let acct = self.accounts.get(&a).cloned();
        let mut st = storage_trie(&acct.clone().unwrap_or_default().storage);
        // (eth_trie serves proofs from committed nodes only.)
        t.root_hash().unwrap();
        let exists = acct.is_some();
        let acct = acct.unwrap_or_default();
        AccountProof {
            address: a,
            balance: acct.balance.to_be_bytes::<32>(),
            nonce: acct.nonce,
            code_hash: if exists {
                keccak256(&acct.code)
            } else {
                KECCAK_EMPTY
            },
            storage_hash: st.root_hash().unwrap(),
            account_proof: t.get_proof(keccak256(a).as_slice()).unwrap(),
            storage_proof: slots
                .iter()
                .map(|s| StorageProof {
                    key: B256::from(s.to_be_bytes::<32>()),
                    value: acct
                        .storage
                        .get(s)
                        .copied()
                        .unwrap_or_default()
                        .to_be_bytes::<32>(),
                    proof: st
                        .get_proof(keccak256(s.to_be_bytes::<32>()).as_slice())
                        .unwrap(),
                })
                .collect(),
        }
    }

    fn prove(&self, state: &mut ProvenState, a: Address, slots: &[U256]) {
        let keys: Vec<B256> = slots
            .iter()
            .map(|s| B256::from(s.to_be_bytes::<32>()))
            .collect();
        state
            .add_proof(a, &keys, &self.proof_of(a, slots).encode())
            .unwrap();
    }

    /// Feeds `state` what each run asks for, from this world, until the call completes;
    /// returns the answer and the pieces fetched, in order.
    fn serve<T>(
        &self,
        state: &mut ProvenState,
        mut ask: impl FnMut(&ProvenState) -> Outcome<T>,
    ) -> (T, Vec<Need>) {
        let mut fetched = vec![];
        for _ in 0..100 {
            match ask(state) {
                Outcome::Done(t) => return (t, fetched),
                Outcome::Missing(need) => {
                    fetched.push(need);
                    match need {
                        Need::Account(a) => self.prove(state, a, &[]),
                        Need::Slot(a, s) => self.prove(state, a, &[s]),
                        Need::Code(a) => state
                            .add_code(
                                a,
                                &self
                                    .accounts
                                    .get(&a)
                                    .map(|x| x.code.clone())
                                    .unwrap_or_default(),
                            )
                            .unwrap(),
                        Need::BlockHash(n) => panic!("block hash {n} asked"),
                    }
                }
            }
        }
        panic!("no answer in 100 rounds")
    }
}

/// `PUSH1 slot SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`: returns storage slot `slot`.
fn load_slot(slot: u8) -> Vec<u8> {
    vec![0x60, slot, 0x54, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3]
}

fn returns_word(out: &Bytes) -> U256 {
    U256::from_be_slice(out)
}

const ALICE: u8 = 0xa1;
const TOKEN: u8 = 0x70;

fn token_world() -> World {
    let mut storage = BTreeMap::new();
    storage.insert(word(0), word(1234));
    storage.insert(word(1), word(5));
    World::new()
        .with(
            addr(ALICE),
            Acct {
                balance: word(10u64.pow(18)),
                ..Default::default()
            },
        )
        .with(
            addr(TOKEN),
            Acct {
                code: load_slot(0),
                storage,
                ..Default::default()
            },
        )
        .with(addr(0xcb), Acct::default())
}

fn call_to(to: u8) -> CallRequest {
    CallRequest {
        from: addr(ALICE),
        to: Some(addr(to)),
        ..Default::default()
    }
}

fn run_call(
    state: &ProvenState,
    req: &CallRequest,
) -> Outcome<Result<Executed, alloc::string::String>> {
    call(state, req, DEFAULT_GAS_CAP).unwrap()
}

#[test]
fn a_call_stops_at_each_unproven_piece_and_answers_from_proofs_only() {
    let w = token_world();
    let mut state = w.state();
    let req = call_to(TOKEN);
    let (answer, fetched) = w.serve(&mut state, |s| run_call(s, &req));
    let e = answer.unwrap();
    assert_eq!(e.status, Status::Success);
    assert_eq!(returns_word(&e.output), word(1234));
    // Nothing was read as empty: the sender, the callee, its code, the coinbase (warm from
    // Shanghai on) and the slot were each asked for.
    assert_eq!(
        fetched,
        vec![
            Need::Account(addr(ALICE)),
            Need::Account(addr(TOKEN)),
            Need::Code(addr(TOKEN)),
            Need::Account(addr(0xcb)),
            Need::Slot(addr(TOKEN), word(0)),
        ]
    );
}

#[test]
fn a_prefetched_state_answers_in_one_run() {
    let w = token_world();
    let mut state = w.state();
    w.prove(&mut state, addr(ALICE), &[]);
    w.prove(&mut state, addr(TOKEN), &[word(0)]);
    w.prove(&mut state, addr(0xcb), &[]);
    state.add_code(addr(TOKEN), &load_slot(0)).unwrap();
    let Outcome::Done(Ok(e)) = run_call(&state, &call_to(TOKEN)) else {
        panic!("not answered from the prefetched state");
    };
    assert_eq!(returns_word(&e.output), word(1234));
}

#[test]
fn an_unproven_slot_is_never_read_as_zero() {
    let w = token_world();
    let mut state = w.state();
    w.prove(&mut state, addr(ALICE), &[]);
    w.prove(&mut state, addr(0xcb), &[]);
    // The callee proven with another slot than the one the call reads.
    w.prove(&mut state, addr(TOKEN), &[word(1)]);
    state.add_code(addr(TOKEN), &load_slot(0)).unwrap();
    assert_eq!(
        run_call(&state, &call_to(TOKEN)),
        Outcome::Missing(Need::Slot(addr(TOKEN), word(0)))
    );
}

#[test]
fn rejects_a_wrong_storage_value() {
    let w = token_world();
    let mut state = w.state();
    let mut p = w.proof_of(addr(TOKEN), &[word(0)]);
    p.storage_proof[0].value = word(9999).to_be_bytes::<32>();
    let e = state
        .add_proof(addr(TOKEN), &[key(0)], &p.encode())
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::ValueMismatch, "{e}");
    assert!(
        e.evidence().field.starts_with("proofs[0x7070"),
        "{}",
        e.evidence().field
    );
    // Nothing of it was taken.
    assert!(state.account(&addr(TOKEN)).is_none());
}

#[test]
fn rejects_a_wrong_balance_and_a_proof_of_another_account() {
    let w = token_world();
    let mut state = w.state();
    let mut p = w.proof_of(addr(ALICE), &[]);
    p.balance = word(1).to_be_bytes::<32>();
    let e = state.add_proof(addr(ALICE), &[], &p.encode()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::ValueMismatch);
    let p = w.proof_of(addr(TOKEN), &[]);
    let e = state.add_proof(addr(ALICE), &[], &p.encode()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::KeyMismatch);
}

#[test]
fn rejects_storage_proofs_for_other_slots_than_asked() {
    let w = token_world();
    let mut state = w.state();
    let p = w.proof_of(addr(TOKEN), &[word(1)]);
    let e = state
        .add_proof(addr(TOKEN), &[key(0)], &p.encode())
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::BadEncoding);
    assert_eq!(
        e.evidence().field,
        "proofs[0x7070707070707070707070707070707070707070].storageProof[0]"
    );
}

#[test]
fn rejects_a_proof_against_another_state_root() {
    let w = token_world();
    let mut other = token_world();
    other.accounts.get_mut(&addr(ALICE)).unwrap().balance = word(1);
    let mut state = w.state();
    let e = state
        .add_proof(addr(ALICE), &[], &other.proof_of(addr(ALICE), &[]).encode())
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::RootMismatch);
}

#[test]
fn rejects_substituted_code() {
    let w = token_world();
    let mut state = w.state();
    w.prove(&mut state, addr(TOKEN), &[]);
    let e = state.add_code(addr(TOKEN), &load_slot(1)).unwrap_err();
    let EvmError::State(e) = e else {
        panic!("{e:?}")
    };
    assert_eq!(e.code(), ErrorCode::CodeHashMismatch);
    assert_eq!(
        e.evidence().expected.as_deref(),
        Some(
            alloc::format!(
                "{}",
                lightprov_types::hex::Hex(keccak256(load_slot(0)).as_slice())
            )
            .as_str()
        )
    );
    // Code before its account's proof is the caller's mistake, not taken either.
    assert!(matches!(
        state.add_code(addr(ALICE), &[]),
        Err(EvmError::Request(_))
    ));
}

#[test]
fn rejects_a_header_that_is_not_the_verified_block() {
    let w = token_world();
    let rlp = w.header().rlp().unwrap();
    let e = ProvenState::new(&rlp, B256::repeat_byte(1), w.chain.clone()).unwrap_err();
    let EvmError::State(e) = e else {
        panic!("{e:?}")
    };
    assert_eq!(e.code(), ErrorCode::HeaderHashMismatch);
}

#[test]
fn an_account_without_storage_reads_zero_without_slot_proofs() {
    let w = token_world().with_code(addr(0x55), load_slot(7));
    let mut state = w.state();
    let (answer, fetched) = w.serve(&mut state, |s| run_call(s, &call_to(0x55)));
    assert_eq!(returns_word(&answer.unwrap().output), U256::ZERO);
    assert!(
        !fetched.iter().any(|n| matches!(n, Need::Slot(..))),
        "{fetched:?}"
    );
}

#[test]
fn a_call_to_an_empty_account_returns_nothing() {
    let w = token_world();
    let mut state = w.state();
    let (answer, fetched) = w.serve(&mut state, |s| run_call(s, &call_to(0x66)));
    let e = answer.unwrap();
    assert_eq!(e.status, Status::Success);
    assert!(e.output.is_empty());
    // Its absence was proven, not assumed.
    assert!(fetched.contains(&Need::Account(addr(0x66))));
    assert!(!state.account(&addr(0x66)).unwrap().exists);
}

/// `PUSH1 n NUMBER SUB BLOCKHASH PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN`: returns
/// `blockhash(number - n)`.
fn blockhash_back(n: u8) -> Vec<u8> {
    vec![
        0x60, n, 0x43, 0x03, 0x40, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3,
    ]
}

#[test]
fn blockhash_comes_from_verified_headers_only() {
    let w = token_world()
        .with_code(addr(0x01 + 0x80), blockhash_back(1))
        .with_code(addr(0x02 + 0x80), blockhash_back(2));
    let mut state = w.state();
    // The parent's hash is the pinned header's parentHash: no header needed.
    let (answer, _) = w.serve(&mut state, |s| run_call(s, &call_to(0x81)));
    assert_eq!(
        answer.unwrap().output.as_ref(),
        B256::repeat_byte(0x99).as_slice()
    );
    // Two back needs the parent's header.
    assert_eq!(
        run_call(&state, &call_to(0x82)),
        Outcome::Missing(Need::Account(addr(0x82)))
    );
    w.prove(&mut state, addr(0x82), &[]);
    state.add_code(addr(0x82), &blockhash_back(2)).unwrap();
    assert_eq!(
        run_call(&state, &call_to(0x82)),
        Outcome::Missing(Need::BlockHash(98))
    );
    // A parent header that does not hash to the parentHash is refused.
    let mut parent = w.header();
    parent.number = 99;
    parent.parent_hash = B256::repeat_byte(0x98);
    let e = state.add_header(&parent.rlp().unwrap()).unwrap_err();
    assert!(
        matches!(&e, EvmError::State(s) if s.code() == ErrorCode::HeaderHashMismatch),
        "{e:?}"
    );
    // A header that links to nothing known yet is the caller's mistake.
    let mut far = parent.clone();
    far.number = 50;
    assert!(matches!(
        state.add_header(&far.rlp().unwrap()),
        Err(EvmError::Request(_))
    ));
    // The real parent (whose hash the pinned header names) links, and gives block 98's hash.
    let mut w2 = World::new();
    w2.number = 99;
    let real_parent = {
        let mut h = w2.header();
        h.parent_hash = B256::repeat_byte(0x98);
        h
    };
    let rlp = real_parent.rlp().unwrap();
    let mut pinned = w.header();
    pinned.parent_hash = keccak256(&rlp);
    let pinned_rlp = pinned.rlp().unwrap();
    let mut state = ProvenState::new(&pinned_rlp, keccak256(&pinned_rlp), w.chain.clone()).unwrap();
    for a in [ALICE, 0x82, 0xcb] {
        w.prove(&mut state, addr(a), &[]);
    }
    state.add_code(addr(0x82), &blockhash_back(2)).unwrap();
    assert_eq!(
        run_call(&state, &call_to(0x82)),
        Outcome::Missing(Need::BlockHash(98))
    );
    state.add_header(&rlp).unwrap();
    let Outcome::Done(Ok(e)) = run_call(&state, &call_to(0x82)) else {
        panic!()
    };
    assert_eq!(e.output.as_ref(), B256::repeat_byte(0x98).as_slice());
}

/// `PUSH1 0 DUP1 REVERT` after storing `0xdead` at memory 0: reverts with 32 bytes.
fn reverts() -> Vec<u8> {
    vec![0x61, 0xde, 0xad, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xfd]
}

#[test]
fn a_revert_returns_its_data_and_a_halt_geths_message() {
    let w = token_world()
        .with_code(addr(0x77), reverts())
        .with_code(addr(0x78), vec![0xfe]);
    let mut state = w.state();
    let (r, _) = w.serve(&mut state, |s| run_call(s, &call_to(0x77)));
    let r = r.unwrap();
    assert_eq!(r.status, Status::Revert);
    assert_eq!(returns_word(&r.output), word(0xdead));
    let (h, _) = w.serve(&mut state, |s| run_call(s, &call_to(0x78)));
    let h = h.unwrap();
    assert_eq!(
        h.status,
        Status::Halt {
            message: "invalid opcode: INVALID".into(),
            out_of_gas: false
        }
    );
    assert_eq!(h.gas_used, DEFAULT_GAS_CAP);
    // Too little gas for the call's intrinsic cost: refused as geth refuses it.
    let req = CallRequest {
        gas: Some(20_000),
        ..call_to(0x77)
    };
    let (i, _) = w.serve(&mut state, |s| run_call(s, &req));
    assert_eq!(
        i.unwrap_err(),
        "err: intrinsic gas too low: have 20000, want 21000 (supplied gas 20000)"
    );
}

#[test]
fn a_call_paying_no_gas_price_sees_a_base_fee_of_zero() {
    // BASEFEE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
    let code = vec![0x48, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3];
    let w = token_world().with_code(addr(0x48), code);
    let mut state = w.state();
    let (free, _) = w.serve(&mut state, |s| run_call(s, &call_to(0x48)));
    assert_eq!(returns_word(&free.unwrap().output), U256::ZERO);
    let paid = CallRequest {
        max_fee_per_gas: Some(word(100)),
        ..call_to(0x48)
    };
    let (paid, _) = w.serve(&mut state, |s| run_call(s, &paid));
    assert_eq!(returns_word(&paid.unwrap().output), word(7));
    // A fee cap under the base fee is refused, as geth refuses it.
    let low = CallRequest {
        max_fee_per_gas: Some(word(6)),
        ..call_to(0x48)
    };
    let (low, _) = w.serve(&mut state, |s| run_call(s, &low));
    assert!(
        low.unwrap_err()
            .contains("max fee per gas less than block base fee")
    );
    // Paying needs the balance for the whole gas limit.
    let poor = CallRequest {
        from: addr(0x01),
        gas_price: Some(word(10)),
        ..call_to(0x48)
    };
    let (poor, _) = w.serve(&mut state, |s| run_call(s, &poor));
    assert!(
        poor.unwrap_err()
            .starts_with("err: insufficient funds for gas * price + value")
    );
}

#[test]
fn the_block_environment_is_the_pinned_headers() {
    // NUMBER TIMESTAMP COINBASE GASLIMIT PREVRANDAO CHAINID, each stored to memory and returned.
    let mut code = vec![];
    for (i, op) in [0x43u8, 0x42, 0x41, 0x45, 0x44, 0x46].iter().enumerate() {
        code.extend([*op, 0x60, (i * 32) as u8, 0x52]);
    }
    code.extend([0x60, 192, 0x60, 0, 0xf3]);
    let w = token_world().with_code(addr(0x40), code);
    let mut state = w.state();
    let (r, _) = w.serve(&mut state, |s| run_call(s, &call_to(0x40)));
    let out = r.unwrap().output;
    let at = |i: usize| U256::from_be_slice(&out[i * 32..i * 32 + 32]);
    assert_eq!(at(0), word(100));
    assert_eq!(at(1), word(1_000));
    assert_eq!(at(2), U256::from_be_slice(addr(0xcb).as_slice()));
    assert_eq!(at(3), word(30_000_000));
    assert_eq!(at(4), U256::from_be_bytes(B256::repeat_byte(0x42).0));
    assert_eq!(at(5), word(1337));
}

#[test]
fn the_fork_follows_the_schedule() {
    // CLZ (Osaka) of 1: 255.
    let code = vec![0x60, 1, 0x1e, 0x60, 0, 0x52, 0x60, 32, 0x60, 0, 0xf3];
    let mut w = token_world().with_code(addr(0x1e), code);
    let mut state = w.state();
    assert_eq!(state.fork(), Fork::Osaka);
    let (r, _) = w.serve(&mut state, |s| run_call(s, &call_to(0x1e)));
    assert_eq!(returns_word(&r.unwrap().output), word(255));
    w.chain.osaka_time = Some(2_000);
    let mut state = w.state();
    assert_eq!(state.fork(), Fork::Prague);
    let (r, _) = w.serve(&mut state, |s| run_call(s, &call_to(0x1e)));
    assert!(matches!(r.unwrap().status, Status::Halt { .. }));
}

/// Stores 1 to slot 0 (a fresh slot: 22 100 gas) and returns.
fn stores() -> Vec<u8> {
    vec![0x60, 1, 0x60, 0, 0x55, 0x00]
}

#[test]
fn estimates_gas_as_geths_search_does() {
    let w = token_world().with_code(addr(0x55), stores());
    let mut state = w.state();
    let req = call_to(0x55);
    let (est, _) = w.serve(&mut state, |s| {
        estimate_gas(s, &req, DEFAULT_GAS_CAP).unwrap()
    });
    let est = est.unwrap();
    // 21000 + 2 pushes + a cold fresh SSTORE; it must succeed with the estimate.
    let used = 21_000 + 6 + 22_100;
    assert!(est >= used && est <= used * 1015 / 1000, "{est}");
    let ok = CallRequest {
        gas: Some(est),
        ..call_to(0x55)
    };
    let (r, _) = w.serve(&mut state, |s| run_call(s, &ok));
    assert_eq!(r.unwrap().status, Status::Success);
    // A plain transfer to an account without code: 21000 exactly.
    let t = CallRequest {
        value: word(1),
        ..call_to(0x66)
    };
    let (t, _) = w.serve(&mut state, |s| {
        estimate_gas(s, &t, DEFAULT_GAS_CAP).unwrap()
    });
    assert_eq!(t.unwrap(), 21_000);
    // A call that always reverts: geth's answer is the revert.
    let w = w.with_code(addr(0x77), reverts());
    let mut state = w.state();
    let (r, _) = w.serve(&mut state, |s| {
        estimate_gas(s, &call_to(0x77), DEFAULT_GAS_CAP).unwrap()
    });
    let Err(EstimateError::Reverted(data)) = r else {
        panic!("{r:?}")
    };
    assert_eq!(returns_word(&data), word(0xdead));
}

#[test]
fn creates_the_access_list_geth_would() {
    // BALANCE(0x66) POP; SLOAD(3) POP; STATICCALL(gas, 0x70, 0, 0, 0, 0) POP; STOP
    let code = vec![
        0x73, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
        0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x31, 0x50, // BALANCE(0x66..) POP
        0x60, 3, 0x54, 0x50, // SLOAD(3) POP
        0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x73, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70,
        0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x70, 0x5a, 0xfa, 0x50,
        0x00,
    ];
    let mut storage = BTreeMap::new();
    storage.insert(word(3), word(1));
    let w = token_world().with(
        addr(0x33),
        Acct {
            code,
            storage,
            ..Default::default()
        },
    );
    let mut state = w.state();
    let req = call_to(0x33);
    let (r, _) = w.serve(&mut state, |s| {
        create_access_list(s, &req, DEFAULT_GAS_CAP).unwrap()
    });
    let r = r.unwrap();
    assert_eq!(r.error, None);
    assert_eq!(
        r.list,
        vec![
            (addr(0x33), vec![key(3)]),
            (addr(0x66), vec![]),
            (addr(TOKEN), vec![key(0)]),
        ]
    );
    // Its gas is that of the run with the list.
    let with = CallRequest {
        access_list: Some(r.list.clone()),
        ..call_to(0x33)
    };
    let (e, _) = w.serve(&mut state, |s| run_call(s, &with));
    assert_eq!(e.unwrap().gas_used, r.gas_used);
}

#[test]
fn the_request_wire_format_round_trips_and_refuses_trailing_bytes() {
    let req = CallRequest {
        from: addr(1),
        to: Some(addr(2)),
        gas: Some(100_000),
        max_fee_per_gas: Some(word(5)),
        max_priority_fee_per_gas: Some(word(1)),
        value: word(3),
        input: Bytes::from_static(&[1, 2, 3]),
        nonce: Some(4),
        chain_id: Some(1),
        access_list: Some(vec![(addr(3), vec![B256::repeat_byte(4)])]),
        blob_hashes: Some(vec![B256::repeat_byte(1)]),
        max_fee_per_blob_gas: Some(word(9)),
        gas_price: None,
    };
    let bytes = req.encode();
    assert_eq!(CallRequest::decode(&bytes).unwrap(), req);
    let mut long = bytes.clone();
    long.push(0);
    assert!(CallRequest::decode(&long).is_err());
    // A count the input cannot hold.
    let mut huge = CallRequest {
        access_list: Some(vec![]),
        ..Default::default()
    }
    .encode();
    let n = huge.len();
    huge[n - 4..].copy_from_slice(&u32::MAX.to_be_bytes());
    assert!(CallRequest::decode(&huge).is_err());
}

#[test]
fn public_schedules_resolve_and_others_need_one() {
    assert!(ChainSpec::public(1).is_some());
    assert!(ChainSpec::public(1337).is_none());
}

/// geth's `prestateTracer` over `w`: the trace of `req`.
fn prestate_of(w: &World, req: &CallRequest, diff_mode: bool) -> PrestateTrace {
    let config = PrestateConfig {
        diff_mode,
        ..Default::default()
    };
    let mut state = w.state();
    let (answer, _) = w.serve(&mut state, |s| {
        prestate_trace(s, req, DEFAULT_GAS_CAP, &config, &|| false).unwrap()
    });
    answer.unwrap()
}

#[test]
fn prestate_leaves_out_an_instruction_that_fails_its_gas_check() {
    // `PUSH1 9 SLOAD STOP`: a cold SLOAD costs 2100 after the push's 3.
    let w = token_world().with(
        addr(0x71),
        Acct {
            balance: word(1),
            code: vec![0x60, 9, 0x54, 0x00],
            ..Default::default()
        },
    );
    let at = |gas: u64| {
        let req = CallRequest {
            gas: Some(gas),
            ..call_to(0x71)
        };
        prestate_of(&w, &req, false).pre[&addr(0x71)]
            .storage
            .clone()
    };
    // geth charges the gas before its hook sees the instruction: a SLOAD it cannot pay for is
    // not looked up.
    assert!(at(21_000 + 3 + 2_099).is_empty());
    assert_eq!(
        at(21_000 + 3 + 2_100),
        BTreeMap::from([(key(9), B256::ZERO)])
    );
}

#[test]
fn prestate_follows_create2_selfdestruct_and_delegations() {
    let c2 = addr(0x72);
    let sd = addr(0x73);
    let delegated = addr(0xd1);
    let mut designation = vec![0xef, 0x01, 0x00];
    designation.extend_from_slice(addr(TOKEN).as_slice());
    let w = token_world()
        // `CREATE2(value 0, offset 0, size 1, salt 7)` over memory not yet written: its init code
        // is one zero byte (geth pads memory with zeros).
        .with_code(
            c2,
            vec![0x60, 7, 0x60, 1, 0x60, 0, 0x60, 0, 0xf5, 0x50, 0x00],
        )
        // `SELFDESTRUCT(0xbb…)` of an account that was not created by the call: from Cancun on it
        // only moves its balance.
        .with(
            sd,
            Acct {
                balance: word(5),
                code: vec![0x60, 0xbb, 0xff],
                ..Default::default()
            },
        )
        .with_code(delegated, designation);

    let t = prestate_of(&w, &call_to(0x72), true);
    let child = c2.create2(key(7), keccak256([0u8]));
    let post = t.post.unwrap();
    assert_eq!(
        post[&child],
        TracedAccount {
            nonce: 1,
            ..Default::default()
        }
    );
    assert_eq!(post[&c2].nonce, 1);
    assert!(!t.pre.contains_key(&child));
    assert_eq!(t.pre[&c2].code_hash, Some(keccak256(&w.accounts[&c2].code)));

    let t = prestate_of(&w, &call_to(0x73), true);
    let beneficiary = Address::with_last_byte(0xbb);
    let post = t.post.unwrap();
    assert_eq!(post[&sd].balance, Some(U256::ZERO));
    assert_eq!(post[&beneficiary].balance, Some(word(5)));
    assert_eq!(t.pre[&sd].balance, Some(word(5)));
    assert!(!t.pre.contains_key(&beneficiary));
    // The coinbase, an empty account, stays: a call paying no fee does not touch it (geth).
    assert!(!post.contains_key(&addr(0xcb)));

    // A call to a delegated account looks up its delegate (Prague), with the slot it read.
    let t = prestate_of(&w, &call_to(0xd1), false);
    assert!(t.pre.contains_key(&delegated));
    assert_eq!(
        t.pre[&addr(TOKEN)].storage,
        BTreeMap::new(),
        "the delegate's code runs on the delegated account's storage"
    );
    assert_eq!(
        t.pre[&delegated].storage,
        BTreeMap::from([(key(0), B256::ZERO)])
    );
}
