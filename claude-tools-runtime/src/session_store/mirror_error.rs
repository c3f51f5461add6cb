//! [`MirrorError`]: a store that failed or fell behind, as the session reports it in the
//! message stream (`system`/`mirror_error`, the official SDKs' `SDKMirrorErrorMessage`, with
//! what this crate adds to say exactly what is not in the store).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::SessionKey;
use crate::message::Message;

/// A `mirror_error`: lines of a transcript did not reach the [`SessionStore`](super::SessionStore).
///
/// It comes in the message stream as a `system` message of subtype `mirror_error` (the session
/// itself writes it; the CLI never does): read it with [`MirrorError::from_message`]. The
/// session goes on either way; the lines are in the CLI's local transcript, [`file`](Self::file).
///
/// ```
/// use claude_tools::Message;
/// use claude_tools::session_store::MirrorError;
///
/// fn report(message: &Message) {
///     if let Some(failure) = MirrorError::from_message(message) {
///         if failure.will_retry {
///             eprintln!("the store is failing ({}); retrying", failure.error);
///         } else {
///             eprintln!(
///                 "{} lines are not in the store; they are in {:?}",
///                 failure.entries_not_mirrored, failure.file
///             );
///         }
///     }
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MirrorError {
    /// What went wrong (the store's error, a timeout, the bound reached).
    pub error: String,
    /// The transcript concerned; `None` for a frame whose file is not under the config dir's
    /// `projects` folder (the CLI runs with another `CLAUDE_CONFIG_DIR` than the options say).
    pub key: Option<SessionKey>,
    /// The session id (empty when there is no key).
    pub session_id: String,
    /// The local transcript that holds every line, those not in the store included.
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// How many lines of the transcript are not in the store because of this failure.
    #[serde(default)]
    pub entries_not_mirrored: u64,
    /// `true`: the lines are kept and sent again with the next batch. `false`: they will not be
    /// mirrored by this session (the bound was reached, or the session ended); the local
    /// transcript has them ([`import_transcript`](super::import_transcript) copies it).
    #[serde(default)]
    pub will_retry: bool,
}

impl MirrorError {
    /// The `mirror_error` carried by `message`, if it is one.
    pub fn from_message(message: &Message) -> Option<MirrorError> {
        let value = match message {
            Message::System(system) if system.subtype == "mirror_error" => message.to_value(),
            _ => return None,
        };
        serde_json::from_value(value).ok()
    }

    /// The message the session puts in the stream.
    pub(crate) fn to_message(&self) -> Message {
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut value {
            map.insert("type".into(), "system".into());
            map.insert("subtype".into(), "mirror_error".into());
            if let Ok(uuid) = crate::history::ids::new_uuid() {
                map.insert("uuid".into(), uuid.into());
            }
        }
        Message::from_value(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_message_stream() {
        let failure = MirrorError {
            error: "connection refused".into(),
            key: Some(SessionKey::new("p", "s").with_subpath("subagents/a")),
            session_id: "s".into(),
            file: Some("/cfg/projects/p/s/subagents/a.jsonl".into()),
            entries_not_mirrored: 3,
            will_retry: true,
        };
        let message = failure.to_message();
        let value = message.to_value();
        assert_eq!(
            (value["type"].as_str(), value["subtype"].as_str()),
            (Some("system"), Some("mirror_error"))
        );
        assert_eq!(value["key"]["projectKey"], "p");
        assert_eq!(message.session_id(), Some("s"));
        assert!(message.uuid().is_some());
        assert_eq!(MirrorError::from_message(&message), Some(failure));
        assert_eq!(
            MirrorError::from_message(&Message::from_value(
                serde_json::json!({"type": "system", "subtype": "init"})
            )),
            None
        );
    }
}
