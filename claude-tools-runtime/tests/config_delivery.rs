//! External MCP servers and inline settings travel in `initialize`, and the session starts only
//! when the CLI confirms it took them (`mcp_servers_applied`, `settings_applied`).

use std::time::Duration;

use claude_tools::Client;
use claude_tools::Error;
use claude_tools::options::{ConfigDelivery, ExternalServer, Options};
use claude_tools::transport::MemoryTransport;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

fn options() -> Options {
    Options::new()
        .settings(r#"{"env": {"TOKEN": "settings-secret"}}"#)
        .external_mcp_server(
            "remote",
            ExternalServer::http("http://127.0.0.1:9/mcp").header("Authorization", "Bearer t0k3n"),
        )
}

/// Connects with `options`, answers `initialize` with `answer`; the request the CLI got and
/// what connecting gave.
async fn connect(options: Options, answer: Value) -> (Value, Result<Client, Error>) {
    let (transport, mut cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(options, transport));
    let initialize = tokio::time::timeout(WAIT, cli.next_json())
        .await
        .expect("initialize in time")
        .unwrap()
        .unwrap();
    cli.write_json(
        &json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": initialize["request_id"], "response": answer}}),
    )
    .await
    .unwrap();
    let connected = tokio::time::timeout(WAIT, connecting)
        .await
        .expect("connect returned in time")
        .unwrap();
    (initialize["request"].clone(), connected)
}

#[tokio::test]
async fn the_servers_and_settings_are_in_initialize_and_their_confirmation_starts_the_session() {
    let (request, connected) = connect(
        options(),
        json!({"claude_code_version": "2.1.332", "mcp_servers_applied": true, "settings_applied": true}),
    )
    .await;
    assert_eq!(
        request["mcpServers"],
        json!({"remote": {"type": "http", "url": "http://127.0.0.1:9/mcp",
            "headers": {"Authorization": "Bearer t0k3n"}}})
    );
    assert_eq!(
        request["settings"],
        json!({"env": {"TOKEN": "settings-secret"}})
    );
    assert!(connected.is_ok());
}

#[tokio::test]
async fn a_cli_that_does_not_confirm_them_ends_the_session_with_a_clear_error() {
    // A CLI that predates the fields answers without them; one run without the flags says false.
    for answer in [
        json!({"claude_code_version": "2.1.300"}),
        json!({"claude_code_version": "2.1.332", "mcp_servers_applied": true, "settings_applied": false}),
    ] {
        let (_, connected) = connect(options(), answer.clone()).await;
        let Err(error) = connected else {
            panic!("connected although the CLI did not confirm: {answer}");
        };
        assert!(
            matches!(error, Error::InitializeNotApplied { .. }),
            "{error:?}"
        );
        assert!(error.is_fatal());
        let message = error.to_string();
        assert!(message.contains("did not confirm the "), "{message}");
        assert!(message.contains("settings"), "{message}");
        assert!(message.contains("ConfigDelivery::Argv"), "{message}");
    }
}

#[tokio::test]
async fn on_the_command_line_nothing_is_asked_in_initialize() {
    let (request, connected) = connect(
        options().config_delivery(ConfigDelivery::Argv),
        json!({"claude_code_version": "2.1.332"}),
    )
    .await;
    assert!(request.get("mcpServers").is_none(), "{request}");
    assert!(request.get("settings").is_none(), "{request}");
    assert!(connected.is_ok());
}

#[tokio::test]
async fn plugins_in_initialize_start_the_session_only_when_the_cli_confirms_them() {
    use claude_tools::options::PluginDelivery;
    let dir = std::env::temp_dir();
    let plugins = || {
        Options::new()
            .plugin(&dir)
            .plugin_delivery(PluginDelivery::Initialize)
    };
    let (request, connected) = connect(
        plugins(),
        json!({"claude_code_version": "2.1.332", "plugins_applied": true}),
    )
    .await;
    assert_eq!(
        request["plugins"],
        json!([{"type": "local", "path": dir.display().to_string()}])
    );
    assert!(connected.is_ok());

    let (_, connected) = connect(
        plugins(),
        json!({"claude_code_version": "2.1.332", "plugins_applied": false}),
    )
    .await;
    let Err(error) = connected else {
        panic!("connected although the CLI did not load the plugins");
    };
    let message = error.to_string();
    assert!(
        matches!(error, Error::InitializeNotApplied { .. }),
        "{error:?}"
    );
    assert!(message.contains("did not confirm the plugins"), "{message}");
    assert!(message.contains("PluginDelivery::Argv"), "{message}");
}
