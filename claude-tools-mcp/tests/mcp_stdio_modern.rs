//! MCP 2026-07-28 over stdio: the first request chooses the era, `server/discover` chooses
//! nothing, the other era is refused afterwards, and listen streams share the output with the
//! answers.

use std::time::Duration;

use claude_tools::mcp::stdio::serve;
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf};

const WAIT: Duration = Duration::from_secs(10);

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn modern(id: Value, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

struct Peer {
    input: tokio::io::WriteHalf<DuplexStream>,
    output: Lines<BufReader<ReadHalf<DuplexStream>>>,
    handle: claude_tools::mcp::ToolServerHandle,
}

impl Peer {
    fn start() -> Peer {
        let server = ToolServer::new("stdio-modern", "1.0.0")
            .with_tool(ToolDefBuilder::new("hello"), |_| async { "hi" })
            .unwrap();
        let (client, server_side) = tokio::io::duplex(1 << 16);
        let (from_client, to_client) = tokio::io::split(server_side);
        let serving = serve(server, from_client, to_client);
        let handle = serving.tool_server_handle();
        tokio::spawn(serving.into_future());
        let (output, input) = tokio::io::split(client);
        Peer {
            input,
            output: BufReader::new(output).lines(),
            handle,
        }
    }

    async fn send(&mut self, message: Value) {
        self.input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    async fn line(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.output.next_line())
            .await
            .expect("a line in time")
            .unwrap()
            .expect("the server is alive");
        serde_json::from_str(&line).unwrap()
    }

    async fn nothing_for(&mut self, wait: Duration) {
        if let Ok(line) = tokio::time::timeout(wait, self.output.next_line()).await {
            panic!("unexpected: {line:?}");
        }
    }
}

#[tokio::test]
async fn discover_chooses_nothing_and_the_first_real_request_chooses_the_era() {
    // A 2025 client that probes first, as the Claude Code CLI does, then falls back.
    let mut legacy = Peer::start();
    legacy
        .send(modern(json!(1), "server/discover", json!({})))
        .await;
    assert_eq!(
        legacy.line().await["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    legacy
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}))
        .await;
    assert_eq!(
        legacy.line().await["result"]["protocolVersion"],
        "2025-11-25"
    );
    legacy.send(modern(json!(3), "tools/list", json!({}))).await;
    assert_eq!(
        legacy.line().await["error"]["code"],
        -32600,
        "a modern request, refused"
    );

    let mut modern_peer = Peer::start();
    modern_peer
        .send(modern(json!(1), "tools/call", json!({"name": "hello"})))
        .await;
    let reply = modern_peer.line().await;
    assert_eq!(reply["result"]["resultType"], "complete");
    modern_peer
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
                     "params": {"protocolVersion": "2025-11-25"}}))
        .await;
    assert_eq!(modern_peer.line().await["error"]["code"], -32022);
}

#[tokio::test]
async fn a_listen_stream_shares_stdout_and_a_cancellation_closes_it() {
    let mut peer = Peer::start();
    peer.send(modern(
        json!("sub"),
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true}}),
    ))
    .await;
    let ack = peer.line().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    peer.handle
        .add_typed_tool("added", || async { "x" })
        .unwrap();
    assert_eq!(
        peer.line().await,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
               "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": "sub"}}})
    );
    // Requests are answered beside it.
    peer.send(modern(json!(5), "tools/list", json!({}))).await;
    assert_eq!(peer.line().await["result"]["tools"][0]["name"], "added");
    // A second stream with the same id is refused; then the first is cancelled: no more of it.
    peer.send(modern(
        json!("sub"),
        "subscriptions/listen",
        json!({"notifications": {}}),
    ))
    .await;
    assert_eq!(peer.line().await["error"]["code"], -32600);
    peer.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": "sub"}}),
    )
    .await;
    // The cancellation is taken in order with the lines: the change after it is not sent.
    peer.send(modern(json!(6), "tools/list", json!({}))).await;
    assert!(peer.line().await["result"].is_object());
    peer.handle.remove_tool("added").unwrap();
    peer.nothing_for(Duration::from_millis(100)).await;
}
