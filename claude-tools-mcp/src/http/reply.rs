//! The answers the transport writes itself: a [`Refusal`] (a request refused before it reached
//! the router, as a JSON-RPC error of `id: null`), JSON responses, the `isError` results of a
//! call cut short by the timeout or the shutdown, and [`reply_bytes`], the one writer of a
//! router's reply that the JSON and the SSE answers share.

use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;
use serde_json::value::RawValue;

use claude_tools_core::mcp::{Reply, jsonrpc};
use claude_tools_core::tool::ToolResult;

/// The `isError` result of a call cancelled by the request timeout.
pub(super) fn timed_out(id: Value, tool: &str, timeout: Duration) -> Reply {
    Reply::ToolResult {
        id,
        result: ToolResult::error(format!(
            "tool `{tool}` did not finish within the server's {} request timeout and was cancelled",
            seconds(timeout)
        )),
    }
}

/// The `isError` result of a call cancelled by a graceful shutdown's end.
pub(super) fn shut_down(id: Value, tool: &str) -> Reply {
    Reply::ToolResult {
        id,
        result: ToolResult::error(format!(
            "the server shut down before tool `{tool}` finished; the call was cancelled"
        )),
    }
}

pub(super) fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

/// Notes the kind of a reply the router made as the span's outcome.
pub(super) fn record_outcome(span: &tracing::Span, reply: &Reply) {
    let outcome = match reply {
        Reply::ToolResult { result, .. } if result.is_error => "tool_error",
        Reply::ToolResult { .. } => "result",
        Reply::Json(value) if value.get("error").is_some() => "error",
        Reply::Json(_) => "result",
    };
    span.record("outcome", outcome);
}

/// The reply's JSON, its id written as `id` when there is one ([`jsonrpc::EchoedId`]).
pub(super) fn reply_bytes(reply: &Reply, id: Option<&RawValue>) -> Vec<u8> {
    match serde_json::to_vec(&jsonrpc::EchoedId { reply, id }) {
        Ok(bytes) => bytes,
        Err(error) => {
            // Only a tool result can fail to serialise (a non-finite number in it); its request
            // still gets an answer.
            tracing::error!(%error, "MCP HTTP: a reply did not serialise");
            let id = match reply {
                Reply::ToolResult { id, .. } => id.clone(),
                Reply::Json(value) => value.get("id").cloned().unwrap_or(Value::Null),
            };
            jsonrpc::error(
                id,
                jsonrpc::INTERNAL_ERROR,
                "Internal error",
                Some(Value::String(error.to_string())),
            )
            .to_string()
            .into_bytes()
        }
    }
}

pub(super) fn json_response(status: StatusCode, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A refusal: `status` with a JSON-RPC error body of `id: null`.
pub(super) fn transport_error(
    status: StatusCode,
    code: i64,
    message: &'static str,
    data: &str,
) -> Response {
    Refusal::new(status, code, message, data).into_response()
}

/// A request refused before it reached the router.
pub(super) struct Refusal {
    status: StatusCode,
    code: i64,
    message: &'static str,
    data: String,
}

impl Refusal {
    pub(super) fn new(
        status: StatusCode,
        code: i64,
        message: &'static str,
        data: impl Into<String>,
    ) -> Self {
        Self {
            status,
            code,
            message,
            data: data.into(),
        }
    }

    /// `status` with a JSON-RPC error body of `id: null`.
    pub(super) fn into_response(self) -> Response {
        let body = jsonrpc::error(
            Value::Null,
            self.code,
            self.message,
            Some(Value::String(self.data)),
        );
        json_response(self.status, body.to_string().into_bytes())
    }
}
