//! tower layers around tool calls (`ToolServer::layer`) and MCP requests
//! (`ToolServer::request_layer`), through the router every transport answers with: a limit per
//! caller, a timeout that cancels the tool, a policy refusing one tool to one caller, tower's
//! own middleware failing calls, the order of layers, and what a layer sees.

use std::any::Any;
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use claude_tools_core::jsonrpc::{Call, ErrorObject, RequestId, ToolCall};
use claude_tools_core::layer::{McpRequest, ToolRequest};
use claude_tools_core::mcp::{McpRouter, Message, Response, Started};
use claude_tools_core::tool::{ToolContext, ToolDefBuilder, ToolResult, ToolServer};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc};
use tower::{Layer, Service, ServiceBuilder};

type Boxed<T, E> = Pin<Box<dyn Future<Output = Result<T, E>> + Send>>;

/// A `tools/call` of `tool` with `arguments`, as a client sends it.
fn call(id: u32, tool: &str, arguments: Value) -> Message {
    let message = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    });
    Message::decode(message.to_string().as_bytes())
}

/// The answer of `router` to `message`, as JSON.
async fn answer(router: &McpRouter, message: Message) -> Value {
    router
        .handle(message)
        .await
        .expect("a request is answered")
        .to_value()
}

/// The text of a `tools/call` answer's result, and whether it is an `isError`.
fn result_text(answer: &Value) -> (String, bool) {
    let result = &answer["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (text.to_string(), result["isError"] == json!(true))
}

fn echo_server() -> ToolServer {
    ToolServer::new("demo", "1.0.0")
        .with_tool(ToolDefBuilder::new("echo"), |call| async move {
            call.arguments()
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        })
        .unwrap()
}

// ---- a limit per caller -------------------------------------------------------------------

/// A user's layer: at most `limit` calls per principal (anonymous callers share one count);
/// the call past it is refused with a result the model reads.
#[derive(Clone)]
struct PerCallerLimit<S> {
    inner: S,
    limit: usize,
    calls: Arc<Mutex<HashMap<Option<String>, usize>>>,
}

#[derive(Clone)]
struct PerCallerLimitLayer {
    limit: usize,
    calls: Arc<Mutex<HashMap<Option<String>, usize>>>,
}

impl<S> Layer<S> for PerCallerLimitLayer {
    type Service = PerCallerLimit<S>;

    fn layer(&self, inner: S) -> PerCallerLimit<S> {
        PerCallerLimit {
            inner,
            limit: self.limit,
            calls: self.calls.clone(),
        }
    }
}

impl<S> Service<ToolRequest> for PerCallerLimit<S>
where
    S: Service<ToolRequest, Response = ToolResult>,
    S::Future: Send + 'static,
{
    type Response = ToolResult;
    type Error = S::Error;
    type Future = Boxed<ToolResult, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: ToolRequest) -> Self::Future {
        let caller = request.principal().map(String::from);
        let over = {
            let mut calls = self.calls.lock().unwrap();
            let count = calls.entry(caller.clone()).or_default();
            *count += 1;
            *count > self.limit
        };
        if over {
            let who = caller.as_deref().unwrap_or("anonymous");
            let refused = ToolResult::error(format!("rate limit: {who} has used its calls"));
            return Box::pin(async move { Ok(refused) });
        }
        Box::pin(self.inner.call(request))
    }
}

#[tokio::test]
async fn a_limit_per_principal_refuses_one_caller_and_not_the_other() {
    let server = echo_server().layer(PerCallerLimitLayer {
        limit: 2,
        calls: Arc::default(),
    });
    let shared = McpRouter::new(server);
    let alice = shared.new_connection().with_principal(Some("alice".into()));
    let bob = shared.new_connection().with_principal(Some("bob".into()));
    for id in 1..=2 {
        let answer = answer(&alice, call(id, "echo", json!({"text": "hi"}))).await;
        assert_eq!(result_text(&answer), ("hi".to_string(), false));
    }
    let refused = answer(&alice, call(3, "echo", json!({"text": "hi"}))).await;
    assert_eq!(
        result_text(&refused),
        ("rate limit: alice has used its calls".to_string(), true),
        "{refused}"
    );
    // The same limit, another caller: a count of its own.
    let answer = answer(&bob, call(4, "echo", json!({"text": "yo"}))).await;
    assert_eq!(result_text(&answer), ("yo".to_string(), false));
}

// ---- a timeout that cancels the tool -----------------------------------------------------

/// A tool that waits for its cancellation and says so on `saw`.
fn patient_server(saw: mpsc::UnboundedSender<&'static str>) -> ToolServer {
    ToolServer::new("demo", "1.0.0")
        .with_tool(ToolDefBuilder::new("patient"), move |call| {
            let saw = saw.clone();
            async move {
                tokio::select! {
                    () = call.context().cancelled() => {
                        let _ = saw.send("cancelled");
                        "stopped"
                    }
                    () = tokio::time::sleep(Duration::from_secs(3600)) => "finished",
                }
            }
        })
        .unwrap()
}

#[tokio::test(start_paused = true)]
async fn a_tower_timeout_fires_the_tools_cancellation_token_and_answers_an_is_error() {
    let (saw, mut seen) = mpsc::unbounded_channel();
    let server =
        patient_server(saw).layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)));
    let router = McpRouter::new(server);
    let answer = answer(&router, call(1, "patient", json!({}))).await;
    assert_eq!(
        result_text(&answer),
        (
            "Tool `patient` timed out: it was stopped before it finished".to_string(),
            true
        ),
        "{answer}"
    );
    // The handler saw its token fire, in its grace.
    let seen = tokio::time::timeout(Duration::from_secs(1), seen.recv()).await;
    assert_eq!(seen, Ok(Some("cancelled")));
    assert_eq!(router.in_flight_calls(), 0);
}

#[tokio::test(start_paused = true)]
async fn a_timeout_around_requests_answers_a_json_rpc_error_and_cancels_the_tool() {
    let (saw, mut seen) = mpsc::unbounded_channel();
    let server = patient_server(saw)
        .request_layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)));
    let router = McpRouter::new(server);
    let answer = answer(&router, call(1, "patient", json!({}))).await;
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["error"]["code"], -32603);
    assert_eq!(answer["error"]["message"], "Request timed out");
    let seen = tokio::time::timeout(Duration::from_secs(1), seen.recv()).await;
    assert_eq!(seen, Ok(Some("cancelled")));
    assert_eq!(router.in_flight_calls(), 0);
}

// ---- a policy refusing one tool to one caller ---------------------------------------------

/// A user's policy: `guest` may not call destructive tools.
#[derive(Clone)]
struct NoDestructionForGuests<S>(S);

impl<S> Service<ToolRequest> for NoDestructionForGuests<S>
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
        let destructive = request.def().annotations.destructive == Some(true);
        if destructive && request.principal() == Some("guest") {
            let refused = ToolResult::error(format!(
                "`{}` is not allowed for guests: ask an administrator",
                request.name()
            ));
            return Box::pin(async move { Ok(refused) });
        }
        Box::pin(self.0.call(request))
    }
}

fn ops_server() -> ToolServer {
    ToolServer::new("ops", "1.0.0")
        .with_typed_tool(
            ToolDefBuilder::new("drop_table").destructive(true),
            || async { "dropped" },
        )
        .unwrap()
        .with_typed_tool(
            ToolDefBuilder::new("count_rows").read_only(true),
            || async { "42" },
        )
        .unwrap()
        .layer(tower::layer::layer_fn(NoDestructionForGuests))
}

#[tokio::test]
async fn a_policy_refuses_one_tool_to_one_caller_with_an_is_error_the_model_reads() {
    let shared = McpRouter::new(ops_server());
    let guest = shared.new_connection().with_principal(Some("guest".into()));
    let admin = shared.new_connection().with_principal(Some("admin".into()));

    let refused = answer(&guest, call(1, "drop_table", json!({}))).await;
    assert_eq!(
        result_text(&refused),
        (
            "`drop_table` is not allowed for guests: ask an administrator".to_string(),
            true
        )
    );
    let allowed = answer(&guest, call(2, "count_rows", json!({}))).await;
    assert_eq!(result_text(&allowed), ("42".to_string(), false));
    let allowed = answer(&admin, call(3, "drop_table", json!({}))).await;
    assert_eq!(result_text(&allowed), ("dropped".to_string(), false));
}

#[tokio::test]
async fn a_direct_call_runs_through_the_layers_too() {
    let server = ops_server();
    let guest = ToolContext::new().with_principal("guest");
    assert!(server.call("drop_table", json!({}), guest).await.is_error);
    let admin = ToolContext::new().with_principal("admin");
    let result = server.call("drop_table", json!({}), admin).await;
    assert_eq!(result.text_content(), "dropped");
}

// ---- tower's middleware failing calls -----------------------------------------------------

/// A tool that holds its call until `release` is notified.
fn held_server(release: Arc<Notify>) -> ToolServer {
    ToolServer::new("demo", "1.0.0")
        .with_tool(ToolDefBuilder::new("held"), move |_call| {
            let release = release.clone();
            async move {
                release.notified().await;
                "released"
            }
        })
        .unwrap()
}

#[tokio::test]
async fn load_shedding_over_a_concurrency_limit_answers_busy_not_a_lost_call() {
    let release = Arc::new(Notify::new());
    let server =
        held_server(release.clone()).layer(ServiceBuilder::new().load_shed().concurrency_limit(1));
    let router = McpRouter::new(server);
    let first = {
        let router = router.clone();
        tokio::spawn(async move { answer(&router, call(1, "held", json!({}))).await })
    };
    while router.in_flight_calls() == 0 {
        tokio::task::yield_now().await;
    }
    // Bounded: without the layer, the call would wait for the release.
    let shed = tokio::time::timeout(
        Duration::from_secs(10),
        answer(&router, call(2, "held", json!({}))),
    )
    .await
    .expect("answered at once, not queued");
    assert_eq!(
        result_text(&shed),
        (
            "Tool `held` was not run: the server is busy; try again later".to_string(),
            true
        )
    );
    release.notify_one();
    let first = first.await.unwrap();
    assert_eq!(result_text(&first), ("released".to_string(), false));
    // The permit came back with the first call's end.
    release.notify_one();
    let again = answer(&router, call(3, "held", json!({}))).await;
    assert_eq!(result_text(&again), ("released".to_string(), false));
}

#[tokio::test]
async fn load_shedding_around_requests_answers_server_overloaded() {
    let release = Arc::new(Notify::new());
    let server = held_server(release.clone())
        .request_layer(ServiceBuilder::new().load_shed().concurrency_limit(1));
    let router = McpRouter::new(server);
    let first = {
        let router = router.clone();
        tokio::spawn(async move { answer(&router, call(1, "held", json!({}))).await })
    };
    while router.in_flight_calls() == 0 {
        tokio::task::yield_now().await;
    }
    let ping = Message::decode(br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
    let shed = tokio::time::timeout(Duration::from_secs(10), answer(&router, ping))
        .await
        .expect("answered at once, not queued");
    assert_eq!(shed["id"], "p");
    assert_eq!(shed["error"]["code"], -32603);
    assert_eq!(shed["error"]["message"], "Server overloaded");
    release.notify_one();
    assert_eq!(
        result_text(&first.await.unwrap()),
        ("released".to_string(), false)
    );
}

/// A layer that fails every call with an error of its own.
#[derive(Clone)]
struct Broken;

impl Service<ToolRequest> for Broken {
    type Response = ToolResult;
    type Error = std::io::Error;
    type Future = std::future::Ready<Result<ToolResult, std::io::Error>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), std::io::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, _request: ToolRequest) -> Self::Future {
        let error = std::io::Error::other("the quota service is unreachable");
        std::future::ready(Err(error))
    }
}

#[tokio::test]
async fn another_layer_error_is_an_is_error_naming_it() {
    let server = echo_server().layer(tower::layer::layer_fn(|_inner| Broken));
    let answer = answer(&McpRouter::new(server), call(1, "echo", json!({}))).await;
    assert_eq!(
        result_text(&answer),
        (
            "Tool `echo` failed: the quota service is unreachable".to_string(),
            true
        )
    );
}

#[tokio::test]
async fn a_handler_panic_under_layers_is_still_one_is_error_answer() {
    let server = ToolServer::new("demo", "1.0.0")
        .with_tool(ToolDefBuilder::new("boom"), |_call| async {
            panic!("kaboom");
            #[allow(unreachable_code)]
            ""
        })
        .unwrap()
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)))
        .request_layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)));
    let answer = answer(&McpRouter::new(server), call(1, "boom", json!({}))).await;
    assert_eq!(
        result_text(&answer),
        ("tool `boom` panicked: kaboom".to_string(), true)
    );
}

#[tokio::test]
async fn a_panic_before_the_handlers_future_is_one_is_error_answer_too() {
    // The synchronous part of a handler (a `#[tool]` fn's extractors run there) panics before
    // there is a future to catch it in: with layers and without, the call is answered as a
    // panicked handler's, and the router goes on.
    #[allow(unreachable_code)]
    fn boom(_call: claude_tools_core::tool::ToolCall) -> std::future::Ready<&'static str> {
        panic!("kaboom before the future");
        std::future::ready("")
    }
    for layered in [false, true] {
        let server = ToolServer::new("demo", "1.0.0")
            .with_tool(ToolDefBuilder::new("boom"), boom)
            .unwrap();
        let server = if layered {
            server.layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(5)))
        } else {
            server
        };
        let router = McpRouter::new(server);
        for id in [1, 2] {
            let answer = answer(&router, call(id, "boom", json!({}))).await;
            assert_eq!(
                result_text(&answer),
                (
                    "tool `boom` panicked: kaboom before the future".to_string(),
                    true
                ),
                "layered: {layered}"
            );
        }
        assert_eq!(router.in_flight_calls(), 0);
    }
}

// ---- order, and what the layers see -------------------------------------------------------

/// Records `name` and what it saw, then passes the request on.
#[derive(Clone)]
struct Record<S> {
    inner: S,
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
}

fn record<S>(
    name: &'static str,
    log: &Arc<Mutex<Vec<String>>>,
) -> impl Layer<S, Service = Record<S>> + use<S> {
    let log = log.clone();
    tower::layer::layer_fn(move |inner| Record {
        inner,
        name,
        log: log.clone(),
    })
}

impl<S: Service<ToolRequest>> Service<ToolRequest> for Record<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: ToolRequest) -> S::Future {
        self.log.lock().unwrap().push(format!(
            "{}: {} {} read_only={:?} principal={:?} tenant={:?} tool_use={:?}",
            self.name,
            request.name(),
            Value::Object(request.arguments().clone()),
            request.def().annotations.read_only,
            request.principal(),
            request.identity::<Tenant>().map(|tenant| tenant.0),
            request.context().tool_use_id(),
        ));
        self.inner.call(request)
    }
}

impl<S: Service<McpRequest>> Service<McpRequest> for Record<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> S::Future {
        self.log.lock().unwrap().push(format!(
            "{}: {} id={} tool={:?} principal={:?} tenant={:?}",
            self.name,
            request.method(),
            request.id(),
            request.tool_name(),
            request.principal(),
            request.identity::<Tenant>().map(|tenant| tenant.0),
        ));
        self.inner.call(request)
    }
}

struct Tenant(&'static str);

#[tokio::test]
async fn request_layers_wrap_tool_layers_and_the_last_layer_is_outermost() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let server = ToolServer::new("demo", "1.0.0")
        .with_typed_tool(
            ToolDefBuilder::new("add").read_only(true),
            |args: Add| async move { args.a + args.b },
        )
        .unwrap()
        .layer(record("tool inner", &log))
        .request_layer(record("request inner", &log))
        .layer(record("tool outer", &log))
        .request_layer(record("request outer", &log));
    let router = McpRouter::new(server)
        .with_principal(Some("alice".into()))
        .with_extension(Some(Arc::new(Tenant("acme")) as Arc<dyn Any + Send + Sync>));
    let message = Message::decode(
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"claudecode/toolUseId":"toolu_1"}}}"#,
    );
    let answer = answer(&router, message).await;
    assert_eq!(result_text(&answer), ("3".to_string(), false));
    let tool = r#"add {"a":1,"b":2} read_only=Some(true) principal=Some("alice") tenant=Some("acme") tool_use=Some("toolu_1")"#;
    let request = r#"tools/call id=7 tool=Some("add") principal=Some("alice") tenant=Some("acme")"#;
    assert_eq!(
        *log.lock().unwrap(),
        [
            format!("request outer: {request}"),
            format!("request inner: {request}"),
            format!("tool outer: {tool}"),
            format!("tool inner: {tool}"),
        ]
    );
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

#[tokio::test]
async fn request_layers_see_every_request_but_not_notifications() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let server = echo_server().request_layer(record("layer", &log));
    let router = McpRouter::new(server);
    let list = Message::decode(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(
        answer(&router, list).await["result"]["tools"][0]["name"],
        "echo"
    );
    let unknown = Message::decode(br#"{"jsonrpc":"2.0","id":2,"method":"nope"}"#);
    assert_eq!(answer(&router, unknown).await["error"]["code"], -32601);
    let note = Message::decode(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert!(router.handle(note).await.is_none());
    assert_eq!(
        *log.lock().unwrap(),
        [
            "layer: tools/list id=1 tool=None principal=None tenant=None",
            "layer: nope id=2 tool=None principal=None tenant=None",
        ]
    );
}

/// A request policy: anonymous callers may not list tools.
#[derive(Clone)]
struct NoAnonymousListing<S>(S);

impl<S> Service<McpRequest> for NoAnonymousListing<S>
where
    S: Service<McpRequest, Response = Response>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Boxed<Response, S::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: McpRequest) -> Self::Future {
        if matches!(request.call(), Call::ToolsList) && request.principal().is_none() {
            let refused = request.refuse(ErrorObject::invalid_request("log in to list tools"));
            return Box::pin(async move { Ok(refused) });
        }
        Box::pin(self.0.call(request))
    }
}

#[tokio::test]
async fn a_request_layer_may_refuse_with_an_answer_of_its_own() {
    let server = echo_server().request_layer(tower::layer::layer_fn(NoAnonymousListing));
    let shared = McpRouter::new(server);
    let list = || Message::decode(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let refused = answer(&shared, list()).await;
    assert_eq!(refused["id"], 1);
    assert_eq!(refused["error"]["data"], "log in to list tools");
    let alice = shared.new_connection().with_principal(Some("alice".into()));
    assert_eq!(
        answer(&alice, list()).await["result"]["tools"][0]["name"],
        "echo"
    );
}

// ---- the session's and HTTP's entry: `start_call` -----------------------------------------

#[tokio::test]
async fn start_call_goes_through_the_request_layers_answering_quick_calls_at_once() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let release = Arc::new(Notify::new());
    let server = held_server(release.clone())
        .with_tool(ToolDefBuilder::new("quick"), |_call| async { "quick" })
        .unwrap()
        .request_layer(record("layer", &log));
    let router = McpRouter::new(server);
    let tool_call = |name: &str| ToolCall {
        name: name.to_string(),
        ..ToolCall::default()
    };
    let Started::Done(quick) = router.start_call(RequestId::from(1), tool_call("quick")) else {
        panic!("a quick call is answered on its first poll");
    };
    assert_eq!(result_text(&quick.to_value()), ("quick".to_string(), false));
    let Started::Running(held) = router.start_call(RequestId::from(2), tool_call("held")) else {
        panic!("a held call is still running");
    };
    release.notify_one();
    assert_eq!(
        result_text(&held.finish().await.to_value()),
        ("released".to_string(), false)
    );
    assert_eq!(log.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn cancelling_a_call_that_runs_under_layers_answers_request_cancelled() {
    let (saw, mut seen) = mpsc::unbounded_channel();
    let server = patient_server(saw)
        .layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(3600)))
        .request_layer(tower::timeout::TimeoutLayer::new(Duration::from_secs(3600)));
    let router = McpRouter::new(server);
    let running = {
        let router = router.clone();
        tokio::spawn(async move { answer(&router, call(1, "patient", json!({}))).await })
    };
    while router.in_flight_calls() == 0 {
        tokio::task::yield_now().await;
    }
    let cancel = Message::decode(
        br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    assert!(router.handle(cancel).await.is_none());
    let answer = running.await.unwrap();
    assert_eq!(answer["error"]["code"], -32800);
    assert_eq!(seen.recv().await, Some("cancelled"));
}
