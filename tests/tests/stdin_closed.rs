//! Issue 33: a control sent after the CLI has closed its stdin (and lives on) fails at once
//! with the broken pipe, instead of waiting 3 s for an exit report that is not coming.
//!
//! The CLI is the `stdin-closing-cli` child process: it answers `initialize`, closes its stdin,
//! says so, and lives on for 30 s. Each control then fails; all of them together must fail
//! within [`AT_ONCE`], half of what a single one used to wait.

use std::time::{Duration, Instant};

use claude_tools::prelude::*;
use claude_tools::{Error, PermissionMode};

/// The most all the controls below may take together (one used to take 3 s).
const AT_ONCE: Duration = Duration::from_millis(1500);
const WAIT: Duration = Duration::from_secs(20);

fn is_broken_pipe<T: std::fmt::Debug>(result: &Result<T, Error>) -> bool {
    matches!(result, Err(Error::Io(error)) if error.kind() == std::io::ErrorKind::BrokenPipe)
}

#[tokio::test]
async fn controls_after_the_cli_closed_its_stdin_fail_at_once_with_the_broken_pipe() {
    let options = Options::new().cli_path(env!("CARGO_BIN_EXE_stdin-closing-cli"));
    let mut client = Client::connect(options).await.expect("connected");
    // Wait for the CLI to say its stdin is closed: from here every write fails.
    loop {
        match tokio::time::timeout(WAIT, client.next_message()).await {
            Ok(Some(Ok(Message::Other(value)))) if value["type"] == "x_stdin_closed" => break,
            Ok(Some(Ok(_))) => {}
            other => panic!("expected x_stdin_closed, got {other:?}"),
        }
    }
    let started = Instant::now();
    let interrupt = client.interrupt().await;
    assert!(is_broken_pipe(&interrupt), "interrupt: {interrupt:?}");
    let model = client.set_model(Some("sonnet")).await;
    assert!(is_broken_pipe(&model), "set_model: {model:?}");
    let mode = client.set_permission_mode(PermissionMode::Plan).await;
    assert!(is_broken_pipe(&mode), "set_permission_mode: {mode:?}");
    let status = client.mcp_status().await;
    assert!(is_broken_pipe(&status), "mcp_status: {status:?}");
    let took = started.elapsed();
    assert!(
        took < AT_ONCE,
        "four controls to a CLI that closed its stdin took {took:?}"
    );
    drop(client);
}
