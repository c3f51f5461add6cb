//! The content of the server-side web tools' result blocks (`web_search_tool_result`,
//! `web_fetch_tool_result`): the API runs these tools itself, and the CLI passes their blocks
//! through in the assistant's content.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A web tool's error, in place of its results (`{"type": "web_search_tool_result_error",
/// "error_code": "max_uses_exceeded"}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WebToolError {
    /// `invalid_input`, `unavailable`, `max_uses_exceeded`, `too_many_requests`,
    /// `url_not_accessible`…
    pub error_code: String,
    /// Every other field (its `type` included).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One result of a web search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WebSearchResult {
    /// The page.
    pub url: String,
    /// Its title.
    pub title: String,
    /// How old the page is, as the search engine says (`None`: `null`).
    pub page_age: Option<String>,
    /// The page's content, encrypted for the model (to be passed back as it came).
    pub encrypted_content: String,
    /// Every other field (its `type`, `web_search_result`, included).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The content of a `web_search_tool_result` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum WebSearchContent {
    /// The results.
    Results(Vec<WebSearchResult>),
    /// The search failed.
    Error(WebToolError),
}

/// A fetched page, in [`WebFetchContent::Result`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct WebFetchResult {
    /// The page.
    pub url: String,
    /// Its content: a `document` block (a text or PDF source, a title, citations).
    pub content: Value,
    /// When it was fetched (an ISO 8601 time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrieved_at: Option<String>,
    /// Every other field (its `type`, `web_fetch_result`, included).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The content of a `web_fetch_tool_result` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum WebFetchContent {
    /// The page.
    Result(WebFetchResult),
    /// The fetch failed.
    Error(WebToolError),
}
