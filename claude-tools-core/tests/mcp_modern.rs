//! The router at MCP 2026-07-28 beside 2025-11-25: the stateless core, request by request,
//! with the exact replies (see `claude_tools_core::mcp`'s `modern` and `revision` modules).

use std::time::Duration;

use claude_tools_core::mcp::{CacheHint, CacheableMethod, McpRouter};
use claude_tools_core::prompt::{Prompt, PromptArguments};
use claude_tools_core::resource::{Resource, ResourceRequest};
use claude_tools_core::tool::{ToolDefBuilder, ToolServer};
use serde_json::{Value, json};

const V: &str = "2026-07-28";

fn server() -> ToolServer {
    let mut echo = ToolDefBuilder::new("echo");
    echo.input().property::<String>("text", None, true);
    ToolServer::new("modern", "2.0.0")
        .with_instructions("Use echo")
        .with_tool(echo, |mut call| async move {
            let text = call.take_argument("text").unwrap_or_default();
            format!("ECHO:{}", text.as_str().unwrap_or_default())
        })
        .unwrap()
        .with_resource(Resource::new(
            "test://static",
            "static",
            |_read: ResourceRequest| async { "hello" },
        ))
        .unwrap()
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A 2026-07-28 request of `method` with `params` (its `_meta` added).
fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

async fn ask(router: &McpRouter, message: Value) -> Value {
    router
        .handle_json(message)
        .await
        .expect("a request is answered")
}

fn server_info() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "2.0.0"}})
}

#[tokio::test]
async fn discover_names_the_revisions_capabilities_and_instructions() {
    let router = McpRouter::new(server());
    let reply = ask(&router, modern(1, "server/discover", json!({}))).await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 1, "result": {
            "supportedVersions": ["2026-07-28"],
            "capabilities": {
                "tools": {"listChanged": false},
                "resources": {"subscribe": false, "listChanged": false},
                "completions": {},
                "logging": {},
            },
            "instructions": "Use echo",
            "resultType": "complete",
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": server_info(),
        }})
    );
    // The probe chose nothing: the connection still takes a 2025 client.
    let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}}});
    assert_eq!(
        ask(&router, init).await["result"]["protocolVersion"],
        "2025-11-25"
    );
}

#[tokio::test]
async fn every_result_carries_result_type_and_server_info_and_lists_their_cache_hint() {
    let router = McpRouter::new(server().with_cache_hint(
        CacheableMethod::ToolsList,
        CacheHint::public(Duration::from_secs(60)),
    ));
    let call = ask(
        &router,
        modern(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
    )
    .await;
    assert_eq!(
        call["result"],
        json!({"content": [{"type": "text", "text": "ECHO:hi"}], "isError": false,
            "resultType": "complete", "_meta": server_info()})
    );
    let list = ask(&router, modern(2, "tools/list", json!({}))).await;
    assert_eq!(list["result"]["resultType"], "complete");
    assert_eq!(list["result"]["ttlMs"], 60_000);
    assert_eq!(list["result"]["cacheScope"], "public");
    assert_eq!(list["result"]["tools"][0]["name"], "echo");
    let read = ask(
        &router,
        modern(3, "resources/read", json!({"uri": "test://static"})),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], "hello");
    assert_eq!(read["result"]["ttlMs"], 0);
    assert_eq!(read["result"]["cacheScope"], "private");
    assert_eq!(read["result"]["_meta"], server_info());
    // A 2025 answer has none of it.
    let legacy = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"});
    let legacy = ask(&McpRouter::new(server()), legacy).await;
    assert!(legacy["result"].get("resultType").is_none());
    assert!(legacy["result"].get("_meta").is_none());
}

#[tokio::test]
async fn the_removed_methods_are_not_found() {
    let router = McpRouter::new(server());
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
    ] {
        let reply = ask(&router, modern(1, method, json!({"uri": "test://static"}))).await;
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
        assert!(reply.get("result").is_none());
    }
}

#[tokio::test]
async fn a_missing_resource_is_invalid_params_with_its_uri() {
    let router = McpRouter::new(server());
    let reply = ask(
        &router,
        modern(1, "resources/read", json!({"uri": "test://nope"})),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32602);
    assert_eq!(reply["error"]["data"]["uri"], "test://nope");
    // The 2025 era keeps its own code (on a connection of its own: this one chose 2026-07-28).
    let legacy = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
        "params": {"uri": "test://nope"}});
    assert_eq!(
        ask(&McpRouter::new(server()), legacy).await["error"]["code"],
        -32002
    );
}

#[tokio::test]
async fn bad_meta_is_refused_before_anything_runs() {
    let router = McpRouter::new(server());
    // An unserved revision: -32022 with what is served.
    let mut request = modern(1, "tools/list", json!({}));
    request["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2030-01-01");
    let reply = ask(&router, request).await;
    assert_eq!(reply["error"]["code"], -32022);
    assert_eq!(
        reply["error"]["data"],
        json!({"supported": ["2026-07-28"], "requested": "2030-01-01"})
    );
    // The version without the capabilities, capabilities that are not an object, a version
    // that is not a string, a clientInfo without its fields: -32602.
    for meta in [
        json!({"io.modelcontextprotocol/protocolVersion": V}),
        json!({"io.modelcontextprotocol/clientCapabilities": {}}),
        json!({"io.modelcontextprotocol/protocolVersion": V,
               "io.modelcontextprotocol/clientCapabilities": []}),
        json!({"io.modelcontextprotocol/protocolVersion": 2026,
               "io.modelcontextprotocol/clientCapabilities": {}}),
        json!({"io.modelcontextprotocol/protocolVersion": V,
               "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/clientInfo": {"name": 1}}),
        json!({"io.modelcontextprotocol/protocolVersion": V,
               "io.modelcontextprotocol/clientCapabilities": {},
               "io.modelcontextprotocol/logLevel": "loud"}),
    ] {
        for method in ["tools/list", "tools/call", "resources/read"] {
            let request = json!({"jsonrpc": "2.0", "id": 7, "method": method,
                "params": {"name": "echo", "uri": "test://static", "arguments": {"text": "x"},
                           "_meta": meta}});
            let reply = ask(&router, request).await;
            assert_eq!(reply["error"]["code"], -32602, "{method} {meta}: {reply}");
            assert_eq!(reply["id"], 7);
        }
    }
    // clientInfo is optional; a valid logLevel is served.
    let mut request = modern(2, "tools/list", json!({}));
    request["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!("debug");
    assert_eq!(
        ask(&router, request).await["result"]["resultType"],
        "complete"
    );
}

#[tokio::test]
async fn a_connection_keeps_the_era_it_chose() {
    // Initialized at 2025-11-25: a 2026-07-28 request is refused, the 2025 ones go on.
    let legacy = McpRouter::new(server());
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}}});
    assert!(ask(&legacy, init.clone()).await.get("result").is_some());
    let refused = ask(&legacy, modern(2, "tools/list", json!({}))).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
    assert!(ask(&legacy, list.clone()).await.get("result").is_some());

    // Spoken to at 2026-07-28: `initialize` is -32022 naming the revisions served, a request
    // without `_meta` is -32602.
    let modern_router = McpRouter::new(server());
    assert!(
        ask(&modern_router, modern(1, "tools/list", json!({})))
            .await
            .get("result")
            .is_some()
    );
    let init = ask(&modern_router, init).await;
    assert_eq!(init["error"]["code"], -32022, "{init}");
    assert_eq!(init["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert_eq!(ask(&modern_router, list).await["error"]["code"], -32602);
    // And its modern requests are still served.
    let call = modern(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "on"}}),
    );
    assert_eq!(
        ask(&modern_router, call).await["result"]["content"][0]["text"],
        "ECHO:on"
    );
}

#[tokio::test]
async fn discover_without_meta_is_a_2025_request_for_an_unknown_method() {
    let router = McpRouter::new(server());
    let reply = ask(
        &router,
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"}),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32601);
}

/// A 2026-07-28 `subscriptions/listen` request with `notifications` as its filter.
fn listen_request(id: u64, notifications: Value) -> claude_tools_core::mcp::Request {
    let message = modern(
        id,
        "subscriptions/listen",
        json!({"notifications": notifications}),
    );
    match claude_tools_core::mcp::Message::decode(message.to_string().as_bytes()) {
        claude_tools_core::mcp::Message::Request(request) => request,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_listen_stream_acknowledges_then_hears_only_what_it_asked_for() {
    let router = McpRouter::new(server()).with_listen(true);
    let handle = router.tool_server_handle();
    // Asks for tool and prompt changes and one resource (prompt changes are honoured on a server
    // with no prompt yet: its live handle may add one).
    let mut stream = router
        .listen(listen_request(
            7,
            json!({"toolsListChanged": true, "promptsListChanged": true,
                   "resourceSubscriptions": ["test://static"]}),
        ))
        .expect("a stream");
    let mut resources_only = router
        .listen(listen_request(8, json!({"resourcesListChanged": true})))
        .expect("a stream");
    assert_eq!(router.listen_streams(), 2);
    assert_eq!(
        serde_json::to_value(stream.acknowledgement()).unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
               "params": {"notifications": {"toolsListChanged": true,
                                            "promptsListChanged": true,
                                            "resourceSubscriptions": ["test://static"]},
                          "_meta": {"io.modelcontextprotocol/subscriptionId": 7}}})
    );
    // Three tool changes and an update owed before the stream is read: merged into one notice
    // each, tools first.
    for name in ["a", "b", "c"] {
        handle.add_typed_tool(name, || async { "x" }).unwrap();
    }
    handle.resource_updated("test://static");
    handle.resource_updated("test://other");
    let first = stream.next().await;
    assert_eq!(
        serde_json::to_value(stream.message(&first)).unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
               "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}})
    );
    let second = stream.next().await;
    assert_eq!(
        serde_json::to_value(stream.message(&second)).unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
               "params": {"uri": "test://static",
                          "_meta": {"io.modelcontextprotocol/subscriptionId": 7}}})
    );
    // Nothing else is owed: not the other URI, not a second tool notice.
    let more = tokio::time::timeout(Duration::from_millis(50), stream.next()).await;
    assert!(more.is_err(), "{more:?}");
    // The stream that asked only for resource list changes heard nothing of all this.
    let nothing = tokio::time::timeout(Duration::from_millis(50), resources_only.next()).await;
    assert!(nothing.is_err(), "{nothing:?}");
    // Its graceful end, and dropping closes it.
    assert_eq!(
        stream.ended()["result"],
        json!({"resultType": "complete", "_meta": {
            "io.modelcontextprotocol/subscriptionId": 7,
            "io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "2.0.0"}}})
    );
    drop(stream);
    drop(resources_only);
    assert_eq!(router.listen_streams(), 0);
}

#[tokio::test]
async fn a_listen_stream_hears_of_the_first_prompt_added_live() {
    let router = McpRouter::new(server()).with_listen(true);
    assert!(router.tool_server_handle().server().prompts().is_empty());
    let mut stream = router
        .listen(listen_request(9, json!({"promptsListChanged": true})))
        .expect("a stream");
    assert_eq!(
        serde_json::to_value(stream.acknowledgement()).unwrap()["params"]["notifications"],
        json!({"promptsListChanged": true})
    );
    router
        .tool_server_handle()
        .add_prompt(Prompt::new("greet", |_: PromptArguments| async {
            "Say hello."
        }))
        .unwrap();
    let heard = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("the prompt's list change");
    assert_eq!(
        serde_json::to_value(stream.message(&heard)).unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed",
               "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 9}}})
    );
}

#[tokio::test]
async fn a_listen_request_is_refused_where_it_cannot_be_served() {
    let router = McpRouter::new(server()).with_listen(true);
    // No filter, a filter of the wrong shape, too many URIs: -32602.
    for params in [
        json!({}),
        json!({"notifications": true}),
        json!({"notifications": {"resourceSubscriptions": vec!["u"; 1025]}}),
    ] {
        let message = modern(1, "subscriptions/listen", params);
        let claude_tools_core::mcp::Message::Request(request) =
            claude_tools_core::mcp::Message::decode(message.to_string().as_bytes())
        else {
            panic!()
        };
        let refused = router.listen(request).unwrap_err();
        assert_eq!(refused.to_value()["error"]["code"], -32602);
    }
    // A transport without streams (in-process), and a 2025-era request: -32601.
    let no_streams = McpRouter::new(server());
    let refused = no_streams
        .listen(listen_request(2, json!({"toolsListChanged": true})))
        .unwrap_err();
    assert_eq!(refused.to_value()["error"]["code"], -32601);
    let legacy = claude_tools_core::mcp::Message::decode(
        br#"{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{}}}"#,
    );
    let claude_tools_core::mcp::Message::Request(legacy) = legacy else {
        panic!()
    };
    assert_eq!(
        router.listen(legacy).unwrap_err().to_value()["error"]["code"],
        -32601
    );
    // Through `handle` (no stream to hold): -32601.
    let handled = ask(
        &router,
        modern(4, "subscriptions/listen", json!({"notifications": {}})),
    )
    .await;
    assert_eq!(handled["error"]["code"], -32601);
    // Discover says listChanged where streams are held, and not in-process.
    let discover = ask(&router, modern(5, "server/discover", json!({}))).await;
    assert_eq!(
        discover["result"]["capabilities"]["tools"]["listChanged"],
        true
    );
    assert_eq!(
        discover["result"]["capabilities"]["resources"]["subscribe"],
        true
    );
    let discover = ask(&no_streams, modern(6, "server/discover", json!({}))).await;
    assert_eq!(
        discover["result"]["capabilities"]["tools"]["listChanged"],
        false
    );
}
