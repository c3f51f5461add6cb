//! MCP 2026-07-28's standard request headers: `Mcp-Method` and `Mcp-Name` say what a `POST`
//! asks without the body being read (a gateway routes or refuses on them), so the server
//! checks that they say what the body says.
//!
//! | request | header | must equal |
//! |---|---|---|
//! | every request | `Mcp-Method` | `method` |
//! | `tools/call`, `prompts/get` | `Mcp-Name` | `params.name` |
//! | `resources/read` | `Mcp-Name` | `params.uri` |
//! | `tasks/get`, `tasks/update`, `tasks/cancel` (the tasks extension) | `Mcp-Name` | `params.taskId` (when the params have a string one; otherwise the router answers `-32602`) |
//! | `tools/call` of a tool with header-carried parameters ([`header_params`](claude_tools_core::tool::header_params)) | `Mcp-Param-{Name}` for each | the argument (integers compared as numbers); a header without its argument, or an argument without its header, is a mismatch |
//!
//! A header missing where the table needs it, sent twice, not text, or not equal to the body
//! is `-32020` (HTTP 400). A value may be written `=?base64?<standard base64 of the UTF-8
//! value>?=` (for names that are not ASCII or that have characters a header cannot carry);
//! it is decoded before the comparison, and a malformed one is `-32020` too. Header names are
//! matched without regard to case (HTTP's rule), values exactly, after trimming the spaces
//! HTTP allows around them.

use std::borrow::Cow;

use axum::http::{HeaderMap, HeaderName};
use base64::Engine;
use claude_tools_core::mcp::{Call, ErrorObject, Request};
use claude_tools_core::tool::ToolServer;

use super::head::{Head, Values};

/// The header naming the request's method (a `HeaderName`, not a `&str`: a lookup by `&str`
/// parses the name again on every request).
pub(super) const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
/// The header naming the tool, prompt or resource the request is about.
pub(super) const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");

/// The methods of the tasks extension, whose `Mcp-Name` is the task's id.
const TASK_METHODS: [&str; 3] = ["tasks/get", "tasks/update", "tasks/cancel"];

/// Checks `headers` against `request` (the table of the [module docs](self)); `server` says
/// which tool parameters travel in headers.
pub(super) fn check(
    head: &Head<'_>,
    request: &Request,
    server: &ToolServer,
) -> Result<(), ErrorObject> {
    let method = request.method();
    match text_of(head.method, &METHOD_HEADER)? {
        None => {
            return Err(ErrorObject::header_mismatch(format!(
                "an MCP 2026-07-28 request needs the `Mcp-Method` header (`{}` here)",
                claude_tools_core::mcp::echo_text(method)
            )));
        }
        Some(sent) if sent != method => {
            return Err(ErrorObject::header_mismatch(format!(
                "the `Mcp-Method` header says `{}` but the body's method is `{}`",
                claude_tools_core::mcp::echo_text(&sent),
                claude_tools_core::mcp::echo_text(method)
            )));
        }
        Some(_) => {}
    }
    let task_id;
    let name = match &request.call {
        Call::ToolsCall(call) => Some(call.name.as_str()),
        Call::PromptsGet(Ok(get)) => Some(get.name.as_str()),
        Call::ResourcesRead(Ok(read)) => Some(read.uri.as_str()),
        Call::Other { method, params } if TASK_METHODS.contains(&method.as_str()) => {
            task_id = claude_tools_core::task::task_id_of(params.as_ref());
            task_id.as_deref()
        }
        _ => None,
    };
    let Some(name) = name else {
        return Ok(());
    };
    match text_of(head.name, &NAME_HEADER)? {
        None => {
            return Err(ErrorObject::header_mismatch(format!(
                "an MCP 2026-07-28 `{method}` request needs the `Mcp-Name` header, naming `{}`",
                claude_tools_core::mcp::echo_text(name)
            )));
        }
        Some(sent) if sent != name => {
            return Err(ErrorObject::header_mismatch(format!(
                "the `Mcp-Name` header says `{}` but the body names `{}`",
                claude_tools_core::mcp::echo_text(&sent),
                claude_tools_core::mcp::echo_text(name)
            )));
        }
        Some(_) => {}
    }
    let Call::ToolsCall(call) = &request.call else {
        return Ok(());
    };
    let Some(tool) = server.tool(&call.name) else {
        return Ok(());
    };
    for param in tool.header_params() {
        // The name was checked as a token when the server was built: it is a header name.
        let Ok(header) = HeaderName::try_from(format!("mcp-param-{}", param.header)) else {
            continue;
        };
        let sent = header_value(head.map, &header)?;
        match (sent, call.arguments.get(&param.property)) {
            (None, None) => {}
            (Some(text), Some(value)) if param.agrees(&text, value) => {}
            (None, Some(_)) => {
                return Err(ErrorObject::header_mismatch(format!(
                    "the argument `{}` travels in the header `Mcp-Param-{}` too, which is missing",
                    param.property, param.header
                )));
            }
            (Some(_), None) => {
                return Err(ErrorObject::header_mismatch(format!(
                    "the header `Mcp-Param-{}` names an argument `{}` the body does not have",
                    param.header, param.property
                )));
            }
            (Some(_), Some(_)) => {
                return Err(ErrorObject::header_mismatch(format!(
                    "the header `Mcp-Param-{}` does not say what the argument `{}` says",
                    param.header, param.property
                )));
            }
        }
    }
    Ok(())
}

/// The value of the header `name`, decoded: `None` when absent; `-32020` when it is sent
/// twice, is not text, or is a malformed `=?base64?…?=`.
pub(super) fn header_value<'h>(
    headers: &'h HeaderMap,
    name: &HeaderName,
) -> Result<Option<Cow<'h, str>>, ErrorObject> {
    let mut values = headers.get_all(name).iter();
    let found = match (values.next(), values.next()) {
        (None, _) => Values::Absent,
        (Some(value), None) => Values::One(value),
        (Some(value), Some(_)) => Values::Several(value),
    };
    text_of(found, name)
}

/// The text of the header `name`'s `values` ([`header_value`]).
fn text_of<'h>(values: Values<'h>, name: &HeaderName) -> Result<Option<Cow<'h, str>>, ErrorObject> {
    let value = match values {
        Values::Absent => return Ok(None),
        Values::One(value) => value,
        Values::Several(_) => {
            return Err(ErrorObject::header_mismatch(format!(
                "the `{name}` header is sent more than once"
            )));
        }
    };
    let Ok(text) = value.to_str() else {
        return Err(ErrorObject::header_mismatch(format!(
            "the `{name}` header is not visible ASCII; write a value that is not as \
             `=?base64?…?=`"
        )));
    };
    decode(text.trim_ascii()).map(Some).ok_or_else(|| {
        ErrorObject::header_mismatch(format!(
            "the `{name}` header's `=?base64?…?=` value is not base64 of UTF-8 text"
        ))
    })
}

/// A header value as text: `=?base64?…?=` decoded, anything else as it is (not copied).
fn decode(value: &str) -> Option<Cow<'_, str>> {
    let Some(encoded) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(Cow::Borrowed(value));
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    String::from_utf8(bytes).ok().map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use claude_tools_core::mcp::{ErrorCode, Message};

    fn request(text: &str) -> Request {
        match Message::decode(text.as_bytes()) {
            Message::Request(request) => request,
            other => panic!("{other:?}"),
        }
    }

    fn headers(pairs: &[(&'static str, &[u8])]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_bytes(value).unwrap());
        }
        headers
    }

    fn code(headers: &HeaderMap, request: &Request) -> Option<ErrorCode> {
        let server = ToolServer::new("s", "1");
        check(&Head::of(headers), request, &server)
            .err()
            .map(|error| error.code)
    }

    #[test]
    fn a_tasks_requests_mcp_name_is_its_task_id() {
        let mismatch = Some(ErrorCode::HEADER_MISMATCH);
        for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
            let get = request(&format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{"taskId":"t-1","inputResponses":{{}}}}}}"#
            ));
            let method = method.as_bytes();
            assert_eq!(
                code(
                    &headers(&[("mcp-method", method), ("mcp-name", b"t-1")]),
                    &get
                ),
                None
            );
            assert_eq!(code(&headers(&[("mcp-method", method)]), &get), mismatch);
            assert_eq!(
                code(
                    &headers(&[("mcp-method", method), ("mcp-name", b"t-2")]),
                    &get
                ),
                mismatch
            );
        }
        // No string taskId: nothing to compare; the router answers -32602.
        let odd = request(r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":7}}"#);
        assert_eq!(code(&headers(&[("mcp-method", b"tasks/get")]), &odd), None);
    }

    #[test]
    fn the_headers_must_say_what_the_body_says() {
        let call =
            request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"añadir"}}"#);
        let mismatch = Some(ErrorCode::HEADER_MISMATCH);
        // "añadir" in base64.
        let encoded: &[u8] = b"=?base64?YcOxYWRpcg==?=";
        assert_eq!(
            code(
                &headers(&[("mcp-method", b"tools/call"), ("mcp-name", encoded)]),
                &call
            ),
            None
        );
        assert_eq!(
            code(
                &headers(&[("Mcp-Method", b" tools/call "), ("MCP-NAME", encoded)]),
                &call
            ),
            None
        );
        assert_eq!(code(&headers(&[("mcp-name", encoded)]), &call), mismatch);
        assert_eq!(
            code(&headers(&[("mcp-method", b"tools/call")]), &call),
            mismatch
        );
        assert_eq!(
            code(
                &headers(&[("mcp-method", b"tools/list"), ("mcp-name", encoded)]),
                &call
            ),
            mismatch
        );
        assert_eq!(
            code(
                &headers(&[("mcp-method", b"tools/call"), ("mcp-name", b"other")]),
                &call
            ),
            mismatch
        );
        // Values are compared exactly: case matters.
        assert_eq!(
            code(
                &headers(&[("mcp-method", b"TOOLS/CALL"), ("mcp-name", encoded)]),
                &call
            ),
            mismatch
        );
        // Malformed base64, base64 of bytes that are not UTF-8, a header sent twice.
        for bad in [&b"=?base64?***?="[..], b"=?base64?/w==?="] {
            assert_eq!(
                code(
                    &headers(&[("mcp-method", b"tools/call"), ("mcp-name", bad)]),
                    &call
                ),
                mismatch
            );
        }
        assert_eq!(
            code(
                &headers(&[
                    ("mcp-method", b"tools/call"),
                    ("mcp-method", b"tools/call"),
                    ("mcp-name", encoded)
                ]),
                &call
            ),
            mismatch
        );
        // A resource is named by its URI; a list needs no name.
        let read = request(
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://a"}}"#,
        );
        assert_eq!(
            code(
                &headers(&[("mcp-method", b"resources/read"), ("mcp-name", b"test://a")]),
                &read
            ),
            None
        );
        let list = request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        assert_eq!(
            code(&headers(&[("mcp-method", b"tools/list")]), &list),
            None
        );
    }
}
