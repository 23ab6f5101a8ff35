//! `header`: header RLP through `Header::decode_rlp`, then the hash check against a trusted
//! block hash (the real headers of `tests/vectors/header/valid`) or the Clique link check —
//! parent hash and seal by the trusted signer — for Clique-sealed headers ([`clique`]).
//!
//! Fails when a decoded header does not re-encode to the input (the decoder promises to take
//! only the canonical encoding) or when bytes other than the honest header are accepted.

use alloy_primitives::Address;
use alloy_rlp::{Encodable as _, Header as RlpHeader};
use lightprov_types::{
    B256,
    header::{Header, HeaderError},
    hex,
};
use lightprov_verifier::header::{HeaderVerifyError, clique::verify_link, verify_header_rlp};

use crate::{
    Corpus, Depth, Finding, Outcome, Regression, Target, rng::Rng, strip_digits, targets::clique,
    vectors,
};

#[derive(Clone, Debug)]
enum Check {
    /// keccak256(rlp) must be this hash.
    Hash(B256),
    /// Clique: this parent, sealed by this signer.
    Clique { parent: B256, signer: Address },
}

/// The `header` target.
#[derive(Debug)]
pub struct HeaderTarget {
    corpus: Corpus,
    checks: Vec<Check>,
}

impl HeaderTarget {
    /// Real headers from the vectors, and four Clique-sealed headers in the node's shape.
    pub fn new() -> anyhow::Result<Self> {
        let mut seeds = Vec::new();
        let mut checks = Vec::new();
        for (name, v) in vectors::load("header", "valid")? {
            let h = Header::from_json(&v["inputs"]["header"])
                .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
            let expected = vectors::b256(&v["inputs"], "expectedHash")?;
            seeds.push((name, h.rlp().map_err(|e| anyhow::anyhow!("{e}"))?));
            checks.push(Check::Hash(expected));
        }
        let signer = clique::signer()?.address();
        for (i, s) in clique::chain()?.into_iter().enumerate() {
            seeds.push((format!("clique-block-{}", i + 1), s.rlp));
            checks.push(Check::Clique {
                parent: s.parent,
                signer,
            });
        }
        let t = Self {
            corpus: Corpus {
                name: "header",
                seeds,
            },
            checks,
        };
        Ok(t)
    }
}

fn header_class(e: &HeaderError) -> String {
    match e {
        HeaderError::Decode(d) => format!("decode:{}:{}", strip_digits(&d.field), d.reason),
        HeaderError::Layout { fields } => format!("layout:{fields}"),
    }
}

impl Target for HeaderTarget {
    fn run(&self, seed: usize, data: &[u8]) -> Result<Outcome, Finding> {
        let h = match Header::decode_rlp(data) {
            Ok(h) => h,
            Err(e) => return Ok(Outcome::new(Depth::Undecoded, header_class(&e))),
        };
        match h.rlp() {
            Ok(r) if r == data => {}
            Ok(r) => {
                return Err(Finding::new(
                    "non-canonical",
                    format!(
                        "decode_rlp took {} but the header re-encodes to {}",
                        hex::encode(data),
                        hex::encode(&r)
                    ),
                ));
            }
            Err(e) => {
                return Err(Finding::new(
                    "non-canonical",
                    format!("decode_rlp took a header that does not re-encode: {e}"),
                ));
            }
        }
        let honest = &self.corpus.seeds[seed].1;
        let verdict = match &self.checks[seed] {
            Check::Hash(expected) => verify_header_rlp(data, expected).map(|_| ()),
            Check::Clique { parent, signer } => {
                verify_link(data, Some(parent), core::slice::from_ref(signer)).map(|_| ())
            }
        };
        match verdict {
            Ok(()) if data != honest.as_slice() => Err(Finding::new(
                "forgery",
                format!(
                    "accepted {} in place of the honest header",
                    hex::encode(data)
                ),
            )),
            Ok(()) => Ok(Outcome::new(Depth::Accepted, "ok")),
            Err(e) => {
                let (depth, class) = match &e {
                    HeaderVerifyError::Header(h) => (Depth::Undecoded, header_class(h)),
                    HeaderVerifyError::ParentMismatch { .. } => (Depth::Decoded, "parent".into()),
                    HeaderVerifyError::HashMismatch { .. } => (Depth::Final, "hash".into()),
                    HeaderVerifyError::BadSeal { reason } => {
                        (Depth::Final, format!("seal:{reason}"))
                    }
                    HeaderVerifyError::UnknownSigner { .. } => (Depth::Final, "signer".into()),
                };
                Ok(Outcome::new(depth, class))
            }
        }
    }

    fn corpus(&self) -> &Corpus {
        &self.corpus
    }

    fn mutate(&self, _seed: usize, data: &[u8], rng: &mut Rng) -> Option<Vec<u8>> {
        // Split the list into its items' payloads, edit one, and encode again (usually
        // canonically, sometimes with a deliberately non-canonical item).
        let mut b = data;
        let mut payload = RlpHeader::decode_bytes(&mut b, true).ok()?;
        let mut items: Vec<Vec<u8>> = Vec::new();
        while !payload.is_empty() {
            items.push(RlpHeader::decode_bytes(&mut payload, false).ok()?.to_vec());
        }
        let i = rng.below(items.len().max(1));
        let mut odd: Option<usize> = None;
        match rng.below(9) {
            0 if !items.is_empty() => {
                let n = items[i].len();
                items[i] = rng.bytes(n);
            }
            1 if !items.is_empty() => {
                let n = items[i].len();
                let m = match rng.below(4) {
                    0 => 0,
                    1 => n + 1,
                    2 => n.saturating_sub(1),
                    _ => rng.below(300),
                };
                items[i].resize(m, rng.byte());
            }
            2 if !items.is_empty() => items[i].insert(0, 0),
            3 if !items.is_empty() => {
                items.remove(i);
            }
            4 => {
                let extra = match rng.below(3) {
                    0 => rng.bytes(32),
                    1 => rng.bytes(8),
                    _ => Vec::new(),
                };
                items.insert(rng.below(items.len() + 1), extra);
            }
            5 if !items.is_empty() => {
                let j = rng.below(items.len());
                items.swap(i, j);
            }
            6 if !items.is_empty() => {
                // extraData (item 12) edits: the seal sits at its end
                if let Some(x) = items.get_mut(12) {
                    match rng.below(4) {
                        0 => x.truncate(x.len().saturating_sub(1 + rng.below(70))),
                        1 => {
                            let at = x.len().saturating_sub(1);
                            if let Some(v) = x.get_mut(at) {
                                *v = rng.below(4) as u8 + 26;
                            }
                        }
                        2 => {
                            let at = x.len().saturating_sub(65 - rng.below(64));
                            if let Some(v) = x.get_mut(at) {
                                *v ^= 1 << rng.below(8);
                            }
                        }
                        _ => {
                            let n = 1 + rng.below(65);
                            x.extend(rng.bytes(n));
                        }
                    }
                }
            }
            _ if !items.is_empty() => odd = Some(i),
            _ => {}
        }
        let mut body = Vec::new();
        for (k, it) in items.iter().enumerate() {
            if odd == Some(k) {
                // a long-form length, or a single byte wrapped as a string
                if it.len() == 1 && it[0] < 0x80 {
                    body.extend([0x81, it[0]]);
                } else if it.len() < 256 {
                    body.extend([0xb8, it.len() as u8]);
                    body.extend(it);
                } else {
                    it.as_slice().encode(&mut body);
                }
            } else {
                it.as_slice().encode(&mut body);
            }
        }
        let mut out = Vec::new();
        RlpHeader {
            list: true,
            payload_length: body.len(),
        }
        .encode(&mut out);
        out.extend(body);
        Some(out)
    }

    fn fixup(&self, data: &[u8]) -> Option<Vec<u8>> {
        // The list header again, for whatever payload the bytes after it are.
        let b = match *data.first()? {
            0xc0..=0xf7 => data.get(1..)?,
            x @ 0xf8.. => data.get(1 + usize::from(x - 0xf7)..)?,
            _ => return None,
        };
        let mut out = Vec::with_capacity(b.len() + 4);
        RlpHeader {
            list: true,
            payload_length: b.len(),
        }
        .encode(&mut out);
        out.extend_from_slice(b);
        Some(out)
    }

    fn dictionary(&self) -> Vec<Vec<u8>> {
        vec![
            vec![0x80],
            vec![0xa0],
            vec![0x94],
            vec![0x88],
            vec![0xb9, 0x01, 0x00],
            vec![0xb8],
            vec![0xf9],
            vec![0x00],
        ]
    }

    fn regression(&self, seed: usize, data: &[u8], why: &str) -> Option<Regression> {
        // The shared header vectors carry the header as JSON and check its hash only: a
        // Clique header or an undecodable one has no vector form (the crash file keeps it).
        let Check::Hash(expected) = &self.checks[seed] else {
            return None;
        };
        let h = Header::decode_rlp(data).ok()?;
        let inputs = serde_json::json!({ "header": header_json(&h), "expectedHash": expected });
        Some(vectors::regression_vector(
            "header",
            "header",
            &self.corpus.seeds[seed].0,
            inputs,
            why,
            data,
        ))
    }
}

/// The header in `eth_getBlockBy*` shape.
fn header_json(h: &Header) -> serde_json::Value {
    let q = |w: &[u8]| hex::encode_quantity(w);
    let mut v = serde_json::json!({
        "parentHash": h.parent_hash,
        "sha3Uncles": h.ommers_hash,
        "miner": h.beneficiary,
        "stateRoot": h.state_root,
        "transactionsRoot": h.transactions_root,
        "receiptsRoot": h.receipts_root,
        "logsBloom": hex::encode(&h.logs_bloom),
        "difficulty": q(&h.difficulty),
        "number": q(&h.number.to_be_bytes()),
        "gasLimit": q(&h.gas_limit.to_be_bytes()),
        "gasUsed": q(&h.gas_used.to_be_bytes()),
        "timestamp": q(&h.timestamp.to_be_bytes()),
        "extraData": hex::encode(&h.extra_data),
        "mixHash": h.mix_hash,
        "nonce": hex::encode(&h.nonce),
    });
    let Some(o) = v.as_object_mut() else {
        return v;
    };
    if let Some(x) = &h.base_fee_per_gas {
        o.insert("baseFeePerGas".into(), q(x).into());
    }
    if let Some(x) = &h.withdrawals_root {
        o.insert("withdrawalsRoot".into(), serde_json::json!(x));
    }
    if let Some(x) = h.blob_gas_used {
        o.insert("blobGasUsed".into(), q(&x.to_be_bytes()).into());
    }
    if let Some(x) = h.excess_blob_gas {
        o.insert("excessBlobGas".into(), q(&x.to_be_bytes()).into());
    }
    if let Some(x) = &h.parent_beacon_block_root {
        o.insert("parentBeaconBlockRoot".into(), serde_json::json!(x));
    }
    if let Some(x) = &h.requests_hash {
        o.insert("requestsHash".into(), serde_json::json!(x));
    }
    v
}
