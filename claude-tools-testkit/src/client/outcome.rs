//! What the test client gives back: a tool call's outcome with what the server sent while it
//! ran, and the errors of a request.

use claude_tools_core::ask::ServerRequestParams;
use claude_tools_core::jsonrpc::{Answer, ErrorCode, ErrorObject, LogMessage, ServerNotification};
use claude_tools_core::tool::ToolResult;
use serde::de::DeserializeOwned;

/// A `tools/call` as the client saw it: the tool's result, and what the server sent while the
/// call ran.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolOutcome {
    /// The tool's result: its content blocks, structured content and `isError`.
    pub result: ToolResult,
    /// The progress the tool reported (`notifications/progress` with this call's token), in
    /// order.
    pub progress: Vec<Progress>,
    /// The log messages (`notifications/message`) that arrived while the call ran, in order. A
    /// log message names no call: with calls running at once, each sees the others' too.
    pub logs: Vec<LogMessage>,
    /// The questions the tool asked the client (elicitations…), in the order asked, each once:
    /// on a 2025-11-25 connection as requests, at 2026-07-28 in `input_required` results.
    pub questions: Vec<ServerRequestParams>,
    /// How many times the call was sent: 1, plus one retry per `input_required` round
    /// (MCP 2026-07-28).
    pub rounds: usize,
}

impl ToolOutcome {
    /// Whether the tool reported a failure to the model (`isError`).
    pub fn is_error(&self) -> bool {
        self.result.is_error
    }

    /// The text of the result's text blocks, one per line: what the model reads.
    pub fn text(&self) -> String {
        self.result.text_content()
    }

    /// The result's structured content (a `Json<T>` tool's) read as a `T`.
    pub fn structured<T: DeserializeOwned>(&self) -> Result<T, TestClientError> {
        let content = self
            .result
            .structured_content
            .as_ref()
            .ok_or(TestClientError::NoStructuredContent)?;
        T::deserialize(content).map_err(|error| TestClientError::StructuredContent {
            type_name: std::any::type_name::<T>(),
            error,
        })
    }
}

/// One `notifications/progress` of a call.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Progress {
    /// How far, increasing with each report.
    pub progress: f64,
    /// Out of how much, when the tool knows.
    pub total: Option<f64>,
    /// What is happening, for a person.
    pub message: Option<String>,
}

/// The progress of the call whose token is `token`, and the log messages, among
/// `notifications`.
pub(super) fn progress_and_logs(
    notifications: Vec<ServerNotification>,
    token: i64,
) -> (Vec<Progress>, Vec<LogMessage>) {
    let mut progress = Vec::new();
    let mut logs = Vec::new();
    for notification in notifications {
        match notification {
            ServerNotification::Progress {
                token: sent,
                progress: done,
                total,
                message,
            } if sent.0.as_i64() == Some(token) => progress.push(Progress {
                progress: done,
                total,
                message,
            }),
            ServerNotification::Message(message) => logs.push(message),
            _ => {}
        }
    }
    (progress, logs)
}

/// Why a request of the [`TestClient`](super::TestClient) has no result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestClientError {
    /// The server answered with a JSON-RPC error (an unknown prompt, a resource not found, a
    /// missing client capability…). A tool's own failure is not one: it is an `isError`
    /// result ([`ToolOutcome::is_error`]).
    #[error("the server answered {method} with an error: {} ({}){}", .error.message, .error.code,
        .error.data.as_ref().map(|data| format!(": {data}")).unwrap_or_default())]
    Server {
        /// The method of the request.
        method: &'static str,
        /// The error.
        error: ErrorObject,
    },
    /// The server answered with a result of another kind than the method's (a bug in the
    /// server, or in this client).
    #[error("the server answered {method} with a result of another method: {answer:?}")]
    UnexpectedAnswer {
        /// The method of the request.
        method: &'static str,
        /// What came back.
        answer: Box<Answer>,
    },
    /// The router did not answer a request (it answers every request once: a bug).
    #[error("the server did not answer {method}")]
    NoAnswer {
        /// The method of the request.
        method: &'static str,
    },
    /// The server asked a question this client was given no answer for (MCP 2026-07-28; at
    /// 2025-11-25 the server gets a `-32601` error instead): an elicitation without
    /// [`on_elicitation`](super::TestClient::on_elicitation), a sampling request without
    /// [`on_create_message`](super::TestClient::on_create_message), `roots/list` without
    /// [`roots`](super::TestClient::roots). The client does not announce those capabilities,
    /// so only a server that asks regardless gets here.
    #[error(
        "the server asked `{method}`, which this test client was given no answer for (see \
         TestClient::on_elicitation, on_create_message and roots)"
    )]
    Unanswered {
        /// The question's method (`elicitation/create`…).
        method: &'static str,
    },
    /// The server kept answering `input_required` (MCP 2026-07-28): after this many rounds
    /// the client gave up.
    #[error("{method} was still answered input_required after {rounds} rounds")]
    TooManyRounds {
        /// The method of the request.
        method: &'static str,
        /// How many times it was sent.
        rounds: usize,
    },
    /// The request's arguments (or an elicitation's answer) could not be written as JSON (a
    /// map with non-string keys).
    #[error("{what} could not be written as JSON: {error}")]
    NotJson {
        /// What: "the arguments of tools/call"…
        what: &'static str,
        /// Why.
        error: serde_json::Error,
    },
    /// [`ToolOutcome::structured`] of a result without structured content.
    #[error("the tool result has no structured content (the tool returns no `Json<T>`)")]
    NoStructuredContent,
    /// [`ToolOutcome::structured`] of a structured content that is not a `T`.
    #[error("the structured content is not a `{type_name}`: {error}")]
    StructuredContent {
        /// The type asked for.
        type_name: &'static str,
        /// Why not.
        error: serde_json::Error,
    },
}

impl TestClientError {
    /// The JSON-RPC error's code, for [`TestClientError::Server`].
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            TestClientError::Server { error, .. } => Some(error.code),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use claude_tools_core::jsonrpc::{LoggingLevel, ProgressToken};
    use serde_json::json;

    #[test]
    fn only_the_calls_own_progress_is_its_own() {
        let progress = |token: i64, at: f64| ServerNotification::Progress {
            token: ProgressToken::from(token),
            progress: at,
            total: Some(2.0),
            message: None,
        };
        let log = LogMessage::new(LoggingLevel::Info, json!("hello"));
        let (mine, logs) = progress_and_logs(
            vec![
                progress(1, 1.0),
                progress(2, 1.0),
                ServerNotification::Message(log.clone()),
                progress(1, 2.0),
                ServerNotification::ToolsListChanged,
            ],
            1,
        );
        let at: Vec<f64> = mine.iter().map(|p| p.progress).collect();
        assert_eq!(at, [1.0, 2.0]);
        assert_eq!(logs, [log]);
    }

    #[test]
    fn structured_content_is_read_as_the_type_asked() {
        let mut result = ToolResult::text("{}");
        let outcome = |result: ToolResult| ToolOutcome {
            result,
            progress: Vec::new(),
            logs: Vec::new(),
            questions: Vec::new(),
            rounds: 1,
        };
        assert!(matches!(
            outcome(result.clone()).structured::<u32>(),
            Err(TestClientError::NoStructuredContent)
        ));
        result.structured_content = Some(json!(5));
        assert_eq!(outcome(result.clone()).structured::<u32>().unwrap(), 5);
        assert!(matches!(
            outcome(result).structured::<String>(),
            Err(TestClientError::StructuredContent { .. })
        ));
    }
}
