//! The node's command line: clap's own checks of the flags, the families' included (unique
//! names and groups), which clap makes whenever a debug build parses its arguments.

use std::process::Command;

// The binary is built in this test's profile, so with debug assertions when this test has them.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "clap checks the flags only in debug builds"
)]
fn flags_are_well_formed() {
    let out = Command::new(env!("CARGO_BIN_EXE_lightprov-node"))
        .arg("--help")
        .output()
        .expect("the node binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "lightprov-node --help failed: {stderr}"
    );
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in ["--engines", "--workload", "--block-time", "--data-dir"] {
        assert!(help.contains(flag), "--help does not list {flag}:\n{help}");
    }
}
