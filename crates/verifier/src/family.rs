//! One verify shape for every family: `verify(commitment, query, proof) -> Result<Verified, Error>`.
//!
//! Each kind of proof a family has (an account proof, a trie key, a history…) is a type that
//! implements [`Verify`]: what it is checked against (a header commitment and whatever the
//! header pins with it), what was asked, and what the proof proves. The error is the family's
//! enum from `lightprov-types`, whose [`Rejection`] impl gives the code and the evidence, so
//! the wasm glue and the tests handle every family alike.

use lightprov_types::{Family, Rejection};

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
