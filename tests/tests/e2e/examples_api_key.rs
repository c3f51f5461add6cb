//! An example run with `ANTHROPIC_API_KEY` set takes the real-API path of the example runner:
//! no embedded scripted model, the CLI talks to the Anthropic API with the user's key. Here the
//! "API" is the scripted model server behind `ANTHROPIC_BASE_URL` (what the CLI honours for the
//! real API too), so the test proves the key and the endpoint reach the CLI untouched, offline.

use std::process::Command;

use claude_tools_examples::quickstart;
use claude_tools_testkit::TempDir;
use claude_tools_testkit::model_server::{ModelServer, inherited_env_to_remove};

use super::harness::cli;

#[test]
fn with_a_key_the_quickstart_uses_the_api_it_is_given_and_sends_the_key() {
    let Some(cli) = cli("examples_api_key") else {
        return;
    };
    let binary = claude_tools_tests::example_binary("quickstart");
    let api = ModelServer::try_start(quickstart::script()).expect("the stand-in API starts");
    let home = TempDir::new("example-api-key").expect("a temp dir");
    let mut command = Command::new(&binary);
    for name in inherited_env_to_remove() {
        command.env_remove(name);
    }
    // The CLI's environment as for the scripted model, but with a key of the user's own: the
    // example must not start its embedded model, and must pass this key on.
    command
        .envs(api.cli_env(home.path()))
        .env("ANTHROPIC_API_KEY", "sk-ant-user-key")
        .env("CLAUDE_CODE_CLI", &cli);
    let output = command.output().expect("the example runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        stdout.lines().next(),
        Some("model:  the Anthropic API (ANTHROPIC_API_KEY is set)")
    );
    let model_calls: Vec<_> = api
        .requests()
        .into_iter()
        .filter(|request| request.method == "POST" && request.path == "/v1/messages")
        .collect();
    assert!(!model_calls.is_empty(), "the CLI never called the API");
    for request in &model_calls {
        assert_eq!(request.header("x-api-key"), Some("sk-ant-user-key"));
    }
    assert!(
        stdout.contains("-300 °C is below absolute zero"),
        "the transcript shows the failed conversion:\n{stdout}"
    );
}
