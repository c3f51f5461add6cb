//! The replicated deployment of issue 13: the `tickets_http` example served over MCP Streamable
//! HTTP by several replicas behind nginx, their state in one PostgreSQL database (and, for one
//! machine, SQLite). PostgreSQL and nginx are started here, on 127.0.0.1, from the machine's
//! packages (`scripts/install-services`); without them the tests skip with a banner, unless `CI`
//! is set, where they fail.
//!
//! The client is a plain HTTP client speaking the JSON-RPC POST of the Streamable HTTP transport,
//! so what is proven is what any MCP client behind the same nginx would see.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

use claude_tools::mcp::request_state::{ReplayGuard, STATE_ID_LEN, Spend, StateId};
use claude_tools_examples::tickets::TicketKind;
use claude_tools_examples::tickets_http::{
    CLOCK_SKEW_MARGIN, Filed, Filter, NewTicket, PostgresStore, STATE_KEY_ENV, SWEEP_EVERY,
    SharedTickets, TOOLS, TicketStore,
};
use claude_tools_tests::services::{Nginx, Postgres, postgres_or_skip, services_or_skip};
use serde_json::{Value, json};

/// The MCP protocol revision the client announces (sessionless here: the example serves
/// 2025 clients without sessions).
const PROTOCOL_VERSION: &str = "2025-11-25";

/// The revision served statelessly beside it, `_meta` in every request.
const MODERN_VERSION: &str = "2026-07-28";

/// One replica process of the example, killed (`SIGKILL`) when dropped.
struct ReplicaProcess {
    child: Child,
    addr: SocketAddr,
    /// Its stderr, line by line, as it writes it.
    stderr: std::sync::mpsc::Receiver<String>,
}

impl ReplicaProcess {
    /// Starts `tickets_http --listen 127.0.0.1:0 --database <database> --replica <name>` (with
    /// `TICKETS_HTTP_STATE_KEY=<state_key>` when given) and reads the URL it prints first (its
    /// stderr is kept for the message should it not start).
    fn start(
        name: &str,
        database: &str,
        token: Option<&str>,
        state_key: Option<&str>,
    ) -> ReplicaProcess {
        let binary = claude_tools_tests::example_binary("tickets_http");
        let mut command = Command::new(binary);
        command
            .args(["--listen", "127.0.0.1:0", "--database", database])
            .args(["--replica", name])
            .env_remove("TICKETS_HTTP_TOKEN")
            .env_remove(STATE_KEY_ENV)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(token) = token {
            command.env("TICKETS_HTTP_TOKEN", token);
        }
        if let Some(key) = state_key {
            command.env(STATE_KEY_ENV, key);
        }
        let mut child = command.spawn().expect("the tickets_http example starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let (sender, first_line) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = sender.send(line);
        });
        // Drained for the process's whole life, so it never blocks on a full pipe.
        let (stderr_sender, stderr_lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = stderr_sender.send(line);
            }
        });
        let mut fail = |why: String| -> ! {
            let _ = child.kill();
            let _ = child.wait();
            let stderr: Vec<String> = stderr_lines.try_iter().collect();
            panic!("replica {name} {why}; its stderr:\n{}", stderr.join("\n"));
        };
        let line = match first_line.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(_) => fail("printed no URL within 60 s".into()),
        };
        let addr = line
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|addr| addr.parse().ok());
        match addr {
            Some(addr) => ReplicaProcess {
                child,
                addr,
                stderr: stderr_lines,
            },
            None => fail(format!("printed {line:?}, not http://ADDR/mcp")),
        }
    }

    /// What it wrote to stderr up to its "serving" line (within 30 s).
    fn stderr_until_serving(&self) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut lines = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) if line.contains(" serving the board ") => return lines,
                Ok(line) => lines.push(line),
                Err(_) => panic!("no \"serving\" line on stderr within 30 s: {lines:?}"),
            }
        }
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// `SIGKILL`: the process dies at once, mid-request or not.
    fn kill(&mut self) {
        self.child.kill().expect("SIGKILL the replica");
        self.child.wait().expect("reap the replica");
    }

    /// `SIGTERM`, then its exit status (within 10 s).
    fn terminate(mut self) -> ExitStatus {
        let pid = libc::pid_t::try_from(self.child.id()).expect("a pid");
        // SAFETY: kill(2) on our own unreaped child.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait on the replica") {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the replica did not stop within 10 s of SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ReplicaProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a client saw for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    /// A tool result, not an error: its text.
    Done(String),
    /// An `isError` tool result: its text.
    ToolError(String),
    /// No tool result: an HTTP status other than 200, or a broken connection.
    Failed(String),
}

/// A minimal MCP Streamable HTTP client: one JSON-RPC POST per call, no session.
#[derive(Clone)]
struct McpClient {
    http: reqwest::Client,
    url: String,
    token: Option<String>,
    next_id: Arc<AtomicU64>,
}

impl McpClient {
    fn new(url: String) -> McpClient {
        let http = reqwest::Client::builder()
            // Loopback only, whatever the environment says about proxies.
            .no_proxy()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("an HTTP client");
        McpClient {
            http,
            url,
            token: None,
            next_id: Arc::new(AtomicU64::new(1)),
        }
    }

    fn with_token(mut self, token: &str) -> McpClient {
        self.token = Some(token.to_string());
        self
    }

    /// POSTs one request; the HTTP status and the JSON-RPC reply (from a JSON body or the last
    /// message of an SSE stream).
    async fn request(&self, method: &str, params: Value) -> Result<(u16, Value), String> {
        let (status, _, reply) = self.exchange(method, params).await?;
        Ok((status, reply))
    }

    /// [`McpClient::request`], with the response's `Content-Type` too.
    async fn exchange(&self, method: &str, params: Value) -> Result<(u16, String, Value), String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut request = self
            .http
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", PROTOCOL_VERSION)
            .body(body.to_string());
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let received = Received::of(request, id, false).await?;
        Ok((received.status, received.content_type, received.reply))
    }

    /// POSTs one MCP 2026-07-28 request: the revision, the client's capabilities
    /// (`elicitation`) and the client in `params._meta`, `Mcp-Method` and (`name`) `Mcp-Name`
    /// headers. Every status's JSON-RPC body is read (the revision answers some errors `400` or
    /// `404`); a status without one (nginx's `502`) is the body's text.
    async fn modern(
        &self,
        method: &str,
        name: Option<&str>,
        mut params: Value,
    ) -> Result<Received, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "http_replicas", "version": "1"},
        });
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut request = self
            .http
            .post(&self.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", MODERN_VERSION)
            .header("Mcp-Method", method)
            .body(body.to_string());
        if let Some(name) = name {
            request = request.header("Mcp-Name", name);
        }
        Received::of(request, id, true).await
    }

    /// A 2026-07-28 `tools/call` of `tool` with `arguments` and, for a retry, `retry`'s
    /// `inputResponses` and `requestState` beside them.
    async fn modern_call(&self, tool: &str, arguments: Value, retry: Value) -> Received {
        let mut params = json!({"name": tool, "arguments": arguments});
        if let Value::Object(retry) = retry {
            for (key, value) in retry {
                params[key] = value;
            }
        }
        self.modern("tools/call", Some(tool), params)
            .await
            .unwrap_or_else(|error| panic!("{tool} through {}: {error}", self.url))
    }

    /// `which_replica` at 2026-07-28: the name of the replica that answered.
    async fn which_replica(&self) -> String {
        let received = self
            .modern_call("which_replica", json!({}), Value::Null)
            .await;
        assert_eq!(received.session_id, None, "{received:?}");
        let text = received.complete_text();
        text.strip_prefix("Answered by replica ")
            .and_then(|rest| rest.strip_suffix('.'))
            .unwrap_or_else(|| panic!("not a replica name: {text:?}"))
            .to_string()
    }

    async fn call(&self, tool: &str, arguments: Value) -> Answer {
        let params = json!({"name": tool, "arguments": arguments});
        match self.request("tools/call", params).await {
            Err(error) => Answer::Failed(error),
            Ok((200, reply)) => {
                let result = &reply["result"];
                let text = result["content"][0]["text"].as_str();
                match (text, &result["isError"]) {
                    (Some(text), Value::Bool(true)) => Answer::ToolError(text.to_string()),
                    (Some(text), _) => Answer::Done(text.to_string()),
                    (None, _) => Answer::Failed(format!("no tool result: {reply}")),
                }
            }
            Ok((status, body)) => Answer::Failed(format!("HTTP {status}: {body}")),
        }
    }

    async fn done(&self, tool: &str, arguments: Value) -> String {
        match self.call(tool, arguments.clone()).await {
            Answer::Done(text) => text,
            other => panic!("{tool} {arguments} through {}: {other:?}", self.url),
        }
    }

    async fn create(&self, title: &str) -> Answer {
        self.call("create_ticket", json!({"title": title, "kind": "bug"}))
            .await
    }

    async fn list_all(&self) -> String {
        self.done("list_tickets", json!({"status": "all"})).await
    }
}

/// What a POST got: its status, `Content-Type` and `Mcp-Session-Id`, and the JSON-RPC reply
/// (from a JSON body or the SSE stream's message with the request's id; the body's text when
/// there is none).
#[derive(Debug)]
struct Received {
    status: u16,
    content_type: String,
    session_id: Option<String>,
    reply: Value,
}

impl Received {
    /// Sends `request` (JSON-RPC id `id`) and reads the answer: the JSON-RPC reply of a `200`,
    /// and with `every_status` of any status that carries one.
    async fn of(
        request: reqwest::RequestBuilder,
        id: u64,
        every_status: bool,
    ) -> Result<Received, String> {
        let response = request.send().await.map_err(|e| format!("send: {e}"))?;
        let status = response.status().as_u16();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let content_type = header("content-type").unwrap_or_default();
        let session_id = header("mcp-session-id");
        let is_sse = content_type.starts_with("text/event-stream");
        let is_json = content_type.starts_with("application/json");
        let text = response.text().await.map_err(|e| format!("body: {e}"))?;
        if status != 200 && !(every_status && is_json) {
            return Ok(Received {
                status,
                content_type,
                session_id,
                reply: Value::String(text),
            });
        }
        let reply = if is_sse {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                .find(|message| message["id"] == json!(id))
                .ok_or_else(|| format!("no reply in the SSE stream: {text}"))?
        } else {
            serde_json::from_str(&text).map_err(|e| format!("not JSON ({e}): {text}"))?
        };
        if reply["id"] != json!(id) {
            return Err(format!("reply to another request: {reply}"));
        }
        Ok(Received {
            status,
            content_type,
            session_id,
            reply,
        })
    }

    /// The result, which must be a complete one (not an error, not `input_required`).
    fn complete(&self) -> &Value {
        assert_eq!(self.status, 200, "{self:?}");
        let result = &self.reply["result"];
        assert_eq!(result["resultType"], "complete", "{self:?}");
        result
    }

    /// The text of a complete tool result that is not an error.
    fn complete_text(&self) -> &str {
        let result = self.complete();
        assert_eq!(result["isError"], false, "{self:?}");
        result["content"][0]["text"]
            .as_str()
            .expect("a text result")
    }

    /// The `input_required` result's questions and sealed state.
    fn input_required(&self) -> (&Value, &str) {
        assert_eq!(self.status, 200, "{self:?}");
        let result = &self.reply["result"];
        assert_eq!(result["resultType"], "input_required", "{self:?}");
        let state = result["requestState"].as_str().expect("a requestState");
        (&result["inputRequests"], state)
    }

    /// The JSON-RPC error's code, message and `data` (as text).
    fn error(&self) -> (i64, &str, &str) {
        let error = &self.reply["error"];
        let code = error["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("no JSON-RPC error: {self:?}"));
        let text = |field: &str| error[field].as_str().unwrap_or_default();
        (code, text("message"), text("data"))
    }
}

/// `Created ticket #7 [bug] 'x', unassigned (filed by a).` → (7, "a").
fn created(answer: &str) -> (i64, String) {
    let parsed = answer.strip_prefix("Created ticket #").and_then(|rest| {
        let (id, rest) = rest.split_once(' ')?;
        let replica = rest.rsplit_once("(filed by ")?.1.strip_suffix(").")?;
        Some((id.parse().ok()?, replica.to_string()))
    });
    parsed.unwrap_or_else(|| panic!("not a creation: {answer:?}"))
}

/// The lines of a `list_tickets` answer by id: `#7 [bug] x (unassigned, open, filed by a)`.
fn listed(list: &str) -> BTreeMap<i64, String> {
    list.lines()
        .skip(1)
        .map(|line| {
            let id = line
                .strip_prefix('#')
                .and_then(|rest| rest.split_once(' '))
                .and_then(|(id, _)| id.parse().ok())
                .unwrap_or_else(|| panic!("not a ticket line: {line:?}"));
            (id, line.to_string())
        })
        .collect()
}

fn bug_line(id: i64, title: &str, status: &str, replica: &str) -> String {
    format!("#{id} [bug] {title} (unassigned, {status}, filed by {replica})")
}

/// PostgreSQL, two replicas of the example on it, and nginx in front of them.
struct Deployment {
    // Field order: nginx and the replicas stop before the database.
    nginx: Nginx,
    replicas: Vec<ReplicaProcess>,
    postgres: Postgres,
}

impl Deployment {
    /// Replicas without an operator key (`requestState` sealed with a per-process key).
    fn start(names: &[&str]) -> Deployment {
        Deployment::start_with_keys(names, &vec![None; names.len()])
    }

    /// Replica `names[i]` with `TICKETS_HTTP_STATE_KEY=keys[i]` (unset for `None`).
    fn start_with_keys(names: &[&str], keys: &[Option<&str>]) -> Deployment {
        assert_eq!(names.len(), keys.len());
        let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
        let replicas: Vec<ReplicaProcess> = names
            .iter()
            .zip(keys)
            .map(|(name, key)| {
                // The replica's name on its database connections, so a test can tell whose
                // statement waits on a lock (pg_stat_activity).
                let url = format!("{}?application_name={name}", postgres.url());
                ReplicaProcess::start(name, &url, None, *key)
            })
            .collect();
        let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
        let nginx = Nginx::start(&addrs).expect("nginx in front of the replicas");
        Deployment {
            nginx,
            replicas,
            postgres,
        }
    }

    fn through_nginx(&self) -> McpClient {
        McpClient::new(self.nginx.url("/mcp"))
    }

    fn direct(&self, replica: usize) -> McpClient {
        McpClient::new(self.replicas[replica].url())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_behind_nginx_spread_the_calls_and_share_one_board() {
    if !services_or_skip("two_replicas_behind_nginx_spread_the_calls_and_share_one_board") {
        return;
    }
    let deployment = Deployment::start(&["a", "b"]);
    let balanced = deployment.through_nginx();

    let (status, initialized) = balanced
        .request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "http_replicas", "version": "1"}
            }),
        )
        .await
        .expect("initialize through nginx");
    assert_eq!(status, 200);
    assert_eq!(
        initialized["result"]["serverInfo"],
        json!({"name": "tickets", "version": "1.0.0"})
    );
    let (_, tools) = balanced
        .request("tools/list", json!({}))
        .await
        .expect("tools/list through nginx");
    assert_eq!(
        tools["result"]["tools"],
        json!(SharedTickets::server().list_tools())
    );
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, TOOLS);

    // Calls through nginx land on both replicas: each ticket records who filed it.
    let mut filed_by = BTreeMap::new();
    for i in 0..6 {
        let title = format!("spread {i}");
        let Answer::Done(answer) = balanced.create(&title).await else {
            panic!("creating {title} through nginx failed");
        };
        let (id, replica) = created(&answer);
        assert_eq!(
            answer,
            format!("Created ticket #{id} [bug] '{title}', unassigned (filed by {replica}).")
        );
        filed_by.insert(id, (title, replica));
    }
    let replicas: BTreeSet<&str> = filed_by.values().map(|(_, r)| r.as_str()).collect();
    assert_eq!(replicas, BTreeSet::from(["a", "b"]), "{filed_by:?}");

    // What one replica writes, the other reads, both ways.
    let a = deployment.direct(0);
    let b = deployment.direct(1);
    let (on_a, _) = created(
        &a.done(
            "create_ticket",
            json!({"title": "made on a", "kind": "bug"}),
        )
        .await,
    );
    let (on_b, _) = created(
        &b.done(
            "create_ticket",
            json!({"title": "made on b", "kind": "bug"}),
        )
        .await,
    );
    let seen_by_b = listed(&b.list_all().await);
    assert_eq!(seen_by_b[&on_a], bug_line(on_a, "made on a", "open", "a"));
    let seen_by_a = listed(&a.list_all().await);
    assert_eq!(seen_by_a[&on_b], bug_line(on_b, "made on b", "open", "b"));
    for (id, (title, replica)) in &filed_by {
        assert_eq!(seen_by_a[id], bug_line(*id, title, "open", replica));
    }

    // Closing through one is seen through the other; closing again through it says so.
    assert_eq!(
        b.done("close_ticket", json!({"id": on_a, "reason": "fixed"}))
            .await,
        format!("Closed ticket #{on_a} (fixed).")
    );
    assert_eq!(
        a.done("list_tickets", json!({"status": "closed"})).await,
        format!("1 ticket:\n{}", bug_line(on_a, "made on a", "closed", "a"))
    );
    assert_eq!(
        a.done("close_ticket", json!({"id": on_a})).await,
        format!("Ticket #{on_a} was already closed.")
    );
    // A title open on the board is refused whichever replica is asked.
    assert_eq!(
        a.call(
            "create_ticket",
            json!({"title": "MADE ON B", "kind": "bug"})
        )
        .await,
        Answer::ToolError(format!(
            "Ticket #{on_b} 'MADE ON B' is already open; not filing it twice."
        ))
    );
    // Both replicas, and nginx, show the same board.
    let board = a.list_all().await;
    assert_eq!(b.list_all().await, board);
    assert_eq!(balanced.list_all().await, board);
    // A tool that cannot report progress (no `ToolContext`) answers a call with a progress
    // token as plain JSON...
    let (status, content_type, listed_again) = balanced
        .exchange(
            "tools/call",
            json!({
                "name": "list_tickets",
                "arguments": {"status": "all"},
                "_meta": {"progressToken": "p1"}
            }),
        )
        .await
        .expect("a plain call through nginx");
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    assert_eq!(listed_again["result"]["content"][0]["text"], json!(board));
    // ...while one that can (`delete_ticket` takes a `ToolContext`) answers it as an SSE
    // stream, and the stream passes nginx as one (here its answer: a stateless 2025 call
    // cannot ask, so nothing is deleted).
    let (status, content_type, streamed) = balanced
        .exchange(
            "tools/call",
            json!({
                "name": "delete_ticket",
                "arguments": {"id": on_b},
                "_meta": {"progressToken": "p2"}
            }),
        )
        .await
        .expect("a streamed call through nginx");
    assert_eq!((status, content_type.as_str()), (200, "text/event-stream"));
    assert!(
        streamed["result"]["content"][0]["text"].is_string(),
        "{streamed}"
    );
    assert_eq!(a.list_all().await, board, "nothing deleted");
    assert_eq!(
        listed(&board).len(),
        1 + 6 + 2,
        "#1, six spread, two direct"
    );
    drop(deployment);
}

/// How many writers create tickets at once through nginx.
const WRITERS: usize = 4;
/// How many tickets each writer creates.
const WRITES_PER_WRITER: usize = 30;
/// Acknowledged writes before replica `b` is killed.
const KILL_AFTER: usize = 24;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_run_loses_no_acknowledged_write() {
    if !services_or_skip("a_replica_killed_mid_run_loses_no_acknowledged_write") {
        return;
    }
    let mut deployment = Deployment::start(&["a", "b"]);
    let balanced = deployment.through_nginx();
    let acknowledged = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let client = balanced.clone();
            let acknowledged = acknowledged.clone();
            tokio::spawn(async move {
                let mut answers = Vec::new();
                for i in 0..WRITES_PER_WRITER {
                    let title = format!("writer {writer} ticket {i}");
                    let answer = client.create(&title).await;
                    if matches!(answer, Answer::Done(_)) {
                        acknowledged.fetch_add(1, Ordering::SeqCst);
                    }
                    answers.push((title, answer));
                }
                answers
            })
        })
        .collect();

    // SIGKILL replica b while the writers are at it.
    let deadline = Instant::now() + Duration::from_secs(60);
    while acknowledged.load(Ordering::SeqCst) < KILL_AFTER {
        assert!(
            Instant::now() < deadline,
            "the writers got no {KILL_AFTER} answers in 60 s"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    deployment.replicas[1].kill();
    let acknowledged_at_kill = acknowledged.load(Ordering::SeqCst);

    let mut answers = Vec::new();
    for writer in writers {
        answers.push(writer.await.expect("a writer task"));
    }
    let survivor = deployment.direct(0);
    let board = listed(&survivor.list_all().await);

    let mut failures = Vec::new();
    for (title, answer) in answers.iter().flatten() {
        match answer {
            Answer::Done(text) => {
                // Acknowledged: it is in the database, under the id and replica it was told.
                let (id, replica) = created(text);
                assert_eq!(
                    board.get(&id),
                    Some(&bug_line(id, title, "open", &replica)),
                    "acknowledged write {title:?} ({text}) is not on the board"
                );
            }
            // A request in flight to the killed replica: nginx answers 502 (it does not retry
            // a POST it has sent). Never a tool result that claims success.
            Answer::Failed(reason) => {
                assert!(reason.starts_with("HTTP 502"), "{title}: {reason}");
                failures.push(title.clone());
            }
            Answer::ToolError(text) => panic!("{title}: unexpected tool error {text}"),
        }
    }
    // Shown when the test fails (libtest captures it otherwise).
    eprintln!(
        "kill test: {acknowledged_at_kill} acknowledged at the kill, {} tickets on the board, \
         failed: {failures:?}",
        board.len()
    );
    // Only requests that were in flight to b (or sent on a connection nginx kept to it) failed.
    assert!(
        failures.len() <= 2 * WRITERS,
        "{} writes failed: {failures:?}",
        failures.len()
    );
    // After the kill the survivor serves every write: each writer's last writes succeeded,
    // filed by a.
    for writer_answers in &answers {
        for (title, answer) in writer_answers.iter().rev().take(5) {
            let Answer::Done(text) = answer else {
                panic!("{title} after the kill: {answer:?}");
            };
            assert_eq!(created(text).1, "a", "{title}: {text}");
        }
    }
    // Both replicas served acknowledged writes before the kill.
    let replicas: BTreeSet<&str> = board
        .values()
        .filter_map(|line| {
            line.rsplit_once("filed by ")
                .map(|(_, r)| r.trim_end_matches(')'))
        })
        .collect();
    assert_eq!(replicas, BTreeSet::from(["a", "b", "setup"]));
    // Ids come from the database: each acknowledged write got its own, whichever replica
    // filed it; the board holds those, plus #1, plus at most the failed writes that were
    // committed before their replica died (their client was told they failed, not that they
    // were filed).
    let acknowledged_ids: Vec<i64> = answers
        .iter()
        .flatten()
        .filter_map(|(_, answer)| match answer {
            Answer::Done(text) => Some(created(text).0),
            _ => None,
        })
        .collect();
    let succeeded = acknowledged_ids.len();
    assert_eq!(
        acknowledged_ids.iter().collect::<BTreeSet<_>>().len(),
        succeeded,
        "an id was handed out twice: {acknowledged_ids:?}"
    );
    assert!(succeeded > acknowledged_at_kill);
    assert!(
        (1 + succeeded..=1 + succeeded + failures.len()).contains(&board.len()),
        "{} tickets for {succeeded} acknowledged and {} failed writes",
        board.len(),
        failures.len()
    );
    drop(deployment);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sqlite_board_is_served_over_http_and_survives_a_restart() {
    if !services_or_skip("the_sqlite_board_is_served_over_http_and_survives_a_restart") {
        return;
    }
    let dir = claude_tools_testkit::TempDir::new("tickets-http-sqlite").expect("a temp dir");
    let database = format!("sqlite:{}", dir.path().join("board.sqlite3").display());
    let token = "s3cret";

    let first = ReplicaProcess::start("solo", &database, Some(token), None);
    let client = McpClient::new(first.url()).with_token(token);
    let anonymous = McpClient::new(first.url());
    let Answer::Failed(refused) = anonymous.create("no token").await else {
        panic!("a call without the bearer token was served");
    };
    assert!(refused.starts_with("HTTP 401"), "{refused}");
    assert_eq!(
        client.create("Login fails").await,
        Answer::Done("Created ticket #2 [bug] 'Login fails', unassigned (filed by solo).".into())
    );
    assert_eq!(
        client.create("Search is slow").await,
        Answer::Done(
            "Created ticket #3 [bug] 'Search is slow', unassigned (filed by solo).".into()
        )
    );
    assert_eq!(
        client
            .done("close_ticket", json!({"id": 2, "reason": "fixed"}))
            .await,
        "Closed ticket #2 (fixed)."
    );
    assert_eq!(
        client.call("close_ticket", json!({"id": 42})).await,
        Answer::ToolError("There is no ticket #42. List the tickets to find its id.".into())
    );
    let board = client.list_all().await;
    assert_eq!(
        board,
        "3 tickets:\n\
         #1 [chore] Upgrade the CI runners (grace, open, filed by setup)\n\
         #2 [bug] Login fails (unassigned, closed, filed by solo)\n\
         #3 [bug] Search is slow (unassigned, open, filed by solo)"
    );
    // SIGTERM: a graceful shutdown, exit status 0.
    let status = first.terminate();
    assert!(status.success(), "the replica exited with {status}");

    let second = ReplicaProcess::start("solo", &database, Some(token), None);
    let client = McpClient::new(second.url()).with_token(token);
    assert_eq!(client.list_all().await, board);
    assert_eq!(
        client.create("Dark mode").await,
        Answer::Done("Created ticket #4 [bug] 'Dark mode', unassigned (filed by solo).".into())
    );
}

/// How many creates race in [`concurrent_replicas_file_a_title_once`]: one per connection of
/// the two stores' pools, so all of them wait on the table lock at once.
const RACERS: usize = 16;

/// Two stores (two replicas' worth of pools) on one database file the same title at the same
/// instant: every create has looked for an open twin and found none, and all their inserts are
/// held at a table lock, then released together. The unique index, not the read-then-write
/// check, decides, so exactly one is filed and the others are told which one. (Without the
/// index all sixteen are filed; without the advisory lock the two replicas' simultaneous
/// start fails in `CREATE TABLE`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_replicas_file_a_title_once() {
    if !services_or_skip("concurrent_replicas_file_a_title_once") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let url = postgres.url();
    // Both replicas start (and migrate) at once: the advisory lock makes them take turns.
    let (a, b) = tokio::join!(PostgresStore::connect(&url), PostgresStore::connect(&url));
    let stores = [a.expect("replica a's store"), b.expect("replica b's store")];
    // Inserts take ROW EXCLUSIVE on the table, which EXCLUSIVE blocks; the creates' look-ups
    // (ACCESS SHARE) pass.
    let (gate, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("a connection of the test's own");
    tokio::spawn(connection);
    gate.batch_execute("BEGIN; LOCK TABLE tickets IN EXCLUSIVE MODE")
        .await
        .expect("lock the tickets table");
    let attempts: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = stores[i % 2].clone();
            tokio::spawn(async move {
                store
                    .create(NewTicket {
                        title: "Same title".into(),
                        kind: TicketKind::Bug,
                        assignee: None,
                        created_by: format!("r{}", i % 2),
                    })
                    .await
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let waiting: i64 = gate
            .query_one(
                "SELECT count(*) FROM pg_locks WHERE relation = 'tickets'::regclass
                   AND mode = 'RowExclusiveLock' AND NOT granted",
                &[],
            )
            .await
            .expect("count the waiting inserts")
            .get(0);
        if waiting == RACERS as i64 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{waiting} of {RACERS} inserts waiting after 30 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    gate.batch_execute("COMMIT")
        .await
        .expect("release the lock");
    let mut outcomes = Vec::new();
    for attempt in attempts {
        outcomes.push(attempt.await.expect("a task").expect("a committed answer"));
    }
    let created: Vec<i64> = outcomes
        .iter()
        .filter_map(|filed| match filed {
            Filed::Created(id) => Some(*id),
            _ => None,
        })
        .collect();
    assert_eq!(created.len(), 1, "{outcomes:?}");
    let id = created[0];
    assert!(
        outcomes
            .iter()
            .all(|filed| *filed == Filed::Created(id) || *filed == Filed::Duplicate(id)),
        "{outcomes:?}"
    );
    let board = stores[1].list(Filter::all()).await.expect("the board");
    // Seeded once (ticket #1), though both replicas migrated a new database.
    assert_eq!(
        board
            .iter()
            .map(|t| (t.id, t.title.as_str()))
            .collect::<Vec<_>>(),
        [(1, "Upgrade the CI runners"), (id, "Same title")]
    );
    drop(postgres);
}

// MCP 2026-07-28: stateless clients, questions over rounds (MRTR), and the state key.

/// Two operator keys for `requestState` (`openssl rand -base64 32`): replicas that share one
/// accept each other's retries; replicas given different ones do not.
const KEY_ONE: &str = "HYeVB68UbsF9aoMXrx54thiP914lYyhKl/cqlLd3Z80=";
const KEY_TWO: &str = "K71Pq9Q4jTBxThEl0JRQO7PI94TmYw0ocKwf9Cet5UE=";

/// The `delete_ticket` retry that answers its `confirm` question, with the state of round 1.
fn confirmed(state: &str, confirm: bool) -> Value {
    json!({
        "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": confirm}}},
        "requestState": state,
    })
}

/// `Deleted ticket #7 'x' (asked on a, deleted on b).` → ("a", "b"), for ticket `id`, `title`.
fn deleted(answer: &str, id: i64, title: &str) -> (String, String) {
    let parsed = answer
        .strip_prefix(&format!("Deleted ticket #{id} '{title}' (asked on "))
        .and_then(|rest| rest.strip_suffix(")."))
        .and_then(|rest| rest.split_once(", deleted on "));
    match parsed {
        Some((asked_on, deleted_on)) => (asked_on.to_string(), deleted_on.to_string()),
        None => panic!("not the deletion of #{id} '{title}': {answer:?}"),
    }
}

/// The refusal of a `requestState` that does not open (tampered, foreign key, spent…): the
/// same for every reason.
const REFUSED_STATE: (i64, &str, &str) =
    (-32602, "Invalid params", "invalid or expired requestState");

/// Behind plain round robin (no hash, no sticky sessions: nothing ties a client to a replica),
/// 2026-07-28 requests are answered by whichever replica gets them, with no session id; 2025
/// clients of the same deployment are served as before, and a replica without an operator key
/// says what that means.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_clients_are_served_by_any_replica_without_a_session() {
    if !services_or_skip("modern_clients_are_served_by_any_replica_without_a_session") {
        return;
    }
    let deployment = Deployment::start_with_keys(&["a", "b"], &[Some(KEY_ONE), Some(KEY_ONE)]);
    for replica in &deployment.replicas {
        let stderr = replica.stderr_until_serving();
        assert!(
            !stderr.iter().any(|line| line.contains(STATE_KEY_ENV)),
            "a replica with a key warned: {stderr:?}"
        );
    }
    let config =
        std::fs::read_to_string(deployment.nginx.dir().join("nginx.conf")).expect("nginx's config");
    for affinity in ["hash", "sticky", "session", "cookie"] {
        assert!(
            !config.to_lowercase().contains(affinity),
            "the balancer pins clients ({affinity}):\n{config}"
        );
    }
    let balanced = deployment.through_nginx();

    let discover = balanced
        .modern("server/discover", None, json!({}))
        .await
        .expect("server/discover through nginx");
    assert_eq!(discover.session_id, None);
    assert_eq!(
        discover.complete()["supportedVersions"],
        json!([MODERN_VERSION])
    );
    // Round robin: the calls alternate, whatever connection nginx reuses.
    let mut served: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..8 {
        *served.entry(balanced.which_replica().await).or_default() += 1;
    }
    assert_eq!(
        served,
        BTreeMap::from([("a".to_string(), 4), ("b".to_string(), 4)])
    );
    let listed_modern = balanced
        .modern_call("list_tickets", json!({"status": "all"}), Value::Null)
        .await;
    assert_eq!(listed_modern.session_id, None);
    assert_eq!(
        listed_modern.complete_text(),
        "1 ticket:\n#1 [chore] Upgrade the CI runners (grace, open, filed by setup)"
    );

    // A 2025 client (no sessions: no channel for a question) cannot be asked to confirm, and
    // nothing is deleted.
    let Answer::ToolError(refused) = balanced.call("delete_ticket", json!({"id": 1})).await else {
        panic!("a 2025 delete_ticket without a way to confirm was not refused");
    };
    assert!(
        refused
            .starts_with("Could not ask the user to confirm deleting ticket #1, so it was kept: "),
        "{refused}"
    );
    assert!(listed(&balanced.list_all().await).contains_key(&1));

    // Without a key, a replica warns that retries across replicas will fail.
    let url = deployment.postgres.url();
    let unkeyed = ReplicaProcess::start("c", &url, None, None);
    let stderr = unkeyed.stderr_until_serving();
    assert!(
        stderr.iter().any(|line| line.contains(&format!(
            "warning: {STATE_KEY_ENV} is not set, so questions to MCP 2026-07-28 clients are \
             sealed with a key of this process only"
        ))),
        "{stderr:?}"
    );
    drop(deployment);
}

/// A question's retry that lands on the other replica completes there (same key, shared
/// guard), and the spent state is refused on both replicas afterwards; through nginx's round
/// robin the rounds cross replicas by themselves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_asked_on_one_replica_is_answered_on_the_other_once() {
    if !services_or_skip("a_question_asked_on_one_replica_is_answered_on_the_other_once") {
        return;
    }
    let deployment = Deployment::start_with_keys(&["a", "b"], &[Some(KEY_ONE), Some(KEY_ONE)]);
    let a = deployment.direct(0);
    let b = deployment.direct(1);
    let (id, _) = created(
        &a.done(
            "create_ticket",
            json!({"title": "Delete me", "kind": "bug"}),
        )
        .await,
    );

    // Round 1 on a: the question, and the sealed state.
    let round1 = a
        .modern_call("delete_ticket", json!({"id": id}), Value::Null)
        .await;
    assert_eq!(round1.session_id, None);
    let (questions, state) = round1.input_required();
    assert_eq!(
        questions["confirm"]["method"], "elicitation/create",
        "{questions}"
    );
    assert_eq!(
        questions["confirm"]["params"]["message"],
        format!("Delete ticket #{id} 'Delete me' for good?")
    );
    let retry = confirmed(state, true);

    // Round 2 on b: completes, with what round 1 kept (the replica that asked).
    let done = b
        .modern_call("delete_ticket", json!({"id": id}), retry.clone())
        .await;
    assert_eq!(
        deleted(done.complete_text(), id, "Delete me"),
        ("a".to_string(), "b".to_string())
    );
    assert!(!listed(&a.list_all().await).contains_key(&id));

    // The same retry again: spent, on the replica that never opened it too.
    for again in [&a, &b] {
        let replayed = again
            .modern_call("delete_ticket", json!({"id": id}), retry.clone())
            .await;
        assert_eq!(replayed.status, 200, "{replayed:?}");
        assert_eq!(replayed.error(), REFUSED_STATE, "{replayed:?}");
    }

    // A "no" asked on b and heard on a keeps the ticket; replayed on b, it is spent too.
    let (kept, _) = created(
        &b.done("create_ticket", json!({"title": "Keep me", "kind": "bug"}))
            .await,
    );
    let round1 = b
        .modern_call("delete_ticket", json!({"id": kept}), Value::Null)
        .await;
    let declined = confirmed(round1.input_required().1, false);
    let answer = a
        .modern_call("delete_ticket", json!({"id": kept}), declined.clone())
        .await;
    assert_eq!(
        answer.complete_text(),
        format!("Kept ticket #{kept} 'Keep me': the user did not confirm.")
    );
    let replayed = b
        .modern_call("delete_ticket", json!({"id": kept}), declined)
        .await;
    assert_eq!(replayed.error(), REFUSED_STATE, "{replayed:?}");
    assert!(listed(&b.list_all().await).contains_key(&kept));

    // Through nginx, each round goes where round robin sends it.
    let balanced = deployment.through_nginx();
    let mut rounds = Vec::new();
    for i in 0..4 {
        let title = format!("Delete me through nginx {i}");
        let (id, _) = created(
            &balanced
                .done("create_ticket", json!({"title": title, "kind": "bug"}))
                .await,
        );
        let round1 = balanced
            .modern_call("delete_ticket", json!({"id": id}), Value::Null)
            .await;
        let retry = confirmed(round1.input_required().1, true);
        let done = balanced
            .modern_call("delete_ticket", json!({"id": id}), retry)
            .await;
        rounds.push(deleted(done.complete_text(), id, &title));
    }
    assert!(
        rounds
            .iter()
            .any(|(asked_on, deleted_on)| asked_on != deleted_on),
        "no round trip crossed replicas: {rounds:?}"
    );
    drop(deployment);
}

/// The key is what lets a replica open another's state: replicas given different keys refuse
/// each other's retries (`-32602`, nothing runs), while the replica that asked still takes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_with_different_keys_refuse_each_others_retries() {
    if !services_or_skip("replicas_with_different_keys_refuse_each_others_retries") {
        return;
    }
    let deployment = Deployment::start_with_keys(&["a", "b"], &[Some(KEY_ONE), Some(KEY_TWO)]);
    let a = deployment.direct(0);
    let b = deployment.direct(1);
    let (id, _) = created(
        &a.done(
            "create_ticket",
            json!({"title": "Delete me", "kind": "bug"}),
        )
        .await,
    );
    let round1 = a
        .modern_call("delete_ticket", json!({"id": id}), Value::Null)
        .await;
    let retry = confirmed(round1.input_required().1, true);

    let on_b = b
        .modern_call("delete_ticket", json!({"id": id}), retry.clone())
        .await;
    assert_eq!(on_b.status, 200, "{on_b:?}");
    assert_eq!(on_b.error(), REFUSED_STATE, "{on_b:?}");
    assert!(
        listed(&b.list_all().await).contains_key(&id),
        "a refused retry deleted the ticket"
    );
    // Refused before it was spent: the replica whose key sealed it takes it.
    let on_a = a
        .modern_call("delete_ticket", json!({"id": id}), retry)
        .await;
    assert_eq!(
        deleted(on_a.complete_text(), id, "Delete me"),
        ("a".to_string(), "a".to_string())
    );
    drop(deployment);
}

/// Which replica's statements wait on a lock, by the `application_name` each replica's
/// connections carry, in the order the statements started.
async fn waiting_on_lock(gate: &tokio_postgres::Client) -> Vec<String> {
    gate.query(
        "SELECT application_name FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND application_name <> ''
          ORDER BY query_start",
        &[],
    )
    .await
    .expect("read pg_stat_activity")
    .iter()
    .map(|row| row.get(0))
    .collect()
}

/// A replica killed while calls are in flight on it: exactly those calls fail (nginx answers
/// `502` and does not send a POST it has sent once to the other replica), the other replica's
/// calls in flight complete, new calls go to the survivor, and a question asked on the dead
/// replica is answered on the survivor.
///
/// The calls are held in flight by a lock on the tickets table that the test holds (their
/// inserts wait on it), so the kill lands mid-call whatever the machine's speed; each replica's
/// database connections carry its name, which tells the test where nginx sent each call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_killed_mid_call_fails_only_its_own_calls() {
    if !services_or_skip("a_replica_killed_mid_call_fails_only_its_own_calls") {
        return;
    }
    let mut deployment = Deployment::start_with_keys(&["a", "b"], &[Some(KEY_ONE), Some(KEY_ONE)]);
    let balanced = deployment.through_nginx();
    let (gate, connection) =
        tokio_postgres::connect(&deployment.postgres.url(), tokio_postgres::NoTls)
            .await
            .expect("a connection of the test's own");
    tokio::spawn(connection);
    let (doomed_ticket, _) = created(
        &balanced
            .done(
                "create_ticket",
                json!({"title": "Asked before the kill", "kind": "bug"}),
            )
            .await,
    );
    gate.batch_execute("BEGIN; LOCK TABLE tickets IN EXCLUSIVE MODE")
        .await
        .expect("lock the tickets table");

    // Creates through nginx until each replica holds at least one in flight.
    let mut in_flight = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let waiting = waiting_on_lock(&gate).await;
        if waiting.len() == in_flight.len() {
            let held: BTreeSet<&str> = waiting.iter().map(String::as_str).collect();
            if held.len() == 2 {
                break;
            }
            assert!(in_flight.len() < 6, "nginx sent {waiting:?} to one replica");
            let title = format!("In flight {}", in_flight.len());
            let client = balanced.clone();
            let call_title = title.clone();
            let call = tokio::spawn(async move {
                client
                    .modern_call(
                        "create_ticket",
                        json!({"title": call_title, "kind": "bug"}),
                        Value::Null,
                    )
                    .await
            });
            in_flight.push((title, call));
        }
        assert!(
            Instant::now() < deadline,
            "{} calls sent, {waiting:?} waiting after 30 s",
            in_flight.len()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Which replica holds which call: the i-th waiting statement is the i-th call sent (each
    // was sent only once the one before it waited).
    let holders = waiting_on_lock(&gate).await;
    let victim = holders[0].clone();
    let survivor = if victim == "a" { "b" } else { "a" };
    let (victim_index, survivor_client) = if victim == "a" {
        (0, deployment.direct(1))
    } else {
        (1, deployment.direct(0))
    };
    // A question asked on the victim before it dies (a read: the lock lets it through).
    let round1 = deployment
        .direct(victim_index)
        .modern_call("delete_ticket", json!({"id": doomed_ticket}), Value::Null)
        .await;
    let retry = confirmed(round1.input_required().1, true);

    deployment.replicas[victim_index].kill();

    // The victim's calls fail at once, the lock still held: had nginx sent one again to the
    // survivor, it would wait on the lock instead.
    let mut survivors_calls = Vec::new();
    let mut failed = Vec::new();
    for ((title, call), holder) in in_flight.into_iter().zip(&holders) {
        if *holder == victim {
            let answer = tokio::time::timeout(Duration::from_secs(10), call)
                .await
                .unwrap_or_else(|_| {
                    panic!("{title}: still running 10 s after its replica died (sent again?)")
                })
                .expect("a call task");
            assert_eq!(answer.status, 502, "{title}: {answer:?}");
            failed.push(title);
        } else {
            survivors_calls.push((title, call));
        }
    }
    assert!(!failed.is_empty() && !survivors_calls.is_empty());
    // New calls, still under the lock, reach the survivor (nginx skips a replica it cannot
    // connect to: nothing was sent there).
    for _ in 0..4 {
        assert_eq!(balanced.which_replica().await, survivor);
    }
    assert_eq!(survivor_client.which_replica().await, survivor);

    gate.batch_execute("COMMIT")
        .await
        .expect("release the lock");
    for (title, call) in survivors_calls {
        let answer = call.await.expect("a call task");
        let (_, filed_by) = created(answer.complete_text());
        assert_eq!(filed_by, survivor, "{title}");
    }
    // The question asked on the dead replica is answered on the survivor.
    let done = balanced
        .modern_call("delete_ticket", json!({"id": doomed_ticket}), retry)
        .await;
    assert_eq!(
        deleted(done.complete_text(), doomed_ticket, "Asked before the kill"),
        (victim.clone(), survivor.to_string())
    );
    // A failed call's ticket is on the board at most once, and never filed by the survivor
    // (its insert, already waiting in the database, may have committed after the lock went).
    let board = survivor_client.list_all().await;
    for title in &failed {
        let lines: Vec<&str> = board
            .lines()
            .filter(|line| line.contains(&format!("] {title} (")))
            .collect();
        assert!(
            lines.len() <= 1
                && lines
                    .iter()
                    .all(|line| line.ends_with(&format!("filed by {victim})"))),
            "{title}: {lines:?}"
        );
    }
    drop(deployment);
}

/// The shared guard itself, as two replicas' stores hold it: of many spends of one state at
/// once, on both, exactly one is the first; rows past their expiry (and the clock-skew margin)
/// are swept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_postgres_replay_guard_spends_a_state_once_across_replicas() {
    if !postgres_or_skip("the_postgres_replay_guard_spends_a_state_once_across_replicas") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let url = postgres.url();
    let (a, b) = tokio::join!(PostgresStore::connect(&url), PostgresStore::connect(&url));
    let guards = [
        Arc::new(a.expect("replica a's store").replay_guard()),
        Arc::new(b.expect("replica b's store").replay_guard()),
    ];
    let now = SystemTime::now();
    let expires_at = now + Duration::from_secs(600);
    let id = StateId::from_bytes([7; STATE_ID_LEN]);
    let spends: Vec<_> = (0..RACERS)
        .map(|i| {
            let guard = guards[i % 2].clone();
            tokio::spawn(async move { guard.spend(&id, expires_at, now).await })
        })
        .collect();
    let mut firsts = 0;
    for spend in spends {
        match spend.await.expect("a task").expect("the guard answers") {
            Spend::First => firsts += 1,
            Spend::Replayed => {}
        }
    }
    assert_eq!(firsts, 1, "of {RACERS} spends of one state");
    let other = StateId::from_bytes([8; STATE_ID_LEN]);
    assert_eq!(
        guards[1]
            .spend(&other, expires_at, now)
            .await
            .expect("the guard"),
        Spend::First
    );

    // Past both states' expiry and the margin (and a sweep interval later), a spend sweeps them.
    let (check, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("a connection of the test's own");
    tokio::spawn(connection);
    let rows = || async {
        check
            .query_one("SELECT count(*) FROM spent_request_states", &[])
            .await
            .expect("count the spent states")
            .get::<_, i64>(0)
    };
    assert_eq!(rows().await, 2);
    let later = expires_at + CLOCK_SKEW_MARGIN + SWEEP_EVERY + Duration::from_secs(1);
    let third = StateId::from_bytes([9; STATE_ID_LEN]);
    assert_eq!(
        guards[0]
            .spend(&third, later + Duration::from_secs(600), later)
            .await
            .expect("the guard"),
        Spend::First
    );
    assert_eq!(rows().await, 1, "the expired states were not swept");
    drop(postgres);
}
