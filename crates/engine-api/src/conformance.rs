//! The conformance suite every engine runs: random workloads checked against a naive history
//! model (a `BTreeMap` of every version), every proof checked by the engine's verifier, and a
//! restart in the middle that must resume at the same head with the same roots.
//!
//! An engine instantiates it in one line:
//! ```ignore
//! lightprov_engine_api::conformance_tests!(MyEngine::open_dir, my_verify);
//! ```
//! where `open_dir(&Path) -> MyEngine` opens (or reopens) an engine in a directory and
//! `my_verify(&root, &key, block, &proof) -> Result<Word, String>` checks a proof of `key`'s value
//! after `block` against `root` (the root of [`StateEngine::proof_anchor`]) and returns the value
//! it proves.

// A test harness: it indexes and panics to fail loudly.
#![allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::{collections::BTreeMap, path::Path};

use alloy_primitives::{Address, B256};
use lightprov_types::Word;
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{Key, StateEngine, Write, word_from_u64};

/// Every version of every key: the model the engines are checked against.
#[derive(Debug, Default)]
pub struct HistoryModel {
    versions: BTreeMap<Key, Vec<(u64, Word)>>,
}

impl HistoryModel {
    /// Records block `number`'s writes (a later write to the same key wins).
    pub fn apply(&mut self, number: u64, writes: &[Write]) {
        for (k, v) in writes {
            let list = self.versions.entry(*k).or_default();
            match list.last_mut() {
                Some((b, old)) if *b == number => *old = *v,
                _ => list.push((number, *v)),
            }
        }
    }

    /// The value of `key` after block `block`.
    pub fn get(&self, key: &Key, block: u64) -> Word {
        self.versions
            .get(key)
            .and_then(|l| l.iter().rev().find(|(b, _)| *b <= block))
            .map_or([0; 32], |(_, v)| *v)
    }
}

/// Shape of a random workload.
#[derive(Clone, Copy, Debug)]
pub struct Workload {
    /// RNG seed.
    pub seed: u64,
    /// Blocks to apply.
    pub blocks: u64,
    /// Accounts in the key universe.
    pub accounts: u8,
    /// Storage slots per account in the key universe.
    pub slots: u8,
    /// Writes per block (at most).
    pub writes_per_block: usize,
}

impl Workload {
    /// Every key the workload may touch.
    pub fn universe(&self) -> Vec<Key> {
        let mut keys = Vec::new();
        for a in 0..self.accounts {
            let addr = Address::repeat_byte(a.wrapping_mul(37).wrapping_add(1));
            keys.push(Key::Balance(addr));
            keys.push(Key::Nonce(addr));
            for s in 0..self.slots {
                keys.push(Key::Storage(addr, B256::with_last_byte(s)));
            }
        }
        keys
    }

    /// The writes of every block, deterministic in the seed: a fifth of them zero (deletions),
    /// some keys written twice in a block.
    pub fn blocks(&self) -> Vec<Vec<Write>> {
        let keys = self.universe();
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        (0..self.blocks)
            .map(|_| {
                let n = rng.random_range(0..=self.writes_per_block);
                (0..n)
                    .map(|_| {
                        let k = keys[rng.random_range(0..keys.len())];
                        let v = if rng.random_bool(0.2) {
                            [0u8; 32]
                        } else if matches!(k, Key::Nonce(_)) {
                            word_from_u64(rng.random_range(1..1_000_000))
                        } else {
                            let mut w = [0u8; 32];
                            let len = rng.random_range(1..=32);
                            rng.fill_bytes(&mut w[32 - len..]);
                            w
                        };
                        (k, v)
                    })
                    .collect()
            })
            .collect()
    }
}

/// Runs `workload` on a fresh engine in a temporary directory, reopening it halfway, and checks
/// every key of the universe at every block: `get` and the verified proof against the model.
///
/// # Panics
/// On any disagreement (this is a test harness).
pub fn check_workload<E, O, V>(open: O, verify: V, workload: Workload)
where
    E: StateEngine,
    O: Fn(&Path) -> E,
    V: Fn(&B256, &Key, u64, &E::Proof) -> Result<Word, String>,
{
    let dir = tempfile::tempdir().expect("temp dir");
    let blocks = workload.blocks();
    let mut model = HistoryModel::default();
    let mut roots = Vec::new();
    let mut engine = open(dir.path());
    assert_eq!(engine.head(), None, "a fresh engine has no head");
    for (number, writes) in blocks.iter().enumerate() {
        let number = number as u64;
        if number == workload.blocks / 2 {
            drop(engine);
            engine = open(dir.path());
            assert_eq!(
                engine.head(),
                Some(number - 1),
                "reopened engine resumes at its head"
            );
            for (b, r) in roots.iter().enumerate() {
                assert_eq!(
                    engine.root(b as u64).unwrap(),
                    *r,
                    "root of block {b} after reopening"
                );
            }
        }
        let root = engine.apply_block(number, writes).unwrap();
        assert_eq!(engine.root(number).unwrap(), root);
        model.apply(number, writes);
        roots.push(root);
    }
    assert_eq!(engine.head(), Some(workload.blocks - 1));
    for block in 0..workload.blocks {
        let root = engine.root(block).unwrap();
        assert_eq!(
            root, roots[block as usize],
            "root of block {block} is immutable"
        );
        let anchor = engine.root(engine.proof_anchor(block)).unwrap();
        for key in workload.universe() {
            let want = model.get(&key, block);
            assert_eq!(
                engine.get(&key, block).unwrap(),
                want,
                "get {key:?} at block {block}"
            );
            let proof = engine.prove(&key, block).unwrap();
            match verify(&anchor, &key, block, &proof) {
                Ok(got) => assert_eq!(got, want, "proven value of {key:?} at block {block}"),
                Err(e) => panic!("proof of {key:?} at block {block} does not verify: {e}"),
            }
        }
    }
    assert!(engine.disk_bytes() > 0, "the engine persists to disk");
}

/// The suite's workloads: small and large universes, sparse and dense blocks.
pub const WORKLOADS: [Workload; 3] = [
    Workload {
        seed: 1,
        blocks: 24,
        accounts: 3,
        slots: 2,
        writes_per_block: 4,
    },
    Workload {
        seed: 2,
        blocks: 30,
        accounts: 12,
        slots: 6,
        writes_per_block: 40,
    },
    Workload {
        seed: 3,
        blocks: 16,
        accounts: 40,
        slots: 1,
        writes_per_block: 120,
    },
];

/// Kill -9 tests: reads a writer child's `committed <block>` lines until it reports block
/// `target` (or its output ends), waits `pause`, then kills it with SIGKILL (no destructor
/// runs) and reaps it. Returns the last block the child reported, or `last` if it reported none.
pub fn kill_after_commit(
    child: &mut std::process::Child,
    target: u64,
    last: Option<u64>,
    pause: std::time::Duration,
) -> Option<u64> {
    use std::io::{BufRead, BufReader};
    let mut last = last;
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(b) = line.strip_prefix("committed ").and_then(|b| b.parse().ok()) {
                last = Some(b);
                if b >= target {
                    break;
                }
            }
        }
    }
    std::thread::sleep(pause);
    let _ = child.kill();
    let _ = child.wait();
    last
}

/// Kill -9 tests, the writer's side: the body of a test binary's `crash_child` test. Unless the
/// environment variable `var` is unset (an ordinary test run: it returns at once), opens the
/// directory it names with `open`, then commits block after block with `commit`, from the block
/// `next` reads off the writer, printing `committed <n>` once block `n` is durable (the line
/// [`kill_after_commit`] reads). `commit` returns `None` when it has no block left (and
/// otherwise whatever its engine answers, a root): the writer then waits to be killed.
pub fn crash_writer<W, R>(
    var: &str,
    open: impl FnOnce(&Path) -> W,
    next: impl FnOnce(&W) -> u64,
    mut commit: impl FnMut(&mut W, u64) -> Option<R>,
) {
    let Ok(dir) = std::env::var(var) else {
        return;
    };
    let mut w = open(Path::new(&dir));
    let mut n = next(&w);
    while commit(&mut w, n).is_some() {
        println!("committed {n}");
        n += 1;
    }
    std::thread::sleep(std::time::Duration::from_secs(60));
}

/// Kill -9 tests: the writer a test kills again and again, its test binary's own `crash_child`
/// test ([`crash_writer`]), which writes blocks in the directory the environment variable `var`
/// names.
#[derive(Clone, Debug)]
pub struct CrashChild<'a> {
    /// The variable that names the directory (unset, `crash_child` returns at once).
    var: &'a str,
    /// The directory.
    dir: &'a Path,
    /// The `crash_child` test's name as the test harness knows it (its module path in the test
    /// binary, then `crash_child`).
    test: String,
}

impl<'a> CrashChild<'a> {
    /// The writer that writes in `dir`, named to it by the environment variable `var`; `module`
    /// is `module_path!()` where the binary's `crash_child` test is defined (the crate root of a
    /// one-file test binary, or a module of a test binary made of several).
    pub fn new(var: &'a str, dir: &'a Path, module: &str) -> Self {
        // The harness names a test by its path below the crate root.
        let test = match module.split_once("::") {
            Some((_, inner)) => format!("{inner}::crash_child"),
            None => "crash_child".to_owned(),
        };
        Self { var, dir, test }
    }

    /// One life of the writer: starts it (with `env` besides), lets it commit a random number
    /// of blocks in `ahead` past `committed` (the last block known to have survived), waits a
    /// random pause of under `max_pause_us` microseconds and kills it ([`kill_after_commit`]).
    /// Returns the last block it reported, or `committed` if it reported none.
    pub fn life(
        &self,
        rng: &mut impl Rng,
        env: &[(&str, &str)],
        committed: Option<u64>,
        ahead: std::ops::Range<u64>,
        max_pause_us: u64,
    ) -> Option<u64> {
        use std::process::{Command, Stdio};
        let exe = std::env::current_exe().expect("the test binary");
        let mut child = Command::new(exe)
            .args(["--exact", &self.test, "--nocapture", "--test-threads=1"])
            .env(self.var, self.dir)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting the writer");
        let target = committed.map_or(0, |c| c + 1) + rng.random_range(ahead);
        // SIGKILL somewhere in the next block(s): no destructor runs.
        let pause = std::time::Duration::from_micros(rng.random_range(0..max_pause_us));
        kill_after_commit(&mut child, target, committed, pause)
    }
}

/// Instantiates the conformance suite as `#[test]` functions.
#[macro_export]
macro_rules! conformance_tests {
    ($open:expr, $verify:expr) => {
        #[test]
        fn conformance_sparse_small_universe() {
            $crate::conformance::check_workload($open, $verify, $crate::conformance::WORKLOADS[0]);
        }
        #[test]
        fn conformance_dense_blocks() {
            $crate::conformance::check_workload($open, $verify, $crate::conformance::WORKLOADS[1]);
        }
        #[test]
        fn conformance_many_accounts() {
            $crate::conformance::check_workload($open, $verify, $crate::conformance::WORKLOADS[2]);
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_keeps_every_version_and_the_last_write_of_a_block() {
        let k = Key::Balance(Address::ZERO);
        let mut m = HistoryModel::default();
        m.apply(1, &[(k, [1; 32]), (k, [2; 32])]);
        m.apply(3, &[(k, [0; 32])]);
        assert_eq!(m.get(&k, 0), [0; 32]);
        assert_eq!(m.get(&k, 1), [2; 32]);
        assert_eq!(m.get(&k, 2), [2; 32]);
        assert_eq!(m.get(&k, 3), [0; 32]);
    }

    #[test]
    fn workloads_are_deterministic() {
        assert_eq!(WORKLOADS[1].blocks(), WORKLOADS[1].blocks());
    }
}
