//! [`JsonStr`]: a JSON string read without a copy.
//!
//! serde's own `Cow<str>` borrows only as a struct field marked `#[serde(borrow)]`; as a map
//! key, inside an `Option` or through `next_value`, it always allocates. The hot path reads a
//! dozen short strings per line (keys, `type`, `subtype`, `method`…), so they are read as
//! `JsonStr`: borrowed from the line unless the string has escapes.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A string borrowed from the JSON text when it can be, owned when it had escapes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub struct JsonStr<'a>(pub Cow<'a, str>);

impl JsonStr<'_> {
    /// The string as an owned `String` (one copy when borrowed).
    #[doc(hidden)]
    pub fn into_owned(self) -> String {
        self.0.into_owned()
    }
}

impl Deref for JsonStr<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for JsonStr<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;

        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Cow<'de, str>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_owned()))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v))
            }
        }

        deserializer.deserialize_str(StrVisitor).map(JsonStr)
    }
}

/// A value that is read whatever it is, and kept when it is a string: the decoder reads an
/// envelope's string fields (`method`, `jsonrpc`, a tool's `name`) in its one pass without
/// failing the message when one has another type (the message is then answered for it).
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub struct StrOrOther<'a>(pub Option<JsonStr<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for StrOrOther<'a> {
    // Inlined: it reads the tool name and `_meta` keys of every `tools/call`.
    #[inline]
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct AnyVisitor;

        impl<'de> Visitor<'de> for AnyVisitor {
            type Value = Option<Cow<'de, str>>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Some(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Some(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Some(Cow::Owned(v)))
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(None)
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(None)
            }

            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(None)
            }
        }

        deserializer
            .deserialize_any(AnyVisitor)
            .map(|s| StrOrOther(s.map(JsonStr)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn is_borrowed(s: &JsonStr<'_>) -> bool {
        matches!(s.0, Cow::Borrowed(_))
    }

    #[test]
    fn borrows_plain_strings_and_owns_escaped_ones() {
        let values: Vec<JsonStr<'_>> = serde_json::from_str(r#"["tools/call", "a\nb"]"#).unwrap();
        assert_eq!((&*values[0], is_borrowed(&values[0])), ("tools/call", true));
        assert_eq!((&*values[1], is_borrowed(&values[1])), ("a\nb", false));

        let map: HashMap<JsonStr<'_>, JsonStr<'_>> =
            serde_json::from_str(r#"{"method": "ping", "esc\"aped": "x"}"#).unwrap();
        let mut keys: Vec<(&str, bool)> = map.keys().map(|k| (&**k, is_borrowed(k))).collect();
        keys.sort();
        assert_eq!(keys, [("esc\"aped", false), ("method", true)]);

        assert!(serde_json::from_str::<JsonStr<'_>>("7").is_err());
        let any: Vec<StrOrOther<'_>> =
            serde_json::from_str(r#"["a", 7, null, {"b": [1]}, [true], "c\"d"]"#).unwrap();
        let strings: Vec<Option<&str>> = any.iter().map(|s| s.0.as_deref()).collect();
        assert_eq!(strings, [Some("a"), None, None, None, None, Some("c\"d")]);
        assert_eq!(JsonStr(Cow::Borrowed("x")).into_owned(), "x");
    }
}
