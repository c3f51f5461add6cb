//! The answer to `get_usage`: what `/usage` shows, typed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The answer to `get_usage` ([`Controls::usage`](super::Controls::usage)): the session's
/// cost and token totals, and the claude.ai plan's rate-limit windows when they apply.
///
/// Experimental in the CLI (the TypeScript SDK names its method
/// `usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET`): every field not typed here is
/// kept in [`extra`](Self::extra) (`behaviors` among them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UsageReport {
    /// The cost and usage of the session so far.
    pub session: SessionUsage,
    /// The claude.ai subscription (`pro`, `max`, `team`, `enterprise`); `None` for an API key
    /// or another provider.
    #[serde(default)]
    pub subscription_type: Option<String>,
    /// Whether plan rate limits apply (`false` for an API key, Bedrock, Vertex…; then
    /// [`rate_limits`](Self::rate_limits) is `None`).
    #[serde(default)]
    pub rate_limits_available: bool,
    /// The plan's rate-limit windows, when known.
    #[serde(default)]
    pub rate_limits: Option<RateLimits>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The session's totals in a [`UsageReport`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionUsage {
    /// What the session cost, in US dollars.
    #[serde(default)]
    pub total_cost_usd: f64,
    /// Time spent waiting for the API, in milliseconds.
    #[serde(default)]
    pub total_api_duration_ms: f64,
    /// The session's wall time, in milliseconds.
    #[serde(default)]
    pub total_duration_ms: f64,
    /// Lines the session's edits added.
    #[serde(default)]
    pub total_lines_added: u64,
    /// Lines they removed.
    #[serde(default)]
    pub total_lines_removed: u64,
    /// Usage by model, as the `result` message's `modelUsage` gives it.
    #[serde(default)]
    pub model_usage: BTreeMap<String, Value>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The plan's rate-limit windows in a [`UsageReport`]; a window the CLI does not know is `None`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RateLimits {
    /// The 5-hour window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub five_hour: Option<RateLimitWindow>,
    /// The 7-day window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seven_day: Option<RateLimitWindow>,
    /// The 7-day window of OAuth apps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seven_day_oauth_apps: Option<RateLimitWindow>,
    /// The 7-day window of Opus models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seven_day_opus: Option<RateLimitWindow>,
    /// The 7-day window of Sonnet models.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seven_day_sonnet: Option<RateLimitWindow>,
    /// Every other window (`model_scoped`…).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One rate-limit window of [`RateLimits`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RateLimitWindow {
    /// How much of the window is used, in percent (0 to 100).
    #[serde(default)]
    pub utilization: Option<f64>,
    /// When the window resets (ISO 8601).
    #[serde(default)]
    pub resets_at: Option<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
