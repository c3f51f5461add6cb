//! The Streamable HTTP bench's client side (feature `http`): the MCP handshake a real client
//! does, and a closed-loop load generator over C keep-alive connections that checks every
//! answer. Each call adds two integers through one of three methods ([`Method`]): a
//! `tools/call` of `add(a, b)`, a `prompts/get` of the `sum` prompt (its arguments as strings),
//! or a `resources/read` of `bench://sum/{a}/{b}` (issue 22).
//!
//! Run it on a current-thread tokio runtime: one thread drives every connection (one
//! `epoll_wait` serves all C sockets), so it needs one core at most and can be pinned away from
//! the server.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde_json::Value;

use crate::http_client::{Connection, Response, sse_json_data};
use crate::stats::Phase;
use crate::wire::JsonRpcReply;

/// The protocol revision the bench's client asks for (every server under test supports it).
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// Where a server under test listens.
#[derive(Debug, Clone)]
pub struct Endpoint {
    /// Its address.
    pub addr: SocketAddr,
    /// The MCP path (`/mcp`).
    pub path: String,
}

impl Endpoint {
    /// Parses `http://<ip>:<port><path>`, the line each bench server prints once it listens.
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let rest = url
            .trim()
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url:?} is not an http:// URL"))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let addr = authority
            .parse()
            .map_err(|_| format!("{url:?}: {authority:?} is not an IP address and port"))?;
        Ok(Endpoint {
            addr,
            path: path.to_string(),
        })
    }
}

/// What the handshake learnt about a server.
#[derive(Debug, Clone, PartialEq)]
pub struct Handshake {
    /// `serverInfo.name`.
    pub server_name: String,
    /// `Content-Type` of the `initialize` reply.
    pub content_type: String,
}

/// The terms of call `index` (the same sequence for every server).
pub fn call_args(index: u64) -> (i64, i64) {
    let a = index as i64 * 3 - 1_000;
    let b = (index % 97) as i64 - 50;
    (a, b)
}

/// What each call asks the server: the same two numbers added, through one MCP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Method {
    /// `tools/call` of the `add` tool (integer arguments, the sum as text).
    Tool,
    /// `prompts/get` of the `sum` prompt (its two arguments as strings, as MCP sends prompt
    /// arguments), answered with one text message [`prompt_text`].
    Prompt,
    /// `resources/read` of `bench://sum/{a}/{b}` (a resource template), answered with the sum as
    /// text.
    Resource,
}

impl Method {
    /// Every method, in report order.
    pub const ALL: [Method; 3] = [Method::Tool, Method::Prompt, Method::Resource];

    /// Its name on the command line and in the results: `tool`, `prompt` or `resource`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Tool => "tool",
            Method::Prompt => "prompt",
            Method::Resource => "resource",
        }
    }

    /// The method named `name` (see [`Method::name`]).
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Its JSON-RPC method.
    pub fn json_rpc(self) -> &'static str {
        match self {
            Method::Tool => "tools/call",
            Method::Prompt => "prompts/get",
            Method::Resource => "resources/read",
        }
    }
}

/// The URI template of the bench's resource.
pub const RESOURCE_TEMPLATE: &str = "bench://sum/{a}/{b}";

/// The text of the `sum` prompt's one message for `a` and `b` (the servers' prompt writes it).
pub fn prompt_text(a: i64, b: i64) -> String {
    format!("What is {a} + {b}? It is {}.", a.wrapping_add(b))
}

/// The URI of the bench's resource for `a` and `b`.
fn resource_uri(out: &mut Vec<u8>, a: i64, b: i64) {
    use std::io::Write;
    let _ = write!(out, "bench://sum/{a}/{b}");
}

/// The JSON-RPC body of call `id` of `method` with `a` and `b`.
fn call_body(out: &mut Vec<u8>, method: Method, id: u64, a: i64, b: i64) {
    use std::io::Write;
    out.clear();
    let _ = match method {
        Method::Tool => write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":{a},"b":{b}}}}}}}"#
        ),
        Method::Prompt => write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"prompts/get","params":{{"name":"sum","arguments":{{"a":"{a}","b":"{b}"}}}}}}"#
        ),
        Method::Resource => {
            let _ = write!(
                out,
                r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/read","params":{{"uri":""#
            );
            resource_uri(out, a, b);
            write!(out, r#""}}}}"#)
        }
    };
}

/// The JSON-RPC message of a reply: the body itself, or the reply event of an SSE stream.
fn reply_bytes<'a>(response: &'a Response<'_>, sse: &'a mut Vec<u8>) -> Result<&'a [u8], String> {
    match response.content_type.as_str() {
        "application/json" => Ok(response.body),
        "text/event-stream" => {
            *sse = sse_json_data(response.body).ok_or_else(|| {
                format!(
                    "an SSE reply without a JSON-RPC reply event: {:?}",
                    String::from_utf8_lossy(response.body)
                )
            })?;
            Ok(sse)
        }
        other => Err(format!(
            "status {}, Content-Type {other:?}: {:?}",
            response.status,
            String::from_utf8_lossy(response.body)
        )),
    }
}

/// Checks the reply to call `id` of `method` with `a` and `b`: status 200, the same id, no
/// error, and the sum: for `tools/call` not `isError` and a first text block that reads `a + b`;
/// for `prompts/get` a first message whose text content is [`prompt_text`]; for
/// `resources/read` first contents of the URI asked for, whose text reads `a + b`.
pub fn check_call(
    response: &Response<'_>,
    method: Method,
    id: u64,
    a: i64,
    b: i64,
) -> Result<(), String> {
    if response.status != 200 {
        return Err(format!(
            "call {id}: status {}: {:?}",
            response.status,
            String::from_utf8_lossy(response.body)
        ));
    }
    let mut sse = Vec::new();
    let bytes = reply_bytes(response, &mut sse).map_err(|e| format!("call {id}: {e}"))?;
    let reply: JsonRpcReply<'_> = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "call {id}: not a JSON-RPC reply ({e}): {:?}",
            String::from_utf8_lossy(bytes)
        )
    })?;
    if reply.id != Some(id as i64) {
        return Err(format!("call {id}: reply has id {:?}", reply.id));
    }
    if let Some(error) = reply.error {
        return Err(format!("call {id}: JSON-RPC error {}", error.get()));
    }
    let result = reply
        .result
        .ok_or_else(|| format!("call {id}: no result"))?;
    let sum = a.wrapping_add(b);
    match method {
        Method::Tool => {
            if result.is_error == Some(true) {
                return Err(format!(
                    "call {id}: isError: {:?}",
                    String::from_utf8_lossy(bytes)
                ));
            }
            let text = result
                .content
                .as_ref()
                .and_then(|c| c.first())
                .filter(|block| block.kind == "text")
                .and_then(|block| block.text.as_deref())
                .ok_or_else(|| format!("call {id}: no text content"))?;
            if text.trim().parse::<i64>().ok() != Some(sum) {
                return Err(format!("call {id}: add({a}, {b}) answered {text:?}"));
            }
        }
        Method::Prompt => {
            let text = result
                .messages
                .as_ref()
                .and_then(|m| m.first())
                .filter(|m| m.content.kind == "text")
                .and_then(|m| m.content.text.as_deref())
                .ok_or_else(|| {
                    format!(
                        "call {id}: no message with text content: {:?}",
                        String::from_utf8_lossy(bytes)
                    )
                })?;
            if text != prompt_text(a, b) {
                return Err(format!("call {id}: prompt sum({a}, {b}) answered {text:?}"));
            }
        }
        Method::Resource => {
            let contents = result
                .contents
                .as_ref()
                .and_then(|c| c.first())
                .ok_or_else(|| {
                    format!(
                        "call {id}: no contents: {:?}",
                        String::from_utf8_lossy(bytes)
                    )
                })?;
            let mut uri = Vec::with_capacity(32);
            resource_uri(&mut uri, a, b);
            if contents.uri.as_bytes() != uri.as_slice() {
                return Err(format!(
                    "call {id}: read {:?}, answered contents of {:?}",
                    String::from_utf8_lossy(&uri),
                    contents.uri
                ));
            }
            let text = contents.text.as_deref().unwrap_or_default();
            if text.trim().parse::<i64>().ok() != Some(sum) {
                return Err(format!(
                    "call {id}: resource {} answered {text:?}",
                    contents.uri
                ));
            }
        }
    }
    Ok(())
}

/// The whole JSON-RPC reply to a request, as a value, with the response's content type.
async fn request(conn: &mut Connection, body: &str) -> Result<(Value, String), String> {
    let response = conn
        .post_json(body.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    if let Some(session) = &response.session_id {
        return Err(format!(
            "the server issued Mcp-Session-Id {session:?}: it is not in stateless mode"
        ));
    }
    if response.status != 200 {
        return Err(format!(
            "status {}: {:?}",
            response.status,
            String::from_utf8_lossy(response.body)
        ));
    }
    let mut sse = Vec::new();
    let bytes = reply_bytes(&response, &mut sse)?;
    let value: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    if let Some(error) = value.get("error") {
        return Err(format!("JSON-RPC error {error}"));
    }
    Ok((value, response.content_type.clone()))
}

/// The MCP handshake as a client does it, on one connection: `initialize` (checking the
/// negotiated version and that no session id is issued), `notifications/initialized` (202, no
/// body), then `tools/list`, checking that `add` is listed with integer `a` and `b` in its input
/// schema; when `methods` has [`Method::Prompt`], `prompts/list`, checking that `sum` is listed
/// with arguments `a` and `b`; when it has [`Method::Resource`], `resources/templates/list`,
/// checking that [`RESOURCE_TEMPLATE`] is listed.
pub async fn handshake(endpoint: &Endpoint, methods: &[Method]) -> Result<Handshake, String> {
    let mut conn = Connection::connect(endpoint.addr, &endpoint.path)
        .await
        .map_err(|e| format!("connecting to {}: {e}", endpoint.addr))?;
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"ct-bench","version":"1.0.0"}}}}}}"#
    );
    let (reply, content_type) = request(&mut conn, &init)
        .await
        .map_err(|e| format!("initialize: {e}"))?;
    let version = reply["result"]["protocolVersion"].as_str();
    if version != Some(PROTOCOL_VERSION) {
        return Err(format!(
            "initialize: protocolVersion {version:?}, expected {PROTOCOL_VERSION:?}: {reply}"
        ));
    }
    let server_name = reply["result"]["serverInfo"]["name"]
        .as_str()
        .unwrap_or("")
        .to_string();
    conn.set_header("MCP-Protocol-Version", PROTOCOL_VERSION);
    let response = conn
        .post_json(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await
        .map_err(|e| format!("notifications/initialized: {e}"))?;
    if response.status != 202 {
        return Err(format!(
            "notifications/initialized: status {} (expected 202): {:?}",
            response.status,
            String::from_utf8_lossy(response.body)
        ));
    }
    let (list, _) = request(
        &mut conn,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
    )
    .await
    .map_err(|e| format!("tools/list: {e}"))?;
    let add = list["result"]["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "add"))
        .ok_or_else(|| format!("tools/list: no tool `add`: {list}"))?;
    let properties = &add["inputSchema"]["properties"];
    for term in ["a", "b"] {
        if properties[term]["type"] != "integer" {
            return Err(format!(
                "tools/list: `add` has no integer `{term}` in its input schema: {add}"
            ));
        }
    }
    if methods.contains(&Method::Prompt) {
        let (list, _) = request(
            &mut conn,
            r#"{"jsonrpc":"2.0","id":2,"method":"prompts/list","params":{}}"#,
        )
        .await
        .map_err(|e| format!("prompts/list: {e}"))?;
        let sum = list["result"]["prompts"]
            .as_array()
            .and_then(|prompts| prompts.iter().find(|p| p["name"] == "sum"))
            .ok_or_else(|| format!("prompts/list: no prompt `sum`: {list}"))?;
        for term in ["a", "b"] {
            let listed = sum["arguments"]
                .as_array()
                .is_some_and(|args| args.iter().any(|arg| arg["name"] == term));
            if !listed {
                return Err(format!(
                    "prompts/list: `sum` has no argument `{term}`: {sum}"
                ));
            }
        }
    }
    if methods.contains(&Method::Resource) {
        let (list, _) = request(
            &mut conn,
            r#"{"jsonrpc":"2.0","id":3,"method":"resources/templates/list","params":{}}"#,
        )
        .await
        .map_err(|e| format!("resources/templates/list: {e}"))?;
        let listed = list["result"]["resourceTemplates"]
            .as_array()
            .is_some_and(|templates| {
                templates
                    .iter()
                    .any(|t| t["uriTemplate"] == RESOURCE_TEMPLATE)
            });
        if !listed {
            return Err(format!(
                "resources/templates/list: no template {RESOURCE_TEMPLATE:?}: {list}"
            ));
        }
    }
    Ok(Handshake {
        server_name,
        content_type,
    })
}

/// What one measured phase gave.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Latencies and throughput.
    pub phase: Phase,
    /// Every `Content-Type` the replies came with.
    pub content_types: BTreeSet<String>,
}

/// C keep-alive connections to one server, each making one call at a time (closed loop).
pub struct Load {
    endpoint: Endpoint,
    conns: Vec<Connection>,
    /// Ids already used (each call gets a fresh one).
    next_id: u64,
}

impl Load {
    /// Opens `concurrency` connections, each sending `MCP-Protocol-Version` as a client does
    /// after the handshake.
    pub async fn connect(endpoint: &Endpoint, concurrency: usize) -> Result<Load, String> {
        let mut conns = Vec::with_capacity(concurrency);
        for _ in 0..concurrency {
            let mut conn = Connection::connect(endpoint.addr, &endpoint.path)
                .await
                .map_err(|e| format!("connecting to {}: {e}", endpoint.addr))?;
            conn.set_header("MCP-Protocol-Version", PROTOCOL_VERSION);
            conns.push(conn);
        }
        Ok(Load {
            endpoint: endpoint.clone(),
            conns,
            next_id: 1_000,
        })
    }

    /// Makes `calls` calls of `method` spread over the connections as each becomes free,
    /// checking every reply; the first wrong one fails the phase.
    pub async fn run(&mut self, method: Method, calls: u64) -> Result<Measured, String> {
        let first_id = self.next_id;
        self.next_id += calls;
        let taken = Arc::new(AtomicU64::new(0));
        let started = Instant::now();
        let mut tasks = tokio::task::JoinSet::new();
        for mut conn in self.conns.drain(..) {
            let taken = Arc::clone(&taken);
            tasks.spawn(async move {
                let mut latencies = Vec::new();
                let mut content_types = BTreeSet::new();
                let mut body = Vec::with_capacity(256);
                loop {
                    let index = taken.fetch_add(1, Ordering::Relaxed);
                    if index >= calls {
                        break;
                    }
                    let id = first_id + index;
                    let (a, b) = call_args(id);
                    call_body(&mut body, method, id, a, b);
                    let sent = Instant::now();
                    let response = match conn.post_json(&body).await {
                        Ok(response) => response,
                        Err(e) => return Err(format!("call {id}: {e}")),
                    };
                    latencies.push(sent.elapsed().as_nanos() as u64);
                    check_call(&response, method, id, a, b)?;
                    if !content_types.contains(&response.content_type) {
                        content_types.insert(response.content_type.clone());
                    }
                }
                Ok((conn, latencies, content_types))
            });
        }
        let mut latencies = Vec::with_capacity(calls as usize);
        let mut content_types = BTreeSet::new();
        let mut failure = None;
        while let Some(joined) = tasks.join_next().await {
            match joined {
                Ok(Ok((conn, lat, types))) => {
                    self.conns.push(conn);
                    latencies.extend(lat);
                    content_types.extend(types);
                }
                Ok(Err(e)) => {
                    failure.get_or_insert(e);
                }
                Err(e) => {
                    failure.get_or_insert(format!("connection task: {e}"));
                }
            }
        }
        let wall_ns = started.elapsed().as_nanos() as u64;
        if let Some(e) = failure {
            return Err(format!("{}: {e}", self.endpoint.addr));
        }
        let in_flight = self.conns.len() as u64;
        Ok(Measured {
            phase: Phase::from_latencies(&mut latencies, in_flight, wall_ns),
            content_types,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response<'a>(status: u16, content_type: &str, body: &'a [u8]) -> Response<'a> {
        Response {
            status,
            content_type: content_type.into(),
            session_id: None,
            body,
        }
    }

    #[test]
    fn endpoints_parse_from_the_servers_line() {
        let e = Endpoint::parse("http://127.0.0.1:4321/mcp\n").unwrap();
        assert_eq!((e.addr.port(), e.path.as_str()), (4321, "/mcp"));
        assert!(Endpoint::parse("https://127.0.0.1:1/mcp").is_err());
        assert!(Endpoint::parse("http://localhost:1/mcp").is_err());
    }

    #[test]
    fn call_bodies_are_json_rpc() {
        let mut body = Vec::new();
        call_body(&mut body, Method::Tool, 7, -3, 4);
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":-3,"b":4}}})
        );
        call_body(&mut body, Method::Prompt, 8, -3, 4);
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"sum","arguments":{"a":"-3","b":"4"}}})
        );
        call_body(&mut body, Method::Resource, 9, -3, -40);
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"bench://sum/-3/-40"}})
        );
    }

    #[test]
    fn methods_have_names_and_json_rpc_methods() {
        for m in Method::ALL {
            assert_eq!(Method::from_name(m.name()), Some(m));
        }
        assert_eq!(Method::from_name("prompts/get"), None);
        assert_eq!(
            Method::ALL.map(Method::json_rpc),
            ["tools/call", "prompts/get", "resources/read"]
        );
        assert_eq!(prompt_text(-3, 4), "What is -3 + 4? It is 1.");
    }

    #[test]
    fn prompt_replies_are_checked_to_the_sum() {
        let check = |body: &[u8], id| {
            check_call(
                &response(200, "application/json", body),
                Method::Prompt,
                id,
                -3,
                4,
            )
        };
        let ok = br#"{"jsonrpc":"2.0","id":7,"result":{"description":"Ask for the sum of two integers.","messages":[{"role":"user","content":{"type":"text","text":"What is -3 + 4? It is 1."}}]}}"#;
        assert_eq!(check(ok, 7), Ok(()));
        assert_eq!(check(ok, 8), Err("call 8: reply has id Some(7)".into()));
        let wrong_sum = br#"{"jsonrpc":"2.0","id":7,"result":{"messages":[{"role":"user","content":{"type":"text","text":"What is -3 + 4? It is 2."}}]}}"#;
        assert_eq!(
            check(wrong_sum, 7),
            Err(r#"call 7: prompt sum(-3, 4) answered "What is -3 + 4? It is 2.""#.into())
        );
        // A tool's answer is no prompt's.
        let tool = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"1"}]}}"#;
        assert!(
            check(tool, 7)
                .unwrap_err()
                .starts_with("call 7: no message with text content")
        );
        let image = br#"{"jsonrpc":"2.0","id":7,"result":{"messages":[{"role":"user","content":{"type":"image","data":"","mimeType":"image/png"}}]}}"#;
        assert!(
            check(image, 7)
                .unwrap_err()
                .starts_with("call 7: no message with text content")
        );
        let error = br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad a"}}"#;
        assert_eq!(
            check(error, 7),
            Err(r#"call 7: JSON-RPC error {"code":-32602,"message":"bad a"}"#.into())
        );
    }

    #[test]
    fn resource_replies_are_checked_to_the_uri_and_the_sum() {
        let check = |body: &[u8], a, b| {
            check_call(
                &response(200, "application/json", body),
                Method::Resource,
                7,
                a,
                b,
            )
        };
        let ok = br#"{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"bench://sum/-3/-40","mimeType":"text/plain","text":"-43"}]}}"#;
        assert_eq!(check(ok, -3, -40), Ok(()));
        assert_eq!(
            check(ok, -3, 40),
            Err(
                r#"call 7: read "bench://sum/-3/40", answered contents of "bench://sum/-3/-40""#
                    .into()
            )
        );
        let wrong_sum = br#"{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"bench://sum/-3/-40","text":"43"}]}}"#;
        assert_eq!(
            check(wrong_sum, -3, -40),
            Err(r#"call 7: resource bench://sum/-3/-40 answered "43""#.into())
        );
        let blob = br#"{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"bench://sum/-3/-40","blob":"LTQz"}]}}"#;
        assert_eq!(
            check(blob, -3, -40),
            Err(r#"call 7: resource bench://sum/-3/-40 answered """#.into())
        );
        let empty = br#"{"jsonrpc":"2.0","id":7,"result":{"contents":[]}}"#;
        assert!(
            check(empty, -3, -40)
                .unwrap_err()
                .starts_with("call 7: no contents")
        );
        let not_found =
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32002,"message":"Resource not found"}}"#;
        assert!(
            check(not_found, -3, -40)
                .unwrap_err()
                .starts_with("call 7: JSON-RPC error")
        );
        assert_eq!(
            check_call(
                &response(404, "application/json", b"{}"),
                Method::Resource,
                7,
                -3,
                -40
            ),
            Err(r#"call 7: status 404: "{}""#.into())
        );
    }

    #[test]
    fn replies_are_checked_to_the_sum() {
        let ok = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"1"}],"isError":false}}"#;
        assert_eq!(
            check_call(
                &response(200, "application/json", ok),
                Method::Tool,
                7,
                -3,
                4
            ),
            Ok(())
        );
        let sse = b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"1\"}]}}\n\n";
        assert_eq!(
            check_call(
                &response(200, "text/event-stream", sse),
                Method::Tool,
                7,
                -3,
                4
            ),
            Ok(())
        );
        let wrong_sum =
            br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"2"}]}}"#;
        assert_eq!(
            check_call(
                &response(200, "application/json", wrong_sum),
                Method::Tool,
                7,
                -3,
                4
            ),
            Err(r#"call 7: add(-3, 4) answered "2""#.into())
        );
        assert_eq!(
            check_call(
                &response(200, "application/json", ok),
                Method::Tool,
                8,
                -3,
                4
            ),
            Err("call 8: reply has id Some(7)".into())
        );
        let is_error = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"1"}],"isError":true}}"#;
        assert!(
            check_call(
                &response(200, "application/json", is_error),
                Method::Tool,
                7,
                -3,
                4
            )
            .unwrap_err()
            .starts_with("call 7: isError")
        );
        let error = br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"no"}}"#;
        assert_eq!(
            check_call(
                &response(200, "application/json", error),
                Method::Tool,
                7,
                -3,
                4
            ),
            Err(r#"call 7: JSON-RPC error {"code":-32602,"message":"no"}"#.into())
        );
        assert_eq!(
            check_call(
                &response(406, "application/json", b"{}"),
                Method::Tool,
                7,
                -3,
                4
            ),
            Err(r#"call 7: status 406: "{}""#.into())
        );
        assert!(
            check_call(&response(200, "text/plain", ok), Method::Tool, 7, -3, 4)
                .unwrap_err()
                .contains("Content-Type \"text/plain\"")
        );
    }
}
