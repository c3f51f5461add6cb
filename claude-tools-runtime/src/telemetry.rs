//! The agent's spans, with the OpenTelemetry semantic conventions for GenAI: a session
//! (`invoke_agent`), each turn of it (a prompt to its `result`), and each control request the
//! CLI sends (`mcp_message`, `can_use_tool`, `hook_callback`…), whose MCP `tools/call` span
//! (`claude_tools_core::telemetry`) sits beneath it.
//!
//! | span (`tracing` name) | parent | attributes |
//! |---|---|---|
//! | `invoke_agent` | the host's current span at `Client::connect` / `query` | `gen_ai.operation.name` = `invoke_agent`, `gen_ai.provider.name` = `anthropic`, `gen_ai.agent.name` = `claude-code`, `gen_ai.request.model` (when set) |
//! | `turn` | the session | `gen_ai.operation.name` = `invoke_agent`, `claude_tools.turn`, and from the `result`: `gen_ai.conversation.id`, `gen_ai.usage.input_tokens`, `gen_ai.usage.output_tokens`, `error.type` (the result's subtype when it is an error) |
//! | `control_request` | the oldest turn still open, else the session | `claude_tools.control.subtype`, `claude_tools.control.request_id` |
//!
//! All at `INFO` under the target `claude_tools::agent`. Prompts, tool inputs and results are
//! never recorded. With no subscriber interested they cost a check of a cached interest each.
//!
//! With the cargo feature `opentelemetry`, the host's current span reaches the CLI as the
//! `TRACEPARENT` / `TRACESTATE` environment variables, as the TypeScript SDK does, so the CLI
//! (with its telemetry on) continues the host's trace (`current_trace_context`).

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::Value;
use tracing::Span;

/// The target of the agent's spans, for a subscriber's filter (`claude_tools::agent=info`).
pub const TARGET: &str = "claude_tools::agent";

/// The spans of one session.
pub(crate) struct SessionSpans {
    session: Span,
    /// The turns sent and not yet answered by a `result`, oldest first (the CLI answers
    /// prompts in order).
    turns: Mutex<VecDeque<Span>>,
    /// Turns started, for `claude_tools.turn`.
    started: std::sync::atomic::AtomicU64,
    /// The subscriber that was the default where the session started: its spans are dropped
    /// under it (see `Drop`).
    dispatch: tracing::Dispatch,
}

impl Drop for SessionSpans {
    /// A span that closes releases its parent through the *thread's* default subscriber
    /// (`tracing-subscriber`'s registry does). The last holder of a session may be a thread
    /// where the host's subscriber is not the default (a host that installed it with
    /// `set_default`, and the session's reading thread once it is done): the host's span above
    /// the session would then never close, nor be exported. So the session's spans are
    /// dropped with the subscriber they were made under as the default.
    fn drop(&mut self) {
        if self.session.is_disabled() {
            return;
        }
        let session = std::mem::replace(&mut self.session, Span::none());
        let turns = std::mem::take(&mut *self.lock());
        tracing::dispatcher::with_default(&self.dispatch, move || {
            drop(turns);
            drop(session);
        });
    }
}

impl SessionSpans {
    /// The session's span, a child of the current one.
    pub(crate) fn start(model: Option<&str>) -> Self {
        let session = tracing::info_span!(
            target: TARGET,
            "invoke_agent",
            otel.name = "invoke_agent claude-code",
            otel.kind = "client",
            gen_ai.operation.name = "invoke_agent",
            gen_ai.provider.name = "anthropic",
            gen_ai.agent.name = "claude-code",
            gen_ai.request.model = model,
        );
        Self {
            session,
            turns: Mutex::default(),
            started: std::sync::atomic::AtomicU64::new(0),
            dispatch: tracing::dispatcher::get_default(tracing::Dispatch::clone),
        }
    }

    /// A prompt went to the CLI: its turn begins.
    pub(crate) fn turn_started(&self) {
        if self.session.is_disabled() {
            return;
        }
        let index = self
            .started
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        let turn = tracing::info_span!(
            target: TARGET,
            parent: &self.session,
            "turn",
            otel.name = "turn",
            gen_ai.operation.name = "invoke_agent",
            claude_tools.turn = index,
            gen_ai.conversation.id = tracing::field::Empty,
            gen_ai.usage.input_tokens = tracing::field::Empty,
            gen_ai.usage.output_tokens = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
        );
        self.lock().push_back(turn);
    }

    /// A `result` came: the oldest turn ends, described by it.
    pub(crate) fn turn_ended(&self, result: &Value) {
        if self.session.is_disabled() {
            return;
        }
        let Some(turn) = self.lock().pop_front() else {
            return;
        };
        if let Some(session_id) = result.get("session_id").and_then(Value::as_str) {
            turn.record("gen_ai.conversation.id", session_id);
        }
        let usage = result.get("usage");
        for (field, key) in [
            ("gen_ai.usage.input_tokens", "input_tokens"),
            ("gen_ai.usage.output_tokens", "output_tokens"),
        ] {
            if let Some(tokens) = usage
                .and_then(|usage| usage.get(key))
                .and_then(Value::as_u64)
            {
                turn.record(field, tokens);
            }
        }
        if result.get("is_error").and_then(Value::as_bool) == Some(true) {
            let subtype = result.get("subtype").and_then(Value::as_str);
            turn.record("error.type", subtype.unwrap_or("error"));
            turn.record("otel.status_code", "error");
        }
    }

    /// The span of a control request of the CLI, beneath the turn it serves.
    // Inline: on every request of the CLI; the parent is looked up only when the span is wanted.
    #[inline]
    pub(crate) fn control_request(&self, subtype: &str, request_id: &str) -> Span {
        tracing::info_span!(
            target: TARGET,
            parent: &self.current_parent(),
            "control_request",
            otel.name = subtype,
            claude_tools.control.subtype = subtype,
            claude_tools.control.request_id = request_id,
        )
    }

    fn current_parent(&self) -> Span {
        self.lock()
            .front()
            .cloned()
            .unwrap_or_else(|| self.session.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Span>> {
        // Single pushes and pops: a panic cannot leave the queue inconsistent.
        self.turns
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The current span's OpenTelemetry context as the CLI's `TRACEPARENT` and `TRACESTATE`
/// (cargo feature `opentelemetry`): `None` when there is no current span, no OpenTelemetry
/// layer, or the span's context is not valid, so the CLI then starts traces of its own. The
/// `tracestate` is `None` when the context has no trace state.
///
/// The CLI continues this trace only with its own telemetry on
/// (`CLAUDE_CODE_ENABLE_TELEMETRY=1`, `OTEL_TRACES_EXPORTER`…: the guide's "Running in
/// production" chapter).
#[cfg(feature = "opentelemetry")]
pub fn current_trace_context() -> Option<(String, Option<String>)> {
    use opentelemetry::trace::TraceContextExt;
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let current = Span::current();
    if current.is_disabled() {
        return None;
    }
    let context = current.context();
    claude_tools_core::telemetry::w3c::headers(context.span().span_context())
}

/// Puts the host's trace context ([`current_trace_context`]) into the CLI's environment,
/// unless the application set `TRACEPARENT` or `TRACESTATE` itself: `TRACEPARENT`, and
/// `TRACESTATE` when there is one, else an inherited `TRACESTATE` is removed (it would belong
/// to another trace).
#[cfg(feature = "opentelemetry")]
pub(crate) fn inject_trace_context(
    set_by_user: &[(String, String)],
    env: &mut Vec<(String, String)>,
    env_remove: &mut Vec<String>,
) {
    let named = |wanted: &str| {
        set_by_user
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(wanted))
    };
    if named("TRACEPARENT") || named("TRACESTATE") {
        return;
    }
    let Some((traceparent, tracestate)) = current_trace_context() else {
        return;
    };
    env.push(("TRACEPARENT".to_owned(), traceparent));
    match tracestate {
        Some(tracestate) => env.push(("TRACESTATE".to_owned(), tracestate)),
        None => env_remove.push("TRACESTATE".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing::Subscriber;
    use tracing::span::Id;
    use tracing_subscriber::layer::{Context, SubscriberExt};
    use tracing_subscriber::registry::LookupSpan;

    use super::*;

    /// Records the names of the spans that close, in order.
    #[derive(Clone, Default)]
    struct Closed(Arc<Mutex<Vec<String>>>);

    impl<S: Subscriber + for<'a> LookupSpan<'a>> tracing_subscriber::Layer<S> for Closed {
        fn on_close(&self, id: Id, ctx: Context<'_, S>) {
            if let Some(span) = ctx.span(&id) {
                self.0.lock().unwrap().push(span.name().to_owned());
            }
        }
    }

    #[test]
    fn the_hosts_span_closes_when_the_session_ends_on_another_thread() {
        let closed = Closed::default();
        let _default =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(closed.clone()));
        let host = tracing::info_span!("host request");
        let spans = host.in_scope(|| SessionSpans::start(None));
        spans.turn_started();
        drop(host);
        // The session's last holder is a thread where the host's subscriber is not the
        // default, as the session's reading thread is once it is done.
        std::thread::spawn(move || drop(spans)).join().unwrap();
        assert_eq!(
            *closed.0.lock().unwrap(),
            ["turn", "invoke_agent", "host request"]
        );
    }
}
