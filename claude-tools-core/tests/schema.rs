//! The exact JSON Schemas Claude receives, for every kind of type a tool may take or return.

#![allow(dead_code)] // the types exist for their schemas

use std::collections::{BTreeMap, HashMap};

use claude_tools_core::schema::{InputSchemaBuilder, make_claude_safe, output_schema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The input schema of one required parameter `v: T`.
fn param<T: JsonSchema + ?Sized>() -> Value {
    let mut input = InputSchemaBuilder::new();
    input.property::<T>("v", None, true);
    Value::Object(input.finish().expect("a Claude-safe schema"))
}

/// The schema of property `v: T` alone.
fn prop<T: JsonSchema + ?Sized>() -> Value {
    let schema = param::<T>();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["v"]));
    schema["properties"]["v"].clone()
}

/// The input schema of `Input<T>`.
fn whole<T: JsonSchema + ?Sized>() -> Result<Value, String> {
    let mut input = InputSchemaBuilder::new();
    input.flatten::<T>();
    input.finish().map(Value::Object).map_err(|e| e.to_string())
}

fn output<T: JsonSchema + ?Sized>() -> Result<Value, String> {
    output_schema::<T>()
        .map(Value::Object)
        .map_err(|e| e.to_string())
}

/// No `$ref`, `$defs`, `$schema`, `nullable`, non-standard format or boolean subschema anywhere.
fn assert_claude_safe(schema: &Value) {
    fn walk(value: &Value, path: &str) {
        match value {
            Value::Object(object) => {
                for banned in ["$ref", "$defs", "definitions", "$schema", "nullable"] {
                    assert!(!object.contains_key(banned), "{banned} at {path}");
                }
                if let Some(format) = object.get("format") {
                    assert!(
                        ["uuid", "date-time", "date", "email", "uri"]
                            .contains(&format.as_str().unwrap()),
                        "format {format} at {path}"
                    );
                }
                for (key, sub) in object {
                    if key != "additionalProperties" && key != "enum" && key != "default" {
                        assert!(!sub.is_boolean(), "boolean schema at {path}/{key}");
                    }
                    walk(sub, &format!("{path}/{key}"));
                }
            }
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, &format!("{path}/{i}"));
                }
            }
            _ => {}
        }
    }
    walk(schema, "#");
    for combinator in ["oneOf", "anyOf", "allOf"] {
        assert!(schema.get(combinator).is_none(), "root {combinator}");
    }
    assert!(schema.get("title").is_none(), "root title");
}

#[test]
fn integers_keep_their_bounds_and_lose_non_standard_formats() {
    let cases = [
        (
            prop::<i8>(),
            json!({"type": "integer", "minimum": -128, "maximum": 127}),
        ),
        (
            prop::<i16>(),
            json!({"type": "integer", "minimum": -32768, "maximum": 32767}),
        ),
        (prop::<i32>(), json!({"type": "integer"})),
        (prop::<i64>(), json!({"type": "integer"})),
        (prop::<i128>(), json!({"type": "integer"})),
        (prop::<isize>(), json!({"type": "integer"})),
        (
            prop::<u8>(),
            json!({"type": "integer", "minimum": 0, "maximum": 255}),
        ),
        (
            prop::<u16>(),
            json!({"type": "integer", "minimum": 0, "maximum": 65535}),
        ),
        (prop::<u32>(), json!({"type": "integer", "minimum": 0})),
        (prop::<u64>(), json!({"type": "integer", "minimum": 0})),
        (prop::<u128>(), json!({"type": "integer", "minimum": 0})),
        (prop::<usize>(), json!({"type": "integer", "minimum": 0})),
        (
            prop::<std::num::NonZeroU32>(),
            json!({"type": "integer", "minimum": 1}),
        ),
    ];
    for (i, (actual, expected)) in cases.into_iter().enumerate() {
        assert_eq!(actual, expected, "case {i}");
    }
}

#[test]
fn other_primitives() {
    assert_eq!(prop::<f32>(), json!({"type": "number"}));
    assert_eq!(prop::<f64>(), json!({"type": "number"}));
    assert_eq!(prop::<bool>(), json!({"type": "boolean"}));
    assert_eq!(
        prop::<char>(),
        json!({"type": "string", "minLength": 1, "maxLength": 1})
    );
    assert_eq!(prop::<String>(), json!({"type": "string"}));
    assert_eq!(prop::<&str>(), json!({"type": "string"}));
    assert_eq!(prop::<std::path::PathBuf>(), json!({"type": "string"}));
    assert_eq!(prop::<()>(), json!({"type": "null"}));
}

#[test]
fn a_whole_schema_is_an_object_root() {
    let mut input = InputSchemaBuilder::new();
    input
        .property::<String>("title", Some("Ticket title"), true)
        .property::<Option<u32>>("priority", Some("1 is the highest"), false)
        .property::<Vec<String>>("labels", None, false);
    let schema = Value::Object(input.finish().unwrap());
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "title": {"type": "string", "description": "Ticket title"},
                "priority": {"type": ["integer", "null"], "minimum": 0, "description": "1 is the highest"},
                "labels": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["title"]
        })
    );
    assert_claude_safe(&schema);
}

#[test]
fn an_empty_input_is_an_empty_object() {
    assert_eq!(
        Value::Object(InputSchemaBuilder::new().finish().unwrap()),
        json!({"type": "object", "properties": {}, "required": []})
    );
}

#[test]
fn options_vecs_and_maps() {
    assert_eq!(
        prop::<Option<String>>(),
        json!({"type": ["string", "null"]})
    );
    assert_eq!(
        prop::<Option<Option<i32>>>(),
        json!({"type": ["integer", "null"]})
    );
    assert_eq!(
        prop::<Vec<u8>>(),
        json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}})
    );
    assert_eq!(
        prop::<HashMap<String, i32>>(),
        json!({"type": "object", "additionalProperties": {"type": "integer"}})
    );
    assert_eq!(
        prop::<BTreeMap<String, Vec<bool>>>(),
        json!({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "boolean"}}})
    );
    assert_eq!(
        prop::<(i32, String)>(),
        json!({
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "description": "2 items, in this order: integer, string"
        })
    );
}

#[test]
fn serde_json_value_accepts_anything_as_an_empty_schema() {
    assert_eq!(prop::<Value>(), json!({}));
    let mut input = InputSchemaBuilder::new();
    input.property::<Value>("payload", Some("Any JSON"), true);
    assert_eq!(
        Value::Object(input.finish().unwrap())["properties"]["payload"],
        json!({"description": "Any JSON"})
    );
}

/// A point on the board.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Point {
    /// Column, from 0
    x: u16,
    y: Option<f32>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Segment {
    from: Point,
    to: Point,
}

#[test]
fn nested_structs_are_inlined_with_their_docs() {
    let point = json!({
        "type": "object",
        "description": "A point on the board.",
        "properties": {
            "x": {"type": "integer", "minimum": 0, "maximum": 65535, "description": "Column, from 0"},
            "y": {"type": ["number", "null"]}
        },
        "required": ["x"]
    });
    assert_eq!(prop::<Point>(), point);
    assert_eq!(
        prop::<Segment>(),
        json!({
            "type": "object",
            "properties": {"from": point, "to": point},
            "required": ["from", "to"]
        })
    );
    assert_claude_safe(&param::<Segment>());
    // A parameter's own doc replaces the type's.
    let mut input = InputSchemaBuilder::new();
    input.property::<Point>("at", Some("Where to draw"), true);
    assert_eq!(
        input.finish().unwrap()["properties"]["at"]["description"],
        "Where to draw"
    );
    // An optional struct: the null joins the type.
    let mut expected = point.clone();
    expected["type"] = json!(["object", "null"]);
    assert_eq!(prop::<Option<Point>>(), expected);
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Speed {
    Fast,
    Slow,
    VerySlow,
}

/// How much to log.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Level {
    /// Only failures
    Error,
    Warn,
    /// Everything,
    /// line by line
    Debug,
    Info,
}

#[derive(Deserialize, Serialize, JsonSchema)]
enum Shape {
    /// Four equal sides
    Square,
    /// No corners
    Circle,
}

#[test]
fn unit_enums_are_one_enum() {
    assert_eq!(
        prop::<Speed>(),
        json!({"type": "string", "enum": ["fast", "slow", "very_slow"]})
    );
    assert_eq!(
        prop::<Option<Speed>>(),
        json!({"type": ["string", "null"], "enum": ["fast", "slow", "very_slow", null]})
    );
}

#[test]
fn unit_enums_with_variant_docs_fold_the_docs_into_the_description() {
    // Undocumented variants come first (schemars groups them), then the documented ones.
    assert_eq!(
        prop::<Level>(),
        json!({
            "type": "string",
            "enum": ["warn", "info", "error", "debug"],
            "description": "How much to log.\n- error: Only failures\n- debug: Everything, line by line"
        })
    );
    assert_eq!(
        prop::<Shape>(),
        json!({
            "type": "string",
            "enum": ["Square", "Circle"],
            "description": "- Square: Four equal sides\n- Circle: No corners"
        })
    );
    // A parameter's doc replaces the type's doc; the variant docs stay.
    let mut input = InputSchemaBuilder::new();
    input.property::<Level>("level", Some("Verbosity"), true);
    input.property::<Option<Level>>("fallback", Some("Verbosity after"), false);
    input.property::<Option<Shape>>("shape", None, false);
    let schema = Value::Object(input.finish().unwrap());
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "level": {
                    "type": "string",
                    "enum": ["warn", "info", "error", "debug"],
                    "description": "Verbosity\n- error: Only failures\n- debug: Everything, line by line"
                },
                "fallback": {
                    "type": ["string", "null"],
                    "enum": ["warn", "info", "error", "debug", null],
                    "description": "Verbosity after\n- error: Only failures\n- debug: Everything, line by line"
                },
                "shape": {
                    "type": ["string", "null"],
                    "enum": ["Square", "Circle", null],
                    "description": "- Square: Four equal sides\n- Circle: No corners"
                }
            },
            "required": ["level"]
        })
    );
    assert_claude_safe(&schema);
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Action {
    Open { path: String },
    Close,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
enum NumberOrText {
    Number(i32),
    Text(String),
}

#[derive(Deserialize, Serialize, JsonSchema)]
enum Command {
    Stop,
    Go(u8),
    Turn { degrees: i16 },
}

#[test]
fn data_enums_as_fields_keep_their_union() {
    let action = json!({
        "oneOf": [
            {
                "type": "object",
                "properties": {"kind": {"type": "string", "const": "open"}, "path": {"type": "string"}},
                "required": ["kind", "path"]
            },
            {
                "type": "object",
                "properties": {"kind": {"type": "string", "const": "close"}},
                "required": ["kind"]
            }
        ]
    });
    assert_eq!(prop::<Action>(), action);
    let mut optional_action = action.clone();
    optional_action["oneOf"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "null"}));
    assert_eq!(prop::<Option<Action>>(), optional_action);
    assert_eq!(
        prop::<NumberOrText>(),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
    );
    assert_eq!(
        prop::<Option<NumberOrText>>(),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]})
    );
    assert_eq!(
        prop::<Command>(),
        json!({
            "oneOf": [
                {"type": "string", "enum": ["Stop"]},
                {
                    "type": "object",
                    "properties": {"Go": {"type": "integer", "minimum": 0, "maximum": 255}},
                    "required": ["Go"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "properties": {"Turn": {
                        "type": "object",
                        "properties": {"degrees": {"type": "integer", "minimum": -32768, "maximum": 32767}},
                        "required": ["degrees"]
                    }},
                    "required": ["Turn"],
                    "additionalProperties": false
                }
            ]
        })
    );
    assert_claude_safe(&param::<Command>());
}

/// Create a ticket (this doc is the type's, not the tool's: it is dropped).
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct CreateTicket {
    /// Ticket title
    ticket_title: String,
    #[serde(rename = "desc")]
    description: Option<String>,
    #[serde(default)]
    urgent: bool,
    #[serde(default = "default_points")]
    story_points: u8,
    speed: Option<Speed>,
    extra: Value,
    tags: HashMap<String, String>,
}

fn default_points() -> u8 {
    3
}

#[test]
fn a_whole_input_struct_becomes_the_properties() {
    let schema = whole::<CreateTicket>().unwrap();
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "ticketTitle": {"type": "string", "description": "Ticket title"},
                "desc": {"type": ["string", "null"]},
                "urgent": {"type": "boolean", "default": false},
                "storyPoints": {"type": "integer", "minimum": 0, "maximum": 255, "default": 3},
                "speed": {"type": ["string", "null"], "enum": ["fast", "slow", "very_slow", null]},
                "extra": {},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "required": ["ticketTitle", "extra", "tags"]
        })
    );
    assert_claude_safe(&schema);
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Strict {
    a: i32,
}

#[test]
fn a_whole_input_keeps_additional_properties() {
    assert_eq!(
        whole::<Strict>().unwrap(),
        json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "required": ["a"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        whole::<HashMap<String, i32>>().unwrap(),
        json!({
            "type": "object",
            "properties": {},
            "required": [],
            "additionalProperties": {"type": "integer"}
        })
    );
}

#[test]
fn a_whole_input_next_to_named_parameters() {
    let mut input = InputSchemaBuilder::new();
    input.flatten::<Strict>();
    input.property::<bool>("dry_run", None, false);
    assert_eq!(
        input.finish().unwrap()["properties"],
        json!({"a": {"type": "integer"}, "dry_run": {"type": "boolean"}})
    );
    let mut input = InputSchemaBuilder::new();
    input.flatten::<Strict>();
    input.property::<bool>("a", None, false);
    assert_eq!(
        input.finish().unwrap_err().to_string(),
        "two parameters are called `a`: rename one (or its #[serde(rename)])"
    );
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Formats {
    #[schemars(extend("format" = "uuid"))]
    id: String,
    #[schemars(extend("format" = "date-time"))]
    at: String,
    #[schemars(extend("format" = "email"))]
    email: String,
    #[schemars(extend("format" = "int64"))]
    big: i64,
    ratio: f64,
}

#[test]
fn standard_formats_stay_and_numeric_ones_go() {
    assert_eq!(
        whole::<Formats>().unwrap()["properties"],
        json!({
            "id": {"type": "string", "format": "uuid"},
            "at": {"type": "string", "format": "date-time"},
            "email": {"type": "string", "format": "email"},
            "big": {"type": "integer"},
            "ratio": {"type": "number"}
        })
    );
}

#[test]
fn make_claude_safe_rewrites_foreign_schemas() {
    let mut schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "a": {"type": "integer", "format": "uint32", "nullable": true},
            "b": true,
            "c": false,
            "d": {"type": "array", "items": {"type": "number", "format": "double"}},
            "e": {"type": "object", "additionalProperties": false}
        }
    });
    make_claude_safe(&mut schema);
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {},
                "c": {"not": {}},
                "d": {"type": "array", "items": {"type": "number"}},
                "e": {"type": "object", "additionalProperties": false}
            }
        })
    );
}

#[test]
fn make_claude_safe_folds_optional_documented_enums() {
    let mut schema = json!({
        "description": "Pick one",
        "anyOf": [
            {"description": "The type's doc", "oneOf": [
                {"type": "string", "enum": ["b"]},
                {"type": "string", "const": "a", "description": "First\n\n  letter"}
            ]},
            {"type": "null"}
        ]
    });
    make_claude_safe(&mut schema);
    assert_eq!(
        schema,
        json!({
            "type": ["string", "null"],
            "enum": ["b", "a", null],
            "description": "Pick one\n- a: First letter"
        })
    );
    // A oneOf that is not a unit enum is left alone (the null joins it).
    let mut schema =
        json!({"anyOf": [{"oneOf": [{"type": "object"}, {"const": "x"}]}, {"type": "null"}]});
    make_claude_safe(&mut schema);
    assert_eq!(
        schema,
        json!({"oneOf": [{"type": "object"}, {"const": "x"}, {"type": "null"}]})
    );
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Forest {
    trees: Vec<Tree>,
}

#[test]
fn recursive_types_are_errors_naming_the_type() {
    let recursive = "`Tree` is recursive (it contains itself), so its schema cannot be inlined \
                     as Claude needs: bound the nesting with a non-recursive type, or take that \
                     part as serde_json::Value";
    let mut input = InputSchemaBuilder::new();
    input.property::<Forest>("forest", None, true);
    assert_eq!(
        input.finish().unwrap_err().to_string(),
        format!("parameter `forest`: {recursive}")
    );
    assert_eq!(whole::<Tree>().unwrap_err(), recursive);
    assert_eq!(whole::<Forest>().unwrap_err(), recursive);
    assert_eq!(output::<Tree>().unwrap_err(), recursive);
}

#[test]
fn enums_and_non_objects_as_the_whole_input_are_errors() {
    assert_eq!(
        whole::<Action>().unwrap_err(),
        "`Action` has a root `oneOf` (it is an enum, or has a #[serde(flatten)] enum field), \
         which the Anthropic API refuses as a tool input: take a struct as the input and put the \
         enum in one of its fields"
    );
    assert_eq!(
        whole::<NumberOrText>().unwrap_err(),
        "`NumberOrText` has a root `anyOf` (it is an enum, or has a #[serde(flatten)] enum \
         field), which the Anthropic API refuses as a tool input: take a struct as the input and \
         put the enum in one of its fields"
    );
    assert_eq!(
        whole::<Speed>().unwrap_err(),
        "`Speed` is not a JSON object, but a tool's whole input must be one: take a struct as \
         the input (with `Speed` as one of its fields)"
    );
    assert_eq!(
        whole::<Vec<String>>().unwrap_err(),
        "`Vec<String>` is not a JSON object, but a tool's whole input must be one: take a struct \
         as the input (with `Vec<String>` as one of its fields)"
    );
    assert_eq!(
        whole::<Value>().unwrap_err(),
        "`Value` accepts any JSON value, but a tool's whole input must be a struct: derive \
         Deserialize and JsonSchema on a struct and take it as Input<YourStruct>"
    );
}

#[derive(Serialize, JsonSchema)]
struct Report {
    /// Rows found
    count: u64,
    note: Option<String>,
    level: Level,
}

#[test]
fn output_schemas_describe_what_serde_writes() {
    let schema = output::<Report>().unwrap();
    // `Option` fields are always written (as null when None), so they are required.
    assert_eq!(
        schema,
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": 0, "description": "Rows found"},
                "note": {"type": ["string", "null"]},
                "level": {
                    "type": "string",
                    "enum": ["warn", "info", "error", "debug"],
                    "description": "How much to log.\n- error: Only failures\n- debug: Everything, line by line"
                }
            },
            "required": ["count", "note", "level"]
        })
    );
    assert_claude_safe(&schema);
    assert_eq!(
        output::<HashMap<String, u8>>().unwrap(),
        json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 255}})
    );
    assert_eq!(
        output::<serde_json::Map<String, Value>>().unwrap(),
        json!({"type": "object", "additionalProperties": true})
    );
    // An internally tagged enum always writes an object.
    let action = output::<Action>().unwrap();
    assert_eq!(action["type"], "object");
    assert_eq!(action["oneOf"].as_array().unwrap().len(), 2);
}

#[test]
fn non_object_outputs_are_errors() {
    let expected = |name: &str| {
        format!(
            "`{name}` does not serialize to a JSON object, but a Json<T> result must (MCP \
             structuredContent is an object): wrap the value in a struct, or use \
             serde_json::Map<String, Value> for free-form JSON"
        )
    };
    assert_eq!(output::<String>().unwrap_err(), expected("String"));
    assert_eq!(output::<Vec<i32>>().unwrap_err(), expected("Vec<i32>"));
    assert_eq!(output::<Value>().unwrap_err(), expected("Value"));
    assert_eq!(output::<Speed>().unwrap_err(), expected("Speed"));
    assert_eq!(output::<Command>().unwrap_err(), expected("Command"));
    assert_eq!(
        output::<Option<Report>>().unwrap_err(),
        expected("Option<Report>")
    );
}
