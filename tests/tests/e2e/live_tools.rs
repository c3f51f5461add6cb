//! Live tool lists through the real CLI: the host changes an in-process server's tools between
//! two turns of one `Client`. What the CLI (2.1.330 and 2.1.332) does with
//! `notifications/tools/list_changed` for an sdk server, as observed on the wire:
//!
//! - it acknowledges the host's `mcp_message`, then fetches `tools/list` again at once (one
//!   fetch per notification);
//! - the next turn's `system/init` lists exactly the new set, and a tool added is in the next
//!   model request's `tools`;
//! - a tool removed or disabled stays in the model request's `tools` for the rest of the
//!   session (the CLI seems to keep every tool it has sent, likely for the prompt cache), but a call to
//!   it never reaches the host: the CLI answers the model with an error result itself.
//! - `mcp_set_servers` replaces the CLI's whole set of sdk servers (those of `--mcp-config`
//!   included); an added server is connected at once and a removed server's tools are gone
//!   from the next model request.

use claude_tools::tools::{ToolContext, ToolServer};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::Message;
use claude_tools_testkit::model_server::{RecordedRequest, Script, Turn};
use serde_json::{Value, json};

use crate::harness::{raw, success_text, within, world};

/// The names of server `live`'s tools in one recorded model request, in the order sent.
fn live_tools(request: &RecordedRequest) -> Vec<String> {
    let tools = request
        .body
        .as_ref()
        .and_then(|body| body["tools"].as_array().cloned())
        .unwrap_or_default();
    names(&tools)
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .filter_map(|tool| tool.as_str().or_else(|| tool["name"].as_str()))
        .filter(|name| name.starts_with("mcp__live__"))
        .map(String::from)
        .collect()
}

/// Server `live`'s tools in a turn's `system/init` message.
fn init_tools(messages: &[Message]) -> Vec<String> {
    let init = messages
        .iter()
        .map(raw)
        .find(|m| m["type"] == "system" && m["subtype"] == "init")
        .expect("a system/init message");
    names(
        init["tools"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_model_request_carries_tools_added_and_disabled_between_turns() {
    let script = Script::new()
        .turn(Turn::text("First turn."))
        .turn(
            Turn::text("Calling both.")
                .and_tool_use("toolu_live_gamma", "mcp__live__gamma", json!({}))
                .and_tool_use("toolu_live_beta", "mcp__live__beta", json!({})),
        )
        .turn(Turn::text(
            "gamma: {{tool_result:toolu_live_gamma}}; beta: {{tool_result:toolu_live_beta}}",
        ));
    let Some(w) = world("live_tools", script).await else {
        return;
    };
    let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::<&str>::new()));
    let (beta_calls, gamma_calls) = (calls.clone(), calls.clone());
    let server = ToolServer::new("live", "1.0.0")
        .with_typed_tool("alpha", || async { "a" })
        .unwrap()
        .with_typed_tool("beta", move || {
            beta_calls.lock().unwrap().push("beta");
            async { "b" }
        })
        .unwrap();
    let Some(cli) = crate::harness::cli("live_tools") else {
        return;
    };
    let options = w
        .options()
        .cli_path(tap(&cli, w.home.path()))
        .mcp_server(server)
        // The whole server: gamma does not exist yet when the options are checked.
        .allowed_tools(["mcp__live"]);
    let (first, second) = within("live tools scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("one").await.unwrap();
        let first = client.receive_response().await.expect("first response");

        let live = client
            .tool_server("live")
            .expect("the server is in-process");
        live.add_typed_tool("gamma", move || {
            gamma_calls.lock().unwrap().push("gamma");
            async { "c" }
        })
        .unwrap();
        live.disable_tool("beta").unwrap();

        client.query("two").await.unwrap();
        let second = client.receive_response().await.expect("second response");
        client.disconnect().await.expect("disconnect");
        (first, second)
    })
    .await;

    assert_eq!(success_text(&first), "First turn.");
    assert_eq!(init_tools(&first), ["mcp__live__alpha", "mcp__live__beta"]);
    assert_eq!(
        init_tools(&second),
        ["mcp__live__alpha", "mcp__live__gamma"]
    );
    let turns = w.turns();
    assert_eq!(turns.len(), 3, "{turns:#?}");
    assert_eq!(
        live_tools(&turns[0]),
        ["mcp__live__alpha", "mcp__live__beta"]
    );
    // gamma is new; beta, disabled, is still sent (see the module docs).
    assert_eq!(
        live_tools(&turns[1]),
        ["mcp__live__alpha", "mcp__live__beta", "mcp__live__gamma"]
    );
    let refused = "<tool_use_error>Error: No such tool available: mcp__live__beta. Its MCP server \
                   'live' is connected but does not offer this tool here. Continue without it.\
                   </tool_use_error>";
    assert_eq!(
        w.tool_results(),
        [
            ("toolu_live_gamma".to_string(), "c".to_string(), false),
            ("toolu_live_beta".to_string(), refused.to_string(), true),
        ]
    );
    assert_eq!(success_text(&second), format!("gamma: c; beta: {refused}"));
    // The disabled tool never ran; the added one did.
    assert_eq!(*calls.lock().unwrap(), ["gamma"]);

    // On the wire: two notifications, each acknowledged, and one `tools/list` per notification
    // after the first at startup.
    let to_cli = wire(w.home.path(), "wire.in");
    let notifications: Vec<&Value> = to_cli
        .iter()
        .filter(|line| line["request"]["message"]["method"] == "notifications/tools/list_changed")
        .collect();
    assert_eq!(notifications.len(), 2, "{to_cli:#?}");
    let from_cli = wire(w.home.path(), "wire.out");
    for line in &notifications {
        assert!(
            from_cli.contains(
                &json!({"type": "control_response", "response": {"subtype": "success",
                "request_id": line["request_id"]}})
            ),
            "{line} acknowledged"
        );
    }
    let lists = from_cli
        .iter()
        .filter(|line| line["request"]["message"]["method"] == "tools/list")
        .count();
    assert_eq!(lists, 3);
    w.assert_offline();
}

/// A wrapper around the CLI that copies its stdin and stdout to `wire.in` and `wire.out` in
/// `dir`: the host's notifications and the CLI's acknowledgements are not on the message stream.
fn tap(cli: &std::path::Path, dir: &std::path::Path) -> std::path::PathBuf {
    let script = dir.join("claude-tap");
    let text = format!(
        "#!/bin/sh\ntee \"{dir}/wire.in\" | \"{cli}\" \"$@\" | tee \"{dir}/wire.out\"\n",
        dir = dir.display(),
        cli = cli.display()
    );
    std::fs::write(&script, text).expect("tap script");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    script
}

fn wire(dir: &std::path::Path, name: &str) -> Vec<Value> {
    crate::harness::json_lines(&dir.join(name))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reported_by_a_tool_reaches_the_cli_with_the_calls_progress_token() {
    let script = Script::new()
        .turn(Turn::text("Working.").and_tool_use("toolu_live_work", "mcp__live__work", json!({})))
        .turn(Turn::text("Done: {{tool_result}}"));
    let Some(w) = world("live_progress", script).await else {
        return;
    };
    let Some(cli) = crate::harness::cli("live_progress") else {
        return;
    };
    let server = ToolServer::new("live", "1.0.0")
        .with_typed_tool("work", |ctx: ToolContext| async move {
            for step in 1..=3 {
                ctx.report_progress(f64::from(step), Some(3.0), Some(&format!("step {step}")));
            }
            "worked"
        })
        .unwrap();
    let options = w
        .options()
        .cli_path(tap(&cli, w.home.path()))
        .mcp_server(server)
        .allowed_tools(["mcp__live"]);
    let messages = within("progress scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("work").await.unwrap();
        let messages = client.receive_response().await.expect("response");
        client.disconnect().await.expect("disconnect");
        messages
    })
    .await;
    assert_eq!(success_text(&messages), "Done: worked");

    let from_cli = wire(w.home.path(), "wire.out");
    let call = from_cli
        .iter()
        .find(|line| line["request"]["message"]["method"] == "tools/call")
        .expect("the CLI called the tool");
    let token = call["request"]["message"]["params"]["_meta"]["progressToken"].clone();
    assert!(token.is_number(), "{call}");
    let to_cli = wire(w.home.path(), "wire.in");
    let progress: Vec<&Value> = to_cli
        .iter()
        .filter(|line| line["request"]["message"]["method"] == "notifications/progress")
        .collect();
    let expected: Vec<Value> = (1..=3)
        .map(|step| {
            json!({"subtype": "mcp_message", "server_name": "live", "message": {"jsonrpc": "2.0",
                "method": "notifications/progress", "params": {"progressToken": token,
                "progress": f64::from(step), "total": 3.0, "message": format!("step {step}")}}})
        })
        .collect();
    let sent: Vec<Value> = progress
        .iter()
        .map(|line| line["request"].clone())
        .collect();
    assert_eq!(sent, expected);
    // The CLI acknowledges each one with a plain success, and shows none on its output.
    for line in &progress {
        let ack = from_cli
            .iter()
            .find(|answer| answer["response"]["request_id"] == line["request_id"])
            .expect("an acknowledgement");
        assert_eq!(
            ack,
            &json!({"type": "control_response", "response": {"subtype": "success",
                "request_id": line["request_id"]}})
        );
    }
    assert!(
        !messages
            .iter()
            .map(raw)
            .any(|m| m.to_string().contains("step 1")),
        "{:#?}",
        crate::harness::dump(&messages)
    );
    w.assert_offline();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_added_between_turns_is_offered_and_one_removed_is_not() {
    let script = Script::new()
        .turn(Turn::text("First turn."))
        .turn(Turn::text("Calling extra.").and_tool_use("toolu_live_x", "mcp__extra__x", json!({})))
        .turn(Turn::text("extra said: {{tool_result}}"));
    let Some(w) = world("live_servers", script).await else {
        return;
    };
    let first_server = ToolServer::new("live", "1.0.0")
        .with_typed_tool("alpha", || async { "a" })
        .unwrap();
    let extra = ToolServer::new("extra", "1.0.0")
        .with_typed_tool("x", || async { "from x" })
        .unwrap();
    let options = w
        .options()
        .mcp_server(first_server)
        .allowed_tools(["mcp__live", "mcp__extra"]);
    let (receipt, status, second) = within("live servers scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("one").await.unwrap();
        client.receive_response().await.expect("first response");

        let handle = client.add_server(extra).await.expect("added");
        assert_eq!(handle.enabled_tools(), ["x"]);
        let duplicate = client
            .add_server(ToolServer::new("extra", "2.0.0"))
            .await
            .unwrap_err();
        assert_eq!(
            duplicate.to_string(),
            "the session already has an in-process server named `extra`"
        );
        let receipt = client.remove_server("live").await.expect("removed");
        let unknown = client.remove_server("live").await.unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "no in-process server named `live`; the session's servers are: extra"
        );

        client.query("two").await.unwrap();
        let second = client.receive_response().await.expect("second response");
        let status = client.mcp_status().await.expect("status");
        client.disconnect().await.expect("disconnect");
        (receipt, status, second)
    })
    .await;

    // The CLI's receipt, typed: `{"added":[],"removed":["live"],"errors":{}}`.
    assert_eq!(
        (&receipt.added, &receipt.removed, receipt.errors.len()),
        (&Vec::<String>::new(), &vec!["live".to_string()], 0),
        "{receipt:?}"
    );
    assert_eq!(success_text(&second), "extra said: from x");
    let turns = w.turns();
    assert_eq!(turns.len(), 3, "{turns:#?}");
    let mcp_tools = |request: &RecordedRequest| -> Vec<String> {
        let tools = request.body.as_ref().map(|b| b["tools"].clone());
        tools
            .and_then(|t| t.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .filter(|n| n.starts_with("mcp__"))
            .map(String::from)
            .collect()
    };
    assert_eq!(mcp_tools(&turns[0]), ["mcp__live__alpha"]);
    assert_eq!(mcp_tools(&turns[1]), ["mcp__extra__x"]);
    let servers: Vec<(&str, &str)> = status
        .servers
        .iter()
        .map(|s| (s.name.as_str(), s.status.as_str()))
        .collect();
    assert_eq!(servers, [("extra", "connected")]);
    // The typed status of a connected in-process server: its handshake and its tools.
    let extra = status.server("extra").expect("listed");
    assert_eq!(
        extra.server_info.as_ref().map(|info| info.name.as_str()),
        Some("extra"),
        "{extra:?}"
    );
    let tools: Vec<&str> = extra
        .tools
        .iter()
        .flatten()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(tools, ["x"], "{extra:?}");
    w.assert_offline();
}
