//! A subagent the host defines (`Options::agent` with the fields of `AgentDefinition`), started
//! by the model with the `Agent` tool, calls an in-process tool of the host; the result reaches
//! the main agent.

use claude_tools_runtime::options::{AgentDefinition, AgentEffort, PermissionMode};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{success_text, world};
use crate::{run_query, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_defined_subagent_calls_an_in_process_tool_and_its_result_reaches_the_main_agent() {
    // The scripted model picks a turn by the number of assistant messages a request holds,
    // or by its prompt: the subagent's first request gets the tool call; turn 1 answers both
    // the subagent after its tool call and the main thread after the Agent call, each quoting
    // the tool result it got.
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_agent",
            "Agent",
            json!({"description": "Count", "prompt": "SUBTASK add seven",
                   "subagent_type": "counter", "run_in_background": false}),
        ))
        .turn(Turn::text("report: {{tool_result}}"))
        .turn(
            Turn::tool_use(
                "toolu_e2e_sub_add",
                "mcp__e2e__counter_add",
                json!({"by": 7}),
            )
            .when_user_text("SUBTASK add seven"),
        );
    let Some(w) = world("defined_subagent", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let counter = AgentDefinition::new("Adds to the counter", "You add to the counter.")
        .tools(["mcp__e2e__counter_add"])
        .disallowed_tools(["Bash"])
        .max_turns(4)
        .background(false)
        .effort(AgentEffort::Low)
        .permission_mode(PermissionMode::Default);
    let options = w
        .options()
        .mcp_server(server)
        .agent("counter", counter)
        .allowed_tools(["Agent", "mcp__e2e__counter_add"]);
    let messages = run_query("delegate the count", options).await;

    assert_eq!(lab.counter(), 7);
    assert_eq!(
        lab.received(),
        [(
            "counter_add",
            json!({"by": 7}),
            "toolu_e2e_sub_add".to_string()
        )]
    );
    // The main agent's answer quotes the Agent call's result, which carries the subagent's
    // report of the in-process tool's result.
    let answer = success_text(&messages);
    assert!(answer.starts_with("report: "), "{answer}");
    assert!(answer.contains("report: counter is now 7"), "{answer}");
    // The subagent (its first request selected turn 2) was offered only the tool its
    // definition names.
    let offered = w
        .server
        .tools_offered(2)
        .expect("a request of the subagent");
    assert_eq!(offered, ["mcp__e2e__counter_add"]);
}
