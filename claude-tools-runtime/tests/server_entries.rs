//! `Client::set_mcp_servers` with servers given as `McpServerEntry`: each carries its settings
//! (timeout, `alwaysLoad`, tool policies, the organization's ceilings) in `mcp_set_servers`,
//! byte for byte; a setting the CLI would ignore is refused before anything is sent.

use std::time::Duration;

use claude_tools_runtime::Error;
use claude_tools_runtime::options::{
    ExternalServer, McpServerEntry, McpServerSettings, Options, OrgMaxPermission,
    ToolPermissionPolicy,
};
use serde_json::json;

mod common;

use common::{WAIT, connect_answering_initialize};

#[tokio::test]
async fn a_server_entry_carries_its_settings_in_mcp_set_servers() {
    let (client, mut cli) = connect_answering_initialize(Options::new()).await;
    let docs = McpServerEntry::new(ExternalServer::http("http://127.0.0.1:9/mcp")).settings(
        McpServerSettings::new()
            .timeout(Duration::from_secs(20))
            .tool_policy("delete_page", ToolPermissionPolicy::AlwaysAsk)
            .org_max_permission("publish", OrgMaxPermission::Blocked),
    );
    let plain = ExternalServer::stdio("/bin/false", Vec::<String>::new());
    let setting = tokio::spawn(async move {
        client
            .set_mcp_servers([("docs", docs), ("plain", McpServerEntry::from(plain))])
            .await
    });
    let line = tokio::time::timeout(WAIT, cli.recv_line()).await.unwrap();
    let frame: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        serde_json::to_string(&frame["request"]).unwrap(),
        concat!(
            r#"{"subtype":"mcp_set_servers","servers":{"#,
            r#""docs":{"type":"http","url":"http://127.0.0.1:9/mcp","timeout":20000,"tools":["#,
            r#"{"name":"delete_page","permission_policy":"always_ask"},"#,
            r#"{"name":"publish","org_max_permission":"blocked"}]},"#,
            r#""plain":{"type":"stdio","command":"/bin/false","args":[]}}}"#
        )
    );
    cli.answer(
        &frame,
        json!({"added": ["docs", "plain"], "removed": [], "errors": {}}),
    )
    .await;
    let receipt = tokio::time::timeout(WAIT, setting)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(receipt.added, ["docs", "plain"]);
}

#[tokio::test]
async fn a_timeout_the_cli_would_ignore_is_refused_before_anything_is_sent() {
    let (client, mut cli) = connect_answering_initialize(Options::new()).await;
    let quick = McpServerEntry::new(ExternalServer::http("http://127.0.0.1:9/mcp"))
        .settings(McpServerSettings::new().timeout(Duration::from_millis(200)));
    let refused = client.set_mcp_servers([("quick", quick)]).await;
    assert!(
        matches!(&refused, Err(Error::InvalidOptions(message))
            if message.contains("set_mcp_servers(\"quick\"): the CLI ignores a timeout under one second")),
        "{refused:?}"
    );
    cli.silent_for(100).await;
}
