//! Session summaries a store keeps as it appends ([`SessionSummaryEntry`],
//! [`fold_session_summary`]), so that a listing needs one call, not a load per session.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{SessionKey, TranscriptEntry};
use crate::history::SessionInfo;
use crate::history::ids::parse_timestamp;
use crate::history::lite::prompt_of;

/// A session's running summary, as a store keeps it next to the transcript and gives it from
/// [`SessionStore::list_session_summaries`](super::SessionStore::list_session_summaries): the
/// official SDKs' `SessionSummaryEntry`.
///
/// A store updates it in [`append`](super::SessionStore::append) with
/// [`fold_session_summary`], never re-reading the transcript.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SessionSummaryEntry {
    /// The session id.
    pub session_id: String,
    /// When the store wrote the summary: the same clock as
    /// [`StoredSession::modified`](super::StoredSession::modified) gives for the session (a
    /// summary older than the listing's time is stale, and the session is read instead).
    pub mtime: SystemTime,
    /// What the summary holds; a store keeps it as JSON (`serde_json::to_string`), as it is.
    pub data: SummaryData,
}

impl SessionSummaryEntry {
    /// A summary (for stores that read theirs back).
    pub fn new(session_id: impl Into<String>, mtime: SystemTime, data: SummaryData) -> Self {
        Self {
            session_id: session_id.into(),
            mtime,
            data,
        }
    }

    /// The listing's view of the summary: `None` for a subagent's side conversation or a
    /// session with nothing to show yet (no title, prompt or summary). `cwd` is reported when
    /// the transcript did not say where the session ran.
    pub fn info(&self, cwd: Option<&std::path::Path>) -> Option<SessionInfo> {
        let data = &self.data;
        if data.is_sidechain == Some(true) {
            return None;
        }
        let set = |value: &Option<String>| value.clone().filter(|v| !v.is_empty());
        let first_prompt = if data.first_prompt_locked {
            set(&data.first_prompt)
        } else {
            set(&data.command_fallback)
        };
        let title = set(&data.custom_title).or_else(|| set(&data.ai_title));
        let summary = title
            .clone()
            .or_else(|| set(&data.last_prompt))
            .or_else(|| set(&data.summary_hint))
            .or_else(|| first_prompt.clone())?;
        Some(SessionInfo {
            session_id: self.session_id.clone(),
            summary,
            last_modified: self.mtime,
            file_size: None,
            custom_title: title,
            first_prompt,
            git_branch: set(&data.git_branch),
            cwd: set(&data.cwd)
                .map(Into::into)
                .or_else(|| cwd.map(std::path::Path::to_path_buf)),
            tag: set(&data.tag),
            created_at: data
                .created_at
                .map(|ms| UNIX_EPOCH + Duration::from_millis(ms)),
            // A store keeps no archive mark.
            archived: None,
        })
    }
}

/// What a [`SessionSummaryEntry`] holds, under the official SDKs' names (a summary one of them
/// wrote reads here, and the other way round). Fields a newer SDK adds are kept in `extra`.
///
/// Set-once fields (`is_sidechain`, `created_at`, `cwd`, the first prompt) keep the first value
/// seen; the others (titles, last prompt, summary, branch, tag) the last.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SummaryData {
    /// Whether the transcript's first line is a subagent's (`isSidechain`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_sidechain: Option<bool>,
    /// The first timestamp, in milliseconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<u64>,
    /// The working directory (the first `cwd`, or where the session was last relocated to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The first prompt the user typed (see `first_prompt_locked`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
    /// Whether `first_prompt` was found (until then, `command_fallback` stands for it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first_prompt_locked: bool,
    /// The first slash command run, shown when no prompt was typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_fallback: Option<String>,
    /// The last title the user or application set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_title: Option<String>,
    /// The last title the CLI generated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ai_title: Option<String>,
    /// The last prompt the CLI recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_prompt: Option<String>,
    /// The last `summary` recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_hint: Option<String>,
    /// The last git branch recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    /// The tag (an empty tag line clears it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Fields this crate does not know, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What one batch of lines changes in a summary, whatever the summary was before: what it
/// sets if still unset, what it overwrites, and whether it clears the tag. Folding a batch is
/// applying this; a database store applies it in one statement (see the PostgreSQL store).
#[derive(Debug, Default)]
pub(crate) struct SummaryDelta {
    /// The fields set only where the summary has none yet.
    pub(crate) set_once: SummaryData,
    /// The fields set whatever the summary has.
    pub(crate) last_wins: SummaryData,
    /// Whether the batch's last tag line cleared the tag.
    pub(crate) clears_tag: bool,
}

impl SummaryDelta {
    /// What `entries`, in order, change.
    pub(crate) fn of(entries: &[TranscriptEntry]) -> Self {
        let mut delta = SummaryDelta::default();
        let (once, last) = (&mut delta.set_once, &mut delta.last_wins);
        for entry in entries {
            let Value::Object(line) = entry.to_value() else {
                continue;
            };
            let text = |key: &str| line.get(key).and_then(Value::as_str).map(str::to_owned);
            once.is_sidechain.get_or_insert(entry.is_sidechain());
            if once.created_at.is_none() {
                once.created_at = entry.timestamp().and_then(parse_timestamp).map(|t| {
                    t.duration_since(UNIX_EPOCH)
                        .map_or(0, |d| d.as_millis() as u64)
                });
            }
            if once.cwd.is_none() {
                once.cwd = text("cwd").filter(|c| !c.is_empty());
            }
            if !once.first_prompt_locked {
                let found = prompt_of(&line);
                if once.command_fallback.is_none() {
                    once.command_fallback = found.command;
                }
                if let Some(prompt) = found.prompt {
                    once.first_prompt = Some(prompt);
                    once.first_prompt_locked = true;
                }
            }
            for (key, slot) in [
                ("customTitle", &mut last.custom_title),
                ("aiTitle", &mut last.ai_title),
                ("lastPrompt", &mut last.last_prompt),
                ("summary", &mut last.summary_hint),
                ("gitBranch", &mut last.git_branch),
            ] {
                if let Some(value) = text(key) {
                    *slot = Some(value);
                }
            }
            match entry.entry_type() {
                "tag" => {
                    last.tag = text("tag").filter(|t| !t.is_empty());
                    delta.clears_tag = last.tag.is_none();
                }
                // A session moved to another directory: from here on it runs there.
                "relocated" => {
                    if let Some(cwd) = text("relocatedCwd").filter(|c| !c.is_empty()) {
                        last.cwd = Some(cwd);
                    }
                }
                _ => {}
            }
        }
        delta
    }

    /// The summary `prev` becomes.
    fn apply(self, mut data: SummaryData) -> SummaryData {
        let once = self.set_once;
        fn keep<T>(slot: &mut Option<T>, value: Option<T>) {
            if slot.is_none() {
                *slot = value;
            }
        }
        keep(&mut data.is_sidechain, once.is_sidechain);
        keep(&mut data.created_at, once.created_at);
        keep(&mut data.cwd, once.cwd);
        if !data.first_prompt_locked {
            if data.command_fallback.as_deref().is_none_or(str::is_empty) {
                data.command_fallback = once.command_fallback.or(data.command_fallback);
            }
            if once.first_prompt_locked {
                data.first_prompt = once.first_prompt;
                data.first_prompt_locked = true;
            }
        }
        let last = self.last_wins;
        for (slot, value) in [
            (&mut data.custom_title, last.custom_title),
            (&mut data.ai_title, last.ai_title),
            (&mut data.last_prompt, last.last_prompt),
            (&mut data.summary_hint, last.summary_hint),
            (&mut data.git_branch, last.git_branch),
            (&mut data.cwd, last.cwd),
            (&mut data.tag, last.tag),
        ] {
            if value.is_some() {
                *slot = value;
            }
        }
        if self.clears_tag {
            data.tag = None;
        }
        data
    }
}

/// Folds a batch of lines appended to `key` into its running summary: the official SDKs'
/// `foldSessionSummary`. A store calls it in [`append`](super::SessionStore::append) with the
/// summary it holds (`None` for the session's first batch) and keeps what it returns.
///
/// `mtime` is when the store wrote the batch, on the clock its
/// [`list_sessions`](super::SessionStore::list_sessions) uses (never a line's timestamp);
/// `None` keeps the previous summary's. A store whose appends to one session can race must
/// serialize this read-fold-write (a lock, a transaction): the fold itself is pure.
///
/// ```
/// use std::time::SystemTime;
/// use claude_tools::session_store::{SessionKey, TranscriptEntry, fold_session_summary};
///
/// let key = SessionKey::new("-srv-app", "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20");
/// let lines = [
///     r#"{"type":"user","uuid":"u1","message":{"role":"user","content":"fix the build"}}"#,
///     r#"{"type":"custom-title","customTitle":"Build"}"#,
/// ]
/// .map(|l| TranscriptEntry::from_json(l).unwrap());
/// let summary = fold_session_summary(None, &key, &lines, Some(SystemTime::now()));
/// let info = summary.info(None).unwrap();
/// assert_eq!((info.summary.as_str(), info.first_prompt.as_deref()), ("Build", Some("fix the build")));
/// ```
pub fn fold_session_summary(
    prev: Option<SessionSummaryEntry>,
    key: &SessionKey,
    entries: &[TranscriptEntry],
    mtime: Option<SystemTime>,
) -> SessionSummaryEntry {
    let (session_id, prev_mtime, data) = match prev {
        Some(prev) => (prev.session_id, Some(prev.mtime), prev.data),
        None => (key.session_id.clone(), None, SummaryData::default()),
    };
    SessionSummaryEntry {
        session_id,
        mtime: mtime.or(prev_mtime).unwrap_or(UNIX_EPOCH),
        data: SummaryDelta::of(entries).apply(data),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3f1c2a9e-0b1d-4c55-9a7e-2d8e6f1a4b20";

    fn lines(lines: &[&str]) -> Vec<TranscriptEntry> {
        lines
            .iter()
            .map(|l| TranscriptEntry::from_json(*l).unwrap())
            .collect()
    }

    fn user(text: &str) -> String {
        serde_json::json!({"type": "user", "uuid": text, "cwd": format!("/w/{text}"),
            "gitBranch": format!("b-{text}"), "timestamp": "2026-01-02T03:04:05.006Z",
            "message": {"role": "user", "content": text}})
        .to_string()
    }

    #[test]
    fn set_once_fields_freeze_and_last_wins_fields_move() {
        let key = SessionKey::new("p", ID);
        let first = lines(&[
            r#"{"type":"user","message":{"content":"<command-name>/init</command-name>"}}"#,
            &user("one"),
            r#"{"type":"tag","tag":"red"}"#,
        ]);
        let t1 = UNIX_EPOCH + Duration::from_secs(10);
        let summary = fold_session_summary(None, &key, &first, Some(t1));
        let second = lines(&[
            &user("two"),
            r#"{"type":"ai-title","aiTitle":"Generated"}"#,
            r#"{"type":"tag","tag":""}"#,
        ]);
        let folded = fold_session_summary(Some(summary.clone()), &key, &second, None);
        assert_eq!(folded.mtime, t1, "the previous mtime is kept");
        let data = &folded.data;
        assert_eq!(data.first_prompt.as_deref(), Some("one"));
        assert_eq!(data.command_fallback.as_deref(), Some("/init"));
        assert_eq!(data.cwd.as_deref(), Some("/w/one"));
        assert_eq!(data.git_branch.as_deref(), Some("b-two"));
        assert_eq!(data.tag, None, "cleared");
        assert_eq!(summary.data.tag.as_deref(), Some("red"));
        assert_eq!(data.created_at, Some(1_767_323_045_006));
        let info = folded.info(None).unwrap();
        assert_eq!(info.summary, "Generated");
        assert_eq!(info.first_prompt.as_deref(), Some("one"));
        // A relocation moves the set-once cwd.
        let moved = fold_session_summary(
            Some(folded),
            &key,
            &lines(&[r#"{"type":"relocated","relocatedCwd":"/elsewhere"}"#]),
            None,
        );
        assert_eq!(moved.data.cwd.as_deref(), Some("/elsewhere"));
    }

    #[test]
    fn sidechains_and_empty_sessions_have_no_info_and_unknown_fields_are_kept() {
        let key = SessionKey::new("p", ID);
        let side = fold_session_summary(
            None,
            &key,
            &lines(&[r#"{"type":"user","isSidechain":true,"message":{"content":"x"}}"#]),
            None,
        );
        assert_eq!(side.info(None), None);
        let empty = fold_session_summary(None, &key, &lines(&[r#"{"type":"system"}"#]), None);
        assert_eq!(empty.info(None), None);
        let newer: SummaryData =
            serde_json::from_str(r#"{"customTitle":"T","futureField":[1]}"#).unwrap();
        assert_eq!(newer.extra["futureField"], serde_json::json!([1]));
        let back = serde_json::to_value(&newer).unwrap();
        assert_eq!(
            back,
            serde_json::json!({"customTitle":"T","futureField":[1]})
        );
    }
}
