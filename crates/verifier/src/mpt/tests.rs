//! Tests of the walk and the account verifier against a naive reference trie, and against
//! alloy-trie as an independent implementation.

use alloc::{boxed::Box, vec, vec::Vec};

use crate::keccak256;
use alloy_primitives::B256;
use alloy_rlp::{Encodable, Header};
use proptest::prelude::*;

use super::*;
use lightprov_types::ErrorCode;

/// A naive in-memory Merkle-Patricia trie, built recursively from a key set. Keys are nibbles.
enum T {
    Leaf(Vec<u8>, Vec<u8>),
    Ext(Vec<u8>, Box<T>),
    Branch(Vec<Option<T>>, Option<Vec<u8>>),
}

fn hp(nibbles: &[u8], leaf: bool) -> Vec<u8> {
    let flag = if leaf { 2 } else { 0 } + (nibbles.len() % 2) as u8;
    let mut out = vec![];
    let rest = if nibbles.len() % 2 == 1 {
        out.push(flag << 4 | nibbles[0]);
        &nibbles[1..]
    } else {
        out.push(flag << 4);
        nibbles
    };
    out.extend(rest.chunks(2).map(|p| p[0] << 4 | p[1]));
    out
}

fn list(items: &[Vec<u8>]) -> Vec<u8> {
    let len: usize = items.iter().map(Vec::len).sum();
    let mut out = vec![];
    Header {
        list: true,
        payload_length: len,
    }
    .encode(&mut out);
    items.iter().for_each(|i| out.extend(i));
    out
}

fn string(b: &[u8]) -> Vec<u8> {
    let mut out = vec![];
    b.encode(&mut out);
    out
}

impl T {
    fn build(items: &[(Vec<u8>, Vec<u8>)], depth: usize) -> T {
        if let [(k, v)] = items {
            return T::Leaf(k[depth..].to_vec(), v.clone());
        }
        let first = &items[0].0;
        let common = (depth..first.len())
            .take_while(|&i| items.iter().all(|(k, _)| k.len() > i && k[i] == first[i]))
            .count();
        if common > 0 {
            return T::Ext(
                first[depth..depth + common].to_vec(),
                Box::new(T::build(items, depth + common)),
            );
        }
        let value = items
            .iter()
            .find(|(k, _)| k.len() == depth)
            .map(|(_, v)| v.clone());
        let children = (0..16u8)
            .map(|n| {
                let sub: Vec<_> = items
                    .iter()
                    .filter(|(k, _)| k.len() > depth && k[depth] == n)
                    .cloned()
                    .collect();
                (!sub.is_empty()).then(|| T::build(&sub, depth + 1))
            })
            .collect();
        T::Branch(children, value)
    }

    fn rlp(&self) -> Vec<u8> {
        match self {
            T::Leaf(p, v) => list(&[string(&hp(p, true)), string(v)]),
            T::Ext(p, c) => list(&[string(&hp(p, false)), c.reference()]),
            T::Branch(cs, v) => {
                let mut items: Vec<_> = cs
                    .iter()
                    .map(|c| c.as_ref().map_or(vec![0x80], T::reference))
                    .collect();
                items.push(string(v.as_deref().unwrap_or_default()));
                list(&items)
            }
        }
    }

    fn reference(&self) -> Vec<u8> {
        let r = self.rlp();
        if r.len() < 32 {
            r
        } else {
            string(keccak256(&r).as_slice())
        }
    }

    fn proof(&self, key: &[u8], depth: usize, root: bool, out: &mut Vec<Vec<u8>>) {
        let r = self.rlp();
        if root || r.len() >= 32 {
            out.push(r);
        }
        match self {
            T::Branch(cs, _) if depth < key.len() => {
                if let Some(c) = &cs[key[depth] as usize] {
                    c.proof(key, depth + 1, false, out);
                }
            }
            T::Ext(p, c) if key[depth..].starts_with(p) => {
                c.proof(key, depth + p.len(), false, out)
            }
            _ => {}
        }
    }
}

fn nibbles(b: &[u8]) -> Vec<u8> {
    b.iter().flat_map(|x| [x >> 4, x & 15]).collect()
}

struct Trie {
    root: B256,
    tree: Option<T>,
}

impl Trie {
    fn new(items: &[(Vec<u8>, Vec<u8>)]) -> Trie {
        let mut sorted: Vec<_> = items.iter().map(|(k, v)| (nibbles(k), v.clone())).collect();
        sorted.sort();
        sorted.dedup_by(|a, b| a.0 == b.0);
        let tree = (!sorted.is_empty()).then(|| T::build(&sorted, 0));
        let root = tree
            .as_ref()
            .map_or(lightprov_types::EMPTY_ROOT_HASH, |t| keccak256(t.rlp()));
        Trie { root, tree }
    }

    fn proof(&self, key: &[u8]) -> Vec<Vec<u8>> {
        let mut out = vec![];
        if let Some(t) = &self.tree {
            t.proof(&nibbles(key), 0, true, &mut out);
        }
        out
    }
}

fn check(
    trie: &Trie,
    key: &[u8],
    expected: Option<&[u8]>,
    proof: &[Vec<u8>],
) -> Result<(), MptError> {
    verify_proof(&trie.root, key, expected, &as_slices(proof))
}

fn dogs() -> Trie {
    // TrieTests "dogs": a branch value ("dog" is a prefix of "dogglesworth") and inline nodes.
    Trie::new(&[
        (b"doe".to_vec(), b"reindeer".to_vec()),
        (b"dog".to_vec(), b"puppy".to_vec()),
        (b"dogglesworth".to_vec(), b"cat".to_vec()),
    ])
}

#[test]
fn reproduces_trietests_root_and_proves_inline_and_branch_values() {
    let t = dogs();
    assert_eq!(
        t.root,
        alloy_primitives::b256!("8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3")
    );
    for (k, v) in [
        (&b"doe"[..], &b"reindeer"[..]),
        (b"dog", b"puppy"),
        (b"dogglesworth", b"cat"),
    ] {
        assert_eq!(check(&t, k, Some(v), &t.proof(k)), Ok(()), "{k:?}");
    }
    for k in [&b"do"[..], b"dogg", b"cat", b"dogglesworthy", b""] {
        assert_eq!(check(&t, k, None, &t.proof(k)), Ok(()), "absent {k:?}");
        assert_eq!(
            check(&t, k, Some(b"x"), &t.proof(k)).map_err(|e| e.code()),
            Err(ErrorCode::ValueMismatch)
        );
    }
}

#[test]
fn empty_trie_accepts_empty_proof_and_the_empty_node() {
    let t = Trie::new(&[]);
    assert_eq!(check(&t, b"k", None, &[]), Ok(()));
    assert_eq!(check(&t, b"k", None, &[vec![0x80]]), Ok(()));
    assert_eq!(
        check(&t, b"k", None, &[vec![0x80], vec![0x80]]).map_err(|e| e.code()),
        Err(ErrorCode::DuplicateNode)
    );
    assert_eq!(
        check(&t, b"k", Some(b"v"), &[]),
        Err(MptError::ValueMismatch {
            expected: Some(b"v".to_vec()),
            got: None
        })
    );
    let other = dogs();
    assert_eq!(
        check(&other, b"dog", None, &[]),
        Err(MptError::TruncatedProof { nodes: 0 })
    );
    assert_eq!(
        check(&other, b"dog", None, &[vec![0x80]]).map_err(|e| e.code()),
        Err(ErrorCode::RootMismatch)
    );
}

type Items = Vec<(Vec<u8>, Vec<u8>)>;

fn big_trie(n: u8) -> (Trie, Items) {
    let items: Vec<_> = (0..n)
        .map(|i| (keccak256([i]).to_vec(), vec![i + 1; 40]))
        .collect();
    (Trie::new(&items), items)
}

#[test]
fn each_tamper_class_gets_its_own_code() {
    let (t, items) = big_trie(200);
    let (k, v) = &items[7];
    let p = t.proof(k);
    assert!(p.len() >= 3, "deep enough for the tampers");
    let code = |proof: &[Vec<u8>], key: &[u8], val: Option<&[u8]>| {
        check(&t, key, val, proof).map_err(|e| e.code())
    };
    assert_eq!(code(&p, k, Some(v)), Ok(()));

    let mut appended = p.clone();
    appended.push(t.proof(&items[8].0).last().unwrap().clone());
    assert_eq!(code(&appended, k, Some(v)), Err(ErrorCode::ExtraNodes));

    let mut dup = p.clone();
    dup.insert(1, p[1].clone());
    assert_eq!(code(&dup, k, Some(v)), Err(ErrorCode::DuplicateNode));
    let mut dup_last = p.clone();
    dup_last.push(p[p.len() - 1].clone());
    assert_eq!(code(&dup_last, k, Some(v)), Err(ErrorCode::DuplicateNode));

    let mut swapped = p.clone();
    swapped.swap(1, 2);
    assert_eq!(code(&swapped, k, Some(v)), Err(ErrorCode::NodesOutOfOrder));
    let mut swapped0 = p.clone();
    swapped0.swap(0, 1);
    assert_eq!(code(&swapped0, k, Some(v)), Err(ErrorCode::NodesOutOfOrder));

    assert_eq!(
        code(&p[..p.len() - 1], k, Some(v)),
        Err(ErrorCode::TruncatedProof)
    );
    assert_eq!(code(&p, &items[9].0, Some(v)), Err(ErrorCode::KeyMismatch));
    assert_eq!(code(&p, k, Some(b"other")), Err(ErrorCode::ValueMismatch));
    assert_eq!(code(&p, k, None), Err(ErrorCode::ValueMismatch));

    let mut flipped = p.clone();
    let last = flipped.len() - 1;
    let at = flipped[last].len() - 1;
    flipped[last][at] ^= 1;
    assert_eq!(code(&flipped, k, Some(v)), Err(ErrorCode::NodeHashMismatch));
    let mut flipped0 = p.clone();
    flipped0[0][40] ^= 1;
    assert_eq!(code(&flipped0, k, Some(v)), Err(ErrorCode::RootMismatch));
    let mut missing_middle = p.clone();
    missing_middle.remove(1);
    assert!(matches!(
        code(&missing_middle, k, Some(v)),
        Err(ErrorCode::NodeHashMismatch | ErrorCode::KeyMismatch)
    ));
}

#[test]
fn a_forged_node_that_hashes_right_but_is_not_canonical_is_malformed() {
    // A root made of a non-canonical node: the proof hashes to "its" root, so only the
    // structural checks can reject it.
    let mut branch = vec![0xd1];
    branch.extend([0x80; 17]);
    let root = keccak256(&branch);
    assert_eq!(
        verify_proof(&root, b"a", None, &[&branch]),
        Err(MptError::MalformedNode {
            index: 0,
            reason: "a branch has fewer than two entries"
        })
    );
    // extension whose child is a leaf (should have been merged)
    let leaf = list(&[string(&hp(&[1; 40], true)), string(&[7; 40])]);
    let ext = list(&[
        string(&hp(&[0, 1], false)),
        string(keccak256(&leaf).as_slice()),
    ]);
    let key = [
        0x01, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
        0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
    ];
    assert_eq!(
        verify_proof(&keccak256(&ext), &key, Some(&[7; 40]), &[&ext, &leaf]),
        Err(MptError::MalformedNode {
            index: 1,
            reason: "an extension's child is not a branch"
        })
    );
}

#[test]
fn exclusion_ending_at_a_diverging_extension() {
    // Two keys sharing 3 bytes: the root is an extension; a key diverging inside it is absent.
    let items = vec![
        (
            [[0xab, 0xcd, 0xef].as_slice(), &[1; 29]].concat(),
            vec![1; 40],
        ),
        (
            [[0xab, 0xcd, 0xef].as_slice(), &[2; 29]].concat(),
            vec![2; 40],
        ),
    ];
    let t = Trie::new(&items);
    let absent = [[0xab, 0xcc].as_slice(), &[0; 30]].concat();
    let p = t.proof(&absent);
    assert_eq!(p.len(), 1);
    assert_eq!(
        prove(&t.root, &absent, &as_slices(&p)),
        Ok(Proven::Absent(Absence::DivergingExtension))
    );
    // the other key's nodes appended: a proof for another key
    let full = t.proof(&items[0].0);
    assert_eq!(
        check(&t, &absent, None, &full).map_err(|e| e.code()),
        Err(ErrorCode::KeyMismatch)
    );
}

fn alloy_accepts(root: B256, key: &[u8], value: Option<&[u8]>, proof: &[Vec<u8>]) -> bool {
    let nodes: Vec<alloy_primitives::Bytes> = proof.iter().map(|n| n.clone().into()).collect();
    alloy_trie::proof::verify_proof(
        root,
        nybbles::Nibbles::unpack(key),
        value.map(<[u8]>::to_vec),
        &nodes,
    )
    .is_ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random secure-trie-like key sets: every key proves its value, random other keys prove
    /// absence, our verdicts agree with alloy-trie's, and the naive root agrees with alloy's
    /// HashBuilder.
    #[test]
    fn agrees_with_the_model_and_alloy_trie(
        keys in prop::collection::btree_set(any::<[u8; 32]>(), 1..60),
        probes in prop::collection::vec(any::<[u8; 32]>(), 1..8),
        vlen in 1usize..40,
    ) {
        let items: Vec<_> = keys.iter().map(|k| (k.to_vec(), vec![k[0] | 1; vlen])).collect();
        let t = Trie::new(&items);
        let mut hb = alloy_trie::HashBuilder::default();
        for (k, v) in &items {
            hb.add_leaf(nybbles::Nibbles::unpack(k), v);
        }
        prop_assert_eq!(hb.root(), t.root);
        for (k, v) in &items {
            let p = t.proof(k);
            prop_assert_eq!(check(&t, k, Some(v), &p), Ok(()));
            prop_assert!(alloy_accepts(t.root, k, Some(v), &p));
        }
        for k in &probes {
            let p = t.proof(k);
            let model = items.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_slice());
            prop_assert_eq!(check(&t, k, model, &p), Ok(()));
            prop_assert!(alloy_accepts(t.root, k, model, &p));
            // a wrong claim is rejected by both
            prop_assert!(check(&t, k, Some(b"nope"), &p).is_err());
            prop_assert!(!alloy_accepts(t.root, k, Some(b"nope"), &p));
        }
    }

    /// Short variable-length keys give inline nodes and branch values.
    #[test]
    fn short_keys_with_inline_nodes(
        keys in prop::collection::btree_set(prop::collection::vec(0u8..4, 0..4), 1..20),
        probe in prop::collection::vec(0u8..4, 0..5),
    ) {
        let items: Vec<_> = keys.iter().map(|k| (k.clone(), vec![b'v'; 1 + k.len()])).collect();
        let t = Trie::new(&items);
        for (k, v) in &items {
            prop_assert_eq!(check(&t, k, Some(v), &t.proof(k)), Ok(()));
        }
        let model = items.iter().find(|(x, _)| *x == probe).map(|(_, v)| v.as_slice());
        prop_assert_eq!(check(&t, &probe, model, &t.proof(&probe)), Ok(()));
    }

    /// No byte flip in a proof is accepted, and none panics.
    #[test]
    fn byte_flips_are_rejected(i in 0u8..200, node in any::<prop::sample::Index>(), pos in any::<prop::sample::Index>(), bit in 0u8..8) {
        let (t, items) = big_trie(200);
        let (k, v) = &items[usize::from(i)];
        let mut p = t.proof(k);
        let n = node.index(p.len());
        let at = pos.index(p[n].len());
        p[n][at] ^= 1 << bit;
        prop_assert!(check(&t, k, Some(v), &p).is_err());
    }

    /// Arbitrary bytes as proof nodes never panic.
    #[test]
    fn garbage_never_panics(nodes in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..80), 0..4), key in prop::collection::vec(any::<u8>(), 0..33)) {
        let root = nodes.first().map_or(B256::ZERO, keccak256);
        let _ = verify_proof(&root, &key, None, &as_slices(&nodes));
    }
}

#[test]
fn worked_example_of_docs_proofs_md_verifies() {
    let leaf = alloy_primitives::hex::decode("f872a120e2c07404b8c1df4c46226425cac68c28d27a766bbddce62309f36724839b22c0b84ef84c01880de0b6b3a7640000a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470").unwrap();
    let root =
        alloy_primitives::b256!("b3e58fdbabd36dfe1519fdc910e208791c4d3fd0153ee4b650be5112ddcf41c6");
    let mut balance = [0u8; 32];
    balance[24..].copy_from_slice(&10u64.pow(18).to_be_bytes());
    let proof = lightprov_types::mpt::AccountProof {
        address: lightprov_types::Address::repeat_byte(0x11),
        balance,
        nonce: 1,
        code_hash: lightprov_types::KECCAK_EMPTY,
        storage_hash: lightprov_types::EMPTY_ROOT_HASH,
        account_proof: vec![leaf],
        storage_proof: vec![],
    };
    let a = verify_account_proof(&root, &proof.as_ref()).unwrap();
    assert!(a.exists);
    assert_eq!((a.nonce, a.balance), (1, balance));
}

#[test]
fn a_short_node_must_be_embedded_not_hashed() {
    let leaf = list(&[string(&hp(&[3], true)), string(b"v")]);
    assert!(leaf.len() < 32);
    let mut items = vec![vec![0x80]; 17];
    items[1] = string(keccak256(&leaf).as_slice());
    items[9] = string(keccak256([9]).as_slice());
    let branch = list(&items);
    assert_eq!(
        verify_proof(&keccak256(&branch), &[0x13], Some(b"v"), &[&branch, &leaf]),
        Err(MptError::MalformedNode {
            index: 1,
            reason: "a node under 32 bytes is referenced by hash"
        })
    );
}

#[test]
fn junk_posing_as_an_inline_child_is_malformed_even_off_the_path() {
    let leaf = list(&[string(&hp(&[3; 63], true)), string(&[1; 40])]);
    for junk in [vec![0xc0], vec![0xc2, 0x80, 0x80], vec![0xc1, 0xc0]] {
        let mut items = vec![vec![0x80]; 17];
        items[1] = string(keccak256(&leaf).as_slice());
        items[5] = junk.clone();
        let branch = list(&items);
        let key = [[0x13].as_slice(), &[0x33; 31]].concat();
        assert_eq!(
            verify_proof(&keccak256(&branch), &key, Some(&[1; 40]), &[&branch, &leaf])
                .map_err(|e| e.code()),
            Err(ErrorCode::MalformedNode),
            "{junk:?}"
        );
    }
}
