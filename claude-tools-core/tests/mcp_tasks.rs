//! Tools that run as tasks (MCP's tasks extension, SEP-2663) through the router: which calls
//! become tasks, polling, questions answered with `tasks/update`, cancellation, panics, expiry,
//! and every bad input the extension's methods can get.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use claude_tools_core::ask::Elicitation;
use claude_tools_core::mcp::McpRouter;
use claude_tools_core::task::{MemoryTaskStore, TaskSettings, TaskStart, TaskSupport};
use claude_tools_core::tool::{ToolDefBuilder, ToolError, ToolServer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

/// What the tools saw.
#[derive(Default)]
struct Seen {
    runs: AtomicUsize,
    cancelled: AtomicBool,
    /// Opened by the test: the `later` tool waits on it before its question.
    gate: tokio::sync::Notify,
}

fn task(name: &str, support: TaskSupport) -> ToolDefBuilder {
    let mut builder = ToolDefBuilder::new(name);
    builder.task(support);
    builder
}

fn server(seen: Arc<Seen>) -> ToolServer {
    let (work_seen, wait_seen, once_seen) = (seen.clone(), seen.clone(), seen.clone());
    let later_seen = seen.clone();
    ToolServer::new("jobs", "1.0.0")
        .with_tool(ToolDefBuilder::new("plain"), |_call| async { "plain" })
        .unwrap()
        .with_tool(task("work", TaskSupport::Optional), move |_call| {
            let seen = work_seen.clone();
            async move {
                seen.runs.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                "worked"
            }
        })
        .unwrap()
        .with_tool(task("wait", TaskSupport::Required), move |call| {
            let seen = wait_seen.clone();
            async move {
                seen.runs.fetch_add(1, Ordering::SeqCst);
                call.context().cancelled().await;
                seen.cancelled.store(true, Ordering::SeqCst);
                "stopped"
            }
        })
        .unwrap()
        .with_tool(task("once", TaskSupport::Required), move |_call| {
            let seen = once_seen.clone();
            async move {
                seen.runs.fetch_add(1, Ordering::SeqCst);
                "once"
            }
        })
        .unwrap()
        .with_tool(task("confirm", TaskSupport::Required), |call| async move {
            match call.context().elicit::<Confirm>("Sure?").await? {
                Elicitation::Accepted(Confirm { confirm: true }) => Ok::<_, ToolError>("done"),
                _ => Ok("not done"),
            }
        })
        .unwrap()
        .with_tool(task("later", TaskSupport::Required), move |call| {
            let seen = later_seen.clone();
            async move {
                seen.gate.notified().await;
                match call.context().elicit::<Confirm>("Sure?").await? {
                    Elicitation::Accepted(Confirm { confirm: true }) => Ok::<_, ToolError>("done"),
                    _ => Ok("not done"),
                }
            }
        })
        .unwrap()
        .with_tool(task("two", TaskSupport::Required), |call| async move {
            let ctx = call.context();
            let (a, b) = tokio::join!(ctx.elicit::<Name>("A?"), ctx.elicit::<Name>("B?"));
            let name = |answer: Elicitation<Name>| match answer {
                Elicitation::Accepted(Name { name }) => name,
                _ => "-".to_string(),
            };
            Ok::<_, ToolError>(format!("{} {}", name(a?), name(b?)))
        })
        .unwrap()
        .with_tool(task("boom", TaskSupport::Required), |_call| async {
            tokio::task::yield_now().await;
            panic!("the job broke");
            #[allow(unreachable_code)]
            ""
        })
        .unwrap()
        .with_tool(task("refuse", TaskSupport::Required), |_call| async {
            Err::<String, _>(ToolError::new("no such job"))
        })
        .unwrap()
        .with_tool(
            task("gather", TaskSupport::Required).task_start(TaskStart::AtFirstWait),
            |call| async move {
                let ctx = call.context();
                let Elicitation::Accepted(Name { name }) =
                    ctx.question("user_name").elicit::<Name>("Name?").await?
                else {
                    return Ok::<_, ToolError>("no name".to_string());
                };
                tokio::time::sleep(Duration::from_millis(10)).await;
                Ok(format!("Hello, {name}!"))
            },
        )
        .unwrap()
}

/// A 2026-07-28 request; `tasks`: whether it declares the extension.
fn request(id: u64, method: &str, mut params: Value, tasks: bool) -> Value {
    let mut capabilities = json!({"elicitation": {}});
    if tasks {
        capabilities["extensions"] = json!({ TASKS: {} });
    }
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn ask(router: &McpRouter, method: &str, params: Value, tasks: bool) -> Value {
    router
        .handle_json(request(1, method, params, tasks))
        .await
        .expect("a request is answered")
}

async fn call(router: &McpRouter, tool: &str, arguments: Value) -> Value {
    ask(
        router,
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
        true,
    )
    .await["result"]
        .clone()
}

async fn get(router: &McpRouter, task_id: &str) -> Value {
    ask(router, "tasks/get", json!({"taskId": task_id}), true).await
}

/// Polls `task_id` until its status is `status` (or final), for at most 5 s.
async fn until(router: &McpRouter, task_id: &str, status: &str) -> Value {
    for _ in 0..500 {
        let task = get(router, task_id).await["result"].clone();
        let now = task["status"].as_str().unwrap_or_default().to_string();
        if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {task_id} never reached {status}");
}

fn task_id(created: &Value) -> String {
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().expect("a taskId").to_string()
}

#[tokio::test]
async fn discover_announces_the_extension_only_with_task_tools() {
    let router = McpRouter::new(server(Arc::default()));
    let discover = ask(&router, "server/discover", json!({}), false).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"],
        json!({ TASKS: {} })
    );
    let plain = McpRouter::new(
        ToolServer::new("plain", "1")
            .with_tool(ToolDefBuilder::new("p"), |_call| async { "p" })
            .unwrap(),
    );
    let discover = ask(&plain, "server/discover", json!({}), false).await;
    assert!(
        discover["result"]["capabilities"]
            .get("extensions")
            .is_none()
    );
    // Without task tools, the methods are not served.
    let get = ask(&plain, "tasks/get", json!({"taskId": "x"}), true).await;
    assert_eq!(get["error"]["code"], -32601);
}

#[tokio::test]
async fn a_task_is_created_polled_and_completed_with_its_result_inlined() {
    let seen = Arc::new(Seen::default());
    let router = McpRouter::new(server(seen.clone()));
    let created = call(&router, "work", json!({})).await;
    let id = task_id(&created);
    assert_eq!(created["status"], "working");
    assert_eq!(created["ttlMs"], 3_600_000);
    assert_eq!(created["pollIntervalMs"], 1000);
    assert!(created["createdAt"].as_str().unwrap().ends_with('Z'));
    for absent in ["task", "result", "error", "inputRequests", "requestState"] {
        assert!(created.get(absent).is_none(), "{absent} in {created}");
    }
    // Durable before the answer: a poll right after finds it.
    let first = get(&router, &id).await["result"].clone();
    assert_eq!(first["taskId"], id.as_str());
    assert_eq!(first["resultType"], "complete");
    let done = until(&router, &id, "completed").await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "worked");
    assert_eq!(done["result"]["isError"], false);
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(seen.runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_client_without_the_extension_gets_a_plain_call_or_32021() {
    let seen = Arc::new(Seen::default());
    let router = McpRouter::new(server(seen.clone()));
    let optional = ask(&router, "tools/call", json!({"name": "work"}), false).await;
    assert_eq!(optional["result"]["resultType"], "complete");
    assert_eq!(optional["result"]["content"][0]["text"], "worked");
    assert_eq!(seen.runs.load(Ordering::SeqCst), 1);

    let required = ask(&router, "tools/call", json!({"name": "once"}), false).await;
    assert_eq!(required["error"]["code"], -32021);
    assert_eq!(
        required["error"]["data"]["requiredCapabilities"],
        json!({"extensions": { TASKS: {} }})
    );
    // Nothing ran.
    assert_eq!(seen.runs.load(Ordering::SeqCst), 1);
    for method in ["tasks/get", "tasks/cancel"] {
        let answer = ask(&router, method, json!({"taskId": "x"}), false).await;
        assert_eq!(answer["error"]["code"], -32021, "{method}");
    }
    let update = json!({"taskId": "x", "inputResponses": {}});
    assert_eq!(
        ask(&router, "tasks/update", update, false).await["error"]["code"],
        -32021
    );
    // A plain tool is never a task, extension or not.
    let plain = call(&router, "plain", json!({})).await;
    assert_eq!(plain["resultType"], "complete");
}

#[tokio::test]
async fn a_question_waits_for_tasks_update_and_stray_answers_are_ignored() {
    let router = McpRouter::new(server(Arc::default()));
    let id = task_id(&call(&router, "confirm", json!({})).await);
    let waiting = until(&router, &id, "input_required").await;
    assert_eq!(waiting["status"], "input_required");
    let request = &waiting["inputRequests"]["elicitation-1"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["message"], "Sure?");

    // Answers to questions never asked: acknowledged, and nothing changes.
    let stray = json!({"taskId": id, "inputResponses": {"nope": {"action": "accept", "content": {"confirm": true}}}});
    let ack = ask(&router, "tasks/update", stray, true).await["result"].clone();
    assert_eq!(
        ack,
        json!({"resultType": "complete", "_meta": ack["_meta"]})
    );
    assert_eq!(
        get(&router, &id).await["result"]["status"],
        "input_required"
    );

    let answer = json!({"taskId": id, "inputResponses": {"elicitation-1": {"action": "accept", "content": {"confirm": true}}}});
    ask(&router, "tasks/update", answer.clone(), true).await;
    let done = until(&router, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "done");
    // The same answer again, on a finished task: acknowledged, ignored.
    assert_eq!(
        ask(&router, "tasks/update", answer, true).await["result"]["resultType"],
        "complete"
    );
}

#[tokio::test]
async fn questions_asked_together_are_answered_one_at_a_time() {
    let router = McpRouter::new(server(Arc::default()));
    let id = task_id(&call(&router, "two", json!({})).await);
    let mut waiting = until(&router, &id, "input_required").await;
    for _ in 0..100 {
        if waiting["inputRequests"]
            .as_object()
            .map_or(0, |map| map.len())
            == 2
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        waiting = get(&router, &id).await["result"].clone();
    }
    let keys: Vec<&String> = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["elicitation-1", "elicitation-2"]);
    let first = json!({"taskId": id, "inputResponses": {"elicitation-1": {"action": "accept", "content": {"name": "Ada"}}}});
    ask(&router, "tasks/update", first, true).await;
    let after = get(&router, &id).await["result"].clone();
    assert_eq!(after["status"], "input_required");
    let keys: Vec<&String> = after["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["elicitation-2"]);
    let second = json!({"taskId": id, "inputResponses": {"elicitation-2": {"action": "accept", "content": {"name": "Bo"}}}});
    ask(&router, "tasks/update", second, true).await;
    let done = until(&router, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Ada Bo");
}

#[tokio::test]
async fn cancel_fires_the_handlers_token_and_settles_to_cancelled() {
    let seen = Arc::new(Seen::default());
    let router = McpRouter::new(server(seen.clone()));
    let id = task_id(&call(&router, "wait", json!({})).await);
    let ack = ask(&router, "tasks/cancel", json!({"taskId": id}), true).await["result"].clone();
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("taskId").is_none() && ack.get("status").is_none());
    let task = until(&router, &id, "cancelled").await;
    assert_eq!(task["status"], "cancelled");
    for _ in 0..100 {
        if seen.cancelled.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(seen.cancelled.load(Ordering::SeqCst), "the token fired");
    // Cancelling a finished task: the same acknowledgement, and it stays cancelled.
    let again = ask(&router, "tasks/cancel", json!({"taskId": id}), true).await;
    assert_eq!(again["result"]["resultType"], "complete");
    assert_eq!(get(&router, &id).await["result"]["status"], "cancelled");
}

#[tokio::test]
async fn a_panic_fails_the_task_and_a_tool_error_completes_it() {
    let router = McpRouter::new(server(Arc::default()));
    let id = task_id(&call(&router, "boom", json!({})).await);
    let failed = until(&router, &id, "failed").await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], -32603);
    assert!(failed.get("result").is_none());

    let id = task_id(&call(&router, "refuse", json!({})).await);
    let completed = until(&router, &id, "completed").await;
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["result"]["isError"], true);
}

#[tokio::test]
async fn unknown_malformed_and_other_callers_tasks_are_refused_alike() {
    let alice = McpRouter::new(server(Arc::default())).with_principal(Some("alice".into()));
    let bob = alice.new_connection().with_principal(Some("bob".into()));
    let id = task_id(&call(&alice, "wait", json!({})).await);
    let unknown = get(&alice, "no-such-task").await;
    assert_eq!(unknown["error"]["code"], -32602);
    // Bob cannot see, answer or cancel Alice's task, and learns nothing from trying.
    let stolen = get(&bob, &id).await;
    assert_eq!(stolen["error"], unknown["error"]);
    let update = json!({"taskId": id, "inputResponses": {}});
    assert_eq!(
        ask(&bob, "tasks/update", update, true).await["error"]["code"],
        -32602
    );
    assert_eq!(
        ask(&bob, "tasks/cancel", json!({"taskId": id}), true).await["error"]["code"],
        -32602
    );
    assert_eq!(get(&alice, &id).await["result"]["status"], "working");
    // Params that are not a task id, or answers that are not an object.
    for params in [json!({}), json!({"taskId": 7})] {
        assert_eq!(
            ask(&alice, "tasks/get", params, true).await["error"]["code"],
            -32602
        );
    }
    for params in [
        json!({"taskId": id}),
        json!({"taskId": id, "inputResponses": null}),
        json!({"taskId": id, "inputResponses": [1]}),
    ] {
        assert_eq!(
            ask(&alice, "tasks/update", params, true).await["error"]["code"],
            -32602
        );
    }
    // Methods SEP-2663 removed.
    for method in ["tasks/result", "tasks/list"] {
        let answer = ask(&alice, method, json!({"taskId": id}), true).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}");
    }
    ask(&alice, "tasks/cancel", json!({"taskId": id}), true).await;
}

#[tokio::test]
async fn a_callers_running_tasks_are_bounded() {
    let server = server(Arc::default())
        .with_task_settings(TaskSettings::default().max_running_per_caller(2));
    let alice = McpRouter::new(server).with_principal(Some("alice".into()));
    let bob = alice.new_connection().with_principal(Some("bob".into()));
    let first = task_id(&call(&alice, "wait", json!({})).await);
    task_id(&call(&alice, "wait", json!({})).await);
    let refused = ask(&alice, "tools/call", json!({"name": "wait"}), true).await;
    assert_eq!(refused["error"]["code"], -32600);
    assert!(
        refused["error"]["data"]
            .as_str()
            .unwrap()
            .contains("2 running tasks"),
        "{refused}"
    );
    // Another caller is not held back.
    task_id(&call(&bob, "wait", json!({})).await);
    // A finished task frees its place.
    ask(&alice, "tasks/cancel", json!({"taskId": first}), true).await;
    until(&alice, &first, "cancelled").await;
    task_id(&call(&alice, "wait", json!({})).await);
}

#[tokio::test]
async fn a_task_past_its_ttl_is_gone_and_its_handler_cancelled() {
    let seen = Arc::new(Seen::default());
    let server = server(seen.clone())
        .with_task_settings(TaskSettings::default().ttl(Duration::from_millis(100)));
    let router = McpRouter::new(server);
    let id = task_id(&call(&router, "wait", json!({})).await);
    assert_eq!(get(&router, &id).await["result"]["ttlMs"], 100);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(get(&router, &id).await["error"]["code"], -32602);
    assert!(seen.cancelled.load(Ordering::SeqCst), "the token fired");
}

/// A runtime of its own, for a replica: dropping it drops the task runners it spawned, as a
/// replica's death does.
fn replica_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

#[test]
fn a_task_whose_runner_is_gone_fails_once_its_lease_lapses() {
    let store = Arc::new(MemoryTaskStore::default());
    let server = server(Arc::default())
        .with_task_store(store)
        .with_task_settings(TaskSettings::default().lease(Duration::from_millis(300)));
    let replica_a = McpRouter::new(server.clone());
    let replica_b = McpRouter::new(server);
    let runtime_a = replica_runtime();
    let id = runtime_a.block_on(async { task_id(&call(&replica_a, "wait", json!({})).await) });
    // Replica A dies: its runner (and the handler) are dropped mid-run.
    drop(runtime_a);
    replica_runtime().block_on(async {
        // Within the lease, B cannot tell: still working.
        assert_eq!(get(&replica_b, &id).await["result"]["status"], "working");
        tokio::time::sleep(Duration::from_millis(400)).await;
        let task = get(&replica_b, &id).await["result"].clone();
        assert_eq!(task["status"], "failed", "{task}");
        assert_eq!(task["error"]["code"], -32603);
        assert!(
            task["error"]["data"]
                .as_str()
                .unwrap_or_default()
                .contains("abandoned"),
            "{task}"
        );
        // Final now: a second poll says the same, and a cancel changes nothing.
        ask(&replica_b, "tasks/cancel", json!({"taskId": id}), true).await;
        assert_eq!(get(&replica_b, &id).await["result"]["status"], "failed");
    });
}

#[tokio::test]
async fn a_running_task_renews_its_lease_for_as_long_as_it_runs() {
    let seen = Arc::new(Seen::default());
    let server = server(seen.clone())
        .with_task_settings(TaskSettings::default().lease(Duration::from_millis(60)));
    let router = McpRouter::new(server);
    let id = task_id(&call(&router, "wait", json!({})).await);
    // Five leases later the runner still vouches for it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(get(&router, &id).await["result"]["status"], "working");
    ask(&router, "tasks/cancel", json!({"taskId": id}), true).await;
    assert_eq!(
        until(&router, &id, "cancelled").await["status"],
        "cancelled"
    );
}

#[tokio::test]
async fn at_first_wait_questions_go_through_mrtr_then_the_call_becomes_a_task() {
    let router = McpRouter::new(server(Arc::default()));
    let first = call(&router, "gather", json!({})).await;
    assert_eq!(first["resultType"], "input_required");
    assert!(first.get("taskId").is_none());
    assert!(first["inputRequests"]["user_name"].is_object());
    let retry = json!({
        "name": "gather",
        "arguments": {},
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}}},
        "requestState": first["requestState"],
    });
    let created = ask(&router, "tools/call", retry, true).await["result"].clone();
    let id = task_id(&created);
    assert!(created.get("requestState").is_none());
    let done = until(&router, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Alice!");
}

/// A 2026-07-28 `subscriptions/listen` with `notifications` as its filter; `tasks`: whether it
/// declares the extension.
fn listen_request(id: u64, notifications: Value, tasks: bool) -> claude_tools_core::mcp::Request {
    let message = request(
        id,
        "subscriptions/listen",
        json!({"notifications": notifications}),
        tasks,
    );
    match claude_tools_core::mcp::Message::decode(message.to_string().as_bytes()) {
        claude_tools_core::mcp::Message::Request(request) => request,
        other => panic!("{other:?}"),
    }
}

/// The next message of `stream` as it is written, within 5 s.
async fn heard(stream: &mut claude_tools_core::mcp::ListenStream) -> Value {
    let notification = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("a notification");
    serde_json::to_value(stream.message(&notification)).unwrap()
}

#[tokio::test]
async fn a_listen_stream_hears_each_change_of_the_tasks_it_follows() {
    let seen = Arc::new(Seen::default());
    let alice = McpRouter::new(server(seen.clone()))
        .with_listen(true)
        .with_principal(Some("alice".into()));
    let bob = alice.new_connection().with_principal(Some("bob".into()));
    let id = task_id(&call(&alice, "later", json!({})).await);
    let other = task_id(&call(&alice, "wait", json!({})).await);

    // Without the extension declared: -32021.
    let refused = alice
        .listen(listen_request(5, json!({"taskIds": [id]}), false))
        .expect_err("refused");
    assert_eq!(refused.to_value()["error"]["code"], -32021);
    // Bob names alice's task: acknowledged (a task id says nothing of whose it is), never told.
    let mut bobs = bob
        .listen(listen_request(6, json!({"taskIds": [id]}), true))
        .expect("a stream");
    let mut stream = alice
        .listen(listen_request(
            7,
            json!({"taskIds": [id, "no-such-task"]}),
            true,
        ))
        .expect("a stream");
    assert_eq!(
        serde_json::to_value(stream.acknowledgement()).unwrap()["params"]["notifications"],
        json!({"taskIds": [id, "no-such-task"]})
    );

    // The task asks its question: `input_required`, the question inlined.
    seen.gate.notify_one();
    let asked = heard(&mut stream).await;
    assert_eq!(asked["method"], "notifications/tasks", "{asked}");
    let params = &asked["params"];
    assert_eq!(params["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert_eq!(params["taskId"], id.as_str());
    assert_eq!(params["status"], "input_required");
    assert_eq!(
        params["inputRequests"]["elicitation-1"]["method"],
        "elicitation/create"
    );
    for field in ["createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"] {
        assert!(params.get(field).is_some(), "{field}: {asked}");
    }

    // Answered: it goes on, then completes, the result inlined as `tasks/get` has it.
    let answer = json!({"taskId": id, "inputResponses": {"elicitation-1": {"action": "accept", "content": {"confirm": true}}}});
    ask(&alice, "tasks/update", answer, true).await;
    let mut last = heard(&mut stream).await;
    while last["params"]["status"] != "completed" {
        assert_eq!(last["params"]["status"], "working", "{last}");
        last = heard(&mut stream).await;
    }
    let polled = get(&alice, &id).await["result"].clone();
    assert_eq!(last["params"]["result"], polled["result"]);
    assert_eq!(last["params"]["result"]["content"][0]["text"], "done");

    // A task the stream does not follow is not told, and bob heard nothing of alice's.
    ask(&alice, "tasks/cancel", json!({"taskId": other}), true).await;
    until(&alice, &other, "cancelled").await;
    let nothing = tokio::time::timeout(Duration::from_millis(100), stream.next()).await;
    assert!(nothing.is_err(), "{nothing:?}");
    let nothing = tokio::time::timeout(Duration::from_millis(50), bobs.next()).await;
    assert!(nothing.is_err(), "{nothing:?}");
}

#[test]
fn a_listen_stream_follows_a_bounded_number_of_tasks() {
    let router = McpRouter::new(server(Arc::default())).with_listen(true);
    let ids: Vec<String> = (0..=claude_tools_core::mcp::MAX_TASK_SUBSCRIPTIONS)
        .map(|n| format!("task-{n}"))
        .collect();
    let refused = router
        .listen(listen_request(1, json!({"taskIds": ids}), true))
        .expect_err("refused");
    assert_eq!(refused.to_value()["error"]["code"], -32602);
}
