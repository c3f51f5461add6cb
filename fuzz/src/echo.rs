//! A `#[tool]` whose parameters cover the argument types a tool takes (integers, a float, strings,
//! `Option`, `Vec`, a nested struct, an enum), and that answers with what it decoded, so a target
//! can compare the macro's decoding with serde's.

use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The server holding [`echo`].
#[tool_server(name = "fuzz", version = "0.0.0")]
pub struct Fuzz;

/// A nested struct argument.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Point {
    /// Across
    pub x: i32,
    /// Down
    pub y: i32,
    /// A name for it
    pub label: Option<String>,
}

/// An enum argument with unit, struct and newtype variants.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// No wait
    Fast,
    /// Wait a while
    Slow {
        /// How long
        ms: u32,
    },
    /// By name
    Named(String),
}

/// Answers with the arguments it decoded.
#[tool(server = Fuzz)]
#[allow(clippy::too_many_arguments)]
async fn echo(
    /// A signed integer
    count: i64,
    /// A small unsigned integer
    small: u8,
    /// A float
    ratio: f64,
    /// A string
    name: String,
    /// An optional string
    nick: Option<String>,
    /// A list of strings
    tags: Vec<String>,
    /// A nested struct
    point: Point,
    /// An enum
    mode: Mode,
    /// An optional unsigned integer
    limit: Option<u32>,
) -> String {
    json!([count, small, ratio, name, nick, tags, point, mode, limit]).to_string()
}

/// The parameter names, in declaration order.
pub const PARAMETERS: [&str; 9] = [
    "count", "small", "ratio", "name", "nick", "tags", "point", "mode", "limit",
];

/// Keys worth generating in `echo`'s arguments (its parameters and the fields inside them).
pub const KEYS: [&str; 15] = [
    "count", "small", "ratio", "name", "nick", "tags", "point", "mode", "limit", "x", "y", "label",
    "fast", "slow", "ms",
];

/// What `echo` should answer for `arguments`: `Ok(text)` when every parameter decodes, or
/// `Err(parameter)` naming the first that does not, decoding each one as serde does on its own
/// (a missing or `null` optional argument is `None`, a missing required one is an error).
pub fn expected(arguments: &Map<String, Value>) -> Result<String, &'static str> {
    fn required<T: serde::de::DeserializeOwned>(
        arguments: &Map<String, Value>,
        name: &'static str,
    ) -> Result<T, &'static str> {
        let value = arguments.get(name).ok_or(name)?;
        T::deserialize(value).map_err(|_| name)
    }
    fn optional<T: serde::de::DeserializeOwned>(
        arguments: &Map<String, Value>,
        name: &'static str,
    ) -> Result<Option<T>, &'static str> {
        match arguments.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => T::deserialize(value).map(Some).map_err(|_| name),
        }
    }
    let count: i64 = required(arguments, "count")?;
    let small: u8 = required(arguments, "small")?;
    let ratio: f64 = required(arguments, "ratio")?;
    let name: String = required(arguments, "name")?;
    let nick: Option<String> = optional(arguments, "nick")?;
    let tags: Vec<String> = required(arguments, "tags")?;
    let point: Point = required(arguments, "point")?;
    let mode: Mode = required(arguments, "mode")?;
    let limit: Option<u32> = optional(arguments, "limit")?;
    Ok(json!([count, small, ratio, name, nick, tags, point, mode, limit]).to_string())
}
