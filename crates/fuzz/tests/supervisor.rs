//! The binary finds the input of a worker that died: saved by the watchdog (an allocation past
//! the hard memory limit), or found by replaying the deterministic run from its last
//! checkpoint (an abort the worker could not see coming).

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use std::process::Command;

fn fuzz(out: &std::path::Path, args: &[&str]) -> (bool, String) {
    fuzz_targets(out, args, &["cole"])
}

fn fuzz_targets(out: &std::path::Path, args: &[&str], targets: &[&str]) -> (bool, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_lightprov-fuzz"))
        .args(args)
        .args(["--no-regressions", "--out"])
        .arg(out)
        .args(targets)
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

fn crash_files(out: &std::path::Path, prefix: &str) -> Vec<serde_json::Value> {
    crash_files_of(out, "cole", prefix)
}

fn crash_files_of(out: &std::path::Path, target: &str, prefix: &str) -> Vec<serde_json::Value> {
    std::fs::read_dir(out.join("crashes").join(target))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .map(|e| serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap())
        .collect()
}

#[test]
fn an_abort_is_replayed_to_its_input() {
    let out = tempfile::tempdir().unwrap();
    let (ok, stdout) = fuzz(
        out.path(),
        &["--die-at", "3000", "--execs", "6000", "--time", "600"],
    );
    assert!(!ok, "{stdout}");
    assert!(stdout.contains("CRASH abort"), "{stdout}");
    assert!(stdout.contains("fuzz: 1 targets"), "{stdout}");
    let c = crash_files(out.path(), "abort-");
    assert_eq!(c.len(), 1, "{stdout}");
    assert_eq!(c[0]["target"], "cole");
    assert!(c[0]["input"].as_str().unwrap().len() > 2);
}

#[test]
fn an_allocation_past_the_hard_limit_is_saved_by_the_watchdog() {
    let out = tempfile::tempdir().unwrap();
    let (ok, stdout) = fuzz(out.path(), &["--mem-mb", "0", "--time", "60"]);
    assert!(!ok, "{stdout}");
    assert!(stdout.contains("CRASH out-of-memory"), "{stdout}");
    assert_eq!(
        crash_files(out.path(), "out-of-memory-").len(),
        1,
        "{stdout}"
    );
}

#[test]
fn a_clean_run_reports_its_counts() {
    let out = tempfile::tempdir().unwrap();
    let (ok, stdout) = fuzz(out.path(), &["--execs", "2000", "--time", "600"]);
    assert!(ok, "{stdout}");
    assert!(
        stdout.contains("fuzz: 1 targets, 2000 execs, 0 crashes"),
        "{stdout}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary[0]["execs"], 2000);
    assert_eq!(summary[0]["crashes"], 0);
}

/// Two binaries, one summary: a run with `--no-totals` prints no totals, and the next with
/// `--append` adds its targets to the summary it left and prints the totals over both.
#[test]
fn an_appending_run_adds_to_the_summary_and_totals_both() {
    let out = tempfile::tempdir().unwrap();
    let (ok, first) = fuzz(out.path(), &["--execs", "500", "--no-totals"]);
    assert!(ok, "{first}");
    assert!(!first.contains("fuzz: "), "{first}");
    let (ok, second) = fuzz(out.path(), &["--execs", "700", "--append"]);
    assert!(ok, "{second}");
    assert!(
        second.contains("fuzz: 2 targets, 1200 execs, 0 crashes"),
        "{second}"
    );
    assert!(second.contains("fuzz: 2 passed, 0 failed"), "{second}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary.as_array().unwrap().len(), 2);
    assert_eq!(summary[0]["execs"], 500);
    assert_eq!(summary[1]["execs"], 700);
}

/// `--jobs 2`: the targets' workers run two at a time, and each is still reported, and written
/// to the summary, in the order asked, with the executions asked.
#[test]
fn parallel_workers_report_in_the_order_asked() {
    let out = tempfile::tempdir().unwrap();
    let targets = ["mpt", "header", "cole", "params"];
    let (ok, stdout) = fuzz_targets(
        out.path(),
        &["--jobs", "2", "--execs", "1500", "--time", "600"],
        &targets,
    );
    assert!(ok, "{stdout}");
    assert!(
        stdout.contains("fuzz: 4 targets, 6000 execs, 0 crashes"),
        "{stdout}"
    );
    let printed: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| targets.contains(w))
        .collect();
    assert_eq!(printed, targets, "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let names: Vec<&str> = summary
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["target"].as_str().unwrap())
        .collect();
    assert_eq!(names, targets);
    assert!(
        summary
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["execs"] == 1500)
    );
}

/// Workers that die while others run are each replayed to their own input.
#[test]
fn parallel_workers_that_die_are_each_replayed() {
    let out = tempfile::tempdir().unwrap();
    let (ok, stdout) = fuzz_targets(
        out.path(),
        &[
            "--jobs", "2", "--die-at", "1000", "--execs", "3000", "--time", "600",
        ],
        &["mpt", "cole"],
    );
    assert!(!ok, "{stdout}");
    assert_eq!(stdout.matches("CRASH abort").count(), 2, "{stdout}");
    assert!(stdout.contains("fuzz: 0 passed, 2 failed"), "{stdout}");
    for target in ["mpt", "cole"] {
        let c = crash_files_of(out.path(), target, "abort-");
        assert_eq!(c.len(), 1, "{target}: {stdout}");
        assert_eq!(c[0]["target"], target);
    }
}
