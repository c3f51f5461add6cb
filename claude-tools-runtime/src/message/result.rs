//! `result` messages: the end of a turn, with how it ended, its cost and usage.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::field::{FieldError, take_typed};
use super::usage::{ModelUsage, Usage};
use super::usage_limit::UsageNotice;
use super::wire::{WireForm, null_default, typed};
use crate::wire_enum::wire_enum;

/// How a turn ended: the `subtype` of a `result`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultSubtype {
    /// `success` (which may still carry `is_error: true`, e.g. for an API error).
    Success,
    /// `error_during_execution` (also an interrupted turn).
    ErrorDuringExecution,
    /// `error_max_turns`.
    ErrorMaxTurns,
    /// `error_max_budget_usd`.
    ErrorMaxBudgetUsd,
    /// `error_max_structured_output_retries`.
    ErrorMaxStructuredOutputRetries,
    /// A subtype this library does not know.
    Other(String),
}

impl ResultSubtype {
    /// Parses the wire value.
    pub fn from_wire(subtype: &str) -> Self {
        match subtype {
            "success" => ResultSubtype::Success,
            "error_during_execution" => ResultSubtype::ErrorDuringExecution,
            "error_max_turns" => ResultSubtype::ErrorMaxTurns,
            "error_max_budget_usd" => ResultSubtype::ErrorMaxBudgetUsd,
            "error_max_structured_output_retries" => ResultSubtype::ErrorMaxStructuredOutputRetries,
            other => ResultSubtype::Other(other.to_owned()),
        }
    }

    /// The wire value.
    pub fn as_str(&self) -> &str {
        match self {
            ResultSubtype::Success => "success",
            ResultSubtype::ErrorDuringExecution => "error_during_execution",
            ResultSubtype::ErrorMaxTurns => "error_max_turns",
            ResultSubtype::ErrorMaxBudgetUsd => "error_max_budget_usd",
            ResultSubtype::ErrorMaxStructuredOutputRetries => "error_max_structured_output_retries",
            ResultSubtype::Other(other) => other,
        }
    }
}

impl std::fmt::Display for ResultSubtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResultSubtype {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultSubtype {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|s| ResultSubtype::from_wire(&s))
    }
}

/// A `result` message: the end of a turn.
///
/// The accounting fields are typed ([`Usage`], [`ModelUsage`], [`PermissionDenial`]…). One whose
/// value does not fit its type does not cost the message: it stays untyped in
/// [`extra`](Self::extra) and [`field_errors`](Self::field_errors) names it.
///
/// ```
/// use claude_tools::message::{Message, TerminalReason};
///
/// let line = r#"{"type":"result","subtype":"success","is_error":false,"session_id":"s",
///   "total_cost_usd":0.0723,"terminal_reason":"completed",
///   "modelUsage":{"claude-opus-5-5":{"inputTokens":17963,"outputTokens":19,
///     "cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.0723}}}"#;
/// let message = Message::from_value(serde_json::from_str(line).unwrap());
/// let result = message.as_result().unwrap();
/// assert_eq!(result.terminal_reason, Some(TerminalReason::Completed));
/// assert_eq!(result.total_tokens(), 17_982);
/// for (model, cost) in result.cost_by_model() {
///     println!("{model}: ${cost:.4}");
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub struct ResultMessage {
    /// How the turn ended.
    pub subtype: ResultSubtype,
    /// Whether the turn failed.
    #[serde(default, deserialize_with = "null_default")]
    pub is_error: bool,
    /// Wall time of the turn.
    #[serde(default, deserialize_with = "null_default")]
    pub duration_ms: u64,
    /// Time spent in the API.
    #[serde(default, deserialize_with = "null_default")]
    pub duration_api_ms: u64,
    /// Agent turns taken.
    #[serde(default, deserialize_with = "null_default")]
    pub num_turns: u32,
    /// The session id.
    #[serde(default, deserialize_with = "null_default")]
    pub session_id: String,
    /// The final text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why the model stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The CLI's estimated cost in USD of the whole `query` so far (cumulative in a streaming
    /// session: read the latest result, do not sum them). Covers what
    /// [`model_usage`](Self::model_usage) covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost_usd: Option<f64>,
    /// The API usage of the turn's main loop only (no subagents, no compaction): prefer
    /// [`model_usage`](Self::model_usage) for accounting.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Totals per model over every call of the `query` so far (main loop, subagents,
    /// compaction…), keyed by the model id: the field for token and cost accounting. Empty
    /// when the CLI sent none.
    #[serde(
        default,
        skip_deserializing,
        rename = "modelUsage",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// Tool calls the permission system refused (always written, as the CLI does).
    #[serde(default, skip_deserializing)]
    pub permission_denials: Vec<PermissionDenial>,
    /// The structured output (with an output schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// Error messages, for the error subtypes.
    #[serde(default, skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// The HTTP status of a fatal API error (`null` when there was none, as the CLI writes).
    #[serde(default)]
    pub api_error_status: Option<u16>,
    /// Why the run ended.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<TerminalReason>,
    /// The tool call a `PreToolUse` hook deferred (with [`TerminalReason::ToolDeferred`]):
    /// resume the session to run it.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub deferred_tool_use: Option<Box<DeferredToolUse>>,
    /// Why the CLI could not start, on the zeroed `error_during_execution` result it writes
    /// before exiting on a known startup failure (`errors` has the message): offer the fix
    /// rather than a retry.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub startup_failure_reason: Option<StartupFailureReason>,
    /// With [`StartupFailureReason::ConfigFileInvalid`]: the file that did not parse and its
    /// backup (read paths from here, never from the text of `errors`).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub invalid_config_file: Option<Box<InvalidConfigFile>>,
    /// User sends still queued when the result was written: more than 0 means another turn
    /// (and result) follows without further input.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub queued_turn_count: Option<u32>,
    /// Fast mode's state.
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub fast_mode_state: Option<FastModeState>,
    /// Why fast mode cannot serve now (absent when nothing blocks it).
    #[serde(default, skip_deserializing, skip_serializing_if = "Option::is_none")]
    pub fast_mode_disabled_reason: Option<FastModeDisabledReason>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    // (The two rare blocks above are boxed: they would make every `Message` larger.)
    /// Every other field (`api_error_type`, `result_index`, timings…), and any typed field
    /// whose value did not fit (see [`field_errors`](Self::field_errors)).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The typed fields whose value did not fit, kept in `extra`.
    #[serde(skip)]
    field_errors: Vec<FieldError>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl ResultMessage {
    /// `subtype == success` and not `is_error`.
    pub fn is_success(&self) -> bool {
        self.subtype == ResultSubtype::Success && !self.is_error
    }

    /// The typed fields whose wire value did not fit their type (each kept untyped in
    /// [`extra`](Self::extra) under its key): empty for a well-formed line.
    pub fn field_errors(&self) -> &[FieldError] {
        &self.field_errors
    }

    /// Every token of the `query` so far, over every model ([`model_usage`](Self::model_usage));
    /// the main loop's [`usage`](Self::usage) when the CLI sent no per-model totals.
    pub fn total_tokens(&self) -> u64 {
        if self.model_usage.is_empty() {
            return self.usage.as_ref().map_or(0, Usage::total_tokens);
        }
        self.model_usage
            .values()
            .fold(0u64, |sum, model| sum.saturating_add(model.total_tokens()))
    }

    /// The estimated cost in USD of each model of the `query` so far, by model id.
    pub fn cost_by_model(&self) -> impl Iterator<Item = (&str, f64)> {
        self.model_usage
            .iter()
            .map(|(model, usage)| (model.as_str(), usage.cost_usd))
    }

    /// The estimated cost in USD: [`total_cost_usd`](Self::total_cost_usd), else the sum of
    /// [`cost_by_model`](Self::cost_by_model) (0 when the CLI sent neither).
    pub fn cost_usd(&self) -> f64 {
        self.total_cost_usd
            .unwrap_or_else(|| self.cost_by_model().map(|(_, cost)| cost).sum())
    }

    /// Whether the turn failed on a usage limit or an organization's policy, by the error text
    /// (`result`, then `errors`) and the prefixes of [`UsageNotice`]: show a usage-limit card
    /// rather than offering a retry. `None` for a turn that did not fail.
    pub fn usage_notice(&self) -> Option<UsageNotice> {
        if !self.is_error {
            return None;
        }
        self.result
            .iter()
            .chain(&self.errors)
            .find_map(|text| UsageNotice::classify(text))
    }

    /// Moves the typed fields the derive leaves in `extra` into place.
    fn type_fields(&mut self) {
        let extra = &mut self.extra;
        let errors = &mut self.field_errors;
        self.usage = take_typed(extra, "usage", errors);
        self.model_usage = take_typed(extra, "modelUsage", errors).unwrap_or_default();
        self.permission_denials =
            take_typed(extra, "permission_denials", errors).unwrap_or_default();
        self.errors = take_typed(extra, "errors", errors).unwrap_or_default();
        self.terminal_reason = take_typed(extra, "terminal_reason", errors);
        self.deferred_tool_use = take_typed(extra, "deferred_tool_use", errors);
        self.startup_failure_reason = take_typed(extra, "startup_failure_reason", errors);
        self.invalid_config_file = take_typed(extra, "invalid_config_file", errors);
        self.queued_turn_count = take_typed(extra, "queued_turn_count", errors);
        self.fast_mode_state = take_typed(extra, "fast_mode_state", errors);
        self.fast_mode_disabled_reason = take_typed(extra, "fast_mode_disabled_reason", errors);
    }
}

impl Serialize for ResultMessage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ResultMessage::serialize(self, serializer)
    }
}

impl<'de> Deserialize<'de> for ResultMessage {
    /// Fails only where the untyped fields do; a typed field that does not fit is kept in
    /// `extra` and named in [`ResultMessage::field_errors`].
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut message = ResultMessage::deserialize(deserializer)?;
        message.type_fields();
        Ok(message)
    }
}

/// A tool call the permission system refused (an entry of `permission_denials`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionDenial {
    /// The tool (`Bash`, `mcp__server__tool`…).
    #[serde(default)]
    pub tool_name: String,
    /// The refused call's id.
    #[serde(default)]
    pub tool_use_id: String,
    /// The input it was called with.
    #[serde(default)]
    pub tool_input: Map<String, Value>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PermissionDenial {
    /// The refusal of call `tool_use_id` to `tool_name` with `tool_input`.
    pub fn new(
        tool_name: impl Into<String>,
        tool_use_id: impl Into<String>,
        tool_input: Map<String, Value>,
    ) -> Self {
        PermissionDenial {
            tool_name: tool_name.into(),
            tool_use_id: tool_use_id.into(),
            tool_input,
            extra: Map::new(),
        }
    }
}

/// A tool call a `PreToolUse` hook deferred (`deferred_tool_use`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeferredToolUse {
    /// The call's id.
    #[serde(default)]
    pub id: String,
    /// The tool.
    #[serde(default)]
    pub name: String,
    /// Its input.
    #[serde(default)]
    pub input: Map<String, Value>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The config file that did not parse (`invalid_config_file`, with
/// [`StartupFailureReason::ConfigFileInvalid`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct InvalidConfigFile {
    /// The file that is not valid JSON, as the machine running the CLI spells it.
    #[serde(default)]
    pub path: String,
    /// Whether it is Claude Code's global config file (the only one with backups).
    #[serde(default)]
    pub is_global: bool,
    /// Whether the search for a backup has a known result (true with no `backup_path`: none).
    #[serde(default)]
    pub backup_searched: bool,
    /// The backup the message in `errors` names: show it to a person, or check that it
    /// parses, before copying it over `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_path: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// Why a run ended (`terminal_reason`), as the TypeScript SDK 0.3.332 lists them.
    pub enum TerminalReason {
        /// `completed`.
        Completed = "completed",
        /// `blocking_limit`: a usage limit blocks further requests.
        BlockingLimit = "blocking_limit",
        /// `rapid_refill_breaker`.
        RapidRefillBreaker = "rapid_refill_breaker",
        /// `prompt_too_long`.
        PromptTooLong = "prompt_too_long",
        /// `image_error`.
        ImageError = "image_error",
        /// `model_error`.
        ModelError = "model_error",
        /// `api_error` (see `api_error_status`).
        ApiError = "api_error",
        /// `malformed_tool_use_exhausted`.
        MalformedToolUseExhausted = "malformed_tool_use_exhausted",
        /// `aborted_streaming`: interrupted while the model was answering.
        AbortedStreaming = "aborted_streaming",
        /// `aborted_tools`: interrupted while tools ran.
        AbortedTools = "aborted_tools",
        /// `stop_hook_prevented`.
        StopHookPrevented = "stop_hook_prevented",
        /// `hook_stopped`.
        HookStopped = "hook_stopped",
        /// `tool_deferred`: a hook deferred a call (see `deferred_tool_use`).
        ToolDeferred = "tool_deferred",
        /// `max_turns`.
        MaxTurns = "max_turns",
        /// `background_requested`.
        BackgroundRequested = "background_requested",
        /// `budget_exhausted`.
        BudgetExhausted = "budget_exhausted",
        /// `structured_output_retry_exhausted`.
        StructuredOutputRetryExhausted = "structured_output_retry_exhausted",
        /// `tool_deferred_unavailable`.
        ToolDeferredUnavailable = "tool_deferred_unavailable",
        /// `turn_setup_failed`.
        TurnSetupFailed = "turn_setup_failed",
    }
}

wire_enum! {
    /// Why the CLI could not start (`startup_failure_reason`), as the TypeScript SDK 0.3.332
    /// lists them.
    pub enum StartupFailureReason {
        /// `org_pin_api_key_conflict`.
        OrgPinApiKeyConflict = "org_pin_api_key_conflict",
        /// `provider_not_allowed`.
        ProviderNotAllowed = "provider_not_allowed",
        /// `org_verify_failed`.
        OrgVerifyFailed = "org_verify_failed",
        /// `org_pin_mismatch`.
        OrgPinMismatch = "org_pin_mismatch",
        /// `managed_settings_invalid`.
        ManagedSettingsInvalid = "managed_settings_invalid",
        /// `remote_settings_required_unavailable`.
        RemoteSettingsRequiredUnavailable = "remote_settings_required_unavailable",
        /// `gateway_signin_required`.
        GatewaySigninRequired = "gateway_signin_required",
        /// `gateway_access_denied`.
        GatewayAccessDenied = "gateway_access_denied",
        /// `proxy_invalid`.
        ProxyInvalid = "proxy_invalid",
        /// `temp_dir_unusable`.
        TempDirUnusable = "temp_dir_unusable",
        /// `cwd_unavailable`.
        CwdUnavailable = "cwd_unavailable",
        /// `shell_tool_missing`.
        ShellToolMissing = "shell_tool_missing",
        /// `session_held_by_background`.
        SessionHeldByBackground = "session_held_by_background",
        /// `worktree_resume_refused`.
        WorktreeResumeRefused = "worktree_resume_refused",
        /// `worktree_unverified`.
        WorktreeUnverified = "worktree_unverified",
        /// `cli_version_too_old`.
        CliVersionTooOld = "cli_version_too_old",
        /// `bypass_root`: bypass-permissions mode refused as root.
        BypassRoot = "bypass_root",
        /// `org_config_required_unavailable`.
        OrgConfigRequiredUnavailable = "org_config_required_unavailable",
        /// `org_config_refused`.
        OrgConfigRefused = "org_config_refused",
        /// `sandbox_required_unavailable`.
        SandboxRequiredUnavailable = "sandbox_required_unavailable",
        /// `initialize_not_first`.
        InitializeNotFirst = "initialize_not_first",
        /// `config_file_invalid` (see `invalid_config_file`).
        ConfigFileInvalid = "config_file_invalid",
        /// `managed_settings_not_delivered`.
        ManagedSettingsNotDelivered = "managed_settings_not_delivered",
        /// `initialize_fields_not_delivered`.
        InitializeFieldsNotDelivered = "initialize_fields_not_delivered",
        /// `sideload_flags_disabled`.
        SideloadFlagsDisabled = "sideload_flags_disabled",
    }
}

wire_enum! {
    /// Fast mode's state (`fast_mode_state`).
    pub enum FastModeState {
        /// `off`.
        Off = "off",
        /// `cooldown`: paused after a rate limit.
        Cooldown = "cooldown",
        /// `on`.
        On = "on",
    }
}

wire_enum! {
    /// Why fast mode cannot serve now (`fast_mode_disabled_reason`).
    pub enum FastModeDisabledReason {
        /// `free`.
        Free = "free",
        /// `preference`.
        Preference = "preference",
        /// `extra_usage_disabled`.
        ExtraUsageDisabled = "extra_usage_disabled",
        /// `network_error`.
        NetworkError = "network_error",
        /// `unknown`.
        Unknown = "unknown",
        /// `not_first_party`.
        NotFirstParty = "not_first_party",
        /// `disabled_by_env`.
        DisabledByEnv = "disabled_by_env",
        /// `model_not_allowed`.
        ModelNotAllowed = "model_not_allowed",
        /// `sdk_opt_in_required`.
        SdkOptInRequired = "sdk_opt_in_required",
        /// `pending`.
        Pending = "pending",
    }
}

typed!(ResultMessage { extra });
