//! Token usage and cost, typed: the API's `usage` of one response or of a turn's main loop
//! ([`Usage`]), and the CLI's per-model totals of a whole `query` ([`ModelUsage`], the
//! `modelUsage` of a `result`), which is what cost accounting reads.
//!
//! Every count defaults to 0 when absent, and every struct keeps the fields it does not name
//! in `extra`, so a newer API's or CLI's additions are neither lost nor an error.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::wire_enum::wire_enum;

/// The API's `usage` of a response (an `assistant` frame's `message.usage`), or, on a `result`,
/// of the turn's main loop only: subagents, compaction and other internal calls are not in it
/// (read [`ModelUsage`] for accounting).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Usage {
    /// Input tokens not read from nor written to the cache.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens (thinking included).
    #[serde(default)]
    pub output_tokens: u64,
    /// Input tokens written to the cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    /// Input tokens read from the cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
    /// The cache writes by lifetime.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation: Option<CacheCreation>,
    /// Server-side tool requests (web search, web fetch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_tool_use: Option<ServerToolUse>,
    /// The output tokens by kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens_details: Option<OutputTokensDetails>,
    /// The tier that served the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_tier: Option<ServiceTier>,
    /// The inference speed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// Every other field (`inference_geo`, `iterations`, `fallback_credit`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Usage {
    /// Every input token: uncached, written to and read from the cache.
    pub fn total_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_creation_input_tokens.unwrap_or(0))
            .saturating_add(self.cache_read_input_tokens.unwrap_or(0))
    }

    /// Every token, input (cached or not) and output.
    pub fn total_tokens(&self) -> u64 {
        self.total_input_tokens().saturating_add(self.output_tokens)
    }
}

/// The cache writes of a response by lifetime (`usage.cache_creation`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CacheCreation {
    /// Written with a 5-minute lifetime.
    #[serde(default)]
    pub ephemeral_5m_input_tokens: u64,
    /// Written with a 1-hour lifetime.
    #[serde(default)]
    pub ephemeral_1h_input_tokens: u64,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Server-side tool requests of a response (`usage.server_tool_use`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ServerToolUse {
    /// Web searches.
    #[serde(default)]
    pub web_search_requests: u64,
    /// Web fetches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_fetch_requests: Option<u64>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output tokens of a response by kind (`usage.output_tokens_details`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct OutputTokensDetails {
    /// Spent on thinking (already counted in `output_tokens`).
    #[serde(default)]
    pub thinking_tokens: u64,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

wire_enum! {
    /// The tier that served a request (`usage.service_tier`).
    pub enum ServiceTier {
        /// `standard`.
        Standard = "standard",
        /// `priority`.
        Priority = "priority",
        /// `batch`.
        Batch = "batch",
    }
}

wire_enum! {
    /// The inference speed of a request (`usage.speed`).
    pub enum Speed {
        /// `standard`.
        Standard = "standard",
        /// `fast`.
        Fast = "fast",
    }
}

/// One model's totals over a whole `query` (or a streaming session so far): an entry of a
/// `result`'s `modelUsage`, keyed by the model id the CLI used. Cumulative: each `result`
/// carries the running total, so read the latest rather than summing results.
///
/// This covers the main loop, subagents, compaction and the other calls of the query
/// pipeline: the field for cost accounting. `cost_usd` is the CLI's estimate, not a bill.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ModelUsage {
    /// Uncached input tokens.
    #[serde(default)]
    pub input_tokens: u64,
    /// Output tokens (thinking included).
    #[serde(default)]
    pub output_tokens: u64,
    /// Thinking tokens, already in `output_tokens` (absent from older CLIs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_tokens: Option<u64>,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// Input tokens written to the cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Cache writes with a 5-minute lifetime, already in `cache_creation_input_tokens`.
    #[serde(
        default,
        rename = "cacheCreationEphemeral5mInputTokens",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_creation_ephemeral_5m_input_tokens: Option<u64>,
    /// Cache writes with a 1-hour lifetime, already in `cache_creation_input_tokens`.
    #[serde(
        default,
        rename = "cacheCreationEphemeral1hInputTokens",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_creation_ephemeral_1h_input_tokens: Option<u64>,
    /// Web searches.
    #[serde(default)]
    pub web_search_requests: u64,
    /// The estimated cost in USD.
    #[serde(default, rename = "costUSD")]
    pub cost_usd: f64,
    /// The model's context window, in tokens.
    #[serde(default)]
    pub context_window: u64,
    /// The model's output limit, in tokens.
    #[serde(default)]
    pub max_output_tokens: u64,
    /// The canonical model id the price was looked up by (`claude-opus-4-7`), which may differ
    /// from the key (a provider's id, an alias).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical_model: Option<String>,
    /// The API provider that served it (`firstParty`, `bedrock`, `vertex`…).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Which price table `cost_usd` comes from; absent means [`CostBasis::List`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_basis: Option<CostBasis>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ModelUsage {
    /// Every input token: uncached, written to and read from the cache.
    pub fn total_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_read_input_tokens)
            .saturating_add(self.cache_creation_input_tokens)
    }

    /// Every token, input (cached or not) and output.
    pub fn total_tokens(&self) -> u64 {
        self.total_input_tokens().saturating_add(self.output_tokens)
    }

    /// Whether `cost_usd` is a guess: no price was known for the model
    /// ([`CostBasis::Unknown`]), so the CLI priced it at its default model's rate.
    pub fn has_unknown_price(&self) -> bool {
        self.cost_basis == Some(CostBasis::Unknown)
    }
}

wire_enum! {
    /// Which price table a [`ModelUsage::cost_usd`] was computed from (`costBasis`).
    pub enum CostBasis {
        /// `list`: Claude Code's built-in list prices.
        List = "list",
        /// `managed`: the organization's `modelPricing` from managed settings.
        Managed = "managed",
        /// `unknown`: no price matched the model; the cost is a guess at the default model's rate.
        Unknown = "unknown",
    }
}
