//! Helpers the tests and tools around lightprov's engines share, so that each writes only what
//! is its own: the vector generators' output ([`vectors`]) and, with the `tx` feature, signed
//! transfers in the dev chain's shape ([`tx`]). Used by examples and tests only; never
//! published.

// A test kit fails loudly: a generator or a test that cannot write its output should stop (and
// a JSON document it reads is indexed as the shape it must have).
#![allow(clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[cfg(feature = "tx")]
pub mod tx;
pub mod vectors;
