//! Transaction and receipt proofs by block and index, on the real mainnet blocks of
//! `tests/vectors/blocks` (Frontier to Cancun, an empty block among them): every index of every
//! block proves its transaction and receipt against the real header roots, indices past the end
//! prove absence, and each check of the verifier rejects a proof that breaks exactly it, with its
//! own code. Proofs come from alloy-trie's `HashBuilder` with a `ProofRetainer`; the encodings
//! are rebuilt here from the JSON-RPC objects and must hash to the transactions' hashes.

use std::{fs, path::PathBuf};

use alloy_primitives::B256;
use alloy_rlp::{Encodable, Header};
use alloy_trie::{HashBuilder, proof::ProofRetainer};
use lightprov_types::{
    ErrorCode, Rejection,
    mpt::{MAX_INDEXED_PROOF_NODES, TransactionProof, TransactionProofError},
};
use lightprov_verifier::{
    Verify, keccak256,
    mpt::{
        BlockRoots, MptError, TransactionAtIndex, TransactionQuery, index_key, verify_indexed_proof,
    },
};
use nybbles::Nibbles;
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// The real blocks, their EIP-2718 encodings rebuilt from JSON.

fn hex(v: &Value) -> Vec<u8> {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("expected hex, got {v}"));
    let s = s.strip_prefix("0x").unwrap();
    let s = if s.len() % 2 == 1 {
        format!("0{s}")
    } else {
        s.to_owned()
    };
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A quantity as RLP wants it: big-endian without leading zeros.
fn quantity(v: &Value) -> Vec<u8> {
    let b = hex(v);
    let start = b.iter().position(|&x| x != 0).unwrap_or(b.len());
    b[start..].to_vec()
}

fn b256(v: &Value) -> B256 {
    B256::from_slice(&hex(v))
}

/// One RLP item of a list being built.
enum Item {
    Bytes(Vec<u8>),
    List(Vec<Item>),
}

fn rlp(item: &Item, out: &mut Vec<u8>) {
    match item {
        Item::Bytes(b) => b.as_slice().encode(out),
        Item::List(items) => {
            let mut payload = Vec::new();
            for i in items {
                rlp(i, &mut payload);
            }
            Header {
                list: true,
                payload_length: payload.len(),
            }
            .encode(out);
            out.extend_from_slice(&payload);
        }
    }
}

/// `type ‖ RLP(fields)`, or `RLP(fields)` for type 0.
fn envelope(ty: u8, fields: Vec<Item>) -> Vec<u8> {
    let mut out = Vec::new();
    if ty != 0 {
        out.push(ty);
    }
    rlp(&Item::List(fields), &mut out);
    out
}

fn type_of(o: &Value) -> u8 {
    o.get("type")
        .filter(|t| !t.is_null())
        .map_or(0, |t| quantity(t).first().copied().unwrap_or(0))
}

/// A JSON array as an RLP list, each element through `f`.
fn list_of(v: &Value, f: impl Fn(&Value) -> Item) -> Item {
    Item::List(v.as_array().unwrap().iter().map(f).collect())
}

fn bytes_item(v: &Value) -> Item {
    Item::Bytes(hex(v))
}

/// A transaction type's RLP fields, as JSON-RPC names them (`yParity`: or `v`).
fn fields(ty: u8) -> Vec<&'static str> {
    let call = ["gas", "to", "value", "input"];
    let fees: &[&str] = match ty {
        0 | 1 => &["gasPrice"],
        2 | 3 => &["maxPriorityFeePerGas", "maxFeePerGas"],
        t => panic!("no type {t} transaction in these blocks"),
    };
    let typed: &[&str] = match ty {
        0 => &[],
        3 => &["accessList", "maxFeePerBlobGas", "blobVersionedHashes"],
        _ => &["accessList"],
    };
    let head: &[&str] = if ty == 0 {
        &["nonce"]
    } else {
        &["chainId", "nonce"]
    };
    let parity = if ty == 0 { "v" } else { "yParity" };
    [head, fees, &call, typed, &[parity, "r", "s"]].concat()
}

/// One field of a transaction object as its RLP item.
fn field(o: &Value, name: &str) -> Item {
    match name {
        "to" if o["to"].is_null() => Item::Bytes(vec![]),
        "to" | "input" => bytes_item(&o[name]),
        "accessList" => list_of(&o[name], |e| {
            Item::List(vec![
                bytes_item(&e["address"]),
                list_of(&e["storageKeys"], bytes_item),
            ])
        }),
        "blobVersionedHashes" => list_of(&o[name], bytes_item),
        "yParity" if o.get("yParity").is_none_or(Value::is_null) => field(o, "v"),
        _ => Item::Bytes(quantity(&o[name])),
    }
}

/// The EIP-2718 encoding of a transaction object (types 0–3, the ones these blocks hold).
fn encode_transaction(o: &Value) -> Vec<u8> {
    let ty = type_of(o);
    envelope(ty, fields(ty).iter().map(|name| field(o, name)).collect())
}

/// The EIP-2718 encoding of a receipt object: `[status or root, cumulativeGasUsed, logsBloom,
/// logs]`.
fn encode_receipt(o: &Value) -> Vec<u8> {
    let outcome = match o.get("root") {
        Some(r) if r.is_string() && r != "0x" => hex(r),
        _ => quantity(&o["status"]),
    };
    let logs = list_of(&o["logs"], |l| {
        Item::List(vec![
            bytes_item(&l["address"]),
            list_of(&l["topics"], bytes_item),
            bytes_item(&l["data"]),
        ])
    });
    envelope(
        type_of(o),
        vec![
            Item::Bytes(outcome),
            Item::Bytes(quantity(&o["cumulativeGasUsed"])),
            Item::Bytes(hex(&o["logsBloom"])),
            logs,
        ],
    )
}

/// One real block: its roots, its transactions' hashes and encodings, its receipts'.
struct Block {
    name: String,
    roots: BlockRoots,
    hashes: Vec<B256>,
    txs: Vec<Vec<u8>>,
    receipts: Vec<Vec<u8>>,
}

fn blocks() -> Vec<Block> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/blocks");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let v: Value = serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap();
            let block = &v["block"];
            let objects = block["transactions"].as_array().unwrap();
            Block {
                name: p.file_stem().unwrap().to_string_lossy().into_owned(),
                roots: BlockRoots {
                    transactions_root: b256(&block["transactionsRoot"]),
                    receipts_root: b256(&block["receiptsRoot"]),
                },
                hashes: objects.iter().map(|t| b256(&t["hash"])).collect(),
                txs: objects.iter().map(encode_transaction).collect(),
                receipts: v["receipts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(encode_receipt)
                    .collect(),
            }
        })
        .collect()
}

fn block(name: &str) -> Block {
    blocks()
        .into_iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no block {name}"))
}

// ---------------------------------------------------------------------------------------------
// Proofs from alloy-trie.

/// The ordered trie of `values`: its root and, for each of `targets`, the hashed nodes on its
/// key's path from the root down (inline nodes, under 32 bytes, stay inside their parents).
fn ordered_trie(values: &[Vec<u8>], targets: &[u64]) -> (B256, Vec<Vec<Vec<u8>>>) {
    let nibbles = |i: u64| Nibbles::unpack(index_key(i));
    let mut leaves: Vec<(Nibbles, &[u8])> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (nibbles(i as u64), v.as_slice()))
        .collect();
    leaves.sort_by_key(|a| a.0);
    let paths: Vec<Nibbles> = targets.iter().map(|&t| nibbles(t)).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    let mut hb = HashBuilder::default().with_proof_retainer(ProofRetainer::new(sorted));
    for (k, v) in &leaves {
        hb.add_leaf(*k, v);
    }
    let root = hb.root();
    let nodes = hb.take_proof_nodes();
    let proofs = paths
        .iter()
        .map(|p| {
            nodes
                .matching_nodes_sorted(p)
                .into_iter()
                .filter(|(path, node)| path.is_empty() || node.len() >= 32)
                .map(|(_, node)| node.to_vec())
                .collect()
        })
        .collect();
    (root, proofs)
}

fn slices(nodes: &[Vec<u8>]) -> Vec<&[u8]> {
    nodes.iter().map(Vec::as_slice).collect()
}

/// The transaction and receipt proofs of `index` in `b`.
fn proof_of(b: &Block, index: u64) -> TransactionProof {
    let (_, mut t) = ordered_trie(&b.txs, &[index]);
    let (_, mut r) = ordered_trie(&b.receipts, &[index]);
    TransactionProof {
        index,
        transaction_proof: t.remove(0),
        receipt_proof: r.remove(0),
    }
}

fn query(index: u64, hash: Option<B256>) -> TransactionQuery {
    TransactionQuery { index, hash }
}

/// What a proof verifies to: the transaction and the receipt, or none at the index.
type Verdict = Result<Option<(Vec<u8>, Vec<u8>)>, TransactionProofError>;

/// Verifies `p` through the wire format, as the wasm module does.
fn verify(roots: &BlockRoots, q: &TransactionQuery, p: &TransactionProof) -> Verdict {
    TransactionAtIndex::verify(roots, q, &p.encode()).map(|v| v.map(|v| (v.transaction, v.receipt)))
}

/// The code and the evidence's field of a rejection.
fn rejected(r: Verdict) -> (ErrorCode, String) {
    let e = r.expect_err("the forgery was accepted");
    (e.code(), e.evidence().field)
}

// ---------------------------------------------------------------------------------------------
// Every index of every real block.

#[test]
fn every_index_of_every_real_block_proves_its_transaction_and_receipt() {
    let all = blocks();
    assert_eq!(all.len(), 10, "the ten real blocks");
    let mut proven = 0;
    for b in &all {
        assert_eq!(b.txs.len(), b.receipts.len(), "{}", b.name);
        for (i, tx) in b.txs.iter().enumerate() {
            assert_eq!(keccak256(tx), b.hashes[i], "{} tx {i}: encoding", b.name);
        }
        let n = b.txs.len() as u64;
        // Past the end: the first missing index, the one after, the edges of RLP's one-byte and
        // two-byte keys, and the largest index.
        let past = [n, n + 1, 127, 128, 255, 256, 65_535, 65_536, u64::MAX];
        let targets: Vec<u64> = (0..n)
            .chain(past.iter().copied().filter(|&i| i >= n))
            .collect();
        let (tx_root, tx_proofs) = ordered_trie(&b.txs, &targets);
        let (receipt_root, receipt_proofs) = ordered_trie(&b.receipts, &targets);
        assert_eq!(tx_root, b.roots.transactions_root, "{}", b.name);
        assert_eq!(receipt_root, b.roots.receipts_root, "{}", b.name);
        for (k, &index) in targets.iter().enumerate() {
            let p = TransactionProof {
                index,
                transaction_proof: tx_proofs[k].clone(),
                receipt_proof: receipt_proofs[k].clone(),
            };
            assert!(p.transaction_proof.len() <= MAX_INDEXED_PROOF_NODES);
            let single = verify_indexed_proof(
                &b.roots.transactions_root,
                index,
                &slices(&p.transaction_proof),
            )
            .unwrap();
            let at = usize::try_from(index).ok().filter(|&i| i < b.txs.len());
            match at {
                Some(i) => {
                    assert_eq!(single, Some(b.txs[i].as_slice()), "{} #{i}", b.name);
                    let want = Some((b.txs[i].clone(), b.receipts[i].clone()));
                    let hash = Some(b.hashes[i]);
                    assert_eq!(verify(&b.roots, &query(index, hash), &p), Ok(want.clone()));
                    assert_eq!(verify(&b.roots, &query(index, None), &p), Ok(want));
                    proven += 1;
                }
                None => {
                    assert_eq!(single, None, "{} #{index}", b.name);
                    assert_eq!(verify(&b.roots, &query(index, None), &p), Ok(None));
                    // Absence is no transaction: a hash asked for is not there.
                    let asked = B256::repeat_byte(7);
                    assert_eq!(
                        verify(&b.roots, &query(index, Some(asked)), &p),
                        Err(TransactionProofError::Hash {
                            expected: asked,
                            found: None
                        })
                    );
                }
            }
        }
    }
    // 11 + 57 + 94 + 274 + 233 + 133 + 9 + 4 + 2 + 0 transactions.
    assert_eq!(proven, 817);
}

#[test]
fn the_empty_block_proves_every_index_absent_with_no_node_or_the_empty_node() {
    let b = block("mainnet-1755634");
    assert!(b.txs.is_empty());
    for nodes in [vec![], vec![vec![0x80]]] {
        for index in [0, 1, 128, u64::MAX] {
            let p = TransactionProof {
                index,
                transaction_proof: nodes.clone(),
                receipt_proof: nodes.clone(),
            };
            assert_eq!(verify(&b.roots, &query(index, None), &p), Ok(None));
        }
    }
}

#[test]
fn index_keys_are_the_canonical_rlp_of_the_index() {
    assert_eq!(index_key(0), [0x80]);
    assert_eq!(index_key(1), [0x01]);
    assert_eq!(index_key(127), [0x7f]);
    assert_eq!(index_key(128), [0x81, 0x80]);
    assert_eq!(index_key(256), [0x82, 0x01, 0x00]);
    assert_eq!(index_key(u64::MAX).len(), 9);
}

// ---------------------------------------------------------------------------------------------
// Each check, broken alone.

/// 19432673: 11 transactions of types 0 and 2; keys 0x80 and 0x01..0x0a.
const SMALL: &str = "mainnet-19432673";
/// 22196189: 274 transactions, three-level paths.
const LARGE: &str = "mainnet-22196189";

#[test]
fn an_honest_proof_of_the_blocks_used_below_verifies() {
    for (name, index) in [(SMALL, 3), (LARGE, 200)] {
        let b = block(name);
        let p = proof_of(&b, index);
        assert!(p.transaction_proof.len() >= 2, "{name}: a path of 2+ nodes");
        assert!(verify(&b.roots, &query(index, Some(b.hashes[index as usize])), &p).is_ok());
    }
}

/// Index `j` of `b` whose path shares node `k - 1` with index `i`'s and leaves it at node `k`.
fn branching_off(b: &Block, i: u64, k: usize) -> u64 {
    let mine = proof_of(b, i).transaction_proof;
    (0..b.txs.len() as u64)
        .find(|&j| {
            let other = proof_of(b, j).transaction_proof;
            other.len() > k && other[k - 1] == mine[k - 1] && other[k] != mine[k]
        })
        .unwrap()
}

/// `p`'s last transaction node, a leaf, rewritten to hold `value` under the same path.
fn leaf_holding(p: &mut TransactionProof, value: &[u8]) -> usize {
    let last = p.transaction_proof.len() - 1;
    let mut body = &p.transaction_proof[last][..];
    let _ = Header::decode(&mut body).unwrap();
    let path = Header::decode_bytes(&mut body, false).unwrap().to_vec();
    let mut forged = Vec::new();
    rlp(
        &Item::List(vec![Item::Bytes(path), Item::Bytes(value.to_vec())]),
        &mut forged,
    );
    p.transaction_proof[last] = forged;
    last
}

/// Breaks the honest proof of an index of a block; returns the field the rejection must name.
type Tamper = fn(&Block, &mut TransactionProof) -> String;

/// Each check of the walk, broken alone in an honest proof of `(block, index)`: what is done,
/// and the code it must be rejected with.
fn forgeries() -> Vec<(&'static str, &'static str, u64, Tamper, ErrorCode)> {
    vec![
        (
            "wrong root: a transaction proof of the same index of another block",
            SMALL,
            3,
            |_, p| {
                p.transaction_proof = proof_of(&block(LARGE), 3).transaction_proof;
                "transactionProof[0]".into()
            },
            ErrorCode::RootMismatch,
        ),
        (
            "a receipt proof from another block",
            SMALL,
            3,
            |_, p| {
                p.receipt_proof = proof_of(&block(LARGE), 3).receipt_proof;
                "receiptProof[0]".into()
            },
            ErrorCode::RootMismatch,
        ),
        (
            "the last node dropped",
            LARGE,
            200,
            |_, p| {
                p.transaction_proof.pop();
                "transactionProof".into()
            },
            ErrorCode::TruncatedProof,
        ),
        (
            "a node dropped from the middle",
            LARGE,
            200,
            |_, p| {
                assert!(p.receipt_proof.len() >= 3);
                p.receipt_proof.remove(1);
                "receiptProof[1]".into()
            },
            ErrorCode::NodeHashMismatch,
        ),
        (
            "a node swapped with the one of another index's path",
            LARGE,
            200,
            |b, p| {
                let last = p.transaction_proof.len() - 1;
                let j = branching_off(b, 200, last);
                p.transaction_proof[last] = proof_of(b, j).transaction_proof[last].clone();
                format!("transactionProof[{last}]")
            },
            ErrorCode::KeyMismatch,
        ),
        (
            "the whole proof of another index",
            SMALL,
            3,
            |b, p| {
                let theirs = proof_of(b, 4);
                // Where index 4's path leaves index 3's.
                let k = (0..theirs.transaction_proof.len())
                    .find(|&k| theirs.transaction_proof[k] != p.transaction_proof[k])
                    .unwrap();
                p.transaction_proof = theirs.transaction_proof;
                p.receipt_proof = theirs.receipt_proof;
                format!("transactionProof[{k}]")
            },
            ErrorCode::KeyMismatch,
        ),
        (
            // Index 3's leaf holding index 4's transaction is index 4's own leaf (both sit in
            // one branch with an empty rest of path): the branch references it, under another
            // nibble.
            "the value of another index in the leaf",
            SMALL,
            3,
            |b, p| {
                let last = leaf_holding(p, &b.txs[4]);
                assert_eq!(
                    p.transaction_proof[last],
                    *proof_of(b, 4).transaction_proof.last().unwrap()
                );
                format!("transactionProof[{last}]")
            },
            ErrorCode::KeyMismatch,
        ),
        (
            "the value of another block's transaction in the leaf",
            SMALL,
            3,
            |_, p| {
                let last = leaf_holding(p, &block(LARGE).txs[3]);
                format!("transactionProof[{last}]")
            },
            ErrorCode::NodeHashMismatch,
        ),
        (
            "a trailing node after the leaf",
            SMALL,
            3,
            |b, p| {
                let n = p.receipt_proof.len();
                let other = proof_of(b, 4).receipt_proof;
                p.receipt_proof.push(other.last().unwrap().clone());
                format!("receiptProof[{n}]")
            },
            ErrorCode::ExtraNodes,
        ),
        (
            // The node after the path's end is a child of its last node: another key's path.
            "a trailing node after an absence",
            SMALL,
            11,
            |b, p| {
                let n = p.transaction_proof.len();
                p.transaction_proof
                    .push(proof_of(b, 3).transaction_proof[n].clone());
                format!("transactionProof[{n}]")
            },
            ErrorCode::KeyMismatch,
        ),
        (
            "a node repeated",
            SMALL,
            3,
            |_, p| {
                let first = p.transaction_proof[0].clone();
                p.transaction_proof.insert(1, first);
                "transactionProof[1]".into()
            },
            ErrorCode::DuplicateNode,
        ),
        (
            "two nodes out of order",
            LARGE,
            200,
            |_, p| {
                p.receipt_proof.swap(1, 2);
                "receiptProof[1]".into()
            },
            ErrorCode::NodesOutOfOrder,
        ),
        (
            "a flipped byte in the leaf",
            SMALL,
            3,
            |_, p| {
                let last = p.receipt_proof.len() - 1;
                let at = p.receipt_proof[last].len() - 1;
                p.receipt_proof[last][at] ^= 1;
                format!("receiptProof[{last}]")
            },
            ErrorCode::NodeHashMismatch,
        ),
    ]
}

#[test]
fn each_forgery_of_a_path_is_rejected_with_its_own_code() {
    let all = forgeries();
    assert_eq!(all.len(), 13);
    for (what, name, index, tamper, code) in all {
        let b = block(name);
        let mut p = proof_of(&b, index);
        let field = tamper(&b, &mut p);
        assert_eq!(
            rejected(verify(&b.roots, &query(index, None), &p)),
            (code, field),
            "{what}"
        );
    }
}

#[test]
fn wrong_expected_hash_another_indexs_transaction() {
    let b = block(SMALL);
    let p = proof_of(&b, 3);
    let e = verify(&b.roots, &query(3, Some(b.hashes[4])), &p).unwrap_err();
    assert_eq!(
        e,
        TransactionProofError::Hash {
            expected: b.hashes[4],
            found: Some(b.hashes[3])
        }
    );
    assert_eq!(e.code(), ErrorCode::TransactionHashMismatch);
    assert_eq!(e.evidence().field, "transaction");
}

#[test]
fn a_proof_for_another_index_than_asked() {
    let b = block(SMALL);
    let p = proof_of(&b, 4);
    assert_eq!(
        verify(&b.roots, &query(3, None), &p),
        Err(TransactionProofError::Index {
            expected: 3,
            found: 4
        })
    );
    assert_eq!(
        rejected(verify(&b.roots, &query(3, None), &p)),
        (ErrorCode::KeyMismatch, "index".into())
    );
}

#[test]
fn a_trie_keyed_by_a_non_canonical_rlp_index() {
    // A prover that keys entry 0 by 0x00 (RLP of the byte 0, not of the integer 0): its root
    // differs from the honest one, and even against that root the walk for index 0 follows
    // 0x80 and leaves the prover's path.
    let b = block(SMALL);
    let mut leaves: Vec<(Vec<u8>, &[u8])> = b
        .txs
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let key = if i == 0 {
                vec![0x00]
            } else {
                index_key(i as u64)
            };
            (key, v.as_slice())
        })
        .collect();
    leaves.sort();
    let target = Nibbles::unpack([0x00]);
    let mut hb = HashBuilder::default().with_proof_retainer(ProofRetainer::new(vec![target]));
    for (k, v) in &leaves {
        hb.add_leaf(Nibbles::unpack(k), v);
    }
    let forged_root = hb.root();
    assert_ne!(forged_root, b.roots.transactions_root);
    let nodes: Vec<Vec<u8>> = hb
        .take_proof_nodes()
        .matching_nodes_sorted(&target)
        .into_iter()
        .map(|(_, n)| n.to_vec())
        .collect();
    let e = verify_indexed_proof(&forged_root, 0, &slices(&nodes)).unwrap_err();
    assert!(matches!(e, MptError::KeyMismatch { index: 1 }), "{e:?}");
    assert_eq!(e.code(), ErrorCode::KeyMismatch);
    // Against the real root, the same proof fails at its first node.
    assert_eq!(
        verify_indexed_proof(&b.roots.transactions_root, 0, &slices(&nodes))
            .unwrap_err()
            .code(),
        ErrorCode::RootMismatch
    );
}

#[test]
fn a_transaction_without_its_receipt_and_the_other_way_round() {
    // Roots of two blocks: index 3 holds an entry in one list and none in the other.
    let (a, empty) = (block(SMALL), block("mainnet-1755634"));
    for transaction in [true, false] {
        let pick = |yes: bool| if yes { &a.roots } else { &empty.roots };
        let roots = BlockRoots {
            transactions_root: pick(transaction).transactions_root,
            receipts_root: pick(!transaction).receipts_root,
        };
        let honest = proof_of(&a, 3);
        let p = TransactionProof {
            index: 3,
            transaction_proof: if transaction {
                honest.transaction_proof
            } else {
                vec![]
            },
            receipt_proof: if transaction {
                vec![]
            } else {
                honest.receipt_proof
            },
        };
        let r = verify(&roots, &query(3, None), &p);
        assert_eq!(r, Err(TransactionProofError::Presence { transaction }));
        assert_eq!(
            rejected(r),
            (ErrorCode::ReceiptMismatch, "receiptProof".into())
        );
    }
}

#[test]
fn a_receipt_of_another_type_than_its_transaction() {
    // 19432673 holds legacy and EIP-1559 transactions: pair one's transaction with the other's
    // receipt through the roots of 19432673 and a block whose receipt at that index differs.
    let a = block(SMALL);
    let all = blocks();
    let (other, i) = all
        .iter()
        .filter(|o| o.name != a.name)
        .find_map(|o| {
            (0..a.txs.len().min(o.receipts.len()))
                .find(|&i| a.txs[i][0].min(0x80) != o.receipts[i][0].min(0x80))
                .map(|i| (o, i))
        })
        .unwrap();
    let roots = BlockRoots {
        transactions_root: a.roots.transactions_root,
        receipts_root: other.roots.receipts_root,
    };
    let p = TransactionProof {
        index: i as u64,
        transaction_proof: proof_of(&a, i as u64).transaction_proof,
        receipt_proof: proof_of(other, i as u64).receipt_proof,
    };
    let e = verify(&roots, &query(i as u64, None), &p).unwrap_err();
    assert!(matches!(e, TransactionProofError::Type { .. }), "{e:?}");
    assert_eq!(e.code(), ErrorCode::ReceiptMismatch);
    assert_eq!(e.evidence().field, "receiptProof");
}

#[test]
fn wire_caps_and_encoding() {
    let b = block(SMALL);
    let p = proof_of(&b, 3);
    let code_field = |bytes: &[u8]| {
        let e = TransactionAtIndex::verify(&b.roots, &query(3, None), bytes).unwrap_err();
        (e.code(), e.evidence().field)
    };
    // Trailing bytes.
    let mut longer = p.encode();
    longer.push(0);
    assert_eq!(
        code_field(&longer),
        (ErrorCode::BadEncoding, "receiptProof".into())
    );
    // Every strict prefix is rejected, none panics.
    let enc = p.encode();
    for cut in 0..enc.len() {
        assert_eq!(code_field(&enc[..cut]).0, ErrorCode::BadEncoding, "{cut}");
    }
    // An unknown version.
    let mut v2 = enc.clone();
    v2[0] = 2;
    assert_eq!(code_field(&v2), (ErrorCode::BadEncoding, "version".into()));
    // More nodes than any RLP(index) path has: refused before any hashing.
    let mut long = p.clone();
    long.transaction_proof = vec![vec![0xc0]; MAX_INDEXED_PROOF_NODES + 1];
    assert_eq!(
        code_field(&long.encode()),
        (ErrorCode::BadEncoding, "transactionProof".into())
    );
    // Past the wire, a longer list fails the walk: the honest path and one node more.
    let mut nodes = slices(&p.transaction_proof);
    let extra = p.receipt_proof[0].clone();
    nodes.push(&extra);
    assert!(verify_indexed_proof(&b.roots.transactions_root, 3, &nodes).is_err());
}

#[test]
fn rejections_read_as_sentences_naming_the_part() {
    let (a, b) = (block(SMALL), block(LARGE));
    let mut p = proof_of(&a, 3);
    p.receipt_proof = proof_of(&b, 3).receipt_proof;
    let e = verify(&a.roots, &query(3, None), &p).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("receiptProof: the first node hashes to 0x"),
        "{msg}"
    );
    let ev = e.evidence();
    assert_eq!(
        ev.expected.as_deref(),
        Some(lightprov_types::hex::encode(a.roots.receipts_root.as_slice()).as_str())
    );
}

#[test]
fn worked_example_of_docs_proofs_md() {
    let doc =
        fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/proofs.md"))
            .unwrap();
    let at = doc
        .find("\"transactionProof\": [")
        .expect("the example's transactionProof");
    let nodes: Vec<Vec<u8>> = doc[at..]
        .lines()
        .skip(1)
        .take(2)
        .map(|l| {
            hex(&Value::from(
                l.trim().trim_end_matches(',').trim_matches('"'),
            ))
        })
        .collect();
    let b = block("mainnet-1755635");
    let honest = proof_of(&b, 1);
    assert_eq!(nodes, honest.transaction_proof);
    assert_eq!(honest.encode().len(), 619);
    let hash = Some(b.hashes[1]);
    assert_eq!(
        keccak256(&b.txs[1]),
        B256::from_slice(&hex(&Value::from(
            "0x9a5437ec71b74ecf5930b406908ac6999966d38a86d1534b7190ece7599095eb"
        )))
    );
    assert_eq!(
        verify(&b.roots, &query(1, hash), &honest),
        Ok(Some((b.txs[1].clone(), b.receipts[1].clone())))
    );
    // Index 2: the same nodes prove it absent (index 1's leaf sits where its path goes).
    let absent = TransactionProof { index: 2, ..honest };
    assert_eq!(verify(&b.roots, &query(2, None), &absent), Ok(None));
}
