//! The typed inputs of the tool events: `PreToolUse`, `PostToolUse`, `PostToolUseFailure`,
//! `PostToolBatch`, `PermissionRequest`, `PermissionDenied` and `PreSkillShellCommand`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::typed_input::HookBase;
use crate::builtin_tools::{BuiltinToolInput, BuiltinToolOutput, ToolInputError};
use crate::permission::{McpServerRef, PermissionUpdate};
use crate::wire_enum::wire_enum;

/// `PreToolUse`: a tool is about to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreToolUseInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool (`Bash`, `mcp__tickets__create`…).
    pub tool_name: String,
    /// The input the model gave it.
    pub tool_input: Value,
    /// The call.
    pub tool_use_id: String,
    /// The MCP server of an `mcp__` tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<McpServerRef>,
}

/// `PostToolUse`: a tool ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PostToolUseInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// Its input.
    pub tool_input: Value,
    /// What it answered (for an MCP tool, its content blocks).
    #[serde(default)]
    pub tool_response: Value,
    /// The call.
    pub tool_use_id: String,
    /// How long it ran, in milliseconds (permission prompts and hooks left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// The MCP server of an `mcp__` tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<McpServerRef>,
}

/// `PostToolUseFailure`: a tool failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PostToolUseFailureInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// Its input.
    pub tool_input: Value,
    /// The call.
    pub tool_use_id: String,
    /// The error.
    pub error: String,
    /// Whether the failure was an interrupt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_interrupt: Option<bool>,
    /// How long it ran, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    /// The MCP server of an `mcp__` tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<McpServerRef>,
}

/// One call of a batch, in [`PostToolBatchInput::tool_calls`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BatchToolCall {
    /// The tool.
    pub tool_name: String,
    /// Its input.
    pub tool_input: Value,
    /// The call.
    pub tool_use_id: String,
    /// What it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_response: Option<Value>,
}

/// `PostToolBatch`: every call of one model answer has resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PostToolBatchInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The calls.
    pub tool_calls: Vec<BatchToolCall>,
}

/// `PermissionRequest`: the CLI is about to ask for a permission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionRequestInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// Its input.
    pub tool_input: Value,
    /// The rules the CLI suggests for "always allow".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_suggestions: Vec<PermissionUpdate>,
    /// The MCP server of an `mcp__` tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<McpServerRef>,
}

/// `PermissionDenied`: a tool call was refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PermissionDeniedInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The tool.
    pub tool_name: String,
    /// Its input.
    pub tool_input: Value,
    /// The call.
    pub tool_use_id: String,
    /// Why it was refused.
    pub reason: String,
    /// The MCP server of an `mcp__` tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp_server: Option<McpServerRef>,
}

wire_enum! {
    /// Who started the load of a skill or command, in [`PreSkillShellCommandInput`].
    pub enum InvokedBy {
        /// The user typed it, or an SDK host sent it.
        User = "user",
        /// The model (the Skill tool, or a turn it scheduled).
        Claude = "claude",
        /// Anything else (a subagent's preload, a channel message), or not known.
        Unknown = "other",
    }
}

/// The command of a [`PreSkillShellCommandInput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ShellCommand {
    /// The command as it would run, arguments filled in.
    pub command: String,
}

/// `PreSkillShellCommand`: a shell command embedded in a skill or slash command is about to
/// run (see [`HookEvent::PreSkillShellCommand`](super::HookEvent::PreSkillShellCommand)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PreSkillShellCommandInput {
    /// The fields every event has.
    #[serde(flatten)]
    pub base: HookBase,
    /// The shell tool that runs it: `Bash` or `PowerShell`.
    pub tool_name: String,
    /// The command.
    pub tool_input: ShellCommand,
    /// An id for this command (it names no tool call of the transcript).
    pub tool_use_id: String,
    /// The skill or command whose text holds it.
    pub command_name: String,
    /// Where that skill or command comes from (`projectSettings`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_source: Option<String>,
    /// Who started the load.
    pub invoked_by: InvokedBy,
}

/// `builtin_input()` on each tool event's input: its `tool_input`, typed by its `tool_name`.
macro_rules! typed_tool_input {
    ($($input:ty),* $(,)?) => {
        $(
            impl $input {
                /// The `tool_input`, typed by the tool's name ([`BuiltinToolInput::parse`]):
                /// [`BuiltinToolInput::Other`] for an `mcp__…` tool or one this library does
                /// not know, an error naming the field for an input that does not fit its
                /// tool's type (`tool_input` still holds it as it came).
                pub fn builtin_input(&self) -> Result<BuiltinToolInput, ToolInputError> {
                    BuiltinToolInput::parse(&self.tool_name, &self.tool_input)
                }
            }
        )*
    };
}

typed_tool_input!(
    PreToolUseInput,
    PostToolUseInput,
    PostToolUseFailureInput,
    BatchToolCall,
    PermissionRequestInput,
    PermissionDeniedInput,
);

impl PostToolUseInput {
    /// The `tool_response`, typed by the tool's name ([`BuiltinToolOutput::parse`]):
    /// [`BuiltinToolOutput::Other`] for an MCP tool's content blocks or a tool this library
    /// does not know.
    ///
    /// ```
    /// use claude_tools::builtin_tools::BuiltinToolOutput;
    /// use claude_tools::hooks::{HookInput, TypedHookInput};
    ///
    /// let raw = serde_json::json!({
    ///     "hook_event_name": "PostToolUse", "session_id": "s", "transcript_path": "/t", "cwd": "/w",
    ///     "tool_name": "Bash", "tool_use_id": "toolu_1", "tool_input": {"command": "ls"},
    ///     "tool_response": {"stdout": "a.rs", "stderr": "", "interrupted": false, "isImage": false},
    /// });
    /// let input = HookInput::from_raw(raw.as_object().unwrap().clone());
    /// let TypedHookInput::PostToolUse(post) = input.typed() else { panic!() };
    /// let Ok(BuiltinToolOutput::Bash(bash)) = post.builtin_output() else { panic!() };
    /// assert_eq!(bash.stdout, "a.rs");
    /// ```
    pub fn builtin_output(&self) -> Result<BuiltinToolOutput, ToolInputError> {
        BuiltinToolOutput::parse(&self.tool_name, &self.tool_response)
    }
}
