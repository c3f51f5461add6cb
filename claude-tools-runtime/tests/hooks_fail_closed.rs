//! Hooks fail closed (issue 29): a callback typed by its event refuses what it cannot read, and
//! an answer meant for another event is not sent as it is (`tests/hook_types.rs` has the
//! typed inputs, `TypedHookInput::Malformed` among them). Each test plays the CLI's side of the wire.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::hooks::{
    HookEvent, HookMatcher, HookOutput, HookPermissionDecision, HookSpecificOutput,
    PostToolUseOutput, PreToolUseOutput,
};
use claude_tools_runtime::options::Options;
use claude_tools_runtime::transport::MemoryTransport;
use serde_json::{Value, json};

mod common;

use common::{Cli, Connecting, WAIT};

/// Connects a client with no in-process server: the CLI answers `initialize` right away.
async fn connect(options: Options) -> (Client, Cli) {
    let (connecting, mut cli) = Connecting::start(options);
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    (connecting.client().await, cli)
}

/// A `hook_callback` request for `hook_0` with this input.
fn hook_request(request_id: &str, input: Value) -> Value {
    json!({"type": "control_request", "request_id": request_id, "request": {
        "subtype": "hook_callback", "callback_id": "hook_0", "input": input,
        "tool_use_id": "toolu_1"}})
}

fn pre_tool_use(command: &str) -> Value {
    json!({"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/w",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "toolu_1"})
}

fn success(request_id: &str, response: Value) -> Value {
    json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": request_id, "response": response}})
}

fn error(request_id: &str, message: &str) -> Value {
    json!({"type": "control_response", "response": {"subtype": "error",
        "request_id": request_id, "error": message}})
}

#[tokio::test]
async fn a_typed_pre_tool_use_callback_answers_and_an_unreadable_input_is_denied_unseen() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let options = Options::new().hook(
        HookEvent::PreToolUse,
        HookMatcher::new("Bash").pre_tool_use(move |call| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                if call.tool_input["command"] == "rm -rf /" {
                    PreToolUseOutput::default()
                        .permission_decision(HookPermissionDecision::Deny)
                        .permission_decision_reason("not here")
                } else {
                    PreToolUseOutput::default()
                }
            }
        }),
    );
    let (_client, mut cli) = connect(options).await;
    cli.send(hook_request("h1", pre_tool_use("rm -rf /"))).await;
    assert_eq!(
        cli.recv().await,
        success(
            "h1",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "not here"}})
        )
    );
    cli.send(hook_request("h2", pre_tool_use("ls"))).await;
    assert_eq!(
        cli.recv().await,
        success(
            "h2",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse"}})
        )
    );
    // The command in a field the CLI does not send: the input does not fit PreToolUse.
    let mut broken = pre_tool_use("rm -rf /");
    broken["tool_name"] = json!(7);
    cli.send(hook_request("h3", broken)).await;
    assert_eq!(
        cli.recv().await,
        success(
            "h3",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "claude-tools could not read this PreToolUse hook \
                    input (invalid type: integer `7`, expected a string), so it was refused"}})
        )
    );
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "the unreadable input reached the callback"
    );
}

#[tokio::test]
async fn a_typed_post_tool_use_callback_blocks_an_input_of_another_event() {
    let options = Options::new().hook(
        HookEvent::PostToolUse,
        HookMatcher::any()
            .post_tool_use(|_done| async { PostToolUseOutput::default().additional_context("ok") }),
    );
    let (_client, mut cli) = connect(options).await;
    cli.send(hook_request("h1", pre_tool_use("ls"))).await;
    assert_eq!(
        cli.recv().await,
        success(
            "h1",
            json!({"decision": "block", "reason": "claude-tools could not read this PostToolUse \
                hook input (its hook_event_name is Some(\"PreToolUse\")), so it was refused"})
        )
    );
}

#[tokio::test]
async fn an_answer_for_another_event_is_refused_not_sent() {
    let options = Options::new().hook(
        HookEvent::PreToolUse,
        HookMatcher::any().callback(|input| async move {
            match input.tool_input().and_then(|i| i["command"].as_str()) {
                Some("post") => HookOutput::new().specific(HookSpecificOutput::PostToolUse(
                    PostToolUseOutput::default().additional_context("after"),
                )),
                _ => HookOutput::new().deny_tool("no"),
            }
        }),
    );
    let (_client, mut cli) = connect(options).await;
    cli.send(hook_request("h1", pre_tool_use("post"))).await;
    // A guard of a call fails closed: the call is denied, the reason naming the mistake.
    assert_eq!(
        cli.recv().await,
        success(
            "h1",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "a PreToolUse hook answered with the \
                    hookSpecificOutput of PostToolUse (`HookSpecificOutput::PostToolUse`): \
                    answer with `HookSpecificOutput::PreToolUse`; the answer was not sent"}})
        )
    );
    // The same deny, for an input that names PostToolUse: the answer is checked against it,
    // and, the tool having run, refused with an error.
    let mut post = pre_tool_use("ls");
    post["hook_event_name"] = json!("PostToolUse");
    cli.send(hook_request("h2", post)).await;
    assert_eq!(
        cli.recv().await,
        error(
            "h2",
            "a PostToolUse hook answered with `permissionDecision` (`HookOutput::deny_tool`, \
             `allow_tool`, `ask` or `defer_tool`), which only PreToolUse, PreSkillShellCommand \
             and PreModelSwitch read: the answer was not sent"
        )
    );
    // A deny for the event it belongs to is sent.
    cli.send(hook_request("h3", pre_tool_use("ls"))).await;
    assert_eq!(
        cli.recv().await,
        success(
            "h3",
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}})
        )
    );
}

#[test]
fn each_shortcut_is_accepted_by_the_events_that_read_it_only() {
    let context = HookOutput::new().additional_context("c");
    assert!(context.check(&HookEvent::SessionStart).is_ok());
    assert!(context.check(&HookEvent::PermissionRequest).is_err());
    let input = HookOutput::new().updated_input(json!({}));
    assert!(input.check(&HookEvent::PreToolUse).is_ok());
    assert!(input.check(&HookEvent::PostToolUse).is_err());
    // Common fields go with any event, and a newer CLI's event accepts anything.
    assert!(HookOutput::new().block("b").check(&HookEvent::Stop).is_ok());
    let deny = HookOutput::new().deny_tool("d");
    assert!(deny.check(&HookEvent::Other("NewInCli9".into())).is_ok());
}

#[tokio::test]
async fn a_typed_callback_registered_for_another_event_is_refused_at_connect() {
    let options = Options::new().hook(
        HookEvent::PostToolUse,
        HookMatcher::any().pre_tool_use(|_call| async { PreToolUseOutput::default() }),
    );
    let (transport, cli) = MemoryTransport::pair();
    let error = tokio::time::timeout(WAIT, Client::connect_with(options, transport))
        .await
        .expect("connect refuses at once")
        .expect_err("refused");
    assert!(cli.launch_spec().is_none());
    let Error::InvalidOptions(message) = error else {
        panic!("expected InvalidOptions, got {error}")
    };
    assert_eq!(
        message,
        "hook: a HookMatcher with a `pre_tool_use` callback is registered for PostToolUse: \
         register it with `.hook(HookEvent::PreToolUse, ..)`"
    );
}
