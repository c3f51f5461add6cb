//! Session history: the sessions the Claude Code CLI has recorded, listed, read as typed
//! [`Message`]s, renamed, tagged, forked and deleted — the official SDKs' `listSessions`,
//! `getSessionInfo`, `getSessionMessages`, `listSubagents`, `getSubagentMessages`,
//! `renameSession`, `tagSession`, `deleteSession`, `forkSession`, `archiveSession` and
//! `unarchiveSession`, reading and writing the
//! same files.
//!
//! # Where sessions are
//!
//! The CLI writes one transcript per session, a file of JSON lines, at
//! `<config dir>/projects/<project>/<session id>.jsonl`:
//!
//! - the config dir is the CLI's `CLAUDE_CONFIG_DIR`, else `~/.claude` (give another with
//!   [`Lookup::config_dir`] when your sessions run with their own, or take the working
//!   directory and config dir from the options they ran with: [`Lookup::from(&options)`]);
//! - `<project>` is the session's working directory with every character but ASCII letters
//!   and digits made `-` (`/home/me/repo` → `-home-me-repo`); a name longer than 200 is cut,
//!   and a hash of the path follows;
//! - a session's subagents write theirs under `<project>/<session id>/subagents/`.
//!
//! [`Lookup::from(&options)`]: Lookup#impl-From<%26Options>-for-Lookup
//!
//! Each function finds a session in the project of [`Lookup::dir`] (the working directory
//! the session ran in) and of its git worktrees, or, without a `dir`, in every project.
//!
//! # Reading files a session is writing
//!
//! Transcripts are append-only and may be read while a session writes them: a read sees the
//! file up to its last whole line (a line still being written is left out), skips a line that
//! is not JSON instead of failing, and treats an empty file as no session. A title or tag is a
//! line appended in one write, as the CLI appends its own, so renaming or tagging a running
//! session is safe.
//!
//! # Next to the official SDKs
//!
//! The files read and written, the order of sessions and messages, the summary and title
//! rules and the fork's rewriting are the SDKs'. Where Rust asks for more:
//!
//! - a session that is not there is [`HistoryError::SessionNotFound`] and an id that is not a
//!   UUID [`HistoryError::InvalidSessionId`], where the SDKs' readers give an empty list or
//!   nothing; [`session_info`] is `Ok(None)` where the SDKs give nothing for a transcript
//!   that is there (a subagent's, or one with no prompt yet);
//! - a `limit` of 0 is no messages (the SDKs read it as no limit);
//! - times are [`SystemTime`](std::time::SystemTime)s.
//!
//! Sessions held in a session store (the SDKs' `sessionStore`: transcripts mirrored into the
//! application's storage, set with
//! [`Options::session_store`](crate::options::Options::session_store)) are listed, read,
//! renamed, tagged, forked and deleted the same way, from any host, with
//! [`StoreSessions`](crate::session_store::StoreSessions);
//! [`import_session`](crate::session_store::import_session) copies a local session (and its
//! subagents) into a store. This module reads the transcripts under the config dir.
//!
//! Archiving ([`archive_session`], [`unarchive_session`], [`SessionInfo::archived`]) keeps the
//! CLI's mark beside the transcript, and [`ListSessions::include_programmatic`] leaves out the
//! SDKs' and daemons' sessions, as the TypeScript SDK does for local transcripts.
//!
//! Not here (yet): paths are not NFC-normalized first (the SDKs do, for macOS file systems that
//! decompose names), and tags lose invisible characters without NFKC normalization.
//!
//! # Sync, on purpose
//!
//! These functions do blocking file I/O: a listing reads at most 128 KiB of each transcript
//! (its two ends), reading messages one transcript. From async code, run them on the blocking
//! pool (`tokio::fs` would do the same, one call at a time):
//!
//! ```no_run
//! use claude_tools::sessions::{ListSessions, list_sessions};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let sessions =
//!     tokio::task::spawn_blocking(|| list_sessions(&ListSessions::new().limit(20))).await??;
//! # Ok(())
//! # }
//! ```
//!
//! # Example
//!
//! ```no_run
//! use claude_tools::sessions::{ListSessions, ReadMessages, list_sessions, session_messages};
//! use claude_tools::{Message, Options};
//!
//! # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
//! let project = "/home/me/repo";
//! let Some(latest) = list_sessions(&ListSessions::new().dir(project).limit(1))?.pop() else {
//!     return Ok(());
//! };
//! println!("{} — {}", latest.summary, latest.git_branch.as_deref().unwrap_or("-"));
//! for message in session_messages(&latest.session_id, &ReadMessages::new().dir(project))? {
//!     match &message {
//!         Message::User(user) => println!("user: {}", user.text()),
//!         Message::Assistant(assistant) => {
//!             for (_, tool, input) in assistant.tool_uses() {
//!                 println!("  called {tool} with {input}");
//!             }
//!             println!("assistant: {}", assistant.text());
//!         }
//!         _ => {}
//!     }
//! }
//! // Go on with it.
//! let options = Options::new().cwd(project).resume(&latest.session_id);
//! # Ok(())
//! # }
//! ```

mod archive;
mod error;
pub(crate) mod fork;
pub(crate) mod ids;
mod info;
pub(crate) mod lite;
pub(crate) mod mutate;
mod options;
pub(crate) mod paths;
pub(crate) mod subagents;
mod transcript;

pub use archive::{archive_session, unarchive_session};
pub use error::HistoryError;
pub use fork::fork_session;
pub use info::{SessionInfo, list_sessions, session_info};
pub use mutate::{delete_session, rename_session, tag_session};
pub use options::{ForkSession, ListSessions, Lookup, ReadMessages};
pub use subagents::{list_subagents, subagent_messages};

use crate::message::Message;
use ids::is_uuid;
use paths::find_session;
use transcript::{conversation, is_visible, linked, to_message};

/// A session's conversation, oldest first, as typed [`Message`]s: its user messages (prompts
/// and tool results) and assistant messages (text, tool calls — one content block per message,
/// as the CLI records them), in the shape the live stream gives them.
///
/// The conversation is the main thread's, walked back from its latest message: a branch the
/// user rewound from is left out, and so are subagents' messages (see
/// [`subagent_messages`]), meta lines and, unless
/// [`include_system_messages`](ReadMessages::include_system_messages), system lines; a turn
/// that called several tools at once is given whole. Each message's `session_id` and `tool_use_result` are the transcript's `sessionId`
/// and `toolUseResult`; the transcript's other fields (`parentUuid`, `timestamp`, `cwd`,
/// `gitBranch`…) are kept in the message's `extra`.
///
/// A session that is not there is [`HistoryError::SessionNotFound`].
///
/// ```no_run
/// use claude_tools::Message;
/// use claude_tools::sessions::{ReadMessages, session_messages};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// let id = "550e8400-e29b-41d4-a716-446655440000";
/// let messages = session_messages(id, &ReadMessages::new().dir("/home/me/repo"))?;
/// let tool_calls = messages
///     .iter()
///     .filter_map(Message::as_assistant)
///     .flat_map(|m| m.tool_uses().map(|(_, name, _)| name.to_string()))
///     .collect::<Vec<_>>();
/// println!("tools called: {tool_calls:?}");
/// # Ok(())
/// # }
/// ```
pub fn session_messages(
    session_id: &str,
    options: &ReadMessages,
) -> Result<Vec<Message>, HistoryError> {
    if !is_uuid(session_id) {
        return Err(HistoryError::InvalidSessionId(session_id.to_string()));
    }
    let (path, _) = find_session(&options.lookup, session_id)?;
    let content = match std::fs::read(&path) {
        Ok(content) => content,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(HistoryError::SessionNotFound {
                session_id: session_id.to_string(),
                searched: path,
            });
        }
        Err(error) => return Err(HistoryError::io("reading", path, error)),
    };
    Ok(messages_of(&content, options))
}

/// The page of the conversation in `content` (a transcript's bytes) that `options` asks for.
pub(crate) fn messages_of(content: &[u8], options: &ReadMessages) -> Vec<Message> {
    let entries = linked(content);
    let messages: Vec<Message> = conversation(&entries)
        .into_iter()
        .filter(|&i| is_visible(&entries[i], options.include_system_messages))
        .map(|i| to_message(entries[i].clone(), None, None))
        .collect();
    options::page(messages, options.offset, options.limit)
}
