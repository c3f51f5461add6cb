//! [`Response`]: the one answer to a request, typed, and how it is written.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use super::{ErrorCode, ErrorObject, RequestId};
use crate::tool::ToolResult;

/// The answer to one request: its id and its result or error.
///
/// ```
/// use claude_tools::mcp::{Answer, ErrorObject, RequestId, Response};
///
/// let pong = Response::success(RequestId::from(1), Answer::Empty);
/// assert_eq!(pong.to_json(), r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
/// let refused = Response::error(None, ErrorObject::invalid_request("not an object"));
/// assert_eq!(
///     refused.to_json(),
///     r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"not an object"}}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The request's id; `None` (written `null`) when the request's id could not be read.
    pub id: Option<RequestId>,
    /// The result, or the error.
    pub outcome: Result<Answer, ErrorObject>,
}

/// A successful result, typed by what it answers.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Answer {
    /// A tool's result (`tools/call`), serialised straight from the value the tool returned.
    Tool(ToolResult),
    /// `tools/list`.
    ToolsList(super::ToolsList),
    /// `initialize`.
    Initialize(super::InitializeResult),
    /// `{}` (`ping`).
    Empty,
    /// Any other result.
    Json(Value),
}

impl Response {
    /// A successful answer.
    pub fn success(id: RequestId, answer: Answer) -> Self {
        Self {
            id: Some(id),
            outcome: Ok(answer),
        }
    }

    /// An error answer; `id` is `None` when the request's id could not be read.
    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Self {
        Self {
            id,
            outcome: Err(error),
        }
    }

    /// The error's code, for an error answer.
    pub fn error_code(&self) -> Option<ErrorCode> {
        self.outcome.as_ref().err().map(|error| error.code)
    }

    /// Whether this answers a request that was cancelled (`-32800`).
    pub fn is_cancelled(&self) -> bool {
        self.error_code() == Some(ErrorCode::REQUEST_CANCELLED)
    }

    /// Appends the response as JSON to `out`. Should the result fail to serialise, what was
    /// written of it is taken back and a `-32603` with the same id goes in its place: the
    /// request still gets its one answer.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        let start = out.len();
        if let Err(error) = serde_json::to_writer(&mut *out, self) {
            tracing::error!(%error, "a JSON-RPC response did not serialise");
            out.truncate(start);
            let fallback = Response::error(
                self.id.clone(),
                ErrorObject::internal_error(format!("the result could not be written: {error}")),
            );
            // An id and an error of strings serialise.
            let _ = serde_json::to_writer(&mut *out, &fallback);
        }
    }

    /// The response as a JSON string ([`Response::write_to`]).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(128);
        self.write_to(&mut out);
        // serde_json writes UTF-8.
        String::from_utf8(out).unwrap_or_default()
    }

    /// The response as a `serde_json::Value` (for tests and logs; the transports write it
    /// straight with [`Response::write_to`]).
    pub fn to_value(&self) -> Value {
        serde_json::from_str(&self.to_json()).unwrap_or(Value::Null)
    }
}

impl Serialize for Response {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut response = serializer.serialize_map(Some(3))?;
        response.serialize_entry("jsonrpc", "2.0")?;
        match &self.id {
            Some(id) => response.serialize_entry("id", id)?,
            None => response.serialize_entry("id", &())?,
        }
        match &self.outcome {
            Ok(answer) => response.serialize_entry("result", answer)?,
            Err(error) => response.serialize_entry("error", error)?,
        }
        response.end()
    }
}

impl Serialize for Answer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Answer::Tool(result) => result.serialize(serializer),
            Answer::ToolsList(list) => list.serialize(serializer),
            Answer::Initialize(result) => result.serialize(serializer),
            Answer::Empty => serializer.serialize_map(Some(0))?.end(),
            Answer::Json(value) => value.serialize(serializer),
        }
    }
}
