//! Callbacks typed by their event, for every event with an output of its own beyond
//! `PreToolUse` / `PostToolUse` (`hooks_fail_closed.rs` has those): each gets its input typed,
//! its answer goes out as its event's `hookSpecificOutput`, and an input that does not fit
//! never reaches it (the event's refusal goes out instead). Each test plays the CLI's side of
//! the wire.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use claude_tools_runtime::client::Client;
use claude_tools_runtime::hooks::{
    ContextOutput, HookEvent, HookMatcher, PermissionRequestOutput, PreToolUseOutput,
    SessionStartOutput, UserPromptSubmitOutput,
};
use claude_tools_runtime::options::Options;
use serde_json::{Value, json};

mod common;

use common::{Cli, Connecting};

async fn connect(options: Options) -> (Client, Cli) {
    let (connecting, mut cli) = Connecting::start(options);
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    (connecting.client().await, cli)
}

/// A `hook_callback` request for `hook_0` with this input.
fn hook_request(request_id: &str, input: Value) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": {
        "subtype": "hook_callback", "callback_id": "hook_0", "input": input}})
}

/// An input of `event` with the fields every event has, and `fields`.
fn input(event: &str, fields: Value) -> Value {
    let mut input = json!({"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/w",
        "hook_event_name": event});
    for (key, value) in fields.as_object().cloned().unwrap_or_default() {
        input[key] = value;
    }
    input
}

/// Sends `good` and then `unreadable` to a session whose only hook is `matcher` for `event`,
/// and returns the two answers' `response`s and how often the callback ran.
async fn answers(
    event: HookEvent,
    matcher: impl FnOnce(Arc<AtomicUsize>) -> HookMatcher,
    good: Value,
    unreadable: Value,
) -> (Value, Value, usize) {
    let calls = Arc::new(AtomicUsize::new(0));
    let (_client, mut cli) = connect(Options::new().hook(event, matcher(calls.clone()))).await;
    cli.send(hook_request("h1", good)).await;
    let first = cli.recv().await;
    cli.send(hook_request("h2", unreadable)).await;
    let second = cli.recv().await;
    let response = |answer: &Value, id: &str| {
        assert_eq!(answer["response"]["request_id"], id, "{answer}");
        assert_eq!(answer["response"]["subtype"], "success", "{answer}");
        answer["response"]["response"].clone()
    };
    (
        response(&first, "h1"),
        response(&second, "h2"),
        calls.load(Ordering::SeqCst),
    )
}

#[tokio::test]
async fn user_prompt_submit_is_typed_and_blocks_what_it_cannot_read() {
    let (good, refused, calls) = answers(
        HookEvent::UserPromptSubmit,
        |calls| {
            HookMatcher::any().user_prompt_submit(move |submit| {
                calls.fetch_add(1, Ordering::SeqCst);
                async move {
                    UserPromptSubmitOutput::default()
                        .additional_context(format!("{} chars", submit.prompt.len()))
                }
            })
        },
        input("UserPromptSubmit", json!({"prompt": "hello"})),
        input("UserPromptSubmit", json!({"prompt": 7})),
    )
    .await;
    assert_eq!(
        good,
        json!({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
            "additionalContext": "5 chars"}})
    );
    assert_eq!(refused["decision"], "block", "{refused}");
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .starts_with("claude-tools could not read this UserPromptSubmit hook input"),
        "{refused}"
    );
    assert_eq!(calls, 1, "the unreadable input reached the callback");
}

#[tokio::test]
async fn permission_request_is_typed_and_denies_what_it_cannot_read() {
    let (good, refused, calls) = answers(
        HookEvent::PermissionRequest,
        |calls| {
            HookMatcher::new("Read").permission_request(move |request| {
                calls.fetch_add(1, Ordering::SeqCst);
                async move {
                    if request.tool_input["file_path"] == "/srv/docs/a.md" {
                        PermissionRequestOutput::allow()
                    } else {
                        PermissionRequestOutput::deny("docs only", false)
                    }
                }
            })
        },
        input(
            "PermissionRequest",
            json!({"tool_name": "Read", "tool_input": {"file_path": "/srv/docs/a.md"}}),
        ),
        // The tool's name in a field of the wrong type: never read as a permission request.
        input(
            "PermissionRequest",
            json!({"tool_name": 7, "tool_input": {}}),
        ),
    )
    .await;
    assert_eq!(
        good,
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"}}})
    );
    assert_eq!(
        refused,
        json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "claude-tools could not read this \
                PermissionRequest hook input (invalid type: integer `7`, expected a string), \
                so it was refused"}}})
    );
    assert_eq!(calls, 1);
}

#[tokio::test]
async fn context_events_are_typed_and_say_nothing_of_what_they_cannot_read() {
    // (event, the matcher, a good input, an unreadable one, the good answer's specific output)
    type Case = (
        HookEvent,
        fn(Arc<AtomicUsize>) -> HookMatcher,
        Value,
        Value,
        Value,
    );
    let cases: Vec<Case> = vec![
        (
            HookEvent::Stop,
            |calls| {
                HookMatcher::any().stop(move |stop| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    async move {
                        ContextOutput::default()
                            .additional_context(format!("again: {}", stop.stop_hook_active))
                    }
                })
            },
            input("Stop", json!({"stop_hook_active": false})),
            input("Stop", json!({"stop_hook_active": "no"})),
            json!({"hookEventName": "Stop", "additionalContext": "again: false"}),
        ),
        (
            HookEvent::SubagentStop,
            |calls| {
                HookMatcher::any().subagent_stop(move |stop| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    async move {
                        ContextOutput::default().additional_context(stop.agent_transcript_path)
                    }
                })
            },
            input(
                "SubagentStop",
                json!({"stop_hook_active": true, "agent_transcript_path": "/a.jsonl"}),
            ),
            input("Stop", json!({"stop_hook_active": true})),
            json!({"hookEventName": "SubagentStop", "additionalContext": "/a.jsonl"}),
        ),
        (
            HookEvent::Notification,
            |calls| {
                HookMatcher::any().notification(move |note| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    async move { ContextOutput::default().additional_context(note.message) }
                })
            },
            input("Notification", json!({"message": "idle"})),
            input("Notification", json!({})),
            json!({"hookEventName": "Notification", "additionalContext": "idle"}),
        ),
        (
            HookEvent::PostToolUseFailure,
            |calls| {
                HookMatcher::any().post_tool_use_failure(move |failure| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    async move { ContextOutput::default().additional_context(failure.error) }
                })
            },
            input(
                "PostToolUseFailure",
                json!({"tool_name": "Bash", "tool_input": {}, "tool_use_id": "t",
                    "error": "exit 1"}),
            ),
            input("PostToolUseFailure", json!({"tool_name": "Bash"})),
            json!({"hookEventName": "PostToolUseFailure", "additionalContext": "exit 1"}),
        ),
        (
            HookEvent::SessionStart,
            |calls| {
                HookMatcher::any().session_start(move |start| {
                    calls.fetch_add(1, Ordering::SeqCst);
                    async move {
                        let source = serde_json::to_value(&start.source).unwrap_or_default();
                        SessionStartOutput::default()
                            .additional_context(source.as_str().unwrap_or("?").to_string())
                    }
                })
            },
            input("SessionStart", json!({"source": "compact"})),
            input("SessionStart", json!({"source": 1})),
            json!({"hookEventName": "SessionStart", "additionalContext": "compact"}),
        ),
    ];
    for (event, matcher, good, unreadable, specific) in cases {
        let name = event.as_str().to_string();
        let (answer, refused, calls) = answers(event, matcher, good, unreadable).await;
        assert_eq!(answer, json!({"hookSpecificOutput": specific}), "{name}");
        assert_eq!(
            refused,
            json!({}),
            "{name}: no opinion on what it cannot read"
        );
        assert_eq!(
            calls, 1,
            "{name}: the unreadable input reached the callback"
        );
    }
}

#[tokio::test]
async fn pre_model_switch_is_typed_and_denies_what_it_cannot_read() {
    let (_good, refused, calls) = answers(
        HookEvent::PreModelSwitch,
        |calls| {
            HookMatcher::any().pre_model_switch(move |_switch| {
                calls.fetch_add(1, Ordering::SeqCst);
                async { PreToolUseOutput::default() }
            })
        },
        input(
            "PreModelSwitch",
            json!({"from_model": "a", "to_model": "b", "source": "user"}),
        ),
        input("PreModelSwitch", json!({"from_model": 1})),
    )
    .await;
    assert_eq!(
        refused["hookSpecificOutput"]["permissionDecision"], "deny",
        "{refused}"
    );
    assert_eq!(
        refused["hookSpecificOutput"]["hookEventName"],
        "PreModelSwitch"
    );
    assert_eq!(calls, 1);
}

#[tokio::test]
async fn a_typed_callback_of_a_new_event_registered_for_another_is_refused_at_connect() {
    let options = Options::new().hook(
        HookEvent::Stop,
        HookMatcher::any().user_prompt_submit(|_| async { UserPromptSubmitOutput::default() }),
    );
    let (transport, _cli) = claude_tools_runtime::transport::MemoryTransport::pair();
    let error = Client::connect_with(options, transport)
        .await
        .expect_err("refused");
    assert!(
        error
            .to_string()
            .contains("a HookMatcher with a `user_prompt_submit` callback is registered for Stop"),
        "{error}"
    );
}
