//! [`parse_text`]: one string (a prompt's argument, a URI template's variable) read as the
//! type a handler asks for.

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;

/// Parses a string argument (a prompt's, a URI template's variable) into a `T`: the string
/// itself for strings, enum variants and types read from a string (dates, UUIDs…), the number
/// or boolean it writes for those, `null` as `None`, and JSON text for lists and maps. The
/// error is the one that says most: the JSON reading's when the text is JSON, else the string
/// reading's.
pub(crate) fn parse_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    // Read straight from the text: no `Value`, no error built on the way (a failure only sends
    // the text down the slow road below, which also words the error).
    match T::deserialize(Text(text)) {
        Ok(value) => Ok(value),
        Err(_) => parse_slowly(text),
    }
}

/// [`parse_text`] without its fast road: the string reading, then the JSON one.
fn parse_slowly<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let as_str: StrDeserializer<'_, serde_json::Error> = text.into_deserializer();
    let first = match T::deserialize(as_str) {
        Ok(value) => return Ok(value),
        Err(error) => error,
    };
    // Through a `Value`, so that the error has no line and column: the text is one argument.
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => serde_json::from_value(value).map_err(|error| error.to_string()),
        Err(_) => Err(first.to_string()),
    }
}

/// A deserializer over one argument's text, reading it as the type asks: each `deserialize_*`
/// either reads the text as [`parse_text`]'s slow road would, or fails, and then that road
/// decides. So every value it yields is the one the slow road gives (the tests check it).
struct Text<'a>(&'a str);

impl<'a> Text<'a> {
    /// The text read as JSON (a number, a list, a map…), all of it.
    fn json<T>(
        self,
        read: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::StrRead<'a>>,
        ) -> Result<T, serde_json::Error>,
    ) -> Result<T, serde_json::Error> {
        let mut json = serde_json::Deserializer::from_str(self.0);
        let value = read(&mut json)?;
        json.end()?;
        Ok(value)
    }
}

macro_rules! numbers {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.json(|json| de::Deserializer::$method(json, visitor))
        }
    )*};
}

impl<'de> de::Deserializer<'de> for Text<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_borrowed_str(self.0)
    }

    numbers!(
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_bool,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_bytes,
        deserialize_byte_buf
    );

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            "null" => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // A unit variant by its name, as the string reading does.
        let name: StrDeserializer<'de, serde_json::Error> = self.0.into_deserializer();
        visitor.visit_enum(name)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.json(|json| de::Deserializer::deserialize_tuple(json, len, visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.json(|json| de::Deserializer::deserialize_tuple_struct(json, name, len, visitor))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.json(|json| de::Deserializer::deserialize_struct(json, name, fields, visitor))
    }

    forward_to_deserialize_any! { char str string identifier ignored_any }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Unit {
        Km,
        Mile,
    }

    #[test]
    fn strings_numbers_booleans_and_enums_parse_from_text() {
        assert_eq!(parse_text::<String>("42").unwrap(), "42");
        assert_eq!(parse_text::<String>("\"q\"").unwrap(), "\"q\"");
        assert_eq!(parse_text::<u32>("42").unwrap(), 42);
        assert_eq!(parse_text::<f64>("1.5").unwrap(), 1.5);
        assert!(parse_text::<bool>("true").unwrap());
        assert_eq!(parse_text::<Unit>("mile").unwrap(), Unit::Mile);
        assert_eq!(parse_text::<Unit>("km").unwrap(), Unit::Km);
    }

    #[test]
    fn errors_say_what_was_expected() {
        assert_eq!(
            parse_text::<u32>("abc").unwrap_err(),
            "invalid type: string \"abc\", expected u32"
        );
        assert_eq!(
            parse_text::<u32>("-1").unwrap_err(),
            "invalid value: integer `-1`, expected u32"
        );
        assert_eq!(
            parse_text::<Unit>("parsec").unwrap_err(),
            "unknown variant `parsec`, expected `km` or `mile`"
        );
    }

    /// The fast road yields what the slow road does, for every kind of target and text.
    #[test]
    fn the_fast_road_agrees_with_the_slow_one() {
        fn same<T: DeserializeOwned + PartialEq + std::fmt::Debug>(text: &str) {
            let fast = T::deserialize(Text(text)).ok();
            let slow = parse_slowly::<T>(text).ok();
            let what = format!("{text:?} as {}", std::any::type_name::<T>());
            match (&fast, &slow) {
                (Some(fast), Some(slow)) => assert_eq!(fast, slow, "{what}"),
                (Some(_), None) => {
                    panic!("{what}: the slow road fails, the fast one reads {fast:?}")
                }
                _ => {}
            }
            assert_eq!(parse_text::<T>(text).ok(), fast.or(slow), "{what}");
        }
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Point {
            x: i32,
            y: i32,
        }
        #[derive(Debug, PartialEq, serde::Deserialize)]
        struct Name(String);
        #[derive(Debug, PartialEq, serde::Deserialize)]
        #[serde(untagged)]
        enum NumberOrText {
            Number(i64),
            Text(String),
        }
        for text in [
            "42",
            "-1",
            "+5",
            " 7 ",
            "1.5",
            "1e3",
            ".5",
            "inf",
            "NaN",
            "true",
            "false",
            "null",
            "",
            "abc",
            "\"q\"",
            "mile",
            "\"mile\"",
            "[1,2]",
            "[1, \"a\"]",
            "{\"x\":1,\"y\":2}",
            "{\"x\":1}",
            "18446744073709551616",
            "-9223372036854775809",
            "é",
            "x y",
        ] {
            same::<String>(text);
            same::<i64>(text);
            same::<u32>(text);
            same::<u8>(text);
            same::<f64>(text);
            same::<f32>(text);
            same::<bool>(text);
            same::<char>(text);
            same::<()>(text);
            same::<Unit>(text);
            same::<Vec<i64>>(text);
            same::<(i64, String)>(text);
            same::<Point>(text);
            same::<NumberOrText>(text);
            same::<serde_json::Value>(text);
            same::<std::collections::BTreeMap<String, i64>>(text);
            // An option and a newtype read the text as their inner type does (the slow road
            // offers them the whole text as a string first, which neither takes, then as
            // JSON: `"q"` would be `q` there, and `42` no `Name` at all).
            assert_eq!(
                parse_text::<Option<u32>>(text).ok(),
                if text == "null" {
                    Some(None)
                } else {
                    parse_text::<u32>(text).ok().map(Some)
                },
                "{text:?} as Option<u32>"
            );
            assert_eq!(
                parse_text::<Option<Unit>>(text).ok(),
                if text == "null" {
                    Some(None)
                } else {
                    parse_text::<Unit>(text).ok().map(Some)
                },
                "{text:?} as Option<Unit>"
            );
            assert_eq!(
                parse_text::<Name>(text).ok(),
                parse_text::<String>(text).ok().map(Name),
                "{text:?} as Name"
            );
        }
    }

    /// An optional argument reads as its type does: a string keeps its text whole, quotes
    /// included, as a `String` argument does; `null` is no value.
    #[test]
    fn an_option_reads_its_text_as_its_type_does() {
        assert_eq!(
            parse_text::<Option<String>>("\"q\"").unwrap().as_deref(),
            Some("\"q\"")
        );
        assert_eq!(
            parse_text::<Option<String>>("abc").unwrap().as_deref(),
            Some("abc")
        );
        assert_eq!(parse_text::<Option<u32>>("7").unwrap(), Some(7));
        assert_eq!(parse_text::<Option<u32>>("null").unwrap(), None);
    }

    /// 128-bit integers read in full (a `serde_json::Value` stops at 64 bits).
    #[test]
    fn wide_integers_read_in_full() {
        assert_eq!(
            parse_text::<i128>("-170141183460469231731687303715884105728").unwrap(),
            i128::MIN
        );
        assert_eq!(parse_text::<u128>("18446744073709551616").unwrap(), 1 << 64);
    }
}
