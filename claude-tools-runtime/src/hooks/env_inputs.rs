//! The typed inputs of the events about the session's surroundings: MCP elicitations,
//! settings and instruction files, worktrees, directories, watched files, and agent teams'
//! tasks.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::typed_input::HookBase;
use crate::wire_enum::wire_enum;

wire_enum! {
    /// How an MCP elicitation asks: a form, or a URL to open.
    pub enum ElicitationMode {
        /// A form, with a schema.
        Form = "form",
        /// A URL to open in a browser.
        Url = "url",
    }
}

wire_enum! {
    /// The answer to an MCP elicitation.
    pub enum ElicitationAction {
        /// Accepted, with content.
        Accept = "accept",
        /// Declined.
        Decline = "decline",
        /// Dismissed.
        Cancel = "cancel",
    }
}

/// `Elicitation`: an MCP server asks the user for input (a hook may answer it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The server.
    pub mcp_server_name: String,
    /// What it asks.
    pub message: String,
    /// How.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitationMode>,
    /// The URL to open (`url` mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The elicitation's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// The JSON Schema of the form (`form` mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Map<String, Value>>,
}

/// `ElicitationResult`: the user answered an MCP elicitation (a hook may change the answer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationResultInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The server.
    pub mcp_server_name: String,
    /// The elicitation's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// How it asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitationMode>,
    /// The answer.
    pub action: ElicitationAction,
    /// The form's content, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

wire_enum! {
    /// Which settings changed, in [`ConfigChangeInput::source`].
    pub enum ConfigSource {
        /// The user's settings.
        UserSettings = "user_settings",
        /// The project's settings.
        ProjectSettings = "project_settings",
        /// The project's local settings.
        LocalSettings = "local_settings",
        /// Managed settings.
        PolicySettings = "policy_settings",
        /// Skills.
        Skills = "skills",
    }
}

/// `ConfigChange`: a settings file changed while the session runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ConfigChangeInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Which settings.
    pub source: ConfigSource,
    /// The file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
}

/// `WorktreeCreate`: a git worktree is to be created for the session (a hook answers with its
/// path, [`WorktreeCreateOutput`](super::WorktreeCreateOutput)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WorktreeCreateInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The worktree's name.
    pub name: String,
}

/// `WorktreeRemove`: a worktree of the session is removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WorktreeRemoveInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Its path.
    pub worktree_path: String,
}

wire_enum! {
    /// Why instructions were loaded, in [`InstructionsLoadedInput::load_reason`].
    pub enum LoadReason {
        /// At the session's start.
        SessionStart = "session_start",
        /// Found going down the directory tree.
        NestedTraversal = "nested_traversal",
        /// A rule whose globs match a file in use.
        PathGlobMatch = "path_glob_match",
        /// Included by another file.
        Include = "include",
        /// Reloaded after a compaction.
        Compact = "compact",
    }
}

/// `InstructionsLoaded`: an instruction file (`CLAUDE.md`, a rule) was loaded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct InstructionsLoadedInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The file.
    pub file_path: String,
    /// Whose (`User`, `Project`, `Local`, `Managed`).
    pub memory_type: String,
    /// Why.
    pub load_reason: LoadReason,
    /// A rule's globs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub globs: Option<Vec<String>>,
    /// The file whose use loaded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_file_path: Option<String>,
    /// The file that included it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_file_path: Option<String>,
}

/// `CwdChanged`: the working directory changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CwdChangedInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// Before.
    pub old_cwd: String,
    /// After.
    pub new_cwd: String,
}

wire_enum! {
    /// What happened to a watched file, in [`FileChangedInput::event`].
    pub enum FileEvent {
        /// It changed.
        Change = "change",
        /// It appeared.
        Add = "add",
        /// It was removed.
        Unlink = "unlink",
    }
}

/// `FileChanged`: a watched file changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FileChangedInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The file.
    pub file_path: String,
    /// What happened.
    pub event: FileEvent,
}

wire_enum! {
    /// How a directory was added, in [`DirectoryAddedInput::source`].
    pub enum DirectorySource {
        /// `/add-dir`.
        SlashCommand = "slash_command",
        /// A host's `register_repo_root` request.
        RegisterRepoRoot = "register_repo_root",
    }
}

/// `DirectoryAdded`: a directory was added to the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DirectoryAddedInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The directory (absolute).
    pub directory: String,
    /// How.
    pub source: DirectorySource,
}

/// `TeammateIdle`: a teammate of an agent team went idle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TeammateIdleInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The teammate.
    pub teammate_name: String,
    /// The team (deprecated by the CLI: a session has one team).
    #[serde(default)]
    pub team_name: String,
}

/// `TaskCreated` and `TaskCompleted`: a task of the task list was created or completed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The task.
    pub task_id: String,
    /// Its subject.
    pub task_subject: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_description: Option<String>,
    /// The teammate it is assigned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teammate_name: Option<String>,
    /// The team (deprecated by the CLI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_name: Option<String>,
}
