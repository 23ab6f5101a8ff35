//! Range proofs: every entry whose key is in `[lo, hi]` at one block, complete.
//!
//! The proof is the tree revealed exactly where keys of the range can be. Each node's key
//! interval `(lower, upper]` comes from the separators the verifier hashed (the last child of a
//! node extends to its parent's upper bound, the root's interval is every key), so a subtree
//! whose interval meets the range must be revealed and one whose interval does not must be
//! pruned. The revealed leaves at the ends hold the entries just outside the range, and the
//! separators bounding them prove that no entry between them and the range was left out. The
//! results are the revealed leaves' entries in the range, in order: a result list is never
//! taken from the prover (the COLE authors' POS-tree takes one and never counts it).

use alloc::{format, vec::Vec};

use lightprov_types::{
    B256,
    pos::{Entry, PosError, RangeProof, interval_meets},
};

use super::walk::{Interval, Visit, hash_tree};

struct InRange<'a> {
    lo: &'a B256,
    hi: &'a B256,
    results: Vec<Entry>,
}

impl InRange<'_> {
    /// Whether `(lower, upper]` meets `[lo, hi]`.
    fn meets(&self, i: Interval<'_>) -> bool {
        interval_meets(i.lower, i.upper, self.lo, self.hi)
    }
}

impl Visit for InRange<'_> {
    fn pruned(&mut self, _: &B256, within: Interval<'_>, at: &str) -> Result<(), PosError> {
        if self.meets(within) {
            return Err(PosError::Incomplete { at: at.into() });
        }
        Ok(())
    }

    fn revealed(&mut self, within: Interval<'_>, at: &str) -> Result<(), PosError> {
        if !self.meets(within) {
            return Err(PosError::ExtraResults { at: at.into() });
        }
        Ok(())
    }

    fn leaf(&mut self, entries: &[Entry]) {
        self.results
            .extend(entries.iter().filter(|(k, _)| k >= self.lo && k <= self.hi));
    }
}

/// Verifies a decoded range proof against `root`: every entry with a key in `[lo, hi]`, in key
/// order.
pub fn verify_range(
    root: &B256,
    lo: &B256,
    hi: &B256,
    proof: &RangeProof,
) -> Result<Vec<Entry>, PosError> {
    if lo > hi {
        return Err(PosError::RangeMismatch {
            expected: "lo ≤ hi".into(),
            found: format!("lo {lo} > hi {hi}"),
        });
    }
    let mut v = InRange {
        lo,
        hi,
        results: Vec::new(),
    };
    let found = hash_tree(&proof.tree, None, None, None, "tree", &mut v)?;
    if found != *root {
        return Err(PosError::RootMismatch {
            expected: *root,
            found,
        });
    }
    Ok(v.results)
}

/// Checks an answer's entries (as a node sent them) against the proven ones: the same count,
/// keys and values, in order.
pub fn check_range_answer(proven: &[Entry], claimed: &[Entry]) -> Result<(), PosError> {
    for i in 0..proven.len().max(claimed.len()) {
        let at = format!("results[{i}]");
        match (proven.get(i), claimed.get(i)) {
            (Some(p), Some(c)) if p == c => {}
            (Some(p), Some(c)) if p.0 == c.0 => {
                return Err(PosError::ValueMismatch {
                    at,
                    proven: Some(p.1),
                    claimed: Some(c.1),
                });
            }
            // A claimed key before the proven one is not proven; a proven one is missing.
            (Some(p), Some(c)) if c.0 < p.0 => return Err(PosError::ExtraResults { at }),
            (None, Some(_)) => return Err(PosError::ExtraResults { at }),
            _ => return Err(PosError::Incomplete { at }),
        }
    }
    Ok(())
}
