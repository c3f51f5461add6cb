//! [`UserInput`]: the user messages the host writes (host → CLI).

use serde_json::{Value, json};

/// A user message the host sends: text, or content blocks such as images.
///
/// ```
/// use claude_tools::message::UserInput;
///
/// let input = UserInput::text("What is in this picture?").with_image("image/png", "iVBORw0KGgo=");
/// assert_eq!(input.to_message("")["message"]["content"][1]["source"]["media_type"], "image/png");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct UserInput {
    content: Vec<Value>,
    plain: Option<String>,
    uuid: Option<String>,
    composed: bool,
}

impl UserInput {
    /// A text prompt.
    pub fn text(text: impl Into<String>) -> Self {
        let text = text.into();
        Self {
            content: vec![json!({"type": "text", "text": text})],
            plain: Some(text),
            uuid: None,
            composed: false,
        }
    }

    /// A message of content blocks (Anthropic API shapes).
    pub fn blocks(blocks: Vec<Value>) -> Self {
        Self {
            content: blocks,
            plain: None,
            uuid: None,
            composed: false,
        }
    }

    /// Adds a base64 image block.
    pub fn with_image(mut self, media_type: &str, base64_data: &str) -> Self {
        self.plain = None;
        self.content.push(json!({"type": "image", "source": {"type": "base64", "media_type": media_type, "data": base64_data}}));
        self
    }

    /// Adds a text block.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.plain = None;
        self.content
            .push(json!({"type": "text", "text": text.into()}));
        self
    }

    /// Sets the message uuid (the CLI echoes it as `user_message_uuid`).
    pub fn with_uuid(mut self, uuid: impl Into<String>) -> Self {
        self.uuid = Some(uuid.into());
        self
    }

    /// Marks the message as composed by the application rather than typed by a user
    /// (`client_composed: true`): the CLI takes its text as written, with no `@path` mention
    /// expanded and no slash command run. [`Options::verbatim_prompts`] marks every prompt so.
    ///
    /// [`Options::verbatim_prompts`]: crate::options::Options::verbatim_prompts
    ///
    /// ```
    /// use claude_tools::message::UserInput;
    ///
    /// let frame = UserInput::text("/compact is just text here").client_composed().to_message("");
    /// assert_eq!(frame["client_composed"], true);
    /// ```
    pub fn client_composed(mut self) -> Self {
        self.composed = true;
        self
    }

    /// Whether [`UserInput::client_composed`] marked it.
    pub fn is_client_composed(&self) -> bool {
        self.composed
    }

    /// The stream-json frame: a lone text is sent as a plain string, as the official Python
    /// SDK does.
    pub fn to_message(&self, session_id: &str) -> Value {
        self.to_frame(session_id, self.composed)
    }

    /// The frame, marked `client_composed` when `composed`.
    pub(crate) fn to_frame(&self, session_id: &str, composed: bool) -> Value {
        let content = match &self.plain {
            Some(text) => Value::String(text.clone()),
            None => Value::Array(self.content.clone()),
        };
        let mut frame = json!({
            "type": "user",
            "session_id": session_id,
            "message": {"role": "user", "content": content},
            "parent_tool_use_id": null,
        });
        if let Some(uuid) = &self.uuid {
            frame["uuid"] = json!(uuid);
        }
        if composed {
            frame["client_composed"] = json!(true);
        }
        frame
    }
}
