//! [`Arguments`]: a call's arguments, read without building a `serde_json::Map`.
//!
//! serde_json's `preserve_order` (which keeps declaration order in schemas and `Json<T>` text)
//! makes every `Map` an `IndexMap` with a SipHash table: on the hot path, where the arguments of
//! each call used to become a `Map`, that cost an allocation and four hashes per call more than
//! the `BTreeMap` it replaced. The arguments are read instead as what they are, a short list:
//! their names in one buffer, their values in order. Each value is still a `Value` parsed as
//! before, so what is accepted, what is refused and every error text are unchanged. A `Map` is
//! built only when something asks for one (a raw handler's [`ToolCall::arguments`], the
//! general JSON-RPC path, an argument error of a whole-input struct).
//!
//! [`ToolCall::arguments`]: super::ToolCall::arguments

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

/// The `arguments` of a `tools/call`, as the model sent them.
///
/// An object is held as its entries in the order they came (a name sent twice keeps its first
/// place and its last value, as a `serde_json::Map` does); anything else is kept as the `Value`
/// it is, for the call to refuse. Absent and `null` arguments are the default, which a tool
/// reads as no arguments.
#[derive(Clone, Default, PartialEq)]
pub struct Arguments {
    kind: Kind,
}

#[derive(Clone, Default, PartialEq)]
enum Kind {
    /// Absent or `null`.
    #[default]
    Null,
    /// An object.
    Object(Entries),
    /// Anything else (a string, a number, an array…), boxed: a `Value` is 80 bytes with
    /// `preserve_order`, and the arguments are moved along with every call.
    Other(Box<Value>),
}

impl Arguments {
    /// The arguments as a `Value` (`null` when absent).
    pub fn into_value(self) -> Value {
        match self.kind {
            Kind::Null => Value::Null,
            Kind::Object(entries) => Value::Object(entries.into_map()),
            Kind::Other(value) => *value,
        }
    }

    /// The argument `name`, if the arguments are an object that has it.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match &self.kind {
            Kind::Object(entries) => entries
                .iter()
                .find(|(entry, _)| *entry == name)
                .map(|(_, value)| value),
            _ => None,
        }
    }

    /// The arguments in a canonical form (every object's keys sorted, compact JSON): what a
    /// sealed `requestState` is bound to (MCP 2026-07-28), so a state issued for one set of
    /// arguments does not open for another, while a client that writes the same arguments in
    /// another key order on its retry is not refused.
    pub(crate) fn bound_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match &self.kind {
            Kind::Null => out.extend_from_slice(b"null"),
            Kind::Object(entries) => {
                let mut sorted: Vec<(&str, &Value)> = entries.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(b.0));
                canonical_object(sorted, &mut out);
            }
            Kind::Other(value) => canonical(value, &mut out),
        }
        out
    }

    /// The entries of an object, no entries for absent or `null` arguments, or the `Value`
    /// that is neither.
    pub(crate) fn into_entries(self) -> Result<Entries, Value> {
        match self.kind {
            Kind::Null => Ok(Entries::default()),
            Kind::Object(entries) => Ok(entries),
            Kind::Other(value) => Err(*value),
        }
    }
}

impl From<Value> for Arguments {
    fn from(value: Value) -> Self {
        let kind = match value {
            Value::Null => Kind::Null,
            Value::Object(map) => Kind::Object(Entries::from_map(map)),
            other => Kind::Other(Box::new(other)),
        };
        Arguments { kind }
    }
}

impl fmt::Debug for Arguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Null => f.write_str("Null"),
            Kind::Object(entries) => entries.fmt(f),
            Kind::Other(value) => value.fmt(f),
        }
    }
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
        f.write_str("the arguments of a tool call")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Arguments, A::Error> {
        let mut entries = Entries {
            names: String::new(),
            entries: Vec::with_capacity(map.size_hint().unwrap_or(0).min(16)),
        };
        let mut start = 0;
        while map.next_key_seed(NameInto(&mut entries.names))?.is_some() {
            let value = map.next_value::<Value>()?;
            let end = entries.names.len();
            entries.entries.push(Entry {
                start,
                end,
                value: Some(value),
            });
            start = end;
        }
        entries.merge_repeated_names();
        Ok(Arguments {
            kind: Kind::Object(entries),
        })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Arguments, E> {
        Ok(Arguments::default())
    }

    // Anything but an object or `null` is kept as its `Value`, for the call to refuse with the
    // kind it was.
    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Arguments, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Arguments::from)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Arguments, E> {
        Ok(Arguments::from(Value::String(v.into())))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Arguments, E> {
        Ok(Arguments::from(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Arguments, E> {
        Ok(Arguments::from(Value::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Arguments, E> {
        Ok(Arguments::from(Value::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Arguments, E> {
        Ok(Arguments::from(Value::from(v)))
    }
}

/// Reads one object key, appending it to the names buffer: no allocation per key, escaped or
/// not.
struct NameInto<'b>(&'b mut String);

impl<'de> DeserializeSeed<'de> for NameInto<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for NameInto<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an argument name")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v);
        Ok(())
    }
}

/// The entries of an arguments object: names without repeats, in the order they came.
#[derive(Clone, Default)]
pub(crate) struct Entries {
    /// Every name, one after the other.
    names: String,
    /// Each entry's name (a range of `names`) and value; `None` once taken.
    entries: Vec<Entry>,
}

#[derive(Clone)]
struct Entry {
    start: usize,
    end: usize,
    value: Option<Value>,
}

/// Up to this many entries, repeated names are looked for pair by pair; beyond, with a set.
const PAIRWISE_UP_TO: usize = 16;

impl Entries {
    fn from_map(map: Map<String, Value>) -> Self {
        let mut entries = Entries {
            names: String::new(),
            entries: Vec::with_capacity(map.len()),
        };
        for (name, value) in map {
            let start = entries.names.len();
            entries.names.push_str(&name);
            entries.entries.push(Entry {
                start,
                end: entries.names.len(),
                value: Some(value),
            });
        }
        entries
    }

    fn name(&self, entry: &Entry) -> &str {
        &self.names[entry.start..entry.end]
    }

    /// The name's bytes: comparing them needs no check of char boundaries.
    fn name_bytes(&self, entry: &Entry) -> &[u8] {
        &self.names.as_bytes()[entry.start..entry.end]
    }

    /// The entries not taken yet, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries
            .iter()
            .filter_map(|entry| Some((self.name(entry), entry.value.as_ref()?)))
    }

    /// The names not taken yet, in order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.iter().map(|(name, _)| name)
    }

    /// Whether argument `name` is there (and not taken).
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.names().any(|present| present == name)
    }

    /// Takes argument `name` out.
    pub(crate) fn take(&mut self, name: &str) -> Option<Value> {
        let (names, name) = (self.names.as_bytes(), name.as_bytes());
        self.entries
            .iter_mut()
            .find(|entry| entry.value.is_some() && &names[entry.start..entry.end] == name)?
            .value
            .take()
    }

    /// Takes out every argument whose name `keep` refuses, in one pass; returns their names in
    /// order.
    pub(crate) fn take_unless(&mut self, keep: impl Fn(&str) -> bool) -> Vec<String> {
        let Entries { names, entries } = self;
        let mut taken = Vec::new();
        for entry in entries.iter_mut() {
            let name = &names[entry.start..entry.end];
            if entry.value.is_some() && !keep(name) {
                entry.value = None;
                taken.push(name.to_string());
            }
        }
        taken
    }

    /// The entries not taken yet, as a `Map` (their values cloned).
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(name, value)| (name.to_string(), value.clone()))
            .collect()
    }

    fn into_map(self) -> Map<String, Value> {
        let Entries { names, entries } = self;
        entries
            .into_iter()
            .filter_map(|entry| Some((names[entry.start..entry.end].to_string(), entry.value?)))
            .collect()
    }

    /// A name sent twice keeps its first place and its last value, as inserting into a `Map`
    /// does; the later entries go. The usual object has no repeats, found out at the cost of a
    /// few comparisons (or one set, for many names).
    fn merge_repeated_names(&mut self) {
        if !self.has_repeated_names() {
            return;
        }
        let mut first_of: std::collections::HashMap<String, usize> = Default::default();
        for index in 0..self.entries.len() {
            let name = self.name(&self.entries[index]).to_string();
            match first_of.get(&name) {
                Some(&first) => {
                    let value = self.entries[index].value.take();
                    self.entries[first].value = value;
                }
                None => {
                    first_of.insert(name, index);
                }
            }
        }
        self.entries.retain(|entry| entry.value.is_some());
    }

    fn has_repeated_names(&self) -> bool {
        let count = self.entries.len();
        if count <= PAIRWISE_UP_TO {
            self.entries.iter().enumerate().any(|(i, entry)| {
                let name = self.name_bytes(entry);
                self.entries[i + 1..]
                    .iter()
                    .any(|later| self.name_bytes(later) == name)
            })
        } else {
            let mut seen = HashSet::with_capacity(count);
            !self
                .entries
                .iter()
                .all(|entry| seen.insert(self.name(entry)))
        }
    }

    /// Deserializes `T` from the entries not taken yet, without building a `Map`, as a
    /// `Value::Object` of them would. An error is only "not this way": the caller then
    /// deserializes from the `Map`, whose errors (texts, paths) are the ones the model reads.
    pub(crate) fn deserialize<T: de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(EntriesDeserializer { entries: self })
    }
}

impl PartialEq for Entries {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl fmt::Debug for Entries {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The entries as a JSON object, for a whole-input struct: every request is answered as a map
/// (the way serde_json's `Value::Object` answers `deserialize_any`, `_map` and `_struct`).
/// Requests a `Value::Object` answers otherwise (an enum, an `Option`, a newtype…) get the map
/// too, which their visitors refuse: the caller then takes the `Map` path.
struct EntriesDeserializer<'a> {
    entries: &'a Entries,
}

impl<'de> Deserializer<'de> for EntriesDeserializer<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let mut access = EntriesAccess {
            entries: self.entries.iter(),
            value: None,
        };
        let value = visitor.visit_map(&mut access)?;
        // As serde_json: a visitor that leaves entries unread is an error.
        match access.entries.next() {
            None => Ok(value),
            Some(_) => Err(de::Error::custom("fewer elements in map")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
    }
}

struct EntriesAccess<'a, I> {
    entries: I,
    value: Option<&'a Value>,
}

impl<'de, I: Iterator<Item = (&'de str, &'de Value)>> MapAccess<'de> for EntriesAccess<'de, I> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        match self.entries.next() {
            Some((name, value)) => {
                self.value = Some(value);
                seed.deserialize(de::value::BorrowedStrDeserializer::new(name))
                    .map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::custom("value is missing")),
        }
    }
}

/// `value` as compact JSON with every object's keys sorted.
fn canonical(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => {
            let mut sorted: Vec<(&str, &Value)> =
                map.iter().map(|(k, v)| (k.as_str(), v)).collect();
            sorted.sort_by(|a, b| a.0.cmp(b.0));
            canonical_object(sorted, out);
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        // Scalars serialise; a failure cannot happen for a `Value`.
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

fn canonical_object(sorted: Vec<(&str, &Value)>, out: &mut Vec<u8>) {
    out.push(b'{');
    for (i, (key, value)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let _ = serde_json::to_writer(&mut *out, key);
        out.push(b':');
        canonical(value, out);
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Arguments {
        serde_json::from_str(text).unwrap()
    }

    fn entries(text: &str) -> Entries {
        read(text).into_entries().unwrap()
    }

    /// What a `Value` made of the same text holds: the `Map` the arguments used to be.
    fn as_map(text: &str) -> Map<String, Value> {
        match serde_json::from_str(text).unwrap() {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn an_object_keeps_its_order_and_values() {
        let text = r#"{"z":1,"a":{"y":[1,2],"b":null},"m":"x"}"#;
        let entries = entries(text);
        assert_eq!(entries.names().collect::<Vec<_>>(), ["z", "a", "m"]);
        assert_eq!(entries.to_map(), as_map(text));
        assert_eq!(
            serde_json::to_string(&entries.to_map()).unwrap(),
            text,
            "the map is in the order sent"
        );
    }

    #[test]
    fn a_repeated_name_keeps_its_first_place_and_its_last_value_as_a_map_does() {
        let text = r#"{"a":1,"b":2,"a":3,"c":4,"b":5}"#;
        let entries = entries(text);
        assert_eq!(entries.names().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(entries.to_map(), as_map(text));
        assert_eq!(
            serde_json::to_string(&entries.to_map()).unwrap(),
            r#"{"a":3,"b":5,"c":4}"#
        );
    }

    #[test]
    fn repeats_among_many_names_are_merged_too() {
        let mut text = String::from("{");
        for i in 0..1000 {
            text.push_str(&format!(r#""k{i}":{i},"#));
        }
        text.push_str(r#""k7":"last","k999":"end"}"#);
        let entries = entries(&text);
        assert_eq!(entries.names().count(), 1000);
        assert_eq!(entries.to_map(), as_map(&text));
        assert_eq!(entries.to_map()["k7"], json!("last"));
    }

    #[test]
    fn escaped_names_are_read_unescaped() {
        let text = r#"{"a\"b":1,"\u00e9t\u00e9":2,"tab\there":3,"\ud83d\ude00":4}"#;
        let mut entries = entries(text);
        assert_eq!(
            entries.names().collect::<Vec<_>>(),
            ["a\"b", "été", "tab\there", "😀"]
        );
        assert_eq!(entries.take("été"), Some(json!(2)));
        assert_eq!(entries.take("été"), None, "taken once");
        assert_eq!(entries.to_map(), {
            let mut map = as_map(text);
            map.shift_remove("été");
            map
        });
    }

    #[test]
    fn absent_null_and_other_values() {
        assert_eq!(read("null"), Arguments::default());
        assert_eq!(read("null").into_entries().unwrap(), Entries::default());
        assert_eq!(read("{}").into_entries().unwrap(), Entries::default());
        for text in [r#""text""#, "[1,{\"a\":2}]", "7", "-7", "1.5", "true"] {
            let value: Value = serde_json::from_str(text).unwrap();
            assert_eq!(read(text).into_entries(), Err(value.clone()), "{text}");
            assert_eq!(read(text).into_value(), value);
        }
    }

    #[test]
    fn a_value_is_read_exactly_as_a_value_is() {
        // float_roundtrip: the float at the edge of what parses exactly, and the largest one.
        let text = r#"{"f":2.2250738585072011e-308,"g":1.7976931348623157e308,"i":-9223372036854775808,"u":18446744073709551615}"#;
        let entries = entries(text);
        assert_eq!(entries.to_map(), as_map(text));
        assert_eq!(
            entries
                .iter()
                .find(|(name, _)| *name == "f")
                .unwrap()
                .1
                .as_f64(),
            // Rust's own parse is exact: the value the text denotes.
            Some("2.2250738585072011e-308".parse::<f64>().unwrap())
        );
    }

    #[test]
    fn what_a_value_refuses_the_arguments_refuse_with_the_same_error() {
        for text in [
            r#"{"n":1e400}"#,
            r#"{"s":"\ud800"}"#,
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{1:2}"#,
        ] {
            let as_value = serde_json::from_str::<Value>(text).unwrap_err().to_string();
            let as_arguments = serde_json::from_str::<Arguments>(text)
                .unwrap_err()
                .to_string();
            assert_eq!(as_arguments, as_value, "{text}");
        }
        let deep = format!("{}{}", "{\"a\":".repeat(200), "}".repeat(200));
        assert_eq!(
            serde_json::from_str::<Arguments>(&deep)
                .unwrap_err()
                .to_string(),
            serde_json::from_str::<Value>(&deep)
                .unwrap_err()
                .to_string()
        );
    }

    #[test]
    fn values_round_trip_through_value() {
        let value = json!({"b": [1, 2], "a": {"x": null}});
        assert_eq!(Arguments::from(value.clone()).into_value(), value);
        assert_eq!(Arguments::from(Value::Null).into_value(), Value::Null);
        assert_eq!(Arguments::from(json!([1])).into_value(), json!([1]));
    }

    #[test]
    fn a_struct_is_deserialized_from_the_entries_left() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Search {
            query: String,
            limit: Option<u32>,
        }
        let mut entries = entries(r#"{"query":"rust","limit":3,"extra":true}"#);
        assert_eq!(
            entries.deserialize::<Search>().unwrap(),
            Search {
                query: "rust".into(),
                limit: Some(3)
            }
        );
        entries.take("limit");
        assert_eq!(
            entries.deserialize::<Search>().unwrap(),
            Search {
                query: "rust".into(),
                limit: None
            }
        );
        // What the entries cannot give is an error, for the caller to take the `Map` path.
        assert!(entries.deserialize::<Vec<u32>>().is_err());
        assert!(entries.deserialize::<Option<Search>>().is_err());
    }
}
