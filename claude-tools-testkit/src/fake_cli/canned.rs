//! Canned step sequences for the common parts of a CLI session, as the real CLI 2.1.332 plays
//! them (envelopes from protocol.md §A.2/§A.4 and the observed wire traces).
//!
//! Variables these sequences use: `$init_request_id` (captured host `initialize` id),
//! `$mcp_rid` (ids of our MCP control requests), `$session_id` and `$pid` (predefined by the
//! interpreter). Each returns a [`FakeScript`] to chain with [`FakeScript::then`].

use serde_json::{Value, json};

use super::script::FakeScript;

/// The model the fake reports.
pub const MODEL: &str = "claude-opus-5-5";

/// A plausible success payload for the host's `initialize` request.
pub fn initialize_payload() -> Value {
    let command = |name: &str, description: &str| json!({"name": name, "description": description, "argumentHint": ""});
    json!({
        "commands": [
            command("compact", "Clear conversation history but keep a summary in context"),
            command("context", "Visualize current context usage"),
            command("cost", "Show the total cost and duration of the current session"),
            command("init", "Initialize a new CLAUDE.md file with codebase documentation"),
            command("review", "Review a pull request"),
        ],
        "agents": [],
        "output_style": "default",
        "available_output_styles": ["default", "Explanatory", "Learning"],
        "models": [
            {"value": "default", "resolvedModel": MODEL, "displayName": "Default (recommended)", "description": "Opus 5.5"},
            {"value": "sonnet", "resolvedModel": "claude-sonnet-5-5", "displayName": "Sonnet", "description": "Sonnet 5.5"},
            {"value": "haiku", "resolvedModel": "claude-haiku-4-5", "displayName": "Haiku", "description": "Haiku 4.5"},
        ],
        "account": {"tokenSource": "none", "apiKeySource": "ANTHROPIC_API_KEY", "apiProvider": "firstParty"},
        "pid": "$pid",
        "claude_code_version": "2.1.332",
        "current_permission_mode": "default",
        "hooks_applied": true,
        "hook_on_failure_supported": true,
        "session_state": "idle",
        "capabilities": [],
    })
}

/// A success `control_response` to request `$<id_var>` carrying `payload`.
pub fn success_response(id_var: &str, payload: Value) -> Value {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": format!("${id_var}"), "response": payload}})
}

/// An error `control_response` to request `$<id_var>`.
pub fn error_response(id_var: &str, error: &str) -> Value {
    json!({"type": "control_response", "response": {"subtype": "error", "request_id": format!("${id_var}"), "error": error}})
}

/// Expects the host's `initialize` control_request (any hooks/agents) and captures its
/// `request_id` into `$init_request_id`.
pub fn expect_initialize() -> FakeScript {
    FakeScript::new().expect(json!({
        "type": "control_request",
        "request_id": "$>init_request_id",
        "request": {"subtype": "initialize"}
    }))
}

/// Answers the captured `initialize` with [`initialize_payload`].
pub fn reply_initialize() -> FakeScript {
    FakeScript::new().send(success_response("init_request_id", initialize_payload()))
}

/// [`expect_initialize`] then [`reply_initialize`].
pub fn initialize() -> FakeScript {
    expect_initialize().then(reply_initialize())
}

/// An `mcp_message` control_request to `server` carrying a JSON-RPC message, under request id
/// `$mcp_rid` (bind it first).
pub fn mcp_request(server: &str, message: Value) -> Value {
    json!({"type": "control_request", "request_id": "$mcp_rid",
           "request": {"subtype": "mcp_message", "server_name": server, "message": message}})
}

/// Expects the host's success response to `$mcp_rid` whose `mcp_response` matches `pattern`.
pub fn expect_mcp_response(pattern: Value) -> FakeScript {
    FakeScript::new().expect(json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": "$mcp_rid", "response": {"mcp_response": pattern}}}))
}

/// The CLI side of the MCP handshake with SDK server `server`: `initialize` (id 0, protocol
/// 2025-11-25) → expects the wrapped result with `capabilities.tools`; `notifications/initialized`
/// → expects a success ack (any payload); `tools/list` (id 1) → expects a result whose `tools`
/// match `tools_pattern` (use `json!("$any")` for any list).
pub fn mcp_handshake_expecting(server: &str, tools_pattern: Value) -> FakeScript {
    FakeScript::new()
        .let_var("mcp_rid", json!("$uuid"))
        .send(mcp_request(
            server,
            json!({"method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "claude-code", "title": "Claude Code", "description": "Anthropic's agentic coding tool",
                               "websiteUrl": "https://claude.com/claude-code", "version": "2.1.332"}},
                "jsonrpc": "2.0", "id": 0}),
        ))
        .then(expect_mcp_response(json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "$any", "capabilities": {"tools": "$any"}, "serverInfo": "$any"}})))
        .let_var("mcp_rid", json!("$uuid"))
        .send(mcp_request(server, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})))
        .expect(json!({"type": "control_response", "response": {"subtype": "success", "request_id": "$mcp_rid"}}))
        .let_var("mcp_rid", json!("$uuid"))
        .send(mcp_request(server, json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1})))
        .then(expect_mcp_response(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools_pattern}})))
}

/// [`mcp_handshake_expecting`] with any tool list.
pub fn mcp_handshake(server: &str) -> FakeScript {
    mcp_handshake_expecting(server, json!("$any"))
}

/// A `tools/call` round trip: sends the call (JSON-RPC `id` = `mcp_id`, `_meta` with
/// `claudecode/toolUseId` and `progressToken`) and expects the host's wrapped result matching
/// `result_pattern`. `mcp_id` and `tool_use_id` may be templates (`"$i"`, `"toolu_${i}"`).
pub fn tools_call_expecting(
    server: &str,
    mcp_id: Value,
    tool: &str,
    arguments: Value,
    tool_use_id: &str,
    result_pattern: Value,
) -> FakeScript {
    FakeScript::new()
        .let_var("mcp_rid", json!("$uuid"))
        .send(mcp_request(
            server,
            json!({"method": "tools/call", "params": {"name": tool, "arguments": arguments,
                "_meta": {"claudecode/toolUseId": tool_use_id, "progressToken": mcp_id}},
                "jsonrpc": "2.0", "id": mcp_id}),
        ))
        .then(expect_mcp_response(
            json!({"jsonrpc": "2.0", "id": mcp_id, "result": result_pattern}),
        ))
}

/// [`tools_call_expecting`] with any result.
pub fn tools_call(
    server: &str,
    mcp_id: Value,
    tool: &str,
    arguments: Value,
    tool_use_id: &str,
) -> FakeScript {
    tools_call_expecting(server, mcp_id, tool, arguments, tool_use_id, json!("$any"))
}

/// `n` `tools/call` round trips in a loop (JSON-RPC ids from 2, tool_use ids `toolu_bench_<id>`):
/// the benchmark fast path.
pub fn tools_call_loop(server: &str, n: u64, tool: &str, arguments: Value) -> FakeScript {
    FakeScript::new().repeat(
        n,
        "i",
        2,
        tools_call(server, json!("$i"), tool, arguments, "toolu_bench_${i}"),
    )
}

/// A `can_use_tool` request for `tool_name` (SDK server `server`); expects the host's success
/// response whose payload matches `response_pattern` (e.g. `{"behavior": "allow"}`).
pub fn can_use_tool(
    server: &str,
    tool_name: &str,
    input: Value,
    tool_use_id: &str,
    response_pattern: Value,
) -> FakeScript {
    FakeScript::new()
        .let_var("mcp_rid", json!("$uuid"))
        .send(json!({"type": "control_request", "request_id": "$mcp_rid", "request": {
            "subtype": "can_use_tool", "tool_name": tool_name, "mcp_server": {"name": server, "source": "sdk"},
            "display_name": tool_name, "input": input,
            "permission_suggestions": [{"type": "addRules", "rules": [{"toolName": tool_name}], "behavior": "allow", "destination": "localSettings"}],
            "server_policy_ask_only": true, "tool_use_id": tool_use_id}}))
        .expect(json!({"type": "control_response", "response": {"subtype": "success", "request_id": "$mcp_rid", "response": response_pattern}}))
}

/// Expects a user message from the host whose `message.content` matches `content_pattern`.
pub fn expect_user_message(content_pattern: Value) -> FakeScript {
    FakeScript::new()
        .expect(json!({"type": "user", "message": {"role": "user", "content": content_pattern}}))
}

/// A `system/init` frame listing `tools` and the connected SDK `servers`.
pub fn system_init(tools: &[&str], servers: &[&str]) -> FakeScript {
    let servers: Vec<Value> = servers
        .iter()
        .map(|s| json!({"name": s, "status": "connected", "source": "sdk"}))
        .collect();
    FakeScript::new().send(json!({
        "type": "system", "subtype": "init", "cwd": "/tmp", "session_id": "$session_id",
        "tools": tools, "mcp_servers": servers, "model": MODEL, "permissionMode": "default",
        "slash_commands": ["compact", "context", "cost", "init", "review"], "apiKeySource": "ANTHROPIC_API_KEY",
        "claude_code_version": "2.1.332", "output_style": "default", "agents": [], "skills": [], "plugins": [],
        "uuid": "$uuid"
    }))
}

/// A `session_state_changed` frame (`"running"` or `"idle"`) with `sdk_host_only: true`.
pub fn session_state_changed(state: &str) -> FakeScript {
    FakeScript::new().send(
        json!({"type": "system", "subtype": "session_state_changed", "state": state,
        "sdk_host_only": true, "uuid": "$uuid", "session_id": "$session_id"}),
    )
}

fn assistant(content: Value) -> Value {
    json!({"type": "assistant", "message": {"id": "msg_fake_0001", "type": "message", "role": "assistant", "model": MODEL,
        "content": content, "stop_reason": null, "stop_sequence": null,
        "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 5}},
        "parent_tool_use_id": null, "session_id": "$session_id", "uuid": "$uuid"})
}

/// An `assistant` frame with one text block.
pub fn assistant_text(text: &str) -> FakeScript {
    FakeScript::new().send(assistant(json!([{"type": "text", "text": text}])))
}

/// An `assistant` frame with one tool_use block.
pub fn assistant_tool_use(tool_use_id: &str, name: &str, input: Value) -> FakeScript {
    FakeScript::new().send(assistant(
        json!([{"type": "tool_use", "id": tool_use_id, "name": name, "input": input}]),
    ))
}

/// A `user` frame carrying a tool_result (as the CLI echoes it on stdout).
pub fn user_tool_result(tool_use_id: &str, text: &str, is_error: bool) -> FakeScript {
    FakeScript::new().send(json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "content": [{"type": "text", "text": text}], "is_error": is_error, "tool_use_id": tool_use_id}]},
        "parent_tool_use_id": null, "session_id": "$session_id", "uuid": "$uuid"}))
}

/// A successful `result` frame with `result` text.
pub fn result(text: &str) -> FakeScript {
    FakeScript::new().send(json!({
        "type": "result", "subtype": "success", "is_error": false, "duration_ms": 12, "duration_api_ms": 5,
        "num_turns": 1, "result": text, "stop_reason": "end_turn", "session_id": "$session_id",
        "total_cost_usd": 0.0,
        "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 5},
        "modelUsage": {}, "permission_denials": [], "uuid": "$uuid"
    }))
}

/// The whole CLI side of one prompt with one SDK tool call, as observed: host `initialize` →
/// MCP `initialize` first, then the initialize reply → user message matching `prompt` →
/// `notifications/initialized`, `running`, `tools/list` → `system/init` → assistant tool_use →
/// `tools/call` → a user frame carrying the host's tool content → final text → `result` → `idle` → expects stdin to close (10 s).
pub fn one_tool_session(
    server: &str,
    tool: &str,
    arguments: Value,
    prompt: Value,
    final_text: &str,
) -> FakeScript {
    let full = format!("mcp__{server}__{tool}");
    expect_initialize()
        .let_var("mcp_rid", json!("$uuid"))
        .send(mcp_request(
            server,
            json!({"method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "claude-code", "title": "Claude Code", "version": "2.1.332"}}, "jsonrpc": "2.0", "id": 0}),
        ))
        .then(expect_mcp_response(json!({"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {"tools": "$any"}}})))
        .then(reply_initialize())
        .then(expect_user_message(prompt))
        .let_var("mcp_rid", json!("$uuid"))
        .send(mcp_request(server, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})))
        .expect(json!({"type": "control_response", "response": {"subtype": "success", "request_id": "$mcp_rid"}}))
        .then(session_state_changed("running"))
        .let_var("mcp_rid", json!("$uuid"))
        .send(mcp_request(server, json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1})))
        .then(expect_mcp_response(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": "$any"}})))
        .then(system_init(&[full.as_str()], &[server]))
        .then(assistant_tool_use("toolu_fake_01", &full, arguments.clone()))
        .then(tools_call_expecting(
            server,
            json!(2),
            tool,
            arguments,
            "toolu_fake_01",
            json!({"content": "$>tool_content"}),
        ))
        .send(json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "content": "$tool_content", "tool_use_id": "toolu_fake_01"}]},
            "parent_tool_use_id": null, "session_id": "$session_id", "uuid": "$uuid"}))
        .then(assistant_text(final_text))
        .then(result(final_text))
        .then(session_state_changed("idle"))
        .expect_eof(std::time::Duration::from_secs(10))
}
