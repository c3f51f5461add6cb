//! A claude-tools server's tasks (MCP's tasks extension) driven by rmcp's client (3.11) over
//! Streamable HTTP at 2026-07-28: a task created, polled to its result; a task's question
//! answered with `tasks/update`; a task cancelled. rmcp is the client here because the official
//! TypeScript and Python clients do not drive tasks (TypeScript v2 has only the `Mcp-Name` rows
//! for `tasks/*`, Python `mcp` 2.3.0 nothing). rmcp's client sets `Mcp-Name` to the task id on
//! `tasks/*`, so the server's header check is on the path too.

use std::time::Duration;

use claude_tools::mcp::Elicitation;
use claude_tools::mcp::http::HttpServer;
use claude_tools::tasks::TaskSupport;
use claude_tools::tools::{ToolDefBuilder, ToolError, ToolServer};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, ProtocolVersion, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

fn task(name: &str) -> ToolDefBuilder {
    let mut builder = ToolDefBuilder::new(name);
    builder.description(name).task(TaskSupport::Required);
    builder
}

fn server() -> ToolServer {
    ToolServer::new("jobs", "1.0.0")
        .with_tool(task("build"), |_call| async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            "built"
        })
        .unwrap()
        .with_tool(task("approve"), |call| async move {
            match call.context().elicit::<Confirm>("Go ahead?").await? {
                Elicitation::Accepted(Confirm { confirm: true }) => Ok::<_, ToolError>("approved"),
                _ => Ok("refused"),
            }
        })
        .unwrap()
        .with_tool(task("forever"), |call| async move {
            call.context().cancelled().await;
            "stopped"
        })
        .unwrap()
}

/// An rmcp client that declares elicitation and the tasks extension.
#[derive(Clone)]
struct TasksClient;

impl ClientHandler for TasksClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        capabilities.extensions = Some(
            [(
                "io.modelcontextprotocol/tasks".to_string(),
                serde_json::Map::new(),
            )]
            .into(),
        );
        ClientConfig::new(
            capabilities,
            Implementation::new("rmcp-tasks-test", "1.0.0"),
        )
    }
}

async fn connect(url: String) -> RunningService<RoleClient, TasksClient> {
    TasksClient
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(url),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("rmcp discovers the server at 2026-07-28")
}

/// Polls `task_id` until its status is `status` or final.
async fn until(
    client: &RunningService<RoleClient, TasksClient>,
    task_id: &str,
    status: TaskStatus,
) -> rmcp::model::GetTaskResult {
    for _ in 0..500 {
        let task = client
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get");
        let now = task.task.status();
        if now == status
            || matches!(
                now,
                TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
            )
        {
            return task;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("task {task_id} never reached {status:?}");
}

async fn create(client: &RunningService<RoleClient, TasksClient>, tool: &'static str) -> String {
    match client
        .call_tool_once(CallToolRequestParams::new(tool))
        .await
        .expect("tools/call")
    {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("{tool}: expected a task, got {other:?}"),
    }
}

fn completed_text(task: &rmcp::model::GetTaskResult) -> String {
    match &task.task.payload {
        TaskPayload::Completed { result } => result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        other => panic!("not completed: {other:?}"),
    }
}

#[tokio::test]
async fn rmcp_creates_polls_answers_and_cancels_tasks_over_http() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(HttpServer::new(server()).serve(listener).into_future());
    let client = connect(url).await;

    // Created, polled, completed with the tool's result.
    let build = create(&client, "build").await;
    let done = until(&client, &build, TaskStatus::Completed).await;
    assert_eq!(completed_text(&done), "built");

    // A question inside the task, answered with tasks/update.
    let approve = create(&client, "approve").await;
    let waiting = until(&client, &approve, TaskStatus::InputRequired).await;
    let TaskPayload::InputRequired { input_requests } = &waiting.task.payload else {
        panic!("not waiting: {:?}", waiting.task.payload);
    };
    let keys: Vec<String> = input_requests.keys().cloned().collect();
    assert_eq!(keys, ["elicitation-1"]);
    let answers = [(
        keys[0].clone(),
        json!({"action": "accept", "content": {"confirm": true}}),
    )]
    .into();
    client
        .update_task(UpdateTaskParams::new(&approve, answers))
        .await
        .expect("tasks/update");
    let done = until(&client, &approve, TaskStatus::Completed).await;
    assert_eq!(completed_text(&done), "approved");

    // Cancelled.
    let forever = create(&client, "forever").await;
    client
        .cancel_task(CancelTaskParams::new(&forever))
        .await
        .expect("tasks/cancel");
    let cancelled = until(&client, &forever, TaskStatus::Cancelled).await;
    assert_eq!(cancelled.task.status(), TaskStatus::Cancelled);

    // An unknown task is an error, not a hang.
    assert!(
        client
            .get_task(GetTaskParams::new("no-such-task"))
            .await
            .is_err()
    );
    client.cancel().await.ok();
}
