//! The typed notices and message kinds of the CLI 2.1.332 (`SystemMessage::event`, the
//! top-level kinds beside `system`, the server-tool content blocks): read from lines the real CLI
//! wrote where they can be provoked offline (`fixtures/cli-2.1.332-notices.md` says how), from
//! the TypeScript SDK 0.3.332's type definitions for the rest; each comes back exactly.

use std::collections::BTreeMap;

use claude_tools_runtime::message::{
    ApiErrorKind, CliStatus, CompactResult, ContentBlock, HookOutcome, InformationalLevel,
    MemoryScope, Message, NotificationPriority, RateLimitStatus, RateLimitType, RefusalDirection,
    ResetTrigger, SessionState, SystemEvent, TaskEndStatus, TaskStatus, Trigger, WebFetchContent,
    WebSearchContent,
};
use serde_json::{Value, json};

/// The `system` lines (all but `init`) of three runs of the real CLI 2.1.332 against the
/// scripted model server (see `fixtures/cli-2.1.332-notices.md`).
const CLI_NOTICES: &str = include_str!("fixtures/cli-2.1.332-notices.ndjson");

/// One line of each other kind, built from the TypeScript SDK 0.3.332's `sdk.d.ts` (they cannot
/// be provoked offline).
const SDK_SHAPED: &str = include_str!("fixtures/sdk-0.3.332-messages.ndjson");

/// Parses a line, checks that it is typed and comes back exactly (through `to_value` and
/// through `Serialize`/`Deserialize`).
fn exact(line: &str) -> Message {
    let wire: Value = serde_json::from_str(line).unwrap();
    let message = Message::from_value(wire.clone());
    assert!(
        !matches!(message, Message::Other(_)),
        "fell back to Other: {line}"
    );
    assert_eq!(message.to_value(), wire, "{line}");
    let text = serde_json::to_string(&message).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        wire,
        "{line}"
    );
    assert_eq!(serde_json::from_str::<Message>(&text).unwrap(), message);
    message
}

fn event(message: &Message) -> SystemEvent {
    match message {
        Message::System(system) => system.event(),
        other => panic!("not a system message: {other:?}"),
    }
}

fn kind(event: &SystemEvent) -> &'static str {
    match event {
        SystemEvent::Status(_) => "status",
        SystemEvent::TaskStarted(_) => "task_started",
        SystemEvent::TaskProgress(_) => "task_progress",
        SystemEvent::TaskUpdated(_) => "task_updated",
        SystemEvent::TaskNotification(_) => "task_notification",
        SystemEvent::BackgroundTasksChanged(_) => "background_tasks_changed",
        SystemEvent::HookStarted(_) => "hook_started",
        SystemEvent::HookProgress(_) => "hook_progress",
        SystemEvent::HookResponse(_) => "hook_response",
        SystemEvent::CompactBoundary(_) => "compact_boundary",
        SystemEvent::ApiRetry(_) => "api_retry",
        SystemEvent::PermissionDenied(_) => "permission_denied",
        SystemEvent::ModelRefusalFallback(_) => "model_refusal_fallback",
        SystemEvent::ModelRefusalNoFallback(_) => "model_refusal_no_fallback",
        SystemEvent::Notification(_) => "notification",
        SystemEvent::Informational(_) => "informational",
        SystemEvent::FilesPersisted(_) => "files_persisted",
        SystemEvent::CommandsChanged(_) => "commands_changed",
        SystemEvent::MemoryRecall(_) => "memory_recall",
        SystemEvent::ElicitationComplete(_) => "elicitation_complete",
        SystemEvent::MirrorError(_) => "mirror_error",
        SystemEvent::Init(_) => "init",
        SystemEvent::SessionStateChanged(_) => "session_state_changed",
        SystemEvent::ThinkingTokens(_) => "thinking_tokens",
        SystemEvent::ControlRequestProgress(_) => "control_request_progress",
        SystemEvent::PluginInstall(_) => "plugin_install",
        SystemEvent::LocalCommandOutput(_) => "local_command_output",
        SystemEvent::SessionWritesLost(_) => "session_writes_lost",
        SystemEvent::WorkerShuttingDown(_) => "worker_shutting_down",
        SystemEvent::Malformed { .. } => "malformed",
        SystemEvent::Other => "other",
        _ => "unknown variant",
    }
}

#[test]
fn every_notice_the_cli_wrote_is_typed_by_its_subtype_and_comes_back_exactly() {
    let mut kinds = BTreeMap::<&str, usize>::new();
    for line in CLI_NOTICES.lines() {
        let message = exact(line);
        let event = event(&message);
        let Message::System(system) = &message else {
            unreachable!()
        };
        assert_eq!(kind(&event), system.subtype, "{line}");
        *kinds.entry(kind(&event)).or_default() += 1;
    }
    assert_eq!(
        kinds.keys().copied().collect::<Vec<_>>(),
        [
            "api_retry",
            "background_tasks_changed",
            "compact_boundary",
            "hook_progress",
            "hook_response",
            "hook_started",
            "permission_denied",
            "status",
            "task_notification",
            "task_progress",
            "task_started",
            "task_updated",
        ]
    );
}

/// The first captured notice of a subtype, typed.
fn captured(subtype: &str) -> SystemEvent {
    let needle = format!(r#""subtype":"{subtype}""#);
    let line = CLI_NOTICES
        .lines()
        .find(|line| line.contains(&needle))
        .unwrap_or_else(|| panic!("no {subtype} in the fixture"));
    event(&exact(line))
}

#[test]
fn the_captured_notices_have_their_fields_typed() {
    let SystemEvent::ApiRetry(retry) = captured("api_retry") else {
        panic!()
    };
    assert_eq!(
        (retry.attempt, retry.max_retries, retry.error_status),
        (1, 10, Some(529))
    );
    assert_eq!(retry.error, ApiErrorKind::Overloaded);
    assert!(retry.retry_delay_ms > 0);

    let SystemEvent::HookStarted(started) = captured("hook_started") else {
        panic!()
    };
    assert_eq!(started.hook_event, "SessionStart");
    assert_eq!(started.hook_name, "SessionStart:startup");
    let SystemEvent::HookResponse(response) = captured("hook_response") else {
        panic!()
    };
    assert_eq!(response.hook_id, started.hook_id);
    assert_eq!(response.outcome, HookOutcome::Success);
    assert_eq!(response.exit_code, Some(0));
    assert_eq!(response.stdout, "hello-from-hook\n");
    let SystemEvent::HookProgress(progress) = captured("hook_progress") else {
        panic!()
    };
    assert_eq!(progress.hook_event, "PreCompact");
    assert_eq!(progress.output, "step-1\n");

    let SystemEvent::CompactBoundary(boundary) = captured("compact_boundary") else {
        panic!()
    };
    let metadata = &boundary.compact_metadata;
    assert_eq!(metadata.trigger, Trigger::Manual);
    assert!(metadata.pre_tokens > metadata.post_tokens.unwrap());
    // A field the SDK's types do not have yet is kept.
    assert!(metadata.extra.contains_key("cumulative_dropped_tokens"));
    assert!(boundary.extra.contains_key("logical_parent_uuid"));

    let SystemEvent::BackgroundTasksChanged(changed) = captured("background_tasks_changed") else {
        panic!()
    };
    assert_eq!(changed.tasks.len(), 1);
    assert_eq!(changed.tasks[0].task_type, "local_bash");
    assert_eq!(changed.tasks[0].description, "Wait a second");
    let SystemEvent::TaskStarted(task) = captured("task_started") else {
        panic!()
    };
    assert_eq!(task.task_id, changed.tasks[0].task_id);
    assert_eq!(task.tool_use_id.as_deref(), Some("toolu_cap_bg"));
    assert_eq!(task.is_backgrounded, Some(true));
    let SystemEvent::TaskUpdated(updated) = captured("task_updated") else {
        panic!()
    };
    assert_eq!(updated.patch.status, Some(TaskStatus::Completed));
    assert!(updated.patch.end_time.is_some());
    let SystemEvent::TaskNotification(ended) = captured("task_notification") else {
        panic!()
    };
    assert_eq!(ended.status, TaskEndStatus::Completed);
    assert!(
        ended.summary.contains("completed (exit code 0)"),
        "{ended:?}"
    );
    let SystemEvent::TaskProgress(progress) = captured("task_progress") else {
        panic!()
    };
    assert_eq!(progress.subagent_type.as_deref(), Some("general-purpose"));
    assert!(progress.usage.total_tokens > 0);

    let SystemEvent::PermissionDenied(denied) = captured("permission_denied") else {
        panic!()
    };
    assert_eq!(
        (denied.tool_name.as_str(), denied.tool_use_id.as_str()),
        ("Write", "toolu_cap_write")
    );
    assert_eq!(denied.decision_reason_type.as_deref(), Some("mode"));

    let SystemEvent::Status(status) = captured("status") else {
        panic!()
    };
    assert_eq!(status.status, Some(CliStatus::Compacting));
    // The second one the CLI wrote ends the compaction.
    let ended = CLI_NOTICES
        .lines()
        .find(|line| line.contains(r#""compact_result""#))
        .unwrap();
    let SystemEvent::Status(ended) = event(&exact(ended)) else {
        panic!()
    };
    assert_eq!(
        (ended.status, ended.compact_result),
        (None, Some(CompactResult::Success))
    );
    // Every field typed (`type` is the message's own).
    assert_eq!(
        ended.extra.keys().collect::<Vec<_>>(),
        ["type"],
        "{:?}",
        ended.extra
    );
}

#[test]
fn every_sdk_shaped_kind_is_typed_and_comes_back_exactly() {
    let messages: Vec<Message> = SDK_SHAPED.lines().map(exact).collect();
    let mut events = messages.iter().filter(|m| matches!(m, Message::System(_)));
    let mut next = || event(events.next().unwrap());

    let SystemEvent::Notification(notification) = next() else {
        panic!()
    };
    assert_eq!(notification.priority, NotificationPriority::Low);
    assert_eq!(notification.extra["timeout_ms"], 8000);
    let SystemEvent::Informational(info) = next() else {
        panic!()
    };
    assert_eq!(info.level, InformationalLevel::Warning);
    let SystemEvent::FilesPersisted(files) = next() else {
        panic!()
    };
    assert_eq!(files.files[0].file_id, "file_011");
    assert_eq!(files.failed[0].error, "too large");
    let SystemEvent::CommandsChanged(commands) = next() else {
        panic!()
    };
    assert_eq!(commands.commands[0].argument_hint, "<branch>");
    assert_eq!(commands.commands[1].builtin, Some(true));
    let SystemEvent::MemoryRecall(recall) = next() else {
        panic!()
    };
    assert_eq!(recall.memories[1].scope, MemoryScope::Team);
    assert_eq!(recall.memories[1].content, None);
    let SystemEvent::ElicitationComplete(complete) = next() else {
        panic!()
    };
    assert_eq!(complete.elicitation_id, "el-42");
    let SystemEvent::MirrorError(mirror) = next() else {
        panic!()
    };
    assert_eq!(mirror.key.subpath.as_deref(), Some("subagents/agent-a1"));
    let SystemEvent::ModelRefusalFallback(fallback) = next() else {
        panic!()
    };
    assert_eq!(fallback.direction, RefusalDirection::Retry);
    assert_eq!(fallback.api_refusal_explanation, None);
    let SystemEvent::ModelRefusalNoFallback(refusal) = next() else {
        panic!()
    };
    assert_eq!(refusal.request_id, None);

    let top: Vec<&Message> = messages
        .iter()
        .filter(|m| !matches!(m, Message::System(_)))
        .collect();
    let Message::RateLimit(limit) = top[0] else {
        panic!()
    };
    assert_eq!(
        limit.rate_limit_info.status,
        RateLimitStatus::AllowedWarning
    );
    assert_eq!(
        limit.rate_limit_info.rate_limit_type,
        Some(RateLimitType::FiveHour)
    );
    assert_eq!(limit.rate_limit_info.extra["surpassedThreshold"], 0.9);
    let Message::ToolProgress(progress) = top[1] else {
        panic!()
    };
    assert_eq!(progress.elapsed_time_seconds, 12.5);
    assert_eq!(progress.parent_tool_use_id, None);
    let Message::AuthStatus(auth) = top[2] else {
        panic!()
    };
    assert!(auth.is_authenticating);
    let Message::ToolUseSummary(summary) = top[3] else {
        panic!()
    };
    assert_eq!(summary.preceding_tool_use_ids, ["toolu_3", "toolu_4"]);
    let Message::PromptSuggestion(suggestion) = top[4] else {
        panic!()
    };
    assert_eq!(suggestion.suggestion, "Run the tests again");
    let Message::ConversationReset(reset) = top[5] else {
        panic!()
    };
    assert_eq!(reset.trigger, Some(ResetTrigger::Clear));
    for (message, kind) in top.iter().zip([
        "rate_limit_event",
        "tool_progress",
        "auth_status",
        "tool_use_summary",
        "prompt_suggestion",
        "conversation_reset",
    ]) {
        assert_eq!(message.message_type(), kind);
        assert_eq!(message.session_id(), Some("s-1"));
        assert!(message.uuid().is_some());
    }

    let Message::Assistant(assistant) = top[6] else {
        panic!()
    };
    let blocks = &assistant.message.content;
    let ContentBlock::RedactedThinking { data, .. } = &blocks[0] else {
        panic!("{:?}", blocks[0])
    };
    assert_eq!(data, "EmwKAhgBEgy3va3pzix/LafPsn4a");
    let ContentBlock::ServerToolUse { name, input, .. } = &blocks[1] else {
        panic!("{:?}", blocks[1])
    };
    assert_eq!(
        (name.as_str(), input),
        ("web_search", &json!({"query": "rust serde flatten"}))
    );
    let ContentBlock::WebSearchToolResult {
        tool_use_id,
        content: WebSearchContent::Results(results),
        ..
    } = &blocks[2]
    else {
        panic!("{:?}", blocks[2])
    };
    assert_eq!(tool_use_id, "srvtoolu_01");
    assert_eq!(results[0].page_age, None);
    assert_eq!(results[1].page_age.as_deref(), Some("2 days ago"));
    let ContentBlock::WebFetchToolResult {
        content: WebFetchContent::Result(page),
        ..
    } = &blocks[4]
    else {
        panic!("{:?}", blocks[4])
    };
    assert_eq!(page.url, "https://serde.rs/");
    let ContentBlock::WebSearchToolResult {
        content: WebSearchContent::Error(error),
        ..
    } = &blocks[5]
    else {
        panic!("{:?}", blocks[5])
    };
    assert_eq!(error.error_code, "max_uses_exceeded");
    assert_eq!(
        blocks
            .iter()
            .map(ContentBlock::block_type)
            .collect::<Vec<_>>(),
        [
            "redacted_thinking",
            "server_tool_use",
            "web_search_tool_result",
            "server_tool_use",
            "web_fetch_tool_result",
            "web_search_tool_result"
        ]
    );
}

#[test]
fn a_value_a_newer_cli_adds_to_a_string_union_is_kept_as_other() {
    let retry = exact(
        r#"{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1000,"error_status":null,"error":"brand_new_error","uuid":"u","session_id":"s"}"#,
    );
    let SystemEvent::ApiRetry(retry) = event(&retry) else {
        panic!()
    };
    assert_eq!(retry.error, ApiErrorKind::Other("brand_new_error".into()));
    assert_eq!(retry.error.as_str(), "brand_new_error");
    assert_eq!(retry.error_status, None);

    let limit = exact(
        r#"{"type":"rate_limit_event","rate_limit_info":{"status":"throttled","rateLimitType":"one_hour"},"uuid":"u","session_id":"s"}"#,
    );
    let Message::RateLimit(limit) = &limit else {
        panic!()
    };
    assert_eq!(
        limit.rate_limit_info.status,
        RateLimitStatus::Other("throttled".into())
    );
    assert_eq!(
        limit.rate_limit_info.rate_limit_type,
        Some(RateLimitType::Other("one_hour".into()))
    );
}

#[test]
fn a_known_kind_whose_fields_do_not_fit_stays_whole() {
    // `tool_progress` without its `tool_use_id`: kept as it came, untyped.
    let line = json!({"type": "tool_progress", "tool_name": "Bash", "elapsed_time_seconds": 1});
    let message = Message::from_value(line.clone());
    assert!(matches!(message, Message::Other(_)), "{message:?}");
    assert_eq!(message.to_value(), line);
    // A notice whose fields do not fit its type reads as `SystemEvent::Malformed`, naming
    // the field, and the message itself is untouched.
    let line = json!({"type": "system", "subtype": "api_retry", "attempt": "first"});
    let message = exact(&line.to_string());
    let SystemEvent::Malformed { subtype, error } = event(&message) else {
        panic!("{:?}", event(&message))
    };
    assert_eq!(subtype, "api_retry");
    assert!(error.contains("invalid type: string \"first\""), "{error}");
    // A subtype this library does not know reads as `Other`.
    let line = json!({"type": "system", "subtype": "a_future_notice", "estimated_tokens": 3});
    assert_eq!(event(&exact(&line.to_string())), SystemEvent::Other);
    // `session_state_changed` and `init` read through the same door.
    let line = json!({"type": "system", "subtype": "session_state_changed", "state": "idle"});
    assert_eq!(
        event(&exact(&line.to_string())),
        SystemEvent::SessionStateChanged(SessionState::Idle)
    );
}

#[test]
fn a_web_result_block_whose_typed_content_would_not_come_back_exactly_stays_whole() {
    // `encrypted_content` missing: the typed result needs it, so the block is kept as it came.
    let block = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_9",
        "content": [{"type": "web_search_result", "url": "https://x", "title": "x"}]});
    let typed = ContentBlock::from_value(block.clone());
    assert!(matches!(typed, ContentBlock::Other(_)), "{typed:?}");
    assert_eq!(typed.to_value(), block);
    // An absent `page_age` would come back as `null`: kept whole as well.
    let block = json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_9",
        "content": [{"type": "web_search_result", "url": "https://x", "title": "x",
                     "encrypted_content": "E"}]});
    let typed = ContentBlock::from_value(block.clone());
    assert!(matches!(typed, ContentBlock::Other(_)), "{typed:?}");
    assert_eq!(typed.to_value(), block);
    // A redacted_thinking block with its unknown fields.
    let block =
        json!({"type": "redacted_thinking", "data": "Eq", "cache_control": {"type": "ephemeral"}});
    let typed = ContentBlock::from_value(block.clone());
    let ContentBlock::RedactedThinking { extra, .. } = &typed else {
        panic!("{typed:?}")
    };
    assert_eq!(extra["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(typed.to_value(), block);
}
