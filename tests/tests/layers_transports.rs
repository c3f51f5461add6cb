//! The layers a server holds (`ToolServer::layer`, `ToolServer::request_layer`) apply on every
//! transport it is served on: the Claude Code CLI's control protocol (in-process, `mcp_message`
//! over a memory pipe), stdio, and Streamable HTTP with and without sessions, where the caller
//! the auth hook names reaches them.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use claude_tools::layer::{McpRequest, ToolRequest};
use claude_tools::mcp::http::{AuthDecision, HttpServer, bearer_token_of};
use claude_tools::tools::{ToolDefBuilder, ToolResult, ToolServer};
use claude_tools::transport::{MemoryCli, MemoryTransport};
use claude_tools::{Client, Options};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tower::{Service, layer::layer_fn};

const WAIT: Duration = Duration::from_secs(10);

type Boxed<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

/// A policy: `drop_table` only for `admin` (refused to anonymous callers and everyone else).
#[derive(Clone)]
struct AdminOnly<S>(S);

impl<S> Service<ToolRequest> for AdminOnly<S>
where
    S: Service<ToolRequest, Response = ToolResult>,
    S::Future: Send + 'static,
{
    type Response = ToolResult;
    type Error = S::Error;
    type Future = Boxed<ToolResult, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: ToolRequest) -> Self::Future {
        if request.name() == "drop_table" && request.principal() != Some("admin") {
            let who = request.principal().unwrap_or("anonymous").to_string();
            let refused = ToolResult::error(format!("drop_table is refused to {who}"));
            return Box::pin(async move { Ok(refused) });
        }
        Box::pin(self.0.call(request))
    }
}

/// Records every request's method and caller.
#[derive(Clone)]
struct Seen<S> {
    inner: S,
    seen: Arc<Mutex<Vec<String>>>,
}

impl<S: Service<McpRequest>> Service<McpRequest> for Seen<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> S::Future {
        let caller = request.principal().unwrap_or("anonymous");
        let entry = format!("{} by {caller}", request.method());
        self.seen.lock().unwrap().push(entry);
        self.inner.call(request)
    }
}

fn server(seen: &Arc<Mutex<Vec<String>>>) -> ToolServer {
    let seen = seen.clone();
    ToolServer::new("layered", "1.0.0")
        .with_typed_tool("drop_table", || async { "dropped" })
        .unwrap()
        .with_tool(ToolDefBuilder::new("slow"), |call| async move {
            tokio::select! {
                () = call.context().cancelled() => "cancelled",
                () = tokio::time::sleep(Duration::from_secs(3600)) => "finished",
            }
        })
        .unwrap()
        .layer(layer_fn(AdminOnly))
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_millis(
            200,
        )))
        .request_layer(layer_fn(move |inner| Seen {
            inner,
            seen: seen.clone(),
        }))
}

fn tools_call(id: u32, tool: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}})
        .to_string()
}

/// The text of a `tools/call` answer's result, and whether it is an `isError`.
fn outcome(answer: &str) -> (String, bool) {
    let answer: Value = serde_json::from_str(answer).unwrap_or_else(|e| panic!("{e}: {answer}"));
    let result = &answer["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (text.to_string(), result["isError"] == json!(true))
}

const REFUSED_ANONYMOUS: (&str, bool) = ("drop_table is refused to anonymous", true);
const TIMED_OUT: (&str, bool) = (
    "Tool `slow` timed out: it was stopped before it finished",
    true,
);

fn owned((text, is_error): (&str, bool)) -> (String, bool) {
    (text.to_string(), is_error)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_control_protocol_runs_calls_through_the_layers() {
    let seen = Arc::default();
    let (transport, mut cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(
        Options::new().mcp_server(server(&seen)),
        transport,
    ));
    let initialize = next_json(&mut cli).await;
    cli.write_json(
        &json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": initialize["request_id"], "response": {}}}),
    )
    .await
    .unwrap();
    let _client = tokio::time::timeout(WAIT, connecting)
        .await
        .expect("connected in time")
        .unwrap()
        .expect("connected");

    for (n, (tool, expected)) in [("drop_table", REFUSED_ANONYMOUS), ("slow", TIMED_OUT)]
        .into_iter()
        .enumerate()
    {
        let request_id = format!("layers-{n}");
        cli.write_line(&format!(
            r#"{{"type":"control_request","request_id":"{request_id}","request":{{"subtype":"mcp_message","server_name":"layered","message":{}}}}}"#,
            tools_call(n as u32, tool)
        ))
        .await
        .unwrap();
        let frame = next_json(&mut cli).await;
        assert_eq!(frame["response"]["request_id"], request_id, "{frame}");
        let answer = frame["response"]["response"]["mcp_response"].to_string();
        assert_eq!(outcome(&answer), owned(expected), "{tool}: {frame}");
    }
    assert_eq!(
        *seen.lock().unwrap(),
        ["tools/call by anonymous", "tools/call by anonymous"]
    );
}

async fn next_json(cli: &mut MemoryCli) -> Value {
    tokio::time::timeout(WAIT, cli.next_json())
        .await
        .expect("a line from the host in time")
        .unwrap()
        .expect("the host is alive")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_runs_calls_through_the_layers() {
    let seen = Arc::default();
    let (client, server_side) = tokio::io::duplex(1 << 16);
    let (from_client, to_client) = tokio::io::split(server_side);
    tokio::spawn(
        claude_tools::mcp::stdio::serve(server(&seen), from_client, to_client).into_future(),
    );
    let (from_server, mut to_server) = tokio::io::split(client);
    let mut lines = BufReader::new(from_server).lines();
    for (n, (tool, expected)) in [("drop_table", REFUSED_ANONYMOUS), ("slow", TIMED_OUT)]
        .into_iter()
        .enumerate()
    {
        let message = format!("{}\n", tools_call(n as u32, tool));
        to_server.write_all(message.as_bytes()).await.unwrap();
        let answer = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("the server is alive");
        assert_eq!(outcome(&answer), owned(expected), "{tool}: {answer}");
    }
    assert_eq!(
        *seen.lock().unwrap(),
        ["tools/call by anonymous", "tools/call by anonymous"]
    );
}

/// An HTTP server whose auth hook names the bearer token's owner as the principal.
async fn http(sessions: bool, seen: &Arc<Mutex<Vec<String>>>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let serve = HttpServer::new(server(seen))
        .sessions(sessions)
        .authorize(|headers| {
            let token = bearer_token_of(headers).map(str::to_owned);
            async move {
                match token.as_deref() {
                    Some("admin-token") => AuthDecision::Allow.principal("admin"),
                    Some("guest-token") => AuthDecision::Allow.principal("guest"),
                    _ => AuthDecision::Deny,
                }
            }
        })
        .serve(listener);
    tokio::spawn(serve.into_future());
    format!("http://{addr}/mcp")
}

async fn post(
    url: &str,
    token: &str,
    session: Option<&str>,
    body: String,
) -> (Option<String>, String) {
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(WAIT)
        .build()
        .unwrap();
    let mut request = http
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"))
        .body(body);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("an HTTP answer");
    assert_eq!(response.status(), 200);
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|value| value.to_str().ok())
        .map(String::from);
    let body = response.text().await.expect("a body");
    // An SSE body's last event's data, or the JSON body.
    let answer = body
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("data:"))
        .map_or(body.clone(), |data| data.trim_start().to_string());
    (session, answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_runs_calls_through_the_layers_with_the_auth_hooks_principal() {
    for sessions in [false, true] {
        let seen = Arc::default();
        let url = http(sessions, &seen).await;
        let mut session_of = std::collections::HashMap::new();
        for token in ["guest-token", "admin-token"] {
            if sessions {
                let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25"}});
                let (session, _) = post(&url, token, None, initialize.to_string()).await;
                session_of.insert(token, session.expect("a session id"));
            }
        }
        let call = |token: &'static str, id: u32, tool: &'static str| {
            let session = session_of.get(token).cloned();
            let url = url.clone();
            async move {
                post(&url, token, session.as_deref(), tools_call(id, tool))
                    .await
                    .1
            }
        };
        let guest = call("guest-token", 1, "drop_table").await;
        assert_eq!(
            outcome(&guest),
            owned(("drop_table is refused to guest", true)),
            "sessions {sessions}: {guest}"
        );
        let admin = call("admin-token", 2, "drop_table").await;
        assert_eq!(outcome(&admin), owned(("dropped", false)), "{admin}");
        let slow = call("admin-token", 3, "slow").await;
        assert_eq!(outcome(&slow), owned(TIMED_OUT), "{slow}");
        let mut expected = Vec::new();
        if sessions {
            expected.extend(["initialize by guest", "initialize by admin"]);
        }
        expected.extend([
            "tools/call by guest",
            "tools/call by admin",
            "tools/call by admin",
        ]);
        assert_eq!(*seen.lock().unwrap(), expected, "sessions {sessions}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_at_2026_runs_calls_through_the_layers_with_the_auth_hooks_principal() {
    let seen = Arc::default();
    let url = http(false, &seen).await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "drop_table", "_meta": meta}});
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(WAIT)
        .build()
        .unwrap();
    let response = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", "Bearer guest-token")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "drop_table")
        .body(message.to_string())
        .send()
        .await
        .expect("an HTTP answer");
    let body = response.text().await.unwrap();
    let answer = body
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("data:"))
        .map_or(body.clone(), |data| data.trim_start().to_string());
    assert_eq!(
        outcome(&answer),
        owned(("drop_table is refused to guest", true)),
        "{answer}"
    );
    assert_eq!(*seen.lock().unwrap(), ["tools/call by guest"]);
}
