//! `user` messages: prompts and tool results, as the CLI records them.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::{ContentBlock, MessageContent};
use super::wire::{WireForm, is_false, null_default, typed};

/// A `user` message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// The API message.
    pub message: UserBody,
    /// Set when a subagent produced it.
    #[serde(default)]
    pub parent_tool_use_id: Option<String>,
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// For tool results: the tool's result as the CLI recorded it (a string such as
    /// `"Error: …"`, or structured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_result: Option<Value>,
    /// Whether the CLI made it up (e.g. `[Request interrupted by user]`).
    #[serde(
        default,
        rename = "isSynthetic",
        deserialize_with = "null_default",
        skip_serializing_if = "is_false"
    )]
    pub is_synthetic: bool,
    /// Every other field (`tool_result_meta`, `isReplay`, `timestamp`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl UserMessage {
    /// Whether the CLI sent it back to the host as a replay of a message it had already taken
    /// (`isReplay: true`, the TypeScript SDK's `SDKUserMessageReplay`; with
    /// `--replay-user-messages`), rather than a new one. The field stays in
    /// [`extra`](Self::extra), so the line is written back as it came.
    pub fn is_replay(&self) -> bool {
        self.extra.get("isReplay").and_then(Value::as_bool) == Some(true)
    }

    /// The text: the string content, or the text blocks joined.
    pub fn text(&self) -> String {
        self.message.content.text()
    }

    /// The `tool_use_result`, typed as what `tool_name` answers (the name is the `tool_use`'s
    /// the result answers, which the assistant message before had: see
    /// [`ContentBlock::builtin_tool_input`]). `None` when there is no `tool_use_result`, or
    /// when it is a string: the text of a tool that failed (`"Error: …"`).
    ///
    /// ```
    /// use claude_tools::Message;
    /// use claude_tools::builtin_tools::BuiltinToolOutput;
    ///
    /// let line = serde_json::json!({"type": "user", "message": {"role": "user", "content": [
    ///     {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.rs"}]},
    ///     "tool_use_result": {"durationMs": 3, "numFiles": 1, "filenames": ["a.rs"], "truncated": false},
    ///     "parent_tool_use_id": null, "session_id": "s"});
    /// let Message::User(user) = Message::from_value(line) else { panic!() };
    /// let Some(Ok(BuiltinToolOutput::Glob(glob))) = user.builtin_tool_output("Glob") else { panic!() };
    /// assert_eq!(glob.filenames, ["a.rs"]);
    /// ```
    pub fn builtin_tool_output(
        &self,
        tool_name: &str,
    ) -> Option<Result<crate::builtin_tools::BuiltinToolOutput, crate::builtin_tools::ToolInputError>>
    {
        match self.tool_use_result.as_ref()? {
            Value::String(_) => None,
            result => Some(crate::builtin_tools::BuiltinToolOutput::parse(
                tool_name, result,
            )),
        }
    }

    /// The tool_result blocks: `(tool_use_id, content, is_error)`.
    pub fn tool_results(&self) -> impl Iterator<Item = (&str, Option<&MessageContent>, bool)> {
        self.message
            .content
            .blocks()
            .iter()
            .filter_map(|block| match block {
                ContentBlock::ToolResult {
                    tool_use_id,
                    content,
                    is_error,
                    ..
                } => Some((tool_use_id.as_str(), content.as_ref(), *is_error)),
                _ => None,
            })
    }
}

/// The API message inside a `user` frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserBody {
    /// `user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// A string, or content blocks.
    pub content: MessageContent,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

typed!(UserMessage { extra });

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::UserMessage;

    fn user(line: serde_json::Value) -> UserMessage {
        serde_json::from_value(line).expect("a user line")
    }

    #[test]
    fn a_replayed_message_says_so_and_keeps_its_field() {
        let replay = user(json!({"message": {"role": "user", "content": "hi"},
            "parent_tool_use_id": null, "isReplay": true, "uuid": "u1"}));
        assert!(replay.is_replay());
        assert_eq!(
            replay.extra["isReplay"], true,
            "the field stays for the line's round trip"
        );
        let fresh =
            user(json!({"message": {"role": "user", "content": "hi"}, "parent_tool_use_id": null}));
        assert!(!fresh.is_replay());
        // Only `true` is a replay; a value of another type is not taken for one.
        let odd = user(json!({"message": {"role": "user", "content": "hi"}, "isReplay": "yes"}));
        assert!(!odd.is_replay());
    }
}
