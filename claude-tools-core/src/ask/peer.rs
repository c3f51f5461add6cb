//! The server's side of its own requests on one connection: ids, the requests waiting for an
//! answer, and the one way a waiting tool stops waiting.

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::round::Round;
use super::{AskError, ClientCapabilities, ServerRequest, ServerRequestParams};
use crate::jsonrpc::{ClientResponse, ErrorObject, RawParams, RequestId, ServerNotification};
use crate::mcp::Notifier;

/// How long a tool waits for the client's answer to its question before it gives up with
/// [`AskError::TimedOut`] (a person answers an elicitation, so it is generous); change it with
/// [`RequestsToClient::sent_with_timeout`].
pub const DEFAULT_ASK_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Whether a router's transport carries a request to the client, and the client's answer back
/// to the router ([`McpRouter::with_requests_to_client`](crate::mcp::McpRouter::with_requests_to_client)).
///
/// A router refuses them unless told otherwise: a request handed to a transport that cannot
/// bring the answer back would only wait for its timeout.
#[derive(Debug, Clone, PartialEq)]
pub enum RequestsToClient {
    /// Requests go out through the router's notifier and the transport hands the client's
    /// responses to [`McpRouter::handle`](crate::mcp::McpRouter::handle); a tool waits for its
    /// answer at most `timeout`.
    Sent {
        /// How long a tool waits for an answer.
        timeout: Duration,
    },
    /// The transport cannot carry them: a tool that asks gets [`AskError::Unavailable`] with
    /// this text, and nothing is sent.
    Refused(Cow<'static, str>),
}

impl RequestsToClient {
    /// Requests are sent, and answered within [`DEFAULT_ASK_TIMEOUT`].
    pub fn sent() -> Self {
        Self::sent_with_timeout(DEFAULT_ASK_TIMEOUT)
    }

    /// Requests are sent, and answered within `timeout`.
    pub fn sent_with_timeout(timeout: Duration) -> Self {
        RequestsToClient::Sent { timeout }
    }

    /// Requests are refused, `why` telling the tool what to do about it.
    pub fn refused(why: impl Into<Cow<'static, str>>) -> Self {
        RequestsToClient::Refused(why.into())
    }
}

impl Default for RequestsToClient {
    fn default() -> Self {
        RequestsToClient::refused(
            "this transport does not carry requests from the server to the client: a bare \
             McpRouter answers nobody's questions; serve the server with a transport that does \
             (stdio, Streamable HTTP, or an agent session, whose host answers elicitations), or, \
             in a test, answer them in process with McpRouter::with_local_client (or declare \
             the transport carries them with McpRouter::with_requests_to_client)",
        )
    }
}

type Answer = Result<RawParams, ErrorObject>;

/// The answer a [`LocalClient`] gives: the result the client would have sent, or its error.
pub type LocalAnswer =
    Pin<Box<dyn Future<Output = Result<serde_json::Value, ErrorObject>> + Send + 'static>>;

/// Answers a running tool's questions in the server's own process instead of sending them to
/// the client ([`McpRouter::with_local_client`](crate::mcp::McpRouter::with_local_client)): the
/// in-process session answers an elicitation with the host's callback, as the Claude Code CLI
/// does not relay an in-process server's questions. It gets the question and the call's
/// cancellation token, and returns the result as the client would write it.
pub type LocalClient =
    Arc<dyn Fn(ServerRequestParams, CancellationToken) -> LocalAnswer + Send + Sync>;

/// The connection's requests to the client that wait for an answer, by id, and what the
/// client announced it can be asked.
#[derive(Default)]
pub(crate) struct Peer {
    state: Mutex<PeerState>,
}

#[derive(Default)]
struct PeerState {
    waiting: HashMap<RequestId, oneshot::Sender<Answer>>,
    /// The last id given out. The server's ids are its own: the client's answers are responses,
    /// never mistaken for the client's requests, whatever their ids.
    last_id: i64,
    announced: ClientCapabilities,
}

impl Peer {
    fn lock(&self) -> MutexGuard<'_, PeerState> {
        // Single inserts, removes and stores happen under the lock: a poisoned one is still good.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What the client's `initialize` announced.
    pub(crate) fn announce(&self, capabilities: ClientCapabilities) {
        self.lock().announced = capabilities;
    }

    fn announced(&self) -> ClientCapabilities {
        self.lock().announced
    }

    /// Hands the client's response to the request waiting for it: `false` (and nothing done)
    /// when no request waits for that id.
    pub(crate) fn answer(&self, response: ClientResponse) -> bool {
        let Some(id) = response.id else {
            return false;
        };
        match self.lock().waiting.remove(&id) {
            // The waiter may have just given up; its answer is then nobody's.
            Some(waiter) => {
                let _ = waiter.send(response.outcome);
                true
            }
            None => false,
        }
    }

    /// Fails every waiting request with [`AskError::Closed`]: the connection ended.
    pub(crate) fn close(&self) {
        self.lock().waiting.clear();
    }

    /// How many requests wait for an answer.
    pub(crate) fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }

    fn register(&self) -> (RequestId, oneshot::Receiver<Answer>) {
        let (sender, receiver) = oneshot::channel();
        let mut state = self.lock();
        state.last_id += 1;
        let id = RequestId::from(state.last_id);
        state.waiting.insert(id.clone(), sender);
        (id, receiver)
    }

    fn forget(&self, id: &RequestId) {
        self.lock().waiting.remove(id);
    }
}

/// The client of one connection, as a running tool sees it: what it can be asked, and the way
/// to ask it. [`ToolContext`](crate::tool::ToolContext) holds one for a call that came through
/// an [`McpRouter`](crate::mcp::McpRouter); its question methods use it.
#[derive(Clone)]
pub struct ClientPeer {
    pub(crate) peer: Arc<Peer>,
    pub(crate) route: RequestsToClient,
    pub(crate) notifier: Option<Notifier>,
    /// Capabilities the transport knows the client has, whatever its `initialize` said.
    pub(crate) assumed: Option<ClientCapabilities>,
    /// What answers the questions in this process, when something does.
    pub(crate) local: Option<LocalClient>,
    /// For an MCP 2026-07-28 request: its round, where questions are looked up and recorded
    /// instead of sent.
    pub(crate) round: Option<Arc<Round>>,
    /// The task the call runs as, when it is one: once detached, its questions wait in the
    /// task's `inputRequests` ([`crate::task`]).
    pub(crate) task: Option<Arc<super::task_link::TaskLink>>,
    /// For an MCP 2026-07-28 request: the lowest level of log message it asked for
    /// (`_meta["io.modelcontextprotocol/logLevel"]`); `None`, no log message at all.
    pub(crate) log_level: Option<crate::jsonrpc::LoggingLevel>,
}

/// A question's answer, and the key it was found under in a 2026-07-28 round.
pub(crate) struct Asked {
    raw: RawParams,
    key: Option<String>,
}

impl ClientPeer {
    /// Asks `params` (under `key`, a 2026-07-28 round's key for it) of a client that needs
    /// `capability`: sent and waited for on a 2025 connection; on a 2026-07-28 request, the
    /// answer the client gave in this call's rounds, or, without one, the question is recorded
    /// and this waits for ever (the router ends the run and answers `input_required`). A
    /// capability the request did not declare ends the run the same way, answered `-32021`.
    pub(crate) async fn ask(
        &self,
        key: Option<&str>,
        capability: &'static str,
        what: &'static str,
        announced: impl Fn(&ClientCapabilities) -> bool,
        params: ServerRequestParams,
        cancellation: &CancellationToken,
    ) -> Result<Asked, AskError> {
        if let Some(task) = &self.task
            && task.is_detached()
        {
            let key = task.key(key, &params);
            if !announced(&self.capabilities()) {
                return Err(AskError::NotSupported { capability, what });
            }
            let raw = task.ask(key, &params, cancellation).await?;
            return Ok(Asked { raw, key: None });
        }
        let Some(round) = &self.round else {
            self.check(capability, what, announced)?;
            let raw = self.request(params, cancellation).await?;
            return Ok(Asked { raw, key: None });
        };
        let key = round.key(key, &params);
        if !announced(&self.capabilities()) {
            round.missing_capability(capability);
            return std::future::pending().await;
        }
        match round.answer(&key) {
            Some(raw) => Ok(Asked {
                raw: RawParams::from_raw(raw),
                key: Some(key),
            }),
            None => {
                round.ask(key, params);
                std::future::pending().await
            }
        }
    }

    /// Reads an answer with `read`. In a 2026-07-28 round, an answer that does not fit its
    /// question ends the run, answered `-32602` naming its key; the tool never sees it.
    pub(crate) async fn read<T>(
        &self,
        asked: Asked,
        read: impl FnOnce(&RawParams) -> Result<T, AskError>,
    ) -> Result<T, AskError> {
        match (read(&asked.raw), &self.round, asked.key) {
            (Err(AskError::InvalidAnswer(reason)), Some(round), Some(key)) => {
                round.invalid_answer(&key, reason);
                std::future::pending().await
            }
            (result, _, _) => result,
        }
    }

    /// What the client can be asked: what its `initialize` announced, or what the transport
    /// knows of it.
    pub fn capabilities(&self) -> ClientCapabilities {
        self.assumed.unwrap_or_else(|| self.peer.announced())
    }

    /// Checks that a request can go out and that the client announced `capability`.
    pub(crate) fn check(
        &self,
        capability: &'static str,
        what: &'static str,
        announced: impl Fn(&ClientCapabilities) -> bool,
    ) -> Result<(), AskError> {
        if let (RequestsToClient::Refused(why), None) = (&self.route, &self.local) {
            return Err(AskError::Unavailable(why.clone()));
        }
        if !announced(&self.capabilities()) {
            return Err(AskError::NotSupported { capability, what });
        }
        Ok(())
    }

    /// Sends `params` and waits for the answer, the call's cancellation, the timeout or the
    /// connection's end, whichever comes first.
    pub(crate) async fn request(
        &self,
        params: ServerRequestParams,
        cancellation: &CancellationToken,
    ) -> Result<RawParams, AskError> {
        if let Some(local) = &self.local {
            let timeout = match &self.route {
                RequestsToClient::Sent { timeout } => *timeout,
                RequestsToClient::Refused(_) => DEFAULT_ASK_TIMEOUT,
            };
            return ask_locally(local, params, cancellation, timeout).await;
        }
        let timeout = match &self.route {
            RequestsToClient::Sent { timeout } => *timeout,
            RequestsToClient::Refused(why) => return Err(AskError::Unavailable(why.clone())),
        };
        let Some(notifier) = &self.notifier else {
            return Err(AskError::Unavailable(
                RequestsToClient::default().into_reason(),
            ));
        };
        let (id, answer) = self.peer.register();
        let mut outstanding = Outstanding {
            peer: &self.peer,
            notifier,
            id: id.clone(),
            withdraw: Some("the tool call was cancelled"),
        };
        notifier(ServerNotification::Request(ServerRequest { id, params }));
        tokio::select! {
            biased;
            answer = answer => {
                outstanding.withdraw = None;
                match answer {
                    Ok(Ok(result)) => Ok(result),
                    Ok(Err(error)) => Err(AskError::Client(error)),
                    Err(_) => Err(AskError::Closed),
                }
            }
            () = cancellation.cancelled() => Err(AskError::Cancelled),
            () = tokio::time::sleep(timeout) => {
                outstanding.withdraw = Some("the server stopped waiting for the answer");
                Err(AskError::TimedOut(timeout))
            }
        }
    }
}

/// A question answered by a [`LocalClient`], with the same ends as one sent to the client.
async fn ask_locally(
    local: &LocalClient,
    params: ServerRequestParams,
    cancellation: &CancellationToken,
    timeout: Duration,
) -> Result<RawParams, AskError> {
    let answer = local(params, cancellation.clone());
    tokio::select! {
        biased;
        answer = answer => match answer {
            Ok(result) => RawParams::from_value(&result)
                .map_err(|error| AskError::InvalidAnswer(error.to_string())),
            Err(error) => Err(AskError::Client(error)),
        },
        () = cancellation.cancelled() => Err(AskError::Cancelled),
        () = tokio::time::sleep(timeout) => Err(AskError::TimedOut(timeout)),
    }
}

impl RequestsToClient {
    fn into_reason(self) -> Cow<'static, str> {
        match self {
            RequestsToClient::Refused(why) => why,
            RequestsToClient::Sent { .. } => Cow::Borrowed(""),
        }
    }
}

impl std::fmt::Debug for ClientPeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientPeer")
            .field("capabilities", &self.capabilities())
            .field("route", &self.route)
            .finish_non_exhaustive()
    }
}

/// A request that waits for its answer. Dropped unanswered (the call cancelled, timed out, or
/// its future dropped at the end of its grace), it is forgotten and the client is told with
/// `notifications/cancelled`, so it can take its question away.
struct Outstanding<'a> {
    peer: &'a Peer,
    notifier: &'a Notifier,
    id: RequestId,
    /// The reason given to the client if this is dropped; `None` once answered.
    withdraw: Option<&'static str>,
}

impl Drop for Outstanding<'_> {
    fn drop(&mut self) {
        if let Some(reason) = self.withdraw {
            self.peer.forget(&self.id);
            (self.notifier)(ServerNotification::Cancelled {
                request_id: self.id.clone(),
                reason,
            });
        }
    }
}
