//! Lines that do not parse: what can still be read from them, and the answer they are owed.
//!
//! Nothing here runs for a line that parses. When one does not, [`scan`] reads the few fields an
//! answer needs — `type`, `request_id`, `request.subtype`, `request.server_name` and, for an
//! `mcp_message`, the JSON-RPC `message.id`, `method` and `params.name` — with a tolerant byte
//! scanner that skips every other value whatever it holds (bad escapes, out-of-range numbers,
//! any depth of nesting: it keeps a counter, not a stack) and stops quietly where the line is
//! cut short. [`write_answer`] then answers the request with an error that says what was wrong.
//! The scanner (`claude_tools_core::json_scan`) is shared with the MCP servers, which read a
//! bare JSON-RPC message's `id` the same way.
//!
//! An id is kept as the line wrote it (`RawId`) and echoed so, as a `RequestId` is on every
//! other path.

use crate::error::RequestRef;
use claude_tools_core::json_scan::{MessageHead, RawId, Scanner};
use claude_tools_core::mcp::Unreadable;

/// What could be read from a line that does not parse.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// `type`.
    pub(crate) kind: Option<String>,
    /// `request_id`, a string or a number.
    pub(crate) request_id: Option<RawId>,
    /// `request.subtype`.
    pub(crate) subtype: Option<String>,
    /// `request.server_name`.
    pub(crate) server_name: Option<String>,
    /// `request.message.id`: the JSON-RPC id of an `mcp_message`.
    pub(crate) rpc_id: Option<RawId>,
    /// `request.message.method`.
    pub(crate) method: Option<String>,
    /// `request.message.params.name`: the tool of a `tools/call`.
    pub(crate) tool: Option<String>,
    /// `response.request_id`: the host's request a `control_response` answers.
    pub(crate) response_id: Option<RawId>,
}

impl Found {
    /// The id of the host's request this line answered, if it was a `control_response` whose
    /// `response.request_id` (a string) could be read.
    pub(crate) fn answered_request(&self) -> Option<String> {
        if self.kind.as_deref() != Some("control_response") {
            return None;
        }
        let id = self.response_id.as_ref()?;
        id.json().starts_with('"').then(|| id.text())
    }

    /// The control request the line carried, if it was one and its id could be read.
    pub(crate) fn request(&self) -> Option<RequestRef> {
        if self.kind.as_deref() != Some("control_request") {
            return None;
        }
        let request_id = self.request_id.as_ref()?;
        Some(RequestRef::new(request_id.text(), self.subtype.clone()))
    }
}

/// What was wrong with a line.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Fault<'e> {
    /// serde_json refused it.
    Json(&'e serde_json::Error),
    /// It is JSON, but not a frame the protocol allows.
    Protocol(&'e str),
    /// It was longer than the cap and was skipped.
    TooLong { size: usize, limit: usize },
}

impl Fault<'_> {
    /// The fault in words, for whoever sent the line (the model, for a tool call).
    pub(crate) fn describe(&self) -> String {
        match self {
            Fault::Json(error) => Unreadable::describe(error),
            Fault::Protocol(problem) => (*problem).to_string(),
            Fault::TooLong { size, limit } => format!(
                "it is {size} bytes long, over the host's limit of {limit} bytes for one line \
                 (Options::max_line_size)"
            ),
        }
    }
}

/// Appends the answer owed to the control request `found` describes, which could not be read
/// for `fault`. Writes nothing for a line that was no `control_request` or whose `request_id`
/// could not be read (there is nothing to answer).
///
/// An `mcp_message` is answered in JSON-RPC when its id is known, so the fault reaches the tool's
/// caller: a `tools/call` gets an `isError` result the model reads (it can correct its call),
/// another method a `-32700` error, a notification the placeholder the CLI waits for. Anything
/// else gets a control error naming the fault.
pub(crate) fn write_answer(out: &mut Vec<u8>, found: &Found, fault: Fault<'_>) {
    if found.kind.as_deref() != Some("control_request") {
        return;
    }
    let Some(request_id) = &found.request_id else {
        return;
    };
    let detail = fault.describe();
    let subtype = found.subtype.as_deref();
    let method = found.method.as_deref();
    // The JSON-RPC id goes back as the line wrote it, whatever its size (as a `RequestId` does).
    let rpc_id = found.rpc_id.as_ref();
    if subtype == Some("mcp_message") {
        let notification =
            rpc_id.is_none() && method.is_some_and(|method| method.starts_with("notifications/"));
        if notification {
            // The CLI waits for an answer to every `mcp_message`, and an error answer to a
            // notification fails the server: it gets the usual placeholder.
            return mcp_answer(out, request_id, |out| {
                out.extend_from_slice(super::NOTIFICATION_PLACEHOLDER);
            });
        }
        // Without its JSON-RPC id, the control request's own id is what the CLI can match (a
        // JSON-RPC error of `id: null` would leave its call waiting): the control error below.
        if let Some(id) = rpc_id {
            // The answer stdio and HTTP give the same message (`Unreadable`): an `isError`
            // result for a `tools/call`, a `-32700` for anything else.
            let head = MessageHead {
                id: Some(id.clone()),
                method: found.method.clone(),
                tool: found.tool.clone(),
            };
            let answer = Unreadable::new(head, detail).response();
            return mcp_answer(out, request_id, |out| answer.write_to(out));
        }
    }
    let what = match subtype {
        Some(subtype) => format!("`{subtype}` request"),
        None => "control request".to_string(),
    };
    super::answer_line_raw(out, super::ERROR_HEAD, request_id.json(), |out| {
        out.extend_from_slice(br#","error":"#);
        super::write_json(
            out,
            &format!("The host could not read this {what}: {detail}"),
        );
        out.extend_from_slice(b"}}");
    });
}

/// A success line whose payload is `{"mcp_response": <what reply writes>}`.
fn mcp_answer(out: &mut Vec<u8>, request_id: &RawId, reply: impl FnOnce(&mut Vec<u8>)) {
    super::answer_line_raw(out, super::SUCCESS_HEAD, request_id.json(), |out| {
        out.extend_from_slice(br#","response":{"mcp_response":"#);
        reply(out);
        out.extend_from_slice(b"}}}");
    });
}

/// Where in the line the scanner is reading.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Top,
    Request,
    Message,
    Params,
    Response,
}

impl Level {
    /// The object this one is a field of.
    fn parent(self) -> Option<Level> {
        match self {
            Level::Top => None,
            Level::Request => Some(Level::Top),
            Level::Message => Some(Level::Request),
            Level::Params => Some(Level::Message),
            Level::Response => Some(Level::Top),
        }
    }
}

/// Reads what it can of a line (or of the start of one) that does not parse. Never fails and
/// never recurses: whatever cannot be read is left out.
pub(crate) fn scan(line: &[u8]) -> Found {
    let mut found = Found::default();
    let mut s = Scanner {
        bytes: line,
        pos: 0,
    };
    s.whitespace();
    if !s.eat(b'{') {
        return found;
    }
    let mut level = Level::Top;
    loop {
        s.whitespace();
        match s.peek() {
            Some(b',') => s.pos += 1,
            Some(b'}') => {
                s.pos += 1;
                match level.parent() {
                    Some(parent) => level = parent,
                    None => return found,
                }
            }
            Some(b'"') => {
                let Some(key) = s.string() else {
                    return found;
                };
                s.whitespace();
                if !s.eat(b':') {
                    return found;
                }
                s.whitespace();
                let object_follows = s.peek() == Some(b'{');
                match (level, key) {
                    (Level::Top, b"type") => found.kind = s.text(),
                    (Level::Top, b"request_id") => found.request_id = s.id(),
                    (Level::Top, b"request") if object_follows => {
                        s.pos += 1;
                        level = Level::Request;
                    }
                    (Level::Request, b"subtype") => found.subtype = s.text(),
                    (Level::Request, b"server_name") => found.server_name = s.text(),
                    (Level::Request, b"message") if object_follows => {
                        s.pos += 1;
                        level = Level::Message;
                    }
                    (Level::Message, b"id") => found.rpc_id = s.id(),
                    (Level::Message, b"method") => found.method = s.text(),
                    (Level::Message, b"params") if object_follows => {
                        s.pos += 1;
                        level = Level::Params;
                    }
                    (Level::Params, b"name") => found.tool = s.text(),
                    (Level::Top, b"response") if object_follows => {
                        s.pos += 1;
                        level = Level::Response;
                    }
                    (Level::Response, b"request_id") => found.response_id = s.id(),
                    _ => {
                        if !s.skip_value() {
                            return found;
                        }
                    }
                }
            }
            // Anything else is not JSON the scanner can follow.
            _ => return found,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Option<RawId> {
        Some(RawId(text.to_string()))
    }

    #[test]
    fn scans_the_fields_an_answer_needs_in_any_order_past_anything() {
        let line = br#"{"junk":[{"a":"\q\"}"},1e400,[[[[[["deep"]]]]]],nul],"request_id":"r\"1","type":"control_request","request":{"x":{"subtype":"no"},"message":{"params":{"arguments":{"n":1e999,"s":"\ud800"},"name":"add"},"method":"tools/call","jsonrpc":"2.0","id":7},"server_name":"calc","subtype":"mcp_message"}}"#;
        assert_eq!(
            scan(line),
            Found {
                kind: Some("control_request".into()),
                request_id: raw(r#""r\"1""#),
                subtype: Some("mcp_message".into()),
                server_name: Some("calc".into()),
                rpc_id: raw("7"),
                method: Some("tools/call".into()),
                tool: Some("add".into()),
                response_id: None,
            }
        );
        assert_eq!(
            scan(line).request(),
            Some(RequestRef::new("r\"1", Some("mcp_message".into())))
        );
    }

    #[test]
    fn finds_which_host_request_an_unreadable_answer_was_for() {
        let line = br#"{"type":"control_response","response":{"response":{"n":1e400},"subtype":"success","request_id":"req_3"}}"#;
        let found = scan(line);
        assert_eq!(
            (found.answered_request(), found.request()),
            (Some("req_3".to_string()), None)
        );
        // Numbers are no ids of the host's; a request's answer is not a request.
        let numeric = scan(br#"{"type":"control_response","response":{"request_id":3}}"#);
        assert_eq!(numeric.answered_request(), None);
        let request = scan(br#"{"type":"control_request","response":{"request_id":"x"}}"#);
        assert_eq!(request.answered_request(), None);
    }

    #[test]
    fn depth_costs_the_scanner_nothing() {
        let deep = "[".repeat(1_000_000);
        let line = format!(r#"{{"type":"control_request","a":{deep}"#);
        assert_eq!(
            scan(line.as_bytes()).kind.as_deref(),
            Some("control_request")
        );
        let line = format!(
            r#"{{"a":{deep}{close},"request_id":5}}"#,
            close = "]".repeat(1_000_000)
        );
        assert_eq!(scan(line.as_bytes()).request_id, raw("5"));
    }

    #[test]
    fn a_cut_or_broken_line_gives_what_precedes_the_cut() {
        let line = br#"{"type":"control_request","request_id":"r9","request":{"subtype":"mcp_mes"#;
        let found = scan(line);
        assert_eq!(
            (found.kind.as_deref(), found.request_id, found.subtype),
            (Some("control_request"), raw(r#""r9""#), None)
        );
        for garbage in [
            &b""[..],
            b"garbage",
            b"[1]",
            b"{",
            b"{\"type\"",
            b"{\"type\":}",
            b"{7}",
        ] {
            assert_eq!(scan(garbage), Found::default(), "{garbage:?}");
        }
        // Ids that are neither strings nor numbers, or not JSON as written, are not echoed.
        for id in ["null", "{\"a\":1}", "\"bad\\x\"", "-", "1e"] {
            let line = format!(r#"{{"type":"control_request","request_id":{id}}}"#);
            assert_eq!(scan(line.as_bytes()).request_id, None, "{id}");
        }
        for id in ["-12", "1e400", "0.5", "\"\\ud800x\"", "\"é\""] {
            let line = format!(r#"{{"type":"control_request","request_id":{id}}}"#);
            assert_eq!(scan(line.as_bytes()).request_id, raw(id), "{id}");
        }
        assert_eq!(RawId("\"\\ud800x\"".into()).text(), "\u{fffd}x");
        assert_eq!(RawId("\"a\\\"b\"".into()).text(), "a\"b");
        assert_eq!(RawId("1e400".into()).text(), "1e400");
    }

    fn answer(found: &Found, fault: Fault<'_>) -> Option<String> {
        let mut out = Vec::new();
        write_answer(&mut out, found, fault);
        (!out.is_empty()).then(|| String::from_utf8(out).unwrap())
    }

    #[test]
    fn answers_in_json_rpc_when_it_can_else_with_a_control_error() {
        let mcp = |id: Option<&str>, method: Option<&str>| Found {
            kind: Some("control_request".into()),
            request_id: raw(r#""r1""#),
            subtype: Some("mcp_message".into()),
            server_name: Some("calc".into()),
            rpc_id: id.and_then(raw),
            method: method.map(String::from),
            tool: Some("add".into()),
            response_id: None,
        };
        let too_long = Fault::TooLong {
            size: 2000,
            limit: 1024,
        };
        let limit_text = "it is 2000 bytes long, over the host's limit of 1024 bytes for one line (Options::max_line_size)";
        assert_eq!(
            answer(&mcp(Some("3"), Some("tools/call")), too_long).unwrap(),
            format!(
                concat!(
                    r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"r1","response":{{"mcp_response":"#,
                    r#"{{"jsonrpc":"2.0","id":3,"result":{{"content":[{{"type":"text","text":"The server could not read this tool call to `add`: {}"}}],"isError":true}}}}}}}}}}"#,
                    "\n"
                ),
                limit_text
            )
        );
        assert_eq!(
            answer(&mcp(Some(r#""x""#), Some("tools/list")), too_long).unwrap(),
            format!(
                concat!(
                    r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"r1","response":{{"mcp_response":"#,
                    r#"{{"jsonrpc":"2.0","id":"x","error":{{"code":-32700,"message":"Parse error","data":"The server could not read this message `tools/list`: {}"}}}}}}}}}}"#,
                    "\n"
                ),
                limit_text
            )
        );
        assert_eq!(
            answer(&mcp(None, Some("notifications/cancelled")), too_long).unwrap(),
            concat!(
                r#"{"type":"control_response","response":{"subtype":"success","request_id":"r1","response":{"mcp_response":"#,
                r#"{"jsonrpc":"2.0","result":{}}}}}"#,
                "\n"
            )
        );
        assert_eq!(
            answer(&mcp(None, Some("tools/call")), Fault::Protocol("broken")).unwrap(),
            concat!(
                r#"{"type":"control_response","response":{"subtype":"error","request_id":"r1","#,
                r#""error":"The host could not read this `mcp_message` request: broken"}}"#,
                "\n"
            )
        );
        let numeric = Found {
            kind: Some("control_request".into()),
            request_id: raw("7"),
            ..Found::default()
        };
        assert_eq!(
            answer(&numeric, Fault::Protocol("bad")).unwrap(),
            concat!(
                r#"{"type":"control_response","response":{"subtype":"error","request_id":7,"#,
                r#""error":"The host could not read this control request: bad"}}"#,
                "\n"
            )
        );
        // Nothing to answer: no id, or not a request.
        let no_id = Found {
            request_id: None,
            ..numeric.clone()
        };
        let message = Found {
            kind: Some("assistant".into()),
            ..numeric
        };
        assert_eq!(answer(&no_id, Fault::Protocol("bad")), None);
        assert_eq!(answer(&message, Fault::Protocol("bad")), None);
    }

    #[test]
    fn json_faults_say_what_to_do() {
        let fault = |text: &str| {
            let error = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
            Fault::Json(&error).describe()
        };
        assert_eq!(
            fault("[1e400]"),
            "a number in it is out of range: JSON numbers must fit a 64-bit float (at most about \
             1.8e308); send such a value as a string"
        );
        assert_eq!(
            fault(&"[".repeat(200)),
            "it is nested too deeply: JSON is read to at most 128 levels, about 120 inside a \
             tool's arguments; send flatter data"
        );
        assert_eq!(
            fault("{\"a\""),
            "it is not valid JSON (EOF while parsing an object)"
        );
    }
}
