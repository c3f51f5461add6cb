//! A tool called with an argument over the server's body cap (4 MiB) by the official MCP
//! clients, against the Streamable HTTP example (`examples/examples/http_server.rs`): the
//! client must read the server's `413` as an error it can show (not a broken pipe), and go on
//! to a normal call. The Python SDK (PyPI `mcp`, `.cache/python-mcp` from
//! `scripts/install-python-mcp`) must keep its session; the TypeScript SDK
//! (`@modelcontextprotocol/sdk`, `bench/node_modules` from `bench/install-sdks.sh`) its client.
//!
//! Without an SDK (or `node`) its test skips with a banner, unless `CI` is set, where it fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use claude_tools_tests::ListeningServer;
use serde_json::{Value, json};

/// The oversized argument: 5 MiB, over the example's 4 MiB cap (and within what it drains).
const OVERSIZED: usize = 5 * 1024 * 1024;

fn skip_or_fail(test: &str, missing: &str, hint: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{test}: {missing} and CI is set; {hint}");
    }
    // Written to the stderr handle itself: libtest captures `eprintln!` of passing tests.
    let _ = writeln!(
        std::io::stderr(),
        "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
         !!! SKIPPED {test}: {missing} ({hint})\n\
         !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
    );
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn start_example() -> ListeningServer {
    let mut command = Command::new(claude_tools_tests::example_binary("http_server"));
    command
        .args(["--listen", "127.0.0.1:0"])
        .env_remove("UNITS_MCP_TOKEN");
    ListeningServer::start(command)
}

/// Runs a client and returns the JSON report it prints, within a minute.
fn run_client(mut command: Command) -> Value {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client starts");
    let started = Instant::now();
    while child.try_wait().expect("wait on the client").is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the MCP client did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("the client's output");
    assert!(
        output.status.success(),
        "the MCP client failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "the client printed no JSON report ({error}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

#[test]
fn the_python_sdk_reads_the_413_of_an_oversized_call_and_its_session_goes_on() {
    let python = root().join(".cache/python-mcp/bin/python");
    if !python.exists() {
        return skip_or_fail(
            "http_oversize_clients (Python)",
            &format!(
                "the MCP Python SDK is not installed at {}",
                python.display()
            ),
            "run scripts/install-python-mcp",
        );
    }
    let server = start_example();
    let mut command = Command::new(python);
    command
        .arg(root().join("tests/python/http_oversize_client.py"))
        .arg(server.url())
        .arg(OVERSIZED.to_string());
    let report = run_client(command);
    assert_eq!(
        report,
        json!({
            // Our 413's JSON-RPC error, as the SDK raises it: the session did not die.
            "oversized": {"error": ["MCPError: Payload Too Large"]},
            "next_call": {"content": [{"type": "text", "text": "0 °C is 32 °F"}], "isError": false, "resultType": "complete"}
        })
    );
}

#[test]
fn the_typescript_sdk_reads_the_413_of_an_oversized_call_and_goes_on() {
    let node_modules = root().join("bench/node_modules");
    let sdk = node_modules.join("@modelcontextprotocol/sdk/package.json");
    let node_found = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    if !node_found || !sdk.exists() {
        return skip_or_fail(
            "http_oversize_clients (TypeScript)",
            &format!(
                "node or the MCP TypeScript SDK ({}) is missing",
                sdk.display()
            ),
            "install node, run bench/install-sdks.sh",
        );
    }
    let server = start_example();
    let mut command = Command::new("node");
    command
        .arg(root().join("tests/node/http_oversize_client.mjs"))
        .arg(server.url())
        .arg(OVERSIZED.to_string())
        .arg(Path::new(&node_modules));
    let report = run_client(command);
    // The SDK's error carries our 413's body, not `fetch failed <- EPIPE`.
    let error = report["oversized"]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        error.contains(r#""message":"Payload Too Large","data":"the body is over this server's 4194304-byte cap""#),
        "{report}"
    );
    assert_eq!(
        report["next_call"],
        json!({"content": [{"type": "text", "text": "0 °C is 32 °F"}], "isError": false}),
        "{report}"
    );
}
