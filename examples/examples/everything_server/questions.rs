//! Tools that ask the client something mid-call: a form (elicitation), a message from its
//! model (sampling), its roots.
//!
//! Each is written once, with `ToolContext`'s questions. On a 2025-11-25 session each question
//! is a request to the client on the session's stream (`tools-call-sampling`,
//! `tools-call-elicitation`, `elicitation-sep1034-defaults`, `elicitation-sep1330-enums`); at
//! 2026-07-28 the call answers `input_required` and completes when the client retries with the
//! answers (the `input-required-result-*` scenarios, `test_missing_capability` and
//! `test_streaming_elicitation` of `server-stateless`).

use claude_tools::mcp::{CreateMessageRequest, Elicitation, SamplingMessage};
use claude_tools::prelude::*;

use crate::Everything;

// ---- 2025-11-25: requests to the client on the session -------------------------------------

/// Asks the client's model to answer `prompt` (MCP sampling) and returns its answer.
#[tool(server = Everything)]
async fn test_sampling(
    context: ToolContext,
    /// The prompt to send to the model
    prompt: String,
) -> Result<String, ToolError> {
    let answer = context
        .create_message(CreateMessageRequest::new(
            [SamplingMessage::user(prompt)],
            100,
        ))
        .await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or("(no text)")
    ))
}

/// The form of [`test_elicitation`].
#[derive(Deserialize, Serialize, JsonSchema)]
struct UserInfo {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

/// Shows the user `message` with a form for a user name and an email address, and returns
/// the answer.
#[tool(server = Everything)]
async fn test_elicitation(
    context: ToolContext,
    /// The message to show the user
    message: String,
) -> Result<String, ToolError> {
    let answer = context.elicit::<UserInfo>(message).await?;
    Ok(format!("User response: {}", describe(&answer)))
}

/// The `status` field of [`Defaults`].
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// The form of [`test_elicitation_sep1034_defaults`]: a default for every primitive type
/// (SEP-1034).
#[derive(Deserialize, Serialize, JsonSchema)]
struct Defaults {
    #[serde(default = "default_name")]
    name: String,
    #[serde(default = "default_age")]
    age: i64,
    #[serde(default = "default_score")]
    score: f64,
    #[serde(default = "default_status")]
    status: Status,
    #[serde(default = "default_verified")]
    verified: bool,
}

fn default_name() -> String {
    "John Doe".to_string()
}

fn default_age() -> i64 {
    30
}

fn default_score() -> f64 {
    95.5
}

fn default_status() -> Status {
    Status::Active
}

fn default_verified() -> bool {
    true
}

/// Asks for a form whose every field has a default (SEP-1034).
#[tool(server = Everything)]
async fn test_elicitation_sep1034_defaults(context: ToolContext) -> Result<String, ToolError> {
    let answer = context
        .elicit::<Defaults>("Please review your details")
        .await?;
    Ok(format!("Elicitation completed: {}", describe(&answer)))
}

/// An untitled single-select: a plain `enum` of strings.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum UntitledOption {
    Option1,
    Option2,
    Option3,
}

/// A titled single-select: each variant's doc comment is its title (`oneOf` of `const` and
/// `title`, SEP-1330).
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledValue {
    /// First Option
    Value1,
    /// Second Option
    Value2,
    /// Third Option
    Value3,
}

/// The legacy titled single-select: an `enum` with its titles in `enumNames` (deprecated by
/// SEP-1330, still in the form schema).
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(extend("enumNames" = ["Option One", "Option Two", "Option Three"]))]
enum LegacyOption {
    Opt1,
    Opt2,
    Opt3,
}

/// A titled multi-select's choices (`items.anyOf` of `const` and `title`).
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum TitledChoice {
    /// First Choice
    Value1,
    /// Second Choice
    Value2,
    /// Third Choice
    Value3,
}

/// The form of [`test_elicitation_sep1330_enums`]: the five enum forms of SEP-1330.
#[derive(Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct EnumForms {
    untitled_single: UntitledOption,
    titled_single: TitledValue,
    legacy_enum: LegacyOption,
    untitled_multi: Vec<UntitledOption>,
    titled_multi: Vec<TitledChoice>,
}

/// Asks for a form with every enum form of SEP-1330: untitled and titled single-select, the
/// legacy `enumNames`, untitled and titled multi-select.
#[tool(server = Everything)]
async fn test_elicitation_sep1330_enums(context: ToolContext) -> Result<String, ToolError> {
    let answer = context
        .elicit::<EnumForms>("Please pick from each list")
        .await?;
    Ok(format!("Elicitation completed: {}", describe(&answer)))
}

/// What the user did with a form, for the tool's answer: `action=…` and the content, as JSON.
fn describe<T: Serialize>(answer: &Elicitation<T>) -> String {
    match answer {
        Elicitation::Accepted(content) => {
            let content = serde_json::to_string(content).unwrap_or_default();
            format!("action=accept, content={content}")
        }
        Elicitation::Declined => "action=decline".to_string(),
        Elicitation::Cancelled => "action=cancel".to_string(),
    }
}

// ---- 2026-07-28: questions answered through input_required results -------------------------

/// Needs a message from the client's model: a request that did not declare `sampling` gets
/// `-32021` (MissingRequiredClientCapability), `data.requiredCapabilities` `{"sampling": {}}`.
#[tool(server = Everything)]
async fn test_missing_capability(context: ToolContext) -> Result<String, ToolError> {
    let answer = context
        .create_message(CreateMessageRequest::new(
            [SamplingMessage::user("Say something")],
            20,
        ))
        .await?;
    Ok(format!(
        "LLM response: {}",
        answer.text().unwrap_or("(no text)")
    ))
}

/// The form of [`test_streaming_elicitation`].
#[derive(Deserialize, Serialize, JsonSchema)]
struct Answer {
    /// Your answer
    answer: String,
}

/// Asks the user a question; at 2026-07-28 the question must travel as an `input_required`
/// result, never as a request on the call's response stream.
#[tool(server = Everything)]
async fn test_streaming_elicitation(context: ToolContext) -> Result<String, ToolError> {
    let answer = context.elicit::<Answer>("What is your answer?").await?;
    Ok(format!("Answered: {}", describe(&answer)))
}

/// The form of [`test_input_required_result_elicitation`] and of the first step of
/// [`test_input_required_result_multi_round`].
#[derive(Deserialize, Serialize, JsonSchema)]
struct Name {
    name: String,
}

/// Asks the user's name, then greets them. The suite expects the question under the key
/// `user_name` of `inputRequests` (a question named with `ToolContext::question`).
#[tool(server = Everything)]
async fn test_input_required_result_elicitation(context: ToolContext) -> Result<String, ToolError> {
    let question = context.question("user_name");
    match question.elicit::<Name>("What is your name?").await? {
        Elicitation::Accepted(Name { name }) => Ok(format!("Hello, {name}!")),
        other => Ok(format!("No name given: {}", describe(&other))),
    }
}

/// Asks the client's model for the capital of France.
#[tool(server = Everything)]
async fn test_input_required_result_sampling(context: ToolContext) -> Result<String, ToolError> {
    let answer = context
        .question("capital_question")
        .create_message(CreateMessageRequest::new(
            [SamplingMessage::user("What is the capital of France?")],
            100,
        ))
        .await?;
    Ok(format!(
        "Sampling answer: {}",
        answer.text().unwrap_or("(no text)")
    ))
}

/// Asks the client for its roots and names them.
#[tool(server = Everything)]
async fn test_input_required_result_list_roots(context: ToolContext) -> Result<String, ToolError> {
    let roots = context.question("client_roots").list_roots().await?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("Client roots: {}", uris.join(", ")))
}

/// The form of [`test_input_required_result_request_state`] and
/// [`test_input_required_result_tampered_state`].
#[derive(Deserialize, Serialize, JsonSchema)]
struct Confirmation {
    ok: bool,
}

/// Asks for a confirmation; the `input_required` result carries a `requestState` the retry
/// echoes, and the answer says `state-ok` once that state was accepted.
#[tool(server = Everything)]
async fn test_input_required_result_request_state(
    context: ToolContext,
) -> Result<String, ToolError> {
    let answer = context
        .question("confirm")
        .elicit::<Confirmation>("Please confirm")
        .await?;
    Ok(format!("state-ok: {}", describe(&answer)))
}

/// Asks three questions at once (a form, a message from the model and the roots), answered
/// together in one retry.
#[tool(server = Everything)]
async fn test_input_required_result_multiple_inputs(
    context: ToolContext,
) -> Result<String, ToolError> {
    let (name, greeting, roots) = tokio::join!(
        context
            .question("user_name")
            .elicit::<Name>("What is your name?"),
        context
            .question("greeting")
            .create_message(CreateMessageRequest::new(
                [SamplingMessage::user("Generate a greeting")],
                50,
            )),
        context.question("client_roots").list_roots(),
    );
    let name = match name? {
        Elicitation::Accepted(Name { name }) => name,
        other => describe(&other),
    };
    Ok(format!(
        "name: {name}; greeting: {}; roots: {}",
        greeting?.text().unwrap_or("(no text)"),
        roots?.len()
    ))
}

/// The form of the second step of [`test_input_required_result_multi_round`].
#[derive(Deserialize, Serialize, JsonSchema)]
struct Colour {
    color: String,
}

/// Asks two questions one after the other: the second `input_required` result carries a new
/// `requestState`.
#[tool(server = Everything)]
async fn test_input_required_result_multi_round(context: ToolContext) -> Result<String, ToolError> {
    let name = context
        .question("step1")
        .elicit::<Name>("Step 1: What is your name?")
        .await?;
    let colour = context
        .question("step2")
        .elicit::<Colour>("Step 2: What is your favorite color?")
        .await?;
    Ok(format!(
        "step 1: {}; step 2: {}",
        describe(&name),
        describe(&colour)
    ))
}

/// Asks for a confirmation; a retry whose `requestState` was tampered with is refused.
#[tool(server = Everything)]
async fn test_input_required_result_tampered_state(
    context: ToolContext,
) -> Result<String, ToolError> {
    let answer = context
        .question("confirm")
        .elicit::<Confirmation>("Please confirm")
        .await?;
    Ok(format!("confirmed: {}", describe(&answer)))
}

/// Asks only what the request's client can answer: a form when it declared `elicitation`,
/// else a message from its model when it declared `sampling`.
#[tool(server = Everything)]
async fn test_input_required_result_capabilities(
    context: ToolContext,
) -> Result<String, ToolError> {
    let capabilities = context
        .client()
        .map(|client| client.capabilities())
        .unwrap_or_default();
    if capabilities.elicitation {
        let answer = context.elicit::<Name>("What is your name?").await?;
        Ok(format!(
            "capabilities-ok: elicitation, {}",
            describe(&answer)
        ))
    } else if capabilities.sampling {
        let answer = context
            .create_message(CreateMessageRequest::new(
                [SamplingMessage::user("Say hello")],
                20,
            ))
            .await?;
        Ok(format!(
            "capabilities-ok: sampling, {}",
            answer.text().unwrap_or("(no text)")
        ))
    } else {
        Ok("No supported capabilities declared".to_string())
    }
}
