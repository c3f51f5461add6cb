//! `Options::handshake_manifests` with the real CLI: the tools still work, and which MCP
//! messages still came over `mcp_message` (recorded from the CLI's stdout as it is read).

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
use tokio::io::{AsyncRead, ReadBuf};

use crate::harness::{success_text, tr, within, world};
use crate::tools;

/// The real CLI's process, with every byte it writes to stdout also kept in `seen`.
struct RecordingTransport {
    seen: Arc<Mutex<Vec<u8>>>,
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

/// The JSON-RPC methods of the `mcp_message` requests the CLI sent, in order.
fn mcp_methods(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|frame| frame["request"]["subtype"] == "mcp_message")
        .map(|frame| {
            let method = &frame["request"]["message"]["method"];
            method.as_str().unwrap_or_default().to_string()
        })
        .collect()
}

/// One tool call through a client with manifests `on`; returns the `initialize` answer's
/// `sdk_mcp_manifests_parked` and the `mcp_message` methods the host received.
async fn one_call(test: &str, on: bool) -> Option<(Value, Vec<String>)> {
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
    let transport = RecordingTransport { seen: seen.clone() };
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
    let methods = mcp_methods(&seen.lock().unwrap());
    Some((parked, methods))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_manifests_the_cli_skips_the_handshake_and_the_tool_still_works() {
    let test = "with_manifests_the_cli_skips_the_handshake";
    let Some((parked, methods)) = one_call(test, true).await else {
        return;
    };
    assert_eq!(parked, json!({"e2e": "parked"}));
    // No initialize, notifications/initialized or tools/list: only the call itself.
    assert_eq!(methods, ["tools/call"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_manifests_the_cli_handshakes_over_mcp_message() {
    let test = "without_manifests_the_cli_handshakes";
    let Some((parked, methods)) = one_call(test, false).await else {
        return;
    };
    assert_eq!(parked, Value::Null);
    assert_eq!(
        methods,
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "tools/call"
        ]
    );
}
