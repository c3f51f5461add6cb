//! What the CLI makes of the host: an SDK host (no terminal-only agent or tool text in the
//! model's prompt) that names this crate in the User-Agent, and the overrides of that identity.

use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::{AGENT_SDK_VERSION, CLIENT_APP, Options};
use claude_tools_runtime::permission::PermissionDecision;
use claude_tools_testkit::model_server::{RecordedRequest, Script, Turn};
use serde_json::{Value, json};

use crate::harness::{World, raw, success_text, within, world};
use crate::tools;

/// The CLI's terminal-only agent, which it adds for hosts it does not take for SDKs.
const GUIDE_AGENT: &str = "claude-code-guide";
/// The start of the terminal-UI paragraph the CLI appends to AskUserQuestion's description
/// for such hosts when they have a permission callback.
const PREVIEW_TEXT: &str = "Preview feature:";

/// A tool call answered through a permission callback (which makes the CLI offer
/// AskUserQuestion, the tool that can carry the preview text).
fn greet_script() -> Script {
    Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_host",
            "mcp__e2e__greet",
            json!({"name": "Ann"}),
        ))
        .turn(Turn::text("Done: {{tool_result}}"))
}

/// What one session showed: the `initialize` answer, the `system/init` message and the
/// model's turn requests.
struct Seen {
    initialize: Value,
    init: Value,
    turns: Vec<RecordedRequest>,
}

/// Runs "greet Ann" with an allowing permission callback on top of `configure(options)`.
async fn run(w: &World, configure: impl FnOnce(Options) -> Options) -> Seen {
    let (server, _lab) = tools::server(0);
    let options = configure(w.options().mcp_server(server))
        .can_use_tool(|_| async { PermissionDecision::allow() });
    let (initialize, messages) = within("sdk host scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        let initialize = client.server_info().clone();
        client.query("greet Ann").await.expect("query");
        let messages = client.receive_response().await.expect("response");
        client.disconnect().await.expect("disconnect");
        (initialize, messages)
    })
    .await;
    assert_eq!(success_text(&messages), "Done: Hello, Ann!");
    w.assert_offline();
    Seen {
        initialize,
        init: system_init(&messages),
        turns: w.turns(),
    }
}

fn system_init(messages: &[Message]) -> Value {
    messages
        .iter()
        .map(raw)
        .find(|m| m["type"] == "system" && m["subtype"] == "init")
        .expect("a system/init message")
}

fn initialize_agent_names(initialize: &Value) -> Vec<String> {
    initialize["agents"]
        .as_array()
        .expect("initialize.agents")
        .iter()
        .map(|a| a["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn init_agent_names(init: &Value) -> Vec<String> {
    serde_json::from_value(init["agents"].clone()).expect("system/init.agents")
}

fn tool_description<'a>(request: &'a RecordedRequest, tool: &str) -> &'a str {
    let body = request.body.as_ref().expect("request body");
    body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == tool)
        .and_then(|t| t["description"].as_str())
        .unwrap_or_else(|| panic!("{tool} not offered"))
}

/// The built-in agents of CLI 2.1.330 and 2.1.332 for an SDK host.
const SDK_HOST_AGENTS: [&str; 5] = [
    "claude",
    "Explore",
    "general-purpose",
    "Plan",
    "statusline-setup",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_treats_the_host_as_an_sdk_host_named_in_the_user_agent() {
    let Some(w) = world("sdk_host_default", greet_script()).await else {
        return;
    };
    let seen = run(&w, |options| options).await;

    assert_eq!(initialize_agent_names(&seen.initialize), SDK_HOST_AGENTS);
    assert_eq!(init_agent_names(&seen.init), SDK_HOST_AGENTS);
    let cli_version = seen.initialize["claude_code_version"]
        .as_str()
        .expect("claude_code_version");
    let user_agent = format!(
        "claude-cli/{cli_version} (external, sdk-cli, agent-sdk/{AGENT_SDK_VERSION}, client-app/{CLIENT_APP})"
    );
    assert_eq!(seen.turns.len(), 2);
    for turn in &seen.turns {
        let body = turn.body.as_ref().expect("request body").to_string();
        assert!(
            !body.contains(GUIDE_AGENT),
            "the model was offered {GUIDE_AGENT}"
        );
        assert!(
            !tool_description(turn, "AskUserQuestion").contains(PREVIEW_TEXT),
            "AskUserQuestion carries the terminal preview text"
        );
        assert_eq!(turn.header("user-agent"), Some(user_agent.as_str()));
        assert_eq!(turn.header("x-client-app"), Some(CLIENT_APP));
        let billing = turn.body.as_ref().unwrap()["system"][0]["text"].as_str();
        assert!(
            billing.is_some_and(|b| b.ends_with("; cc_entrypoint=sdk-cli;")),
            "{billing:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_identity_overrides_reach_the_cli_and_the_users_env_wins() {
    let Some(w) = world("sdk_host_overrides", greet_script()).await else {
        return;
    };
    let seen = run(&w, |options| {
        options
            .entrypoint("sdk-rust")
            .agent_sdk_version("9.9.9")
            .client_app("ticket-bot/2.1")
            .env("CLAUDE_AGENT_SDK_CLIENT_APP", "from-env/1")
    })
    .await;

    // An entrypoint the CLI does not know as an SDK's: its terminal extras come back, which
    // is what the default avoids.
    assert!(initialize_agent_names(&seen.initialize).contains(&GUIDE_AGENT.to_string()));
    assert!(init_agent_names(&seen.init).contains(&GUIDE_AGENT.to_string()));
    let first = &seen.turns[0];
    assert!(tool_description(first, "AskUserQuestion").contains(PREVIEW_TEXT));
    let cli_version = seen.initialize["claude_code_version"].as_str().unwrap();
    assert_eq!(
        first.header("user-agent"),
        Some(
            format!(
                "claude-cli/{cli_version} (external, sdk-rust, agent-sdk/9.9.9, client-app/from-env/1)"
            )
            .as_str()
        )
    );
    assert_eq!(first.header("x-client-app"), Some("from-env/1"));
}
