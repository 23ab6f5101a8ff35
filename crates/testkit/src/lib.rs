//! Helpers the tests and tools around lightprov's engines share, so that each writes only what
//! is its own: the vector generators' output ([`vectors`]), the knobs read from the environment
//! ([`env_parsed`]), the build a benchmark names ([`bench_build`]) and, with the `tx` feature,
//! signed transfers in the dev chain's shape ([`tx`]). Used by examples, tests and benchmarks
//! only; never published.

// A test kit fails loudly: a generator or a test that cannot write its output should stop (and
// a JSON document it reads is indexed as the shape it must have).
#![allow(clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[cfg(feature = "tx")]
pub mod tx;
pub mod vectors;

/// The environment variable `name` parsed as a `T`, if it is set and parses: a knob of a
/// benchmark, a measurement or a long test run.
pub fn env_parsed<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// The build a benchmark ran in, as its report names it: `test (smoke)` for a smoke run (`cargo
/// test`'s quick pass), else `dev` or `release` by the profile it was compiled with.
pub const fn bench_build(smoke: bool) -> &'static str {
    if smoke {
        "test (smoke)"
    } else if cfg!(debug_assertions) {
        "dev"
    } else {
        "release"
    }
}
