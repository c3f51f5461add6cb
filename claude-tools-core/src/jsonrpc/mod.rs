//! MCP's JSON-RPC 2.0, typed: one decoder that says once what bytes are, one writer.
//!
//! - [`Message`]: a client's message, classified by [`Message::decode`] into a
//!   [`Request`] (with its [`Call`] typed), a [`Notification`], a [`ClientResponse`] or an
//!   [`Invalid`] message and why, or [`Unreadable`] bytes. Every transport reads through it, so the same bytes are the
//!   same message in-process, over stdio and over HTTP.
//! - [`Response`]: the one answer to a request, its result typed ([`Answer`]) or its
//!   [`ErrorObject`] with an [`ErrorCode`]; [`Response::write_to`] is the one writer.
//! - [`RequestId`] and [`ProgressToken`]: kept exactly as the client wrote them.
//! - [`ServerNotification`]: what a server sends unasked (progress, a changed tool list).
//!
//! The transports keep only their own policy: the control protocol answers a notification
//! with the placeholder the Claude Code CLI awaits, stdio writes what there is, HTTP maps
//! invalid → 400, nothing → 202 and an answer → 200.

mod catalog;
mod catalog_params;
mod decode;
mod error;
mod id;
mod logging;
mod message;
mod notification;
mod request_meta;
mod response;
mod result_meta;
mod results;
mod retry;
mod skills;
mod tool_call_params;
mod unreadable;

pub use catalog::CatalogAnswer;
pub(crate) use error::echo;
/// `text` cut to at most [`MAX_ECHO`] bytes (on a character boundary), `…` marking the cut: how
/// an error quotes what a client sent.
pub use error::echo as echo_text;
pub use error::{ErrorCode, ErrorObject, MAX_ECHO};
pub(crate) use id::IdError;
pub use id::{ProgressToken, RequestId};
pub(crate) use logging::SetLevelParams;
pub use logging::{LOG_MESSAGE, LOGGING_SET_LEVEL, LogMessage, LoggingLevel, UnknownLoggingLevel};
pub use message::{
    Call, ClientResponse, GetPrompt, InitializeParams, Invalid, Message, Notification, RawParams,
    ReadResource, Request, Retry, TOOL_USE_ID_META, ToolCall, TraceContext,
};
pub use notification::{
    PROMPTS_LIST_CHANGED, RESOURCE_UPDATED, RESOURCES_LIST_CHANGED, ServerNotification,
    TASK_STATUS, TOOLS_LIST_CHANGED,
};
pub use request_meta::{
    CLIENT_CAPABILITIES_META, CLIENT_INFO_META, ClientInfo, LOG_LEVEL_META, MetaClaim,
    PROTOCOL_VERSION_META, RequestMeta, SERVER_INFO_META,
};
pub use response::{Answer, Response};
pub use result_meta::{CacheHint, CacheScope, CacheableMethod, ResultMeta, ResultType};
pub(crate) use results::InputRequest;
pub use results::{
    CompletionsCapability, DiscoverResult, Implementation, InitializeResult, InputRequiredResult,
    ListChangedCapability, LoggingCapability, ResourcesCapability, ServerCapabilities,
    ServerExtensions, SkillsExtension, TasksExtension, ToolsCapability, ToolsList,
};
pub use skills::{DirectoryEntry, SkillsAnswer};
pub use unreadable::Unreadable;
