//! `lightprov-fuzz`: runs the decoder + verifier fuzz targets (see the library docs) through
//! the shared command line ([`lightprov_fuzz::cli`]).
//!
//! ```text
//! lightprov-fuzz [--time SECONDS] [--execs N] [--seed N] [--slow-ms MS] [--hang-s S]
//!                [--mem-mb MB] [--no-regressions] [--summary FILE] [--append] [--no-totals]
//!                [--out DIR] [TARGET…]
//! lightprov-fuzz --list
//! lightprov-fuzz replay CRASH.json…
//! ```

/// Counts live bytes, for the memory cap.
#[global_allocator]
static GLOBAL: lightprov_fuzz::alloc::Counting = lightprov_fuzz::alloc::Counting;

fn main() -> std::process::ExitCode {
    lightprov_fuzz::cli::run("lightprov-fuzz", &lightprov_fuzz::entries())
}
