//! Merkle Bucket Tree proofs (Yue et al., SIGMOD'20, §3.4.2 and §4.1): a state key's value or its
//! absence at a block, the complete changes between two blocks, and a key's value at every block
//! of a range from one proof whose nodes shared between versions are sent once.
//!
//! The wire formats and hashing rules are in [`lightprov_types::mbt`]. The tree's parameters
//! (bucket bits `b`, fanout `m`) are trusted input, as the root is: a proof made under others is
//! refused (`PARAMS_MISMATCH`), and every hash binds them anyway. Whatever the proof, the
//! verifier computes the key's bucket (the top `b` bits of keccak256(stateKey)) and the slot of
//! the path in every inner node itself, rebuilds each bucket's hash from *all* its entries —
//! strictly increasing by key (`RESULTS_OUT_OF_ORDER`), each of this bucket
//! (`WRONG_BUCKET`) — and hashes every inner node over exactly `m` slots, so no child
//! position, bucket index or entry count is taken from the prover. It returns an error, never a
//! default root or value, when a check fails.

mod diff;
mod history;
mod value;

pub use diff::{Change, Diff, DiffQuery, DiffTrusted, verify_diff, verify_diff_proof};
pub use history::{
    History, HistoryQuery, HistoryTrusted, KeyHistory, verify_history, verify_history_proof,
};
pub use lightprov_types::mbt::MbtError;
pub use value::{Trusted, Value, verify, verify_proof, verify_value};

use alloc::string::String;

use lightprov_types::{
    B256,
    mbt::{Entry, MbtParams, hash},
};

use crate::keccak256;

/// The trusted parameters, or the proof's if they differ.
fn check_params(trusted: &MbtParams, found: &MbtParams) -> Result<(), MbtError> {
    if trusted != found {
        return Err(MbtError::ParamsMismatch {
            expected: *trusted,
            found: *found,
        });
    }
    Ok(())
}

/// The tree's depth, if a proof has exactly that many inner levels.
fn check_depth(params: &MbtParams, levels: usize) -> Result<u8, MbtError> {
    let depth = params.depth();
    let found = u8::try_from(levels).unwrap_or(u8::MAX);
    if found < depth {
        return Err(MbtError::TooFewLevels {
            expected: depth,
            found,
        });
    }
    if found > depth {
        return Err(MbtError::TooManyLevels {
            expected: depth,
            found,
        });
    }
    Ok(depth)
}

/// The bucket of `key`, by the verifier's own keccak.
fn bucket_of(p: &MbtParams, key: &B256) -> u32 {
    p.bucket_of_hash(&keccak256(key).0)
}

/// The hash of bucket `index` holding `entries`, after checking them strictly increasing by key
/// and each of this bucket. `field(i)` names entry `i`.
fn bucket_hash(
    p: &MbtParams,
    index: u32,
    entries: &[Entry],
    field: impl Fn(usize) -> String,
) -> Result<B256, MbtError> {
    let mut prev: Option<&B256> = None;
    for (i, e) in entries.iter().enumerate() {
        if prev.is_some_and(|k| *k >= e.key) {
            return Err(MbtError::EntriesOutOfOrder { field: field(i) });
        }
        let found = bucket_of(p, &e.key);
        if found != index {
            return Err(MbtError::ForeignEntry {
                field: field(i),
                expected: index,
                found,
            });
        }
        prev = Some(&e.key);
    }
    Ok(hash::bucket(p, index, entries))
}

/// The value of `key` in a bucket checked by [`bucket_hash`] (sorted), if present.
fn lookup(entries: &[Entry], key: &B256) -> Option<lightprov_types::Word> {
    entries
        .binary_search_by(|e| e.key.cmp(key))
        .ok()
        .and_then(|i| entries.get(i))
        .map(|e| e.value)
}

#[cfg(test)]
mod tests;
