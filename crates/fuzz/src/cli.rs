//! The command line of a fuzz binary, shared by every binary that runs targets: a binary
//! declares the counting allocator and hands its targets to [`run`]:
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: lightprov_fuzz::alloc::Counting = lightprov_fuzz::alloc::Counting;
//!
//! fn main() -> std::process::ExitCode {
//!     lightprov_fuzz::cli::run("lightprov-fuzz", &lightprov_fuzz::entries())
//! }
//! ```
//!
//! Each target runs in a worker process under the supervising one, so that an abort — an
//! allocation over the memory cap, a hang stopped by the watchdog, a stack overflow — is
//! caught too: the run is deterministic, so the worker is started again from its last
//! checkpoint, writing each input before running it, and the last input written is the
//! culprit.
//!
//! ```text
//! BIN [--time SECONDS] [--execs N] [--seed N] [--slow-ms MS] [--hang-s S] [--mem-mb MB]
//!     [--jobs N] [--no-regressions] [--summary FILE] [--append] [--no-totals] [--out DIR]
//!     [TARGET…]
//! BIN --list
//! BIN replay CRASH.json…
//! ```
//!
//! The summary (`target/fuzz/summary.json` unless `--summary`) is a JSON array with one object
//! per target. `--append` adds this run's targets to the array already there (the run of
//! another binary just before) and prints the totals over all of them; `--no-totals` leaves
//! the two totals lines out (for a run another one appends to). `--jobs N` runs up to N
//! targets' workers at a time (1 by default): each is one process on one core, so on N cores the
//! run takes 1/N of the time with the same executions per target; the targets are reported, and
//! written to the summary, in the order asked.

use std::{
    io::{BufRead as _, BufReader, Write as _},
    path::PathBuf,
    process::{Command, ExitCode, Stdio},
    sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed},
    time::{Duration, Instant},
};

use serde_json::Value;

use crate::{
    Target,
    alloc::{HARD_FACTOR, LIMIT, LIVE, PEAK, REFUSED},
    driver::{self, Monitor, Options},
};

/// How a binary builds one of its targets.
pub type Build = fn() -> anyhow::Result<Box<dyn Target>>;

/// A target a binary runs: its name on the command line and how to build it.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The name (`mpt`, `rpc`, …): the target's [`Target::name`].
    pub name: &'static str,
    /// Builds it (seeds included).
    pub build: Build,
}

impl Entry {
    /// An entry.
    pub const fn new(name: &'static str, build: Build) -> Self {
        Self { name, build }
    }
}

/// Builds the target called `name`.
pub fn build(targets: &[Entry], name: &str) -> anyhow::Result<Box<dyn Target>> {
    let e = targets.iter().find(|t| t.name == name).ok_or_else(|| {
        let names: Vec<&str> = targets.iter().map(|t| t.name).collect();
        anyhow::anyhow!("unknown target `{name}` (one of {})", names.join(", "))
    })?;
    (e.build)()
}

/// Milliseconds since `EPOCH` at which the running input began (0: none running).
static BUSY_SINCE: AtomicU64 = AtomicU64::new(0);

struct Worker {
    epoch: Instant,
    cap: usize,
    base: AtomicUsize,
}

impl Monitor for Worker {
    fn begin(&self) {
        let live = LIVE.load(Relaxed);
        self.base.store(live, Relaxed);
        PEAK.store(live, Relaxed);
        LIMIT.store(
            live.saturating_add(self.cap.saturating_mul(HARD_FACTOR)),
            Relaxed,
        );
        BUSY_SINCE.store(self.epoch.elapsed().as_millis() as u64 + 1, Relaxed);
    }

    fn end(&self) -> usize {
        BUSY_SINCE.store(0, Relaxed);
        LIMIT.store(usize::MAX, Relaxed);
        PEAK.load(Relaxed).saturating_sub(self.base.load(Relaxed))
    }

    fn checkpoint(&self, execs: u64) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "ckpt {execs}");
        let _ = out.flush();
    }
}

#[derive(Clone, Debug)]
struct Args {
    time: f64,
    execs: u64,
    seed: u64,
    slow_ms: u64,
    hang_s: u64,
    mem_mb: usize,
    jobs: usize,
    regressions: bool,
    summary: Option<PathBuf>,
    append: bool,
    totals: bool,
    dump_from: Option<u64>,
    dump_file: Option<PathBuf>,
    die_at: Option<u64>,
    out: PathBuf,
    targets: Vec<String>,
}

fn parse(
    bin: &str,
    targets: &[Entry],
    mut it: impl Iterator<Item = String>,
) -> anyhow::Result<Args> {
    let names: Vec<&str> = targets.iter().map(|t| t.name).collect();
    let mut a = Args {
        time: 60.0,
        execs: u64::MAX,
        seed: 1,
        slow_ms: 1000,
        hang_s: 10,
        mem_mb: 256,
        jobs: 1,
        regressions: true,
        summary: None,
        append: false,
        totals: true,
        dump_from: None,
        dump_file: None,
        die_at: None,
        out: crate::vectors::repo_root().join("target/fuzz"),
        targets: Vec::new(),
    };
    while let Some(x) = it.next() {
        let mut val = |name: &str| {
            it.next()
                .ok_or_else(|| anyhow::anyhow!("{name} needs a value"))
        };
        match x.as_str() {
            "--time" => a.time = val("--time")?.parse()?,
            "--execs" => a.execs = val("--execs")?.parse()?,
            "--seed" => a.seed = val("--seed")?.parse()?,
            "--slow-ms" => a.slow_ms = val("--slow-ms")?.parse()?,
            "--hang-s" => a.hang_s = val("--hang-s")?.parse()?,
            "--mem-mb" => a.mem_mb = val("--mem-mb")?.parse()?,
            "--jobs" => {
                a.jobs = val("--jobs")?.parse()?;
                anyhow::ensure!(a.jobs >= 1, "--jobs must be at least 1");
            }
            "--no-regressions" => a.regressions = false,
            "--append" => a.append = true,
            "--no-totals" => a.totals = false,
            "--summary" => a.summary = Some(val("--summary")?.into()),
            "--dump-from" => a.dump_from = Some(val("--dump-from")?.parse()?),
            "--dump-file" => a.dump_file = Some(val("--dump-file")?.into()),
            "--die-at" => a.die_at = Some(val("--die-at")?.parse()?),
            "--out" => a.out = val("--out")?.into(),
            "-h" | "--help" => {
                println!(
                    "{bin} [--time SECONDS] [--execs N] [--seed N] [--slow-ms MS] \
                     [--hang-s S] [--mem-mb MB] [--jobs N] [--no-regressions] [--summary FILE] [--append] \
                     [--no-totals] [--out DIR] [TARGET…]\n\
                     {bin} --list\n\
                     {bin} replay CRASH.json…\ntargets: {}",
                    names.join(", ")
                );
                std::process::exit(0);
            }
            t if !t.starts_with('-') => a.targets.push(t.to_owned()),
            other => anyhow::bail!("unknown option {other}"),
        }
    }
    for t in &a.targets {
        anyhow::ensure!(
            names.contains(&t.as_str()),
            "unknown target `{t}` (one of {})",
            names.join(", ")
        );
    }
    if a.targets.is_empty() {
        a.targets = names.iter().map(|s| (*s).to_owned()).collect();
    }
    Ok(a)
}

fn options(a: &Args) -> Options {
    Options {
        time: Duration::from_secs_f64(a.time),
        max_execs: a.execs,
        seed: a.seed,
        slow: Duration::from_millis(a.slow_ms),
        dump_from: a.dump_from,
        dump_file: a.dump_file.clone(),
        out_dir: a.out.clone(),
        write_regressions: a.regressions,
        mem_cap: a.mem_mb << 20,
        publish: a.dump_from.is_none(),
        die_at: a.die_at,
    }
}

/// The worker: one target, in this process.
fn worker(targets: &[Entry], a: &Args) -> anyhow::Result<()> {
    let name = a.targets.first().cloned().unwrap_or_default();
    anyhow::ensure!(
        crate::alloc::installed(),
        "this binary does not declare `#[global_allocator] static GLOBAL: \
         lightprov_fuzz::alloc::Counting = lightprov_fuzz::alloc::Counting;`: \
         the memory cap could not be enforced"
    );
    driver::quiet_panics();
    let t = build(targets, &name)?;
    let epoch = Instant::now();
    let hang = a.hang_s * 1000;
    let cap_mb = a.mem_mb;
    let dump = a.out.join("crashes").join(&name).join("last-input.json");
    let _ = std::fs::remove_file(&dump);
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(Duration::from_millis(20));
            let since = BUSY_SINCE.load(Relaxed);
            let now = epoch.elapsed().as_millis() as u64 + 1;
            let refused = REFUSED.load(Relaxed);
            let hung = since != 0 && now.saturating_sub(since) > hang;
            if refused == 0 && !hung {
                continue;
            }
            // Before anything here allocates.
            LIMIT.store(usize::MAX, Relaxed);
            let why = if refused != 0 {
                format!(
                    "out-of-memory: an input asked for {refused} more bytes past {} MB",
                    cap_mb * HARD_FACTOR
                )
            } else {
                format!("timeout: one input ran for over {} s", hang / 1000)
            };
            if let Ok(c) = driver::CURRENT.lock()
                && let Some((seed, input)) = c.as_ref()
            {
                let _ = dump.parent().map(std::fs::create_dir_all);
                let _ = std::fs::write(
                    &dump,
                    serde_json::json!({
                        "seed": seed,
                        "input": lightprov_types::hex::encode(input),
                    })
                    .to_string(),
                );
            }
            eprintln!("fuzz-watchdog: {why}");
            std::process::abort();
        }
    });
    let w = Worker {
        epoch,
        cap: a.mem_mb << 20,
        base: AtomicUsize::new(0),
    };
    let stats = driver::fuzz(t.as_ref(), &options(a), &w);
    println!("stats {}", stats.to_json(&name));
    Ok(())
}

fn pct(n: u64, of: u64) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * n as f64 / of as f64)
    }
}

fn print_stats(name: &str, s: &Value) {
    let g = |k: &str| s[k].as_u64().unwrap_or(0);
    let mutants = g("undecoded") + g("decoded") + g("finalCheck") + g("accepted");
    let reached = g("decoded") + g("finalCheck") + g("accepted");
    println!(
        "{name:<7} {:>10} execs {:>9.0}/s  crashes {}  | decoded {:>6}  final check {:>6}  \
         accepted {:>6} (benign variants {})  | classes {}  corpus {}  slowest {:.1} ms  \
         max mem/input {:.1} MB",
        g("execs"),
        s["execsPerSec"].as_f64().unwrap_or(0.0),
        g("crashes"),
        pct(reached, mutants),
        pct(g("finalCheck") + g("accepted"), mutants),
        pct(g("accepted"), mutants),
        g("benignVariants"),
        g("classes"),
        g("corpus"),
        g("slowestUs") as f64 / 1000.0,
        g("maxAllocBytes") as f64 / 1_048_576.0,
    );
    if s["crash"].is_object() {
        let c = &s["crash"];
        println!(
            "        CRASH {}: {}\n        input: {}\n        regression: {}",
            c["kind"].as_str().unwrap_or(""),
            c["message"].as_str().unwrap_or(""),
            c["file"].as_str().unwrap_or(""),
            c["regression"]
                .as_str()
                .unwrap_or("(none: see the input file)"),
        );
    }
}

fn worker_cmd(a: &Args, name: &str) -> anyhow::Result<Command> {
    let mut c = Command::new(std::env::current_exe()?);
    c.arg("worker")
        .arg(name)
        .args(["--time", &a.time.to_string()])
        .args(["--seed", &a.seed.to_string()])
        .args(["--slow-ms", &a.slow_ms.to_string()])
        .args(["--hang-s", &a.hang_s.to_string()])
        .args(["--mem-mb", &a.mem_mb.to_string()])
        .arg("--out")
        .arg(&a.out);
    if let Some(d) = a.die_at {
        c.args(["--die-at", &d.to_string()]);
    }
    if a.execs != u64::MAX {
        c.args(["--execs", &a.execs.to_string()]);
    }
    if !a.regressions {
        c.arg("--no-regressions");
    }
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    Ok(c)
}

/// What a worker left: its stats line (if it finished), its last checkpoint and its stderr.
type WorkerRun = (Option<Value>, u64, String);

/// One target's stats from its worker's run (the crash recovered if the worker died), printed.
fn report(
    targets: &[Entry],
    a: &Args,
    name: &str,
    run: anyhow::Result<WorkerRun>,
) -> anyhow::Result<Value> {
    let (stats, ckpt, err) = run?;
    let stats = match stats {
        Some(s) => s,
        None => recover(targets, a, name, ckpt, &err)?,
    };
    print_stats(name, &stats);
    Ok(stats)
}

/// Runs a worker; returns its stats line (if it finished), its last checkpoint and stderr.
fn run_worker(mut c: Command) -> anyhow::Result<WorkerRun> {
    let mut child = c.spawn()?;
    let stderr = child.stderr.take();
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut e) = stderr {
            let _ = std::io::Read::read_to_string(&mut e, &mut s);
        }
        s
    });
    let mut stats = None;
    let mut ckpt = 0;
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            let line = line?;
            if let Some(n) = line.strip_prefix("ckpt ") {
                ckpt = n.trim().parse().unwrap_or(ckpt);
            } else if let Some(j) = line.strip_prefix("stats ") {
                stats = serde_json::from_str(j).ok();
            }
        }
    }
    let status = child.wait()?;
    let mut err = err_thread.join().unwrap_or_default();
    if stats.is_none() {
        err.push_str(&format!("\nworker exit status: {status}"));
    }
    if stats.is_none() && status.success() {
        anyhow::bail!("the worker exited without a report: {err}");
    }
    Ok((stats, ckpt, err))
}

/// A worker died: find its input by replaying from the last checkpoint.
fn recover(targets: &[Entry], a: &Args, name: &str, ckpt: u64, err: &str) -> anyhow::Result<Value> {
    let (kind, message) = match err.lines().find_map(|l| l.strip_prefix("fuzz-watchdog: ")) {
        Some(w) => {
            let (k, m) = w.split_once(": ").unwrap_or(("abort", w));
            (k.to_owned(), m.to_owned())
        }
        None => (
            if err.contains("overflowed its stack") {
                "stack-overflow"
            } else {
                "abort"
            }
            .to_owned(),
            err.lines()
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>()
                .join(" / "),
        ),
    };
    let dir = a.out.join("crashes").join(name);
    std::fs::create_dir_all(&dir)?;
    let dump = dir.join("last-input.json");
    let mut stats = serde_json::json!({ "target": name, "execs": ckpt, "crashes": 1 });
    if !dump.exists() {
        // Not saved by the watchdog: run the same (deterministic) run again from the last
        // checkpoint, writing each input before it runs; the last one written is the culprit.
        eprintln!(
            "fuzz: {name}: the worker died ({kind}: {message}); replaying from execution {ckpt}"
        );
        let mut replay = a.clone();
        replay.time = 1e9;
        replay.execs = ckpt + 4096;
        let mut c = worker_cmd(&replay, name)?;
        c.args(["--dump-from", &ckpt.to_string()])
            .arg("--dump-file")
            .arg(&dump)
            .arg("--no-regressions");
        let (replayed, _, _) = run_worker(c)?;
        if replayed.is_some() || !dump.exists() {
            stats["crash"] = serde_json::json!({
                "kind": kind,
                "message": format!("{message} (the replay did not reproduce it)"),
                "file": "",
            });
            return Ok(stats);
        }
    }
    let last: Value = serde_json::from_str(&std::fs::read_to_string(&dump)?)?;
    let seed = last["seed"].as_u64().unwrap_or(0) as usize;
    let input = lightprov_types::hex::data(last["input"].as_str().unwrap_or("0x"), "input")?;
    let t = build(targets, name)?;
    let c = driver::save_crash(
        t.as_ref(),
        &a.out,
        a.regressions,
        seed,
        &input,
        &kind,
        &message,
    );
    stats["crash"] = serde_json::json!({
        "kind": c.kind, "message": c.message, "file": c.file, "regression": c.regression,
    });
    Ok(stats)
}

fn supervise(targets: &[Entry], a: &Args) -> anyhow::Result<bool> {
    let summary = a
        .summary
        .clone()
        .unwrap_or_else(|| a.out.join("summary.json"));
    // With --append, this run's targets join those of the run before (another binary's).
    let earlier: Vec<Value> = if a.append {
        std::fs::read_to_string(&summary)
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut all = Vec::new();
    let (mut execs, mut crashes) = (0u64, 0u64);
    let mut failed_targets = 0usize;
    // The workers, up to --jobs at a time; each target's result is taken in the order asked,
    // as soon as it and those before it are in.
    let (tx, rx) = std::sync::mpsc::channel();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..a.jobs.min(a.targets.len()) {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Relaxed);
                    let Some(name) = a.targets.get(i) else { break };
                    let run = worker_cmd(a, name).and_then(run_worker);
                    if tx.send((i, run)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut runs: Vec<Option<anyhow::Result<WorkerRun>>> =
            a.targets.iter().map(|_| None).collect();
        for (i, run) in rx {
            if let Some(slot) = runs.get_mut(i) {
                *slot = Some(run);
            }
            while let Some(run) = runs.get_mut(all.len()).and_then(Option::take) {
                let name = a.targets.get(all.len()).map_or("", String::as_str);
                let stats = report(targets, a, name, run)?;
                execs += stats["execs"].as_u64().unwrap_or(0);
                let c = stats["crashes"].as_u64().unwrap_or(0);
                crashes += c;
                failed_targets += usize::from(c > 0);
                all.push(stats);
            }
        }
        Ok(())
    })?;
    let own_crashes = crashes;
    for s in &earlier {
        execs += s["execs"].as_u64().unwrap_or(0);
        let c = s["crashes"].as_u64().unwrap_or(0);
        crashes += c;
        failed_targets += usize::from(c > 0);
    }
    let all: Vec<Value> = earlier.into_iter().chain(all).collect();
    let _ = summary.parent().map(std::fs::create_dir_all);
    let _ = std::fs::write(
        &summary,
        serde_json::to_string_pretty(&Value::from(all.clone())).unwrap_or_default() + "\n",
    );
    if a.totals {
        println!(
            "fuzz: {} targets, {execs} execs, {crashes} crashes",
            all.len()
        );
        // One line per runner in the form CI reads: a target passes when it found no crash.
        println!(
            "fuzz: {} passed, {failed_targets} failed",
            all.len().saturating_sub(failed_targets)
        );
    }
    Ok(own_crashes == 0)
}

/// Re-runs saved crash inputs and prints the verdicts.
fn replay(targets: &[Entry], files: &[String]) -> anyhow::Result<bool> {
    driver::quiet_panics();
    let mut ok = true;
    for f in files {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(f)?)?;
        let name = v["target"].as_str().unwrap_or_default();
        let seed = v["seed"].as_u64().unwrap_or(0) as usize;
        let input = lightprov_types::hex::data(v["input"].as_str().unwrap_or("0x"), "input")?;
        let t = build(targets, name)?;
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| t.run(seed, &input)));
        match r {
            Ok(Ok(o)) => println!("{f}: {:?} {}", o.depth, o.class),
            Ok(Err(finding)) => {
                ok = false;
                println!("{f}: FAIL {}: {}", finding.kind, finding.message);
            }
            Err(_) => {
                ok = false;
                println!("{f}: PANIC");
            }
        }
    }
    Ok(ok)
}

/// Runs the command line of a fuzz binary named `bin` whose targets are `targets` (in run
/// order): `bin [OPTIONS] [TARGET…]` fuzzes each target in a worker process (this same
/// binary, `bin worker TARGET …`), `bin replay CRASH.json…` runs saved inputs again, and
/// `bin --list` prints the target names.
pub fn run(bin: &str, targets: &[Entry]) -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    let result = match args.peek().map(String::as_str) {
        Some("worker") => {
            args.next();
            parse(bin, targets, args)
                .and_then(|a| worker(targets, &a))
                .map(|()| true)
        }
        Some("replay") => {
            args.next();
            replay(targets, &args.collect::<Vec<_>>())
        }
        Some("--list") => {
            for t in targets {
                println!("{}", t.name);
            }
            Ok(true)
        }
        _ => parse(bin, targets, args).and_then(|a| supervise(targets, &a)),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("{bin}: {e:#}");
            ExitCode::from(2)
        }
    }
}
