//! MCP elicitation through the real CLI: an external MCP server's tool asks the user a question
//! (`elicitation/create`), the CLI hands it to the host as an `elicitation` control request, and
//! the host's `Options::on_elicitation` callback answers; without a callback the question is
//! declined.

use std::sync::{Arc, Mutex};

use claude_tools_runtime::elicitation::{ElicitationAnswer, ElicitationMode, ElicitationRequest};
use claude_tools_runtime::options::{ExternalServer, Options};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{success_text, world};
use crate::run_query;

fn script() -> Script {
    Script::new()
        .turn(Turn::text("Asking.").and_tool_use(
            "toolu_e2e_confirm",
            "mcp__echo__confirm",
            json!({"question": "Deploy billing-api to production?"}),
        ))
        .turn(Turn::text("{{tool_result:toolu_e2e_confirm}}"))
}

fn with_echo(options: Options) -> Options {
    let echo = ExternalServer::stdio(env!("CARGO_BIN_EXE_echo-mcp"), Vec::<String>::new());
    options
        .external_mcp_server("echo", echo)
        .allowed_tools(["mcp__echo__confirm"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hosts_callback_answers_an_mcp_servers_question() {
    let Some(w) = world("elicitation_answered", script()).await else {
        return;
    };
    let asked: Arc<Mutex<Vec<ElicitationRequest>>> = Arc::default();
    let seen = asked.clone();
    let options = with_echo(w.options()).on_elicitation(move |request| {
        seen.lock().unwrap().push(request.clone());
        async move {
            ElicitationAnswer::accept(&request, json!({"approve": true, "note": "go"}))
                .expect("the answer fits the server's form")
        }
    });
    let messages = run_query("deploy", options).await;

    assert_eq!(
        success_text(&messages),
        r#"confirm: accept {"approve":true,"note":"go"}"#
    );
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let question = &asked[0];
    assert_eq!(question.server_name, "echo");
    assert_eq!(question.message, "Deploy billing-api to production?");
    assert_eq!(question.mode, ElicitationMode::Form);
    assert_eq!(
        question
            .requested_schema
            .clone()
            .map(serde_json::Value::Object),
        Some(claude_tools_testkit::stdio_mcp::confirm_schema())
    );
    assert_eq!(question.property_order, ["approve", "note"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_callback_the_question_is_declined() {
    let Some(w) = world("elicitation_declined", script()).await else {
        return;
    };
    // A one-shot query with an external server keeps the CLI's stdin open until the run ends,
    // so the question reaches the host (which declines) instead of being cancelled by a CLI
    // that can no longer ask.
    let messages = run_query("deploy", with_echo(w.options())).await;
    assert_eq!(success_text(&messages), "confirm: decline");
}
