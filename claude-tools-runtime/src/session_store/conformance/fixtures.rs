//! What the checks are written with: the keys they write under, the lines they write, how
//! they compare what loads back, and `ensure!`, which fails a check with its reason.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::session_store::{SessionKey, TranscriptEntry};

/// Fails the contract being checked with a message, unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $($why:tt)+) => {
        if !$cond {
            return Err(format!($($why)+));
        }
    };
}

/// Session ids are UUIDs, as the CLI's are (a store may refuse others).
pub(super) const SESS: &str = "5c0e8f1a-2b3c-4d5e-8f6a-7b8c9d0e1f2a";
pub(super) const SESS2: &str = "6d1f9a2b-3c4d-4e5f-9a7b-8c9d0e1f2a3b";
pub(super) const SESS3: &str = "7e2a0b3c-4d5e-4f6a-8b8c-9d0e1f2a3b4c";
pub(super) const NEVER: &str = "8f3b1c4d-5e6f-4a7b-9c9d-0e1f2a3b4c5d";
pub(super) const AGENT_1: &str = "subagents/agent-1";
pub(super) const AGENT_2: &str = "subagents/agent-2";

pub(super) fn at(project: &str, session: &str) -> SessionKey {
    SessionKey::new(project, session)
}

pub(super) fn main_key() -> SessionKey {
    at("proj", SESS)
}

pub(super) fn sub(session: &SessionKey, subpath: &str) -> SessionKey {
    session.clone().with_subpath(subpath)
}

/// A line for the suite: the Python suite's `_e` (a `type`, then the given fields).
pub(super) fn line(fields: Value) -> Result<TranscriptEntry, String> {
    let mut object = serde_json::Map::new();
    object.insert("type".into(), Value::from("x"));
    if let Value::Object(fields) = fields {
        object.extend(fields);
    }
    TranscriptEntry::from_value(&Value::Object(object)).map_err(|e| e.to_string())
}

pub(super) fn lines(fields: &[Value]) -> Result<Vec<TranscriptEntry>, String> {
    fields.iter().cloned().map(line).collect()
}

/// Lines as JSON, to compare as the contract does (a store may re-encode a line).
pub(super) fn as_json(entries: &Option<Vec<TranscriptEntry>>) -> Option<Vec<Value>> {
    entries
        .as_ref()
        .map(|entries| entries.iter().map(TranscriptEntry::to_value).collect())
}

pub(super) fn millis(time: SystemTime) -> u128 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis())
}

pub(super) fn sorted(mut items: Vec<String>) -> Vec<String> {
    items.sort();
    items
}
