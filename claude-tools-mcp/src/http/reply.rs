//! The answers the transport writes itself: a [`Refusal`] (a request refused before it reached
//! the router, as a JSON-RPC error of `id: null`), JSON responses, the `isError` results of a
//! call cut short by the timeout or the shutdown, and [`reply_bytes`], the router's answer as
//! the JSON and the SSE answers write it (through the one writer, [`RpcResponse::write_to`](claude_tools_core::mcp::Response::write_to)).

use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use claude_tools_core::mcp::{Answer, ErrorCode, ErrorObject, RequestId};
use claude_tools_core::tool::ToolResult;

/// A JSON-RPC answer (not to be confused with axum's HTTP `Response`).
pub(super) type RpcResponse = claude_tools_core::mcp::Response;

/// The `isError` result of a call cancelled by the request timeout.
pub(super) fn timed_out(id: RequestId, tool: &str, timeout: Duration) -> RpcResponse {
    RpcResponse::success(
        id,
        Answer::Tool(ToolResult::error(format!(
            "tool `{tool}` did not finish within the server's {} request timeout and was cancelled",
            seconds(timeout)
        ))),
    )
}

/// The `isError` result of a call cancelled by a graceful shutdown's end.
pub(super) fn shut_down(id: RequestId, tool: &str) -> RpcResponse {
    RpcResponse::success(
        id,
        Answer::Tool(ToolResult::error(format!(
            "the server shut down before tool `{tool}` finished; the call was cancelled"
        ))),
    )
}

pub(super) fn seconds(duration: Duration) -> String {
    format!("{} s", duration.as_secs_f64())
}

/// Notes the kind of an answer the router made as the span's outcome.
pub(super) fn record_outcome(span: &tracing::Span, response: &RpcResponse) {
    let outcome = match &response.outcome {
        Ok(Answer::Tool(result)) if result.is_error => "tool_error",
        Ok(_) => "result",
        Err(_) => "error",
    };
    span.record("outcome", outcome);
}

/// The answer's JSON.
pub(super) fn reply_bytes(response: &RpcResponse) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(256);
    response.write_to(&mut bytes);
    bytes
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
    code: ErrorCode,
    message: &'static str,
    data: &str,
) -> Response {
    Refusal::new(status, code, message, data).into_response()
}

/// A request refused before it reached the router.
pub(super) struct Refusal {
    status: StatusCode,
    code: ErrorCode,
    message: &'static str,
    data: String,
    /// A `Retry-After`, in seconds.
    retry_after: Option<u32>,
    /// Sent with `Connection: close`: the connection ends after it.
    close: bool,
}

impl Refusal {
    pub(super) fn new(
        status: StatusCode,
        code: ErrorCode,
        message: &'static str,
        data: impl Into<String>,
    ) -> Self {
        Self {
            status,
            code,
            message,
            data: data.into(),
            retry_after: None,
            close: false,
        }
    }

    /// The same refusal, telling the client to try again in `seconds` (`Retry-After`).
    pub(super) fn retry_after(mut self, seconds: u32) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    /// The connection is closed after this refusal (`Connection: close`): what is left of the
    /// request's body is not read.
    pub(super) fn closing(mut self) -> Self {
        self.close = true;
        self
    }

    /// `status` with a JSON-RPC error body of `id: null`.
    pub(super) fn into_response(self) -> Response {
        let body = RpcResponse::error(
            None,
            ErrorObject::new(self.code, self.message).with_data(self.data),
        );
        let mut response = json_response(self.status, reply_bytes(&body));
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if self.close {
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}
