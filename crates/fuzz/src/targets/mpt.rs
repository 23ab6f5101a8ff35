//! `mpt`: EIP-1186 account proofs (with storage) in the compact wire format, and bare trie
//! proofs, through `lightprov_types::mpt` and `lightprov_verifier::mpt`.
//!
//! Every vector is a seed twice: against its trusted root, and *self-rooted* — the root is
//! keccak256 of the (mutated) first node, and the structure-aware mutations re-link the hash
//! chain after editing a node — so mutated node contents reach the node parser and the walk
//! instead of stopping at the root check. An accepted input fails when, against the trusted
//! root, it proves a value other than the seed's for the seed's key, and in either mode when
//! an independent verifier (alloy-trie) refuses the claim our verifier accepted.

use alloy_primitives::{Bytes, U256};
use alloy_rlp::Encodable as _;
use lightprov_types::{
    B256, Word,
    codec::{Reader, Writer},
    hex,
    mpt::{
        AccountProof, AccountProofRef, StorageProof, TransactionProof, decode_nodes, encode_nodes,
    },
};
use lightprov_verifier::{
    keccak256,
    mpt::{AccountProofError, MptError, VerifiedAccount, verify_account_proof, verify_proof},
};
use serde_json::{Value, json};

use crate::{Corpus, Depth, Finding, Outcome, Regression, Target, rng::Rng, strip_digits, vectors};

/// What a seed is.
#[derive(Clone, Debug)]
enum Kind {
    Account {
        honest: VerifiedAccount,
        address: alloy_primitives::Address,
    },
    Trie {
        key: Vec<u8>,
        value: Option<Vec<u8>>,
    },
}

#[derive(Clone, Debug)]
struct Seed {
    kind: Kind,
    /// The vector's trusted root.
    root: B256,
    /// Root = keccak256 of the first node.
    self_rooted: bool,
    /// alloy-trie accepts the honest seed (its verdict is an oracle for this seed's mutants).
    oracle: bool,
    vector: String,
}

/// One seed before its two roots: name, the case's bytes, what it is, its trusted root.
type Case = (String, Vec<u8>, Kind, B256);

/// The `mpt` target.
#[derive(Debug)]
pub struct Mpt {
    corpus: Corpus,
    info: Vec<Seed>,
}

/// A trie vector's inputs: its `key`, its claimed `value` (`None`: absent) and its `proof` nodes.
#[derive(Debug)]
pub struct TrieInputs {
    /// The key.
    pub key: Vec<u8>,
    /// The claimed value.
    pub value: Option<Vec<u8>>,
    /// The proof's nodes.
    pub nodes: Vec<Vec<u8>>,
}

impl TrieInputs {
    /// Reads them from a vector's inputs.
    pub fn read(i: &Value) -> anyhow::Result<Self> {
        let value = match i["value"].as_str() {
            Some(s) => Some(hex::data(s, "value")?),
            None => None,
        };
        let nodes = i["proof"]
            .as_array()
            .ok_or_else(|| anyhow::anyhow!("proof is not an array"))?
            .iter()
            .map(|n| hex::data(n.as_str().unwrap_or_default(), "proof"))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            key: vectors::data(i, "key")?,
            value,
            nodes,
        })
    }

    /// The case as the target's input ([`encode_trie_case`]).
    pub fn encode(&self) -> Vec<u8> {
        encode_trie_case(&self.key, self.value.as_deref(), &self.nodes)
    }
}

/// A bare trie proof case: `keyLen:u8 key present:u8 [valueLen:u16 value] Nodes`.
pub fn encode_trie_case(key: &[u8], value: Option<&[u8]>, nodes: &[Vec<u8>]) -> Vec<u8> {
    let mut w = Writer::default();
    w.raw(&[key.len().min(255) as u8]);
    w.raw(&key[..key.len().min(255)]);
    match value {
        Some(v) => {
            w.raw(&[1]);
            w.raw(&(v.len().min(65535) as u16).to_be_bytes());
            w.raw(&v[..v.len().min(65535)]);
        }
        None => w.raw(&[0]),
    }
    encode_nodes(&mut w, &nodes[..nodes.len().min(65535)]);
    w.out
}

type TrieCase<'a> = (&'a [u8], Option<&'a [u8]>, Vec<&'a [u8]>);

/// Decodes a bare trie proof case (through the real `Nodes` decoder).
pub fn decode_trie_case(data: &[u8]) -> Result<TrieCase<'_>, lightprov_types::DecodeError> {
    let mut r = Reader::new(data);
    let klen = r.u8("key")?;
    let key = r.take(usize::from(klen), "key")?;
    let value = match r.u8("present")? {
        0 => None,
        1 => {
            let n = r.u16("value")?;
            Some(r.take(usize::from(n), "value")?)
        }
        _ => {
            return Err(lightprov_types::DecodeError::new("present", "not 0 or 1"));
        }
    };
    let nodes = decode_nodes(&mut r, "proof")?;
    r.finish("proof")?;
    Ok((key, value, nodes))
}

fn owned(p: &AccountProofRef<'_>) -> AccountProof {
    AccountProof {
        address: p.address,
        balance: p.balance,
        nonce: p.nonce,
        code_hash: p.code_hash,
        storage_hash: p.storage_hash,
        account_proof: p.account_proof.iter().map(|n| n.to_vec()).collect(),
        storage_proof: p
            .storage_proof
            .iter()
            .map(|s| StorageProof {
                key: s.key,
                value: s.value,
                proof: s.proof.iter().map(|n| n.to_vec()).collect(),
            })
            .collect(),
    }
}

/// alloy-trie's verdict on one claim. Branch nodes with values (which Ethereum's fixed-length
/// secure tries never have) and node paths over 64 nibbles (its `Nibbles` hold at most 64; a
/// general trie's longer keys have them, and a path of another length than the key's proves
/// the key absent) are outside what alloy-trie verifies: it has no verdict on them.
fn alloy_accepts(root: B256, path: &[u8], value: Option<Vec<u8>>, nodes: &[&[u8]]) -> bool {
    if path.len() > 32 {
        // A key over 64 nibbles: no verdict either (`Nibbles::unpack` would assert).
        return true;
    }
    let nodes: Vec<Bytes> = nodes.iter().map(|n| Bytes::copy_from_slice(n)).collect();
    match alloy_trie::proof::verify_proof(root, alloy_trie::Nibbles::unpack(path), value, &nodes) {
        Ok(()) => true,
        Err(e) => {
            let e = e.to_string();
            e.contains("branch node values are not supported")
                || e.contains("trie node key too long")
        }
    }
}

/// The account leaf as the state trie stores it.
fn account_rlp(a: &VerifiedAccount) -> Vec<u8> {
    let mut payload = Vec::new();
    a.nonce.encode(&mut payload);
    U256::from_be_bytes(a.balance).encode(&mut payload);
    a.storage_hash.encode(&mut payload);
    a.code_hash.encode(&mut payload);
    let mut out = Vec::new();
    alloy_rlp::Header {
        list: true,
        payload_length: payload.len(),
    }
    .encode(&mut out);
    out.extend(payload);
    out
}

fn storage_rlp(v: &Word) -> Option<Vec<u8>> {
    let u = U256::from_be_bytes(*v);
    (!u.is_zero()).then(|| alloy_rlp::encode(u))
}

/// alloy-trie's verdict on every claim of an accepted account proof.
fn alloy_accepts_account(root: B256, p: &AccountProofRef<'_>, a: &VerifiedAccount) -> bool {
    let value = a.exists.then(|| account_rlp(a));
    if !alloy_accepts(
        root,
        keccak256(p.address).as_slice(),
        value,
        &p.account_proof,
    ) {
        return false;
    }
    p.storage_proof.iter().zip(&a.storage).all(|(s, (_, v))| {
        alloy_accepts(
            a.storage_hash,
            keccak256(s.key).as_slice(),
            storage_rlp(v),
            &s.proof,
        )
    })
}

fn mpt_class(e: &MptError) -> String {
    let (name, index) = match e {
        MptError::Decode(d) => (d.reason, 0),
        MptError::MalformedNode { index, reason } => (*reason, *index),
        MptError::RootMismatch { .. } => ("root", 0),
        MptError::NodeHashMismatch { index, .. } => ("hash", *index),
        MptError::DuplicateNode { index, .. } => ("duplicate", *index),
        MptError::NodesOutOfOrder { index } => ("order", *index),
        MptError::ExtraNodes { index, .. } => ("extra", *index),
        MptError::TruncatedProof { nodes } => ("truncated", *nodes),
        MptError::KeyMismatch { index } => ("key", *index),
        MptError::ValueMismatch { got, .. } => (
            if got.is_some() {
                "value-present"
            } else {
                "value-absent"
            },
            0,
        ),
    };
    format!("{}:{name}:{}", e.code(), index.min(9))
}

impl Mpt {
    /// Reads the seeds from `tests/vectors/mpt/valid`.
    pub fn new() -> anyhow::Result<Self> {
        let mut seeds = Vec::new();
        let mut info = Vec::new();
        for (name, v) in vectors::load("mpt", "valid")? {
            let i = &v["inputs"];
            let cases: Vec<Case> = if i.get("receiptsRoot").is_some() {
                Self::transaction_cases(&name, i)?
            } else if i["proof"].is_object() {
                let p = AccountProof::from_json(&i["proof"])?;
                let root = vectors::b256(i, "stateRoot")?;
                let honest = verify_account_proof(&root, &p.as_ref())
                    .map_err(|e| anyhow::anyhow!("seed {name} does not verify: {e}"))?;
                let address = p.address;
                vec![(name, p.encode(), Kind::Account { honest, address }, root)]
            } else {
                let TrieInputs { key, value, nodes } =
                    TrieInputs::read(i).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
                if nodes.len() > lightprov_types::mpt::MAX_PROOF_NODES {
                    continue;
                }
                vec![(
                    name,
                    encode_trie_case(&key, value.as_deref(), &nodes),
                    Kind::Trie { key, value },
                    vectors::b256(i, "root")?,
                )]
            };
            for (name, bytes, kind, root) in cases {
                Self::push(&mut seeds, &mut info, name, bytes, kind, root);
            }
        }
        anyhow::ensure!(!seeds.is_empty(), "no mpt seeds");
        Ok(Self {
            corpus: Corpus { name: "mpt", seeds },
            info,
        })
    }

    /// A transaction proof vector's two trie proofs (key `RLP(index)` in the block's
    /// transactions and receipts tries) as bare trie seeds, named `<vector> (transactions)` and
    /// `<vector> (receipts)`.
    fn transaction_cases(name: &str, i: &Value) -> anyhow::Result<Vec<Case>> {
        let p = TransactionProof::from_json(&i["proof"])?;
        let key = lightprov_verifier::mpt::index_key(p.index);
        let mut out = Vec::new();
        for (list, nodes, value, root) in [
            (
                "transactions",
                &p.transaction_proof,
                "transaction",
                "transactionsRoot",
            ),
            ("receipts", &p.receipt_proof, "receipt", "receiptsRoot"),
        ] {
            let value = match i["proof"][value].as_str() {
                Some(s) => Some(hex::data(s, value)?),
                None => None,
            };
            // The case format counts a value's bytes in a u16.
            if value
                .as_ref()
                .is_some_and(|v| v.len() > usize::from(u16::MAX))
            {
                continue;
            }
            out.push((
                format!("{name} ({list})"),
                encode_trie_case(&key, value.as_deref(), nodes),
                Kind::Trie {
                    key: key.clone(),
                    value,
                },
                vectors::b256(i, root)?,
            ));
        }
        Ok(out)
    }

    /// Adds a case as two seeds: against its trusted root, and self-rooted.
    fn push(
        seeds: &mut Vec<(String, Vec<u8>)>,
        info: &mut Vec<Seed>,
        name: String,
        bytes: Vec<u8>,
        kind: Kind,
        root: B256,
    ) {
        for self_rooted in [false, true] {
            let mut seed = Seed {
                kind: kind.clone(),
                root,
                self_rooted,
                oracle: false,
                vector: name.clone(),
            };
            seed.oracle = Self::oracle_accepts(&seed, &bytes);
            let tag = if self_rooted {
                "self-rooted"
            } else {
                "trusted"
            };
            seeds.push((format!("{name} ({tag})"), bytes.clone()));
            info.push(seed);
        }
    }

    /// How many seeds alloy-trie checks (the rest have no independent oracle).
    pub fn oracle_seeds(&self) -> (usize, usize) {
        (
            self.info.iter().filter(|s| s.oracle).count(),
            self.info.len(),
        )
    }

    fn oracle_accepts(seed: &Seed, data: &[u8]) -> bool {
        match &seed.kind {
            Kind::Account { honest, .. } => AccountProofRef::decode(data)
                .is_ok_and(|p| alloy_accepts_account(seed.root, &p, honest)),
            Kind::Trie { .. } => decode_trie_case(data)
                .is_ok_and(|(k, v, n)| alloy_accepts(seed.root, k, v.map(<[u8]>::to_vec), &n)),
        }
    }

    fn root_for(seed: &Seed, first: Option<&&[u8]>) -> B256 {
        match (seed.self_rooted, first) {
            (true, Some(n)) => keccak256(n),
            _ => seed.root,
        }
    }

    fn run_account(
        seed: &Seed,
        honest: &VerifiedAccount,
        address: alloy_primitives::Address,
        data: &[u8],
    ) -> Result<Outcome, Finding> {
        let p = match AccountProofRef::decode(data) {
            Ok(p) => p,
            Err(e) => {
                return Ok(Outcome::new(
                    Depth::Undecoded,
                    format!("decode:{}:{}", strip_digits(&e.field), e.reason),
                ));
            }
        };
        let root = Self::root_for(seed, p.account_proof.first());
        let a = match verify_account_proof(&root, &p) {
            Ok(a) => a,
            Err(e) => {
                let (depth, class) = match &e {
                    AccountProofError::Account(m) => {
                        (Depth::Decoded, format!("account:{}", mpt_class(m)))
                    }
                    AccountProofError::Field { field, absent } => {
                        (Depth::Final, format!("field:{}:{absent}", field.name()))
                    }
                    AccountProofError::Storage { index, error } => (
                        Depth::Final,
                        format!("storage{}:{}", index.min(&3), mpt_class(error)),
                    ),
                    // Neither arises from a decoded proof checked on its own.
                    AccountProofError::Decode(d) => {
                        (Depth::Undecoded, format!("decode:{}", d.reason))
                    }
                    AccountProofError::Address { .. } => (Depth::Final, "address".into()),
                };
                return Ok(Outcome::new(depth, class));
            }
        };
        if !seed.self_rooted && p.address == address {
            let same = (a.exists, a.nonce, a.balance, a.code_hash, a.storage_hash)
                == (
                    honest.exists,
                    honest.nonce,
                    honest.balance,
                    honest.code_hash,
                    honest.storage_hash,
                );
            if !same {
                return Err(Finding::new(
                    "forgery",
                    format!("accepted account {a:?}, the honest one is {honest:?}"),
                ));
            }
            for (k, v) in &a.storage {
                if let Some((_, hv)) = honest.storage.iter().find(|(hk, _)| hk == k)
                    && hv != v
                {
                    return Err(Finding::new(
                        "forgery",
                        format!(
                            "accepted slot {k} = {}, the honest value is {}",
                            hex::encode(v),
                            hex::encode(hv)
                        ),
                    ));
                }
            }
        }
        if seed.oracle && !alloy_accepts_account(root, &p, &a) {
            return Err(Finding::new(
                "oracle-disagreement",
                format!("our verifier accepted {a:?}; alloy-trie refuses it"),
            ));
        }
        Ok(Outcome::new(Depth::Accepted, "ok"))
    }

    fn run_trie(
        seed: &Seed,
        honest_key: &[u8],
        honest_value: Option<&[u8]>,
        data: &[u8],
    ) -> Result<Outcome, Finding> {
        let (key, value, nodes) = match decode_trie_case(data) {
            Ok(c) => c,
            Err(e) => {
                return Ok(Outcome::new(
                    Depth::Undecoded,
                    format!("decode:{}:{}", e.field, e.reason),
                ));
            }
        };
        let root = Self::root_for(seed, nodes.first());
        if let Err(e) = verify_proof(&root, key, value, &nodes) {
            let depth = if matches!(e, MptError::ValueMismatch { .. }) {
                Depth::Final
            } else {
                Depth::Decoded
            };
            return Ok(Outcome::new(depth, format!("trie:{}", mpt_class(&e))));
        }
        if !seed.self_rooted && key == honest_key && value != honest_value {
            return Err(Finding::new(
                "forgery",
                format!(
                    "accepted {} for key {}, the honest claim is {}",
                    value.map_or("absence".into(), hex::encode),
                    hex::encode(key),
                    honest_value.map_or("absence".into(), hex::encode),
                ),
            ));
        }
        if seed.oracle && !alloy_accepts(root, key, value.map(<[u8]>::to_vec), &nodes) {
            return Err(Finding::new(
                "oracle-disagreement",
                format!(
                    "our verifier accepted {} for key {}; alloy-trie refuses it",
                    value.map_or("absence".into(), hex::encode),
                    hex::encode(key)
                ),
            ));
        }
        Ok(Outcome::new(Depth::Accepted, "ok"))
    }
}

/// Replaces node `i`'s old hash in every earlier node by its new one, back to the root:
/// node contents change, the chain of references stays intact.
fn relink(nodes: &mut [Vec<u8>], mut i: usize, mut old: B256) {
    while i > 0 {
        let new = keccak256(&nodes[i]);
        let parent = &mut nodes[i - 1];
        let old_parent = keccak256(&parent[..]);
        if let Some(at) = parent.windows(32).position(|w| w == old.as_slice()) {
            parent[at..at + 32].copy_from_slice(new.as_slice());
        }
        old = old_parent;
        i -= 1;
    }
}

/// Edits one node's bytes (and re-links the chain above it).
fn edit_node(nodes: &mut Vec<Vec<u8>>, rng: &mut Rng, pool: &[Vec<u8>]) {
    if nodes.is_empty() {
        if let Some(n) = rng.pick(pool) {
            nodes.push(n.clone());
        }
        return;
    }
    let i = rng.below(nodes.len());
    let old = keccak256(&nodes[i]);
    match rng.below(6) {
        0 => {
            let n = nodes[i].clone();
            nodes.insert(i, n);
        }
        1 if nodes.len() > 1 => {
            nodes.remove(i);
        }
        2 if nodes.len() > 1 => {
            let j = rng.below(nodes.len());
            nodes.swap(i, j);
        }
        3 => {
            if let Some(n) = rng.pick(pool) {
                nodes.insert(rng.below(nodes.len() + 1), n.clone());
            }
        }
        _ => {
            let mut n = nodes[i].clone();
            crate::mutate::once(&mut n, rng, pool.first().map_or(&[][..], |p| p), &[]);
            nodes[i] = n;
            relink(nodes, i, old);
        }
    }
}

impl Target for Mpt {
    fn run(&self, seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        let s = &self.info[seed];
        match &s.kind {
            Kind::Account { honest, address } => Self::run_account(s, honest, *address, data),
            Kind::Trie { key, value } => Self::run_trie(s, key, value.as_deref(), data),
        }
        .map(|mut o| {
            o.benign_variant =
                o.depth == Depth::Accepted && data != self.corpus.seeds[seed].1.as_slice();
            o
        })
    }

    fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    fn mutate(&self, seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        // A pool of real nodes from another seed: foreign nodes, splices.
        let other = &self.corpus.seeds[rng.below(self.corpus.seeds.len())].1;
        let pool: Vec<Vec<u8>> = match AccountProofRef::decode(other) {
            Ok(p) => p.account_proof.iter().map(|n| n.to_vec()).collect(),
            Err(_) => decode_trie_case(other)
                .map(|(_, _, n)| n.iter().map(|x| x.to_vec()).collect())
                .unwrap_or_default(),
        };
        match &self.info[seed].kind {
            Kind::Account { .. } => {
                let mut p = owned(&AccountProofRef::decode(data).ok()?);
                match rng.below(8) {
                    0 => p.nonce = p.nonce.wrapping_add(1 + rng.below(3) as u64),
                    1 => p.balance[31 - rng.below(32)] ^= 1 << rng.below(8),
                    2 => p.address.0[rng.below(20)] ^= 1 << rng.below(8),
                    3 if !p.storage_proof.is_empty() => {
                        let i = rng.below(p.storage_proof.len());
                        match rng.below(4) {
                            0 => p.storage_proof[i].value = [0; 32],
                            1 => p.storage_proof[i].value[31] ^= 1,
                            2 => p.storage_proof[i].key.0[rng.below(32)] ^= 1,
                            _ => {
                                let s = p.storage_proof[i].clone();
                                p.storage_proof.push(s);
                            }
                        }
                    }
                    4 if !p.storage_proof.is_empty() => {
                        let i = rng.below(p.storage_proof.len());
                        edit_node(&mut p.storage_proof[i].proof, rng, &pool);
                    }
                    5 => {
                        p.code_hash = B256::ZERO;
                        p.storage_hash = lightprov_types::EMPTY_ROOT_HASH;
                    }
                    _ => edit_node(&mut p.account_proof, rng, &pool),
                }
                if p.account_proof.len() > 65535 || p.storage_proof.len() > 65535 {
                    return None;
                }
                Some(p.encode())
            }
            Kind::Trie { .. } => {
                let (key, value, nodes) = decode_trie_case(data).ok()?;
                let mut key = key.to_vec();
                let mut value = value.map(<[u8]>::to_vec);
                let mut nodes: Vec<Vec<u8>> = nodes.iter().map(|n| n.to_vec()).collect();
                match rng.below(6) {
                    0 if !key.is_empty() => {
                        let i = rng.below(key.len());
                        key[i] ^= 1 << rng.below(8);
                    }
                    1 => {
                        value = match value {
                            Some(_) => None,
                            None => {
                                let n = 1 + rng.below(40);
                                Some(rng.bytes(n))
                            }
                        }
                    }
                    2 => {
                        if let Some(v) = value.as_mut().filter(|v| !v.is_empty()) {
                            let i = rng.below(v.len());
                            v[i] ^= 1;
                        }
                    }
                    _ => edit_node(&mut nodes, rng, &pool),
                }
                Some(encode_trie_case(&key, value.as_deref(), &nodes))
            }
        }
    }

    fn dictionary(&self) -> Vec<Vec<u8>> {
        vec![
            vec![0x80],
            vec![0xc0],
            vec![0xa0],
            vec![0xf8],
            vec![0xf9, 0x02, 0x11],
            vec![0x00, 0x41],
            vec![0x00, 0x00, 0x00, 0x21],
            vec![0x20],
            vec![0x3a],
        ]
    }

    fn regression(&self, seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        let s = &self.info[seed];
        let inputs = match &s.kind {
            Kind::Account { .. } => {
                let p = owned(&AccountProofRef::decode(data).ok()?);
                let root = Self::root_for(s, p.account_proof.first().map(Vec::as_slice).as_ref());
                json!({ "stateRoot": root, "proof": p.to_json() })
            }
            Kind::Trie { .. } => {
                let (key, value, nodes) = decode_trie_case(data).ok()?;
                let root = Self::root_for(s, nodes.first());
                json!({
                    "root": root,
                    "key": hex::encode(key),
                    "value": value.map_or(Value::Null, |v| Value::from(hex::encode(v))),
                    "proof": nodes.iter().map(|n| hex::encode(n)).collect::<Vec<_>>(),
                })
            }
        };
        Some(vectors::regression_vector(
            "mpt", "mpt", &s.vector, inputs, why, data,
        ))
    }
}
