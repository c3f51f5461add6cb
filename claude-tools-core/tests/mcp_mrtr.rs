//! Questions over stateless calls (MCP 2026-07-28's multi round-trip requests) through the
//! router: a tool, a prompt and a resource that ask, the rounds, the sealed `requestState`, and
//! every way a retry can be wrong.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use claude_tools_core::ask::{CreateMessageRequest, Elicitation, SamplingMessage};
use claude_tools_core::mcp::{McpRouter, ServerNotification};
use claude_tools_core::prompt::{Prompt, PromptArguments, PromptError};
use claude_tools_core::request_state::{MemoryReplayGuard, RequestStateConfig, StateKey};
use claude_tools_core::tool::{ToolDefBuilder, ToolError, ToolServer};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
struct Name {
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct Color {
    color: String,
}

/// How often each tool's handler started, and how often the `charge` work ran.
#[derive(Default)]
struct Counts {
    runs: AtomicUsize,
    charges: AtomicUsize,
}

fn server(counts: Arc<Counts>) -> ToolServer {
    let greet_counts = counts.clone();
    let charge_counts = counts.clone();
    ToolServer::new("mrtr", "1.0.0")
        .with_tool(ToolDefBuilder::new("greet"), move |call| {
            let counts = greet_counts.clone();
            async move {
                counts.runs.fetch_add(1, Ordering::SeqCst);
                let ctx = call.context();
                match ctx
                    .question("user_name")
                    .elicit::<Name>("What is your name?")
                    .await?
                {
                    Elicitation::Accepted(Name { name }) => {
                        Ok::<_, ToolError>(format!("Hello, {name}!"))
                    }
                    _ => Ok("Hello, stranger!".to_string()),
                }
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("two_steps"), move |call| {
            let counts = charge_counts.clone();
            async move {
                let ctx = call.context();
                let charge: u64 = ctx
                    .remember("charge", || async {
                        counts.charges.fetch_add(1, Ordering::SeqCst) as u64 + 100
                    })
                    .await?;
                let Elicitation::Accepted(Name { name }) = ctx
                    .question("step1")
                    .elicit::<Name>("Step 1: name?")
                    .await?
                else {
                    return Ok::<_, ToolError>("no name".to_string());
                };
                let Elicitation::Accepted(Color { color }) = ctx
                    .question("step2")
                    .elicit::<Color>("Step 2: colour?")
                    .await?
                else {
                    return Ok("no colour".to_string());
                };
                Ok(format!("{name} likes {color} (charge {charge})"))
            }
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("all_at_once"), |call| async move {
            let ctx = call.context();
            let (name, message, roots) = tokio::join!(
                ctx.elicit::<Name>("Name?"),
                ctx.create_message(CreateMessageRequest::new([SamplingMessage::user("Hi")], 50)),
                ctx.list_roots(),
            );
            let name = match name? {
                Elicitation::Accepted(Name { name }) => name,
                _ => "?".into(),
            };
            let text = message?.text().unwrap_or_default().to_string();
            Ok::<_, ToolError>(format!("{name} / {text} / {} roots", roots?.len()))
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("needs_sampling"), |call| async move {
            let answer = call
                .context()
                .create_message(CreateMessageRequest::new([SamplingMessage::user("?")], 10))
                .await?;
            Ok::<_, ToolError>(answer.text().unwrap_or_default().to_string())
        })
        .unwrap()
        .with_tool(ToolDefBuilder::new("plain"), |_| async { "no questions" })
        .unwrap()
        .with_prompt(
            Prompt::new("ask_context", |args: PromptArguments| async move {
                match args
                    .context()
                    .question("user_context")
                    .elicit::<Color>("Which context?")
                    .await
                {
                    Ok(Elicitation::Accepted(Color { color })) => Ok(format!("Use {color}.")),
                    Ok(_) => Ok("No context.".to_string()),
                    Err(error) => Err(PromptError::new(error.to_string())),
                }
            })
            .description("A prompt that asks"),
        )
        .unwrap()
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

fn all_capabilities() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

fn call(id: u64, tool: &str, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {}, "_meta": meta(all_capabilities())});
    if let Value::Object(extra) = extra {
        for (key, value) in extra {
            params[key] = value;
        }
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

async fn ask(router: &McpRouter, message: Value) -> Value {
    router.handle_json(message).await.expect("answered")
}

fn result(reply: &Value) -> &Value {
    assert!(reply.get("error").is_none(), "an error: {reply}");
    &reply["result"]
}

fn state(reply: &Value) -> Value {
    let state = &result(reply)["requestState"];
    assert!(
        state.as_str().is_some_and(|s| !s.is_empty()),
        "no state: {reply}"
    );
    state.clone()
}

fn text(reply: &Value) -> &str {
    let result = result(reply);
    assert_eq!(result["resultType"], "complete", "{reply}");
    result["content"][0]["text"].as_str().expect("text")
}

#[tokio::test]
async fn a_named_question_goes_out_and_its_answer_completes_the_call() {
    let counts = Arc::new(Counts::default());
    let router = McpRouter::new(server(counts.clone()));
    let first = ask(&router, call(1, "greet", json!({}))).await;
    let round = result(&first);
    assert_eq!(round["resultType"], "input_required");
    assert!(
        round.get("ttlMs").is_none(),
        "no cache hint on input_required"
    );
    assert_eq!(
        round["inputRequests"],
        json!({"user_name": {"method": "elicitation/create", "params": {
            "message": "What is your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                                "required": ["name"]},
        }}})
    );
    assert_eq!(
        round["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mrtr"
    );
    let retry = call(
        2,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Alice"}))},
               "requestState": state(&first)}),
    );
    assert_eq!(text(&ask(&router, retry).await), "Hello, Alice!");
    assert_eq!(
        counts.runs.load(Ordering::SeqCst),
        2,
        "the handler ran once per round"
    );
}

#[tokio::test]
async fn an_answer_is_taken_without_a_state_and_unknown_keys_are_ignored() {
    let router = McpRouter::new(server(Arc::default()));
    let answered = call(
        1,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Bo"})),
                                  "unknown_extra_key": accept(json!({"foo": "bar"}))}}),
    );
    assert_eq!(text(&ask(&router, answered).await), "Hello, Bo!");
    // A wrong key: the question is asked again, not an error.
    let wrong = call(
        2,
        "greet",
        json!({"inputResponses": {"wrong_key": accept(json!({"data": "x"}))}}),
    );
    let again = ask(&router, wrong).await;
    assert_eq!(result(&again)["resultType"], "input_required");
    assert!(result(&again)["inputRequests"]["user_name"].is_object());
}

#[tokio::test]
async fn questions_asked_together_go_out_together() {
    let router = McpRouter::new(server(Arc::default()));
    let first = ask(&router, call(1, "all_at_once", json!({}))).await;
    let requests = result(&first)["inputRequests"]
        .as_object()
        .expect("requests")
        .clone();
    let methods: Vec<&str> = requests
        .values()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["elicitation/create", "sampling/createMessage", "roots/list"]
    );
    assert_eq!(
        requests["roots-3"],
        json!({"method": "roots/list", "params": {}})
    );
    let mut answers = serde_json::Map::new();
    for (key, request) in &requests {
        answers.insert(
            key.clone(),
            match request["method"].as_str().unwrap() {
                "elicitation/create" => accept(json!({"name": "Cy"})),
                "sampling/createMessage" => json!({"role": "assistant",
                    "content": {"type": "text", "text": "Hey"}, "model": "m", "stopReason": "endTurn"}),
                _ => json!({"roots": [{"uri": "file:///r", "name": "R"}]}),
            },
        );
    }
    let retry = call(
        2,
        "all_at_once",
        json!({"inputResponses": answers, "requestState": state(&first)}),
    );
    assert_eq!(text(&ask(&router, retry).await), "Cy / Hey / 1 roots");
}

#[tokio::test]
async fn rounds_carry_earlier_answers_and_kept_values_in_a_new_state_each_time() {
    let counts = Arc::new(Counts::default());
    let router = McpRouter::new(server(counts.clone()));
    let r1 = ask(&router, call(1, "two_steps", json!({}))).await;
    assert!(result(&r1)["inputRequests"]["step1"].is_object());
    let r2 = ask(
        &router,
        call(
            2,
            "two_steps",
            json!({"inputResponses": {"step1": accept(json!({"name": "Di"}))},
                                    "requestState": state(&r1)}),
        ),
    )
    .await;
    assert!(result(&r2)["inputRequests"]["step2"].is_object(), "{r2}");
    assert_ne!(state(&r1), state(&r2), "a new state each round");
    // Round 3 sends only step2's answer: step1's comes from the state.
    let r3 = ask(
        &router,
        call(
            3,
            "two_steps",
            json!({"inputResponses": {"step2": accept(json!({"color": "blue"}))},
                                    "requestState": state(&r2)}),
        ),
    )
    .await;
    assert_eq!(text(&r3), "Di likes blue (charge 100)");
    assert_eq!(
        counts.charges.load(Ordering::SeqCst),
        1,
        "remember ran its work once"
    );
}

#[tokio::test]
async fn a_bad_state_is_refused_and_runs_nothing() {
    let counts = Arc::new(Counts::default());
    let router = McpRouter::new(server(counts.clone()));
    let first = ask(&router, call(1, "greet", json!({}))).await;
    let sealed = state(&first).as_str().unwrap().to_string();
    let answer = json!({"user_name": accept(json!({"name": "Eve"}))});
    let runs = counts.runs.load(Ordering::SeqCst);
    let mut refused = Vec::new();
    // Tampered, not a string, for another tool, for other arguments.
    refused.push(call(
        2,
        "greet",
        json!({"inputResponses": answer, "requestState": format!("{sealed}-TAMPERED")}),
    ));
    refused.push(call(
        3,
        "greet",
        json!({"inputResponses": answer, "requestState": 42}),
    ));
    refused.push(call(
        4,
        "two_steps",
        json!({"inputResponses": answer, "requestState": sealed}),
    ));
    let mut other_arguments = call(
        5,
        "greet",
        json!({"inputResponses": answer, "requestState": sealed}),
    );
    other_arguments["params"]["arguments"] = json!({"x": 1});
    refused.push(other_arguments);
    for message in refused {
        let reply = ask(&router, message.clone()).await;
        assert_eq!(reply["error"]["code"], -32602, "{message}: {reply}");
    }
    assert_eq!(counts.runs.load(Ordering::SeqCst), runs, "no handler ran");
    // Spent once: a replay after the call completed is refused too.
    let good = call(
        6,
        "greet",
        json!({"inputResponses": answer, "requestState": sealed}),
    );
    assert_eq!(text(&ask(&router, good.clone()).await), "Hello, Eve!");
    let replayed = ask(&router, good).await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
}

#[tokio::test]
async fn a_state_is_bound_to_its_principal() {
    let server = server(Arc::default());
    let alice = McpRouter::new(server.clone()).with_principal(Some("alice".into()));
    let first = ask(&alice, call(1, "greet", json!({}))).await;
    let retry = call(
        2,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "M"}))},
               "requestState": state(&first)}),
    );
    let mallory = alice
        .new_connection()
        .with_principal(Some("mallory".into()));
    assert_eq!(ask(&mallory, retry.clone()).await["error"]["code"], -32602);
    let anonymous = alice.new_connection();
    assert_eq!(
        ask(&anonymous, retry.clone()).await["error"]["code"],
        -32602
    );
    let alice_again = alice.new_connection().with_principal(Some("alice".into()));
    assert_eq!(text(&ask(&alice_again, retry).await), "Hello, M!");
}

/// A clock the test moves.
struct Manual(std::sync::Mutex<SystemTime>);

#[tokio::test]
async fn an_expired_state_is_refused_and_replicas_with_one_key_accept_each_others() {
    let clock = Arc::new(Manual(std::sync::Mutex::new(SystemTime::now())));
    let guard = Arc::new(MemoryReplayGuard::new());
    let replica = |key: [u8; 32]| {
        let codec = RequestStateConfig::new()
            .key(StateKey::new(key).unwrap())
            .ttl(Duration::from_secs(60))
            .replay_guard(guard.clone())
            .clock({
                let clock = clock.clone();
                move || *clock.0.lock().unwrap()
            })
            .build("mrtr")
            .unwrap();
        McpRouter::new(server(Arc::default()).with_request_state(codec))
    };
    let (a, b, other) = (replica([1; 32]), replica([1; 32]), replica([2; 32]));
    let answer = json!({"user_name": accept(json!({"name": "Rep"}))});
    let first = ask(&a, call(1, "greet", json!({}))).await;
    let retry = call(
        2,
        "greet",
        json!({"inputResponses": answer, "requestState": state(&first)}),
    );
    assert_eq!(
        ask(&other, retry.clone()).await["error"]["code"],
        -32602,
        "another key"
    );
    assert_eq!(
        text(&ask(&b, retry).await),
        "Hello, Rep!",
        "the other replica"
    );

    let first = ask(&a, call(3, "greet", json!({}))).await;
    *clock.0.lock().unwrap() += Duration::from_secs(61);
    let late = call(
        4,
        "greet",
        json!({"inputResponses": answer, "requestState": state(&first)}),
    );
    assert_eq!(ask(&b, late).await["error"]["code"], -32602, "expired");
}

#[tokio::test]
async fn bad_answers_and_undeclared_capabilities() {
    let router = McpRouter::new(server(Arc::default()));
    // An answer that is not an elicitation result, and inputResponses that is not an object.
    let number = call(1, "greet", json!({"inputResponses": {"user_name": 12345}}));
    let reply = ask(&router, number).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["data"]
            .as_str()
            .unwrap()
            .contains("user_name")
    );
    let null = call(2, "greet", json!({"inputResponses": null}));
    assert_eq!(ask(&router, null).await["error"]["code"], -32602);
    // Content that is not the form's type.
    let wrong = call(
        3,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": 7}))}}),
    );
    assert_eq!(ask(&router, wrong).await["error"]["code"], -32602);
    // A question needing sampling from a request that did not declare it: -32021.
    let mut bare = call(4, "needs_sampling", json!({}));
    bare["params"]["_meta"] = meta(json!({}));
    let reply = ask(&router, bare).await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"],
        json!({"requiredCapabilities": {"sampling": {}}})
    );
    // A method without rounds ignores the params; a tool that asks nothing completes.
    let list = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list",
        "params": {"inputResponses": {"x": 1}, "_meta": meta(json!({}))}});
    assert_eq!(result(&ask(&router, list).await)["resultType"], "complete");
    let plain = call(6, "plain", json!({"inputResponses": {"x": 1}}));
    assert_eq!(text(&ask(&router, plain).await), "no questions");
}

#[tokio::test]
async fn a_prompt_asks_too() {
    let router = McpRouter::new(server(Arc::default()));
    let get = |id: u64, extra: Value| {
        let mut params = json!({"name": "ask_context", "_meta": meta(all_capabilities())});
        if let Value::Object(extra) = extra {
            for (key, value) in extra {
                params[key] = value;
            }
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "prompts/get", "params": params})
    };
    let first = ask(&router, get(1, json!({}))).await;
    assert_eq!(result(&first)["resultType"], "input_required");
    assert!(result(&first)["inputRequests"]["user_context"].is_object());
    let retry = get(
        2,
        json!({"inputResponses": {"user_context": accept(json!({"color": "test context"}))},
               "requestState": state(&first)}),
    );
    let done = ask(&router, retry).await;
    assert_eq!(result(&done)["resultType"], "complete");
    assert_eq!(
        result(&done)["messages"][0]["content"]["text"],
        "Use test context."
    );
}

#[tokio::test]
async fn on_a_2025_connection_the_same_tool_sends_a_real_request() {
    let sent = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = sent.clone();
    let router = McpRouter::new(server(Arc::default()))
        .with_requests_to_client(claude_tools_core::ask::RequestsToClient::sent())
        .with_notifier(Arc::new(move |n: ServerNotification| {
            sink.lock().unwrap().push(n)
        }));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}}});
    ask(&router, init).await;
    let calling = router.handle_json(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "greet", "arguments": {}}}));
    let answering = async {
        let id = loop {
            if let Some(ServerNotification::Request(request)) = sent.lock().unwrap().first() {
                break request.id.clone();
            }
            tokio::task::yield_now().await;
        };
        router
            .handle_json(
                json!({"jsonrpc": "2.0", "id": id, "result": accept(json!({"name": "Old"}))}),
            )
            .await;
    };
    let (reply, ()) = tokio::join!(calling, answering);
    let reply = reply.unwrap();
    assert_eq!(reply["result"]["content"][0]["text"], "Hello, Old!");
    assert!(reply["result"].get("resultType").is_none());
}

#[tokio::test]
async fn a_state_does_not_open_for_another_method_nor_answers_an_undeclared_capability() {
    let router = McpRouter::new(server(Arc::default()));
    let first = ask(&router, call(1, "greet", json!({}))).await;
    // The tool call's state, brought to prompts/get: refused, nothing runs.
    let get = json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {
        "name": "ask_context", "_meta": meta(all_capabilities()),
        "inputResponses": {"user_context": accept(json!({"color": "x"}))},
        "requestState": state(&first)}});
    assert_eq!(ask(&router, get).await["error"]["code"], -32602);
    // An answer to a question the request cannot be asked (no elicitation declared): the
    // answer is not used, the call ends -32021.
    let mut undeclared = call(
        3,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Zed"}))}}),
    );
    undeclared["params"]["_meta"] = meta(json!({"sampling": {}}));
    let reply = ask(&router, undeclared).await;
    assert_eq!(reply["error"]["code"], -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
}

#[tokio::test]
async fn a_retry_may_write_its_arguments_in_another_order() {
    let router = McpRouter::new(server(Arc::default()));
    let mut first = call(1, "greet", json!({}));
    first["params"]["arguments"] = json!({"a": 1, "b": {"y": 2, "x": [1, {"q": 0, "p": 1}]}});
    let first = ask(&router, first).await;
    let mut retry = call(
        2,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Ord"}))},
               "requestState": state(&first)}),
    );
    let reordered: Value =
        serde_json::from_str(r#"{"b": {"x": [1, {"p": 1, "q": 0}], "y": 2}, "a": 1}"#).unwrap();
    retry["params"]["arguments"] = reordered;
    assert_eq!(text(&ask(&router, retry).await), "Hello, Ord!");
}
