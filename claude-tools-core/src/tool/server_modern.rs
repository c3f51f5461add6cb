//! What a [`ToolServer`] tells MCP 2026-07-28 clients beside its tools: the cache hints of its
//! results and the key that seals its questions' `requestState`.

use std::sync::Arc;

use super::server::ToolServer;
use crate::jsonrpc::{CacheHint, CacheableMethod};
use crate::request_state::RequestStateCodec;

impl ToolServer {
    /// Sets the cache hint (`ttlMs`, `cacheScope`) of the MCP 2026-07-28 results of `method`:
    /// how long a client may reuse them, and whether a shared cache may give them to other
    /// callers. The default for each is [`CacheHint::default`], `ttlMs: 0` and `private`: a
    /// client fetches the list again each time and nothing is shared between callers, which is
    /// right for any server (its lists may change through a live handle, and a `resources/read`
    /// may depend on who asks). Say `public` only for results that are the same for every
    /// caller, and a TTL only as long as a stale answer is harmless.
    ///
    /// ```
    /// use std::time::Duration;
    /// use claude_tools::mcp::{CacheHint, CacheableMethod};
    /// use claude_tools::ToolServer;
    ///
    /// let server = ToolServer::new("docs", "1.0.0")
    ///     .with_cache_hint(CacheableMethod::ToolsList, CacheHint::public(Duration::from_secs(300)));
    /// assert_eq!(server.cache_hint(CacheableMethod::ToolsList).ttl_ms, 300_000);
    /// ```
    pub fn with_cache_hint(mut self, method: CacheableMethod, hint: CacheHint) -> Self {
        Arc::make_mut(&mut self.inner).cache_hints[method.index()] = hint;
        self
    }

    /// The cache hint of `method`'s results (see [`ToolServer::with_cache_hint`]).
    pub fn cache_hint(&self, method: CacheableMethod) -> CacheHint {
        self.inner.cache_hints[method.index()]
    }

    /// Seals the `requestState` of this server's MCP 2026-07-28 questions with `codec` (see
    /// [`crate::request_state`]): give every replica of a server the same operator key (and a
    /// shared replay guard), so that a client's retry may land on any of them. Without it the
    /// server draws a random key when it first needs one, and a retry that lands on another
    /// process is refused (`-32602`), the client starting the call over.
    ///
    /// ```
    /// use claude_tools::mcp::request_state::{RequestStateConfig, StateKey};
    /// use claude_tools::ToolServer;
    ///
    /// let key = StateKey::new([7u8; 32]).unwrap(); // the operator's secret, from the environment
    /// let codec = RequestStateConfig::new().key(key).build("tickets").unwrap();
    /// let server = ToolServer::new("tickets", "1.0.0").with_request_state(codec);
    /// # let _ = server;
    /// ```
    pub fn with_request_state(mut self, codec: RequestStateCodec) -> Self {
        Arc::make_mut(&mut self.inner).request_state = Some(Arc::new(codec));
        self
    }

    /// The codec set by [`ToolServer::with_request_state`], if any.
    pub fn request_state(&self) -> Option<&Arc<RequestStateCodec>> {
        self.inner.request_state.as_ref()
    }
}
