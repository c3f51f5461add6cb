//! What can go wrong reading or changing session history.

use std::path::PathBuf;

/// An error of the [session history](super) functions.
///
/// Reading is lenient where the CLI's own files are concerned: a malformed line, a line a
/// running session has not finished writing, or an unreadable subagent metadata file is
/// skipped, not an error. What is an error is a request that cannot be answered: an id that is
/// not a UUID, a session that is not there, or the file system refusing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    /// The session id is not a UUID (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`). Ids are checked
    /// before any path is built from them, so that no id can reach outside the projects folder.
    #[error("invalid session id {0:?}: a session id is a UUID")]
    InvalidSessionId(String),
    /// A message id given to [`fork_session`](super::fork_session) is not a UUID.
    #[error("invalid message id {0:?}: a message id is a UUID")]
    InvalidMessageId(String),
    /// A subagent id is empty or not a plain name.
    #[error("invalid subagent id {0:?}")]
    InvalidAgentId(String),
    /// No non-empty transcript of the session was found.
    #[error("session {session_id} not found in {}", searched.display())]
    SessionNotFound {
        /// The session looked for.
        session_id: String,
        /// The projects folder searched, or the project's folder in it when a `dir` was given.
        searched: PathBuf,
    },
    /// The session has no subagent transcript with this id.
    #[error("subagent {agent_id} of session {session_id} not found")]
    SubagentNotFound {
        /// The session.
        session_id: String,
        /// The subagent looked for.
        agent_id: String,
    },
    /// The message to fork up to is not in the session's transcript.
    #[error("message {message_id} not found in session {session_id}")]
    MessageNotFound {
        /// The session.
        session_id: String,
        /// The message looked for.
        message_id: String,
    },
    /// The session's transcript has no conversation message to fork.
    #[error("session {0} has no messages to fork")]
    NothingToFork(String),
    /// A title is empty (or only whitespace).
    #[error("a session title must not be empty")]
    EmptyTitle,
    /// A tag is empty once whitespace and invisible characters are removed (clear a tag with
    /// `None`).
    #[error("a session tag must not be empty (pass None to clear the tag)")]
    EmptyTag,
    /// Neither `CLAUDE_CONFIG_DIR` nor a home directory is set, and no config dir was given.
    #[error(
        "cannot find the Claude config dir: CLAUDE_CONFIG_DIR and HOME are unset (give one with `config_dir`)"
    )]
    NoConfigDir,
    /// The session store holds no transcript of the session (store-backed helpers,
    /// [`StoreSessions`](crate::session_store::StoreSessions)).
    #[error("session {session_id} not found in the session store (project {project_key})")]
    NotInStore {
        /// The session looked for.
        session_id: String,
        /// The project it was looked for in.
        project_key: String,
    },
    /// The session store failed: nothing of the answer is given.
    #[error("the session store failed to {operation}: {source}")]
    Store {
        /// The store operation (`load`, `list_sessions`…).
        operation: &'static str,
        /// Why.
        #[source]
        source: crate::session_store::StoreError,
    },
    /// The session store did not answer in time: nothing of the answer is given.
    #[error("the session store did not {operation} within {after:?}")]
    StoreTimeout {
        /// The store operation (`load`, `list_sessions`…).
        operation: &'static str,
        /// How long it was given.
        after: std::time::Duration,
    },
    /// The file system refused an operation.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done (`reading`, `appending to`…).
        action: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl HistoryError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        HistoryError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
