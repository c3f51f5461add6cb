//! Subagent transcripts: `<project folder>/<session id>/subagents/agent-<agent id>.jsonl` (or
//! deeper, as in `subagents/workflows/<run id>/`), each with an optional
//! `agent-<agent id>.meta.json` naming the Agent tool call that started it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::HistoryError;
use super::ids::is_uuid;
use super::options::{Lookup, ReadMessages, page};
use super::paths::find_session;
use super::transcript::{linked, subagent_conversation, to_message};
use crate::message::Message;

/// The subagents folder of a session.
fn subagents_dir(session_id: &str, lookup: &Lookup) -> Result<PathBuf, HistoryError> {
    if !is_uuid(session_id) {
        return Err(HistoryError::InvalidSessionId(session_id.to_string()));
    }
    let (_, project) = find_session(lookup, session_id)?;
    Ok(project.join(session_id).join("subagents"))
}

/// Every `agent-<id>.jsonl` under `dir`, at any depth, by name within each folder.
fn agent_files(dir: &Path, found: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        let Ok(file_type) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if file_type.is_dir() {
            agent_files(&entry.path(), found);
        } else if let Some(id) = name
            .strip_prefix("agent-")
            .and_then(|rest| rest.strip_suffix(".jsonl"))
            && file_type.is_file()
        {
            found.push((id.to_string(), entry.path()));
        }
    }
}

/// The ids of a session's subagents (those that left a transcript), for
/// [`subagent_messages`]. No subagents is an empty list; a session that is not there is
/// [`HistoryError::SessionNotFound`].
///
/// ```no_run
/// use claude_tools::sessions::{Lookup, ReadMessages, list_subagents, subagent_messages};
///
/// # fn main() -> Result<(), claude_tools::sessions::HistoryError> {
/// let session = "550e8400-e29b-41d4-a716-446655440000";
/// for agent in list_subagents(session, &Lookup::new())? {
///     let messages = subagent_messages(session, &agent, &ReadMessages::new())?;
///     println!("subagent {agent}: {} messages", messages.len());
/// }
/// # Ok(())
/// # }
/// ```
pub fn list_subagents(session_id: &str, lookup: &Lookup) -> Result<Vec<String>, HistoryError> {
    let dir = subagents_dir(session_id, lookup)?;
    let mut found = Vec::new();
    agent_files(&dir, &mut found);
    Ok(found.into_iter().map(|(id, _)| id).collect())
}

/// A subagent's conversation, oldest first, as typed messages (see
/// [`session_messages`](super::session_messages) for their shape). Each message's
/// `parent_tool_use_id` is the Agent tool call that started the subagent, and for a subagent
/// started by another subagent, `extra["parent_agent_id"]` is that subagent's id (both read
/// from the subagent's `.meta.json`; absent when it is missing or unreadable).
pub fn subagent_messages(
    session_id: &str,
    agent_id: &str,
    options: &ReadMessages,
) -> Result<Vec<Message>, HistoryError> {
    if agent_id.is_empty() || agent_id.contains(['/', '\\', '\0']) {
        return Err(HistoryError::InvalidAgentId(agent_id.to_string()));
    }
    let dir = subagents_dir(session_id, &options.lookup)?;
    let mut found = Vec::new();
    agent_files(&dir, &mut found);
    let not_found = || HistoryError::SubagentNotFound {
        session_id: session_id.to_string(),
        agent_id: agent_id.to_string(),
    };
    let (_, path) = found
        .into_iter()
        .find(|(id, _)| id == agent_id)
        .ok_or_else(not_found)?;
    let content = match std::fs::read(&path) {
        Ok(content) => content,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(not_found()),
        Err(error) => return Err(HistoryError::io("reading", path, error)),
    };
    let meta = std::fs::read(path.with_extension("meta.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok());
    Ok(subagent_messages_of(&content, meta.as_ref(), options))
}

/// The page of a subagent's conversation in `content` (its transcript's bytes) that `options`
/// asks for; `meta` is its `.meta.json`, naming the Agent call that started it.
pub(crate) fn subagent_messages_of(
    content: &[u8],
    meta: Option<&Value>,
    options: &ReadMessages,
) -> Vec<Message> {
    let meta_field = |key: &str| meta.and_then(|m| m.get(key)).and_then(Value::as_str);
    let (tool_use_id, parent_agent) = (meta_field("toolUseId"), meta_field("parentAgentId"));
    let entries = linked(content);
    let messages: Vec<Message> = subagent_conversation(&entries)
        .into_iter()
        .map(|i| entries[i].clone())
        .filter(|entry| {
            matches!(
                entry.get("type").and_then(Value::as_str),
                Some("user" | "assistant")
            )
        })
        .map(|entry| to_message(entry, tool_use_id, parent_agent))
        .collect();
    page(messages, options.offset, options.limit)
}
