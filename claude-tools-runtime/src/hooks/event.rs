//! [`HookEvent`]: the events a hook can be registered for.

use std::fmt;

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
    ///
    /// The CLI 2.1.332 calls a host's callback for it when a compaction starts the session
    /// anew (`source: compact`), but not at startup: it starts the session before it reads the
    /// `initialize` request that registers the host's hooks. A `SessionStart` command hook in
    /// the settings runs at startup too.
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
    ///
    /// The CLI 2.1.332 never calls a host's callback for it: it runs the setup in its start-up
    /// prologue, before it reads the `initialize` request that registers the host's hooks. A
    /// `Setup` command hook in the settings runs.
    Setup,
    /// When a teammate of an agent team ends its turn: a session started as a teammate
    /// (`--agent-id`, `--agent-name`, `--team-name`, as a team's lead starts one). A block
    /// ([`HookOutput::block`](super::HookOutput::block)) keeps it working, its reason as
    /// feedback.
    TeammateIdle,
    /// When a task of the task list is created (`TaskCreate`); a block refuses it, and the
    /// model reads the reason.
    TaskCreated,
    /// When a task is marked completed (`TaskUpdate`, or a teammate's end of turn); a block
    /// refuses it, and the model reads the reason.
    TaskCompleted,
    /// When an MCP server asks the user for input (elicitation). The CLI 2.1.332 reads a
    /// host callback's answer as a block or not: a block
    /// ([`HookOutput::block`](super::HookOutput::block)) declines the question before anyone
    /// is asked; a callback's `hookSpecificOutput` (`action`, `content`) is not read (a
    /// command hook's is).
    Elicitation,
    /// After the user (or the host's elicitation callback) answered an MCP elicitation. As
    /// for [`HookEvent::Elicitation`], the CLI 2.1.332 reads only a block from a host
    /// callback: the answer becomes a decline.
    ElicitationResult,
    /// When a settings file changes while the session runs; a block keeps the settings as
    /// they were (except managed ones).
    ConfigChange,
    /// When a worktree is to be created for the session (`EnterWorktree`, `--worktree`, an
    /// agent's isolation): a hook that answers with a path
    /// ([`WorktreeCreateOutput`](super::WorktreeCreateOutput)) creates it instead of git,
    /// and the session works there.
    WorktreeCreate,
    /// When a worktree a hook created is removed (the hook removes it).
    WorktreeRemove,
    /// When instruction files (`CLAUDE.md`, rules) are loaded into the context. Those of
    /// the session's start may be loaded before the host's hooks are registered; nested ones,
    /// loaded when the model first touches a file below them, reach a host's callback.
    InstructionsLoaded,
    /// When the working directory changes (a Bash `cd`). The CLI 2.1.332 fires it only when a
    /// settings file registers a `CwdChanged` or `FileChanged` hook (a host's callbacks then
    /// run with it), and does not read a callback's `watchPaths`.
    CwdChanged,
    /// When a watched file changes: the files a settings file's `FileChanged` hooks name in
    /// their matcher (or a `SessionStart` hook's `watchPaths`). The CLI 2.1.332 does not read
    /// a callback's `watchPaths` for this event.
    FileChanged,
    /// When a directory is added to the session: a host's `register_repo_root` request, or
    /// `/add-dir` (interactive only).
    DirectoryAdded,
    /// With each batch of newly completed lines while an assistant message streams (display
    /// only: what is stored and what the model sees are untouched). In a headless session the
    /// CLI 2.1.332 calls it once per completed message (`index` 0, `final`), and the host is
    /// sent the message with the hook's `displayContent` in place of its text.
    MessageDisplay,
    /// Before a shell command embedded in a skill or slash command runs: the `` !`command` ``
    /// of its text, run when the skill or command is loaded (CLI 2.1.332 and later). The
    /// input has `tool_name` (`Bash` or `PowerShell`), `tool_input.command` (the command as it
    /// would run, arguments filled in), `command_name` (the skill or command whose text holds
    /// it), `command_source` (such as `projectSettings`), `invoked_by` (`user`, `claude` or
    /// `other`) and a `tool_use_id` that names no tool call of the transcript.
    ///
    /// [`HookOutput::deny_tool`](super::HookOutput::deny_tool) and
    /// [`HookOutput::ask`](super::HookOutput::ask) keep the command from running, as does any
    /// [`HookOutput::updated_input`](super::HookOutput::updated_input): the CLI never runs a
    /// changed command. In place of the command's output the skill's text then reads
    /// `[not run: blocked by hook: <reason>]`.
    /// [`HookOutput::allow_tool`](super::HookOutput::allow_tool) adds nothing: the command runs
    /// unless a hook refuses it.
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
