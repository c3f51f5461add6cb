//! The Claude Code CLI's built-in tools (`Bash`, `Read`, `Edit`, `WebFetch`…), typed: the input
//! the model gives each one and what each answers, with the CLI's field names.
//!
//! A permission callback or a `PreToolUse` hook that decides on `Bash.command`,
//! `Edit.file_path` or `WebFetch.url` should not dig through JSON by hand (a misspelt key there
//! reads as "absent" and lets the call through). [`BuiltinToolInput::parse`] reads a call into
//! one enum, with [`BuiltinToolInput::Other`] for a tool this library does not know (an
//! `mcp__…` tool, or a built-in tool a newer CLI adds); it is reached from
//! [`PermissionRequest::builtin_input`](crate::permission::PermissionRequest::builtin_input),
//! the tool hooks' inputs and [`ContentBlock::builtin_tool_input`](crate::message::ContentBlock::builtin_tool_input).
//! What a tool answered (`tool_use_result`, a `PostToolUse` hook's `tool_response`) reads the
//! same way into [`BuiltinToolOutput`].
//!
//! The types follow `sdk-tools.d.ts` of the TypeScript Agent SDK 0.3.332 (the CLI 2.1.332's
//! schemas); their names are that file's (`FileEditInput` is the `Edit` tool's input). Every
//! struct keeps the fields it does not know in `extra`, so a field a newer CLI adds survives a
//! read and a write back (an input rewritten by a permission callback keeps it). A field of the
//! wrong type is an error naming the tool and the field ([`ToolInputError`]); the JSON it came
//! from stays where it was. Counts, sizes and line numbers are integers; durations and
//! timestamps, which the CLI writes with or without a fraction, are `serde_json::Number`s kept
//! as written (`as_f64()` reads them). An optional field sent as `null` reads as absent (and is
//! not written back), except where the schema allows `null` (then `Some(None)`).
//!
//! ```
//! use claude_tools::builtin_tools::{BashInput, BuiltinToolInput};
//! use claude_tools::{PermissionDecision, PermissionRequest};
//!
//! fn policy(request: &PermissionRequest) -> PermissionDecision {
//!     match request.builtin_input() {
//!         Ok(BuiltinToolInput::Bash(bash)) if bash.command.contains("rm -rf") => {
//!             PermissionDecision::deny("no recursive deletes")
//!         }
//!         // Run every command with a time limit, keeping every other field as it came.
//!         Ok(BuiltinToolInput::Bash(bash)) => PermissionDecision::allow_with(BashInput {
//!             timeout: Some(60_000),
//!             ..bash
//!         }),
//!         Ok(BuiltinToolInput::Read(read)) if read.file_path.starts_with("/etc") => {
//!             PermissionDecision::deny("not under /etc")
//!         }
//!         Ok(_) => PermissionDecision::allow(),
//!         // The input does not fit the tool's type: refuse, saying which field.
//!         Err(error) => PermissionDecision::deny(error.to_string()),
//!     }
//! }
//!
//! let request = PermissionRequest::new("Bash", serde_json::json!({"command": "cargo test"}));
//! let PermissionDecision::Allow { updated_input: Some(input), .. } = policy(&request) else {
//!     panic!("allowed with a new input")
//! };
//! assert_eq!(input, serde_json::json!({"command": "cargo test", "timeout": 60000}));
//! ```

mod agent;
mod artifact;
mod error;
mod files;
mod mcp;
mod names;
mod plan;
mod product;
mod schedule;
mod search;
mod shell;
mod tasks;
mod web;

use serde::{Serialize, Serializer};
use serde_json::Value;

pub use agent::*;
pub use artifact::*;
pub use error::{ToolInputError, ToolPart};
pub use files::*;
pub use mcp::*;
pub use names::{BUILTIN_TOOL_NAMES, LEGACY_TOOL_NAME_ALIASES, canonical_tool_name};
pub use plan::*;
pub use product::*;
pub use schedule::*;
pub use search::*;
pub use shell::*;
pub use tasks::*;
pub use web::*;

/// A typed built-in tool input: its tool's name, and a conversion into [`BuiltinToolInput`]
/// (which is how [`PermissionDecision::allow_with`](crate::permission::PermissionDecision::allow_with)
/// takes it).
pub trait BuiltinInput:
    Serialize + serde::de::DeserializeOwned + Into<BuiltinToolInput> + Sized
{
    /// The tool's name, as the CLI offers it to the model (`Bash`, `Edit`…).
    const TOOL_NAME: &'static str;

    /// Reads `input` as this tool's input, when `tool_name` is this tool (or one of its legacy
    /// names); `None` for another tool.
    ///
    /// ```
    /// use claude_tools::builtin_tools::{BuiltinInput, FileEditInput};
    ///
    /// let input = serde_json::json!({"file_path": "/src/a.rs", "old_string": "a", "new_string": "b"});
    /// let edit = FileEditInput::read_if("Edit", &input).unwrap().unwrap();
    /// assert_eq!(edit.file_path, "/src/a.rs");
    /// assert!(FileEditInput::read_if("Write", &input).is_none());
    /// ```
    fn read_if(tool_name: &str, input: &Value) -> Option<Result<Self, ToolInputError>> {
        (canonical_tool_name(tool_name) == Self::TOOL_NAME)
            .then(|| error::read(tool_name, ToolPart::Input, input))
    }
}

/// Declares one of the two enums (inputs, outputs): a variant per tool with its type, an
/// `Other` variant, the name-to-type dispatch and a `Serialize` that writes the inner value.
macro_rules! tool_enum {
    (
        $(#[$meta:meta])*
        pub enum $enum:ident ($part:ident, $other_field:ident) {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident($ty:ty) = $name:literal,
            )*
        }
    ) => {
        $(#[$meta])*
        // Not boxed: one value is read per tool call and matched by policy code, which binds
        // the struct itself (`Bash(bash)` then `BashInput { command, ..bash }`).
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum $enum {
            $(
                $(#[$variant_meta])*
                $variant($ty),
            )*
            /// A tool this library has no type for: an `mcp__…` tool, or a built-in tool a
            /// newer CLI added; kept as it came.
            Other {
                /// The tool's name.
                name: String,
                /// The JSON, untouched.
                $other_field: Value,
            },
        }

        impl $enum {
            /// The tools with a variant of their own (their current names).
            pub const TYPED_TOOLS: &'static [&'static str] = &[$($name),*];

            /// Reads `value` as what `tool_name` takes or answers. A tool this library does not
            /// know is [`Other`](Self::Other) (never an error); a known tool whose JSON does not
            /// fit its type is an error naming the field. Legacy names (`Task`, `KillShell`…)
            /// read as the tool they now name.
            pub fn parse(tool_name: &str, value: &Value) -> Result<Self, ToolInputError> {
                Ok(match canonical_tool_name(tool_name) {
                    $($name => Self::$variant(error::read(tool_name, ToolPart::$part, value)?),)*
                    _ => Self::Other {
                        name: tool_name.to_owned(),
                        $other_field: value.clone(),
                    },
                })
            }

            /// The tool's name: the current one for a known tool, as it came for
            /// [`Other`](Self::Other).
            pub fn tool_name(&self) -> &str {
                match self {
                    $(Self::$variant(_) => $name,)*
                    Self::Other { name, .. } => name,
                }
            }

            /// The value as JSON, with every field it came with (those not typed included).
            pub fn to_value(&self) -> Result<Value, serde_json::Error> {
                serde_json::to_value(self)
            }
        }

        impl Serialize for $enum {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(Self::$variant(inner) => inner.serialize(serializer),)*
                    Self::Other { $other_field, .. } => $other_field.serialize(serializer),
                }
            }
        }
    };
}

/// Declares the `From<Type>` and [`BuiltinInput`] of each typed input.
macro_rules! input_impls {
    ($($variant:ident($ty:ty) = $name:literal,)*) => {
        $(
            impl From<$ty> for BuiltinToolInput {
                fn from(input: $ty) -> Self {
                    BuiltinToolInput::$variant(input)
                }
            }

            impl BuiltinInput for $ty {
                const TOOL_NAME: &'static str = $name;
            }
        )*
    };
}

macro_rules! inputs {
    ($($(#[$variant_meta:meta])* $variant:ident($ty:ty) = $name:literal,)*) => {
        tool_enum! {
            /// A built-in tool's input, typed by its tool's name ([`BuiltinToolInput::parse`]).
            /// Serializes as the input itself (no tag), every field it came with included.
            pub enum BuiltinToolInput (Input, input) {
                $($(#[$variant_meta])* $variant($ty) = $name,)*
            }
        }
        input_impls! { $($variant($ty) = $name,)* }
    };
}

inputs! {
    /// `Agent` (formerly `Task`): start a subagent.
    Agent(AgentInput) = "Agent",
    /// `Bash`: run a shell command.
    Bash(BashInput) = "Bash",
    /// `ExitPlanMode`: leave plan mode, presenting the plan.
    ExitPlanMode(ExitPlanModeInput) = "ExitPlanMode",
    /// `Edit`: replace a string in a file.
    Edit(FileEditInput) = "Edit",
    /// `Read`: read a file.
    Read(FileReadInput) = "Read",
    /// `Write`: write a whole file.
    Write(FileWriteInput) = "Write",
    /// `Glob`: find files by name pattern.
    Glob(GlobInput) = "Glob",
    /// `Grep`: search file contents.
    Grep(GrepInput) = "Grep",
    /// `TaskStop` (formerly `KillShell`): stop a background task.
    TaskStop(TaskStopInput) = "TaskStop",
    /// `ListMcpResourcesTool`: list the resources of MCP servers.
    ListMcpResources(ListMcpResourcesInput) = "ListMcpResourcesTool",
    /// `RefreshMcpTools`: re-query the tools of MCP servers.
    RefreshMcpTools(RefreshMcpToolsInput) = "RefreshMcpTools",
    /// `NotebookEdit`: edit a Jupyter notebook cell.
    NotebookEdit(NotebookEditInput) = "NotebookEdit",
    /// `ReadMcpResourceDirTool`: list a directory resource of an MCP server.
    ReadMcpResourceDir(ReadMcpResourceDirInput) = "ReadMcpResourceDirTool",
    /// `ReadMcpResourceTool`: read a resource of an MCP server.
    ReadMcpResource(ReadMcpResourceInput) = "ReadMcpResourceTool",
    /// `ReportFindings`: report a review's findings.
    ReportFindings(ReportFindingsInput) = "ReportFindings",
    /// `TodoWrite`: replace the todo list.
    TodoWrite(TodoWriteInput) = "TodoWrite",
    /// `WebFetch`: fetch a URL and run a prompt on it.
    WebFetch(WebFetchInput) = "WebFetch",
    /// `WebSearch`: search the web.
    WebSearch(WebSearchInput) = "WebSearch",
    /// `AskUserQuestion`: ask the user multiple-choice questions.
    AskUserQuestion(AskUserQuestionInput) = "AskUserQuestion",
    /// `SendFeedback`: file feedback about Claude Code.
    SendFeedback(SendFeedbackInput) = "SendFeedback",
    /// `ClaudeDesign`: a Claude Design operation.
    ClaudeDesign(ClaudeDesignInput) = "ClaudeDesign",
    /// `Projects`: read or write a claude.ai project.
    Projects(ProjectsInput) = "Projects",
    /// `EnterPlanMode`: enter plan mode.
    EnterPlanMode(EnterPlanModeInput) = "EnterPlanMode",
    /// `TaskCreate`: create a task of the task list.
    TaskCreate(TaskCreateInput) = "TaskCreate",
    /// `TaskGet`: read a task.
    TaskGet(TaskGetInput) = "TaskGet",
    /// `TaskUpdate`: change a task.
    TaskUpdate(TaskUpdateInput) = "TaskUpdate",
    /// `TaskList`: list the tasks.
    TaskList(TaskListInput) = "TaskList",
    /// `Workflow`: run a workflow script.
    Workflow(WorkflowInput) = "Workflow",
    /// `CronCreate`: schedule a prompt.
    CronCreate(CronCreateInput) = "CronCreate",
    /// `CronDelete`: delete a scheduled prompt.
    CronDelete(CronDeleteInput) = "CronDelete",
    /// `CronList`: list the scheduled prompts.
    CronList(CronListInput) = "CronList",
    /// `ScheduleWakeup`: schedule the next turn of a `/loop`.
    ScheduleWakeup(ScheduleWakeupInput) = "ScheduleWakeup",
    /// `RemoteTrigger`: manage remote triggers.
    RemoteTrigger(RemoteTriggerInput) = "RemoteTrigger",
    /// `ShowOnboardingRolePicker`: show the onboarding role picker.
    ShowOnboardingRolePicker(ShowOnboardingRolePickerInput) = "ShowOnboardingRolePicker",
    /// `OfferChromeSetup`: offer to connect the user's browser.
    OfferChromeSetup(OfferChromeSetupInput) = "OfferChromeSetup",
    /// `ReadNotifications`: read queued notifications.
    ReadNotifications(ReadNotificationsInput) = "ReadNotifications",
    /// `Monitor`: watch a command's output or a WebSocket in the background.
    Monitor(MonitorInput) = "Monitor",
    /// `propose_skills`: propose new or improved skills.
    ProposeSkills(ProposeSkillsInput) = "propose_skills",
    /// `SetGoal` (formerly `ProposeGoal`): set the session's completion condition.
    SetGoal(ProposeGoalInput) = "SetGoal",
    /// `Artifact`: publish or manage a claude.ai artifact.
    Artifact(ArtifactInput) = "Artifact",
    /// `PushNotification`: send the user a notification.
    PushNotification(PushNotificationInput) = "PushNotification",
    /// `EnterWorktree`: move the session into a git worktree.
    EnterWorktree(EnterWorktreeInput) = "EnterWorktree",
    /// `ExitWorktree`: leave the worktree.
    ExitWorktree(ExitWorktreeInput) = "ExitWorktree",
}

tool_enum! {
    /// What a built-in tool answered (`tool_use_result`, a `PostToolUse` hook's
    /// `tool_response`), typed by its tool's name ([`BuiltinToolOutput::parse`]). Serializes
    /// as the output itself, every field it came with included.
    pub enum BuiltinToolOutput (Output, output) {
        /// `Agent`.
        Agent(AgentOutput) = "Agent",
        /// `Bash`.
        Bash(BashOutput) = "Bash",
        /// `ExitPlanMode`.
        ExitPlanMode(ExitPlanModeOutput) = "ExitPlanMode",
        /// `Edit`.
        Edit(FileEditOutput) = "Edit",
        /// `Read`.
        Read(FileReadOutput) = "Read",
        /// `Write`.
        Write(FileWriteOutput) = "Write",
        /// `Glob`.
        Glob(GlobOutput) = "Glob",
        /// `Grep`.
        Grep(GrepOutput) = "Grep",
        /// `TaskStop`.
        TaskStop(TaskStopOutput) = "TaskStop",
        /// `ListMcpResourcesTool`.
        ListMcpResources(Vec<McpResourceListing>) = "ListMcpResourcesTool",
        /// `RefreshMcpTools`.
        RefreshMcpTools(Vec<McpToolsRefresh>) = "RefreshMcpTools",
        /// `NotebookEdit`.
        NotebookEdit(NotebookEditOutput) = "NotebookEdit",
        /// `ReadMcpResourceDirTool`.
        ReadMcpResourceDir(ReadMcpResourceDirOutput) = "ReadMcpResourceDirTool",
        /// `ReadMcpResourceTool`.
        ReadMcpResource(ReadMcpResourceOutput) = "ReadMcpResourceTool",
        /// `ReportFindings`.
        ReportFindings(ReportFindingsOutput) = "ReportFindings",
        /// `TodoWrite`.
        TodoWrite(TodoWriteOutput) = "TodoWrite",
        /// `WebFetch`.
        WebFetch(WebFetchOutput) = "WebFetch",
        /// `WebSearch`.
        WebSearch(WebSearchOutput) = "WebSearch",
        /// `AskUserQuestion`.
        AskUserQuestion(AskUserQuestionOutput) = "AskUserQuestion",
        /// `SendFeedback`.
        SendFeedback(SendFeedbackOutput) = "SendFeedback",
        /// `ClaudeDesign`.
        ClaudeDesign(ClaudeDesignOutput) = "ClaudeDesign",
        /// `Artifact` (one shape per action).
        Artifact(ArtifactOutput) = "Artifact",
        /// `Projects`.
        Projects(ProjectsOutput) = "Projects",
        /// `EnterPlanMode`.
        EnterPlanMode(EnterPlanModeOutput) = "EnterPlanMode",
        /// `TaskCreate`.
        TaskCreate(TaskCreateOutput) = "TaskCreate",
        /// `TaskGet`.
        TaskGet(TaskGetOutput) = "TaskGet",
        /// `TaskUpdate`.
        TaskUpdate(TaskUpdateOutput) = "TaskUpdate",
        /// `TaskList`.
        TaskList(TaskListOutput) = "TaskList",
        /// `Workflow`.
        Workflow(WorkflowOutput) = "Workflow",
        /// `CronCreate`.
        CronCreate(CronCreateOutput) = "CronCreate",
        /// `CronDelete`.
        CronDelete(CronDeleteOutput) = "CronDelete",
        /// `CronList`.
        CronList(CronListOutput) = "CronList",
        /// `ScheduleWakeup`.
        ScheduleWakeup(ScheduleWakeupOutput) = "ScheduleWakeup",
        /// `RemoteTrigger`.
        RemoteTrigger(RemoteTriggerOutput) = "RemoteTrigger",
        /// `ShowOnboardingRolePicker`.
        ShowOnboardingRolePicker(ShowOnboardingRolePickerOutput) = "ShowOnboardingRolePicker",
        /// `OfferChromeSetup`.
        OfferChromeSetup(OfferChromeSetupOutput) = "OfferChromeSetup",
        /// `ReadNotifications`.
        ReadNotifications(ReadNotificationsOutput) = "ReadNotifications",
        /// `Monitor`.
        Monitor(MonitorOutput) = "Monitor",
        /// `propose_skills`.
        ProposeSkills(ProposeSkillsOutput) = "propose_skills",
        /// `SetGoal`.
        SetGoal(ProposeGoalOutput) = "SetGoal",
        /// `PushNotification`.
        PushNotification(PushNotificationOutput) = "PushNotification",
        /// `EnterWorktree`.
        EnterWorktree(EnterWorktreeOutput) = "EnterWorktree",
        /// `ExitWorktree`.
        ExitWorktree(ExitWorktreeOutput) = "ExitWorktree",
    }
}

/// Reads a field that may be absent (`None`) or `null` (`Some(None)`), so that each writes
/// back as it came (serde alone reads both as `None`).
fn present_or_null<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(deserializer).map(Some)
}
