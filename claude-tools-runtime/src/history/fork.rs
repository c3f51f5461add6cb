//! Forking a session: a new transcript next to the source's, its lines copied with fresh
//! uuids (the `parentUuid` links kept, through the new ids), a new session id and a title.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use serde_json::{Map, Value, json};

use super::error::HistoryError;
use super::ids::{format_timestamp, is_uuid, new_uuid};
use super::lite::{Ends, WINDOW, first_prompt, title};
use super::options::ForkSession;
use super::paths::find_session;
use super::transcript::{Entry, is_set, lines, str_field};

/// The line types copied into a fork (those with a `uuid`).
const COPIED_TYPES: [&str; 5] = ["user", "assistant", "attachment", "system", "progress"];

/// Fields of a line that belong to the source session only and are not copied.
const NOT_COPIED: [&str; 4] = ["teamName", "agentName", "slug", "sourceToolAssistantUUID"];

/// Forks a session into a new one, which [`Options::resume`](crate::options::Options::resume)
/// then goes on with, leaving the source as it was. Gives the new session's id.
///
/// The fork holds the source's conversation (up to
/// [`up_to_message_id`](ForkSession::up_to_message_id), inclusive, when given), each line with
/// a new `uuid`, the new session id, and `forkedFrom` naming the line it copies; subagents'
/// lines and progress notices are not copied (nor the file-history snapshots behind the
/// CLI's undo). Its title is [`ForkSession::title`], or the source's title (else first prompt)
/// followed by ` (fork)`. It is written next to the source's transcript, in the same project.
///
/// ```no_run
/// use claude_tools::Options;
/// use claude_tools::sessions::{ForkSession, fork_session};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// let source = "550e8400-e29b-41d4-a716-446655440000";
/// let fork = fork_session(source, &ForkSession::new().title("Try it with a cache"))?;
/// let options = Options::new().resume(fork); // the next prompt goes to the fork
/// # Ok(())
/// # }
/// ```
pub fn fork_session(session_id: &str, options: &ForkSession) -> Result<String, HistoryError> {
    if !is_uuid(session_id) {
        return Err(HistoryError::InvalidSessionId(session_id.to_string()));
    }
    let up_to = options.up_to_message_id.as_deref();
    if let Some(id) = up_to.filter(|id| !is_uuid(id)) {
        return Err(HistoryError::InvalidMessageId(id.to_string()));
    }
    let (path, project) = find_session(&options.lookup, session_id)?;
    let content =
        std::fs::read(&path).map_err(|error| HistoryError::io("reading", &path, error))?;
    let (fork_id, out) = fork_lines(&content, session_id, options, &path)?;
    let mut text = String::new();
    for line in &out {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let fork_path = project.join(format!("{fork_id}.jsonl"));
    let mut file = std::fs::OpenOptions::new();
    file.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut file, 0o600);
    file.open(&fork_path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|error| HistoryError::io("writing", &fork_path, error))?;
    Ok(fork_id)
}

/// The fork of the transcript `content` of `session_id`: its new id and its lines (`origin`
/// names the transcript in errors). Checks `options.up_to_message_id`; reads no file.
pub(crate) fn fork_lines(
    content: &[u8],
    session_id: &str,
    options: &ForkSession,
    origin: &Path,
) -> Result<(String, Vec<Value>), HistoryError> {
    let path = origin.to_path_buf();
    let up_to = options.up_to_message_id.as_deref();
    if let Some(id) = up_to.filter(|id| !is_uuid(id)) {
        return Err(HistoryError::InvalidMessageId(id.to_string()));
    }
    let nothing = || HistoryError::NothingToFork(session_id.to_string());

    let mut transcript: Vec<Entry> = Vec::new();
    let mut replacements: Vec<Value> = Vec::new();
    for entry in lines(content) {
        let kind = str_field(&entry, "type").unwrap_or_default();
        if COPIED_TYPES.contains(&kind) && str_field(&entry, "uuid").is_some() {
            if !is_set(&entry, "isSidechain") {
                transcript.push(entry);
            }
        } else if kind == "content-replacement"
            && str_field(&entry, "sessionId") == Some(session_id)
            && let Some(Value::Array(list)) = entry.get("replacements")
        {
            replacements.extend(list.iter().cloned());
        }
    }
    if transcript.is_empty() {
        return Err(nothing());
    }
    if let Some(up_to) = up_to {
        let cut = transcript
            .iter()
            .position(|entry| str_field(entry, "uuid") == Some(up_to))
            .ok_or_else(|| HistoryError::MessageNotFound {
                session_id: session_id.to_string(),
                message_id: up_to.to_string(),
            })?;
        transcript.truncate(cut + 1);
    }

    let fresh =
        || new_uuid().map_err(|error| HistoryError::io("generating an id for", &path, error));
    let mut new_ids: HashMap<String, String> = HashMap::new();
    let by_uuid: HashMap<&str, &Entry> = transcript
        .iter()
        .filter_map(|entry| Some((str_field(entry, "uuid")?, entry)))
        .collect();
    for old in by_uuid.keys() {
        new_ids.insert((*old).to_string(), fresh()?);
    }
    let written: Vec<&Entry> = transcript
        .iter()
        .filter(|entry| str_field(entry, "type") != Some("progress"))
        .collect();
    if written.is_empty() {
        return Err(nothing());
    }
    let fork_id = fresh()?;
    let now = format_timestamp(SystemTime::now());

    let mut out: Vec<Value> = Vec::with_capacity(written.len() + 2);
    for (n, original) in written.iter().enumerate() {
        let Some((old, new)) =
            str_field(original, "uuid").and_then(|old| Some((old, new_ids.get(old)?)))
        else {
            continue; // every copied line has a uuid, mapped above
        };
        // The nearest ancestor that is copied (progress lines are links, not copied).
        let mut parent = None;
        let mut at = str_field(original, "parentUuid");
        while let Some(id) = at.filter(|id| !id.is_empty()) {
            let Some(entry) = by_uuid.get(id) else { break };
            if str_field(entry, "type") != Some("progress") {
                parent = new_ids.get(id).cloned();
                break;
            }
            at = str_field(entry, "parentUuid");
        }
        let mut line: Map<String, Value> = (*original).clone();
        line.insert("uuid".into(), new.clone().into());
        line.insert("parentUuid".into(), parent.map_or(Value::Null, Value::from));
        if let Some(logical) = original.get("logicalParentUuid") {
            let mapped = logical.as_str().and_then(|id| new_ids.get(id)).cloned();
            let kept = if logical.is_null() {
                Value::Null
            } else {
                mapped.map_or(Value::Null, Value::from)
            };
            line.insert("logicalParentUuid".into(), kept);
        }
        line.insert("sessionId".into(), fork_id.clone().into());
        // Only the last line is stamped now: the CLI resumes from the newest leaf.
        if n + 1 == written.len() || !original.contains_key("timestamp") {
            line.insert("timestamp".into(), now.clone().into());
        }
        line.insert("isSidechain".into(), false.into());
        line.insert(
            "forkedFrom".into(),
            json!({"sessionId": session_id, "messageUuid": old}),
        );
        for key in NOT_COPIED {
            line.shift_remove(key);
        }
        out.push(Value::Object(line));
    }
    if !replacements.is_empty() {
        out.push(json!({
            "type": "content-replacement",
            "sessionId": fork_id,
            "replacements": replacements,
            "uuid": fresh()?,
            "timestamp": now,
        }));
    }
    let title = match options
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        Some(title) => title.to_string(),
        None => {
            let size = content.len();
            let ends = Ends {
                head: String::from_utf8_lossy(&content[..size.min(WINDOW as usize)]).into_owned(),
                tail: String::from_utf8_lossy(&content[size.saturating_sub(WINDOW as usize)..])
                    .into_owned(),
                size: size as u64,
                modified: SystemTime::UNIX_EPOCH,
            };
            let source = title(&ends).or_else(|| first_prompt(&ends.head));
            format!("{} (fork)", source.as_deref().unwrap_or("Forked session"))
        }
    };
    out.push(json!({
        "type": "custom-title",
        "sessionId": fork_id,
        "customTitle": title,
        "uuid": fresh()?,
        "timestamp": now,
    }));

    Ok((fork_id, out))
}
