//! The arguments of a `#[tool]`: per-parameter defaults and renames, opt-in rejection of unknown
//! arguments (with `additionalProperties: false`), and every argument problem of a call reported
//! at once. Exact schemas and exact results, with no CLI involved.

use claude_tools::prelude::*;
use claude_tools::tools::{ToolCall, ToolDefBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Defaults and renames.

#[tool_server(name = "shop")]
pub struct Shop;

fn ten() -> u32 {
    10
}

mod defaults {
    pub fn page() -> u32 {
        1
    }
}

/// How results are ranked. Deserializable, but not `Serialize`: its default cannot be shown.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Ranking {
    #[default]
    Relevance,
    Price,
}

/// Search the catalogue.
#[tool(server = Shop, read_only)]
#[allow(clippy::too_many_arguments)]
async fn search(
    /// What to look for
    query: String,
    /// At most this many hits
    #[serde(default = "ten")]
    limit: u32,
    /// The page
    #[serde(default = "defaults::page")]
    page: u32,
    /// The category
    #[arg(default = "books".to_string())]
    category: String,
    /// Tags to match
    #[serde(default)]
    tags: Vec<String>,
    /// Only items in stock
    #[arg(default)]
    in_stock_only: bool,
    /// The highest price, in euros
    #[serde(rename = "maxPriceEur")]
    max_price_eur: Option<f64>,
    /// How to rank
    #[arg(default)]
    ranking: Ranking,
    /// Results per row
    #[arg(default = Some(3), rename = "perRow")]
    per_row: Option<u32>,
) -> String {
    format!(
        "{query} limit={limit} page={page} category={category} tags={tags:?} \
         in_stock_only={in_stock_only} max_price_eur={max_price_eur:?} ranking={ranking:?} \
         per_row={per_row:?}"
    )
}

/// Look an item up by its id.
#[tool(server = Shop)]
fn item(
    /// The item's id
    #[serde(rename = "itemId")]
    #[allow(unused_variables)]
    item_id: u64,
) -> String {
    format!("item {item_id}")
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

fn input_schema(server: &ToolServer, tool: &str) -> Value {
    Value::Object(server.tool(tool).unwrap().def().input_schema.clone())
}

#[test]
fn defaults_are_in_the_schema_and_not_required() {
    assert_eq!(
        input_schema(&Shop::server(), "search"),
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "limit": {
                    "type": "integer", "minimum": 0,
                    "description": "At most this many hits", "default": 10
                },
                "page": {
                    "type": "integer", "minimum": 0,
                    "description": "The page", "default": 1
                },
                "category": {"type": "string", "description": "The category", "default": "books"},
                "tags": {
                    "type": "array", "items": {"type": "string"},
                    "description": "Tags to match", "default": []
                },
                "in_stock_only": {
                    "type": "boolean", "description": "Only items in stock", "default": false
                },
                "maxPriceEur": {
                    "type": ["number", "null"],
                    "description": "The highest price, in euros"
                },
                // No "default": `Ranking` does not implement Serialize.
                "ranking": {
                    "type": "string", "enum": ["relevance", "price"], "description": "How to rank"
                },
                "perRow": {
                    "type": ["integer", "null"], "minimum": 0,
                    "description": "Results per row", "default": 3
                }
            },
            "required": ["query"]
        })
    );
    assert_eq!(
        input_schema(&Shop::server(), "item"),
        json!({
            "type": "object",
            "properties": {
                "itemId": {
                    "type": "integer", "minimum": 0,
                    "description": "The item's id"
                }
            },
            "required": ["itemId"]
        })
    );
}

#[tokio::test]
async fn absent_arguments_take_their_defaults() {
    assert_eq!(
        call(&Shop::server(), "search", json!({"query": "dune"})).await,
        text(
            "dune limit=10 page=1 category=books tags=[] in_stock_only=false max_price_eur=None \
             ranking=Relevance per_row=Some(3)"
        )
    );
}

#[tokio::test]
async fn given_arguments_replace_the_defaults() {
    let arguments = json!({
        "query": "dune", "limit": 2, "page": 4, "category": "films", "tags": ["sf"],
        "in_stock_only": true, "maxPriceEur": 9.5, "ranking": "price", "perRow": null
    });
    assert_eq!(
        call(&Shop::server(), "search", arguments).await,
        text(
            "dune limit=2 page=4 category=films tags=[\"sf\"] in_stock_only=true \
             max_price_eur=Some(9.5) ranking=Price per_row=None"
        )
    );
}

#[tokio::test]
async fn a_renamed_argument_goes_by_its_wire_name_only() {
    let server = Shop::server();
    assert_eq!(
        call(&server, "item", json!({"itemId": 7})).await,
        text("item 7")
    );
    // The Rust name is a mistake, not an alias: the model is told the name it meant.
    assert_eq!(
        call(&server, "item", json!({"item_id": 7})).await,
        error(
            "Invalid arguments for tool `item` (2 problems):\n\
             - argument `itemId`: missing required argument\n\
             - unknown argument `item_id`: did you mean `itemId`?"
        )
    );
    assert_eq!(
        call(&server, "item", json!({"itemId": "seven"})).await,
        error(
            "Invalid arguments for tool `item`: argument `itemId`: invalid type: string \"seven\", \
             expected u64"
        )
    );
    // The Rust name of a renamed optional argument is not ignored either, though the tool is
    // lenient about unknown arguments: the filter would silently be dropped.
    assert_eq!(
        call(
            &server,
            "search",
            json!({"query": "q", "max_price_eur": 1.0, "per_row": 2, "colour": "red"})
        )
        .await,
        error(
            "Invalid arguments for tool `search` (2 problems):\n\
             - unknown argument `max_price_eur`: did you mean `maxPriceEur`?\n\
             - unknown argument `per_row`: did you mean `perRow`?"
        )
    );
    // Sent with the wire name as well: still a mistake to point out.
    assert_eq!(
        call(
            &server,
            "search",
            json!({"query": "q", "maxPriceEur": 1.0, "max_price_eur": 1.0})
        )
        .await,
        error(
            "Invalid arguments for tool `search`: unknown argument `max_price_eur`: did you mean \
             `maxPriceEur`?"
        )
    );
}

/// What a whole-input struct renames; claude-tools' derive tells the Rust names (schemars' own,
/// imported in this file as `JsonSchema`, does not).
#[derive(Deserialize, claude_tools::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Filter {
    /// Words to look for
    pub query: String,
    /// The highest price, in euros
    pub max_price_eur: Option<f64>,
    /// The currency
    #[serde(rename = "cur", default)]
    pub currency: Option<String>,
    /// Accepted under its Rust name too
    #[serde(alias = "in_stock")]
    pub in_stock: Option<bool>,
}

/// Search with a filter.
#[tool(server = Shop, read_only)]
async fn filtered(Input(filter): Input<Filter>) -> String {
    format!(
        "{} under {:?} {:?} in stock {:?}",
        filter.query, filter.max_price_eur, filter.currency, filter.in_stock
    )
}

#[tokio::test]
async fn the_rust_names_of_a_whole_input_structs_renamed_fields_are_refused() {
    let server = Shop::server();
    assert_eq!(
        input_schema(&server, "filtered")["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["query", "maxPriceEur", "cur", "inStock"],
        "the schema carries nothing more"
    );
    assert_eq!(
        call(
            &server,
            "filtered",
            json!({"query": "lamp", "max_price_eur": 30, "currency": "EUR", "in_stock": true})
        )
        .await,
        error(
            "Invalid arguments for tool `filtered` (2 problems):\n\
             - unknown argument `max_price_eur`: did you mean `maxPriceEur`?\n\
             - unknown argument `currency`: did you mean `cur`?"
        )
    );
    assert_eq!(
        call(
            &server,
            "filtered",
            json!({"query": "lamp", "maxPriceEur": 30, "cur": "EUR", "in_stock": true})
        )
        .await,
        text("lamp under Some(30.0) Some(\"EUR\") in stock Some(true)")
    );
    // A run-time tool's arguments type is read the same way.
    let runtime = ToolServer::new("shop", "1.0.0")
        .with_typed_tool(
            ToolDefBuilder::new("filtered").description("Search with a filter"),
            |filter: Filter| async move { filter.query },
        )
        .unwrap();
    assert_eq!(
        call(
            &runtime,
            "filtered",
            json!({"query": "lamp", "max_price_eur": 30})
        )
        .await,
        error(
            "Invalid arguments for tool `filtered`: unknown argument `max_price_eur`: did you \
             mean `maxPriceEur`?"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Every argument problem at once.

#[tokio::test]
async fn every_missing_and_invalid_argument_is_reported_at_once() {
    let server = Shop::server();
    assert_eq!(
        call(
            &server,
            "search",
            json!({"limit": "x", "tags": [1], "maxPriceEur": "cheap"})
        )
        .await,
        error(
            "Invalid arguments for tool `search` (4 problems):\n\
             - argument `query`: missing required argument\n\
             - argument `limit`: invalid type: string \"x\", expected u32\n\
             - argument `tags[0]`: invalid type: integer `1`, expected a string\n\
             - argument `maxPriceEur`: invalid type: string \"cheap\", expected f64"
        )
    );
}

#[tool_server(name = "booking")]
pub struct Booking;

#[derive(Deserialize, JsonSchema)]
pub struct Stay {
    /// Arrival (YYYY-MM-DD)
    pub arrival: String,
    /// The guest's name
    pub guest: String,
    /// Number of nights
    pub nights: u32,
    /// Extra wishes
    #[serde(default)]
    pub notes: Option<String>,
}

/// Book a stay.
#[tool(server = Booking)]
async fn book(Input(stay): Input<Stay>) -> String {
    format!(
        "{} arrives {} for {} nights",
        stay.guest, stay.arrival, stay.nights
    )
}

/// Book a room for a stay.
#[tool(server = Booking)]
async fn book_room(room: u32, Input(stay): Input<Stay>) -> String {
    format!("room {room} for {}", stay.guest)
}

#[tokio::test]
async fn a_whole_input_struct_lists_every_missing_field_and_serdes_error() {
    let server = Booking::server();
    // serde stops at `nights`; the missing `arrival` and `guest` come from the schema (in the
    // schema's order; the fields are declared in alphabetical order so that both agree).
    assert_eq!(
        call(&server, "book", json!({"nights": "two"})).await,
        error(
            "Invalid arguments for tool `book` (3 problems):\n\
             - argument `arrival`: missing required argument\n\
             - argument `guest`: missing required argument\n\
             - argument `nights`: invalid type: string \"two\", expected u32"
        )
    );
    // serde's own "missing field" is not listed twice.
    assert_eq!(
        call(&server, "book", json!({"guest": "Ann", "nights": 2})).await,
        error("Invalid arguments for tool `book`: argument `arrival`: missing required argument")
    );
    assert_eq!(
        call(&server, "book", json!({})).await,
        error(
            "Invalid arguments for tool `book` (3 problems):\n\
             - argument `arrival`: missing required argument\n\
             - argument `guest`: missing required argument\n\
             - argument `nights`: missing required argument"
        )
    );
    // A plain parameter's problems and the struct's come together.
    assert_eq!(
        call(&server, "book_room", json!({"room": -1, "guest": "Ann"})).await,
        error(
            "Invalid arguments for tool `book_room` (3 problems):\n\
             - argument `room`: invalid value: integer `-1`, expected u32\n\
             - argument `arrival`: missing required argument\n\
             - argument `nights`: missing required argument"
        )
    );
    assert_eq!(
        call(
            &server,
            "book",
            json!({"guest": "Ann", "arrival": "2026-12-01", "nights": 2})
        )
        .await,
        text("Ann arrives 2026-12-01 for 2 nights")
    );
}

// ---------------------------------------------------------------------------------------------
// Unknown arguments.

#[tool_server(name = "strict", deny_unknown_arguments)]
pub struct Strict;

/// Convert an amount.
#[tool(server = Strict)]
async fn convert(
    /// The amount
    amount: f64,
    /// Round to this many digits
    #[arg(default = 2)]
    digits: u32,
) -> String {
    format!("{amount:.*}", digits as usize)
}

/// Echo a text, ignoring anything else.
#[tool(server = Strict, deny_unknown_arguments = false)]
async fn echo(text: String) -> String {
    text
}

/// Ping.
#[tool(server = Strict)]
async fn ping() -> &'static str {
    "pong"
}

/// Convert, strictly, on a lenient server.
#[tool(server = Shop, deny_unknown_arguments)]
async fn strict_convert(
    amount: f64,
    #[serde(rename = "toCurrency")] to_currency: String,
) -> String {
    format!("{amount} {to_currency}")
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Transfer {
    /// From this account
    pub from: String,
    /// To this account
    pub to: String,
}

/// Move money.
#[tool(server = Shop)]
async fn transfer(Input(transfer): Input<Transfer>) -> String {
    format!("{} -> {}", transfer.from, transfer.to)
}

/// Move money, with the tool-level option too.
#[tool(server = Shop, deny_unknown_arguments)]
async fn transfer_strictly(Input(transfer): Input<Transfer>) -> String {
    format!("{} -> {}", transfer.from, transfer.to)
}

#[test]
fn denying_unknown_arguments_says_so_in_the_schema() {
    let strict = Strict::server();
    assert_eq!(
        input_schema(&strict, "convert"),
        json!({
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "The amount"},
                "digits": {
                    "type": "integer", "minimum": 0,
                    "description": "Round to this many digits", "default": 2
                }
            },
            "required": ["amount"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        input_schema(&strict, "ping"),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
    // The tool's `deny_unknown_arguments = false` wins over its server's setting.
    assert_eq!(
        input_schema(&strict, "echo"),
        json!({
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"]
        })
    );
    let shop = Shop::server();
    assert_eq!(
        input_schema(&shop, "strict_convert")["additionalProperties"],
        json!(false)
    );
    // Lenient by default.
    assert_eq!(
        input_schema(&shop, "search").get("additionalProperties"),
        None
    );
    // A whole-input struct with #[serde(deny_unknown_fields)] says so on its own, and the
    // tool-level option agrees with it.
    for tool in ["transfer", "transfer_strictly"] {
        assert_eq!(
            input_schema(&shop, tool),
            json!({
                "type": "object",
                "properties": {
                    "from": {"type": "string", "description": "From this account"},
                    "to": {"type": "string", "description": "To this account"}
                },
                "required": ["from", "to"],
                "additionalProperties": false
            }),
            "{tool}"
        );
    }
}

#[tokio::test]
async fn unknown_arguments_are_rejected_by_name_when_denied() {
    let strict = Strict::server();
    assert_eq!(
        call(
            &strict,
            "convert",
            json!({"amount": 2.5, "currency": "USD"})
        )
        .await,
        error(
            "Invalid arguments for tool `convert`: unknown argument `currency`: the tool accepts \
             only `amount`, `digits`"
        )
    );
    assert_eq!(
        call(&strict, "ping", json!({"loud": true, "twice": true})).await,
        error(
            "Invalid arguments for tool `ping`: unknown arguments `loud`, `twice`: the tool takes \
             no arguments"
        )
    );
    // Reported together with the other problems, after them.
    assert_eq!(
        call(
            &strict,
            "convert",
            json!({"digits": "x", "currency": "USD"})
        )
        .await,
        error(
            "Invalid arguments for tool `convert` (3 problems):\n\
             - argument `amount`: missing required argument\n\
             - argument `digits`: invalid type: string \"x\", expected u32\n\
             - unknown argument `currency`: the tool accepts only `amount`, `digits`"
        )
    );
    assert_eq!(
        call(&strict, "convert", json!({"amount": 2.5})).await,
        text("2.50")
    );
    // Opted out, and lenient by default.
    assert_eq!(
        call(&strict, "echo", json!({"text": "hi", "currency": "USD"})).await,
        text("hi")
    );
    assert_eq!(
        call(
            &Shop::server(),
            "item",
            json!({"itemId": 1, "currency": "USD"})
        )
        .await,
        text("item 1")
    );
    // The Rust name of a renamed argument is unknown.
    assert_eq!(
        call(
            &Shop::server(),
            "strict_convert",
            json!({"amount": 1, "to_currency": "EUR"})
        )
        .await,
        error(
            "Invalid arguments for tool `strict_convert` (2 problems):\n\
             - argument `toCurrency`: missing required argument\n\
             - unknown argument `to_currency`: did you mean `toCurrency`?"
        )
    );
}

#[tokio::test]
async fn a_strict_whole_input_struct_reports_unknown_and_missing_fields_together() {
    let shop = Shop::server();
    for tool in ["transfer", "transfer_strictly"] {
        assert_eq!(
            call(&shop, tool, json!({"from": "a", "amount": 5})).await,
            error(&format!(
                "Invalid arguments for tool `{tool}` (2 problems):\n\
                 - argument `to`: missing required argument\n\
                 - unknown argument `amount`: the tool accepts only `from`, `to`"
            ))
        );
        assert_eq!(
            call(&shop, tool, json!({"from": "a", "to": "b"})).await,
            text("a -> b")
        );
    }
}

#[tokio::test]
async fn a_hand_built_tool_can_deny_unknown_arguments_too() {
    let mut def = ToolDefBuilder::new("shout");
    def.deny_unknown_arguments(true);
    def.input().property::<String>("text", None, true);
    let server = ToolServer::new("demo", "1.0.0")
        .with_tool(def, |mut call: ToolCall| async move {
            let text = call.take_argument("text").unwrap_or_default();
            text.as_str().unwrap_or_default().to_uppercase()
        })
        .unwrap();
    assert_eq!(
        input_schema(&server, "shout")["additionalProperties"],
        json!(false)
    );
    // The handler is not called.
    assert_eq!(
        call(&server, "shout", json!({"text": "hi", "volume": 11})).await,
        error(
            "Invalid arguments for tool `shout`: unknown argument `volume`: the tool accepts only \
             `text`"
        )
    );
    assert_eq!(
        call(&server, "shout", json!({"text": "hi"})).await,
        text("HI")
    );
}

#[tool_server(name = "labels")]
pub struct Labels;

#[derive(Deserialize, JsonSchema)]
pub struct Tagged {
    /// The item
    pub item: String,
    /// Any other label, by name
    #[serde(flatten)]
    pub labels: std::collections::HashMap<String, String>,
}

/// Label an item: its input takes any extra property, which denying unknown ones contradicts.
#[tool(server = Labels, deny_unknown_arguments)]
async fn label(Input(tagged): Input<Tagged>) -> String {
    format!("{} ({} labels)", tagged.item, tagged.labels.len())
}

#[test]
fn denying_unknown_arguments_of_an_input_that_takes_any_is_a_build_error() {
    assert_eq!(
        Labels::try_server().unwrap_err().to_string(),
        "tool `label` of server `labels`: deny_unknown_arguments contradicts the input's own extra \
         properties (a #[serde(flatten)] map in the whole-input struct): drop one of the two"
    );
}
