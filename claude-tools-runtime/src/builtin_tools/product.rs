//! Tools of Claude Code's product features: reviews (`ReportFindings`), feedback
//! (`SendFeedback`), skills and goals (`propose_skills`, `SetGoal`), workflows (`Workflow`),
//! claude.ai projects, artifacts and designs (`Projects`, `Artifact`, `ClaudeDesign`), and
//! onboarding (`ShowOnboardingRolePicker`, `OfferChromeSetup`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::agent::EffortLevel;

/// One finding of a review, in `ReportFindings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The file, relative to the repository.
    pub file: String,
    /// The line (from 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// The defect.
    pub summary: String,
    /// A label of at most 60 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_summary: Option<String>,
    /// Inputs or state that lead to the wrong result.
    pub failure_scenario: String,
    /// A kebab-case kind (`correctness`, `efficiency`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// `important`, `pre_existing` or `nit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    /// `CONFIRMED` or `PLAUSIBLE`, when a verify pass ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// `fixed`, `skipped` or `no_change_needed`, when re-reported after fixes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ReportFindings`' input: a review's verified findings, most severe first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReportFindingsInput {
    /// The effort the review ran at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<EffortLevel>,
    /// The findings (at most 32).
    pub findings: Vec<Finding>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ReportFindings`' answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReportFindingsOutput {
    /// How many findings were reported.
    pub count: u64,
    /// The effort the review ran at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<EffortLevel>,
    /// The findings.
    pub findings: Vec<Finding>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `SendFeedback`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SendFeedbackInput {
    /// `bug`, `idea` or `missing_capability`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A one-line summary.
    pub title: String,
    /// What happened, what the user said, how to reproduce it.
    pub details: String,
    /// The part of Claude Code it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<String>,
    /// For model behaviour, the closest failure mode (`instruction_following`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_mode: Option<String>,
    /// The kind of task under way (`code_edit`, `debug`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_category: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `SendFeedback`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SendFeedbackOutput {
    /// Whether it was sent.
    pub success: bool,
    /// What happened.
    pub message: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ClaudeDesign`'s input: an operation and its arguments (checked by the server).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaudeDesignInput {
    /// The operation (`list` names the others).
    pub operation: String,
    /// Its arguments.
    pub arguments: Map<String, Value>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ClaudeDesign`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClaudeDesignOutput {
    /// The operation.
    pub operation: String,
    /// Its content blocks.
    pub content: Vec<Map<String, Value>>,
    /// Whether it failed.
    #[serde(rename = "isError", default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Projects`' input: one method on the session's claude.ai project.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectsInput {
    /// `project_info`, `project_read`, `project_search`, `project_write`, `project_delete`,
    /// `project_memory_list` or `project_memory_read`.
    pub method: String,
    /// The document's path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The text to write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A local file to upload instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local_path: Option<String>,
    /// The document is what the user asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub present_to_user: Option<bool>,
    /// A search query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// How many hits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u64>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Projects`' answer, by its `method`; each keeps its fields by name (the shapes are many and
/// product-specific).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProjectsOutput {
    /// The method answered.
    pub method: String,
    /// A note for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice: Option<String>,
    /// The document's path (`project_read`, `project_write`, `project_delete`,
    /// `project_memory_read`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Its text (`project_read`, `project_memory_read`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Every other field of the method's answer (`docs`, `hits`, `deleted`…), as it came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Workflow`'s input: a workflow script, by text, name or path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkflowInput {
    /// The script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// A predefined workflow's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Ignored (the script's `meta` has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Ignored (the script's `meta` has it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The script's `args`, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// A script file on disk (takes precedence over `script` and `name`).
    #[serde(
        rename = "scriptPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub script_path: Option<String>,
    /// A prior run to resume from.
    #[serde(
        rename = "resumeFromRunId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub resume_from_run_id: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Workflow`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WorkflowOutput {
    /// `async_launched` or `remote_launched`.
    pub status: String,
    /// The background task running it.
    #[serde(rename = "taskId")]
    pub task_id: String,
    /// `local_workflow` or `remote_agent`.
    #[serde(rename = "taskType", default, skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// The script's `meta.name`.
    #[serde(
        rename = "workflowName",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub workflow_name: Option<String>,
    /// The run, to resume from.
    #[serde(rename = "runId", default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// A summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Where subagent transcripts go.
    #[serde(
        rename = "transcriptDir",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub transcript_dir: Option<String>,
    /// The script saved for this run.
    #[serde(
        rename = "scriptPath",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub script_path: Option<String>,
    /// The cloud session, when remote.
    #[serde(
        rename = "sessionUrl",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub session_url: Option<String>,
    /// A heads-up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The syntax check's failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ShowOnboardingRolePicker`'s input (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShowOnboardingRolePickerInput {
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ShowOnboardingRolePicker`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ShowOnboardingRolePickerOutput {
    /// The role picked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The picker was dismissed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `OfferChromeSetup`'s input.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OfferChromeSetupInput {
    /// What the task needs the user's browser for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `OfferChromeSetup`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct OfferChromeSetupOutput {
    /// `connected`, `not_now` or `no_attempt_yet`.
    pub outcome: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One replacement in a SKILL.md, in a [`SkillProposal`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillEdit {
    /// The text to replace (exactly once in the file).
    pub old_string: String,
    /// Its replacement.
    pub new_string: String,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One proposal of `propose_skills`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillProposal {
    /// The skill's kebab-case name.
    pub name: String,
    /// `new` or `improvement`.
    pub kind: String,
    /// The existing skill an improvement updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// When to use the skill.
    pub description: String,
    /// Memory files where the procedure was seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Vec<String>>,
    /// An improvement's edits to the SKILL.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edits: Option<Vec<SkillEdit>>,
    /// The whole SKILL.md.
    #[serde(rename = "skillMd", default, skip_serializing_if = "Option::is_none")]
    pub skill_md: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `propose_skills`' input: 1 to 3 proposals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProposeSkillsInput {
    /// The proposals.
    pub proposals: Vec<SkillProposal>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `propose_skills`' answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProposeSkillsOutput {
    /// How many proposals the review card shows.
    #[serde(rename = "proposalCount")]
    pub proposal_count: u64,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `SetGoal`'s input (formerly `ProposeGoal`): the session's completion condition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProposeGoalInput {
    /// The condition (at most 500 characters).
    pub condition: String,
    /// Ask the user to approve it (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask_user: Option<bool>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `SetGoal`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProposeGoalOutput {
    /// The condition.
    pub condition: String,
    /// Whether the user was asked.
    #[serde(rename = "askUser")]
    pub ask_user: bool,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `Artifact`'s input: publish a page to claude.ai, or manage one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArtifactInput {
    /// `publish` (the default), `list`, `read`, `list_types`, `watch`, `unwatch`, `status`,
    /// `upload_asset`, `list_assets`, `read_asset`, `delete_asset`, `pin` or `unpin`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The file to publish or upload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// Deprecated: `icon`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub favicon: Option<String>,
    /// A word for the tab icon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// At most this many artifacts listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// The previous listing's `next_page_token`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_token: Option<String>,
    /// `mine`, `shared` or `all`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// A title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A subtitle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A name for this publish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The artifact to update or act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// What to extract when reading someone else's artifact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Overwrite a newer version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    /// Pin it once published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<bool>,
    /// Where `read_asset` saves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_dir: Option<String>,
    /// Several files to upload.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_paths: Option<Vec<String>>,
    /// An asset's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_id: Option<String>,
    /// The previous `list_assets`' `next`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Runtime capabilities the page declares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Map<String, Value>>,
    /// The runtime version (`latest`, or a version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
