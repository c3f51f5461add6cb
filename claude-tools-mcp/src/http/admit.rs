//! Admission: the checks a request passes before its body is read as JSON-RPC, each ending in a
//! refusal: the `Host` and the `Origin` ([`origin`](super::origin)), the auth hook or bearer
//! token ([`auth`](super::auth)), the `MCP-Protocol-Version`, `Content-Type` and `Accept`
//! headers, and the body's size cap and deadline.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use http_body_util::BodyExt;
use tokio::time::Instant;

use super::auth::{Caller, check_auth};
use super::endpoint::HostChecked;
use super::head::{Head, Values};
use super::limits::Limits;
use super::origin::{check_host, check_origin};
use super::reply::Refusal;
use super::{Shared, TRANSPORT_ERROR};
use claude_tools_core::mcp::{ErrorCode, all_protocol_versions};

/// The request header carrying the client's negotiated MCP version (a `HeaderName`: a lookup
/// by `&str` parses the name again on every request).
pub(super) const PROTOCOL_VERSION_HEADER: HeaderName =
    HeaderName::from_static("mcp-protocol-version");

/// The checks every method passes first, in this order: the `Host` (unless `host` says the
/// connection's service checked it), the `Origin`, then the auth hook or bearer token. Returns
/// who is calling, as the auth check found out.
pub(super) async fn admit(
    shared: &Shared,
    head: &Head<'_>,
    host: HostChecked,
    deadline: Instant,
) -> Result<Caller, Response> {
    let host_refused = match host {
        HostChecked::Yes => None,
        HostChecked::No => check_host(shared, head.host.first()),
    };
    if let Some(refusal) = host_refused.or_else(|| check_origin(shared, head.origin.first())) {
        return Err(refusal);
    }
    check_auth(shared, head.map, deadline).await
}

/// What the client's `Accept` admits.
#[derive(Debug, Clone, Copy)]
pub(super) struct Accepts {
    pub(super) json: bool,
    pub(super) sse: bool,
    /// `text/event-stream` named (not through a wildcard): the client reads SSE, so progress
    /// may be streamed.
    pub(super) sse_named: bool,
}

pub(super) fn check_headers(head: &Head<'_>) -> Result<Accepts, Refusal> {
    let json_body = head.content_type.first().is_some_and(|value| {
        // What clients send, compared as bytes before the general reading.
        value.as_bytes() == b"application/json"
            || value.to_str().is_ok_and(|value| {
                let essence = value.split(';').next().unwrap_or_default().trim();
                essence.eq_ignore_ascii_case("application/json")
            })
    });
    if !json_body {
        return Err(Refusal::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            TRANSPORT_ERROR,
            "Unsupported Media Type",
            "the body must be one JSON-RPC message with `Content-Type: application/json`",
        ));
    }
    let accepts = accepts_of(head);
    if !accepts.json && !accepts.sse {
        return Err(Refusal::new(
            StatusCode::NOT_ACCEPTABLE,
            TRANSPORT_ERROR,
            "Not Acceptable",
            "the client must accept `application/json` or `text/event-stream`",
        ));
    }
    Ok(accepts)
}

/// The `MCP-Protocol-Version` header, trimmed: `None` when absent; a value that is not text
/// is refused (`400`). Which versions are served is decided with the body
/// ([`decide_revision`](claude_tools_core::mcp::decide_revision)).
pub(super) fn protocol_version<'a>(head: &Head<'a>) -> Result<Option<&'a str>, Refusal> {
    let Some(version) = head.protocol_version.first() else {
        return Ok(None);
    };
    match version.to_str() {
        Ok(version) => Ok(Some(version.trim_ascii())),
        Err(_) => Err(unsupported_version(&String::from_utf8_lossy(
            version.as_bytes(),
        ))),
    }
}

/// `400` for an `MCP-Protocol-Version` naming a version the server does not speak, on a
/// message that is not a request (a request gets the same error with its id, from the router's
/// rules).
pub(super) fn unsupported_version(version: &str) -> Refusal {
    let known: Vec<&str> = all_protocol_versions().collect();
    Refusal::new(
        StatusCode::BAD_REQUEST,
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version",
        format!(
            "unsupported MCP-Protocol-Version `{}`; this server supports {}",
            claude_tools_core::mcp::echo_text(version),
            known.join(", ")
        ),
    )
}

/// The `Accept` values MCP clients send, read without splitting them.
fn usual_accept(value: &HeaderValue) -> Option<Accepts> {
    let (json, sse, sse_named) = match value.as_bytes() {
        b"application/json, text/event-stream" | b"text/event-stream, application/json" => {
            (true, true, true)
        }
        b"application/json" => (true, false, false),
        b"text/event-stream" => (false, true, true),
        _ => return None,
    };
    Some(Accepts {
        json,
        sse,
        sse_named,
    })
}

/// What the `Accept` headers of `headers` admit.
pub(super) fn accepts(headers: &HeaderMap) -> Accepts {
    accepts_of(&Head::of(headers))
}

/// What the `Accept` headers of `head` admit.
pub(super) fn accepts_of(head: &Head<'_>) -> Accepts {
    let first = match head.accept {
        // No `Accept`: anything goes; a plain JSON reply is the safe choice.
        Values::Absent => {
            return Accepts {
                json: true,
                sse: true,
                sse_named: false,
            };
        }
        Values::One(value) => match usual_accept(value) {
            Some(usual) => return usual,
            None => value,
        },
        Values::Several(first) => first,
    };
    let values = std::iter::once(first).chain(head.map.get_all(header::ACCEPT).iter().skip(1));
    let mut accepts = Accepts {
        json: false,
        sse: false,
        sse_named: false,
    };
    for value in values {
        let Ok(value) = value.to_str() else { continue };
        for range in value.split(',') {
            let mut fields = range.split(';');
            let media = fields.next().unwrap_or_default().trim();
            let refused = fields.any(|param| {
                let param = param.trim();
                param
                    .strip_prefix("q=")
                    .or_else(|| param.strip_prefix("Q="))
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            if refused {
                continue;
            }
            let is = |name: &str| media.eq_ignore_ascii_case(name);
            if is("*/*") {
                accepts.json = true;
                accepts.sse = true;
            } else if is("application/*") || is("application/json") {
                accepts.json = true;
            } else if is("text/*") {
                accepts.sse = true;
            } else if is("text/event-stream") {
                accepts.sse = true;
                accepts.sse_named = true;
            }
        }
    }
    accepts
}

/// The body, read up to the cap, within the body read timeout and the request's deadline. A
/// body over the cap is drained (read and thrown away) within the drain limits first, so that
/// the client, still uploading, can read the `413`.
pub(super) async fn read_body(
    body: Body,
    content_length: Option<&HeaderValue>,
    cap: usize,
    limits: &Limits,
    deadline: Instant,
) -> Result<Bytes, Refusal> {
    let declared = content_length
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim_ascii().parse::<u64>().ok());
    let mut body = body;
    if let Some(declared) = declared
        && declared > cap as u64
    {
        // Past what would be drained: the client gets the `413` as the connection closes.
        if declared - cap as u64 > limits.max_drain_size as u64 {
            tracing::info!(
                declared,
                cap,
                "MCP HTTP: a body over the cap (by its Content-Length), too large to drain; 413"
            );
            return Err(too_large(cap));
        }
        let drained = drain(&mut body, declared, limits).await;
        tracing::info!(
            declared,
            cap,
            drained,
            "MCP HTTP: a body over the cap (by its Content-Length); 413"
        );
        return Err(too_large(cap));
    }
    let body_deadline = Instant::now() + limits.body_read_timeout;
    let (body_deadline, which) = if deadline <= body_deadline {
        (deadline, "request timeout")
    } else {
        (body_deadline, "body read timeout")
    };
    // One allocation of the declared size (within the cap), not a doubling vector's copies.
    let declared = declared.map_or(0, |declared| usize::try_from(declared).unwrap_or(cap));
    let mut collected = Vec::with_capacity(declared.min(cap));
    loop {
        let frame = match tokio::time::timeout_at(body_deadline, body.frame()).await {
            Ok(Some(Ok(frame))) => frame,
            Ok(None) => return Ok(Bytes::from(collected)),
            Ok(Some(Err(error))) => {
                return Err(Refusal::new(
                    StatusCode::BAD_REQUEST,
                    TRANSPORT_ERROR,
                    "Bad Request",
                    format!("the body could not be read: {error}"),
                ));
            }
            Err(_) => {
                tracing::info!(
                    received = collected.len(),
                    "MCP HTTP: a body still arriving at the {which}; 408"
                );
                return Err(Refusal::new(
                    StatusCode::REQUEST_TIMEOUT,
                    TRANSPORT_ERROR,
                    "Request Timeout",
                    format!("the body did not arrive within the server's {which}"),
                )
                .closing());
            }
        };
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if collected.len() + data.len() > cap {
            let received = (collected.len() + data.len()) as u64;
            drop(collected);
            let drained = drain(&mut body, limits.max_drain_size as u64, limits).await;
            tracing::info!(
                received,
                cap,
                drained,
                "MCP HTTP: a streamed body over the cap; 413"
            );
            return Err(too_large(cap));
        }
        collected.extend_from_slice(&data);
    }
}

/// Reads and throws away the rest of `body`, up to `budget` bytes and the drain timeout.
/// Whether the body ended.
async fn drain(body: &mut Body, budget: u64, limits: &Limits) -> bool {
    let mut left = budget;
    let drained = tokio::time::timeout(limits.drain_timeout, async {
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { return false };
            if let Ok(data) = frame.into_data() {
                let Some(rest) = left.checked_sub(data.len() as u64) else {
                    return false;
                };
                left = rest;
            }
        }
        true
    })
    .await;
    drained.unwrap_or(false)
}

fn too_large(cap: usize) -> Refusal {
    Refusal::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        TRANSPORT_ERROR,
        "Payload Too Large",
        format!("the body is over this server's {cap}-byte cap"),
    )
    .closing()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn accept_headers_are_read_leniently() {
        let read = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
            let a = accepts(&headers);
            (a.json, a.sse, a.sse_named)
        };
        assert_eq!(
            read("application/json, text/event-stream"),
            (true, true, true)
        );
        assert_eq!(read("application/json"), (true, false, false));
        assert_eq!(read("text/event-stream"), (false, true, true));
        assert_eq!(read("*/*"), (true, true, false));
        assert_eq!(read("text/html"), (false, false, false));
        assert_eq!(
            read("application/json;q=0, text/event-stream"),
            (false, true, true)
        );
        let none = accepts(&HeaderMap::new());
        assert_eq!((none.json, none.sse, none.sse_named), (true, true, false));
    }

    #[test]
    fn the_usual_accept_values_read_as_the_general_reading_does() {
        let read = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(header::ACCEPT, HeaderValue::from_str(value).unwrap());
            }
            let a = accepts(&headers);
            (a.json, a.sse, a.sse_named)
        };
        for usual in [
            "application/json, text/event-stream",
            "text/event-stream, application/json",
            "application/json",
            "text/event-stream",
        ] {
            assert!(usual_accept(&HeaderValue::from_static(usual)).is_some());
            // Sent as two header lines, the value takes the general reading.
            assert_eq!(read(&[usual]), read(&[usual, usual]), "{usual}");
        }
        assert!(usual_accept(&HeaderValue::from_static("application/json;q=0")).is_none());
        assert_eq!(read(&["application/json;q=0"]), (false, false, false));
    }
}
