//! Which MCP revision a request speaks, decided once, here, for every transport.
//!
//! MCP 2026-07-28 is stateless: every request names its revision and its client's
//! capabilities in `params._meta` (read by the decoder into [`MetaClaim`]). A request without
//! them is 2025-11-25 (or earlier) traffic, whose revision comes from the connection's
//! `initialize`. One endpoint serves both. [`decide`] applies the rules; the router applies
//! them to every request (stdio and in-process have no header: [`Transport::Plain`]; a request
//! that claims nothing, which `decide` serves at 2025-11-25 there, skips the call), and the HTTP
//! transport calls it first with its `MCP-Protocol-Version` header ([`Transport::Http`]) to
//! refuse with the right status before the router runs.
//!
//! | `params._meta` | `MCP-Protocol-Version` (HTTP) | revision, or answer |
//! |---|---|---|
//! | no claim | none, or a 2025-11-25-era version the server speaks | 2025-11-25 era ([`Revision::Legacy`]) |
//! | no claim | `2026-07-28` | `-32602`: a 2026-07-28 request must carry its `_meta` (HTTP 400) |
//! | no claim | any other value | `-32022` with the versions served (HTTP 400) |
//! | a malformed claim ([`MetaClaim::Malformed`]) | any | `-32602` naming the key (HTTP 400) |
//! | a claim | none (HTTP only) | `-32020`: the header is required and must equal `_meta` (HTTP 400) |
//! | a claim | a different value | `-32020` (HTTP 400) |
//! | a claim of a revision not served | equal, or stdio | `-32022` with `supported` and `requested` (HTTP 400) |
//! | a claim of `2026-07-28` | equal, or stdio | 2026-07-28 ([`Revision::Modern`]) |
//!
//! On a connection that keeps state between requests (stdio, an HTTP session, in-process) the
//! router also holds each connection to one era once it has chosen: `initialize` chooses the
//! 2025 era, any 2026-07-28 request but `server/discover` (a probe, answered either way) the
//! modern one; a request of the other era is then refused (see [`McpRouter`](super::McpRouter)).

use super::lifecycle::SUPPORTED_PROTOCOL_VERSIONS;
use crate::jsonrpc::{ErrorObject, MetaClaim, RequestMeta};
use std::sync::atomic::Ordering;

/// The MCP revisions of the stateless (2026-07-28) era this router speaks.
pub const MODERN_PROTOCOL_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The newest revision this router speaks.
pub const NEWEST_PROTOCOL_VERSION: &str = MODERN_PROTOCOL_VERSIONS[0];

/// Every revision this router speaks, oldest first: the 2025 era's ([`SUPPORTED_PROTOCOL_VERSIONS`])
/// and then the stateless era's ([`MODERN_PROTOCOL_VERSIONS`]).
pub fn all_protocol_versions() -> impl Iterator<Item = &'static str> {
    SUPPORTED_PROTOCOL_VERSIONS
        .into_iter()
        .chain(MODERN_PROTOCOL_VERSIONS)
}

/// The revision a request is served at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Revision<'a> {
    /// 2025-11-25 or earlier: the connection's `initialize` says which, and what the client
    /// can be asked.
    Legacy,
    /// 2026-07-28: everything the server needs to know of the client is in the request.
    Modern(&'a RequestMeta),
}

impl Revision<'_> {
    /// Whether this is the stateless (2026-07-28) era.
    pub fn is_modern(&self) -> bool {
        matches!(self, Revision::Modern(_))
    }
}

/// What the transport adds to the body's claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport<'a> {
    /// No header carries a revision (stdio, in-process).
    Plain,
    /// Streamable HTTP, with the request's `MCP-Protocol-Version` header, if it had one
    /// (trimmed).
    Http(Option<&'a str>),
}

/// The revision `claim` is served at over `transport`, or the error it is refused with (see
/// the [module docs](self)).
///
/// ```
/// use claude_tools::mcp::{Message, Revision, Transport, decide_revision};
///
/// let bytes = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{
///     "io.modelcontextprotocol/protocolVersion":"2026-07-28",
///     "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
/// let Message::Request(request) = Message::decode(bytes) else { panic!() };
/// assert!(decide_revision(&request.meta, Transport::Plain).unwrap().is_modern());
/// // Over HTTP the header must say the same.
/// let refused = decide_revision(&request.meta, Transport::Http(Some("2025-11-25"))).unwrap_err();
/// assert_eq!(refused.code.code(), -32020);
/// ```
pub fn decide<'a>(
    claim: &'a MetaClaim,
    transport: Transport<'_>,
) -> Result<Revision<'a>, ErrorObject> {
    let header = match transport {
        Transport::Plain => None,
        Transport::Http(header) => header,
    };
    match claim {
        MetaClaim::Absent => match header {
            None => Ok(Revision::Legacy),
            Some(version) if SUPPORTED_PROTOCOL_VERSIONS.contains(&version) => Ok(Revision::Legacy),
            Some(version) if MODERN_PROTOCOL_VERSIONS.contains(&version) => {
                Err(ErrorObject::invalid_params(format!(
                    "an MCP {version} request carries `params._meta` with \
                     `io.modelcontextprotocol/protocolVersion` and \
                     `io.modelcontextprotocol/clientCapabilities`"
                )))
            }
            Some(version) => Err(unsupported(version)),
        },
        MetaClaim::Malformed(reason) => Err(ErrorObject::invalid_params(reason.to_string())),
        MetaClaim::Modern(meta) => {
            if let Transport::Http(header) = transport {
                match header {
                    None => {
                        return Err(ErrorObject::header_mismatch(
                            "a request whose `_meta` names its protocol version needs the \
                             `MCP-Protocol-Version` header, with the same version",
                        ));
                    }
                    Some(header) if header != meta.protocol_version => {
                        return Err(ErrorObject::header_mismatch(format!(
                            "the `MCP-Protocol-Version` header says `{}` but `_meta` says `{}`",
                            crate::jsonrpc::echo(header),
                            crate::jsonrpc::echo(&meta.protocol_version)
                        )));
                    }
                    Some(_) => {}
                }
            }
            if MODERN_PROTOCOL_VERSIONS.contains(&meta.protocol_version.as_str()) {
                Ok(Revision::Modern(meta))
            } else {
                Err(ErrorObject::unsupported_protocol_version(
                    &MODERN_PROTOCOL_VERSIONS,
                    &meta.protocol_version,
                ))
            }
        }
    }
}

/// The era a connection that keeps state between requests has chosen: a 2025-11-25 client
/// (`initialize`) and a 2026-07-28 client each get the connection to themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Era {
    Undecided = 0,
    Legacy = 1,
    Modern = 2,
}

/// The `era` of a connection shared by unrelated clients' requests
/// ([`McpRouter::for_plain_calls`](super::McpRouter::for_plain_calls)): it reads as
/// [`Era::Undecided`] and [`Connection::choose`](super::Connection) never holds it.
pub(super) const SHARED_ERA: u8 = 3;

impl super::Connection {
    pub(super) fn era(&self) -> Era {
        match self.era.load(Ordering::Acquire) {
            1 => Era::Legacy,
            2 => Era::Modern,
            _ => Era::Undecided,
        }
    }

    /// Holds the connection to `era` unless it chose already; the era it has now. A shared
    /// connection ([`SHARED_ERA`]) never chooses: each request has the era it asks for.
    pub(super) fn choose(&self, era: Era) -> Era {
        match self.era.compare_exchange(
            Era::Undecided as u8,
            era as u8,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => era,
            Err(SHARED_ERA) => era,
            Err(_) => self.era(),
        }
    }
}

/// `-32022` for a header naming a revision the server does not speak at all.
fn unsupported(requested: &str) -> ErrorObject {
    let supported: Vec<&str> = all_protocol_versions().collect();
    ErrorObject::unsupported_protocol_version(&supported, requested)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ask::ClientCapabilities;
    use crate::jsonrpc::ErrorCode;

    fn modern(version: &str) -> MetaClaim {
        MetaClaim::Modern(Box::new(RequestMeta::new(
            version,
            ClientCapabilities::NONE,
        )))
    }

    fn code(result: Result<Revision<'_>, ErrorObject>) -> Option<ErrorCode> {
        result.err().map(|error| error.code)
    }

    #[test]
    fn the_table_of_the_module_docs() {
        let absent = MetaClaim::Absent;
        assert_eq!(decide(&absent, Transport::Plain), Ok(Revision::Legacy));
        assert_eq!(decide(&absent, Transport::Http(None)), Ok(Revision::Legacy));
        assert_eq!(
            decide(&absent, Transport::Http(Some("2025-06-18"))),
            Ok(Revision::Legacy)
        );
        assert_eq!(
            code(decide(&absent, Transport::Http(Some("2026-07-28")))),
            Some(ErrorCode::INVALID_PARAMS)
        );
        assert_eq!(
            code(decide(&absent, Transport::Http(Some("1999-01-01")))),
            Some(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION)
        );
        let malformed = MetaClaim::Malformed("bad".into());
        assert_eq!(
            code(decide(&malformed, Transport::Plain)),
            Some(ErrorCode::INVALID_PARAMS)
        );
        let claim = modern("2026-07-28");
        assert!(decide(&claim, Transport::Plain).unwrap().is_modern());
        assert!(
            decide(&claim, Transport::Http(Some("2026-07-28")))
                .unwrap()
                .is_modern()
        );
        assert_eq!(
            code(decide(&claim, Transport::Http(None))),
            Some(ErrorCode::HEADER_MISMATCH)
        );
        assert_eq!(
            code(decide(&claim, Transport::Http(Some("2025-11-25")))),
            Some(ErrorCode::HEADER_MISMATCH)
        );
        let future = modern("2099-01-01");
        let refused = decide(&future, Transport::Http(Some("2099-01-01"))).unwrap_err();
        assert_eq!(refused.code, ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            refused.data,
            Some(serde_json::json!({"supported": ["2026-07-28"], "requested": "2099-01-01"}))
        );
    }
}
