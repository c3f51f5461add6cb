//! [`PromptError`]: why a prompt gave no messages.

use std::fmt;

use crate::tool::ToolError;

/// Why `prompts/get` failed: arguments that do not fit (answered `-32602`, as MCP says of
/// invalid prompt arguments), or the prompt's own failure (`-32603`).
///
/// Any `std::error::Error` converts into it (a failure), so `?` works in a prompt fn; like
/// [`ToolError`], it does not implement `std::error::Error` itself.
///
/// ```
/// use claude_tools::prompts::PromptError;
///
/// let error = PromptError::invalid_argument("unit", "unknown unit `parsec`");
/// assert_eq!(error.to_string(), "argument `unit`: unknown unit `parsec`");
/// assert!(error.is_invalid_arguments());
/// ```
pub struct PromptError {
    message: String,
    invalid_arguments: bool,
    /// The message lists several argument problems (`(2 problems):\n- ..`), so that the
    /// router words it as a tool's (``Invalid arguments for prompt `p` (2 problems):``).
    several: bool,
}

impl PromptError {
    /// A failure of the prompt, with this message (`-32603`).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            invalid_arguments: false,
            several: false,
        }
    }

    /// An argument that does not fit (`-32602`), naming it.
    pub fn invalid_argument(argument: &str, problem: impl fmt::Display) -> Self {
        Self::invalid_arguments(format!("argument `{argument}`: {problem}"))
    }

    /// Arguments that do not fit (`-32602`), with this message.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            invalid_arguments: true,
            several: false,
        }
    }

    /// Several arguments that do not fit (`-32602`), one problem a line, as a tool's are
    /// listed.
    pub(crate) fn argument_problems(problems: &[String]) -> Self {
        match problems {
            [one] => Self::invalid_arguments(one.clone()),
            many => {
                let mut message = format!("({} problems):", many.len());
                for problem in many {
                    message.push_str("\n- ");
                    message.push_str(problem);
                }
                Self {
                    message,
                    invalid_arguments: true,
                    several: true,
                }
            }
        }
    }

    /// Whether the message lists several problems.
    pub(crate) fn lists_several(&self) -> bool {
        self.several
    }

    /// Whether the arguments were at fault (`-32602`) rather than the prompt (`-32603`).
    pub fn is_invalid_arguments(&self) -> bool {
        self.invalid_arguments
    }

    /// The message the client reads.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for PromptError {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

impl From<ToolError> for PromptError {
    fn from(error: ToolError) -> Self {
        Self::new(error.message())
    }
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptError")
            .field("message", &self.message)
            .field("invalid_arguments", &self.invalid_arguments)
            .finish()
    }
}
