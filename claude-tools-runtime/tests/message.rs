//! Typed messages against the shapes the CLI streams (protocol.md §D, wire-observed.md).

use claude_tools_runtime::message::{
    AssistantError, ContentBlock, FastModeState, Message, MessageContent, PermissionDenial,
    ResultSubtype, SessionState, TerminalReason, UserInput,
};
use serde_json::{Map, Value, json};

fn parse(value: Value) -> Message {
    Message::from_value(value)
}

/// Parses, checks the variant by its type name and that `to_value` gives the input back.
fn round_trip(value: Value, kind: &str) -> Message {
    let message = parse(value.clone());
    assert_eq!(message.message_type(), kind);
    assert!(
        !matches!(message, Message::Other(_)),
        "fell back to Other: {message:?}"
    );
    assert_eq!(message.to_value(), value);
    // Serialize / Deserialize go through the same path.
    let text = serde_json::to_string(&message).unwrap();
    let again: Message = serde_json::from_str(&text).unwrap();
    assert_eq!(again, message);
    message
}

#[test]
fn system_init() {
    let frame = json!({
        "type": "system", "subtype": "init", "cwd": "/work", "session_id": "5b6c…", "uuid": "u-1",
        "tools": ["Task", "Bash", "mcp__demo__greet"],
        "mcp_servers": [{"name": "demo", "status": "connected", "source": "sdk"}, {"name": "ext", "status": "failed"}],
        "model": "claude-opus-5-5", "permissionMode": "default", "slash_commands": ["compact", "cost"],
        "apiKeySource": "ANTHROPIC_API_KEY", "claude_code_version": "2.1.330", "output_style": "default",
        "agents": ["general-purpose"], "skills": [], "plugins": [], "capabilities": ["interrupt_receipt_v1"]
    });
    let message = round_trip(frame, "system");
    assert_eq!(message.session_id(), Some("5b6c…"));
    assert_eq!(message.uuid(), Some("u-1"));
    let Message::System(system) = &message else {
        unreachable!()
    };
    assert_eq!(system.subtype, "init");
    let init = system.init().unwrap();
    assert_eq!(init.tools, ["Task", "Bash", "mcp__demo__greet"]);
    assert_eq!(init.model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(init.cwd.as_deref(), Some("/work"));
    assert_eq!(init.permission_mode.as_deref(), Some("default"));
    assert_eq!(init.api_key_source.as_deref(), Some("ANTHROPIC_API_KEY"));
    assert_eq!(init.claude_code_version.as_deref(), Some("2.1.330"));
    assert_eq!(init.slash_commands, ["compact", "cost"]);
    assert!(init.mcp_server("demo").unwrap().is_connected());
    assert_eq!(init.mcp_server("demo").unwrap().extra["source"], "sdk");
    assert!(!init.mcp_server("ext").unwrap().is_connected());
    assert_eq!(init.extra["capabilities"], json!(["interrupt_receipt_v1"]));
    assert_eq!(system.session_state(), None);
    assert_eq!(system.status(), None);
}

#[test]
fn system_init_with_nulls_and_other_subtypes() {
    let message =
        parse(json!({"type": "system", "subtype": "init", "tools": null, "mcp_servers": null}));
    let Message::System(system) = &message else {
        panic!("{message:?}")
    };
    let init = system.init().unwrap();
    assert!(init.tools.is_empty() && init.mcp_servers.is_empty());

    let state = round_trip(
        json!({"type": "system", "subtype": "session_state_changed", "state": "requires_action",
               "sdk_host_only": true, "uuid": "u", "session_id": "s"}),
        "system",
    );
    let Message::System(state) = &state else {
        unreachable!()
    };
    assert_eq!(state.session_state(), Some(SessionState::RequiresAction));
    assert!(state.is_host_only());
    assert_eq!(state.init(), None);
    for (wire, expected) in [
        ("idle", SessionState::Idle),
        ("running", SessionState::Running),
        ("paused", SessionState::Other("paused".into())),
    ] {
        assert_eq!(SessionState::from_wire(wire), expected);
        assert_eq!(expected.as_str(), wire);
    }

    let status = round_trip(
        json!({"type": "system", "subtype": "status", "status": "compacting", "permissionMode": "acceptEdits"}),
        "system",
    );
    let Message::System(status) = &status else {
        unreachable!()
    };
    assert_eq!(status.status(), Some(Some("compacting")));
    assert!(!status.is_host_only());

    let retry = round_trip(
        json!({"type": "system", "subtype": "api_retry", "attempt": 1, "retry_delay_ms": 550}),
        "system",
    );
    let Message::System(retry) = &retry else {
        unreachable!()
    };
    assert_eq!(retry.data["attempt"], 1);
}

#[test]
fn assistant_text_and_tool_use_frames() {
    let text = round_trip(
        json!({"type": "assistant", "message": {"id": "msg_01", "type": "message", "role": "assistant",
            "model": "claude-opus-5-5", "content": [{"type": "text", "text": "Let me greet "}, {"type": "text", "text": "Alice."}],
            "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 3}},
            "parent_tool_use_id": null, "session_id": "s", "uuid": "u-2"}),
        "assistant",
    );
    let assistant = text.as_assistant().unwrap();
    assert_eq!(assistant.text(), "Let me greet Alice.");
    assert_eq!(assistant.message.id.as_deref(), Some("msg_01"));
    assert_eq!(assistant.message.role.as_deref(), Some("assistant"));
    let usage = assistant.usage().unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (10, 3));
    assert_eq!(assistant.message.extra["type"], "message");
    assert_eq!(assistant.tool_uses().count(), 0);

    let tool_use = round_trip(
        json!({"type": "assistant", "message": {"id": "msg_01", "role": "assistant", "model": "m",
            "content": [{"type": "tool_use", "id": "toolu_0000echo", "name": "mcp__demo__greet", "input": {"name": "Alice"}}],
            "stop_reason": "tool_use"},
            "parent_tool_use_id": null, "session_id": "s", "uuid": "u-3",
            "tool_use_meta": [{"id": "toolu_0000echo", "display_name": "Echo", "server_display_name": "calc-server", "tool_name": "echo"}]}),
        "assistant",
    );
    let assistant = tool_use.as_assistant().unwrap();
    assert_eq!(
        assistant.tool_uses().collect::<Vec<_>>(),
        [(
            "toolu_0000echo",
            "mcp__demo__greet",
            &json!({"name": "Alice"})
        )]
    );
    assert_eq!(assistant.message.stop_reason.as_deref(), Some("tool_use"));
    assert_eq!(assistant.extra["tool_use_meta"][0]["display_name"], "Echo");
    assert_eq!(assistant.text(), "");

    let thinking = round_trip(
        json!({"type": "assistant", "message": {"content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "redacted_thinking", "data": "xyz"}], "stop_reason": null},
            "parent_tool_use_id": "toolu_parent", "error": "rate_limit"}),
        "assistant",
    );
    let assistant = thinking.as_assistant().unwrap();
    assert_eq!(
        assistant.message.content[0],
        ContentBlock::Thinking {
            thinking: "hmm".into(),
            signature: Some("sig".into()),
            extra: Map::new()
        }
    );
    assert_eq!(
        assistant.message.content[1],
        ContentBlock::RedactedThinking {
            data: "xyz".into(),
            extra: Map::new()
        }
    );
    assert_eq!(
        assistant.message.content[1].block_type(),
        "redacted_thinking"
    );
    assert_eq!(
        assistant.parent_tool_use_id.as_deref(),
        Some("toolu_parent")
    );
    assert_eq!(assistant.error, Some(AssistantError::RateLimit));
}

#[test]
fn user_tool_result_frames() {
    let error = round_trip(
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "explode failed: disk on fire", "is_error": true}]},
            "parent_tool_use_id": null, "session_id": "s", "uuid": "u-4",
            "tool_use_result": "Error: explode failed: disk on fire",
            "tool_result_meta": [{"id": "toolu_2", "permission_decision": {"decision": "accept"}}]}),
        "user",
    );
    let Message::User(user) = &error else {
        unreachable!()
    };
    assert_eq!(
        user.tool_results().collect::<Vec<_>>(),
        [(
            "toolu_2",
            Some(&MessageContent::Text("explode failed: disk on fire".into())),
            true
        )]
    );
    assert_eq!(
        user.tool_use_result,
        Some(json!("Error: explode failed: disk on fire"))
    );
    assert_eq!(user.extra["tool_result_meta"][0]["id"], "toolu_2");
    assert!(!user.is_synthetic);

    let ok = round_trip(
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "Hello, Alice!"}]}]},
            "parent_tool_use_id": null, "session_id": "s",
            "tool_use_result": [{"type": "text", "text": "Hello, Alice!"}]}),
        "user",
    );
    let Message::User(user) = &ok else {
        unreachable!()
    };
    let (id, content, is_error) = user.tool_results().next().unwrap();
    assert_eq!((id, is_error), ("toolu_1", false));
    assert_eq!(content.unwrap().text(), "Hello, Alice!");

    let synthetic = round_trip(
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]},
            "parent_tool_use_id": null, "isSynthetic": true}),
        "user",
    );
    let Message::User(user) = &synthetic else {
        unreachable!()
    };
    assert!(user.is_synthetic);
    assert_eq!(user.text(), "[Request interrupted by user]");

    let plain = round_trip(
        json!({"type": "user", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": null}),
        "user",
    );
    let Message::User(user) = &plain else {
        unreachable!()
    };
    assert_eq!(user.message.content, MessageContent::Text("hi".into()));
    assert_eq!(user.tool_results().count(), 0);
}

#[test]
fn result_success_and_errors() {
    let success = round_trip(
        json!({"type": "result", "subtype": "success", "is_error": false, "duration_ms": 456, "duration_api_ms": 120,
            "num_turns": 2, "result": "The greet tool answered: Hello, Alice!", "stop_reason": "end_turn",
            "session_id": "s", "total_cost_usd": 0.0123, "usage": {"input_tokens": 5},
            "modelUsage": {"claude-opus-5-5": {"inputTokens": 5}}, "permission_denials": [{"tool_name": "Bash"}],
            "terminal_reason": "completed", "uuid": "u-5", "fast_mode_state": "off"}),
        "result",
    );
    assert!(success.is_result());
    let result = success.as_result().unwrap();
    assert!(result.is_success());
    assert_eq!(result.subtype, ResultSubtype::Success);
    assert_eq!(result.duration_ms, 456);
    assert_eq!(result.duration_api_ms, 120);
    assert_eq!(result.num_turns, 2);
    assert_eq!(
        result.result.as_deref(),
        Some("The greet tool answered: Hello, Alice!")
    );
    assert_eq!(result.total_cost_usd, Some(0.0123));
    assert_eq!(result.model_usage["claude-opus-5-5"].input_tokens, 5);
    assert_eq!(result.permission_denials[0].tool_name, "Bash");
    assert_eq!(result.terminal_reason, Some(TerminalReason::Completed));
    assert_eq!(result.fast_mode_state, Some(FastModeState::Off));
    assert!(result.field_errors().is_empty());
    assert_eq!(success.session_id(), Some("s"));

    let interrupted = round_trip(
        json!({"type": "result", "subtype": "error_during_execution", "is_error": true, "duration_ms": 10,
            "duration_api_ms": 0, "num_turns": 1, "session_id": "s", "errors": ["[ede_diagnostic] aborted"]}),
        "result",
    );
    let result = interrupted.as_result().unwrap();
    assert!(!result.is_success());
    assert_eq!(result.subtype, ResultSubtype::ErrorDuringExecution);
    assert_eq!(result.errors, ["[ede_diagnostic] aborted"]);

    // An API error is a `success` subtype with `is_error`.
    let api_error = parse(
        json!({"type": "result", "subtype": "success", "is_error": true,
        "api_error_status": 400, "api_error_type": "invalid_request_error", "terminal_reason": "api_error",
        "result": "API Error: 400 …", "errors": null, "permission_denials": null}),
    );
    let result = api_error.as_result().unwrap();
    assert!(!result.is_success());
    assert_eq!(result.api_error_status, Some(400));
    assert!(result.errors.is_empty());

    for (wire, subtype) in [
        ("error_max_turns", ResultSubtype::ErrorMaxTurns),
        ("error_max_budget_usd", ResultSubtype::ErrorMaxBudgetUsd),
        (
            "error_max_structured_output_retries",
            ResultSubtype::ErrorMaxStructuredOutputRetries,
        ),
        ("error_new", ResultSubtype::Other("error_new".into())),
    ] {
        let message = parse(json!({"type": "result", "subtype": wire, "is_error": true}));
        assert_eq!(message.as_result().unwrap().subtype, subtype);
        assert_eq!(subtype.as_str(), wire);
        assert_eq!(message.to_value()["subtype"], wire);
    }
}

#[test]
fn stream_event() {
    let event = round_trip(
        json!({"type": "stream_event", "uuid": "u-6", "session_id": "s", "parent_tool_use_id": null,
            "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
            "ttft_ms": 40}),
        "stream_event",
    );
    let Message::StreamEvent(stream) = &event else {
        unreachable!()
    };
    assert_eq!(stream.event_type(), Some("content_block_delta"));
    assert_eq!(stream.event["delta"]["text"], "Hel");
    assert_eq!(stream.extra["ttft_ms"], 40);
}

#[test]
fn unknown_types_pass_through_whole() {
    for frame in [
        json!({"type": "keep_alive"}),
        // Known types whose fields do not fit: a `rate_limit_event` without its info, a
        // `tool_progress` without its tool's name.
        json!({"type": "rate_limit_event", "session_id": "s"}),
        json!({"type": "tool_progress", "tool_use_id": "t", "elapsed_time_seconds": 3}),
        json!({"no_type": true}),
        json!([1, 2]),
    ] {
        let message = parse(frame.clone());
        assert_eq!(message, Message::Other(frame.clone()));
        assert_eq!(message.to_value(), frame);
    }
    assert_eq!(
        parse(json!({"type": "rate_limit_event", "session_id": "s"})).session_id(),
        Some("s")
    );
    assert_eq!(
        parse(json!({"type": "tool_progress"})).message_type(),
        "tool_progress"
    );
}

#[test]
fn known_types_with_broken_fields_fall_back_to_other() {
    for frame in [
        json!({"type": "result", "subtype": 7}),
        json!({"type": "result", "is_error": false}),
        json!({"type": "result", "subtype": "success", "num_turns": "two"}),
        json!({"type": "assistant"}),
        json!({"type": "assistant", "message": "text"}),
        json!({"type": "user", "message": {"role": "user", "content": 5}}),
        json!({"type": "system"}),
        json!({"type": "stream_event", "session_id": "s"}),
    ] {
        assert_eq!(parse(frame.clone()), Message::Other(frame));
    }
}

#[test]
fn content_blocks_keep_unknown_fields_and_odd_shapes() {
    let blocks = json!([
        {"type": "text", "text": "cached", "cache_control": {"type": "ephemeral"}, "citations": null},
        {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}, "caller": {"type": "direct"}},
        {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}]},
        {"type": "text", "text": 5},
        {"type": "tool_use", "id": "t2"},
        {"type": "server_tool_use", "id": "srv", "name": 5, "input": {}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}},
        "just a string"
    ]);
    let message = round_trip(
        json!({"type": "assistant", "message": {"content": blocks.clone(), "stop_reason": null}, "parent_tool_use_id": null}),
        "assistant",
    );
    let content = &message.as_assistant().unwrap().message.content;
    let ContentBlock::Text { text, extra } = &content[0] else {
        panic!("{:?}", content[0])
    };
    assert_eq!(text, "cached");
    assert_eq!(extra["cache_control"], json!({"type": "ephemeral"}));
    assert!(
        matches!(&content[1], ContentBlock::ToolUse { extra, .. } if extra["caller"]["type"] == "direct")
    );
    let ContentBlock::ToolResult {
        content: Some(MessageContent::Blocks(inner)),
        is_error: false,
        ..
    } = &content[2]
    else {
        panic!("{:?}", content[2])
    };
    assert_eq!(inner[0].block_type(), "image");
    // A text block whose text is not a string, a tool_use without a name, a server_tool_use
    // whose name is no string, unknown types and non-objects are kept whole.
    for i in 3..8 {
        assert_eq!(
            content[i],
            ContentBlock::Other(blocks[i].clone()),
            "block {i}"
        );
    }
    assert_eq!(
        ContentBlock::text("x").to_value(),
        json!({"type": "text", "text": "x"})
    );
}

#[test]
fn user_input_frames_match_the_official_sdks() {
    assert_eq!(
        UserInput::text("hi").to_message(""),
        json!({"type": "user", "session_id": "", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": null})
    );
    assert_eq!(
        UserInput::text("hi").with_uuid("u-7").to_message("default"),
        json!({"type": "user", "session_id": "default", "message": {"role": "user", "content": "hi"},
               "parent_tool_use_id": null, "uuid": "u-7"})
    );
    assert_eq!(
        UserInput::text("look")
            .with_image("image/png", "iVBORw0KGgo=")
            .with_text("and this")
            .to_message(""),
        json!({"type": "user", "session_id": "", "parent_tool_use_id": null, "message": {"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            {"type": "text", "text": "and this"}]}})
    );
    let blocks = vec![json!({"type": "text", "text": "a"})];
    assert_eq!(
        UserInput::blocks(blocks.clone()).to_message("")["message"]["content"],
        Value::Array(blocks)
    );
    // What the host writes parses as a user message.
    let echoed = Message::from_value(UserInput::text("hi").to_message(""));
    let Message::User(user) = echoed else {
        panic!()
    };
    assert_eq!(user.text(), "hi");
}

/// What the CLI 2.1.330 wrote on stdout in three runs against the scripted model server (a read,
/// a failed read and a shell call then an API error 400, a denied write), with
/// `--include-partial-messages` in the first: every type, nulls, empty arrays, explicit
/// `is_error: false`, fields this library does not know.
const CLI_STDOUT: &str = include_str!("fixtures/cli-2.1.330-stdout.ndjson");

#[test]
fn every_line_the_cli_wrote_comes_back_exactly_and_typed() {
    let mut types = std::collections::BTreeMap::<String, usize>::new();
    for (number, line) in CLI_STDOUT.lines().enumerate() {
        let wire: Value = serde_json::from_str(line).unwrap();
        let message = Message::from_value(wire.clone());
        assert!(
            !matches!(message, Message::Other(_)),
            "line {number} fell back to Other: {line}"
        );
        assert_eq!(message.to_value(), wire, "line {number}");
        let text = serde_json::to_string(&message).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            wire,
            "line {number} through Serialize"
        );
        assert_eq!(serde_json::from_str::<Message>(&text).unwrap(), message);
        *types.entry(message.message_type().to_string()).or_default() += 1;
    }
    assert_eq!(
        types.keys().collect::<Vec<_>>(),
        ["assistant", "result", "stream_event", "system", "user"]
    );
}

#[test]
fn the_fields_the_cli_writes_as_null_or_empty_come_back() {
    let result_line = CLI_STDOUT
        .lines()
        .find(|line| {
            line.contains("\"type\":\"result\"") && line.contains("\"api_error_status\":null")
        })
        .unwrap();
    let wire: Value = serde_json::from_str(result_line).unwrap();
    assert_eq!(wire["permission_denials"], json!([]));
    let message = Message::from_value(wire.clone());
    let result = message.as_result().unwrap();
    assert!(result.is_success());
    assert_eq!(result.api_error_status, None);
    assert!(result.permission_denials.is_empty());
    assert_eq!(result.stop_reason.as_deref(), Some("end_turn"));
    assert_eq!(result.num_turns, 2);
    let value = message.to_value();
    assert_eq!(value["permission_denials"], json!([]));
    assert_eq!(value["api_error_status"], Value::Null);
    assert_eq!(value, wire);

    let api_error = CLI_STDOUT
        .lines()
        .map(|line| Message::from_value(serde_json::from_str(line).unwrap()))
        .find(|m| m.as_result().is_some_and(|r| r.api_error_status.is_some()))
        .unwrap();
    let result = api_error.as_result().unwrap();
    assert_eq!(result.api_error_status, Some(400));
    assert!(result.is_error && !result.is_success());
    assert_eq!(result.extra["api_error_type"], "invalid_request_error");

    let denied = CLI_STDOUT
        .lines()
        .map(|line| Message::from_value(serde_json::from_str(line).unwrap()))
        .find_map(|m| {
            m.as_result()
                .filter(|r| !r.permission_denials.is_empty())
                .cloned()
        })
        .unwrap();
    assert_eq!(denied.permission_denials[0].tool_name, "Write");
    assert_eq!(
        denied.permission_denials[0].tool_input["file_path"],
        "/tmp/surface-wire/work/new.txt"
    );

    // The shell call's result: `is_error: false` written out, and still typed.
    let user = CLI_STDOUT
        .lines()
        .find(|line| {
            line.contains("\"is_error\":false,\"tool_use_id\"")
                || line.contains("\"content\":\"hi\",\"is_error\":false")
        })
        .unwrap();
    let wire: Value = serde_json::from_str(user).unwrap();
    let message = Message::from_value(wire.clone());
    let Message::User(user) = &message else {
        panic!("{message:?}")
    };
    let (id, content, is_error) = user.tool_results().next().unwrap();
    assert_eq!(
        (id, content.unwrap().text().as_str(), is_error),
        ("toolu_bash_02", "hi", false)
    );
    assert_eq!(message.to_value(), wire);
}

#[test]
fn null_absent_and_empty_fields_round_trip_as_written() {
    round_trip(
        json!({"type": "result", "subtype": "success", "is_error": null, "duration_ms": 1,
            "num_turns": null, "session_id": null, "result": null, "stop_reason": null,
            "total_cost_usd": null, "usage": null, "modelUsage": null, "permission_denials": null,
            "structured_output": null, "errors": [], "api_error_status": null,
            "terminal_reason": null, "uuid": null, "new_field": null}),
        "result",
    );
    // Everything optional absent.
    let bare = round_trip(json!({"type": "result", "subtype": "success"}), "result");
    assert!(bare.as_result().unwrap().is_success());
    assert_eq!(bare.session_id(), None);
    round_trip(
        json!({"type": "result", "subtype": "error_max_turns", "is_error": false, "errors": null,
            "permission_denials": [], "api_error_status": 529}),
        "result",
    );
    round_trip(
        json!({"type": "assistant", "message": {"content": null, "usage": null, "id": null},
            "session_id": null, "uuid": null, "error": null}),
        "assistant",
    );
    round_trip(
        json!({"type": "assistant", "message": {"content": [
            {"type": "thinking", "thinking": "hmm", "signature": null},
            {"type": "tool_result", "tool_use_id": "t", "content": null, "is_error": null},
            {"type": "tool_result", "tool_use_id": "t", "is_error": false}]}}),
        "assistant",
    );
    round_trip(
        json!({"type": "user", "message": {"role": null, "content": []}, "parent_tool_use_id": null,
            "isSynthetic": false, "tool_use_result": null}),
        "user",
    );
    round_trip(
        json!({"type": "user", "message": {"content": "hi"}, "isSynthetic": null}),
        "user",
    );
    round_trip(
        json!({"type": "system", "subtype": "status", "status": null, "session_id": null, "uuid": null}),
        "system",
    );
    round_trip(
        json!({"type": "stream_event", "event": {"type": "message_stop"}}),
        "stream_event",
    );
    round_trip(
        json!({"type": "stream_event", "event": null, "session_id": null, "parent_tool_use_id": null}),
        "stream_event",
    );
}

#[test]
fn a_changed_field_is_written_from_its_typed_value_and_the_rest_as_it_came() {
    let wire = json!({"type": "result", "subtype": "success", "is_error": false,
        "session_id": "s", "permission_denials": null, "api_error_status": null, "errors": null,
        "stop_reason": null, "extra_field": [1]});
    let mut message = parse(wire.clone());
    let Message::Result(result) = &mut message else {
        panic!("{message:?}")
    };
    result.api_error_status = Some(503);
    result
        .permission_denials
        .push(PermissionDenial::new("Bash", "toolu_1", Map::new()));
    result.is_error = true;
    let mut expected = wire;
    expected["api_error_status"] = json!(503);
    expected["permission_denials"] =
        json!([{"tool_name": "Bash", "tool_use_id": "toolu_1", "tool_input": {}}]);
    expected["is_error"] = json!(true);
    assert_eq!(message.to_value(), expected);

    let mut message = parse(json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t", "content": "no", "is_error": false}]}}));
    let Message::User(user) = &mut message else {
        panic!("{message:?}")
    };
    let MessageContent::Blocks(blocks) = &mut user.message.content else {
        panic!()
    };
    let ContentBlock::ToolResult { is_error, .. } = &mut blocks[0] else {
        panic!()
    };
    *is_error = true;
    assert_eq!(
        message.to_value()["message"]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "t", "content": "no", "is_error": true})
    );
}

#[test]
fn content_blocks_alone_come_back_as_written() {
    for block in [
        json!({"type": "thinking", "thinking": "t", "signature": null}),
        json!({"type": "tool_result", "tool_use_id": "t", "is_error": false}),
        json!({"type": "tool_result", "tool_use_id": "t", "is_error": null, "content": null}),
        json!({"type": "tool_result", "tool_use_id": "t", "is_error": true, "content": "x"}),
        json!({"type": "tool_use", "id": "t", "name": "n", "input": null}),
        // No input: kept whole rather than given an invented `{}`.
        json!({"type": "tool_use", "id": "t", "name": "n"}),
    ] {
        assert_eq!(ContentBlock::from_value(block.clone()).to_value(), block);
    }
    assert!(matches!(
        ContentBlock::from_value(json!({"type": "tool_use", "id": "t", "name": "n"})),
        ContentBlock::Other(_)
    ));
    let ContentBlock::ToolResult {
        is_error, content, ..
    } = ContentBlock::from_value(
        json!({"type": "tool_result", "tool_use_id": "t", "is_error": false}),
    )
    else {
        panic!()
    };
    assert!(!is_error && content.is_none());
}
