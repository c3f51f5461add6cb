//! Shared helpers of the integration tests.

pub mod services;
mod units_catalog;

pub use units_catalog::expected_units_catalog;

use std::path::PathBuf;
use std::process::Command;

/// The executable of the workspace's example `name`, built first if it is missing or stale.
///
/// `cargo test --workspace` has built every example already, and the build here only checks
/// that; a narrower `cargo test -p …` run gets it built now. Built with `--workspace`, so the
/// features are those of the whole workspace, as in that full run: nothing is rebuilt twice.
/// (The target directory is not locked while tests run; `CARGO_TARGET_DIR` is honoured.)
pub fn example_binary(name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "--workspace", "--example", name])
        .arg("--message-format=json-render-diagnostics")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|error| panic!("running cargo to build the example `{name}`: {error}"));
    assert!(
        output.status.success(),
        "cargo could not build the example `{name}`:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| {
            message["reason"] == "compiler-artifact" && message["target"]["name"] == name
        })
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo built the example `{name}` but named no executable"))
}
