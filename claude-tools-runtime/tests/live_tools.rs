//! Live tool lists on a connected `Client`, against a scripted CLI (an in-memory transport):
//! each change writes one exact `mcp_message` line carrying `notifications/tools/list_changed`,
//! `tools/list` answers the new set, refused changes write nothing, and a call in flight keeps
//! the tool it started with.

use std::time::Duration;

use claude_tools_core::mcp::{LiveToolError, ToolServerHandle};
use claude_tools_core::tool::{ServerBuildError, ToolServer};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::options::Options;
use serde_json::{Value, json};
use tokio::sync::oneshot;

mod common;

use common::{Cli, Connecting};

fn server() -> ToolServer {
    ToolServer::new("live", "1.0.0")
        .with_typed_tool("alpha", || async { "a" })
        .unwrap()
        .with_typed_tool("beta", || async { "b" })
        .unwrap()
}

impl Cli {
    async fn mcp(&mut self, request_id: &str, message: Value) -> Value {
        self.send(json!({"type": "control_request", "request_id": request_id,
            "request": {"subtype": "mcp_message", "server_name": "live", "message": message}}))
            .await;
        let reply = self.recv().await;
        assert_eq!(reply["response"]["request_id"], request_id, "reply {reply}");
        reply["response"]["response"]["mcp_response"].clone()
    }

    async fn tool_names(&mut self, request_id: &str) -> Vec<String> {
        let reply = self
            .mcp(
                request_id,
                json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
            )
            .await;
        let tools = reply["result"]["tools"].as_array().cloned();
        tools
            .unwrap_or_default()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// The next line must be the host's list_changed notification for server `live`; returns
    /// its request id.
    async fn expect_list_changed(&mut self) -> String {
        let line = self.recv_line().await;
        let frame: Value = serde_json::from_str(&line).unwrap();
        let request_id = frame["request_id"].as_str().unwrap().to_string();
        assert!(request_id.starts_with("req_mcp_"), "{line}");
        assert_eq!(
            line,
            format!(
                r#"{{"type":"control_request","request_id":"{request_id}","request":{{"subtype":"mcp_message","server_name":"live","message":{{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}}}}}"#
            )
        );
        request_id
    }
}

async fn connect(server: ToolServer) -> (Client, Cli) {
    let (connecting, mut cli) = Connecting::start(Options::new().mcp_server(server));
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    (connecting.client().await, cli)
}

#[tokio::test]
async fn each_change_writes_the_exact_list_changed_line_and_tools_list_follows() {
    let (client, mut cli) = connect(server()).await;
    let live = client.tool_server("live").unwrap();
    assert_eq!(cli.tool_names("m1").await, ["alpha", "beta"]);

    live.add_typed_tool("gamma", || async { "c" }).unwrap();
    let first = cli.expect_list_changed().await;
    assert_eq!(cli.tool_names("m2").await, ["alpha", "beta", "gamma"]);

    live.disable_tool("beta").unwrap();
    let second = cli.expect_list_changed().await;
    assert_ne!(first, second, "each notification has its own request id");
    assert_eq!(cli.tool_names("m3").await, ["alpha", "gamma"]);
    assert_eq!(live.enabled_tools(), ["alpha", "gamma"]);
    assert_eq!(live.disabled_tools(), ["beta"]);

    // The CLI's acknowledgement of the notification matches no waiter and is dropped.
    cli.send(
        json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": second, "response": {}}}),
    )
    .await;

    // A disabled tool is refused like an unknown one.
    let reply = cli
        .mcp(
            "m4",
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "beta"}}),
        )
        .await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32602, "message": "Invalid params",
            "data": "Tool `beta` not found on server `live`"}})
    );

    live.enable_tool("beta").unwrap();
    cli.expect_list_changed().await;
    live.remove_tool("alpha").unwrap();
    cli.expect_list_changed().await;
    assert_eq!(cli.tool_names("m5").await, ["beta", "gamma"]);
}

#[tokio::test]
async fn refused_and_no_op_changes_write_nothing() {
    let (client, mut cli) = connect(server()).await;
    let live = client.tool_server("live").unwrap();

    let unknown = LiveToolError::UnknownTool {
        server: "live".into(),
        tool: "delta".into(),
        known: vec!["alpha".into(), "beta".into()],
    };
    assert_eq!(live.remove_tool("delta"), Err(unknown.clone()));
    assert_eq!(live.disable_tool("delta"), Err(unknown.clone()));
    assert_eq!(live.enable_tool("delta"), Err(unknown.clone()));
    assert_eq!(
        unknown.to_string(),
        "server `live` has no tool named `delta`; its tools are: alpha, beta"
    );
    assert!(matches!(
        live.add_typed_tool("alpha", || async { "again" }),
        Err(LiveToolError::Build(ServerBuildError::DuplicateTool { ref tool, .. })) if tool == "alpha"
    ));
    assert!(matches!(
        live.add_typed_tool("bad name", || async { "" }),
        Err(LiveToolError::Build(ServerBuildError::InvalidName(_)))
    ));
    // Enabling an enabled tool changes nothing: nothing is sent.
    live.enable_tool("alpha").unwrap();
    cli.silent_for(200).await;

    live.disable_tool("beta").unwrap();
    cli.expect_list_changed().await;
    // Disabling it again changes nothing; a disabled tool's name is still taken.
    live.disable_tool("beta").unwrap();
    assert!(matches!(
        live.add_typed_tool("beta", || async { "" }),
        Err(LiveToolError::Build(ServerBuildError::DuplicateTool { .. }))
    ));
    cli.silent_for(200).await;

    let error = client.tool_server("nope").unwrap_err();
    assert_eq!(
        error,
        LiveToolError::UnknownServer {
            server: "nope".into(),
            known: vec!["live".into()]
        }
    );
    assert_eq!(
        error.to_string(),
        "no in-process server named `nope`; the session's servers are: live"
    );
}

#[tokio::test]
async fn a_call_in_flight_keeps_the_tool_it_started_with() {
    let (release_tx, release_rx) = oneshot::channel::<()>();
    let release = std::sync::Arc::new(std::sync::Mutex::new(Some(release_rx)));
    let server = server()
        .with_typed_tool("slow", move || {
            let release = release.lock().unwrap().take();
            async move {
                if let Some(release) = release {
                    let _ = release.await;
                }
                "finished with the old tool"
            }
        })
        .unwrap();
    let (client, mut cli) = connect(server).await;
    let live: ToolServerHandle = client.tool_server("live").unwrap();

    cli.send(json!({"type": "control_request", "request_id": "call-1",
        "request": {"subtype": "mcp_message", "server_name": "live", "message":
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow"}}}}))
        .await;
    cli.silent_for(100).await; // the call is running
    live.remove_tool("slow").unwrap();
    cli.expect_list_changed().await;
    release_tx.send(()).unwrap();

    let answer = cli.recv_within(Duration::from_secs(5)).await;
    assert_eq!(
        answer,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "call-1",
            "response": {"mcp_response": {"jsonrpc": "2.0", "id": 1, "result": {"isError": false,
                "content": [{"type": "text", "text": "finished with the old tool"}]}}}}})
    );
    let reply = cli
        .mcp(
            "call-2",
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "slow"}}),
        )
        .await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
}

#[tokio::test]
async fn handles_share_one_set_and_changes_from_many_threads_all_land() {
    let (client, mut cli) = connect(server()).await;
    let live = client.tool_server("live").unwrap();
    let adders: Vec<_> = (0..8)
        .map(|n| {
            let live = live.clone();
            std::thread::spawn(move || {
                live.add_typed_tool(format!("t{n}"), || async { "" })
                    .unwrap()
            })
        })
        .collect();
    for adder in adders {
        adder.join().unwrap();
    }
    for _ in 0..8 {
        cli.expect_list_changed().await;
    }
    let again = client.tool_server("live").unwrap();
    assert_eq!(again.enabled_tools().len(), 10);
    assert_eq!(cli.tool_names("m1").await.len(), 10);
}

#[tokio::test]
async fn the_settings_of_a_start_server_are_sent_again_with_every_new_set() {
    use claude_tools_runtime::options::{McpServerSettings, ToolPermissionPolicy};
    // `mcp_set_servers` replaces the tool policies the CLI holds for a server: a set that left
    // them out would lift them.
    let settings = McpServerSettings::new()
        .timeout(Duration::from_secs(30))
        .tool_policy("beta", ToolPermissionPolicy::AlwaysDeny);
    let options = Options::new()
        .mcp_server(server())
        .mcp_server_settings("live", settings);
    let (connecting, mut cli) = Connecting::start(options);
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    let client = connecting.client().await;
    let adding = tokio::spawn(async move {
        let handle = client.add_server(ToolServer::new("extra", "1.0.0")).await;
        (client, handle)
    });
    let request = cli.recv_request("mcp_set_servers").await;
    assert_eq!(
        request["request"],
        json!({"subtype": "mcp_set_servers", "servers": {
            "extra": {"type": "sdk", "name": "extra"},
            "live": {"type": "sdk", "name": "live", "timeout": 30000,
                "tools": [{"name": "beta", "permission_policy": "always_deny"}]}}})
    );
    cli.answer(
        &request,
        json!({"added": ["extra"], "removed": [], "errors": {}}),
    )
    .await;
    let (_client, handle) = adding.await.unwrap();
    handle.unwrap();
}

#[tokio::test]
async fn adding_and_removing_servers_sends_the_whole_set_and_routes_the_new_server() {
    let (client, mut cli) = connect(server()).await;
    let extra = ToolServer::new("extra", "1.0.0")
        .with_typed_tool("x", || async { "from x" })
        .unwrap();

    let adding = tokio::spawn(async move {
        let handle = client.add_server(extra).await;
        (client, handle)
    });
    let request = cli.recv_request("mcp_set_servers").await;
    assert_eq!(
        request["request"],
        json!({"subtype": "mcp_set_servers", "servers": {
            "extra": {"type": "sdk", "name": "extra"},
            "live": {"type": "sdk", "name": "live"}}})
    );
    cli.answer(
        &request,
        json!({"added": ["extra"], "removed": [], "errors": {}}),
    )
    .await;
    let (client, handle) = adding.await.unwrap();
    assert_eq!(handle.unwrap().enabled_tools(), ["x"]);

    // The CLI now talks to the new server through the same mcp_message requests.
    cli.send(json!({"type": "control_request", "request_id": "x-1",
        "request": {"subtype": "mcp_message", "server_name": "extra", "message":
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}}}))
        .await;
    assert_eq!(
        cli.recv().await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "x-1",
            "response": {"mcp_response": {"jsonrpc": "2.0", "id": 1, "result": {"isError": false,
                "content": [{"type": "text", "text": "from x"}]}}}}})
    );
    // Its handle sends list_changed under its own name.
    client
        .tool_server("extra")
        .unwrap()
        .add_typed_tool("y", || async { "" })
        .unwrap();
    let line = cli.recv().await;
    assert_eq!(line["request"]["server_name"], "extra");
    assert_eq!(
        line["request"]["message"]["method"],
        "notifications/tools/list_changed"
    );

    let duplicate = client
        .add_server(ToolServer::new("live", "2.0.0"))
        .await
        .unwrap_err();
    assert!(matches!(
        duplicate,
        claude_tools_runtime::Error::Live(LiveToolError::DuplicateServer { ref server }) if server == "live"
    ));
    cli.silent_for(100).await;

    let removing = tokio::spawn(async move {
        let receipt = client.remove_server("live").await;
        (client, receipt)
    });
    let request = cli.recv_request("mcp_set_servers").await;
    assert_eq!(
        request["request"],
        json!({"subtype": "mcp_set_servers", "servers": {"extra": {"type": "sdk", "name": "extra"}}})
    );
    // The receipt of CLI 2.1.330, typed; what the CLI adds later is kept.
    let receipt = json!({"added": [], "removed": ["live"], "errors": {"other": "not an sdk server"},
        "later": 1});
    cli.answer(&request, receipt).await;
    let (client, answer) = removing.await.unwrap();
    let answer = answer.unwrap();
    assert_eq!(
        (
            answer.added.as_slice(),
            answer.removed.as_slice(),
            answer.errors.get("other").map(String::as_str),
            &answer.extra["later"]
        ),
        (
            &[][..],
            &["live".to_string()][..],
            Some("not an sdk server"),
            &json!(1)
        )
    );

    assert!(matches!(
        client.tool_server("live"),
        Err(LiveToolError::UnknownServer { .. })
    ));
    let unknown = client.remove_server("live").await.unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "no in-process server named `live`; the session's servers are: extra"
    );
    cli.silent_for(100).await;
}

#[tokio::test]
async fn an_update_is_all_or_nothing_and_sends_one_notification() {
    let (client, mut cli) = connect(server()).await;
    let live = client.tool_server("live").unwrap();

    live.update(|tools| {
        tools.add_typed_tool("gamma", || async { "c" })?;
        tools.disable_tool("beta")?;
        tools.remove_tool("alpha")
    })
    .unwrap();
    cli.expect_list_changed().await;
    cli.silent_for(100).await; // one line for the three changes
    assert_eq!(cli.tool_names("m1").await, ["gamma"]);

    let refused = live.update(|tools| {
        tools.enable_tool("beta")?;
        tools.remove_tool("alpha") // gone already
    });
    assert!(matches!(refused, Err(LiveToolError::UnknownTool { ref tool, .. }) if tool == "alpha"));
    cli.silent_for(100).await;
    assert_eq!(live.enabled_tools(), ["gamma"]);
    assert_eq!(live.disabled_tools(), ["beta"]);
    assert_eq!(cli.tool_names("m2").await, ["gamma"]);
}
