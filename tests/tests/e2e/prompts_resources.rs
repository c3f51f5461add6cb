//! Prompts and resources through the real CLI. What the CLI 2.1.332 does with them, as
//! observed on the wire:
//!
//! - it offers the model its own `ListMcpResourcesTool` and `ReadMcpResourceTool` (and
//!   `ReadMcpResourceDirTool`); a `ReadMcpResourceTool` call (`{server, uri}`) becomes a
//!   `resources/read` on the server, an in-process one included, and the model gets the
//!   `resources/read` result's JSON as the tool's result;
//! - the prompts of a stdio (or HTTP) server are fetched (`prompts/list`) and offered as slash
//!   commands named `mcp__{server}__{prompt}`, listed in `system/init`'s `slash_commands`;
//! - an in-process (sdk) server's prompts are not: the CLI never sends it `prompts/list`, even
//!   though its `initialize` announces `prompts`, so no slash command comes from them.

use claude_tools::prompts::{Prompt, PromptArguments, PromptError};
use claude_tools::resources::{Resource, ResourceRequest};
use claude_tools::tools::ToolServer;
use claude_tools_runtime::client::Client;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{raw, success_text, within, world};

fn desk() -> ToolServer {
    ToolServer::new("desk", "1.0.0")
        .with_typed_tool("ping", || async { "pong" })
        .unwrap()
        .with_resource(
            Resource::new("desk://motd", "motd", |_: ResourceRequest| async {
                "Be kind to the printer."
            })
            .description("The message of the day")
            .mime_type("text/plain"),
        )
        .unwrap()
        .with_resource(Resource::new(
            "desk://tickets/{id}",
            "ticket",
            |read: ResourceRequest| async move {
                let id: u32 = read.variable("id")?;
                Ok::<_, claude_tools::resources::ResourceError>(format!(
                    "ticket {id}: the printer is jammed"
                ))
            },
        ))
        .unwrap()
        .with_prompt(
            Prompt::new("triage", |mut args: PromptArguments| async move {
                let ticket: u32 = args.required("ticket")?;
                Ok::<_, PromptError>(format!("Triage ticket {ticket}."))
            })
            .description("Triage a ticket")
            .argument("ticket", "The ticket's number", true),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_reads_an_in_process_servers_resources_but_does_not_list_its_prompts() {
    let script = Script::new()
        .turn(
            Turn::text("Reading it.")
                .and_tool_use(
                    "toolu_motd",
                    "ReadMcpResourceTool",
                    json!({"server": "desk", "uri": "desk://motd"}),
                )
                .and_tool_use(
                    "toolu_ticket",
                    "ReadMcpResourceTool",
                    json!({"server": "desk", "uri": "desk://tickets/7"}),
                ),
        )
        .turn(Turn::text(
            "motd: {{tool_result:toolu_motd}} ticket: {{tool_result:toolu_ticket}}",
        ));
    let Some(w) = world("prompts_resources", script).await else {
        return;
    };
    let options = w.options().mcp_server(desk()).allowed_tools([
        "mcp__desk",
        "ReadMcpResourceTool",
        "ListMcpResourcesTool",
    ]);
    let messages = within("prompts and resources", async {
        let mut client = Client::connect(options).await.expect("connect");
        client
            .query("What is the message of the day?")
            .await
            .unwrap();
        let messages = client.receive_response().await.expect("a response");
        client.disconnect().await.expect("disconnect");
        messages
    })
    .await;
    let init = messages
        .iter()
        .map(raw)
        .find(|m| m["type"] == "system" && m["subtype"] == "init")
        .expect("a system/init message");
    // Prompts of an in-process server are not offered (see the module docs).
    let commands = init["slash_commands"].as_array().expect("slash_commands");
    assert!(
        !commands
            .iter()
            .any(|c| c.as_str().is_some_and(|c| c.starts_with("mcp__desk__"))),
        "the CLI now offers an sdk server's prompts: {commands:?}"
    );
    let turns = w.turns();
    let offered: Vec<&str> = turns[0].body.as_ref().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .filter(|name| name.contains("McpResource"))
        .collect();
    assert_eq!(
        offered,
        [
            "ListMcpResourcesTool",
            "ReadMcpResourceDirTool",
            "ReadMcpResourceTool"
        ]
    );
    // Both reads reached the server: the fixed resource and the template's.
    assert_eq!(
        success_text(&messages),
        r#"motd: {"contents":[{"uri":"desk://motd","mimeType":"text/plain","text":"Be kind to the printer."}]} ticket: {"contents":[{"uri":"desk://tickets/7","text":"ticket 7: the printer is jammed"}]}"#
    );
    w.assert_offline();
}

/// The `units` example over stdio: its prompt is a slash command, and the model reads its
/// resource template through `ReadMcpResourceTool`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_servers_prompts_are_slash_commands_and_its_templates_are_read() {
    use claude_tools_runtime::options::ExternalServer;
    let script = Script::new()
        .turn(Turn::text("Reading.").and_tool_use(
            "toolu_celsius",
            "ReadMcpResourceTool",
            json!({"server": "units", "uri": "units://celsius/100"}),
        ))
        .turn(Turn::text("{{tool_result:toolu_celsius}}"));
    let Some(w) = world("prompts_resources_stdio", script).await else {
        return;
    };
    let command =
        tokio::task::spawn_blocking(|| claude_tools_tests::example_binary("stdio_server"))
            .await
            .expect("the build task");
    let options = w
        .options()
        .external_mcp_server(
            "units",
            ExternalServer::stdio(command.display().to_string(), Vec::<String>::new()),
        )
        .allowed_tools(["ReadMcpResourceTool"]);
    let messages = within("stdio prompts and resources", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("How hot is boiling water?").await.unwrap();
        let messages = client.receive_response().await.expect("a response");
        client.disconnect().await.expect("disconnect");
        messages
    })
    .await;
    let init = messages
        .iter()
        .map(raw)
        .find(|m| m["type"] == "system" && m["subtype"] == "init")
        .expect("a system/init message");
    let commands: Vec<&str> = init["slash_commands"]
        .as_array()
        .expect("slash_commands")
        .iter()
        .filter_map(|command| command.as_str())
        .filter(|command| command.starts_with("mcp__"))
        .collect();
    assert_eq!(commands, ["mcp__units__explain_conversion"]);
    assert_eq!(
        success_text(&messages),
        r#"{"contents":[{"uri":"units://celsius/100","mimeType":"application/json","text":"{\"celsius\":100,\"fahrenheit\":212,\"kelvin\":373.15}"}]}"#
    );
    w.assert_offline();
}
