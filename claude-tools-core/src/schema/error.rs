//! The error of a type whose schema Claude would not accept.

/// A type whose schema Claude would not accept, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SchemaError {
    message: String,
}

impl SchemaError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// What is wrong and what to do about it.
    pub fn message(&self) -> &str {
        &self.message
    }
}
