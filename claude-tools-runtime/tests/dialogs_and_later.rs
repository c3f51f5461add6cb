//! User dialogs (`request_user_dialog`, declared with `supportedDialogKinds`), answers the host
//! gives later by request id (permissions, elicitations, dialogs), and `reinitialize` serving
//! again the requests an `initialize` answer lists, against a scripted CLI: the exact lines
//! both ways.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use claude_tools_runtime::dialog::{DialogKind, UserDialogAnswer};
use claude_tools_runtime::elicitation::ElicitationAnswer;
use claude_tools_runtime::options::Options;
use claude_tools_runtime::permission::PermissionDecision;
use serde_json::{Value, json};
use tokio::sync::mpsc;

mod common;

use common::{Cli, Connecting, WAIT, connect_answering_initialize};

/// The exact line the host writes to answer `request_id` with `response`.
fn success_line(request_id: &str, response: &str) -> String {
    format!(
        r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{request_id}","response":{response}}}}}"#
    )
}

impl Cli {
    /// Sends the CLI's `control_request` `request` under `request_id`.
    async fn ask(&mut self, request_id: &str, request: Value) {
        self.send(json!({"type": "control_request", "request_id": request_id, "request": request}))
            .await;
    }

    /// The host's next line, which must be exactly `line`.
    async fn expect_line(&mut self, line: &str) {
        assert_eq!(self.recv_line().await.trim_end(), line);
    }
}

#[tokio::test]
async fn the_dialog_kinds_are_declared_in_initialize_only_with_a_dialog_callback() {
    let options = Options::new().on_user_dialog(
        [
            DialogKind::RefusalFallbackPrompt,
            DialogKind::from("brand_new"),
        ],
        |_| async { UserDialogAnswer::Cancelled },
    );
    let (_connecting, mut cli) = Connecting::start(options);
    let initialize = cli.recv().await;
    assert_eq!(
        initialize["request"]["supportedDialogKinds"],
        json!(["refusal_fallback_prompt", "brand_new"])
    );
    let (_connecting, mut cli) = Connecting::start(Options::new());
    let initialize = cli.recv().await;
    assert!(initialize["request"].get("supportedDialogKinds").is_none());
}

#[tokio::test]
async fn a_dialog_is_shown_with_the_callback_and_answered_with_the_users_choice() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let record = seen.clone();
    let options =
        Options::new().on_user_dialog([DialogKind::RefusalFallbackPrompt], move |dialog| {
            record.lock().unwrap().push((
                dialog.kind.clone(),
                dialog.payload.clone(),
                dialog.tool_use_id.clone(),
                dialog.request_id.clone(),
            ));
            async move {
                match dialog.kind {
                    DialogKind::RefusalFallbackPrompt => {
                        UserDialogAnswer::Completed(json!({"choice": "retry"}))
                    }
                    _ => UserDialogAnswer::Cancelled,
                }
            }
        });
    let (_client, mut cli) = connect_answering_initialize(options).await;
    cli.ask(
        "d1",
        json!({"subtype": "request_user_dialog", "dialog_kind": "refusal_fallback_prompt",
            "payload": {"options": ["retry", "rephrase"]}, "tool_use_id": "toolu_7"}),
    )
    .await;
    cli.expect_line(&success_line(
        "d1",
        r#"{"behavior":"completed","result":{"choice":"retry"}}"#,
    ))
    .await;
    // A kind the host does not know reaches the callback as `Other`, which cancels it.
    cli.ask(
        "d2",
        json!({"subtype": "request_user_dialog", "dialog_kind": "brand_new", "payload": {}}),
    )
    .await;
    cli.expect_line(&success_line("d2", r#"{"behavior":"cancelled"}"#))
        .await;
    let seen = seen.lock().unwrap();
    assert_eq!(seen[0].0, DialogKind::RefusalFallbackPrompt);
    assert_eq!(seen[0].1["options"], json!(["retry", "rephrase"]));
    assert_eq!(seen[0].2.as_deref(), Some("toolu_7"));
    assert_eq!(seen[0].3.as_deref(), Some("d1"));
    assert_eq!(seen[1].0, DialogKind::Other("brand_new".into()));
}

#[tokio::test]
async fn a_dialog_without_a_callback_is_answered_with_an_error_the_cli_discards() {
    let (_client, mut cli) = connect_answering_initialize(Options::new()).await;
    cli.ask(
        "d1",
        json!({"subtype": "request_user_dialog", "dialog_kind": "refusal_fallback_prompt", "payload": {}}),
    )
    .await;
    cli.expect_line(
        r#"{"type":"control_response","response":{"subtype":"error","request_id":"d1","error":"the host shows no user dialogs (Options::on_user_dialog)"}}"#,
    )
    .await;
}

#[tokio::test]
async fn a_permission_answered_later_is_written_once_under_its_request_id() {
    let (ids, mut asked) = mpsc::unbounded_channel();
    let options = Options::new().can_use_tool(move |request| {
        let _ = ids.send(request.request_id.clone());
        async { PermissionDecision::later() }
    });
    let (client, mut cli) = connect_answering_initialize(options).await;
    cli.ask(
        "p1",
        json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"}}),
    )
    .await;
    let id = tokio::time::timeout(WAIT, asked.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(id.as_deref(), Some("p1"));
    // Nothing is written while the host has not answered.
    cli.silent_for(100).await;
    // Not a deferred dialog, nor `Later` again: refused, and the question stays deferred.
    assert!(!client.answer_user_dialog("p1", UserDialogAnswer::Cancelled));
    assert!(!client.answer_permission("p1", PermissionDecision::later()));
    assert!(!client.answer_permission("nope", PermissionDecision::allow()));
    cli.silent_for(50).await;
    // The answer, with the tool's own input sent back.
    assert!(client.answer_permission("p1", PermissionDecision::allow()));
    cli.expect_line(&success_line(
        "p1",
        r#"{"behavior":"allow","updatedInput":{"command":"ls"}}"#,
    ))
    .await;
    // Once answered, it is gone.
    assert!(!client.answer_permission("p1", PermissionDecision::deny("no")));
    cli.silent_for(50).await;

    // A question the CLI withdraws takes no answer.
    cli.ask(
        "p2",
        json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": {}}),
    )
    .await;
    tokio::time::timeout(WAIT, asked.recv())
        .await
        .unwrap()
        .unwrap();
    cli.silent_for(50).await;
    cli.send(json!({"type": "control_cancel_request", "request_id": "p2"}))
        .await;
    // The cancel is read before the next line the CLI writes is: wait for an answer that
    // follows it.
    cli.ask("p3", json!({"subtype": "no_such_request"})).await;
    let refused = cli.recv().await;
    assert_eq!(refused["response"]["request_id"], "p3");
    assert!(!client.answer_permission("p2", PermissionDecision::allow()));
    cli.silent_for(50).await;
}

#[tokio::test]
async fn elicitations_and_dialogs_answered_later_are_written_under_their_request_ids() {
    let options = Options::new()
        .on_elicitation(|_| async { ElicitationAnswer::later() })
        .on_user_dialog([DialogKind::RefusalFallbackPrompt], |_| async {
            UserDialogAnswer::Later
        });
    let (client, mut cli) = connect_answering_initialize(options).await;
    cli.ask(
        "e1",
        json!({"subtype": "elicitation", "mcp_server_name": "deployer", "message": "Sign in",
            "mode": "url", "url": "https://example.com/login"}),
    )
    .await;
    cli.ask(
        "d1",
        json!({"subtype": "request_user_dialog", "dialog_kind": "refusal_fallback_prompt", "payload": {}}),
    )
    .await;
    cli.silent_for(100).await;
    // Each kind is answered by its own method only.
    assert!(!client.answer_elicitation("d1", ElicitationAnswer::decline()));
    assert!(!client.answer_user_dialog("e1", UserDialogAnswer::Cancelled));
    assert!(client.answer_user_dialog("d1", UserDialogAnswer::Completed(json!(1))));
    cli.expect_line(&success_line(
        "d1",
        r#"{"behavior":"completed","result":1}"#,
    ))
    .await;
    assert!(client.answer_elicitation("e1", ElicitationAnswer::decline()));
    cli.expect_line(&success_line("e1", r#"{"action":"decline"}"#))
        .await;
}

#[tokio::test]
async fn reinitialize_sends_initialize_again_and_serves_the_requests_the_cli_still_waits_on() {
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let options = Options::new()
        .can_use_tool(move |request| {
            count.fetch_add(1, Ordering::SeqCst);
            async move {
                if request.tool_name == "Slow" {
                    PermissionDecision::later()
                } else {
                    PermissionDecision::deny(format!("no {}", request.tool_name))
                }
            }
        })
        .on_user_dialog([DialogKind::RefusalFallbackPrompt], |_| async {
            UserDialogAnswer::Cancelled
        });
    let (connecting, mut cli) = Connecting::start(options);
    let first = cli.recv_line().await;
    let first: Value = serde_json::from_str(&first).unwrap();
    cli.answer(&first, json!({})).await;
    let client = connecting.client().await;

    // A question deferred before the gap.
    cli.ask(
        "p0",
        json!({"subtype": "can_use_tool", "tool_name": "Slow", "input": {}}),
    )
    .await;
    cli.silent_for(100).await;

    let reinitialize = tokio::spawn({
        let controls = claude_tools_runtime::control::Controls::clone(&client);
        async move { controls.reinitialize().await }
    });
    let again = cli.recv().await;
    // The same request as the first, under a new id.
    assert_eq!(again["request"], first["request"]);
    assert_ne!(again["request_id"], first["request_id"]);
    cli.send(json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": again["request_id"],
        "response": {"claude_code_version": "2.1.332", "hooks_applied": true},
        "pending_permission_requests": [
            {"type": "control_request", "request_id": "p0",
                "request": {"subtype": "can_use_tool", "tool_name": "Slow", "input": {}}},
            {"type": "control_request", "request_id": "p1",
                "request": {"subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "ls"},
                    "server_policy_ask_only": true}},
            {"type": "control_request", "request_id": "x1",
                "request": {"subtype": "hook_callback", "callback_id": "hook_0"}}],
        "pending_user_dialog_requests": [
            {"type": "control_request", "request_id": "d1",
                "request": {"subtype": "request_user_dialog", "dialog_kind": "refusal_fallback_prompt", "payload": {}}}]}}))
        .await;
    let info = tokio::time::timeout(WAIT, reinitialize)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(info.claude_code_version.as_deref(), Some("2.1.332"));
    assert_eq!(info.extra["hooks_applied"], true);
    // The question lost in the gap and the dialog are served again; the deferred one is not
    // asked twice, and a request of another kind in the lists is left alone.
    let mut answers = [cli.recv_line().await, cli.recv_line().await];
    answers.sort();
    assert_eq!(
        answers
            .iter()
            .map(|line| line.trim_end().to_string())
            .collect::<Vec<_>>(),
        [
            success_line("d1", r#"{"behavior":"cancelled"}"#),
            success_line("p1", r#"{"behavior":"deny","message":"no Bash"}"#),
        ]
    );
    cli.silent_for(100).await;
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    // The deferred one is still answered by the host.
    assert!(client.answer_permission("p0", PermissionDecision::allow()));
    cli.expect_line(&success_line(
        "p0",
        r#"{"behavior":"allow","updatedInput":{}}"#,
    ))
    .await;
}
