//! Every check of the forkless verifier, each broken by a forgery that changes exactly what that
//! check guards, starting from honest proofs of a real engine. Each test names the check and
//! asserts its code; the honest proof passes first.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use lightprov_engine_api::{Key, StateEngine, word_from_u64};
use lightprov_engine_forkless::{ForklessEngine, Options};
use lightprov_types::{
    Address, B256, ErrorCode, FAMILIES, Rejection, Word,
    forkless::{Chain, Claim, Component, FAMILY, ForklessKey, Link, Located, Params, Proof, hash},
};
use lightprov_verifier::forkless::{
    ForklessError, verify_history, verify_history_proof, verify_value, verify_value_proof,
};
use proptest::prelude::*;

const PARAMS: Params = Params {
    page_size: 64,
    fanout: 3,
    bucket_load: 2,
};

struct World {
    _dir: tempfile::TempDir,
    engine: ForklessEngine,
    root: B256,
    old_root: B256,
}

fn addr(i: u8) -> Address {
    Address::repeat_byte(i)
}

fn word(v: u64) -> Word {
    word_from_u64(v)
}

/// 30 accounts and their slots over 24 blocks; account 1's balance changes every third block;
/// accounts 2 and 3's nonces change identically.
fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let mut engine = ForklessEngine::open(
        dir.path(),
        Options {
            params: PARAMS,
            checkpoint_every: 4,
            background_archive: true,
        },
    )
    .unwrap();
    let mut old_root = B256::ZERO;
    let mut root = B256::ZERO;
    for n in 0..24u64 {
        let mut writes = vec![
            (Key::Balance(addr(10 + n as u8)), word(n + 1)),
            (
                Key::Storage(addr(10 + n as u8), B256::with_last_byte(1)),
                word(7),
            ),
            (Key::Nonce(addr(2)), word(n)),
            (Key::Nonce(addr(3)), word(n)),
        ];
        if n % 3 == 0 {
            writes.push((Key::Balance(addr(1)), word(1000 + n)));
        }
        root = engine.apply_block(n, &writes).unwrap();
        if n == 20 {
            old_root = root;
        }
    }
    World {
        _dir: dir,
        engine,
        root,
        old_root,
    }
}

fn balance(i: u8) -> ForklessKey {
    ForklessKey::Balance(addr(i))
}

fn code<T: std::fmt::Debug>(r: Result<T, ForklessError>) -> ErrorCode {
    match r {
        Ok(v) => panic!("a forgery passed: {v:?}"),
        Err(e) => {
            // Every rejection carries evidence naming a field.
            assert!(!e.evidence().field.is_empty(), "{e}");
            e.code()
        }
    }
}

fn value(
    w: &World,
    key: &ForklessKey,
    p: &Proof,
) -> Result<lightprov_verifier::forkless::Value, ForklessError> {
    // Through the wire format too: a forgery must survive encoding to be a forgery.
    let direct = verify_value_proof(&w.root, key, p);
    assert_eq!(direct, verify_value(&w.root, key, &p.encode()));
    direct
}

fn history(
    w: &World,
    key: &ForklessKey,
    lo: u64,
    hi: u64,
    p: &Proof,
) -> Result<lightprov_verifier::forkless::History, ForklessError> {
    let direct = verify_history_proof(&w.root, key, lo, hi, p);
    assert_eq!(direct, verify_history(&w.root, key, lo, hi, &p.encode()));
    direct
}

fn present(p: &mut Proof) -> (&mut u64, &mut lightprov_types::forkless::Opening) {
    match &mut p.located {
        Located::Present { record, keys } => (record, keys),
        Located::Absent { .. } => panic!("not a presence proof"),
    }
}

fn value_opening(p: &mut Proof) -> &mut lightprov_types::forkless::Opening {
    match &mut p.claim {
        Claim::Value(Some(o)) => o,
        _ => panic!("not a value proof of a present key"),
    }
}

fn chain(p: &mut Proof) -> (&mut lightprov_types::forkless::Opening, &mut Chain) {
    match &mut p.claim {
        Claim::History {
            chain: Some((o, c)),
            ..
        } => (o, c),
        _ => panic!("not a history proof of a present key"),
    }
}

#[test]
fn honest_proofs_pass() {
    let w = world();
    let v = value(&w, &balance(1), &w.engine.prove_value(&balance(1)).unwrap()).unwrap();
    assert!(v.exists);
    assert_eq!(v.value, word(1021));
    let h = history(
        &w,
        &balance(1),
        5,
        13,
        &w.engine.prove_history(&balance(1), 5, 13).unwrap(),
    )
    .unwrap();
    assert_eq!(h.at_lo.map(|l| l.block), Some(3));
    assert_eq!(
        h.versions.iter().map(|l| l.block).collect::<Vec<_>>(),
        vec![6, 9, 12]
    );
    let absent = value(
        &w,
        &balance(200),
        &w.engine.prove_value(&balance(200)).unwrap(),
    )
    .unwrap();
    assert!(!absent.exists);
}

#[test]
fn the_family_is_ready_to_register() {
    // Its tamper classes answer only codes it lists, and its codes are distinct from no other
    // family's meaning (checked by the shared error-code test once registered).
    for t in FAMILY.tampers {
        assert!(FAMILY.codes.contains(&t.code), "{}", t.name);
    }
    assert!(FAMILIES.iter().all(|f| f.name != "forkless") || FAMILY.codes.len() > 5);
}

// ----- step 1: decoding -----

#[test]
fn rejects_a_truncated_or_extended_proof() {
    let w = world();
    let bytes = w.engine.prove_value(&balance(1)).unwrap().encode();
    let cut = verify_value(&w.root, &balance(1), &bytes[..bytes.len() - 1]);
    assert_eq!(code(cut), ErrorCode::BadEncoding);
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(
        code(verify_value(&w.root, &balance(1), &long)),
        ErrorCode::BadEncoding
    );
}

#[test]
fn rejects_parameters_out_of_bounds() {
    let w = world();
    let mut p = w.engine.prove_value(&balance(1)).unwrap();
    p.params.fanout = 1;
    assert_eq!(
        code(verify_value_proof(&w.root, &balance(1), &p)),
        ErrorCode::BadEncoding
    );
}

// ----- step 2: the key and the claim -----

#[test]
fn rejects_a_proof_of_another_key() {
    let w = world();
    let p = w.engine.prove_value(&balance(10)).unwrap();
    assert_eq!(code(value(&w, &balance(11), &p)), ErrorCode::KeyMismatch);
}

#[test]
fn rejects_a_history_of_another_range_or_a_value_as_a_history() {
    let w = world();
    let p = w.engine.prove_history(&balance(1), 5, 13).unwrap();
    assert_eq!(
        code(history(&w, &balance(1), 5, 14, &p)),
        ErrorCode::RangeMismatch
    );
    assert_eq!(code(value(&w, &balance(1), &p)), ErrorCode::RangeMismatch);
    let v = w.engine.prove_value(&balance(1)).unwrap();
    assert_eq!(
        code(history(&w, &balance(1), 5, 13, &v)),
        ErrorCode::RangeMismatch
    );
    assert_eq!(
        code(history(&w, &balance(1), 6, 5, &p)),
        ErrorCode::RangeMismatch
    );
}

// ----- step 3: the state root -----

#[test]
fn rejects_a_changed_listed_tree_root() {
    let w = world();
    let mut p = w.engine.prove_value(&balance(1)).unwrap();
    p.roots[Component::SlotChain.index()].0[0] ^= 1; // a file the proof does not even open
    assert_eq!(code(value(&w, &balance(1), &p)), ErrorCode::RootMismatch);
}

#[test]
fn rejects_a_proof_checked_against_another_blocks_root() {
    let w = world();
    let p = w.engine.prove_value(&balance(1)).unwrap();
    let r = verify_value_proof(&w.old_root, &balance(1), &p);
    assert_eq!(code(r), ErrorCode::RootMismatch);
}

// ----- step 4: openings -----

#[test]
fn rejects_a_changed_value() {
    let w = world();
    let mut p = w.engine.prove_value(&balance(1)).unwrap();
    let (record, _) = present(&mut p);
    let at = (*record % PARAMS.items_per_page(Component::Balance)) as usize * 32 + 31;
    value_opening(&mut p).page[at] ^= 1;
    assert_eq!(
        code(value(&w, &balance(1), &p)),
        ErrorCode::NodeHashMismatch
    );
}

#[test]
fn rejects_a_record_at_or_past_the_committed_count() {
    let w = world();
    let mut p = w.engine.prove_value(&balance(1)).unwrap();
    let (record, keys) = present(&mut p);
    *record = keys.count;
    assert_eq!(
        code(value(&w, &balance(1), &p)),
        ErrorCode::RecordOutOfRange
    );
}

#[test]
fn rejects_the_same_page_at_another_position() {
    let w = world();
    let key = ForklessKey::Storage(addr(12), B256::with_last_byte(1));
    let mut p = w.engine.prove_value(&key).unwrap();
    // A slot record fills its page alone (52 of 64 bytes): claiming record r + fanout places the
    // same page and the same siblings one subtree to the right.
    let (record, keys) = present(&mut p);
    assert!(*record + 3 < keys.count);
    *record += 3;
    assert_eq!(code(value(&w, &key, &p)), ErrorCode::NodeHashMismatch);
}

#[test]
fn rejects_a_changed_record_count() {
    let w = world();
    let mut p = w.engine.prove_value(&balance(1)).unwrap();
    let (record, keys) = present(&mut p);
    let height = |n| PARAMS.height(PARAMS.pages(Component::AccountKeys, n));
    // One record more or fewer, within the same tree height (and above the record).
    let changed = [keys.count + 1, keys.count - 1]
        .into_iter()
        .find(|n| height(*n) == height(keys.count) && *n > *record)
        .unwrap();
    keys.count = changed;
    assert_eq!(
        code(value(&w, &balance(1), &p)),
        ErrorCode::NodeHashMismatch
    );
}

#[test]
fn rejects_a_level_of_siblings_left_out_or_added() {
    let w = world();
    let mut p = w.engine.prove_value(&balance(1)).unwrap();
    let (_, keys) = present(&mut p);
    keys.siblings.truncate(keys.siblings.len() - 2);
    assert_eq!(code(value(&w, &balance(1), &p)), ErrorCode::BadShape);
    let mut p = w.engine.prove_value(&balance(1)).unwrap();
    let (_, keys) = present(&mut p);
    keys.siblings.extend([hash::empty(9), hash::empty(9)]);
    assert_eq!(code(value(&w, &balance(1), &p)), ErrorCode::BadShape);
}

/// Carmen's trees hash a page and an inner node alike (no domain tags) and take the root as the
/// top hash (no height, no count): an inner node's children, passed off as the one page of a
/// file, then reach the same root. Ours tags each and binds height and count.
#[test]
fn rejects_an_inner_node_passed_off_as_a_page_which_the_reference_hash_accepts() {
    use sha2::{Digest, Sha256};
    let carmen = |bytes: &[u8]| B256::from(<[u8; 32]>::from(Sha256::digest(bytes)));
    // The balances of two pages of two records each, under fanout 2.
    let pages = [[1u8; 64], [2u8; 64]];
    let (h0, h1) = (carmen(&pages[0]), carmen(&pages[1]));
    let real_root = carmen(&[h0.as_slice(), h1.as_slice()].concat());
    let forged_page = [h0.as_slice(), h1.as_slice()].concat();
    assert_eq!(
        carmen(&forged_page),
        real_root,
        "the reference cannot tell them apart"
    );
    // Ours: the same forgery against a real file.
    let params = Params {
        page_size: 64,
        fanout: 2,
        bucket_load: 2,
    };
    let dir = tempfile::tempdir().unwrap();
    let mut e = ForklessEngine::open(
        dir.path(),
        Options {
            params,
            checkpoint_every: 8,
            background_archive: false,
        },
    )
    .unwrap();
    let writes: Vec<_> = (0..4)
        .map(|i| (Key::Balance(addr(i + 1)), word(u64::from(i) + 9)))
        .collect();
    let root = e.apply_block(0, &writes).unwrap();
    let key = balance(1);
    let mut p = e.prove_value(&key).unwrap();
    // Balance pages hold two records; four records make two pages under one inner node.
    let opening = value_opening(&mut p);
    assert_eq!(opening.siblings.len(), 1);
    let sibling = opening.siblings[0];
    let own = hash::page(Component::Balance, &opening.page);
    opening.page = [own.as_slice(), sibling.as_slice()].concat();
    opening.siblings.clear();
    opening.count = 2;
    assert_eq!(
        code(verify_value_proof(&root, &key, &p)),
        ErrorCode::NodeHashMismatch
    );
}

// ----- step 5: where the key stands -----

#[test]
fn rejects_the_record_number_of_another_key() {
    let w = world();
    let mut p = w.engine.prove_value(&balance(11)).unwrap();
    let other = w.engine.prove_value(&balance(12)).unwrap();
    p.located = other.located.clone();
    p.claim = other.claim.clone();
    assert_eq!(code(value(&w, &balance(11), &p)), ErrorCode::KeyMismatch);
}

fn absent_proof(w: &World) -> (ForklessKey, Proof) {
    // An absent key whose bucket holds entries.
    for i in 100..=255u8 {
        let key = balance(i);
        let p = w.engine.prove_value(&key).unwrap();
        if let Located::Absent { entries, .. } = &p.located
            && entries.len() >= 2
        {
            return (key, p);
        }
    }
    panic!("no absent key with a full bucket");
}

fn entries(p: &mut Proof) -> &mut Vec<(Vec<u8>, u64)> {
    match &mut p.located {
        Located::Absent { entries, .. } => entries,
        Located::Present { .. } => panic!("not an absence proof"),
    }
}

#[test]
fn rejects_an_entry_dropped_from_the_bucket() {
    let w = world();
    let (key, mut p) = absent_proof(&w);
    value(&w, &key, &p).unwrap();
    entries(&mut p).remove(0);
    assert_eq!(code(value(&w, &key, &p)), ErrorCode::NodeHashMismatch);
}

#[test]
fn rejects_bucket_entries_out_of_order() {
    let w = world();
    let (key, mut p) = absent_proof(&w);
    entries(&mut p).swap(0, 1);
    assert_eq!(code(value(&w, &key, &p)), ErrorCode::ResultsOutOfOrder);
}

#[test]
fn rejects_an_entry_of_another_bucket() {
    let w = world();
    let (key, mut p) = absent_proof(&w);
    let Located::Absent { buckets, .. } = &p.located else {
        unreachable!()
    };
    let n = buckets.count;
    let mine = hash::bucket_index(hash::selector(Component::AccountKeys, &key.record_key()), n);
    let foreign = (0..=255u8)
        .map(|i| addr(i).to_vec())
        .find(|k| hash::bucket_index(hash::selector(Component::AccountKeys, k), n) != mine)
        .unwrap();
    let list = entries(&mut p);
    list.push((foreign, 999));
    list.sort();
    assert_eq!(code(value(&w, &key, &p)), ErrorCode::WrongBucket);
}

#[test]
fn rejects_absence_claimed_for_a_key_its_bucket_holds() {
    let w = world();
    let key = balance(1);
    let mut p = w.engine.prove_value(&key).unwrap();
    p.located = w.engine.bucket_of(&key);
    p.claim = Claim::Value(None);
    assert_eq!(code(value(&w, &key, &p)), ErrorCode::KeyPresent);
}

// ----- step 6: the chain -----

#[test]
fn rejects_a_dropped_link() {
    let w = world();
    let mut p = w.engine.prove_history(&balance(1), 5, 13).unwrap();
    let (_, c) = chain(&mut p);
    c.links.remove(2);
    assert_eq!(
        code(history(&w, &balance(1), 5, 13, &p)),
        ErrorCode::ChainMismatch
    );
}

#[test]
fn rejects_reordered_or_duplicated_links() {
    let w = world();
    let mut p = w.engine.prove_history(&balance(1), 5, 13).unwrap();
    chain(&mut p).1.links.swap(1, 2);
    assert_eq!(
        code(history(&w, &balance(1), 5, 13, &p)),
        ErrorCode::ResultsOutOfOrder
    );
    let mut p = w.engine.prove_history(&balance(1), 5, 13).unwrap();
    let (_, c) = chain(&mut p);
    let l = c.links[2];
    c.links.insert(2, l);
    assert_eq!(
        code(history(&w, &balance(1), 5, 13, &p)),
        ErrorCode::ResultsOutOfOrder
    );
}

#[test]
fn rejects_a_change_moved_to_another_block() {
    let w = world();
    let mut p = w.engine.prove_history(&balance(1), 5, 13).unwrap();
    let (_, c) = chain(&mut p);
    c.links[1].block += 1; // 6 → 7, still in order
    assert_eq!(
        code(history(&w, &balance(1), 5, 13, &p)),
        ErrorCode::ChainMismatch
    );
}

/// Carmen's account chain hashes neither the account nor the block: two accounts with the same
/// changes share every chain value, so a chain cannot be tied to its key. Ours can.
#[test]
fn rejects_the_chain_of_another_key_which_the_reference_hash_cannot_tell_apart() {
    let w = world();
    let (a, b) = (ForklessKey::Nonce(addr(2)), ForklessKey::Nonce(addr(3)));
    let pa = w.engine.prove_history(&a, 10, 15).unwrap();
    let mut pb = w.engine.prove_history(&b, 10, 15).unwrap();
    // Identical changes, different chains.
    let (ha, hb) = (pa.clone(), pb.clone());
    assert_eq!(
        chain(&mut ha.clone()).1.links,
        chain(&mut hb.clone()).1.links
    );
    assert_ne!(chain(&mut ha.clone()).0.page, chain(&mut hb.clone()).0.page);
    // Key 2's chain opening and links in key 3's proof.
    let mut pa2 = pa.clone();
    let (oa, ca) = chain(&mut pa2);
    let (oa, ca) = (oa.clone(), ca.clone());
    let (ob, cb) = chain(&mut pb);
    *ob = oa;
    *cb = ca;
    let r = history(&w, &b, 10, 15, &pb);
    assert!(matches!(
        code(r),
        ErrorCode::ChainMismatch | ErrorCode::NodeHashMismatch
    ));
    // With the honest opening of key 3's head and another key's (different) links: the links
    // alone fail.
    let mut pb = w.engine.prove_history(&b, 10, 15).unwrap();
    let other = w.engine.prove_history(&balance(1), 10, 15).unwrap();
    let links = chain(&mut other.clone()).1.clone();
    *chain(&mut pb).1 = links;
    assert_eq!(code(history(&w, &b, 10, 15, &pb)), ErrorCode::ChainMismatch);
}

#[test]
fn rejects_a_chain_resumed_after_the_change_in_force_at_lo() {
    let w = world();
    // lo = 5: the change in force is block 3's; resume after it, from its chain value.
    let mut p = w.engine.prove_history(&balance(1), 5, 13).unwrap();
    let (_, c) = chain(&mut p);
    assert_eq!(c.links[0].block, 3);
    let base = c.base.unwrap();
    let dropped = c.links.remove(0);
    c.base = Some(hash::link(&balance(1), &dropped, &base));
    // The chain still reaches the head: only the completeness check stops this.
    assert_eq!(
        code(history(&w, &balance(1), 5, 13, &p)),
        ErrorCode::IncompleteRange
    );
}

#[test]
fn rejects_links_before_the_one_in_force_at_lo() {
    let w = world();
    let mut p = w.engine.prove_history(&balance(1), 2, 13).unwrap();
    match &mut p.claim {
        Claim::History { lo, .. } => *lo = 5,
        _ => unreachable!(),
    }
    // Links of blocks 0 and 3 are both at or before 5.
    assert_eq!(
        code(history(&w, &balance(1), 5, 13, &p)),
        ErrorCode::ExtraResults
    );
}

#[test]
fn rejects_a_history_of_a_present_key_with_its_chain_left_out() {
    let w = world();
    let mut p = w.engine.prove_history(&balance(1), 5, 13).unwrap();
    match &mut p.claim {
        Claim::History { chain, .. } => *chain = None,
        _ => unreachable!(),
    }
    assert_eq!(
        code(verify_history_proof(&w.root, &balance(1), 5, 13, &p)),
        ErrorCode::BadEncoding
    );
}

#[test]
fn histories_of_keys_written_after_lo_start_at_their_first_change() {
    let w = world();
    let key = balance(20); // first written at block 10
    let h = history(
        &w,
        &key,
        2,
        12,
        &w.engine.prove_history(&key, 2, 12).unwrap(),
    )
    .unwrap();
    assert_eq!(h.at_lo, None);
    assert_eq!(
        h.versions.iter().map(|l| l.block).collect::<Vec<_>>(),
        vec![10]
    );
    assert_eq!(h.value_at(9), [0; 32]);
    assert_eq!(h.value_at(10), word(11));
    // A forger who sends that chain from a made-up base hides nothing: it breaks the chain.
    let mut p = w.engine.prove_history(&key, 2, 12).unwrap();
    chain(&mut p).1.base = Some(B256::repeat_byte(7));
    let r = history(&w, &key, 2, 12, &p);
    assert!(matches!(
        code(r),
        ErrorCode::IncompleteRange | ErrorCode::ChainMismatch
    ));
}

#[test]
fn links_of_the_honest_proof_are_exactly_the_changes() {
    let w = world();
    let key = balance(1);
    let h = history(
        &w,
        &key,
        0,
        23,
        &w.engine.prove_history(&key, 0, 23).unwrap(),
    )
    .unwrap();
    let want: Vec<Link> = (0..24u64)
        .filter(|n| n % 3 == 0)
        .map(|n| Link {
            block: n,
            value: word(1000 + n),
        })
        .collect();
    assert_eq!(h.versions, want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Any byte flipped or cut anywhere in an honest proof is rejected, and never panics.
    #[test]
    fn corrupted_proofs_are_rejected_without_panicking(at in 0usize..4096, bit in 0u8..8, cut in proptest::bool::ANY) {
        let w = WORLD.with(|w| w.root);
        let bytes = PROOF.with(|p| p.clone());
        let at = at % bytes.len();
        let mut forged = bytes.clone();
        if cut {
            forged.truncate(at);
        } else {
            forged[at] ^= 1 << bit;
        }
        let r = verify_history(&w, &balance(1), 5, 13, &forged);
        prop_assert!(r.is_err());
    }
}

thread_local! {
    static WORLD: World = world();
    static PROOF: Vec<u8> = WORLD.with(|w| w.engine.prove_history(&balance(1), 5, 13).unwrap().encode());
}
