//! Naming the host's code that held its thread, and timing the polls of handlers that run in
//! tasks of their own.
//!
//! Nothing of the host's can hold up the session: its reading, writing and the CLI's process
//! live on threads of the session's own. What a blocking handler still takes is a worker of the
//! application's runtime; when every worker is blocked, nothing of the application runs (its
//! timers and I/O included), and the handlers that wait for a worker wait too. That cannot be
//! prevented from here, so it is reported: a handler that held its thread for
//! [`HELD_WARNING`] or more in one poll gets a warning that names it and says for how long.

use std::fmt;
use std::future::Future;
use std::time::{Duration, Instant};

use crate::protocol::CliRequest;
use claude_tools_core::mcp::{Call, Message, Request};

/// One poll at least this long is reported.
pub(super) const HELD_WARNING: Duration = Duration::from_millis(100);

/// The longest name a [`Label`] keeps (tool names are at most 64 characters in practice).
const NAME_MAX: usize = 64;

/// The host's code a request runs (a tool, the permission callback, a hook), named for a
/// warning. Copied out of the request before its first poll (which consumes it) with no
/// allocation: the hot path pays a copy of the tool's name.
#[derive(Clone)]
pub(super) struct Label {
    kind: &'static str,
    name: [u8; NAME_MAX],
    len: u8,
}

impl Label {
    fn new(kind: &'static str, name: &str) -> Self {
        let mut end = name.len().min(NAME_MAX);
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        let mut label = Label {
            kind,
            name: [0; NAME_MAX],
            len: end as u8,
        };
        label.name[..end].copy_from_slice(&name.as_bytes()[..end]);
        label
    }

    /// The tool `name`.
    pub(super) fn tool(name: &str) -> Self {
        Self::new("tool", name)
    }

    /// What `request` runs.
    pub(super) fn of(request: &CliRequest<'_>) -> Self {
        match request {
            CliRequest::Mcp {
                message:
                    Message::Request(Request {
                        call: Call::ToolsCall(call),
                        ..
                    }),
                ..
            } => Self::tool(&call.name),
            CliRequest::Mcp { server, .. } => Self::new("MCP request to server", server),
            CliRequest::CanUseTool(request) => Self::new(
                "permission callback (can_use_tool) for tool",
                &request.tool_name,
            ),
            CliRequest::HookCallback { callback_id, .. } => Self::new("hook", callback_id),
            CliRequest::Elicitation(_) => Self::new("elicitation callback", ""),
            CliRequest::UserDialog(_) => Self::new("user dialog callback", ""),
            CliRequest::Other { .. } => Self::new("control request", ""),
        }
    }

    fn name(&self) -> &str {
        // Cut at a character boundary in `new`.
        std::str::from_utf8(&self.name[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            "" => f.write_str(self.kind),
            name => write!(f, "{} `{name}`", self.kind),
        }
    }
}

/// Reports that `label` held its thread for `held` in one poll.
pub(super) fn report(label: &Label, held: Duration, place: &str) {
    if held < HELD_WARNING {
        tracing::debug!(handler = %label, ?held, "a handler held its thread {place}");
        return;
    }
    tracing::warn!(
        handler = %label,
        held_ms = held.as_millis() as u64,
        "the {label} held its thread for at least {held:?} in one poll ({place}). The session went on \
         meanwhile, but the thread was lost to the application: when every worker of the \
         runtime blocks, nothing else of the application runs. Blocking work belongs in \
         tokio::task::spawn_blocking (or tokio::task::block_in_place on a multi-thread runtime)"
    );
}

/// `answer`, each of its polls timed: one that holds its thread for [`HELD_WARNING`] or more
/// is reported, naming `label`. For the handlers that run in tasks of their own (the first poll
/// is watched by the watchdog instead).
pub(super) async fn timed<F: Future>(label: Label, answer: F) -> F::Output {
    let mut answer = std::pin::pin!(answer);
    std::future::poll_fn(|cx| {
        let start = Instant::now();
        let poll = answer.as_mut().poll(cx);
        let held = start.elapsed();
        if held >= HELD_WARNING {
            report(&label, held, "in its own task on the application's runtime");
        }
        poll
    })
    .await
}
