//! How a transport sets up the [`McpRouter`] of a connection: what it carries (listen streams,
//! requests to the client, `listChanged`, notifications), what it knows of its client (assumed
//! capabilities, a local answerer, the caller's identity) and what a panic shows.

use std::sync::Arc;

use super::*;

impl McpRouter {
    /// Says the transport holds listen streams ([`McpRouter::listen`]): `server/discover` then
    /// announces `listChanged` (and `subscribe` for resources), which a 2026-07-28 client hears
    /// of only on such a stream. stdio and Streamable HTTP do; in-process does not.
    pub fn with_listen(mut self, listen: bool) -> Self {
        self.listen = listen;
        self
    }

    /// Binds the sealed state of this router's 2026-07-28 questions to `principal` (who is
    /// calling, as the transport's auth found out): a state issued to one principal does not
    /// open for another.
    #[doc(hidden)]
    pub fn with_principal(mut self, principal: Option<Arc<str>>) -> Self {
        self.principal = principal;
        self
    }

    /// What a client reads when a tool handler panics ([`PanicDetail`]): the panic's message
    /// ([`PanicDetail::Shown`], the default, for the host's own session) or a generic message
    /// with an incident id that is logged beside the message ([`PanicDetail::Hidden`], what the
    /// stdio and HTTP servers use unless told otherwise).
    pub fn with_panic_detail(mut self, detail: PanicDetail) -> Self {
        self.panic_detail = detail;
        self
    }

    /// Attaches `extension` to the [`ToolContext`] of every call this router starts
    /// ([`ToolContext::extension`](crate::tool::ToolContext::extension)).
    #[doc(hidden)]
    pub fn with_extension(
        mut self,
        extension: Option<Arc<dyn std::any::Any + Send + Sync>>,
    ) -> Self {
        self.extension = extension;
        self
    }

    /// Whether this router's transport carries a running tool's requests to the client (through
    /// the [notifier](McpRouter::with_notifier)) and hands the client's responses back to
    /// [`handle`](McpRouter::handle): [`RequestsToClient::sent`] for stdio, HTTP with sessions
    /// and the in-process session; a transport that cannot (stateless HTTP) refuses with a
    /// reason that says what to do. The default refuses (with
    /// [`AskError::Unavailable`]).
    pub fn with_requests_to_client(mut self, requests: RequestsToClient) -> Self {
        self.client.requests = requests;
        self
    }

    /// Takes the client to have `capabilities`, whatever its `initialize` announces: for a
    /// transport that knows its client better than the client says (the Claude Code CLI
    /// announces no capability to an in-process server, yet relays its elicitations to the
    /// host).
    pub fn assume_client_capabilities(mut self, capabilities: ClientCapabilities) -> Self {
        self.client.assumed = Some(capabilities);
        self
    }

    /// Answers the tools' questions with `local`, in this process, instead of sending them to
    /// the client (see [`LocalClient`]); the capability checks still apply, so pair it with
    /// [`assume_client_capabilities`](McpRouter::assume_client_capabilities) for what `local`
    /// answers.
    pub fn with_local_client(mut self, local: LocalClient) -> Self {
        self.client.local = Some(local);
        self
    }

    /// Says `listChanged: true` in the `initialize` result: for a transport that delivers the
    /// [notifier](McpRouter::with_notifier)'s `notifications/tools/list_changed` to the client
    /// (HTTP with sessions; stdio).
    pub fn with_list_changed(mut self, list_changed: bool) -> Self {
        self.list_changed = list_changed;
        self
    }

    /// Hands server→client notifications (`notifications/progress`, built from
    /// [`ToolContext::report_progress`](crate::tool::ToolContext::report_progress) and the call's `progressToken`; `notifications/message`,
    /// from [`ToolContext::log`](crate::tool::ToolContext::log)) to `notifier`. Without one, progress and log messages are
    /// dropped. `notifier` is called on the reporting handler's thread and
    /// should only enqueue the message.
    ///
    /// The same callback gets `notifications/tools/list_changed` when a [`ToolServerHandle`]
    /// changes the tool set.
    pub fn with_notifier(mut self, notifier: Notifier) -> Self {
        // The calls' log and progress messages go to the same callback: each call's context
        // holds a clone of it rather than a closure of its own.
        self.notifier = Some(notifier);
        self
    }
}
