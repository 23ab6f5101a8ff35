# Sourced by the scripts that make or use the workspace's one test-profile build (scripts/build
# --tests, scripts/test, scripts/fuzz, scripts/bench --quick).
#
# test_cargo ARGS…: cargo with clippy-driver as the rustc of the workspace's own crates
# (RUSTC_WORKSPACE_WRAPPER; dependencies are compiled by plain rustc). clippy-driver compiles as
# rustc does and runs clippy's lints on the way, denied as `cargo clippy -- -D warnings` denies
# them, so the test build is also the lint: the workspace is not type-checked a second time for
# clippy. Every command on that build goes through here: the wrapper is part of a crate's
# fingerprint, so a plain `cargo test` after it compiles the workspace's crates again (not their
# dependencies).
CLIPPY_DRIVER=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)
test_cargo() {
  if [ -z "$CLIPPY_DRIVER" ]; then
    echo "clippy-driver not found: install it with 'rustup component add clippy'" >&2
    return 1
  fi
  # Not incremental, unless the caller asks (CARGO_INCREMENTAL=1): from a fresh clone, which is
  # what CI builds, incremental compilation only adds the work of saving its caches.
  local incremental=${CARGO_INCREMENTAL:-0}
  # One codegen unit per crate when not incremental (an incremental build keeps Cargo's default,
  # whose many small units make its rebuilds quick): the build already keeps both cores busy with
  # a crate each, so splitting a crate into units only repeats the work of the functions inlined
  # in each. Clean test builds took 521-582 s of CPU against 598-622 s, and cargo test took as
  # long (docs/benchmarks.md). A caller's own setting wins.
  local units=${CARGO_PROFILE_TEST_CODEGEN_UNITS:-}
  if [ -z "$units" ] && [ "$incremental" = 0 ]; then units=1; fi
  env CARGO_INCREMENTAL="$incremental" ${units:+CARGO_PROFILE_TEST_CODEGEN_UNITS="$units"} \
    RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER" \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" cargo "$@"
}

# What the one test build compiles: every crate's library, binaries and tests, and the node's fuzz
# example (scripts/fuzz runs it). The benchmarks and the other examples (vector generators, bench
# inputs) are left to `npm run bench` and `npm run vectors`, which compile them (and lint them, as
# `cargo clippy --all-targets` does before a commit): in `npm test` they were about an eighth of
# the build's CPU time, criterion included, for no test.
TEST_TARGETS=(--workspace --lib --bins --tests --example fuzz)
# What `cargo test` runs: the same but the fuzz example, which has no tests (scripts/fuzz runs it):
# named to cargo test, it would be compiled again as a test harness.
TEST_RUN_TARGETS=(--workspace --lib --bins --tests)
