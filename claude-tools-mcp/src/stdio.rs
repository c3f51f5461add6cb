//! Serving a [`ToolServer`] as a standalone MCP server over a byte stream: stdin/stdout for
//! [`ServeExt::serve_stdio`](crate::ServeExt::serve_stdio), any `AsyncRead`/`AsyncWrite` pair
//! for [`serve`].
//!
//! The wire is MCP's stdio transport: one JSON-RPC message per line, UTF-8, no embedded
//! newlines. Each line is read by the same decoder ([`Message::decode`]) and answered by the
//! same [`McpRouter`] as in-process, so the same bytes get the same answer; what differs is
//! what plain JSON-RPC wants and the CLI's control protocol does not:
//!
//! - a notification (no `id`) gets **no** reply, and a message that is itself a response (no
//!   `method`, a `result` or an `error`) is handed to the tool waiting for it (a question asked
//!   with `ToolContext::elicit`, `create_message` or `list_roots`, written out as a request
//!   line), or ignored when none waits; a message that is not JSON-RPC is answered
//!   its `-32600` or `-32700` at once;
//! - every request runs in a task of its own, so `tools/call`s run concurrently and their
//!   replies go out as they finish, in any order;
//! - `notifications/cancelled` fires the call's cancellation token and the cancelled request is
//!   **not** answered, as the MCP cancellation rules ask (the handler keeps its
//!   [`CANCEL_GRACE`](claude_tools_core::mcp::CANCEL_GRACE) in the background);
//! - a `tools/call` with `params._meta.progressToken` has its
//!   [`ToolContext::report_progress`](claude_tools_core::tool::ToolContext::report_progress) written out as
//!   `notifications/progress`, always before the call's result;
//! - a line that is not JSON (or holds a number out of a 64-bit float's range outside its id) is answered
//!   `-32700 "Parse error"` with the message's `id` when it can still be read, so the client
//!   can tell which request failed, else with `id: null`, and the server reads on; blank lines
//!   are skipped; a line longer than [`Serve::max_line_size`] is skipped without being held in
//!   memory and answered `-32600 "Invalid Request"` with `id: null`;
//! - a reply carries its request's `id` exactly as it came ([`RequestId`](claude_tools_core::mcp::RequestId)):
//!   an integer past `u64` or a number like `1.50` is not rewritten;
//! - a tool handler that panics gets an `isError` result that does not carry the panic's
//!   message (it may hold a password or a customer's data) but an incident id, logged at level
//!   `error` with the message; [`Serve::panic_detail`] can send the message instead;
//! - an MCP 2026-07-28 `subscriptions/listen` opens a listen stream on the same output: its
//!   acknowledgement, then the notifications it asked for, each with the listen request's id as
//!   its `subscriptionId`; `notifications/cancelled` naming that id closes it (nothing more is
//!   sent for it); at most [`MAX_STDIO_LISTEN_STREAMS`] are open at once (one more is answered
//!   `-32000` with its id);
//! - at end of input a tool still waiting for the client's answer gets `AskError::Closed`, the
//!   listen streams close; the server stops reading, lets the calls still running finish and
//!   answer for up to [`Serve::shutdown_grace`], cancels the rest, flushes and returns `Ok(())`.
//!
//! Which MCP revision the process speaks is chosen by its first request: `initialize` for the
//! 2025 era, a request carrying 2026-07-28 `_meta` for the stateless one (`server/discover`, a
//! client's probe, is answered either way and chooses nothing); a request of the other era
//! afterwards is refused (see `claude_tools_core::mcp`'s revision rules).
//!
//! The writer carries protocol only: nothing else is ever written to it. Diagnostics go through
//! `tracing` (a binary serving on stdout should send its subscriber to stderr).

use std::collections::HashMap;
use std::future::{Future, IntoFuture};
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use claude_tools_core::mcp::{
    ErrorCode, ErrorObject, McpRouter, Message, Notification, PanicDetail, Request, RequestId,
    RequestsToClient, Response, ServerNotification, ToolServerHandle,
};
use claude_tools_core::ndjson::{DEFAULT_MAX_LINE_SIZE, LineReader, ReadError};
use claude_tools_core::tool::ToolServer;

/// The most listen streams (MCP 2026-07-28 `subscriptions/listen`) one stdio client holds open.
pub const MAX_STDIO_LISTEN_STREAMS: usize = 64;

/// How long [`serve`] lets running calls finish after the end of input, unless
/// [`Serve::shutdown_grace`] says otherwise.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Serves `server` as an MCP server over `reader` (client → server) and `writer`
/// (server → client), one JSON-RPC message per line; see the [module docs](self).
///
/// Await the returned [`Serve`] (it is [`IntoFuture`]); it resolves when `reader` reaches its
/// end and the shutdown is done, or with the I/O error that ended the connection.
///
/// ```
/// use claude_tools::mcp::stdio::serve;
/// use claude_tools::tools::{ToolDefBuilder, ToolServer};
/// use tokio::io::{AsyncReadExt, AsyncWriteExt};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = ToolServer::new("demo", "1.0.0")
///     .with_tool(ToolDefBuilder::new("hello"), |_call| async { "hi" })
///     .unwrap();
/// let (mut client, server_side) = tokio::io::duplex(4096);
/// let (from_client, to_client) = tokio::io::split(server_side);
/// let serving = tokio::spawn(serve(server, from_client, to_client).into_future());
///
/// client
///     .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"hello\"}}\n")
///     .await
///     .unwrap();
/// client.shutdown().await.unwrap(); // end of input: the server answers, then returns
/// let mut replies = String::new();
/// client.read_to_string(&mut replies).await.unwrap();
/// assert_eq!(
///     replies,
///     "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"isError\":false}}\n"
/// );
/// serving.await.unwrap().unwrap();
/// # });
/// ```
///
/// (`IntoFuture` is in the prelude since Rust 2021; `into_future()` is needed only to hand the
/// future to `tokio::spawn`.)
pub fn serve<R, W>(server: ToolServer, reader: R, writer: W) -> Serve<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    // One queue for replies and progress alike: a call's progress is queued before its result,
    // so it is written first.
    let (outbound, queued) = mpsc::unbounded_channel();
    let notifications = outbound.clone();
    let router = McpRouter::new(server)
        // Requests go out on stdout like notifications, and the client's answers come in on
        // stdin like its requests.
        .with_requests_to_client(RequestsToClient::sent())
        .with_listen(true)
        .with_notifier(Arc::new(move |notification| {
            let _ = notifications.send(Outbound::Notification(notification));
        }));
    Serve {
        router,
        outbound,
        queued,
        reader,
        writer,
        shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        max_line_size: DEFAULT_MAX_LINE_SIZE,
        panic_detail: PanicDetail::Hidden,
    }
}

/// A [`ToolServer`] about to be served over a byte stream, made by [`serve`] or
/// [`ServeExt::serve_stdio`](crate::ServeExt::serve_stdio). Await it to run the server.
#[must_use = "a Serve does nothing until it is awaited"]
pub struct Serve<R, W> {
    router: McpRouter,
    outbound: mpsc::UnboundedSender<Outbound>,
    queued: mpsc::UnboundedReceiver<Outbound>,
    reader: R,
    writer: W,
    shutdown_grace: Duration,
    max_line_size: usize,
    panic_detail: PanicDetail,
}

impl<R, W> Serve<R, W> {
    /// A handle to change the tools, prompts and resources served while the server runs
    /// ([`ToolServerHandle`]): each change goes to the client as
    /// `notifications/tools/list_changed` (and the like), on its listen streams at MCP
    /// 2026-07-28, or unasked to a 2025 client; a resource's update
    /// ([`ToolServerHandle::resource_updated`]) to those that follow it.
    pub fn tool_server_handle(&self) -> ToolServerHandle {
        self.router.tool_server_handle()
    }

    /// How long calls still running at the end of input may go on to answer before they are
    /// cancelled ([`DEFAULT_SHUTDOWN_GRACE`] unless set).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.shutdown_grace = grace;
        self
    }

    /// The cap on one incoming line, in bytes, newline included (default
    /// [`DEFAULT_MAX_LINE_SIZE`], 64 MiB). A longer line is dropped as it streams in, never held
    /// whole, and answered `-32600` with `id: null`; the next line is read as usual.
    pub fn max_line_size(mut self, bytes: usize) -> Self {
        self.max_line_size = bytes;
        self
    }

    /// What the client reads when a tool handler panics (default [`PanicDetail::Hidden`]: a
    /// generic `isError` result with an incident id, the panic's message logged beside that id
    /// at level `error`; [`PanicDetail::Shown`] sends the message itself, for a client that is
    /// the server's own developer).
    pub fn panic_detail(mut self, detail: PanicDetail) -> Self {
        self.panic_detail = detail;
        self
    }
}

impl<R, W> std::fmt::Debug for Serve<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serve")
            .field("server", &self.router.server())
            .field("shutdown_grace", &self.shutdown_grace)
            .field("max_line_size", &self.max_line_size)
            .field("panic_detail", &self.panic_detail)
            .finish_non_exhaustive()
    }
}

impl<R, W> IntoFuture for Serve<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Output = io::Result<()>;
    type IntoFuture = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(run(self))
    }
}

/// What goes out on the writer, in the order it was queued.
enum Outbound {
    /// An answer to a request (or to a message that is not one).
    Response(Response),
    /// A server → client notification (`notifications/progress`), or a request of a running
    /// tool's (`elicitation/create`, …).
    Notification(ServerNotification),
    /// A message of a listen stream, written already.
    Listen(Vec<u8>),
}

/// The open listen streams, by the id of the request that opened them.
#[derive(Default)]
struct Listens {
    open: HashMap<RequestId, tokio::task::AbortHandle>,
    tasks: JoinSet<()>,
}

async fn run<R, W>(serve: Serve<R, W>) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let Serve {
        router,
        outbound,
        mut queued,
        reader,
        writer,
        shutdown_grace,
        max_line_size,
        panic_detail,
    } = serve;
    let router = router.with_panic_detail(panic_detail);
    // The runtime's framing, as for the CLI's stdout. Its cap counts a line without its line
    // ending; this one counts the newline too (`Serve::max_line_size`).
    let mut reader = LineReader::with_max_line_size(reader, max_line_size.saturating_sub(1));
    let mut writer = LineWriter { inner: writer };
    let mut calls = JoinSet::new();
    let mut listens = Listens::default();

    loop {
        tokio::select! {
            biased;
            Some(message) = queued.recv() => {
                // A list change goes unasked only to a 2025 client; a 2026-07-28 one hears of
                // it on the listen streams that asked.
                if !matches!(&message, Outbound::Notification(n) if !router.wants(n)) {
                    writer.write(message).await?;
                }
            }
            Some(joined) = calls.join_next(), if !calls.is_empty() => note_panic(joined),
            Some(_) = listens.tasks.join_next(), if !listens.tasks.is_empty() => {}
            // `next_line` is cancel safe: a line half read stays in the reader.
            line = reader.next_line() => match line {
                Ok(Some(line)) => {
                    if let Some(invalid) = dispatch(Message::decode(line), &router, &outbound, &mut calls, &mut listens).await {
                        writer.write(invalid).await?;
                    }
                }
                Ok(None) => break,
                Err(ReadError::LineTooLong { size, .. }) => {
                    // `size` leaves the newline out; the cap and the reply count it.
                    writer.write(too_long(size + 1, max_line_size)).await?;
                }
                Err(error) => {
                    router.cancel_all();
                    return Err(match error {
                        ReadError::Io(error) => error,
                        other => io::Error::other(other),
                    });
                }
            },
        }
    }

    tracing::debug!(
        running = calls.len(),
        "MCP stdio: end of input, finishing the running calls"
    );
    // No answer to a tool's question can come any more, and no one listens.
    router.end_requests_to_client();
    listens.tasks.abort_all();
    listens.open.clear();
    let deadline = tokio::time::sleep(shutdown_grace);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            biased;
            Some(message) = queued.recv() => writer.write(message).await?,
            joined = calls.join_next() => match joined {
                Some(joined) => note_panic(joined),
                None => break,
            },
            () = &mut deadline => {
                tracing::debug!(running = calls.len(), "MCP stdio: shutdown grace over, cancelling");
                router.cancel_all();
                calls.shutdown().await;
                break;
            }
        }
    }
    while let Ok(message) = queued.try_recv() {
        writer.write(message).await?;
    }
    writer.inner.flush().await
}

fn too_long(skipped: usize, cap: usize) -> Outbound {
    tracing::debug!(skipped, cap, "MCP stdio: a line over the cap was dropped");
    Outbound::Response(Response::error(
        None,
        ErrorObject::invalid_request(format!(
            "a message of {skipped} bytes is over the {cap}-byte line cap"
        )),
    ))
}

/// Routes one message: a request runs in a task of its own and queues its answer; anything else
/// is the router's at once and in order (so a cancellation takes effect before the next line is
/// read), and its answer, if it has one (an invalid line's), is returned for the caller to write
/// at once.
async fn dispatch(
    message: Message,
    router: &McpRouter,
    outbound: &mpsc::UnboundedSender<Outbound>,
    calls: &mut JoinSet<()>,
    listens: &mut Listens,
) -> Option<Outbound> {
    let message = match message {
        Message::Request(request) if request.method() == "subscriptions/listen" => {
            return listen(request, router, outbound, listens);
        }
        // A cancellation naming a listen stream closes it.
        Message::Notification(Notification::Cancelled {
            request_id: Some(id),
            ..
        }) if listens.open.contains_key(&id) => {
            if let Some(stream) = listens.open.remove(&id) {
                stream.abort();
            }
            return None;
        }
        message => message,
    };
    if let Message::Request(_) = message {
        let router = router.clone();
        let outbound = outbound.clone();
        calls.spawn(async move {
            let Some(response) = router.handle(message).await else {
                return;
            };
            if response.is_cancelled() {
                // MCP: the receiver of a cancellation does not answer the cancelled request.
                return;
            }
            let _ = outbound.send(Outbound::Response(response));
        });
        return None;
    }
    // Not a request: the router answers (or not) without waiting for any handler.
    router.handle(message).await.map(Outbound::Response)
}

/// Opens the listen stream `request` asks for, in a task that writes its messages; or the
/// answer that refuses it.
fn listen(
    request: Request,
    router: &McpRouter,
    outbound: &mpsc::UnboundedSender<Outbound>,
    listens: &mut Listens,
) -> Option<Outbound> {
    listens.open.retain(|_, task| !task.is_finished());
    let id = request.id.clone();
    if listens.open.contains_key(&id) {
        return Some(Outbound::Response(Response::error(
            Some(id),
            ErrorObject::invalid_request("a listen stream with this id is open"),
        )));
    }
    if listens.open.len() >= MAX_STDIO_LISTEN_STREAMS {
        return Some(Outbound::Response(Response::error(
            Some(id),
            ErrorObject::new(ErrorCode(-32000), "Too many listen streams").with_data(format!(
                "a stdio client holds at most {MAX_STDIO_LISTEN_STREAMS} listen streams; close one first"
            )),
        )));
    }
    let mut stream = match router.listen(request) {
        Ok(stream) => stream,
        Err(refusal) => return Some(Outbound::Response(*refusal)),
    };
    let outbound = outbound.clone();
    let task = listens.tasks.spawn(async move {
        let acknowledgement = serde_json::to_vec(&stream.acknowledgement()).unwrap_or_default();
        if outbound.send(Outbound::Listen(acknowledgement)).is_err() {
            return;
        }
        loop {
            let notification = stream.next().await;
            let message = serde_json::to_vec(&stream.message(&notification)).unwrap_or_default();
            if outbound.send(Outbound::Listen(message)).is_err() {
                return;
            }
        }
    });
    listens.open.insert(id, task);
    None
}

fn note_panic(joined: Result<(), tokio::task::JoinError>) {
    // The router catches handler panics; a task can only fail here if the router itself did.
    if let Err(error) = joined
        && error.is_panic()
    {
        tracing::error!(%error, "MCP stdio: a request task panicked");
    }
}

/// Writes one message per line and flushes it, so a client waiting on it sees it at once.
struct LineWriter<W> {
    inner: W,
}

impl<W: AsyncWrite + Unpin> LineWriter<W> {
    async fn write(&mut self, message: Outbound) -> io::Result<()> {
        let mut line = Vec::with_capacity(256);
        match &message {
            Outbound::Response(response) => response.write_to(&mut line),
            // A notification's numbers are finite or `null`, its keys strings: it serialises.
            Outbound::Notification(notification) => {
                let _ = serde_json::to_writer(&mut line, notification);
            }
            Outbound::Listen(message) => line.extend_from_slice(message),
        }
        line.push(b'\n');
        self.inner.write_all(&line).await?;
        self.inner.flush().await
    }
}
