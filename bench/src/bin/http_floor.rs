//! `ct-bench-http-floor`: the Streamable HTTP bench's floor — a bare axum handler doing the
//! same JSON-RPC `add(a, b)` as the MCP servers of the bench, without MCP logic. It is what any
//! server answering this call as JSON-RPC over HTTP on axum must pay: hyper's HTTP/1.1, axum's
//! routing, reading the body, one typed serde parse and one small serialised answer.
//!
//! `POST /mcp` only. A `tools/call` of `add` is answered `200`, `content-type:
//! application/json`, with the bytes the claude-tools and rmcp servers answer:
//! `{"jsonrpc":"2.0","id":<id>,"result":{"content":[{"type":"text","text":"<a+b>"}],"isError":false}}`
//! (the id as the request wrote it); one whose `_meta` names MCP 2026-07-28 gets that result
//! with `"resultType":"complete"` and the `serverInfo` in its `_meta`, as those servers answer at
//! that revision (no header checked: the bare cost of the revision's bytes). Everything else gets the least the bench's load generator
//! accepts in its handshake: `initialize` a result with the protocol version asked for,
//! `tools/list` the `add` tool with integer `a` and `b`, a notification (no id) `202` with no
//! body, another method a JSON-RPC error, and a body that is not such a request `400`. No header
//! is checked (`Accept`, `MCP-Protocol-Version`, `Origin`), no session, no capabilities, no
//! tool registry, no schema: that is the MCP logic the floor leaves out.
//!
//! Binds `127.0.0.1:0` and prints `http://127.0.0.1:<port>/mcp` on stdout once it listens.
//! The runtime is tokio's default multi-thread one, as `#[tokio::main]` gives (the other Rust
//! servers of the bench use the same).

use std::borrow::Cow;
use std::io::Write as _;
use std::process::ExitCode;

use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::value::RawValue;

/// A JSON-RPC request or notification, as far as the floor reads it (unknown fields skipped).
#[derive(Deserialize)]
struct Request<'a> {
    /// Must be `2.0`.
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    /// The id, kept as written (absent on a notification).
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    /// `tools/call`, `initialize`, ...
    #[serde(borrow)]
    method: Cow<'a, str>,
    /// The params (`None` when absent).
    #[serde(borrow, default)]
    params: Option<Params<'a>>,
}

/// The params the floor reads: a `tools/call`'s name and arguments, an `initialize`'s protocol
/// version.
#[derive(Deserialize)]
struct Params<'a> {
    /// The tool's name.
    #[serde(borrow, default)]
    name: Option<Cow<'a, str>>,
    /// `add`'s arguments.
    #[serde(default)]
    arguments: Option<AddArgs>,
    /// The protocol version an `initialize` asks for.
    #[serde(rename = "protocolVersion", borrow, default)]
    protocol_version: Option<Cow<'a, str>>,
    /// An MCP 2026-07-28 request's envelope.
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<Meta<'a>>,
}

/// What the floor reads of a 2026-07-28 request's `_meta`: its revision, which decides the
/// result's form (`resultType` and the `serverInfo`, as the MCP servers of the bench write them).
#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<Cow<'a, str>>,
}

/// The arguments of `add`.
#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// `tools/list`'s result: the one tool, with its input schema.
const TOOLS: &str = r#"{"tools":[{"name":"add","description":"Add two integers.","inputSchema":{"type":"object","properties":{"a":{"type":"integer","description":"The first term"},"b":{"type":"integer","description":"The second term"}},"required":["a","b"]}}]}"#;

/// A `200` with `body` as `application/json`.
fn json(body: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `{"jsonrpc":"2.0","id":<id>,` then `rest` (which closes the object).
fn reply(id: &RawValue, rest: impl FnOnce(&mut Vec<u8>)) -> Response {
    let mut body = Vec::with_capacity(128);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    body.extend_from_slice(id.get().as_bytes());
    body.push(b',');
    rest(&mut body);
    json(body)
}

/// A JSON-RPC error reply to `id` (`null` when the request had none).
fn error(status: StatusCode, id: Option<&RawValue>, code: i32, message: &str) -> Response {
    let mut body = Vec::with_capacity(96);
    let id = id.map_or("null", RawValue::get);
    let _ = write!(
        body,
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#
    );
    (status, json(body)).into_response()
}

/// `POST /mcp`.
async fn mcp(body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Request<'_>>(&body) else {
        return error(StatusCode::BAD_REQUEST, None, -32700, "Parse error");
    };
    if request.jsonrpc != "2.0" {
        return error(
            StatusCode::BAD_REQUEST,
            request.id,
            -32600,
            "Invalid Request",
        );
    }
    let Some(id) = request.id else {
        // A notification: accepted, nothing to answer.
        return StatusCode::ACCEPTED.into_response();
    };
    let params = request.params;
    match &*request.method {
        "tools/call" => match params {
            Some(Params {
                name: Some(name),
                arguments: Some(AddArgs { a, b }),
                meta,
                ..
            }) if name == "add" => reply(id, |out| {
                let modern = meta
                    .and_then(|meta| meta.protocol_version)
                    .is_some_and(|version| version == "2026-07-28");
                let _ = if modern {
                    write!(
                        out,
                        r#""result":{{"content":[{{"type":"text","text":"{}"}}],"isError":false,"resultType":"complete","_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"bench","version":"1.0.0"}}}}}}}}"#,
                        a.wrapping_add(b)
                    )
                } else {
                    write!(
                        out,
                        r#""result":{{"content":[{{"type":"text","text":"{}"}}],"isError":false}}}}"#,
                        a.wrapping_add(b)
                    )
                };
            }),
            _ => error(StatusCode::OK, Some(id), -32602, "Invalid params"),
        },
        "initialize" => {
            let version = params
                .and_then(|p| p.protocol_version)
                .unwrap_or(Cow::Borrowed("2025-11-25"));
            reply(id, |out| {
                out.extend_from_slice(br#""result":{"protocolVersion":"#);
                let _ = serde_json::to_writer(&mut *out, &version);
                out.extend_from_slice(
                    br#","capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"1.0.0"}}}"#,
                );
            })
        }
        "tools/list" => reply(id, |out| {
            out.extend_from_slice(br#""result":"#);
            out.extend_from_slice(TOOLS.as_bytes());
            out.push(b'}');
        }),
        _ => error(StatusCode::OK, Some(id), -32601, "Method not found"),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    match serve().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ct-bench-http-floor: {e}");
            ExitCode::from(1)
        }
    }
}

async fn serve() -> std::io::Result<()> {
    let app = axum::Router::new().route("/mcp", axum::routing::post(mcp));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    println!("http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, app).await
}
