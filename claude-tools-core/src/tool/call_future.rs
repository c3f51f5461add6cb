//! [`CallFuture`]: a running tool call, which turns a handler panic into an `isError` result
//! showing the panic's message or, across a process or network boundary, hiding it
//! ([`PanicDetail`]).

use std::future::Future;
use std::hash::{BuildHasher, RandomState};
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock};
use std::task::{Context, Poll};

use tracing::Span;

use super::result::ToolResult;
use crate::catch_unwind::CatchUnwind;
use crate::telemetry;

/// What the client reads of a tool handler's panic. Either way the call gets one `isError`
/// result (the model reads it and goes on), and the panic's message is logged (`tracing`, level
/// `error`, with the tool and an incident id).
///
/// A panic message can hold what the server must not hand out: a connection string, a path, a
/// customer's data. [`McpRouter`](crate::mcp::McpRouter) shows it by default, as the host's own
/// session needs (the model works for the process it runs in); the stdio and Streamable HTTP
/// servers hide it by default.
///
/// ```
/// use claude_tools::mcp::{McpRouter, Message, PanicDetail};
/// use claude_tools::tools::{ToolDefBuilder, ToolServer};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = ToolServer::new("demo", "1.0.0")
///     .with_tool(ToolDefBuilder::new("boom"), |_call| async {
///         panic!("cannot reach postgres://app:hunter2@db");
///         #[allow(unreachable_code)]
///         ""
///     })
///     .unwrap();
/// let router = McpRouter::new(server).with_panic_detail(PanicDetail::Hidden);
/// let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"boom"}}"#;
/// let answer = router.handle(Message::decode(call)).await.unwrap().to_json();
/// assert!(answer.contains("failed with an internal error (incident "));
/// assert!(!answer.contains("hunter2"));
/// # });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PanicDetail {
    /// `` tool `name` panicked: <message> ``.
    #[default]
    Shown,
    /// `` tool `name` failed with an internal error (incident <id>); the server's log has the
    /// details ``: the incident id is the one logged beside the message.
    Hidden,
}

/// A running tool call that turns a handler panic into an `isError` result.
pub(crate) struct CallFuture {
    pub(super) tool: Arc<str>,
    pub(super) inner: CatchUnwind<dyn Future<Output = ToolResult> + Send + 'static>,
    pub(super) panic_detail: PanicDetail,
    /// The handler panicked (its result is the `isError` result saying so): a task reports
    /// this as `failed`, not `completed`.
    pub(super) panicked: bool,
    /// The call's span ([`crate::telemetry`]), entered whenever the handler is polled;
    /// [`Span::none`] when no subscriber wants it.
    pub(super) span: Span,
}

impl CallFuture {
    /// What the result of a panic says ([`PanicDetail::Shown`] unless set).
    pub(crate) fn set_panic_detail(&mut self, detail: PanicDetail) {
        self.panic_detail = detail;
    }

    /// Whether the handler panicked (once the future is ready).
    pub(crate) fn panicked(&self) -> bool {
        self.panicked
    }

    /// Runs the handler in `span` (see [`crate::telemetry`]).
    pub(crate) fn set_span(&mut self, span: Span) {
        self.span = span;
    }

    /// The call's span.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }
}

impl Future for CallFuture {
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let this = &mut *self;
        let _entered = this.span.enter();
        match Pin::new(&mut this.inner).poll(cx) {
            Poll::Ready(Ok(result)) => {
                if result.is_error {
                    telemetry::record_error(&this.span, telemetry::TOOL_ERROR);
                }
                Poll::Ready(result)
            }
            Poll::Ready(Err(panic)) => {
                this.panicked = true;
                telemetry::record_error(&this.span, telemetry::PANIC);
                let incident = incident_id();
                tracing::error!(tool = %this.tool, %incident, %panic, "a tool handler panicked");
                let tool = &this.tool;
                Poll::Ready(ToolResult::error(match this.panic_detail {
                    PanicDetail::Shown => format!("tool `{tool}` panicked: {panic}"),
                    PanicDetail::Hidden => format!(
                        "tool `{tool}` failed with an internal error (incident {incident}); \
                         the server's log has the details"
                    ),
                }))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// An id that tells one panic from the others in the logs: 32 random bits per process (from
/// the standard library's randomly keyed hasher) and a counter, 16 hex digits.
pub(crate) fn incident_id() -> String {
    static PROCESS: LazyLock<u32> = LazyLock::new(|| RandomState::new().hash_one(0u8) as u32);
    static COUNT: AtomicU32 = AtomicU32::new(0);
    let count = COUNT.fetch_add(1, Ordering::Relaxed);
    format!("{:08x}{count:08x}", *PROCESS)
}

#[cfg(test)]
mod tests {
    use super::incident_id;

    #[test]
    fn incident_ids_differ_and_share_the_process_part() {
        let (a, b) = (incident_id(), incident_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 16);
        assert_eq!(a[..8], b[..8]);
    }
}
