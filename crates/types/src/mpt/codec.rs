//! The mpt family's wire format and hashing rules (documented on the family module).

use alloc::{format, string::String, vec::Vec};

use crate::{
    Address, B256, DecodeError, Word,
    codec::{Reader, SpanSink, Spans, Writer, spanned},
};

/// Version byte of the [`AccountProof`] wire format.
pub const ACCOUNT_PROOF_VERSION: u8 = 1;

/// The most storage proofs one account proof may carry (the wire format counts them in a u16).
pub const MAX_STORAGE_PROOFS: usize = u16::MAX as usize;

/// The most nodes one trie proof may carry: a 32-byte key has 64 nibbles, so a path has at
/// most 65 hashed nodes. Longer lists are rejected while decoding, before any hashing.
pub const MAX_PROOF_NODES: usize = 65;

/// An EIP-1186 account proof with the account fields it claims.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountProof {
    /// The account's address.
    pub address: Address,
    /// Claimed balance (wei), big-endian.
    pub balance: Word,
    /// Claimed nonce.
    pub nonce: u64,
    /// Claimed code hash (keccak256 of the empty string for an account without code or absent).
    pub code_hash: B256,
    /// Claimed storage trie root (the empty-trie root for an account without storage or absent).
    pub storage_hash: B256,
    /// Trie nodes from the state root towards keccak256(address), RLP-encoded.
    pub account_proof: Vec<Vec<u8>>,
    /// Storage slot proofs against `storage_hash`.
    pub storage_proof: Vec<StorageProof>,
}

/// A storage slot's claimed value and its proof against the account's storage root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageProof {
    /// The slot (trie path = keccak256(key)).
    pub key: B256,
    /// Claimed value; zero means the slot is absent.
    pub value: Word,
    /// Trie nodes from the storage root towards keccak256(key), RLP-encoded.
    pub proof: Vec<Vec<u8>>,
}

/// Encodes a node list in the `Nodes` wire format.
///
/// # Panics
/// If there are more than 65,535 nodes.
#[allow(clippy::expect_used)]
pub fn encode_nodes(w: &mut Writer, nodes: &[Vec<u8>]) {
    w.u16(u16::try_from(nodes.len()).expect("fewer than 65536 nodes"));
    for n in nodes {
        w.bytes(n);
    }
}

/// Decodes a `Nodes` list, borrowing from the input; at most [`MAX_PROOF_NODES`] nodes.
/// Spans: `{field}` (the list with its count) and `{field}[i]` (node `i`, its RLP without the
/// length prefix).
pub fn decode_nodes<'a, K: SpanSink>(
    r: &mut Reader<'a, K>,
    field: &str,
) -> Result<Vec<&'a [u8]>, DecodeError> {
    decode_nodes_at_most(r, field, MAX_PROOF_NODES, TOO_MANY_NODES)
}

const TOO_MANY_NODES: &str = "more nodes than any 32-byte key path has";
const TOO_MANY_INDEXED_NODES: &str = "more nodes than any RLP(index) key path has";

/// [`decode_nodes`] with another cap, rejected for `reason` before any node is read.
fn decode_nodes_at_most<'a, K: SpanSink>(
    r: &mut Reader<'a, K>,
    field: &str,
    max: usize,
    reason: &'static str,
) -> Result<Vec<&'a [u8]>, DecodeError> {
    let start = r.pos();
    let count = r.u16(field)? as usize;
    if count > max {
        return Err(DecodeError::new(field, reason));
    }
    let nodes = (0..count)
        .map(|i| {
            let node = r.bytes(field)?;
            r.span(r.pos() - node.len(), || format!("{field}[{i}]"));
            Ok(node)
        })
        .collect::<Result<Vec<_>, DecodeError>>()?;
    r.span(start, || String::from(field));
    Ok(nodes)
}

/// An [`AccountProof`] decoded from the wire format, borrowing its nodes from the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountProofRef<'a> {
    /// See [`AccountProof::address`].
    pub address: Address,
    /// See [`AccountProof::balance`].
    pub balance: Word,
    /// See [`AccountProof::nonce`].
    pub nonce: u64,
    /// See [`AccountProof::code_hash`].
    pub code_hash: B256,
    /// See [`AccountProof::storage_hash`].
    pub storage_hash: B256,
    /// See [`AccountProof::account_proof`].
    pub account_proof: Vec<&'a [u8]>,
    /// See [`AccountProof::storage_proof`].
    pub storage_proof: Vec<StorageProofRef<'a>>,
}

/// A [`StorageProof`] borrowing its nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageProofRef<'a> {
    /// See [`StorageProof::key`].
    pub key: B256,
    /// See [`StorageProof::value`].
    pub value: Word,
    /// See [`StorageProof::proof`].
    pub proof: Vec<&'a [u8]>,
}

impl AccountProof {
    /// Encodes the proof in the compact wire format.
    ///
    /// # Panics
    /// If a node list or the storage list has more than 65,535 entries.
    #[allow(clippy::expect_used)]
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(ACCOUNT_PROOF_VERSION);
        w.raw(self.address.as_slice());
        w.raw(&self.balance);
        w.u64(self.nonce);
        w.raw(self.code_hash.as_slice());
        w.raw(self.storage_hash.as_slice());
        encode_nodes(&mut w, &self.account_proof);
        w.u16(u16::try_from(self.storage_proof.len()).expect("fewer than 65536 slots"));
        for s in &self.storage_proof {
            w.raw(s.key.as_slice());
            w.raw(&s.value);
            encode_nodes(&mut w, &s.proof);
        }
        w.out
    }

    /// Borrows this proof as an [`AccountProofRef`].
    pub fn as_ref(&self) -> AccountProofRef<'_> {
        AccountProofRef {
            address: self.address,
            balance: self.balance,
            nonce: self.nonce,
            code_hash: self.code_hash,
            storage_hash: self.storage_hash,
            account_proof: self.account_proof.iter().map(Vec::as_slice).collect(),
            storage_proof: self
                .storage_proof
                .iter()
                .map(|s| StorageProofRef {
                    key: s.key,
                    value: s.value,
                    proof: s.proof.iter().map(Vec::as_slice).collect(),
                })
                .collect(),
        }
    }
}

impl<'a> AccountProofRef<'a> {
    /// Decodes the compact wire format; rejects unknown versions and trailing bytes.
    pub fn decode(buf: &'a [u8]) -> Result<Self, DecodeError> {
        Self::read(&mut Reader::new(buf))
    }

    /// [`AccountProofRef::decode`], also reporting where each element sits: `accountProof`,
    /// `accountProof[i]`, `storageProof[k]` (key, value and nodes) and `storageProof[k].proof`,
    /// `storageProof[k].proof[i]` (see [`decode_nodes`]).
    pub fn decode_with_spans(buf: &'a [u8]) -> Result<(Self, Spans), DecodeError> {
        spanned(buf, Self::read)
    }

    fn read<K: SpanSink>(r: &mut Reader<'a, K>) -> Result<Self, DecodeError> {
        // Not `Reader::version`: written out, the check is about 90 bytes smaller in the MPT
        // wasm module, which is within a few bytes of its size budget.
        if r.u8("version")? != ACCOUNT_PROOF_VERSION {
            return Err(DecodeError::new("version", "unknown account proof version"));
        }
        let address = Address::from(r.array::<20>("address")?);
        let balance = r.array("balance")?;
        let nonce = r.u64("nonce")?;
        let code_hash = r.b256("codeHash")?;
        let storage_hash = r.b256("storageHash")?;
        let account_proof = decode_nodes(r, "accountProof")?;
        let count = usize::from(r.u16("storageProof")?);
        let mut storage_proof = Vec::with_capacity(count.min(256));
        for i in 0..count {
            let start = r.pos();
            let key = r.b256(&format!("storageProof[{i}].key"))?;
            let value = r.array(&format!("storageProof[{i}].value"))?;
            let proof = decode_nodes(r, &format!("storageProof[{i}].proof"))?;
            r.span(start, || format!("storageProof[{i}]"));
            storage_proof.push(StorageProofRef { key, value, proof });
        }
        r.check_end("accountProof")?;
        Ok(Self {
            address,
            balance,
            nonce,
            code_hash,
            storage_hash,
            account_proof,
            storage_proof,
        })
    }
}

/// Version byte of the [`TransactionProof`] wire format.
pub const TRANSACTION_PROOF_VERSION: u8 = 1;

/// The most nodes one proof in an ordered trie (key `RLP(index)`, as `transactionsRoot` and
/// `receiptsRoot` commit a block's lists) may carry: an index below 2^64 encodes to at most 9
/// bytes, 18 nibbles, so a path has at most 19 hashed nodes.
pub const MAX_INDEXED_PROOF_NODES: usize = 19;

/// The transaction and the receipt at one index of a block, each with its proof in the block's
/// ordered tries (`transactionsRoot`, `receiptsRoot`). The values are not carried: each proof's
/// last node holds it (or the proofs show the index holds nothing).
///
/// ```text
/// TransactionProof := version:u8 = 1  index:u64
///                     transactionProof:Nodes  receiptProof:Nodes      (each ≤ 19 nodes)
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransactionProof {
    /// The transaction's position in its block.
    pub index: u64,
    /// Trie nodes from `transactionsRoot` towards `RLP(index)`, RLP-encoded.
    pub transaction_proof: Vec<Vec<u8>>,
    /// Trie nodes from `receiptsRoot` towards `RLP(index)`, RLP-encoded.
    pub receipt_proof: Vec<Vec<u8>>,
}

/// A [`TransactionProof`] decoded from the wire format, borrowing its nodes from the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransactionProofRef<'a> {
    /// See [`TransactionProof::index`].
    pub index: u64,
    /// See [`TransactionProof::transaction_proof`].
    pub transaction_proof: Vec<&'a [u8]>,
    /// See [`TransactionProof::receipt_proof`].
    pub receipt_proof: Vec<&'a [u8]>,
}

impl TransactionProof {
    /// Encodes the proof in the wire format.
    ///
    /// # Panics
    /// If a node list has more than 65,535 nodes.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(TRANSACTION_PROOF_VERSION);
        w.u64(self.index);
        encode_nodes(&mut w, &self.transaction_proof);
        encode_nodes(&mut w, &self.receipt_proof);
        w.out
    }

    /// Borrows this proof as a [`TransactionProofRef`].
    pub fn as_ref(&self) -> TransactionProofRef<'_> {
        TransactionProofRef {
            index: self.index,
            transaction_proof: self.transaction_proof.iter().map(Vec::as_slice).collect(),
            receipt_proof: self.receipt_proof.iter().map(Vec::as_slice).collect(),
        }
    }
}

impl<'a> TransactionProofRef<'a> {
    /// Decodes the wire format; rejects unknown versions, lists over
    /// [`MAX_INDEXED_PROOF_NODES`] and trailing bytes.
    pub fn decode(buf: &'a [u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(buf);
        if r.u8("version")? != TRANSACTION_PROOF_VERSION {
            return Err(DecodeError::new(
                "version",
                "unknown transaction proof version",
            ));
        }
        let index = r.u64("index")?;
        let transaction_proof = decode_nodes_at_most(
            &mut r,
            "transactionProof",
            MAX_INDEXED_PROOF_NODES,
            TOO_MANY_INDEXED_NODES,
        )?;
        let receipt_proof = decode_nodes_at_most(
            &mut r,
            "receiptProof",
            MAX_INDEXED_PROOF_NODES,
            TOO_MANY_INDEXED_NODES,
        )?;
        r.finish("receiptProof")?;
        Ok(Self {
            index,
            transaction_proof,
            receipt_proof,
        })
    }
}

/// Decodes a `Nodes` list of a proof in an ordered trie (at most [`MAX_INDEXED_PROOF_NODES`]),
/// with nothing after it.
pub fn decode_indexed_nodes<'a>(buf: &'a [u8], field: &str) -> Result<Vec<&'a [u8]>, DecodeError> {
    let mut r = Reader::new(buf);
    let nodes = decode_nodes_at_most(
        &mut r,
        field,
        MAX_INDEXED_PROOF_NODES,
        TOO_MANY_INDEXED_NODES,
    )?;
    r.finish(field)?;
    Ok(nodes)
}

#[cfg(feature = "serde")]
mod json {
    use super::*;
    use crate::hex;
    use serde_json::{Map, Value};

    pub(crate) fn str_field<'v>(
        obj: &'v Map<alloc::string::String, Value>,
        name: &str,
        path: &str,
    ) -> Result<&'v str, DecodeError> {
        match obj.get(name) {
            Some(Value::String(s)) => Ok(s),
            Some(_) => Err(DecodeError::new(
                format!("{path}{name}"),
                "expected a hex string",
            )),
            None => Err(DecodeError::new(format!("{path}{name}"), "missing")),
        }
    }

    fn nodes(
        obj: &Map<alloc::string::String, Value>,
        name: &str,
        path: &str,
    ) -> Result<Vec<Vec<u8>>, DecodeError> {
        nodes_at_most(obj, name, path, MAX_PROOF_NODES, TOO_MANY_NODES)
    }

    fn nodes_at_most(
        obj: &Map<alloc::string::String, Value>,
        name: &str,
        path: &str,
        max: usize,
        reason: &'static str,
    ) -> Result<Vec<Vec<u8>>, DecodeError> {
        let field = format!("{path}{name}");
        let Some(Value::Array(items)) = obj.get(name) else {
            return Err(DecodeError::new(field, "expected an array of hex strings"));
        };
        if items.len() > max {
            return Err(DecodeError::new(field, reason));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => hex::data(s, &format!("{field}[{i}]")),
                _ => Err(DecodeError::new(
                    format!("{field}[{i}]"),
                    "expected a hex string",
                )),
            })
            .collect()
    }

    /// A storage key as sent by clients: 1 to 32 bytes of hex, left-padded to 32.
    fn slot(s: &str, field: &str) -> Result<B256, DecodeError> {
        hex::word(s, field).map(B256::from)
    }

    impl TransactionProof {
        /// Parses the proof of a `lightprov_getTransactionProof` answer: its `index` and both
        /// node lists (at most [`MAX_INDEXED_PROOF_NODES`] each). What the answer claims beside
        /// them (`transaction`, `receipt`) is not part of the proof.
        pub fn from_json(v: &Value) -> Result<Self, DecodeError> {
            let o = v
                .as_object()
                .ok_or_else(|| DecodeError::new("proof", "expected an object"))?;
            let list =
                |name| nodes_at_most(o, name, "", MAX_INDEXED_PROOF_NODES, TOO_MANY_INDEXED_NODES);
            Ok(Self {
                index: hex::u64(str_field(o, "index", "")?, "index")?,
                transaction_proof: list("transactionProof")?,
                receipt_proof: list("receiptProof")?,
            })
        }
    }

    impl AccountProof {
        /// Parses the `result` of `eth_getProof`.
        pub fn from_json(v: &Value) -> Result<Self, DecodeError> {
            let o = v
                .as_object()
                .ok_or_else(|| DecodeError::new("proof", "expected an object"))?;
            let storage = match o.get("storageProof") {
                Some(Value::Array(a)) => a,
                None => return Err(DecodeError::new("storageProof", "missing")),
                Some(_) => return Err(DecodeError::new("storageProof", "expected an array")),
            };
            if storage.len() > MAX_STORAGE_PROOFS {
                return Err(DecodeError::new(
                    "storageProof",
                    "more than 65535 storage proofs",
                ));
            }
            let storage_proof = storage
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let p = format!("storageProof[{i}].");
                    let so = s.as_object().ok_or_else(|| {
                        DecodeError::new(format!("storageProof[{i}]"), "expected an object")
                    })?;
                    Ok(StorageProof {
                        key: slot(str_field(so, "key", &p)?, &format!("{p}key"))?,
                        value: hex::word(str_field(so, "value", &p)?, &format!("{p}value"))?,
                        proof: nodes(so, "proof", &p)?,
                    })
                })
                .collect::<Result<_, DecodeError>>()?;
            Ok(Self {
                address: Address::from(hex::fixed::<20>(str_field(o, "address", "")?, "address")?),
                balance: hex::word(str_field(o, "balance", "")?, "balance")?,
                nonce: hex::u64(str_field(o, "nonce", "")?, "nonce")?,
                code_hash: B256::from(hex::fixed::<32>(str_field(o, "codeHash", "")?, "codeHash")?),
                storage_hash: B256::from(hex::fixed::<32>(
                    str_field(o, "storageHash", "")?,
                    "storageHash",
                )?),
                account_proof: nodes(o, "accountProof", "")?,
                storage_proof,
            })
        }

        /// Renders the proof in `eth_getProof`'s JSON shape.
        pub fn to_json(&self) -> Value {
            let nodes =
                |n: &[Vec<u8>]| Value::from(n.iter().map(|x| hex::encode(x)).collect::<Vec<_>>());
            serde_json::json!({
                "address": hex::encode(self.address.as_slice()),
                "balance": hex::encode_quantity(&self.balance),
                "nonce": hex::encode_quantity(&self.nonce.to_be_bytes()),
                "codeHash": hex::encode(self.code_hash.as_slice()),
                "storageHash": hex::encode(self.storage_hash.as_slice()),
                "accountProof": nodes(&self.account_proof),
                "storageProof": self.storage_proof.iter().map(|s| serde_json::json!({
                    "key": hex::encode(s.key.as_slice()),
                    "value": hex::encode_quantity(&s.value),
                    "proof": nodes(&s.proof),
                })).collect::<Vec<_>>(),
            })
        }
    }
}

#[cfg(feature = "serde")]
pub(crate) use json::str_field;

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> AccountProof {
        AccountProof {
            address: Address::repeat_byte(0x11),
            balance: [7; 32],
            nonce: 9,
            code_hash: B256::repeat_byte(2),
            storage_hash: B256::repeat_byte(3),
            account_proof: alloc::vec![alloc::vec![0xc2, 0x80, 0x80], alloc::vec![1, 2, 3]],
            storage_proof: alloc::vec![StorageProof {
                key: B256::repeat_byte(4),
                value: [5; 32],
                proof: alloc::vec![alloc::vec![9; 40]],
            }],
        }
    }

    #[test]
    fn binary_round_trips_and_rejects_trailing_bytes() {
        let p = sample();
        let enc = p.encode();
        assert_eq!(AccountProofRef::decode(&enc), Ok(p.as_ref()));
        let mut longer = enc.clone();
        longer.push(0);
        assert_eq!(
            AccountProofRef::decode(&longer).map_err(|e| e.reason),
            Err("trailing bytes")
        );
        for cut in 0..enc.len() {
            assert!(
                AccountProofRef::decode(&enc[..cut]).is_err(),
                "prefix of {cut} bytes"
            );
        }
        let mut bad_version = enc;
        bad_version[0] = 2;
        assert_eq!(
            AccountProofRef::decode(&bad_version).map_err(|e| e.field),
            Err("version".into())
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_with_more_storage_proofs_than_the_wire_counts_is_rejected() {
        let mut j = sample().to_json();
        let one = j["storageProof"][0].clone();
        j["storageProof"] = serde_json::Value::from(alloc::vec![one; MAX_STORAGE_PROOFS + 1]);
        assert_eq!(
            AccountProof::from_json(&j),
            Err(DecodeError::new(
                "storageProof",
                "more than 65535 storage proofs"
            ))
        );
    }

    #[cfg(feature = "serde")]
    #[test]
    fn worked_example_of_docs_proofs_md() {
        let leaf = "0xf872a120e2c07404b8c1df4c46226425cac68c28d27a766bbddce62309f36724839b22c0b84ef84c01880de0b6b3a7640000a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
        let json = serde_json::json!({
            "address": "0x1111111111111111111111111111111111111111",
            "balance": "0xde0b6b3a7640000",
            "nonce": "0x1",
            "codeHash": "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
            "storageHash": "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
            "accountProof": [leaf],
            "storageProof": []
        });
        let wire = crate::hex::encode(&AccountProof::from_json(&json).unwrap().encode());
        let expected = alloc::format!(
            "0x01{}{}{}{}{}0001{}{}0000",
            "11".repeat(20),
            "0000000000000000000000000000000000000000000000000de0b6b3a7640000",
            "0000000000000001",
            "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
            "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421",
            "00000074",
            &leaf[2..],
        );
        assert_eq!(wire, expected);
        assert_eq!(wire.len(), 2 + 2 * 249);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn json_round_trips_and_names_bad_fields() {
        let p = sample();
        let j = p.to_json();
        assert_eq!(AccountProof::from_json(&j), Ok(p));
        let mut bad = j.clone();
        bad["storageProof"][0]["value"] = "0xzz".into();
        assert_eq!(
            AccountProof::from_json(&bad).map_err(|e| e.field),
            Err("storageProof[0].value".into())
        );
        let mut missing = j;
        missing.as_object_mut().map(|o| o.remove("codeHash"));
        assert_eq!(
            AccountProof::from_json(&missing).map_err(|e| e.field),
            Err("codeHash".into())
        );
    }
}
