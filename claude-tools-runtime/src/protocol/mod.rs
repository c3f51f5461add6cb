//! The control protocol's one home: every frame of the CLI's stdin and stdout, typed.
//!
//! - [`incoming`]: what the CLI writes, classified once into an [`Incoming`]; its requests as a
//!   [`CliRequest`] (`mcp_message`, `can_use_tool`, `hook_callback`, `elicitation`, other).
//! - [`outgoing`]: every control request the host sends, as a [`HostRequest`], and the typed
//!   payloads of its answers.
//! - [`hook_id`]: [`HookCallbackId`], the `hook_N` scheme both ways.
//! - [`recover`]: what a line that cannot be parsed still tells, so its request is answered.
//!
//! This file writes the answer lines, straight from borrowed payloads (the constant parts as
//! bytes, only the request id and the payload through the serialiser).

use serde::Serialize;

use claude_tools_core::mcp::Response;
use serde_json::Value;

mod hook_id;
mod incoming;
mod outgoing;
mod recover;

pub(crate) use hook_id::HookCallbackId;
pub(crate) use incoming::{CliRequest, ControlFailure, Incoming, ParseError};
pub(crate) use outgoing::{
    ClaimSessionBody, DialogAnswer, HostRequest, InitializeRequest, PermissionAnswer, SdkServers,
    cancel_line, request_line,
};
pub(crate) use recover::{Fault, Found, scan, write_answer};

/// Serialises a frame as one NDJSON line (with its newline).
pub(crate) fn line(frame: &Value) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(256);
    // Serialising a `Value` cannot fail: its keys are strings.
    let _ = serde_json::to_writer(&mut bytes, frame);
    bytes.push(b'\n');
    bytes
}

/// Appends `value` as JSON. Serialising strings, `Value`s and tool results cannot fail.
fn write_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let _ = serde_json::to_writer(&mut *out, value);
}

// The constant parts of an answer are written as they are: only the request id and the payload
// go through the serialiser.
const SUCCESS_HEAD: &[u8] =
    br#"{"type":"control_response","response":{"subtype":"success","request_id":"#;
const ERROR_HEAD: &[u8] =
    br#"{"type":"control_response","response":{"subtype":"error","request_id":"#;

/// Appends an answer line: `head`, the request id, then what `rest` writes, then the newline.
fn answer_line(out: &mut Vec<u8>, head: &[u8], request_id: &str, rest: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(head);
    write_json(out, request_id);
    rest(out);
    out.push(b'\n');
}

/// [`answer_line`] with the request id already JSON (a string or a number as it came).
fn answer_line_raw(
    out: &mut Vec<u8>,
    head: &[u8],
    request_id: &str,
    rest: impl FnOnce(&mut Vec<u8>),
) {
    out.extend_from_slice(head);
    out.extend_from_slice(request_id.as_bytes());
    rest(out);
    out.push(b'\n');
}

/// Appends the line `{"type":"control_response","response":{"subtype":"success","request_id":…,"response":…}}`.
pub(crate) fn success_line<P: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    request_id: &str,
    payload: &P,
) {
    answer_line(out, SUCCESS_HEAD, request_id, |out| {
        out.extend_from_slice(br#","response":"#);
        write_json(out, payload);
        out.extend_from_slice(b"}}");
    });
}

/// What an `mcp_message` the router does not answer (a notification, a client's response) is
/// answered with: JSON-RPC answers no notification, but the Claude Code CLI awaits an
/// `mcp_response` for every `mcp_message` and fails the server after 60 s without one (and at
/// once on an error). The official SDKs send this placeholder.
pub(crate) const NOTIFICATION_PLACEHOLDER: &[u8] = br#"{"jsonrpc":"2.0","result":{}}"#;

/// Appends the success line answering an `mcp_message`: its payload is
/// `{"mcp_response": <response>}`, the placeholder when the router gave none.
pub(crate) fn mcp_success_line(out: &mut Vec<u8>, request_id: &str, response: Option<&Response>) {
    answer_line(out, SUCCESS_HEAD, request_id, |out| {
        out.extend_from_slice(br#","response":{"mcp_response":"#);
        match response {
            Some(response) => response.write_to(out),
            None => out.extend_from_slice(NOTIFICATION_PLACEHOLDER),
        }
        out.extend_from_slice(b"}}}");
    });
}

/// Appends the line `{"type":"control_response","response":{"subtype":"error","request_id":…,"error":…}}`.
pub(crate) fn error_line(out: &mut Vec<u8>, request_id: &str, message: &str) {
    answer_line(out, ERROR_HEAD, request_id, |out| {
        out.extend_from_slice(br#","error":"#);
        write_json(out, message);
        out.extend_from_slice(b"}}");
    });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use claude_tools_core::mcp::{Answer, RequestId};

    /// A line appended to an empty buffer.
    fn written(write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out);
        out
    }

    #[test]
    fn builds_exact_envelopes() {
        assert_eq!(
            String::from_utf8(written(|out| success_line(out, "r1", &json!({"x": 1})))).unwrap(),
            "{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"r1\",\"response\":{\"x\":1}}}\n"
        );
        let reply = Response::success(RequestId::from(0), Answer::Empty);
        let mcp: Value =
            serde_json::from_slice(&written(|out| mcp_success_line(out, "r2", Some(&reply))))
                .unwrap();
        assert_eq!(
            mcp,
            json!({"type": "control_response", "response": {"subtype": "success", "request_id": "r2",
                "response": {"mcp_response": {"jsonrpc": "2.0", "id": 0, "result": {}}}}})
        );
        let result = claude_tools_core::tool::ToolResult::text("5");
        assert_eq!(
            String::from_utf8(written(|out| mcp_success_line(
                out,
                "r4",
                Some(&Response::success(RequestId::from(2), Answer::Tool(result)))
            )))
            .unwrap(),
            concat!(
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"r4","response":"#,
                r#"{"mcp_response":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"5"}],"#,
                r#""isError":false}}}}}"#,
                "\n"
            )
        );
        assert_eq!(
            String::from_utf8(written(|out| mcp_success_line(out, "r5", None))).unwrap(),
            concat!(
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"r5","response":"#,
                r#"{"mcp_response":{"jsonrpc":"2.0","result":{}}}}}"#,
                "\n"
            )
        );
        assert_eq!(
            String::from_utf8(written(|out| error_line(out, "r\"3", "boom"))).unwrap(),
            "{\"type\":\"control_response\",\"response\":{\"subtype\":\"error\",\"request_id\":\"r\\\"3\",\"error\":\"boom\"}}\n"
        );
    }
}
