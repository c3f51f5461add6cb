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
        assert_eq!(JsonStr(Cow::Borrowed("x")).into_owned(), "x");
    }
}
