//! [`ServerNotification`]: what a server sends a client unasked.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::{LOG_MESSAGE, LogMessage, ProgressToken, RequestId};
use crate::ask::ServerRequest;

/// The method of the notification a server sends when its tool list changes.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";

/// The method of the notification a server sends when its prompt list changes.
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";

/// The method of the notification a server sends when its resource list (fixed resources or
/// templates) changes.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";

/// The method of the notification a server sends when a resource a client subscribed to
/// changes.
pub const RESOURCE_UPDATED: &str = "notifications/resources/updated";

/// The method of the notification a server sends on a listen stream when a task it follows
/// changes (the tasks extension, SEP-2663).
pub const TASK_STATUS: &str = "notifications/tasks";

/// A notification from the server to the client.
///
/// ```
/// use claude_tools::mcp::ServerNotification;
///
/// assert_eq!(
///     serde_json::to_string(&ServerNotification::ToolsListChanged).unwrap(),
///     r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerNotification {
    /// `notifications/progress`: how far a request with a `progressToken` has got.
    Progress {
        /// The token the request's `params._meta.progressToken` gave.
        token: ProgressToken,
        /// How far, increasing with each report.
        progress: f64,
        /// Out of how much, when known.
        total: Option<f64>,
        /// What is happening, for a person.
        message: Option<String>,
    },
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/cancelled`: the server no longer waits for the answer to one of its own
    /// requests (the tool that asked was cancelled, or gave up waiting).
    Cancelled {
        /// The server's request.
        request_id: RequestId,
        /// Why, for the client's log.
        reason: &'static str,
    },
    /// A request of the server's to the client (a running tool's question: elicitation,
    /// sampling, roots). It travels the same way as the notifications, so every transport that
    /// delivers those delivers it; the client's answer comes back as a response, which the
    /// router hands to the waiting tool.
    Request(ServerRequest),
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated`: the resource at `uri`, which the client subscribed
    /// to, changed.
    ResourceUpdated {
        /// The resource's URI.
        uri: String,
    },
    /// `notifications/message`: a log message, sent by a tool with
    /// [`ToolContext::log`](crate::tool::ToolContext::log).
    Message(LogMessage),
    /// `notifications/tasks`: a task's state, as `tasks/get` would answer it now (the tasks
    /// extension; only on a listen stream that named the task in `taskIds`).
    Task(Box<crate::task::TaskAnswer>),
}

impl ServerNotification {
    /// The notification's method.
    pub fn method(&self) -> &'static str {
        match self {
            ServerNotification::Progress { .. } => "notifications/progress",
            ServerNotification::ToolsListChanged => TOOLS_LIST_CHANGED,
            ServerNotification::Cancelled { .. } => "notifications/cancelled",
            ServerNotification::Request(request) => request.method(),
            ServerNotification::PromptsListChanged => PROMPTS_LIST_CHANGED,
            ServerNotification::ResourcesListChanged => RESOURCES_LIST_CHANGED,
            ServerNotification::ResourceUpdated { .. } => RESOURCE_UPDATED,
            ServerNotification::Message(_) => LOG_MESSAGE,
            ServerNotification::Task(_) => TASK_STATUS,
        }
    }

    /// The notification as a `serde_json::Value`.
    pub fn to_value(&self) -> serde_json::Value {
        // Its numbers are finite or written as `null`, its keys strings: it serialises.
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

#[derive(Serialize)]
struct UpdatedParams<'a> {
    uri: &'a str,
}

struct ProgressParams<'a> {
    token: &'a ProgressToken,
    progress: f64,
    total: Option<f64>,
    message: Option<&'a str>,
}

impl Serialize for ProgressParams<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut params = serializer.serialize_map(None)?;
        params.serialize_entry("progressToken", self.token)?;
        params.serialize_entry("progress", &self.progress)?;
        if let Some(total) = self.total {
            params.serialize_entry("total", &total)?;
        }
        if let Some(message) = self.message {
            params.serialize_entry("message", message)?;
        }
        params.end()
    }
}

impl Serialize for ServerNotification {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if let ServerNotification::Request(request) = self {
            return request.serialize(serializer);
        }
        let mut notification = serializer.serialize_map(None)?;
        notification.serialize_entry("jsonrpc", "2.0")?;
        notification.serialize_entry("method", self.method())?;
        match self {
            ServerNotification::Progress {
                token,
                progress,
                total,
                message,
            } => notification.serialize_entry(
                "params",
                &ProgressParams {
                    token,
                    progress: *progress,
                    total: *total,
                    message: message.as_deref(),
                },
            )?,
            ServerNotification::ResourceUpdated { uri } => {
                notification.serialize_entry("params", &UpdatedParams { uri })?;
            }
            ServerNotification::Message(message) => {
                notification.serialize_entry("params", message)?;
            }
            ServerNotification::Task(task) => notification.serialize_entry("params", task)?,
            _ => {}
        }
        if let ServerNotification::Cancelled { request_id, reason } = self {
            notification.serialize_entry("params", &CancelledParams { request_id, reason })?;
        }
        notification.end()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CancelledParams<'a> {
    request_id: &'a RequestId,
    reason: &'a str,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_withdrawn_question_is_a_cancelled_notification() {
        assert_eq!(
            ServerNotification::Cancelled {
                request_id: RequestId::from(3),
                reason: "the tool call was cancelled"
            }
            .to_value(),
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 3, "reason": "the tool call was cancelled"}
            })
        );
    }

    #[test]
    fn progress_notifications_carry_the_token() {
        let progress = |token: RequestId, total, message: Option<&str>| {
            ServerNotification::Progress {
                token: ProgressToken(token),
                progress: 1.0,
                total,
                message: message.map(String::from),
            }
            .to_value()
        };
        assert_eq!(
            progress(RequestId::from(7), Some(4.0), Some("one of four")),
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": 7, "progress": 1.0, "total": 4.0, "message": "one of four"}
            })
        );
        assert_eq!(
            progress(RequestId::from("t"), None, None),
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": "t", "progress": 1.0}
            })
        );
    }
}
