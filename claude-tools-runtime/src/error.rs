//! The one error type of the runtime.

use std::path::PathBuf;
use std::time::Duration;

/// Everything that can go wrong while driving the Claude Code CLI.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CLI executable was not found.
    #[error(
        "Claude Code CLI not found; looked in: {}. Install it with `npm install @anthropic-ai/claude-code@<version>` \
         (or set CLAUDE_CODE_CLI / Options::cli_path)",
        searched.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
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
    #[error("protocol error: {message}")]
    Protocol {
        /// What was wrong.
        message: String,
    },
    /// A line from the CLI was not valid JSON.
    #[error("invalid JSON from the CLI ({source}): {line}")]
    Json {
        /// The offending line, truncated.
        line: String,
        /// The parse error.
        #[source]
        source: serde_json::Error,
    },
    /// A line from the CLI exceeded the configured cap.
    #[error(
        "a line from the CLI exceeded the maximum line size of {limit} bytes (Options::max_line_size)"
    )]
    LineTooLong {
        /// The cap in bytes.
        limit: usize,
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
    /// The session is closed.
    #[error("the session is closed")]
    Closed,
    /// An I/O error on the CLI's pipes.
    #[error("I/O error talking to the CLI: {0}")]
    Io(#[from] std::io::Error),
    /// The options are inconsistent.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
}

/// `Result<T, claude_tools_runtime::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// A JSON error carrying at most 1 KiB of the offending line.
    pub fn json(line: &[u8], source: serde_json::Error) -> Self {
        const KEEP: usize = 1024;
        let text = String::from_utf8_lossy(&line[..line.len().min(KEEP)]).into_owned();
        let line = if line.len() > KEEP {
            format!("{text}… ({} bytes)", line.len())
        } else {
            text
        };
        Error::Json { line, source }
    }
}
