//! Questions from a running tool to the client: elicitation (ask the user for a typed value),
//! sampling (ask the client's model for a message) and roots (ask which directories the client
//! works in).
//!
//! A tool asks through its [`ToolContext`](crate::tool::ToolContext):
//! [`elicit`](crate::tool::ToolContext::elicit),
//! [`create_message`](crate::tool::ToolContext::create_message) and
//! [`list_roots`](crate::tool::ToolContext::list_roots). Each
//!
//! 1. checks that the client announced the capability (`elicitation`, `sampling`, `roots`) in
//!    its `initialize`, and fails with [`AskError::NotSupported`] before sending anything when
//!    it did not;
//! 2. checks that the transport can carry a request to the client and its answer back
//!    ([`RequestsToClient`]): stdio and Streamable HTTP with sessions can, stateless HTTP cannot
//!    ([`AskError::Unavailable`], saying to turn sessions on);
//! 3. sends the request (a [`ServerRequest`], handed to the router's notifier like a
//!    notification) with an id of the server's own, which the router keeps until the client's
//!    response with that id arrives ([`McpRouter::handle`](crate::mcp::McpRouter::handle) of a
//!    [`Message::Response`](crate::jsonrpc::Message::Response)); a response to an id the server
//!    is not waiting for is ignored;
//! 4. gives up, never hangs: when the tool call is cancelled (the client is told with
//!    `notifications/cancelled`, [`AskError::Cancelled`]), after the router's timeout
//!    ([`DEFAULT_ASK_TIMEOUT`], [`AskError::TimedOut`]), or when the connection ends
//!    ([`McpRouter::cancel_all`](crate::mcp::McpRouter::cancel_all), [`AskError::Closed`]).

mod elicit;
mod peer;
mod roots;
pub(crate) mod round;
mod sampling;
pub(crate) mod task_link;

use std::borrow::Cow;
use std::time::Duration;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::jsonrpc::{ErrorObject, RequestId};

pub(crate) use elicit::cached_elicitation_schema;
pub(crate) use elicit::read_answer;
pub use elicit::{ElicitForm, ElicitFuture, ElicitParams, Elicitation, elicitation_schema};
pub(crate) use peer::Peer;
pub use peer::{ClientPeer, DEFAULT_ASK_TIMEOUT, LocalAnswer, LocalClient, RequestsToClient};
pub use roots::Root;
pub(crate) use roots::read_roots;
pub(crate) use sampling::read_message;
pub use sampling::{
    CreateMessageRequest, CreateMessageResult, IncludeContext, ModelHint, ModelPreferences, Role,
    SamplingContent, SamplingMessage,
};

/// A request of the server's to the client, with the server's id for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRequest {
    /// The id the client's answer carries.
    pub id: RequestId,
    /// What is asked.
    pub params: ServerRequestParams,
}

/// What a [`ServerRequest`] asks, by method.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ServerRequestParams {
    /// `elicitation/create`: a form for the user.
    Elicit(ElicitParams),
    /// `sampling/createMessage`: a message from the client's model.
    CreateMessage(CreateMessageRequest),
    /// `roots/list`: the client's roots.
    ListRoots,
}

impl ServerRequest {
    /// The request's method.
    pub fn method(&self) -> &'static str {
        match self.params {
            ServerRequestParams::Elicit(_) => "elicitation/create",
            ServerRequestParams::CreateMessage(_) => "sampling/createMessage",
            ServerRequestParams::ListRoots => "roots/list",
        }
    }
}

impl Serialize for ServerRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut request = serializer.serialize_map(None)?;
        request.serialize_entry("jsonrpc", "2.0")?;
        request.serialize_entry("id", &self.id)?;
        request.serialize_entry("method", self.method())?;
        match &self.params {
            ServerRequestParams::Elicit(params) => request.serialize_entry("params", params)?,
            ServerRequestParams::CreateMessage(params) => {
                request.serialize_entry("params", params)?
            }
            ServerRequestParams::ListRoots => {}
        }
        request.end()
    }
}

/// What the client said, in `initialize`, that it can be asked.
///
/// A capability counts when `params.capabilities` has its key with an object value
/// (`"elicitation": {}`, or `{"form": {}}` in MCP 2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ClientCapabilities {
    /// `elicitation`: the client shows forms to its user.
    pub elicitation: bool,
    /// `sampling`: the client lets the server use its model.
    pub sampling: bool,
    /// `roots`: the client lists its roots.
    pub roots: bool,
}

impl ClientCapabilities {
    /// No capability: what a client that sent no `initialize` (or an empty `capabilities`) can
    /// be asked.
    pub const NONE: ClientCapabilities = ClientCapabilities {
        elicitation: false,
        sampling: false,
        roots: false,
    };

    /// Every capability.
    pub const ALL: ClientCapabilities = ClientCapabilities {
        elicitation: true,
        sampling: true,
        roots: true,
    };

    /// These capabilities with `elicitation` set to `on`.
    pub fn with_elicitation(mut self, on: bool) -> Self {
        self.elicitation = on;
        self
    }

    /// These capabilities with `sampling` set to `on`.
    pub fn with_sampling(mut self, on: bool) -> Self {
        self.sampling = on;
        self
    }

    /// These capabilities with `roots` set to `on`.
    pub fn with_roots(mut self, on: bool) -> Self {
        self.roots = on;
        self
    }

    /// Reads `params.capabilities` of an `initialize` (anything that is not an object has none).
    pub(crate) fn read(json: &str) -> Self {
        let Ok(serde_json::Value::Object(capabilities)) =
            serde_json::from_str::<serde_json::Value>(json)
        else {
            return Self::NONE;
        };
        Self::of_object(&capabilities)
    }

    /// The capabilities a `capabilities` object declares (each key with an object value).
    pub(crate) fn of_object(capabilities: &serde_json::Map<String, serde_json::Value>) -> Self {
        let has = |key: &str| matches!(capabilities.get(key), Some(serde_json::Value::Object(_)));
        Self {
            elicitation: has("elicitation"),
            sampling: has("sampling"),
            roots: has("roots"),
        }
    }
}

/// Why a question to the client got no answer a tool can use.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AskError {
    /// The client did not announce the capability in its `initialize`; nothing was sent.
    #[error(
        "the client did not announce the `{capability}` capability when it connected, so it \
         cannot be asked for {what}; nothing was sent"
    )]
    NotSupported {
        /// `elicitation`, `sampling` or `roots`.
        capability: &'static str,
        /// What the tool wanted, in words.
        what: &'static str,
    },
    /// The transport cannot carry a request to the client and its answer back; nothing was
    /// sent.
    #[error("{0}")]
    Unavailable(Cow<'static, str>),
    /// The context did not come from an MCP connection (a unit test's `ToolContext::new()`).
    #[error("this tool call did not come through an MCP connection, so there is no client to ask")]
    NoClient,
    /// The type asked for cannot be an elicitation form (see
    /// [`elicitation_schema`]); nothing was sent.
    #[error("{0}")]
    Schema(String),
    /// The client answered with a JSON-RPC error.
    #[error("the client refused the request: {} ({}){}", .0.message, .0.code,
        .0.data.as_ref().map(|data| format!(": {data}")).unwrap_or_default())]
    Client(ErrorObject),
    /// The client's answer does not have the shape the request asked for.
    #[error("the client's answer does not fit: {0}")]
    InvalidAnswer(String),
    /// The tool call was cancelled while it waited; the client was told to drop the request.
    #[error("the tool call was cancelled while it waited for the client's answer")]
    Cancelled,
    /// The client did not answer in time; it was told to drop the request.
    #[error("the client did not answer within {0:?}")]
    TimedOut(Duration),
    /// The connection ended before the client answered.
    #[error("the connection to the client ended before it answered")]
    Closed,
    /// A value kept across the rounds of an MCP 2026-07-28 call
    /// ([`ToolContext::remember`](crate::tool::ToolContext::remember)) could not be kept or read
    /// back.
    #[error("{0}")]
    Kept(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn capabilities_count_when_they_are_objects() {
        let read = |value: serde_json::Value| ClientCapabilities::read(&value.to_string());
        assert_eq!(read(json!({})), ClientCapabilities::NONE);
        assert_eq!(
            read(
                json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {"listChanged": true}})
            ),
            ClientCapabilities::ALL
        );
        assert_eq!(
            read(json!({"elicitation": true, "sampling": null})),
            ClientCapabilities::NONE
        );
        assert_eq!(read(json!([1])), ClientCapabilities::NONE);
    }

    #[test]
    fn a_roots_request_has_no_params() {
        let request = ServerRequest {
            id: RequestId::from(4),
            params: ServerRequestParams::ListRoots,
        };
        assert_eq!(
            serde_json::to_value(&request).unwrap(),
            json!({"jsonrpc": "2.0", "id": 4, "method": "roots/list"})
        );
    }
}
