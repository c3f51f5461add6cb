//! One transcript line as a store holds it: the line itself, byte for byte, and the few fields
//! every line's shape is known to have, read once.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::message::Message;

/// One line of a transcript (the CLI's JSON lines), as it is mirrored to and loaded from a
/// [`SessionStore`](super::SessionStore): the official SDKs' `SessionStoreEntry`.
///
/// The line is kept as the CLI wrote it, so a transcript loaded back is the same bytes; the
/// fields every line has (`type`, and mostly `uuid`, `timestamp`) are read once and typed. The
/// rest of a line's shape is the CLI's own (user and assistant messages, titles, tags, mode
/// changes, summaries…): [`TranscriptEntry::message`] types a conversation line as the
/// [`Message`] the live stream gives, [`TranscriptEntry::to_value`] gives any line as JSON.
///
/// ```
/// use claude_tools::session_store::{EntryKind, TranscriptEntry};
///
/// let line = r#"{"type":"custom-title","customTitle":"Triage","sessionId":"s"}"#;
/// let entry = TranscriptEntry::from_json(line)?;
/// assert_eq!(entry.kind(), EntryKind::CustomTitle);
/// assert_eq!(entry.uuid(), None);
/// assert_eq!(entry.json(), line); // the very bytes
/// # Ok::<(), claude_tools::session_store::StoreError>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct TranscriptEntry {
    line: Box<str>,
    entry_type: Box<str>,
    uuid: Option<Box<str>>,
    timestamp: Option<Box<str>>,
    is_sidechain: bool,
}

/// The kinds of transcript line whose meaning is known; [`EntryKind::Other`] for the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EntryKind {
    /// `user`: a prompt or tool results.
    User,
    /// `assistant`: the model's output.
    Assistant,
    /// `system`: a notice of the CLI's (compaction, errors…).
    System,
    /// `attachment`: a file or context attached to the conversation.
    Attachment,
    /// `summary`: a summary of the conversation so far.
    Summary,
    /// `custom-title`: a title set by the user.
    CustomTitle,
    /// `ai-title`: a title the CLI generated.
    AiTitle,
    /// `tag`: a tag set by the user.
    Tag,
    /// Any other line type.
    Other,
}

/// The fields read off every line.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    entry_type: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    uuid: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    timestamp: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, rename = "isSidechain")]
    is_sidechain: Option<bool>,
}

impl TranscriptEntry {
    /// Takes one transcript line (a JSON object with a string `type`), kept as given.
    pub fn from_json(line: impl Into<String>) -> Result<Self, super::StoreError> {
        let line: String = line.into();
        let head: Head<'_> = serde_json::from_str(&line).map_err(|error| {
            super::StoreError::InvalidEntry(format!(
                "a transcript line must be a JSON object with a string `type`: {error}"
            ))
        })?;
        let entry_type = head.entry_type.into_owned().into_boxed_str();
        let uuid = head.uuid.map(|u| u.into_owned().into_boxed_str());
        let timestamp = head.timestamp.map(|t| t.into_owned().into_boxed_str());
        let is_sidechain = head.is_sidechain == Some(true);
        Ok(Self {
            line: line.into_boxed_str(),
            entry_type,
            uuid,
            timestamp,
            is_sidechain,
        })
    }

    /// Takes one line of JSON already parsed (written back compact; prefer
    /// [`TranscriptEntry::from_json`] to keep the CLI's bytes).
    pub fn from_value(value: &Value) -> Result<Self, super::StoreError> {
        Self::from_json(value.to_string())
    }

    /// The line, exactly as the CLI wrote it (no newline).
    pub fn json(&self) -> &str {
        &self.line
    }

    /// The line's `type`.
    pub fn entry_type(&self) -> &str {
        &self.entry_type
    }

    /// The line's kind, from its `type`.
    pub fn kind(&self) -> EntryKind {
        match &*self.entry_type {
            "user" => EntryKind::User,
            "assistant" => EntryKind::Assistant,
            "system" => EntryKind::System,
            "attachment" => EntryKind::Attachment,
            "summary" => EntryKind::Summary,
            "custom-title" => EntryKind::CustomTitle,
            "ai-title" => EntryKind::AiTitle,
            "tag" => EntryKind::Tag,
            _ => EntryKind::Other,
        }
    }

    /// The line's `uuid`, when it has one: the key a store may deduplicate on (titles, tags
    /// and mode markers have none).
    pub fn uuid(&self) -> Option<&str> {
        self.uuid.as_deref()
    }

    /// The line's ISO-8601 `timestamp`, when it has one.
    pub fn timestamp(&self) -> Option<&str> {
        self.timestamp.as_deref()
    }

    /// Whether the line belongs to a subagent's side conversation (`isSidechain: true`).
    pub fn is_sidechain(&self) -> bool {
        self.is_sidechain
    }

    /// The line as JSON.
    pub fn to_value(&self) -> Value {
        // The line was parsed as JSON when it was taken.
        serde_json::from_str(&self.line).unwrap_or(Value::Null)
    }

    /// A `user`, `assistant` or `system` line as the typed [`Message`] the live stream gives
    /// for it; `None` for other lines.
    pub fn message(&self) -> Option<Message> {
        matches!(
            self.kind(),
            EntryKind::User | EntryKind::Assistant | EntryKind::System
        )
        .then(|| Message::from_value(self.to_value()))
    }

    /// The size of the line in bytes.
    pub fn len(&self) -> usize {
        self.line.len()
    }

    /// Whether the line is empty (never, for an entry that was taken).
    pub fn is_empty(&self) -> bool {
        self.line.is_empty()
    }
}

impl std::fmt::Debug for TranscriptEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptEntry")
            .field("type", &self.entry_type)
            .field("uuid", &self.uuid)
            .field("bytes", &self.line.len())
            .finish_non_exhaustive()
    }
}

/// Serializes as the line's JSON, byte for byte.
impl Serialize for TranscriptEntry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let raw: &RawValue = serde_json::from_str(&self.line).map_err(serde::ser::Error::custom)?;
        raw.serialize(serializer)
    }
}

/// Deserializes from any JSON object with a string `type`, keeping its bytes.
impl<'de> Deserialize<'de> for TranscriptEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        TranscriptEntry::from_json(String::from(Box::<str>::from(raw)))
            .map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_round_trips_byte_for_byte() {
        let line = r#"{"parentUuid":null,"isSidechain":true,"type":"user","message":{"role":"user","content":"hé \u00e9"},"uuid":"u-1","timestamp":"2026-01-01T00:00:00.000Z"}"#;
        let entry = TranscriptEntry::from_json(line).unwrap();
        assert_eq!(entry.json(), line);
        assert_eq!((entry.kind(), entry.uuid()), (EntryKind::User, Some("u-1")));
        assert_eq!(entry.timestamp(), Some("2026-01-01T00:00:00.000Z"));
        assert!(entry.is_sidechain());
        // Through serde, inside a larger document, the bytes survive too.
        let frame = format!(r#"{{"entries":[{line}]}}"#);
        #[derive(Deserialize, Serialize)]
        struct Frame {
            entries: Vec<TranscriptEntry>,
        }
        let parsed: Frame = serde_json::from_str(&frame).unwrap();
        assert_eq!(parsed.entries[0].json(), line);
        assert_eq!(serde_json::to_string(&parsed).unwrap(), frame);
        assert!(matches!(entry.message(), Some(Message::User(_))));
    }

    #[test]
    fn lines_without_a_type_are_refused() {
        for bad in ["[]", "{}", r#"{"type":1}"#, "not json", ""] {
            assert!(TranscriptEntry::from_json(bad).is_err(), "{bad}");
        }
    }
}
