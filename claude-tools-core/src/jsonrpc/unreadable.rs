//! [`Unreadable`]: bytes the decoder could not read, and the one answer they get on every
//! transport.

use super::{Answer, ErrorObject, RequestId, Response};
use crate::json_scan::MessageHead;
use crate::tool::ToolResult;

/// A message whose bytes are not JSON serde_json can read (broken text, a number out of a
/// 64-bit float's range in a tool's arguments, nesting past 128 levels), with what a scan could
/// still make out of it.
///
/// Its answer ([`Unreadable::response`]) is the same on every transport: a `tools/call` whose
/// id could be read gets an `isError` result naming the tool and what was wrong, which the model
/// reads and can correct (as for any argument it got wrong); anything else gets `-32700 "Parse
/// error"`, with the id when it could be read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Unreadable {
    /// The message's id, when a scan could read it.
    pub id: Option<RequestId>,
    /// Its method, when a scan could read it.
    pub method: Option<String>,
    /// A `tools/call`'s tool, when a scan could read it.
    pub tool: Option<String>,
    /// What was wrong, in words ([`Unreadable::describe`]).
    pub reason: String,
}

impl Unreadable {
    /// What a scan of `bytes` makes out, with `reason`.
    pub fn new(head: MessageHead, reason: String) -> Self {
        Self {
            id: head.id.and_then(|id| RequestId::from_json(id.json()).ok()),
            method: head.method,
            tool: head.tool,
            reason,
        }
    }

    /// serde_json's refusal in words, with what to do about the faults a sender can fix. The
    /// position is left out: it depends on what carried the message (a control line, an HTTP
    /// body), and the answer must not.
    pub fn describe(error: &serde_json::Error) -> String {
        let full = error.to_string();
        let position = format!(" at line {} column {}", error.line(), error.column());
        let text = full.strip_suffix(&position).unwrap_or(&full);
        if text.starts_with("number out of range") {
            "a number in it is out of range: JSON numbers must fit a 64-bit float (at most about \
             1.8e308); send such a value as a string"
                .to_string()
        } else if text.starts_with("recursion limit exceeded") {
            "it is nested too deeply: JSON is read to at most 128 levels, about 120 inside a \
             tool's arguments; send flatter data"
                .to_string()
        } else {
            format!("it is not valid JSON ({text})")
        }
    }

    /// The answer it gets (see the type's docs).
    pub fn response(&self) -> Response {
        let reason = &self.reason;
        match (&self.id, self.method.as_deref()) {
            (Some(id), Some("tools/call")) => {
                let tool = self
                    .tool
                    .as_deref()
                    .map(|tool| format!(" to `{}`", super::echo(tool)))
                    .unwrap_or_default();
                Response::success(
                    id.clone(),
                    Answer::Tool(ToolResult::error(format!(
                        "The server could not read this tool call{tool}: {reason}"
                    ))),
                )
            }
            (id, method) => {
                let what = method
                    .map(|method| format!(" `{}`", super::echo(method)))
                    .unwrap_or_default();
                Response::error(
                    id.clone(),
                    ErrorObject::parse_error(format!(
                        "The server could not read this message{what}: {reason}"
                    )),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_scan::message_head;

    fn unreadable(text: &str) -> Unreadable {
        let error = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        Unreadable::new(message_head(text.as_bytes()), Unreadable::describe(&error))
    }

    #[test]
    fn a_tool_call_gets_a_result_the_model_reads_and_the_rest_a_parse_error() {
        let call = unreadable(
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":1e400}}}"#,
        );
        assert_eq!(
            call.response().to_json(),
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"The server could not read this tool call to `add`: a number in it is out of range: JSON numbers must fit a 64-bit float (at most about 1.8e308); send such a value as a string"}],"isError":true}}"#
        );
        let list =
            unreadable(r#"{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{"x":tru}}"#);
        assert_eq!(
            list.response().to_json(),
            r#"{"jsonrpc":"2.0","id":"l","error":{"code":-32700,"message":"Parse error","data":"The server could not read this message `tools/list`: it is not valid JSON (expected ident)"}}"#
        );
        let nothing = unreadable("{oops");
        assert_eq!(nothing.response().id, None);
        let deep = unreadable(&format!("{}1{}", "[".repeat(200), "]".repeat(200)));
        assert!(
            deep.reason.starts_with("it is nested too deeply"),
            "{}",
            deep.reason
        );
    }
}
