//! [`Message`]: what the bytes of one JSON-RPC message are, decided once.
//!
//! Every transport reads a message through [`Message::decode`] (or, inside a larger frame such
//! as the control protocol's `mcp_message`, through `Message`'s `Deserialize`), so the same
//! bytes are the same message on each; the rules are in [`Message`]'s docs.
//!
//! The decoder itself (`Message`'s `Deserialize`) is in [`decode`](super::decode).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::{ErrorObject, MetaClaim, ProgressToken, RequestId, Unreadable};
use crate::tool::Arguments;

/// The `params._meta` key under which the Claude Code CLI sends the Anthropic `tool_use` id of
/// a call.
pub const TOOL_USE_ID_META: &str = "claudecode/toolUseId";

/// One JSON-RPC message from a client, classified once by [`Message::decode`]:
///
/// | bytes | message |
/// |---|---|
/// | not JSON serde_json reads (broken, a number past a float's range in a tool's arguments, nesting past 128 levels) | [`Unreadable`]: a `tools/call` gets an `isError` result, anything else `-32700`, with the id when a scan can still read it |
/// | not an object (an array, a string…) | [`Invalid`], `-32600`; batches are not supported (MCP removed them in 2025-06-18) |
/// | an envelope key (`jsonrpc`, `id`, `method`, `params`, `result`, `error`) written twice | [`Invalid`], `-32600`: readers disagree on which one counts, so neither does |
/// | an `id` that is not a string, a number or absent | [`Invalid`], `-32600` |
/// | `jsonrpc` other than `"2.0"` | [`Invalid`], `-32600` |
/// | a `method` that is not a string | [`Invalid`], `-32600` |
/// | a `method` and no `id` | a [`Notification`] (whatever the method: a `tools/call` without an id does not run) |
/// | a `method` and `"id": null` | [`Invalid`], `-32600` (MCP: a request id must not be null) |
/// | a `method` and an `id` | a [`Request`] (whatever the method: `notifications/…` with an id is a request for a method the server does not have) |
/// | no `method`, a `result` or an `error` | a [`ClientResponse`], which a server does not answer |
/// | anything else | [`Invalid`], `-32600` |
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: answered exactly once.
    Request(Request),
    /// A notification: never answered.
    Notification(Notification),
    /// The client's answer to a request of the server's: never answered.
    Response(ClientResponse),
    /// Not a JSON-RPC message: answered with its error, and `id: null` unless the id could be
    /// read.
    Invalid(Invalid),
    /// Bytes that are not JSON the decoder can read: answered as [`Unreadable::response`] says.
    Unreadable(Unreadable),
}

/// A request: an id, the call it makes, and what its `params._meta` says of its MCP revision.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The id its answer carries.
    pub id: RequestId,
    /// What it asks for.
    pub call: Call,
    /// The MCP 2026-07-28 per-request fields of `params._meta`, or their absence (a 2025-11-25
    /// request): see [`MetaClaim`].
    pub meta: MetaClaim,
}

/// The method of a request, with its params read as far as the server reads them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Call {
    /// `tools/call`.
    ToolsCall(ToolCall),
    /// `tools/list` (a cursor is ignored: the server answers every tool in one page).
    ToolsList,
    /// `initialize`.
    Initialize(InitializeParams),
    /// `ping`.
    Ping,
    /// `server/discover` (MCP 2026-07-28).
    Discover,
    /// `prompts/get`, or what is wrong with its params (answered `-32602` by a server with
    /// prompts, `-32601` by one without).
    PromptsGet(Result<GetPrompt, ErrorObject>),
    /// `resources/read`, or what is wrong with its params (answered `-32602` by a server with
    /// resources, `-32601` by one without).
    ResourcesRead(Result<ReadResource, ErrorObject>),
    /// A method the server knows, whose params do not fit it: answered with this error
    /// (`-32602`).
    InvalidParams(ErrorObject),
    /// Any other method, with its params as they came.
    Other {
        /// The method.
        method: String,
        /// Its params, raw.
        params: Option<RawParams>,
    },
}

/// The params of a `tools/call` the server needs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolCall {
    /// The tool.
    pub name: String,
    /// Its arguments, as entries (see [`Arguments`]); the default when absent or `null`.
    pub arguments: Arguments,
    /// `params._meta["claudecode/toolUseId"]`, when it is a string.
    pub tool_use_id: Option<Arc<str>>,
    /// `params._meta.progressToken`, when it is a string or a number.
    pub progress_token: Option<ProgressToken>,
    /// `params.inputResponses` / `params.requestState`: a retry of a call that was answered
    /// `input_required` (MCP 2026-07-28).
    pub retry: Option<Box<Retry>>,
    /// `params._meta.traceparent` / `tracestate`: the caller's W3C trace context, which the
    /// call's span continues (see [`crate::telemetry`]). The decoder keeps it only with the
    /// `opentelemetry` feature and a subscriber listening at `INFO`; else `None`.
    pub trace_context: Option<Box<TraceContext>>,
}

/// The W3C trace context a request carries in `params._meta` (`traceparent`, `tracestate`), as
/// the OpenTelemetry semantic conventions for MCP propagate it. Kept as sent, only bounded in
/// length ([`TraceContext::MAX_TRACEPARENT`], [`TraceContext::MAX_TRACESTATE`]); whether it is
/// well formed is decided where it is used ([`crate::telemetry`]), and one that is not is
/// ignored.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct TraceContext {
    /// `traceparent`: `00-<trace id>-<parent id>-<flags>`.
    pub traceparent: String,
    /// `tracestate`: vendors' entries, when sent.
    pub tracestate: Option<String>,
}

impl TraceContext {
    /// The longest `traceparent` kept: a version-00 one is 55 characters; a later version may
    /// append fields, which are read past (W3C Trace Context §3.2.4), up to this.
    pub const MAX_TRACEPARENT: usize = 256;
    /// The longest `tracestate` kept: 32 entries of at most 256 characters would be more, but
    /// W3C Trace Context §3.3.1.5 lets a vendor cut it to 512 characters.
    pub const MAX_TRACESTATE: usize = 512;

    /// A trace context of `traceparent` and, when sent, `tracestate`; `None` when either is
    /// longer than it may be kept (a `tracestate` too long is dropped alone).
    ///
    /// ```
    /// use claude_tools::mcp::TraceContext;
    ///
    /// let context = TraceContext::new(
    ///     "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ///     Some("vendor=value"),
    /// )
    /// .unwrap();
    /// assert_eq!(context.tracestate.as_deref(), Some("vendor=value"));
    /// assert!(TraceContext::new(&"0".repeat(300), None).is_none());
    /// ```
    pub fn new(traceparent: &str, tracestate: Option<&str>) -> Option<Self> {
        if traceparent.len() > Self::MAX_TRACEPARENT {
            return None;
        }
        Some(Self {
            traceparent: traceparent.to_owned(),
            tracestate: tracestate
                .filter(|state| state.len() <= Self::MAX_TRACESTATE)
                .map(str::to_owned),
        })
    }
}

/// The params of a `prompts/get`.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct GetPrompt {
    /// The prompt.
    pub name: String,
    /// Its arguments (MCP prompt arguments are strings); one sent as `null` is left out.
    pub arguments: BTreeMap<String, String>,
    /// A retry of a `prompts/get` that was answered `input_required` (MCP 2026-07-28).
    pub retry: Option<Box<Retry>>,
}

/// The params of a `resources/read`.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct ReadResource {
    /// The resource's URI.
    pub uri: String,
    /// A retry of a `resources/read` that was answered `input_required` (MCP 2026-07-28).
    pub retry: Option<Box<Retry>>,
}

/// What a client sends when it retries a request that was answered `input_required` (MCP
/// 2026-07-28): the answers to the server's questions and the state the server handed out, as
/// written (the router checks them).
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Retry {
    /// `params.inputResponses`: the answers, by the keys of the server's `inputRequests`.
    pub input_responses: Option<RawParams>,
    /// `params.requestState`: the state of the previous round, echoed.
    pub request_state: Option<RawParams>,
}

/// The params of an `initialize` the server reads.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct InitializeParams {
    /// The protocol version the client asks for.
    pub protocol_version: Option<String>,
    /// What the client said it can be asked (`params.capabilities`): a running tool asks it
    /// only what it announced.
    pub capabilities: crate::ask::ClientCapabilities,
}

/// A notification from the client.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Notification {
    /// `notifications/initialized`.
    Initialized,
    /// `notifications/cancelled`: stop the request `request_id`.
    Cancelled {
        /// The request to cancel, when the params name one.
        request_id: Option<RequestId>,
        /// Why, when the client said.
        reason: Option<String>,
    },
    /// Any other notification (a `tools/call` without an id among them: it does not run).
    Other {
        /// The method.
        method: String,
        /// Its params, raw.
        params: Option<RawParams>,
    },
}

/// The params of a method the decoder does not read, as the client wrote them.
#[derive(Debug, Clone)]
pub struct RawParams(pub(super) Box<RawValue>);

impl RawParams {
    /// `value` as raw params (for a result made in the server's own process, see
    /// [`LocalClient`](crate::ask::LocalClient)).
    pub fn from_value(value: &serde_json::Value) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(RawParams)
    }

    /// Raw JSON as params.
    pub(crate) fn from_raw(raw: Box<RawValue>) -> Self {
        RawParams(raw)
    }

    /// The params' JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The params read as a `T`.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }
}

impl PartialEq for RawParams {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

/// A response the client sent (to a request of the server's: an elicitation, a sampling, a
/// roots list).
#[derive(Debug, Clone, PartialEq)]
pub struct ClientResponse {
    /// The id of the server's request it answers.
    pub id: Option<RequestId>,
    /// Its `result`, raw (the waiting request reads it as the type it expects), or its `error`
    /// (an `error` that is not a JSON-RPC error object is read as `-32603` saying so).
    pub outcome: Result<RawParams, ErrorObject>,
}

/// Bytes that are not a JSON-RPC message the server can serve.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    /// The message's id, when it could be read.
    pub id: Option<RequestId>,
    /// The answer: `-32700` or `-32600`, with why.
    pub error: ErrorObject,
}

impl Message {
    /// Decodes one message from its bytes: never fails, bytes that are not a message are
    /// [`Message::Invalid`].
    ///
    /// ```
    /// use claude_tools::mcp::{Call, Message};
    ///
    /// let message = Message::decode(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#);
    /// let Message::Request(request) = message else { panic!() };
    /// let Call::ToolsCall(call) = request.call else { panic!() };
    /// assert_eq!(call.name, "add");
    ///
    /// assert!(matches!(Message::decode(b"{oops"), Message::Unreadable(_)));
    /// ```
    pub fn decode(bytes: &[u8]) -> Message {
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => {
                return Message::unreadable(bytes, format!("it is not UTF-8 ({error})"));
            }
        };
        Message::decode_str(text)
    }

    /// [`Message::decode`] for a message already known to be UTF-8 (a transport that checked
    /// a whole line once, as the control protocol's reader does).
    pub fn decode_str(text: &str) -> Message {
        match serde_json::from_str::<Message>(text) {
            Ok(message) => message,
            Err(error) => Message::unreadable(text.as_bytes(), Unreadable::describe(&error)),
        }
    }

    /// Bytes that are not JSON the decoder can read, with what a scan still makes out of them
    /// (the id, so the client can tell which request failed).
    pub fn unreadable(bytes: &[u8], reason: String) -> Message {
        Message::Unreadable(Unreadable::new(
            crate::json_scan::message_head(bytes),
            reason,
        ))
    }

    /// The message's id: a request's, an invalid message's when it was read, a response's.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Message::Request(request) => Some(&request.id),
            Message::Invalid(invalid) => invalid.id.as_ref(),
            Message::Unreadable(unreadable) => unreadable.id.as_ref(),
            Message::Response(response) => response.id.as_ref(),
            Message::Notification(_) => None,
        }
    }
}

impl Request {
    /// The request's method.
    pub fn method(&self) -> &str {
        Self::method_of(&self.call)
    }

    /// The method of a request making `call`.
    pub fn method_of(call: &Call) -> &str {
        match call {
            Call::ToolsCall(_) => "tools/call",
            Call::ToolsList => "tools/list",
            Call::Initialize(_) => "initialize",
            Call::Ping => "ping",
            Call::Discover => "server/discover",
            Call::PromptsGet(_) => "prompts/get",
            Call::ResourcesRead(_) => "resources/read",
            Call::InvalidParams(_) => "tools/call",
            Call::Other { method, .. } => method,
        }
    }
}

impl Notification {
    /// The notification's method.
    pub fn method(&self) -> &str {
        match self {
            Notification::Initialized => "notifications/initialized",
            Notification::Cancelled { .. } => "notifications/cancelled",
            Notification::Other { method, .. } => method,
        }
    }
}
