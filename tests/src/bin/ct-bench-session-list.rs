//! `ct-bench-session-list` (in the tests crate for its throwaway PostgreSQL cluster): how long a
//! "past conversations" screen waits for its first page when a project has many sessions in a
//! PostgreSQL session store (issue 30).
//!
//! `ct-bench-session-list [--sessions N] [--lines L] [--page P] [--rounds R] [--postgres URL]`
//! (defaults 10000 sessions of 20 lines, pages of 50, 20 rounds; without a URL, a throwaway
//! cluster is started from the machine's packages, as the tests do) appends the sessions through
//! the store (so each has its running summary), then times `StoreSessions::list` of the first
//! page, each round a fresh store handle (a fresh connection, as a request handler would have
//! from a pool), and the same through a store that keeps no summaries (each session of the
//! page read from its transcript). Medians and the slowest round are printed.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use claude_tools::session_store::{
    ListPage, PostgresSessionStore, SessionKey, SessionStore, StoreFuture, StoreSessions,
    StoredSession, TranscriptEntry,
};
use serde_json::json;

const PROJECT: &str = "-srv-bench";

/// The store without its summaries: the listing reads each session of the page.
struct NoSummaries(PostgresSessionStore);

impl SessionStore for NoSummaries {
    fn append<'a>(&'a self, k: &'a SessionKey, e: &'a [TranscriptEntry]) -> StoreFuture<'a, ()> {
        self.0.append(k, e)
    }
    fn load<'a>(&'a self, k: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        self.0.load(k)
    }
    fn list_sessions<'a>(&'a self, p: &'a str) -> StoreFuture<'a, Vec<StoredSession>> {
        self.0.list_sessions(p)
    }
}

fn session_id(n: usize) -> String {
    format!("{n:08x}-0000-4000-8000-{n:012x}")
}

/// A session's lines: a prompt, then assistant and user lines of about 1 KiB.
fn transcript(n: usize, lines: usize) -> Result<Vec<TranscriptEntry>, String> {
    let id = session_id(n);
    let filler = "x".repeat(900);
    (0..lines)
        .map(|i| {
            let (kind, content) = match i {
                0 => (
                    "user",
                    json!(format!("question {n}: why is the build red?")),
                ),
                _ if i % 2 == 1 => ("assistant", json!([{"type": "text", "text": filler}])),
                _ => ("user", json!(filler)),
            };
            let line = json!({"parentUuid": (i > 0).then(|| format!("{id}-{}", i - 1)),
                "isSidechain": false, "type": kind, "cwd": "/srv/bench", "sessionId": id,
                "gitBranch": "main", "timestamp": "2026-11-29T10:00:00.000Z",
                "message": {"role": kind, "content": content}, "uuid": format!("{id}-{i}")});
            TranscriptEntry::from_value(&line).map_err(|e| e.to_string())
        })
        .collect()
}

fn median(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[times.len() - 1])
}

async fn run(
    url: &str,
    sessions: usize,
    lines: usize,
    page: usize,
    rounds: usize,
) -> Result<(), String> {
    let connect = || async {
        PostgresSessionStore::connect(url)
            .await
            .map_err(|e| format!("connecting: {e}"))
    };
    let store = connect().await?;
    let seeding = Instant::now();
    for n in 0..sessions {
        let key = SessionKey::new(PROJECT, session_id(n));
        store
            .append(&key, &transcript(n, lines)?)
            .await
            .map_err(|e| format!("appending: {e}"))?;
    }
    println!(
        "seeded {sessions} sessions of {lines} lines in {:.1} s",
        seeding.elapsed().as_secs_f64()
    );
    // Where the time goes: the two store calls a listing with summaries makes.
    let (mut summaries_call, mut sessions_call) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let started = Instant::now();
        let summaries = store.list_session_summaries(PROJECT).await;
        summaries_call.push(started.elapsed());
        let started = Instant::now();
        let listed = store.list_sessions(PROJECT).await;
        sessions_call.push(started.elapsed());
        if summaries.map_err(|e| e.to_string())?.len() != sessions
            || listed.map_err(|e| e.to_string())?.len() != sessions
        {
            return Err("the store does not list every session".into());
        }
    }
    let ((summaries_call, _), (sessions_call, _)) = (median(summaries_call), median(sessions_call));
    println!(
        "store calls over {sessions} sessions: list_session_summaries {:.1} ms, list_sessions {:.1} ms (medians)",
        summaries_call.as_secs_f64() * 1e3,
        sessions_call.as_secs_f64() * 1e3
    );
    for (label, summaries) in [("with summaries", true), ("without summaries", false)] {
        let mut times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let store = connect().await?;
            let started = Instant::now();
            let listed = if summaries {
                StoreSessions::new(store, PROJECT)
                    .list(ListPage::new().limit(page))
                    .await
            } else {
                StoreSessions::new(NoSummaries(store), PROJECT)
                    .list(ListPage::new().limit(page))
                    .await
            }
            .map_err(|e| format!("listing: {e}"))?;
            times.push(started.elapsed());
            if listed.len() != page.min(sessions) {
                return Err(format!("a page of {} sessions, not {page}", listed.len()));
            }
        }
        let (median, slowest) = median(times);
        println!(
            "first page of {page} of {sessions} sessions, {label}: median {:.1} ms, slowest {:.1} ms ({rounds} rounds)",
            median.as_secs_f64() * 1e3,
            slowest.as_secs_f64() * 1e3
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut sessions, mut lines, mut page, mut rounds) = (10_000usize, 20usize, 50usize, 20usize);
    let mut url = None;
    while let Some(arg) = args.next() {
        let number = |value: Option<String>| value.and_then(|v| v.parse::<usize>().ok());
        match arg.as_str() {
            "--sessions" => sessions = number(args.next()).unwrap_or(sessions),
            "--lines" => lines = number(args.next()).unwrap_or(lines).max(1),
            "--page" => page = number(args.next()).unwrap_or(page),
            "--rounds" => rounds = number(args.next()).unwrap_or(rounds).max(1),
            "--postgres" => url = args.next(),
            _ => {
                eprintln!(
                    "usage: ct-bench-session-list [--sessions N] [--lines L] [--page P] [--rounds R] [--postgres URL]"
                );
                return ExitCode::from(2);
            }
        }
    }
    // Started on this thread: the cluster is stopped with it (parent-death signal).
    let cluster = match &url {
        Some(_) => None,
        None => match claude_tools_tests::services::Postgres::start() {
            Ok(cluster) => Some(cluster),
            Err(e) => {
                eprintln!("ct-bench-session-list: no PostgreSQL ({e}); give --postgres URL");
                return ExitCode::from(1);
            }
        },
    };
    let url = url
        .or_else(|| cluster.as_ref().map(|c| c.url()))
        .unwrap_or_default();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("ct-bench-session-list: runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(run(&url, sessions, lines, page, rounds)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ct-bench-session-list: {e}");
            ExitCode::from(1)
        }
    }
}
