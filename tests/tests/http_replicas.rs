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
use std::time::{Duration, Instant};

use claude_tools_examples::tickets::TicketKind;
use claude_tools_examples::tickets_http::{
    Filed, Filter, NewTicket, PostgresStore, SharedTickets, TOOLS, TicketStore,
};
use claude_tools_tests::services::{Nginx, Postgres, services_or_skip};
use serde_json::{Value, json};

/// The MCP protocol revision the client announces.
const PROTOCOL_VERSION: &str = "2025-11-25";

/// One replica process of the example, killed (`SIGKILL`) when dropped.
struct ReplicaProcess {
    child: Child,
    addr: SocketAddr,
}

impl ReplicaProcess {
    /// Starts `tickets_http --listen 127.0.0.1:0 --database <database> --replica <name>` and
    /// reads the URL it prints first (its stderr is kept for the message should it not start).
    fn start(name: &str, database: &str, token: Option<&str>) -> ReplicaProcess {
        let binary = claude_tools_tests::example_binary("tickets_http");
        let mut command = Command::new(binary);
        command
            .args(["--listen", "127.0.0.1:0", "--database", database])
            .args(["--replica", name])
            .env_remove("TICKETS_HTTP_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(token) = token {
            command.env("TICKETS_HTTP_TOKEN", token);
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
            Some(addr) => ReplicaProcess { child, addr },
            None => fail(format!("printed {line:?}, not http://ADDR/mcp")),
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
        let response = request.send().await.map_err(|e| format!("send: {e}"))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let is_sse = content_type.starts_with("text/event-stream");
        let text = response.text().await.map_err(|e| format!("body: {e}"))?;
        if status != 200 {
            return Ok((status, content_type, Value::String(text)));
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
        Ok((status, content_type, reply))
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
    _postgres: Postgres,
}

impl Deployment {
    fn start(names: &[&str]) -> Deployment {
        let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
        let replicas: Vec<ReplicaProcess> = names
            .iter()
            .map(|name| ReplicaProcess::start(name, &postgres.url(), None))
            .collect();
        let addrs: Vec<SocketAddr> = replicas.iter().map(|r| r.addr).collect();
        let nginx = Nginx::start(&addrs).expect("nginx in front of the replicas");
        Deployment {
            nginx,
            replicas,
            _postgres: postgres,
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
    // A call with a progress token is answered as an SSE stream, and it passes nginx as one.
    let (status, content_type, streamed) = balanced
        .exchange(
            "tools/call",
            json!({
                "name": "list_tickets",
                "arguments": {"status": "all"},
                "_meta": {"progressToken": "p1"}
            }),
        )
        .await
        .expect("a streamed call through nginx");
    assert_eq!((status, content_type.as_str()), (200, "text/event-stream"));
    assert_eq!(streamed["result"]["content"][0]["text"], json!(board));
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

    let first = ReplicaProcess::start("solo", &database, Some(token));
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

    let second = ReplicaProcess::start("solo", &database, Some(token));
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
