//! The node's fuzz target (`examples/fuzz`), in-process: its seeds are accepted, a short
//! deterministic run finds nothing and its mutants reach the handlers, its regression files
//! carry the request, and the request bodies it saved in `server-mock/tests/fuzz-regressions/`
//! (one JSON file each, `requestHex` the exact bytes) go through the node's HTTP front parser
//! and then its handlers, as the target runs them: every one must now pass the target's checks,
//! without a panic.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

#[path = "../examples/fuzz/rpc.rs"]
mod rpc;

use lightprov_fuzz::{Target as _, driver::short_run};

#[test]
fn rpc_target_runs_clean_and_reaches_the_handlers() {
    let t = rpc::Rpc::new().unwrap();
    let out = tempfile::tempdir().unwrap();
    short_run(&t, 1000, out.path());
}

/// A regression file carries the failing request itself, and goes where this test reads.
#[test]
fn rpc_regression_files_carry_the_request() {
    let t = rpc::Rpc::new().unwrap();
    for (i, (seed, data)) in t.seeds().iter().enumerate() {
        let r = t.regression(i, data, "test").unwrap();
        let v: serde_json::Value = serde_json::from_str(&r.content).unwrap();
        let back =
            lightprov_types::hex::data(v["requestHex"].as_str().unwrap(), "requestHex").unwrap();
        assert_eq!(&back, data, "{seed}");
        assert!(
            r.path.starts_with("server-mock/tests/fuzz-regressions"),
            "{}",
            r.path.display()
        );
        assert_eq!(r.count_family, None);
    }
}

#[test]
fn saved_rpc_requests_get_answers() {
    let dir = lightprov_fuzz::vectors::repo_root().join("server-mock/tests/fuzz-regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "json"));
    files.sort();
    let bodies: Vec<Vec<u8>> = files
        .iter()
        .map(|p| {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
            lightprov_types::hex::data(v["requestHex"].as_str().unwrap(), "requestHex").unwrap()
        })
        .collect();
    if bodies.is_empty() {
        return;
    }
    let verdicts = rpc::replay(&bodies).unwrap();
    for (p, v) in files.iter().zip(verdicts) {
        assert!(v.is_ok(), "{}: {v:?}", p.display());
    }
}
