//! `lightprov-fuzz`: runs the fuzz targets (see the library docs), each in a worker process
//! under this one, so that an abort — an allocation over the memory cap, a hang stopped by
//! the watchdog, a stack overflow — is caught too: the run is deterministic, so the worker is
//! started again from its last checkpoint, writing each input before running it, and the last
//! input written is the culprit.
//!
//! ```text
//! lightprov-fuzz [--time SECONDS] [--execs N] [--seed N] [--slow-ms MS] [--hang-s S]
//!                [--mem-mb MB] [--no-regressions] [--summary FILE] [TARGET…]
//! lightprov-fuzz replay CRASH.json…
//! ```

// A global allocator is unsafe by nature; this is the only unsafe code, and it forwards to
// the system allocator.
#![allow(
    unsafe_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::{
    alloc::{GlobalAlloc, Layout, System},
    io::{BufRead as _, BufReader, Write as _},
    path::PathBuf,
    process::{Command, ExitCode, Stdio},
    sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed},
    time::{Duration, Instant},
};

use lightprov_fuzz::{
    TARGETS,
    driver::{self, Monitor, Options},
};
use serde_json::Value;

/// Live heap bytes.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Most live bytes since the input began.
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Refuse allocations past this (usize::MAX outside inputs).
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Set when an allocation was refused: the watchdog saves the input and aborts.
static REFUSED: AtomicUsize = AtomicUsize::new(0);

/// Counts live bytes. An input that holds more than the cap is reported after it returns (the
/// driver compares its peak); one that asks for more than [`HARD_FACTOR`] times the cap is
/// stopped at that allocation: the allocating thread waits while the watchdog saves the input
/// and aborts the process.
struct Counting;

/// The hard limit, as a multiple of the cap.
const HARD_FACTOR: usize = 8;

impl Counting {
    fn reserve(size: usize) -> bool {
        let now = LIVE.fetch_add(size, Relaxed).saturating_add(size);
        if now > LIMIT.load(Relaxed) {
            LIVE.fetch_sub(size, Relaxed);
            REFUSED.store(size.max(1), Relaxed);
            // No allocation from here on: the watchdog does the rest.
            loop {
                std::thread::sleep(Duration::from_secs(1));
            }
        }
        PEAK.fetch_max(now, Relaxed);
        true
    }
}

// SAFETY: every call forwards to `System` with the caller's layout and pointer; the counters
// are only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !Self::reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.alloc(layout) };
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !Self::reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.alloc_zeroed(layout) };
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !Self::reserve(new_size - old) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if p.is_null() {
            if new_size > old {
                LIVE.fetch_sub(new_size - old, Relaxed);
            }
        } else if new_size < old {
            LIVE.fetch_sub(old - new_size, Relaxed);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
    regressions: bool,
    summary: Option<PathBuf>,
    dump_from: Option<u64>,
    dump_file: Option<PathBuf>,
    die_at: Option<u64>,
    out: PathBuf,
    targets: Vec<String>,
}

fn parse(mut it: impl Iterator<Item = String>) -> anyhow::Result<Args> {
    let mut a = Args {
        time: 60.0,
        execs: u64::MAX,
        seed: 1,
        slow_ms: 1000,
        hang_s: 10,
        mem_mb: 256,
        regressions: true,
        summary: None,
        dump_from: None,
        dump_file: None,
        die_at: None,
        out: lightprov_fuzz::vectors::repo_root().join("target/fuzz"),
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
            "--no-regressions" => a.regressions = false,
            "--summary" => a.summary = Some(val("--summary")?.into()),
            "--dump-from" => a.dump_from = Some(val("--dump-from")?.parse()?),
            "--dump-file" => a.dump_file = Some(val("--dump-file")?.into()),
            "--die-at" => a.die_at = Some(val("--die-at")?.parse()?),
            "--out" => a.out = val("--out")?.into(),
            "-h" | "--help" => {
                println!(
                    "lightprov-fuzz [--time SECONDS] [--execs N] [--seed N] [--slow-ms MS] \
                     [--hang-s S] [--mem-mb MB] [--no-regressions] [--summary FILE] [--out DIR] [TARGET…]\n\
                     lightprov-fuzz replay CRASH.json…\ntargets: {}",
                    TARGETS.join(", ")
                );
                std::process::exit(0);
            }
            t if !t.starts_with('-') => a.targets.push(t.to_owned()),
            other => anyhow::bail!("unknown option {other}"),
        }
    }
    for t in &a.targets {
        anyhow::ensure!(
            TARGETS.contains(&t.as_str()),
            "unknown target `{t}` (one of {})",
            TARGETS.join(", ")
        );
    }
    if a.targets.is_empty() {
        a.targets = TARGETS.iter().map(|s| (*s).to_owned()).collect();
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
fn worker(a: &Args) -> anyhow::Result<()> {
    let name = a.targets.first().cloned().unwrap_or_default();
    driver::quiet_panics();
    let t = lightprov_fuzz::target(&name)?;
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

/// Runs a worker; returns its stats line (if it finished), its last checkpoint and stderr.
fn run_worker(mut c: Command) -> anyhow::Result<(Option<Value>, u64, String)> {
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
fn recover(a: &Args, name: &str, ckpt: u64, err: &str) -> anyhow::Result<Value> {
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
    let t = lightprov_fuzz::target(name)?;
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

fn supervise(a: &Args) -> anyhow::Result<bool> {
    let mut all = Vec::new();
    let (mut execs, mut crashes) = (0u64, 0u64);
    let mut failed_targets = 0usize;
    for name in &a.targets {
        let (stats, ckpt, err) = run_worker(worker_cmd(a, name)?)?;
        let stats = match stats {
            Some(s) => s,
            None => recover(a, name, ckpt, &err)?,
        };
        print_stats(name, &stats);
        execs += stats["execs"].as_u64().unwrap_or(0);
        let c = stats["crashes"].as_u64().unwrap_or(0);
        crashes += c;
        failed_targets += usize::from(c > 0);
        all.push(stats);
    }
    let summary = a
        .summary
        .clone()
        .unwrap_or_else(|| a.out.join("summary.json"));
    let _ = summary.parent().map(std::fs::create_dir_all);
    let _ = std::fs::write(
        &summary,
        serde_json::to_string_pretty(&Value::from(all)).unwrap_or_default() + "\n",
    );
    println!(
        "fuzz: {} targets, {execs} execs, {crashes} crashes",
        a.targets.len()
    );
    // One line per runner in the form CI reads: a target passes when it found no crash.
    println!(
        "fuzz: {} passed, {failed_targets} failed",
        a.targets.len().saturating_sub(failed_targets)
    );
    Ok(crashes == 0)
}

/// Re-runs saved crash inputs and prints the verdicts.
fn replay(files: &[String]) -> anyhow::Result<bool> {
    driver::quiet_panics();
    let mut ok = true;
    for f in files {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(f)?)?;
        let name = v["target"].as_str().unwrap_or_default();
        let seed = v["seed"].as_u64().unwrap_or(0) as usize;
        let input = lightprov_types::hex::data(v["input"].as_str().unwrap_or("0x"), "input")?;
        let t = lightprov_fuzz::target(name)?;
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

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    let result = match args.peek().map(String::as_str) {
        Some("worker") => {
            args.next();
            parse(args).and_then(|a| worker(&a)).map(|()| true)
        }
        Some("replay") => {
            args.next();
            replay(&args.collect::<Vec<_>>())
        }
        _ => parse(args).and_then(|a| supervise(&a)),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("lightprov-fuzz: {e:#}");
            ExitCode::from(2)
        }
    }
}
