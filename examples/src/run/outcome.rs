//! What a run returns: the transcript as [`Entry`] values and the [`Run`].

use std::time::Duration;

use claude_tools::{Message, ResultMessage};
use claude_tools_testkit::model_server::ModelServer;
use serde_json::Value;

use super::model_choice::ModelChoice;

/// One line of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// Text the assistant wrote (trimmed).
    Assistant(String),
    /// The assistant called a tool. `tool` is the short name for the example's in-process
    /// servers (`create_ticket`), the full name otherwise (`mcp__echo__echo`).
    ToolCall {
        /// The `tool_use` id.
        id: String,
        /// The tool's name.
        tool: String,
        /// Its arguments.
        input: Value,
    },
    /// A tool's result came back to the model.
    ToolResult {
        /// The `tool_use` id it answers.
        id: String,
        /// The tool's name, as in [`Entry::ToolCall`] (`?` if the call was not seen).
        tool: String,
        /// The result's text (trimmed).
        text: String,
        /// Whether it went back as `is_error: true`.
        is_error: bool,
    },
}

/// What one run produced.
#[derive(Debug)]
pub struct Run {
    /// Which model answered.
    pub model: ModelChoice,
    /// The transcript, in order.
    pub transcript: Vec<Entry>,
    /// Every message the CLI sent.
    pub messages: Vec<Message>,
    /// The final `result` message (`None` if the CLI ended without one).
    pub result: Option<ResultMessage>,
    /// How many distinct replies the model sent (the CLI splits each into one message per block).
    pub model_replies: usize,
    /// The scripted model server, with its recordings ([`ModelServer::tool_results`]…); `None`
    /// with the real model.
    pub server: Option<ModelServer>,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Everything the run printed (or would have printed, when [quiet](super::Example::quiet)), one
    /// `\n` after each line.
    pub printed: String,
}

impl Run {
    /// Whether the run ended with a successful result.
    pub fn is_success(&self) -> bool {
        self.result.as_ref().is_some_and(ResultMessage::is_success)
    }

    /// The final answer's text (empty without a result).
    pub fn final_text(&self) -> &str {
        self.result
            .as_ref()
            .and_then(|r| r.result.as_deref())
            .unwrap_or("")
            .trim()
    }

    /// Every tool call: `(tool, input)`.
    pub fn tool_calls(&self) -> Vec<(String, Value)> {
        self.transcript
            .iter()
            .filter_map(|entry| match entry {
                Entry::ToolCall { tool, input, .. } => Some((tool.clone(), input.clone())),
                _ => None,
            })
            .collect()
    }

    /// The result of the call `tool_use_id`: `(text, is_error)`. Results of calls made in one
    /// turn arrive in the order they finish, so look them up by id.
    pub fn tool_result(&self, tool_use_id: &str) -> Option<(&str, bool)> {
        self.transcript.iter().find_map(|entry| match entry {
            Entry::ToolResult {
                id, text, is_error, ..
            } if id == tool_use_id => Some((text.as_str(), *is_error)),
            _ => None,
        })
    }

    /// Every tool result in the order it arrived: `(tool, text, is_error)`.
    pub fn tool_results(&self) -> Vec<(String, String, bool)> {
        self.transcript
            .iter()
            .filter_map(|entry| match entry {
                Entry::ToolResult {
                    tool,
                    text,
                    is_error,
                    ..
                } => Some((tool.clone(), text.clone(), *is_error)),
                _ => None,
            })
            .collect()
    }
}
