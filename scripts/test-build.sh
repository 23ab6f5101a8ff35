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
  RUSTC_WORKSPACE_WRAPPER="$CLIPPY_DRIVER" \
    CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" cargo "$@"
}
