//! Schemas given as written (`ToolDefBuilder::input_schema_as_written`) are listed exactly as
//! written; schemas derived from Rust types stay inlined, and a hand-written `JsonSchema` impl
//! with a `$ref` of its own is inlined rather than called recursive.

use std::borrow::Cow;

use claude_tools_core::mcp::McpRouter;
use claude_tools_core::schema::InputSchemaBuilder;
use claude_tools_core::tool::{ToolDefBuilder, ToolServer};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Value, json};

/// The conformance suite's `json-schema-2020-12` fixture.
fn fixture() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

fn server_with(def: ToolDefBuilder) -> ToolServer {
    ToolServer::new("schemas", "1.0.0")
        .with_tool(def, |mut call| async move {
            let name = call.take_argument("name").unwrap_or_default();
            format!("hello {}", name.as_str().unwrap_or("?"))
        })
        .unwrap()
}

#[tokio::test]
async fn a_schema_given_as_written_is_listed_byte_for_byte_and_served() {
    let mut def = ToolDefBuilder::new("json_schema_2020_12_tool");
    def.description("Tool with JSON Schema 2020-12 features")
        .input_schema_as_written(fixture())
        .output_schema_as_written(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"greeting": {"$ref": "https://example.com/greeting.json"}}
        }));
    let router = McpRouter::new(server_with(def));
    let list = router
        .handle_json(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await
        .unwrap();
    let tool = &list["result"]["tools"][0];
    assert_eq!(tool["inputSchema"], fixture());
    // Key order too: the schema is the caller's text, not a rewrite of it.
    assert_eq!(
        serde_json::to_string(&tool["inputSchema"]).unwrap(),
        serde_json::to_string(&fixture()).unwrap()
    );
    // A network `$ref` is kept (and never fetched: this test runs with no network).
    assert_eq!(
        tool["outputSchema"]["properties"]["greeting"]["$ref"],
        "https://example.com/greeting.json"
    );

    let call = router
        .handle_json(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "json_schema_2020_12_tool", "arguments": {"name": "Ada", "email": "a@b"}}}))
        .await
        .unwrap();
    assert_eq!(call["result"]["content"][0]["text"], "hello Ada");
    // The written `additionalProperties: false` refuses an argument that is not a property.
    let extra = router
        .handle_json(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "json_schema_2020_12_tool", "arguments": {"nickname": "A"}}}))
        .await
        .unwrap();
    assert_eq!(extra["result"]["isError"], true, "{extra}");
}

#[test]
fn a_written_schema_must_be_an_object_schema_at_its_root() {
    let refused = |schema: Value| {
        let mut def = ToolDefBuilder::new("t");
        def.input_schema_as_written(schema);
        def.build().unwrap_err().to_string()
    };
    let array = refused(json!({"type": "array", "items": {"type": "string"}}));
    assert_eq!(
        array,
        "a tool's input schema must be a JSON object with \"type\": \"object\" at its root \
         (MCP), but the one given as written is an object schema of \"type\": \"array\""
    );
    assert!(refused(json!(true)).ends_with("is a boolean schema"));
    assert!(refused(json!([1])).ends_with("is a JSON array"));
    assert!(refused(json!({"oneOf": [{"type": "object"}]})).ends_with("without a \"type\""));

    let mut output = ToolDefBuilder::new("t");
    output.output_schema_as_written(json!("object"));
    let error = output.build().unwrap_err().to_string();
    assert!(
        error.starts_with("a tool's output schema must be"),
        "{error}"
    );

    // Both ways at once is a mistake, said as such.
    let mut both = ToolDefBuilder::new("t");
    both.input_schema_as_written(fixture());
    both.input().property::<String>("name", None, true);
    let error = both.build().unwrap_err().to_string();
    assert!(error.contains("use one of the two"), "{error}");
}

/// A type whose hand-written `JsonSchema` brings its own `$defs` and `$ref`.
struct Contact;

impl JsonSchema for Contact {
    fn schema_name() -> Cow<'static, str> {
        "Contact".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"city": {"type": "string"}}}},
            "properties": {"home": {"$ref": "#/$defs/address", "description": "Where"}},
            "required": ["home"]
        })
    }
}

#[test]
fn a_derived_schema_inlines_a_hand_written_impls_refs_instead_of_calling_it_recursive() {
    let inlined = json!({
        "type": "object",
        "description": "Where",
        "properties": {"city": {"type": "string"}}
    });
    let mut whole = InputSchemaBuilder::new();
    whole.flatten::<Contact>();
    assert_eq!(
        Value::Object(whole.finish().unwrap()),
        json!({"type": "object", "properties": {"home": inlined}, "required": ["home"]})
    );
    let mut parameter = InputSchemaBuilder::new();
    parameter.property::<Contact>("contact", None, true);
    let schema = Value::Object(parameter.finish().unwrap());
    assert_eq!(
        schema["properties"]["contact"]["properties"]["home"],
        inlined
    );
    assert!(!schema.to_string().contains("$defs"), "{schema}");
}

/// A hand-written impl whose `$ref` points outside the schema.
struct Remote;

impl JsonSchema for Remote {
    fn schema_name() -> Cow<'static, str> {
        "Remote".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}})
    }
}

#[test]
fn a_derived_schema_with_a_ref_it_cannot_inline_says_so() {
    let mut whole = InputSchemaBuilder::new();
    whole.flatten::<Remote>();
    let error = whole.finish().unwrap_err().to_string();
    assert!(!error.contains("recursive"), "{error}");
    assert!(
        error.contains("`$ref` to https://example.com/a.json")
            && error.contains("input_schema_as_written"),
        "{error}"
    );
}
