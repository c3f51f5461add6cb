//! The MCP router, message by message: every method and every error path, with the exact reply.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools_core::mcp::{LATEST_PROTOCOL_VERSION, McpRouter, RequestId, ServerNotification};
use claude_tools_core::tool::{
    Input, ToolCall, ToolContext, ToolDefBuilder, ToolError, ToolParam, ToolResult, ToolServer,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{Barrier, mpsc};

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

/// What the slow tools tell the test.
#[derive(Clone)]
struct Probes {
    /// A `cancelled` tool sends here once its token fired.
    observed_cancel: mpsc::UnboundedSender<Value>,
    /// Every slow tool sends its request id here once it runs.
    started: mpsc::UnboundedSender<Value>,
}

fn text(text: &str, is_error: bool) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": is_error})
}

fn server(probes: Probes) -> ToolServer {
    let mut echo = ToolDefBuilder::new("echo");
    echo.description("Echo the text back");
    echo.input()
        .property::<String>("text", Some("What to echo"), true);

    let mut add = ToolDefBuilder::new("add");
    add.read_only(true);
    add.input().flatten::<AddArgs>();

    let cancelled_probes = probes.clone();
    let rendezvous = Arc::new(Barrier::new(2));
    ToolServer::new("test", "1.2.3")
        .with_instructions("Use these tools for tests")
        .with_tool(echo, |mut call| async move {
            let text = call.take_argument("text").unwrap_or_default();
            format!("ECHO:{}", text.as_str().unwrap_or_default())
        })
        .unwrap()
        .with_tool(add, |mut call: ToolCall| async move {
            let Input(args) = Input::<AddArgs>::extract("input", &mut call)?;
            Ok::<_, ToolError>(args.a + args.b)
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("fail"), |_| async {
            Err::<String, _>(ToolError::new("disk on fire"))
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("boom"), |_| async {
            if true {
                panic!("kaboom");
            }
            "unreachable"
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("context"), |call| async move {
            let context = call.context();
            json!({
                "tool_use_id": context.tool_use_id(),
                "request_id": context.request_id(),
                "cancelled": context.is_cancelled(),
            })
            .to_string()
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("progress"), |call| async move {
            let context = call.context();
            context.report_progress(1.0, Some(2.0), Some("half"));
            context.report_progress(2.0, None, None);
            "done"
        })
        .unwrap()
        // Honours cancellation: a task it spawned sees the token fire.
        .with_tool(ToolDefBuilder::new("cancellable"), move |call| {
            let probes = cancelled_probes.clone();
            async move {
                let context = call.context().clone();
                let id = context
                    .request_id()
                    .map(RequestId::to_value)
                    .unwrap_or_default();
                let token = context.cancellation_token().clone();
                let observed = probes.observed_cancel.clone();
                let id_for_task = id.clone();
                tokio::spawn(async move {
                    token.cancelled().await;
                    let _ = observed.send(id_for_task);
                });
                let _ = probes.started.send(id);
                context.cancelled().await;
                "stopped"
            }
        })
        .unwrap()
        // Ignores cancellation entirely.
        .with_tool(ToolDefBuilder::new("stubborn"), move |call| {
            let started = probes.started.clone();
            async move {
                let _ = started.send(
                    call.context()
                        .request_id()
                        .map(RequestId::to_value)
                        .unwrap_or_default(),
                );
                std::future::pending::<()>().await;
                "never"
            }
        })
        .unwrap()
        // Finishes only when two calls run at the same time.
        .with_tool(ToolDefBuilder::new("rendezvous"), move |call| {
            let rendezvous = rendezvous.clone();
            async move {
                rendezvous.wait().await;
                format!(
                    "met {}",
                    call.context()
                        .request_id()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                )
            }
        })
        .unwrap()
}

struct Fixture {
    router: Arc<McpRouter>,
    observed_cancel: mpsc::UnboundedReceiver<Value>,
    started: mpsc::UnboundedReceiver<Value>,
    notifications: Arc<Mutex<Vec<Value>>>,
}

fn fixture() -> Fixture {
    let (observed_cancel, observed_rx) = mpsc::unbounded_channel();
    let (started, started_rx) = mpsc::unbounded_channel();
    let notifications = Arc::new(Mutex::new(Vec::new()));
    let sink = notifications.clone();
    let router = McpRouter::new(server(Probes {
        observed_cancel,
        started,
    }))
    .with_notifier(Arc::new(move |message: ServerNotification| {
        sink.lock().unwrap().push(message.to_value())
    }));
    Fixture {
        router: Arc::new(router),
        observed_cancel: observed_rx,
        started: started_rx,
        notifications,
    }
}

fn call(id: Value, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn err(id: Value, code: i64, message: &str, data: Option<&str>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = json!(data);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// What [`Answer::answer`] gives for a message the router does not answer (a notification, a
/// client's response): JSON-RPC answers none.
const ACK: fn() -> Value = || json!("(no answer)");

/// The router's answer to one message given as a `Value`, or [`ACK`]'s marker for none.
trait Answer {
    fn answer(&self, message: Value) -> impl std::future::Future<Output = Value> + Send;
}

impl Answer for McpRouter {
    fn answer(&self, message: Value) -> impl std::future::Future<Output = Value> + Send {
        let router = self.clone();
        async move { router.handle_json(message).await.unwrap_or_else(ACK) }
    }
}

#[tokio::test]
async fn every_method_and_error_path() {
    let f = fixture();
    let initialize_result = |version: &str| {
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}, "logging": {}},
            "serverInfo": {"name": "test", "version": "1.2.3"},
            "instructions": "Use these tools for tests"
        })
    };
    let table: Vec<(&str, Value, Value)> = vec![
        (
            "initialize, as the CLI sends it",
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "claude-code", "version": "2.1.330"}
            }}),
            ok(json!(0), initialize_result("2025-11-25")),
        ),
        (
            "initialize with an older supported version echoes it",
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05"}}),
            ok(json!(1), initialize_result("2024-11-05")),
        ),
        (
            "initialize with 2025-03-26",
            json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}}),
            ok(json!(2), initialize_result("2025-03-26")),
        ),
        (
            "initialize with 2025-06-18",
            json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}),
            ok(json!(3), initialize_result("2025-06-18")),
        ),
        (
            "initialize with an unknown version answers the latest",
            json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {"protocolVersion": "2099-01-01"}}),
            ok(json!("init"), initialize_result(LATEST_PROTOCOL_VERSION)),
        ),
        (
            "initialize without params answers the latest",
            json!({"jsonrpc": "2.0", "id": 4, "method": "initialize"}),
            ok(json!(4), initialize_result("2025-11-25")),
        ),
        (
            "notifications/initialized gets the placeholder",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ACK(),
        ),
        (
            "any other notification gets the placeholder",
            json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed", "params": {}}),
            ACK(),
        ),
        (
            "an unknown notification gets the placeholder",
            json!({"jsonrpc": "2.0", "method": "something/else"}),
            ACK(),
        ),
        (
            "a notifications/ method with an id is a request for a method the server lacks",
            json!({"jsonrpc": "2.0", "id": 5, "method": "notifications/initialized"}),
            err(
                json!(5),
                -32601,
                "Method not found",
                Some("notifications/initialized"),
            ),
        ),
        (
            "cancelling an unknown id is a no-op",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 999, "reason": "x"}}),
            ACK(),
        ),
        (
            "a cancellation without requestId is a no-op",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled"}),
            ACK(),
        ),
        (
            "a tools/call notification does not run",
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "boom"}}),
            ACK(),
        ),
        (
            "ping",
            json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
            ok(json!(6), json!({})),
        ),
        (
            "ping with a string id",
            json!({"jsonrpc": "2.0", "id": "p-1", "method": "ping", "params": {}}),
            ok(json!("p-1"), json!({})),
        ),
        (
            "unknown method",
            json!({"jsonrpc": "2.0", "id": 7, "method": "resources/list"}),
            err(json!(7), -32601, "Method not found", Some("resources/list")),
        ),
        (
            "not an object",
            json!([{"jsonrpc": "2.0", "id": 8, "method": "ping"}]),
            err(
                Value::Null,
                -32600,
                "Invalid Request",
                Some(
                    "a JSON-RPC batch (an array) is not supported: MCP removed batches in \
                     2025-06-18; send one message at a time",
                ),
            ),
        ),
        (
            "a string",
            json!("ping"),
            err(
                Value::Null,
                -32600,
                "Invalid Request",
                Some("a JSON-RPC message must be a JSON object"),
            ),
        ),
        (
            "no method",
            json!({"jsonrpc": "2.0", "id": 9}),
            err(
                json!(9),
                -32600,
                "Invalid Request",
                Some("a request needs a `method` string"),
            ),
        ),
        (
            "a method that is not a string",
            json!({"jsonrpc": "2.0", "id": 10, "method": 3}),
            err(
                json!(10),
                -32600,
                "Invalid Request",
                Some("`method` must be a string"),
            ),
        ),
        (
            "a client's response is not answered",
            json!({"jsonrpc": "2.0", "result": {}}),
            ACK(),
        ),
        (
            "bad jsonrpc version",
            json!({"jsonrpc": "1.0", "id": 11, "method": "ping"}),
            err(
                json!(11),
                -32600,
                "Invalid Request",
                Some("`jsonrpc` must be \"2.0\""),
            ),
        ),
        (
            "missing jsonrpc",
            json!({"id": "x", "method": "ping"}),
            err(
                json!("x"),
                -32600,
                "Invalid Request",
                Some("`jsonrpc` must be \"2.0\""),
            ),
        ),
        (
            "an id that is an object",
            json!({"jsonrpc": "2.0", "id": {"n": 1}, "method": "ping"}),
            err(
                Value::Null,
                -32600,
                "Invalid Request",
                Some("`id` must be a string or a number"),
            ),
        ),
        (
            "a null id",
            json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
            err(
                Value::Null,
                -32600,
                "Invalid Request",
                Some("a request's `id` must be a string or a number, not null"),
            ),
        ),
        (
            "tools/call",
            call(json!(20), "echo", json!({"text": "hello"})),
            ok(json!(20), text("ECHO:hello", false)),
        ),
        (
            "tools/call with a whole-input struct",
            call(json!(21), "add", json!({"a": 2, "b": 40})),
            ok(json!(21), text("42", false)),
        ),
        (
            "tools/call of an unknown tool is a -32602 (MCP lists it among protocol errors)",
            call(json!(22), "nope", json!({})),
            err(
                json!(22),
                -32602,
                "Invalid params",
                Some("Tool `nope` not found on server `test`"),
            ),
        ),
        (
            "tools/call with an argument of the wrong type names it",
            call(json!(23), "add", json!({"a": 2, "b": "forty"})),
            ok(
                json!(23),
                text(
                    "Invalid arguments for tool `add`: argument `b`: invalid type: string \"forty\", expected i64",
                    true,
                ),
            ),
        ),
        (
            "tools/call with a missing argument names it",
            call(json!(24), "add", json!({"a": 2})),
            ok(
                json!(24),
                text(
                    "Invalid arguments for tool `add`: argument `b`: missing required argument",
                    true,
                ),
            ),
        ),
        (
            "tools/call with arguments that are not an object",
            call(json!(25), "add", json!([1, 2])),
            ok(
                json!(25),
                text(
                    "Invalid arguments for tool `add`: expected a JSON object, got an array",
                    true,
                ),
            ),
        ),
        (
            "tools/call without arguments",
            json!({"jsonrpc": "2.0", "id": 26, "method": "tools/call", "params": {"name": "echo"}}),
            ok(json!(26), text("ECHO:", false)),
        ),
        (
            "tools/call whose handler fails",
            call(json!(27), "fail", json!({})),
            ok(json!(27), text("disk on fire", true)),
        ),
        (
            "tools/call whose handler panics",
            call(json!(28), "boom", json!({})),
            ok(json!(28), text("tool `boom` panicked: kaboom", true)),
        ),
        (
            "tools/call without a name",
            json!({"jsonrpc": "2.0", "id": 29, "method": "tools/call", "params": {"arguments": {}}}),
            err(
                json!(29),
                -32602,
                "Invalid params",
                Some("tools/call needs `params.name`, the tool's name as a string"),
            ),
        ),
        (
            "tools/call without params",
            json!({"jsonrpc": "2.0", "id": 30, "method": "tools/call"}),
            err(
                json!(30),
                -32602,
                "Invalid params",
                Some("tools/call needs `params.name`, the tool's name as a string"),
            ),
        ),
        (
            "tools/call with a name that is not a string",
            json!({"jsonrpc": "2.0", "id": 31, "method": "tools/call", "params": {"name": 5}}),
            err(
                json!(31),
                -32602,
                "Invalid params",
                Some("tools/call needs `params.name`, the tool's name as a string"),
            ),
        ),
        (
            "tools/call passes the tool_use id and the request id",
            json!({"jsonrpc": "2.0", "id": 32, "method": "tools/call", "params": {
                "name": "context",
                "arguments": {},
                "_meta": {"claudecode/toolUseId": "toolu_01ABC", "progressToken": 32}
            }}),
            ok(
                json!(32),
                text(
                    r#"{"tool_use_id":"toolu_01ABC","request_id":32,"cancelled":false}"#,
                    false,
                ),
            ),
        ),
        (
            "tools/call without _meta",
            call(json!("call-33"), "context", json!({})),
            ok(
                json!("call-33"),
                text(
                    r#"{"tool_use_id":null,"request_id":"call-33","cancelled":false}"#,
                    false,
                ),
            ),
        ),
    ];
    for (case, request, expected) in table {
        let reply = f.router.answer(request).await;
        assert_eq!(reply, expected, "{case}");
    }
    assert_eq!(f.router.in_flight_calls(), 0);
}

#[tokio::test]
async fn tools_list_lists_every_tool() {
    let mut echo = ToolDefBuilder::new("echo");
    echo.description("Echo the text back").read_only(true);
    echo.input()
        .property::<String>("text", Some("What to echo"), true);
    let mut add = ToolDefBuilder::new("add");
    add.input().flatten::<AddArgs>();
    let server = ToolServer::new("small", "0.1.0")
        .with_tool(echo, |_| async { "" })
        .unwrap()
        .with_tool(add, |_| async { "" })
        .unwrap();
    let router = McpRouter::new(server);
    assert_eq!(
        router
            .answer(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}))
            .await,
        ok(
            json!(1),
            json!({"tools": [
                {
                    "name": "add",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                        "required": ["a", "b"]
                    },
                    "_meta": {"anthropic/alwaysLoad": true}
                },
                {
                    "name": "echo",
                    "description": "Echo the text back",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"text": {"type": "string", "description": "What to echo"}},
                        "required": ["text"]
                    },
                    "annotations": {"readOnlyHint": true},
                    "_meta": {"anthropic/alwaysLoad": true}
                }
            ]})
        )
    );
    // Without instructions, initialize leaves the key out.
    assert_eq!(
        router
            .answer(json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}))
            .await,
        ok(
            json!(2),
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": false}, "logging": {}},
                "serverInfo": {"name": "small", "version": "0.1.0"}
            })
        )
    );
    let empty = McpRouter::new(ToolServer::new("empty", "1"));
    assert_eq!(
        empty
            .answer(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}))
            .await,
        ok(json!(3), json!({"tools": []}))
    );
}

#[tokio::test]
async fn the_full_tool_list_matches_the_server() {
    let f = fixture();
    let reply = f
        .router
        .answer(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    assert_eq!(
        reply,
        ok(json!(1), json!({"tools": f.router.server().list_tools()}))
    );
    let names: Vec<&str> = reply["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "add",
            "boom",
            "cancellable",
            "context",
            "echo",
            "fail",
            "progress",
            "rendezvous",
            "stubborn"
        ]
    );
}

#[tokio::test]
async fn requests_before_initialize_are_served_and_initialize_is_remembered() {
    let f = fixture();
    assert_eq!(f.router.protocol_version(), None);
    assert_eq!(
        f.router
            .answer(call(json!(1), "echo", json!({"text": "early"})))
            .await,
        ok(json!(1), text("ECHO:early", false))
    );
    f.router
        .answer(json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}))
        .await;
    assert_eq!(f.router.protocol_version(), Some("2025-06-18"));
    // The CLI reconnecting negotiates again.
    f.router
        .answer(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "1999-01-01"}}))
        .await;
    assert_eq!(f.router.protocol_version(), Some(LATEST_PROTOCOL_VERSION));
}

async fn recv(rx: &mut mpsc::UnboundedReceiver<Value>) -> Value {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("in time")
        .expect("a message")
}

#[tokio::test]
async fn a_cancelled_call_answers_32800_and_its_handler_sees_the_token_fire() {
    let mut f = fixture();
    let router = f.router.clone();
    let running = tokio::spawn(async move {
        router
            .answer(call(json!(7), "cancellable", json!({})))
            .await
    });
    assert_eq!(recv(&mut f.started).await, json!(7));
    assert_eq!(f.router.in_flight_calls(), 1);

    let ack = f
        .router
        .answer(json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "user interrupted"}
        }))
        .await;
    assert_eq!(ack, ACK());
    let reply = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("answered promptly")
        .unwrap();
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32800, "message": "Request cancelled"}})
    );
    assert_eq!(recv(&mut f.observed_cancel).await, json!(7));
    assert_eq!(f.router.in_flight_calls(), 0);

    // Cancelling it again, now finished, is a no-op.
    let again = f
        .router
        .answer(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}))
        .await;
    assert_eq!(again, ACK());
}

#[tokio::test]
async fn a_handler_that_ignores_cancellation_is_dropped() {
    let mut f = fixture();
    let router = f.router.clone();
    let running = tokio::spawn(async move {
        router
            .answer(call(json!("s-1"), "stubborn", json!({})))
            .await
    });
    assert_eq!(recv(&mut f.started).await, json!("s-1"));
    // A numeric id with the same digits is another request.
    f.router
        .answer(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}))
        .await;
    assert_eq!(f.router.in_flight_calls(), 1);
    f.router
        .answer(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "s-1"}}))
        .await;
    let reply = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("answered promptly")
        .unwrap();
    assert_eq!(reply, err(json!("s-1"), -32800, "Request cancelled", None));
    assert_eq!(f.router.in_flight_calls(), 0);
}

#[tokio::test]
async fn cancel_all_cancels_every_running_call() {
    let mut f = fixture();
    let mut running = Vec::new();
    for id in [1, 2] {
        let router = f.router.clone();
        running.push(tokio::spawn(async move {
            router.answer(call(json!(id), "stubborn", json!({}))).await
        }));
    }
    recv(&mut f.started).await;
    recv(&mut f.started).await;
    assert_eq!(f.router.in_flight_calls(), 2);
    f.router.cancel_all();
    for (id, task) in [1, 2].into_iter().zip(running) {
        assert_eq!(
            task.await.unwrap(),
            err(json!(id), -32800, "Request cancelled", None)
        );
    }
    assert_eq!(f.router.in_flight_calls(), 0);
}

#[tokio::test]
async fn dropping_the_reply_future_cancels_the_call() {
    let mut f = fixture();
    let router = f.router.clone();
    let running = tokio::spawn(async move {
        router
            .answer(call(json!(3), "cancellable", json!({})))
            .await
    });
    assert_eq!(recv(&mut f.started).await, json!(3));
    running.abort();
    assert_eq!(recv(&mut f.observed_cancel).await, json!(3));
    assert_eq!(f.router.in_flight_calls(), 0);
}

#[tokio::test]
async fn a_duplicate_running_id_is_refused() {
    let mut f = fixture();
    let router = f.router.clone();
    let first =
        tokio::spawn(async move { router.answer(call(json!(9), "stubborn", json!({}))).await });
    recv(&mut f.started).await;
    assert_eq!(
        f.router
            .answer(call(json!(9), "echo", json!({"text": "x"})))
            .await,
        err(
            json!(9),
            -32600,
            "Invalid Request",
            Some("a tools/call with this id is already running")
        )
    );
    // The first call is still registered and cancellable.
    assert_eq!(f.router.in_flight_calls(), 1);
    f.router
        .answer(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}))
        .await;
    assert_eq!(
        first.await.unwrap(),
        err(json!(9), -32800, "Request cancelled", None)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_calls_run_concurrently() {
    let f = fixture();
    let (a, b) = tokio::time::timeout(Duration::from_secs(5), async {
        tokio::join!(
            f.router.answer(call(json!(1), "rendezvous", json!({}))),
            f.router.answer(call(json!(2), "rendezvous", json!({}))),
        )
    })
    .await
    .expect("neither call waits for the other");
    assert_eq!(a, ok(json!(1), text("met 1", false)));
    assert_eq!(b, ok(json!(2), text("met 2", false)));

    // And in separate tasks, as the session engine runs them.
    let tasks: Vec<_> = [3, 4]
        .into_iter()
        .map(|id| {
            let router = f.router.clone();
            tokio::spawn(async move {
                router
                    .answer(call(json!(id), "rendezvous", json!({})))
                    .await
            })
        })
        .collect();
    for (id, task) in [3, 4].into_iter().zip(tasks) {
        let reply = tokio::time::timeout(Duration::from_secs(5), task)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(reply, ok(json!(id), text(&format!("met {id}"), false)));
    }
}

#[tokio::test]
async fn a_panic_does_not_poison_the_router() {
    let f = fixture();
    for id in 0..3 {
        assert_eq!(
            f.router.answer(call(json!(id), "boom", json!({}))).await,
            ok(json!(id), text("tool `boom` panicked: kaboom", true))
        );
    }
    assert_eq!(f.router.in_flight_calls(), 0);
    assert_eq!(
        f.router
            .answer(call(json!(9), "echo", json!({"text": "still here"})))
            .await,
        ok(json!(9), text("ECHO:still here", false))
    );
}

#[tokio::test]
async fn progress_goes_to_the_notifier_with_the_calls_token() {
    let f = fixture();
    let request = |id: i64, meta: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "progress", "_meta": meta}});
    assert_eq!(
        f.router
            .answer(request(
                1,
                json!({"claudecode/toolUseId": "toolu_1", "progressToken": 41})
            ))
            .await,
        ok(json!(1), text("done", false))
    );
    assert_eq!(
        *f.notifications.lock().unwrap(),
        vec![
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": 41, "progress": 1.0, "total": 2.0, "message": "half"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                   "params": {"progressToken": 41, "progress": 2.0}}),
        ]
    );
    // No token: no notifications.
    f.notifications.lock().unwrap().clear();
    f.router
        .answer(request(2, json!({"claudecode/toolUseId": "toolu_2"})))
        .await;
    assert!(f.notifications.lock().unwrap().is_empty());

    // No notifier: progress is dropped, the call still succeeds.
    let (observed_cancel, _) = mpsc::unbounded_channel();
    let (started, _) = mpsc::unbounded_channel();
    let plain = McpRouter::new(server(Probes {
        observed_cancel,
        started,
    }));
    assert_eq!(
        plain.answer(request(3, json!({"progressToken": 3}))).await,
        ok(json!(3), text("done", false))
    );
}

#[tokio::test]
async fn tool_results_keep_structured_content() {
    let server = ToolServer::new("s", "1")
        .with_tool(ToolDefBuilder::new("structured"), |_| async {
            ToolResult {
                content: vec![],
                structured_content: Some(json!({"rows": 3})),
                ..ToolResult::default()
            }
        })
        .unwrap();
    let router = McpRouter::new(server);
    assert_eq!(
        router
            .answer(call(json!(1), "structured", json!(null)))
            .await,
        ok(
            json!(1),
            json!({"content": [], "structuredContent": {"rows": 3}, "isError": false})
        )
    );
}

#[tokio::test]
async fn the_context_is_a_fresh_token_per_call() {
    let seen: Arc<Mutex<Vec<ToolContext>>> = Arc::default();
    let sink = seen.clone();
    let server = ToolServer::new("s", "1")
        .with_tool(ToolDefBuilder::new("keep"), move |call| {
            sink.lock().unwrap().push(call.context().clone());
            async { "" }
        })
        .unwrap();
    let router = McpRouter::new(server);
    router.answer(call(json!(1), "keep", json!({}))).await;
    router.answer(call(json!(2), "keep", json!({}))).await;
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].request_id(), Some(&RequestId::from(1)));
    assert_eq!(seen[1].request_id(), Some(&RequestId::from(2)));
    // Finished calls are not cancelled: work they handed off keeps its token.
    assert!(!seen[0].is_cancelled() && !seen[1].is_cancelled());
    seen[0].cancellation_token().cancel();
    assert!(!seen[1].is_cancelled());
}
