//! The MCP server of the interop tests (tests/tests/interop_*.rs, tests/tests/e2e/interop_cli.rs):
//! a plain tool (`shout`), a tool that asks the user before it acts (`deploy`, a named question,
//! so at MCP 2026-07-28 an `input_required` round trip), and a `tools/list` a client may cache
//! (`ttlMs` 60 000, `public`), and a tool that changes the tool list (`unlock` adds `vault`: a
//! client listening at 2026-07-28 gets `notifications/tools/list_changed` on its listen
//! stream). Over stdio by default, over stateless Streamable HTTP with `--http` (`--sessions`
//! turns sessions on for 2025-11-25 clients), printing its URL on the first line. With
//! `--skills` it serves the skill `loud-greeting` (compiled in with `include_skill!`).
//!
//! With `--log FILE` it appends one JSON line to `FILE` per request or notification it was sent,
//! with its answer: the server's own view of the traffic, so that a test can say which methods a
//! client used (`server/discover` and no `initialize`), at which revision, and which rounds a
//! call took. Over stdio the log is kept by a wrapper around the process's stdin and stdout;
//! over HTTP by a middleware around the served router. Each line is an [`Exchange`].

use std::collections::HashMap;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use claude_tools::ToolServerHandle;
use claude_tools::mcp::http::HttpServer;
use claude_tools::mcp::http::axum;
use claude_tools::mcp::{CacheHint, CacheableMethod, Elicitation};
use claude_tools::prelude::*;
use claude_tools::tools::ToolDefBuilder;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tool_server(name = "interop", version = "1.0.0")]
struct Interop;

/// Shout a text back.
#[tool(server = Interop, read_only)]
async fn shout(
    /// What to shout
    text: String,
) -> String {
    format!("{}!", text.to_uppercase())
}

/// The user's go-ahead for a deployment.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Go ahead?
    approve: bool,
    /// A note for the deploy log
    note: Option<String>,
}

/// Deploy a service, once the user has confirmed.
#[tool(server = Interop, destructive)]
async fn deploy(
    ctx: ToolContext,
    /// The service to deploy
    service: String,
) -> Result<String, ToolError> {
    let question = format!("Deploy {service} to production?");
    let answer = ctx.question("confirm").elicit::<Confirm>(question).await?;
    Ok(match answer {
        Elicitation::Accepted(Confirm {
            approve: true,
            note,
        }) => format!(
            "deployed {service} ({})",
            note.unwrap_or_else(|| "no note".into())
        ),
        Elicitation::Accepted(Confirm { approve: false, .. }) => {
            format!("kept {service}: not approved")
        }
        Elicitation::Declined => format!("kept {service}: declined"),
        Elicitation::Cancelled => format!("kept {service}: cancelled"),
    })
}

/// The served tool set's handle, set once the transport exists (`unlock` needs the handle of
/// the server that serves it).
#[derive(Default)]
struct Slot(OnceLock<ToolServerHandle>);

impl Slot {
    fn handle(&self) -> Result<&ToolServerHandle, ToolError> {
        self.0
            .get()
            .ok_or_else(|| ToolError::new("the server is not serving yet"))
    }
}

/// The tool [`unlock`] adds.
const VAULT: &str = "vault";

/// Unlock the vault: adds the tool `vault` to the served list (a list change).
#[tool(server = Interop)]
async fn unlock(slot: State<Slot>) -> Result<String, ToolError> {
    let handle = slot.handle()?;
    if handle.enabled_tools().iter().any(|name| name == VAULT) {
        return Ok(format!("{VAULT} was unlocked already"));
    }
    let mut def = ToolDefBuilder::new(VAULT);
    def.description("Open the vault (added by unlock).")
        .read_only(true);
    handle
        .add_typed_tool(def, || async { "the vault is open" })
        .map_err(|error| ToolError::new(format!("could not add {VAULT}: {error}")))?;
    Ok(format!("unlocked {VAULT}"))
}

/// How long a client may keep `tools/list` (and that anyone's cache may): what the interop
/// tests expect the clients to read.
const TOOLS_LIST_TTL: Duration = Duration::from_secs(60);

/// Whether the server serves the `loud-greeting` skill (`--skills`), compiled in from
/// `tests/skills/loud-greeting`: it tells the model to use `shout`.
static SKILLS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn server(slot: Arc<Slot>) -> ToolServer {
    let server = Interop::server()
        .with_cache_hint(
            CacheableMethod::ToolsList,
            CacheHint::public(TOOLS_LIST_TTL),
        )
        .with_shared_state(slot);
    if !SKILLS.load(std::sync::atomic::Ordering::Relaxed) {
        return server;
    }
    match server.with_skill(claude_tools::include_skill!("skills/loud-greeting")) {
        Ok(server) => server,
        Err(error) => {
            eprintln!("interop-mcp: {error}");
            std::process::exit(2);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The traffic log.

/// One message a client sent and what the server answered, as logged.
#[derive(Serialize, Default, Clone)]
struct Exchange {
    /// The process that served it (a client may probe on a process of its own).
    pid: u32,
    /// `stdio` or `http`.
    transport: &'static str,
    /// Who sent the message: `client` (a request or notification, with the server's answer
    /// below; or a response to the server's own request) or `server` (a request or notification
    /// of the server's own: `elicitation/create` on a 2025-11-25 connection, a listen stream's
    /// notifications at 2026-07-28).
    from: &'static str,
    /// `request`, `notification` or `response` (a client's answer to a server's request).
    kind: &'static str,
    /// The JSON-RPC method (`None` for a message that has none: a client's response).
    method: Option<String>,
    /// `params.name`, for the methods that name a tool or prompt.
    name: Option<String>,
    /// `params.uri`, for the methods that name a resource or a skill.
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    /// The revision the message claimed: `_meta["io.modelcontextprotocol/protocolVersion"]`,
    /// else `initialize`'s `params.protocolVersion`, else the `MCP-Protocol-Version` header.
    revision: Option<String>,
    /// Whether the message carried `params.inputResponses` (an MRTR retry).
    input_responses: bool,
    /// Whether it carried `params.requestState`.
    request_state: bool,
    /// The HTTP status of the answer (HTTP only).
    status: Option<u16>,
    /// The answer's `result.resultType`, `"result"` for a result without one, or `"error"`.
    outcome: Option<String>,
    /// The answer's error code, when it is an error.
    error_code: Option<i64>,
}

/// What the log reads of a JSON-RPC message (a request, a notification or a response); a line
/// that is not one reads as a message with nothing in it.
#[derive(Deserialize, Default)]
struct Message {
    /// A request's or response's id (a string or a number), as JSON text once read.
    id: Option<Value>,
    method: Option<String>,
    #[serde(default)]
    params: Params,
    result: Option<Answered>,
    error: Option<Failed>,
}

#[derive(Deserialize, Default)]
struct Params {
    name: Option<String>,
    /// `resources/read`'s, `skills/get`'s.
    uri: Option<String>,
    /// `initialize`'s.
    #[serde(rename = "protocolVersion")]
    protocol_version: Option<String>,
    #[serde(rename = "_meta", default)]
    meta: Meta,
    #[serde(rename = "inputResponses")]
    input_responses: Option<serde::de::IgnoredAny>,
    #[serde(rename = "requestState")]
    request_state: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize, Default)]
struct Meta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<String>,
}

#[derive(Deserialize)]
struct Answered {
    #[serde(rename = "resultType")]
    result_type: Option<String>,
}

#[derive(Deserialize)]
struct Failed {
    code: i64,
}

impl Message {
    fn read(bytes: &[u8]) -> Self {
        serde_json::from_slice(bytes).unwrap_or_default()
    }

    /// What kind of message it is.
    fn kind(&self) -> &'static str {
        match (&self.method, self.waiting_key()) {
            (Some(_), Some(_)) => "request",
            (Some(_), None) => "notification",
            (None, _) => "response",
        }
    }

    /// The id as a key of the requests waiting for their answer (`None` for a notification).
    fn waiting_key(&self) -> Option<String> {
        self.id
            .as_ref()
            .filter(|id| !id.is_null())
            .map(Value::to_string)
    }
}

impl Exchange {
    /// What a message the client sent (one line of stdio, one POST body) says of itself.
    fn sent_by_client(
        transport: &'static str,
        message: &Message,
        header_revision: Option<String>,
    ) -> Self {
        let params = &message.params;
        let revision = params
            .meta
            .protocol_version
            .clone()
            .or_else(|| params.protocol_version.clone())
            .or(header_revision);
        Exchange {
            pid: std::process::id(),
            transport,
            from: "client",
            kind: message.kind(),
            method: message.method.clone(),
            name: params.name.clone(),
            uri: params.uri.clone(),
            revision,
            input_responses: params.input_responses.is_some(),
            request_state: params.request_state.is_some(),
            ..Exchange::default()
        }
    }

    /// A request or notification the server sent the client.
    fn sent_by_server(transport: &'static str, message: &Message) -> Self {
        Exchange {
            pid: std::process::id(),
            transport,
            from: "server",
            kind: message.kind(),
            method: message.method.clone(),
            ..Exchange::default()
        }
    }

    /// Records the answer `reply` (one JSON-RPC response).
    fn answered(&mut self, reply: &Message) {
        if let Some(error) = &reply.error {
            self.outcome = Some("error".into());
            self.error_code = Some(error.code);
        } else if let Some(result) = &reply.result {
            self.outcome = Some(result.result_type.as_deref().unwrap_or("result").to_owned());
        }
    }
}

/// The log file, shared by the tasks that write to it.
#[derive(Clone)]
struct Log(Option<Arc<Mutex<std::fs::File>>>);

impl Log {
    fn open(path: Option<PathBuf>) -> std::io::Result<Self> {
        let Some(path) = path else {
            return Ok(Log(None));
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        Ok(Log(Some(Arc::new(Mutex::new(file)))))
    }

    fn write(&self, exchange: &Exchange) {
        let Some(file) = &self.0 else {
            return;
        };
        let Ok(mut line) = serde_json::to_vec(exchange) else {
            return;
        };
        line.push(b'\n');
        // One write per line on an O_APPEND file: lines of two processes do not interleave.
        if let Ok(mut file) = file.lock() {
            let _ = file.write_all(&line);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// stdio: the server reads a pipe fed by a reader of the real stdin, and writes a pipe whose
// lines go to the real stdout; both log what passes.

/// Requests waiting for their answer, by their JSON-RPC id (as JSON text).
type Waiting = Arc<Mutex<HashMap<String, Exchange>>>;

async fn serve_stdio(log: Log) -> std::io::Result<()> {
    let (to_server, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, from_server) = tokio::io::duplex(1 << 20);
    let waiting: Waiting = Arc::default();

    let inbound = {
        let (log, waiting) = (log.clone(), waiting.clone());
        tokio::spawn(async move {
            let mut to_server = to_server;
            let mut lines = BufReader::new(tokio::io::stdin()).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let message = Message::read(line.as_bytes());
                let exchange = Exchange::sent_by_client("stdio", &message, None);
                // A listen stream's answer comes only when it ends, if ever (a client closes
                // it by cancelling): logged as it opens.
                let listen = message.method.as_deref() == Some("subscriptions/listen");
                match message
                    .waiting_key()
                    .filter(|_| message.method.is_some() && !listen)
                {
                    Some(key) => {
                        if let Ok(mut waiting) = waiting.lock() {
                            waiting.insert(key, exchange);
                        }
                    }
                    // A notification (or a client's response, or a listen): no answer to wait for.
                    None => log.write(&exchange),
                }
                if to_server.write_all(line.as_bytes()).await.is_err()
                    || to_server.write_all(b"\n").await.is_err()
                {
                    break;
                }
            }
            // End of input: dropping the pipe lets the server finish and return.
        })
    };
    let outbound = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut lines = BufReader::new(from_server).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message = Message::read(line.as_bytes());
            if message.method.is_some() {
                log.write(&Exchange::sent_by_server("stdio", &message));
            } else if let Some(key) = message.waiting_key() {
                let answered = waiting
                    .lock()
                    .ok()
                    .and_then(|mut waiting| waiting.remove(&key));
                if let Some(mut exchange) = answered {
                    exchange.answered(&message);
                    log.write(&exchange);
                }
            }
            if stdout.write_all(line.as_bytes()).await.is_err()
                || stdout.write_all(b"\n").await.is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });

    let (from_client, to_client) = (server_in, server_out);
    let slot = Arc::new(Slot::default());
    let serving = claude_tools::mcp::serve(server(slot.clone()), from_client, to_client);
    let _ = slot.0.set(serving.tool_server_handle());
    serving.await?;
    let _ = inbound.await;
    let _ = outbound.await;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// HTTP: the served router behind a middleware that reads each POST's body, and its answer as
// it streams through (an SSE answer may carry the server's own requests, at 2025-11-25 with
// sessions, which the client must see before the call can end).

/// Request bodies the middleware reads whole (those of these tests are small).
const MAX_LOGGED_BODY: usize = 8 << 20;

async fn log_exchange(
    axum::extract::State(log): axum::extract::State<Log>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::body::{Body, to_bytes};
    use axum::response::IntoResponse as _;
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(body) = to_bytes(body, MAX_LOGGED_BODY).await else {
        return axum::http::StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let header_revision = parts
        .headers
        .get("mcp-protocol-version")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let mut exchange = Exchange::sent_by_client("http", &Message::read(&body), header_revision);
    let response = next
        .run(axum::extract::Request::from_parts(parts, Body::from(body)))
        .await;
    let (parts, body) = response.into_parts();
    exchange.status = Some(parts.status.as_u16());
    let logged = LoggedAnswer {
        inner: body.into_data_stream(),
        seen: Vec::new(),
        exchange: Some(exchange),
        log,
    };
    axum::response::Response::from_parts(parts, Body::from_stream(logged))
}

/// An answer's body on its way to the client, logged with its request when it ends (or is
/// dropped, the client gone).
struct LoggedAnswer {
    inner: axum::body::BodyDataStream,
    seen: Vec<u8>,
    exchange: Option<Exchange>,
    log: Log,
}

impl LoggedAnswer {
    fn finish(&mut self) {
        let Some(mut exchange) = self.exchange.take() else {
            return;
        };
        // A JSON answer, or an SSE stream: its server requests, then its last `data:`, the answer.
        let text = String::from_utf8_lossy(&self.seen);
        let messages: Vec<Message> = match serde_json::from_str::<Message>(&text) {
            Ok(message) => vec![message],
            Err(_) => text
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Message>(data.trim()).ok())
                .collect(),
        };
        for message in messages.iter().filter(|message| message.method.is_some()) {
            self.log.write(&Exchange::sent_by_server("http", message));
        }
        if let Some(reply) = messages.iter().rfind(|message| message.method.is_none()) {
            exchange.answered(reply);
        }
        self.log.write(&exchange);
    }
}

impl futures_core::Stream for LoggedAnswer {
    type Item = Result<axum::body::Bytes, axum::Error>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        let polled = std::pin::Pin::new(&mut self.inner).poll_next(cx);
        match &polled {
            std::task::Poll::Ready(Some(Ok(chunk))) => self.seen.extend_from_slice(chunk),
            std::task::Poll::Ready(None) => self.finish(),
            _ => {}
        }
        polled
    }
}

impl Drop for LoggedAnswer {
    fn drop(&mut self) {
        self.finish();
    }
}

async fn serve_http(log: Log, sessions: bool) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}/mcp", listener.local_addr()?);
    let slot = Arc::new(Slot::default());
    let http = HttpServer::new(server(slot.clone())).sessions(sessions);
    let _ = slot.0.set(http.tool_server_handle());
    let router = http
        .into_router()
        .layer(axum::middleware::from_fn_with_state(log, log_exchange));
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(claude_tools::mcp::shutdown_signal())
    .await
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut http, mut sessions, mut log_path) = (false, false, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--http" => http = true,
            "--sessions" => sessions = true,
            "--skills" => SKILLS.store(true, std::sync::atomic::Ordering::Relaxed),
            "--log" => log_path = args.next().map(PathBuf::from),
            other => {
                eprintln!(
                    "interop-mcp: unknown argument {other:?} (usage: [--http [--sessions]] [--skills] [--log FILE])"
                );
                std::process::exit(2);
            }
        }
    }
    let log = Log::open(log_path)?;
    if http {
        serve_http(log, sessions).await
    } else {
        serve_stdio(log).await
    }
}
