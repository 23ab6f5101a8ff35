//! What the node's benches share: where proof files go, and the figures file of a report run.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where a bench writes the proof files the wasm benches read: `target/bench` of the workspace,
/// or `tmp` (a smoke test's temporary directory).
pub(crate) fn proofs_dir(tmp: Option<&tempfile::TempDir>) -> PathBuf {
    tmp.map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join("target")
                .join("bench")
        },
        |d| d.path().to_path_buf(),
    )
}

/// `file` as shown from the workspace root, where scripts/bench runs.
pub(crate) fn shown(file: &Path) -> std::path::Display<'_> {
    file.strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .unwrap_or(file)
        .display()
}

/// The run id (`LIGHTPROV_BENCH_RUN`) and the figures file (`LIGHTPROV_BENCH_JSON`), if any.
pub(crate) fn report_env() -> (String, Option<PathBuf>) {
    let run = std::env::var("LIGHTPROV_BENCH_RUN").unwrap_or_default();
    let file = std::env::var("LIGHTPROV_BENCH_JSON")
        .ok()
        .filter(|f| !f.is_empty())
        .map(PathBuf::from);
    (run, file)
}

/// Writes `doc` to `file` as pretty JSON, creating its directory.
pub(crate) fn write_figures(file: &Path, doc: &Value) {
    if let Some(d) = file.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(file, serde_json::to_string_pretty(doc).unwrap() + "\n").unwrap();
    println!("figures written to {}", file.display());
}
