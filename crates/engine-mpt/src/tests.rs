use std::path::Path;

use std::collections::BTreeMap;

use alloy_primitives::B256;
use lightprov_engine_api::{Key, u64_from_word, word_from_u64};
use lightprov_types::Word;
use lightprov_verifier::mpt::verify_account_proof;

use super::*;

fn open(dir: &Path) -> MptEngine {
    MptEngine::open_dir(dir).unwrap()
}

/// Verifies with the foundation verifier and returns the proven value of `key`.
fn verify(root: &B256, key: &Key, _block: u64, proof: &AccountProof) -> Result<Word, String> {
    if proof.address != key.address() {
        return Err("proof for another address".into());
    }
    let a = verify_account_proof(root, &proof.as_ref()).map_err(|e| e.to_string())?;
    Ok(match key {
        Key::Balance(_) => a.balance,
        Key::Nonce(_) => word_from_u64(a.nonce),
        Key::Storage(_, slot) => match a.storage.as_slice() {
            [(k, v)] if k == slot => *v,
            _ => return Err("storage proof missing".into()),
        },
    })
}

lightprov_engine_api::conformance_tests!(open, verify);

/// The same suite on the other key-value store.
mod on_redb {
    use std::{path::Path, sync::Arc};

    use lightprov_engine_api::kv::RedbStore;

    use super::{MptEngine, verify};

    fn open(dir: &Path) -> MptEngine<RedbStore> {
        MptEngine::open(Arc::new(RedbStore::open(dir).unwrap())).unwrap()
    }

    lightprov_engine_api::conformance_tests!(open, verify);
}

#[test]
fn nonce_words_must_fit_u64() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = open(dir.path());
    let a = Address::repeat_byte(1);
    assert!(matches!(
        e.apply_block(0, &[(Key::Nonce(a), [1; 32])]),
        Err(MptEngineError::NonceOverflow(_))
    ));
    assert_eq!(e.head(), None, "a failed block is not committed");
    e.apply_block(0, &[(Key::Nonce(a), word_from_u64(u64::MAX))])
        .unwrap();
    assert_eq!(
        u64_from_word(&e.get(&Key::Nonce(a), 0).unwrap()),
        Some(u64::MAX)
    );
}

#[test]
fn blocks_apply_in_order_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = open(dir.path());
    assert!(matches!(
        e.apply_block(1, &[]),
        Err(MptEngineError::BlockOrder {
            expected: 0,
            got: 1
        })
    ));
    assert_eq!(e.apply_block(0, &[]).unwrap(), EMPTY_ROOT_HASH);
    assert!(matches!(e.root(1), Err(MptEngineError::UnknownBlock(1))));
}

/// The state root of `accounts` computed independently with alloy-trie's HashBuilder.
fn alloy_state_root(accounts: &BTreeMap<Address, (u64, Word, BTreeMap<B256, Word>)>) -> B256 {
    use alloy_trie::HashBuilder;
    use nybbles::Nibbles;
    let mut leaves: Vec<(B256, Vec<u8>)> = Vec::new();
    for (addr, (nonce, balance, storage)) in accounts {
        let mut slots: Vec<(B256, Vec<u8>)> = storage
            .iter()
            .filter(|(_, v)| **v != [0; 32])
            .map(|(k, v)| (keccak(k.as_slice()), storage_rlp(v)))
            .collect();
        slots.sort();
        let mut hb = HashBuilder::default();
        for (k, v) in &slots {
            hb.add_leaf(Nibbles::unpack(k), v);
        }
        let a = Account {
            nonce: *nonce,
            balance: *balance,
            storage_root: hb.root(),
            code_hash: KECCAK_EMPTY,
        };
        if a != Account::EMPTY {
            leaves.push((keccak(addr.as_slice()), a.rlp()));
        }
    }
    leaves.sort();
    let mut hb = HashBuilder::default();
    for (k, v) in &leaves {
        hb.add_leaf(Nibbles::unpack(k), v);
    }
    hb.root()
}

#[test]
fn roots_agree_with_alloy_trie_at_every_block() {
    for w in lightprov_engine_api::conformance::WORKLOADS {
        let dir = tempfile::tempdir().unwrap();
        let mut e = open(dir.path());
        let mut state: BTreeMap<Address, (u64, Word, BTreeMap<B256, Word>)> = BTreeMap::new();
        for (n, writes) in w.blocks().iter().enumerate() {
            for (k, v) in writes {
                let entry = state.entry(k.address()).or_default();
                match k {
                    Key::Balance(_) => entry.1 = *v,
                    Key::Nonce(_) => entry.0 = u64_from_word(v).unwrap(),
                    Key::Storage(_, s) => {
                        entry.2.insert(*s, *v);
                    }
                }
            }
            assert_eq!(
                e.apply_block(n as u64, writes).unwrap(),
                alloy_state_root(&state),
                "block {n} of {w:?}"
            );
        }
    }
}

/// Every ethereum/tests TrieTests root, through the same trie and node store the engine uses.
#[test]
fn reproduces_every_trietests_root() {
    use eth_trie::{EthTrie, Trie};
    let dir_of = |f: &str| {
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/vectors/mpt/sources/trietests")
            .join(f)
    };
    let enc = |s: &serde_json::Value, hex: bool| -> Option<Vec<u8>> {
        let s = s.as_str()?;
        Some(if hex || s.starts_with("0x") {
            alloy_primitives::hex::decode(s.trim_start_matches("0x")).unwrap()
        } else {
            s.as_bytes().to_vec()
        })
    };
    let mut cases = 0;
    for (file, secure) in [
        ("trietest.json", false),
        ("trieanyorder.json", false),
        ("trietest_secureTrie.json", true),
        ("trieanyorder_secureTrie.json", true),
        ("hex_encoded_securetrie_test.json", true),
    ] {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir_of(file)).unwrap()).unwrap();
        for (name, case) in json.as_object().unwrap() {
            let hex = case["hexEncoded"].as_bool().unwrap_or(false);
            let ops: Vec<(serde_json::Value, serde_json::Value)> = match &case["in"] {
                serde_json::Value::Array(a) => {
                    a.iter().map(|p| (p[0].clone(), p[1].clone())).collect()
                }
                serde_json::Value::Object(o) => o
                    .iter()
                    .map(|(k, v)| (serde_json::Value::from(k.clone()), v.clone()))
                    .collect(),
                _ => panic!("{file}/{name}: bad input"),
            };
            let store = tempfile::tempdir().unwrap();
            let engine = open(store.path());
            let mut trie = EthTrie::new(engine.db.clone());
            for (k, v) in ops {
                let k = enc(&k, hex).unwrap();
                let k = if secure { keccak(&k).to_vec() } else { k };
                match enc(&v, hex).filter(|v| !v.is_empty()) {
                    Some(v) => trie.insert(&k, &v).unwrap(),
                    None => {
                        trie.remove(&k).unwrap();
                    }
                }
            }
            let want = case["root"].as_str().unwrap();
            assert_eq!(trie.root_hash().unwrap().to_string(), want, "{file}/{name}");
            cases += 1;
        }
    }
    assert_eq!(cases, 25, "all TrieTests root cases");
}

/// Code hashes reach the account trie: the proof carries them, an account with code alone
/// exists, and `KECCAK_EMPTY` takes the code away again (deleting an otherwise empty account).
#[test]
fn code_hashes_are_committed_with_the_account() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = open(dir.path());
    let a = Address::repeat_byte(0xc0);
    let code = B256::repeat_byte(0x77);
    let staged = e.stage_with_code(0, &[], &[(a, code)]).unwrap();
    e.commit(staged, Vec::new()).unwrap();
    assert_ne!(e.root(0).unwrap(), EMPTY_ROOT_HASH);
    assert_eq!(e.account_at(&a, 0).unwrap().unwrap().code_hash, code);
    let proof = e.account_proof(&a, &[], 0).unwrap();
    let v = verify_account_proof(&e.root(0).unwrap(), &proof.as_ref()).unwrap();
    assert!(v.exists);
    assert_eq!(v.code_hash, code);
    let staged = e.stage_with_code(1, &[], &[(a, KECCAK_EMPTY)]).unwrap();
    e.commit(staged, Vec::new()).unwrap();
    assert_eq!(e.root(1).unwrap(), EMPTY_ROOT_HASH);
    assert_eq!(e.account_at(&a, 1).unwrap(), None);
    assert_eq!(e.slot_in(EMPTY_ROOT_HASH, &B256::ZERO).unwrap(), [0; 32]);
}
