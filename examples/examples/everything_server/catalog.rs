//! The resources, the resource template and the prompts the suite reads (`resources-*`,
//! `prompts-*`, `completion-complete`, `caching`, `sep-2164-resource-not-found`).

use claude_tools::prelude::*;
use claude_tools::prompts::{Prompt, PromptArguments, Role};
use claude_tools::tools::Image;

use crate::Everything;
use crate::content::{RED_PIXEL_PNG, embedded_text};

/// A fixed text resource.
#[resource(server = Everything, uri = "test://static-text", mime_type = "text/plain")]
fn static_text() -> &'static str {
    "This is the content of the static text resource."
}

/// A fixed binary resource: a 1×1 red PNG.
#[resource(server = Everything, uri = "test://static-binary", mime_type = "image/png")]
fn static_binary() -> Blob {
    Blob(RED_PIXEL_PNG.to_vec())
}

/// What `test://template/{id}/data` holds.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TemplateData {
    id: String,
    template_test: bool,
    data: String,
}

/// Data for an id: the template's variable, read back in the contents.
#[resource(server = Everything, uri = "test://template/{id}/data", mime_type = "application/json")]
fn template_data(id: String) -> Result<String, serde_json::Error> {
    let data = TemplateData {
        data: format!("Data for ID: {id}"),
        id,
        template_test: true,
    };
    serde_json::to_string(&data)
}

/// A resource clients subscribe to (`resources/subscribe`, `resources/unsubscribe`).
#[resource(server = Everything, uri = "test://watched-resource", mime_type = "text/plain")]
fn watched_resource() -> &'static str {
    "This resource is watched for changes."
}

/// A prompt without arguments.
#[prompt(server = Everything)]
fn test_simple_prompt() -> &'static str {
    "This is a simple prompt for testing."
}

/// The values `arg1` of [`test_prompt_with_arguments`] completes to: those starting with what
/// was typed.
fn arg1_values(typed: &str) -> Vec<String> {
    ["paris", "park", "party"]
        .into_iter()
        .filter(|value| value.starts_with(typed))
        .map(str::to_string)
        .collect()
}

/// A prompt with two arguments, written into its message.
#[prompt(server = Everything, complete(arg1 = arg1_values))]
fn test_prompt_with_arguments(
    /// First test argument
    arg1: String,
    /// Second test argument
    arg2: String,
) -> String {
    format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
}

/// The prompt `test_prompt_with_embedded_resource`: the resource its argument `resourceUri`
/// names, embedded, then a request to process it.
///
/// Built at run time rather than with `#[prompt]`: a prompt fn's arguments take their
/// parameters' names, and `resourceUri` is not a Rust parameter name (renaming prompt arguments
/// as `#[arg(rename)]` renames tool parameters is not there yet).
pub fn embedded_resource_prompt() -> Prompt {
    Prompt::new(
        "test_prompt_with_embedded_resource",
        |mut arguments: PromptArguments| async move {
            let uri: String = arguments.required("resourceUri")?;
            Ok::<_, PromptError>(vec![
                PromptMessage {
                    role: Role::User,
                    content: embedded_text(
                        uri,
                        "text/plain",
                        "Embedded resource content for testing.",
                    ),
                },
                PromptMessage::user("Please process the embedded resource above."),
            ])
        },
    )
    .description("Embeds the resource its argument names, then asks to process it.")
    .argument("resourceUri", "URI of the resource to embed", true)
}

/// A prompt with an image, then a question about it.
#[prompt(server = Everything)]
fn test_prompt_with_image() -> Vec<PromptMessage> {
    vec![
        PromptMessage {
            role: Role::User,
            content: Content::Image(Image::png(RED_PIXEL_PNG)),
        },
        PromptMessage::user("Please analyze the image above."),
    ]
}

/// The form of [`input_required_prompt`].
#[derive(Deserialize, JsonSchema)]
struct PromptContext {
    context: String,
}

/// The prompt `test_input_required_result_prompt`: it asks the user which context to use
/// before it is built (at 2026-07-28 through an `input_required` result, under the key
/// `user_context`), as a tool asks.
pub fn input_required_prompt() -> Prompt {
    Prompt::new(
        "test_input_required_result_prompt",
        |arguments: PromptArguments| async move {
            let answer = arguments
                .context()
                .question("user_context")
                .elicit::<PromptContext>("What context should the prompt use?")
                .await
                .map_err(|error| PromptError::new(error.to_string()))?;
            let text = match answer {
                claude_tools::mcp::Elicitation::Accepted(PromptContext { context }) => {
                    format!("Use this context: {context}")
                }
                _ => "No context was given.".to_string(),
            };
            Ok::<_, PromptError>(text)
        },
    )
    .description("Asks the user which context to use, then builds the prompt with it.")
}
