//! The agent options of issue 21 that the CLI acts on offline, through the real CLI and the
//! scripted model: managed settings (over stdin and on the command line), the sandbox (merged
//! into the settings), and a permission prompt tool of our own answering the CLI's prompts.

use std::sync::{Arc, Mutex};

use claude_tools::{ToolCall, ToolDefBuilder, ToolServer};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::options::{
    ConfigDelivery, ManagedPermissions, ManagedSettings, Options, SandboxSettings,
};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::{Value, json};

use crate::harness::{dump, result_of, success_text, within, world};
use crate::run_query;

/// The model runs `echo hi` with Bash, then says "done".
fn bash_script() -> Script {
    Script::new()
        .turn(Turn::tool_use(
            "toolu_bash",
            "Bash",
            json!({"command": "echo hi", "description": "say hi"}),
        ))
        .turn(Turn::text("done"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn managed_settings_deny_a_tool_the_options_allow_over_stdin_and_on_argv() {
    for delivery in [ConfigDelivery::Initialize, ConfigDelivery::Argv] {
        let Some(w) = world("managed_settings", bash_script()).await else {
            return;
        };
        let managed = ManagedSettings::new().permissions(ManagedPermissions::new().deny(["Bash"]));
        let options = w
            .options()
            .allowed_tools(["Bash"])
            .managed_settings(managed)
            .config_delivery(delivery);
        // Connecting succeeds only if the CLI confirms it took them (`managed_settings_applied`).
        let messages = run_query("say hi", options).await;
        assert_eq!(success_text(&messages), "done");
        let results = w.tool_results();
        assert_eq!(results.len(), 1, "{delivery:?}: {results:?}");
        let (_, text, is_error) = &results[0];
        assert!(*is_error, "{delivery:?}: {text}");
        assert!(text.contains("Bash is disabled"), "{delivery:?}: {text}");
        w.assert_offline();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_managed_settings_the_same_bash_call_runs() {
    let Some(w) = world("managed_settings_control", bash_script()).await else {
        return;
    };
    let messages = run_query("say hi", w.options().allowed_tools(["Bash"])).await;
    assert_eq!(success_text(&messages), "done");
    let results = w.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(
        (results[0].1.trim(), results[0].2),
        ("hi", false),
        "{results:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enabled_sandbox_the_machine_cannot_run_ends_the_session_with_an_error() {
    // No bubblewrap here, so an enabled sandbox cannot run; `failIfUnavailable` (sent as true
    // with `enabled`, as the TypeScript SDK does) makes the CLI say so instead of running the
    // command unsandboxed.
    if which("bwrap") {
        eprintln!("sandbox test: bubblewrap is installed, so the sandbox can run; nothing to see");
        return;
    }
    let Some(w) = world("sandbox_unavailable", bash_script()).await else {
        return;
    };
    let options = w
        .options()
        .allowed_tools(["Bash"])
        .settings(r#"{"env":{"E2E_SANDBOX":"1"}}"#)
        .sandbox(SandboxSettings::new().enabled(true));
    let outcome = within("a session with an unavailable sandbox", async {
        let stream = claude_tools_runtime::query::query("say hi", options).await;
        match stream {
            Ok(stream) => match stream.collect().await {
                Ok(messages) => format!("{:#?}", dump(&messages)),
                Err(error) => error.to_string(),
            },
            Err(error) => error.to_string(),
        }
    })
    .await;
    assert!(
        outcome.contains("sandbox required but unavailable"),
        "{outcome}"
    );
    // The command never ran.
    assert!(
        w.tool_results()
            .iter()
            .all(|(_, text, _)| text.trim() != "hi"),
        "{outcome}"
    );
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_prompt_tool_of_ours_answers_the_clis_prompt() {
    // A command that writes, so the CLI asks (it runs a read-only `echo` without asking).
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_bash",
            "Bash",
            json!({"command": "touch prompted.txt", "description": "make a file"}),
        ))
        .turn(Turn::text("done"));
    let Some(w) = world("permission_prompt_tool", script).await else {
        return;
    };
    let asked: Arc<Mutex<Vec<Value>>> = Arc::default();
    let seen = asked.clone();
    let approvals = ToolServer::new("approvals", "1.0.0")
        .with_tool(ToolDefBuilder::new("ask"), move |call: ToolCall| {
            seen.lock()
                .unwrap()
                .push(Value::Object(call.arguments().clone()));
            async {
                json!({"behavior": "deny", "message": "the approvals desk says no"}).to_string()
            }
        })
        .expect("server");
    // Bash is not allowed, so the CLI asks: our tool, not a callback.
    let options: Options = w
        .options()
        .mcp_server(approvals)
        .permission_prompt_tool("mcp__approvals__ask");
    within("a prompt answered by our tool", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("say hi").await.expect("send");
        let messages = client.receive_response().await.expect("the response");
        assert_eq!(
            success_text(&messages),
            "done",
            "{:#?}",
            result_of(&messages)
        );
        client.disconnect().await.expect("disconnect");
    })
    .await;
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:#?} {:#?}", w.tool_results());
    assert_eq!(asked[0]["tool_name"], "Bash", "{asked:#?}");
    assert_eq!(
        asked[0]["input"]["command"], "touch prompted.txt",
        "{asked:#?}"
    );
    assert!(
        !w.cwd.join("prompted.txt").exists(),
        "the denied command did not run"
    );
    let results = w.tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].2, "{results:?}");
    assert!(
        results[0].1.contains("the approvals desk says no"),
        "{results:?}"
    );
}
