//! What `#[tool]` sends the model, to the byte: its description made from the doc comment (or
//! the `description` / `full_doc` options), and its input schema in declaration order.
//! (`serde_json::Value` equality ignores key order, so these compare JSON text.)

use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[tool_server(name = "shop")]
pub struct Shop;

#[derive(Deserialize, JsonSchema, Serialize, Default)]
#[serde(rename_all = "lowercase")]
enum Category {
    #[default]
    Books,
    /// Toys and [games](https://example.com/games)
    Toys,
    Electronics,
    /// Plants and tools
    ///
    /// # Examples
    ///
    /// Never sent.
    Garden,
}

/// A price range.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)] // read by the model, not by the tool
struct Range {
    /// The lowest price, in [`Cents`]
    min: u32,
    max: u32,
}

/// Search the [`Shop`]'s products by [text](crate::text).
///
/// Results come best first:
///
/// ```json
/// {"query": "lamp", "limit": 3}
/// ```
///
/// ```
/// # use shop::search_products;
/// let hits = search_products("lamp");
/// ```
///
/// # Examples
///
/// Never sent to the model.
#[tool(server = Shop, read_only)]
async fn search_products(
    /// Words to look for; see [`Category`]
    query: String,
    category: Option<Category>,
    price: Option<Range>,
    in_stock_only: bool,
    limit: u8,
) -> String {
    let _ = (category, price, in_stock_only, limit);
    query
}

/// Where to browse, with a default category.
#[derive(Deserialize, JsonSchema, Serialize)]
#[allow(dead_code)] // read by the model, not by the tool
struct Aisle {
    #[serde(default)]
    category: Category,
}

/// Browse the shop.
#[tool(server = Shop, read_only)]
async fn browse(
    #[arg(default = Category::Books)] first: Category,
    #[serde(default)] second: Category,
    #[arg(default = Some(Category::Toys))] optional: Option<Category>,
    #[serde(default)] several: Vec<Category>,
    #[arg(default = Aisle { category: Category::Garden })] aisle: Aisle,
) {
    let _ = (first, second, optional, several, aisle);
}

/// Overridden by `description`.
#[tool(server = Shop, description = "Set in the attribute, [`kept`] as written.\n\n# Heading kept")]
async fn described() {}

/// The whole doc, [`as`] written.
///
/// # Examples
///
/// Kept with `full_doc`.
#[tool(server = Shop, full_doc)]
async fn whole() {}

fn tool_json(name: &str) -> Value {
    Shop::server()
        .tool(name)
        .expect("the tool exists")
        .def()
        .to_json()
}

#[track_caller]
fn assert_json_text(actual: &Value, expected: &Value) {
    assert_eq!(
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

#[test]
fn a_tool_is_sent_in_declaration_order_with_the_prose_of_its_docs() {
    assert_json_text(
        &tool_json("search_products"),
        &json!({
            "name": "search_products",
            "description": "Search the `Shop`'s products by text.\n\nResults come best first:\n\n```json\n{\"query\": \"lamp\", \"limit\": 3}\n```",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words to look for; see `Category`"},
                    "category": {
                        "type": ["string", "null"],
                        "description": "- toys: Toys and games\n- garden: Plants and tools",
                        "enum": ["books", "toys", "electronics", "garden", null]
                    },
                    "price": {
                        "type": ["object", "null"],
                        "description": "A price range.",
                        "properties": {
                            "min": {"type": "integer", "description": "The lowest price, in `Cents`", "minimum": 0},
                            "max": {"type": "integer", "minimum": 0}
                        },
                        "required": ["min", "max"]
                    },
                    "in_stock_only": {"type": "boolean"},
                    "limit": {"type": "integer", "minimum": 0, "maximum": 255}
                },
                "required": ["query", "in_stock_only", "limit"]
            },
            "annotations": {"readOnlyHint": true},
            "_meta": {"anthropic/alwaysLoad": true}
        }),
    );
}

/// `rename_all = "lowercase"` values of `Category`, as declared.
const DECLARED: [&str; 4] = ["books", "toys", "electronics", "garden"];

#[test]
fn an_enum_keeps_its_declaration_order_in_a_parameter_with_a_default() {
    let schema = &tool_json("browse")["inputSchema"]["properties"];
    for (parameter, values) in [
        (&schema["first"], &schema["first"]["enum"]),
        (&schema["second"], &schema["second"]["enum"]),
        (&schema["several"], &schema["several"]["items"]["enum"]),
        (
            &schema["aisle"],
            &schema["aisle"]["properties"]["category"]["enum"],
        ),
    ] {
        assert_eq!(values, &json!(DECLARED), "{parameter}");
    }
    let mut with_null = json!(DECLARED);
    with_null.as_array_mut().unwrap().push(Value::Null);
    assert_eq!(schema["optional"]["enum"], with_null);
    // The defaults are shown, in their wire form.
    assert_eq!(schema["first"]["default"], "books");
    assert_eq!(schema["optional"]["default"], "toys");
    assert_eq!(schema["aisle"]["default"], json!({"category": "garden"}));
}

#[test]
fn description_is_sent_as_written_and_full_doc_sends_the_whole_doc() {
    assert_eq!(
        tool_json("described")["description"],
        "Set in the attribute, [`kept`] as written.\n\n# Heading kept"
    );
    assert_eq!(
        tool_json("whole")["description"],
        "The whole doc, [`as`] written.\n\n# Examples\n\nKept with `full_doc`."
    );
}
