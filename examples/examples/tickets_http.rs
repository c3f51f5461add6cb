//! The tickets board as a remote MCP server over Streamable HTTP, with its state in PostgreSQL
//! (any number of replicas behind a load balancer) or SQLite (one machine).
//!
//! ```text
//! cargo run -p claude-tools-examples --example tickets_http -- \
//!     --database sqlite:/tmp/board.sqlite3 --listen 127.0.0.1:8080
//! ```
//!
//! Options: `--database postgres://USER@HOST:PORT/DB` or `--database sqlite:PATH` (required),
//! `--listen ADDR` (default `127.0.0.1:8080`; port 0 picks a free one), `--replica NAME` (recorded
//! on every ticket this process files, as `created_by`; default `replica`), `--token TOKEN` or
//! `TICKETS_HTTP_TOKEN=TOKEN` (clients must then send `Authorization: Bearer TOKEN`),
//! `TICKETS_HTTP_STATE_KEY=KEY` (environment only: base64 of at least 32 random bytes, from
//! `openssl rand -base64 32`, that seals the `requestState` of questions to MCP 2026-07-28
//! clients; see below). The first line on stdout is the URL to POST to, e.g.
//! `http://127.0.0.1:8080/mcp`. `SIGTERM` or ctrl-c stops it gracefully: it stops accepting
//! connections, the calls in progress answer, and it exits 0.
//!
//! Add it to Claude Code with
//!
//! ```text
//! claude mcp add --transport http tickets http://127.0.0.1:8080/mcp
//! ```
//!
//! # Many replicas behind nginx
//!
//! The server is stateless (no MCP session, for 2025-11-25 and 2026-07-28 clients alike) and
//! keeps every ticket in the database, so any replica can answer any request. Start a
//! PostgreSQL database, then two replicas on it with one state key:
//!
//! ```text
//! export TICKETS_HTTP_STATE_KEY="$(openssl rand -base64 32)"   # the same for every replica
//! tickets_http --database postgres://app@127.0.0.1:5432/board --listen 127.0.0.1:8081 --replica a
//! tickets_http --database postgres://app@127.0.0.1:5432/board --listen 127.0.0.1:8082 --replica b
//! ```
//!
//! `delete_ticket` asks the user to confirm. A 2026-07-28 client gets the question as an
//! `input_required` result and sends the call again with the answer; nginx may send that retry
//! to the other replica, which opens the sealed `requestState` with the shared key and records
//! it as spent in the `spent_request_states` table beside the board (so the same retry sent
//! again is refused on every replica). Without `TICKETS_HTTP_STATE_KEY` each replica seals with
//! a key of its own and says so on start: a retry that reaches another replica is refused
//! (`-32602`) and the client starts the call over. Keep the replicas' clocks in step (NTP): a
//! state expires 10 minutes after it was sealed, judged by the clock of the replica that opens
//! it, and spent states are kept a minute past their expiry for clocks that disagree. A 2025
//! client has no way to be asked without sessions: `delete_ticket` keeps the ticket and says why.
//!
//! and put nginx in front of them:
//!
//! ```text
//! upstream tickets {
//!     server 127.0.0.1:8081;
//!     server 127.0.0.1:8082;
//!     keepalive 16;                       # reuse connections to the replicas
//! }
//! server {
//!     listen 127.0.0.1:8080;
//!     location /mcp {
//!         proxy_pass http://tickets;
//!         proxy_http_version 1.1;         # keepalive to the upstream needs HTTP/1.1 ...
//!         proxy_set_header Connection ""; # ... and no `Connection: close`
//!         proxy_set_header Host $http_host;
//!         proxy_buffering off;            # progress arrives as an SSE stream: pass it as written
//!         proxy_read_timeout 300s;        # long tool calls
//!         proxy_next_upstream error timeout;  # the default: never `non_idempotent`
//!     }
//! }
//! ```
//!
//! Plain round robin: no `hash`, `ip_hash` or sticky sessions, nothing ties a client to a
//! replica. Keep nginx's default `proxy_next_upstream` (do not add `non_idempotent`): when a
//! replica dies, requests not yet sent go to the other one, but a POST already sent is answered
//! `502` rather than sent again, since a `create_ticket` might have been filed already (and a
//! question's retry has spent its state). A `200` with a "Created ticket #N" result means
//! ticket #N is committed in the database. `tests/tests/http_replicas.rs` runs exactly this
//! deployment: calls spread over both replicas, each sees the other's writes, killing one
//! mid-run loses no acknowledged write and fails only the calls in flight on it, and a
//! question asked on one replica is answered on the other, once.
//!
//! The tools and stores are in `examples/src/tickets_http.rs`.

use std::io::Write;
use std::process::ExitCode;

use claude_tools_examples::tickets_http::{
    self, Config, MCP_PATH, Replica, STATE_KEY_ENV, TOKEN_ENV,
};

#[tokio::main]
async fn main() -> ExitCode {
    let config = match Config::parse(std::env::args().skip(1), std::env::var(TOKEN_ENV).ok()) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let state_key = match tickets_http::state_key(std::env::var(STATE_KEY_ENV).ok().as_deref()) {
        Ok(key) => key,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let board = match config.database.open().await {
        Ok(board) => board,
        Err(error) => {
            eprintln!("cannot open the board at {}: {error}", config.database);
            return ExitCode::FAILURE;
        }
    };
    let keyed = state_key.is_some();
    let request_state = match tickets_http::request_state(state_key, board.replay_guard) {
        Ok(codec) => codec,
        Err(error) => {
            eprintln!("cannot set up the requestState codec: {error}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!("cannot listen on {}: {error}", config.listen);
            return ExitCode::FAILURE;
        }
    };
    let url = match listener.local_addr() {
        Ok(addr) => format!("http://{addr}{MCP_PATH}"),
        Err(error) => {
            eprintln!("cannot read the listening address: {error}");
            return ExitCode::FAILURE;
        }
    };
    // The URL is the first line on stdout, flushed at once: scripts and tests read it to learn
    // the port when `--listen` asked for port 0.
    let mut stdout = std::io::stdout();
    if writeln!(stdout, "{url}")
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return ExitCode::FAILURE;
    }
    // Before the "serving" line, so that whoever reads it has read the warning.
    if !keyed {
        eprintln!(
            "tickets_http: warning: {STATE_KEY_ENV} is not set, so questions to MCP 2026-07-28 \
             clients are sealed with a key of this process only: behind a load balancer, a \
             client's retry that lands on another replica (or on this one after a restart) is \
             refused (-32602) and the call starts over. Give every replica the same key \
             (openssl rand -base64 32)."
        );
    }
    eprintln!(
        "tickets_http: replica `{}` serving the board in {} at {url}{}",
        config.replica,
        config.database,
        if config.token.is_some() {
            " (bearer token required)"
        } else {
            ""
        }
    );
    let replica = Replica::from_boxed(config.replica, board.store);
    match tickets_http::serve(
        listener,
        replica,
        config.token,
        request_state,
        tickets_http::shutdown_signal(),
    )
    .await
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("serving failed: {error}");
            ExitCode::FAILURE
        }
    }
}
