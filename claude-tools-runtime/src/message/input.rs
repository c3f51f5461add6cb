//! [`UserInput`]: the user messages the host writes (host → CLI), with the frame fields of the
//! TypeScript SDK 0.3.332's `SDKUserMessage` that the CLI 2.1.332 reads on its input.

use serde::Serialize;
use serde_json::{Value, json};

use crate::wire_enum::wire_enum;

wire_enum! {
    /// Where a user message goes in the CLI's queue of input
    /// ([`UserInput::with_priority`]; `priority` on the wire). Without one the CLI takes
    /// [`Next`](QueuePriority::Next).
    pub enum QueuePriority {
        /// Interrupts the running turn and is taken at once.
        Now = "now",
        /// Taken at the next point the running turn can take input (between tool calls), or
        /// starts the next turn: the CLI's default.
        Next = "next",
        /// Waits until the running turn has ended.
        Later = "later",
    }
}

/// One entry of `pasted_content` ([`UserInput::with_pasted_text`],
/// [`UserInput::with_pasted_blocks`]): what the user pasted, apart from what they typed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
enum Paste {
    Text(String),
    Blocks(Vec<Value>),
}

/// A user message the host sends: text, or content blocks such as images, with the frame
/// fields that say how the CLI takes it (queue priority, whether it starts a turn, pastes).
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
    parent_tool_use_id: Option<String>,
    priority: Option<QueuePriority>,
    starts_turn: bool,
    pasted_content: Vec<Paste>,
    inline_pastes: Vec<String>,
    session_id: Option<String>,
}

impl UserInput {
    /// A text prompt.
    pub fn text(text: impl Into<String>) -> Self {
        let text = text.into();
        Self::with_content(vec![json!({"type": "text", "text": text})], Some(text))
    }

    /// A message of content blocks (Anthropic API shapes).
    pub fn blocks(blocks: Vec<Value>) -> Self {
        Self::with_content(blocks, None)
    }

    fn with_content(content: Vec<Value>, plain: Option<String>) -> Self {
        Self {
            content,
            plain,
            uuid: None,
            composed: false,
            parent_tool_use_id: None,
            priority: None,
            starts_turn: true,
            pasted_content: Vec::new(),
            inline_pastes: Vec::new(),
            session_id: None,
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

    /// Writes `session_id` on the frame in place of the sender's (Python's
    /// `query(prompt, session_id)`; [`Client::send`](crate::client::Client::send) writes
    /// `default` otherwise). The CLI runs the session it was started with
    /// ([`Options::session_id`](crate::options::Options::session_id), `resume`): this labels
    /// the message, as the Python SDK's argument does; it does not switch conversations.
    ///
    /// ```
    /// use claude_tools::message::UserInput;
    ///
    /// let frame = UserInput::text("hi").with_session_id("thread-2").to_message("default");
    /// assert_eq!(frame["session_id"], "thread-2");
    /// ```
    pub fn with_session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
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

    /// Where the message goes in the CLI's input queue (`priority`): [`QueuePriority::Now`]
    /// interrupts the running turn, [`Later`](QueuePriority::Later) waits for it to end.
    ///
    /// ```
    /// use claude_tools::message::{QueuePriority, UserInput};
    ///
    /// let frame = UserInput::text("Stop, use the staging database").with_priority(QueuePriority::Now);
    /// assert_eq!(frame.to_message("")["priority"], "now");
    /// ```
    pub fn with_priority(mut self, priority: QueuePriority) -> Self {
        self.priority = Some(priority);
        self
    }

    /// Appends the message to the conversation without starting a turn (`shouldQuery:
    /// false`): context for later, which the model reads with the next user message that does
    /// start one. The CLI 2.1.332 still answers it with a `result` of its own, at once and with
    /// no model call (`num_turns` 0, an empty text), so
    /// [`Client::receive_response`](crate::client::Client::receive_response) returns for it.
    ///
    /// ```
    /// use claude_tools::message::UserInput;
    ///
    /// let note = UserInput::text("The user switched to the staging branch.").without_turn();
    /// assert_eq!(note.to_message("")["shouldQuery"], false);
    /// assert!(!note.starts_turn());
    /// ```
    pub fn without_turn(mut self) -> Self {
        self.starts_turn = false;
        self
    }

    /// Whether the CLI starts a turn for it: `false` after [`without_turn`](Self::without_turn).
    pub fn starts_turn(&self) -> bool {
        self.starts_turn
    }

    /// The subagent's `Agent`/`Task` call this message belongs to (`parent_tool_use_id`;
    /// `null` without it).
    pub fn with_parent_tool_use_id(mut self, tool_use_id: impl Into<String>) -> Self {
        self.parent_tool_use_id = Some(tool_use_id.into());
        self
    }

    /// Adds text the user pasted rather than typed, taken out of the message (an entry of
    /// `pasted_content`): the CLI appends each entry's text after the typed text, in order, and
    /// may wrap it in `<pasted_content>` tags. Send images and documents as content blocks of
    /// the message instead ([`with_image`](Self::with_image)).
    ///
    /// ```
    /// use claude_tools::message::UserInput;
    ///
    /// let frame = UserInput::text("Why does this fail?")
    ///     .with_pasted_text("error[E0382]: borrow of moved value")
    ///     .to_message("");
    /// assert_eq!(frame["pasted_content"][0], "error[E0382]: borrow of moved value");
    /// ```
    pub fn with_pasted_text(mut self, text: impl Into<String>) -> Self {
        self.pasted_content.push(Paste::Text(text.into()));
        self
    }

    /// Adds pasted content blocks as one entry of `pasted_content` (the CLI reads their text
    /// blocks and ignores the others); see [`with_pasted_text`](Self::with_pasted_text).
    pub fn with_pasted_blocks(mut self, blocks: Vec<Value>) -> Self {
        self.pasted_content.push(Paste::Blocks(blocks));
        self
    }

    /// Marks `text`, which is still in the message where the user pasted it, as one paste
    /// (an entry of `inline_pastes`): the message is sent unchanged, and the CLI may wrap that
    /// text in `<pasted_content>` tags. It looks at the first 100 entries that are not blank.
    pub fn with_inline_paste(mut self, text: impl Into<String>) -> Self {
        self.inline_pastes.push(text.into());
        self
    }

    /// The stream-json frame: a lone text is sent as a plain string, as the official Python
    /// SDK does.
    pub fn to_message(&self, session_id: &str) -> Value {
        self.to_frame(session_id, self.composed)
    }

    /// The frame, marked `client_composed` when `composed`.
    pub(crate) fn to_frame(&self, session_id: &str, composed: bool) -> Value {
        let content = match &self.plain {
            Some(text) => FrameContent::Plain(text),
            None => FrameContent::Blocks(&self.content),
        };
        let frame = Frame {
            kind: "user",
            session_id: self.session_id.as_deref().unwrap_or(session_id),
            message: FrameBody {
                role: "user",
                content,
            },
            parent_tool_use_id: self.parent_tool_use_id.as_deref(),
            uuid: self.uuid.as_deref(),
            client_composed: composed.then_some(true),
            priority: self.priority.as_ref(),
            should_query: (!self.starts_turn).then_some(false),
            pasted_content: &self.pasted_content,
            inline_pastes: &self.inline_pastes,
        };
        // Cannot fail: every map key of the frame is a string.
        serde_json::to_value(frame).unwrap_or(Value::Null)
    }
}

/// The `user` frame as the CLI reads it on its input, in the TypeScript SDK's key order.
#[derive(Serialize)]
struct Frame<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    session_id: &'a str,
    message: FrameBody<'a>,
    parent_tool_use_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    uuid: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    client_composed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    priority: Option<&'a QueuePriority>,
    #[serde(rename = "shouldQuery", skip_serializing_if = "Option::is_none")]
    should_query: Option<bool>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pasted_content: &'a [Paste],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    inline_pastes: &'a [String],
}

#[derive(Serialize)]
struct FrameBody<'a> {
    role: &'static str,
    content: FrameContent<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum FrameContent<'a> {
    Plain(&'a str),
    Blocks(&'a [Value]),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_prompt_is_written_as_before() {
        assert_eq!(
            UserInput::text("hi").to_message("s").to_string(),
            r#"{"type":"user","session_id":"s","message":{"role":"user","content":"hi"},"parent_tool_use_id":null}"#
        );
        assert_eq!(
            UserInput::blocks(vec![json!({"type": "text", "text": "a"})])
                .with_uuid("u1")
                .client_composed()
                .to_message("")
                .to_string(),
            r#"{"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"a"}]},"parent_tool_use_id":null,"uuid":"u1","client_composed":true}"#
        );
    }

    #[test]
    fn a_session_id_given_to_the_input_replaces_the_senders() {
        let frame = |input: UserInput| input.to_message("default")["session_id"].clone();
        assert_eq!(frame(UserInput::text("hi")), "default");
        assert_eq!(
            frame(UserInput::text("hi").with_session_id("thread-2")),
            "thread-2"
        );
    }

    #[test]
    fn every_frame_field_is_written_as_the_cli_reads_it() {
        let frame = UserInput::text("Why? see below")
            .with_uuid("u2")
            .with_parent_tool_use_id("toolu_1")
            .with_priority(QueuePriority::Later)
            .without_turn()
            .with_pasted_text("panic at line 3")
            .with_pasted_blocks(vec![json!({"type": "text", "text": "more"})])
            .with_inline_paste("see below")
            .to_message("s");
        assert_eq!(
            frame.to_string(),
            r#"{"type":"user","session_id":"s","message":{"role":"user","content":"Why? see below"},"parent_tool_use_id":"toolu_1","uuid":"u2","priority":"later","shouldQuery":false,"pasted_content":["panic at line 3",[{"type":"text","text":"more"}]],"inline_pastes":["see below"]}"#
        );
        for (priority, wire) in [
            (QueuePriority::Now, "now"),
            (QueuePriority::Next, "next"),
            (QueuePriority::Later, "later"),
            (QueuePriority::from_wire("soon"), "soon"),
        ] {
            let frame = UserInput::text("x").with_priority(priority).to_message("");
            assert_eq!(frame["priority"], wire);
        }
    }

    #[test]
    fn only_a_message_without_turn_says_it_starts_no_turn() {
        assert!(UserInput::text("x").starts_turn());
        assert!(!UserInput::text("x").without_turn().starts_turn());
        assert!(
            UserInput::text("x")
                .to_message("")
                .get("shouldQuery")
                .is_none()
        );
    }
}
