//! The tests of `McpServerSettings` and `McpServerEntry`: where each setting is written, and
//! what is refused.

use std::time::Duration;

use serde_json::json;

use crate::options::*;
use claude_tools_core::tool::ToolServer;

#[test]
fn external_servers_carry_their_settings_in_the_sdk_types_shape() {
    let options = Options::new()
        .external_mcp_server(
            "remote",
            ExternalServer::http("https://mcp.example.com/mcp").header("A", "b"),
        )
        .external_mcp_server("local", ExternalServer::stdio("local-mcp", ["-q"]))
        .mcp_server_settings(
            "remote",
            McpServerSettings::new()
                .timeout(Duration::from_millis(2500))
                .always_load(true),
        )
        .mcp_server_settings(
            "local",
            McpServerSettings::new()
                .timeout(Duration::from_secs(60))
                .always_load(false),
        );
    options.validate().unwrap();
    assert_eq!(
        options
            .initialize_mcp_servers()
            .map(serde_json::Value::Object),
        Some(json!({
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp",
                "headers": {"A": "b"}, "timeout": 2500, "alwaysLoad": true},
            "local": {"type": "stdio", "command": "local-mcp", "args": ["-q"],
                "timeout": 60000, "alwaysLoad": false},
        }))
    );
    // On the command line the same.
    let args = options
        .config_delivery(ConfigDelivery::Argv)
        .launch_spec()
        .args;
    let at = args.iter().position(|arg| arg == "--mcp-config").unwrap();
    assert_eq!(
        args[at + 1],
        r#"{"mcpServers":{"remote":{"type":"http","url":"https://mcp.example.com/mcp","headers":{"A":"b"},"timeout":2500,"alwaysLoad":true},"local":{"type":"stdio","command":"local-mcp","args":["-q"],"timeout":60000,"alwaysLoad":false}}}"#
    );
}

#[test]
fn in_process_settings_go_where_the_cli_reads_each() {
    let options = Options::new()
        .mcp_server(ToolServer::new("shop", "1.0.0"))
        .mcp_server(ToolServer::new("plain", "1.0.0"))
        .mcp_server(ToolServer::new("quick", "1.0.0"))
        .mcp_server_settings(
            "shop",
            McpServerSettings::new()
                .timeout(Duration::from_secs(5))
                .tool_policy("buy", ToolPermissionPolicy::AlwaysAsk)
                .tool_policy("refund", ToolPermissionPolicy::AlwaysDeny),
        )
        .mcp_server_settings(
            "quick",
            McpServerSettings::new()
                .timeout(Duration::from_secs(2))
                .always_load(true),
        );
    options.validate().unwrap();
    // Every server in `--mcp-config`, with its timeout and alwaysLoad, not its policies…
    let args = options.launch_spec().args;
    let at = args.iter().position(|arg| arg == "--mcp-config").unwrap();
    assert_eq!(
        args[at + 1],
        r#"{"mcpServers":{"shop":{"type":"sdk","name":"shop","timeout":5000},"plain":{"type":"sdk","name":"plain"},"quick":{"type":"sdk","name":"quick","timeout":2000,"alwaysLoad":true}}}"#
    );
    // …and the one with policies named in `initialize` too, with them.
    assert_eq!(options.sdk_servers_named_in_initialize(), ["shop"]);
    assert_eq!(
        serde_json::to_string(&options.servers_initialize()).unwrap(),
        r#"{"sdkMcpServerConfigs":{"shop":{"timeout":5000,"tools":[{"name":"buy","permission_policy":"always_ask"},{"name":"refund","permission_policy":"always_deny"}]}}}"#
    );
    // mcp_set_servers re-sends every setting.
    assert_eq!(
        serde_json::to_value(options.sdk_server_settings()).unwrap(),
        json!({
            "shop": {"timeout": 5000, "tools": [
                {"name": "buy", "permission_policy": "always_ask"},
                {"name": "refund", "permission_policy": "always_deny"}]},
            "quick": {"timeout": 2000, "alwaysLoad": true},
        })
    );

    // Without policies nothing is named in `initialize`.
    let no_policies = Options::new()
        .mcp_server(ToolServer::new("quick", "1.0.0"))
        .mcp_server_settings("quick", McpServerSettings::new().always_load(false));
    assert!(no_policies.sdk_servers_named_in_initialize().is_empty());
    assert_eq!(
        serde_json::to_string(&no_policies.servers_initialize()).unwrap(),
        "{}"
    );
}

#[test]
fn with_manifests_every_in_process_server_and_its_settings_are_in_initialize() {
    let options = Options::new()
        .mcp_server(ToolServer::new("shop", "1.0.0"))
        .mcp_server(ToolServer::new("plain", "1.0.0"))
        .mcp_server_settings(
            "shop",
            McpServerSettings::new()
                .timeout(Duration::from_secs(5))
                .tool_policy("buy", ToolPermissionPolicy::AlwaysAsk),
        )
        .handshake_manifests(true);
    options.validate().unwrap();
    assert!(
        !options
            .launch_spec()
            .args
            .contains(&"--mcp-config".to_string())
    );
    assert_eq!(options.sdk_servers_named_in_initialize(), ["shop", "plain"]);
    assert_eq!(
        serde_json::to_string(&options.servers_initialize()).unwrap(),
        r#"{"sdkMcpServerConfigs":{"shop":{"timeout":5000,"tools":[{"name":"buy","permission_policy":"always_ask"}]}}}"#
    );
}

#[test]
fn a_server_set_at_run_time_carries_every_setting_and_an_org_ceiling() {
    let entry = McpServerEntry::new(ExternalServer::sse("https://mcp.example.com/sse")).settings(
        McpServerSettings::new()
            .timeout(Duration::from_secs(3))
            .always_load(false)
            .tool_policy("read", ToolPermissionPolicy::AlwaysAllow)
            .org_max_permission("read", OrgMaxPermission::Ask)
            .org_max_permission("wipe", OrgMaxPermission::Blocked),
    );
    assert_eq!(
        serde_json::to_string(&entry.to_json("docs").unwrap()).unwrap(),
        r#"{"type":"sse","url":"https://mcp.example.com/sse","timeout":3000,"alwaysLoad":false,"tools":[{"name":"read","permission_policy":"always_allow","org_max_permission":"ask"},{"name":"wipe","org_max_permission":"blocked"}]}"#
    );
    // Without settings: the configuration alone.
    let plain = McpServerEntry::from(ExternalServer::http("https://h.example/mcp"));
    assert_eq!(
        plain.to_json("h").unwrap(),
        json!({"type": "http", "url": "https://h.example/mcp"})
    );
    let error = McpServerEntry::new(ExternalServer::http("https://h.example/mcp"))
        .settings(McpServerSettings::new().timeout(Duration::from_millis(10)))
        .to_json("h")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("set_mcp_servers(\"h\"): the CLI ignores a timeout under one second"),
        "{error}"
    );
}

#[test]
fn settings_the_cli_would_ignore_are_refused_by_name() {
    let in_process = || Options::new().mcp_server(ToolServer::new("p", "1.0.0"));
    let ask = || McpServerSettings::new().tool_policy("t", ToolPermissionPolicy::AlwaysAsk);
    let cases = [
        (
            Options::new().mcp_server_settings("ghost", McpServerSettings::new()),
            "(\"ghost\"): no MCP server of that name",
        ),
        (
            Options::new()
                .external_mcp_server("e", ExternalServer::http("http://127.0.0.1:1"))
                .mcp_server_settings(
                    "e",
                    McpServerSettings::new().timeout(Duration::from_millis(500)),
                ),
            "timeout under one second",
        ),
        (
            Options::new()
                .external_mcp_server("s", ExternalServer::stdio("x", ["y"]))
                .mcp_server_settings("s", ask()),
            "(\"s\"): the CLI ignores the tool policies of an external server",
        ),
        (
            Options::new()
                .external_mcp_server("h", ExternalServer::http("http://127.0.0.1:1"))
                .mcp_server_settings("h", ask()),
            "(\"h\"): the CLI ignores the tool policies of an external server",
        ),
        (
            Options::new()
                .external_mcp_server("h", ExternalServer::sse("http://127.0.0.1:1"))
                .config_delivery(ConfigDelivery::Argv)
                .mcp_server_settings(
                    "h",
                    McpServerSettings::new().tool_policy("t", ToolPermissionPolicy::AlwaysAllow),
                ),
            "the CLI ignores the tool policies of an external server",
        ),
        (
            in_process().mcp_server_settings(
                "p",
                McpServerSettings::new().tool_policy("t", ToolPermissionPolicy::AlwaysAllow),
            ),
            "cannot be AlwaysAllow",
        ),
        (
            in_process().mcp_server_settings(
                "p",
                McpServerSettings::new().org_max_permission("t", OrgMaxPermission::Ask),
            ),
            "the CLI ignores org_max_permission for an in-process server",
        ),
        (
            Options::new()
                .external_mcp_server("h", ExternalServer::http("http://127.0.0.1:1"))
                .mcp_server_settings(
                    "h",
                    McpServerSettings::new().org_max_permission("t", OrgMaxPermission::Ask),
                ),
            "the CLI ignores the tool policies of an external server",
        ),
        (
            in_process()
                .handshake_manifests(true)
                .mcp_server_settings("p", McpServerSettings::new().always_load(true)),
            "the CLI ignores always_load for an in-process server named in initialize",
        ),
    ];
    for (options, expected) in cases {
        let error = options.validate().unwrap_err().to_string();
        assert!(error.contains(expected), "{expected}: {error}");
    }
    // What the CLI applies passes.
    in_process()
        .mcp_server_settings("p", McpServerSettings::new().always_load(false))
        .validate()
        .unwrap();
    in_process()
        .handshake_manifests(true)
        .mcp_server_settings("p", ask().timeout(Duration::from_secs(1)))
        .validate()
        .unwrap();
}
