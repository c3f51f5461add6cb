//! Roots: the directories (or other URIs) the client works in.

use serde::Deserialize;

use super::AskError;
use crate::jsonrpc::RawParams;

/// One of the client's roots (`roots/list`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// Where: a `file://` URI in MCP 2025-06-18.
    pub uri: String,
    /// A name for people, when the client gave one.
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Deserialize)]
struct ListRootsResult {
    roots: Vec<Root>,
}

/// Reads the client's `roots/list` result.
pub(crate) fn read_roots(result: &RawParams) -> Result<Vec<Root>, AskError> {
    result
        .parse::<ListRootsResult>()
        .map(|result| result.roots)
        .map_err(|error| {
            AskError::InvalidAnswer(format!(
                "a roots/list result is {{\"roots\": [{{\"uri\": \"…\", \"name\"?: \"…\"}}]}} ({error})"
            ))
        })
}
