//! Reading what the CLI sent: messages, user text, tool results, offered tools.

use serde_json::Value;

/// Removes every `<system-reminder>…</system-reminder>` and `<total_tokens>…</total_tokens>`
/// block the CLI injects into user text and tool results, then trims whitespace.
pub fn strip_system_reminders(text: &str) -> String {
    let mut s = text.to_string();
    for tag in ["system-reminder", "total_tokens"] {
        s = strip_tag(&s, tag);
    }
    s.trim().to_string()
}

fn strip_tag(text: &str, tag: &str) -> String {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        let Some(end_rel) = rest[start..].find(&close) else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = &rest[start + end_rel + close.len()..];
    }
    out.push_str(rest);
    out
}

/// Joins the text of a `content` value (a string, or an array of blocks whose `text` blocks
/// count), each piece stripped of system reminders; empty pieces are dropped.
pub(crate) fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => strip_system_reminders(s),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .map(strip_system_reminders)
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn messages(body: &Value) -> &[Value] {
    body.get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Number of `assistant` messages in a Messages API request body.
pub(crate) fn assistant_count(body: &Value) -> usize {
    messages(body)
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
        .count()
}

/// Text of the last `user` message (text blocks only, reminders stripped).
pub(crate) fn last_user_text(body: &Value) -> String {
    messages(body)
        .iter()
        .rev()
        .find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .and_then(|m| m.get("content"))
        .map(content_text)
        .unwrap_or_default()
}

/// Whether the request offers tools (a non-empty `tools` array). Requests without tools are
/// the CLI's side requests (titles, token counting probes, ...).
pub(crate) fn has_tools(body: &Value) -> bool {
    body.get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
}

/// Names of the tools offered in a request body, in order.
pub(crate) fn tool_names(body: &Value) -> Vec<String> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// A `tool_result` block the CLI sent back to the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The `tool_use_id` it answers.
    pub tool_use_id: String,
    /// Its text (text blocks joined with `\n`, `<system-reminder>` blocks stripped).
    pub text: String,
    /// Its `is_error` flag (`false` when absent).
    pub is_error: bool,
}

/// Every `tool_result` block in a request body, in message order.
pub(crate) fn tool_results(body: &Value) -> Vec<ToolResult> {
    let mut out = Vec::new();
    for m in messages(body) {
        let Some(blocks) = m.get("content").and_then(Value::as_array) else {
            continue;
        };
        for b in blocks {
            if b.get("type").and_then(Value::as_str) != Some("tool_result") {
                continue;
            }
            out.push(ToolResult {
                tool_use_id: b
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                text: b.get("content").map(content_text).unwrap_or_default(),
                is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_reminders() {
        assert_eq!(
            strip_system_reminders(
                "<system-reminder>x\ny</system-reminder>\nHello <total_tokens>9 left</total_tokens>"
            ),
            "Hello"
        );
        assert_eq!(
            strip_system_reminders("a <system-reminder> open"),
            "a <system-reminder> open"
        );
    }

    #[test]
    fn reads_a_request() {
        let body = json!({
            "tools": [{"name": "mcp__calc__add"}, {"name": "Bash"}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "<system-reminder>r</system-reminder>"},
                                              {"type": "text", "text": "add 1 and 2"}]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "mcp__calc__add", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "3"}]},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "boom\n<system-reminder>z</system-reminder>", "is_error": true}
                ]}
            ]
        });
        assert_eq!(assistant_count(&body), 1);
        assert_eq!(last_user_text(&body), "");
        assert!(has_tools(&body));
        assert_eq!(tool_names(&body), ["mcp__calc__add", "Bash"]);
        assert_eq!(
            tool_results(&body),
            [
                ToolResult {
                    tool_use_id: "toolu_1".into(),
                    text: "3".into(),
                    is_error: false
                },
                ToolResult {
                    tool_use_id: "toolu_2".into(),
                    text: "boom".into(),
                    is_error: true
                },
            ]
        );
        let first = json!({"messages": [{"role": "user", "content": "hello"}], "tools": []});
        assert_eq!(last_user_text(&first), "hello");
        assert!(!has_tools(&first));
    }
}
