//! The node's fuzz targets, run by lightprov-fuzz's command line ([`lightprov_fuzz::cli`]):
//! `rpc`, JSON-RPC request bodies through the node's HTTP front parser and then its handlers,
//! on a small dev chain ([`devchain`]). `scripts/fuzz` runs it after the decoder + verifier
//! targets of `lightprov-fuzz`, adding its targets to the same summary.
//!
//! ```text
//! cargo run -p lightprov-node --example fuzz -- [--time SECONDS] [OPTIONS] [rpc]
//! cargo run -p lightprov-node --example fuzz -- replay CRASH.json…
//! ```
//!
//! The options are lightprov-fuzz's (`--help`). A crashing request is saved under
//! `target/fuzz/crashes/rpc/` with a regression file in `server-mock/tests/fuzz-regressions/`,
//! which `tests/fuzz.rs` replays.

mod devchain;
mod rpc;

/// Counts live bytes, for the memory cap.
#[global_allocator]
static GLOBAL: lightprov_fuzz::alloc::Counting = lightprov_fuzz::alloc::Counting;

fn main() -> std::process::ExitCode {
    lightprov_fuzz::cli::run(
        "lightprov-node fuzz",
        &[lightprov_fuzz::cli::Entry::new("rpc", || {
            Ok(Box::new(rpc::Rpc::new()?))
        })],
    )
}
