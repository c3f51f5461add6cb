//! A scripted Anthropic Messages API server on 127.0.0.1, for driving the real Claude Code CLI
//! offline.
//!
//! # Routes
//!
//! | request | answer |
//! |---|---|
//! | `POST /v1/messages` (any query, e.g. `?beta=true`) | the selected turn: SSE when the body has `"stream": true`, else the message JSON |
//! | `POST /v1/messages/count_tokens` | `{"input_tokens": n}` (n ≈ body bytes / 4) |
//! | `GET /v1/models`, `GET /v1/models/{id}` | a plausible model list / model object |
//! | `CONNECT host:port`, or any absolute-form target (`GET http://…`) | 403, recorded as a proxy attempt |
//! | anything else (GET, HEAD, POST, …) | 200 `{}` |
//!
//! # Turn selection
//!
//! Made from the request alone, so retries and side requests cannot desynchronise the script:
//!
//! 1. A request whose `tools` array is missing or empty is a *side request*: it gets a short
//!    text reply ([`Script::side_reply`], default `"OK."`) and consumes nothing.
//! 2. Otherwise the first turn with [`Turn::when_user_text`] contained in the text of the last
//!    `user` message (text blocks only, `<system-reminder>` blocks stripped) is served.
//! 3. Otherwise turn *k* is served, *k* = number of `assistant` messages in the request, counting
//!    only the turns without `when_user_text`.
//! 4. With no such turn, the reply is the text `script exhausted: …` with `end_turn`.
//!
//! A turn with an [`HttpError`] answers the first [`HttpError::times`] requests that select it
//! with that error, then its content.
//!
//! # HTTP
//!
//! HTTP/1.1 on [hyper](https://docs.rs/hyper): keep-alive and pipelining, `Content-Length` and
//! chunked request bodies, `Expect: 100-continue`; JSON answers go with a `Content-Length`,
//! SSE streams chunked, one chunk per event. Each [`RecordedRequest`] holds the request as
//! sent: the target, and the header names in their case and order (which hyper's own header map
//! does not keep). Limits: a head (request line and headers) over 64 KiB or with more than 1024
//! headers gets hyper's `431`, and a malformed one its `400`; a body over 64 MiB gets `413`
//! with a `request_too_large` error, before the client sends it when it declared its length.
//! These refusals close the connection and are not recorded.
//!
//! # Running the CLI against it
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use claude_tools_testkit::model_server::{ModelServer, Script, Turn};
//! let server = ModelServer::start(Script::new().turn(Turn::text("Hello!"))).await;
//! let home = claude_tools_testkit::TempDir::new("home")?;
//! let mut cmd = std::process::Command::new("claude");
//! cmd.args(["-p", "hi", "--output-format", "stream-json", "--verbose"]);
//! server.apply_cli_env(&mut cmd, home.path());
//! let out = cmd.output()?;
//! assert_eq!(server.message_requests().len(), 1);
//! # Ok(()) }
//! ```

mod head;
mod http;
mod inspect;
mod limits;
mod reply;
mod routes;
mod script;

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use inspect::{ToolResult, strip_system_reminders};
pub use script::{Block, HttpError, Script, Turn};

/// What the server answered a recorded request with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Served {
    /// Turn `index` (its position in [`Script::turns`]) was served successfully.
    Turn {
        /// Index in [`Script::turns`].
        index: usize,
    },
    /// Turn `index` answered with its scripted HTTP error.
    TurnError {
        /// Index in [`Script::turns`].
        index: usize,
        /// The HTTP status sent.
        status: u16,
    },
    /// A side request (no tools) got the side reply.
    SideReply,
    /// No turn matched: the "script exhausted" text was sent.
    Exhausted,
    /// `POST /v1/messages/count_tokens`.
    CountTokens,
    /// `GET /v1/models[/id]`.
    Models,
    /// Any other route: 200 `{}`.
    Fallback,
    /// A `CONNECT` or absolute-form request (a proxy attempt): 403.
    ProxyRefused,
    /// A `/v1/messages` body that was not JSON: 400.
    BadRequest,
}

/// One request the server received.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    /// The method (`POST`, `GET`, `HEAD`, `CONNECT`, …).
    pub method: String,
    /// The path without the query string (for `CONNECT`, the authority `host:port`).
    pub path: String,
    /// The query string without `?`, if any.
    pub query: Option<String>,
    /// The headers, names as sent, in order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`None` if empty or not JSON).
    pub body: Option<Value>,
    /// When it arrived, since the server started.
    pub at: Duration,
    /// What it was answered with.
    pub served: Served,
}

impl RecordedRequest {
    /// The first header with this name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the body asked for streaming (`"stream": true`).
    pub fn is_streaming(&self) -> bool {
        self.body
            .as_ref()
            .and_then(|b| b.get("stream"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// Whether this is a `POST /v1/messages` (any query string).
    pub fn is_messages(&self) -> bool {
        self.method == "POST" && self.path == "/v1/messages"
    }

    /// Names of the tools in the body's `tools` array, in order.
    pub fn tool_names(&self) -> Vec<String> {
        self.body
            .as_ref()
            .map(inspect::tool_names)
            .unwrap_or_default()
    }

    /// Every `tool_result` block in the body's messages, in order.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        self.body
            .as_ref()
            .map(inspect::tool_results)
            .unwrap_or_default()
    }

    /// Text of the last user message (text blocks only, system reminders stripped).
    pub fn last_user_text(&self) -> String {
        self.body
            .as_ref()
            .map(inspect::last_user_text)
            .unwrap_or_default()
    }
}

struct State {
    requests: Vec<RecordedRequest>,
    errors_served: HashMap<usize, u32>,
    counter: u64,
}

struct Shared {
    script: Script,
    started: Instant,
    state: Mutex<State>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock only ever leaves a complete Vec behind.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A running scripted model server. Stops when dropped.
///
/// It runs on a thread of its own (with its own single-threaded tokio runtime), so it keeps
/// serving while the test blocks, e.g. in `std::process::Command::output()`.
pub struct ModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for ModelServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl ModelServer {
    /// Starts a server on `127.0.0.1:<ephemeral port>` playing `script`.
    ///
    /// # Panics
    /// If no loopback port can be bound or the server thread cannot be spawned; use
    /// [`ModelServer::try_start`] to get the error instead.
    pub async fn start(script: Script) -> ModelServer {
        match ModelServer::try_start(script) {
            Ok(server) => server,
            Err(e) => panic!("model server failed to start on 127.0.0.1: {e}"),
        }
    }

    /// Starts a server (synchronously; usable outside any runtime).
    ///
    /// Fails with [`io::ErrorKind::InvalidInput`] when a turn's [`HttpError`] cannot be sent
    /// as an HTTP response (a status outside 200 to 999, a header name or value HTTP does not
    /// allow), naming the turn, and with the socket's error when no port can be bound.
    pub fn try_start(script: Script) -> io::Result<ModelServer> {
        for (index, turn) in script.turns.iter().enumerate() {
            let Some(error) = &turn.error else { continue };
            let headers: Vec<(String, String)> = error
                .headers
                .iter()
                .map(|(n, v)| (n.clone(), v.clone()))
                .collect();
            http::check_response(error.status, &headers).map_err(|problem| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("turn {index} of the script has an HTTP error that cannot be sent: {problem}"),
                )
            })?;
        }
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            script,
            started: Instant::now(),
            state: Mutex::new(State {
                requests: Vec::new(),
                errors_served: HashMap::new(),
                counter: 0,
            }),
        });
        let (tx, rx) = oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("model-server-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => {
                            eprintln!("model server: cannot register listener: {e}");
                            return;
                        }
                    };
                    tokio::select! {
                        _ = rx => {}
                        _ = accept_loop(listener, thread_shared) => {}
                    }
                });
            })?;
        Ok(ModelServer {
            addr,
            shared,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    /// The socket address (`127.0.0.1:PORT`).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, the value for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The script being played.
    pub fn script(&self) -> &Script {
        &self.shared.script
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// The `POST /v1/messages` requests (turn and side requests), in arrival order.
    pub fn message_requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .lock()
            .requests
            .iter()
            .filter(|r| r.is_messages())
            .cloned()
            .collect()
    }

    /// The `/v1/messages` requests that selected a scripted turn (served or errored) or found
    /// the script exhausted, i.e. every message request except side requests.
    pub fn turn_requests(&self) -> Vec<RecordedRequest> {
        self.message_requests()
            .into_iter()
            .filter(|r| {
                matches!(
                    r.served,
                    Served::Turn { .. } | Served::TurnError { .. } | Served::Exhausted
                )
            })
            .collect()
    }

    /// The proxy attempts (`CONNECT` or absolute-form requests), all refused with 403.
    pub fn proxy_attempts(&self) -> Vec<RecordedRequest> {
        self.shared
            .lock()
            .requests
            .iter()
            .filter(|r| r.served == Served::ProxyRefused)
            .cloned()
            .collect()
    }

    /// Every tool_result the CLI sent back, as `(tool_use_id, text, is_error)`, in order of
    /// first appearance across all turn requests (a result is listed once even though every
    /// later request repeats the history). Text has `<system-reminder>` blocks stripped.
    pub fn tool_results(&self) -> Vec<(String, String, bool)> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for req in self.turn_requests() {
            for r in req.tool_results() {
                if seen.insert(r.tool_use_id.clone()) {
                    out.push((r.tool_use_id, r.text, r.is_error));
                }
            }
        }
        out
    }

    /// Names in the `tools` array of the first request that selected turn `turn`
    /// (`None` if no request selected it).
    pub fn tools_offered(&self, turn: usize) -> Option<Vec<String>> {
        self.message_requests()
            .into_iter()
            .find(|r| {
                matches!(r.served, Served::Turn { index } | Served::TurnError { index, .. } if index == turn)
            })
            .map(|r| r.tool_names())
    }

    /// Waits until at least `n` requests satisfying `pred` were recorded, or `timeout` passes.
    /// Returns whether the count was reached.
    pub async fn wait_for(
        &self,
        n: usize,
        timeout: Duration,
        pred: impl Fn(&RecordedRequest) -> bool,
    ) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self
                .shared
                .lock()
                .requests
                .iter()
                .filter(|r| pred(r))
                .count()
                >= n
            {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The environment that keeps the CLI offline and on this server. `home` is a throwaway
    /// directory; `home/.claude` (config) and `home/tmp` (CLI temp files) are created in it.
    ///
    /// Sets `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY=test-key`, `HOME`, `CLAUDE_CONFIG_DIR`,
    /// `CLAUDE_CODE_TMPDIR`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`,
    /// `DISABLE_AUTOUPDATER=1`, `DISABLE_TELEMETRY=1`, `DISABLE_ERROR_REPORTING=1`,
    /// `DISABLE_BUG_COMMAND=1`, `ENABLE_TOOL_SEARCH=false` (so MCP tools are offered to the model
    /// instead of deferred behind ToolSearch), `HTTPS_PROXY`/`HTTP_PROXY` = this server (any
    /// internet request becomes a recorded, refused `CONNECT`) and `NO_PROXY=127.0.0.1,localhost`.
    ///
    /// Remove [`inherited_env_to_remove`] from the child's environment first
    /// ([`ModelServer::apply_cli_env`] does both).
    pub fn cli_env(&self, home: &Path) -> Vec<(String, String)> {
        let mut env = self.cli_env_keep_tool_search(home);
        env.push(("ENABLE_TOOL_SEARCH".into(), "false".into()));
        env
    }

    /// [`ModelServer::cli_env`] without `ENABLE_TOOL_SEARCH=false`: the CLI's default, which
    /// defers MCP tools behind `ToolSearch`.
    pub fn cli_env_keep_tool_search(&self, home: &Path) -> Vec<(String, String)> {
        let config = home.join(".claude");
        let tmp = home.join("tmp");
        // Best effort: the CLI creates missing dirs itself too.
        let _ = std::fs::create_dir_all(&config);
        let _ = std::fs::create_dir_all(&tmp);
        let base = self.base_url();
        let s = |p: &Path| p.to_string_lossy().into_owned();
        vec![
            ("ANTHROPIC_BASE_URL".into(), base.clone()),
            ("ANTHROPIC_API_KEY".into(), "test-key".into()),
            ("HOME".into(), s(home)),
            ("CLAUDE_CONFIG_DIR".into(), s(&config)),
            ("CLAUDE_CODE_TMPDIR".into(), s(&tmp)),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
            ("DISABLE_TELEMETRY".into(), "1".into()),
            ("DISABLE_ERROR_REPORTING".into(), "1".into()),
            ("DISABLE_BUG_COMMAND".into(), "1".into()),
            ("HTTPS_PROXY".into(), base.clone()),
            ("HTTP_PROXY".into(), base),
            ("NO_PROXY".into(), "127.0.0.1,localhost".into()),
        ]
    }

    /// Scrubs [`inherited_env_to_remove`] from `cmd` and sets [`ModelServer::cli_env`].
    /// For tokio, configure a `std::process::Command` and convert it with
    /// `tokio::process::Command::from`.
    pub fn apply_cli_env(&self, cmd: &mut std::process::Command, home: &Path) {
        for name in inherited_env_to_remove() {
            cmd.env_remove(name);
        }
        cmd.envs(self.cli_env(home));
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Names of variables in this process's environment that must not leak into a CLI run:
/// every `ANTHROPIC_*`, `CLAUDE_*` and `CLAUDECODE*` variable, `ENABLE_TOOL_SEARCH`, and the
/// proxy variables (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`, any case).
pub fn inherited_env_to_remove() -> Vec<String> {
    std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| {
            let upper = name.to_ascii_uppercase();
            name.starts_with("ANTHROPIC_")
                || name.starts_with("CLAUDE")
                || name == "ENABLE_TOOL_SEARCH"
                || matches!(
                    upper.as_str(),
                    "HTTP_PROXY" | "HTTPS_PROXY" | "ALL_PROXY" | "NO_PROXY"
                )
        })
        .collect()
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                // Each SSE event is sent as soon as it is written, not held back by Nagle.
                let _ = stream.set_nodelay(true);
                let shared = shared.clone();
                tokio::spawn(http::serve_connection(
                    stream,
                    limits::MAX_BODY,
                    move |req| {
                        let shared = shared.clone();
                        async move { routes::answer(&shared, req).await }
                    },
                ));
            }
            Err(e) => {
                // EMFILE and friends: back off briefly instead of spinning.
                eprintln!("model server: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}
