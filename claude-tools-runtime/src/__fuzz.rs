//! A hidden door to the private envelope parser, for the fuzz targets in `fuzz/` and the
//! property tests. Not part of the API: it may change or go away without notice.
//!
//! It only calls `Incoming::parse` and reduces what came out to public, owned data, so the
//! parser's internals can change freely underneath.

use crate::protocol::Incoming;

/// What [`classify`] made of a line: its kind and, for the kinds that carry one, the request id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classified {
    /// A `control_request` the host must answer.
    Request {
        /// Its `request_id`.
        request_id: String,
        /// Whether it is an `mcp_message` (JSON-RPC for an in-process server).
        mcp: bool,
    },
    /// A `control_response` to a request the host sent.
    Response {
        /// Its `request_id`.
        request_id: String,
    },
    /// A `control_cancel_request`.
    Cancel {
        /// The withdrawn `request_id`.
        request_id: String,
    },
    /// A `keep_alive`.
    KeepAlive,
    /// A frame for the host only (a `transcript_mirror` frame too).
    HostOnly,
    /// A message for the user.
    Message,
}

/// Classifies one line as the session does; `Err` holds the parse error's description.
pub fn classify(line: &[u8]) -> Result<Classified, String> {
    Incoming::parse(line)
        .map(summarise)
        .map_err(|error| format!("{error:?}"))
}

fn summarise(incoming: Incoming<'_>) -> Classified {
    match incoming {
        Incoming::Request {
            request_id, body, ..
        } => Classified::Request {
            request_id: request_id.to_string(),
            mcp: matches!(body, crate::protocol::CliRequest::Mcp { .. }),
        },
        Incoming::Response { request_id, .. } => Classified::Response {
            request_id: request_id.to_string(),
        },
        Incoming::Cancel { request_id, .. } => Classified::Cancel {
            request_id: request_id.to_string(),
        },
        Incoming::KeepAlive => Classified::KeepAlive,
        Incoming::HostOnly(..) | Incoming::TranscriptMirror(..) => Classified::HostOnly,
        Incoming::Message(..) => Classified::Message,
    }
}
