//! What `#[tool_server]` and `#[tool]` produce at run time: the exact `tools/list` JSON and the
//! exact results of calls, with no CLI involved.

use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// A server with state, context, optional arguments, structured output and a struct input.

#[tool_server(name = "calc", version = "1.2.3", instructions = "Arithmetic tools.")]
pub struct Calc;

/// Added to every sum.
pub struct Offset {
    by: i64,
}

/// Multiplies every product.
pub struct Scale {
    factor: i64,
}

/// Add two integers.
///
/// The offset of the server is added to the sum;
/// `b` defaults to zero.
#[tool(server = Calc, read_only)]
async fn add(
    offset: State<Offset>,
    /// The first term
    a: i64,
    ctx: ToolContext,
    /// The second term (zero when absent)
    b: Option<i64>,
) -> Result<String, ToolError> {
    let sum = a + b.unwrap_or(0) + offset.by;
    Ok(format!("{sum} ({})", ctx.tool_use_id().unwrap_or("no id")))
}

/// Multiply with the server's offset and scale.
#[tool(server = Calc, idempotent = true, open_world = false)]
fn scale(State(offset): State<Offset>, State(scale): State<Scale>, x: i64) -> i64 {
    (x + offset.by) * scale.factor
}

#[derive(Serialize, JsonSchema)]
pub struct Stats {
    /// How many numbers
    pub count: usize,
    /// Their mean
    pub mean: f64,
}

/// Count and average numbers.
#[tool(
    server = Calc,
    title = "Statistics",
    max_result_chars = 100000,
    search_hint = "mean average",
    always_load = false
)]
async fn stats(
    /// The numbers
    numbers: Vec<f64>,
) -> Result<Json<Stats>, String> {
    if numbers.is_empty() {
        return Err("give at least one number".to_string());
    }
    let mean = numbers.iter().sum::<f64>() / numbers.len() as f64;
    Ok(Json(Stats {
        count: numbers.len(),
        mean,
    }))
}

#[derive(Deserialize, JsonSchema)]
pub struct Range {
    /// The first number
    pub from: i64,
    /// The last number (inclusive)
    pub to: i64,
}

/// Sum a range of integers.
#[tool(server = Calc, description = "Sum the integers of a range.", destructive = false)]
async fn sum_range(Input(range): Input<Range>) -> i64 {
    (range.from..=range.to).sum()
}

/// Divide, failing on zero.
#[tool(server = Calc)]
async fn divide(a: i64, b: i64) -> Result<i64, ToolError> {
    if b == 0 {
        return Err(ToolError::new("cannot divide by zero"));
    }
    Ok(a / b)
}

/// Always panics.
#[tool(server = Calc)]
async fn explode() -> String {
    panic!("the tool exploded")
}

fn calc() -> ToolServer {
    Calc::server()
        .with_state(Offset { by: 100 })
        .with_state(Scale { factor: 3 })
}

async fn call(server: &ToolServer, tool: &str, arguments: Value) -> Value {
    server
        .call(tool, arguments, ToolContext::new())
        .await
        .to_json()
}

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

fn error(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

#[test]
fn tools_list_is_exact_and_sorted_by_name() {
    let server = calc();
    assert_eq!(server.name(), "calc");
    assert_eq!(server.version(), "1.2.3");
    assert_eq!(server.instructions(), Some("Arithmetic tools."));
    assert_eq!(
        Value::Array(server.list_tools()),
        json!([
            {
                "name": "add",
                "description": "Add two integers.\n\nThe offset of the server is added to the sum;\n`b` defaults to zero.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "integer", "description": "The first term"},
                        "b": {"type": ["integer", "null"], "description": "The second term (zero when absent)"}
                    },
                    "required": ["a"]
                },
                "annotations": {"readOnlyHint": true},
                "_meta": {"anthropic/alwaysLoad": true}
            },
            {
                "name": "divide",
                "description": "Divide, failing on zero.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "integer"},
                        "b": {"type": "integer"}
                    },
                    "required": ["a", "b"]
                },
                "_meta": {"anthropic/alwaysLoad": true}
            },
            {
                "name": "explode",
                "description": "Always panics.",
                "inputSchema": {"type": "object", "properties": {}, "required": []},
                "_meta": {"anthropic/alwaysLoad": true}
            },
            {
                "name": "scale",
                "description": "Multiply with the server's offset and scale.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}},
                    "required": ["x"]
                },
                "annotations": {"idempotentHint": true, "openWorldHint": false},
                "_meta": {"anthropic/alwaysLoad": true}
            },
            {
                "name": "stats",
                "title": "Statistics",
                "description": "Count and average numbers.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "numbers": {
                            "type": "array",
                            "items": {"type": "number"},
                            "description": "The numbers"
                        }
                    },
                    "required": ["numbers"]
                },
                "outputSchema": {
                    "type": "object",
                    "properties": {
                        "count": {"type": "integer", "minimum": 0, "description": "How many numbers"},
                        "mean": {"type": "number", "description": "Their mean"}
                    },
                    "required": ["count", "mean"]
                },
                "annotations": {"title": "Statistics"},
                "_meta": {
                    "anthropic/maxResultSizeChars": 100000,
                    "anthropic/searchHint": "mean average"
                }
            },
            {
                "name": "sum_range",
                "description": "Sum the integers of a range.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "from": {"type": "integer", "description": "The first number"},
                        "to": {"type": "integer", "description": "The last number (inclusive)"}
                    },
                    "required": ["from", "to"]
                },
                "annotations": {"destructiveHint": false},
                "_meta": {"anthropic/alwaysLoad": true}
            }
        ])
    );
}

#[tokio::test]
async fn state_context_and_optional_arguments_reach_the_handler() {
    let server = calc();
    let with_id = ToolContext::new().with_tool_use_id("toolu_01");
    let result = server.call("add", json!({"a": 1, "b": 2}), with_id).await;
    assert_eq!(result.to_json(), text("103 (toolu_01)"));
    // `b` absent, null, present.
    assert_eq!(
        call(&server, "add", json!({"a": 1})).await,
        text("101 (no id)")
    );
    assert_eq!(
        call(&server, "add", json!({"a": 1, "b": null})).await,
        text("101 (no id)")
    );
    assert_eq!(
        call(&server, "add", json!({"a": 1, "b": -1})).await,
        text("100 (no id)")
    );
}

#[tokio::test]
async fn two_state_types_and_a_sync_fn() {
    assert_eq!(call(&calc(), "scale", json!({"x": 2})).await, text("306"));
}

#[tokio::test]
async fn wrong_and_missing_arguments_name_the_field() {
    let server = calc();
    assert_eq!(
        call(&server, "add", json!({"a": "one"})).await,
        error(
            "Invalid arguments for tool `add`: argument `a`: invalid type: string \"one\", expected i64"
        )
    );
    assert_eq!(
        call(&server, "add", json!({"b": 1})).await,
        error("Invalid arguments for tool `add`: argument `a`: missing required argument")
    );
    assert_eq!(
        call(&server, "stats", json!({"numbers": [1, "x"]})).await,
        error(
            "Invalid arguments for tool `stats`: argument `numbers[1]`: invalid type: string \"x\", expected f64"
        )
    );
}

#[tokio::test]
async fn struct_input_is_the_whole_arguments() {
    let server = calc();
    assert_eq!(
        call(&server, "sum_range", json!({"from": 1, "to": 4})).await,
        text("10")
    );
    assert_eq!(
        call(&server, "sum_range", json!({"from": 1})).await,
        error("Invalid arguments for tool `sum_range`: argument `to`: missing required argument")
    );
}

#[tokio::test]
async fn structured_results_errors_and_panics() {
    let server = calc();
    assert_eq!(
        call(&server, "stats", json!({"numbers": [1, 2]})).await,
        json!({
            "content": [{"type": "text", "text": "{\"count\":2,\"mean\":1.5}"}],
            "structuredContent": {"count": 2, "mean": 1.5},
            "isError": false
        })
    );
    assert_eq!(
        call(&server, "stats", json!({"numbers": []})).await,
        error("give at least one number")
    );
    assert_eq!(
        call(&server, "divide", json!({"a": 1, "b": 0})).await,
        error("cannot divide by zero")
    );
    assert_eq!(
        call(&server, "explode", json!({})).await,
        error("tool `explode` panicked: the tool exploded")
    );
}

// ---------------------------------------------------------------------------------------------
// Two more servers in the same crate: each sees only its own tools.

#[tool_server(name = "notes", always_load = false)]
pub struct Notes;

#[tool_server(name = "needy")]
pub struct Needy;

/// A sync fn that panics: it runs inside the call's future, so the panic is caught too.
#[tool(server = Notes)]
fn sync_explode() -> String {
    panic!("the sync tool exploded")
}

/// List notes.
#[tool(server = Notes)]
fn list() -> &'static str {
    "no notes"
}

/// A tool with the same name as one of Calc's, on another server.
#[tool(server = Notes)]
async fn divide_notes(
    /// How many parts
    parts: u8,
) -> String {
    format!("{parts} parts")
}

/// Needs state that nobody registers.
#[tool(server = Needy, name = "add")]
async fn needy_add(offset: State<Offset>) -> i64 {
    offset.by
}

#[tokio::test]
async fn servers_in_one_crate_see_only_their_tools() {
    let notes = Notes::server();
    let names: Vec<&str> = notes.tools().iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["divide_notes", "list", "sync_explode"]);
    // `always_load = false` on the server: no `_meta` at all.
    assert_eq!(
        notes.list_tools()[1],
        json!({
            "name": "list",
            "description": "List notes.",
            "inputSchema": {"type": "object", "properties": {}, "required": []}
        })
    );
    assert_eq!(call(&notes, "list", json!({})).await, text("no notes"));
    assert_eq!(
        call(&notes, "add", json!({"a": 1})).await,
        error("Tool `add` not found on server `notes`")
    );
    assert_eq!(
        call(&notes, "sync_explode", json!({})).await,
        error("tool `sync_explode` panicked: the sync tool exploded")
    );
    let needy = Needy::server();
    let names: Vec<&str> = needy.tools().iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["add"]);
}

#[tokio::test]
async fn missing_state_is_reported_by_check_state_and_by_the_call() {
    let needy = Needy::server();
    assert_eq!(
        needy.check_state().map_err(|e| e.to_string()),
        Err(format!(
            "tool `add` of server `needy` takes State<{}>, but the server has no such state: \
             call .with_state(value) on the server before using it",
            std::any::type_name::<Offset>()
        ))
    );
    assert_eq!(
        call(&needy, "add", json!({})).await,
        error(&format!(
            "tool `add` needs State<{}>, which its server does not have",
            std::any::type_name::<Offset>()
        ))
    );
    let fixed = Needy::server().with_state(Offset { by: 7 });
    assert_eq!(fixed.check_state(), Ok(()));
    assert_eq!(call(&fixed, "add", json!({})).await, text("7"));
    assert!(calc().check_state().is_ok());
}

// ---------------------------------------------------------------------------------------------
// The forms a tool asks for (`elicit::<T>()`) are checked when the server is built.

#[tool_server(name = "shop")]
pub struct Shop;

#[derive(Deserialize, JsonSchema)]
pub struct Address {
    pub street: String,
}

/// Not a form: its field is a struct.
#[derive(Deserialize, JsonSchema)]
pub struct Shipping {
    pub address: Address,
}

/// Ships the order where the user says.
#[tool(server = Shop)]
async fn ship(ctx: ToolContext) -> Result<String, ToolError> {
    let answer = ctx.elicit::<Shipping>("Where to?").await?;
    Ok(answer
        .accepted()
        .map(|form| form.address.street)
        .unwrap_or_default())
}

#[tool_server(name = "kiosk")]
pub struct Kiosk;

/// A flat form.
#[derive(Deserialize, JsonSchema)]
pub struct Confirm {
    pub confirm: bool,
}

/// Asks a flat form, and one of a type declared in its body (which the registration cannot
/// name, so it is checked when asked, as before).
#[tool(server = Kiosk)]
async fn confirm(ctx: ToolContext) -> Result<String, ToolError> {
    #[derive(Deserialize, JsonSchema)]
    struct Note {
        note: String,
    }
    let confirmed = ctx.elicit::<Confirm>("Sure?").await?.accepted();
    let note = ctx.elicit::<Note>("Why?").await?.accepted();
    Ok(format!(
        "{} {}",
        confirmed.is_some_and(|form| form.confirm),
        note.map(|form| form.note).unwrap_or_default()
    ))
}

#[test]
fn a_tool_asking_for_a_nested_form_is_a_server_build_error() {
    let error = Shop::try_server().unwrap_err();
    match &error {
        claude_tools::tools::ServerBuildError::ElicitationForm {
            server,
            tool,
            form,
            reason,
        } => {
            assert_eq!((server.as_str(), tool.as_str()), ("shop", "ship"));
            assert_eq!(form, "Shipping");
            assert!(
                reason.contains("its field `address` is an object"),
                "{reason}"
            );
        }
        other => panic!("expected an elicitation form error, got {other:?}"),
    }
    assert!(
        error.to_string().starts_with(
            "tool `ship` of server `shop` asks for an elicitation form it cannot send: \
             `Shipping` cannot be an elicitation form"
        ),
        "{error}"
    );
    assert!(Kiosk::try_server().is_ok());
}

// The forms a prompt or a resource asks for are checked when the server is built, as a tool's.

#[tool_server(name = "counter")]
pub struct Counter;

/// Asks where to ship before writing the prompt.
#[prompt(server = Counter)]
async fn shipping_note(ctx: ToolContext) -> String {
    match ctx.elicit::<Shipping>("Where to?").await {
        Ok(answer) => answer
            .accepted()
            .map(|form| form.address.street)
            .unwrap_or_default(),
        Err(error) => error.to_string(),
    }
}

#[tool_server(name = "depot")]
pub struct Depot;

/// Asks where to ship before reading the label.
#[resource(server = Depot, uri = "depot://label")]
async fn label(ctx: ToolContext) -> String {
    match ctx.elicit::<Shipping>("Where to?").await {
        Ok(answer) => answer
            .accepted()
            .map(|form| form.address.street)
            .unwrap_or_default(),
        Err(error) => error.to_string(),
    }
}

/// A flat form asked by a prompt and a resource of a server that builds.
#[prompt(server = Kiosk)]
async fn confirm_note(ctx: ToolContext) -> String {
    let confirmed = ctx.elicit::<Confirm>("Sure?").await;
    format!("{}", confirmed.is_ok())
}

#[resource(server = Kiosk, uri = "kiosk://confirmed")]
async fn confirmed(ctx: ToolContext) -> String {
    let confirmed = ctx.elicit::<Confirm>("Sure?").await;
    format!("{}", confirmed.is_ok())
}

#[test]
fn a_prompt_asking_for_a_nested_form_is_a_server_build_error() {
    let error = Counter::try_server().unwrap_err();
    match &error {
        claude_tools::tools::ServerBuildError::PromptElicitationForm {
            server,
            prompt,
            form,
            reason,
        } => {
            assert_eq!(
                (server.as_str(), prompt.as_str()),
                ("counter", "shipping_note")
            );
            assert_eq!(form, "Shipping");
            assert!(
                reason.contains("its field `address` is an object"),
                "{reason}"
            );
        }
        other => panic!("expected a prompt's elicitation form error, got {other:?}"),
    }
    assert!(
        error.to_string().starts_with(
            "prompt `shipping_note` of server `counter` asks for an elicitation form it cannot \
             send: `Shipping` cannot be an elicitation form"
        ),
        "{error}"
    );
}

#[test]
fn a_resource_asking_for_a_nested_form_is_a_server_build_error() {
    let error = Depot::try_server().unwrap_err();
    match &error {
        claude_tools::tools::ServerBuildError::ResourceElicitationForm {
            server,
            uri,
            form,
            reason,
        } => {
            assert_eq!((server.as_str(), uri.as_str()), ("depot", "depot://label"));
            assert_eq!(form, "Shipping");
            assert!(
                reason.contains("its field `address` is an object"),
                "{reason}"
            );
        }
        other => panic!("expected a resource's elicitation form error, got {other:?}"),
    }
    assert!(
        error.to_string().starts_with(
            "resource `depot://label` of server `depot` asks for an elicitation form it cannot \
             send"
        ),
        "{error}"
    );
}
