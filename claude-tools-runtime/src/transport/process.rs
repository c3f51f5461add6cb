//! The Claude Code CLI as a child process: spawn, stderr capture, exit detection, and its
//! process group ended on drop. Which executable to run is [`CliSearch`]'s business.

use std::fmt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::watch;
use tokio::time::Sleep;
use tokio_util::sync::{CancellationToken, WaitForCancellationFutureOwned};

mod stderr;

use stderr::{StderrCallback, Tail, lock, pump_stderr};

#[cfg(unix)]
use super::mobile::reading_thread;
use super::{BoxFuture, Connection, ExitInfo, LaunchSpec, ProcessHandle, Transport};

#[cfg(not(unix))]
fn reading_thread() -> u64 {
    0
}
use crate::error::{Error, Result};

pub use super::discover::{CliSearch, find_cli};
pub use crate::cli::{CLI_PATH_ENV, CLI_VERSION, CliVersionSupport, OLDEST_CLI_VERSION};

/// How long the exit report waits for stderr to reach its end after the process exited: the
/// pipe itself ends [`PIPE_GRACE`] after the exit; this bounds a slow stderr callback.
const STDERR_GRACE: Duration = Duration::from_secs(2);
/// How long stdout and stderr may still deliver once the process has exited and the pipe is
/// empty: a grandchild holding a pipe must not keep the session waiting for as long as it lives.
const PIPE_GRACE: Duration = Duration::from_millis(500);
/// How long the process group gets between `SIGTERM` and `SIGKILL`.
const TERM_GRACE: Duration = Duration::from_secs(2);

/// A callback for each line the CLI writes to stderr.
pub type StderrLineCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// Launches the CLI as a child process.
///
/// The executable is [`LaunchSpec::cli_path`] if set, else what [`CliSearch`] finds. The process is
/// started without a shell, with piped stdin, stdout and stderr, the inherited environment plus
/// [`LaunchSpec::env`] minus [`LaunchSpec::env_remove`] (and always minus `CLAUDECODE`, which makes
/// the CLI believe it runs nested in another Claude Code). Each stderr line is logged at debug
/// level (target `claude_tools::cli_stderr`), kept in a bounded tail for error reports (the last
/// 50 lines, at most 8 KiB) and passed to the optional callback.
///
/// The process's end is detected from the process itself, not from its pipes: once it has
/// exited, its stdout and stderr deliver what is buffered and end within 500 ms even if a grandchild
/// still holds the pipe. On Unix the CLI runs in a process group of its own, and that group is
/// ended when the CLI ends, on its own or killed (`SIGTERM`, then `SIGKILL` 2 s later), so no
/// grandchild (a shell command, a stdio MCP server) is left behind. [`ProcessHandle::kill`] and
/// dropping the handle end the group the same way; the CLI is always reaped. (In its own group,
/// the CLI does not receive a terminal's Ctrl-C; it ends when the host's end of its stdin
/// closes.)
///
/// The process, its stdin and stderr pipes and its reaping live on one I/O thread for the whole
/// process (a current-thread tokio runtime that runs nothing of the application's), and a
/// session reads its stdout on a thread of the session's own: nothing the application's
/// handlers do on its runtime can keep them from being served. The stderr callback runs in a
/// task on the runtime `connect` is called from.
///
/// Must be connected from within a tokio runtime.
#[derive(Clone, Default)]
pub struct ProcessTransport {
    search: Option<CliSearch>,
    stderr: Option<StderrLineCallback>,
    #[cfg(feature = "install")]
    installer: Option<crate::install::Installer>,
    #[cfg(unix)]
    user: Option<String>,
}

impl fmt::Debug for ProcessTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessTransport")
            .field("search", &self.search)
            .field("stderr", &self.stderr.as_ref().map(|_| "Fn(&str)"))
            .finish_non_exhaustive()
    }
}

impl ProcessTransport {
    /// Discovers the CLI from this process's environment ([`CliSearch::from_env`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Searches `search` instead of this process's environment.
    pub fn with_search(mut self, search: CliSearch) -> Self {
        self.search = Some(search);
        self
    }

    /// When the search finds no CLI, installs one with `installer` and runs that (feature
    /// `install`; see [`Options::install_cli_if_missing`](crate::options::Options::install_cli_if_missing)).
    /// Not when the launch names the CLI or `CLAUDE_CODE_CLI` does: those are final.
    #[cfg(feature = "install")]
    pub fn install_if_missing(mut self, installer: crate::install::Installer) -> Self {
        self.installer = Some(installer);
        self
    }

    /// Calls `callback` with each line the CLI writes to stderr (without its line ending). A
    /// panicking callback is logged and does not stop the capture.
    pub fn stderr_callback(mut self, callback: StderrLineCallback) -> Self {
        self.stderr = Some(callback);
        self
    }

    /// Runs the CLI as the OS user `name` (Unix): its user id and primary group, resolved from
    /// the user database (`getpwnam_r`) when the transport connects. An unknown name fails the
    /// connection with [`Error::UnknownUser`] before anything is started; a user this process
    /// may not switch to (switching needs root or `CAP_SETUID`) fails it with
    /// [`Error::Spawn`]. Only the ids change: the environment (`HOME` among it) is this
    /// process's plus the launch's, and the CLI must be able to read its executable and the
    /// working directory as that user. See [`Options::user`](crate::options::Options::user).
    ///
    /// ```no_run
    /// # async fn demo() -> claude_tools_runtime::Result<()> {
    /// use claude_tools_runtime::transport::{LaunchSpec, ProcessTransport, Transport};
    ///
    /// let transport = ProcessTransport::new().run_as_user("claude-runner");
    /// let connection = Box::new(transport).connect(LaunchSpec::default()).await?;
    /// # drop(connection);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(unix)]
    pub fn run_as_user(mut self, name: impl Into<String>) -> Self {
        self.user = Some(name.into());
        self
    }
}

impl Transport for ProcessTransport {
    fn connect(self: Box<Self>, launch: LaunchSpec) -> BoxFuture<'static, Result<Connection>> {
        Box::pin(async move {
            let ProcessTransport {
                search,
                stderr,
                #[cfg(feature = "install")]
                installer,
                #[cfg(unix)]
                user,
            } = *self;
            // The user database may be a network source (NSS): looked up off the runtime.
            #[cfg(unix)]
            let user = match user {
                Some(name) => Some(
                    tokio::task::spawn_blocking(move || super::os_user::OsUser::lookup(&name))
                        .await
                        .map_err(|e| Error::Io(std::io::Error::other(e)))??,
                ),
                None => None,
            };
            #[cfg(not(unix))]
            let user = None;
            let explicit = launch.cli_path.clone();
            let path = tokio::task::spawn_blocking(move || {
                let search = search.unwrap_or_else(CliSearch::from_env);
                let found = search.find(explicit.as_deref());
                #[cfg(feature = "install")]
                if let (Err(Error::CliNotFound { .. }), Some(installer), None, None) =
                    (&found, installer, &explicit, &search.env_cli)
                {
                    tracing::info!("no Claude Code CLI found: installing it");
                    let installed = installer.install()?;
                    tracing::info!(cli = %installed.executable.display(), "installed the Claude Code CLI");
                    return Ok(installed.executable);
                }
                found
            })
            .await
            .map_err(|e| Error::Io(std::io::Error::other(e)))??;
            // The stderr callback is the application's code: it runs on the application's
            // runtime, never on the I/O thread that every session shares.
            let stderr = stderr.map(|callback| StderrCallback::start(callback));
            // The process, its pipes, its reaper and its stderr pump live on the I/O thread,
            // whose driver nothing of the application's can hold up.
            super::io_thread::within(|| spawn(path, &launch, user, stderr))
        })
    }
}

/// The OS user a process is started as.
#[cfg(unix)]
type RunAs = super::os_user::OsUser;
/// No OS user switch where there is no `uid`/`gid` to set.
#[cfg(not(unix))]
type RunAs = std::convert::Infallible;

/// Starts `path` as described by `launch`, as `user` when one is given.
fn spawn(
    path: PathBuf,
    launch: &LaunchSpec,
    user: Option<RunAs>,
    callback: Option<StderrCallback>,
) -> Result<Connection> {
    if let Some(cwd) = &launch.cwd
        && !cwd.is_dir()
    {
        return Err(Error::InvalidOptions(format!(
            "the working directory {} is not a directory",
            cwd.display()
        )));
    }
    let mut command = Command::new(&path);
    command
        .args(&launch.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // A group of its own, so that its grandchildren can be ended with it.
    #[cfg(unix)]
    command.process_group(0);
    // The group first in the child (std sets it before the user id, and drops root's
    // supplementary groups when it switches from root).
    #[cfg(unix)]
    if let Some(user) = &user {
        command.uid(user.uid).gid(user.gid);
    }
    #[cfg(not(unix))]
    let _ = user;
    for name in &launch.env_remove {
        command.env_remove(name);
    }
    command.envs(launch.env.iter().map(|(name, value)| (name, value)));
    command.env_remove("CLAUDECODE");
    if let Some(cwd) = &launch.cwd {
        command.current_dir(cwd);
    }
    // Names only: values may be credentials, and arguments may carry MCP headers.
    tracing::debug!(
        cli = %path.display(),
        args = launch.args.len(),
        env = ?launch.env.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(),
        env_remove = ?launch.env_remove,
        cwd = ?launch.cwd,
        "starting the Claude Code CLI"
    );
    let mut child = command.spawn().map_err(|source| Error::Spawn {
        path: path.clone(),
        source,
    })?;
    let pid = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        // Cannot happen: all three were asked to be piped. The child is killed on drop.
        return Err(Error::Protocol {
            message: "the CLI's pipes were not set up".into(),
            request: None,
        });
    };
    tracing::debug!(pid, "the Claude Code CLI started");

    let exited = CancellationToken::new();
    let tail = Arc::new(Mutex::new(Tail::default()));
    let stderr = EndsAfterExit::new(stderr, &exited);
    let pump = tokio::spawn(pump_stderr(stderr, Arc::clone(&tail), callback));
    let kill = CancellationToken::new();
    let (exit_tx, exit_rx) = watch::channel(None);
    let reaper = Reaper {
        group: ProcessGroup::of(pid),
        pump,
        kill: kill.clone(),
        exited: exited.clone(),
        tail: Arc::clone(&tail),
        exit: exit_tx,
    };
    tokio::spawn(reaper.run(child));

    // On Unix, stdout registers with the driver of whichever thread reads the session (see
    // `mobile`), so that a quick tool call is read and answered on one thread, with no hop.
    #[cfg(unix)]
    let stdout = super::mobile::MobilePipe::new(stdout.into_owned_fd()?);
    Ok(Connection {
        reader: Box::pin(EndsAfterExit::new(stdout, &exited)),
        writer: Box::pin(Stdin(Some(stdin))),
        process: Box::new(ChildProcess {
            pid,
            exited,
            kill,
            exit: exit_rx,
            tail,
        }),
    })
}

/// The CLI's stdin: shutting it down closes the pipe (as dropping it does), so the CLI sees the
/// end of its input.
struct Stdin(Option<ChildStdin>);

impl Stdin {
    fn open(&mut self) -> std::io::Result<Pin<&mut ChildStdin>> {
        match &mut self.0 {
            Some(stdin) => Ok(Pin::new(stdin)),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the CLI's stdin is closed",
            )),
        }
    }
}

impl AsyncWrite for Stdin {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.open()?.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        self.open()?.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.0.as_ref().is_some_and(AsyncWrite::is_write_vectored)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match &mut self.0 {
            Some(stdin) => Pin::new(stdin).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if let Some(stdin) = &mut self.0 {
            std::task::ready!(Pin::new(stdin).poll_flush(cx))?;
        }
        self.0 = None;
        Poll::Ready(Ok(()))
    }
}

/// One of the CLI's output pipes, ended a short grace after the process exited even if the pipe
/// is still held open (by a grandchild that inherited it).
struct EndsAfterExit<R> {
    inner: R,
    /// Ready once the process has exited.
    exited: Pin<Box<WaitForCancellationFutureOwned>>,
    /// Started when the pipe is empty after the exit; its end is the end of input. With the
    /// mark of the thread whose runtime's timer holds it: a session moved to another reading
    /// thread starts it again there, for what is left of it.
    grace: Option<(u64, Pin<Box<Sleep>>)>,
}

impl<R> EndsAfterExit<R> {
    fn new(inner: R, exited: &CancellationToken) -> Self {
        Self {
            inner,
            exited: Box::pin(exited.clone().cancelled_owned()),
            grace: None,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for EndsAfterExit<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        if let Some((thread, grace)) = &mut this.grace {
            let here = reading_thread();
            if *thread != here {
                *grace = Box::pin(tokio::time::sleep_until(grace.deadline()));
                *thread = here;
            }
            if grace.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Ok(()));
            }
        }
        if let Poll::Ready(read) = Pin::new(&mut this.inner).poll_read(cx, buf) {
            return Poll::Ready(read);
        }
        // Nothing to read now. Once the process has exited, only a grandchild can write more.
        if this.grace.is_none() && this.exited.as_mut().poll(cx).is_ready() {
            tracing::debug!(
                "the Claude Code CLI exited and a pipe of its is still open; ending it after {PIPE_GRACE:?}"
            );
            let mut grace = Box::pin(tokio::time::sleep(PIPE_GRACE));
            if grace.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Ok(()));
            }
            this.grace = Some((reading_thread(), grace));
        }
        Poll::Pending
    }
}

/// The CLI's process group (Unix): ended with the CLI, so nothing it started is left behind.
/// Dropped before that (its runtime shut down), it kills the group at once.
struct ProcessGroup {
    #[cfg(unix)]
    id: Option<i32>,
}

impl ProcessGroup {
    fn of(pid: Option<u32>) -> Self {
        #[cfg(unix)]
        {
            Self {
                id: pid
                    .and_then(|pid| i32::try_from(pid).ok())
                    .filter(|id| *id > 0),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = pid;
            Self {}
        }
    }

    /// Asks every process of the group to end (`SIGTERM`).
    fn terminate(&self) {
        #[cfg(unix)]
        self.signal(libc::SIGTERM);
    }

    /// Kills every process of the group (`SIGKILL`) and forgets the group.
    fn kill(&mut self) {
        #[cfg(unix)]
        {
            self.signal(libc::SIGKILL);
            self.id = None;
        }
    }

    #[cfg(unix)]
    fn signal(&self, signal: i32) {
        if let Some(id) = self.id {
            // SAFETY: kill(2) takes no pointers. The group id cannot have been reused: the group
            // is signalled while its leader is unreaped, or soon after while members remain.
            // ESRCH (the group is empty) is the expected outcome once everything has ended.
            unsafe {
                libc::kill(-id, signal);
            }
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Waits for the child (ending its group when asked), publishes how it ended, then ends
/// whatever is left of its group.
struct Reaper {
    group: ProcessGroup,
    pump: tokio::task::JoinHandle<()>,
    kill: CancellationToken,
    exited: CancellationToken,
    tail: Arc<Mutex<Tail>>,
    exit: watch::Sender<Option<ExitInfo>>,
}

impl Reaper {
    async fn run(mut self, mut child: Child) {
        let status = tokio::select! {
            status = child.wait() => status,
            () = self.kill.cancelled() => self.end(&mut child).await,
        };
        self.exited.cancel();
        let terminated = tokio::time::Instant::now();
        // Grandchildren still in the group are asked to end now and killed after the grace.
        self.group.terminate();
        let (code, signal) = match status {
            Ok(status) => {
                tracing::debug!(%status, "the Claude Code CLI exited");
                (status.code(), exit_signal(&status))
            }
            Err(error) => {
                tracing::warn!(%error, "could not wait for the Claude Code CLI");
                (None, None)
            }
        };
        // Let the stderr pump drain what the process wrote last.
        let abort = self.pump.abort_handle();
        if tokio::time::timeout(STDERR_GRACE, &mut self.pump)
            .await
            .is_err()
        {
            abort.abort();
        }
        let stderr_tail = lock(&self.tail).text();
        self.exit.send_replace(Some(ExitInfo {
            code,
            signal,
            stderr_tail,
        }));
        tokio::time::sleep_until(terminated + TERM_GRACE).await;
        self.group.kill();
    }

    /// Ends the child and its group: `SIGTERM`, then `SIGKILL` after the grace.
    async fn end(&mut self, child: &mut Child) -> std::io::Result<std::process::ExitStatus> {
        #[cfg(unix)]
        self.group.terminate();
        #[cfg(not(unix))]
        let _ = child.start_kill();
        if let Ok(status) = tokio::time::timeout(TERM_GRACE, child.wait()).await {
            return status;
        }
        tracing::debug!("the Claude Code CLI ignored SIGTERM; killing it");
        self.group.kill();
        // Fails only when it has exited already, which `wait` then reports.
        let _ = child.start_kill();
        child.wait().await
    }
}

#[cfg(unix)]
fn exit_signal(status: &std::process::ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn exit_signal(_status: &std::process::ExitStatus) -> Option<i32> {
    None
}

/// The [`ProcessHandle`] of a spawned CLI.
struct ChildProcess {
    pid: Option<u32>,
    /// Fired by the reaper as soon as the child has exited.
    exited: CancellationToken,
    kill: CancellationToken,
    exit: watch::Receiver<Option<ExitInfo>>,
    tail: Arc<Mutex<Tail>>,
}

impl ProcessHandle for ChildProcess {
    fn wait(&mut self) -> BoxFuture<'_, ExitInfo> {
        Box::pin(async move {
            match self.exit.wait_for(Option::is_some).await {
                Ok(exit) => exit.clone().unwrap_or_default(),
                // The reaper is gone (its runtime shut down): the child was killed on drop.
                Err(_) => ExitInfo {
                    code: None,
                    signal: None,
                    stderr_tail: lock(&self.tail).text(),
                },
            }
        })
    }

    fn kill(&mut self) {
        if self.exit.borrow().is_none() {
            tracing::debug!(pid = self.pid, "killing the Claude Code CLI");
            self.kill.cancel();
        }
    }

    fn stderr_tail(&self) -> String {
        lock(&self.tail).text()
    }

    fn exit_signal(&self) -> Option<CancellationToken> {
        Some(self.exited.clone())
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        // The reaper ends it and its group (if it still runs) and waits for it: no zombie.
        self.kill.cancel();
    }
}
