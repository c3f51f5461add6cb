//! The one error type of the runtime.

use std::path::PathBuf;
use std::time::Duration;

use claude_tools_core::ndjson::ReadError;

/// Everything that can go wrong while driving the Claude Code CLI.
///
/// # Fatal and survivable errors
///
/// On a [`MessageStream`](crate::stream::MessageStream) or from
/// [`Client::next_message`](crate::client::Client::next_message), an error is either the end of
/// the session or one bad item in it; [`Error::is_fatal`] tells which:
///
/// - **fatal** — the session cannot go on: [`ProcessExited`](Error::ProcessExited),
///   [`Closed`](Error::Closed), [`Io`](Error::Io) on the CLI's pipes, and the errors of starting
///   one ([`CliNotFound`](Error::CliNotFound), [`Spawn`](Error::Spawn), `Install` (feature
///   `install`),
///   [`InvalidOptions`](Error::InvalidOptions)). Nothing useful follows on the stream.
/// - **survivable** — one line or one request failed and the session goes on: a line that is
///   not JSON ([`Json`](Error::Json)), breaks the protocol ([`Protocol`](Error::Protocol)) or is
///   too long ([`LineTooLong`](Error::LineTooLong)); a control request the CLI refused
///   ([`Control`](Error::Control)) or did not answer in time ([`Timeout`](Error::Timeout)).
///   Log it and keep reading.
///
/// `Debug` prints the same text as `Display`, so `fn main() -> Result<(), Error>` shows the
/// helpful message (where the CLI was looked for, how to install it) rather than a struct dump.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CLI executable was not found. Its message says how to install one and how to name
    /// it, then lists where it looked (see
    /// [`CliSearch`](crate::transport::CliSearch) for the order).
    #[error("{}", cli_not_found(searched))]
    CliNotFound {
        /// Every place that was searched, in order.
        searched: Vec<PathBuf>,
    },
    /// The CLI could not be started.
    #[error("failed to start the Claude Code CLI at {path}: {source}")]
    Spawn {
        /// The executable.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The CLI exited while the session still needed it.
    #[error("the Claude Code CLI exited{}{}{}", code.map(|c| format!(" with code {c}")).unwrap_or_default(),
        signal.map(|s| format!(", killed by signal {s}")).unwrap_or_default(),
        if stderr_tail.is_empty() { String::new() } else { format!("; stderr: {stderr_tail}") })]
    ProcessExited {
        /// The exit code, if it exited normally.
        code: Option<i32>,
        /// The signal that ended it, if one did (Unix).
        signal: Option<i32>,
        /// The last lines the CLI wrote to stderr.
        stderr_tail: String,
    },
    /// The CLI sent something that breaks the protocol.
    #[error("protocol error{}: {message}", in_request(request))]
    Protocol {
        /// What was wrong.
        message: String,
        /// The control request it concerns, when one could be made out (it was answered with
        /// an error).
        request: Option<RequestRef>,
    },
    /// A line from the CLI was not valid JSON.
    #[error("invalid JSON from the CLI{} ({source}): {line}", in_request(request))]
    Json {
        /// The offending line, truncated.
        line: String,
        /// The parse error.
        #[source]
        source: serde_json::Error,
        /// The control request the line carried, when one could be made out (it was answered
        /// with an error).
        request: Option<RequestRef>,
    },
    /// A line from the CLI exceeded the configured cap; it was skipped.
    #[error(
        "a line of {size} bytes from the CLI{} exceeded the maximum line size of {limit} bytes \
         (Options::max_line_size)",
        in_request(request)
    )]
    LineTooLong {
        /// The cap in bytes.
        limit: usize,
        /// The line's size in bytes (without its line ending).
        size: usize,
        /// The control request the line carried, when its start showed one (it was answered
        /// with an error).
        request: Option<RequestRef>,
    },
    /// The CLI answered a control request with an error.
    #[error("the CLI refused `{subtype}`: {message}")]
    Control {
        /// The request subtype.
        subtype: String,
        /// The CLI's error text.
        message: String,
        /// The CLI's error code, when it sent one.
        code: Option<String>,
    },
    /// A control request got no answer in time.
    #[error("`{subtype}` got no answer within {timeout:?}")]
    Timeout {
        /// The request subtype.
        subtype: String,
        /// How long we waited.
        timeout: Duration,
    },
    /// The CLI did not confirm that it took the external MCP servers or settings sent in
    /// `initialize` ([`ConfigDelivery::Initialize`](crate::options::ConfigDelivery)), or that
    /// it honours a hook matcher's `onFailure: "block"`
    /// ([`HookMatcher::on_failure`](crate::hooks::HookMatcher::on_failure)): the session was
    /// ended rather than run without them.
    #[error(
        "the Claude Code CLI{} did not confirm the {} sent in its `initialize` request (a CLI \
         older than {} does not read them, and a wrapper that drops `--await-initialize` stops \
         it); the session was ended before any prompt was sent. {}",
        cli_version.as_deref().map(|v| format!(" {v}")).unwrap_or_default(),
        fields.join(" and "),
        crate::cli::OLDEST_CLI_VERSION,
        not_applied_remedy(fields)
    )]
    InitializeNotApplied {
        /// The fields not confirmed (`mcpServers`, `settings`, `managedSettings`, `plugins`,
        /// `onFailure`).
        fields: Vec<&'static str>,
        /// The CLI's version, as it reported it.
        cli_version: Option<String>,
    },
    /// The session is closed.
    #[error("the session is closed")]
    Closed,
    /// An I/O error on the CLI's pipes.
    #[error("I/O error talking to the CLI: {0}")]
    Io(#[from] std::io::Error),
    /// The options are inconsistent.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    /// The OS user the CLI should run as ([`Options::user`](crate::options::Options::user),
    /// Unix) is not in the user database, or the database could not be read; nothing was
    /// started.
    #[error("cannot run the Claude Code CLI as user {name:?}: {}", reason.as_deref().unwrap_or("no such user"))]
    UnknownUser {
        /// The name that was looked up.
        name: String,
        /// Why the lookup failed, when it was an error rather than no such user.
        reason: Option<String>,
    },
    /// A change to the session's in-process servers or their tools was refused (an unknown or
    /// taken name); nothing changed.
    #[error(transparent)]
    Live(#[from] claude_tools_core::mcp::LiveToolError),
    /// Resuming from the [session store](crate::options::Options::session_store) failed before
    /// the CLI started: the store failed or did not answer within the load timeout, or the
    /// transcript could not be written under the config dir.
    #[error("resuming session {session_id} from the session store: {message}")]
    SessionStore {
        /// The session being resumed.
        session_id: String,
        /// What failed.
        message: String,
    },
    /// [`Options::resume`](crate::options::Options::resume) named a session the
    /// [session store](crate::options::Options::session_store) has no transcript of, under the
    /// project key it was looked up by; the CLI was not started (resuming from a local
    /// transcript instead would quietly leave the store behind). Check the session id and the
    /// [`project_key`](crate::options::SessionStoreOptions::project_key), or start a new session.
    #[error(
        "resuming session {session_id}: the session store has no transcript of it under the \
         project key {project_key:?} (a wrong id, a session never mirrored to this store, or \
         another project key: see SessionStoreOptions::project_key)"
    )]
    SessionNotInStore {
        /// The session asked for.
        session_id: String,
        /// The project key it was looked up by.
        project_key: String,
    },
    /// No CLI was found and installing one
    /// ([`Options::install_cli_if_missing`](crate::options::Options::install_cli_if_missing))
    /// failed.
    #[cfg(feature = "install")]
    #[error("no Claude Code CLI was found, and installing one failed: {0}")]
    Install(#[from] crate::install::InstallError),
}

/// What to do about the fields of [`Error::InitializeNotApplied`].
fn not_applied_remedy(fields: &[&str]) -> &'static str {
    if fields.iter().all(|field| *field == "onFailure") {
        "Update the CLI, or remove `OnFailure::Block` from the hook matchers"
    } else if fields.iter().all(|field| *field == "plugins") {
        "Update the CLI, or set Options::plugin_delivery(PluginDelivery::Argv), which puts \
         them on the command line"
    } else {
        "Update the CLI, or set Options::config_delivery(ConfigDelivery::Argv), which puts \
         them on the command line where other local users can read them"
    }
}

/// `Result<T, claude_tools::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<ReadError> for Error {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::LineTooLong { limit, size } => Error::LineTooLong {
                limit,
                size,
                request: None,
            },
            ReadError::Io(error) => Error::Io(error),
            other => Error::Io(std::io::Error::other(other)),
        }
    }
}

impl Error {
    /// Whether the session cannot go on after this error (see [the type's docs](Error)).
    ///
    /// ```
    /// use claude_tools::Error;
    ///
    /// assert!(Error::Closed.is_fatal());
    /// let skipped = Error::LineTooLong { limit: 1024, size: 4096, request: None };
    /// assert!(!skipped.is_fatal());
    /// ```
    pub fn is_fatal(&self) -> bool {
        match self {
            Error::CliNotFound { .. }
            | Error::Spawn { .. }
            | Error::ProcessExited { .. }
            | Error::Closed
            | Error::Io(..)
            | Error::InvalidOptions(..)
            | Error::UnknownUser { .. }
            | Error::InitializeNotApplied { .. }
            | Error::SessionStore { .. }
            | Error::SessionNotInStore { .. } => true,
            #[cfg(feature = "install")]
            Error::Install(..) => true,
            Error::Protocol { .. }
            | Error::Json { .. }
            | Error::LineTooLong { .. }
            | Error::Control { .. }
            | Error::Timeout { .. }
            | Error::Live(..) => false,
        }
    }

    /// A JSON error carrying at most 1 KiB of the offending line.
    pub fn json(line: &[u8], source: serde_json::Error) -> Self {
        Self::json_in(line, source, None)
    }

    /// [`Error::json`] for a line that carried the control request `request`.
    pub(crate) fn json_in(
        line: &[u8],
        source: serde_json::Error,
        request: Option<RequestRef>,
    ) -> Self {
        const KEEP: usize = 1024;
        let text = String::from_utf8_lossy(&line[..line.len().min(KEEP)]).into_owned();
        let line = if line.len() > KEEP {
            format!("{text}… ({} bytes)", line.len())
        } else {
            text
        };
        Error::Json {
            line,
            source,
            request,
        }
    }
}

/// The control request a faulty line carried, as far as it could be read: enough to tell which
/// request of the CLI's failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RequestRef {
    /// Its `request_id`: a string id's text, or a number as it was written.
    pub request_id: String,
    /// Its `request.subtype` (`mcp_message`, `can_use_tool`…), when it could be read.
    pub subtype: Option<String>,
}

impl RequestRef {
    /// A reference to the request `request_id` of `subtype`.
    pub fn new(request_id: impl Into<String>, subtype: Option<String>) -> Self {
        Self {
            request_id: request_id.into(),
            subtype,
        }
    }
}

impl std::fmt::Display for RequestRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.subtype {
            Some(subtype) => write!(f, "`{subtype}` request {}", self.request_id),
            None => write!(f, "request {}", self.request_id),
        }
    }
}

/// What to do first (install, or name the executable), then every place looked at: the list
/// can be long, and a user acts on the first sentence.
fn cli_not_found(searched: &[PathBuf]) -> String {
    let version = crate::cli::CLI_VERSION;
    let places = searched
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "the Claude Code CLI was not found. Install it without npm (`cargo install claude-tools-cli`, \
         then `claude-tools install-cli`; or Options::install_cli_if_missing, feature `install`), \
         or with npm (`npm install -g @anthropic-ai/claude-code@{version}`, or into the project: \
         `npm install --prefix .cache/claude-cli @anthropic-ai/claude-code@{version}`), \
         or name the executable with the CLAUDE_CODE_CLI environment variable or Options::cli_path. \
         Looked in: {places}"
    )
}

/// ` (in `mcp_message` request r7)`, or nothing.
fn in_request(request: &Option<RequestRef>) -> String {
    request
        .as_ref()
        .map(|request| format!(" (in {request})"))
        .unwrap_or_default()
}

/// The `Display` text (with the causes it already names), so that a `main` returning this
/// error prints something a user can act on.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
