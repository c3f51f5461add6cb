//! What the session tests share: the CLI's end of an in-memory transport with bounded waits,
//! connecting a `Client` over it, the frames the CLI writes back, and reading the message stream.
//!
//! Each integration test file is its own crate and uses a part of this module, so the items
//! not every file uses say so with `#[allow(dead_code)]`. A file adds its own wire steps (an
//! MCP startup, a cancel) in an `impl Cli` block of its own.

use std::time::Duration;

use claude_tools_core::tool::ToolCall;
use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::Options;
use claude_tools_runtime::transport::{MemoryCli, MemoryTransport};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// How long a test waits for the host before it fails instead of hanging.
pub const WAIT: Duration = Duration::from_secs(10);

/// The CLI's end of the wire, with timeouts so a broken host fails instead of hanging.
pub struct Cli(pub MemoryCli);

impl Cli {
    /// The next line the host wrote, as JSON.
    pub async fn recv(&mut self) -> Value {
        match tokio::time::timeout(WAIT, self.0.next_json()).await {
            Ok(Ok(Some(value))) => value,
            other => panic!("expected a line from the host, got {other:?}"),
        }
    }

    /// The next line, which must come within `within`.
    #[allow(dead_code)]
    pub async fn recv_within(&mut self, within: Duration) -> Value {
        match tokio::time::timeout(within, self.0.next_json()).await {
            Ok(Ok(Some(value))) => value,
            other => panic!("expected a line from the host within {within:?}, got {other:?}"),
        }
    }

    /// The next line the host wrote, as text.
    #[allow(dead_code)]
    pub async fn recv_line(&mut self) -> String {
        match tokio::time::timeout(WAIT, self.0.next_line()).await {
            Ok(Ok(Some(line))) => line,
            other => panic!("expected a line from the host, got {other:?}"),
        }
    }

    /// Reads past other lines to the host's `control_request` of `subtype`, and returns it.
    #[allow(dead_code)]
    pub async fn recv_request(&mut self, subtype: &str) -> Value {
        loop {
            let line = self.recv().await;
            if line["request"]["subtype"] == subtype {
                return line;
            }
        }
    }

    pub async fn send(&mut self, value: Value) {
        self.0.write_json(&value).await.unwrap();
    }

    #[allow(dead_code)]
    pub async fn send_line(&mut self, line: &str) {
        self.0.write_line(line).await.unwrap();
    }

    /// Answers the host's control `request` with success and `response`.
    pub async fn answer(&mut self, request: &Value, response: Value) {
        self.send(
            json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": request["request_id"], "response": response}}),
        )
        .await;
    }

    /// Asserts the host writes nothing for `ms`.
    #[allow(dead_code)]
    pub async fn silent_for(&mut self, ms: u64) {
        if let Ok(line) = tokio::time::timeout(Duration::from_millis(ms), self.0.next_json()).await
        {
            panic!("expected silence, got {line:?}");
        }
    }

    /// Asserts the host closed stdin.
    #[allow(dead_code)]
    pub async fn expect_eof(&mut self) {
        match tokio::time::timeout(WAIT, self.0.next_json()).await {
            Ok(Ok(None)) => {}
            other => panic!("expected stdin to be closed, got {other:?}"),
        }
    }
}

/// A `Client::connect_with` under way: the CLI's side plays the startup, then
/// [`Connecting::client`] waits for the connected client.
pub struct Connecting(JoinHandle<Result<Client, Error>>);

impl Connecting {
    /// Starts connecting a client with `options` over a fresh in-memory transport.
    pub fn start(options: Options) -> (Connecting, Cli) {
        let (transport, cli) = MemoryTransport::pair();
        let connecting = tokio::spawn(Client::connect_with(options, transport));
        (Connecting(connecting), Cli(cli))
    }

    /// The client, once the startup is over; fails the test if it does not connect in time.
    pub async fn client(self) -> Client {
        tokio::time::timeout(WAIT, self.0)
            .await
            .expect("connected in time")
            .expect("the connect task ran")
            .expect("connected")
    }
}

/// Connects a client to a CLI that answers `initialize` at once with `{}`.
#[allow(dead_code)]
pub async fn connect_answering_initialize(options: Options) -> (Client, Cli) {
    let (connecting, mut cli) = Connecting::start(options);
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    (connecting.client().await, cli)
}

/// The next item on the message stream (`None` once it ended), within [`WAIT`].
#[allow(dead_code)]
pub async fn next_item(client: &mut Client) -> Option<Result<Message, Error>> {
    tokio::time::timeout(WAIT, client.next_message())
        .await
        .expect("an item in time")
}

/// The next item on the message stream, which must not have ended.
#[allow(dead_code)]
pub async fn expect_item(client: &mut Client) -> Result<Message, Error> {
    match tokio::time::timeout(WAIT, client.next_message()).await {
        Ok(Some(item)) => item,
        other => panic!("expected an item on the message stream, got {other:?}"),
    }
}

/// A `result` frame that ends a run.
#[allow(dead_code)]
pub fn result_frame() -> Value {
    json!({"type": "result", "subtype": "success", "is_error": false, "duration_ms": 10, "duration_api_ms": 5,
        "num_turns": 1, "session_id": "s1", "result": "done", "total_cost_usd": 0.0, "usage": {}})
}

/// The host's success answer to control request `request_id`.
#[allow(dead_code)]
pub fn success(request_id: &str, response: Value) -> Value {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": request_id,
        "response": response}})
}

/// The host's error answer to control request `request_id`.
#[allow(dead_code)]
pub fn failure(request_id: &str, error: &str) -> Value {
    json!({"type": "control_response", "response": {"subtype": "error", "request_id": request_id,
        "error": error}})
}

/// The host's answer to an `mcp_message` request, carrying the JSON-RPC `reply`.
#[allow(dead_code)]
pub fn mcp_answer(request_id: &str, reply: Value) -> Value {
    success(request_id, json!({"mcp_response": reply}))
}

/// The host's answer to a `tools/call` with JSON-RPC id `id`: one text block.
#[allow(dead_code)]
pub fn tool_text(request_id: &str, id: u64, text: &str, is_error: bool) -> Value {
    mcp_answer(
        request_id,
        json!({"jsonrpc": "2.0", "id": id,
            "result": {"content": [{"type": "text", "text": text}], "isError": is_error}}),
    )
}

/// A tool call's argument `name` as text: empty when missing or not a string.
#[allow(dead_code)]
pub fn string_argument(call: &mut ToolCall, name: &str) -> String {
    call.take_argument(name)
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// A tool call's argument `name` as a whole number: 0 when missing or not one.
#[allow(dead_code)]
pub fn u64_argument(call: &mut ToolCall, name: &str) -> u64 {
    call.take_argument(name)
        .and_then(|v| v.as_u64())
        .unwrap_or(0)
}
