//! `Options::handshake_manifests` with the real CLI: the tools still work, and which MCP
//! messages still came over `mcp_message` (recorded from the CLI's stdout as it is read).
//!
//! And the CLI's "modern" in-process path (`U?.modern===!0` on a manifest entry, which would
//! connect the server at MCP 2026-07-28): a manifest entry that says `"modern": true` (written
//! into the host's `initialize` on its way to the CLI) changes nothing, the server is still
//! spoken to at 2025-11-25. The evidence from the bundle is in
//! docs/notes/cli-2.1.332-in-process-modern.md.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::Message;
use claude_tools_runtime::transport::{
    BoxFuture, Connection, LaunchSpec, ProcessTransport, Transport,
};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, ReadBuf};

use crate::harness::{success_text, tr, within, world};
use crate::tools;

/// The real CLI's process, with every byte it writes to stdout also kept in `seen`; with
/// `modern`, every manifest entry of the host's `initialize` gains `"modern": true` on its way
/// to the CLI's stdin (the lines so changed are kept in it, as they were sent).
struct RecordingTransport {
    seen: Arc<Mutex<Vec<u8>>>,
    modern: Option<Arc<Mutex<Vec<Value>>>>,
}

impl Transport for RecordingTransport {
    fn connect(
        self: Box<Self>,
        launch: LaunchSpec,
    ) -> BoxFuture<'static, claude_tools_runtime::Result<Connection>> {
        Box::pin(async move {
            let mut connection = Box::new(ProcessTransport::new()).connect(launch).await?;
            connection.reader = Box::pin(Recorder {
                inner: connection.reader,
                seen: self.seen,
            });
            if let Some(marked) = self.modern {
                connection.writer = mark_manifests_modern(connection.writer, marked);
            }
            Ok(connection)
        })
    }
}

struct Recorder {
    inner: Pin<Box<dyn AsyncRead + Send>>,
    seen: Arc<Mutex<Vec<u8>>>,
}

impl AsyncRead for Recorder {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = self.inner.as_mut().poll_read(cx, buf);
        let read = buf.filled()[before..].to_vec();
        self.seen.lock().unwrap().extend_from_slice(&read);
        poll
    }
}

/// A writer to the CLI's stdin that adds `"modern": true` to each manifest entry of the
/// host's `initialize` line (each entry's object starts with its `initializeResult`), keeping
/// the changed line in `marked`, and passes every other line as it is.
fn mark_manifests_modern(
    stdin: Pin<Box<dyn AsyncWrite + Send>>,
    marked: Arc<Mutex<Vec<Value>>>,
) -> Pin<Box<dyn AsyncWrite + Send>> {
    let (host_end, cli_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut stdin = stdin;
        let mut lines = BufReader::new(cli_end).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let line = if line.contains("\"sdkMcpServerManifests\"") {
                let line = line.replace(
                    "{\"initializeResult\":",
                    "{\"modern\":true,\"initializeResult\":",
                );
                if let Ok(frame) = serde_json::from_str(&line) {
                    marked.lock().unwrap().push(frame);
                }
                line
            } else {
                line
            };
            if stdin.write_all(line.as_bytes()).await.is_err()
                || stdin.write_all(b"\n").await.is_err()
                || stdin.flush().await.is_err()
            {
                return;
            }
        }
        // The host closed its end: close the CLI's stdin as it asked.
        let _ = stdin.shutdown().await;
    });
    Box::pin(host_end)
}

/// The JSON-RPC messages of the `mcp_message` requests the CLI sent, in order.
fn mcp_messages(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|frame| frame["request"]["subtype"] == "mcp_message")
        .map(|frame| frame["request"]["message"].clone())
        .collect()
}

/// The methods of [`mcp_messages`].
fn methods(messages: &[Value]) -> Vec<&str> {
    messages
        .iter()
        .map(|message| message["method"].as_str().unwrap_or_default())
        .collect()
}

/// One tool call through a client with manifests `on` (each marked `"modern": true` with
/// `modern`); returns the `initialize` answer's `sdk_mcp_manifests_parked` and the
/// `mcp_message` messages the host received.
async fn one_call(
    test: &str,
    on: bool,
    modern: Option<Arc<Mutex<Vec<Value>>>>,
) -> Option<(Value, Vec<Value>)> {
    let script = Script::new()
        .turn(Turn::text("Adding.").and_tool_use(
            "toolu_e2e_manifest",
            "mcp__e2e__counter_add",
            json!({"by": 1}),
        ))
        .turn(Turn::text("The tool said: {{tool_result}}"));
    let w = world(test, script).await?;
    let (server, lab) = tools::server(9);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"])
        .handshake_manifests(on);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let transport = RecordingTransport {
        seen: seen.clone(),
        modern,
    };
    let (parked, messages) = within(test, async {
        let mut client = Client::connect_with(options, transport)
            .await
            .expect("connects");
        let parked = client.server_info()["sdk_mcp_manifests_parked"].clone();
        client.query("add one").await.expect("prompt sent");
        let messages: Vec<Message> = client.receive_response().await.expect("a response");
        client.disconnect().await.expect("disconnects");
        (parked, messages)
    })
    .await;
    assert_eq!(success_text(&messages), "The tool said: counter is now 10");
    assert_eq!(lab.counter(), 10);
    assert_eq!(
        w.tool_results(),
        [tr("toolu_e2e_manifest", "counter is now 10", false)]
    );
    w.assert_offline();
    let messages = mcp_messages(&seen.lock().unwrap());
    Some((parked, messages))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_manifests_the_cli_skips_the_handshake_and_the_tool_still_works() {
    let test = "with_manifests_the_cli_skips_the_handshake";
    let Some((parked, messages)) = one_call(test, true, None).await else {
        return;
    };
    assert_eq!(parked, json!({"e2e": "parked"}));
    // No initialize, notifications/initialized or tools/list: only the call itself.
    assert_eq!(methods(&messages), ["tools/call"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_manifests_the_cli_handshakes_over_mcp_message() {
    let test = "without_manifests_the_cli_handshakes";
    let Some((parked, messages)) = one_call(test, false, None).await else {
        return;
    };
    assert_eq!(parked, Value::Null);
    assert_eq!(
        methods(&messages),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manifest_marked_modern_still_gets_2025_11_25() {
    let test = "a_manifest_marked_modern_still_gets_2025_11_25";
    let marked = Arc::new(Mutex::new(Vec::new()));
    let Some((parked, messages)) = one_call(test, true, Some(marked.clone())).await else {
        return;
    };
    // The host's initialize went out with the mark…
    let marked = marked.lock().unwrap();
    assert_eq!(marked.len(), 1, "{marked:#?}");
    let entry = &marked[0]["request"]["sdkMcpServerManifests"]["e2e"];
    assert_eq!(entry["modern"], true, "{entry:#}");
    assert_eq!(entry["initializeResult"]["protocolVersion"], "2025-11-25");
    // …the entry was taken (the CLI copies only `initializeResult` and `toolsListResult` of it)…
    assert_eq!(parked, json!({"e2e": "parked"}));
    assert_eq!(methods(&messages), ["tools/call"], "{messages:#?}");
    // …and the call is a 2025-11-25 one: no `_meta` revision, as a 2026-07-28 client sends on
    // every request.
    for message in &messages {
        assert!(
            message["params"]["_meta"]
                .get("io.modelcontextprotocol/protocolVersion")
                .is_none(),
            "a 2026-07-28 request: {message:#}"
        );
    }
}
