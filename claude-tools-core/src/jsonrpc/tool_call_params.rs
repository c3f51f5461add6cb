//! A `tools/call`'s params, read typed in the envelope's pass (see `decode`): the tool's name,
//! its arguments as entries (not a map) and what the server reads of `_meta`. Only JSON syntax
//! fails the pass: params of the wrong shape become the `-32602` the request is answered with.

use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::message::{ToolCall, TraceContext};
use super::request_meta::{MetaClaim, MetaKeys, ReadMeta};
use super::retry::RetryKeys;
use super::{ErrorObject, ProgressToken, RequestId};
use crate::json_str::{JsonStr, StrOrOther};
use crate::tool::Arguments;

pub(super) fn no_name() -> ErrorObject {
    ErrorObject::invalid_params("tools/call needs `params.name`, the tool's name as a string")
}

/// Reads a `tools/call`'s params in the envelope's pass. Only JSON syntax fails it: params of
/// the wrong shape become the `-32602` the request is answered with.
pub(super) struct ToolCallSeed;

impl<'de> DeserializeSeed<'de> for ToolCallSeed {
    type Value = (Result<ToolCall, ErrorObject>, MetaClaim);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(ToolCallVisitor)
    }
}

struct ToolCallVisitor;

const PARAMS_NOT_AN_OBJECT: &str = "tools/call needs `params`, an object with the tool's `name`";

impl<'de> Visitor<'de> for ToolCallVisitor {
    type Value = (Result<ToolCall, ErrorObject>, MetaClaim);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the params of a tools/call")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut name: Option<Option<JsonStr<'de>>> = None;
        let mut arguments: Option<Arguments> = None;
        // Read in place (see `ReadMeta`); `meta_seen` tells a repeated `_meta`.
        let mut meta = MetaKeys::default();
        let mut meta_seen = false;
        let mut retry = RetryKeys::default();
        let mut repeated: Option<&'static str> = None;
        while let Some(key) = map.next_key::<JsonStr<'de>>()? {
            match &*key {
                key @ ("inputResponses" | "requestState") => {
                    if retry.seen(key) == Some(true) {
                        repeated.get_or_insert(if key == "inputResponses" {
                            "inputResponses"
                        } else {
                            "requestState"
                        });
                        map.next_value::<IgnoredAny>()?;
                    } else {
                        retry.read(key, &mut map)?;
                    }
                }
                "name" if name.is_none() => name = Some(map.next_value::<StrOrOther<'de>>()?.0),
                "arguments" if arguments.is_none() => arguments = Some(map.next_value()?),
                "_meta" if !meta_seen => {
                    meta_seen = true;
                    map.next_value_seed(ReadMeta(&mut meta))?;
                }
                // A tool name written twice is read differently by different readers: a gateway
                // filtering by tool must see the one that runs.
                key @ ("name" | "arguments" | "_meta") => {
                    repeated.get_or_insert(match key {
                        "name" => "name",
                        "arguments" => "arguments",
                        _ => "_meta",
                    });
                    map.next_value::<IgnoredAny>()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let claim = meta.claim();
        if let Some(key) = repeated {
            return Ok((
                Err(ErrorObject::invalid_params(format!(
                    "the key `params.{key}` appears more than once; send it once"
                ))),
                claim,
            ));
        }
        let Some(name) = name.flatten() else {
            return Ok((Err(no_name()), claim));
        };
        let MetaKeys {
            tool_use_id,
            progress_token,
            traceparent,
            tracestate,
            ..
        } = meta;
        // Kept only where it can be used: with the `opentelemetry` feature, and a subscriber
        // listening at `INFO` (the call's span is at `INFO`); otherwise a call pays nothing
        // for carrying it.
        let trace_context = traceparent
            .filter(|_| {
                cfg!(feature = "opentelemetry") && tracing::level_enabled!(tracing::Level::INFO)
            })
            .and_then(|parent| TraceContext::new(&parent, tracestate.as_deref()))
            .map(Box::new);
        let tool_use_id = tool_use_id.map(|id| Arc::from(&*id));
        let progress_token = progress_token
            .and_then(|raw| RequestId::from_json(raw.get()).ok())
            .map(ProgressToken);
        Ok((
            Ok(ToolCall {
                name: name.into_owned(),
                arguments: arguments.unwrap_or_default(),
                tool_use_id,
                progress_token,
                retry: retry.into_retry(),
                trace_context,
            }),
            claim,
        ))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok((
            Err(ErrorObject::invalid_params(PARAMS_NOT_AN_OBJECT)),
            MetaClaim::Absent,
        ))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok((
            Err(ErrorObject::invalid_params(PARAMS_NOT_AN_OBJECT)),
            MetaClaim::Absent,
        ))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok((
            Err(ErrorObject::invalid_params(PARAMS_NOT_AN_OBJECT)),
            MetaClaim::Absent,
        ))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok((
            Err(ErrorObject::invalid_params(PARAMS_NOT_AN_OBJECT)),
            MetaClaim::Absent,
        ))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok((
            Err(ErrorObject::invalid_params(PARAMS_NOT_AN_OBJECT)),
            MetaClaim::Absent,
        ))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok((
            Err(ErrorObject::invalid_params(PARAMS_NOT_AN_OBJECT)),
            MetaClaim::Absent,
        ))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok((Err(no_name()), MetaClaim::Absent))
    }
}
