//! [`ErrorCode`] and [`ErrorObject`]: a JSON-RPC error, typed.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON-RPC error code. The codes this crate answers are associated constants.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i32);

impl ErrorCode {
    /// The message is not valid JSON.
    pub const PARSE_ERROR: ErrorCode = ErrorCode(-32700);
    /// The message is not a valid JSON-RPC request (not an object, no `method`, bad `jsonrpc`…).
    pub const INVALID_REQUEST: ErrorCode = ErrorCode(-32600);
    /// The server has no such method.
    pub const METHOD_NOT_FOUND: ErrorCode = ErrorCode(-32601);
    /// The method's parameters are invalid (for example `tools/call` without a `name`, or a
    /// tool the server does not have).
    pub const INVALID_PARAMS: ErrorCode = ErrorCode(-32602);
    /// The server failed internally.
    pub const INTERNAL_ERROR: ErrorCode = ErrorCode(-32603);
    /// MCP: the request was cancelled by a `notifications/cancelled`.
    pub const REQUEST_CANCELLED: ErrorCode = ErrorCode(-32800);
    /// MCP 2026-07-28: an HTTP header (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
    /// `Mcp-Param-*`) disagrees with the body, or is missing where the body needs it.
    pub const HEADER_MISMATCH: ErrorCode = ErrorCode(-32020);
    /// MCP 2026-07-28: the request cannot be served without a capability its client did not
    /// declare (`data.requiredCapabilities`).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: ErrorCode = ErrorCode(-32021);
    /// MCP 2026-07-28: the request's protocol revision is not one the server speaks
    /// (`data.supported`, `data.requested`).
    pub const UNSUPPORTED_PROTOCOL_VERSION: ErrorCode = ErrorCode(-32022);

    /// The code's number.
    pub fn code(self) -> i32 {
        self.0
    }
}

impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match *self {
            ErrorCode::PARSE_ERROR => "PARSE_ERROR",
            ErrorCode::INVALID_REQUEST => "INVALID_REQUEST",
            ErrorCode::METHOD_NOT_FOUND => "METHOD_NOT_FOUND",
            ErrorCode::INVALID_PARAMS => "INVALID_PARAMS",
            ErrorCode::INTERNAL_ERROR => "INTERNAL_ERROR",
            ErrorCode::REQUEST_CANCELLED => "REQUEST_CANCELLED",
            ErrorCode::HEADER_MISMATCH => "HEADER_MISMATCH",
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY => "MISSING_REQUIRED_CLIENT_CAPABILITY",
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => "UNSUPPORTED_PROTOCOL_VERSION",
            ErrorCode(code) => return write!(f, "ErrorCode({code})"),
        };
        write!(f, "{name}({})", self.0)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The longest `data` text an error carries of what the client sent (a method name, a reason
/// quoting input): a 4 MiB method name must not come back as a 4 MiB answer.
pub const MAX_ECHO: usize = 256;

/// The `error` member of a JSON-RPC error response.
///
/// ```
/// use claude_tools::mcp::{ErrorCode, ErrorObject};
///
/// let error = ErrorObject::method_not_found("tools/frobnicate");
/// assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND);
/// assert_eq!(
///     serde_json::to_value(&error).unwrap(),
///     serde_json::json!({"code": -32601, "message": "Method not found", "data": "tools/frobnicate"})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ErrorObject {
    /// The code.
    pub code: ErrorCode,
    /// The short description JSON-RPC gives the code.
    pub message: Cow<'static, str>,
    /// What went wrong, for a person reading it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error of `code` with `message` and no data.
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data`.
    pub fn with_data(mut self, data: impl Into<Value>) -> Self {
        self.data = Some(data.into());
        self
    }

    /// `-32700 "Parse error"`, with why as its data.
    pub fn parse_error(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, "Parse error").with_data(detail.into())
    }

    /// `-32600 "Invalid Request"`, with why as its data.
    pub fn invalid_request(reason: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_REQUEST, "Invalid Request").with_data(reason.into())
    }

    /// `-32601 "Method not found"`, with the method (cut to [`MAX_ECHO`] bytes) as its data.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(ErrorCode::METHOD_NOT_FOUND, "Method not found").with_data(echo(method))
    }

    /// `-32602 "Invalid params"`, with why as its data.
    pub fn invalid_params(reason: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, "Invalid params").with_data(reason.into())
    }

    /// `-32603 "Internal error"`, with why as its data.
    pub fn internal_error(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, "Internal error").with_data(detail.into())
    }

    /// `-32800 "Request cancelled"`.
    pub fn request_cancelled() -> Self {
        Self::new(ErrorCode::REQUEST_CANCELLED, "Request cancelled")
    }

    /// `-32020 "Header mismatch"` (MCP 2026-07-28), with why as its data.
    pub fn header_mismatch(reason: impl Into<String>) -> Self {
        Self::new(ErrorCode::HEADER_MISMATCH, "Header mismatch").with_data(reason.into())
    }

    /// `-32021 "Missing required client capability"` (MCP 2026-07-28), with
    /// `data.requiredCapabilities` the capabilities object the request lacked (for example
    /// `{"elicitation": {}}`).
    pub fn missing_client_capability(required: Value) -> Self {
        Self::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability",
        )
        .with_data(serde_json::json!({ "requiredCapabilities": required }))
    }

    /// `-32022 "Unsupported protocol version"` (MCP 2026-07-28), with the versions the server
    /// speaks (`data.supported`) and the one asked for (`data.requested`, cut to [`MAX_ECHO`]).
    pub fn unsupported_protocol_version(supported: &[&str], requested: &str) -> Self {
        Self::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        )
        .with_data(serde_json::json!({ "supported": supported, "requested": echo(requested) }))
    }
}

/// `text` cut to at most [`MAX_ECHO`] bytes (on a character boundary), with `…` when cut.
pub fn echo(text: &str) -> String {
    if text.len() <= MAX_ECHO {
        return text.to_string();
    }
    let mut end = MAX_ECHO;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_method_is_cut_in_the_echo() {
        let method = "é".repeat(1000);
        let Some(Value::String(data)) = ErrorObject::method_not_found(&method).data else {
            panic!("no data");
        };
        assert!(data.len() <= MAX_ECHO + '…'.len_utf8());
        assert!(data.ends_with('…'));
        assert_eq!(echo("short"), "short");
    }

    #[test]
    fn codes_print_their_names() {
        assert_eq!(
            format!("{:?}", ErrorCode::REQUEST_CANCELLED),
            "REQUEST_CANCELLED(-32800)"
        );
        assert_eq!(format!("{:?}", ErrorCode(7)), "ErrorCode(7)");
    }
}
