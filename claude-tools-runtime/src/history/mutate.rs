//! Changing a session: a title or tag is a line appended to its transcript (as the CLI records
//! its own `/rename` and `/tag`: the last one wins); deleting removes the transcript and its
//! subagents' folder.

use std::fs::OpenOptions;
use std::io::{ErrorKind, Write};

use serde_json::{Map, Value};

use super::error::HistoryError;
use super::ids::is_uuid;
use super::options::Lookup;
use super::paths::{find_session, search};

fn check(session_id: &str) -> Result<(), HistoryError> {
    if is_uuid(session_id) {
        Ok(())
    } else {
        Err(HistoryError::InvalidSessionId(session_id.to_string()))
    }
}

/// Appends `line` (one JSON object, `type` first) to the session's transcript, in one write
/// at the end of the file (`O_APPEND`): safe while the CLI is writing to it. The file is
/// opened without being created, and an empty one is passed over, as readers do.
fn append(session_id: &str, lookup: &Lookup, line: Map<String, Value>) -> Result<(), HistoryError> {
    let mut bytes = Value::Object(line).to_string().into_bytes();
    bytes.push(b'\n');
    let file_name = format!("{session_id}.jsonl");
    let written = search(lookup, |project| {
        let path = project.join(&file_name);
        let mut file = match OpenOptions::new().append(true).open(&path) {
            Ok(file) => file,
            Err(error)
                if matches!(error.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) =>
            {
                return Ok(None);
            }
            Err(error) => return Err(HistoryError::io("opening", path, error)),
        };
        match file.metadata() {
            Ok(meta) if meta.len() == 0 || !meta.is_file() => return Ok(None),
            Ok(_) => {}
            Err(error) => return Err(HistoryError::io("reading", path, error)),
        }
        file.write_all(&bytes)
            .map_err(|error| HistoryError::io("appending to", &path, error))?;
        Ok(Some(()))
    })?;
    written.map_err(|searched| HistoryError::SessionNotFound {
        session_id: session_id.to_string(),
        searched,
    })
}

/// Renames a session: appends a `custom-title` line to its transcript, which
/// [`list_sessions`](super::list_sessions) and [`session_info`](super::session_info) then show
/// as its title and summary (the last title appended wins). Leading and trailing whitespace is
/// trimmed; an empty title is [`HistoryError::EmptyTitle`].
///
/// ```no_run
/// use claude_tools::sessions::{Lookup, rename_session};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// rename_session(
///     "550e8400-e29b-41d4-a716-446655440000",
///     "Refactor the billing module",
///     &Lookup::new().dir("/home/me/repo"),
/// )?;
/// # Ok(())
/// # }
/// ```
pub fn rename_session(session_id: &str, title: &str, lookup: &Lookup) -> Result<(), HistoryError> {
    check(session_id)?;
    append(session_id, lookup, title_line(session_id, title)?)
}

/// The `custom-title` line that renames a session (the title trimmed, not empty).
pub(crate) fn title_line(
    session_id: &str,
    title: &str,
) -> Result<Map<String, Value>, HistoryError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(HistoryError::EmptyTitle);
    }
    let mut line = Map::new();
    line.insert("type".into(), "custom-title".into());
    line.insert("customTitle".into(), title.into());
    line.insert("sessionId".into(), session_id.into());
    Ok(line)
}

/// Whether a character is invisible or steers text direction: format characters (zero-width
/// spaces and joiners, direction marks and isolates, the byte order mark, soft hyphen…),
/// private-use characters and noncharacters.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{0600}'..='\u{0605}' | '\u{061c}' | '\u{06dd}' | '\u{070f}'
        | '\u{0890}'..='\u{0891}' | '\u{08e2}' | '\u{180e}' | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206f}'
        | '\u{fdd0}'..='\u{fdef}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
        | '\u{110bd}' | '\u{110cd}' | '\u{13430}'..='\u{1343f}' | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}' | '\u{e0001}' | '\u{e0020}'..='\u{e007f}'
        | '\u{e000}'..='\u{f8ff}' | '\u{f0000}'..='\u{ffffd}' | '\u{100000}'..='\u{10fffd}')
        || (c as u32 & 0xfffe) == 0xfffe
}

/// Tags a session (`Some`) or clears its tag (`None`): appends a `tag` line to its transcript
/// (the last one wins; clearing appends an empty tag). Invisible characters (zero-width,
/// direction controls, private use) are removed and whitespace trimmed; a tag left empty is
/// [`HistoryError::EmptyTag`].
///
/// ```no_run
/// use claude_tools::sessions::{Lookup, tag_session};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// let id = "550e8400-e29b-41d4-a716-446655440000";
/// tag_session(id, Some("experiment"), &Lookup::new())?;
/// tag_session(id, None, &Lookup::new())?; // cleared again
/// # Ok(())
/// # }
/// ```
pub fn tag_session(
    session_id: &str,
    tag: Option<&str>,
    lookup: &Lookup,
) -> Result<(), HistoryError> {
    check(session_id)?;
    append(session_id, lookup, tag_line(session_id, tag)?)
}

/// The `tag` line that tags a session (`Some`) or clears its tag (`None`, an empty tag).
pub(crate) fn tag_line(
    session_id: &str,
    tag: Option<&str>,
) -> Result<Map<String, Value>, HistoryError> {
    let tag = match tag {
        None => String::new(),
        Some(tag) => {
            let visible: String = tag.chars().filter(|c| !is_invisible(*c)).collect();
            let tag = visible.trim();
            if tag.is_empty() {
                return Err(HistoryError::EmptyTag);
            }
            tag.to_string()
        }
    };
    let mut line = Map::new();
    line.insert("type".into(), "tag".into());
    line.insert("tag".into(), tag.into());
    line.insert("sessionId".into(), session_id.into());
    Ok(line)
}

/// Deletes a session for good: its transcript, and the folder of its subagents' transcripts
/// when there is one. (For a session that can come back, tag it — say `hidden` — and leave
/// such sessions out when listing.)
///
/// ```no_run
/// use claude_tools::sessions::{Lookup, delete_session};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// delete_session("550e8400-e29b-41d4-a716-446655440000", &Lookup::new())?;
/// # Ok(())
/// # }
/// ```
pub fn delete_session(session_id: &str, lookup: &Lookup) -> Result<(), HistoryError> {
    check(session_id)?;
    let (path, project) = find_session(lookup, session_id)?;
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(error) if error.kind() == ErrorKind::NotFound => {
            return Err(HistoryError::SessionNotFound {
                session_id: session_id.to_string(),
                searched: project,
            });
        }
        Err(error) => return Err(HistoryError::io("deleting", path, error)),
    }
    let subagents = project.join(session_id);
    match std::fs::remove_dir_all(&subagents) {
        Err(error) if error.kind() != ErrorKind::NotFound => {
            Err(HistoryError::io("deleting", subagents, error))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters() {
        let tag: String = "\u{200b}ex\u{202e}per\u{feff}iment\u{e000}\u{fffe}"
            .chars()
            .filter(|c| !is_invisible(*c))
            .collect();
        assert_eq!(tag, "experiment");
        assert!(!is_invisible('é') && !is_invisible('日') && !is_invisible(' '));
    }
}
