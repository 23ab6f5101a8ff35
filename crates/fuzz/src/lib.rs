//! Fuzz targets for lightprov, one per decoder + verifier (MPT account and trie proofs, headers
//! with Clique seals, COLE histories, LVMT proofs and histories, LVMT parameters), and the
//! fuzzer that runs them: the driver, the mutations and the command line ([`cli`]) that other
//! binaries reuse for their own targets — lightprov-node's `rpc` target (its HTTP front's
//! request parser, then the JSON-RPC handlers) lives with the node, in
//! `server-mock/examples/fuzz`, so that this crate does not depend on the node.
//!
//! Each target is seeded from the shared vectors (`tests/vectors/*/valid`) and, for Clique
//! headers, from headers sealed here ([`targets::clique`]). The
//! driver ([`driver`]) mutates those seeds (byte-level havoc, length-field edits, splices, and
//! per-target structure-aware edits), keeps every input that reaches a verdict not seen before
//! (a cheap, coverage-free feedback), and fails on a panic, an accepted forgery (the verifier
//! accepts bytes other than the honest ones and returns a result other than the honest one), a
//! non-canonical encoding a decoder promises to refuse, an input slower than the time limit, or
//! (in the binary, through its counting allocator) an allocation over the memory cap.
//!
//! Runs on stable Rust: no compiler instrumentation is needed.

// A fuzz harness fails loudly by design, and reads inputs it has just bounded.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    unreachable_pub
)]

pub mod alloc;
pub mod cli;
pub mod driver;
pub mod mutate;
pub mod rng;
pub mod targets;
pub mod vectors;

pub use targets::{TARGETS, entries};

use std::path::PathBuf;

/// How deep one input went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Depth {
    /// Refused while decoding.
    Undecoded = 0,
    /// Decoded, refused by a structural or binding check before the final one.
    Decoded = 1,
    /// Reached the final check (the root, hash, seal or pairing comparison) and failed it.
    Final = 2,
    /// Accepted.
    Accepted = 3,
}

/// The verdict on one input.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How deep it went.
    pub depth: Depth,
    /// A short class of the verdict (error code and reason, numbers removed): an input with a
    /// class not seen before joins the corpus.
    pub class: String,
    /// Accepted, with a result equal to the honest one, from bytes other than the honest ones.
    pub benign_variant: bool,
}

impl Outcome {
    /// An outcome of `depth` and `class`.
    pub fn new(depth: Depth, class: impl Into<String>) -> Self {
        Self {
            depth,
            class: class.into(),
            benign_variant: false,
        }
    }

    /// A rejection at `depth`, classed by its code and its field (indices stripped, so that
    /// `parts[3].tree` and `parts[7].tree` are one class).
    pub fn rejected(depth: Depth, e: &impl lightprov_types::Rejection) -> Self {
        Self::new(
            depth,
            format!("{}:{}", e.code(), strip_digits(&e.evidence().field)),
        )
    }
}

/// A property violation (a panic is caught by the driver, not reported here).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// `forgery`, `non-canonical`, `oracle-disagreement`, `bad-response`.
    pub kind: &'static str,
    /// What exactly.
    pub message: String,
}

impl Finding {
    /// A finding of `kind`.
    pub fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// A ready-to-commit regression file for a failing input.
#[derive(Clone, Debug)]
pub struct Regression {
    /// Where it goes, relative to the repository root.
    pub path: PathBuf,
    /// Its content.
    pub content: String,
    /// The `tests/vectors/counts.json` family to bump, if the file is a shared vector.
    pub count_family: Option<&'static str>,
}

/// A target's name and its seed inputs (a name and the bytes of each), which every target
/// holds and [`Target::name`] and [`Target::seeds`] read.
#[derive(Debug)]
pub struct Corpus {
    /// The target's name (`mpt`, `header`, …).
    pub name: &'static str,
    /// The seed inputs. Every seed must be accepted unmutated.
    pub seeds: Vec<(String, Vec<u8>)>,
}

/// One fuzz target.
pub trait Target: Send + Sync {
    /// The target's name and seeds.
    fn corpus(&self) -> &Corpus;
    /// The target's name (`mpt`, `header`, …).
    fn name(&self) -> &'static str {
        self.corpus().name
    }
    /// The seed inputs: a name and the bytes. Every seed must be accepted unmutated.
    fn seeds(&self) -> &[(String, Vec<u8>)] {
        &self.corpus().seeds
    }
    /// Runs one input derived from seed `seed`.
    fn run(&self, seed: usize, data: &[u8]) -> Result<Outcome, Finding>;
    /// A structure-aware mutation of `data` (derived from `seed`), if the target has any.
    fn mutate(&self, _seed: usize, _data: &[u8], _rng: &mut rng::Rng) -> Option<Vec<u8>> {
        None
    }
    /// Repairs what byte-level mutations break most often (an outer length prefix), so that
    /// more mutants get past the first check; applied to half of them.
    fn fixup(&self, _data: &[u8]) -> Option<Vec<u8>> {
        None
    }
    /// Tokens worth inserting (magic bytes, common field values).
    fn dictionary(&self) -> Vec<Vec<u8>> {
        Vec::new()
    }
    /// The regression file for a failing input, in the repository's format for the family.
    fn regression(&self, seed: usize, data: &[u8], why: &str) -> Option<Regression>;
}

/// Builds a target by name.
pub fn target(name: &str) -> anyhow::Result<Box<dyn Target>> {
    cli::build(&entries(), name)
}

/// Replaces each number (decimal, or `0x` hex) by `#`, so that classes do not grow with
/// indices, numbers and hashes.
pub fn strip_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let hex = b[i] == b'0' && b.get(i + 1) == Some(&b'x');
            i += if hex { 2 } else { 1 };
            while i < b.len() && (b[i].is_ascii_digit() || (hex && b[i].is_ascii_hexdigit())) {
                i += 1;
            }
            out.push('#');
        } else {
            let c = s[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A short stable hash of an input, for file names.
pub fn short_hash(data: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let h = Sha256::digest(data);
    h.iter().take(6).map(|b| format!("{b:02x}")).collect()
}
