//! Listen streams (MCP 2026-07-28's `subscriptions/listen`): the long-lived channel on which a
//! stateless client hears of list changes and resource updates, in place of the 2025 era's
//! session stream and `resources/subscribe`.
//!
//! | message | what happens |
//! |---|---|
//! | `subscriptions/listen {notifications: {toolsListChanged?, promptsListChanged?, resourcesListChanged?, resourceSubscriptions?: [uri]}}` | a stream opens ([`McpRouter::listen`](super::McpRouter::listen)); its first message is `notifications/subscriptions/acknowledged` with the subset the server honours (`resourceSubscriptions` only on a server that has resources, at most [`MAX_RESOURCE_SUBSCRIPTIONS`] URIs; `toolsListChanged`, `promptsListChanged` and `resourcesListChanged` always, as the live handle may add the first tool, prompt, skill or resource later) |
//! | a change through a [`ToolServerHandle`](super::ToolServerHandle) | `notifications/{tools,prompts,resources}/list_changed` on each stream that asked for that kind, `notifications/resources/updated {uri}` on each that listed the URI; each with `_meta["io.modelcontextprotocol/subscriptionId"]`, the listen request's id. Nothing a stream did not ask for |
//! | `taskIds: [id]` in the filter (the tasks extension, SEP-2663) | `notifications/tasks` with the task's state as `tasks/get` would answer it (`DetailedTask`: `inputRequests`, `result` or `error` inlined) each time one of those tasks of **this caller** changes status, questions or outcome on this server process; at most [`MAX_TASK_SUBSCRIPTIONS`] ids. Acknowledged only on a server with task tools; `-32021` when the listen request does not declare the extension. An id of no task, or of another caller's, is acknowledged and never heard of (the same answer either way, as for `tasks/get`) |
//! | changes faster than a stream is read | merged: a stream owes at most one notice of each kind, one update per URI, and a task's latest state, whatever the number of changes (bounded memory, nothing lost that matters) |
//! | no `notifications` object, or not an object | `-32602` |
//! | the stream's end by the server (shutdown) | the listen request's result, `{resultType: "complete", _meta: {subscriptionId, serverInfo}}` ([`ListenStream::ended`]) |
//! | the client's end (HTTP: closing the response; stdio: `notifications/cancelled` naming the listen id) | the stream is dropped; nothing more is sent for it |
//! | a 2025-era `subscriptions/listen`, or on a transport that cannot hold a stream (in-process) | `-32601` |
//!
//! `notifications/progress` and `notifications/message` never travel on a listen stream: they go
//! on their request's own response.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::McpRouter;
use super::modern;
use super::revision::Era;
use super::revision::{Revision, Transport, decide};
use crate::jsonrpc::{
    Call, ErrorObject, Implementation, PROMPTS_LIST_CHANGED, RESOURCE_UPDATED,
    RESOURCES_LIST_CHANGED, Request, RequestId, Response, ServerNotification, TOOLS_LIST_CHANGED,
};
use crate::task::TaskAnswer;

/// The most resource URIs one listen stream may follow.
pub const MAX_RESOURCE_SUBSCRIPTIONS: usize = 1024;

/// The most tasks one listen stream may follow (`taskIds`).
pub const MAX_TASK_SUBSCRIPTIONS: usize = 1024;

/// The `params._meta` key of a notification sent on a listen stream: the listen request's id.
pub const SUBSCRIPTION_ID_META: &str = "io.modelcontextprotocol/subscriptionId";

/// The method of the first message of a listen stream.
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// What a listen stream asks to hear of (`params.notifications`, the spec's
/// `SubscriptionFilter`), and, in its acknowledgement, what the server agreed to.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListenFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` for these URIs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
    /// `notifications/tasks` for these tasks (the tasks extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub task_ids: Vec<String>,
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl ListenFilter {
    fn follows_task(&self, task_id: &str) -> bool {
        self.task_ids.iter().any(|wanted| wanted == task_id)
    }

    fn wants(&self, notification: &ServerNotification) -> bool {
        match notification {
            ServerNotification::ToolsListChanged => self.tools_list_changed,
            ServerNotification::PromptsListChanged => self.prompts_list_changed,
            ServerNotification::ResourcesListChanged => self.resources_list_changed,
            ServerNotification::ResourceUpdated { uri } => self
                .resource_subscriptions
                .iter()
                .any(|wanted| wanted == uri),
            ServerNotification::Task(task) => self.follows_task(&task.record.task_id),
            _ => false,
        }
    }
}

/// The listen streams open on one tool set, over every connection to it: what a change is
/// published to.
#[derive(Default)]
pub(crate) struct Listeners {
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Listener>>>,
}

/// One stream's filter and what it owes its client.
struct Listener {
    filter: ListenFilter,
    /// The caller that opened it (the transport's principal): only its tasks are told.
    owner: Option<String>,
    owed: Mutex<Owed>,
    ready: tokio::sync::Notify,
}

/// What a stream has yet to send: one flag a kind, one entry an updated URI.
#[derive(Default)]
struct Owed {
    tools: bool,
    prompts: bool,
    resources: bool,
    updated: BTreeSet<String>,
    /// Each followed task's latest state, by id.
    tasks: BTreeMap<String, Box<TaskAnswer>>,
}

impl Listeners {
    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Arc<Listener>>> {
        // Single inserts and removes: a poisoned lock is still consistent.
        self.open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Hands `notification` to every stream that asked for it.
    pub(crate) fn publish(&self, notification: &ServerNotification) {
        let listeners: Vec<Arc<Listener>> = self.lock().values().cloned().collect();
        for listener in listeners {
            if listener.wants(notification) {
                listener.owe(notification);
            }
        }
    }

    /// Whether a stream follows task `task_id` (so that its changes are worth reading back).
    pub(crate) fn follow_task(&self, task_id: &str) -> bool {
        self.lock()
            .values()
            .any(|listener| listener.filter.follows_task(task_id))
    }

    /// How many streams are open.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    fn add(&self, filter: ListenFilter, owner: Option<String>) -> (u64, Arc<Listener>) {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        let listener = Arc::new(Listener {
            filter,
            owner,
            owed: Mutex::default(),
            ready: tokio::sync::Notify::new(),
        });
        self.lock().insert(key, listener.clone());
        (key, listener)
    }

    fn remove(&self, key: u64) {
        self.lock().remove(&key);
    }
}

impl Listener {
    fn lock(&self) -> MutexGuard<'_, Owed> {
        self.owed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn wants(&self, notification: &ServerNotification) -> bool {
        if let ServerNotification::Task(task) = notification
            && task.record.owner != self.owner
        {
            return false;
        }
        self.filter.wants(notification)
    }

    fn owe(&self, notification: &ServerNotification) {
        {
            let mut owed = self.lock();
            match notification {
                ServerNotification::ToolsListChanged => owed.tools = true,
                ServerNotification::PromptsListChanged => owed.prompts = true,
                ServerNotification::ResourcesListChanged => owed.resources = true,
                ServerNotification::ResourceUpdated { uri } => {
                    owed.updated.insert(uri.clone());
                }
                ServerNotification::Task(task) => {
                    // A later state replaces one not sent yet: the client wants the latest.
                    owed.tasks.insert(task.record.task_id.clone(), task.clone());
                }
                _ => return,
            }
        }
        self.ready.notify_one();
    }

    /// The next notification owed, if any.
    fn take(&self) -> Option<ServerNotification> {
        let mut owed = self.lock();
        if std::mem::take(&mut owed.tools) {
            return Some(ServerNotification::ToolsListChanged);
        }
        if std::mem::take(&mut owed.prompts) {
            return Some(ServerNotification::PromptsListChanged);
        }
        if std::mem::take(&mut owed.resources) {
            return Some(ServerNotification::ResourcesListChanged);
        }
        if let Some(uri) = owed.updated.pop_first() {
            return Some(ServerNotification::ResourceUpdated { uri });
        }
        owed.tasks
            .pop_first()
            .map(|(_, task)| ServerNotification::Task(task))
    }
}

/// An open listen stream: its acknowledgement, then each notification as it comes
/// ([`ListenStream::next`]). Dropping it closes it.
pub struct ListenStream {
    id: RequestId,
    accepted: ListenFilter,
    key: u64,
    listener: Arc<Listener>,
    listeners: Arc<Listeners>,
    server_info: Implementation,
}

impl ListenStream {
    pub(crate) fn open(
        id: RequestId,
        accepted: ListenFilter,
        owner: Option<String>,
        listeners: Arc<Listeners>,
        server_info: Implementation,
    ) -> Self {
        let (key, listener) = listeners.add(accepted.clone(), owner);
        Self {
            id,
            accepted,
            key,
            listener,
            listeners,
            server_info,
        }
    }

    /// The listen request's id: the stream's `subscriptionId`.
    pub fn id(&self) -> &RequestId {
        &self.id
    }

    /// What the server agreed to send.
    pub fn accepted(&self) -> &ListenFilter {
        &self.accepted
    }

    /// The stream's first message: `notifications/subscriptions/acknowledged`.
    pub fn acknowledgement(&self) -> ListenMessage<'_> {
        ListenMessage {
            stream: self,
            notification: None,
        }
    }

    /// The next notification owed the client, once there is one.
    pub async fn next(&mut self) -> ServerNotification {
        loop {
            let ready = self.listener.ready.notified();
            if let Some(notification) = self.listener.take() {
                return notification;
            }
            ready.await;
        }
    }

    /// `notification` as this stream sends it (with its `subscriptionId`).
    pub fn message<'a>(&'a self, notification: &'a ServerNotification) -> ListenMessage<'a> {
        ListenMessage {
            stream: self,
            notification: Some(notification),
        }
    }

    /// The stream's graceful end, as the server sends it (at shutdown): the listen request's
    /// result, `{resultType: "complete", _meta: {subscriptionId, serverInfo}}`.
    pub fn ended(&self) -> serde_json::Value {
        let mut meta = serde_json::Map::new();
        meta.insert(SUBSCRIPTION_ID_META.into(), serde_json::json!(self.id));
        meta.insert(
            crate::jsonrpc::SERVER_INFO_META.into(),
            serde_json::json!(self.server_info),
        );
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "result": {"resultType": "complete", "_meta": meta},
        })
    }
}

impl Drop for ListenStream {
    fn drop(&mut self) {
        self.listeners.remove(self.key);
    }
}

impl std::fmt::Debug for ListenStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListenStream")
            .field("id", &self.id)
            .field("accepted", &self.accepted)
            .finish_non_exhaustive()
    }
}

/// A message of a listen stream, as it is written: the acknowledgement, or a notification with
/// the stream's `subscriptionId` in its `params._meta`.
#[derive(Debug)]
pub struct ListenMessage<'a> {
    stream: &'a ListenStream,
    /// `None`: the acknowledgement.
    notification: Option<&'a ServerNotification>,
}

impl Serialize for ListenMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Meta<'a>(&'a RequestId);

        impl Serialize for Meta<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut meta = serializer.serialize_map(Some(1))?;
                meta.serialize_entry(SUBSCRIPTION_ID_META, self.0)?;
                meta.end()
            }
        }

        struct Params<'a> {
            id: &'a RequestId,
            accepted: Option<&'a ListenFilter>,
            uri: Option<&'a str>,
            task: Option<&'a TaskAnswer>,
        }

        impl Serialize for Params<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut params = serializer.serialize_map(None)?;
                if let Some(accepted) = self.accepted {
                    params.serialize_entry("notifications", accepted)?;
                }
                if let Some(uri) = self.uri {
                    params.serialize_entry("uri", uri)?;
                }
                if let Some(task) = self.task {
                    task.write_fields(&mut params)?;
                }
                params.serialize_entry("_meta", &Meta(self.id))?;
                params.end()
            }
        }

        let id = &self.stream.id;
        let (method, params) = match self.notification {
            None => (
                SUBSCRIPTIONS_ACKNOWLEDGED,
                Params {
                    id,
                    accepted: Some(&self.stream.accepted),
                    uri: None,
                    task: None,
                },
            ),
            Some(notification) => {
                let method = match notification {
                    ServerNotification::ToolsListChanged => TOOLS_LIST_CHANGED,
                    ServerNotification::PromptsListChanged => PROMPTS_LIST_CHANGED,
                    ServerNotification::ResourcesListChanged => RESOURCES_LIST_CHANGED,
                    ServerNotification::ResourceUpdated { .. } => RESOURCE_UPDATED,
                    other => other.method(),
                };
                let uri = match notification {
                    ServerNotification::ResourceUpdated { uri } => Some(uri.as_str()),
                    _ => None,
                };
                let task = match notification {
                    ServerNotification::Task(task) => Some(&**task),
                    _ => None,
                };
                (
                    method,
                    Params {
                        id,
                        accepted: None,
                        uri,
                        task,
                    },
                )
            }
        };
        let mut message = serializer.serialize_map(Some(3))?;
        message.serialize_entry("jsonrpc", "2.0")?;
        message.serialize_entry("method", method)?;
        message.serialize_entry("params", &params)?;
        message.end()
    }
}

impl McpRouter {
    /// Opens the listen stream a 2026-07-28 `subscriptions/listen` asks for (see the
    /// [module docs](self)), or the answer that refuses it: `-32601` for a 2025-era request
    /// or a router whose transport holds no streams, `-32602` for a filter that is not one,
    /// the revision's errors for a bad `_meta`.
    pub fn listen(&self, request: Request) -> Result<ListenStream, Box<Response>> {
        let Request { id, call, meta } = request;
        let refuse = |error| Err(Box::new(Response::error(Some(id.clone()), error)));
        let params = match call {
            Call::Other { method, params } if method == "subscriptions/listen" => params,
            call => {
                return refuse(ErrorObject::invalid_request(format!(
                    "{} is not subscriptions/listen",
                    crate::jsonrpc::Request::method_of(&call)
                )));
            }
        };
        let declares_tasks = match decide(&meta, Transport::Plain) {
            Err(error) => return refuse(error),
            Ok(Revision::Legacy) => {
                return refuse(ErrorObject::method_not_found("subscriptions/listen"));
            }
            Ok(Revision::Modern(meta)) => meta
                .extensions
                .iter()
                .any(|extension| extension == crate::task::TASKS_EXTENSION),
        };
        if !self.listen {
            return refuse(
                ErrorObject::method_not_found("subscriptions/listen")
                    .with_data("subscriptions/listen: this transport cannot hold a listen stream"),
            );
        }
        if self.connection.choose(Era::Modern) == Era::Legacy {
            return refuse(modern::modern_on_legacy(self.protocol_version()));
        }
        let requested = match read_filter(params.as_ref()) {
            Ok(filter) => filter,
            Err(error) => return refuse(error),
        };
        let server = self.tools.active();
        if !requested.task_ids.is_empty() && server.has_task_tools() && !declares_tasks {
            // SEP-2663: task notifications only for a client that declares the extension.
            return refuse(super::tasks::undeclared());
        }
        let accepted = ListenFilter {
            tools_list_changed: requested.tools_list_changed,
            // List changes are honoured whatever the server has now: its live handle may add
            // the first prompt (or skill, or resource) later, and a stream opened before must
            // hear of it.
            prompts_list_changed: requested.prompts_list_changed,
            resources_list_changed: requested.resources_list_changed,
            resource_subscriptions: if server.has_resources() {
                requested.resource_subscriptions
            } else {
                Vec::new()
            },
            task_ids: if server.has_task_tools() {
                requested.task_ids
            } else {
                Vec::new()
            },
        };
        Ok(ListenStream::open(
            id,
            accepted,
            self.principal.as_deref().map(String::from),
            self.tools.listeners.clone(),
            Implementation::new(server.name(), server.version()),
        ))
    }
}

/// Reads a listen request's `params.notifications`; `-32602` when it is missing or not a
/// filter, or follows too many URIs.
pub(crate) fn read_filter(
    params: Option<&crate::jsonrpc::RawParams>,
) -> Result<ListenFilter, ErrorObject> {
    #[derive(Deserialize)]
    struct Params {
        notifications: ListenFilter,
    }
    let refused = || {
        ErrorObject::invalid_params(
            "subscriptions/listen needs `params.notifications`: an object with \
             `toolsListChanged`, `promptsListChanged`, `resourcesListChanged` (booleans) and \
             `resourceSubscriptions` (an array of URIs) and `taskIds` (an array of task ids)",
        )
    };
    let params = params.ok_or_else(refused)?;
    let filter = params
        .parse::<Params>()
        .map_err(|_| refused())?
        .notifications;
    if filter.task_ids.len() > MAX_TASK_SUBSCRIPTIONS {
        return Err(ErrorObject::invalid_params(format!(
            "a listen stream follows at most {MAX_TASK_SUBSCRIPTIONS} tasks; open several \
             streams for more"
        )));
    }
    if filter.resource_subscriptions.len() > MAX_RESOURCE_SUBSCRIPTIONS {
        return Err(ErrorObject::invalid_params(format!(
            "a listen stream follows at most {MAX_RESOURCE_SUBSCRIPTIONS} resources; open \
             several streams for more"
        )));
    }
    Ok(filter)
}
