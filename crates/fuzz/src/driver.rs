//! The fuzz loop of one target: seeds first (each must be accepted unmutated, else the harness
//! is broken), then mutants of the corpus until the time or execution budget runs out. An
//! input whose verdict class was not seen before joins the corpus. The first failure stops the
//! run and is saved: the input under `target/fuzz/crashes/<target>/`, and a regression file in
//! the repository's format for the family.

use std::{
    collections::{BTreeMap, HashSet},
    panic::{AssertUnwindSafe, catch_unwind},
    path::{Path, PathBuf},
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use serde_json::{Value, json};

use crate::{Depth, Target, mutate, rng::Rng};

/// What the loop reports to the process around it (the binary's allocator and watchdog).
pub trait Monitor {
    /// An input is about to run.
    fn begin(&self) {}
    /// It returned; the most bytes it had allocated at once.
    fn end(&self) -> usize {
        0
    }
    /// `execs` inputs have run (every 1024): a replay can start dumping from here.
    fn checkpoint(&self, _execs: u64) {}
}

/// The no-op monitor.
#[derive(Debug)]
pub struct NoMonitor;
impl Monitor for NoMonitor {}

/// Settings of one run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Wall-clock budget.
    pub time: Duration,
    /// Execution budget (whichever ends first).
    pub max_execs: u64,
    /// Random seed (the run is deterministic given it).
    pub seed: u64,
    /// An input slower than this is a failure.
    pub slow: Duration,
    /// Write every input from this execution on to `dump_file` before running it.
    pub dump_from: Option<u64>,
    /// Where dumped inputs go.
    pub dump_file: Option<PathBuf>,
    /// `target/fuzz`.
    pub out_dir: PathBuf,
    /// Write regression files into the repository.
    pub write_regressions: bool,
    /// An input holding more heap than this at once is a failure (0: no limit).
    pub mem_cap: usize,
    /// Keep a copy of the running input in [`CURRENT`] (for the worker's watchdog).
    pub publish: bool,
    /// Abort the process at this execution (a self-test of the replay that finds the input
    /// of a worker that died).
    pub die_at: Option<u64>,
}

/// The running input (seed, bytes) when [`Options::publish`] is set: the watchdog saves it
/// when the input hangs or asks for an absurd amount of memory.
pub static CURRENT: Mutex<Option<(usize, Vec<u8>)>> = Mutex::new(None);

/// A failure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crash {
    /// `panic`, `forgery`, `non-canonical`, `oracle-disagreement`, `bad-response`, `slow`,
    /// `out-of-memory`, `timeout`, `abort`.
    pub kind: String,
    /// Details.
    pub message: String,
    /// The saved input.
    pub file: PathBuf,
    /// The regression file written, if any.
    pub regression: Option<PathBuf>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Inputs run (seeds included).
    pub execs: u64,
    /// Seconds spent.
    pub secs: f64,
    /// Inputs per depth reached: undecoded, decoded, final check, accepted.
    pub depth: [u64; 4],
    /// Accepted inputs with the honest result from bytes other than the seed's.
    pub benign_variants: u64,
    /// Verdict classes seen, with counts.
    pub classes: BTreeMap<String, u64>,
    /// Corpus size at the end.
    pub corpus: usize,
    /// The slowest input, in microseconds.
    pub slowest_us: u64,
    /// The most memory one input held at once, in bytes.
    pub max_alloc: usize,
    /// The failure, if any.
    pub crash: Option<Crash>,
}

impl Stats {
    /// The `n` most frequent verdict classes.
    pub fn top_classes(&self, n: usize) -> Value {
        let mut v: Vec<(&String, &u64)> = self.classes.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1));
        v.into_iter()
            .take(n)
            .map(|(k, c)| json!({ "class": k, "count": c }))
            .collect()
    }

    /// As JSON (the worker's report line, and `target/fuzz/summary.json`).
    pub fn to_json(&self, target: &str) -> Value {
        json!({
            "target": target,
            "execs": self.execs,
            "secs": self.secs,
            "execsPerSec": if self.secs > 0.0 { self.execs as f64 / self.secs } else { 0.0 },
            "undecoded": self.depth[0],
            "decoded": self.depth[1],
            "finalCheck": self.depth[2],
            "accepted": self.depth[3],
            "benignVariants": self.benign_variants,
            "classes": self.classes.len(),
            "topClasses": self.top_classes(12),
            "corpus": self.corpus,
            "slowestUs": self.slowest_us,
            "maxAllocBytes": self.max_alloc,
            "crashes": u64::from(self.crash.is_some()),
            "crash": self.crash.as_ref().map(|c| json!({
                "kind": c.kind,
                "message": c.message,
                "file": c.file,
                "regression": c.regression,
            })),
        })
    }
}

static PANIC: Mutex<Option<String>> = Mutex::new(None);
/// Set while an input runs: its panics are recorded quietly; any other panic is printed.
static IN_INPUT: AtomicBool = AtomicBool::new(false);

/// Installs a panic hook that records the message instead of printing it.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if !IN_INPUT.load(Ordering::Relaxed) {
            eprintln!("lightprov-fuzz: harness panic: {msg}{at}");
        }
        if let Ok(mut p) = PANIC.lock() {
            *p = Some(format!("{msg}{at}"));
        }
    }));
}

/// Saves a failing input and its regression file. Returns the crash record.
pub fn save_crash(
    target: &dyn Target,
    out_dir: &Path,
    write_regressions: bool,
    seed: usize,
    data: &[u8],
    kind: &str,
    message: &str,
) -> Crash {
    let dir = out_dir.join("crashes").join(target.name());
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join(format!("{kind}-{}.json", crate::short_hash(data)));
    let seed_name = target
        .seeds()
        .get(seed)
        .map(|s| s.0.clone())
        .unwrap_or_default();
    let record = json!({
        "target": target.name(),
        "kind": kind,
        "message": message,
        "seed": seed,
        "seedName": seed_name,
        "input": lightprov_types::hex::encode(data),
    });
    let _ = std::fs::write(
        &file,
        serde_json::to_string_pretty(&record).unwrap_or_default() + "\n",
    );
    let mut regression = None;
    if write_regressions {
        let why: String = format!("{kind}: {message}").chars().take(300).collect();
        if let Some(r) = target.regression(seed, data, &why) {
            let path = crate::vectors::repo_root().join(&r.path);
            if !path.exists() {
                let _ = path.parent().map(std::fs::create_dir_all);
                if std::fs::write(&path, &r.content).is_ok() {
                    if let Some(family) = r.count_family {
                        bump_count(family);
                    }
                    regression = Some(r.path);
                }
            }
        }
    }
    Crash {
        kind: kind.into(),
        message: message.into(),
        file,
        regression,
    }
}

/// Keeps an accepted input that differs from its seed but proves the same result (a second
/// encoding of the same facts), for review under `target/fuzz/variants/<target>/`.
fn save_variant(target: &dyn Target, out_dir: &Path, seed: usize, data: &[u8]) {
    let dir = out_dir.join("variants").join(target.name());
    let _ = std::fs::create_dir_all(&dir);
    let record = json!({
        "target": target.name(),
        "seed": seed,
        "seedName": target.seeds().get(seed).map(|s| s.0.clone()),
        "seedInput": target.seeds().get(seed).map(|s| lightprov_types::hex::encode(&s.1)),
        "input": lightprov_types::hex::encode(data),
    });
    let _ = std::fs::write(
        dir.join(format!("{}.json", crate::short_hash(data))),
        serde_json::to_string_pretty(&record).unwrap_or_default() + "\n",
    );
}

/// Adds one invalid vector to `tests/vectors/counts.json`.
fn bump_count(family: &str) {
    let path = crate::vectors::vectors_dir().join("counts.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return;
    };
    let Ok(mut counts) = serde_json::from_str::<Value>(&text) else {
        return;
    };
    let n = counts[family]["invalid"].as_u64().unwrap_or(0);
    counts[family]["invalid"] = json!(n + 1);
    let _ = std::fs::write(
        &path,
        serde_json::to_string_pretty(&counts).unwrap_or_default() + "\n",
    );
}

fn take_panic() -> String {
    PANIC
        .lock()
        .ok()
        .and_then(|mut p| p.take())
        .unwrap_or_else(|| "panic".into())
}

/// Runs `target` under `opts`.
pub fn fuzz(target: &dyn Target, opts: &Options, monitor: &dyn Monitor) -> Stats {
    let started = Instant::now();
    let mut stats = Stats::default();
    let dict = target.dictionary();
    let name_hash = target
        .name()
        .bytes()
        .fold(0u64, |a, b| a.wrapping_mul(131).wrapping_add(u64::from(b)));
    let mut rng = Rng::new(opts.seed ^ name_hash);
    let mut corpus: Vec<(usize, Vec<u8>)> = target
        .seeds()
        .iter()
        .enumerate()
        .map(|(i, (_, d))| (i, d.clone()))
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut n: u64 = 0;
    let mut next = 0usize; // seeds run first, in order
    loop {
        if n >= opts.max_execs || (next >= target.seeds().len() && started.elapsed() >= opts.time) {
            break;
        }
        if corpus.is_empty() {
            break;
        }
        let is_seed = next < target.seeds().len();
        let (seed, data) = if is_seed {
            next += 1;
            corpus[next - 1].clone()
        } else {
            let (seed, base) = &corpus[rng.below(corpus.len())];
            let other = &corpus[rng.below(corpus.len())].1;
            let data = match rng.below(3) {
                0 => target
                    .mutate(*seed, base, &mut rng)
                    .unwrap_or_else(|| mutate::havoc(base, &mut rng, other, &dict)),
                1 => {
                    let m = target
                        .mutate(*seed, base, &mut rng)
                        .unwrap_or_else(|| base.clone());
                    mutate::havoc(&m, &mut rng, other, &dict)
                }
                _ => mutate::havoc(base, &mut rng, other, &dict),
            };
            let data = if rng.one_in(2) {
                target.fixup(&data).unwrap_or(data)
            } else {
                data
            };
            (*seed, data)
        };
        if opts.dump_from.is_some_and(|f| n >= f)
            && let Some(f) = &opts.dump_file
        {
            let _ = std::fs::write(
                f,
                json!({ "seed": seed, "input": lightprov_types::hex::encode(&data) }).to_string(),
            );
        }
        if opts.die_at == Some(n) {
            eprintln!("lightprov-fuzz: --die-at {n}");
            std::process::abort();
        }
        if opts.publish
            && let Ok(mut c) = CURRENT.lock()
        {
            *c = Some((seed, data.clone()));
        }
        monitor.begin();
        let t0 = Instant::now();
        IN_INPUT.store(true, Ordering::Relaxed);
        let r = catch_unwind(AssertUnwindSafe(|| target.run(seed, &data)));
        IN_INPUT.store(false, Ordering::Relaxed);
        let dt = t0.elapsed();
        let peak = monitor.end();
        n += 1;
        stats.max_alloc = stats.max_alloc.max(peak);
        stats.slowest_us = stats.slowest_us.max(dt.as_micros() as u64);
        let failure = match r {
            Err(_) => Some(("panic".to_owned(), take_panic())),
            Ok(Err(f)) => Some((f.kind.to_owned(), f.message)),
            Ok(Ok(o)) => {
                if is_seed {
                    seen.insert(o.class.clone());
                    (o.depth != Depth::Accepted).then(|| {
                        (
                            "broken-seed".to_owned(),
                            format!("seed is not accepted unmutated: {}", o.class),
                        )
                    })
                } else {
                    stats.depth[o.depth as usize] += 1;
                    if o.benign_variant {
                        stats.benign_variants += 1;
                        if stats.benign_variants <= 8 {
                            save_variant(target, &opts.out_dir, seed, &data);
                        }
                    }
                    *stats.classes.entry(o.class.clone()).or_default() += 1;
                    if seen.insert(o.class) && corpus.len() < 20_000 {
                        corpus.push((seed, data.clone()));
                    }
                    if dt > opts.slow {
                        Some((
                            "slow".to_owned(),
                            format!("{:.2?} for one input (limit {:.2?})", dt, opts.slow),
                        ))
                    } else if opts.mem_cap > 0 && peak > opts.mem_cap {
                        Some((
                            "memory".to_owned(),
                            format!(
                                "{} MB held at once by one input (limit {} MB)",
                                peak >> 20,
                                opts.mem_cap >> 20
                            ),
                        ))
                    } else {
                        None
                    }
                }
            }
        };
        if let Some((kind, message)) = failure {
            stats.crash = Some(save_crash(
                target,
                &opts.out_dir,
                opts.write_regressions && kind != "broken-seed",
                seed,
                &data,
                &kind,
                &message,
            ));
            break;
        }
        if n.is_multiple_of(1024) {
            monitor.checkpoint(n);
        }
    }
    stats.execs = n;
    stats.secs = started.elapsed().as_secs_f64();
    stats.corpus = corpus.len();
    stats
}

/// For tests: a short deterministic run of `target` (`execs` inputs from seed 7, regressions
/// not written, files under `out_dir`), and what every target's must show: no failure, every
/// input run, and mutants that decode and that reach the final check — a fuzzer that never
/// gets past the decoder would be worthless. Panics otherwise, naming the target.
pub fn short_run(target: &dyn Target, execs: u64, out_dir: &Path) -> Stats {
    let opts = Options {
        time: Duration::from_secs(3600),
        max_execs: execs,
        seed: 7,
        slow: Duration::from_secs(5),
        dump_from: None,
        dump_file: None,
        out_dir: out_dir.to_path_buf(),
        write_regressions: false,
        mem_cap: 0,
        publish: false,
        die_at: None,
    };
    let s = fuzz(target, &opts, &NoMonitor);
    let name = target.name();
    assert_eq!(s.crash, None, "{name}");
    assert_eq!(s.execs, execs, "{name}");
    let mutants: u64 = s.depth.iter().sum();
    assert_eq!(mutants + target.seeds().len() as u64, execs, "{name}");
    assert!(
        s.depth[1] + s.depth[2] + s.depth[3] > 0,
        "{name}: nothing decoded"
    );
    assert!(
        s.depth[2] + s.depth[3] > 0,
        "{name}: nothing reached the final check"
    );
    s
}
