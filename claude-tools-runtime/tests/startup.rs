//! `startup`: the CLI is started and initialized before the prompt is known; the session
//! options of `initialize` and of each user message, frame by frame.

use claude_tools_runtime::message::{Message, UserInput};
use claude_tools_runtime::options::{
    Options, PermissionMode, SYSTEM_PROMPT_DYNAMIC_BOUNDARY, SystemPrompt,
};
use claude_tools_runtime::query::{query_with, startup_with};
use claude_tools_runtime::transport::MemoryTransport;
use serde_json::json;

mod common;

use common::{Cli, connect_answering_initialize, result_frame};

#[tokio::test]
async fn startup_initializes_before_the_prompt_and_query_sends_it_later() {
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let warm = tokio::spawn(startup_with(Options::new(), transport));
    let initialize = cli.recv().await;
    assert_eq!(initialize["request"]["subtype"], "initialize");
    cli.answer(&initialize, json!({"claude_code_version": "2.1.332"}))
        .await;
    let warm = warm.await.unwrap().unwrap();
    assert_eq!(
        warm.initialize_info()
            .and_then(|i| i.claude_code_version.as_deref()),
        Some("2.1.332")
    );
    // Nothing goes to the CLI until the prompt is known.
    cli.silent_for(300).await;
    let mut stream = warm.query("now the prompt");
    assert_eq!(
        cli.recv().await,
        json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "now the prompt"},
            "parent_tool_use_id": null})
    );
    cli.send(result_frame()).await;
    // The run is over at its result: the CLI's input is closed then.
    cli.expect_eof().await;
    cli.0.close();
    let message = stream.next().await.expect("the result").unwrap();
    assert!(matches!(message, Message::Result(_)));
}

#[tokio::test]
async fn a_warm_query_closed_without_a_prompt_closes_the_cli_input() {
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let warm = tokio::spawn(startup_with(Options::new(), transport));
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    let warm = warm.await.unwrap().unwrap();
    let closing = tokio::spawn(warm.close());
    cli.expect_eof().await;
    cli.0.close();
    closing.await.unwrap();
}

#[tokio::test]
async fn verbatim_prompts_mark_every_user_message_client_composed() {
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let options = Options::new().verbatim_prompts(true);
    let stream = tokio::spawn(query_with("@notes.txt /compact", options, transport));
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    let _stream = stream.await.unwrap().unwrap();
    assert_eq!(
        cli.recv().await,
        json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "@notes.txt /compact"},
            "parent_tool_use_id": null, "client_composed": true})
    );
}

#[tokio::test]
async fn one_message_can_be_client_composed_on_its_own() {
    let (mut client, mut cli) = connect_answering_initialize(Options::new()).await;
    client
        .send(UserInput::text("as typed").client_composed())
        .await
        .unwrap();
    assert_eq!(cli.recv().await["client_composed"], true);
    client.query("expanded as usual").await.unwrap();
    assert!(cli.recv().await.get("client_composed").is_none());
}

#[tokio::test]
async fn the_session_options_travel_in_initialize_as_the_typescript_sdk_sends_them() {
    let (transport, cli) = MemoryTransport::pair();
    let mut cli = Cli(cli);
    let options = Options::new()
        .system_prompt(SystemPrompt::Sections(vec![
            "Shared rules.".into(),
            SYSTEM_PROMPT_DYNAMIC_BOUNDARY.into(),
            "This user's rules.".into(),
        ]))
        .system_prompt_snapshot(true)
        .permission_mode(PermissionMode::Plan)
        .plan_mode_instructions("Plan in three steps.")
        .title("Release checklist")
        .tool_alias("Bash", "mcp__box__bash")
        .forward_subagent_text(true)
        .prompt_suggestions(true)
        .agent_progress_summaries(true)
        .per_task_stop_affordance(true);
    let warm = tokio::spawn(startup_with(options, transport));
    let initialize = cli.recv().await;
    assert_eq!(
        initialize["request"],
        json!({
            "subtype": "initialize",
            "hooks": null,
            "systemPrompt": ["Shared rules.", "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__", "This user's rules."],
            "systemPromptSnapshot": true,
            "planModeInstructions": "Plan in three steps.",
            "title": "Release checklist",
            "toolAliases": {"Bash": "mcp__box__bash"},
            "promptSuggestions": true,
            "agentProgressSummaries": true,
            "forwardSubagentText": true,
            "perTaskStopAffordance": true,
        })
    );
    cli.answer(&initialize, json!({})).await;
    drop(warm.await.unwrap().unwrap());
}
