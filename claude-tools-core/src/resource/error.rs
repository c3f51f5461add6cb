//! [`ResourceError`]: why a resource could not be read.

use std::fmt;

use crate::tool::ToolError;

/// Why `resources/read` failed: no such resource (`-32002 "Resource not found"`, with the URI,
/// as MCP says), a URI whose variables do not parse (`-32602`), or the resource's own failure
/// (`-32603`).
///
/// Any `std::error::Error` converts into it (a failure), so `?` works in a resource fn; like
/// [`ToolError`], it does not implement `std::error::Error` itself.
///
/// ```
/// use claude_tools::resources::ResourceError;
///
/// let error = ResourceError::not_found("no ticket 7");
/// assert!(error.is_not_found());
/// assert_eq!(error.to_string(), "no ticket 7");
/// ```
pub struct ResourceError {
    message: String,
    kind: ErrorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    NotFound,
    InvalidParams,
    Failed,
}

impl ResourceError {
    /// A failure of the resource, with this message (`-32603`).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind: ErrorKind::Failed,
        }
    }

    /// No resource at the URI read (`-32002`): for a template whose variables name nothing.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            kind: ErrorKind::NotFound,
        }
    }

    /// A URI variable that does not fit (`-32602`), naming it.
    pub fn invalid_variable(variable: &str, problem: impl fmt::Display) -> Self {
        Self {
            message: format!("URI variable `{variable}`: {problem}"),
            kind: ErrorKind::InvalidParams,
        }
    }

    /// URI variables that do not fit (`-32602`), with this message.
    pub(crate) fn invalid_params(message: String) -> Self {
        Self {
            message,
            kind: ErrorKind::InvalidParams,
        }
    }

    /// Whether the resource was not found (`-32002`).
    pub fn is_not_found(&self) -> bool {
        self.kind == ErrorKind::NotFound
    }

    /// The message the client reads.
    pub fn message(&self) -> &str {
        &self.message
    }

    pub(crate) fn kind(&self) -> ErrorKind {
        self.kind
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for ResourceError {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

impl From<ToolError> for ResourceError {
    fn from(error: ToolError) -> Self {
        Self::new(error.message())
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResourceError")
            .field("message", &self.message)
            .field("kind", &self.kind)
            .finish()
    }
}
