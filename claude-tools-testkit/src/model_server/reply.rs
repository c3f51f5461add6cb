//! Building replies: placeholder expansion, the message object, and its SSE event sequence.

use serde_json::{Value, json};

use super::inspect::{ToolResult, last_user_text, tool_results};
use super::script::Block;

/// Expands `{{tool_result}}`, `{{tool_result:<id>}}` and `{{user_text}}` in `text` against the
/// request body. Unknown placeholders are left as they are.
pub(crate) fn expand(text: &str, body: &Value) -> String {
    if !text.contains("{{") {
        return text.to_string();
    }
    let results: Vec<ToolResult> = tool_results(body);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        let key = &rest[start + 2..start + 2 + len];
        let value = if key == "tool_result" {
            Some(
                results
                    .last()
                    .map(|r| r.text.clone())
                    .unwrap_or_else(|| "(no tool_result)".to_string()),
            )
        } else if let Some(id) = key.strip_prefix("tool_result:") {
            Some(
                results
                    .iter()
                    .rev()
                    .find(|r| r.tool_use_id == id)
                    .map(|r| r.text.clone())
                    .unwrap_or_else(|| format!("(no tool_result for {id})")),
            )
        } else if key == "user_text" {
            Some(last_user_text(body))
        } else {
            None
        };
        out.push_str(&rest[..start]);
        match value {
            Some(v) => out.push_str(&v),
            None => out.push_str(&rest[start..start + 4 + len]),
        }
        rest = &rest[start + 4 + len..];
    }
    out.push_str(rest);
    out
}

/// A reply ready to serve: the model name, message id, blocks (placeholders expanded) and stop reason.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub id: String,
    pub model: String,
    pub blocks: Vec<Block>,
    pub stop_reason: &'static str,
    pub input_tokens: u64,
}

impl Reply {
    fn output_tokens(&self) -> u64 {
        let chars: usize = self
            .blocks
            .iter()
            .map(|b| match b {
                Block::Text { text } => text.len(),
                Block::ToolUse { input, name, .. } => input.to_string().len() + name.len(),
            })
            .sum();
        (chars as u64 / 4).max(1)
    }

    fn usage(&self, output_tokens: u64) -> Value {
        json!({
            "input_tokens": self.input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": output_tokens,
        })
    }

    fn block_json(block: &Block) -> Value {
        match block {
            Block::Text { text } => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        }
    }

    /// The whole message object (non-streaming reply).
    pub fn message(&self) -> Value {
        json!({
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": self.blocks.iter().map(Reply::block_json).collect::<Vec<_>>(),
            "stop_reason": self.stop_reason,
            "stop_sequence": null,
            "usage": self.usage(self.output_tokens()),
        })
    }

    /// The SSE events `(name, data)` of the streaming reply, in order.
    pub fn events(&self) -> Vec<(&'static str, Value)> {
        let mut ev = Vec::new();
        ev.push((
            "message_start",
            json!({"type": "message_start", "message": {
                "id": self.id, "type": "message", "role": "assistant", "model": self.model,
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": self.usage(1),
            }}),
        ));
        if self.blocks.is_empty() {
            ev.push(("ping", json!({"type": "ping"})));
        }
        for (index, block) in self.blocks.iter().enumerate() {
            let start = match block {
                Block::Text { .. } => json!({"type": "text", "text": ""}),
                Block::ToolUse { id, name, .. } => {
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}})
                }
            };
            ev.push((
                "content_block_start",
                json!({"type": "content_block_start", "index": index, "content_block": start}),
            ));
            if index == 0 {
                ev.push(("ping", json!({"type": "ping"})));
            }
            let deltas: Vec<Value> = match block {
                Block::Text { text } => split_pieces(text, 3)
                    .into_iter()
                    .map(|p| json!({"type": "text_delta", "text": p}))
                    .collect(),
                Block::ToolUse { input, .. } => {
                    let mut d = vec![json!({"type": "input_json_delta", "partial_json": ""})];
                    d.extend(
                        split_pieces(&input.to_string(), 3)
                            .into_iter()
                            .map(|p| json!({"type": "input_json_delta", "partial_json": p})),
                    );
                    d
                }
            };
            for delta in deltas {
                ev.push((
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": index, "delta": delta}),
                ));
            }
            ev.push((
                "content_block_stop",
                json!({"type": "content_block_stop", "index": index}),
            ));
        }
        ev.push((
            "message_delta",
            json!({"type": "message_delta",
                   "delta": {"stop_reason": self.stop_reason, "stop_sequence": null},
                   "usage": {"output_tokens": self.output_tokens()}}),
        ));
        ev.push(("message_stop", json!({"type": "message_stop"})));
        ev
    }
}

/// Frames one SSE event: `event: <name>\ndata: <json>\n\n`.
pub(crate) fn sse_frame(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// Splits `text` into at most `n` non-empty pieces on char boundaries (one empty piece for "").
pub(crate) fn split_pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    let size = chars.len().div_ceil(n.max(1));
    chars.chunks(size).map(|c| c.iter().collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders() {
        let body = json!({"messages": [
            {"role": "user", "content": "q"},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "a", "content": [{"type": "text", "text": "one"}]},
                {"type": "tool_result", "tool_use_id": "b", "content": "two<system-reminder>x</system-reminder>"}
            ]}
        ]});
        assert_eq!(
            expand(
                "[{{tool_result}}|{{tool_result:a}}|{{tool_result:zz}}|{{other}}|{{user_text}}]",
                &body
            ),
            "[two|one|(no tool_result for zz)|{{other}}|]"
        );
        assert_eq!(
            expand("{{tool_result}} {{", &json!({})),
            "(no tool_result) {{"
        );
    }

    #[test]
    fn pieces() {
        assert_eq!(split_pieces("abcdefg", 3), ["abc", "def", "g"]);
        assert_eq!(split_pieces("ab", 3), ["a", "b"]);
        assert_eq!(split_pieces("", 3), [""]);
        assert_eq!(split_pieces("héé", 2), ["hé", "é"]);
    }

    #[test]
    fn event_order() {
        let r = Reply {
            id: "msg_1".into(),
            model: "m".into(),
            blocks: vec![
                Block::Text { text: "hi".into() },
                Block::ToolUse {
                    id: "t".into(),
                    name: "n".into(),
                    input: json!({"a": 1}),
                },
            ],
            stop_reason: "tool_use",
            input_tokens: 7,
        };
        let names: Vec<&str> = r.events().iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "ping",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(
            sse_frame("ping", &json!({"type": "ping"})),
            "event: ping\ndata: {\"type\":\"ping\"}\n\n"
        );
    }
}
