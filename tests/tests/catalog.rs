//! Prompts, resources and completions of a `#[tool_server]`, through the MCP router: what the
//! list methods show, what `prompts/get`, `resources/read` and `completion/complete` answer
//! (good and bad requests), the capabilities `initialize` announces, subscriptions, and the
//! live changes of a `ToolServerHandle`.

use std::sync::{Arc, Mutex};

use claude_tools::complete::CompletionContext;
use claude_tools::mcp::{McpRouter, ServerNotification};
use claude_tools::prelude::*;
use claude_tools::prompts::{GetPromptResult, Prompt, PromptArguments};
use claude_tools::resources::{Resource, ResourceContents, ResourceRequest};
use serde_json::{Value, json};

#[tool_server(name = "desk", version = "1.0.0")]
pub struct Desk;

/// Say hello.
#[tool(server = Desk)]
async fn hello() -> String {
    "hello".into()
}

/// A tone of voice.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tone {
    Formal,
    Friendly,
    Funny,
}

fn customers(typed: &str) -> Vec<String> {
    ["Ada", "Alan", "Grace"]
        .iter()
        .filter(|name| name.to_lowercase().starts_with(&typed.to_lowercase()))
        .map(|name| name.to_string())
        .collect()
}

/// Draft a reply to a customer.
///
/// The reply quotes the ticket.
#[prompt(server = Desk, title = "Reply", complete(customer = customers))]
async fn reply(
    /// Who to write to
    customer: String,
    /// The ticket's number
    ticket: u32,
    /// How to sound (friendly when absent)
    tone: Option<Tone>,
) -> Vec<PromptMessage> {
    let tone = match tone.unwrap_or(Tone::Friendly) {
        Tone::Formal => "formal",
        Tone::Friendly => "friendly",
        Tone::Funny => "funny",
    };
    vec![
        PromptMessage::user(format!(
            "Write a {tone} reply to {customer} about ticket {ticket}."
        )),
        PromptMessage::assistant("Here is a draft:"),
    ]
}

/// A sync prompt without arguments that can fail.
#[prompt(server = Desk, name = "daily-summary")]
fn summary() -> Result<GetPromptResult, PromptError> {
    Err(PromptError::new("the summary is not ready"))
}

/// The opening hours.
#[resource(server = Desk, uri = "desk://hours", mime_type = "text/plain")]
fn hours() -> String {
    "9:00-17:00".into()
}

/// The logo.
#[resource(server = Desk, uri = "desk://logo.png", mime_type = "image/png")]
async fn logo() -> Blob {
    Blob(vec![0x89, b'P', b'N', b'G'])
}

fn ticket_ids(typed: &str) -> Vec<String> {
    (1..=12)
        .map(|id| id.to_string())
        .filter(|id| id.starts_with(typed))
        .collect()
}

/// A ticket.
#[resource(
    server = Desk,
    uri = "desk://tickets/{id}",
    mime_type = "application/json",
    complete(id = ticket_ids)
)]
async fn ticket(id: u32) -> Result<String, ResourceError> {
    if id > 12 {
        return Err(ResourceError::not_found(format!("there is no ticket {id}")));
    }
    Ok(json!({"id": id}).to_string())
}

/// Tickets of a tone.
#[resource(server = Desk, uri = "desk://tones/{tone}/tickets")]
fn by_tone(tone: Tone) -> String {
    match tone {
        Tone::Formal => "1",
        Tone::Friendly => "2",
        Tone::Funny => "3",
    }
    .into()
}

/// A resource that panics.
#[resource(server = Desk, uri = "desk://broken")]
fn broken() -> String {
    panic!("the broken resource broke")
}

async fn ask(router: &McpRouter, method: &str, params: Value) -> Value {
    let mut request = json!({"jsonrpc": "2.0", "id": 1, "method": method});
    if !params.is_null() {
        request["params"] = params;
    }
    router
        .handle_json(request)
        .await
        .expect("a request is answered")
}

fn router() -> McpRouter {
    McpRouter::new(Desk::server())
}

#[tokio::test]
async fn prompts_are_listed_with_their_arguments() {
    let list = ask(&router(), "prompts/list", Value::Null).await;
    assert_eq!(
        list["result"],
        json!({"prompts": [
            {"name": "daily-summary", "description": "A sync prompt without arguments that can fail."},
            {
                "name": "reply",
                "title": "Reply",
                "description": "Draft a reply to a customer.\n\nThe reply quotes the ticket.",
                "arguments": [
                    {"name": "customer", "description": "Who to write to", "required": true},
                    {"name": "ticket", "description": "The ticket's number", "required": true},
                    {"name": "tone", "description": "How to sound (friendly when absent)", "required": false},
                ]
            },
        ]})
    );
    let paged = ask(&router(), "prompts/list", json!({"cursor": "2"})).await;
    assert_eq!(paged["error"]["code"], -32602);
}

#[tokio::test]
async fn a_prompt_renders_its_typed_arguments() {
    let got = ask(
        &router(),
        "prompts/get",
        json!({"name": "reply", "arguments": {"customer": "Ada", "ticket": "7", "tone": "formal"}}),
    )
    .await;
    assert_eq!(
        got["result"],
        json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Write a formal reply to Ada about ticket 7."}},
            {"role": "assistant", "content": {"type": "text", "text": "Here is a draft:"}},
        ]})
    );
    let defaulted = ask(
        &router(),
        "prompts/get",
        json!({"name": "reply", "arguments": {"customer": "Ada", "ticket": "7"}}),
    )
    .await;
    assert_eq!(
        defaulted["result"]["messages"][0]["content"]["text"],
        "Write a friendly reply to Ada about ticket 7."
    );
}

#[tokio::test]
async fn bad_prompt_arguments_are_named_in_one_invalid_params_error() {
    let got = ask(
        &router(),
        "prompts/get",
        json!({"name": "reply", "arguments": {"ticket": "seven", "tone": "rude"}}),
    )
    .await;
    assert_eq!(got["error"]["code"], -32602);
    assert_eq!(
        got["error"]["data"],
        "Invalid arguments for prompt `reply` (3 problems):\n\
         - argument `customer`: missing required argument\n\
         - argument `ticket`: invalid type: string \"seven\", expected u32\n\
         - argument `tone`: unknown variant `rude`, expected one of `formal`, `friendly`, `funny`"
    );
    let not_a_string = ask(
        &router(),
        "prompts/get",
        json!({"name": "reply", "arguments": {"customer": "Ada", "ticket": 7}}),
    )
    .await;
    assert_eq!(not_a_string["error"]["code"], -32602);
    assert!(
        not_a_string["error"]["data"]
            .as_str()
            .unwrap()
            .contains("argument `ticket`: prompt arguments are strings, got 7")
    );
    let unknown = ask(&router(), "prompts/get", json!({"name": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602);
    assert_eq!(
        unknown["error"]["data"],
        "Prompt `nope` not found on server `desk`"
    );
    let no_params = ask(&router(), "prompts/get", Value::Null).await;
    assert_eq!(no_params["error"]["code"], -32602);
}

#[tokio::test]
async fn a_failing_prompt_is_an_internal_error() {
    let got = ask(&router(), "prompts/get", json!({"name": "daily-summary"})).await;
    assert_eq!(got["error"]["code"], -32603);
    assert_eq!(
        got["error"]["data"],
        "prompt `daily-summary`: the summary is not ready"
    );
}

#[tokio::test]
async fn resources_and_templates_are_listed_apart() {
    let list = ask(&router(), "resources/list", json!({})).await;
    assert_eq!(
        list["result"],
        json!({"resources": [
            {"uri": "desk://broken", "name": "broken", "description": "A resource that panics."},
            {"uri": "desk://hours", "name": "hours", "description": "The opening hours.", "mimeType": "text/plain"},
            {"uri": "desk://logo.png", "name": "logo", "description": "The logo.", "mimeType": "image/png"},
        ]})
    );
    let templates = ask(&router(), "resources/templates/list", Value::Null).await;
    assert_eq!(
        templates["result"],
        json!({"resourceTemplates": [
            {"uriTemplate": "desk://tickets/{id}", "name": "ticket", "description": "A ticket.", "mimeType": "application/json"},
            {"uriTemplate": "desk://tones/{tone}/tickets", "name": "by_tone", "description": "Tickets of a tone."},
        ]})
    );
}

#[tokio::test]
async fn resources_read_as_text_blob_and_templates() {
    let hours = ask(&router(), "resources/read", json!({"uri": "desk://hours"})).await;
    assert_eq!(
        hours["result"],
        json!({"contents": [{"uri": "desk://hours", "mimeType": "text/plain", "text": "9:00-17:00"}]})
    );
    let logo = ask(
        &router(),
        "resources/read",
        json!({"uri": "desk://logo.png"}),
    )
    .await;
    assert_eq!(
        logo["result"],
        json!({"contents": [{"uri": "desk://logo.png", "mimeType": "image/png", "blob": "iVBORw=="}]})
    );
    let ticket = ask(
        &router(),
        "resources/read",
        json!({"uri": "desk://tickets/7"}),
    )
    .await;
    assert_eq!(
        ticket["result"],
        json!({"contents": [{"uri": "desk://tickets/7", "mimeType": "application/json", "text": "{\"id\":7}"}]})
    );
    let tone = ask(
        &router(),
        "resources/read",
        json!({"uri": "desk://tones/funny/tickets"}),
    )
    .await;
    assert_eq!(tone["result"]["contents"][0]["text"], "3");
}

#[tokio::test]
async fn unreadable_resources_get_the_spec_errors() {
    let missing = ask(
        &router(),
        "resources/read",
        json!({"uri": "desk://nothing"}),
    )
    .await;
    assert_eq!(
        missing["error"],
        json!({"code": -32002, "message": "Resource not found", "data": {"uri": "desk://nothing"}})
    );
    let no_ticket = ask(
        &router(),
        "resources/read",
        json!({"uri": "desk://tickets/99"}),
    )
    .await;
    assert_eq!(
        no_ticket["error"],
        json!({"code": -32002, "message": "Resource not found", "data": {"uri": "desk://tickets/99", "reason": "there is no ticket 99"}})
    );
    let bad_id = ask(
        &router(),
        "resources/read",
        json!({"uri": "desk://tickets/seven"}),
    )
    .await;
    assert_eq!(bad_id["error"]["code"], -32602);
    assert_eq!(
        bad_id["error"]["data"],
        "Invalid URI `desk://tickets/seven`: URI variable `id`: invalid type: string \"seven\", expected u32"
    );
    let broken = ask(&router(), "resources/read", json!({"uri": "desk://broken"})).await;
    assert_eq!(broken["error"]["code"], -32603);
    assert!(
        broken["error"]["data"]
            .as_str()
            .unwrap()
            .contains("the broken resource broke")
    );
    let no_uri = ask(&router(), "resources/read", json!({})).await;
    assert_eq!(no_uri["error"]["code"], -32602);
}

#[tokio::test]
async fn completions_come_from_completers_and_enums() {
    let complete = |reference: Value, name: &str, value: &str| json!({"ref": reference, "argument": {"name": name, "value": value}});
    let router = router();
    let prompt = json!({"type": "ref/prompt", "name": "reply"});
    let got = ask(
        &router,
        "completion/complete",
        complete(prompt.clone(), "customer", "a"),
    )
    .await;
    assert_eq!(
        got["result"],
        json!({"completion": {"values": ["Ada", "Alan"], "hasMore": false}})
    );
    let tone = ask(
        &router,
        "completion/complete",
        complete(prompt.clone(), "tone", "f"),
    )
    .await;
    assert_eq!(
        tone["result"]["completion"]["values"],
        json!(["formal", "friendly", "funny"])
    );
    let none = ask(
        &router,
        "completion/complete",
        complete(prompt, "ticket", "1"),
    )
    .await;
    assert_eq!(none["result"]["completion"]["values"], json!([]));
    let template = json!({"type": "ref/resource", "uri": "desk://tickets/{id}"});
    let ids = ask(
        &router,
        "completion/complete",
        complete(template, "id", "1"),
    )
    .await;
    assert_eq!(
        ids["result"]["completion"]["values"],
        json!(["1", "10", "11", "12"])
    );
    let tones = json!({"type": "ref/resource", "uri": "desk://tones/{tone}/tickets"});
    let tones = ask(
        &router,
        "completion/complete",
        complete(tones, "tone", "fu"),
    )
    .await;
    assert_eq!(tones["result"]["completion"]["values"], json!(["funny"]));
    let unknown = json!({"type": "ref/prompt", "name": "nope"});
    let unknown = ask(&router, "completion/complete", complete(unknown, "x", "")).await;
    assert_eq!(unknown["error"]["code"], -32602);
}

#[tool_server(name = "travel", version = "1.0.0")]
pub struct Travel;

/// A country of a trip.
#[derive(Deserialize, JsonSchema)]
pub enum Country {
    France,
    Japan,
}

/// The cities of the country already filled in (read typed), else of every country; those
/// starting with what was typed.
fn cities(typed: &str, context: &CompletionContext) -> Vec<&'static str> {
    let cities: &[&'static str] = match context.parse::<Country>("country") {
        Some(Country::France) => &["Lyon", "Paris"],
        Some(Country::Japan) => &["Osaka", "Tokyo"],
        None => &["Lyon", "Osaka", "Paris", "Tokyo"],
    };
    cities
        .iter()
        .copied()
        .filter(|city| city.starts_with(typed))
        .collect()
}

/// Plan a trip.
#[prompt(server = Travel, complete(city = cities))]
fn trip(country: Country, city: String) -> String {
    let country = match country {
        Country::France => "France",
        Country::Japan => "Japan",
    };
    format!("Plan three days in {city}, {country}.")
}

/// A city's guide.
#[resource(server = Travel, uri = "travel://{country}/{city}", complete(city = cities))]
fn guide(country: Country, city: String) -> String {
    let _ = country;
    format!("guide of {city}")
}

#[tokio::test]
async fn a_completer_sees_the_arguments_already_filled_in() {
    // One built by hand too, its completer a closure.
    let server = Travel::server()
        .with_prompt(
            Prompt::new("stay", |mut args: PromptArguments| async move {
                let city: String = args.required("city")?;
                Ok::<_, PromptError>(format!("Find a hotel in {city}."))
            })
            .argument("city", "Where", true)
            .argument("nights", "How long", true)
            .complete_with_context(
                "nights",
                |typed: &str, context: &CompletionContext| {
                    let most = if context.get("city") == Some("Paris") {
                        3
                    } else {
                        12
                    };
                    (1..=most)
                        .map(|nights| nights.to_string())
                        .filter(|nights| nights.starts_with(typed))
                        .collect()
                },
            ),
        )
        .unwrap();
    let router = McpRouter::new(server);
    let complete = |reference: Value, name: &str, value: &str, context: Option<Value>| {
        let mut params = json!({"ref": reference, "argument": {"name": name, "value": value}});
        if let Some(context) = context {
            params["context"] = context;
        }
        params
    };
    let values = |answer: &Value| answer["result"]["completion"]["values"].clone();
    let trip = json!({"type": "ref/prompt", "name": "trip"});

    // Without context (a client before 2025-06-18), or a null one: every city.
    let all = ask(
        &router,
        "completion/complete",
        complete(trip.clone(), "city", "", None),
    )
    .await;
    assert_eq!(values(&all), json!(["Lyon", "Osaka", "Paris", "Tokyo"]));
    let null = ask(
        &router,
        "completion/complete",
        complete(trip.clone(), "city", "", Some(Value::Null)),
    )
    .await;
    assert_eq!(values(&null), values(&all));
    // With the country filled in: its cities (the country parsed as the enum).
    let japan = ask(
        &router,
        "completion/complete",
        complete(
            trip.clone(),
            "city",
            "",
            Some(json!({"arguments": {"country": "Japan"}})),
        ),
    )
    .await;
    assert_eq!(
        japan["result"],
        json!({"completion": {"values": ["Osaka", "Tokyo"], "hasMore": false}})
    );
    let france = ask(
        &router,
        "completion/complete",
        complete(
            trip.clone(),
            "city",
            "P",
            // An argument sent as null is left out; an unknown key of `context` is ignored.
            Some(json!({"arguments": {"country": "France", "city": null}, "extra": 1})),
        ),
    )
    .await;
    assert_eq!(values(&france), json!(["Paris"]));
    // A resource template's variable, the same way.
    let guide = json!({"type": "ref/resource", "uri": "travel://{country}/{city}"});
    let guide = ask(
        &router,
        "completion/complete",
        complete(
            guide,
            "city",
            "",
            Some(json!({"arguments": {"country": "France"}})),
        ),
    )
    .await;
    assert_eq!(values(&guide), json!(["Lyon", "Paris"]));
    // A prompt built by hand.
    let stay = json!({"type": "ref/prompt", "name": "stay"});
    let paris = ask(
        &router,
        "completion/complete",
        complete(
            stay.clone(),
            "nights",
            "",
            Some(json!({"arguments": {"city": "Paris"}})),
        ),
    )
    .await;
    assert_eq!(values(&paris), json!(["1", "2", "3"]));
    let anywhere = ask(
        &router,
        "completion/complete",
        complete(stay, "nights", "1", None),
    )
    .await;
    assert_eq!(values(&anywhere), json!(["1", "10", "11", "12"]));

    // An argument that is not a string: `-32602` naming it.
    let number = ask(
        &router,
        "completion/complete",
        complete(
            trip.clone(),
            "city",
            "",
            Some(json!({"arguments": {"country": "Japan", "year": 2025}})),
        ),
    )
    .await;
    assert_eq!(number["error"]["code"], -32602);
    assert_eq!(
        number["error"]["data"],
        "Invalid context for completion/complete of `city`: `params.context.arguments`: \
         argument `year`: arguments are strings, got 2025"
    );
    let list = ask(
        &router,
        "completion/complete",
        complete(trip, "city", "", Some(json!({"arguments": ["Japan"]}))),
    )
    .await;
    assert_eq!(list["error"]["code"], -32602);
    assert!(
        list["error"]["data"]
            .as_str()
            .unwrap()
            .contains("must be an object of strings"),
        "{list}"
    );
}

#[tokio::test]
async fn capabilities_are_announced_only_for_what_the_server_has() {
    let initialize = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}});
    let desk = ask(&router(), "initialize", initialize.clone()).await;
    assert_eq!(
        desk["result"]["capabilities"],
        json!({
            "tools": {"listChanged": false},
            "prompts": {"listChanged": false},
            "resources": {"subscribe": false, "listChanged": false},
            "completions": {},
            "logging": {},
        })
    );
    let live = McpRouter::new(Desk::server()).with_list_changed(true);
    let live = ask(&live, "initialize", initialize.clone()).await;
    assert_eq!(
        live["result"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    // A connection with a notifier (stdio, in-process) takes subscriptions too.
    let (notified, _) = recording(McpRouter::new(Desk::server()));
    let notified = ask(&notified, "initialize", initialize.clone()).await;
    assert_eq!(
        notified["result"]["capabilities"]["resources"],
        json!({"subscribe": true, "listChanged": false})
    );
    let tools_only = McpRouter::new(ToolServer::new("plain", "1.0.0"));
    let tools_only = ask(&tools_only, "initialize", initialize).await;
    assert_eq!(
        tools_only["result"]["capabilities"],
        json!({"tools": {"listChanged": false}, "logging": {}})
    );
    // And it serves none of their methods, as a tools-only server never has: `-32601`, in
    // agreement with what its `initialize` announced.
    let plain = McpRouter::new(ToolServer::new("plain", "1.0.0"));
    for method in [
        "prompts/list",
        "prompts/get",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "completion/complete",
    ] {
        assert_eq!(
            ask(&plain, method, Value::Null).await["error"]["code"],
            json!(-32601),
            "{method}"
        );
    }
    // Whether its params are good or bad (the decoder reads these two typed).
    for (method, params) in [
        ("prompts/get", json!({"name": "summary"})),
        ("resources/read", json!({"uri": "desk://hours"})),
    ] {
        assert_eq!(
            ask(&plain, method, params).await["error"]["code"],
            json!(-32601),
            "{method}"
        );
    }
}

type Sent = Arc<Mutex<Vec<ServerNotification>>>;

fn recording(router: McpRouter) -> (McpRouter, Sent) {
    let sent: Sent = Arc::default();
    let sink = sent.clone();
    let router = router.with_notifier(Arc::new(move |notification| {
        sink.lock().unwrap().push(notification);
    }));
    (router, sent)
}

#[tokio::test]
async fn subscribers_are_told_of_updates_and_others_are_not() {
    let (router, sent) = recording(McpRouter::new(Desk::server()));
    let handle = router.tool_server_handle();
    handle.resource_updated("desk://hours");
    assert!(sent.lock().unwrap().is_empty(), "nobody subscribed");

    let subscribed = ask(
        &router,
        "resources/subscribe",
        json!({"uri": "desk://tickets/3"}),
    )
    .await;
    assert_eq!(subscribed["result"], json!({}));
    handle.resource_updated("desk://tickets/3");
    handle.resource_updated("desk://hours");
    assert_eq!(
        *sent.lock().unwrap(),
        [ServerNotification::ResourceUpdated {
            uri: "desk://tickets/3".into()
        }]
    );
    assert_eq!(
        sent.lock().unwrap()[0].to_value(),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "desk://tickets/3"}})
    );
    assert!(router.wants(&ServerNotification::ResourceUpdated {
        uri: "desk://tickets/3".into()
    }));
    assert!(!router.wants(&ServerNotification::ResourceUpdated {
        uri: "desk://hours".into()
    }));

    ask(
        &router,
        "resources/unsubscribe",
        json!({"uri": "desk://tickets/3"}),
    )
    .await;
    handle.resource_updated("desk://tickets/3");
    assert_eq!(sent.lock().unwrap().len(), 1, "unsubscribed");

    let unknown = ask(
        &router,
        "resources/subscribe",
        json!({"uri": "desk://nothing"}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32002);
}

#[tokio::test]
async fn a_connection_that_cannot_carry_updates_refuses_subscriptions() {
    let refused = ask(
        &router(),
        "resources/subscribe",
        json!({"uri": "desk://hours"}),
    )
    .await;
    assert_eq!(refused["error"]["code"], -32601);
    assert!(
        refused["error"]["data"]
            .as_str()
            .unwrap()
            .contains("HTTP with sessions")
    );
}

#[tokio::test]
async fn live_changes_of_prompts_and_resources_are_notified() {
    let (router, sent) = recording(router());
    let handle = router.tool_server_handle();
    handle
        .add_prompt(
            Prompt::new("greet", |mut args: PromptArguments| async move {
                let name: String = args.required("name")?;
                Ok::<_, PromptError>(format!("Greet {name}."))
            })
            .argument("name", "Who", true),
        )
        .unwrap();
    handle
        .add_resource(Resource::new("desk://motd", "motd", |read: ResourceRequest| async move {
            ResourceContents::text(read.uri(), "Be kind.", None)
        }))
        .unwrap();
    assert_eq!(
        *sent.lock().unwrap(),
        [
            ServerNotification::PromptsListChanged,
            ServerNotification::ResourcesListChanged
        ]
    );
    let greet = ask(
        &router,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    )
    .await;
    assert_eq!(
        greet["result"]["messages"][0]["content"]["text"],
        "Greet Ada."
    );
    let motd = ask(&router, "resources/read", json!({"uri": "desk://motd"})).await;
    assert_eq!(motd["result"]["contents"][0]["text"], "Be kind.");

    handle.remove_prompt("greet").unwrap();
    handle.remove_resource("desk://tickets/{id}").unwrap();
    assert!(handle.remove_prompt("greet").is_err());
    assert_eq!(sent.lock().unwrap().len(), 4);
    let gone = ask(
        &router,
        "resources/read",
        json!({"uri": "desk://tickets/1"}),
    )
    .await;
    assert_eq!(gone["error"]["code"], -32002);
    let duplicate = handle.add_resource(Resource::new(
        "desk://hours",
        "again",
        |_: ResourceRequest| async { "x" },
    ));
    assert!(
        duplicate
            .unwrap_err()
            .to_string()
            .contains("two resources at `desk://hours`")
    );
}

#[test]
fn a_bad_template_is_a_server_build_error() {
    let error = ToolServer::new("s", "1")
        .with_resource(Resource::new(
            "s://{+path}",
            "files",
            |_: ResourceRequest| async { "" },
        ))
        .unwrap_err();
    assert!(
        error.to_string().contains("only level-1 variables"),
        "{error}"
    );
}

// Prompts, resources and completers reading the application's state (issue 29, item 1): the
// extractors a tool takes, recognised by the same trait (`ToolParam`), in a second server so
// that the lists above stay as they are.

#[tool_server(name = "shop", version = "1.0.0")]
pub struct Shop;

/// The products, by SKU, shared with the rest of the application.
pub struct Catalog {
    products: Vec<(&'static str, &'static str)>,
}

impl Catalog {
    fn name_of(&self, sku: &str) -> Option<&'static str> {
        self.products
            .iter()
            .find(|(known, _)| *known == sku)
            .map(|(_, name)| *name)
    }
}

/// How the shop signs what it writes.
pub struct Signature(&'static str);

/// The SKUs starting with what was typed, from the catalog.
fn skus(typed: &str, _: &CompletionContext, catalog: State<Catalog>) -> Vec<&'static str> {
    catalog
        .products
        .iter()
        .map(|(sku, _)| *sku)
        .filter(|sku| sku.starts_with(typed))
        .collect()
}

/// The SKUs of the catalog, given the arguments already filled in and the caller's context.
fn skus_in_context(
    typed: &str,
    context: &CompletionContext,
    catalog: State<Catalog>,
    request: ToolContext,
) -> Vec<String> {
    let prefix = context.get("prefix").unwrap_or_default();
    let asked_through = if request.client().is_some() {
        "client"
    } else {
        "none"
    };
    catalog
        .products
        .iter()
        .filter(|(sku, _)| sku.starts_with(prefix) && sku.starts_with(typed))
        .map(|(sku, _)| format!("{sku} ({asked_through})"))
        .collect()
}

/// Write an advert for a product.
#[prompt(server = Shop, complete(sku = skus))]
fn advert(
    catalog: State<Catalog>,
    State(signature): State<Signature>,
    /// The product's SKU
    sku: String,
    /// How many words at most
    words: Option<u32>,
) -> Result<String, PromptError> {
    let name = catalog
        .name_of(&sku)
        .ok_or_else(|| PromptError::new(format!("no product {sku}")))?;
    let words = words.unwrap_or(12);
    Ok(format!(
        "Advertise {name} in {words} words, signed {}.",
        signature.0
    ))
}

/// A prompt with a completer taking the context and two extractors.
#[prompt(server = Shop, complete(sku = skus_in_context))]
async fn compare(
    ctx: ToolContext,
    /// Only SKUs starting with this
    prefix: String,
    /// The product
    sku: String,
) -> String {
    let through = if ctx.client().is_some() {
        "a client"
    } else {
        "no client"
    };
    format!("Compare {sku} with the other {prefix} products (asked through {through}).")
}

/// A product, by SKU.
#[resource(server = Shop, uri = "shop://products/{sku}", complete(sku = skus))]
async fn product(State(catalog): State<Catalog>, sku: String) -> Result<String, ResourceError> {
    catalog
        .name_of(&sku)
        .map(str::to_string)
        .ok_or_else(|| ResourceError::not_found(format!("no product {sku}")))
}

/// Every SKU, one a line.
#[resource(server = Shop, uri = "shop://products")]
fn products(catalog: State<Catalog>, _ctx: ToolContext) -> String {
    let skus: Vec<&str> = catalog.products.iter().map(|(sku, _)| *sku).collect();
    skus.join("\n")
}

fn shop() -> ToolServer {
    Shop::server()
        .with_state(Catalog {
            products: vec![
                ("tea-1", "green tea"),
                ("tea-2", "black tea"),
                ("mug-1", "a mug"),
            ],
        })
        .with_state(Signature("the shop"))
}

#[tokio::test]
async fn a_prompt_reads_the_state_and_only_its_other_parameters_are_arguments() {
    let router = McpRouter::new(shop());
    let list = ask(&router, "prompts/list", Value::Null).await;
    assert_eq!(
        list["result"]["prompts"][0],
        json!({
            "name": "advert",
            "description": "Write an advert for a product.",
            "arguments": [
                {"name": "sku", "description": "The product's SKU", "required": true},
                {"name": "words", "description": "How many words at most", "required": false},
            ]
        })
    );
    let got = ask(
        &router,
        "prompts/get",
        json!({"name": "advert", "arguments": {"sku": "tea-2", "words": "5"}}),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"],
        "Advertise black tea in 5 words, signed the shop."
    );
    let bad = ask(
        &router,
        "prompts/get",
        json!({"name": "advert", "arguments": {"words": "many"}}),
    )
    .await;
    assert_eq!(
        bad["error"]["data"],
        "Invalid arguments for prompt `advert` (2 problems):\n\
         - argument `sku`: missing required argument\n\
         - argument `words`: invalid type: string \"many\", expected u32"
    );
}

#[tokio::test]
async fn a_prompt_takes_the_request_context() {
    let router = McpRouter::new(shop());
    let got = ask(
        &router,
        "prompts/get",
        json!({"name": "compare", "arguments": {"prefix": "tea", "sku": "tea-1"}}),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"],
        "Compare tea-1 with the other tea products (asked through a client)."
    );
}

#[tokio::test]
async fn a_resource_reads_the_state_and_its_variables() {
    let router = McpRouter::new(shop());
    let read = ask(
        &router,
        "resources/read",
        json!({"uri": "shop://products/tea-1"}),
    )
    .await;
    assert_eq!(read["result"]["contents"][0]["text"], "green tea");
    let missing = ask(
        &router,
        "resources/read",
        json!({"uri": "shop://products/tea-9"}),
    )
    .await;
    assert_eq!(missing["error"]["code"], -32002);
    let fixed = ask(&router, "resources/read", json!({"uri": "shop://products"})).await;
    assert_eq!(
        fixed["result"]["contents"][0]["text"],
        "tea-1\ntea-2\nmug-1"
    );
    // The template's only variable is its only parameter that is not an extractor.
    let templates = ask(&router, "resources/templates/list", Value::Null).await;
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["uriTemplate"],
        "shop://products/{sku}"
    );
}

#[tokio::test]
async fn the_server_serves_its_prompts_and_resources_with_its_state_and_no_client() {
    let server = shop();
    let advert = server
        .get_prompt("advert", PromptArguments::from_iter([("sku", "mug-1")]))
        .await
        .expect("the prompt renders");
    assert_eq!(
        advert.messages,
        [PromptMessage::user(
            "Advertise a mug in 12 words, signed the shop."
        )]
    );
    let compare = server
        .get_prompt(
            "compare",
            PromptArguments::from_iter([("prefix", "mug"), ("sku", "mug-1")]),
        )
        .await
        .expect("the prompt renders");
    assert_eq!(
        compare.messages,
        [PromptMessage::user(
            "Compare mug-1 with the other mug products (asked through no client)."
        )]
    );
    let unknown = server
        .get_prompt("nope", PromptArguments::default())
        .await
        .unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "Prompt `nope` not found on server `shop`"
    );
    let read = server
        .read_resource("shop://products/tea-2")
        .await
        .expect("it reads");
    assert_eq!(
        read,
        [ResourceContents::text(
            "shop://products/tea-2",
            "black tea",
            None
        )]
    );
    let nowhere = server.read_resource("shop://nowhere").await.unwrap_err();
    assert!(nowhere.is_not_found());
}

#[tokio::test]
async fn a_completer_reads_the_state_the_context_and_the_request() {
    let router = McpRouter::new(shop());
    let complete = |reference: Value, name: &str, value: &str, context: Value| {
        let router = router.clone();
        let params = json!({
            "ref": reference,
            "argument": {"name": name, "value": value},
            "context": {"arguments": context},
        });
        async move { ask(&router, "completion/complete", params).await }
    };
    let prompt = complete(
        json!({"type": "ref/prompt", "name": "advert"}),
        "sku",
        "tea",
        json!({}),
    )
    .await;
    assert_eq!(
        prompt["result"]["completion"]["values"],
        json!(["tea-1", "tea-2"])
    );
    let resource = complete(
        json!({"type": "ref/resource", "uri": "shop://products/{sku}"}),
        "sku",
        "m",
        json!({}),
    )
    .await;
    assert_eq!(resource["result"]["completion"]["values"], json!(["mug-1"]));
    let in_context = complete(
        json!({"type": "ref/prompt", "name": "compare"}),
        "sku",
        "",
        json!({"prefix": "tea"}),
    )
    .await;
    assert_eq!(
        in_context["result"]["completion"]["values"],
        json!(["tea-1 (client)", "tea-2 (client)"])
    );
}

#[tokio::test]
async fn a_missing_state_is_named_by_check_state_and_by_each_request() {
    let bare = Shop::server().with_state(Signature("the shop"));
    let missing = bare.check_state().expect_err("the catalog is missing");
    assert!(
        missing
            .to_string()
            .starts_with("prompt `advert` of server `shop` takes State<")
            || missing.to_string().starts_with("resource `shop://products"),
        "{missing}"
    );
    assert!(missing.to_string().contains("Catalog"), "{missing}");
    let router = McpRouter::new(bare);
    let got = ask(
        &router,
        "prompts/get",
        json!({"name": "advert", "arguments": {"sku": "tea-1"}}),
    )
    .await;
    assert_eq!(got["error"]["code"], -32603);
    let message = got["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
        + got["error"]["data"].as_str().unwrap_or_default();
    assert!(
        message.contains("prompt `advert` needs State<") && message.contains("Catalog"),
        "{got}"
    );
    let read = ask(
        &router,
        "resources/read",
        json!({"uri": "shop://products/tea-1"}),
    )
    .await;
    assert_eq!(read["error"]["code"], -32603);
    assert!(
        read.to_string()
            .contains("resource `shop://products/tea-1` needs State<"),
        "{read}"
    );
    let completed = ask(
        &router,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "advert"}, "argument": {"name": "sku", "value": ""}}),
    )
    .await;
    assert_eq!(completed["error"]["code"], -32603);
    assert!(
        completed
            .to_string()
            .contains("the completer of `sku` failed: prompt `advert` needs State<"),
        "{completed}"
    );
}

/// Offer a bundle.
#[prompt(server = Shop)]
fn bundle(
    /// The SKUs in it
    skus: Vec<String>,
    cancel: CancellationToken,
) -> String {
    format!(
        "Offer {} together (withdrawn: {}).",
        skus.join(" and "),
        cancel.is_cancelled()
    )
}

#[tokio::test]
async fn a_prompt_argument_read_as_json_says_so_in_its_description() {
    let router = McpRouter::new(shop());
    let list = ask(&router, "prompts/list", Value::Null).await;
    assert_eq!(
        list["result"]["prompts"][1],
        json!({
            "name": "bundle",
            "description": "Offer a bundle.",
            "arguments": [{
                "name": "skus",
                "description": "The SKUs in it (JSON text: an array, e.g. [\"a\", \"b\"])",
                "required": true
            }]
        })
    );
    let got = ask(
        &router,
        "prompts/get",
        json!({"name": "bundle", "arguments": {"skus": "[\"tea-1\", \"mug-1\"]"}}),
    )
    .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"],
        "Offer tea-1 and mug-1 together (withdrawn: false)."
    );
}
