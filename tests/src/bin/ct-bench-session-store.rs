//! `ct-bench-session-store` (in the tests crate for its throwaway PostgreSQL cluster): transcript lines mirrored per second into a session store (issue
//! 23), in memory and in PostgreSQL.
//!
//! `ct-bench-session-store [--lines N] [--postgres URL]` (default 100000 lines; without a URL, a
//! throwaway PostgreSQL cluster is started from the machine's packages, as the tests do) runs a
//! `Client` session against a CLI played in this process over the in-memory transport. The CLI
//! writes `transcript_mirror` frames of 4 lines each (about 1.2 KiB a line, the size of an
//! assistant message line of the real CLI's), with a `result` every 50 frames, as fast as the
//! session reads them; the application reads the message stream. Reported per store: the time
//! the session took to pass every frame (the stream's `result`s read), the time until the store
//! holds every line, and lines per second over the latter.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use claude_tools::session_store::{
    InMemorySessionStore, MirrorError, PostgresSessionStore, SessionKey, SessionStore, StoreFuture,
    TranscriptEntry,
};
use claude_tools_runtime::client::Client;
use claude_tools_runtime::options::{Options, SessionStoreOptions};
use claude_tools_runtime::transport::MemoryTransport;
use serde_json::{Value, json};

const SESSION: &str = "5d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a";
const PER_FRAME: usize = 4;
const FRAMES_PER_TURN: usize = 50;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut lines = 100_000usize;
    let mut url = None;
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--lines", Some(n)) if n.parse::<usize>().is_ok() => {
                lines = n.parse().unwrap_or(lines)
            }
            ("--postgres", Some(u)) => url = Some(u),
            _ => {
                eprintln!("usage: ct-bench-session-store [--lines N] [--postgres URL]");
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
                eprintln!("ct-bench-session-store: no PostgreSQL ({e}); give --postgres URL");
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
            eprintln!("ct-bench-session-store: runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async {
        println!(
            "{}",
            run("in-memory", InMemorySessionStore::new(), lines).await?
        );
        let postgres = PostgresSessionStore::connect(&url)
            .await
            .map_err(|e| format!("connecting to PostgreSQL: {e}"))?;
        println!("{}", run("postgresql", postgres, lines).await?);
        Ok::<(), String>(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ct-bench-session-store: {e}");
            ExitCode::from(1)
        }
    }
}

/// A store that counts the lines it took.
struct Counting<S> {
    inner: S,
    lines: AtomicUsize,
    batches: AtomicUsize,
}

impl<S: SessionStore> SessionStore for Counting<S> {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [TranscriptEntry],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.inner.append(key, entries).await?;
            self.lines.fetch_add(entries.len(), Ordering::Relaxed);
            self.batches.fetch_add(1, Ordering::Relaxed);
            Ok(())
        })
    }
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        self.inner.load(key)
    }
}

/// One transcript line the size of a real assistant line.
fn line(n: usize) -> Value {
    json!({"parentUuid": format!("p-{n}"), "isSidechain": false, "type": "assistant",
        "message": {"id": "msg_bench", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
            "content": [{"type": "text", "text": "x".repeat(700)}], "stop_reason": null,
            "usage": {"input_tokens": 18246, "output_tokens": 12}},
        "uuid": format!("00000000-0000-4000-8000-{n:012}"), "timestamp": "2026-11-27T11:31:23.644Z",
        "userType": "external", "entrypoint": "sdk-cli", "cwd": "/srv/app", "sessionId": SESSION,
        "version": "2.1.332", "gitBranch": "main"})
}

async fn run<S: SessionStore + 'static>(
    name: &str,
    store: S,
    lines: usize,
) -> Result<String, String> {
    let root = std::env::temp_dir().join(format!("ct-bench-store-{}-{name}", std::process::id()));
    let config = root.join("config");
    let cwd = root.join("work");
    std::fs::create_dir_all(&cwd).map_err(|e| e.to_string())?;
    let cwd = std::fs::canonicalize(&cwd).map_err(|e| e.to_string())?;
    let store = Arc::new(Counting {
        inner: store,
        lines: AtomicUsize::new(0),
        batches: AtomicUsize::new(0),
    });
    let options = Options::new()
        .cwd(&cwd)
        .env("CLAUDE_CONFIG_DIR", config.display().to_string())
        // Room for every line: the figure is the store's rate, not the bound's (with the default
        // 64 MiB bound, PostgreSQL fell that far behind this CLI, which writes far faster than a
        // real one, and the transcript stopped being mirrored, as documented).
        .session_store(SessionStoreOptions::new(store.clone()).buffer_limit(1 << 30));
    let file = config
        .join("projects")
        .join(SessionKey::project_key_for(&cwd))
        .join(format!("{SESSION}.jsonl"));
    let (transport, mut cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(options, transport));
    let initialize = cli
        .next_json()
        .await
        .map_err(|e| e.to_string())?
        .ok_or("no initialize")?;
    cli.write_json(
        &json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": initialize["request_id"], "response": {}}}),
    )
    .await
    .map_err(|e| e.to_string())?;
    let mut client = connecting
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let frames = lines.div_ceil(PER_FRAME);
    let turns = frames.div_ceil(FRAMES_PER_TURN);
    let result = json!({"type": "result", "subtype": "success", "is_error": false, "duration_ms": 1,
        "duration_api_ms": 1, "num_turns": 1, "session_id": SESSION, "result": "", "total_cost_usd": 0.0,
        "usage": {}});
    let start = Instant::now();
    let writer = tokio::spawn(async move {
        let mut n = 0;
        for frame in 0..frames {
            let entries: Vec<Value> = (0..PER_FRAME)
                .map(|_| {
                    n += 1;
                    line(n)
                })
                .collect();
            let frame_json =
                json!({"type": "transcript_mirror", "filePath": file, "entries": entries});
            if cli.write_json(&frame_json).await.is_err() {
                return cli;
            }
            if (frame + 1) % FRAMES_PER_TURN == 0 || frame + 1 == frames {
                let _ = cli.write_json(&result).await;
            }
        }
        cli
    });
    let mut results = 0;
    while results < turns {
        match client.next_message().await {
            Some(Ok(message)) if message.is_result() => results += 1,
            Some(Ok(message)) => {
                if let Some(failure) = MirrorError::from_message(&message) {
                    return Err(format!("{name}: {failure:?}"));
                }
            }
            Some(Err(error)) => return Err(format!("{name}: {error}")),
            None => return Err("the session ended early".into()),
        }
    }
    let session_time = start.elapsed();
    let total = frames * PER_FRAME;
    let deadline = Instant::now() + Duration::from_secs(600);
    while store.lines.load(Ordering::Relaxed) < total {
        if Instant::now() > deadline {
            return Err(format!(
                "{name}: the store did not get every line within 10 minutes"
            ));
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let store_time = start.elapsed();
    let cli = writer.await.map_err(|e| e.to_string())?;
    drop(cli);
    drop(client);
    let _ = std::fs::remove_dir_all(&root);
    Ok(format!(
        "{name}: {total} lines in {} batches; session passed every frame in {:.3} s, the store \
         held every line after {:.3} s: {:.0} lines/s mirrored",
        store.batches.load(Ordering::Relaxed),
        session_time.as_secs_f64(),
        store_time.as_secs_f64(),
        total as f64 / store_time.as_secs_f64()
    ))
}
