//! An MCP server whose tools ask the client questions while they run (elicitation, sampling,
//! roots), for the tests that drive it with the official Python client: over stdio by default,
//! over Streamable HTTP with `--http` (sessions on; `--stateless` turns them off), printing its
//! URL on the first line.

use claude_tools::mcp::http::HttpServer;
use claude_tools::mcp::{CreateMessageRequest, Elicitation, ModelPreferences, SamplingMessage};
use claude_tools::prelude::*;

#[tool_server(name = "ask", version = "1.0.0")]
struct Ask;

/// The user's go-ahead.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Delete it?
    confirm: bool,
    /// Why, if you like
    reason: Option<String>,
}

/// Delete a file, once the user has confirmed.
#[tool(server = Ask, destructive)]
async fn delete_file(
    ctx: ToolContext,
    /// The file
    path: String,
) -> Result<String, ToolError> {
    let question = format!("Delete {path}?");
    match ctx.elicit::<Confirm>(question).await? {
        Elicitation::Accepted(Confirm {
            confirm: true,
            reason,
        }) => Ok(format!(
            "deleted {path} ({})",
            reason.unwrap_or_else(|| "no reason".into())
        )),
        Elicitation::Accepted(Confirm { confirm: false, .. }) => {
            Ok(format!("kept {path}: not confirmed"))
        }
        Elicitation::Declined => Ok(format!("kept {path}: declined")),
        Elicitation::Cancelled => Ok(format!("kept {path}: cancelled")),
    }
}

/// Name a colour, asking the client's model.
#[tool(server = Ask, read_only)]
async fn name_colour(
    ctx: ToolContext,
    /// The colour, e.g. "#ff7f50"
    hex: String,
) -> Result<String, ToolError> {
    let request = CreateMessageRequest::new([SamplingMessage::user(format!("Name {hex}"))], 20)
        .system_prompt("Answer with one word.")
        .model_preferences(ModelPreferences::default().hint("haiku"));
    let answer = ctx.create_message(request).await?;
    Ok(format!(
        "{hex} is {} (said {})",
        answer.text().unwrap_or("?"),
        answer.model
    ))
}

/// List the client's roots.
#[tool(server = Ask, read_only)]
async fn roots(ctx: ToolContext) -> Result<String, ToolError> {
    let roots = ctx.list_roots().await?;
    Ok(roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect::<Vec<_>>()
        .join(","))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|arg| arg == "--http") {
        return Ask::server().serve_stdio().await;
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let sessions = !args.iter().any(|arg| arg == "--stateless");
    println!("http://{}/mcp", listener.local_addr()?);
    HttpServer::new(Ask::server())
        .sessions(sessions)
        .serve(listener)
        .with_graceful_shutdown(claude_tools::mcp::shutdown_signal())
        .await
}
