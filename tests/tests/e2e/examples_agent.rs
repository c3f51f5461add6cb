//! The agent example through the real CLI: without credentials it explains what to do (set
//! `ANTHROPIC_API_KEY`, or run with `--scripted`), and with `--scripted` it runs.

use claude_tools_examples::notes_agent::{self, PROMPT, advice, on_scripted_model, options, run};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::model_server::{ModelServer, Script, inherited_env_to_remove};

use crate::harness::{cli, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_example_without_credentials_says_what_to_do() {
    let Some(cli) = cli("examples_agent_no_key") else {
        return;
    };
    // The scripted model's isolated environment minus the key: a throwaway HOME and config
    // directory (no login), no ANTHROPIC_API_KEY, and the base URL and proxies on a server
    // with an empty script, which records any request the CLI would make.
    let server = ModelServer::start(Script::new()).await;
    let home = TempDir::new("e2e-agent-no-key").expect("temp dir");
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).expect("work dir");
    let mut options = options()
        .cli_path(cli)
        .cwd(&work)
        .setting_sources([])
        .strict_mcp_config();
    for name in inherited_env_to_remove() {
        options = options.env_remove(name);
    }
    for (name, value) in server.cli_env(home.path()) {
        if name != "ANTHROPIC_API_KEY" {
            options = options.env(name, value);
        }
    }
    let outcome = within("the agent without credentials", run(PROMPT, options, false))
        .await
        .expect("the session runs to its result");

    let cli_said = "Not logged in · Please run /login";
    assert_eq!(
        (outcome.result.is_error, outcome.result.result.as_deref()),
        (true, Some(cli_said))
    );
    // Before: `[failed] success: Not logged in · Please run /login` and nothing else.
    let failure = outcome.failure().expect("the turn failed");
    assert_eq!(Some(failure.clone()), advice(cli_said));
    for what_to_do in [
        "export ANTHROPIC_API_KEY=<your key>",
        "cargo run -p claude-tools-examples --example agent -- --scripted",
    ] {
        assert!(failure.contains(what_to_do), "{failure}");
    }
    // The CLI's error text is not printed as if the model had said it.
    assert_eq!(outcome.lines, [format!("> {PROMPT}")]);
    assert_eq!(server.requests().len(), 0, "{:#?}", server.requests());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_example_runs_on_the_scripted_model() {
    let Some(cli) = cli("examples_agent_scripted") else {
        return;
    };
    let server = ModelServer::start(notes_agent::script()).await;
    let home = TempDir::new("e2e-agent-scripted").expect("temp dir");
    let options =
        on_scripted_model(options().cli_path(cli), &server, home.path()).expect("isolated options");
    let outcome = within("the scripted agent", run(PROMPT, options, false))
        .await
        .expect("the session runs to its result");

    assert_eq!(outcome.failure(), None);
    let (done, transcript) = outcome.lines.split_last().expect("lines");
    assert_eq!(
        transcript,
        [
            format!("> {PROMPT}"),
            "Writing that down.".to_string(),
            "[tool] mcp__notes__add_note {\"text\":\"the demo works\"}".to_string(),
            "[tool] mcp__notes__list_notes {}".to_string(),
            "Your notes:\n1. the demo works".to_string(),
        ]
    );
    assert!(done.starts_with("[done] 3 turns, "), "{done}");
    assert_eq!(
        server.tool_results(),
        [
            (
                "toolu_agent_add".to_string(),
                "Noted (#1).".to_string(),
                false
            ),
            (
                "toolu_agent_list".to_string(),
                "1. the demo works".to_string(),
                false
            ),
        ]
    );
    assert_eq!(server.proxy_attempts().len(), 0);
}
