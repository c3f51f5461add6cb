//! The spans a server's requests run in: `tracing` spans named and described with the
//! OpenTelemetry semantic conventions for MCP and GenAI, so that an OpenTelemetry exporter
//! behind `tracing-opentelemetry` shows them as any MCP server's.
//!
//! | span (`tracing` name) | OpenTelemetry name | attributes |
//! |---|---|---|
//! | `tools/call` | `tools/call {tool}` | `mcp.method.name`, `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id` (Claude's `tool_use_id`), `jsonrpc.request.id`, `mcp.protocol.version`; when it fails, `error.type` and `otel.status_code` = `error` |
//! | `mcp.request` (every other request) | `{method}` (`{method} {name}` for `prompts/get`) | `mcp.method.name`, `jsonrpc.request.id`, `mcp.protocol.version`, and for `prompts/get` `gen_ai.prompt.name`; `error.type` = the JSON-RPC error code when answered with one |
//!
//! Both are `otel.kind = server` at level `INFO`, under the target `claude_tools::mcp`. The MCP
//! conventions make a `tools/call` span the tool's `execute_tool` span too, so a call has one
//! span, not two. The span of a tool call is entered whenever its handler runs (its first poll,
//! each later one, and its grace after a cancellation), so what the tool logs or traces itself
//! sits beneath it.
//!
//! `error.type` of a tool call: `tool_error` for an `isError` result (bad arguments, the
//! handler's error), `panic` for a handler that panicked, `-32800` for a cancelled call and
//! `-32602` for an unknown tool.
//!
//! **Never recorded**: a call's arguments and its result, which can hold what the server must
//! not hand to a tracing backend.
//!
//! **Cost**: when no subscriber wants these spans (no subscriber at all, or one whose filter
//! leaves out `claude_tools::mcp` at `INFO`), creating one is a check of the callsite's cached
//! interest and nothing of its attributes is computed: +2.2% instructions on an in-process
//! tool call (BENCHMARKS.md, "Cost of tracing spans").
//!
//! **Context propagation** (cargo feature `opentelemetry`): a `tools/call` whose `params._meta`
//! carries a W3C `traceparent` (and `tracestate`) continues that trace: its span's parent is the
//! caller's span, in-process (the Claude Code CLI's tool-call span), over stdio and over HTTP
//! alike. A `traceparent` that is not a valid version-00 one (W3C Trace Context §3.2) is
//! ignored and the span keeps its local parent; no input makes this panic.

use tracing::Span;

use crate::jsonrpc::{RequestId, Response, TraceContext};

/// The target of the router's spans, for a subscriber's filter (`claude_tools::mcp=info`).
pub const TARGET: &str = "claude_tools::mcp";

/// `error.type` of a tool call answered with an `isError` result.
pub const TOOL_ERROR: &str = "tool_error";
/// `error.type` of a tool call whose handler panicked.
pub const PANIC: &str = "panic";

/// What a span needs to know of the request it stands for. Computed only when a subscriber
/// wants the span.
pub(crate) struct ToolSpan<'a> {
    pub(crate) tool: &'a str,
    pub(crate) id: &'a RequestId,
    pub(crate) tool_use_id: Option<&'a str>,
    pub(crate) protocol_version: Option<&'a str>,
}

/// The span of a `tools/call` (see the [module docs](self)), a child of `trace` when it is a
/// valid W3C trace context (feature `opentelemetry`), else of the current span.
// Inline: when no subscriber wants the span this is a load and a branch on every call.
#[inline]
pub(crate) fn tool_call_span(call: ToolSpan<'_>, trace: Option<&TraceContext>) -> Span {
    let span = tracing::info_span!(
        target: TARGET,
        "tools/call",
        otel.name = %SpanName("tools/call", Some(call.tool)),
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        mcp.method.name = "tools/call",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = call.tool,
        gen_ai.tool.call.id = call.tool_use_id,
        jsonrpc.request.id = %call.id,
        mcp.protocol.version = call.protocol_version,
        error.type = tracing::field::Empty,
    );
    if let Some(trace) = trace
        && !span.is_disabled()
    {
        continue_trace(&span, trace);
    }
    span
}

/// The span of any other request (see the [module docs](self)).
#[inline]
pub(crate) fn request_span(
    method: &str,
    name: Option<&str>,
    id: &RequestId,
    protocol_version: Option<&str>,
) -> Span {
    tracing::info_span!(
        target: TARGET,
        "mcp.request",
        otel.name = %SpanName(method, name),
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        mcp.method.name = method,
        gen_ai.prompt.name = name,
        jsonrpc.request.id = %id,
        mcp.protocol.version = protocol_version,
        error.type = tracing::field::Empty,
    )
}

/// Marks `span` failed with `error_type` (`error.type`, and the OpenTelemetry status `error`).
pub(crate) fn record_error(span: &Span, error_type: &str) {
    if span.is_disabled() {
        return;
    }
    span.record("error.type", error_type);
    span.record("otel.status_code", "error");
}

/// Marks `span` failed with a JSON-RPC error `code` (`error.type` = the code, as the JSON-RPC
/// conventions write it).
pub(crate) fn record_error_code(span: &Span, code: i32) {
    if span.is_disabled() {
        return;
    }
    span.record("error.type", code.to_string());
    span.record("otel.status_code", "error");
}

/// Marks `span` failed when `response` is a JSON-RPC error.
pub(crate) fn record_response(span: &Span, response: &Response) {
    if let Err(error) = &response.outcome {
        record_error_code(span, error.code.0);
    }
}

/// `{method}` or `{method} {target}`: the span name the MCP conventions give a request.
struct SpanName<'a>(&'a str, Option<&'a str>);

impl std::fmt::Display for SpanName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(target) => write!(f, "{} {target}", self.0),
            None => f.write_str(self.0),
        }
    }
}

/// Makes the caller's span in `trace` the parent of `span` (feature `opentelemetry`; without it
/// the trace context is not read).
#[cfg(feature = "opentelemetry")]
fn continue_trace(span: &Span, trace: &TraceContext) {
    use opentelemetry::trace::TraceContextExt;
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let Some(remote) = w3c::span_context(&trace.traceparent, trace.tracestate.as_deref()) else {
        tracing::debug!(target: TARGET, "ignoring a malformed traceparent in a tools/call's _meta");
        return;
    };
    let parent = opentelemetry::Context::new().with_remote_span_context(remote);
    // Fails only when no OpenTelemetry layer is installed, or the span was already started:
    // either way the span keeps its local parent, which is all that can be done.
    let _ = span.set_parent(parent);
}

#[cfg(not(feature = "opentelemetry"))]
fn continue_trace(_: &Span, _: &TraceContext) {}

#[cfg(feature = "opentelemetry")]
pub mod w3c;

#[cfg(feature = "opentelemetry")]
pub mod export;
#[cfg(feature = "opentelemetry")]
pub use export::{CountingExporter, DroppedSpans};
