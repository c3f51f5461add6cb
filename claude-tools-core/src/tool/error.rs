//! Errors a tool hands back to the model.

use std::fmt;

/// The error type for tool handlers: its message becomes an `isError` result the model reads.
///
/// Any `std::error::Error` converts into it, so `?` works on the errors of the libraries a tool
/// calls. (Like `anyhow::Error`, it does not implement `std::error::Error` itself; that is what
/// makes the blanket conversion possible.)
///
/// ```
/// use claude_tools::tools::ToolError;
///
/// fn parse(n: &str) -> Result<u32, ToolError> {
///     if n.is_empty() {
///         return Err(ToolError::new("n must not be empty"));
///     }
///     Ok(n.parse::<u32>()?)
/// }
/// assert_eq!(parse("x").unwrap_err().to_string(), "invalid digit found in string");
/// ```
pub struct ToolError {
    message: String,
    /// The argument problems the message was made from (empty for any other error), so that a
    /// tool's extraction can report every bad argument of a call at once. Boxed: a tool's
    /// `Result<T, ToolError>`s stay as small as a `String` makes them.
    #[allow(clippy::box_collection, reason = "one word in every call, not three")]
    arguments: Option<Box<Vec<ArgumentError>>>,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            arguments: None,
        }
    }

    /// The error of a call whose arguments do not fit tool `tool`: one message listing every
    /// problem.
    pub(crate) fn invalid_arguments(tool: &str, arguments: Vec<ArgumentError>) -> Self {
        Self {
            message: render_argument_errors(tool, &arguments),
            arguments: Some(Box::new(arguments)),
        }
    }

    /// The argument problems this error reports, or the error itself when it is not about the
    /// arguments.
    pub(crate) fn into_argument_errors(self) -> Result<Vec<ArgumentError>, Self> {
        match self.arguments {
            Some(arguments) => Ok(*arguments),
            None => Err(self),
        }
    }

    /// The message the model will read.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolError").field(&self.message).finish()
    }
}

/// Arguments from the model that do not fit the tool's parameters.
///
/// Its message names the argument and what was expected, so the model can correct the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentError {
    argument: Option<String>,
    message: String,
}

impl ArgumentError {
    /// A problem with one named argument (a field path like `items[0].name` is fine too).
    pub fn for_argument(argument: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            argument: Some(argument.into()),
            message: message.into(),
        }
    }

    /// A problem with the arguments as a whole.
    pub fn whole(message: impl Into<String>) -> Self {
        Self {
            argument: None,
            message: message.into(),
        }
    }

    /// A required argument that the model left out.
    pub fn missing(argument: &str) -> Self {
        Self::for_argument(argument, "missing required argument")
    }

    /// The argument at fault, if the error concerns one.
    pub fn argument(&self) -> Option<&str> {
        self.argument.as_deref()
    }

    /// What is wrong with it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.argument {
            Some(argument) => write!(f, "argument `{argument}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ArgumentError {}

/// The text the model reads for a call whose arguments do not fit: one problem on one line
/// (`Invalid arguments for tool `t`: argument `a`: ...`), several as a list, one per line, so the
/// model can fix them all in its next call.
pub(crate) fn render_argument_errors(tool: &str, errors: &[ArgumentError]) -> String {
    use std::fmt::Write as _;

    match errors {
        [error] => format!("Invalid arguments for tool `{tool}`: {error}"),
        errors => {
            let mut text = format!(
                "Invalid arguments for tool `{tool}` ({} problems):",
                errors.len()
            );
            for error in errors {
                // Writing to a String cannot fail.
                let _ = write!(text, "\n- {error}");
            }
            text
        }
    }
}
