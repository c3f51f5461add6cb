//! The router's prompt, resource and completion methods:
//!
//! | message | answer |
//! |---|---|
//! | `prompts/list` | `{"prompts": [...]}`, every prompt on one page; with a `cursor` `-32602` (as `tools/list`) |
//! | `prompts/get {name, arguments}` | the prompt's messages; an unknown prompt, arguments that are not strings, or arguments the prompt refuses (missing, unparsable: named) `-32602`; the prompt's own failure or panic `-32603` |
//! | `resources/list`, `resources/templates/list` | the fixed resources, the templates, on one page; with a `cursor` `-32602` |
//! | `resources/read {uri}` | `{"contents": [...]}` (text, or a base64 `blob`); no resource at the URI `-32002 "Resource not found"` with `{"uri": ...}` as `data`; a template variable that does not parse `-32602`; the resource's failure or panic `-32603` |
//! | `resources/subscribe`, `resources/unsubscribe {uri}` | `{}`; where the transport cannot send `notifications/resources/updated` (stateless HTTP, in-process) `-32601` saying so; an unknown URI `-32002` |
//! | `completion/complete {ref, argument, context?}` | `{"completion": {"values", "hasMore"}}` (at most 100 values, `total` when cut); `context.arguments` (the arguments already filled in, strings) goes to the completer as its `CompletionContext`; an unknown prompt or template, or a `context.arguments` that is not an object of strings (the argument named) `-32602`; a completer whose extractors cannot be extracted (a `State<T>` the server lacks) `-32603` naming it; an argument without completions has none |

use serde::Deserialize;

use super::McpRouter;
use crate::ask::ClientPeer;
use crate::catch_unwind::CatchUnwind;
use crate::complete::{
    CompleteParams, CompleteResult, Completion, CompletionContext, CompletionRef,
};
use crate::jsonrpc::{
    Answer, CatalogAnswer, ErrorCode, ErrorObject, GetPrompt, RawParams, ReadResource, RequestId,
    Response,
};
use crate::prompt::{PromptArguments, PromptError};
use crate::resource::{ErrorKind, ReadResourceResult, ResourceError, ResourceRequest};
use crate::tool::{CallKind, PanicDetail, ToolContext};

/// The code MCP gives a resource that does not exist.
pub const RESOURCE_NOT_FOUND: ErrorCode = ErrorCode(-32002);

/// A method of this module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CatalogMethod {
    PromptsList,
    ResourcesList,
    ResourceTemplatesList,
    ResourcesSubscribe,
    ResourcesUnsubscribe,
    Complete,
}

impl CatalogMethod {
    pub(super) fn of(method: &str) -> Option<Self> {
        Some(match method {
            "prompts/list" => Self::PromptsList,
            "resources/list" => Self::ResourcesList,
            "resources/templates/list" => Self::ResourceTemplatesList,
            "resources/subscribe" => Self::ResourcesSubscribe,
            "resources/unsubscribe" => Self::ResourcesUnsubscribe,
            "completion/complete" => Self::Complete,
            _ => return None,
        })
    }

    /// Whether `server` serves this method: a server without prompts (or without resources)
    /// answers their methods `-32601`, as a tools-only server always has; its `initialize`
    /// announces neither.
    pub(super) fn served_by(self, server: &crate::tool::ToolServer) -> bool {
        match self {
            Self::PromptsList => server.has_prompts(),
            Self::ResourcesList
            | Self::ResourceTemplatesList
            | Self::ResourcesSubscribe
            | Self::ResourcesUnsubscribe => server.has_resources(),
            Self::Complete => server.has_prompts() || server.has_resources(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::PromptsList => "prompts/list",
            Self::ResourcesList => "resources/list",
            Self::ResourceTemplatesList => "resources/templates/list",
            Self::ResourcesSubscribe => "resources/subscribe",
            Self::ResourcesUnsubscribe => "resources/unsubscribe",
            Self::Complete => "completion/complete",
        }
    }
}

#[derive(Deserialize)]
struct ListParams {
    cursor: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
}

impl McpRouter {
    /// Answers a request of one of this module's methods.
    pub(super) async fn answer_catalog(
        &self,
        id: RequestId,
        method: CatalogMethod,
        params: Option<RawParams>,
    ) -> Response {
        let outcome = match method {
            CatalogMethod::PromptsList => self.list(method, params.as_ref(), |server| {
                CatalogAnswer::PromptsList {
                    prompts: server.list_prompts(),
                }
            }),
            CatalogMethod::ResourcesList => self.list(method, params.as_ref(), |server| {
                CatalogAnswer::ResourcesList {
                    resources: server.list_resources(),
                }
            }),
            CatalogMethod::ResourceTemplatesList => self.list(method, params.as_ref(), |server| {
                CatalogAnswer::ResourceTemplatesList {
                    resource_templates: server.list_resource_templates(),
                }
            }),
            CatalogMethod::ResourcesSubscribe | CatalogMethod::ResourcesUnsubscribe => {
                read_params::<UriParams>(method, params.as_ref())
                    .and_then(|params| self.subscription(method, &params.uri))
                    .map(|()| Answer::Empty)
            }
            CatalogMethod::Complete => {
                read_params(method, params.as_ref()).and_then(|params| self.complete(params))
            }
        };
        respond(id, outcome)
    }

    /// Answers a `prompts/get` (read typed by the decoder) of a server with prompts.
    pub(super) async fn answer_get_prompt(
        &self,
        id: RequestId,
        read: Result<GetPrompt, ErrorObject>,
        client: Option<ClientPeer>,
    ) -> Response {
        let outcome = match read {
            Ok(params) => self.get_prompt(params, client).await,
            Err(error) => Err(error),
        };
        respond(id, outcome)
    }

    /// Answers a `resources/read` (read typed by the decoder) of a server with resources.
    pub(super) async fn answer_read_resource(
        &self,
        id: RequestId,
        read: Result<ReadResource, ErrorObject>,
        client: Option<ClientPeer>,
    ) -> Response {
        let outcome = match read {
            Ok(params) => self.read_resource(params.uri, client).await,
            Err(error) => Err(error),
        };
        respond(id, outcome)
    }

    fn list(
        &self,
        method: CatalogMethod,
        params: Option<&RawParams>,
        answer: impl FnOnce(&crate::tool::ToolServer) -> CatalogAnswer,
    ) -> Result<Answer, ErrorObject> {
        let cursor = params
            .and_then(|params| params.parse::<ListParams>().ok())
            .and_then(|params| params.cursor)
            .filter(|cursor| !cursor.is_null());
        if let Some(cursor) = cursor {
            // Every item is on one page and no cursor is ever issued (as for `tools/list`).
            return Err(ErrorObject::invalid_params(format!(
                "invalid cursor {}: this server lists everything on one page of {} and issued no cursor",
                crate::jsonrpc::echo(&cursor.to_string()),
                method.name()
            )));
        }
        Ok(Answer::Catalog(self.tools.with_active(answer)))
    }

    /// The context of a prompt's or a resource's handler: its client (`client`, or the
    /// connection's), to ask questions.
    fn catalog_context(&self, client: Option<ClientPeer>) -> ToolContext {
        let mut context = ToolContext::new().with_client(client.unwrap_or_else(|| self.client()));
        if let Some(extension) = &self.extension {
            context = context.with_extension(extension.clone());
        }
        if let Some(principal) = &self.principal {
            context = context.with_principal(principal.clone());
        }
        context
    }

    async fn get_prompt(
        &self,
        params: GetPrompt,
        client: Option<ClientPeer>,
    ) -> Result<Answer, ErrorObject> {
        // Only the handler is taken out of the snapshot: a call costs no copy of the definition.
        let found = self.tools.with_active(|server| {
            server
                .prompt(&params.name)
                .map(|prompt| (prompt.handler.clone(), server.state_map()))
        });
        let Some((handler, state)) = found else {
            return Err(ErrorObject::invalid_params(format!(
                "Prompt `{}` not found on server `{}`",
                crate::jsonrpc::echo(&params.name),
                self.tools.with_active(|server| server.name().to_string())
            )));
        };
        let arguments = PromptArguments::new(params.arguments)
            .with_context(self.catalog_context(client))
            .with_state(state);
        match run_caught(|| handler(arguments)).await {
            Ok(Ok(result)) => Ok(Answer::Catalog(CatalogAnswer::Prompt(result))),
            Ok(Err(error)) => Err(prompt_error(&params.name, error)),
            Err(panic) => Err(self.panicked("prompt", &params.name, &panic)),
        }
    }

    async fn read_resource(
        &self,
        uri: String,
        client: Option<ClientPeer>,
    ) -> Result<Answer, ErrorObject> {
        let found = self.tools.with_active(|server| {
            server
                .catalog()
                .resource_at(&uri)
                .map(|(resource, values)| {
                    let mime_type = resource.mime_type.clone();
                    (
                        resource.handler.clone(),
                        mime_type,
                        values,
                        server.state_map(),
                    )
                })
        });
        let Some((handler, mime_type, values, state)) = found else {
            return Err(not_found(&uri));
        };
        let request = ResourceRequest::new(uri.clone(), values)
            .with_mime_type(mime_type)
            .with_context(self.catalog_context(client))
            .with_state(state);
        match run_caught(|| handler(request)).await {
            Ok(Ok(contents)) => Ok(Answer::Catalog(CatalogAnswer::Resource(
                ReadResourceResult { contents },
            ))),
            Ok(Err(error)) => Err(resource_error(&uri, error)),
            Err(panic) => Err(self.panicked("resource", &uri, &panic)),
        }
    }

    fn subscription(&self, method: CatalogMethod, uri: &str) -> Result<(), ErrorObject> {
        if !self.can_notify() {
            return Err(
                ErrorObject::new(ErrorCode::METHOD_NOT_FOUND, "Method not found").with_data(
                    format!(
                        "{}: this transport cannot send notifications/resources/updated (stateless \
                     HTTP, or an in-process server); serve over stdio, or HTTP with sessions",
                        method.name()
                    ),
                ),
            );
        }
        let subscriptions = &self.connection.subscriptions;
        if method == CatalogMethod::ResourcesUnsubscribe {
            subscriptions.unsubscribe(uri);
            return Ok(());
        }
        let known = self
            .tools
            .with_active(|server| server.catalog().resource_at(uri).is_some());
        if !known {
            return Err(not_found(uri));
        }
        subscriptions.subscribe(uri);
        Ok(())
    }

    fn complete(&self, params: CompleteParams) -> Result<Answer, ErrorObject> {
        let argument = &params.argument;
        let context =
            CompletionContext::from_params(params.context.and_then(|context| context.arguments))
                .map_err(|problem| {
                    ErrorObject::invalid_params(format!(
                        "Invalid context for completion/complete of `{}`: {problem}",
                        crate::jsonrpc::echo(&argument.name)
                    ))
                })?;
        let request = self.catalog_context(None);
        let values = self.tools.with_active(|server| match &params.reference {
            CompletionRef::Prompt { name } => server
                .prompt(name)
                .map(|prompt| {
                    let context =
                        context.in_request(request, server.state_map(), CallKind::Prompt, name);
                    prompt
                        .completion(&argument.name)
                        .map(|c| c.try_complete_in(&argument.value, &context))
                })
                .ok_or_else(|| {
                    ErrorObject::invalid_params(format!(
                        "Prompt `{}` not found on server `{}`",
                        crate::jsonrpc::echo(name),
                        server.name()
                    ))
                }),
            CompletionRef::Resource { uri } => server
                .catalog()
                .resource(uri)
                .map(|resource| {
                    let context =
                        context.in_request(request, server.state_map(), CallKind::Resource, uri);
                    resource
                        .completion(&argument.name)
                        .map(|c| c.try_complete_in(&argument.value, &context))
                })
                .ok_or_else(|| {
                    ErrorObject::invalid_params(format!(
                        "Resource template `{}` not found on server `{}`",
                        crate::jsonrpc::echo(uri),
                        server.name()
                    ))
                }),
        })?;
        let values = values.transpose().map_err(|problem| {
            ErrorObject::internal_error(format!(
                "the completer of `{}` failed: {problem}",
                crate::jsonrpc::echo(&argument.name)
            ))
        })?;
        let completion = values.map_or_else(Completion::empty, Completion::from_values);
        Ok(Answer::Catalog(CatalogAnswer::Complete(CompleteResult {
            completion,
        })))
    }

    /// Whether this connection can be sent notifications: it has a notifier (stdio,
    /// in-process), or its transport fans the router's out to it (HTTP with sessions, which
    /// says `listChanged: true`).
    pub(super) fn can_notify(&self) -> bool {
        self.notifier.is_some() || self.list_changed
    }

    /// The answer to a handler's panic: its message when the router shows panics, else an
    /// incident id, logged beside the message.
    fn panicked(&self, kind: &str, name: &str, panic: &str) -> ErrorObject {
        let name = crate::jsonrpc::echo(name);
        match self.panic_detail {
            PanicDetail::Shown => {
                ErrorObject::internal_error(format!("the {kind} `{name}` panicked: {panic}"))
            }
            PanicDetail::Hidden => {
                let incident = crate::tool::incident_id();
                tracing::error!(%incident, %panic, "MCP: the {kind} `{name}` panicked");
                ErrorObject::internal_error(format!(
                    "the {kind} `{name}` failed (incident {incident}; see the server's log)"
                ))
            }
        }
    }
}

/// Runs a handler to its output, a panic (in the handler's sync part, a sync fn's body, or its
/// future) caught as `Err(message)`.
async fn run_caught<T>(
    handler: impl FnOnce() -> std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>,
) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(handler)) {
        Ok(future) => CatchUnwind::pinned(future).await,
        Err(payload) => Err(crate::catch_unwind::panic_message(&*payload).to_string()),
    }
}

fn respond(id: RequestId, outcome: Result<Answer, ErrorObject>) -> Response {
    match outcome {
        Ok(answer) => Response::success(id, answer),
        Err(error) => Response::error(Some(id), error),
    }
}

fn read_params<T: serde::de::DeserializeOwned>(
    method: CatalogMethod,
    params: Option<&RawParams>,
) -> Result<T, ErrorObject> {
    let Some(params) = params else {
        return Err(ErrorObject::invalid_params(format!(
            "{} needs params",
            method.name()
        )));
    };
    params.parse().map_err(|error| {
        ErrorObject::invalid_params(format!("invalid params of {}: {error}", method.name()))
    })
}

fn not_found(uri: &str) -> ErrorObject {
    ErrorObject::new(RESOURCE_NOT_FOUND, "Resource not found")
        .with_data(serde_json::json!({ "uri": uri }))
}

fn prompt_error(name: &str, error: PromptError) -> ErrorObject {
    let name = crate::jsonrpc::echo(name);
    if error.is_invalid_arguments() {
        // Worded as a tool's: ``Invalid arguments for tool `t` (2 problems):\n- ..``.
        let separator = if error.lists_several() { " " } else { ": " };
        ErrorObject::invalid_params(format!(
            "Invalid arguments for prompt `{name}`{separator}{error}"
        ))
    } else {
        ErrorObject::internal_error(format!("prompt `{name}`: {error}"))
    }
}

fn resource_error(uri: &str, error: ResourceError) -> ErrorObject {
    match error.kind() {
        ErrorKind::NotFound => not_found(uri).with_data(serde_json::json!({
            "uri": uri,
            "reason": error.message(),
        })),
        ErrorKind::InvalidParams => ErrorObject::invalid_params(format!(
            "Invalid URI `{}`: {error}",
            crate::jsonrpc::echo(uri)
        )),
        ErrorKind::Failed => ErrorObject::internal_error(format!(
            "resource `{}`: {error}",
            crate::jsonrpc::echo(uri)
        )),
    }
}
