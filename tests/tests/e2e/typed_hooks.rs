//! Typed hooks through the real CLI and the scripted model, one scenario per hook family: the
//! callback reads its input through `HookInput::typed`, answers with a typed
//! `hookSpecificOutput` (`HookOutput::specific`), and the test sees the CLI act on it, in what
//! the model was sent or what the tool received.

use std::sync::{Arc, Mutex};

use claude_tools_runtime::hooks::{
    ContextOutput, HookEvent, HookMatcher, HookOutput, HookPermissionDecision, HookSpecificOutput,
    OnFailure, PermissionRequestOutput, PostToolUseOutput, PreToolUseOutput, SessionStartOutput,
    SessionStartSource, TypedHookInput, UserPromptSubmitOutput,
};
use claude_tools_testkit::model_server::{RecordedRequest, Script, Turn};
use serde_json::json;

use claude_tools_runtime::client::Client;

use crate::harness::{dump, success_text, tr, within, world};
use crate::{run_query, tools};

/// Whether `marker` is anywhere in what the model was sent in `request`.
pub(crate) fn sent(request: &RecordedRequest, marker: &str) -> bool {
    request
        .body
        .as_ref()
        .is_some_and(|body| body.to_string().contains(marker))
}

/// What a hook saw, for the assertions after the run.
pub(crate) type Seen<T> = Arc<Mutex<Vec<T>>>;

/// The CLI 2.1.332 does not call a host's SessionStart callback when the session starts (it
/// starts the session before it reads `initialize`, with or without `--await-initialize`), but
/// does when a compaction starts it anew: this scenario compacts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_start_a_typed_input_is_read_and_its_context_reaches_the_model() {
    let script = Script::new()
        .turn(Turn::text("Hi there."))
        .turn(Turn::text("<summary>The user said hello.</summary>"))
        .turn(Turn::text("Noted."));
    let Some(w) = world("typed_session_start", script).await else {
        return;
    };
    let seen: Seen<SessionStartSource> = Seen::default();
    let seen_in_hook = seen.clone();
    let options = w.options().hook(
        HookEvent::SessionStart,
        HookMatcher::any().callback(move |input| {
            let output = match input.typed() {
                TypedHookInput::SessionStart(start) => {
                    seen_in_hook.lock().unwrap().push(start.source.clone());
                    HookOutput::new().specific(HookSpecificOutput::SessionStart(
                        SessionStartOutput::default()
                            .additional_context(format!("SESSION-CONTEXT-{}", start.source)),
                    ))
                }
                _ => HookOutput::new(),
            };
            async move { output }
        }),
    );
    within("session start scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        for prompt in ["hello", "/compact", "again"] {
            client.query(prompt).await.unwrap();
            let messages = client.receive_response().await.expect("response");
            let _ = success_text(&messages);
        }
        client.disconnect().await.expect("disconnect");
    })
    .await;
    assert_eq!(*seen.lock().unwrap(), [SessionStartSource::Compact]);
    let turns = w.turns();
    assert!(!sent(&turns[0], "SESSION-CONTEXT"));
    let last = turns.last().expect("a request after the compaction");
    assert!(sent(last, "SESSION-CONTEXT-compact"), "{:#?}", last.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_prompt_submit_the_prompt_is_read_and_its_context_goes_with_it() {
    let Some(w) = world(
        "typed_user_prompt",
        Script::new().turn(Turn::text("Noted.")),
    )
    .await
    else {
        return;
    };
    let options = w.options().hook(
        HookEvent::UserPromptSubmit,
        HookMatcher::any().callback(|input| {
            let output = match input.typed() {
                TypedHookInput::UserPromptSubmit(submit) => {
                    HookOutput::new().specific(HookSpecificOutput::UserPromptSubmit(
                        UserPromptSubmitOutput::default()
                            .additional_context(format!("PROMPT-WAS-{}", submit.prompt.len())),
                    ))
                }
                _ => HookOutput::new(),
            };
            async move { output }
        }),
    );
    let messages = run_query("twelve chars", options).await;
    assert_eq!(success_text(&messages), "Noted.");
    let turns = w.turns();
    assert!(sent(&turns[0], "PROMPT-WAS-12"), "{:#?}", turns[0].body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_tool_use_a_typed_allow_with_updated_input_changes_what_the_tool_gets() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_pre",
            "mcp__e2e__greet",
            json!({"name": "Mallory"}),
        ))
        .turn(Turn::text("Said: {{tool_result}}"));
    let Some(w) = world("typed_pre_tool_use", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w.options().mcp_server(server).hook(
        HookEvent::PreToolUse,
        HookMatcher::new("mcp__e2e__.*").callback(|input| {
            let output = match input.typed() {
                TypedHookInput::PreToolUse(call) if call.tool_input["name"] == "Mallory" => {
                    HookOutput::new().specific(HookSpecificOutput::PreToolUse(
                        PreToolUseOutput::default()
                            .permission_decision(HookPermissionDecision::Allow)
                            .permission_decision_reason("renamed")
                            .updated_input(
                                json!({"name": format!("Alice ({})", call.tool_use_id)}),
                            ),
                    ))
                }
                _ => HookOutput::new(),
            };
            async move { output }
        }),
    );
    let messages = run_query("greet Mallory", options).await;
    assert_eq!(
        lab.received(),
        [(
            "greet",
            json!({"name": "Alice (toolu_typed_pre)"}),
            "toolu_typed_pre".to_string()
        )]
    );
    assert_eq!(
        success_text(&messages),
        "Said: Hello, Alice (toolu_typed_pre)!"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_tool_use_updated_mcp_tool_output_replaces_what_the_model_sees() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_post",
            "mcp__e2e__greet",
            json!({"name": "Bob"}),
        ))
        .turn(Turn::text("Said: {{tool_result}}"));
    let Some(w) = world("typed_post_tool_use", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let seen: Seen<String> = Seen::default();
    let seen_in_hook = seen.clone();
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__greet"])
        .hook(
            HookEvent::PostToolUse,
            HookMatcher::new("mcp__e2e__greet").callback(move |input| {
                let output = match input.typed() {
                    TypedHookInput::PostToolUse(done) => {
                        seen_in_hook
                            .lock()
                            .unwrap()
                            .push(done.tool_response.to_string());
                        HookOutput::new().specific(HookSpecificOutput::PostToolUse(
                            // The shape of the input's `tool_response`: the content blocks.
                            PostToolUseOutput::default().updated_mcp_tool_output(json!([
                                {"type": "text", "text": "[greeting redacted]"}
                            ])),
                        ))
                    }
                    _ => HookOutput::new(),
                };
                async move { output }
            }),
        );
    let messages = run_query("greet Bob", options).await;
    // The tool ran, the hook read its real output, and the model saw the replacement.
    assert_eq!(lab.received().len(), 1);
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.len() == 1 && seen[0].contains("Hello, Bob!"),
        "{seen:?}"
    );
    assert_eq!(
        w.tool_results(),
        [tr("toolu_typed_post", "[greeting redacted]", false)]
    );
    assert_eq!(success_text(&messages), "Said: [greeting redacted]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_request_a_typed_deny_answers_instead_of_the_user() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_perm",
            "mcp__e2e__greet",
            json!({"name": "Eve"}),
        ))
        .turn(Turn::text("Got: {{tool_result}}"));
    let Some(w) = world("typed_permission_request", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let seen: Seen<(String, serde_json::Value)> = Seen::default();
    let seen_in_hook = seen.clone();
    // The tool is not allowed up front: the CLI asks, and the hook answers.
    let options = w.options().mcp_server(server).hook(
        HookEvent::PermissionRequest,
        HookMatcher::any().callback(move |input| {
            let output = match input.typed() {
                TypedHookInput::PermissionRequest(request) => {
                    seen_in_hook
                        .lock()
                        .unwrap()
                        .push((request.tool_name.clone(), request.tool_input.clone()));
                    HookOutput::new().specific(HookSpecificOutput::PermissionRequest(
                        PermissionRequestOutput::deny("no greetings for Eve", false),
                    ))
                }
                _ => HookOutput::new(),
            };
            async move { output }
        }),
    );
    let messages = run_query("greet Eve", options).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [("mcp__e2e__greet".to_string(), json!({"name": "Eve"}))],
        "{:#?}",
        dump(&messages)
    );
    assert_eq!(lab.received(), []);
    let results = w.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(
        results[0].2 && results[0].1.contains("no greetings for Eve"),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_a_typed_context_makes_the_agent_go_on_once() {
    let script = Script::new()
        .turn(Turn::text("First answer."))
        .turn(Turn::text("Second answer."));
    let Some(w) = world("typed_stop", script).await else {
        return;
    };
    let seen: Seen<bool> = Seen::default();
    let seen_in_hook = seen.clone();
    let options = w.options().hook(
        HookEvent::Stop,
        HookMatcher::any().callback(move |input| {
            let output = match input.typed() {
                TypedHookInput::Stop(stop) => {
                    seen_in_hook.lock().unwrap().push(stop.stop_hook_active);
                    if stop.stop_hook_active {
                        HookOutput::new()
                    } else {
                        HookOutput::new().specific(HookSpecificOutput::Stop(
                            ContextOutput::default().additional_context("STOP-FEEDBACK: go on"),
                        ))
                    }
                }
                _ => HookOutput::new(),
            };
            async move { output }
        }),
    );
    let messages = run_query("answer", options).await;
    let turns = w.turns();
    assert_eq!(turns.len(), 2, "{:#?}", dump(&messages));
    assert!(!sent(&turns[0], "STOP-FEEDBACK"));
    assert!(
        sent(&turns[1], "STOP-FEEDBACK: go on"),
        "{:#?}",
        turns[1].body
    );
    assert_eq!(success_text(&messages), "Second answer.");
    assert_eq!(seen.lock().unwrap().first(), Some(&false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subagent_start_the_agent_type_is_read_and_its_context_reaches_the_subagent() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_task",
            "Task",
            json!({"description": "Sub", "prompt": "Say hi.", "subagent_type": "general-purpose"}),
        ))
        // The subagent's request is told apart by its prompt (by position it would get the
        // first turn again, and start a subagent of its own).
        .turn(Turn::text("Hi from the subagent.").when_user_text("Say hi."))
        .turn(Turn::text("The subagent said hi."))
        // The subagent runs in the background: its report comes back as one more prompt.
        .turn(Turn::text("Noted its report."));
    let Some(w) = world("typed_subagent_start", script).await else {
        return;
    };
    let seen: Seen<Option<String>> = Seen::default();
    let seen_in_hook = seen.clone();
    let options = w.options().allowed_tools(["Task"]).hook(
        HookEvent::SubagentStart,
        HookMatcher::any().callback(move |input| {
            let output = match input.typed() {
                TypedHookInput::SubagentStart(start) => {
                    seen_in_hook
                        .lock()
                        .unwrap()
                        .push(start.base.agent_type.clone());
                    HookOutput::new().specific(HookSpecificOutput::SubagentStart(
                        ContextOutput::default().additional_context("SUBAGENT-CONTEXT"),
                    ))
                }
                _ => HookOutput::new(),
            };
            async move { output }
        }),
    );
    let messages = run_query("delegate", options).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [Some("general-purpose".to_string())],
        "{:#?}",
        dump(&messages)
    );
    let turns = w.turns();
    let subagent = turns
        .iter()
        .find(|turn| turn.last_user_text().contains("Say hi."))
        .expect("the subagent's request");
    assert!(sent(subagent, "SUBAGENT-CONTEXT"), "{:#?}", subagent.body);
    assert!(!sent(&turns[0], "SUBAGENT-CONTEXT"));
}

/// A hook whose callback panics (the host answers the CLI with an error), for a tool call.
async fn panicking_guard(test: &str, on_failure: OnFailure) -> Option<Vec<String>> {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_guard",
            "mcp__e2e__greet",
            json!({"name": "Guarded"}),
        ))
        .turn(Turn::text("After: {{tool_result}}"));
    let w = world(test, script).await?;
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__greet"])
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::new("mcp__e2e__.*")
                .on_failure(on_failure)
                .callback(|_input| async { panic!("the policy service is down") }),
        );
    let messages = run_query("greet", options).await;
    let _ = success_text(&messages);
    Some(
        lab.received()
            .into_iter()
            .map(|(tool, _, _)| tool.to_string())
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_failure_block_keeps_the_tool_from_running_when_its_hook_fails() {
    // The CLI 2.1.332 confirms it honours `onFailure` (else the session would not start).
    let Some(ran) = panicking_guard("on_failure_block", OnFailure::Block).await else {
        return;
    };
    assert_eq!(ran, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_failure_continue_lets_the_tool_run_when_its_hook_fails() {
    let Some(ran) = panicking_guard("on_failure_continue", OnFailure::Continue).await else {
        return;
    };
    assert_eq!(ran, ["greet"]);
}

/// One call of `greet` guarded by a `PreToolUse` matcher: what the tool received, and the
/// tool results the model was sent.
async fn guarded_greet(
    test: &str,
    guard: HookMatcher,
) -> Option<(Vec<String>, Vec<(String, String, bool)>)> {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_mismatch",
            "mcp__e2e__greet",
            json!({"name": "Mallory"}),
        ))
        .turn(Turn::text("After: {{tool_result}}"));
    let w = world(test, script).await?;
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__greet"])
        .hook(HookEvent::PreToolUse, guard);
    let messages = run_query("greet Mallory", options).await;
    let _ = success_text(&messages);
    let ran = lab
        .received()
        .into_iter()
        .map(|(tool, _, _)| tool.to_string())
        .collect();
    Some((ran, w.tool_results()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typed_pre_tool_use_guard_denies_through_the_real_cli() {
    let guard = HookMatcher::new("mcp__e2e__.*").pre_tool_use(|call| async move {
        if call.tool_input["name"] == "Mallory" {
            return PreToolUseOutput::default()
                .permission_decision(HookPermissionDecision::Deny)
                .permission_decision_reason("TYPED-DENY: not Mallory");
        }
        PreToolUseOutput::default()
    });
    let Some((ran, results)) = guarded_greet("typed_guard_deny", guard).await else {
        return;
    };
    assert_eq!(ran, Vec::<String>::new());
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(
        results[0].2 && results[0].1.contains("TYPED-DENY"),
        "{results:?}"
    );
}

/// What the CLI 2.1.332 does with a `PreToolUse` answer whose `hookSpecificOutput` names
/// another event (sent raw through `HookOutput::field`, which the session does not check):
/// pinned, as the reason the session refuses such answers instead of sending them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_2_1_332_with_a_pre_tool_use_answer_naming_another_event() {
    let guard = HookMatcher::new("mcp__e2e__.*").callback(|_input| async {
        HookOutput::new().field(
            "hookSpecificOutput",
            json!({"hookEventName": "PostToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": "MISMATCHED-DENY"}),
        )
    });
    let Some((ran, results)) = guarded_greet("mismatched_raw", guard).await else {
        return;
    };
    // The CLI does not run the call, whatever `onFailure` says, and tells the model so.
    assert_eq!(ran, Vec::<String>::new());
    assert_eq!(
        results,
        [tr(
            "toolu_mismatch",
            "PreToolUse hook failed with an unexpected error. The tool call was not executed; \
             other configured hooks may not have completed.",
            true
        )]
    );
}

/// The session refuses a `PreToolUse` answer with a `PostToolUse` output and denies the call
/// (with the default `onFailure`, under which an error answer would let it run).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_for_another_event_is_refused_and_the_call_denied() {
    let guard = HookMatcher::new("mcp__e2e__.*").callback(|_input| async {
        HookOutput::new().specific(HookSpecificOutput::PostToolUse(
            PostToolUseOutput::default().additional_context("after"),
        ))
    });
    let Some((ran, results)) = guarded_greet("mismatched_refused", guard).await else {
        return;
    };
    assert_eq!(ran, Vec::<String>::new());
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(
        results[0].2
            && results[0]
                .1
                .contains("a PreToolUse hook answered with the hookSpecificOutput of PostToolUse"),
        "{results:?}"
    );
}
