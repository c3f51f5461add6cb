//! The typed in-process test client against a server with one of each: a tool with a typed
//! result, a prompt with a completed argument, a fixed resource and a template with a
//! completed variable, a tool that asks the user, one that reports progress, one that logs,
//! and one that reads the caller's identity; at MCP 2025-11-25 and 2026-07-28.

use claude_tools::mcp::{
    CreateMessageResult, ElicitParams, Elicitation, ErrorCode, LoggingLevel, Root,
    ServerRequestParams,
};
use claude_tools::prelude::*;
use claude_tools::resources::ResourceContents;
use claude_tools::tools::Extension;
use claude_tools_testkit::{CompletionRequest, ProtocolRevision, TestClient, TestClientError};
use serde_json::json;

#[tool_server(name = "shop", version = "1.0.0")]
pub struct Shop;

/// A basket's total.
#[derive(Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Total {
    /// How many items
    items: u32,
    /// In cents
    cents: u64,
}

/// Price a basket.
#[tool(server = Shop, read_only)]
async fn price(
    /// How many items
    items: u32,
    /// The price of one, in cents
    each: u64,
) -> Result<Json<Total>, ToolError> {
    if items == 0 {
        return Err(ToolError::new("an empty basket has no price"));
    }
    Ok(Json(Total {
        items,
        cents: u64::from(items) * each,
    }))
}

/// The user's answer to "empty the basket?".
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Confirm {
    /// Empty it?
    confirm: bool,
}

/// Empty the basket, once the user confirms.
#[tool(server = Shop, destructive)]
async fn empty_basket(ctx: ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<Confirm>("Empty the basket?")
        .await
        .map_err(|error| ToolError::new(format!("could not ask: {error}")))?;
    Ok(match answer {
        Elicitation::Accepted(Confirm { confirm: true }) => "emptied".into(),
        Elicitation::Accepted(Confirm { confirm: false }) => "kept: not confirmed".into(),
        Elicitation::Declined => "kept: declined".into(),
        Elicitation::Cancelled => "kept: cancelled".into(),
    })
}

/// Pack the basket, reporting each item.
#[tool(server = Shop)]
async fn pack(ctx: ToolContext, items: u32) -> String {
    for i in 1..=items {
        ctx.report_progress(
            f64::from(i),
            Some(f64::from(items)),
            Some(&format!("item {i}")),
        );
    }
    format!("packed {items}")
}

/// Check the stock, logging what it finds.
#[tool(server = Shop)]
async fn check_stock(ctx: ToolContext) -> &'static str {
    ctx.log_debug("counting");
    ctx.log_warning(json!({"low": ["socks"]}));
    "checked"
}

/// Who is calling, as the transport said.
pub struct Customer {
    name: &'static str,
}

/// Greet the caller.
#[tool(server = Shop)]
async fn whoami(customer: Extension<Customer>) -> String {
    format!("hello {}", customer.name)
}

/// The colours of the product already filled in (socks come in grey only).
fn colours(typed: &str, context: &CompletionContext) -> Vec<String> {
    let colours: &[&str] = match context.get("product") {
        Some("socks") => &["grey"],
        _ => &["red", "green", "grey"],
    };
    colours
        .iter()
        .filter(|colour| colour.starts_with(typed))
        .map(|colour| colour.to_string())
        .collect()
}

/// Describe a product for a shopper.
#[prompt(server = Shop, complete(colour = colours))]
async fn describe(
    /// The product
    product: String,
    /// Its colour
    colour: String,
) -> Vec<PromptMessage> {
    vec![PromptMessage::user(format!(
        "Describe the {colour} {product}."
    ))]
}

/// The shop's opening hours.
#[resource(server = Shop, uri = "shop://hours", mime_type = "text/plain")]
fn hours() -> String {
    "9-17".into()
}

fn skus(typed: &str) -> Vec<String> {
    ["A1", "A2", "B1"]
        .iter()
        .filter(|sku| sku.starts_with(typed))
        .map(|sku| sku.to_string())
        .collect()
}

/// A product, by SKU.
#[resource(server = Shop, uri = "shop://products/{sku}", complete(sku = skus))]
fn product(sku: String) -> String {
    format!("product {sku}")
}

const BOTH: [ProtocolRevision; 2] = [ProtocolRevision::V2025_11_25, ProtocolRevision::V2026_07_28];

fn client(revision: ProtocolRevision) -> TestClient {
    TestClient::new(Shop::server()).revision(revision)
}

#[tokio::test]
async fn a_tool_call_is_typed_end_to_end() {
    for revision in BOTH {
        let client = client(revision);
        let outcome = client
            .call_tool("price", json!({"items": 3, "each": 250}))
            .await
            .unwrap();
        assert!(!outcome.is_error(), "{revision:?}");
        assert_eq!(
            outcome.structured::<Total>().unwrap(),
            Total {
                items: 3,
                cents: 750
            }
        );
        assert_eq!(outcome.rounds, 1);

        let failed = client
            .call_tool("price", json!({"items": 0, "each": 1}))
            .await
            .unwrap();
        assert!(failed.is_error());
        assert_eq!(failed.text(), "an empty basket has no price");

        let wrong = client
            .call_tool("price", json!({"items": "three"}))
            .await
            .unwrap();
        assert!(wrong.is_error());
        assert!(wrong.text().contains("items"), "{}", wrong.text());

        let unknown = client.call_tool("nope", json!({})).await.unwrap_err();
        assert_eq!(unknown.code(), Some(ErrorCode::INVALID_PARAMS), "{unknown}");
    }
}

#[tokio::test]
async fn each_list_shows_what_the_server_has() {
    for revision in BOTH {
        let client = client(revision);
        let tools = client.list_tools().await.unwrap();
        let names: Vec<&str> = tools
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        for name in [
            "price",
            "empty_basket",
            "pack",
            "check_stock",
            "whoami",
            "checkout",
        ] {
            assert!(names.contains(&name), "{revision:?}: {names:?}");
        }
        let prompts = client.list_prompts().await.unwrap();
        assert_eq!(prompts.len(), 1);
        assert_eq!(prompts[0].name, "describe");
        let resources = client.list_resources().await.unwrap();
        assert_eq!(resources.len(), 1);
        assert_eq!(resources[0].uri, "shop://hours");
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates.len(), 1);
        assert_eq!(templates[0].uri_template, "shop://products/{sku}");
    }
}

#[tokio::test]
async fn a_prompt_is_got_and_its_argument_completed() {
    for revision in BOTH {
        let client = client(revision);
        let prompt = client
            .get_prompt("describe", [("product", "scarf"), ("colour", "red")])
            .await
            .unwrap();
        assert_eq!(prompt.messages.len(), 1);
        assert_eq!(
            prompt.messages,
            [PromptMessage::user("Describe the red scarf.")]
        );

        let missing = client
            .get_prompt("describe", [("product", "scarf")])
            .await
            .unwrap_err();
        assert_eq!(missing.code(), Some(ErrorCode::INVALID_PARAMS), "{missing}");

        let completion = client
            .complete(&CompletionRequest::prompt("describe", "colour", "gr"))
            .await
            .unwrap();
        assert_eq!(completion.values, ["green", "grey"], "{revision:?}");
        let socks = client
            .complete(
                &CompletionRequest::prompt("describe", "colour", "gr")
                    .with_context("product", "socks"),
            )
            .await
            .unwrap();
        assert_eq!(socks.values, ["grey"], "{revision:?}");
    }
}

#[tokio::test]
async fn a_resource_is_read_and_a_template_variable_completed() {
    for revision in BOTH {
        let client = client(revision);
        let hours = client.read_resource("shop://hours").await.unwrap();
        assert!(matches!(
            hours.contents.as_slice(),
            [ResourceContents::Text { text, .. }] if text == "9-17"
        ));
        let product = client.read_resource("shop://products/A2").await.unwrap();
        assert!(matches!(
            product.contents.as_slice(),
            [ResourceContents::Text { text, .. }] if text == "product A2"
        ));
        let none = client.read_resource("shop://nothing").await.unwrap_err();
        assert!(matches!(
            none,
            TestClientError::Server {
                method: "resources/read",
                ..
            }
        ));

        let completion = client
            .complete(
                &CompletionRequest::resource("shop://products/{sku}", "sku", "A")
                    .with_context("unused", "x"),
            )
            .await
            .unwrap();
        assert_eq!(completion.values, ["A1", "A2"], "{revision:?}");
    }
}

#[tokio::test]
async fn an_elicitation_is_answered_accepted_declined_or_cancelled() {
    type Answer = fn(&ElicitParams) -> Elicitation<Confirm>;
    let cases: [(Answer, &str); 4] = [
        (
            |_| Elicitation::Accepted(Confirm { confirm: true }),
            "emptied",
        ),
        (
            |_| Elicitation::Accepted(Confirm { confirm: false }),
            "kept: not confirmed",
        ),
        (|_| Elicitation::Declined, "kept: declined"),
        (|_| Elicitation::Cancelled, "kept: cancelled"),
    ];
    for revision in BOTH {
        for (answer, expected) in cases {
            let client = client(revision).on_elicitation(answer);
            let outcome = client.call_tool("empty_basket", json!({})).await.unwrap();
            assert_eq!(outcome.text(), expected, "{revision:?}");
            let [ServerRequestParams::Elicit(question)] = outcome.questions.as_slice() else {
                panic!("{revision:?}: {:?}", outcome.questions);
            };
            assert_eq!(question.message, "Empty the basket?");
            assert_eq!(question.requested_schema["required"], json!(["confirm"]));
            // At 2026-07-28 the question is an `input_required` round; before, a request.
            let rounds = if revision == ProtocolRevision::V2026_07_28 {
                2
            } else {
                1
            };
            assert_eq!(outcome.rounds, rounds, "{revision:?}");
            assert_eq!(client.questions().len(), 1);
        }
    }
}

#[tokio::test]
async fn a_client_without_an_elicitation_handler_cannot_be_asked() {
    let legacy = client(ProtocolRevision::V2025_11_25);
    let outcome = legacy.call_tool("empty_basket", json!({})).await.unwrap();
    assert!(outcome.is_error());
    assert!(outcome.text().contains("elicitation"), "{}", outcome.text());
    assert!(outcome.questions.is_empty());

    let modern = client(ProtocolRevision::V2026_07_28);
    let refused = modern
        .call_tool("empty_basket", json!({}))
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        Some(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY),
        "{refused}"
    );
}

#[tokio::test]
async fn a_calls_progress_is_its_own() {
    for revision in BOTH {
        let client = client(revision);
        let outcome = client.call_tool("pack", json!({"items": 3})).await.unwrap();
        assert_eq!(outcome.text(), "packed 3");
        let seen: Vec<(f64, Option<f64>, Option<&str>)> = outcome
            .progress
            .iter()
            .map(|p| (p.progress, p.total, p.message.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [
                (1.0, Some(3.0), Some("item 1")),
                (2.0, Some(3.0), Some("item 2")),
                (3.0, Some(3.0), Some("item 3")),
            ],
            "{revision:?}"
        );
        let next = client.call_tool("pack", json!({"items": 1})).await.unwrap();
        assert_eq!(
            next.progress.len(),
            1,
            "{revision:?}: only the second call's"
        );
    }
}

#[tokio::test]
async fn log_messages_arrive_at_the_level_asked() {
    for revision in BOTH {
        let everything = client(revision)
            .call_tool("check_stock", json!({}))
            .await
            .unwrap();
        let levels: Vec<LoggingLevel> = everything.logs.iter().map(|log| log.level).collect();
        assert_eq!(
            levels,
            [LoggingLevel::Debug, LoggingLevel::Warning],
            "{revision:?}"
        );
        assert_eq!(everything.logs[1].data, json!({"low": ["socks"]}));

        let warnings = client(revision).log_level(LoggingLevel::Warning);
        let outcome = warnings.call_tool("check_stock", json!({})).await.unwrap();
        let levels: Vec<LoggingLevel> = outcome.logs.iter().map(|log| log.level).collect();
        assert_eq!(levels, [LoggingLevel::Warning], "{revision:?}");
        assert_eq!(warnings.notifications().len(), 1);
    }
}

#[tokio::test]
async fn the_callers_identity_reaches_the_tool() {
    for revision in BOTH {
        let anonymous = client(revision)
            .call_tool("whoami", json!({}))
            .await
            .unwrap();
        assert!(anonymous.is_error(), "{revision:?}");
        let known = client(revision).identity(Customer { name: "ada" });
        let outcome = known.call_tool("whoami", json!({})).await.unwrap();
        assert_eq!(outcome.text(), "hello ada", "{revision:?}");
    }
}

#[tokio::test]
async fn the_revision_is_the_one_chosen() {
    let legacy = client(ProtocolRevision::V2025_11_25);
    let opened = legacy.initialize().await.unwrap();
    assert_eq!(opened.protocol_version, "2025-11-25");
    assert_eq!(legacy.router().protocol_version(), Some("2025-11-25"));
    legacy.ping().await.unwrap();
    assert!(
        legacy.discover().await.is_err(),
        "no server/discover at 2025-11-25"
    );

    let modern = client(ProtocolRevision::V2026_07_28);
    let discovered = modern.discover().await.unwrap();
    assert!(
        discovered
            .supported_versions
            .contains(&"2026-07-28".to_string())
    );
    let refused = modern.initialize().await.unwrap_err();
    assert_eq!(
        refused.code(),
        Some(ErrorCode::METHOD_NOT_FOUND),
        "{refused}"
    );
    assert_eq!(
        modern.router().protocol_version(),
        None,
        "never initialized"
    );
}

#[tokio::test]
async fn calls_run_at_once_each_with_its_own_answers() {
    for revision in BOTH {
        let client =
            client(revision).on_elicitation(|_| Elicitation::Accepted(Confirm { confirm: true }));
        let (a, b, c) = tokio::join!(
            client.call_tool("empty_basket", json!({})),
            client.call_tool("empty_basket", json!({})),
            client.call_tool("pack", json!({"items": 2})),
        );
        assert_eq!(a.unwrap().text(), "emptied", "{revision:?}");
        assert_eq!(b.unwrap().text(), "emptied", "{revision:?}");
        assert_eq!(c.unwrap().progress.len(), 2, "{revision:?}");
    }
}

/// Check out, once the user confirms twice: a question after a question.
#[tool(server = Shop)]
async fn checkout(ctx: ToolContext) -> Result<String, ToolError> {
    let ask = |key: &'static str, message: &'static str| {
        let ctx = ctx.clone();
        async move {
            match ctx.question(key).elicit::<Confirm>(message).await {
                Ok(Elicitation::Accepted(Confirm { confirm })) => Ok(confirm),
                Ok(_) => Ok(false),
                Err(error) => Err(ToolError::new(format!("could not ask: {error}"))),
            }
        }
    };
    let pay = ask("pay", "Pay now?").await?;
    let ship = ask("ship", "Ship today?").await?;
    Ok(format!("pay {pay}, ship {ship}"))
}

#[tokio::test]
async fn questions_asked_one_after_another_are_each_answered_once() {
    for revision in BOTH {
        let client = client(revision).on_elicitation(|question| {
            Elicitation::Accepted(Confirm {
                confirm: question.message == "Ship today?",
            })
        });
        let outcome = client.call_tool("checkout", json!({})).await.unwrap();
        assert_eq!(outcome.text(), "pay false, ship true", "{revision:?}");
        let asked: Vec<&str> = outcome
            .questions
            .iter()
            .filter_map(|question| match question {
                ServerRequestParams::Elicit(question) => Some(question.message.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(asked, ["Pay now?", "Ship today?"], "{revision:?}");
        // At 2026-07-28, the second round carries the first answer in the sealed state.
        let rounds = if revision == ProtocolRevision::V2026_07_28 {
            3
        } else {
            1
        };
        assert_eq!(outcome.rounds, rounds, "{revision:?}");
    }
}

/// Name the project, asking the client's model, in the client's first root.
#[tool(server = Shop)]
async fn name_project(ctx: ToolContext) -> Result<String, ToolError> {
    let roots = ctx
        .list_roots()
        .await
        .map_err(|error| ToolError::new(format!("no roots: {error}")))?;
    let request = claude_tools::mcp::CreateMessageRequest::new(
        [claude_tools::mcp::SamplingMessage::user("Name a project.")],
        50,
    );
    let named = ctx
        .create_message(request)
        .await
        .map_err(|error| ToolError::new(format!("no name: {error}")))?;
    let root = roots
        .first()
        .map(|root| root.uri.as_str())
        .unwrap_or("nowhere");
    let name = named.text().unwrap_or("?");
    Ok(format!("{name} in {root} by {}", named.model))
}

#[tokio::test]
async fn sampling_and_roots_are_answered_as_given() {
    for revision in BOTH {
        let client = client(revision)
            .on_create_message(|request| {
                let asked = request.messages[0].content.as_text().unwrap_or_default();
                CreateMessageResult::from_text("test-model", format!("Atlas ({asked})"))
                    .with_stop_reason("endTurn")
            })
            .roots([Root::new("file:///work/atlas").named("atlas")]);
        let outcome = client.call_tool("name_project", json!({})).await.unwrap();
        assert_eq!(
            outcome.text(),
            "Atlas (Name a project.) in file:///work/atlas by test-model",
            "{revision:?}"
        );
        assert!(
            matches!(
                outcome.questions.as_slice(),
                [
                    ServerRequestParams::ListRoots,
                    ServerRequestParams::CreateMessage(_)
                ]
            ),
            "{revision:?}: {:?}",
            outcome.questions
        );
    }
}

#[tokio::test]
async fn a_client_without_roots_cannot_be_asked_for_them() {
    let legacy = client(ProtocolRevision::V2025_11_25);
    let outcome = legacy.call_tool("name_project", json!({})).await.unwrap();
    assert!(outcome.is_error());
    assert!(outcome.text().starts_with("no roots"), "{}", outcome.text());
    let modern = client(ProtocolRevision::V2026_07_28);
    let refused = modern
        .call_tool("name_project", json!({}))
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        Some(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY),
        "{refused}"
    );
}

/// A prompt that asks the user which tone to take, built by hand (its handler reads the
/// request's context to ask, as a tool does).
fn toned_prompt() -> claude_tools::prompts::Prompt {
    use claude_tools::prompts::{Prompt, PromptArguments};
    Prompt::new("greeting", |args: PromptArguments| async move {
        let formal = match args.context().elicit::<Confirm>("Formal?").await {
            Ok(Elicitation::Accepted(Confirm { confirm })) => confirm,
            Ok(_) => false,
            Err(error) => return Err(PromptError::new(format!("could not ask: {error}"))),
        };
        Ok::<_, PromptError>(if formal { "Good day." } else { "Hi!" }.to_string())
    })
}

#[tokio::test]
async fn a_prompt_that_asks_the_user_is_answered_too() {
    for revision in BOTH {
        let server = Shop::server().with_prompt(toned_prompt()).unwrap();
        let client = TestClient::new(server)
            .revision(revision)
            .on_elicitation(|_| Elicitation::Accepted(Confirm { confirm: true }));
        let prompt = client
            .get_prompt("greeting", std::iter::empty::<(String, String)>())
            .await
            .unwrap();
        assert_eq!(
            prompt.messages,
            [PromptMessage::user("Good day.")],
            "{revision:?}"
        );
        assert_eq!(client.questions().len(), 1, "{revision:?}");
    }
}
