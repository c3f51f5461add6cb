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

/// The venv's interpreter, or `None` (after a loud banner) when it is not installed and `CI` is
/// unset. With `CI` set, a missing venv fails the test.
pub fn python_mcp(test: &str) -> Option<PathBuf> {
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.cache/python-mcp/bin/python");
    if python.exists() {
        return Some(python);
    }
    let hint = "run scripts/install-python-mcp (or scripts/test)";
    if std::env::var_os("CI").is_some() {
        panic!("{test}: the MCP Python SDK is not installed and CI is set; {hint}");
    }
    // Written to the stderr handle itself: libtest captures `eprintln!` of passing tests.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         !!! SKIPPED {test}: the MCP Python SDK is not installed at {} ({hint})\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
        python.display()
    );
    None
}

/// Runs the Python MCP client script `tests/python/<script>` with `args` and returns the JSON
/// report it prints, failing the test when it does not finish within a minute, fails, or prints
/// no JSON.
pub fn run_python_client<S: AsRef<std::ffi::OsStr>>(
    python: &std::path::Path,
    script: &str,
    args: &[S],
) -> serde_json::Value {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("python")
        .join(script);
    let mut child = Command::new(python)
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python starts");
    let started = Instant::now();
    while child.try_wait().expect("wait on python").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the Python MCP client did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("python's output");
    assert!(
        output.status.success(),
        "the Python MCP client failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "the client printed no JSON report ({error}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}
