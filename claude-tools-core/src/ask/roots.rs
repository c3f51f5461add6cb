//! Roots: the directories (or other URIs) the client works in.

use serde::{Deserialize, Serialize};

use super::AskError;
use crate::jsonrpc::RawParams;

/// One of the client's roots (`roots/list`). A client (a test's, say) writes one with
/// [`Root::new`].
///
/// ```
/// use claude_tools::mcp::Root;
///
/// let root = Root::new("file:///work/shop").named("shop");
/// assert_eq!(root.name.as_deref(), Some("shop"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// Where: a `file://` URI in MCP 2025-06-18.
    pub uri: String,
    /// A name for people, when the client gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// The root at `uri` (a `file://` URI), without a name.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
        }
    }

    /// The same root, named `name` for people.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
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
