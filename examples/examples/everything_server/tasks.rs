//! Tools that run as tasks (MCP's tasks extension), for the suite's ten `tasks-*` scenarios:
//! the tool names, arguments and behaviours they call for.

use std::time::Duration;

use claude_tools::mcp::Elicitation;
use claude_tools::prelude::*;

use crate::Everything;

/// Greets `name` at once; never a task (`tasks-lifecycle`'s plain call).
#[tool(server = Everything)]
async fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds, then says so; a task when the client supports tasks. A
/// cancelled task stops at once.
#[tool(server = Everything, task = "optional")]
async fn slow_compute(
    context: ToolContext,
    /// How long to work, in seconds
    seconds: f64,
    /// A label, echoed in the result
    label: Option<String>,
) -> Result<String, ToolError> {
    let duration = Duration::try_from_secs_f64(seconds.max(0.0)).unwrap_or(Duration::ZERO);
    tokio::select! {
        () = tokio::time::sleep(duration) => {}
        () = context.cancelled() => return Err(ToolError::new("cancelled")),
    }
    Ok(format!(
        "computed {} after {seconds} s",
        label.as_deref().unwrap_or("(no label)")
    ))
}

/// The answer [`confirm_delete`] asks for.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Confirmation {
    /// Whether to delete the file
    confirm: bool,
}

/// Asks the user to confirm, then "deletes" `filename` (nothing is touched).
#[tool(server = Everything, task = "optional")]
async fn confirm_delete(
    context: ToolContext,
    /// The file to delete
    filename: String,
) -> Result<String, ToolError> {
    let message = format!("Delete {filename}?");
    match context.elicit::<Confirmation>(message).await? {
        Elicitation::Accepted(Confirmation { confirm: true }) => Ok(format!("deleted {filename}")),
        _ => Ok(format!("kept {filename}")),
    }
}

/// The answer each of [`multi_input`]'s questions asks for.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Named {
    /// A name
    name: String,
}

/// Asks two questions at once, then returns both answers.
#[tool(server = Everything, task = "optional")]
async fn multi_input(context: ToolContext) -> Result<String, ToolError> {
    let (first, second) = tokio::join!(
        context.elicit::<Named>("First name?"),
        context.elicit::<Named>("Second name?"),
    );
    let name = |answer: Elicitation<Named>| match answer {
        Elicitation::Accepted(Named { name }) => name,
        _ => "(none)".to_string(),
    };
    Ok(format!("got {} and {}", name(first?), name(second?)))
}

/// Fails after about a second (an `isError` result, so the task completes); runs only as a
/// task.
#[tool(server = Everything, task)]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("the job failed"))
}

/// Panics: a server fault, so the task fails with a JSON-RPC error.
#[tool(server = Everything, task)]
async fn protocol_error_job() -> String {
    tokio::time::sleep(Duration::from_millis(100)).await;
    panic!("protocol_error_job always fails")
}

/// Asks the user's name (as a plain 2026-07-28 call's question, under `user_name`), then
/// works on as a task and greets them.
#[tool(server = Everything, task, task_start = "first_wait")]
async fn test_tool_with_task(context: ToolContext) -> Result<String, ToolError> {
    let name = match context
        .question("user_name")
        .elicit::<Named>("What is your name?")
        .await?
    {
        Elicitation::Accepted(Named { name }) => name,
        _ => "stranger".to_string(),
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(format!("Hello, {name}!"))
}
