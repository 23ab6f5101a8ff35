//! Forkless LiveDB proofs: a key's value, its absence, or its complete history over a block
//! range, against the trusted state root (the header's `forklessRoot`).
//!
//! The wire format and hashing rules are in [`lightprov_types::forkless`]. The checks, in order:
//!
//! 1. the proof decodes (one encoding per proof, parameters in bounds) — `BAD_ENCODING`;
//! 2. it answers the asked key and claim (a value, or a history over the asked range) —
//!    `KEY_MISMATCH`, `RANGE_MISMATCH`;
//! 3. the state root recomputed from the parameters and the ten listed tree roots equals the
//!    trusted root — `ROOT_MISMATCH`; every opening below is checked against a listed root, so
//!    against the trusted one;
//! 4. every opening: the record lies below the file's committed count — `RECORD_OUT_OF_RANGE`;
//!    there is one level of `fanout − 1` siblings per level of the tree the count implies —
//!    `BAD_SHAPE`; the page, placed at the position the verifier computes from the record
//!    number, hashes up to the listed tree root — `NODE_HASH_MISMATCH`;
//! 5. present: the reverse table holds the asked key at the record — `KEY_MISMATCH`;
//!    absent: the bucket is the one the verifier computes from the key and the bucket count, its
//!    entries are strictly increasing, each hashes to this bucket and none is the key, and they
//!    hash to the bucket file's record — `RESULTS_OUT_OF_ORDER`, `WRONG_BUCKET`, `KEY_PRESENT`,
//!    `NODE_HASH_MISMATCH`;
//! 6. history: the links are strictly increasing by block — `RESULTS_OUT_OF_ORDER`; a chain that
//!    resumes from a chain value starts with the change in force at `lo` —
//!    `INCOMPLETE_RANGE`; no more than one link lies at or before `lo` — `EXTRA_RESULTS`; the
//!    links, each hashed with the key and its block, recompute the chain head the chain file
//!    holds at the record — `CHAIN_MISMATCH`.
//!
//! Results are never taken from the prover as a list: the value is the record the opened page
//! holds, and the versions are links whose hashes reach a committed head.

use alloc::{string::String, vec::Vec};

pub use lightprov_types::forkless::{ForklessError, Opened};
use lightprov_types::{
    B256, Word,
    forkless::{Chain, Claim, Component, ForklessKey, Link, Located, Opening, Params, Proof, hash},
    hex::Hex,
};

/// A verified value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Value {
    /// Whether the key has a record (it was written at some block, possibly to zero).
    pub exists: bool,
    /// Its value (zero when absent).
    pub value: Word,
}

/// A verified history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct History {
    /// Whether the key has a record at the proof's state.
    pub exists: bool,
    /// Every change written in `lo..=hi`, oldest first.
    pub versions: Vec<Link>,
    /// The change in force at the range's first block (`None`: never written by then).
    pub at_lo: Option<Link>,
}

impl History {
    /// The value in force after `block`, for a block of the proven range (zero if never written
    /// by then).
    pub fn value_at(&self, block: u64) -> Word {
        crate::family::value_at(&self.versions, self.at_lo.as_ref(), block, |l| {
            (l.block, l.value)
        })
    }
}

/// Decodes and verifies a proof of `key`'s value against `root`.
pub fn verify_value(root: &B256, key: &ForklessKey, proof: &[u8]) -> Result<Value, ForklessError> {
    verify_value_proof(root, key, &Proof::decode(proof)?)
}

/// Decodes and verifies a proof of `key`'s history over `lo..=hi` against `root`.
pub fn verify_history(
    root: &B256,
    key: &ForklessKey,
    lo: u64,
    hi: u64,
    proof: &[u8],
) -> Result<History, ForklessError> {
    verify_history_proof(root, key, lo, hi, &Proof::decode(proof)?)
}

/// Verifies a decoded value proof.
pub fn verify_value_proof(
    root: &B256,
    key: &ForklessKey,
    proof: &Proof,
) -> Result<Value, ForklessError> {
    let opening = match &proof.claim {
        Claim::Value(o) => o.as_ref(),
        Claim::History { lo, hi, .. } => {
            return Err(ForklessError::ClaimMismatch {
                expected: "a value".into(),
                found: alloc::format!("a history over {lo}..={hi}"),
            });
        }
    };
    let record = locate(root, key, proof)?;
    match (record, opening) {
        (None, None) => Ok(Value {
            exists: false,
            value: [0; 32],
        }),
        (Some(r), Some(o)) => {
            let bytes = open(proof, key.value_component(), Opened::Value, o, r)?;
            Ok(Value {
                exists: true,
                value: ForklessKey::word_of_record(bytes),
            })
        }
        // The decoder reads a value opening exactly when the key is located present.
        _ => Err(ForklessError::Decode(lightprov_types::DecodeError::new(
            "claim.value",
            "an opening for an absent key, or none for a present one",
        ))),
    }
}

/// Verifies a decoded history proof.
pub fn verify_history_proof(
    root: &B256,
    key: &ForklessKey,
    lo: u64,
    hi: u64,
    proof: &Proof,
) -> Result<History, ForklessError> {
    if lo > hi {
        return Err(ForklessError::EmptyRange { lo, hi });
    }
    let chain = match &proof.claim {
        Claim::History {
            lo: plo,
            hi: phi,
            chain,
        } if (*plo, *phi) == (lo, hi) => chain.as_ref(),
        other => {
            return Err(ForklessError::ClaimMismatch {
                expected: alloc::format!("a history over {lo}..={hi}"),
                found: match other {
                    Claim::Value(_) => String::from("a value"),
                    Claim::History { lo, hi, .. } => alloc::format!("a history over {lo}..={hi}"),
                },
            });
        }
    };
    let record = locate(root, key, proof)?;
    let (r, (head_opening, chain)) = match (record, chain) {
        (None, None) => return Ok(History::default()),
        (Some(r), Some(c)) => (r, c),
        _ => {
            return Err(ForklessError::Decode(lightprov_types::DecodeError::new(
                "claim.head",
                "an opening for an absent key, or none for a present one",
            )));
        }
    };
    let head_bytes = open(proof, key.chain_component(), Opened::Head, head_opening, r)?;
    let mut head = [0u8; 32];
    head.copy_from_slice(head_bytes);
    check_chain(key, lo, chain, &B256::from(head))?;
    let links = &chain.links;
    let at_lo = links.first().filter(|l| l.block <= lo).copied();
    Ok(History {
        exists: true,
        versions: links
            .iter()
            .filter(|l| (lo..=hi).contains(&l.block))
            .copied()
            .collect(),
        at_lo,
    })
}

/// Steps 2–5: the key, the state root and where the key stands. `Some(record)` if present.
fn locate(root: &B256, key: &ForklessKey, proof: &Proof) -> Result<Option<u64>, ForklessError> {
    proof.params.validate()?;
    if proof.key != *key {
        return Err(ForklessError::KeyMismatch {
            expected: *key,
            found: proof.key,
        });
    }
    let state = hash::state(&proof.params, &proof.roots);
    if state != *root {
        return Err(ForklessError::RootMismatch {
            expected: *root,
            found: state,
        });
    }
    let record_key = key.record_key();
    match &proof.located {
        Located::Present { record, keys } => {
            let held = open(proof, key.keys_component(), Opened::Keys, keys, *record)?;
            if held != record_key.as_slice() {
                return Err(ForklessError::RecordKeyMismatch {
                    record: *record,
                    expected: alloc::format!("{}", Hex(&record_key)),
                    found: alloc::format!("{}", Hex(held)),
                });
            }
            Ok(Some(*record))
        }
        Located::Absent { entries, buckets } => {
            let component = key.keys_component();
            let bucket = hash::bucket_index(hash::selector(component, &record_key), buckets.count);
            for (i, (k, _)) in entries.iter().enumerate() {
                if i > 0 && entries.get(i - 1).is_some_and(|(prev, _)| prev >= k) {
                    return Err(ForklessError::BucketOutOfOrder { entry: i });
                }
                let theirs = hash::bucket_index(hash::selector(component, k), buckets.count);
                if theirs != bucket {
                    return Err(ForklessError::WrongBucket {
                        entry: i,
                        expected: bucket,
                        found: theirs,
                    });
                }
                if *k == record_key {
                    return Err(ForklessError::KeyPresent { entry: i });
                }
            }
            let held = open(
                proof,
                key.buckets_component(),
                Opened::Buckets,
                buckets,
                bucket,
            )?;
            let found = hash::bucket(
                component,
                bucket,
                entries.iter().map(|(k, r)| (k.as_slice(), *r)),
            );
            if held != found.as_slice() {
                let mut expected = [0u8; 32];
                expected.copy_from_slice(held);
                return Err(ForklessError::BucketMismatch {
                    bucket,
                    expected: B256::from(expected),
                    found,
                });
            }
            Ok(None)
        }
    }
}

/// Step 4: opens `record` of `component` and returns its bytes.
fn open<'p>(
    proof: &Proof,
    component: Component,
    opened: Opened,
    o: &'p Opening,
    record: u64,
) -> Result<&'p [u8], ForklessError> {
    let params: &Params = &proof.params;
    if record >= o.count {
        return Err(ForklessError::RecordOutOfRange {
            opened,
            record,
            count: o.count,
        });
    }
    let Some(found) = hash::opening_root(params, component, record, o) else {
        let height = params.height(params.pages(component, o.count));
        return Err(ForklessError::Siblings {
            opened,
            expected: height as usize * (usize::from(params.fanout) - 1),
            found: o.siblings.len(),
        });
    };
    let ipp = params.items_per_page(component);
    let size = component.item_size() as usize;
    let offset = (record % ipp) as usize * size;
    let listed = proof
        .roots
        .get(component.index())
        .copied()
        .unwrap_or_default();
    if found != listed {
        return Err(ForklessError::TreeMismatch {
            opened,
            component,
            expected: listed,
            found,
        });
    }
    o.page.get(offset..offset + size).ok_or_else(|| {
        // Unreachable for a page of the decoded size: `record % ipp < ipp`.
        ForklessError::Decode(lightprov_types::DecodeError::new(
            "page",
            "shorter than its records",
        ))
    })
}

/// Step 6: the links are ordered, start where they must, and reach `head`.
fn check_chain(
    key: &ForklessKey,
    lo: u64,
    chain: &Chain,
    head: &B256,
) -> Result<(), ForklessError> {
    let links = &chain.links;
    for (i, pair) in links.windows(2).enumerate() {
        if let [a, b] = pair
            && a.block >= b.block
        {
            return Err(ForklessError::LinksOutOfOrder { link: i + 1 });
        }
    }
    if chain.base.is_some() && links.first().is_none_or(|l| l.block > lo) {
        return Err(ForklessError::ChainIncomplete {
            lo,
            oldest: links.first().map(|l| l.block),
        });
    }
    if links.get(1).is_some_and(|l| l.block <= lo) {
        return Err(ForklessError::ExtraLinks { link: 0 });
    }
    let mut c = chain.base.unwrap_or_else(hash::chain_start);
    for l in links {
        c = hash::link(key, l, &c);
    }
    if c != *head {
        return Err(ForklessError::ChainMismatch {
            expected: *head,
            found: c,
        });
    }
    Ok(())
}

crate::family::verify_shape! {
    /// A key's value, in the one verify shape.
    pub struct KeyValue: &lightprov_types::forkless::FAMILY;
    fn verify(root: &B256, key: &ForklessKey, proof) -> Result<Value, ForklessError> {
        verify_value(root, key, proof)
    }
}

/// A key's history over `lo..=hi`.
pub type HistoryQuery = crate::HistoryQuery<ForklessKey>;

crate::family::verify_shape! {
    /// A key's history, in the one verify shape.
    pub struct KeyHistory: &lightprov_types::forkless::FAMILY;
    fn verify(root: &B256, q: &HistoryQuery, proof) -> Result<History, ForklessError> {
        verify_history(root, &q.key, q.lo, q.hi, proof)
    }
}
