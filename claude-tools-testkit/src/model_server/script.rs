//! The script a [`ModelServer`](super::ModelServer) plays: a list of assistant turns.
//!
//! # JSON format
//!
//! A script serializes as (every key but `turns` optional):
//!
//! ```json
//! {
//!   "side_reply": "OK.",
//!   "turns": [
//!     {"content": [{"type": "text", "text": "Let me add."},
//!                  {"type": "tool_use", "id": "toolu_01", "name": "mcp__calc__add", "input": {"a": 1, "b": 2}}]},
//!     {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded",
//!                "headers": {"x-should-retry": "true"}, "times": 1},
//!      "content": [{"type": "text", "text": "The sum is {{tool_result}}."}], "delay_ms": 100},
//!     {"when_user_text": "second prompt", "content": [{"type": "text", "text": "Second answer."}]}
//!   ]
//! }
//! ```
//!
//! A bare JSON array of turns is accepted too (see [`Script::from_json`]).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A scripted conversation: the assistant turns the server replies with, in order.
///
/// Turn selection (see the crate docs of [`model_server`](super)): a request with a non-empty
/// `tools` array first looks for a turn whose [`Turn::when_user_text`] is a substring of the last
/// user message's text; otherwise it gets the positional turn number *k*, where *k* is the number
/// of `assistant` messages in the request, counting only turns without `when_user_text`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// The turns, in order.
    #[serde(default)]
    pub turns: Vec<Turn>,
    /// Text of the reply to side requests (no `tools`); `"OK."` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side_reply: Option<String>,
}

impl Script {
    /// An empty script (every turn request gets the "script exhausted" reply).
    pub fn new() -> Script {
        Script::default()
    }

    /// Appends a turn.
    pub fn turn(mut self, turn: Turn) -> Script {
        self.turns.push(turn);
        self
    }

    /// Sets the text replied to side requests (requests without tools).
    pub fn side_reply(mut self, text: impl Into<String>) -> Script {
        self.side_reply = Some(text.into());
        self
    }

    /// Parses a script from JSON: either `{"turns": [...], ...}` or a bare array of turns.
    pub fn from_json(text: &str) -> Result<Script, serde_json::Error> {
        let value: Value = serde_json::from_str(text)?;
        if value.is_array() {
            Ok(Script {
                turns: serde_json::from_value(value)?,
                side_reply: None,
            })
        } else {
            serde_json::from_value(value)
        }
    }

    /// The script as pretty JSON (the format [`Script::from_json`] reads).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// A small built-in script for manual runs: the model greets, calls
    /// `mcp__demo__greet` with `{"name": "Alice"}`, then quotes the tool's answer.
    pub fn demo() -> Script {
        Script::new()
            .turn(Turn::text("Let me greet Alice.").and_tool_use(
                "toolu_demo_01",
                "mcp__demo__greet",
                serde_json::json!({"name": "Alice"}),
            ))
            .turn(Turn::text("The greet tool answered: {{tool_result}}"))
    }
}

/// One content block of a scripted assistant message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block {
    /// A text block. Placeholders are expanded when served: `{{tool_result}}` (text of the last
    /// `tool_result` in the request, `<system-reminder>` blocks stripped),
    /// `{{tool_result:<tool_use_id>}}` and `{{user_text}}` (text of the last user message).
    Text {
        /// The text, streamed as a few `text_delta` pieces.
        text: String,
    },
    /// A `tool_use` block; its input is streamed as `input_json_delta` pieces.
    ToolUse {
        /// The tool_use id (`toolu_...`).
        id: String,
        /// The tool name as the model sees it (`mcp__<server>__<tool>` for SDK tools).
        name: String,
        /// The tool input object.
        input: Value,
    },
}

/// An HTTP error a turn answers with before (or instead of) its content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HttpError {
    /// HTTP status, e.g. 529 or 400: a final status, 200 to 999 ([`ModelServer::try_start`]
    /// refuses a script with another).
    ///
    /// [`ModelServer::try_start`]: super::ModelServer::try_start
    pub status: u16,
    /// The Anthropic error type, e.g. `overloaded_error`, `invalid_request_error`.
    #[serde(rename = "type")]
    pub error_type: String,
    /// The error message.
    pub message: String,
    /// Extra response headers, e.g. `retry-after`, `x-should-retry` (names and values valid in
    /// HTTP; they are sent with lowercase names).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// How many requests for this turn get the error before the content is served;
    /// `None` means every request (the turn never succeeds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

/// One scripted assistant turn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The content blocks. `stop_reason` is `tool_use` when any block is a tool_use, else `end_turn`.
    #[serde(default)]
    pub content: Vec<Block>,
    /// Milliseconds to wait before answering (before the response head is written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// An HTTP error served first (see [`HttpError::times`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<HttpError>,
    /// When set, this turn is chosen by a substring of the last user message's text instead of
    /// by position (needed after an interrupt, which leaves no assistant message behind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_user_text: Option<String>,
}

impl Turn {
    /// A turn with one text block.
    pub fn text(text: impl Into<String>) -> Turn {
        Turn::default().and_text(text)
    }

    /// A turn with one `tool_use` block.
    pub fn tool_use(id: impl Into<String>, name: impl Into<String>, input: Value) -> Turn {
        Turn::default().and_tool_use(id, name, input)
    }

    /// A turn that answers with an HTTP error on every request (until limited by [`Turn::times`]),
    /// with a JSON body `{"type":"error","error":{"type":error_type,"message":message}}`.
    /// Content added with [`Turn::and_text`] etc. is served once the error count is used up.
    pub fn http_error(
        status: u16,
        error_type: impl Into<String>,
        message: impl Into<String>,
    ) -> Turn {
        Turn {
            error: Some(HttpError {
                status,
                error_type: error_type.into(),
                message: message.into(),
                headers: BTreeMap::new(),
                times: None,
            }),
            ..Turn::default()
        }
    }

    /// Appends a text block.
    pub fn and_text(mut self, text: impl Into<String>) -> Turn {
        self.content.push(Block::Text { text: text.into() });
        self
    }

    /// Appends a `tool_use` block (several in one turn are allowed).
    pub fn and_tool_use(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
    ) -> Turn {
        self.content.push(Block::ToolUse {
            id: id.into(),
            name: name.into(),
            input,
        });
        self
    }

    /// Waits this long before answering.
    pub fn delay(mut self, delay: Duration) -> Turn {
        self.delay_ms = Some(delay.as_millis().min(u128::from(u64::MAX)) as u64);
        self
    }

    /// Serves the turn's error only `n` times, then its content.
    /// No effect on a turn without an error.
    pub fn times(mut self, n: u32) -> Turn {
        if let Some(error) = self.error.as_mut() {
            error.times = Some(n);
        }
        self
    }

    /// Adds a response header to the turn's error (e.g. `retry-after: 0`,
    /// `x-should-retry: true`). No effect on a turn without an error.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Turn {
        if let Some(error) = self.error.as_mut() {
            error.headers.insert(name.into(), value.into());
        }
        self
    }

    /// Selects this turn by a substring of the last user message's text instead of by position.
    pub fn when_user_text(mut self, needle: impl Into<String>) -> Turn {
        self.when_user_text = Some(needle.into());
        self
    }

    /// The `stop_reason` this turn ends with: `tool_use` if it has a tool_use block, else `end_turn`.
    pub fn stop_reason(&self) -> &'static str {
        if self
            .content
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }))
        {
            "tool_use"
        } else {
            "end_turn"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builder_and_json_round_trip() {
        let script = Script::new()
            .turn(
                Turn::tool_use("toolu_01", "mcp__calc__add", json!({"a": 1})).and_tool_use(
                    "toolu_02",
                    "mcp__calc__add",
                    json!({"a": 2}),
                ),
            )
            .turn(
                Turn::http_error(529, "overloaded_error", "Overloaded")
                    .times(1)
                    .header("x-should-retry", "true")
                    .and_text("done")
                    .delay(Duration::from_millis(5)),
            )
            .turn(Turn::text("again").when_user_text("second"));
        assert_eq!(script.turns[0].stop_reason(), "tool_use");
        assert_eq!(script.turns[1].stop_reason(), "end_turn");
        let back = Script::from_json(&script.to_json()).unwrap();
        assert_eq!(back, script);
        let v: Value = serde_json::from_str(&script.to_json()).unwrap();
        assert_eq!(
            v["turns"][1],
            json!({"content": [{"type": "text", "text": "done"}], "delay_ms": 5,
                   "error": {"status": 529, "type": "overloaded_error", "message": "Overloaded",
                             "headers": {"x-should-retry": "true"}, "times": 1}})
        );
    }

    #[test]
    fn bare_array_is_accepted() {
        let s = Script::from_json(r#"[{"content":[{"type":"text","text":"hi"}]}]"#).unwrap();
        assert_eq!(s, Script::new().turn(Turn::text("hi")));
    }
}
