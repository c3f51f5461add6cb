//! `result` messages: the end of a turn, with how it ended, its cost and usage.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::wire::{WireForm, null_default, typed};

/// How a turn ended: the `subtype` of a `result`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultSubtype {
    /// `success` (which may still carry `is_error: true`, e.g. for an API error).
    Success,
    /// `error_during_execution` (also an interrupted turn).
    ErrorDuringExecution,
    /// `error_max_turns`.
    ErrorMaxTurns,
    /// `error_max_budget_usd`.
    ErrorMaxBudgetUsd,
    /// `error_max_structured_output_retries`.
    ErrorMaxStructuredOutputRetries,
    /// A subtype this library does not know.
    Other(String),
}

impl ResultSubtype {
    /// Parses the wire value.
    pub fn from_wire(subtype: &str) -> Self {
        match subtype {
            "success" => ResultSubtype::Success,
            "error_during_execution" => ResultSubtype::ErrorDuringExecution,
            "error_max_turns" => ResultSubtype::ErrorMaxTurns,
            "error_max_budget_usd" => ResultSubtype::ErrorMaxBudgetUsd,
            "error_max_structured_output_retries" => ResultSubtype::ErrorMaxStructuredOutputRetries,
            other => ResultSubtype::Other(other.to_owned()),
        }
    }

    /// The wire value.
    pub fn as_str(&self) -> &str {
        match self {
            ResultSubtype::Success => "success",
            ResultSubtype::ErrorDuringExecution => "error_during_execution",
            ResultSubtype::ErrorMaxTurns => "error_max_turns",
            ResultSubtype::ErrorMaxBudgetUsd => "error_max_budget_usd",
            ResultSubtype::ErrorMaxStructuredOutputRetries => "error_max_structured_output_retries",
            ResultSubtype::Other(other) => other,
        }
    }
}

impl std::fmt::Display for ResultSubtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ResultSubtype {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultSubtype {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|s| ResultSubtype::from_wire(&s))
    }
}

/// A `result` message: the end of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultMessage {
    /// How the turn ended.
    pub subtype: ResultSubtype,
    /// Whether the turn failed.
    #[serde(default, deserialize_with = "null_default")]
    pub is_error: bool,
    /// Wall time of the turn.
    #[serde(default, deserialize_with = "null_default")]
    pub duration_ms: u64,
    /// Time spent in the API.
    #[serde(default, deserialize_with = "null_default")]
    pub duration_api_ms: u64,
    /// Agent turns taken.
    #[serde(default, deserialize_with = "null_default")]
    pub num_turns: u32,
    /// The session id.
    #[serde(default, deserialize_with = "null_default")]
    pub session_id: String,
    /// The final text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Why the model stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Cost in USD (as the CLI computes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cost_usd: Option<f64>,
    /// Token usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Value>,
    /// Usage per model.
    #[serde(
        default,
        rename = "modelUsage",
        skip_serializing_if = "Option::is_none"
    )]
    pub model_usage: Option<Value>,
    /// Tools the permission system refused (always written, as the CLI does).
    #[serde(default, deserialize_with = "null_default")]
    pub permission_denials: Vec<Value>,
    /// The structured output (with an output schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// Errors, for error subtypes.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub errors: Vec<Value>,
    /// The HTTP status of a fatal API error (`null` when there was none, as the CLI writes).
    #[serde(default)]
    pub api_error_status: Option<u16>,
    /// Why the run ended (`completed`, `api_error`, `aborted`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<String>,
    /// The message uuid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    /// Every other field (`api_error_type`, `deferred_tool_use`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// The wire form of the fields the types above cannot tell apart (see the module docs).
    #[serde(skip)]
    wire: WireForm,
}

impl ResultMessage {
    /// `subtype == success` and not `is_error`.
    pub fn is_success(&self) -> bool {
        self.subtype == ResultSubtype::Success && !self.is_error
    }
}

typed!(ResultMessage { extra });
