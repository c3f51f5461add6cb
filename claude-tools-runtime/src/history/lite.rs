//! A session's summary without reading all of its transcript: the file's size and time, its
//! first and last 64 KiB, and the string fields found in them by a scan that needs no whole
//! line (a line cut at either end, or still being written, is simply not matched).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

use super::ids::parse_timestamp;
use super::info::SessionInfo;

/// How much of each end of a transcript is read.
pub(crate) const WINDOW: u64 = 64 * 1024;

/// The longest first prompt kept whole (in characters); a longer one is cut and ends in `…`.
const FIRST_PROMPT_CHARS: usize = 200;

/// The two ends of a transcript, with its size and modification time.
pub(crate) struct Ends {
    pub(crate) head: String,
    pub(crate) tail: String,
    pub(crate) size: u64,
    pub(crate) modified: SystemTime,
}

/// Reads the ends of the file at `path`; `None` when it cannot be read or is empty.
pub(crate) fn read_ends(path: &Path) -> Option<Ends> {
    let mut file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    let size = meta.len();
    let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    let mut head = Vec::new();
    (&mut file).take(WINDOW).read_to_end(&mut head).ok()?;
    if head.is_empty() {
        return None;
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let tail = if size <= WINDOW {
        head.clone()
    } else {
        file.seek(SeekFrom::Start(size - WINDOW)).ok()?;
        let mut tail = Vec::new();
        file.take(WINDOW).read_to_end(&mut tail).ok()?;
        String::from_utf8_lossy(&tail).into_owned()
    };
    Some(Ends {
        head,
        tail,
        size,
        modified,
    })
}

/// The values of every `"key":"…"` string field in `text`, in order (a value without its
/// closing quote is not one). JSON escapes are undone.
fn string_fields<'t>(text: &'t str, key: &str) -> impl Iterator<Item = String> + 't {
    let patterns = [format!("\"{key}\":\""), format!("\"{key}\": \"")];
    let mut found: Vec<(usize, String)> = Vec::new();
    for pattern in &patterns {
        let mut from = 0;
        while let Some(at) = text[from..].find(pattern.as_str()) {
            let start = from + at + pattern.len();
            let bytes = text.as_bytes();
            let mut i = start;
            let mut end = None;
            while i < bytes.len() {
                match bytes[i] {
                    b'\\' => i += 2,
                    b'"' => {
                        end = Some(i);
                        break;
                    }
                    _ => i += 1,
                }
            }
            let Some(end) = end else { break };
            found.push((start, unescape(&text[start..end])));
            from = end + 1;
        }
    }
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, value)| value)
}

fn unescape(raw: &str) -> String {
    if !raw.contains('\\') {
        return raw.to_string();
    }
    serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_else(|_| raw.to_string())
}

/// The first non-empty `"key":"…"` value in `text`.
pub(crate) fn first_field(text: &str, key: &str) -> Option<String> {
    string_fields(text, key).find(|value| !value.is_empty())
}

/// The last non-empty `"key":"…"` value in `text`.
pub(crate) fn last_field(text: &str, key: &str) -> Option<String> {
    string_fields(text, key)
        .filter(|value| !value.is_empty())
        .last()
}

/// The session's title: the last one set by a user or application (`customTitle`), else the
/// last the CLI generated (`aiTitle`), looking at the end of the file first.
pub(crate) fn title(ends: &Ends) -> Option<String> {
    last_field(&ends.tail, "customTitle")
        .or_else(|| last_field(&ends.head, "customTitle"))
        .or_else(|| last_field(&ends.tail, "aiTitle"))
        .or_else(|| last_field(&ends.head, "aiTitle"))
}

/// Whether a prompt is one the CLI made up rather than the user's words.
fn is_generated(prompt: &str) -> bool {
    const PREFIXES: [&str; 4] = [
        "<local-command-stdout>",
        "<session-start-hook>",
        "<tick>",
        "<goal>",
    ];
    let wrapped = |tag: &str| {
        prompt.starts_with(&format!("<{tag}>")) && prompt.ends_with(&format!("</{tag}>"))
    };
    PREFIXES.iter().any(|p| prompt.starts_with(p))
        || prompt
            .strip_prefix("[Request interrupted by user")
            .is_some_and(|rest| rest.contains(']'))
        || wrapped("ide_opened_file")
        || wrapped("ide_selection")
}

/// What one transcript line offers as the session's first prompt: the text the user typed,
/// and the first slash command's name met on the way (the answer if no prompt ever comes).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PromptOf {
    pub(crate) prompt: Option<String>,
    pub(crate) command: Option<String>,
}

/// The first prompt a line holds: a user line that is not tool results, meta or a compaction
/// summary; its text on one line, trimmed; slash commands and generated prompts skipped.
pub(crate) fn prompt_of(entry: &serde_json::Map<String, Value>) -> PromptOf {
    let mut found = PromptOf::default();
    let flag = |key: &str| entry.get(key).and_then(Value::as_bool).unwrap_or(false);
    if entry.get("type").and_then(Value::as_str) != Some("user")
        || flag("isMeta")
        || flag("isCompactSummary")
    {
        return found;
    }
    let texts: Vec<&str> = match entry.get("message").and_then(|m| m.get("content")) {
        Some(Value::String(text)) => vec![text],
        Some(Value::Array(blocks)) => {
            let kind = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
            if blocks
                .iter()
                .any(|b| kind(b).as_deref() == Some("tool_result"))
            {
                return found;
            }
            blocks
                .iter()
                .filter(|b| kind(b).as_deref() == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect()
        }
        _ => return found,
    };
    for text in texts {
        let text = text.replace('\n', " ");
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(start) = text.find("<command-name>") {
            let name = &text[start + "<command-name>".len()..];
            if let Some(end) = name.find("</command-name>") {
                if found.command.is_none() && end > 0 {
                    found.command = Some(name[..end].to_string());
                }
                continue;
            }
        }
        if is_generated(text) {
            continue;
        }
        found.prompt = Some(if text.chars().count() <= FIRST_PROMPT_CHARS {
            text.to_string()
        } else {
            let cut: String = text.chars().take(FIRST_PROMPT_CHARS).collect();
            format!("{}…", cut.trim_end())
        });
        return found;
    }
    found
}

/// The first prompt the user typed, from the start of a transcript (see [`prompt_of`]); the
/// first command's name is the answer if nothing else is.
pub(crate) fn first_prompt(head: &str) -> Option<String> {
    let mut command = None;
    for line in head.split('\n') {
        if !(line.contains("\"type\":\"user\"") || line.contains("\"type\": \"user\""))
            || line.contains("\"tool_result\"")
        {
            continue;
        }
        let Ok(Value::Object(entry)) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let found = prompt_of(&entry);
        if found.prompt.is_some() {
            return found.prompt;
        }
        if command.is_none() {
            command = found.command;
        }
    }
    command
}

/// The session's tag: the last `{"type":"tag",…}` line of the tail (an empty tag clears it).
fn tag(tail: &str) -> Option<String> {
    let line = tail
        .split('\n')
        .rev()
        .find(|line| line.starts_with("{\"type\":\"tag\""))?;
    last_field(line, "tag")
}

/// The summary of the session `session_id` from its transcript's ends; `None` for a subagent's
/// (sidechain) transcript, or one with nothing to show yet (no title, prompt or summary).
/// `project` is the working directory to report when the transcript does not say.
pub(crate) fn info(session_id: &str, ends: &Ends, project: Option<&Path>) -> Option<SessionInfo> {
    let first_line = ends.head.split('\n').next().unwrap_or_default();
    if first_line.contains("\"isSidechain\":true") || first_line.contains("\"isSidechain\": true") {
        return None;
    }
    let custom_title = title(ends);
    let first_prompt = first_prompt(&ends.head);
    let summary = custom_title
        .clone()
        .or_else(|| last_field(&ends.tail, "lastPrompt"))
        .or_else(|| last_field(&ends.tail, "summary"))
        .or_else(|| first_prompt.clone())?;
    Some(SessionInfo {
        session_id: session_id.to_string(),
        summary,
        last_modified: ends.modified,
        file_size: Some(ends.size),
        custom_title,
        first_prompt,
        git_branch: last_field(&ends.tail, "gitBranch")
            .or_else(|| first_field(&ends.head, "gitBranch")),
        cwd: first_field(&ends.head, "cwd")
            .map(Into::into)
            .or_else(|| project.map(Path::to_path_buf)),
        tag: tag(&ends.tail),
        created_at: first_field(&ends.head, "timestamp").and_then(|t| parse_timestamp(&t)),
        // Read beside the transcript by the caller, which knows where it is.
        archived: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_found_whole_only() {
        let text = r#"{"a":"x\"y","b":"1"}
{"a":"second","b":"2"}
{"a":"cut"#;
        assert_eq!(first_field(text, "a").as_deref(), Some("x\"y"));
        assert_eq!(last_field(text, "a").as_deref(), Some("second"));
        assert_eq!(last_field(text, "missing"), None);
        assert_eq!(
            first_field(r#"{"a": "spaced"}"#, "a").as_deref(),
            Some("spaced")
        );
    }

    #[test]
    fn first_prompts_skip_what_the_cli_made_up() {
        let line = |content: &str| {
            format!(r#"{{"type":"user","message":{{"role":"user","content":{content}}}}}"#)
        };
        let head = [
            line(r#""<command-name>/clear</command-name>""#),
            line(r#""<local-command-stdout>done</local-command-stdout>""#),
            line(r#""[Request interrupted by user for tool use]""#),
            r#"{"type":"user","isMeta":true,"message":{"content":"meta"}}"#.to_string(),
            line(r#"[{"type":"tool_result","tool_use_id":"t","content":"x"}]"#),
            line(r#"[{"type":"text","text":"  fix\nthe bug  "}]"#),
        ]
        .join("\n");
        assert_eq!(first_prompt(&head).as_deref(), Some("fix the bug"));
        assert_eq!(
            first_prompt(&line(r#""<command-name>/review</command-name>""#)).as_deref(),
            Some("/review")
        );
        let long = line(&format!("\"{}\"", "word ".repeat(60)));
        let prompt = first_prompt(&long).expect("a prompt");
        assert!(prompt.ends_with("word…"), "{prompt}");
        assert_eq!(prompt.chars().count(), 200);
    }
}
