//! The PostgreSQL task store on a throwaway cluster, with two replicas (two routers, each with
//! its own store connection) of one tool server: a task started on replica A is polled, answered
//! and cancelled through replica B, the cancellation reaching the tool running on A; a task
//! whose replica died fails through the other once its lease lapses; the per-caller bound holds
//! across replicas; another caller's task is unknown; a bad table name is refused.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use claude_tools::ToolServer;
use claude_tools::mcp::{McpRouter, PostgresTaskStore};
use claude_tools::tasks::{TaskSettings, TaskSupport};
use claude_tools::tools::{ToolDefBuilder, ToolError};
use claude_tools_tests::services::{Postgres, postgres_or_skip};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// What replica A's tools saw.
#[derive(Default)]
struct Seen {
    cancelled: AtomicBool,
}

fn task(name: &str) -> ToolDefBuilder {
    let mut builder = ToolDefBuilder::new(name);
    builder.task(TaskSupport::Required);
    builder
}

/// The tool server every replica runs, its tasks in `store`.
fn server(store: PostgresTaskStore, seen: Arc<Seen>, settings: TaskSettings) -> ToolServer {
    ToolServer::new("jobs", "1.0.0")
        .with_tool(task("wait"), move |call| {
            let seen = seen.clone();
            async move {
                call.context().cancelled().await;
                seen.cancelled.store(true, Ordering::SeqCst);
                "stopped"
            }
        })
        .expect("a tool")
        .with_tool(task("confirm"), |call| async move {
            let answer = call.context().elicit::<Confirm>("Sure?").await?;
            Ok::<_, ToolError>(match answer {
                claude_tools::mcp::Elicitation::Accepted(Confirm { confirm: true }) => "done",
                _ => "not done",
            })
        })
        .expect("a tool")
        .with_task_store(Arc::new(store))
        .with_task_settings(settings)
}

/// Quick polls, so that what reaches the store reaches the runner soon.
fn settings() -> TaskSettings {
    TaskSettings::default().poll_interval(Duration::from_millis(50))
}

async fn replica(url: &str, seen: Arc<Seen>, settings: TaskSettings) -> McpRouter {
    let store = PostgresTaskStore::connect(url).await.expect("connects");
    McpRouter::new(server(store, seen, settings))
}

async fn ask(router: &McpRouter, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {}, "extensions": { TASKS: {} }
        },
    });
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    router.handle_json(request).await.expect("an answer")
}

async fn start(router: &McpRouter, tool: &str) -> String {
    let created = ask(router, "tools/call", json!({"name": tool, "arguments": {}})).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"]
        .as_str()
        .expect("a taskId")
        .to_string()
}

async fn get(router: &McpRouter, task_id: &str) -> Value {
    ask(router, "tasks/get", json!({"taskId": task_id})).await
}

/// Polls `task_id` through `router` until its status is `status` (or final), for at most 10 s.
async fn until(router: &McpRouter, task_id: &str, status: &str) -> Value {
    for _ in 0..500 {
        let task = get(router, task_id).await["result"].clone();
        let now = task["status"].as_str().unwrap_or_default().to_string();
        if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} never reached {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_on_one_replica_is_polled_answered_and_cancelled_through_another() {
    if !postgres_or_skip(
        "a_task_started_on_one_replica_is_polled_answered_and_cancelled_through_another",
    ) {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let seen_on_a = Arc::new(Seen::default());
    let a = replica(&postgres.url(), seen_on_a.clone(), settings()).await;
    let b = replica(&postgres.url(), Arc::default(), settings()).await;

    // A question asked on A, seen and answered through B, the result read through B.
    let id = start(&a, "confirm").await;
    let waiting = until(&b, &id, "input_required").await;
    assert_eq!(
        waiting["inputRequests"]["elicitation-1"]["method"], "elicitation/create",
        "{waiting}"
    );
    let answer = json!({"taskId": id, "inputResponses": {"elicitation-1": {"action": "accept", "content": {"confirm": true}}}});
    assert_eq!(
        ask(&b, "tasks/update", answer).await["result"]["resultType"],
        "complete"
    );
    let done = until(&b, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "done", "{done}");

    // A task running on A, cancelled through B: the tool on A hears of it.
    let id = start(&a, "wait").await;
    assert_eq!(get(&b, &id).await["result"]["status"], "working");
    assert_eq!(
        ask(&b, "tasks/cancel", json!({"taskId": id})).await["result"]["resultType"],
        "complete"
    );
    let cancelled = until(&b, &id, "cancelled").await;
    assert_eq!(cancelled["status"], "cancelled");
    for _ in 0..250 {
        if seen_on_a.cancelled.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        seen_on_a.cancelled.load(Ordering::SeqCst),
        "the tool on replica A saw its cancellation token fire"
    );

    // Another caller, on either replica: the task is unknown.
    let bob = b.new_connection().with_principal(Some("bob".into()));
    assert_eq!(get(&bob, &id).await["error"]["code"], -32602);
    assert_eq!(
        get(&b, "no-such-task").await["error"]["code"],
        -32602,
        "an unknown task"
    );
    drop((a, b));
    drop(postgres);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_replica_died_fails_through_another_once_its_lease_lapses() {
    if !postgres_or_skip("a_task_whose_replica_died_fails_through_another_once_its_lease_lapses") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let settings = settings().lease(Duration::from_millis(600));
    let url = postgres.url();
    // Replica A on a runtime of its own, dropped with its thread: its runner (and the tool)
    // stop mid-run, as when its process dies.
    let id = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async {
            let a = replica(&url, Arc::default(), settings).await;
            start(&a, "wait").await
        })
    })
    .join()
    .expect("replica A ran");
    let b = replica(&postgres.url(), Arc::default(), settings).await;
    assert_eq!(get(&b, &id).await["result"]["status"], "working");
    tokio::time::sleep(Duration::from_millis(900)).await;
    let task = get(&b, &id).await["result"].clone();
    assert_eq!(task["status"], "failed", "{task}");
    assert_eq!(task["error"]["code"], -32603);
    assert!(
        task["error"]["data"]
            .as_str()
            .unwrap_or_default()
            .contains("abandoned"),
        "{task}"
    );

    // A running task on B, meanwhile, renews its lease for as long as it runs.
    let live = start(&b, "wait").await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    assert_eq!(get(&b, &live).await["result"]["status"], "working");
    ask(&b, "tasks/cancel", json!({"taskId": live})).await;
    assert_eq!(until(&b, &live, "cancelled").await["status"], "cancelled");
    drop(b);
    drop(postgres);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_running_tasks_are_bounded_across_replicas() {
    if !postgres_or_skip("a_callers_running_tasks_are_bounded_across_replicas") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let settings = settings().max_running_per_caller(2);
    let a = replica(&postgres.url(), Arc::default(), settings).await;
    let b = replica(&postgres.url(), Arc::default(), settings).await;
    let first = start(&a, "wait").await;
    start(&b, "wait").await;
    for replica in [&a, &b] {
        let refused = ask(
            replica,
            "tools/call",
            json!({"name": "wait", "arguments": {}}),
        )
        .await;
        assert_eq!(refused["error"]["code"], -32600, "{refused}");
    }
    // Another caller has a bound of its own.
    let bob = a.new_connection().with_principal(Some("bob".into()));
    start(&bob, "wait").await;
    // A finished task frees its place, on the other replica too.
    ask(&b, "tasks/cancel", json!({"taskId": first})).await;
    until(&b, &first, "cancelled").await;
    start(&b, "wait").await;
    drop((a, b, bob));
    drop(postgres);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_table_name_and_a_database_that_is_gone_are_errors() {
    if !postgres_or_skip("a_bad_table_name_and_a_database_that_is_gone_are_errors") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let url = postgres.url();
    let refused = PostgresTaskStore::connect_to_table(&url, "tasks; DROP TABLE x").await;
    assert!(refused.is_err());
    let named = PostgresTaskStore::connect_to_table(&url, "public.my_tasks").await;
    assert!(named.is_ok(), "{named:?}");
    let a = replica(&url, Arc::default(), settings()).await;
    drop(postgres);
    // The database is gone: the call is refused with an error, not a hang or a panic.
    let refused = ask(&a, "tools/call", json!({"name": "wait", "arguments": {}})).await;
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
}
