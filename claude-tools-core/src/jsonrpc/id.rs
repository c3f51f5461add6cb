//! [`RequestId`] and [`ProgressToken`]: the two values a client names a request by, kept
//! exactly as it wrote them.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer};
use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// A JSON-RPC request id: a string or a number, written back exactly as the client wrote it.
///
/// Integers that fit an `i64` (what every client sends in practice: the Claude Code CLI counts
/// from 0) are held as one; strings as their text. Any other number (`1.50`, an integer past
/// `u64`, even `1e400`, which no 64-bit float holds) is kept as its JSON text, so the answer
/// carries the id the client is waiting for rather than a rounded float. Two ids are equal
/// when they are the same kind and the same text: `1` and `"1"` differ, and so do `1` and
/// `1.0`.
///
/// ```
/// use claude_tools::mcp::RequestId;
///
/// assert_eq!(RequestId::from(7).to_string(), "7");
/// assert_eq!(RequestId::from("a-1").as_str(), Some("a-1"));
/// let huge: RequestId = serde_json::from_str("123456789012345678901234567890").unwrap();
/// assert_eq!(serde_json::to_string(&huge).unwrap(), "123456789012345678901234567890");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RequestId(Repr);

#[derive(Clone)]
enum Repr {
    Integer(i64),
    String(Arc<str>),
    /// Any other JSON number, as its text.
    Number(Box<RawValue>),
}

impl PartialEq for Repr {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Repr::Integer(a), Repr::Integer(b)) => a == b,
            (Repr::String(a), Repr::String(b)) => a == b,
            (Repr::Number(a), Repr::Number(b)) => a.get() == b.get(),
            _ => false,
        }
    }
}

impl Eq for Repr {}

impl Hash for Repr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Repr::Integer(n) => {
                state.write_u8(0);
                n.hash(state);
            }
            Repr::String(s) => {
                state.write_u8(1);
                s.hash(state);
            }
            Repr::Number(raw) => {
                state.write_u8(2);
                raw.get().hash(state);
            }
        }
    }
}

/// Why a JSON value cannot be a request id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdError {
    /// `null`: JSON-RPC discourages it and MCP forbids it in a request.
    Null,
    /// An object, an array or a boolean.
    WrongType,
}

impl RequestId {
    /// The id, when it is an integer that fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Integer(n) => Some(*n),
            _ => None,
        }
    }

    /// The id, when it is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::String(s) => Some(s),
            _ => None,
        }
    }

    /// Whether the id is a number (of any size or form).
    pub fn is_number(&self) -> bool {
        !matches!(self.0, Repr::String(_))
    }

    /// The id as a `serde_json::Value`. A number no `Value` can hold (`1e400`) becomes its text
    /// as a string; its JSON form ([`Display`](fmt::Display), `Serialize`) stays as written.
    pub fn to_value(&self) -> Value {
        match &self.0 {
            Repr::Integer(n) => Value::from(*n),
            Repr::String(s) => Value::String(s.to_string()),
            Repr::Number(raw) => serde_json::from_str(raw.get())
                .unwrap_or_else(|_| Value::String(raw.get().to_string())),
        }
    }

    /// Reads an id from its JSON text (`raw` is one well-formed JSON value).
    pub(crate) fn from_json(raw: &str) -> Result<RequestId, IdError> {
        match raw.as_bytes().first() {
            Some(b'"') => serde_json::from_str::<crate::json_str::JsonStr<'_>>(raw)
                .map(|s| RequestId(Repr::String(Arc::from(&*s))))
                .map_err(|_| IdError::WrongType),
            Some(b'-' | b'0'..=b'9') => Ok(match raw.parse::<i64>() {
                Ok(n) => RequestId(Repr::Integer(n)),
                Err(_) => match RawValue::from_string(raw.to_string()) {
                    Ok(raw) => RequestId(Repr::Number(raw)),
                    Err(_) => return Err(IdError::WrongType),
                },
            }),
            Some(b'n') => Err(IdError::Null),
            _ => Err(IdError::WrongType),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId(Repr::Integer(n))
    }
}

impl From<i32> for RequestId {
    fn from(n: i32) -> Self {
        RequestId(Repr::Integer(n.into()))
    }
}

impl From<u32> for RequestId {
    fn from(n: u32) -> Self {
        RequestId(Repr::Integer(n.into()))
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId(Repr::String(Arc::from(s)))
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId(Repr::String(Arc::from(s)))
    }
}

impl From<Arc<str>> for RequestId {
    fn from(s: Arc<str>) -> Self {
        RequestId(Repr::String(s))
    }
}

/// The id as JSON: `7`, `"a-1"`, `1.50`.
impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Integer(n) => write!(f, "{n}"),
            Repr::String(s) => write!(f, "{}", Value::String(s.to_string())),
            Repr::Number(raw) => f.write_str(raw.get()),
        }
    }
}

impl fmt::Debug for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RequestId({self})")
    }
}

impl RequestId {
    /// Appends the id as JSON, as [`Serialize`] writes it: a number as written, a string
    /// escaped.
    pub(crate) fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        match &self.0 {
            Repr::Integer(n) => serde_json::to_writer(&mut *out, n),
            Repr::String(s) => serde_json::to_writer(&mut *out, &**s),
            Repr::Number(raw) => {
                out.extend_from_slice(raw.get().as_bytes());
                Ok(())
            }
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Integer(n) => serializer.serialize_i64(*n),
            Repr::String(s) => serializer.serialize_str(s),
            Repr::Number(raw) => raw.serialize(serializer),
        }
    }
}

/// Reads a string or a number; `null`, objects, arrays and booleans are refused.
impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        RequestId::from_json(raw.get()).map_err(|error| match error {
            IdError::Null => de::Error::custom("a request id must not be null"),
            IdError::WrongType => de::Error::custom("a request id must be a string or a number"),
        })
    }
}

/// An MCP `progressToken`: the name a client gives a request's progress notifications (a
/// string or a number, kept as written, like a [`RequestId`]).
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ProgressToken(pub RequestId);

impl From<RequestId> for ProgressToken {
    fn from(id: RequestId) -> Self {
        ProgressToken(id)
    }
}

impl From<i64> for ProgressToken {
    fn from(n: i64) -> Self {
        ProgressToken(n.into())
    }
}

impl From<&str> for ProgressToken {
    fn from(s: &str) -> Self {
        ProgressToken(s.into())
    }
}

impl fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Result<RequestId, IdError> {
        RequestId::from_json(text)
    }

    #[test]
    fn ids_keep_their_kind_and_text() {
        assert_eq!(id("3").unwrap().as_i64(), Some(3));
        assert_eq!(id("\"3\"").unwrap().as_str(), Some("3"));
        assert_ne!(id("3").unwrap(), id("\"3\"").unwrap());
        assert_ne!(id("1").unwrap(), id("1.0").unwrap());
        for text in [
            "1.50",
            "-0.0",
            "18446744073709551616",
            "1e400",
            "-1e400",
            "2E3",
        ] {
            let id = id(text).unwrap();
            assert_eq!(id.to_string(), text);
            assert_eq!(serde_json::to_string(&id).unwrap(), text);
            assert!(id.is_number());
        }
        assert_eq!(id("\"a\\u0062\"").unwrap().as_str(), Some("ab"));
        assert_eq!(id("\"a\\u0062\"").unwrap().to_string(), "\"ab\"");
    }

    #[test]
    fn null_and_other_types_are_not_ids() {
        assert_eq!(id("null"), Err(IdError::Null));
        for text in ["true", "{}", "[1]"] {
            assert_eq!(id(text), Err(IdError::WrongType));
        }
        assert!(serde_json::from_str::<RequestId>("null").is_err());
        assert!(serde_json::from_str::<RequestId>("[]").is_err());
    }

    #[test]
    fn ids_deserialize_from_text_and_from_values() {
        let from_text: RequestId = serde_json::from_str("12").unwrap();
        let from_value: RequestId = serde_json::from_value(serde_json::json!(12)).unwrap();
        assert_eq!(from_text, from_value);
        assert_eq!(from_text.to_value(), serde_json::json!(12));
        let huge: RequestId = serde_json::from_str("1e400").unwrap();
        assert_eq!(huge.to_value(), serde_json::json!("1e400"));
    }
}
