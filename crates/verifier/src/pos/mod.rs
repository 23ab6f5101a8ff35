//! POS-Tree proofs (pattern-oriented split tree, Yue et al., SIGMOD'20, §3.4.3 and §4): a state
//! key's value or absence at a block, every entry of a key range, every change between two
//! blocks, and a key's value at every block of a range, each against the trusted `posRoot` of
//! the blocks' headers.
//!
//! The wire formats and hashes are in [`lightprov_types::pos`]. Every check, with its code:
//!
//! 1. the proof decodes (one encoding per proof, sizes capped) — `BAD_ENCODING`;
//! 2. every node used is hashed, separators included: the root against the trusted root —
//!    `ROOT_MISMATCH`; a child against the hash its parent holds — `NODE_HASH_MISMATCH`, or
//!    `KEY_MISMATCH` when it is another child of that parent than the key routes to (child
//!    indices come from the verifier, never from the prover);
//! 3. the verifier routes by the separators itself (the first child whose separator is `≥` the
//!    key, the last if none is); separators strictly increasing — `SEPARATORS_OUT_OF_ORDER`;
//!    each child one level below its parent, leaves at level 0 — `BAD_SHAPE`; the child's
//!    largest key equal to its separator — `SEPARATOR_MISMATCH`; its smallest key above the
//!    separator before it — `CHILD_OUT_OF_RANGE`;
//! 4. leaf entries strictly increasing, the first one too — `ENTRIES_OUT_OF_ORDER`; presence or
//!    absence is then read from the one leaf the key routes to;
//! 5. a path ends at a leaf — `TRUNCATED_PROOF`, and nothing follows it — `EXTRA_NODES`; a
//!    claimed value is the proven one — `VALUE_MISMATCH`;
//! 6. ranges ([`verify_range`]): a subtree is pruned only if no key of `[lo, hi]` can be in it —
//!    `INCOMPLETE_RANGE`, and revealed only if one can — `EXTRA_RESULTS`; results are read from
//!    the revealed leaves, never taken from the prover;
//! 7. diffs ([`verify_diff`]): a subtree is pruned in one version only if it is pruned in the other —
//!    `UNMATCHED_SUBTREE`, and revealed in both only if it differs — `EXTRA_RESULTS`;
//! 8. histories ([`verify_history`]): the proof answers the blocks asked — `RANGE_MISMATCH`; every
//!    block's path is in the node set — `TRUNCATED_PROOF`; no node twice — `DUPLICATE_NODE`;
//!    none unused — `UNUSED_NODE`.
//!
//! A failure is always an error: no default hash or empty answer stands for one (the COLE
//! authors' POS-tree returns `H256::default()` on failure, which is also its empty-tree root).

mod diff;
mod history;
mod range;
mod walk;

#[cfg(test)]
mod tests;

use alloc::{format, string::ToString, vec::Vec};

pub use diff::{Change, verify_diff};
pub use history::verify_history;
pub use lightprov_types::pos::{PosError, Side};
use lightprov_types::{
    B256, Word,
    pos::{Entry, FAMILY, Node, PathProof},
};
pub use range::{check_range_answer, verify_range};
use walk::{At, Nodes, Slot};

/// A path proof's nodes, taken in order.
struct PathNodes<'n>(&'n [Node]);

impl<'n> Nodes<'n> for PathNodes<'n> {
    fn next(
        &mut self,
        depth: usize,
        expected: &B256,
        parent: Option<(&Node, &Slot)>,
    ) -> Result<(&'n Node, At), PosError> {
        let at = At {
            list: "nodes",
            index: depth,
        };
        let node = self
            .0
            .get(depth)
            .ok_or_else(|| PosError::Truncated { at: at.to_string() })?;
        let found = node.hash();
        if found == *expected {
            return Ok((node, at));
        }
        Err(match parent {
            None => PosError::RootMismatch {
                expected: *expected,
                found,
            },
            Some((p, s)) => match p.entries.iter().position(|(_, c)| *c == found.0) {
                Some(j) => PosError::WrongChild {
                    at: at.to_string(),
                    expected: s.index,
                    found: j,
                },
                None => PosError::NodeHashMismatch {
                    at: at.to_string(),
                    expected: *expected,
                    found,
                },
            },
        })
    }
}

/// Verifies a decoded path proof of `key` against `root`: the key's value (`None`: absent).
pub fn verify_path(root: &B256, key: &B256, proof: &PathProof) -> Result<Option<Word>, PosError> {
    let (value, used) = walk::walk(root, key, &mut PathNodes(&proof.nodes))?;
    if used < proof.nodes.len() {
        return Err(PosError::ExtraNodes {
            at: format!("nodes[{used}]"),
        });
    }
    Ok(value)
}

/// Decodes and verifies a path proof, and checks it proves `claimed` (`None`: absent).
pub fn verify_value(
    root: &B256,
    key: &B256,
    claimed: Option<&Word>,
    proof: &[u8],
) -> Result<(), PosError> {
    let proven = verify_path(root, key, &PathProof::decode(proof)?)?;
    if proven.as_ref() != claimed {
        return Err(PosError::ValueMismatch {
            at: "value".into(),
            proven,
            claimed: claimed.copied(),
        });
    }
    Ok(())
}

crate::family::verify_shape! {
    /// A state key's value or absence at one block, against that block's `posRoot`.
    pub struct PosValue: &FAMILY;
    fn verify(root: &B256, key: &B256, proof) -> Result<Option<Word>, PosError> {
        verify_path(root, key, &PathProof::decode(proof)?)
    }
}

crate::family::verify_shape! {
    /// Every entry of a key range `[lo, hi]` at one block, against that block's `posRoot`.
    pub struct PosRange: &FAMILY;
    fn verify(root: &B256, q: &(B256, B256), proof) -> Result<Vec<Entry>, PosError> {
        verify_range(
            root,
            &q.0,
            &q.1,
            &lightprov_types::pos::RangeProof::decode(proof)?,
        )
    }
}

crate::family::verify_shape! {
    /// Every key whose value differs between two blocks, against their `posRoot`s (old, new).
    pub struct PosDiff: &FAMILY;
    fn verify(roots: &(B256, B256), _: &(), proof) -> Result<Vec<Change>, PosError> {
        verify_diff(
            &roots.0,
            &roots.1,
            &lightprov_types::pos::DiffProof::decode(proof)?,
        )
    }
}

/// The trusted roots of consecutive blocks, the first being `from`'s.
#[derive(Clone, Copy, Debug)]
pub struct BlockRoots<'a> {
    /// The first block.
    pub from: u64,
    /// `posRoot` of `from`, `from + 1`, …
    pub roots: &'a [B256],
}

crate::family::verify_shape! {
    /// A state key's value at every block of a range, from one proof with a deduplicated node
    /// set.
    pub struct PosHistory: &FAMILY;
    fn verify(roots: &BlockRoots<'a>, key: &B256, proof) -> Result<Vec<Option<Word>>, PosError> {
        verify_history(
            roots,
            key,
            &lightprov_types::pos::HistoryProof::decode(proof)?,
        )
    }
}
