//! Shared helpers of the integration tests.

pub mod oauth;
pub mod otlp;
pub mod services;
mod units_catalog;

pub use units_catalog::expected_units_catalog;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

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

/// A server process that prints the URL it listens on as the first line of its stdout (the
/// HTTP example, the `ask-mcp` fixture), killed when dropped, so that a failing test leaves no
/// server behind.
pub struct ListeningServer {
    child: Child,
    url: String,
}

impl ListeningServer {
    /// Spawns `command` with its stdin closed and its stdout piped (its stderr as `command`
    /// says) and reads its URL, which must be on 127.0.0.1.
    pub fn start(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|error| panic!("the server does not start: {error}"));
        let stdout = child.stdout.take().expect("piped stdout");
        // Owned from here: killed even if the URL is not what it should be.
        let mut server = ListeningServer {
            child,
            url: String::new(),
        };
        BufReader::new(stdout)
            .read_line(&mut server.url)
            .expect("the server prints its URL");
        server.url = server.url.trim().to_string();
        assert!(
            server.url.starts_with("http://127.0.0.1:"),
            "not a URL on 127.0.0.1: {:?}",
            server.url
        );
        server
    }

    /// The URL it printed.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The URL's `host:port`.
    pub fn address(&self) -> &str {
        let rest = self.url.trim_start_matches("http://");
        rest.split('/').next().unwrap_or(rest)
    }

    /// The process (to signal it, or wait for its exit).
    pub fn child(&mut self) -> &mut Child {
        &mut self.child
    }
}

impl Drop for ListeningServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `tools/call` result of one text block, as the servers under test answer it.
pub fn text_result(text: &str, is_error: bool) -> serde_json::Value {
    serde_json::json!({"content": [{"type": "text", "text": text}], "isError": is_error, "resultType": "complete"})
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
    run_client(
        python.as_os_str(),
        "python",
        script,
        args,
        "the Python MCP client",
    )
}

/// The `node_modules` of the official MCP TypeScript client, v2 (`.cache/ts-mcp-client`,
/// `scripts/install-ts-mcp-client`), or `None` (after a loud banner) when node or the client is
/// missing and `CI` is unset. With `CI` set, a missing client fails the test.
pub fn ts_mcp_client(test: &str) -> Option<PathBuf> {
    let node_modules =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.cache/ts-mcp-client/node_modules");
    let package = node_modules.join("@modelcontextprotocol/client/package.json");
    let node_found = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if node_found && package.exists() {
        return Some(node_modules);
    }
    let hint = "install node, run scripts/install-ts-mcp-client (or scripts/test)";
    if std::env::var_os("CI").is_some() {
        panic!(
            "{test}: node or the MCP TypeScript client ({}) is missing and CI is set; {hint}",
            package.display()
        );
    }
    // Written to the stderr handle itself: libtest captures `eprintln!` of passing tests.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         !!! SKIPPED {test}: node or the MCP TypeScript client ({}) is missing ({hint})\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n",
        package.display()
    );
    None
}

/// Runs the node script `tests/node/<script>` with `args` and returns the JSON report it prints,
/// failing the test when it does not finish within a minute, fails, or prints no JSON.
pub fn run_node_client<S: AsRef<std::ffi::OsStr>>(script: &str, args: &[S]) -> serde_json::Value {
    run_client(
        "node".as_ref(),
        "node",
        script,
        args,
        "the TypeScript MCP client",
    )
}

/// Runs `program` on the script `tests/<dir>/<script>` with `args` and returns the JSON report it
/// prints, failing the test (naming `client`) when it does not finish within a minute, fails, or
/// prints no JSON.
fn run_client<S: AsRef<std::ffi::OsStr>>(
    program: &std::ffi::OsStr,
    dir: &str,
    script: &str,
    args: &[S],
    client: &str,
) -> serde_json::Value {
    use std::time::{Duration, Instant};
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(dir)
        .join(script);
    let mut child = Command::new(program)
        .arg(script)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("{client} does not start: {error}"));
    let started = Instant::now();
    while child.try_wait().expect("wait on the client").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{client} did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("the client's output");
    assert!(
        output.status.success(),
        "{client} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "the client printed no JSON report ({error}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}
