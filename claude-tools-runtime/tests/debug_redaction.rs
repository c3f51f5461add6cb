//! Secrets never reach `Debug` output or logs: environment values, MCP headers, stdio servers'
//! environments, `--settings` and `--mcp-config` print as `<redacted>`, names stay visible. And
//! environment variables the OS cannot set are refused before anything is launched.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::options::{ConfigDelivery, ExternalServer, Options};
use claude_tools_runtime::query::query_with;
use claude_tools_runtime::transport::MemoryTransport;

const WAIT: Duration = Duration::from_secs(2);

/// Every secret the options below carry; none may appear in any output.
const SECRETS: &[&str] = &[
    "env-secret-1",
    "header-secret-2",
    "stdio-env-secret-3",
    "settings-secret-4",
    "extra-config-secret-5",
    "extra-settings-secret-6",
];

fn options_full_of_secrets() -> Options {
    let http = ExternalServer::Http {
        url: "https://mcp.example/api".into(),
        headers: BTreeMap::from([("Authorization".into(), "Bearer header-secret-2".into())]),
    };
    let stdio = ExternalServer::Stdio {
        command: "db-mcp".into(),
        args: vec!["--readonly".into()],
        env: BTreeMap::from([("DB_PASSWORD".into(), "stdio-env-secret-3".into())]),
    };
    Options::new()
        .model("claude-sonnet-4-5")
        .env("ANTHROPIC_API_KEY", "env-secret-1")
        .external_mcp_server("remote", http)
        .external_mcp_server("db", stdio)
        .settings(r#"{"env": {"TOKEN": "settings-secret-4"}}"#)
        .extra_arg(
            "mcp-config",
            Some(r#"{"mcpServers": {"x": {"type": "http", "url": "u", "headers": {"k": "extra-config-secret-5"}}}}"#.into()),
        )
        .extra_arg("--settings", Some("-extra-settings-secret-6".into()))
        // On the command line, where the redaction of `--settings` and `--mcp-config` shows.
        .config_delivery(ConfigDelivery::Argv)
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} shows {secret}: {text}");
    }
}

#[test]
fn options_debug_shows_names_but_no_secret_values() {
    let options = options_full_of_secrets();
    let debug = format!("{options:?}");
    let pretty = format!("{options:#?}");
    assert_no_secret("Options Debug", &debug);
    assert_no_secret("Options pretty Debug", &pretty);
    for visible in [
        "\"ANTHROPIC_API_KEY\": <redacted>",
        "\"Authorization\": <redacted>",
        "\"DB_PASSWORD\": <redacted>",
        "\"--settings\", \"<redacted>\"",
        "\"--mcp-config\", \"<redacted>\"",
        "\"--settings=<redacted>\"",
        "https://mcp.example/api",
        "db-mcp",
        "claude-sonnet-4-5",
    ] {
        assert!(debug.contains(visible), "{visible} missing from {debug}");
    }
}

#[test]
fn launch_spec_debug_redacts_env_values_and_secret_flags_exactly() {
    let launch = Options::new()
        .system_prompt(claude_tools_runtime::options::SystemPrompt::Text(
            "Be brief.".into(),
        ))
        .settings("settings-secret-4")
        .env("ANTHROPIC_API_KEY", "env-secret-1")
        .external_mcp_server(
            "remote",
            ExternalServer::Http {
                url: "https://mcp.example".into(),
                headers: BTreeMap::from([("X-Key".into(), "header-secret-2".into())]),
            },
        )
        .env_remove("HTTP_PROXY")
        .config_delivery(ConfigDelivery::Argv)
        .launch_spec();
    assert_eq!(
        format!("{launch:?}"),
        "LaunchSpec { cli_path: None, args: [\"--output-format\", \"stream-json\", \"--verbose\", \
         \"--system-prompt\", \"Be brief.\", \"--settings\", \"<redacted>\", \"--mcp-config\", \
         \"<redacted>\", \"--input-format\", \"stream-json\"], env: {\"CLAUDE_CODE_ENTRYPOINT\": \
         <redacted>, \"CLAUDE_AGENT_SDK_VERSION\": <redacted>, \"CLAUDE_AGENT_SDK_CLIENT_APP\": \
         <redacted>, \"ANTHROPIC_API_KEY\": <redacted>, \"CLAUDE_CODE_SDK_READS_SESSION_STATE\": \
         <redacted>}, env_remove: [\"HTTP_PROXY\"], cwd: None }"
    );
    // The values themselves are still what the CLI gets.
    assert!(launch.args.contains(&"settings-secret-4".to_string()));
    assert!(
        launch
            .args
            .iter()
            .any(|arg| arg.contains("header-secret-2"))
    );
}

#[test]
fn external_server_debug_shows_header_and_env_names_only() {
    let http = ExternalServer::Http {
        url: "https://mcp.example".into(),
        headers: BTreeMap::from([
            ("Authorization".into(), "Bearer header-secret-2".into()),
            ("X-Team".into(), "blue".into()),
        ]),
    };
    assert_eq!(
        format!("{http:?}"),
        "Http { url: \"https://mcp.example\", headers: {\"Authorization\": <redacted>, \"X-Team\": <redacted>} }"
    );
    let sse = ExternalServer::Sse {
        url: "https://mcp.example/sse".into(),
        headers: BTreeMap::from([("Authorization".into(), "header-secret-2".into())]),
    };
    assert_eq!(
        format!("{sse:?}"),
        "Sse { url: \"https://mcp.example/sse\", headers: {\"Authorization\": <redacted>} }"
    );
    let stdio = ExternalServer::Stdio {
        command: "db-mcp".into(),
        args: vec!["--readonly".into()],
        env: BTreeMap::from([("DB_PASSWORD".into(), "stdio-env-secret-3".into())]),
    };
    assert_eq!(
        format!("{stdio:?}"),
        "Stdio { command: \"db-mcp\", args: [\"--readonly\"], env: {\"DB_PASSWORD\": <redacted>} }"
    );
}

/// Connecting with `options` fails with `InvalidOptions` before the transport is touched.
async fn refused_before_launch(options: Options) -> String {
    // Bounded: a launched session would wait for an `initialize` answer that never comes.
    let (transport, cli) = MemoryTransport::pair();
    let error = tokio::time::timeout(WAIT, Client::connect_with(options.clone(), transport))
        .await
        .expect("connect refuses at once")
        .expect_err("invalid options are refused");
    assert!(cli.launch_spec().is_none(), "the CLI was launched: {error}");
    let (transport, cli) = MemoryTransport::pair();
    let from_query = tokio::time::timeout(WAIT, query_with("hi", options, transport))
        .await
        .expect("query refuses at once")
        .expect_err("query refuses them too");
    assert!(cli.launch_spec().is_none());
    assert_eq!(from_query.to_string(), error.to_string());
    assert!(error.is_fatal());
    match error {
        Error::InvalidOptions(message) => message,
        other => panic!("expected InvalidOptions, got {other}"),
    }
}

#[tokio::test]
async fn environment_names_and_values_the_os_cannot_set_are_invalid_options() {
    assert_eq!(
        refused_before_launch(Options::new().env("API_KEY=x", "v")).await,
        "the environment variable name \"API_KEY=x\" is empty or contains `=` or NUL"
    );
    assert_eq!(
        refused_before_launch(Options::new().env("", "v")).await,
        "the environment variable name \"\" is empty or contains `=` or NUL"
    );
    assert_eq!(
        refused_before_launch(Options::new().env("A\0B", "v")).await,
        "the environment variable name \"A\\0B\" is empty or contains `=` or NUL"
    );
    assert_eq!(
        refused_before_launch(Options::new().env_remove("HTTP=PROXY")).await,
        "the environment variable name \"HTTP=PROXY\" is empty or contains `=` or NUL"
    );
    // The value is never echoed: it may be a secret.
    assert_eq!(
        refused_before_launch(Options::new().env("API_KEY", "env-secret-1\0")).await,
        "the value of the environment variable API_KEY contains NUL"
    );
    // `=` in a value is fine (`A=B=C` sets A to `B=C`).
    let (transport, mut cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(
        Options::new().env("OPTS", "a=b"),
        transport,
    ));
    let launch = cli.connected().await;
    assert!(
        launch
            .env
            .contains(&("OPTS".to_string(), "a=b".to_string()))
    );
    drop(cli);
    let _ = connecting.await;
}

/// Records every tracing event and span field, as text.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<String>>);

struct Fields<'a>(&'a mut String);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl tracing::Subscriber for Recorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        span.record(&mut Fields(&mut self.0.lock().unwrap()));
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        values.record(&mut Fields(&mut self.0.lock().unwrap()));
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut text = self.0.lock().unwrap();
        text.push('\n');
        event.record(&mut Fields(&mut text));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// Launches a real process (`/bin/sh`, which exits at once on the CLI's flags) with the options
/// full of secrets, and checks that what the runtime logged on the way names no secret.
#[tokio::test(flavor = "current_thread")]
async fn the_launch_logs_no_secret() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let error = Client::connect(options_full_of_secrets().cli_path("/bin/sh"))
        .await
        .expect_err("sh is not the CLI");
    let logged = recorder.0.lock().unwrap().clone();
    assert!(
        logged.contains("starting the Claude Code CLI") && logged.contains("ANTHROPIC_API_KEY"),
        "the launch was logged with the variable names: {logged}"
    );
    assert_no_secret("the log", &logged);
    assert_no_secret("the error", &format!("{error:?}"));
}
