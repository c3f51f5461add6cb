//! Secrets stay off the CLI's command line (issue 21): an external MCP server's `env` and
//! `headers` and inline settings travel in `initialize`, over stdin, where the real CLI takes
//! them (`--await-initialize`); its `/proc/<pid>/cmdline`, which any local user can read, holds
//! none of them, and the external server still runs with its environment.

use claude_tools_runtime::client::Client;
use claude_tools_runtime::options::{ConfigDelivery, ExternalServer};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{success_text, within, world};

const ENV_SECRET: &str = "env-secret-4f1c9a";
const SETTINGS_SECRET: &str = "settings-secret-8d2e7b";

/// The CLI's command line as the kernel shows it to every local user.
fn cmdline(pid: u64) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).expect("the CLI's /proc cmdline");
    String::from_utf8_lossy(&raw).replace('\0', " ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_servers_env_and_inline_settings_are_not_on_the_clis_command_line() {
    let script = Script::new()
        .turn(Turn::text("Echoing.").and_tool_use(
            "toolu_e2e_secret_echo",
            "mcp__echo__echo",
            json!({"text": "hi"}),
        ))
        .turn(Turn::text("{{tool_result:toolu_e2e_secret_echo}}"));
    let Some(w) = world("secrets_off_argv", script).await else {
        return;
    };
    let log = w.path("echo-calls.jsonl");
    let echo = ExternalServer::stdio(env!("CARGO_BIN_EXE_echo-mcp"), Vec::<String>::new())
        // The echo server logs its calls to the file this variable names: the log proves the
        // server got its environment from `initialize`.
        .env(
            claude_tools_testkit::stdio_mcp::LOG_ENV,
            log.display().to_string(),
        )
        .env("ECHO_API_KEY", ENV_SECRET);
    let options = w
        .options()
        .settings(json!({"env": {"E2E_SETTINGS_TOKEN": SETTINGS_SECRET}}).to_string())
        .external_mcp_server("echo", echo)
        .allowed_tools(["mcp__echo__echo"]);
    within("a session with secrets", async {
        let mut client = Client::connect(options).await.expect("connect");
        let pid = client.server_info()["pid"].as_u64().expect("the CLI's pid");
        let command_line = cmdline(pid);
        assert!(
            command_line.contains("--await-initialize"),
            "{command_line}"
        );
        for secret in [ENV_SECRET, SETTINGS_SECRET, "ECHO_API_KEY", "echo-mcp"] {
            assert!(
                !command_line.contains(secret),
                "{secret} is on the command line: {command_line}"
            );
        }
        client.query("echo").await.unwrap();
        let messages = client.receive_response().await.expect("response");
        assert_eq!(success_text(&messages), "echo: hi");
        client.disconnect().await.expect("disconnect");
    })
    .await;
    assert_eq!(
        crate::harness::json_lines(&log),
        [json!({"name": "echo", "arguments": {"text": "hi"}})]
    );
}

/// The control: with `ConfigDelivery::Argv` the same secret is on the command line, so the test
/// above would see it there if the default put it there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_command_line_the_env_secret_is_visible_in_proc() {
    let Some(w) = world("secrets_on_argv", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    let echo = ExternalServer::stdio(env!("CARGO_BIN_EXE_echo-mcp"), Vec::<String>::new())
        .env("ECHO_API_KEY", ENV_SECRET);
    let options = w
        .options()
        .external_mcp_server("echo", echo)
        .config_delivery(ConfigDelivery::Argv);
    within("a session with secrets on argv", async {
        let client = Client::connect(options).await.expect("connect");
        let pid = client.server_info()["pid"].as_u64().expect("the CLI's pid");
        assert!(cmdline(pid).contains(ENV_SECRET));
        client.disconnect().await.expect("disconnect");
    })
    .await;
}
