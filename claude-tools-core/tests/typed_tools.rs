//! Typed tools defined at run time (`ToolServer::with_typed_tool`): the exact schema and `_meta`
//! they list, their calls (arguments, extractors, every result type) and their argument errors;
//! the `alwaysLoad` default of hand-built tools; the qualified names of a server's tools.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use claude_tools_core::tool::{
    Content, Image, Input, IntoToolResult, Json, ProgressReporter, ServerBuildError, State,
    ToolCall, ToolContext, ToolDefBuilder, ToolError, ToolParam, ToolResult, ToolServer,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The shop's catalogue, the state the tools share.
struct Catalogue {
    items: Vec<&'static str>,
    searches: AtomicU32,
}

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// Words to look for
    query: String,
    /// At most this many hits
    limit: Option<usize>,
}

#[derive(Serialize, JsonSchema)]
struct Stock {
    /// Units on the shelf
    units: u32,
}

fn catalogue() -> Catalogue {
    Catalogue {
        items: vec!["red mug", "blue mug", "red hat"],
        searches: AtomicU32::new(0),
    }
}

fn search_def() -> ToolDefBuilder {
    let mut def = ToolDefBuilder::new("search");
    def.description("Search the catalogue").read_only(true);
    def
}

async fn search(State(catalogue): State<Catalogue>, args: SearchArgs) -> String {
    catalogue.searches.fetch_add(1, Ordering::SeqCst);
    let hits = catalogue
        .items
        .iter()
        .filter(|item| item.contains(&*args.query));
    let hits: Vec<&str> = hits.take(args.limit.unwrap_or(10)).copied().collect();
    hits.join(", ")
}

fn shop() -> ToolServer {
    ToolServer::new("shop", "1.0.0")
        .with_state(catalogue())
        .with_typed_tool(search_def(), search)
        .unwrap()
}

async fn call(server: &ToolServer, tool: &str, arguments: Value) -> ToolResult {
    server.call(tool, arguments, ToolContext::new()).await
}

#[test]
fn the_schema_comes_from_the_arguments_type_and_always_load_defaults_to_true() {
    let server = shop();
    assert_eq!(
        server.list_tools(),
        [json!({
            "name": "search",
            "description": "Search the catalogue",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "limit": {
                        "description": "At most this many hits",
                        "type": ["integer", "null"],
                        "minimum": 0
                    },
                    "query": {"description": "Words to look for", "type": "string"}
                },
                "required": ["query"]
            },
            "annotations": {"readOnlyHint": true},
            "_meta": {"anthropic/alwaysLoad": true}
        })]
    );
}

#[test]
fn the_schema_is_the_one_a_tool_taking_input_of_the_same_type_gets() {
    let mut by_hand = ToolDefBuilder::new("search");
    <Input<SearchArgs> as ToolParam>::describe("input", None, &mut by_hand);
    let by_hand = by_hand.build().unwrap();
    let server = shop();
    assert_eq!(
        server.tool("search").unwrap().def().input_schema,
        by_hand.input_schema
    );
}

#[tokio::test]
async fn a_call_deserializes_the_arguments_and_extracts_the_state() {
    let server = shop();
    let result = call(&server, "search", json!({"query": "red", "limit": 1})).await;
    assert_eq!(result, ToolResult::text("red mug"));
    let result = call(&server, "search", json!({"query": "mug"})).await;
    assert_eq!(result, ToolResult::text("red mug, blue mug"));
}

#[tokio::test]
async fn bad_arguments_are_an_is_error_result_naming_the_field_and_the_handler_does_not_run() {
    let state = Arc::new(catalogue());
    let server = ToolServer::new("shop", "1.0.0")
        .with_shared_state(state.clone())
        .with_typed_tool(search_def(), search)
        .unwrap();

    let result = call(&server, "search", json!({"query": 7})).await;
    assert_eq!(
        result,
        ToolResult::error(
            "Invalid arguments for tool `search`: argument `query`: invalid type: integer `7`, \
             expected a string"
        )
    );
    let result = call(&server, "search", json!({"limit": 1})).await;
    assert_eq!(
        result,
        ToolResult::error(
            "Invalid arguments for tool `search`: argument `query`: missing required argument"
        )
    );
    let result = call(&server, "search", json!("red")).await;
    assert_eq!(
        result,
        ToolResult::error(
            "Invalid arguments for tool `search`: expected a JSON object, got a string"
        )
    );
    assert_eq!(state.searches.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_missing_state_is_reported_when_the_server_is_checked_and_when_called() {
    let server = ToolServer::new("shop", "1.0.0")
        .with_typed_tool(search_def(), search)
        .unwrap();
    assert_eq!(
        server.check_state().unwrap_err().to_string(),
        format!(
            "tool `search` of server `shop` takes State<{}>, but the server has no such state: \
             call .with_state(value) on the server before using it",
            std::any::type_name::<Catalogue>()
        )
    );
    let result = call(&server, "search", json!({"query": "red"})).await;
    assert_eq!(
        result,
        ToolResult::error(format!(
            "tool `search` needs State<{}>, which its server does not have",
            std::any::type_name::<Catalogue>()
        ))
    );
}

/// An extractor of the test's own: the tool_use id, or "local".
struct CallId(String);

impl ToolParam for CallId {
    fn extract(_name: &'static str, call: &mut ToolCall) -> Result<Self, ToolError> {
        let id = call.context().tool_use_id().unwrap_or("local");
        Ok(CallId(id.to_string()))
    }
}

#[tokio::test]
async fn every_extractor_in_any_position_and_the_context_of_the_call() {
    #[derive(Deserialize, JsonSchema)]
    struct Note {
        text: String,
    }
    let reports = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = reports.clone();
    let server = ToolServer::new("notes", "1.0.0")
        .with_state(5u32)
        .with_typed_tool(
            "note",
            |note: Note, CallId(id): CallId, context: ToolContext, State(five): State<u32>| async move {
                context.report_progress(1.0, Some(2.0), Some("half"));
                format!("{} {id} {five} {}", note.text, context.is_cancelled())
            },
        )
        .unwrap();

    let context = ToolContext::new()
        .with_tool_use_id("toolu_1")
        .with_progress(ProgressReporter::new(
            "token".into(),
            Arc::new(move |token, progress, total, message| {
                sink.lock()
                    .unwrap()
                    .push(json!([token, progress, total, message]));
            }),
        ));
    let result = server.call("note", json!({"text": "hi"}), context).await;
    assert_eq!(result, ToolResult::text("hi toolu_1 5 false"));
    assert_eq!(
        *reports.lock().unwrap(),
        [json!(["token", 1.0, 2.0, "half"])]
    );
    // Only the arguments type adds to the schema.
    assert_eq!(
        server.tool("note").unwrap().def().input_schema,
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
            .as_object()
            .unwrap()
            .clone()
    );
}

#[tokio::test]
async fn the_cancellation_token_of_the_call_reaches_the_handler() {
    let server = ToolServer::new("slow", "1.0.0")
        .with_typed_tool("wait", |context: ToolContext| async move {
            context.cancelled().await;
            "stopped"
        })
        .unwrap();
    let token = tokio_util::sync::CancellationToken::new();
    token.cancel();
    let context = ToolContext::new().with_cancellation(token);
    assert_eq!(
        server.call("wait", Value::Null, context).await,
        ToolResult::text("stopped")
    );
}

#[tokio::test]
async fn a_tool_without_an_arguments_type_takes_no_arguments() {
    let server = ToolServer::new("demo", "1.0.0")
        .with_typed_tool("ping", || async { "pong" })
        .unwrap();
    assert_eq!(
        server.list_tools(),
        [json!({
            "name": "ping",
            "inputSchema": {"type": "object", "properties": {}, "required": []},
            "_meta": {"anthropic/alwaysLoad": true}
        })]
    );
    assert_eq!(
        call(&server, "ping", Value::Null).await,
        ToolResult::text("pong")
    );
}

#[tokio::test]
async fn every_result_type_a_tool_fn_may_return() {
    let png = [0x89, b'P', b'N', b'G'];
    let server = ToolServer::new("results", "1.0.0")
        .with_typed_tool("unit", || async {})
        .and_then(|s| s.with_typed_tool("number", || async { 42u64 }))
        .and_then(|s| s.with_typed_tool("text", || async { String::from("text") }))
        .and_then(|s| s.with_typed_tool("image", move || async move { Image::png(png) }))
        .and_then(|s| {
            s.with_typed_tool("blocks", || async {
                vec![Content::text("a"), Content::text("b")]
            })
        })
        .and_then(|s| s.with_typed_tool("json", || async { Json(Stock { units: 3 }) }))
        .and_then(|s| {
            s.with_typed_tool("fails", || async {
                Err::<Json<Stock>, _>(ToolError::new("out of stock"))
            })
        })
        .and_then(|s| s.with_typed_tool("raw", || async { ToolResult::error("raw") }))
        .unwrap();

    assert_eq!(
        call(&server, "unit", Value::Null).await,
        ().into_tool_result()
    );
    assert_eq!(
        call(&server, "number", Value::Null).await,
        ToolResult::text("42")
    );
    assert_eq!(
        call(&server, "text", Value::Null).await,
        ToolResult::text("text")
    );
    assert_eq!(
        call(&server, "image", Value::Null).await.to_json(),
        json!({"content": [{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}], "isError": false})
    );
    assert_eq!(
        call(&server, "blocks", Value::Null).await.text_content(),
        "a\nb"
    );
    assert_eq!(
        call(&server, "json", Value::Null).await.to_json(),
        json!({
            "content": [{"type": "text", "text": "{\"units\":3}"}],
            "structuredContent": {"units": 3},
            "isError": false
        })
    );
    assert_eq!(
        call(&server, "fails", Value::Null).await,
        ToolResult::error("out of stock")
    );
    assert_eq!(
        call(&server, "raw", Value::Null).await,
        ToolResult::error("raw")
    );

    // A `Json<T>` output (also inside a `Result`) sets the output schema, as for `#[tool]`.
    let output = json!({
        "type": "object",
        "properties": {"units": {"description": "Units on the shelf", "type": "integer", "minimum": 0}},
        "required": ["units"]
    });
    for tool in ["json", "fails"] {
        let def = server.tool(tool).unwrap().def();
        assert_eq!(
            def.output_schema.clone().map(Value::Object),
            Some(output.clone())
        );
    }
    assert_eq!(server.tool("text").unwrap().def().output_schema, None);
}

#[tokio::test]
async fn a_move_closure_runs_a_clone_per_call_so_its_captures_reach_the_future() {
    let calls = Arc::new(AtomicU32::new(0));
    let counter = calls.clone();
    let server = ToolServer::new("count", "1.0.0")
        .with_typed_tool("count", move || {
            let counter = counter.clone();
            async move { counter.fetch_add(1, Ordering::SeqCst) + 1 }
        })
        .unwrap()
        .with_typed_tool("count_moved", {
            let calls = calls.clone();
            move || async move { calls.fetch_add(1, Ordering::SeqCst) + 1 }
        })
        .unwrap();
    assert_eq!(
        call(&server, "count", Value::Null).await,
        ToolResult::text("1")
    );
    assert_eq!(
        call(&server, "count_moved", Value::Null).await,
        ToolResult::text("2")
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[test]
fn a_schema_claude_would_refuse_fails_the_build_naming_the_tool() {
    #[derive(Deserialize, JsonSchema)]
    enum Choice {
        A,
        B,
    }
    let error = ToolServer::new("demo", "1.0.0")
        .with_typed_tool("choose", |_: Choice| async {})
        .unwrap_err();
    let ServerBuildError::Schema { server, tool, .. } = &error else {
        panic!("not a schema error: {error:?}");
    };
    assert_eq!((server.as_str(), tool.as_str()), ("demo", "choose"));
    assert_eq!(
        error.to_string(),
        "tool `choose` of server `demo`: `Choice` is not a JSON object, but a tool's whole input \
         must be one: take a struct as the input (with `Choice` as one of its fields)"
    );
}

#[test]
fn two_tools_with_one_name_and_bad_names_are_refused() {
    let error = shop().with_typed_tool("search", || async {}).unwrap_err();
    assert_eq!(
        error,
        ServerBuildError::DuplicateTool {
            server: "shop".into(),
            tool: "search".into(),
            first: None,
            second: None,
        }
    );
    let error = shop()
        .with_typed_tool("no spaces", || async {})
        .unwrap_err();
    assert!(
        matches!(error, ServerBuildError::InvalidName(_)),
        "{error:?}"
    );
}

#[test]
fn a_setter_chain_is_a_definition() {
    let server = ToolServer::new("demo", "1.0.0")
        .with_typed_tool(
            ToolDefBuilder::new("ping")
                .description("Answers pong")
                .title("Ping")
                .always_load(false),
            || async { "pong" },
        )
        .unwrap();
    assert_eq!(
        server.list_tools(),
        [json!({
            "name": "ping",
            "title": "Ping",
            "description": "Answers pong",
            "inputSchema": {"type": "object", "properties": {}, "required": []},
            "annotations": {"title": "Ping"}
        })]
    );
}

#[test]
fn raw_hand_built_tools_get_the_always_load_default_too_unless_they_opt_out() {
    let mut opted_out = ToolDefBuilder::new("rare");
    opted_out.always_load(false);
    let server = ToolServer::new("raw", "1.0.0")
        .with_tool("plain", |_call: ToolCall| async { "" })
        .unwrap()
        .with_tool(opted_out, |_call: ToolCall| async { "" })
        .unwrap();
    let meta: Vec<Option<Value>> = server
        .list_tools()
        .into_iter()
        .map(|tool| tool.get("_meta").cloned())
        .collect();
    assert_eq!(meta, [Some(json!({"anthropic/alwaysLoad": true})), None]);

    // A builder alone, with no server, keeps no key: the default is the server's.
    assert!(
        ToolDefBuilder::new("alone")
            .build()
            .unwrap()
            .meta
            .is_empty()
    );
}

#[test]
fn qualified_names_of_a_server_and_of_its_read_only_tools() {
    let server = shop()
        .with_typed_tool("buy", || async {})
        .and_then(|s| s.with_typed_tool(ToolDefBuilder::new("browse").read_only(true), || async {}))
        .unwrap();
    assert_eq!(
        server.qualified_names(),
        ["mcp__shop__browse", "mcp__shop__buy", "mcp__shop__search"]
    );
    assert_eq!(
        server.read_only_qualified_names(),
        ["mcp__shop__browse", "mcp__shop__search"]
    );
    assert_eq!(
        server.qualified_name("buy").as_deref(),
        Some("mcp__shop__buy")
    );
    assert_eq!(server.qualified_name("by"), None);
    assert_eq!(
        server.qualified_names_where(|def| def.annotations.read_only.is_none()),
        ["mcp__shop__buy"]
    );
}

/// Two arguments types and an unknown argument: every problem reaches the model in one result,
/// as for a `#[tool]` fn, and the handler does not run.
#[tokio::test]
async fn every_argument_problem_of_a_typed_tool_comes_back_at_once() {
    #[derive(Deserialize, JsonSchema)]
    struct Paging {
        /// The page of hits
        page: u32,
    }
    let mut def = ToolDefBuilder::new("search");
    def.description("Search the catalogue")
        .deny_unknown_arguments(true);
    let server = ToolServer::new("shop", "1.0.0")
        .with_state(catalogue())
        .with_typed_tool(
            def,
            |State(catalogue): State<Catalogue>, args: SearchArgs, paging: Paging| async move {
                catalogue.searches.fetch_add(1, Ordering::SeqCst);
                format!("{} {}", args.query, paging.page)
            },
        )
        .unwrap();
    let result = call(&server, "search", json!({"page": "two", "extra": 1})).await;
    assert_eq!(
        result,
        ToolResult::error(
            "Invalid arguments for tool `search` (3 problems):\n\
             - argument `query`: missing required argument\n\
             - argument `page`: invalid type: string \"two\", expected u32\n\
             - unknown argument `extra`: the tool accepts only `query`, `limit`, `page`"
        )
    );
    let good = call(&server, "search", json!({"query": "mug", "page": 2})).await;
    assert_eq!(good, ToolResult::text("mug 2"));
}

/// Two tools added by hand with one name: the advice fits tools built by hand (there is no
/// `#[tool]` attribute to change).
#[test]
fn a_duplicate_added_by_hand_is_told_to_rename_it_not_to_use_the_attribute() {
    let error = shop().with_typed_tool("search", || async {}).unwrap_err();
    assert_eq!(
        error.to_string(),
        "server `shop` has two tools named `search`: tool names must be unique in a server; \
         give one of them another name"
    );
}

/// Reading the enums' declaration order runs the arguments type's own `Deserialize` impl on
/// placeholder input: one that panics there still gives a tool (with schemars' order).
#[test]
fn an_arguments_type_whose_deserialize_panics_on_placeholders_still_builds() {
    fn strict<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(text.parse().expect("digits only"))
    }
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// A count, written in digits
        #[serde(deserialize_with = "strict")]
        #[schemars(with = "String")]
        count: u32,
    }
    let server = ToolServer::new("shop", "1.0.0")
        .with_typed_tool("count", |args: Args| async move { args.count })
        .unwrap();
    assert_eq!(
        server.list_tools()[0]["inputSchema"]["properties"]["count"],
        json!({"type": "string", "description": "A count, written in digits"})
    );
}

#[test]
fn a_tool_may_ask_the_client_only_through_a_parameter_that_can() {
    async fn asks(_ctx: ToolContext, _args: SearchArgs) -> &'static str {
        ""
    }
    async fn cancellable(
        _cancel: tokio_util::sync::CancellationToken,
        _args: Input<SearchArgs>,
    ) -> &'static str {
        ""
    }
    let server = shop()
        .with_typed_tool("asks", asks)
        .unwrap()
        .with_typed_tool("cancellable", cancellable)
        .unwrap()
        .with_tool("raw", |_call: ToolCall| async { "" })
        .unwrap();
    let may_ask = |name: &str| server.tool(name).map(|tool| tool.may_ask());
    // State and the arguments type: nothing reaches the client.
    assert_eq!(may_ask("search"), Some(false));
    assert_eq!(may_ask("cancellable"), Some(false));
    // The context reaches it, and so does a raw call.
    assert_eq!(may_ask("asks"), Some(true));
    assert_eq!(may_ask("raw"), Some(true));
    // A parameter of the user's own says so itself, or is taken to ask.
    const { assert!(<ToolContext as ToolParam>::MAY_ASK) };
    const { assert!(!<State<Catalogue> as ToolParam>::MAY_ASK) };
}
