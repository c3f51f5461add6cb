//! The session options the real CLI acts on offline: the system prompt's forms, plan-mode
//! instructions, verbatim prompts, the title, no persistence, tool aliases and the main-thread
//! agent, each seen in what the CLI sends the scripted model or writes to disk.

use claude_tools::sessions::{ListSessions, Lookup, list_sessions};
use claude_tools_runtime::options::{
    AgentDefinition, PermissionMode, SYSTEM_PROMPT_DYNAMIC_BOUNDARY, SystemPrompt,
};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{World, success_text, world};
use crate::{run_query, tools};

/// Everything the CLI sent the model in its first request, as text.
fn first_request(w: &World) -> String {
    let turns = w.turns();
    let request = turns.first().expect("a model request");
    request.body.as_ref().expect("a JSON body").to_string()
}

/// The system prompt of the first request, as text.
fn first_system(w: &World) -> String {
    let turns = w.turns();
    let request = turns.first().expect("a model request");
    request.body.as_ref().expect("a JSON body")["system"].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_system_prompt_in_sections_and_one_from_a_file_reach_the_model() {
    let Some(w) = world("prompt_sections", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    let options = w.options().system_prompt(SystemPrompt::Sections(vec![
        "SHARED-RULES-7Q".into(),
        SYSTEM_PROMPT_DYNAMIC_BOUNDARY.into(),
        "USER-RULES-3K".into(),
    ]));
    assert_eq!(success_text(&run_query("hi", options).await), "ok");
    let system = first_system(&w);
    assert!(system.contains("SHARED-RULES-7Q"), "{system}");
    assert!(system.contains("USER-RULES-3K"), "{system}");
    assert!(
        !system.contains("__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__"),
        "{system}"
    );

    let Some(w) = world("prompt_file", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    let file = w.path("prompt.md");
    std::fs::write(&file, "FILE-PROMPT-9Z: answer tersely.").expect("prompt file");
    let options = w.options().system_prompt(SystemPrompt::File(file));
    assert_eq!(success_text(&run_query("hi", options).await), "ok");
    let system = first_system(&w);
    assert!(system.contains("FILE-PROMPT-9Z"), "{system}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_instructions_replace_the_plan_workflow() {
    let Some(w) = world(
        "plan_mode_instructions",
        Script::new().turn(Turn::text("ok")),
    )
    .await
    else {
        return;
    };
    let options = w
        .options()
        .permission_mode(PermissionMode::Plan)
        .plan_mode_instructions("PLAN-STEPS-4W: list the files, then stop.");
    assert_eq!(success_text(&run_query("plan it", options).await), "ok");
    let request = first_request(&w);
    assert!(request.contains("PLAN-STEPS-4W"), "{request}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verbatim_prompts_leave_a_file_mention_unexpanded() {
    let script = Script::new().turn(Turn::text("ok"));
    let Some(w) = world("mention_expanded", script.clone()).await else {
        return;
    };
    std::fs::write(w.cwd.join("notes.txt"), "NOTE-CONTENT-5R").expect("notes");
    assert_eq!(
        success_text(&run_query("summarize @notes.txt", w.options()).await),
        "ok"
    );
    // As typed, the CLI reads the mentioned file into the turn…
    assert!(first_request(&w).contains("NOTE-CONTENT-5R"));

    let Some(w) = world("mention_verbatim", script).await else {
        return;
    };
    std::fs::write(w.cwd.join("notes.txt"), "NOTE-CONTENT-5R").expect("notes");
    let options = w.options().verbatim_prompts(true);
    assert_eq!(
        success_text(&run_query("summarize @notes.txt", options).await),
        "ok"
    );
    // …composed by the application, it takes the text as written.
    let request = first_request(&w);
    assert!(!request.contains("NOTE-CONTENT-5R"), "{request}");
    assert!(request.contains("summarize @notes.txt"), "{request}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_title_names_the_session_and_without_persistence_nothing_is_written() {
    let Some(w) = world("titled", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    let options = w.options().title("Nightly triage");
    assert_eq!(success_text(&run_query("hi", options).await), "ok");
    let list = ListSessions::new().lookup(Lookup::from(&w.options()));
    let sessions = list_sessions(&list).expect("list");
    assert_eq!(sessions.len(), 1, "{sessions:#?}");
    assert_eq!(sessions[0].custom_title.as_deref(), Some("Nightly triage"));

    let Some(w) = world("not_persisted", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    let options = w.options().persist_session(false);
    assert_eq!(success_text(&run_query("hi", options).await), "ok");
    let list = ListSessions::new().lookup(Lookup::from(&w.options()));
    assert_eq!(list_sessions(&list).expect("list"), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_alias_routes_a_built_in_name_to_an_in_process_tool() {
    // The model calls `Bash`; the alias runs the host's counter instead.
    let script = Script::new()
        .turn(Turn::tool_use("toolu_alias", "Bash", json!({"by": 5})))
        .turn(Turn::text("got: {{tool_result}}"));
    let Some(w) = world("tool_alias", script).await else {
        return;
    };
    let (server, _lab) = tools::server(10);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"])
        .tool_alias("Bash", "mcp__e2e__counter_add");
    let messages = run_query("add five", options).await;
    assert_eq!(success_text(&messages), "got: counter is now 15");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_main_agent_runs_the_main_thread() {
    let Some(w) = world("main_agent", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    let reviewer = AgentDefinition::new("Reviews changes", "AGENT-PROMPT-2J: you review diffs.");
    let options = w
        .options()
        .agent("reviewer", reviewer)
        .main_agent("reviewer");
    assert_eq!(success_text(&run_query("review", options).await), "ok");
    let system = first_system(&w);
    assert!(system.contains("AGENT-PROMPT-2J"), "{system}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cli_started_before_the_prompt_answers_it_with_an_in_process_tool() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_warm",
            "mcp__e2e__counter_add",
            json!({"by": 1}),
        ))
        .turn(Turn::text("warm: {{tool_result}}"));
    let Some(w) = world("startup", script).await else {
        return;
    };
    let (server, _lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"]);
    let warm = crate::harness::within("startup", claude_tools::startup(options))
        .await
        .expect("the CLI starts and answers initialize");
    let info = warm.initialize_info().expect("the initialize answer");
    assert!(info.claude_code_version.is_some(), "{info:?}");
    // Started and initialized, it waits for the prompt: the model has not been asked anything.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(w.turns().is_empty());
    let messages = crate::harness::within("query", warm.query("add one").collect())
        .await
        .expect("the stream has no errors");
    assert_eq!(success_text(&messages), "warm: counter is now 1");
}
