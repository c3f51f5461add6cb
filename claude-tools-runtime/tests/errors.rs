//! What the user sees of errors: which end the session (`Error::is_fatal`) and which are one bad
//! item on a stream that goes on, and a `Debug` that reads like `Display` (what
//! `fn main() -> Result<(), Error>` prints).

use std::path::PathBuf;
use std::time::Duration;

use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::options::Options;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

mod common;

use common::{connect_answering_initialize, failure, next_item, result_frame};

#[tokio::test]
async fn bad_lines_are_survivable_items_and_an_exit_mid_run_is_fatal() {
    let (mut client, mut cli) =
        connect_answering_initialize(Options::new().max_line_size(256)).await;
    client.query("hello").await.unwrap();
    let _prompt = cli.recv().await;
    cli.send_line(&format!("{{\"pad\":\"{}\"}}", "x".repeat(512)))
        .await;
    cli.send_line("{\"type\": broken").await;
    cli.send_line("{\"type\":\"control_response\",\"response\":7}")
        .await;
    cli.send(json!({"type": "assistant", "message": {"content": [{"type": "text", "text": "still here"}]}}))
        .await;
    cli.0.write_stderr("boom: the CLI crashed");
    cli.0.exit(3);

    let mut seen = Vec::new();
    while let Some(item) = next_item(&mut client).await {
        match item {
            Ok(message) => seen.push(format!("message {}", message.message_type())),
            Err(error) => {
                let kind = match &error {
                    Error::LineTooLong { .. } => "LineTooLong",
                    Error::Json { .. } => "Json",
                    Error::Protocol { .. } => "Protocol",
                    Error::ProcessExited { .. } => "ProcessExited",
                    other => panic!("unexpected error {other}"),
                };
                seen.push(format!("{kind} fatal={}", error.is_fatal()));
            }
        }
    }
    assert_eq!(
        seen,
        [
            "LineTooLong fatal=false",
            "Json fatal=false",
            "Protocol fatal=false",
            "message assistant",
            "ProcessExited fatal=true",
        ]
    );
}

/// Sends control request `body` from its own task, which expects it to fail (`expected` says
/// how) and hands the client back with the error.
fn spawn_failing_request(
    client: Client,
    body: Value,
    expected: &'static str,
) -> JoinHandle<(Client, Error)> {
    tokio::spawn(async move {
        let error = client.control_request(body).await.expect_err(expected);
        (client, error)
    })
}

#[tokio::test]
async fn a_refused_or_unanswered_control_request_is_survivable() {
    let options = Options::new().control_timeout(Duration::from_millis(200));
    let (client, mut cli) = connect_answering_initialize(options).await;
    let refused = spawn_failing_request(client, json!({"subtype": "no_such_thing"}), "refused");
    let request = cli.recv().await;
    let request_id = request["request_id"].as_str().unwrap();
    cli.send(failure(request_id, "Unsupported control request subtype"))
        .await;
    let (client, refused) = refused.await.unwrap();
    assert!(matches!(refused, Error::Control { .. }), "{refused}");
    assert!(!refused.is_fatal());

    let unanswered =
        spawn_failing_request(client, json!({"subtype": "get_context_usage"}), "times out");
    let ignored = cli.recv().await;
    assert_eq!(ignored["request"]["subtype"], "get_context_usage");
    let (client, unanswered) = unanswered.await.unwrap();
    assert!(matches!(unanswered, Error::Timeout { .. }), "{unanswered}");
    assert!(!unanswered.is_fatal());
    // The session goes on.
    let asked = tokio::spawn(async move { client.mcp_status().await });
    let request = cli.recv_request("mcp_status").await;
    cli.answer(&request, json!({"mcpServers": []})).await;
    assert!(asked.await.unwrap().unwrap().servers.is_empty());
}

#[tokio::test]
async fn errors_that_end_or_prevent_a_session_are_fatal() {
    let (mut client, cli) = connect_answering_initialize(Options::new()).await;
    cli.0.close();
    let exited = client.receive_response().await.expect_err("exited");
    assert!(matches!(exited, Error::ProcessExited { .. }), "{exited}");
    assert!(exited.is_fatal());
    // Asking again reports the same exit (not a bare `Closed`).
    let again = client.receive_response().await.expect_err("exited");
    assert!(matches!(again, Error::ProcessExited { .. }), "{again}");
    assert!(again.is_fatal());
    assert!(Error::Closed.is_fatal());

    let missing = Client::connect(Options::new().cli_path("/nonexistent/claude"))
        .await
        .expect_err("no such CLI");
    assert!(matches!(missing, Error::CliNotFound { .. }), "{missing}");
    assert!(missing.is_fatal());

    // An executable whose interpreter does not exist: found, but it cannot be started.
    let dir = std::env::temp_dir().join(format!("ct-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("claude");
    std::fs::write(&broken, "#!/nonexistent/interpreter\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&broken, std::fs::Permissions::from_mode(0o755)).unwrap();
    let unstartable = Client::connect(Options::new().cli_path(&broken))
        .await
        .expect_err("cannot start");
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(matches!(unstartable, Error::Spawn { .. }), "{unstartable}");
    assert!(unstartable.is_fatal());

    assert!(Error::Io(std::io::Error::other("broken pipe")).is_fatal());
    assert!(Error::InvalidOptions("x".into()).is_fatal());
}

#[test]
fn debug_reads_like_display_so_main_prints_the_helpful_text() {
    let not_found = Error::CliNotFound {
        searched: vec![
            PathBuf::from("/usr/local/bin/claude"),
            PathBuf::from("/home/me/.claude/local/claude"),
        ],
    };
    // `fn main() -> Result<(), Error>` prints `Error: {error:?}`.
    assert_eq!(
        format!("Error: {not_found:?}"),
        "Error: the Claude Code CLI was not found. Install it without npm (`cargo install \
         claude-tools-cli`, then `claude-tools install-cli`; or Options::install_cli_if_missing, \
         feature `install`), or with npm (`npm install -g @anthropic-ai/claude-code@2.1.332`, or \
         into the project: `npm install --prefix .cache/claude-cli \
         @anthropic-ai/claude-code@2.1.332`), or name the executable with the \
         CLAUDE_CODE_CLI environment variable or Options::cli_path. Looked in: \
         /usr/local/bin/claude, /home/me/.claude/local/claude"
    );
    let errors = [
        not_found,
        Error::Spawn {
            path: PathBuf::from("/opt/claude"),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        },
        Error::Control {
            subtype: "mcp_reconnect".into(),
            message: "SDK servers should be handled in print.ts".into(),
            code: None,
        },
        Error::Timeout {
            subtype: "interrupt".into(),
            timeout: Duration::from_secs(60),
        },
        Error::Closed,
        Error::Io(std::io::Error::other("broken pipe")),
        Error::InvalidOptions("`calc` names both an in-process and an external MCP server".into()),
    ];
    for error in errors {
        assert_eq!(format!("{error:?}"), error.to_string());
        assert_eq!(format!("{error:#?}"), error.to_string());
    }
    assert_eq!(format!("{:?}", Error::Closed), "the session is closed");
}

/// The strict shortcut, as documented: `receive_response` stops at the first error, survivable
/// ones included, and returns it; the messages it had read in that call go with it, and the
/// next call reads on after the bad line, up to the `result`.
#[tokio::test]
async fn receive_response_stops_at_a_survivable_error_and_the_next_call_reads_on() {
    let (mut client, mut cli) = connect_answering_initialize(Options::new()).await;
    client.query("hello").await.unwrap();
    let _prompt = cli.recv().await;
    let assistant = |text: &str| json!({"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}});
    cli.send(assistant("before")).await;
    cli.send_line("{\"type\": broken").await;
    cli.send(assistant("after")).await;
    cli.send(result_frame()).await;

    let error = client.receive_response().await.expect_err("the bad line");
    assert!(matches!(error, Error::Json { .. }), "{error}");
    assert!(!error.is_fatal());
    let rest = client
        .receive_response()
        .await
        .expect("the rest of the turn");
    let texts: Vec<String> = rest
        .iter()
        .map(|m| {
            m.as_assistant()
                .map(|a| a.text())
                .unwrap_or_else(|| m.message_type().into())
        })
        .collect();
    assert_eq!(texts, ["after", "result"]);
}

#[tokio::test]
async fn an_unanswered_initialize_fails_after_the_initialize_timeout_not_the_control_timeout() {
    let options = Options::new()
        .control_timeout(Duration::from_secs(600))
        .initialize_timeout(Duration::from_millis(100));
    let (transport, cli) = claude_tools_runtime::transport::MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(options, transport));
    let mut cli = common::Cli(cli);
    let initialize = cli.recv_request("initialize").await;
    assert_eq!(initialize["request"]["subtype"], "initialize");
    // Never answered: the start gives up at the initialize timeout (the control timeout of
    // ten minutes would outlast this wait).
    let error = tokio::time::timeout(Duration::from_secs(10), connecting)
        .await
        .expect("the start gave up in time")
        .unwrap()
        .expect_err("no answer to initialize");
    assert!(
        matches!(&error, Error::Timeout { subtype, timeout }
            if subtype == "initialize" && *timeout == Duration::from_millis(100)),
        "{error:?}"
    );
}
