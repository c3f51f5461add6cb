//! The `system` notices that were untyped until issue 30 (`thinking_tokens`,
//! `control_request_progress`, `plugin_install`, `local_command_output`,
//! `session_writes_lost`, `worker_shutting_down`), `status` with all its fields, and the
//! `active_goal` message: read from lines built from the TypeScript SDK 0.3.332's `sdk.d.ts`
//! (the CLI cannot be made to write them offline), each typed and coming back exactly; and a
//! known subtype with a field missing, which says so rather than reading as another.

use claude_tools_runtime::message::{
    CliStatus, CompactResult, ControlProgressStatus, LostWrite, Message, PluginInstallStatus,
    SystemEvent, WriteErrorCode,
};
use claude_tools_runtime::options::PermissionMode;
use serde_json::{Value, json};

const LINES: &str = include_str!("fixtures/sdk-0.3.332-state-notices.ndjson");

/// Parses a line, checks that it is typed and comes back exactly.
fn exact(line: &str) -> Message {
    let wire: Value = serde_json::from_str(line).unwrap();
    let message = Message::from_value(wire.clone());
    assert!(
        !matches!(message, Message::Other(_)),
        "fell back to Other: {line}"
    );
    assert_eq!(message.to_value(), wire, "{line}");
    let text = serde_json::to_string(&message).unwrap();
    assert_eq!(serde_json::from_str::<Message>(&text).unwrap(), message);
    message
}

fn event(message: &Message) -> SystemEvent {
    match message {
        Message::System(system) => system.event(),
        other => panic!("not a system message: {other:?}"),
    }
}

#[test]
fn every_state_notice_is_typed_and_comes_back_exactly() {
    let messages: Vec<Message> = LINES.lines().map(exact).collect();
    let mut events = messages.iter().filter(|m| matches!(m, Message::System(_)));
    let mut next = || event(events.next().unwrap());

    let SystemEvent::Status(status) = next() else {
        panic!()
    };
    assert_eq!(status.status, Some(CliStatus::Requesting));
    assert_eq!(status.permission_mode(), Some(PermissionMode::AcceptEdits));
    assert_eq!(status.compact_result, None);
    let SystemEvent::Status(status) = next() else {
        panic!()
    };
    assert_eq!(status.status, None);
    assert_eq!(status.compact_result, Some(CompactResult::Failed));
    assert_eq!(
        status.compact_error.as_deref(),
        Some("Conversation too short to compact")
    );

    let SystemEvent::ThinkingTokens(thinking) = next() else {
        panic!()
    };
    assert_eq!(
        (thinking.estimated_tokens, thinking.estimated_tokens_delta),
        (1200, 300)
    );
    assert_eq!(thinking.user_message_uuid.as_deref(), Some("m-1"));

    let SystemEvent::ControlRequestProgress(progress) = next() else {
        panic!()
    };
    assert_eq!(progress.request_id, "req_7");
    assert_eq!(progress.status, ControlProgressStatus::ApiRetry);
    assert_eq!(
        (progress.attempt, progress.max_retries),
        (Some(2), Some(10))
    );
    assert_eq!(
        (progress.retry_delay_ms, progress.error_status),
        (Some(1200), None)
    );

    let SystemEvent::PluginInstall(install) = next() else {
        panic!()
    };
    assert_eq!(install.status, PluginInstallStatus::Failed);
    assert_eq!(install.name.as_deref(), Some("review@tools"));
    assert_eq!(install.error.as_deref(), Some("marketplace unreachable"));

    let SystemEvent::LocalCommandOutput(output) = next() else {
        panic!()
    };
    assert_eq!(output.content, "Total cost: $0.0123");

    let SystemEvent::SessionWritesLost(lost) = next() else {
        panic!()
    };
    assert_eq!(lost.error_code, WriteErrorCode::DiskFull);
    assert_eq!(lost.lost, [LostWrite::Transcript, LostWrite::GlobalConfig]);
    assert!(lost.lost_transcript());
    assert_eq!(lost.transcript_session_ids, ["s-0", "s-1"]);

    let SystemEvent::WorkerShuttingDown(shutdown) = next() else {
        panic!()
    };
    assert_eq!(shutdown.reason, "host_exit");
    assert!(events.next().is_none());

    // Every typed struct took every field of its line: nothing else left in `extra`.
    for message in &messages {
        if let Message::System(system) = message {
            let extra = match system.event() {
                SystemEvent::Status(e) => e.extra,
                SystemEvent::ThinkingTokens(e) => e.extra,
                SystemEvent::ControlRequestProgress(e) => e.extra,
                SystemEvent::PluginInstall(e) => e.extra,
                SystemEvent::LocalCommandOutput(e) => e.extra,
                SystemEvent::SessionWritesLost(e) => e.extra,
                SystemEvent::WorkerShuttingDown(e) => e.extra,
                other => panic!("{other:?}"),
            };
            // `type` is the message's own.
            assert_eq!(
                extra.keys().collect::<Vec<_>>(),
                ["type"],
                "{}: {extra:?}",
                system.subtype
            );
        }
    }

    let goals: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            Message::ActiveGoal(goal) => Some(goal),
            _ => None,
        })
        .collect();
    let goal = goals[0].value.as_ref().unwrap();
    assert_eq!(goal.condition, "all tests pass");
    assert_eq!(
        (goal.iterations, goal.set_at, goal.tokens_at_start),
        (2, 1_795_780_000_123, 4096)
    );
    assert_eq!(goal.last_reason.as_deref(), Some("2 tests still fail"));
    assert!(goal.extra.is_empty());
    assert_eq!(goals[1].value, None);
    assert_eq!(messages[8].message_type(), "active_goal");
    assert_eq!(messages[8].session_id(), Some("s-1"));
    assert_eq!(
        messages[9].uuid(),
        Some("5a7e0c2e-0010-4000-8000-000000000010")
    );
}

#[test]
fn a_known_subtype_missing_a_field_says_which_and_keeps_the_line() {
    // Each line lacks one field its type requires.
    let cases = [
        (
            json!({"subtype": "thinking_tokens", "estimated_tokens": 3}),
            "estimated_tokens_delta",
        ),
        (
            json!({"subtype": "control_request_progress", "status": "started"}),
            "request_id",
        ),
        (json!({"subtype": "plugin_install", "name": "x"}), "status"),
        (json!({"subtype": "local_command_output"}), "content"),
        (
            json!({"subtype": "session_writes_lost", "lost": ["transcript"]}),
            "error_code",
        ),
        (json!({"subtype": "worker_shutting_down"}), "reason"),
        (json!({"subtype": "session_state_changed"}), "state"),
    ];
    for (mut line, field) in cases {
        line["type"] = json!("system");
        line["session_id"] = json!("s-1");
        let message = exact(&line.to_string());
        let expected_subtype = line["subtype"].as_str().unwrap();
        match event(&message) {
            SystemEvent::Malformed { subtype, error } => {
                assert_eq!(subtype, expected_subtype);
                assert!(error.contains(field), "{field}: {error}");
            }
            other => panic!("{expected_subtype}: {other:?}"),
        }
    }
    // A value of the wrong type, too.
    let line = json!({"type": "system", "subtype": "status", "status": 7});
    assert!(matches!(
        event(&exact(&line.to_string())),
        SystemEvent::Malformed { .. }
    ));
    // A new value of a known field is kept, not an error.
    let line = json!({"type": "system", "subtype": "session_writes_lost",
        "error_code": "EIO", "lost": ["history"]});
    let SystemEvent::SessionWritesLost(lost) = event(&exact(&line.to_string())) else {
        panic!()
    };
    assert_eq!(lost.error_code, WriteErrorCode::Other("EIO".into()));
    assert!(!lost.lost_transcript());
    // An `active_goal` that does not fit stays whole, untyped.
    let line = json!({"type": "active_goal", "value": {"condition": 1}});
    let message = Message::from_value(line.clone());
    assert!(matches!(message, Message::Other(_)));
    assert_eq!(message.to_value(), line);
}
