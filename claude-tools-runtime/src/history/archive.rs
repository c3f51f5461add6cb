//! Archiving a session (the TypeScript SDK's `archiveSession` / `unarchiveSession`): a mark in
//! `<project folder>/<session id>/archived.json` beside the transcript, as the CLI keeps it. The
//! transcript is not changed; a prompt sent in the session after the mark unarchives it.
//! Also here: which sessions are programmatic (started by an SDK or a daemon), which
//! [`ListSessions::include_programmatic`](super::ListSessions::include_programmatic) leaves
//! out.

use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use super::error::HistoryError;
use super::ids::{format_timestamp, is_uuid, parse_timestamp};
use super::lite::{Ends, first_field, last_field};
use super::options::Lookup;
use super::paths::find_session;

/// The mark's file name, in the session's own folder.
const MARK: &str = "archived.json";
/// A mark longer than this is not one (the CLI reads no more).
const MARK_LIMIT: u64 = 4096;
/// The entrypoints of the SDKs' sessions.
const SDK_ENTRYPOINTS: [&str; 3] = ["sdk-cli", "sdk-ts", "sdk-py"];

/// Archives a session: [`list_sessions`](super::list_sessions) and
/// [`session_info`](super::session_info) still return it, with
/// [`archived`](super::SessionInfo::archived) `Some(true)`, until it is unarchived or a prompt is
/// sent in it. Neither the transcript nor a process running the session is touched.
/// [`HistoryError::SessionNotFound`] when there is no transcript; session stores keep no such
/// mark (the TypeScript SDK refuses them too).
///
/// ```no_run
/// use claude_tools::sessions::{Lookup, archive_session};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// archive_session("550e8400-e29b-41d4-a716-446655440000", &Lookup::new().dir("/home/me/repo"))?;
/// # Ok(())
/// # }
/// ```
pub fn archive_session(session_id: &str, lookup: &Lookup) -> Result<(), HistoryError> {
    set_archived(session_id, lookup, true)
}

/// Unarchives a session: listed again with [`archived`](super::SessionInfo::archived)
/// `Some(false)`. As [`archive_session`] otherwise.
///
/// ```no_run
/// use claude_tools::sessions::{Lookup, unarchive_session};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// unarchive_session("550e8400-e29b-41d4-a716-446655440000", &Lookup::new())?;
/// # Ok(())
/// # }
/// ```
pub fn unarchive_session(session_id: &str, lookup: &Lookup) -> Result<(), HistoryError> {
    set_archived(session_id, lookup, false)
}

fn set_archived(session_id: &str, lookup: &Lookup, archived: bool) -> Result<(), HistoryError> {
    if !is_uuid(session_id) {
        return Err(HistoryError::InvalidSessionId(session_id.to_string()));
    }
    let (transcript, _) = find_session(lookup, session_id)?;
    let path = mark_path(&transcript, session_id);
    let record = serde_json::json!({
        "archived": archived,
        "at": format_timestamp(SystemTime::now()),
        "by": "sdk",
    });
    write_private(&path, record.to_string().as_bytes())
}

/// Where the mark of the session whose transcript is `transcript` is.
fn mark_path(transcript: &Path, session_id: &str) -> PathBuf {
    transcript
        .parent()
        .unwrap_or(Path::new("."))
        .join(session_id)
        .join(MARK)
}

/// Writes `bytes` to `path` (readable by this user only), whole or not at all: through a
/// temporary file renamed over it.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), HistoryError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(|error| HistoryError::io("creating", dir, error))?;
    let temporary = dir.join(format!(".{MARK}.{}", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(&temporary)
        .and_then(|mut file| file.write_all(bytes));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(HistoryError::io("writing", &temporary, error));
    }
    std::fs::rename(&temporary, path).map_err(|error| {
        let _ = std::fs::remove_file(&temporary);
        HistoryError::io("writing", path, error)
    })
}

/// Whether the session is archived, as listed: `None` when it never was (or the mark cannot
/// be read), `Some(false)` when it was unarchived or a prompt was sent in it after the mark.
pub(crate) fn archived(transcript: &Path, session_id: &str, ends: &Ends) -> Option<bool> {
    let (archived, at) = read_mark(&mark_path(transcript, session_id))?;
    if !archived {
        return Some(false);
    }
    let prompted =
        prompt_after(&ends.tail, at) || (ends.head != ends.tail && prompt_after(&ends.head, at));
    Some(!prompted)
}

/// The mark: whether it archives, and when it was set.
fn read_mark(path: &Path) -> Option<(bool, SystemTime)> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == ErrorKind::NotFound => return None,
        Err(_) => return None,
    };
    let mut text = String::new();
    file.take(MARK_LIMIT + 1).read_to_string(&mut text).ok()?;
    if text.len() as u64 > MARK_LIMIT {
        return None;
    }
    let record: Value = serde_json::from_str(&text).ok()?;
    let archived = record.get("archived")?.as_bool()?;
    let at = parse_timestamp(record.get("at")?.as_str()?)?;
    Some((archived, at))
}

/// Whether `text` (whole transcript lines) holds a prompt of a person sent after `at`: a user
/// message (or a queued one) that is not tool results, not meta and not from another sender,
/// with text or an attachment.
fn prompt_after(text: &str, at: SystemTime) -> bool {
    text.split('\n').any(|line| {
        if !(line.contains("\"user\"") || line.contains("\"queued_command\""))
            || line.contains("\"tool_result\"")
        {
            return false;
        }
        let Ok(Value::Object(entry)) = serde_json::from_str::<Value>(line) else {
            return false;
        };
        let (content, origin) = match entry.get("type").and_then(Value::as_str) {
            Some("user") => (
                entry.get("message").and_then(|m| m.get("content")),
                entry.get("origin"),
            ),
            Some("attachment") => {
                let attachment = entry.get("attachment");
                if attachment
                    .and_then(|a| a.get("type"))
                    .and_then(Value::as_str)
                    != Some("queued_command")
                {
                    return false;
                }
                (
                    attachment.and_then(|a| a.get("prompt")),
                    attachment.and_then(|a| a.get("origin")),
                )
            }
            _ => return false,
        };
        if entry.get("isMeta").and_then(Value::as_bool) == Some(true) {
            return false;
        }
        if let Some(origin) = origin
            && origin.get("kind").and_then(Value::as_str) != Some("human")
        {
            return false;
        }
        let typed = match content {
            Some(Value::String(text)) => !text.trim().is_empty(),
            Some(Value::Array(blocks)) => {
                blocks
                    .iter()
                    .any(|block| match block.get("type").and_then(Value::as_str) {
                        Some("text") => block
                            .get("text")
                            .and_then(Value::as_str)
                            .is_some_and(|text| !text.trim().is_empty()),
                        Some("image" | "document") => true,
                        _ => false,
                    })
            }
            _ => false,
        };
        typed
            && entry
                .get("timestamp")
                .and_then(Value::as_str)
                .and_then(parse_timestamp)
                .is_some_and(|sent| sent > at)
    })
}

/// Whether the session was started by an SDK (`entrypoint` `sdk-cli`, `sdk-ts`, `sdk-py`) or is
/// a daemon's (`sessionKind` `daemon`, `daemon-worker`).
pub(crate) fn is_programmatic(ends: &Ends) -> bool {
    let entrypoint =
        first_field(&ends.head, "entrypoint").or_else(|| last_field(&ends.tail, "entrypoint"));
    if entrypoint.is_some_and(|entrypoint| SDK_ENTRYPOINTS.contains(&entrypoint.as_str())) {
        return true;
    }
    let first_entry = ends
        .head
        .split('\n')
        .find(|line| line.contains("\"parentUuid\":"))
        .unwrap_or(&ends.head);
    matches!(
        first_field(first_entry, "sessionKind").as_deref(),
        Some("daemon" | "daemon-worker")
    )
}
