//! An in-process tool asks a question while it runs, with the real CLI running the session: the
//! host's `Options::on_elicitation` callback answers the tool's elicitation (the session answers
//! it in-process: the CLI 2.1.332 answers an in-process server's `elicitation/create`,
//! `sampling/createMessage` and `roots/list` with `-32601`), and the tool acts on the answer,
//! which the model reads in the tool result.

use std::sync::{Arc, Mutex};

use claude_tools::mcp::{CreateMessageRequest, Elicitation, SamplingMessage};
use claude_tools::prelude::*;
use claude_tools_runtime::elicitation::{ElicitationAnswer, ElicitationRequest};
use claude_tools_runtime::options::Options;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{success_text, world};
use crate::run_query;

#[tool_server(name = "desk", version = "1.0.0")]
pub struct Desk;

/// The user's go-ahead.
#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Deploy now?
    approve: bool,
}

/// Deploy a service, once the user has confirmed.
#[tool(server = Desk)]
async fn deploy(
    ctx: ToolContext,
    /// The service
    service: String,
) -> String {
    match ctx.elicit::<Confirm>(format!("Deploy {service}?")).await {
        Ok(Elicitation::Accepted(Confirm { approve: true })) => format!("deployed {service}"),
        Ok(Elicitation::Accepted(Confirm { approve: false })) => format!("held {service}"),
        Ok(Elicitation::Declined) => format!("declined {service}"),
        Ok(Elicitation::Cancelled) => format!("cancelled {service}"),
        Err(error) => format!("error: {error}"),
    }
}

/// Ask the client's model.
#[tool(server = Desk)]
async fn sample(ctx: ToolContext) -> String {
    let request = CreateMessageRequest::new([SamplingMessage::user("hi")], 10);
    match ctx.create_message(request).await {
        Ok(result) => format!("sampled {}", result.text().unwrap_or("?")),
        Err(error) => format!("error: {error}"),
    }
}

/// List the client's roots.
#[tool(server = Desk)]
async fn roots(ctx: ToolContext) -> String {
    match ctx.list_roots().await {
        Ok(roots) => format!("roots {}", roots.len()),
        Err(error) => format!("error: {error}"),
    }
}

fn script(tool: &str, input: serde_json::Value) -> Script {
    Script::new()
        .turn(Turn::text("Working.").and_tool_use(
            "toolu_e2e_ask",
            format!("mcp__desk__{tool}"),
            input,
        ))
        .turn(Turn::text("{{tool_result:toolu_e2e_ask}}"))
}

fn with_desk(options: Options) -> Options {
    options.mcp_server(Desk::server()).allowed_tools([
        "mcp__desk__deploy",
        "mcp__desk__sample",
        "mcp__desk__roots",
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_in_process_tool_asks_the_host_and_acts_on_the_answer() {
    let Some(w) = world(
        "questions_elicit",
        script("deploy", json!({"service": "billing-api"})),
    )
    .await
    else {
        return;
    };
    let asked: Arc<Mutex<Vec<ElicitationRequest>>> = Arc::default();
    let seen = asked.clone();
    let options = with_desk(w.options()).on_elicitation(move |request| {
        seen.lock().unwrap().push(request.clone());
        async move {
            ElicitationAnswer::accept(&request, json!({"approve": true}))
                .expect("the answer fits the tool's form")
        }
    });
    let messages = run_query("deploy billing-api", options).await;
    assert_eq!(success_text(&messages), "deployed billing-api");
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].server_name, "desk");
    assert_eq!(asked[0].message, "Deploy billing-api?");
    assert_eq!(
        asked[0]
            .requested_schema
            .clone()
            .map(serde_json::Value::Object),
        Some(json!({"type": "object", "properties": {
            "approve": {"type": "boolean", "description": "Deploy now?"}
        }, "required": ["approve"]}))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_callback_the_question_is_declined() {
    let Some(w) = world(
        "questions_declined",
        script("deploy", json!({"service": "billing-api"})),
    )
    .await
    else {
        return;
    };
    let messages = run_query("deploy billing-api", with_desk(w.options())).await;
    assert_eq!(success_text(&messages), "declined billing-api");
}

/// The CLI answers an in-process server's `sampling/createMessage` and `roots/list` with
/// `-32601` (observed with 2.1.332, see `claude-tools-runtime/src/session/servers.rs`), so the
/// session does not announce them and a tool asking gets the clear error, nothing sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_and_roots_are_not_offered_in_process() {
    for (tool, capability, what) in [
        ("sample", "sampling", "a message from its model (sampling)"),
        ("roots", "roots", "its roots"),
    ] {
        let Some(w) = world(&format!("questions_{tool}"), script(tool, json!({}))).await else {
            return;
        };
        let messages = run_query(tool, with_desk(w.options())).await;
        assert_eq!(
            success_text(&messages),
            format!(
                "error: the client did not announce the `{capability}` capability when it \
                 connected, so it cannot be asked for {what}; nothing was sent"
            )
        );
    }
}
