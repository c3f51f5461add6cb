//! Hooks: host callbacks the CLI calls at points of its loop (`PreToolUse`, `PostToolUse`…),
//! registered in `initialize` and answered through `hook_callback` requests.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

/// The events a hook can be registered for: the 34 the CLI 2.1.332 knows (the TypeScript
/// SDK's `HOOK_EVENTS`), each by its own variant, and [`HookEvent::Other`] for one a later CLI
/// adds. [`HookEvent::from`] reads a wire name; [`HookEvent::ALL`] lists the known ones.
///
/// ```
/// use claude_tools::HookEvent;
///
/// assert_eq!(HookEvent::from("SessionStart"), HookEvent::SessionStart);
/// assert_eq!(HookEvent::SessionStart.as_str(), "SessionStart");
/// assert_eq!(HookEvent::from("NewInCli9"), HookEvent::Other("NewInCli9".into()));
/// assert_eq!(HookEvent::ALL.len(), 34);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum HookEvent {
    /// Before a tool runs; can allow, deny or change its input.
    PreToolUse,
    /// After a tool ran.
    PostToolUse,
    /// After a tool failed.
    PostToolUseFailure,
    /// Once after every tool call of a batch (the tool uses of one model answer) has resolved,
    /// before the next model request (`PostToolUse` fires per tool, possibly concurrently).
    PostToolBatch,
    /// On a notification.
    Notification,
    /// When the user submits a prompt.
    UserPromptSubmit,
    /// When a prompt is expanded (a slash command or skill turned into its text).
    UserPromptExpansion,
    /// When a session starts: at startup, on resume, after `/clear` or a compaction, on a fork.
    SessionStart,
    /// When a session ends.
    SessionEnd,
    /// When the agent stops.
    Stop,
    /// When a turn ends on an error instead of a normal stop.
    StopFailure,
    /// When a subagent starts.
    SubagentStart,
    /// When a subagent stops.
    SubagentStop,
    /// Before the conversation is compacted.
    PreCompact,
    /// After the conversation was compacted, with its summary.
    PostCompact,
    /// Before the model is switched.
    PreModelSwitch,
    /// After the model was switched.
    PostModelSwitch,
    /// When a permission is requested.
    PermissionRequest,
    /// After a permission was denied.
    PermissionDenied,
    /// When the CLI runs its setup (`--init`, `--maintenance`).
    Setup,
    /// When an agent team's teammate goes idle.
    TeammateIdle,
    /// When a task is created.
    TaskCreated,
    /// When a task is completed.
    TaskCompleted,
    /// When an MCP server asks the user for input (elicitation): a hook can answer it instead
    /// of a dialog.
    Elicitation,
    /// After the user answered an MCP elicitation: a hook can observe or change the answer
    /// before it goes to the server.
    ElicitationResult,
    /// When a settings file changes while the session runs.
    ConfigChange,
    /// When a git worktree is created for the session.
    WorktreeCreate,
    /// When a git worktree of the session is removed.
    WorktreeRemove,
    /// When instruction files (`CLAUDE.md`, rules) are loaded into the context.
    InstructionsLoaded,
    /// When the working directory changes.
    CwdChanged,
    /// When a file the session watches changes.
    FileChanged,
    /// When a directory is added to the session (`/add-dir`).
    DirectoryAdded,
    /// With each batch of newly completed lines while an assistant message streams (display
    /// only: what is stored and what the model sees are untouched).
    MessageDisplay,
    /// Before a shell command embedded in a skill or slash command runs: the `` !`command` ``
    /// of its text, run when the skill or command is loaded (CLI 2.1.332 and later). The
    /// input has `tool_name` (`Bash` or `PowerShell`), `tool_input.command` (the command as it
    /// would run, arguments filled in), `command_name` (the skill or command whose text holds
    /// it), `command_source` (such as `projectSettings`), `invoked_by` (`user`, `claude` or
    /// `other`) and a `tool_use_id` that names no tool call of the transcript.
    ///
    /// [`HookOutput::deny_tool`] and [`HookOutput::ask`] keep the command from running, as does
    /// any [`HookOutput::updated_input`]: the CLI never runs a changed command. In place of the
    /// command's output the skill's text then reads `[not run: blocked by hook: <reason>]`.
    /// [`HookOutput::allow_tool`] adds nothing: the command runs unless a hook refuses it.
    PreSkillShellCommand,
    /// Any other event the CLI knows, by its wire name.
    Other(String),
}

impl HookEvent {
    /// Every event the CLI 2.1.332 knows, in its order.
    pub const ALL: [HookEvent; 34] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PostToolBatch,
        HookEvent::Notification,
        HookEvent::UserPromptSubmit,
        HookEvent::UserPromptExpansion,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::Stop,
        HookEvent::StopFailure,
        HookEvent::SubagentStart,
        HookEvent::SubagentStop,
        HookEvent::PreCompact,
        HookEvent::PostCompact,
        HookEvent::PreModelSwitch,
        HookEvent::PostModelSwitch,
        HookEvent::PermissionRequest,
        HookEvent::PermissionDenied,
        HookEvent::Setup,
        HookEvent::TeammateIdle,
        HookEvent::TaskCreated,
        HookEvent::TaskCompleted,
        HookEvent::Elicitation,
        HookEvent::ElicitationResult,
        HookEvent::ConfigChange,
        HookEvent::WorktreeCreate,
        HookEvent::WorktreeRemove,
        HookEvent::InstructionsLoaded,
        HookEvent::CwdChanged,
        HookEvent::FileChanged,
        HookEvent::DirectoryAdded,
        HookEvent::MessageDisplay,
        HookEvent::PreSkillShellCommand,
    ];

    /// The event's wire name.
    pub fn as_str(&self) -> &str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::PostToolBatch => "PostToolBatch",
            HookEvent::Notification => "Notification",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::UserPromptExpansion => "UserPromptExpansion",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::Stop => "Stop",
            HookEvent::StopFailure => "StopFailure",
            HookEvent::SubagentStart => "SubagentStart",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::PostCompact => "PostCompact",
            HookEvent::PreModelSwitch => "PreModelSwitch",
            HookEvent::PostModelSwitch => "PostModelSwitch",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PermissionDenied => "PermissionDenied",
            HookEvent::Setup => "Setup",
            HookEvent::TeammateIdle => "TeammateIdle",
            HookEvent::TaskCreated => "TaskCreated",
            HookEvent::TaskCompleted => "TaskCompleted",
            HookEvent::Elicitation => "Elicitation",
            HookEvent::ElicitationResult => "ElicitationResult",
            HookEvent::ConfigChange => "ConfigChange",
            HookEvent::WorktreeCreate => "WorktreeCreate",
            HookEvent::WorktreeRemove => "WorktreeRemove",
            HookEvent::InstructionsLoaded => "InstructionsLoaded",
            HookEvent::CwdChanged => "CwdChanged",
            HookEvent::FileChanged => "FileChanged",
            HookEvent::DirectoryAdded => "DirectoryAdded",
            HookEvent::MessageDisplay => "MessageDisplay",
            HookEvent::PreSkillShellCommand => "PreSkillShellCommand",
            HookEvent::Other(name) => name,
        }
    }
}

/// Reads a wire name: a known event's variant, else [`HookEvent::Other`].
impl From<&str> for HookEvent {
    fn from(name: &str) -> Self {
        HookEvent::ALL
            .iter()
            .find(|event| event.as_str() == name)
            .cloned()
            .unwrap_or_else(|| HookEvent::Other(name.to_string()))
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the CLI passes to a hook: the event's input object.
#[derive(Debug, Clone)]
pub struct HookInput {
    /// The whole input (`session_id`, `cwd`, `hook_event_name`, `tool_name`, `tool_input`…).
    pub raw: Map<String, Value>,
    /// The `tool_use_id` the request carries, for tool events.
    pub tool_use_id: Option<String>,
    cancellation: CancellationToken,
}

impl HookInput {
    pub(crate) fn new(
        raw: Map<String, Value>,
        tool_use_id: Option<String>,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            raw,
            tool_use_id,
            cancellation,
        }
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }

    /// `hook_event_name`.
    pub fn event_name(&self) -> Option<&str> {
        self.str_field("hook_event_name")
    }

    /// `tool_name`, for tool events.
    pub fn tool_name(&self) -> Option<&str> {
        self.str_field("tool_name")
    }

    /// `tool_input`, for tool events.
    pub fn tool_input(&self) -> Option<&Value> {
        self.raw.get("tool_input")
    }

    /// `session_id`.
    pub fn session_id(&self) -> Option<&str> {
        self.str_field("session_id")
    }

    /// Fires when the CLI withdraws the call (`control_cancel_request`) or the session ends.
    /// No answer is sent then; the hook is still polled for up to
    /// [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) so a branch waiting on this token can clean
    /// up, and is dropped after that (the contract is described there).
    pub fn cancellation_token(&self) -> &CancellationToken {
        &self.cancellation
    }
}

/// A hook's answer. The default (`HookOutput::new()`) has no opinion (`{}`).
///
/// ```
/// use claude_tools::hooks::HookOutput;
///
/// let output = HookOutput::new().deny_tool("writes are frozen today");
/// assert_eq!(
///     output.to_json("PreToolUse"),
///     serde_json::json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
///         "permissionDecision": "deny", "permissionDecisionReason": "writes are frozen today"}})
/// );
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutput {
    fields: Map<String, Value>,
    specific: Map<String, Value>,
}

impl HookOutput {
    /// No opinion.
    pub fn new() -> Self {
        Self::default()
    }

    /// `decision: "block"` with a reason for the model (PostToolUse, Stop, UserPromptSubmit…).
    pub fn block(mut self, reason: impl Into<String>) -> Self {
        self.fields.insert("decision".into(), json!("block"));
        self.fields.insert("reason".into(), json!(reason.into()));
        self
    }

    /// PreToolUse: deny the tool call; the model reads `reason`. PreSkillShellCommand: keep
    /// the command from running.
    pub fn deny_tool(self, reason: impl Into<String>) -> Self {
        self.permission("deny", reason.into())
    }

    /// PreToolUse: allow the tool call without asking. PreSkillShellCommand: no effect (the
    /// command runs unless a hook refuses it).
    pub fn allow_tool(self, reason: impl Into<String>) -> Self {
        self.permission("allow", reason.into())
    }

    /// PreToolUse: ask the user (or the permission callback). PreSkillShellCommand: like
    /// [`deny_tool`](Self::deny_tool), the command does not run.
    pub fn ask(self, reason: impl Into<String>) -> Self {
        self.permission("ask", reason.into())
    }

    fn permission(mut self, decision: &str, reason: String) -> Self {
        self.specific
            .insert("permissionDecision".into(), json!(decision));
        self.specific
            .insert("permissionDecisionReason".into(), json!(reason));
        self
    }

    /// PreToolUse: run the tool with this input instead. PreSkillShellCommand: never applied;
    /// any value keeps the command from running.
    pub fn updated_input(mut self, input: Value) -> Self {
        self.specific.insert("updatedInput".into(), input);
        self
    }

    /// Adds context for the model (PostToolUse, UserPromptSubmit, SessionStart…).
    pub fn additional_context(mut self, context: impl Into<String>) -> Self {
        self.specific
            .insert("additionalContext".into(), json!(context.into()));
        self
    }

    /// A message shown to the user.
    pub fn system_message(mut self, message: impl Into<String>) -> Self {
        self.fields
            .insert("systemMessage".into(), json!(message.into()));
        self
    }

    /// Stops the agent (`continue: false`) with a reason.
    pub fn stop(mut self, reason: impl Into<String>) -> Self {
        self.fields.insert("continue".into(), json!(false));
        self.fields
            .insert("stopReason".into(), json!(reason.into()));
        self
    }

    /// Hides the hook's output from the transcript.
    pub fn suppress_output(mut self) -> Self {
        self.fields.insert("suppressOutput".into(), json!(true));
        self
    }

    /// Sets any other top-level output field.
    pub fn field(mut self, key: impl Into<String>, value: Value) -> Self {
        self.fields.insert(key.into(), value);
        self
    }

    /// The hook output JSON for an event (`hookSpecificOutput.hookEventName` is filled in).
    pub fn to_json(&self, event_name: &str) -> Value {
        let mut output = self.fields.clone();
        if !self.specific.is_empty() {
            let mut specific = self.specific.clone();
            specific.insert("hookEventName".into(), json!(event_name));
            output.insert("hookSpecificOutput".into(), Value::Object(specific));
        }
        Value::Object(output)
    }
}

type HookFuture = Pin<Box<dyn Future<Output = HookOutput> + Send>>;

/// One hook callback.
#[derive(Clone)]
pub(crate) struct HookCallback(Arc<dyn Fn(HookInput) -> HookFuture + Send + Sync>);

impl HookCallback {
    /// Wraps an async closure.
    pub(crate) fn new<F, Fut>(callback: F) -> Self
    where
        F: Fn(HookInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        HookCallback(Arc::new(move |input| Box::pin(callback(input))))
    }

    pub(crate) fn call(&self, input: HookInput) -> HookFuture {
        (self.0)(input)
    }
}

impl fmt::Debug for HookCallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("HookCallback(..)")
    }
}

/// Callbacks for one event, filtered by a tool-name matcher (a regex the CLI applies, e.g.
/// `mcp__tickets__.*`; `None` matches everything).
#[derive(Debug, Clone, Default)]
pub struct HookMatcher {
    pub(crate) matcher: Option<String>,
    pub(crate) callbacks: Vec<HookCallback>,
    pub(crate) timeout_secs: Option<f64>,
}

impl HookMatcher {
    /// Callbacks for tools matching `pattern`.
    pub fn new(pattern: impl Into<String>) -> Self {
        Self {
            matcher: Some(pattern.into()),
            ..Self::default()
        }
    }

    /// Callbacks for every occurrence of the event.
    pub fn any() -> Self {
        Self::default()
    }

    /// Adds a callback.
    pub fn callback<F, Fut>(mut self, callback: F) -> Self
    where
        F: Fn(HookInput) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = HookOutput> + Send + 'static,
    {
        self.callbacks.push(HookCallback::new(callback));
        self
    }

    /// How long the CLI waits for these callbacks, in seconds.
    pub fn timeout_secs(mut self, seconds: f64) -> Self {
        self.timeout_secs = Some(seconds);
        self
    }
}
