//! Replays the request bodies the `rpc` fuzz target saved in
//! `server-mock/tests/fuzz-regressions/` (one JSON file each, `requestHex` the exact bytes)
//! through the node's HTTP front parser and then its handlers, as the target runs them: every
//! one must now pass the target's checks, without a panic.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use lightprov_fuzz::targets::rpc::replay;

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
    let verdicts = replay(&bodies).unwrap();
    for (p, v) in files.iter().zip(verdicts) {
        assert!(v.is_ok(), "{}: {v:?}", p.display());
    }
}
