//! Sampling: a running tool asks the client's model for a message (`sampling/createMessage`).

use serde::{Deserialize, Serialize};

use super::AskError;
use crate::jsonrpc::RawParams;

/// Who speaks a [`SamplingMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user.
    User,
    /// The model.
    Assistant,
}

/// The content of a sampling message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum SamplingContent {
    /// Text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64.
    Image {
        /// The bytes, base64.
        data: String,
        /// `image/png`, …
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// Audio, base64.
    Audio {
        /// The bytes, base64.
        data: String,
        /// `audio/wav`, …
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl SamplingContent {
    /// Text content.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingContent::Text { text: text.into() }
    }

    /// The text, for text content.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingContent::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// One message of the conversation the client's model continues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
}

impl SamplingMessage {
    /// A text message from the user.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: SamplingContent::text(text),
        }
    }

    /// A text message from the model.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: SamplingContent::text(text),
        }
    }
}

/// A hint at a model, by name (the client matches it loosely: `"claude-3-5-sonnet"`, `"sonnet"`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ModelHint {
    /// A model name, or part of one.
    pub name: String,
}

/// What the server would like of the model; the client decides.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelPreferences {
    /// Model names, in order of preference.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<ModelHint>,
    /// How much cost matters, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much intelligence matters, 0 to 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

impl ModelPreferences {
    /// Preferences with `name` as a hint (call again for more, in order of preference).
    pub fn hint(mut self, name: impl Into<String>) -> Self {
        self.hints.push(ModelHint { name: name.into() });
        self
    }

    /// Sets how much cost, speed and intelligence matter, each from 0 to 1.
    pub fn priorities(mut self, cost: f64, speed: f64, intelligence: f64) -> Self {
        self.cost_priority = Some(cost);
        self.speed_priority = Some(speed);
        self.intelligence_priority = Some(intelligence);
        self
    }
}

/// Which MCP servers' context the client should add to the prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum IncludeContext {
    /// None.
    None,
    /// This server's.
    ThisServer,
    /// Every server's.
    AllServers,
}

/// The params of `sampling/createMessage`: what a tool asks the client's model.
///
/// ```
/// use claude_tools::mcp::{CreateMessageRequest, ModelPreferences, SamplingMessage};
///
/// let request = CreateMessageRequest::new([SamplingMessage::user("Name this colour: #ff7f50")], 50)
///     .system_prompt("Answer with one word.")
///     .model_preferences(ModelPreferences::default().hint("haiku"));
/// assert_eq!(
///     serde_json::to_value(&request).unwrap(),
///     serde_json::json!({
///         "messages": [{"role": "user", "content": {"type": "text", "text": "Name this colour: #ff7f50"}}],
///         "maxTokens": 50,
///         "systemPrompt": "Answer with one word.",
///         "modelPreferences": {"hints": [{"name": "haiku"}]}
///     })
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageRequest {
    /// The conversation so far.
    pub messages: Vec<SamplingMessage>,
    /// The most tokens the answer may have.
    pub max_tokens: u32,
    /// The system prompt, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// What the server would like of the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// The sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Texts that end the answer.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// Which servers' context to add.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
}

impl CreateMessageRequest {
    /// A request to continue `messages` with at most `max_tokens` tokens.
    pub fn new(messages: impl IntoIterator<Item = SamplingMessage>, max_tokens: u32) -> Self {
        Self {
            messages: messages.into_iter().collect(),
            max_tokens,
            system_prompt: None,
            model_preferences: None,
            temperature: None,
            stop_sequences: Vec::new(),
            include_context: None,
        }
    }

    /// Sets the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Sets the model preferences.
    pub fn model_preferences(mut self, preferences: ModelPreferences) -> Self {
        self.model_preferences = Some(preferences);
        self
    }

    /// Sets the temperature.
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Adds a stop sequence.
    pub fn stop_sequence(mut self, stop: impl Into<String>) -> Self {
        self.stop_sequences.push(stop.into());
        self
    }

    /// Sets which servers' context the client adds.
    pub fn include_context(mut self, include: IncludeContext) -> Self {
        self.include_context = Some(include);
        self
    }
}

/// The client's answer to `sampling/createMessage`: the model's message. A client (a test's,
/// say) writes one with [`CreateMessageResult::from_text`] or [`CreateMessageResult::new`].
///
/// ```
/// use claude_tools::mcp::CreateMessageResult;
///
/// let answer = CreateMessageResult::from_text("test-model", "Paris").with_stop_reason("endTurn");
/// assert_eq!(answer.text(), Some("Paris"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// Who speaks (the model: `assistant`).
    pub role: Role,
    /// What it said.
    pub content: SamplingContent,
    /// The model that answered.
    pub model: String,
    /// Why it stopped (`endTurn`, `stopSequence`, `maxTokens`, or the client's own word).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// The model `model` answered `content` (text, an image, audio), as the assistant.
    pub fn new(model: impl Into<String>, content: SamplingContent) -> Self {
        Self {
            role: Role::Assistant,
            content,
            model: model.into(),
            stop_reason: None,
        }
    }

    /// The model `model` answered `text`.
    pub fn from_text(model: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(model, SamplingContent::text(text))
    }

    /// The same answer, saying why the model stopped (`endTurn`, `maxTokens`…).
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }

    /// The text of the answer, when it is text.
    pub fn text(&self) -> Option<&str> {
        self.content.as_text()
    }
}

/// Reads the client's `sampling/createMessage` result.
pub(crate) fn read_message(result: &RawParams) -> Result<CreateMessageResult, AskError> {
    result.parse().map_err(|error| {
        AskError::InvalidAnswer(format!(
            "a sampling/createMessage result is {{\"role\", \"content\": {{\"type\": \"text\", …}}, \
             \"model\", \"stopReason\"?}} ({error})"
        ))
    })
}
