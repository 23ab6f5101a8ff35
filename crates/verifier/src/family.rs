//! One verify shape for every family: `verify(commitment, query, proof) -> Result<Verified, Error>`.
//!
//! Each kind of proof a family has (an account proof, a trie key, a history…) is a type that
//! implements [`Verify`]: what it is checked against (a header commitment and whatever the
//! header pins with it), what was asked, and what the proof proves. The error is the family's
//! enum from `lightprov-types`, whose [`Rejection`] impl gives the code and the evidence, so
//! the wasm glue and the tests handle every family alike.

use lightprov_types::{B256, Family, Rejection};

/// A verifier of one kind of proof of one family.
pub trait Verify {
    /// The family's registry entry.
    const FAMILY: &'static Family;
    /// What the proof is checked against (taken from a verified header).
    type Commitment<'a>;
    /// What was asked.
    type Query;
    /// What a valid proof proves.
    type Verified;
    /// Why a proof is rejected.
    type Error: Rejection;

    /// Decodes `proof` (the family's wire format) and checks it answers `query` against
    /// `commitment`.
    fn verify(
        commitment: &Self::Commitment<'_>,
        query: &Self::Query,
        proof: &[u8],
    ) -> Result<Self::Verified, Self::Error>;
}

/// A key's history over blocks `lo..=hi`: the query of the history proofs of COLE, LVMT and MBT
/// (a state key) and of forkless (a `ForklessKey`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryQuery<K = B256> {
    /// The key.
    pub key: K,
    /// First block.
    pub lo: u64,
    /// Last block.
    pub hi: u64,
}

/// The value in force after `block` in a verified history: the newest of `versions` (oldest
/// first) written at or before it, else the one in force at the range's first block (`at_lo`)
/// if written by then; zero if never written by then. `of` gives a version's block and value.
#[cfg(any(feature = "cole", feature = "forkless"))]
pub(crate) fn value_at<V>(
    versions: &[V],
    at_lo: Option<&V>,
    block: u64,
    of: fn(&V) -> (u64, lightprov_types::Word),
) -> lightprov_types::Word {
    versions
        .iter()
        .rev()
        .map(of)
        .find(|(b, _)| *b <= block)
        .or(at_lo.map(of).filter(|(b, _)| *b <= block))
        .map_or([0; 32], |(_, value)| value)
}

/// Declares a kind of proof: a unit struct and its [`Verify`] impl, written as the `verify` it
/// runs. `verify_shape! { /// docs  pub struct Name: FAMILY; fn verify(c: &Commitment, q:
/// &Query, proof) -> Result<Verified, Error> { body } }`; a commitment type that borrows names
/// its lifetime `'a` (`&Trusted<'a>`). The body is the family's check, as it is written: only
/// the impl's item shape is shared.
#[allow(unused_macros)] // a build of no family declares no kind of proof
macro_rules! verify_shape {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident: $family:expr;
        fn verify(
            $c:tt: &$commitment:ty,
            $q:tt: &$query:ty,
            $proof:tt $(,)?
        ) -> Result<$verified:ty, $error:ty> $body:block
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug)]
        $vis struct $name;

        impl $crate::Verify for $name {
            const FAMILY: &'static lightprov_types::Family = $family;
            type Commitment<'a> = $commitment;
            type Query = $query;
            type Verified = $verified;
            type Error = $error;

            fn verify(
                $c: &Self::Commitment<'_>,
                $q: &$query,
                $proof: &[u8],
            ) -> Result<$verified, $error> $body
        }
    };
}
#[allow(unused_imports)] // a build of no family declares no kind of proof
pub(crate) use verify_shape;

#[cfg(all(test, feature = "cole"))]
mod tests {
    use crate::cole::{History, Version};

    #[test]
    fn the_value_at_a_block_is_the_newest_written_by_then() {
        let v = |block, b| Version {
            block,
            value: [b; 32],
        };
        let h = History {
            versions: alloc::vec![v(3, 0xa), v(7, 0xb)],
            at_lo: Some(v(1, 0xc)),
            searched: 1,
        };
        let at: alloc::vec::Vec<u8> = [0, 1, 2, 3, 6, 7, 100]
            .iter()
            .map(|b| h.value_at(*b)[0])
            .collect();
        assert_eq!(at, [0, 0xc, 0xc, 0xa, 0xa, 0xb, 0xb]);
        let never = History {
            at_lo: None,
            ..h.clone()
        };
        assert_eq!(never.value_at(2), [0; 32]);
        assert_eq!(never.value_at(3), [0xa; 32]);
    }
}
