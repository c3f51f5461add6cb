//! The messages the CLI streams to the user, typed; and the user messages the host writes.
//!
//! Parsing never fails the stream: [`Message::from_value`] is infallible. An unknown `type`, or
//! a known one whose fields do not fit, is kept whole as [`Message::Other`] (and logged at debug
//! level); unknown fields of known messages are kept in their `extra` (or `data`) maps, and
//! unknown content blocks as [`ContentBlock::Other`].
//!
//! [`Message::to_value`] (and `Message`'s `Serialize`) gives back exactly the JSON the CLI wrote:
//! a `null`, an empty array or an absent field stays what it was, even where the typed field
//! cannot tell them apart (`api_error_status: None` is both `null` and absent). A message keeps,
//! next to its typed fields, the wire form of each top-level field whose typed value would
//! serialize differently; a field you change is written from its new typed value. (Serializing
//! one of the typed structs on its own writes its typed fields only: go through [`Message`] for
//! the exact line.)

mod assistant;
mod content;
mod events;
mod field;
mod hook_notices;
mod input;
mod mcp_status_config;
mod notices;
mod result;
mod server_blocks;
mod status_notices;
mod stream_event;
mod system;
mod system_event;
mod tasks;
mod usage;
mod usage_limit;
mod user;
mod web;
mod wire;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub use assistant::{AssistantBody, AssistantError, AssistantMessage};
pub use content::{ContentBlock, MessageContent, UserContent};
pub use events::{
    AuthStatus, ConversationReset, PromptSuggestion, RateLimitEvent, RateLimitInfo,
    RateLimitStatus, RateLimitType, ResetTrigger, ToolProgress, ToolUseSummary,
};
pub use field::FieldError;
pub use hook_notices::{HookOutcome, HookProgress, HookResponse, HookStarted};
pub use input::{QueuePriority, UserInput};
pub use mcp_status_config::McpServerStatusConfig;
pub use notices::{
    ApiErrorKind, ApiRetry, CommandsChanged, CompactBoundary, CompactMetadata, ElicitationComplete,
    FilesPersisted, Informational, InformationalLevel, Memory, MemoryRecall, MemoryRecallMode,
    MemoryScope, MirrorError, MirrorKey, ModelRefusalFallback, ModelRefusalNoFallback,
    Notification, NotificationPriority, PermissionDenied, PersistedFile, PreservedMessages,
    RefusalDirection, Trigger, UnpersistedFile,
};
pub use result::{
    DeferredToolUse, FastModeDisabledReason, FastModeState, InvalidConfigFile, PermissionDenial,
    ResultMessage, ResultSubtype, StartupFailureReason, TerminalReason,
};
pub use server_blocks::{
    AdvisorContent, CodeExecutionContent, Compaction, ContainerUpload, Fallback, FallbackModel,
    FallbackTrigger, McpListedTool, McpToolListing, McpToolResult, McpToolUse, OutputFile,
    ServerToolError, ServerToolErrorCode, ServerToolResult, TextEditorContent, ToolReference,
    ToolSearchContent,
};
pub use status_notices::{
    ActiveGoal, CliStatus, CompactResult, ControlProgressStatus, ControlRequestProgress, Goal,
    LocalCommandOutput, LostWrite, PluginInstall, PluginInstallStatus, SessionWritesLost,
    StatusUpdate, ThinkingTokens, WorkerShuttingDown, WriteErrorCode,
};
pub use stream_event::StreamEvent;
pub use system::{
    McpServerInfo, McpServerStatus, McpToolAnnotations, McpToolInfo, SessionState, SystemInit,
    SystemMessage,
};
pub use system_event::SystemEvent;
pub use tasks::{
    BackgroundTask, BackgroundTasksChanged, TaskEndStatus, TaskNotification, TaskPatch,
    TaskProgress, TaskStarted, TaskStatus, TaskUpdated, TaskUsage,
};
pub use usage::{
    CacheCreation, CostBasis, ModelUsage, OutputTokensDetails, ServerToolUse, ServiceTier, Speed,
    Usage,
};
pub use usage_limit::{
    ORG_POLICY_LIMIT_PREFIXES, USAGE_LIMIT_ERROR_PREFIXES, USAGE_TRANSITION_PREFIXES,
    USAGE_WARNING_PREFIXES, UsageNotice,
};
pub use user::{UserBody, UserMessage};
pub use web::{WebFetchContent, WebFetchResult, WebSearchContent, WebSearchResult, WebToolError};
use wire::{Typed, WireForm};

/// One message from the CLI.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Message {
    /// `system`: session init, status, and other notices.
    System(SystemMessage),
    /// `assistant`: the model's output (one frame per content block).
    Assistant(AssistantMessage),
    /// `user`: prompts and tool results, as the CLI records them.
    User(UserMessage),
    /// `result`: the end of a turn, with cost and usage.
    Result(ResultMessage),
    /// `stream_event`: a raw streaming event (with `include_partial_messages`).
    StreamEvent(StreamEvent),
    /// `rate_limit_event`: the account's rate limits changed.
    RateLimit(RateLimitEvent),
    /// `tool_progress`: a tool is still running.
    ToolProgress(ToolProgress),
    /// `auth_status`: a sign-in's state.
    AuthStatus(AuthStatus),
    /// `tool_use_summary`: a summary of the tool calls before it.
    ToolUseSummary(ToolUseSummary),
    /// `prompt_suggestion`: a prompt the user might send next.
    PromptSuggestion(PromptSuggestion),
    /// `conversation_reset`: the conversation was replaced by a new one.
    ConversationReset(ConversationReset),
    /// `active_goal`: the `/goal` condition was checked (met, or not yet).
    ActiveGoal(ActiveGoal),
    /// Anything else (`keep_alive`, a future type…), or a known type whose fields did not
    /// fit, kept as it came.
    Other(Value),
}

impl Message {
    /// Types a message; never fails (see the module docs).
    pub fn from_value(value: Value) -> Message {
        fn typed<T: Typed>(value: &Value, wrap: fn(T) -> Message) -> Option<Message> {
            match T::deserialize(value) {
                Ok(mut message) => {
                    *message.wire_mut() = WireForm::between(value, &mut message);
                    Some(wrap(message))
                }
                Err(error) => {
                    tracing::debug!(
                        %error,
                        r#type = value.get("type").and_then(|t| t.as_str()).unwrap_or_default(),
                        "a message did not fit its type; passing it through untyped"
                    );
                    None
                }
            }
        }
        let parsed = match value.get("type").and_then(Value::as_str) {
            Some("system") => typed(&value, Message::System),
            Some("assistant") => typed(&value, Message::Assistant),
            Some("user") => typed(&value, Message::User),
            Some("result") => typed(&value, Message::Result),
            Some("stream_event") => typed(&value, Message::StreamEvent),
            Some("rate_limit_event") => typed(&value, Message::RateLimit),
            Some("tool_progress") => typed(&value, Message::ToolProgress),
            Some("auth_status") => typed(&value, Message::AuthStatus),
            Some("tool_use_summary") => typed(&value, Message::ToolUseSummary),
            Some("prompt_suggestion") => typed(&value, Message::PromptSuggestion),
            Some("conversation_reset") => typed(&value, Message::ConversationReset),
            Some("active_goal") => typed(&value, Message::ActiveGoal),
            _ => None,
        };
        parsed.unwrap_or(Message::Other(value))
    }

    /// The message as JSON, `type` included: for a message read from the CLI, exactly the
    /// line it wrote (see the module docs).
    pub fn to_value(&self) -> Value {
        let mut value = match self {
            Message::System(m) => m.wire().apply(m),
            Message::Assistant(m) => m.wire().apply(m),
            Message::User(m) => m.wire().apply(m),
            Message::Result(m) => m.wire().apply(m),
            Message::StreamEvent(m) => m.wire().apply(m),
            Message::RateLimit(m) => m.wire().apply(m),
            Message::ToolProgress(m) => m.wire().apply(m),
            Message::AuthStatus(m) => m.wire().apply(m),
            Message::ToolUseSummary(m) => m.wire().apply(m),
            Message::PromptSuggestion(m) => m.wire().apply(m),
            Message::ConversationReset(m) => m.wire().apply(m),
            Message::ActiveGoal(m) => m.wire().apply(m),
            Message::Other(value) => return value.clone(),
        };
        if let Value::Object(map) = &mut value {
            map.insert("type".into(), Value::from(self.message_type()));
        }
        value
    }

    /// The wire `type`: `system`, `assistant`, `user`, `result`, `stream_event`,
    /// `rate_limit_event`…, or the unknown message's own (empty when it has none).
    pub fn message_type(&self) -> &str {
        match self {
            Message::System(_) => "system",
            Message::Assistant(_) => "assistant",
            Message::User(_) => "user",
            Message::Result(_) => "result",
            Message::StreamEvent(_) => "stream_event",
            Message::RateLimit(_) => "rate_limit_event",
            Message::ToolProgress(_) => "tool_progress",
            Message::AuthStatus(_) => "auth_status",
            Message::ToolUseSummary(_) => "tool_use_summary",
            Message::PromptSuggestion(_) => "prompt_suggestion",
            Message::ConversationReset(_) => "conversation_reset",
            Message::ActiveGoal(_) => "active_goal",
            Message::Other(value) => value
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        }
    }

    /// The session id the message carries, if any (an empty one counts as none).
    pub fn session_id(&self) -> Option<&str> {
        let id = match self {
            Message::System(m) => m.session_id.as_deref(),
            Message::Assistant(m) => m.session_id.as_deref(),
            Message::User(m) => m.session_id.as_deref(),
            Message::Result(m) => Some(m.session_id.as_str()),
            Message::StreamEvent(m) => m.session_id.as_deref(),
            Message::RateLimit(m) => m.session_id.as_deref(),
            Message::ToolProgress(m) => m.session_id.as_deref(),
            Message::AuthStatus(m) => m.session_id.as_deref(),
            Message::ToolUseSummary(m) => m.session_id.as_deref(),
            Message::PromptSuggestion(m) => m.session_id.as_deref(),
            Message::ConversationReset(m) => m.session_id.as_deref(),
            Message::ActiveGoal(m) => m.session_id.as_deref(),
            Message::Other(v) => v.get("session_id").and_then(Value::as_str),
        };
        id.filter(|id| !id.is_empty())
    }

    /// The message uuid, if any.
    pub fn uuid(&self) -> Option<&str> {
        match self {
            Message::System(m) => m.uuid.as_deref(),
            Message::Assistant(m) => m.uuid.as_deref(),
            Message::User(m) => m.uuid.as_deref(),
            Message::Result(m) => m.uuid.as_deref(),
            Message::StreamEvent(m) => m.uuid.as_deref(),
            Message::RateLimit(m) => m.uuid.as_deref(),
            Message::ToolProgress(m) => m.uuid.as_deref(),
            Message::AuthStatus(m) => m.uuid.as_deref(),
            Message::ToolUseSummary(m) => m.uuid.as_deref(),
            Message::PromptSuggestion(m) => m.uuid.as_deref(),
            Message::ConversationReset(m) => m.uuid.as_deref(),
            Message::ActiveGoal(m) => m.uuid.as_deref(),
            Message::Other(v) => v.get("uuid").and_then(Value::as_str),
        }
    }

    /// Whether this is a `result`.
    pub fn is_result(&self) -> bool {
        matches!(self, Message::Result(_))
    }

    /// The `result`, when this is one.
    pub fn as_result(&self) -> Option<&ResultMessage> {
        match self {
            Message::Result(m) => Some(m),
            _ => None,
        }
    }

    /// The `assistant` message, when this is one.
    pub fn as_assistant(&self) -> Option<&AssistantMessage> {
        match self {
            Message::Assistant(m) => Some(m),
            _ => None,
        }
    }
}

impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Message {
    /// Never fails on a JSON value (see [`Message::from_value`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Message::from_value)
    }
}
