//! `Options::handshake_manifests`: the in-process servers' MCP handshake sent in the host's
//! `initialize` request, against a scripted CLI (an in-memory transport). Every test asserts the
//! exact JSON written on the wire.

use std::time::Duration;

use claude_tools_core::tool::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::options::Options;
use serde_json::{Value, json};

mod common;

use common::{Cli, Connecting, mcp_answer, string_argument};

/// A server with instructions and one tool, `greet(name)`.
fn greeter() -> ToolServer {
    let mut greet = ToolDefBuilder::new("greet");
    greet.description("Greets someone");
    greet.input().property::<String>("name", None, true);
    ToolServer::new("greeter", "2.0.0")
        .with_instructions("Greet politely.")
        .with_tool(greet, |mut call: ToolCall| {
            let name = string_argument(&mut call, "name");
            async move { format!("Hello, {name}!") }
        })
        .unwrap()
}

/// The `tools/list` result of [`greeter`].
fn greeter_tools() -> Value {
    json!({"tools": [{"name": "greet", "description": "Greets someone",
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}},
            "required": ["name"]},
        "_meta": {"anthropic/alwaysLoad": true}}]})
}

/// The `initialize` result of [`greeter`] for the version the CLI asks for.
fn greeter_initialize_result() -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": false}, "logging": {}},
        "serverInfo": {"name": "greeter", "version": "2.0.0"}, "instructions": "Greet politely."})
}

impl Cli {
    async fn greeter_mcp(&mut self, request_id: &str, message: Value) -> Value {
        self.send(json!({"type": "control_request", "request_id": request_id,
            "request": {"subtype": "mcp_message", "server_name": "greeter", "message": message}}))
            .await;
        self.recv().await
    }
}

/// Connects with `options`; the CLI answers `initialize` with `answer`. Returns the host's
/// `initialize` request.
async fn connect(
    options: Options,
    answer: Value,
) -> (claude_tools_runtime::client::Client, Cli, Value) {
    let (connecting, mut cli) = Connecting::start(options);
    let initialize = cli.recv().await;
    cli.answer(&initialize, answer).await;
    (connecting.client().await, cli, initialize)
}

#[tokio::test]
async fn off_by_default_the_servers_go_in_mcp_config_and_initialize_carries_no_manifest() {
    let (_client, cli, initialize) = connect(Options::new().mcp_server(greeter()), json!({})).await;
    assert_eq!(
        initialize["request"],
        json!({"subtype": "initialize", "hooks": null})
    );
    let args = cli.0.launch_spec().unwrap().args;
    let config = args.iter().position(|arg| arg == "--mcp-config").unwrap();
    assert_eq!(
        args[config + 1],
        r#"{"mcpServers":{"greeter":{"type":"sdk","name":"greeter"}}}"#
    );
}

#[tokio::test]
async fn on_the_servers_and_their_handshake_results_go_in_initialize_and_calls_need_no_handshake() {
    let options = Options::new()
        .mcp_server(greeter())
        .mcp_server(ToolServer::new("empty", "0.1.0"))
        .handshake_manifests(true);
    let (client, mut cli, initialize) = connect(
        options,
        json!({"sdk_mcp_manifests_parked": {"greeter": "parked", "empty": "parked"}}),
    )
    .await;
    assert_eq!(
        initialize["request"],
        json!({"subtype": "initialize", "hooks": null,
            "sdkMcpServers": ["greeter", "empty"],
            "sdkMcpServerManifests": {
                "greeter": {"initializeResult": greeter_initialize_result(),
                    "toolsListResult": greeter_tools()},
                "empty": {"initializeResult": {"protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {"listChanged": false}, "logging": {}},
                        "serverInfo": {"name": "empty", "version": "0.1.0"}},
                    "toolsListResult": {"tools": []}}}})
    );
    // Named in initialize only: the CLI would connect a `--mcp-config` one before reading the
    // manifests.
    let args = cli.0.launch_spec().unwrap().args;
    assert!(!args.contains(&"--mcp-config".to_string()), "{args:?}");
    assert_eq!(
        client.server_info()["sdk_mcp_manifests_parked"]["greeter"],
        "parked"
    );

    // The CLI answered its own client from the manifest: the first MCP message is a call.
    let reply = cli
        .greeter_mcp(
            "m-call",
            json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call",
                "params": {"name": "greet", "arguments": {"name": "Ada"}}}),
        )
        .await;
    assert_eq!(
        reply,
        mcp_answer(
            "m-call",
            json!({"jsonrpc": "2.0", "id": 0,
                "result": {"content": [{"type": "text", "text": "Hello, Ada!"}], "isError": false}})
        )
    );
}

#[tokio::test]
async fn a_manifest_the_cli_does_not_take_falls_back_to_the_handshake_over_mcp_message() {
    let options = Options::new()
        .mcp_server(greeter())
        .handshake_manifests(true);
    let (client, mut cli, _initialize) = connect(
        options,
        json!({"sdk_mcp_manifests_parked": {"greeter": "not_honoured"}}),
    )
    .await;
    assert_eq!(
        client.server_info()["sdk_mcp_manifests_parked"]["greeter"],
        "not_honoured"
    );
    let init = cli
        .greeter_mcp(
            "m-init",
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "claude-code", "version": "2.1.330"}}}),
        )
        .await;
    assert_eq!(
        init,
        mcp_answer(
            "m-init",
            json!({"jsonrpc": "2.0", "id": 0, "result": greeter_initialize_result()})
        )
    );
    let ack = cli
        .greeter_mcp(
            "m-note",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    assert_eq!(
        ack,
        mcp_answer("m-note", json!({"jsonrpc": "2.0", "result": {}}))
    );
    let list = cli
        .greeter_mcp(
            "m-list",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .await;
    assert_eq!(
        list,
        mcp_answer(
            "m-list",
            json!({"jsonrpc": "2.0", "id": 1, "result": greeter_tools()})
        )
    );
    cli.silent_for(50).await;
    drop(client);
    tokio::time::sleep(Duration::from_millis(1)).await;
}

#[test]
fn on_external_servers_stay_in_mcp_config_and_no_server_means_no_manifest_fields() {
    use claude_tools_runtime::options::{ConfigDelivery, ExternalServer};
    let options = Options::new()
        .mcp_server(greeter())
        .external_mcp_server("echo", ExternalServer::stdio("echo-mcp", ["--quiet"]))
        .handshake_manifests(true);
    // By default the external server goes in `initialize` too, so nothing is left for argv.
    let args = options.launch_spec().args;
    assert!(!args.contains(&"--mcp-config".to_string()), "{args:?}");
    let args = options
        .config_delivery(ConfigDelivery::Argv)
        .launch_spec()
        .args;
    let config = args.iter().position(|arg| arg == "--mcp-config").unwrap();
    assert_eq!(
        args[config + 1],
        r#"{"mcpServers":{"echo":{"type":"stdio","command":"echo-mcp","args":["--quiet"]}}}"#
    );
    let args = Options::new().handshake_manifests(true).launch_spec().args;
    assert!(!args.contains(&"--mcp-config".to_string()), "{args:?}");
}

#[tokio::test]
async fn on_without_in_process_servers_the_initialize_request_is_unchanged() {
    let (_client, _cli, initialize) =
        connect(Options::new().handshake_manifests(true), json!({})).await;
    assert_eq!(
        initialize["request"],
        json!({"subtype": "initialize", "hooks": null})
    );
}
