//! Tools that change how the session works: plan mode (`EnterPlanMode`, `ExitPlanMode`), git
//! worktrees (`EnterWorktree`, `ExitWorktree`) and questions to the user (`AskUserQuestion`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::wire_enum::wire_enum;

/// `EnterPlanMode`'s input (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnterPlanModeInput {
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `EnterPlanMode`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EnterPlanModeOutput {
    /// The confirmation.
    pub message: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ExitPlanMode`'s input. The plan itself travels in fields the schema leaves open (kept in
/// `extra`, e.g. `plan`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExitPlanModeInput {
    /// Deprecated, no longer used: prompts to allow (`tool`, `prompt`).
    #[serde(
        rename = "allowedPrompts",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub allowed_prompts: Option<Vec<Map<String, Value>>>,
    /// Every other field (`plan`…), as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ExitPlanMode`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ExitPlanModeOutput {
    /// The plan presented.
    pub plan: Option<String>,
    /// Whether a subagent presented it.
    #[serde(rename = "isAgent")]
    pub is_agent: bool,
    /// Where the plan was saved.
    #[serde(rename = "filePath", default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// Whether the `Agent` tool is available.
    #[serde(
        rename = "hasTaskTool",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub has_task_tool: Option<bool>,
    /// The user edited the plan.
    #[serde(
        rename = "planWasEdited",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub plan_was_edited: Option<bool>,
    /// A teammate asked its team leader to approve the plan.
    #[serde(
        rename = "awaitingLeaderApproval",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub awaiting_leader_approval: Option<bool>,
    /// That approval request.
    #[serde(rename = "requestId", default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `EnterWorktree`'s input: a new worktree's name, or an existing one's path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnterWorktreeInput {
    /// A name for a new worktree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// An existing worktree to switch into.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `EnterWorktree`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EnterWorktreeOutput {
    /// The worktree.
    #[serde(rename = "worktreePath")]
    pub worktree_path: String,
    /// Its branch.
    #[serde(
        rename = "worktreeBranch",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub worktree_branch: Option<String>,
    /// What happened.
    pub message: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// What `ExitWorktree` does with the worktree.
    pub enum WorktreeExit {
        /// `keep`: leave it and its branch on disk.
        Keep = "keep",
        /// `remove`: delete it (and its branch).
        Remove = "remove",
    }
}

/// `ExitWorktree`'s input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExitWorktreeInput {
    /// Keep or remove the worktree.
    pub action: WorktreeExit,
    /// Remove it even with uncommitted files or unmerged commits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard_changes: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ExitWorktree`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ExitWorktreeOutput {
    /// What was done.
    pub action: WorktreeExit,
    /// The directory the session went back to.
    #[serde(rename = "originalCwd")]
    pub original_cwd: String,
    /// The worktree.
    #[serde(rename = "worktreePath")]
    pub worktree_path: String,
    /// Its branch.
    #[serde(
        rename = "worktreeBranch",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub worktree_branch: Option<String>,
    /// The tmux session it had.
    #[serde(
        rename = "tmuxSessionName",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub tmux_session_name: Option<String>,
    /// Uncommitted files discarded.
    #[serde(
        rename = "discardedFiles",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub discarded_files: Option<u64>,
    /// Unmerged commits discarded.
    #[serde(
        rename = "discardedCommits",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub discarded_commits: Option<u64>,
    /// What happened.
    pub message: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One option of a [`Question`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QuestionOption {
    /// What the user sees and picks.
    pub label: String,
    /// What picking it means.
    pub description: String,
    /// Content shown while the option has focus (a mockup, a snippet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One question of `AskUserQuestion` (2 to 4 options).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Question {
    /// The question.
    pub question: String,
    /// A short label for it (at most 12 characters).
    pub header: String,
    /// The choices.
    pub options: Vec<QuestionOption>,
    /// Whether several options may be picked.
    #[serde(rename = "multiSelect")]
    pub multi_select: bool,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The user's notes on one question, in `AskUserQuestion`'s `annotations`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct QuestionAnnotation {
    /// The preview of the option picked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// The user's notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// How the question went unanswered (in the answer only): `skipped`, `replied_in_chat`
    /// or `dismissed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `AskUserQuestion`'s input: 1 to 4 questions (and, once a host or the CLI has asked them,
/// the answers).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AskUserQuestionInput {
    /// The questions.
    pub questions: Vec<Question>,
    /// The answers, by question text: what a permission callback fills in to answer them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<BTreeMap<String, String>>,
    /// The user's notes, by question text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, QuestionAnnotation>>,
    /// Analytics metadata (`source`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `AskUserQuestion`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AskUserQuestionOutput {
    /// The questions asked.
    pub questions: Vec<Question>,
    /// The answers, by question text (several picks separated by commas).
    pub answers: BTreeMap<String, String>,
    /// Text the user typed instead of picking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// The user's notes, by question text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, QuestionAnnotation>>,
    /// The dialog answered itself after this many idle milliseconds.
    #[serde(
        rename = "afkTimeoutMs",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub afk_timeout_ms: Option<Number>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
