//! Calls, errors and latency per tool as OpenTelemetry metrics (cargo feature
//! `opentelemetry`): [`OperationMetricsLayer`], a layer around a server's tool calls.
//!
//! It records one instrument, the OpenTelemetry semantic conventions' MCP server metric:
//!
//! | instrument | kind, unit | attributes |
//! |---|---|---|
//! | `mcp.server.operation.duration` | histogram, `s` | `mcp.method.name` = `tools/call`, `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, and for a failed call `error.type` |
//!
//! Calls, errors and latency per tool are read from it: a histogram's count is the number of
//! calls, its count where `error.type` is set the number of failures, its buckets and sum the
//! latency. `error.type` is `tool_error` for an `isError` result (bad arguments, the handler's
//! error, a panic, a policy's refusal), `timeout` and `overloaded` for tower's `timeout` and
//! `load_shed` failing the call, `cancelled` for a call dropped before it ended (the client
//! cancelled it), and `_OTHER` for any other layer's error. The buckets are the ones the
//! conventions advise for this metric (10 ms to 300 s).
//!
//! Arguments and results are never recorded; the tool's name is the only attribute taken
//! from the call, so the cardinality is bounded by the server's tools.
//!
//! The time measured is the layer's: put it outermost (the last [`ToolServer::layer`]
//! call) to count time spent waiting in a concurrency limit too, innermost to measure the
//! handler alone.
//!
//! [`ToolServer::layer`]: crate::tool::ToolServer::layer

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};
use tower_layer::Layer;
use tower_service::Service;

use super::boxed::BoxError;
use super::tool_call::ToolRequest;
use crate::tool::ToolResult;

/// The name of the instrument: the semantic conventions' `mcp.server.operation.duration`.
pub const OPERATION_DURATION: &str = "mcp.server.operation.duration";

/// The bucket boundaries the semantic conventions advise for MCP operation durations, seconds.
const ADVISED_BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// `error.type` of a call whose result is `isError`.
const TOOL_ERROR: &str = crate::telemetry::TOOL_ERROR;
/// `error.type` of a call dropped before it ended.
const CANCELLED: &str = "cancelled";

/// A `tower::Layer` that records each tool call's duration and outcome in the
/// `mcp.server.operation.duration` histogram (see the [module docs](self)).
///
/// ```
/// use claude_tools::layer::OperationMetricsLayer;
/// use claude_tools::tools::{ToolContext, ToolServer};
///
/// // The meter of the globally installed provider (an OTLP exporter, Prometheus…); without
/// // one, OpenTelemetry's no-op meter records nothing.
/// let meter = opentelemetry::global::meter("my-server");
/// let server = ToolServer::new("search", "1.0.0")
///     .with_typed_tool("lookup", || async { "found" })
///     .unwrap()
///     .layer(OperationMetricsLayer::new(&meter));
/// # let _ = server;
/// ```
#[derive(Clone, Debug)]
pub struct OperationMetricsLayer {
    duration: Histogram<f64>,
}

impl OperationMetricsLayer {
    /// A layer recording into an `mcp.server.operation.duration` histogram of `meter`.
    pub fn new(meter: &Meter) -> Self {
        let duration = meter
            .f64_histogram(OPERATION_DURATION)
            .with_unit("s")
            .with_description(
                "MCP request duration as observed on the server, from the time it was \
                 received until the result is sent",
            )
            .with_boundaries(ADVISED_BOUNDARIES.to_vec())
            .build();
        Self { duration }
    }
}

impl<S> Layer<S> for OperationMetricsLayer {
    type Service = OperationMetrics<S>;

    fn layer(&self, inner: S) -> OperationMetrics<S> {
        OperationMetrics {
            inner,
            duration: self.duration.clone(),
        }
    }
}

/// The service of [`OperationMetricsLayer`]: measures each call of `S`.
#[derive(Clone, Debug)]
pub struct OperationMetrics<S> {
    inner: S,
    duration: Histogram<f64>,
}

impl<S> Service<ToolRequest> for OperationMetrics<S>
where
    S: Service<ToolRequest, Response = ToolResult>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = ToolResult;
    type Error = BoxError;
    type Future = Measured<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: ToolRequest) -> Measured<S::Future> {
        let tool = KeyValue::new("gen_ai.tool.name", request.name().to_owned());
        Measured {
            inner: Box::pin(self.inner.call(request)),
            measure: Some(Measure {
                duration: self.duration.clone(),
                tool,
                started: Instant::now(),
            }),
        }
    }
}

/// One call being measured: recorded when it ends, or as `cancelled` when it is dropped first.
pub struct Measured<F> {
    // Boxed so that `Measured` is `Unpin` without pin projection.
    inner: Pin<Box<F>>,
    /// `None` once recorded.
    measure: Option<Measure>,
}

impl<F> std::fmt::Debug for Measured<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Measured").finish_non_exhaustive()
    }
}

struct Measure {
    duration: Histogram<f64>,
    tool: KeyValue,
    started: Instant,
}

impl Measure {
    fn record(self, error_type: Option<&'static str>) {
        let seconds = self.started.elapsed().as_secs_f64();
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", "tools/call"),
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            self.tool,
        ];
        if let Some(error_type) = error_type {
            attributes.push(KeyValue::new("error.type", error_type));
        }
        self.duration.record(seconds, &attributes);
    }
}

impl<F, E> Future for Measured<F>
where
    F: Future<Output = Result<ToolResult, E>>,
    E: Into<BoxError>,
{
    type Output = Result<ToolResult, BoxError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let outcome = match self.inner.as_mut().poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(outcome) => outcome.map_err(Into::into),
        };
        if let Some(measure) = self.measure.take() {
            measure.record(error_type(&outcome));
        }
        Poll::Ready(outcome)
    }
}

impl<F> Drop for Measured<F> {
    fn drop(&mut self) {
        if let Some(measure) = self.measure.take() {
            measure.record(Some(CANCELLED));
        }
    }
}

/// The `error.type` of a call's outcome, `None` when it succeeded.
fn error_type(outcome: &Result<ToolResult, BoxError>) -> Option<&'static str> {
    match outcome {
        Ok(result) if result.is_error => Some(TOOL_ERROR),
        Ok(_) => None,
        Err(error) if error.is::<tower::timeout::error::Elapsed>() => Some("timeout"),
        Err(error) if error.is::<tower::load_shed::error::Overloaded>() => Some("overloaded"),
        // The conventions' value for an error of no known type.
        Err(_) => Some("_OTHER"),
    }
}
