//! The request headers the endpoint reads, found in one pass over the header map
//! ([`Head::of`]). Each lookup in a `HeaderMap` hashes the name and probes the table, and a
//! `POST` reads six to eight of them (`Host`, `Origin`, `Content-Type`, `Accept`,
//! `Content-Length`, `MCP-Protocol-Version`, and at 2026-07-28 `Mcp-Method` and `Mcp-Name`):
//! one walk over the few headers a request has costs less than any two lookups.
//!
//! A header sent more than once keeps its first value, as [`HeaderMap::get`] gives it, and says
//! it was repeated ([`Values::Several`]) for the checks that refuse that.

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};

use super::admit::PROTOCOL_VERSION_HEADER;
use super::standard_headers::{METHOD_HEADER, NAME_HEADER};

/// The values a request has of one header.
#[derive(Debug, Clone, Copy, Default)]
pub(super) enum Values<'a> {
    /// Not sent.
    #[default]
    Absent,
    /// Sent once.
    One(&'a HeaderValue),
    /// Sent more than once: the first value.
    Several(&'a HeaderValue),
}

impl<'a> Values<'a> {
    /// The first value, as [`HeaderMap::get`] gives it.
    pub(super) fn first(self) -> Option<&'a HeaderValue> {
        match self {
            Values::Absent => None,
            Values::One(value) | Values::Several(value) => Some(value),
        }
    }

    fn add(&mut self, value: &'a HeaderValue) {
        *self = match *self {
            Values::Absent => Values::One(value),
            Values::One(first) | Values::Several(first) => Values::Several(first),
        };
    }
}

/// The headers of one request that the endpoint reads (see the [module docs](self)), and the
/// whole map for the rest (an auth hook's, the `Mcp-Param-*` headers).
#[derive(Debug, Clone, Copy)]
pub(super) struct Head<'a> {
    pub(super) map: &'a HeaderMap,
    pub(super) host: Values<'a>,
    pub(super) origin: Values<'a>,
    pub(super) content_type: Values<'a>,
    pub(super) content_length: Values<'a>,
    pub(super) accept: Values<'a>,
    pub(super) protocol_version: Values<'a>,
    pub(super) method: Values<'a>,
    pub(super) name: Values<'a>,
}

impl<'a> Head<'a> {
    /// The headers of `map`, in one pass.
    pub(super) fn of(map: &'a HeaderMap) -> Self {
        let mut head = Head {
            map,
            host: Values::Absent,
            origin: Values::Absent,
            content_type: Values::Absent,
            content_length: Values::Absent,
            accept: Values::Absent,
            protocol_version: Values::Absent,
            method: Values::Absent,
            name: Values::Absent,
        };
        for (name, value) in map {
            if let Some(values) = head.slot(name) {
                values.add(value);
            }
        }
        head
    }

    /// Where the values of the header `name` go, if it is one of those read here.
    fn slot(&mut self, name: &HeaderName) -> Option<&mut Values<'a>> {
        // The names a standard header has compare as a tag; the MCP ones as bytes.
        let slot = if name == header::HOST {
            &mut self.host
        } else if name == header::CONTENT_TYPE {
            &mut self.content_type
        } else if name == header::CONTENT_LENGTH {
            &mut self.content_length
        } else if name == header::ACCEPT {
            &mut self.accept
        } else if name == header::ORIGIN {
            &mut self.origin
        } else if name == PROTOCOL_VERSION_HEADER {
            &mut self.protocol_version
        } else if name == METHOD_HEADER {
            &mut self.method
        } else if name == NAME_HEADER {
            &mut self.name
        } else {
            return None;
        };
        Some(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_header_is_found_with_its_first_value_and_repeats_noted() {
        let mut map = HeaderMap::new();
        map.insert(header::HOST, HeaderValue::from_static("localhost:1"));
        map.append(header::ACCEPT, HeaderValue::from_static("application/json"));
        map.append(
            header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        map.insert("x-other", HeaderValue::from_static("ignored"));
        map.insert(METHOD_HEADER, HeaderValue::from_static("tools/call"));
        map.append(NAME_HEADER, HeaderValue::from_static("a"));
        map.append(NAME_HEADER, HeaderValue::from_static("b"));
        let head = Head::of(&map);
        assert!(matches!(head.host, Values::One(v) if v == "localhost:1"));
        assert!(matches!(head.accept, Values::Several(v) if v == "application/json"));
        assert!(matches!(head.method, Values::One(v) if v == "tools/call"));
        assert!(matches!(head.name, Values::Several(v) if v == "a"));
        assert!(matches!(head.origin, Values::Absent));
        assert!(matches!(head.protocol_version, Values::Absent));
        assert_eq!(head.host.first(), map.get(header::HOST));
    }
}
