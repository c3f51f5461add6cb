//! Web tools: `WebFetch` and `WebSearch` (the CLI's tools, not the API's server tools, which
//! are [`ContentBlock::WebFetchToolResult`](crate::message::ContentBlock::WebFetchToolResult)
//! and [`ContentBlock::WebSearchToolResult`](crate::message::ContentBlock::WebSearchToolResult)).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// `WebFetch`'s input: a URL, and what to ask of its page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WebFetchInput {
    /// The URL.
    pub url: String,
    /// The prompt run on the page's text.
    pub prompt: String,
    /// Where in the page's text to start (to read on through a long page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `WebFetch`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WebFetchOutput {
    /// The page's size in bytes.
    pub bytes: u64,
    /// The HTTP status.
    pub code: u16,
    /// Its text.
    #[serde(rename = "codeText")]
    pub code_text: String,
    /// The prompt's answer.
    pub result: String,
    /// How long it took, in milliseconds.
    #[serde(rename = "durationMs")]
    pub duration_ms: Number,
    /// The URL fetched.
    pub url: String,
    /// The Artifact this fetch read, when it read one (`slug`, `ver`, `seeded`).
    #[serde(
        rename = "artifactRead",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub artifact_read: Option<Map<String, Value>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `WebSearch`'s input: a query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WebSearchInput {
    /// The query.
    pub query: String,
    /// Only results from these domains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
    /// No results from these domains.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_domains: Option<Vec<String>>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `WebSearch`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WebSearchOutput {
    /// The query run.
    pub query: String,
    /// The hits of each search, and the model's comments between them.
    pub results: Vec<WebSearchResultItem>,
    /// How long it took, in seconds.
    #[serde(rename = "durationSeconds")]
    pub duration_seconds: Number,
    /// How many searches ran.
    #[serde(
        rename = "searchCount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub search_count: Option<u64>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One item of [`WebSearchOutput::results`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum WebSearchResultItem {
    /// The hits of one search.
    Hits(WebSearchHits),
    /// Text from the model.
    Text(String),
}

/// The hits of one search, in [`WebSearchResultItem::Hits`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WebSearchHits {
    /// The search's `tool_use` id.
    pub tool_use_id: String,
    /// The hits.
    pub content: Vec<WebSearchHit>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One hit of a [`WebSearchHits`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WebSearchHit {
    /// The page's title.
    pub title: String,
    /// Its URL.
    pub url: String,
    /// The page's text (given to `PostToolUse` hooks, not in `tool_use_result`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// Fields this library does not know, kept as they came.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
