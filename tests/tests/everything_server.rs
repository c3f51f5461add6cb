//! The `everything_server` example (the official MCP conformance suite's fixture, which
//! `scripts/conformance` runs the suite against) serves exactly the tools, prompts, resources
//! and template the suite's server scenarios name, and the few behaviours the suite relies on
//! that claude-tools' own tests do not cover: the renamed prompt argument, the template's
//! contents, the tool that changes the tool list. The suite itself is not run here (it needs
//! npm); this keeps the fixture honest between its runs.

use std::process::{Command, Stdio};
use std::time::Duration;

use claude_tools_tests::ListeningServer;
use serde_json::{Value, json};

/// Every tool the suite's server scenarios call (both revisions, and the unscored `tasks-*`
/// scenarios' task tools), sorted as `tools/list` lists them.
const TOOLS: [&str; 34] = [
    "confirm_delete",
    "failing_job",
    "greet",
    "json_schema_2020_12_tool",
    "multi_input",
    "protocol_error_job",
    "slow_compute",
    "test_audio_content",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_embedded_resource",
    "test_error_handling",
    "test_header_param",
    "test_image_content",
    "test_input_required_result_capabilities",
    "test_input_required_result_elicitation",
    "test_input_required_result_list_roots",
    "test_input_required_result_multi_round",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_request_state",
    "test_input_required_result_sampling",
    "test_input_required_result_tampered_state",
    "test_logging_tool",
    "test_missing_capability",
    "test_multiple_content_types",
    "test_sampling",
    "test_simple_text",
    "test_streaming_elicitation",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_tool_with_task",
    "test_trigger_prompt_change",
    "test_trigger_tool_change",
];

const PROMPTS: [&str; 5] = [
    "test_input_required_result_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_simple_prompt",
];

const RESOURCES: [&str; 3] = [
    "test://static-binary",
    "test://static-text",
    "test://watched-resource",
];

const TEMPLATES: [&str; 1] = ["test://template/{id}/data"];

/// A stateless 2025-11-25 client of the example: each request stands alone.
struct Client {
    http: reqwest::Client,
    url: String,
}

impl Client {
    async fn request(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let response = self
            .http
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("MCP-Protocol-Version", "2025-11-25")
            .body(body.to_string())
            .send()
            .await
            .unwrap_or_else(|error| panic!("{method}: {error}"));
        assert_eq!(response.status().as_u16(), 200, "{method}");
        let reply: Value = serde_json::from_str(&response.text().await.expect("a body"))
            .unwrap_or_else(|error| panic!("{method}: not JSON: {error}"));
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    /// The `key` of each item of the list `method` answers, in order.
    async fn names(&self, method: &str, list: &str, key: &str) -> Vec<String> {
        let result = self.request(method, json!({})).await;
        result[list]
            .as_array()
            .unwrap_or_else(|| panic!("{method}: no `{list}` array in {result}"))
            .iter()
            .map(|item| item[key].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

fn start() -> (ListeningServer, Client) {
    let mut command = Command::new(claude_tools_tests::example_binary("everything_server"));
    command
        .args(["--listen", "127.0.0.1:0", "--stateless"])
        .stderr(Stdio::inherit());
    let server = ListeningServer::start(command);
    let http = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .expect("an HTTP client");
    let client = Client {
        http,
        url: server.url().to_string(),
    };
    (server, client)
}

#[tokio::test]
async fn the_fixture_serves_every_tool_prompt_resource_and_template_the_suite_names() {
    let (_server, client) = start();
    assert_eq!(client.names("tools/list", "tools", "name").await, TOOLS);
    assert_eq!(
        client.names("prompts/list", "prompts", "name").await,
        PROMPTS
    );
    assert_eq!(
        client.names("resources/list", "resources", "uri").await,
        RESOURCES
    );
    assert_eq!(
        client
            .names(
                "resources/templates/list",
                "resourceTemplates",
                "uriTemplate"
            )
            .await,
        TEMPLATES
    );
}

#[tokio::test]
async fn the_embedded_resource_prompt_takes_resource_uri_and_the_template_reads_back_its_id() {
    let (_server, client) = start();
    let prompt = client
        .request(
            "prompts/get",
            json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://example-resource"}}),
        )
        .await;
    assert_eq!(
        prompt["messages"][0]["content"],
        json!({"type": "resource", "resource": {"uri": "test://example-resource", "mimeType": "text/plain", "text": "Embedded resource content for testing."}})
    );

    let read = client
        .request("resources/read", json!({"uri": "test://template/123/data"}))
        .await;
    assert_eq!(
        read["contents"][0]["text"],
        r#"{"id":"123","templateTest":true,"data":"Data for ID: 123"}"#
    );
}

#[tokio::test]
async fn the_trigger_tool_adds_then_removes_a_tool() {
    let (_server, client) = start();
    let call = json!({"name": "test_trigger_tool_change", "arguments": {}});
    client.request("tools/call", call.clone()).await;
    let tools = client.names("tools/list", "tools", "name").await;
    assert!(
        tools.iter().any(|name| name == "test_dynamic_tool"),
        "{tools:?}"
    );
    client.request("tools/call", call).await;
    assert_eq!(client.names("tools/list", "tools", "name").await, TOOLS);
}
