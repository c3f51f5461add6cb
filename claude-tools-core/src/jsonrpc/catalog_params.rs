//! The params of `prompts/get` and `resources/read`, read typed in the envelope's pass as a
//! `tools/call`'s are (see `decode`): a prompt's or a resource's answer then costs no second
//! parse of its params, no copy of them and no `serde_json::Value`. As for `tools/call`, only
//! JSON syntax fails the pass: params of the wrong shape become the `-32602` the request is
//! answered with (once the server is known to serve the method).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::ErrorObject;
use super::message::{GetPrompt, ReadResource, Retry};
use super::request_meta::{MetaClaim, MetaKeys};
use super::retry::RetryKeys;
use crate::json_str::{JsonStr, StrOrOther};

/// Reads a `prompts/get`'s params: `{name, arguments?}`, each argument a string (MCP prompt
/// arguments are); `null` for an argument (an absent optional one, as some clients write it)
/// is skipped.
pub(super) struct GetPromptSeed;

impl<'de> DeserializeSeed<'de> for GetPromptSeed {
    type Value = (Result<GetPrompt, ErrorObject>, MetaClaim);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let (read, claim) = deserializer.deserialize_any(Params(Method::GetPrompt))?;
        let read = read.and_then(
            |Named {
                 name,
                 arguments,
                 retry,
             }| get_prompt(name, arguments, retry),
        );
        Ok((read, claim))
    }
}

/// Reads a `resources/read`'s params: `{uri}`.
pub(super) struct ReadResourceSeed;

impl<'de> DeserializeSeed<'de> for ReadResourceSeed {
    type Value = (Result<ReadResource, ErrorObject>, MetaClaim);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let (read, claim) = deserializer.deserialize_any(Params(Method::ReadResource))?;
        let read = read.map(|Named { name, retry, .. }| ReadResource { uri: name, retry });
        Ok((read, claim))
    }
}

/// Which method's params [`Params`] reads.
#[derive(Clone, Copy)]
enum Method {
    GetPrompt,
    ReadResource,
}

impl Method {
    fn needs(self) -> ErrorObject {
        ErrorObject::invalid_params(match self {
            Method::GetPrompt => "prompts/get needs `params.name`, the prompt's name as a string",
            Method::ReadResource => {
                "resources/read needs `params.uri`, the resource's URI as a string"
            }
        })
    }
}

/// One visitor for both methods' params (they share the shape rules); the method says which
/// key is the name and whether there are arguments.
struct Params(Method);

/// What [`Params`] read: the name (a prompt's `name`, a resource's `uri`) and, for a prompt,
/// its `arguments` as sent.
struct Named {
    name: String,
    arguments: Option<Arguments>,
    retry: Option<Box<Retry>>,
}

impl<'de> Visitor<'de> for Params {
    type Value = (Result<Named, ErrorObject>, MetaClaim);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a request's params")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let name_key = match self.0 {
            Method::GetPrompt => "name",
            Method::ReadResource => "uri",
        };
        let mut name: Option<Option<JsonStr<'de>>> = None;
        let mut arguments: Option<Arguments> = None;
        let mut meta: Option<MetaKeys<'de>> = None;
        let mut retry = RetryKeys::default();
        let mut repeated: Option<String> = None;
        while let Some(key) = map.next_key::<JsonStr<'de>>()? {
            let seen = if *key == *name_key {
                name.is_some()
            } else if matches!(self.0, Method::GetPrompt) && &*key == "arguments" {
                arguments.is_some()
            } else if &*key == "_meta" {
                meta.is_some()
            } else if let Some(seen) = retry.seen(&key) {
                seen
            } else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if seen {
                repeated.get_or_insert_with(|| key.to_string());
                map.next_value::<IgnoredAny>()?;
            } else if *key == *name_key {
                name = Some(map.next_value::<StrOrOther<'de>>()?.0);
            } else if &*key == "arguments" {
                arguments = Some(map.next_value()?);
            } else if &*key == "_meta" {
                meta = Some(map.next_value()?);
            } else {
                retry.read(&key, &mut map)?;
            }
        }
        let claim = meta.unwrap_or_default().claim();
        if let Some(key) = repeated {
            return Ok((
                Err(ErrorObject::invalid_params(format!(
                    "the key `params.{key}` appears more than once; send it once"
                ))),
                claim,
            ));
        }
        let Some(name) = name.flatten() else {
            return Ok((Err(self.0.needs()), claim));
        };
        Ok((
            Ok(Named {
                name: name.into_owned(),
                arguments,
                retry: retry.into_retry(),
            }),
            claim,
        ))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok((Err(self.0.needs()), MetaClaim::Absent))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok((Err(self.0.needs()), MetaClaim::Absent))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok((Err(self.0.needs()), MetaClaim::Absent))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok((Err(self.0.needs()), MetaClaim::Absent))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok((Err(self.0.needs()), MetaClaim::Absent))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok((Err(self.0.needs()), MetaClaim::Absent))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok((Err(self.0.needs()), MetaClaim::Absent))
    }
}

/// A `prompts/get`'s read params: the name, and its arguments as strings; a `-32602` for
/// arguments that are not an object of strings.
fn get_prompt(
    name: String,
    arguments: Option<Arguments>,
    retry: Option<Box<Retry>>,
) -> Result<GetPrompt, ErrorObject> {
    let arguments = match arguments {
        None | Some(Arguments::Null) => BTreeMap::new(),
        Some(Arguments::Texts { texts, not_text }) => {
            if let Some((argument, other)) = not_text {
                return Err(ErrorObject::invalid_params(format!(
                    "Invalid arguments for prompt `{}`: argument `{argument}`: prompt arguments \
                     are strings, got {other}",
                    super::echo(&name)
                )));
            }
            texts
        }
        Some(Arguments::NotAnObject) => {
            return Err(ErrorObject::invalid_params(format!(
                "Invalid arguments for prompt `{}`: `params.arguments` must be an object of \
                 strings",
                super::echo(&name)
            )));
        }
    };
    Ok(GetPrompt {
        name,
        arguments,
        retry,
    })
}

/// A `prompts/get`'s `arguments` as sent.
enum Arguments {
    Null,
    Texts {
        texts: BTreeMap<String, String>,
        /// The first argument that is not a string: its name and value.
        not_text: Option<(String, serde_json::Value)>,
    },
    NotAnObject,
}

impl<'de> Deserialize<'de> for Arguments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ArgumentsVisitor)
    }
}

struct ArgumentsVisitor;

impl<'de> Visitor<'de> for ArgumentsVisitor {
    type Value = Arguments;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a prompt's arguments")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Arguments, A::Error> {
        let mut texts = BTreeMap::new();
        let mut not_text = None;
        while let Some(name) = map.next_key::<String>()? {
            match map.next_value::<Sent>()? {
                Sent::Text(text) => {
                    texts.insert(name, text);
                }
                Sent::Null => {}
                Sent::Other(value) => {
                    not_text.get_or_insert((name, value));
                }
            }
        }
        Ok(Arguments::Texts { texts, not_text })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Arguments, E> {
        Ok(Arguments::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Arguments, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Arguments::NotAnObject)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Arguments, E> {
        Ok(Arguments::NotAnObject)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Arguments, E> {
        Ok(Arguments::NotAnObject)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Arguments, E> {
        Ok(Arguments::NotAnObject)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Arguments, E> {
        Ok(Arguments::NotAnObject)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Arguments, E> {
        Ok(Arguments::NotAnObject)
    }
}

/// One argument's value as sent: a string, `null`, or anything else (kept for the error that
/// names it).
enum Sent {
    Text(String),
    Null,
    Other(serde_json::Value),
}

impl<'de> Deserialize<'de> for Sent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SentVisitor)
    }
}

struct SentVisitor;

impl<'de> Visitor<'de> for SentVisitor {
    type Value = Sent;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Sent, E> {
        Ok(Sent::Text(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Sent, E> {
        Ok(Sent::Text(text))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Sent, E> {
        Ok(Sent::Null)
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<Sent, E> {
        Ok(Sent::Other(value.into()))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<Sent, E> {
        Ok(Sent::Other(value.into()))
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<Sent, E> {
        Ok(Sent::Other(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Sent, E> {
        Ok(Sent::Other(value.into()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Sent, A::Error> {
        serde_json::Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Sent::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Sent, A::Error> {
        serde_json::Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Sent::Other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{Call, Message, Request};

    fn call(text: &str) -> Call {
        match Message::decode(text.as_bytes()) {
            Message::Request(Request { id, call, .. }) => {
                assert_eq!(id.as_i64(), Some(1), "{text}");
                call
            }
            other => panic!("{text} decoded as {other:?}"),
        }
    }

    /// An invalid-params error's reason (its `data`).
    fn reason(error: ErrorObject) -> String {
        assert_eq!(error.code, crate::jsonrpc::ErrorCode::INVALID_PARAMS);
        match error.data {
            Some(serde_json::Value::String(reason)) => reason,
            other => panic!("no reason: {other:?}"),
        }
    }

    fn prompt(text: &str) -> Result<GetPrompt, String> {
        match call(text) {
            Call::PromptsGet(read) => read.map_err(reason),
            other => panic!("{text} decoded as {other:?}"),
        }
    }

    fn resource(text: &str) -> Result<ReadResource, String> {
        match call(text) {
            Call::ResourcesRead(read) => read.map_err(reason),
            other => panic!("{text} decoded as {other:?}"),
        }
    }

    #[test]
    fn a_prompt_get_is_typed_in_either_key_order() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"sum","arguments":{"a":"1","b":"2","c":null},"_meta":{"x":1}}}"#,
            r#"{"params":{"arguments":{"c":null,"b":"2","a":"1"},"name":"sum"},"id":1,"method":"prompts/get","jsonrpc":"2.0"}"#,
        ] {
            let read = prompt(text).unwrap();
            assert_eq!(read.name, "sum");
            assert_eq!(
                read.arguments.into_iter().collect::<Vec<_>>(),
                [("a".into(), "1".into()), ("b".into(), "2".into())]
            );
        }
        let read = prompt(r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p\u00e9","arguments":null}}"#).unwrap();
        assert_eq!((read.name.as_str(), read.arguments.len()), ("pé", 0));
    }

    #[test]
    fn a_prompt_get_of_the_wrong_shape_is_its_answer_not_a_failed_pass() {
        let get = |params: &str| {
            prompt(&format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{params}}}"#
            ))
            .unwrap_err()
        };
        let needs = "prompts/get needs `params.name`, the prompt's name as a string";
        for params in ["{}", r#"{"name":7}"#, "[1]", r#""sum""#, "null", "3"] {
            assert_eq!(get(params), needs, "{params}");
        }
        assert_eq!(
            get(r#"{"name":"sum","arguments":{"a":"1","b":7,"c":[1,{"d":true}]}}"#),
            "Invalid arguments for prompt `sum`: argument `b`: prompt arguments are strings, got 7"
        );
        assert_eq!(
            get(r#"{"arguments":{"c":{"d":[1.5]}},"name":"sum"}"#),
            r#"Invalid arguments for prompt `sum`: argument `c`: prompt arguments are strings, got {"d":[1.5]}"#
        );
        assert_eq!(
            get(r#"{"name":"sum","arguments":["1","2"]}"#),
            "Invalid arguments for prompt `sum`: `params.arguments` must be an object of strings"
        );
        assert_eq!(
            get(r#"{"name":"sum","name":"other"}"#),
            "the key `params.name` appears more than once; send it once"
        );
        let no_params = prompt(r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get"}"#);
        assert_eq!(no_params.unwrap_err(), needs);
    }

    #[test]
    fn a_resource_read_is_typed_and_its_wrong_shapes_are_answers() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a://b/c","x":[1]}}"#,
            r#"{"params":{"x":{},"uri":"a://b/c"},"method":"resources/read","id":1,"jsonrpc":"2.0"}"#,
        ] {
            assert_eq!(resource(text).unwrap().uri, "a://b/c");
        }
        let needs = "resources/read needs `params.uri`, the resource's URI as a string";
        for params in ["{}", r#"{"uri":null}"#, r#"{"name":"a://b"}"#, "[]", "true"] {
            let text = format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{params}}}"#
            );
            assert_eq!(resource(&text).unwrap_err(), needs, "{params}");
        }
        let twice = r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"a://1","uri":"a://2"}}"#;
        assert_eq!(
            resource(twice).unwrap_err(),
            "the key `params.uri` appears more than once; send it once"
        );
    }

    #[test]
    fn bad_json_inside_the_params_still_fails_the_pass() {
        let text = r#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"sum","arguments":{"a":tru}}}"#;
        assert!(!matches!(
            Message::decode(text.as_bytes()),
            Message::Request(_)
        ));
    }
}
