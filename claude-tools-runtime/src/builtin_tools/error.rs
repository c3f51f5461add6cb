//! The error of a built-in tool's input or output that does not fit its type, and the one
//! reader that produces it (every typed view goes through [`read`]).

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Which side of a tool call a [`ToolInputError`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolPart {
    /// The input the model gave the tool (`tool_use.input`, a permission request's `input`, a
    /// hook's `tool_input`).
    Input,
    /// What the tool answered (`tool_use_result`, a `PostToolUse` hook's `tool_response`).
    Output,
}

impl std::fmt::Display for ToolPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ToolPart::Input => "input",
            ToolPart::Output => "output",
        })
    }
}

/// A built-in tool's input (or output) whose JSON does not fit the tool's type: a field of the
/// wrong type, or a required field missing. It names the tool and the field, so a policy can
/// log it and refuse the call; the JSON itself stays where it was read from (the request's
/// `input`, the hook's `tool_input`…), untouched.
///
/// ```
/// use claude_tools::builtin_tools::BuiltinToolInput;
///
/// let error = BuiltinToolInput::parse("Bash", &serde_json::json!({"command": 42})).unwrap_err();
/// assert_eq!(error.tool, "Bash");
/// assert_eq!(error.field, "command");
/// assert!(error.to_string().starts_with("Bash input: field `command`:"), "{error}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{tool} {part}: field `{field}`: {message}")]
#[non_exhaustive]
pub struct ToolInputError {
    /// The tool, as the CLI named it (`Bash`, or a legacy name such as `Task`).
    pub tool: String,
    /// Input or output.
    pub part: ToolPart,
    /// The path of the field that does not fit: `command`, `todos[1].status`, or `.` when the
    /// whole value is wrong (not an object).
    pub field: String,
    /// What is wrong with it, as serde says (`invalid type: integer `42`, expected a string`,
    /// `missing field`).
    pub message: String,
}

/// Reads `value` as `T`, or says which field of which tool does not fit.
pub(crate) fn read<T: DeserializeOwned>(
    tool: &str,
    part: ToolPart,
    value: &Value,
) -> Result<T, ToolInputError> {
    serde_path_to_error::deserialize(value).map_err(|error| {
        let path = error.path().to_string();
        let message = error.inner().to_string();
        ToolInputError {
            tool: tool.to_owned(),
            part,
            field: field_of(&path, &message),
            message,
        }
    })
}

/// The failing field's path. serde reports a missing field at the path of the object that
/// lacks it (`.`, or `todos[0]`), naming the field only in its message; the field is appended
/// so that every error names the field itself.
fn field_of(path: &str, message: &str) -> String {
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    match (path, missing) {
        (".", Some(field)) => field.to_owned(),
        (path, Some(field)) => format!("{path}.{field}"),
        (path, None) => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_field_is_named_with_its_parent_path() {
        assert_eq!(field_of(".", "missing field `command`"), "command");
        assert_eq!(
            field_of("todos[0]", "missing field `status`"),
            "todos[0].status"
        );
        assert_eq!(
            field_of("timeout", "invalid type: string \"x\", expected u64"),
            "timeout"
        );
    }
}
