//! The live set of in-process servers: the routers given at the start (looked up for every
//! tool call), those added and removed while the session runs, and what forwards a server's own
//! notifications to the CLI.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

use super::outbox::Outbox;
use super::{SessionCore, lock};
use crate::elicitation::{ElicitationAnswer, ElicitationRequest, OnElicitation};
use crate::error::Result;
use crate::protocol::{self, HostRequest, SdkServers};
use claude_tools_core::mcp::{
    ClientCapabilities, ErrorObject, LocalClient, McpRouter, ServerNotification,
    ServerRequestParams,
};

/// Forwards what an in-process server emits on its own (progress notifications,
/// `notifications/tools/list_changed`) to the CLI, as
/// the official TypeScript SDK does: a host→CLI `mcp_message` request, which the CLI merely
/// acknowledges (the acknowledgement matches no waiter and is dropped).
pub(super) fn server_notifier(
    server: &str,
    out: Arc<Outbox>,
    counter: Arc<AtomicU64>,
    id_salt: u32,
) -> claude_tools_core::mcp::Notifier {
    let server = server.to_string();
    Arc::new(move |message: ServerNotification| {
        let n = counter.fetch_add(1, Ordering::Relaxed);
        let request_id = format!("req_mcp_{n}_{id_salt:08x}");
        let body = HostRequest::McpMessage {
            server_name: &server,
            message: &message,
        };
        out.send_with(|out| protocol::request_line(out, &request_id, &body));
    })
}

/// The router of one in-process server: its own messages (notifications, and the questions
/// its running tools ask) go to the CLI through `notifier`, and the CLI's answers come back as
/// `mcp_message`s the router handles.
///
/// The CLI does not relay an in-process server's questions: observed with 2.1.332
/// (`tests/tests/e2e/questions.rs`), a host→CLI `mcp_message` carrying `elicitation/create`,
/// `sampling/createMessage` or `roots/list` is acknowledged, then answered with a CLI→host
/// `mcp_message` carrying `-32601 "Method not found"` (its `initialize` to the server announces
/// no capability either). So the session answers an elicitation itself, with the host's
/// [`on_elicitation`](crate::options::Options::on_elicitation) callback as the CLI does for an
/// external server's (no callback: declined), and a tool asking for sampling or roots gets the
/// clear "not announced" error, nothing sent.
pub(super) fn in_process_router(
    server: claude_tools_core::tool::ToolServer,
    notifier: claude_tools_core::mcp::Notifier,
    on_elicitation: Option<OnElicitation>,
) -> McpRouter {
    let name = server.name().to_string();
    let local: LocalClient = Arc::new(move |params, cancellation| {
        let name = name.clone();
        let on_elicitation = on_elicitation.clone();
        Box::pin(async move {
            let ServerRequestParams::Elicit(params) = params else {
                // Not announced, so not asked: the capability check refuses first.
                return Err(ErrorObject::method_not_found(
                    "sampling/createMessage or roots/list",
                ));
            };
            let request = ElicitationRequest::form(
                name,
                params.message,
                Value::Object(params.requested_schema),
            )
            .with_cancellation(cancellation);
            let answer = match &on_elicitation {
                Some(callback) => callback.call(request).await,
                None => ElicitationAnswer::decline(),
            };
            serde_json::to_value(&answer)
                .map_err(|error| ErrorObject::internal_error(error.to_string()))
        })
    });
    McpRouter::new(server)
        .with_notifier(notifier)
        .with_local_client(local)
        .assume_client_capabilities(ClientCapabilities::NONE.with_elicitation(true))
}

/// The in-process servers changed while the session runs.
pub(super) struct LiveServers {
    /// Servers added by [`SessionCore::add_server`], by name.
    pub(super) added: HashMap<String, McpRouter>,
    /// The names of the in-process servers the CLI is to serve now.
    pub(super) served: BTreeSet<String>,
    /// The servers the CLI runs that were set while the session runs
    /// ([`SessionCore::set_mcp_servers`]), with their configurations, by name.
    pub(super) external: BTreeMap<String, Value>,
}

impl LiveServers {
    /// The servers `mcp_set_servers` names now (the request replaces the CLI's whole set), taken
    /// out of the lock to be sent: those the CLI runs, and the in-process ones.
    fn served_now(&self) -> (BTreeMap<String, Value>, BTreeSet<String>) {
        (self.external.clone(), self.served.clone())
    }
}

/// Hashes a server name for the routers' map with FNV-1a. The map is looked up for every tool
/// call, and SipHash (std's default) made the lookup cost as much as a tenth of the session's
/// own work per call; its resistance to hash flooding buys nothing here, since the host alone
/// decides the keys (a name the CLI sends is only looked up).
pub(super) struct ServerNameHasher(u64);

impl Default for ServerNameHasher {
    fn default() -> Self {
        // The FNV-1a offset basis.
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for ServerNameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(PRIME);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) type ServerNames = BuildHasherDefault<ServerNameHasher>;

/// The in-process servers, given at the start or added and removed while the session runs.
impl SessionCore {
    /// A handle to the live tool set of in-process server `name`.
    pub(crate) fn tool_server(
        &self,
        name: &str,
    ) -> std::result::Result<
        claude_tools_core::mcp::ToolServerHandle,
        claude_tools_core::mcp::LiveToolError,
    > {
        let served = lock(&self.live_servers).served.contains(name);
        match self.router(name).filter(|_| served) {
            Some(router) => Ok(router.tool_server_handle()),
            None => Err(self.unknown_server(name)),
        }
    }

    /// The router of in-process server `name`: one given at the start, or one added since.
    pub(crate) fn router(&self, name: &str) -> Option<McpRouter> {
        if let Some(router) = self.routers.get(name) {
            return Some(router.clone());
        }
        lock(&self.live_servers).added.get(name).cloned()
    }

    /// The routers of the servers added since the start (to cancel their calls at the end).
    pub(crate) fn added_routers(&self) -> Vec<McpRouter> {
        lock(&self.live_servers).added.values().cloned().collect()
    }

    fn unknown_server(&self, name: &str) -> claude_tools_core::mcp::LiveToolError {
        let mut known: Vec<String> = lock(&self.live_servers).served.iter().cloned().collect();
        known.sort();
        claude_tools_core::mcp::LiveToolError::UnknownServer {
            server: name.to_string(),
            known,
        }
    }

    /// Adds in-process server `server` and asks the CLI to serve it (`mcp_set_servers`, which
    /// names every in-process server the CLI is to keep: the request replaces the whole set).
    pub(crate) async fn add_server(
        &self,
        server: claude_tools_core::tool::ToolServer,
    ) -> Result<claude_tools_core::mcp::ToolServerHandle> {
        let name = server.name().to_string();
        let _changing = self.server_changes.lock().await;
        let (router, servers) = {
            let mut live = lock(&self.live_servers);
            if self.routers.contains_key(&name) || live.added.contains_key(&name) {
                return Err(claude_tools_core::mcp::LiveToolError::DuplicateServer {
                    server: name,
                }
                .into());
            }
            let notifier = server_notifier(
                &name,
                self.out.clone(),
                self.notifications.clone(),
                self.id_salt,
            );
            let router = in_process_router(server, notifier, self.on_elicitation.clone());
            live.added.insert(name.clone(), router.clone());
            live.served.insert(name.clone());
            (router, live.served_now())
        };
        let request = HostRequest::McpSetServers {
            servers: SdkServers {
                external: &servers.0,
                sdk: &servers.1,
                sdk_settings: &self.sdk_settings,
            },
        };
        if let Err(error) = self.request(&request).await {
            // The CLI refused or did not answer: the server is not served, so it is not kept.
            let mut live = lock(&self.live_servers);
            live.added.remove(&name);
            live.served.remove(&name);
            return Err(error);
        }
        Ok(router.tool_server_handle())
    }

    /// Asks the CLI to stop serving in-process server `name` (given at the start or added).
    pub(crate) async fn remove_server(&self, name: &str) -> Result<Value> {
        let _changing = self.server_changes.lock().await;
        let servers = {
            let mut live = lock(&self.live_servers);
            if !live.served.remove(name) {
                drop(live);
                return Err(self.unknown_server(name).into());
            }
            // A router given at the start stays (answering nothing the CLI still asks for is
            // harmless); an added one goes, with its calls cancelled.
            if let Some(router) = live.added.remove(name) {
                router.cancel_all();
            }
            live.served_now()
        };
        let request = HostRequest::McpSetServers {
            servers: SdkServers {
                external: &servers.0,
                sdk: &servers.1,
                sdk_settings: &self.sdk_settings,
            },
        };
        self.request(&request).await
    }

    /// Sets the servers the CLI runs on top of its configuration to `external` (replacing the
    /// ones set by an earlier call), keeping the in-process servers: `mcp_set_servers` names them
    /// all. The set is kept only once the CLI took it, so a later `add_server` or
    /// `remove_server` names the same servers.
    pub(crate) async fn set_mcp_servers(&self, external: BTreeMap<String, Value>) -> Result<Value> {
        let _changing = self.server_changes.lock().await;
        let sdk = {
            let live = lock(&self.live_servers);
            if let Some(name) = external.keys().find(|name| live.served.contains(*name)) {
                return Err(crate::error::Error::Live(
                    claude_tools_core::mcp::LiveToolError::DuplicateServer {
                        server: name.clone(),
                    },
                ));
            }
            live.served.clone()
        };
        let request = HostRequest::McpSetServers {
            servers: SdkServers {
                external: &external,
                sdk: &sdk,
                sdk_settings: &self.sdk_settings,
            },
        };
        let answer = self.request(&request).await?;
        lock(&self.live_servers).external = external;
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_names_hash_with_fnv_1a() {
        // The reference vectors of FNV-1a, 64 bits.
        let hash = |bytes: &[u8]| {
            let mut hasher = ServerNameHasher::default();
            hasher.write(bytes);
            hasher.finish()
        };
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash(b"foobar"), 0x8594_4171_f739_67e8);
        let mut routers: HashMap<&str, u8, ServerNames> = HashMap::default();
        routers.insert("calc", 1);
        routers.insert("notes", 2);
        assert_eq!(
            (routers.get("calc"), routers.get("notes"), routers.get("x")),
            (Some(&1), Some(&2), None)
        );
    }
}
