//! `#[arg(header = "..")]`: a `#[tool]` parameter that also travels in an `Mcp-Param-*` header
//! (MCP 2026-07-28's `x-mcp-header`): the schema the model and the gateways see, and the
//! server's check of the header against the body over Streamable HTTP.

use claude_tools::mcp::http::HttpServer;
use claude_tools::prelude::*;
use serde_json::{Value, json};

#[tool_server(name = "deployer", version = "1.0.0")]
pub struct Deployer;

/// Deploy the service.
#[tool(server = Deployer)]
async fn deploy(
    /// Where
    #[arg(header = "Region")]
    region: String,
    /// How many copies
    #[arg(header = "Replicas", default = 1)]
    replicas: u32,
    /// Why (in the body only)
    reason: String,
) -> String {
    format!("{replicas} in {region}: {reason}")
}

#[test]
fn the_schema_marks_the_header_carried_parameters() {
    let server = Deployer::server();
    let tool = server.tool("deploy").expect("the tool");
    let properties = &tool.def().input_schema["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["replicas"]["x-mcp-header"], "Replicas");
    assert_eq!(properties["replicas"]["default"], 1);
    assert!(properties["reason"].get("x-mcp-header").is_none());
    let headers: Vec<(&str, &str)> = tool
        .header_params()
        .iter()
        .map(|param| (&*param.property, &*param.header))
        .collect();
    assert_eq!(headers, [("region", "Region"), ("replicas", "Replicas")]);
}

#[tokio::test]
async fn the_header_must_say_what_the_argument_says() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(
        HttpServer::new(Deployer::server())
            .serve(listener)
            .into_future(),
    );
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let call = |region_header: Option<&'static str>| {
        let mut request = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "deploy")
            .body(
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                    "name": "deploy",
                    "arguments": {"region": "eu-west", "reason": "release"},
                    "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                              "io.modelcontextprotocol/clientCapabilities": {}}}})
                .to_string(),
            );
        if let Some(region) = region_header {
            request = request.header("mcp-param-region", region);
        }
        request.send()
    };
    let agreed = call(Some("eu-west")).await.unwrap();
    assert_eq!(agreed.status(), 200);
    let body: Value = serde_json::from_str(&agreed.text().await.unwrap()).unwrap();
    assert_eq!(
        body["result"]["content"][0]["text"],
        "1 in eu-west: release"
    );
    for header in [Some("us-east"), None] {
        let refused = call(header).await.unwrap();
        assert_eq!(refused.status(), 400, "{header:?}");
        let body: Value = serde_json::from_str(&refused.text().await.unwrap()).unwrap();
        assert_eq!(body["error"]["code"], -32020);
    }
}
