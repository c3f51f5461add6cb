//! The router's answers at MCP 2026-07-28: the same methods as the 2025 era, answered
//! statelessly, with `resultType`, cache hints and `serverInfo` on every result:
//!
//! | request (with its `_meta`) | answer |
//! |---|---|
//! | `server/discover` | `{supportedVersions, capabilities, instructions?}`, cacheable; answered on any connection without choosing its era |
//! | `initialize`, `ping`, `logging/setLevel`, `resources/subscribe`, `resources/unsubscribe` (removed at 2026-07-28) | `-32601` (HTTP 404) |
//! | `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list` | as in the 2025 era, with `ttlMs` and `cacheScope` ([`ToolServer::with_cache_hint`]) |
//! | `resources/read` of no resource | `-32602 "Resource not found"` with `{"uri": ...}` as `data` (never `-32002`) |
//! | `resources/read` | as in the 2025 era, cacheable |
//! | `tools/call`, `prompts/get`, `completion/complete` | as in the 2025 era, `resultType: "complete"`; a tool's questions to the client become an `input_required` result (see `mrtr`) |
//! | a 2026-07-28 request on a connection that chose the 2025 era with `initialize` | `-32600` saying so |
//! | a 2025 request (no `_meta`) on a connection that chose 2026-07-28 | `initialize`: `-32022` with the versions served; anything else `-32602`, its `_meta` missing |

use std::sync::Arc;

use super::lifecycle;
use super::mrtr;
use super::revision::MODERN_PROTOCOL_VERSIONS;
use super::tasks::{self, TaskRoute};
use super::{McpRouter, Started};
use crate::ask::round::Round;
use crate::ask::{ClientPeer, RequestsToClient};
use crate::jsonrpc::{
    Answer, CacheableMethod, Call, DiscoverResult, ErrorCode, ErrorObject, RequestId, RequestMeta,
    Response, ResultMeta, ResultType, ToolCall,
};
use crate::tool::ToolServer;

/// The methods MCP 2026-07-28 removed: a modern request for one is `-32601`.
const REMOVED: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

impl McpRouter {
    /// Answers a 2026-07-28 request (see the [module docs](self)).
    pub(super) async fn answer_modern(
        &self,
        id: RequestId,
        call: Call,
        meta: &RequestMeta,
    ) -> Response {
        let method = call_method(&call);
        if REMOVED.contains(&method) {
            tracing::debug!(method, "MCP 2026-07-28: a method the revision removed");
            return Response::error(Some(id), ErrorObject::method_not_found(method));
        }
        let server = self.tools.active();
        let cacheable = CacheableMethod::of(method);
        if let Some(outcome) = super::skills::answer(&server, &call) {
            let response = match outcome {
                Ok(answer) => Response::success(id, answer),
                Err(error) => Response::error(Some(id), error),
            };
            return modernize(response, &server, cacheable);
        }
        let response = match call {
            Call::Discover => {
                Response::success(id, Answer::Discover(self.discover_result(&server)))
            }
            call => match McpRouter::task_route(&call, meta, &server) {
                TaskRoute::Undeclared => Response::error(Some(id), tasks::undeclared()),
                TaskRoute::Method => self.answer_tasks_method(id, call, &server).await,
                TaskRoute::Run(start) => match mrtr::bound(&call) {
                    Some(bound) => {
                        self.answer_task_call(id, call, meta, bound, &server, start)
                            .await
                    }
                    None => Response::error(Some(id), ErrorObject::internal_error("unbound call")),
                },
                TaskRoute::NotTask => match call {
                    // A tool that cannot ask, and a call that is no retry: no round to answer
                    // in and nothing to bind, as the call can only end with its result.
                    Call::ToolsCall(call) if answers_without_asking(&call, &server) => {
                        let client = self.modern_client(meta, None);
                        match self.start_call_at(id, call, Some(client)) {
                            Started::Done(response) => response,
                            Started::Running(running) => running.finish().await,
                        }
                    }
                    call => match mrtr::bound(&call) {
                        Some(bound) => self.answer_in_rounds(id, call, meta, bound, &server).await,
                        None => {
                            let client = self.modern_client(meta, None);
                            self.answer(id, call, Some(client)).await
                        }
                    },
                },
            },
        };
        modernize(response, &server, cacheable)
    }

    /// Starts `request` at once if it is a 2026-07-28 `tools/call` that can only end with its
    /// result: a tool that cannot ask ([`Tool::may_ask`](crate::tool::Tool::may_ask)), no
    /// retry, no task, on a router without request layers. The answer is the one
    /// [`McpRouter::handle`] gives, without its machinery: [`ModernStarted::Done`] when the
    /// handler finished in its first poll. Any other request comes back as `Err`, for
    /// [`McpRouter::handle`]. A transport's fast path for the most frequent request.
    #[doc(hidden)]
    // The request comes back as it came, by value: boxing it would cost every other request
    // an allocation.
    #[allow(clippy::result_large_err)]
    pub fn start_plain_modern_call(
        &self,
        request: crate::jsonrpc::Request,
    ) -> Result<ModernStarted, crate::jsonrpc::Request> {
        let crate::jsonrpc::Request { id, call, meta } = request;
        let back = |id, call, meta| crate::jsonrpc::Request { id, call, meta };
        let call = match call {
            Call::ToolsCall(call) if self.request_layers.is_none() => call,
            call => return Err(back(id, call, meta)),
        };
        let server = self.tools.active();
        let plain = match super::revision::decide(&meta, super::Transport::Plain) {
            Ok(super::revision::Revision::Modern(claimed)) if call.retry.is_none() => server
                .tool(&call.name)
                .filter(|tool| {
                    !tool.may_ask()
                        && matches!(
                            McpRouter::task_route_of_tool(tool, claimed),
                            TaskRoute::NotTask
                        )
                })
                .map(|tool| (tool.shared_name(), self.modern_client(claimed, None))),
            _ => None,
        };
        let (tool, client) = match plain {
            Some(plain) if self.connection.choose(super::Era::Modern) == super::Era::Modern => {
                plain
            }
            _ => return Err(back(id, Call::ToolsCall(call), meta)),
        };
        Ok(match self.start_call_at(id, call, Some(client)) {
            Started::Done(response) => ModernStarted::Done(modernize(response, &server, None)),
            Started::Running(running) => ModernStarted::Running(ModernRunningCall {
                running,
                server,
                tool,
            }),
        })
    }

    /// The `server/discover` result: what `initialize` would say, for the 2026-07-28 era.
    fn discover_result(&self, server: &ToolServer) -> DiscoverResult {
        // Changes reach a modern client only on a listen stream: announced where the
        // transport holds them.
        let result = lifecycle::initialize_result(
            server,
            MODERN_PROTOCOL_VERSIONS[0],
            self.listen,
            self.listen,
        );
        let mut capabilities = result.capabilities;
        if server.has_skills() {
            // A skill's files are resources; `listChanged` tells the client to list the
            // skills again.
            capabilities
                .resources
                .get_or_insert(crate::jsonrpc::ResourcesCapability {
                    subscribe: false,
                    list_changed: self.listen,
                });
            capabilities.extensions.skills = Some(crate::jsonrpc::SkillsExtension {
                directory_read: true,
            });
        }
        if server.has_task_tools() {
            capabilities.extensions.tasks = Some(crate::jsonrpc::TasksExtension::default());
        }
        DiscoverResult {
            supported_versions: MODERN_PROTOCOL_VERSIONS.map(String::from).to_vec(),
            capabilities,
            instructions: result.instructions,
        }
    }

    /// The client of a 2026-07-28 request, as its tool sees it: what the request's `_meta`
    /// declares it can be asked.
    pub(super) fn modern_client(
        &self,
        meta: &RequestMeta,
        round: Option<Arc<Round>>,
    ) -> ClientPeer {
        ClientPeer {
            peer: self.connection.peer.clone(),
            // Questions go through the round, when the method has one; never as requests.
            route: RequestsToClient::refused(
                "an MCP 2026-07-28 request of this method cannot ask its client anything",
            ),
            notifier: self.notifier.clone(),
            assumed: Some(meta.client_capabilities),
            local: None,
            round,
            task: None,
            // The decoder let through only levels MCP defines.
            log_level: meta
                .log_level
                .as_deref()
                .and_then(|level| level.parse().ok()),
        }
    }
}

/// A 2026-07-28 `tools/call` started by [`McpRouter::start_plain_modern_call`].
#[doc(hidden)]
pub enum ModernStarted {
    /// Its answer, the handler having finished in its first poll.
    Done(Response),
    /// The running call.
    Running(ModernRunningCall),
}

/// A running 2026-07-28 `tools/call` ([`ModernStarted::Running`]).
#[doc(hidden)]
pub struct ModernRunningCall {
    running: super::RunningCall,
    server: ToolServer,
    tool: Arc<str>,
}

impl ModernRunningCall {
    /// The tool called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The request's id.
    pub fn id(&self) -> &RequestId {
        self.running.id()
    }

    /// Runs the call to its answer, as [`RunningCall::finish`](super::RunningCall::finish), in
    /// the revision's form.
    pub async fn finish(self) -> Response {
        let response = self.running.finish().await;
        modernize(response, &self.server, None)
    }
}

/// `call` is no retry, of a tool whose handler cannot ask the client anything
/// ([`Tool::may_ask`](crate::tool::Tool::may_ask)).
fn answers_without_asking(call: &ToolCall, server: &ToolServer) -> bool {
    call.retry.is_none() && server.tool(&call.name).is_some_and(|tool| !tool.may_ask())
}

/// The method of `call`, as the client named it.
pub(super) fn call_method(call: &Call) -> &str {
    match call {
        Call::Other { method, .. } => method,
        Call::InvalidParams(_) => "tools/call",
        call => crate::jsonrpc::Request::method_of(call),
    }
}

/// `response` as a 2026-07-28 answer: a result gets `resultType`, `serverInfo` and, for a
/// cacheable method, the server's cache hint; a missing resource is `-32602`.
fn modernize(
    mut response: Response,
    server: &ToolServer,
    cacheable: Option<CacheableMethod>,
) -> Response {
    if let Err(error) = &mut response.outcome {
        if error.code == super::RESOURCE_NOT_FOUND {
            error.code = ErrorCode::INVALID_PARAMS;
        }
        return response;
    }
    if response.result_meta.is_some() {
        // Made whole already (an `input_required` result).
        return response;
    }
    let meta = ResultMeta::new(ResultType::Complete, server.info().clone())
        .with_cache(cacheable.map(|method| server.cache_hint(method)));
    response.with_result_meta(meta)
}

/// The error of a 2025-era request on a connection that chose 2026-07-28.
pub(super) fn legacy_on_modern(call: &Call) -> ErrorObject {
    match call {
        Call::Initialize(params) => ErrorObject::unsupported_protocol_version(
            &MODERN_PROTOCOL_VERSIONS,
            params.protocol_version.as_deref().unwrap_or(""),
        ),
        _ => ErrorObject::invalid_params(
            "this connection speaks MCP 2026-07-28: every request carries `params._meta` with \
             `io.modelcontextprotocol/protocolVersion` and \
             `io.modelcontextprotocol/clientCapabilities`",
        ),
    }
}

/// The error of a 2026-07-28 request on a connection that chose the 2025 era.
pub(super) fn modern_on_legacy(version: Option<&str>) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "this connection was initialized at MCP {}; a 2026-07-28 request (one with \
         `io.modelcontextprotocol/protocolVersion` in its `_meta`) needs a connection of its own",
        version.unwrap_or("2025-11-25")
    ))
}
