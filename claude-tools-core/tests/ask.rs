//! A running tool's questions to the client, message by message through the router: what goes
//! out, how the client's response comes back to the tool, and every way the wait ends.

use std::time::Duration;

use claude_tools_core::mcp::{
    AskError, ClientCapabilities, CreateMessageRequest, Elicitation, McpRouter, Message,
    RequestsToClient, SamplingMessage, ServerNotification,
};
use claude_tools_core::tool::{ToolDefBuilder, ToolServer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

#[derive(Deserialize, JsonSchema)]
struct Confirm {
    /// Go ahead?
    approve: bool,
    /// Why
    note: Option<String>,
}

// The options of the conformance suite's `elicitation-sep1330-enums` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Plain {
    Option1,
    Option2,
    Option3,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Choice {
    /// First Choice
    Value1,
    /// Second Choice
    Value2,
    /// Third Choice
    Value3,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // read through `Debug`
struct Selects {
    untitled_single: Plain,
    titled_single: Choice,
    untitled_multi: Vec<Plain>,
    titled_multi: Vec<Choice>,
}

#[derive(Deserialize, JsonSchema)]
struct NotAForm {
    #[allow(dead_code)]
    tags: Vec<String>,
}

fn server() -> ToolServer {
    ToolServer::new("ask", "1.0.0")
        .with_tool(ToolDefBuilder::new("confirm"), |call| async move {
            let ctx = call.context().clone();
            match ctx.elicit::<Confirm>("Deploy?").await {
                Ok(Elicitation::Accepted(answer)) => format!(
                    "accepted approve={} note={}",
                    answer.approve,
                    answer.note.unwrap_or_default()
                ),
                Ok(Elicitation::Declined) => "declined".into(),
                Ok(Elicitation::Cancelled) => "cancelled".into(),
                Err(error) => format!("error: {error}"),
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("selects"), |call| async move {
            match call.context().elicit::<Selects>("Choose").await {
                Ok(Elicitation::Accepted(selects)) => format!("{selects:?}"),
                Ok(other) => format!("{other:?}"),
                Err(error) => format!("error: {error}"),
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("bad_form"), |call| async move {
            match call.context().elicit::<NotAForm>("Tags?").await {
                Ok(_) => "asked".to_string(),
                Err(error) => format!("error: {error}"),
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("sample"), |call| async move {
            let request = CreateMessageRequest::new([SamplingMessage::user("Name #ff7f50")], 20)
                .system_prompt("One word.");
            match call.context().create_message(request).await {
                Ok(result) => format!("{} said {}", result.model, result.text().unwrap_or("?")),
                Err(error) => format!("error: {error}"),
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("roots"), |call| async move {
            match call.context().list_roots().await {
                Ok(roots) => roots
                    .iter()
                    .map(|root| root.uri.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
                Err(error) => format!("error: {error}"),
            }
        })
        .unwrap()
}

/// `future`, or a failure after a generous bound instead of a hang.
async fn within<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(20), future)
        .await
        .expect("no hang")
}

struct Wire {
    router: McpRouter,
    sent: mpsc::UnboundedReceiver<ServerNotification>,
}

fn wire(requests: RequestsToClient) -> Wire {
    let (tx, sent) = mpsc::unbounded_channel();
    let router = McpRouter::new(server())
        .with_notifier(std::sync::Arc::new(move |message| {
            let _ = tx.send(message);
        }))
        .with_requests_to_client(requests);
    Wire { router, sent }
}

async fn initialize(router: &McpRouter, capabilities: Value) {
    router
        .handle_json(
            json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": capabilities,
                       "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .await
        .expect("initialize is answered");
}

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}})
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("not a text result: {answer}"))
}

/// Runs `tool`, waits for the request it sends, answers it with `reply(request)`, and returns
/// the request and the tool's result text.
async fn ask(wire: &mut Wire, tool: &str, reply: impl Fn(&Value) -> Value) -> (Value, String) {
    let router = wire.router.clone();
    let tool_call = call(7, tool);
    let running = tokio::spawn(async move { router.handle_json(tool_call).await });
    let request = within(wire.sent.recv())
        .await
        .expect("the tool sends a request");
    let ServerNotification::Request(_) = &request else {
        panic!("not a request: {request:?}");
    };
    let request = request.to_value();
    assert_eq!(wire.router.waiting_requests(), 1);
    let answer = wire.router.handle_json(reply(&request)).await;
    assert_eq!(answer, None, "a response is not answered");
    let result = within(running)
        .await
        .unwrap()
        .expect("the call is answered");
    (request, text(&result).to_string())
}

#[tokio::test]
async fn an_accepted_elicitation_reaches_the_tool_typed() {
    let mut wire = wire(RequestsToClient::sent());
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let (request, result) = ask(&mut wire, "confirm", |request| {
        json!({"jsonrpc": "2.0", "id": request["id"], "result":
            {"action": "accept", "content": {"approve": true, "note": "ship it"}}})
    })
    .await;
    assert_eq!(
        request,
        json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": {
            "message": "Deploy?",
            "requestedSchema": {"type": "object", "properties": {
                "approve": {"type": "boolean", "description": "Go ahead?"},
                "note": {"type": "string", "description": "Why"}
            }, "required": ["approve"]}
        }})
    );
    assert_eq!(result, "accepted approve=true note=ship it");
    assert_eq!(wire.router.waiting_requests(), 0);
}

#[tokio::test]
async fn enum_fields_go_out_as_sep1330_selects_and_come_back_as_enums() {
    let mut wire = wire(RequestsToClient::sent());
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let (request, result) = ask(&mut wire, "selects", |request| {
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {
            "untitledSingle": "option1",
            "titledSingle": "value2",
            "untitledMulti": ["option1", "option3"],
            "titledMulti": ["value1", "value2"]
        }}})
    })
    .await;
    let titled = json!([
        {"const": "value1", "title": "First Choice"},
        {"const": "value2", "title": "Second Choice"},
        {"const": "value3", "title": "Third Choice"}
    ]);
    let plain = json!({"type": "string", "enum": ["option1", "option2", "option3"]});
    assert_eq!(
        request["params"]["requestedSchema"]["properties"],
        json!({
            "untitledSingle": plain,
            "titledSingle": {"type": "string", "oneOf": titled},
            "untitledMulti": {"type": "array", "items": plain},
            "titledMulti": {"type": "array", "items": {"anyOf": titled}}
        })
    );
    assert_eq!(
        result,
        "Selects { untitled_single: Option1, titled_single: Value2, untitled_multi: [Option1, \
         Option3], titled_multi: [Value1, Value2] }"
    );
}

#[tokio::test]
async fn declined_cancelled_and_misfit_answers() {
    let mut wire = wire(RequestsToClient::sent());
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let reply = |action: &'static str| move |request: &Value| json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": action}});
    assert_eq!(
        ask(&mut wire, "confirm", reply("decline")).await.1,
        "declined"
    );
    assert_eq!(
        ask(&mut wire, "confirm", reply("cancel")).await.1,
        "cancelled"
    );
    let (request, misfit) = ask(&mut wire, "confirm", |request| {
        json!({"jsonrpc": "2.0", "id": request["id"], "result":
            {"action": "accept", "content": {"approve": "yes"}}})
    })
    .await;
    assert_eq!(request["id"], 3, "each request has an id of its own");
    assert!(
        misfit.starts_with("error: the client's answer does not fit")
            && misfit.contains("`approve`"),
        "{misfit}"
    );
    let (_, refused) = ask(&mut wire, "confirm", |request| {
        json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "Method not found"}})
    })
    .await;
    assert_eq!(
        refused,
        "error: the client refused the request: Method not found (-32601)"
    );
}

#[tokio::test]
async fn sampling_and_roots_round_trip() {
    let mut wire = wire(RequestsToClient::sent());
    initialize(
        &wire.router,
        json!({"sampling": {}, "roots": {"listChanged": true}}),
    )
    .await;
    let (request, result) = ask(&mut wire, "sample", |request| {
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"role": "assistant",
            "content": {"type": "text", "text": "coral"}, "model": "m-1", "stopReason": "endTurn"}})
    })
    .await;
    assert_eq!(
        request["params"],
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Name #ff7f50"}}],
               "maxTokens": 20, "systemPrompt": "One word."})
    );
    assert_eq!(request["method"], "sampling/createMessage");
    assert_eq!(result, "m-1 said coral");
    let (request, roots) = ask(&mut wire, "roots", |request| {
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": [
            {"uri": "file:///a", "name": "a"}, {"uri": "file:///b"}]}})
    })
    .await;
    assert_eq!(request["method"], "roots/list");
    assert_eq!(roots, "file:///a,file:///b");
}

#[tokio::test]
async fn a_client_without_the_capability_is_not_asked() {
    let mut wire = wire(RequestsToClient::sent());
    initialize(&wire.router, json!({"sampling": {}})).await;
    let result = wire.router.handle_json(call(1, "confirm")).await.unwrap();
    assert_eq!(
        text(&result),
        "error: the client did not announce the `elicitation` capability when it connected, so \
         it cannot be asked for a form (elicitation); nothing was sent"
    );
    let result = wire.router.handle_json(call(2, "roots")).await.unwrap();
    assert!(text(&result).contains("`roots` capability"), "{result}");
    assert!(wire.sent.try_recv().is_err(), "nothing was sent");

    // What the transport knows of its client wins over what the client said.
    let mut assumed = wire_assuming(ClientCapabilities::NONE.with_elicitation(true));
    initialize(&assumed.router, json!({})).await;
    let (_, result) = ask(
        &mut assumed,
        "confirm",
        |request| json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}}),
    )
    .await;
    assert_eq!(result, "declined");
}

fn wire_assuming(capabilities: ClientCapabilities) -> Wire {
    let mut wire = wire(RequestsToClient::sent());
    wire.router = wire.router.assume_client_capabilities(capabilities);
    wire
}

#[tokio::test]
async fn a_transport_that_cannot_carry_requests_says_so() {
    let mut wire = wire(RequestsToClient::refused("turn sessions on"));
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let result = wire.router.handle_json(call(1, "confirm")).await.unwrap();
    assert_eq!(text(&result), "error: turn sessions on");
    // The default refuses too.
    let default = McpRouter::new(server());
    initialize(&default, json!({"elicitation": {}})).await;
    let result = default.handle_json(call(1, "confirm")).await.unwrap();
    let refused = text(&result);
    assert!(
        refused.starts_with(
            "error: this transport does not carry requests from the server to the client: a \
             bare McpRouter answers nobody's questions;"
        ),
        "{refused}"
    );
    assert!(
        refused.contains("McpRouter::with_local_client"),
        "the refusal says what to do: {refused}"
    );
    assert!(wire.sent.try_recv().is_err(), "nothing was sent");
}

#[tokio::test]
async fn a_type_that_is_not_a_form_is_refused_before_anything_is_sent() {
    let mut wire = wire(RequestsToClient::sent());
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let result = wire.router.handle_json(call(1, "bad_form")).await.unwrap();
    assert!(
        text(&result).starts_with(
            "error: `NotAForm` cannot be an elicitation form: its field `tags` is a list"
        ),
        "{result}"
    );
    assert!(wire.sent.try_recv().is_err(), "nothing was sent");
}

#[tokio::test]
async fn cancelling_the_call_withdraws_the_question() {
    let mut wire = wire(RequestsToClient::sent());
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let router = wire.router.clone();
    let running = tokio::spawn(async move { router.handle_json(call(9, "confirm")).await });
    let request = wire.sent.recv().await.unwrap().to_value();
    wire.router
        .handle_json(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 9}}),
        )
        .await;
    let answer = running.await.unwrap().unwrap();
    assert_eq!(answer["error"]["code"], -32800);
    let withdrawn = wire
        .sent
        .recv()
        .await
        .expect("the question is withdrawn")
        .to_value();
    assert_eq!(
        withdrawn,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
               "params": {"requestId": request["id"], "reason": "the tool call was cancelled"}})
    );
    assert_eq!(wire.router.waiting_requests(), 0);
    // A late answer is nobody's.
    let late = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}});
    assert_eq!(wire.router.handle_json(late).await, None);
}

#[tokio::test]
async fn a_response_to_no_waiting_request_is_ignored() {
    let wire = wire(RequestsToClient::sent());
    for stray in [
        json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "accept"}}),
        json!({"jsonrpc": "2.0", "id": "x", "error": {"code": 1, "message": "m"}}),
    ] {
        assert_eq!(wire.router.handle_json(stray).await, None);
    }
    assert_eq!(wire.router.waiting_requests(), 0);
    // The client's own request ids live apart from the server's: a client request with id 1
    // is answered as usual while the server's request 1 waits.
    let mut wire = wire;
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let router = wire.router.clone();
    let running = tokio::spawn(async move { router.handle_json(call(1, "confirm")).await });
    let request = wire.sent.recv().await.unwrap().to_value();
    assert_eq!(request["id"], 1);
    let pong = wire
        .router
        .handle_json(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    assert_eq!(pong, Some(json!({"jsonrpc": "2.0", "id": 1, "result": {}})));
    assert_eq!(wire.router.waiting_requests(), 1);
    wire.router
        .handle_json(json!({"jsonrpc": "2.0", "id": 1, "result": {"action": "decline"}}))
        .await;
    assert_eq!(text(&within(running).await.unwrap().unwrap()), "declined");
}

#[tokio::test(start_paused = true)]
async fn an_unanswered_question_times_out_and_is_withdrawn() {
    let mut wire = wire(RequestsToClient::sent_with_timeout(Duration::from_secs(30)));
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let result = wire.router.handle_json(call(1, "confirm")).await.unwrap();
    assert_eq!(text(&result), "error: the client did not answer within 30s");
    let ServerNotification::Request(_) = wire.sent.recv().await.unwrap() else {
        panic!("no request");
    };
    let withdrawn = wire.sent.recv().await.unwrap().to_value();
    assert_eq!(withdrawn["method"], "notifications/cancelled");
    assert_eq!(
        withdrawn["params"]["reason"],
        "the server stopped waiting for the answer"
    );
}

#[tokio::test]
async fn the_connections_end_ends_the_wait() {
    let mut wire = wire(RequestsToClient::sent());
    initialize(&wire.router, json!({"elicitation": {}})).await;
    let (tx, rx) = tokio::sync::oneshot::channel();
    let router = wire.router.clone();
    // A handler that outlives the call's cancellation (as a tool ignoring its token would) still
    // sees the wait end: the connection's end fails every waiting request.
    let ctx_router = router.clone();
    tokio::spawn(async move {
        let client = ctx_router.client();
        let ctx = claude_tools_core::tool::ToolContext::new().with_client(client);
        let _ = tx.send(ctx.elicit::<Confirm>("Deploy?").await.err());
    });
    let ServerNotification::Request(_) = wire.sent.recv().await.unwrap() else {
        panic!("no request");
    };
    router.cancel_all();
    assert_eq!(within(rx).await.unwrap(), Some(AskError::Closed));
    assert_eq!(router.waiting_requests(), 0);
}

#[test]
fn a_message_of_the_client_that_answers_is_a_response() {
    assert!(matches!(
        Message::decode(br#"{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}"#),
        Message::Response(_)
    ));
}
