//! MCP 2026-07-28 over Streamable HTTP beside 2025-11-25 on the same endpoint, in raw HTTP/1.1:
//! the version header against `_meta`, `Mcp-Method` / `Mcp-Name`, the statuses of the modern
//! errors, progress on the call's own stream, and sessions kept for 2025 clients only.

mod common;

use std::net::SocketAddr;

use claude_tools::mcp::http::HttpServer;
use claude_tools::tools::{ToolDefBuilder, ToolServer};
use common::{exchange, request};
use serde_json::{Value, json};
use tokio::net::TcpListener;

const V: &str = "2026-07-28";

fn tools() -> ToolServer {
    let mut echo = ToolDefBuilder::new("echo");
    echo.input().property::<String>("text", None, true);
    ToolServer::new("modern-http", "1.0.0")
        .with_tool(echo, |mut call| async move {
            let text = call.take_argument("text").unwrap_or_default();
            format!("ECHO:{}", text.as_str().unwrap_or_default())
        })
        .unwrap()
        .with_tool(
            {
                let mut deploy = ToolDefBuilder::new("deploy");
                deploy
                    .input()
                    .property::<String>("region", None, true)
                    .header("region", "Region")
                    .property::<u32>("replicas", None, false)
                    .header("replicas", "Replicas");
                deploy
            },
            |mut call| async move {
                let region = call.take_argument("region").unwrap_or_default();
                format!("deployed to {}", region.as_str().unwrap_or_default())
            },
        )
        .unwrap()
        .with_tool(ToolDefBuilder::new("progress"), |call| async move {
            let context = call.context();
            context.report_progress(1.0, Some(2.0), Some("half"));
            tokio::task::yield_now().await;
            context.report_progress(2.0, Some(2.0), None);
            "done"
        })
        .unwrap()
}

async fn start(configure: impl FnOnce(HttpServer) -> HttpServer) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serve = configure(HttpServer::new(tools())).serve(listener);
    tokio::spawn(serve.into_future());
    addr
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    })
}

fn body(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The headers a 2026-07-28 client sends for `method` (and `name`).
fn headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", V),
        ("mcp-method", method),
    ];
    if let Some(name) = name {
        headers.push(("mcp-name", name));
    }
    headers
}

async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> common::Reply {
    exchange(addr, &request("POST", "/mcp", headers, body)).await
}

#[tokio::test]
async fn a_modern_call_is_served_statelessly_with_its_result_fields() {
    for sessions in [false, true] {
        let addr = start(|http| http.sessions(sessions)).await;
        let reply = post(
            addr,
            &headers("tools/call", Some("echo")),
            &body(
                1,
                "tools/call",
                json!({"name": "echo", "arguments": {"text": "hi"}}),
            ),
        )
        .await;
        assert_eq!(reply.status, 200, "{reply:?}");
        assert_eq!(reply.header("mcp-session-id"), None, "sessions {sessions}");
        assert_eq!(
            reply.json(),
            json!({"jsonrpc": "2.0", "id": 1, "result": {
                "content": [{"type": "text", "text": "ECHO:hi"}], "isError": false,
                "resultType": "complete",
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern-http", "version": "1.0.0"}},
            }})
        );
        let discover = post(
            addr,
            &headers("server/discover", None),
            &body(2, "server/discover", json!({})),
        )
        .await;
        assert_eq!(discover.status, 200);
        assert_eq!(discover.json()["result"]["supportedVersions"], json!([V]));
        assert_eq!(discover.header("mcp-session-id"), None);
    }
}

#[tokio::test]
async fn the_statuses_of_the_modern_errors() {
    let addr = start(|http| http).await;
    // A removed method and an unknown one: 404, -32601.
    for method in ["initialize", "ping", "frobnicate"] {
        let reply = post(addr, &headers(method, None), &body(1, method, json!({}))).await;
        assert_eq!(reply.status, 404, "{method}: {reply:?}");
        assert_eq!(reply.json()["error"]["code"], -32601);
        assert_eq!(reply.json()["id"], 1);
    }
    // The header says 2026-07-28 but there is no `_meta`: 400, -32602.
    let bare = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let reply = post(addr, &headers("tools/list", None), &bare).await;
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (400, json!(-32602))
    );
    // `_meta` claims 2026-07-28, the header says otherwise or nothing: 400, -32020.
    let list = body(3, "tools/list", json!({}));
    let mut other = headers("tools/list", None);
    other[2] = ("mcp-protocol-version", "2025-11-25");
    let reply = post(addr, &other, &list).await;
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let mut none = headers("tools/list", None);
    none.remove(2);
    let reply = post(addr, &none, &list).await;
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    // An unserved revision in both: 400, -32022 with what is served.
    let future = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2031-01-01",
        "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let mut future_headers = headers("tools/list", None);
    future_headers[2] = ("mcp-protocol-version", "2031-01-01");
    let reply = post(addr, &future_headers, &future).await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["code"], -32022);
    assert_eq!(reply.json()["error"]["data"]["supported"], json!([V]));
    // A `_meta` that is not an object, with the modern header: 400, -32602.
    let not_object =
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": 7}})
            .to_string();
    let reply = post(addr, &headers("tools/list", None), &not_object).await;
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (400, json!(-32602))
    );
    // A tool the server does not have: -32602 on a 200, as in the 2025 era.
    let reply = post(
        addr,
        &headers("tools/call", Some("nope")),
        &body(6, "tools/call", json!({"name": "nope"})),
    )
    .await;
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (200, json!(-32602))
    );
}

#[tokio::test]
async fn the_standard_headers_must_say_what_the_body_says() {
    let addr = start(|http| http).await;
    let call = body(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    for (method, name) in [
        ("tools/list", Some("echo")),
        ("tools/call", Some("other")),
        ("tools/call", None),
        ("TOOLS/CALL", Some("echo")),
        ("tools/call", Some("=?base64?not base64?=")),
    ] {
        let reply = post(addr, &headers(method, name), &call).await;
        assert_eq!(reply.status, 400, "{method} {name:?}: {reply:?}");
        assert_eq!(reply.json()["error"]["code"], -32020);
        assert_eq!(reply.json()["id"], 1);
    }
    let mut no_method = headers("tools/call", Some("echo"));
    no_method.remove(3);
    let reply = post(addr, &no_method, &call).await;
    assert_eq!(
        (reply.status, reply.json()["error"]["code"].clone()),
        (400, json!(-32020))
    );
    // The base64 form of the right name passes ("echo").
    let reply = post(
        addr,
        &headers("tools/call", Some("=?base64?ZWNobw==?=")),
        &call,
    )
    .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.json()["result"]["content"][0]["text"], "ECHO:x");
}

#[tokio::test]
async fn progress_goes_on_the_calls_own_stream_then_the_result() {
    let addr = start(|http| http).await;
    let mut params = json!({"name": "progress"});
    params["_meta"] = meta();
    params["_meta"]["progressToken"] = json!("p1");
    let call =
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}).to_string();
    let reply = post(addr, &headers("tools/call", Some("progress")), &call).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let events: Vec<Value> = reply
        .body
        .split("\n\n")
        .filter_map(|event| event.strip_prefix("event: message\ndata: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(events[0]["method"], "notifications/progress");
    assert_eq!(events[0]["params"]["progressToken"], "p1");
    assert_eq!(events[2]["id"], 9);
    assert_eq!(events[2]["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_2025_client_keeps_its_session_beside_modern_traffic() {
    let addr = start(|http| http.sessions(true)).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "old", "version": "1"}}})
    .to_string();
    let legacy_headers = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    let opened = post(addr, &legacy_headers, &init).await;
    assert_eq!(opened.status, 200);
    assert_eq!(opened.json()["result"]["protocolVersion"], "2025-11-25");
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_string();
    // A modern request naming the session is served statelessly, the session untouched.
    let mut modern_headers = headers("tools/list", None);
    modern_headers.push(("mcp-session-id", &session));
    let modern = post(addr, &modern_headers, &body(1, "tools/list", json!({}))).await;
    assert_eq!(modern.status, 200);
    assert_eq!(modern.json()["result"]["resultType"], "complete");
    assert_eq!(modern.header("mcp-session-id"), None);
    // The session still serves its client at 2025-11-25.
    let in_session = [
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-session-id", session.as_str()),
    ];
    let list = post(
        addr,
        &in_session,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    )
    .await;
    assert_eq!(list.status, 200, "{list:?}");
    assert!(list.json()["result"].get("resultType").is_none());
    assert_eq!(list.json()["result"]["tools"][1]["name"], "echo");
}

/// Opens a listen stream on `addr`: the response's head and the connection to read it on.
async fn open_listen(
    addr: SocketAddr,
    id: u64,
    notifications: Value,
) -> (u16, tokio::net::TcpStream, Vec<u8>) {
    use tokio::io::AsyncWriteExt;
    let body = body(
        id,
        "subscriptions/listen",
        json!({"notifications": notifications}),
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(&request(
            "POST",
            "/mcp",
            &headers("subscriptions/listen", None),
            &body,
        ))
        .await
        .unwrap();
    let (status, _headers, rest) = common::read_head(&mut stream).await;
    (status, stream, rest)
}

/// The JSON of the next SSE event on a listen stream (skipping keep-alive comments).
async fn next_event(stream: &mut tokio::net::TcpStream, buffered: &mut Vec<u8>) -> Option<Value> {
    loop {
        let chunk = common::next_chunk(stream, buffered).await?;
        if let Some(data) = chunk.strip_prefix("event: message\ndata: ") {
            return Some(serde_json::from_str(data.trim_end()).unwrap());
        }
    }
}

#[tokio::test]
async fn a_listen_stream_over_http_hears_list_changes_until_the_server_ends_it() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = HttpServer::new(tools()).max_listen_streams_per_client(2);
    let handle = server.tool_server_handle();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(
        server
            .serve(listener)
            // Long: the streams must end at the shutdown's start, not at the grace's end.
            .shutdown_grace(std::time::Duration::from_secs(30))
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .into_future(),
    );
    let (status, mut tools, mut tools_buffer) =
        open_listen(addr, 41, json!({"toolsListChanged": true})).await;
    assert_eq!(status, 200);
    let (_, mut prompts, mut prompts_buffer) =
        open_listen(addr, 42, json!({"promptsListChanged": true})).await;
    let ack = next_event(&mut tools, &mut tools_buffer).await.unwrap();
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        41
    );
    // The server has no prompt yet; its live handle may add one, so the stream is honoured.
    let ack = next_event(&mut prompts, &mut prompts_buffer).await.unwrap();
    assert_eq!(
        ack["params"]["notifications"],
        json!({"promptsListChanged": true})
    );
    // A third stream of the same client is one too many: 429 with the request's id.
    let (status, mut third, mut rest) = open_listen(addr, 43, json!({})).await;
    assert_eq!(status, 429);
    let _ = (&mut third, &mut rest);
    // Requests still flow beside the streams.
    let list = post(
        addr,
        &headers("tools/list", None),
        &body(1, "tools/list", json!({})),
    )
    .await;
    assert_eq!(list.status, 200);
    handle.add_typed_tool("added", || async { "new" }).unwrap();
    let changed = next_event(&mut tools, &mut tools_buffer).await.unwrap();
    assert_eq!(
        changed,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
               "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 41}}})
    );
    // The shutdown ends each stream with its result.
    let _ = stop.send(());
    let ended = next_event(&mut tools, &mut tools_buffer).await.unwrap();
    assert_eq!(ended["id"], 41);
    assert_eq!(ended["result"]["resultType"], "complete");
    assert_eq!(
        ended["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        41
    );
    let last = next_event(&mut prompts, &mut prompts_buffer).await.unwrap();
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert!(
        next_event(&mut tools, &mut tools_buffer).await.is_none(),
        "the stream ended"
    );
    tokio::time::timeout(common::WAIT, serving)
        .await
        .expect("the server stopped")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn header_carried_parameters_must_say_what_the_body_says() {
    let addr = start(|http| http).await;
    let call = |arguments: Value| {
        body(
            1,
            "tools/call",
            json!({"name": "deploy", "arguments": arguments}),
        )
    };
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut all = headers("tools/call", Some("deploy"));
        all.extend_from_slice(extra);
        all
    };
    // Agreeing, in plain text, in base64 ("eu-west"), an integer written another way.
    for (extra, arguments) in [
        (
            vec![("mcp-param-region", "eu-west")],
            json!({"region": "eu-west"}),
        ),
        (
            vec![("Mcp-Param-Region", "=?base64?ZXUtd2VzdA==?=")],
            json!({"region": "eu-west"}),
        ),
        (
            vec![
                ("mcp-param-region", "eu-west"),
                ("mcp-param-replicas", "007"),
            ],
            json!({"region": "eu-west", "replicas": 7}),
        ),
    ] {
        let reply = post(addr, &with(&extra), &call(arguments.clone())).await;
        assert_eq!(reply.status, 200, "{extra:?} {arguments}: {reply:?}");
        assert_eq!(
            reply.json()["result"]["content"][0]["text"],
            "deployed to eu-west"
        );
    }
    // Disagreeing, missing, bad base64, a header without its argument: 400, -32020.
    for (extra, arguments) in [
        (
            vec![("mcp-param-region", "us-east")],
            json!({"region": "eu-west"}),
        ),
        (vec![], json!({"region": "eu-west"})),
        (
            vec![("mcp-param-region", "=?base64?ZXUtd2VzdA?=")],
            json!({"region": "eu-west"}),
        ),
        (
            vec![("mcp-param-region", "=?base64?ZX!!d2VzdA==?=")],
            json!({"region": "eu-west"}),
        ),
        (
            vec![("mcp-param-region", "eu-west"), ("mcp-param-replicas", "3")],
            json!({"region": "eu-west"}),
        ),
        (
            vec![("mcp-param-region", "eu-west"), ("mcp-param-replicas", "8")],
            json!({"region": "eu-west", "replicas": 7}),
        ),
    ] {
        let reply = post(addr, &with(&extra), &call(arguments.clone())).await;
        assert_eq!(reply.status, 400, "{extra:?} {arguments}: {reply:?}");
        assert_eq!(reply.json()["error"]["code"], -32020);
    }
    // The schema says which parameters travel in headers.
    let list = post(
        addr,
        &headers("tools/list", None),
        &body(2, "tools/list", json!({})),
    )
    .await;
    let deploy = list.json()["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "deploy")
        .cloned()
        .unwrap();
    assert_eq!(
        deploy["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );
}

#[tokio::test]
async fn a_huge_meta_or_input_responses_is_bounded_like_any_body() {
    let addr = start(|http| http.max_body_size(64 * 1024)).await;
    let mut huge_meta = meta();
    huge_meta["padding"] = json!("x".repeat(100 * 1024));
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": huge_meta}})
    .to_string();
    let reply = post(addr, &headers("tools/list", None), &message).await;
    assert_eq!(reply.status, 413, "{reply:?}");
    let huge_answers = body(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"},
               "inputResponses": {"k": "y".repeat(100 * 1024)}}),
    );
    let reply = post(addr, &headers("tools/call", Some("echo")), &huge_answers).await;
    assert_eq!(reply.status, 413, "{reply:?}");
    // Under the cap, extra answers are ignored.
    let small = body(
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}, "inputResponses": {"k": "y"}}),
    );
    let reply = post(addr, &headers("tools/call", Some("echo")), &small).await;
    assert_eq!(reply.json()["result"]["content"][0]["text"], "ECHO:x");
}

/// A 2026-07-28 body whose `_meta` declares the tasks extension.
fn tasks_body(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = meta();
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

#[tokio::test]
async fn a_listen_stream_over_http_hears_the_tasks_it_follows() {
    let mut wait = ToolDefBuilder::new("wait");
    wait.task(claude_tools::tasks::TaskSupport::Required);
    let server = ToolServer::new("tasks-http", "1.0.0")
        .with_tool(wait, |call| async move {
            call.context().cancelled().await;
            "stopped"
        })
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(HttpServer::new(server).serve(listener).into_future());
    let created = post(
        addr,
        &headers("tools/call", Some("wait")),
        &tasks_body(1, "tools/call", json!({"name": "wait", "arguments": {}})),
    )
    .await
    .json();
    let id = created["result"]["taskId"]
        .as_str()
        .expect("a task")
        .to_string();

    use tokio::io::AsyncWriteExt;
    let listen = tasks_body(
        2,
        "subscriptions/listen",
        json!({"notifications": {"taskIds": [id]}}),
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(&request(
            "POST",
            "/mcp",
            &headers("subscriptions/listen", None),
            &listen,
        ))
        .await
        .unwrap();
    let (status, _headers, mut buffered) = common::read_head(&mut stream).await;
    assert_eq!(status, 200);
    let ack = next_event(&mut stream, &mut buffered).await.unwrap();
    assert_eq!(ack["params"]["notifications"], json!({"taskIds": [id]}));

    let cancel = post(
        addr,
        &headers("tasks/cancel", Some(&id)),
        &tasks_body(3, "tasks/cancel", json!({"taskId": id})),
    )
    .await;
    assert_eq!(cancel.status, 200, "{cancel:?}");
    let told = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        next_event(&mut stream, &mut buffered),
    )
    .await
    .expect("a notification")
    .unwrap();
    assert_eq!(told["method"], "notifications/tasks", "{told}");
    assert_eq!(told["params"]["taskId"], id.as_str());
    assert_eq!(told["params"]["status"], "cancelled");
    assert_eq!(
        told["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        2
    );
}
