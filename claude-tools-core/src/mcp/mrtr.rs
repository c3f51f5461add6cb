//! Questions over stateless calls (MCP 2026-07-28's multi round-trip requests): how the router
//! runs a `tools/call`, `prompts/get` or `resources/read` whose handler asks the client
//! something.
//!
//! | the request | the answer |
//! |---|---|
//! | a handler that asks nothing | its result, as on any 2026-07-28 request |
//! | a handler that asks a question without an answer (`ctx.elicit`, `create_message`, `list_roots`, named or not) | `{resultType: "input_required", inputRequests: {key: {method, params}…}, requestState}`: every question the run asked at once, and a sealed state of the answers read so far and the values kept ([`ToolContext::remember`](crate::tool::ToolContext::remember)) |
//! | a retry with `inputResponses` (with or without the `requestState` it was given) | the handler runs again from its start; each question finds its answer by key (carried in the state or sent now); unknown keys are ignored; a question still unanswered is a new `input_required` |
//! | `inputResponses` that is not an object (`null` included) | `-32602` |
//! | `requestState` that is not a string, or that does not open: tampered, expired, issued for another method, other arguments, another principal or another server, or spent already ([`request_state`](crate::request_state)) | `-32602` "invalid or expired requestState" (the reason logged, not sent); nothing runs |
//! | an answer that does not fit its question (an elicitation result that is not `{action, content?}`, a content that is not the form's type…) | `-32602` naming the key |
//! | a question needing a capability `_meta` did not declare | `-32021` with `data.requiredCapabilities` (`{"sampling": {}}`); nothing is asked |
//! | any other method (`tools/list`…) with `inputResponses` | the params are ignored: only the three methods above ever answer `input_required` |
//!
//! Nothing of a call is held between rounds: a retry may reach any replica (see
//! [`ToolServer::with_request_state`](crate::tool::ToolServer::with_request_state) for the key
//! replicas share). The run that asked is dropped (its cancellation token fires first).

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::McpRouter;
use super::calls::Started;
use crate::ask::round::{Blocked, Carried, Round};
use crate::jsonrpc::{
    Answer, Call, ErrorObject, InputRequiredResult, RequestId, RequestMeta, Response, ResultMeta,
    ResultType, Retry,
};
use crate::request_state::{Binding, ParamsDigest, RequestStateCodec};
use crate::tool::ToolServer;

/// What a round's state is bound to: the method and its params, digested only when a state is
/// opened or sealed. Most calls ask nothing and carry no state: they pay for a copy of their
/// params (a clone of the name and arguments), not for a digest (SHA-256 over the arguments
/// written out as JSON), which was most of a 2026-07-28 call's cost in the router.
pub(super) struct Bound {
    method: &'static str,
    params: BoundParams,
}

/// The params a [`Bound`] digests, as the request had them.
enum BoundParams {
    Tool {
        name: String,
        arguments: crate::tool::Arguments,
    },
    Prompt {
        name: String,
        arguments: BTreeMap<String, String>,
    },
    Resource {
        uri: String,
    },
}

impl Bound {
    /// The digest a state of this call is bound to (the same bytes as ever: a state sealed by
    /// one version opens on another).
    fn digest(&self) -> ParamsDigest {
        match &self.params {
            BoundParams::Tool { name, arguments } => {
                ParamsDigest::of([name.as_bytes(), &arguments.bound_bytes()])
            }
            BoundParams::Prompt { name, arguments } => ParamsDigest::of([
                name.as_bytes(),
                &serde_json::to_vec(arguments).unwrap_or_default(),
            ]),
            BoundParams::Resource { uri } => ParamsDigest::of([uri.as_bytes()]),
        }
    }

    /// The binding of this call's states for `principal`.
    pub(super) fn binding<'a>(&'a self, principal: Option<&'a str>) -> Binding<'a> {
        Binding::new(self.method, self.digest()).with_principal(principal)
    }
}

/// The binding of `call`'s rounds, for the three methods that may ask the client (with their
/// params read); `None` for every other call.
pub(super) fn bound(call: &Call) -> Option<Bound> {
    match call {
        Call::ToolsCall(call) => Some(Bound {
            method: "tools/call",
            params: BoundParams::Tool {
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
        }),
        Call::PromptsGet(Ok(get)) => Some(Bound {
            method: "prompts/get",
            params: BoundParams::Prompt {
                name: get.name.clone(),
                arguments: get.arguments.clone(),
            },
        }),
        Call::ResourcesRead(Ok(read)) => Some(Bound {
            method: "resources/read",
            params: BoundParams::Resource {
                uri: read.uri.clone(),
            },
        }),
        _ => None,
    }
}

/// The retry params of `call`, if it has any.
pub(super) fn retry_of(call: &Call) -> Option<&Retry> {
    match call {
        Call::ToolsCall(call) => call.retry.as_deref(),
        Call::PromptsGet(Ok(get)) => get.retry.as_deref(),
        Call::ResourcesRead(Ok(read)) => read.retry.as_deref(),
        _ => None,
    }
}

impl McpRouter {
    /// Answers a 2026-07-28 `call` that may ask the client questions (see the
    /// [module docs](self)).
    pub(super) async fn answer_in_rounds(
        &self,
        id: RequestId,
        call: Call,
        meta: &RequestMeta,
        bound: Bound,
        server: &ToolServer,
    ) -> Response {
        let codec = match self.codec(server) {
            Ok(codec) => codec,
            Err(error) => return Response::error(Some(id), error),
        };
        let principal = self.principal.as_deref();
        let round = match open_round(retry_of(&call), &codec, &bound, principal).await {
            Ok(round) => Arc::new(round),
            Err(error) => return Response::error(Some(id), error),
        };
        let client = self.modern_client(meta, Some(round.clone()));
        // A `tools/call` is started and polled once right here, as a 2025 one is in `handle`:
        // most finish on that poll (a question blocks it, so a finished call asked none). The
        // other methods' answers go through `answer`, boxed: its future holds every method's
        // state, and this one's would hold it too, to be copied into each call's future.
        let answering: Pin<Box<dyn Future<Output = Response> + Send + '_>> = match call {
            Call::ToolsCall(call) => match self.start_call_at(id.clone(), call, Some(client)) {
                Started::Done(response) => return response,
                Started::Running(running) => Box::pin(running.finish()),
            },
            call => Box::pin(self.answer(id.clone(), call, Some(client))),
        };
        tokio::select! {
            biased;
            response = answering => response,
            () = round.until_blocked() => {
                let Some(blocked) = round.blocked() else {
                    // `until_blocked` returns only once the round is blocked.
                    return Response::error(Some(id), ErrorObject::internal_error("the round ended unblocked"));
                };
                blocked_answer(id, blocked, &round, &codec, &bound.binding(principal), server)
            }
        }
    }

    /// The codec that seals this server's `requestState`: its own, or a per-process one.
    pub(super) fn codec(&self, server: &ToolServer) -> Result<Arc<RequestStateCodec>, ErrorObject> {
        if let Some(codec) = server.request_state() {
            return Ok(codec.clone());
        }
        self.tools
            .default_codec
            .get_or_init(|| {
                crate::request_state::RequestStateConfig::new()
                    .build(server.name())
                    .map(Arc::new)
                    .map_err(|error| error.to_string())
            })
            .clone()
            .map_err(|error| {
                tracing::error!(%error, "MCP: no requestState codec");
                ErrorObject::internal_error(
                    "the server cannot seal the state of its questions (no random key)",
                )
            })
    }
}

/// The round a retry describes: its answers (the state's and `inputResponses`) and what was
/// kept. `inputResponses` is checked before the state is opened, so a malformed request does
/// not spend its state.
pub(super) async fn open_round(
    retry: Option<&Retry>,
    codec: &RequestStateCodec,
    bound: &Bound,
    principal: Option<&str>,
) -> Result<Round, ErrorObject> {
    let Some(retry) = retry else {
        return Ok(Round::new(Carried::default(), []));
    };
    let responses = match &retry.input_responses {
        None => BTreeMap::new(),
        Some(raw) => {
            serde_json::from_str::<BTreeMap<String, Box<RawValue>>>(raw.get()).map_err(|_| {
                ErrorObject::invalid_params(
                    "`params.inputResponses` must be an object: each input request's key and the \
                     client's answer to it",
                )
            })?
        }
    };
    let sealed = match &retry.request_state {
        None => None,
        Some(raw) => match serde_json::from_str::<Option<String>>(raw.get()) {
            Ok(sealed) => sealed,
            Err(_) => {
                return Err(ErrorObject::invalid_params(
                    "`params.requestState` must be the string the server issued",
                ));
            }
        },
    };
    let carried = match sealed {
        None => Carried::default(),
        Some(sealed) => match codec
            .open_json::<Carried>(&sealed, &bound.binding(principal))
            .await
        {
            Ok(carried) => carried,
            Err(error) => {
                if error.is_server_fault() {
                    tracing::error!(failure = ?error.failure(), "MCP: requestState could not be checked");
                    return Err(ErrorObject::internal_error(
                        "the server could not check the requestState",
                    ));
                }
                tracing::info!(failure = ?error.failure(), "MCP: requestState refused");
                return Err(ErrorObject::invalid_params(error.to_string()));
            }
        },
    };
    Ok(Round::new(carried, responses))
}

/// The answer of a run that cannot go on.
pub(super) fn blocked_answer(
    id: RequestId,
    blocked: Blocked,
    round: &Round,
    codec: &RequestStateCodec,
    binding: &Binding<'_>,
    server: &ToolServer,
) -> Response {
    match blocked {
        Blocked::Questions(questions) => {
            let state = match codec.seal_json(binding, &round.carried()) {
                Ok(state) => state,
                Err(error) => {
                    tracing::error!(%error, "MCP: requestState could not be sealed");
                    return Response::error(
                        Some(id),
                        ErrorObject::internal_error(
                            "the server could not seal the state of its questions",
                        ),
                    );
                }
            };
            Response::success(
                id,
                Answer::InputRequired(InputRequiredResult {
                    input_requests: questions,
                    request_state: Some(state),
                }),
            )
            .with_result_meta(ResultMeta::new(
                ResultType::InputRequired,
                server.info().clone(),
            ))
        }
        Blocked::MissingCapability(capability) => Response::error(
            Some(id),
            ErrorObject::missing_client_capability(serde_json::json!({ capability: {} })),
        ),
        Blocked::InvalidAnswer { key, reason } => Response::error(
            Some(id),
            ErrorObject::invalid_params(format!(
                "`inputResponses.{}` does not answer its question: {reason}",
                crate::jsonrpc::echo(&key)
            )),
        ),
    }
}
