//! What the model sees, to the byte: declaration order (properties, fields, enum values,
//! `Json<T>` text), descriptions made from doc comments, and the schemars quirks made harmless.
//!
//! `serde_json::Value` equality ignores the order of object keys, so every assertion here
//! compares JSON text.

#![allow(dead_code)] // the types exist for their schemas

use std::collections::BTreeMap;

use claude_tools_core::schema::{InputSchemaBuilder, make_claude_safe, output_schema};
use claude_tools_core::tool::{IntoToolResult, Json};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Asserts that `actual` is `expected` with the same key order (pretty text, for a readable diff).
#[track_caller]
fn assert_json_text(actual: &Value, expected: &Value) {
    assert_eq!(
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

/// The input schema of one required parameter `v: T`, as `#[tool]` builds it.
fn prop<T: JsonSchema + serde::de::DeserializeOwned>() -> Value {
    let mut input = InputSchemaBuilder::new();
    input.variant_order_of::<T>().property::<T>("v", None, true);
    Value::Object(input.finish().unwrap())["properties"]["v"].clone()
}

// ---------------------------------------------------------------------------------------------
// Declaration order.

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Category {
    Books,
    /// Toys and games
    Toys,
    Electronics,
    /// Plants and tools
    Garden,
    Music,
}

#[test]
fn parameters_are_listed_in_the_order_they_are_added() {
    let mut input = InputSchemaBuilder::new();
    input
        .property::<String>("query", Some("What to look for"), true)
        .property::<Option<String>>("category", None, false)
        .property::<Option<f64>>("max_price_eur", None, false)
        .property::<bool>("in_stock_only", None, true)
        .property::<u8>("limit", None, true)
        .property::<Vec<String>>("tags", None, true);
    assert_json_text(
        &Value::Object(input.finish().unwrap()),
        &json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "category": {"type": ["string", "null"]},
                "max_price_eur": {"type": ["number", "null"]},
                "in_stock_only": {"type": "boolean"},
                "limit": {"type": "integer", "minimum": 0, "maximum": 255},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["query", "in_stock_only", "limit", "tags"]
        }),
    );
}

/// Outer dimensions.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Dimensions {
    width: u16,
    height: u16,
    depth: u16,
}

#[derive(Deserialize, Serialize, JsonSchema)]
struct Product {
    name: String,
    price: f64,
    dimensions: Dimensions,
    category: Category,
    id: u32,
}

#[test]
fn struct_fields_keep_declaration_order_at_every_depth() {
    let dimensions = json!({
        "type": "object",
        "description": "Outer dimensions.",
        "properties": {
            "width": {"type": "integer", "minimum": 0, "maximum": 65535},
            "height": {"type": "integer", "minimum": 0, "maximum": 65535},
            "depth": {"type": "integer", "minimum": 0, "maximum": 65535}
        },
        "required": ["width", "height", "depth"]
    });
    let category = json!({
        "type": "string",
        "description": "- toys: Toys and games\n- garden: Plants and tools",
        "enum": ["books", "toys", "electronics", "garden", "music"]
    });
    // The whole input (`Input<Product>`).
    let mut input = InputSchemaBuilder::new();
    input.variant_order_of::<Product>().flatten::<Product>();
    assert_json_text(
        &Value::Object(input.finish().unwrap()),
        &json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "price": {"type": "number"},
                "dimensions": dimensions,
                "category": category,
                "id": {"type": "integer", "minimum": 0}
            },
            "required": ["name", "price", "dimensions", "category", "id"]
        }),
    );
    // A parameter of that type.
    assert_json_text(
        &prop::<Product>(),
        &json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "price": {"type": "number"},
                "dimensions": dimensions,
                "category": category,
                "id": {"type": "integer", "minimum": 0}
            },
            "required": ["name", "price", "dimensions", "category", "id"]
        }),
    );
}

#[test]
fn enum_values_keep_declaration_order_when_only_some_variants_are_documented() {
    let docs = "- toys: Toys and games\n- garden: Plants and tools";
    assert_json_text(
        &prop::<Category>(),
        &json!({
            "type": "string",
            "description": docs,
            "enum": ["books", "toys", "electronics", "garden", "music"]
        }),
    );
    assert_json_text(
        &prop::<Option<Category>>(),
        &json!({
            "type": ["string", "null"],
            "description": docs,
            "enum": ["books", "toys", "electronics", "garden", "music", null]
        }),
    );
    assert_json_text(
        &prop::<Vec<Category>>(),
        &json!({
            "type": "array",
            "items": {
                "type": "string",
                "description": docs,
                "enum": ["books", "toys", "electronics", "garden", "music"]
            }
        }),
    );
    assert_json_text(
        &prop::<BTreeMap<String, Option<Category>>>(),
        &json!({
            "type": "object",
            "additionalProperties": {
                "type": ["string", "null"],
                "description": docs,
                "enum": ["books", "toys", "electronics", "garden", "music", null]
            }
        }),
    );
    // Without the type's Deserialize impl (a schema built by hand), schemars' grouping stays:
    // undocumented variants first.
    let mut input = InputSchemaBuilder::new();
    input.property::<Category>("v", None, true);
    assert_eq!(
        Value::Object(input.finish().unwrap())["properties"]["v"]["enum"],
        json!(["books", "electronics", "music", "toys", "garden"])
    );
}

/// A code that rejects the empty placeholder the order probe feeds it.
#[derive(Deserialize, JsonSchema)]
#[serde(try_from = "String")]
struct Code(String);

impl TryFrom<String> for Code {
    type Error = &'static str;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        if value.is_empty() {
            Err("empty code")
        } else {
            Ok(Code(value))
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    /// Whenever
    Low,
    Normal,
    /// Now
    Urgent,
}

#[derive(Deserialize, JsonSchema)]
struct Ticket {
    code: Code,
    first: Category,
    nested: Vec<Inner>,
}

#[derive(Deserialize, JsonSchema)]
struct Inner {
    code: Code,
    priority: Option<Priority>,
}

#[test]
fn enums_after_a_field_that_rejects_placeholders_are_still_ordered() {
    let schema = prop::<Ticket>();
    assert_eq!(
        schema["properties"]["first"]["enum"],
        json!(["books", "toys", "electronics", "garden", "music"])
    );
    assert_eq!(
        schema["properties"]["nested"]["items"]["properties"]["priority"]["enum"],
        json!(["low", "normal", "urgent", null])
    );
}

#[derive(Serialize, JsonSchema)]
struct Found {
    /// Best match first
    zeta: Vec<String>,
    alpha: u32,
    middle: Dimensions,
}

#[test]
fn json_results_and_output_schemas_keep_declaration_order() {
    let result = Json(Found {
        zeta: vec!["b".into(), "a".into()],
        alpha: 2,
        middle: Dimensions {
            width: 3,
            height: 2,
            depth: 1,
        },
    })
    .into_tool_result();
    let text = r#"{"zeta":["b","a"],"alpha":2,"middle":{"width":3,"height":2,"depth":1}}"#;
    assert_eq!(
        serde_json::to_string(&result.to_json()).unwrap(),
        format!(
            r#"{{"content":[{{"type":"text","text":{}}}],"structuredContent":{text},"isError":false}}"#,
            Value::String(text.into())
        )
    );
    assert_json_text(
        &Value::Object(output_schema::<Found>().unwrap()),
        &json!({
            "type": "object",
            "properties": {
                "zeta": {"type": "array", "description": "Best match first", "items": {"type": "string"}},
                "alpha": {"type": "integer", "minimum": 0},
                "middle": {
                    "type": "object",
                    "description": "Outer dimensions.",
                    "properties": {
                        "width": {"type": "integer", "minimum": 0, "maximum": 65535},
                        "height": {"type": "integer", "minimum": 0, "maximum": 65535},
                        "depth": {"type": "integer", "minimum": 0, "maximum": 65535}
                    },
                    "required": ["width", "height", "depth"]
                }
            },
            "required": ["zeta", "alpha", "middle"]
        }),
    );
}

// ---------------------------------------------------------------------------------------------
// Descriptions.

/// A line item of an [`Order`].
///
/// Links to [the docs](https://docs.rs) become text.
///
/// ```
/// # use my_crate::Line;
/// let line = Line::default();
/// ```
///
/// # Examples
///
/// Never sent.
#[derive(Deserialize, Serialize, JsonSchema)]
struct Line {
    /// The [`Sku`] of the product.
    ///
    /// # Panics
    ///
    /// Never sent either.
    sku: String,
    /// How to ship it.
    shipping: Shipping,
}

#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Shipping {
    /// By [`Carrier::Post`].
    ///
    /// # Errors
    /// Dropped.
    Post,
    Pickup,
}

#[test]
fn doc_comments_of_fields_types_and_variants_become_prose() {
    let line = json!({
        "type": "object",
        "description": "A line item of an `Order`.\n\nLinks to the docs become text.",
        "properties": {
            "sku": {"type": "string", "description": "The `Sku` of the product."},
            "shipping": {
                "type": "string",
                "description": "How to ship it.\n- post: By `Carrier::Post`.",
                "enum": ["post", "pickup"]
            }
        },
        "required": ["sku", "shipping"]
    });
    assert_json_text(&prop::<Line>(), &line);
    // An output schema has only `T: Serialize` to go by, so a partly documented enum keeps
    // schemars' grouping there (the model never reads `outputSchema`: the CLI sends it only
    // `input_schema`; it reads the `Json<T>` text, which is in declaration order).
    let mut output = line.clone();
    output["properties"]["shipping"]["enum"] = json!(["pickup", "post"]);
    assert_json_text(&Value::Object(output_schema::<Line>().unwrap()), &output);
    // A parameter's own doc follows the same rule.
    let mut input = InputSchemaBuilder::new();
    input.property::<u8>(
        "count",
        Some("How many [`Line`]s.\n\n# Examples\n\n`count: 2`"),
        true,
    );
    assert_json_text(
        &Value::Object(input.finish().unwrap())["properties"]["count"],
        &json!({"type": "integer", "description": "How many `Line`s.", "minimum": 0, "maximum": 255}),
    );
    // A description that was only a section is left out.
    let mut input = InputSchemaBuilder::new();
    input.property::<u8>("count", Some("# Examples\n\n`count: 2`"), true);
    assert_json_text(
        &Value::Object(input.finish().unwrap())["properties"]["count"],
        &json!({"type": "integer", "minimum": 0, "maximum": 255}),
    );
}

#[test]
fn make_claude_safe_keeps_hand_written_descriptions() {
    let mut schema = json!({
        "type": "object",
        "description": "See [`Store`].\n\n# Notes\nkept",
        "properties": {}
    });
    make_claude_safe(&mut schema);
    assert_eq!(schema["description"], "See [`Store`].\n\n# Notes\nkept");
}

// ---------------------------------------------------------------------------------------------
// schemars quirks.

#[derive(Deserialize, JsonSchema)]
struct Pair(u8, String);

#[test]
fn tuples_become_items_with_their_shape_in_the_description() {
    assert_json_text(
        &prop::<(i32, String)>(),
        &json!({
            "type": "array",
            "description": "2 items, in this order: integer, string",
            "minItems": 2,
            "maxItems": 2,
            "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}
        }),
    );
    // Elements of one schema: that schema.
    assert_json_text(
        &prop::<(f64, f64, f64)>(),
        &json!({
            "type": "array",
            "description": "3 items, in this order: number, number, number",
            "minItems": 3,
            "maxItems": 3,
            "items": {"type": "number"}
        }),
    );
    // A documented parameter, an optional tuple, an enum element, a tuple struct.
    let mut input = InputSchemaBuilder::new();
    input
        .variant_order_of::<Option<(Shipping, bool)>>()
        .property::<Option<(Shipping, bool)>>("pair", Some("Shipping and gift wrap"), false)
        .property::<Pair>("tuple_struct", None, true);
    assert_json_text(
        &Value::Object(input.finish().unwrap()),
        &json!({
            "type": "object",
            "properties": {
                "pair": {
                    "type": ["array", "null"],
                    "description": "Shipping and gift wrap\n2 items, in this order: \"post\" | \"pickup\", boolean",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": {
                        "anyOf": [
                            {
                                "type": "string",
                                "description": "- post: By `Carrier::Post`.",
                                "enum": ["post", "pickup"]
                            },
                            {"type": "boolean"}
                        ]
                    }
                },
                "tuple_struct": {
                    "type": "array",
                    "description": "2 items, in this order: integer, string",
                    "minItems": 2,
                    "maxItems": 2,
                    "items": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 255}, {"type": "string"}]}
                }
            },
            "required": ["tuple_struct"]
        }),
    );
}

/// Paging of the results (only about the two paging fields).
#[derive(Deserialize, JsonSchema)]
struct Paging {
    page: u32,
    per_page: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Search {
    text: String,
    #[serde(flatten)]
    paging: Paging,
}

/// A search with paging.
#[derive(Deserialize, JsonSchema)]
struct DocumentedSearch {
    text: String,
    #[serde(flatten)]
    paging: Paging,
}

#[derive(Deserialize, JsonSchema)]
struct Request {
    /// What to search, and which page
    documented_field: Search,
    documented_type: DocumentedSearch,
    neither: Search,
}

#[test]
fn a_flattened_structs_doc_never_overrides_a_field_or_container_doc() {
    let properties = json!({
        "text": {"type": "string"},
        "page": {"type": "integer", "minimum": 0},
        "per_page": {"type": "integer", "minimum": 0}
    });
    let required = json!(["text", "page", "per_page"]);
    let schema = prop::<Request>();
    // The field's own doc wins.
    assert_json_text(
        &schema["properties"]["documented_field"],
        &json!({
            "type": "object",
            "description": "What to search, and which page",
            "properties": properties,
            "required": required
        }),
    );
    // The containing struct's doc wins.
    assert_eq!(
        schema["properties"]["documented_type"]["description"],
        "A search with paging."
    );
    // With neither, schemars lends the container the flattened struct's doc (see the schema
    // module docs: nothing in the schema tells it apart from the container's own).
    assert_eq!(
        schema["properties"]["neither"]["description"],
        "Paging of the results (only about the two paging fields)."
    );
    // A parameter's doc wins, and a whole input sends no container description at all.
    let mut input = InputSchemaBuilder::new();
    input.property::<Search>("search", Some("The search"), true);
    assert_eq!(
        Value::Object(input.finish().unwrap())["properties"]["search"]["description"],
        "The search"
    );
    let mut input = InputSchemaBuilder::new();
    input.flatten::<Search>();
    assert_json_text(
        &Value::Object(input.finish().unwrap()),
        &json!({"type": "object", "properties": properties, "required": required}),
    );
}

/// Recurses through two fields: walking every path would take 2^depth steps.
#[derive(Deserialize, JsonSchema)]
struct Tree {
    priority: Priority,
    left: Option<Box<Tree>>,
    right: Option<Box<Tree>>,
}

#[test]
fn a_type_recursing_through_two_fields_is_walked_in_bounded_time() {
    let mut input = InputSchemaBuilder::new();
    input
        .variant_order_of::<Tree>()
        .property::<Tree>("tree", None, true);
    // Recursive, so an error, but reached at once (not after 2^32 probe steps).
    assert_eq!(
        input.finish().unwrap_err().message(),
        "parameter `tree`: `Tree` is recursive (it contains itself), so its schema cannot be \
         inlined as Claude needs: bound the nesting with a non-recursive type, or take that part \
         as serde_json::Value"
    );
}
