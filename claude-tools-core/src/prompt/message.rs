//! What a prompt answers: [`GetPromptResult`], its [`PromptMessage`]s, and the
//! [`IntoPromptResult`] conversions from what a prompt fn returns.

use serde::Serialize;

use super::PromptError;
use crate::tool::Content;

/// Who says a [`PromptMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The assistant (a reply the conversation starts with).
    Assistant,
}

/// One message of a prompt: a role and one content block (text, an image, audio, an embedded
/// resource, or any other MCP block through [`Content::Raw`]).
///
/// ```
/// use claude_tools::prompts::PromptMessage;
///
/// let message = PromptMessage::user("How far is 3 km in miles?");
/// assert_eq!(
///     serde_json::to_value(&message).unwrap(),
///     serde_json::json!({"role": "user", "content": {"type": "text", "text": "How far is 3 km in miles?"}})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: Content,
}

impl PromptMessage {
    /// A message from `role` carrying `content` (an image, audio, an embedded resource…).
    ///
    /// ```
    /// use claude_tools::prompts::{PromptMessage, Role};
    /// use claude_tools::resources::ResourceContents;
    /// use claude_tools::tools::Content;
    ///
    /// let notes = ResourceContents::text("notes://today", "Buy milk", Some("text/plain"));
    /// let message = PromptMessage::new(Role::User, Content::resource(notes));
    /// assert_eq!(
    ///     serde_json::to_value(&message).unwrap(),
    ///     serde_json::json!({"role": "user", "content": {"type": "resource", "resource": {
    ///         "uri": "notes://today", "mimeType": "text/plain", "text": "Buy milk"
    ///     }}})
    /// );
    /// ```
    pub fn new(role: Role, content: Content) -> Self {
        Self { role, content }
    }

    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: Content::text(text),
        }
    }

    /// A text message from the assistant.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: Content::text(text),
        }
    }
}

/// The result of `prompts/get`: the messages, and a description of this rendering.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct GetPromptResult {
    /// What these messages are for, when the prompt says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages, in order.
    pub messages: Vec<PromptMessage>,
}

impl GetPromptResult {
    /// A result of these messages, without a description.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        Self {
            description: None,
            messages,
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// What a prompt fn may return: a `String` (one user message), a [`PromptMessage`], a
/// `Vec<PromptMessage>`, a [`GetPromptResult`], or a `Result` of one of these whose error
/// converts into a [`PromptError`] (any `std::error::Error`, a `ToolError`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the result of a prompt",
    label = "a prompt returns messages",
    note = "return a String (one user message), a PromptMessage, a Vec<PromptMessage>, a GetPromptResult, or a Result of one of these with an error that converts into PromptError"
)]
pub trait IntoPromptResult {
    /// The result, or the error to answer.
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError>;
}

impl IntoPromptResult for GetPromptResult {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(self)
    }
}

impl IntoPromptResult for String {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(vec![PromptMessage::user(self)]))
    }
}

impl IntoPromptResult for &'static str {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        self.to_string().into_prompt_result()
    }
}

impl IntoPromptResult for PromptMessage {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPromptResult for Vec<PromptMessage> {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        Ok(GetPromptResult::new(self))
    }
}

impl<T: IntoPromptResult, E: Into<PromptError>> IntoPromptResult for Result<T, E> {
    fn into_prompt_result(self) -> Result<GetPromptResult, PromptError> {
        self.map_err(Into::into)?.into_prompt_result()
    }
}
