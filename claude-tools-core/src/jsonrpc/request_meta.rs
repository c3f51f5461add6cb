//! What a request's `params._meta` says: the Claude Code CLI's `claudecode/toolUseId`, the
//! progress token, and MCP 2026-07-28's per-request protocol fields ([`MetaClaim`]), read in
//! the decoder's one pass.
//!
//! At 2026-07-28 every request carries its revision and its client's capabilities in
//! `params._meta` (`io.modelcontextprotocol/protocolVersion`,
//! `io.modelcontextprotocol/clientCapabilities`, optionally `…/clientInfo` and `…/logLevel`);
//! a request without them is a 2025-11-25 (or earlier) request. The decoder reads them for every
//! method, so which revision a request speaks is known once, before any transport looks at it.
//!
//! | `params._meta` | claim |
//! |---|---|
//! | absent, not an object, or without `…/protocolVersion` and `…/clientCapabilities` | [`MetaClaim::Absent`] |
//! | `…/protocolVersion` a string and `…/clientCapabilities` an object (`…/clientInfo` an object with string `name` and `version` if present, `…/logLevel` a string if present) | [`MetaClaim::Modern`] |
//! | either of the two required keys without the other, or a key of the wrong type | [`MetaClaim::Malformed`]: `-32602` naming the key |

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::ask::ClientCapabilities;
use crate::json_str::{JsonStr, StrOrOther};

/// `params._meta` key: the revision a 2026-07-28 request speaks.
pub const PROTOCOL_VERSION_META: &str = "io.modelcontextprotocol/protocolVersion";
/// `params._meta` key: what the client of a 2026-07-28 request can be asked.
pub const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";
/// `params._meta` key: who the client of a 2026-07-28 request is (optional).
pub const CLIENT_INFO_META: &str = "io.modelcontextprotocol/clientInfo";
/// `params._meta` key: the lowest log level the client of a 2026-07-28 request wants sent.
pub const LOG_LEVEL_META: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key: who the server is, on every 2026-07-28 result.
pub const SERVER_INFO_META: &str = "io.modelcontextprotocol/serverInfo";

/// What a request's `params._meta` claims of its MCP revision:
///
/// | `params._meta` | claim |
/// |---|---|
/// | absent, not an object, or without `…/protocolVersion` and `…/clientCapabilities` | [`MetaClaim::Absent`] |
/// | `…/protocolVersion` a string and `…/clientCapabilities` an object (`…/clientInfo` an object with string `name` and `version` if present, `…/logLevel` one of MCP's eight levels if present) | [`MetaClaim::Modern`] |
/// | either of the two required keys without the other, or a key of the wrong type | [`MetaClaim::Malformed`]: `-32602` naming the key |
#[derive(Debug, Clone, PartialEq, Default)]
pub enum MetaClaim {
    /// No 2026-07-28 per-request fields: a 2025-11-25 (or earlier) request, whose revision and
    /// client capabilities come from the connection's `initialize`.
    #[default]
    Absent,
    /// The 2026-07-28 per-request fields, read.
    Modern(Box<RequestMeta>),
    /// Some of them, but not a usable set: the request is answered `-32602` with this reason.
    Malformed(Box<str>),
}

/// The per-request protocol fields of a 2026-07-28 request.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`: the revision the request speaks (checked
    /// against the server's by the router: `-32022` when it is not served).
    pub protocol_version: String,
    /// `io.modelcontextprotocol/clientCapabilities`: what this request's client can be asked.
    pub client_capabilities: ClientCapabilities,
    /// The extensions `clientCapabilities.extensions` declares, by id.
    pub extensions: Vec<String>,
    /// `io.modelcontextprotocol/clientInfo`, when sent.
    pub client_info: Option<ClientInfo>,
    /// `io.modelcontextprotocol/logLevel`, when sent: one of the eight levels MCP defines
    /// (any other value makes the claim [`MetaClaim::Malformed`]).
    pub log_level: Option<String>,
}

impl RequestMeta {
    /// The fields of a request at `protocol_version` from a client with `capabilities`.
    pub fn new(protocol_version: impl Into<String>, capabilities: ClientCapabilities) -> Self {
        Self {
            protocol_version: protocol_version.into(),
            client_capabilities: capabilities,
            extensions: Vec::new(),
            client_info: None,
            log_level: None,
        }
    }

    /// Whether the request's client declared the extension `id` (`"io.modelcontextprotocol/tasks"`…).
    pub fn declares_extension(&self, id: &str) -> bool {
        self.extensions.iter().any(|declared| declared == id)
    }
}

/// A client's name and version, as `clientInfo` gives them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct ClientInfo {
    /// The client's name.
    pub name: String,
    /// Its version.
    pub version: String,
}

impl MetaClaim {
    /// The 2026-07-28 fields, when the request has them.
    pub fn modern(&self) -> Option<&RequestMeta> {
        match self {
            MetaClaim::Modern(meta) => Some(meta),
            _ => None,
        }
    }

    /// Whether the request claims 2026-07-28 semantics at all (well formed or not).
    pub fn is_claimed(&self) -> bool {
        !matches!(self, MetaClaim::Absent)
    }
}

/// The keys of `params._meta` the decoder reads, borrowed from the line; the rest is skipped.
#[derive(Default)]
pub(super) struct MetaKeys<'de> {
    /// `claudecode/toolUseId`, when it is a string.
    pub(super) tool_use_id: Option<JsonStr<'de>>,
    /// `progressToken`, as written.
    pub(super) progress_token: Option<&'de RawValue>,
    /// `traceparent` and `tracestate`, when they are strings (W3C trace context, as the
    /// OpenTelemetry conventions for MCP carry it).
    pub(super) traceparent: Option<JsonStr<'de>>,
    pub(super) tracestate: Option<JsonStr<'de>>,
    protocol_version: Option<&'de RawValue>,
    client_capabilities: Option<&'de RawValue>,
    client_info: Option<&'de RawValue>,
    log_level: Option<&'de RawValue>,
}

impl MetaKeys<'_> {
    /// What the keys claim (see the [module docs](self)).
    // Inline: every request asks, and a 2025-11-25 one has neither key.
    #[inline]
    pub(super) fn claim(&self) -> MetaClaim {
        if self.protocol_version.is_none() && self.client_capabilities.is_none() {
            return MetaClaim::Absent;
        }
        self.claimed()
    }

    fn claimed(&self) -> MetaClaim {
        match self.read_modern() {
            Ok(meta) => MetaClaim::Modern(Box::new(meta)),
            Err(reason) => MetaClaim::Malformed(reason.into()),
        }
    }

    fn read_modern(&self) -> Result<RequestMeta, String> {
        let malformed = |key: &str, what: &str| {
            format!("`params._meta[\"{key}\"]` must be {what} in an MCP 2026-07-28 request")
        };
        let version = self
            .protocol_version
            .ok_or_else(|| malformed(PROTOCOL_VERSION_META, "present"))?;
        let Ok(version) = serde_json::from_str::<String>(version.get()) else {
            return Err(malformed(PROTOCOL_VERSION_META, "a string"));
        };
        let capabilities = self
            .client_capabilities
            .ok_or_else(|| malformed(CLIENT_CAPABILITIES_META, "present"))?;
        let Ok(capabilities) = serde_json::from_str::<DeclaredCapabilities>(capabilities.get())
        else {
            return Err(malformed(CLIENT_CAPABILITIES_META, "an object"));
        };
        let client_info = match self.client_info {
            None => None,
            Some(raw) => Some(serde_json::from_str::<ClientInfo>(raw.get()).map_err(|_| {
                malformed(
                    CLIENT_INFO_META,
                    "an object with string `name` and `version`",
                )
            })?),
        };
        let log_level = match self.log_level {
            None => None,
            Some(raw) => match serde_json::from_str::<String>(raw.get()) {
                Ok(level) if level.parse::<super::LoggingLevel>().is_ok() => Some(level),
                _ => {
                    return Err(malformed(
                        LOG_LEVEL_META,
                        "one of the log levels debug, info, notice, warning, error, critical, \
                         alert, emergency",
                    ));
                }
            },
        };
        Ok(RequestMeta {
            protocol_version: version,
            client_capabilities: capabilities.capabilities,
            extensions: capabilities.extensions,
            client_info,
            log_level,
        })
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for MetaKeys<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut meta = MetaKeys::default();
        ReadMeta(&mut meta).deserialize(deserializer)?;
        Ok(meta)
    }
}

/// Reads a `_meta` into the keys it points at, in place: a `tools/call` pays for reading
/// `_meta` on every call, and the keys (eight borrowed slices) are not moved through the
/// deserializer's results that way. A `_meta` of another shape leaves them as they were.
pub(super) struct ReadMeta<'a, 'de>(pub(super) &'a mut MetaKeys<'de>);

impl<'de> DeserializeSeed<'de> for ReadMeta<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ReadMeta<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a request's _meta")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let meta = self.0;
        while let Some(key) = map.next_key::<JsonStr<'de>>()? {
            let slot = match &*key {
                super::TOOL_USE_ID_META => {
                    meta.tool_use_id = map.next_value::<StrOrOther<'de>>()?.0;
                    continue;
                }
                "progressToken" => &mut meta.progress_token,
                "traceparent" => {
                    meta.traceparent = map.next_value::<StrOrOther<'de>>()?.0;
                    continue;
                }
                "tracestate" => {
                    meta.tracestate = map.next_value::<StrOrOther<'de>>()?.0;
                    continue;
                }
                PROTOCOL_VERSION_META => &mut meta.protocol_version,
                CLIENT_CAPABILITIES_META => &mut meta.client_capabilities,
                CLIENT_INFO_META => &mut meta.client_info,
                LOG_LEVEL_META => &mut meta.log_level,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            *slot = Some(map.next_value()?);
        }
        Ok(())
    }

    // `_meta` of another shape has none of the keys.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// The claim of params the decoder kept raw (methods it does not read typed): a second, small
/// pass over them that reads `_meta` alone.
pub(super) fn claim_of_raw(params: &RawValue) -> MetaClaim {
    #[derive(Deserialize)]
    struct Fields<'a> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<MetaKeys<'a>>,
    }
    // Only objects have a `_meta`; anything else claims nothing.
    if !params.get().trim_start().starts_with('{') {
        return MetaClaim::Absent;
    }
    match serde_json::from_str::<Fields<'_>>(params.get()) {
        Ok(Fields { meta: Some(meta) }) => meta.claim(),
        _ => MetaClaim::Absent,
    }
}

/// What a request's `clientCapabilities` object declares, read without building it as a
/// `Value`: which of `elicitation`, `sampling` and `roots` it names with an object (as
/// [`ClientCapabilities::of_object`] reads a `Value`), and the ids of `extensions` when that is
/// an object. A key sent twice counts as its last value says, as in a `Value`.
struct DeclaredCapabilities {
    capabilities: ClientCapabilities,
    extensions: Vec<String>,
}

impl<'de> Deserialize<'de> for DeclaredCapabilities {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = DeclaredCapabilities;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut declared = DeclaredCapabilities {
                    capabilities: ClientCapabilities::default(),
                    extensions: Vec::new(),
                };
                while let Some(key) = map.next_key::<JsonStr<'de>>()? {
                    match &*key {
                        "elicitation" => {
                            declared.capabilities.elicitation = map.next_value::<IsObject>()?.0;
                        }
                        "sampling" => {
                            declared.capabilities.sampling = map.next_value::<IsObject>()?.0;
                        }
                        "roots" => declared.capabilities.roots = map.next_value::<IsObject>()?.0,
                        "extensions" => {
                            declared.extensions = map.next_value::<ObjectKeys>()?.0;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(declared)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// Whether a JSON value is an object (its contents skipped).
struct IsObject(bool);

impl<'de> Deserialize<'de> for IsObject {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Kind;
        impl<'de> Visitor<'de> for Kind {
            type Value = IsObject;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<IsObject, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(IsObject(true))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IsObject, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IsObject(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_str<E>(self, _: &str) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
            fn visit_unit<E>(self) -> Result<IsObject, E> {
                Ok(IsObject(false))
            }
        }
        deserializer.deserialize_any(Kind)
    }
}

/// The keys of a JSON object, each once, in the order of their first appearance (its values
/// skipped); none for any other value.
struct ObjectKeys(Vec<String>);

impl<'de> Deserialize<'de> for ObjectKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> Visitor<'de> for Keys {
            type Value = ObjectKeys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ObjectKeys, A::Error> {
                let mut keys: Vec<String> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    if !keys.contains(&key) {
                        keys.push(key);
                    }
                }
                Ok(ObjectKeys(keys))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ObjectKeys, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(ObjectKeys(Vec::new()))
            }
            fn visit_bool<E>(self, _: bool) -> Result<ObjectKeys, E> {
                Ok(ObjectKeys(Vec::new()))
            }
            fn visit_i64<E>(self, _: i64) -> Result<ObjectKeys, E> {
                Ok(ObjectKeys(Vec::new()))
            }
            fn visit_u64<E>(self, _: u64) -> Result<ObjectKeys, E> {
                Ok(ObjectKeys(Vec::new()))
            }
            fn visit_f64<E>(self, _: f64) -> Result<ObjectKeys, E> {
                Ok(ObjectKeys(Vec::new()))
            }
            fn visit_str<E>(self, _: &str) -> Result<ObjectKeys, E> {
                Ok(ObjectKeys(Vec::new()))
            }
            fn visit_unit<E>(self) -> Result<ObjectKeys, E> {
                Ok(ObjectKeys(Vec::new()))
            }
        }
        deserializer.deserialize_any(Keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the capabilities were read as through a `serde_json::Value` (before the typed
    /// reading): the reference the typed reading must agree with.
    fn through_a_value(text: &str) -> Option<(ClientCapabilities, Vec<String>)> {
        let serde_json::Value::Object(object) = serde_json::from_str(text).ok()? else {
            return None;
        };
        let extensions = match object.get("extensions") {
            Some(serde_json::Value::Object(extensions)) => extensions.keys().cloned().collect(),
            _ => Vec::new(),
        };
        Some((ClientCapabilities::of_object(&object), extensions))
    }

    #[test]
    fn declared_capabilities_read_as_a_value_reads_them() {
        for text in [
            "{}",
            r#"{"elicitation": {}, "sampling": {"tools": {}}, "roots": {"listChanged": true}}"#,
            r#"{"elicitation": true, "sampling": [], "roots": null}"#,
            r#"{"elicitation": {}, "elicitation": 1}"#,
            r#"{"roots": 1, "roots": {}}"#,
            r#"{"extensions": {"io.x/tasks": {}, "io.y/skills": {"a": [1, {"b": 2}]}}}"#,
            r#"{"extensions": ["io.x/tasks"], "other": {"deep": [{"x": "\u00e9"}]}}"#,
            r#"{"extensions": "io.x/tasks"}"#,
            r#"{"experimental": {"a": 1}, "elicitation": {"form": {}, "url": {}}}"#,
        ] {
            let typed = serde_json::from_str::<DeclaredCapabilities>(text)
                .unwrap_or_else(|error| panic!("{text}: {error}"));
            assert_eq!(
                Some((typed.capabilities, typed.extensions)),
                through_a_value(text),
                "{text}"
            );
        }
        for not_an_object in ["[]", "1", "\"x\"", "null", "true", "{"] {
            assert!(serde_json::from_str::<DeclaredCapabilities>(not_an_object).is_err());
            assert!(through_a_value(not_an_object).is_none());
        }
    }
}
