//! An in-memory transport: the CLI's side of the pipes is a [`MemoryCli`] held by a test or an
//! embedder, and no process is started.
//!
//! ```
//! # use claude_tools::transport::{LaunchSpec, Transport, memory::MemoryTransport};
//! # use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> claude_tools::Result<()> {
//! let (transport, mut cli) = MemoryTransport::pair();
//! let launch = LaunchSpec { args: vec!["--verbose".into()], ..LaunchSpec::default() };
//! let mut conn = Box::new(transport).connect(launch).await?;
//! assert_eq!(cli.launch_spec().unwrap().args, ["--verbose"]);
//!
//! conn.writer.write_all(b"{\"type\":\"user\"}\n").await?;
//! assert_eq!(cli.next_line().await?.as_deref(), Some("{\"type\":\"user\"}"));
//!
//! cli.write_line("{\"type\":\"result\"}").await?;
//! let mut stdout = BufReader::new(conn.reader);
//! let mut line = String::new();
//! stdout.read_line(&mut line).await?;
//! assert_eq!(line, "{\"type\":\"result\"}\n");
//!
//! cli.exit(3);
//! assert_eq!(conn.process.wait().await.code, Some(3));
//! # Ok(())
//! # }
//! ```

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, DuplexStream, ReadBuf};
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

use super::{BoxFuture, Connection, ExitInfo, LaunchSpec, ProcessHandle, Transport};
use crate::error::{Error, Result};
use claude_tools_core::ndjson::LineReader;

/// Bytes each pipe holds before a writer waits for the reader.
const PIPE_CAPACITY: usize = 8 * 1024 * 1024;

/// What both ends share.
#[derive(Debug)]
struct PipeState {
    launch: watch::Sender<Option<LaunchSpec>>,
    exit: watch::Sender<Option<ExitInfo>>,
    stderr: Mutex<String>,
    killed: CancellationToken,
}

impl PipeState {
    fn stderr_tail(&self) -> String {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Records how the "process" ended, unless it already has.
    fn set_exit(&self, code: Option<i32>) {
        let stderr_tail = self.stderr_tail();
        self.exit.send_if_modified(|exit| {
            if exit.is_some() {
                return false;
            }
            *exit = Some(ExitInfo {
                code,
                signal: None,
                stderr_tail,
            });
            true
        });
    }
}

/// The host's side: a [`Transport`] whose "CLI" is the paired [`MemoryCli`].
#[derive(Debug)]
pub struct MemoryTransport {
    /// The host's end of the CLI's stdout.
    stdout: DuplexStream,
    /// The host's end of the CLI's stdin.
    stdin: DuplexStream,
    shared: Arc<PipeState>,
}

/// The CLI's side of a [`MemoryTransport`]: reads what the host writes to the CLI's stdin and
/// writes what the CLI would print on stdout.
///
/// Dropping it (or [`close`](Self::close), [`exit`](Self::exit)) simulates the CLI exiting: the
/// host reads end of input, its writes fail, and [`ProcessHandle::wait`] returns the exit code
/// (0 unless set otherwise). With the `test-util` feature, a test also scripts what the CLI
/// wrote to stderr, its exit code or signal, and sees whether the host killed it.
#[derive(Debug)]
pub struct MemoryCli {
    stdin: LineReader<DuplexStream>,
    stdout: DuplexStream,
    shared: Arc<PipeState>,
    launch: watch::Receiver<Option<LaunchSpec>>,
    exit_code: Option<i32>,
}

impl MemoryTransport {
    /// A connected pair: the transport to hand to a session and the CLI end to script.
    pub fn pair() -> (MemoryTransport, MemoryCli) {
        // One pipe per direction, so that each end can be closed on its own.
        let (host_stdin, cli_stdin) = tokio::io::duplex(PIPE_CAPACITY);
        let (host_stdout, cli_stdout) = tokio::io::duplex(PIPE_CAPACITY);
        let (launch, launch_rx) = watch::channel(None);
        let shared = Arc::new(PipeState {
            launch,
            exit: watch::channel(None).0,
            stderr: Mutex::new(String::new()),
            killed: CancellationToken::new(),
        });
        let cli = MemoryCli {
            stdin: LineReader::new(cli_stdin),
            stdout: cli_stdout,
            shared: Arc::clone(&shared),
            launch: launch_rx,
            exit_code: Some(0),
        };
        (
            MemoryTransport {
                stdout: host_stdout,
                stdin: host_stdin,
                shared,
            },
            cli,
        )
    }
}

impl Transport for MemoryTransport {
    fn connect(self: Box<Self>, launch: LaunchSpec) -> BoxFuture<'static, Result<Connection>> {
        Box::pin(async move {
            let MemoryTransport {
                stdout,
                stdin,
                shared,
            } = *self;
            shared.launch.send_replace(Some(launch));
            Ok(Connection {
                reader: Box::pin(HostReader {
                    inner: stdout,
                    killed: Box::pin(shared.killed.clone().cancelled_owned()),
                    token: shared.killed.clone(),
                }),
                writer: Box::pin(HostWriter {
                    inner: stdin,
                    killed: Box::pin(shared.killed.clone().cancelled_owned()),
                    token: shared.killed.clone(),
                }),
                process: Box::new(MemoryProcess {
                    exit: shared.exit.subscribe(),
                    shared,
                }),
            })
        })
    }
}

impl MemoryCli {
    /// The launch the host connected with, once it has connected.
    pub fn launch_spec(&self) -> Option<LaunchSpec> {
        self.launch.borrow().clone()
    }

    /// Waits until the host has connected and returns its launch.
    pub async fn connected(&mut self) -> LaunchSpec {
        match self.launch.wait_for(Option::is_some).await {
            Ok(spec) => spec.clone().unwrap_or_default(),
            // The sender lives in `shared`, which `self` holds: it cannot be gone.
            Err(_) => LaunchSpec::default(),
        }
    }

    /// The next line the host wrote to stdin (blank lines skipped); `None` once the host closed
    /// stdin or killed the process.
    pub async fn next_line(&mut self) -> Result<Option<String>> {
        let killed = self.shared.killed.clone();
        tokio::select! {
            biased;
            () = killed.cancelled() => Ok(None),
            line = self.stdin.next_line() => match line? {
                None => Ok(None),
                Some(bytes) => String::from_utf8(bytes.to_vec()).map(Some).map_err(|e| {
                    Error::Protocol { message: format!("the host wrote a line that is not UTF-8: {e}"), request: None }
                }),
            },
        }
    }

    /// The next line the host wrote, parsed as JSON; `None` as for [`next_line`](Self::next_line).
    pub async fn next_json(&mut self) -> Result<Option<Value>> {
        match self.next_line().await? {
            None => Ok(None),
            Some(line) => serde_json::from_str(&line)
                .map(Some)
                .map_err(|e| Error::json(line.as_bytes(), e)),
        }
    }

    /// Writes `line` and a newline to the host's stdout reader.
    pub async fn write_line(&mut self, line: &str) -> Result<()> {
        let mut framed = Vec::with_capacity(line.len() + 1);
        framed.extend_from_slice(line.as_bytes());
        framed.push(b'\n');
        self.write_raw(&framed).await
    }

    /// Writes `value` as one JSON line.
    pub async fn write_json(&mut self, value: &Value) -> Result<()> {
        let mut framed = serde_json::to_vec(value).map_err(|e| Error::Protocol {
            message: format!("cannot serialize: {e}"),
            request: None,
        })?;
        framed.push(b'\n');
        self.write_raw(&framed).await
    }

    /// Writes bytes as they are (no newline added), e.g. to split a line across writes.
    pub async fn write_raw(&mut self, bytes: &[u8]) -> Result<()> {
        if self.shared.killed.is_cancelled() {
            return Err(Error::Io(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the process was killed",
            )));
        }
        self.stdout.write_all(bytes).await?;
        self.stdout.flush().await?;
        Ok(())
    }

    #[cfg(any(test, feature = "test-util"))]
    /// Appends one line to what [`ProcessHandle::stderr_tail`] reports.
    pub fn write_stderr(&self, line: &str) {
        let mut stderr = self
            .shared
            .stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if !stderr.is_empty() {
            stderr.push('\n');
        }
        stderr.push_str(line);
    }

    #[cfg(any(test, feature = "test-util"))]
    /// Sets the exit code reported when this end is closed or dropped (`None`: killed by a
    /// signal). The default is `Some(0)`.
    pub fn set_exit_code(&mut self, code: Option<i32>) {
        self.exit_code = code;
    }

    #[cfg(any(test, feature = "test-util"))]
    /// Whether the host killed the process.
    pub fn is_killed(&self) -> bool {
        self.shared.killed.is_cancelled()
    }

    #[cfg(any(test, feature = "test-util"))]
    /// Waits until the host kills the process.
    pub async fn killed(&self) {
        self.shared.killed.cancelled().await;
    }

    /// Simulates the CLI exiting, with code 0 unless scripted otherwise (`test-util`).
    pub fn close(self) {
        drop(self);
    }

    /// Simulates the CLI exiting with `code`.
    pub fn exit(mut self, code: i32) {
        self.exit_code = Some(code);
        drop(self);
    }
}

impl Drop for MemoryCli {
    fn drop(&mut self) {
        // The pipes close when the fields drop, right after this.
        self.shared.set_exit(self.exit_code);
    }
}

/// The [`ProcessHandle`] of a memory connection.
#[derive(Debug)]
struct MemoryProcess {
    shared: Arc<PipeState>,
    exit: watch::Receiver<Option<ExitInfo>>,
}

impl ProcessHandle for MemoryProcess {
    fn wait(&mut self) -> BoxFuture<'_, ExitInfo> {
        Box::pin(async move {
            match self.exit.wait_for(Option::is_some).await {
                Ok(exit) => exit.clone().unwrap_or_default(),
                Err(_) => ExitInfo {
                    code: None,
                    signal: None,
                    stderr_tail: self.shared.stderr_tail(),
                },
            }
        })
    }

    fn kill(&mut self) {
        if self.shared.exit.borrow().is_none() {
            self.shared.killed.cancel();
            self.shared.set_exit(None);
        }
    }

    fn stderr_tail(&self) -> String {
        self.shared.stderr_tail()
    }

    fn in_process(&self) -> bool {
        true
    }
}

/// The host's stdout reader: end of input once the process is killed.
struct HostReader {
    inner: DuplexStream,
    killed: Pin<Box<WaitForCancellationFutureOwned>>,
    token: CancellationToken,
}

impl AsyncRead for HostReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.token.is_cancelled() || self.killed.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

/// The host's stdin writer: broken pipe once the process is killed.
struct HostWriter {
    inner: DuplexStream,
    killed: Pin<Box<WaitForCancellationFutureOwned>>,
    token: CancellationToken,
}

impl HostWriter {
    fn check(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if self.token.is_cancelled() || self.killed.as_mut().poll(cx).is_ready() {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the process was killed",
            ));
        }
        Ok(())
    }
}

impl AsyncWrite for HostWriter {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.check(cx)?;
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.check(cx)?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    fn launch() -> LaunchSpec {
        LaunchSpec {
            args: vec!["--output-format".into(), "stream-json".into()],
            env: vec![("A".into(), "1".into())],
            env_remove: vec!["B".into()],
            ..LaunchSpec::default()
        }
    }

    #[tokio::test]
    async fn records_the_launch_and_carries_lines_both_ways() {
        let (transport, mut cli) = MemoryTransport::pair();
        assert_eq!(cli.launch_spec(), None);
        let mut conn = Box::new(transport).connect(launch()).await.unwrap();
        assert_eq!(cli.connected().await, launch());
        assert_eq!(cli.launch_spec(), Some(launch()));

        conn.writer
            .write_all(b"{\"type\":\"user\"}\n\n{\"n\":")
            .await
            .unwrap();
        conn.writer.write_all(b"2}\r\n").await.unwrap();
        assert_eq!(cli.next_json().await.unwrap(), Some(json!({"type":"user"})));
        assert_eq!(cli.next_line().await.unwrap().as_deref(), Some("{\"n\":2}"));

        cli.write_json(&json!({"type":"result"})).await.unwrap();
        cli.write_raw(b"{\"a\"").await.unwrap();
        cli.write_line(":1}").await.unwrap();
        let mut stdout = LineReader::new(conn.reader);
        assert_eq!(
            stdout.next_line().await.unwrap(),
            Some(&b"{\"type\":\"result\"}"[..])
        );
        assert_eq!(stdout.next_line().await.unwrap(), Some(&b"{\"a\":1}"[..]));

        // Closing stdin is end of input for the CLI.
        drop(conn.writer);
        assert_eq!(cli.next_line().await.unwrap(), None);
    }

    #[tokio::test]
    async fn exit_reports_code_and_stderr_and_closes_stdout() {
        let (transport, cli) = MemoryTransport::pair();
        let mut conn = Box::new(transport).connect(launch()).await.unwrap();
        cli.write_stderr("first");
        cli.write_stderr("second");
        assert_eq!(conn.process.stderr_tail(), "first\nsecond");
        cli.exit(2);
        let mut rest = Vec::new();
        conn.reader.read_to_end(&mut rest).await.unwrap();
        assert!(rest.is_empty());
        assert!(conn.writer.write_all(b"x\n").await.is_err());
        assert_eq!(
            conn.process.wait().await,
            ExitInfo {
                code: Some(2),
                signal: None,
                stderr_tail: "first\nsecond".into()
            }
        );
        // Killing after the exit changes nothing.
        conn.process.kill();
        assert_eq!(conn.process.wait().await.code, Some(2));
    }

    #[tokio::test]
    async fn drop_and_close_exit_with_the_set_code() {
        let (transport, cli) = MemoryTransport::pair();
        let mut conn = Box::new(transport).connect(launch()).await.unwrap();
        drop(cli);
        assert_eq!(
            conn.process.wait().await,
            ExitInfo {
                code: Some(0),
                signal: None,
                stderr_tail: String::new()
            }
        );

        let (transport, mut cli) = MemoryTransport::pair();
        let mut conn = Box::new(transport).connect(launch()).await.unwrap();
        cli.set_exit_code(None);
        cli.close();
        assert_eq!(conn.process.wait().await.code, None);
    }

    #[tokio::test]
    async fn kill_ends_both_directions() {
        let (transport, mut cli) = MemoryTransport::pair();
        let mut conn = Box::new(transport).connect(launch()).await.unwrap();
        assert!(!cli.is_killed());
        let reading = tokio::spawn(async move {
            let mut buf = Vec::new();
            conn.reader.read_to_end(&mut buf).await.map(|_| buf)
        });
        conn.process.kill();
        cli.killed().await;
        assert!(cli.is_killed());
        assert_eq!(reading.await.unwrap().unwrap(), Vec::<u8>::new());
        assert!(conn.writer.write_all(b"late\n").await.is_err());
        assert_eq!(cli.next_line().await.unwrap(), None);
        assert!(cli.write_line("{}").await.is_err());
        assert_eq!(conn.process.wait().await.code, None);
        // Dropping the CLI end afterwards keeps the killed status.
        drop(cli);
        assert_eq!(conn.process.wait().await.code, None);
    }
}
