//! The model settings of `Options` (thinking, thinking display, betas) reach the model: the
//! real CLI puts them in its requests to the scripted model server.

use claude_tools_runtime::options::{Thinking, ThinkingDisplay};
use claude_tools_testkit::model_server::{Script, Turn};

use crate::harness::{success_text, world};
use crate::run_query;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thinking_budget_and_betas_are_in_the_model_request() {
    let Some(w) = world("model_settings", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    // A fixed budget is for models without adaptive thinking (the CLI turns it into adaptive
    // thinking for the newer ones).
    let options = w
        .options()
        .model("claude-haiku-4-5")
        .thinking(Thinking::Budget(3000))
        .thinking_display(ThinkingDisplay::Summarized)
        .betas(["context-1m-2025-08-07"]);
    let messages = run_query("think", options).await;
    assert_eq!(success_text(&messages), "ok");
    let turns = w.turns();
    let request = turns.first().expect("a model request");
    let body = request.body.as_ref().expect("a JSON body");
    assert_eq!(body["thinking"]["type"], "enabled", "{body:#}");
    assert_eq!(body["thinking"]["budget_tokens"], 3000, "{body:#}");
    assert_eq!(body["thinking"]["display"], "summarized", "{body:#}");
    let betas = request.header("anthropic-beta").unwrap_or_default();
    assert!(betas.contains("context-1m-2025-08-07"), "{betas}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thinking_disabled_sends_no_thinking() {
    let Some(w) = world("thinking_disabled", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    let options = w
        .options()
        .model("claude-haiku-4-5")
        .thinking(Thinking::Disabled);
    let messages = run_query("no thinking", options).await;
    assert_eq!(success_text(&messages), "ok");
    let turns = w.turns();
    let body = turns[0].body.as_ref().expect("a JSON body");
    assert!(
        body.get("thinking").is_none() || body["thinking"]["type"] == "disabled",
        "{body:#}"
    );
}
