//! End-to-end smoke test of the model server against the real Claude Code CLI.
//!
//! Skipped (with a loud message) when the pinned CLI is not installed, unless `CI` is set, in
//! which case a missing CLI fails the test.

use std::process::Stdio;
use std::time::{Duration, Instant};

use claude_tools_testkit::model_server::{ModelServer, Script, Served, Turn};
use claude_tools_testkit::{TempDir, claude_cli_path};
use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_cli_prints_the_scripted_text() {
    let Some(cli) = claude_cli_path() else {
        if std::env::var_os("CI").is_some() {
            panic!(
                "the Claude Code CLI is not installed at .cache/claude-cli (CI is set, so this is an error)"
            );
        }
        eprintln!(
            "\n!!!!! SKIPPED real_cli_prints_the_scripted_text: Claude Code CLI not found at .cache/claude-cli/node_modules/.bin/claude (set CLAUDE_TOOLS_CLAUDE_BIN) !!!!!\n"
        );
        return;
    };
    let server =
        ModelServer::start(Script::new().turn(Turn::text("Hello from the scripted model."))).await;
    let home = TempDir::new("smoke").unwrap();
    let mut cmd = std::process::Command::new(&cli);
    cmd.args(["-p", "hello", "--output-format", "stream-json", "--verbose"])
        .current_dir(home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    server.apply_cli_env(&mut cmd, home.path());
    let started = Instant::now();
    let out = tokio::time::timeout(
        Duration::from_secs(90),
        tokio::process::Command::from(cmd)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the CLI did not finish within 90 s")
    .unwrap();
    eprintln!("real CLI run took {:?}", started.elapsed());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "CLI failed: {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status
    );

    let result: Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "result")
        .unwrap_or_else(|| panic!("no result line\nstdout:\n{stdout}\nstderr:\n{stderr}"));
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["result"], "Hello from the scripted model.");

    let turns = server.turn_requests();
    assert_eq!(turns.len(), 1, "requests: {:#?}", server.requests());
    assert_eq!(turns[0].served, Served::Turn { index: 0 });
    assert!(turns[0].is_streaming());
    assert_eq!(turns[0].path, "/v1/messages");
    assert_eq!(turns[0].header("x-api-key"), Some("test-key"));
    assert_eq!(turns[0].last_user_text(), "hello");
    assert!(
        server.proxy_attempts().is_empty(),
        "proxy attempts: {:#?}",
        server.proxy_attempts()
    );
    // Whatever else the CLI asked, it stayed on our server, and only with message requests.
    for r in server.requests() {
        assert!(
            r.is_messages(),
            "unexpected request {} {}",
            r.method,
            r.path
        );
    }
}
