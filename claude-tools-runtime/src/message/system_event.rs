//! [`SystemEvent`]: a `system` message read by its `subtype` into the typed fields of that
//! notice, for a `match`.

use serde::Deserialize;
use serde_json::Value;

use super::hook_notices::{HookProgress, HookResponse, HookStarted};
use super::notices::{
    ApiRetry, CommandsChanged, CompactBoundary, ElicitationComplete, FilesPersisted, Informational,
    MemoryRecall, MirrorError, ModelRefusalFallback, ModelRefusalNoFallback, Notification,
    PermissionDenied,
};
use super::status_notices::{
    ControlRequestProgress, LocalCommandOutput, PluginInstall, SessionWritesLost, StatusUpdate,
    ThinkingTokens, WorkerShuttingDown,
};
use super::system::{SessionState, SystemInit, SystemMessage};
use super::tasks::{
    BackgroundTasksChanged, TaskNotification, TaskProgress, TaskStarted, TaskUpdated,
};

/// A `system` message's typed fields, by its `subtype` ([`SystemMessage::event`]). Each
/// struct keeps the fields it does not know in its `extra`; a subtype this library does not
/// know reads as [`SystemEvent::Other`], and a known one whose fields do not fit (a required
/// field missing, a value of the wrong type) as [`SystemEvent::Malformed`], with the error (the
/// message itself is untouched either way: this is a view).
///
/// ```
/// use claude_tools::message::{Message, SystemEvent};
///
/// let line = r#"{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,
///     "retry_delay_ms":520,"error_status":529,"error":"overloaded","session_id":"s","uuid":"u"}"#;
/// let message: Message = serde_json::from_str(line).unwrap();
/// let Message::System(system) = &message else { unreachable!() };
/// match system.event() {
///     SystemEvent::ApiRetry(retry) => {
///         assert_eq!((retry.attempt, retry.error_status), (1, Some(529)));
///     }
///     other => panic!("{other:?}"),
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SystemEvent {
    /// `init`: what the session starts with.
    Init(SystemInit),
    /// `status`: the CLI's status (`compacting`…; `None` when cleared), a new permission
    /// mode, or how a compaction ended.
    Status(StatusUpdate),
    /// `session_state_changed`.
    SessionStateChanged(SessionState),
    /// `task_started`.
    TaskStarted(TaskStarted),
    /// `task_progress`.
    TaskProgress(TaskProgress),
    /// `task_updated`.
    TaskUpdated(TaskUpdated),
    /// `task_notification`: a task ended.
    TaskNotification(TaskNotification),
    /// `background_tasks_changed`.
    BackgroundTasksChanged(BackgroundTasksChanged),
    /// `hook_started` (with `includeHookEvents`).
    HookStarted(HookStarted),
    /// `hook_progress`.
    HookProgress(HookProgress),
    /// `hook_response`.
    HookResponse(HookResponse),
    /// `compact_boundary`.
    CompactBoundary(CompactBoundary),
    /// `api_retry`.
    ApiRetry(ApiRetry),
    /// `permission_denied`.
    PermissionDenied(PermissionDenied),
    /// `model_refusal_fallback`.
    ModelRefusalFallback(ModelRefusalFallback),
    /// `model_refusal_no_fallback`.
    ModelRefusalNoFallback(ModelRefusalNoFallback),
    /// `notification`.
    Notification(Notification),
    /// `informational`.
    Informational(Informational),
    /// `files_persisted`.
    FilesPersisted(FilesPersisted),
    /// `commands_changed`.
    CommandsChanged(CommandsChanged),
    /// `memory_recall`.
    MemoryRecall(MemoryRecall),
    /// `elicitation_complete`.
    ElicitationComplete(ElicitationComplete),
    /// `mirror_error`.
    MirrorError(MirrorError),
    /// `thinking_tokens`.
    ThinkingTokens(ThinkingTokens),
    /// `control_request_progress`.
    ControlRequestProgress(ControlRequestProgress),
    /// `plugin_install`.
    PluginInstall(PluginInstall),
    /// `local_command_output`.
    LocalCommandOutput(LocalCommandOutput),
    /// `session_writes_lost`: the transcript (or config) could not be saved.
    SessionWritesLost(SessionWritesLost),
    /// `worker_shutting_down`.
    WorkerShuttingDown(WorkerShuttingDown),
    /// A subtype this library knows whose fields did not fit its type: read the message's
    /// `data`, as it came.
    Malformed {
        /// The subtype.
        subtype: String,
        /// What did not fit (`missing field `attempt``…).
        error: String,
    },
    /// A subtype this library does not know: read the message's `data`.
    Other,
}

impl SystemMessage {
    /// The message's typed fields, by its `subtype` (see [`SystemEvent`]). Each call reads
    /// them anew from [`data`](Self::data).
    pub fn event(&self) -> SystemEvent {
        fn read<T: for<'de> Deserialize<'de>>(
            message: &SystemMessage,
            wrap: fn(T) -> SystemEvent,
        ) -> SystemEvent {
            // The view owns its fields: the message stays as it came, for its exact round trip.
            match T::deserialize(&Value::Object(message.data.clone())) {
                Ok(fields) => wrap(fields),
                Err(error) => {
                    tracing::debug!(%error, subtype = %message.subtype,
                        "a system message did not fit its type");
                    SystemEvent::Malformed {
                        subtype: message.subtype.clone(),
                        error: error.to_string(),
                    }
                }
            }
        }
        match self.subtype.as_str() {
            "init" => read(self, SystemEvent::Init),
            "status" => read(self, SystemEvent::Status),
            "session_state_changed" => match self.session_state() {
                Some(state) => SystemEvent::SessionStateChanged(state),
                None => SystemEvent::Malformed {
                    subtype: self.subtype.clone(),
                    error: "missing or non-string field `state`".into(),
                },
            },
            "task_started" => read(self, SystemEvent::TaskStarted),
            "task_progress" => read(self, SystemEvent::TaskProgress),
            "task_updated" => read(self, SystemEvent::TaskUpdated),
            "task_notification" => read(self, SystemEvent::TaskNotification),
            "background_tasks_changed" => read(self, SystemEvent::BackgroundTasksChanged),
            "hook_started" => read(self, SystemEvent::HookStarted),
            "hook_progress" => read(self, SystemEvent::HookProgress),
            "hook_response" => read(self, SystemEvent::HookResponse),
            "compact_boundary" => read(self, SystemEvent::CompactBoundary),
            "api_retry" => read(self, SystemEvent::ApiRetry),
            "permission_denied" => read(self, SystemEvent::PermissionDenied),
            "model_refusal_fallback" => read(self, SystemEvent::ModelRefusalFallback),
            "model_refusal_no_fallback" => read(self, SystemEvent::ModelRefusalNoFallback),
            "notification" => read(self, SystemEvent::Notification),
            "informational" => read(self, SystemEvent::Informational),
            "files_persisted" => read(self, SystemEvent::FilesPersisted),
            "commands_changed" => read(self, SystemEvent::CommandsChanged),
            "memory_recall" => read(self, SystemEvent::MemoryRecall),
            "elicitation_complete" => read(self, SystemEvent::ElicitationComplete),
            "mirror_error" => read(self, SystemEvent::MirrorError),
            "thinking_tokens" => read(self, SystemEvent::ThinkingTokens),
            "control_request_progress" => read(self, SystemEvent::ControlRequestProgress),
            "plugin_install" => read(self, SystemEvent::PluginInstall),
            "local_command_output" => read(self, SystemEvent::LocalCommandOutput),
            "session_writes_lost" => read(self, SystemEvent::SessionWritesLost),
            "worker_shutting_down" => read(self, SystemEvent::WorkerShuttingDown),
            _ => SystemEvent::Other,
        }
    }
}
