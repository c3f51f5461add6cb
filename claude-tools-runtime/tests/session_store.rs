//! Session stores against a scripted CLI: the `transcript_mirror` frames are taken off the
//! message stream and reach the store in batches, in order, without holding the session up; a
//! failing store is reported and loses nothing; the bound; the last lines before the stream
//! ends; resuming writes the stored transcript before the CLI starts.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::Message;
use claude_tools_runtime::options::{Options, SessionStoreFlush, SessionStoreOptions};
use claude_tools_runtime::session_store::{
    InMemorySessionStore, MirrorError, SessionKey, SessionStore, StoreError, StoreFuture,
    TranscriptEntry,
};
use claude_tools_runtime::transport::MemoryTransport;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

mod common;

use common::{Cli, Connecting, WAIT, connect_answering_initialize, next_item, result_frame};

const SESSION: &str = "6a1f0c3e-2b4d-4e8f-9a0b-1c2d3e4f5a6b";

/// A config dir and working directory of the test's own, removed at the end.
struct Dirs {
    root: PathBuf,
}

impl Dirs {
    fn new(test: &str) -> Dirs {
        let root = std::env::temp_dir().join(format!("ct-store-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("work")).unwrap();
        Dirs { root }
    }
    fn config(&self) -> PathBuf {
        self.root.join("config")
    }
    fn cwd(&self) -> PathBuf {
        std::fs::canonicalize(self.root.join("work")).unwrap()
    }
    fn options(&self) -> Options {
        Options::new()
            .cwd(self.cwd())
            .env("CLAUDE_CONFIG_DIR", self.config().display().to_string())
    }
    fn project(&self) -> String {
        SessionKey::project_key_for(self.cwd())
    }
    /// Where the CLI writes the transcript `session` (with `sub`, a subagent's).
    fn transcript(&self, session: &str, sub: Option<&str>) -> PathBuf {
        let project = self.config().join("projects").join(self.project());
        match sub {
            None => project.join(format!("{session}.jsonl")),
            Some(sub) => project.join(session).join(format!("{sub}.jsonl")),
        }
    }
}

impl Drop for Dirs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// A transcript line with a uuid.
fn line(uuid: &str) -> Value {
    json!({"parentUuid": null, "type": "user", "message": {"role": "user", "content": uuid},
        "uuid": uuid, "sessionId": SESSION})
}

/// A `transcript_mirror` frame for `file`.
fn frame(file: &Path, entries: &[Value]) -> Value {
    json!({"type": "transcript_mirror", "filePath": file, "entries": entries})
}

fn assistant(text: &str) -> Value {
    json!({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        "parent_tool_use_id": null, "session_id": SESSION})
}

/// The uuids of a transcript in a store.
async fn uuids(store: &dyn SessionStore, key: &SessionKey) -> Vec<String> {
    store
        .load(key)
        .await
        .unwrap()
        .unwrap_or_default()
        .iter()
        .map(|e| e.uuid().unwrap_or("-").to_string())
        .collect()
}

/// Waits (bounded) until the transcript `key` holds `count` lines.
async fn wait_for_lines(store: &dyn SessionStore, key: &SessionKey, count: usize) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while uuids(store, key).await.len() < count {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{count} lines never reached the store"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Reads the stream up to its next `result`, returning what came (errors fail the test).
async fn until_result(client: &mut Client) -> Vec<Message> {
    let mut seen = Vec::new();
    loop {
        let message = next_item(client)
            .await
            .expect("the stream goes on")
            .expect("no error");
        let done = message.is_result();
        seen.push(message);
        if done {
            return seen;
        }
    }
}

fn mirror_errors(messages: &[Message]) -> Vec<MirrorError> {
    messages
        .iter()
        .filter_map(MirrorError::from_message)
        .collect()
}

/// A store in memory whose appends wait for permits (a slow store), or fail while `failures`
/// is above zero; it records each batch's size.
#[derive(Default)]
struct TestStore {
    inner: InMemorySessionStore,
    gate: Option<Semaphore>,
    failures: AtomicUsize,
    batches: Mutex<Vec<usize>>,
}

impl TestStore {
    fn gated() -> TestStore {
        TestStore {
            gate: Some(Semaphore::new(0)),
            ..TestStore::default()
        }
    }
    fn failing(times: usize) -> TestStore {
        TestStore {
            failures: AtomicUsize::new(times),
            ..TestStore::default()
        }
    }
    fn open(&self) {
        if let Some(gate) = &self.gate {
            gate.add_permits(Semaphore::MAX_PERMITS / 2);
        }
    }
    fn batches(&self) -> Vec<usize> {
        self.batches.lock().unwrap().clone()
    }
}

impl SessionStore for TestStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [TranscriptEntry],
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if let Some(gate) = &self.gate {
                gate.acquire().await.unwrap().forget();
            }
            let failed = self
                .failures
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                .is_ok();
            if failed {
                return Err(StoreError::backend("the database is down"));
            }
            self.batches.lock().unwrap().push(entries.len());
            self.inner.append(key, entries).await
        })
    }
    fn load<'a>(&'a self, key: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        self.inner.load(key)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_never_reach_the_stream_and_are_appended_in_batches_at_each_result() {
    let dirs = Dirs::new("batches");
    let store = Arc::new(TestStore::default());
    let (mut client, mut cli) =
        connect_answering_initialize(dirs.options().session_store(store.clone())).await;
    assert!(
        cli.0
            .launch_spec()
            .unwrap()
            .args
            .contains(&"--session-mirror".to_string())
    );
    let main = dirs.transcript(SESSION, None);
    let agent = dirs.transcript(SESSION, Some("subagents/agent-a1"));
    cli.send(frame(&main, &[line("u1"), line("u2")])).await;
    cli.send(assistant("working")).await;
    cli.send(frame(&agent, &[line("s1")])).await;
    cli.send(frame(&main, &[line("u3")])).await;
    cli.send(result_frame()).await;
    let seen = until_result(&mut client).await;
    let types: Vec<&str> = seen.iter().map(Message::message_type).collect();
    assert_eq!(types, ["assistant", "result"], "{seen:#?}");

    let key = SessionKey::new(dirs.project(), SESSION);
    wait_for_lines(&*store, &key, 3).await;
    assert_eq!(uuids(&*store, &key).await, ["u1", "u2", "u3"]);
    let agent_key = key.clone().with_subpath("subagents/agent-a1");
    wait_for_lines(&*store, &agent_key, 1).await;
    // One batch per transcript at the result, not one per frame.
    let mut batches = store.batches();
    batches.sort();
    assert_eq!(batches, [1, 3]);
    // The lines are the CLI's bytes.
    let stored = store.inner.entries(&key);
    assert_eq!(stored[0].json(), line("u1").to_string());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eager_flush_appends_after_every_frame() {
    let dirs = Dirs::new("eager");
    let store = Arc::new(TestStore::default());
    let options = dirs
        .options()
        .session_store(SessionStoreOptions::new(store.clone()).flush(SessionStoreFlush::Eager));
    let (_client, mut cli) = connect_answering_initialize(options).await;
    let main = dirs.transcript(SESSION, None);
    let key = SessionKey::new(dirs.project(), SESSION);
    cli.send(frame(&main, &[line("u1")])).await;
    wait_for_lines(&*store, &key, 1).await;
    cli.send(frame(&main, &[line("u2")])).await;
    wait_for_lines(&*store, &key, 2).await;
    assert_eq!(store.batches(), [1, 1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_store_does_not_hold_the_session_up() {
    let dirs = Dirs::new("slow");
    let store = Arc::new(TestStore::gated());
    let (mut client, mut cli) =
        connect_answering_initialize(dirs.options().session_store(store.clone())).await;
    let main = dirs.transcript(SESSION, None);
    // Three turns, each past the early-flush threshold, while the store answers nothing.
    for turn in 0..3 {
        let lines: Vec<Value> = (0..600).map(|n| line(&format!("t{turn}-{n}"))).collect();
        cli.send(frame(&main, &lines)).await;
        cli.send(assistant(&format!("turn {turn}"))).await;
        cli.send(result_frame()).await;
        let seen = until_result(&mut client).await;
        assert_eq!(seen.len(), 2, "{seen:#?}");
    }
    assert_eq!(store.batches(), Vec::<usize>::new());
    store.open();
    let key = SessionKey::new(dirs.project(), SESSION);
    wait_for_lines(&*store, &key, 1800).await;
    let expected: Vec<String> = (0..3)
        .flat_map(|t| (0..600).map(move |n| format!("t{t}-{n}")))
        .collect();
    assert_eq!(uuids(&*store, &key).await, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_store_is_reported_keeps_the_batch_and_loses_nothing() {
    let dirs = Dirs::new("failing");
    // One round: three attempts, all failing; the next round succeeds.
    let store = Arc::new(TestStore::failing(3));
    let (mut client, mut cli) =
        connect_answering_initialize(dirs.options().session_store(store.clone())).await;
    let main = dirs.transcript(SESSION, None);
    cli.send(frame(&main, &[line("u1"), line("u2")])).await;
    cli.send(result_frame()).await;
    until_result(&mut client).await;
    // The report comes in the stream while the session goes on.
    let report = loop {
        let message = next_item(&mut client)
            .await
            .expect("open")
            .expect("no error");
        if let Some(report) = MirrorError::from_message(&message) {
            break report;
        }
    };
    let key = SessionKey::new(dirs.project(), SESSION);
    assert_eq!(report.key.as_ref(), Some(&key));
    assert_eq!(report.session_id, SESSION);
    assert_eq!(report.entries_not_mirrored, 2);
    assert!(report.will_retry, "{report:?}");
    assert!(report.error.contains("the database is down"), "{report:?}");
    assert_eq!(report.file.as_deref(), Some(main.as_path()));
    // The next turn's lines come after the kept batch.
    cli.send(frame(&main, &[line("u3")])).await;
    cli.send(result_frame()).await;
    until_result(&mut client).await;
    wait_for_lines(&*store, &key, 3).await;
    assert_eq!(uuids(&*store, &key).await, ["u1", "u2", "u3"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_bound_a_transcript_stops_being_mirrored_and_what_is_missing_is_reported() {
    let dirs = Dirs::new("bound");
    let store = Arc::new(TestStore::gated());
    let one = line("u0").to_string().len();
    // Room for three lines.
    let options = dirs
        .options()
        .session_store(SessionStoreOptions::new(store.clone()).buffer_limit(3 * one));
    let (mut client, mut cli) = connect_answering_initialize(options).await;
    let main = dirs.transcript(SESSION, None);
    cli.send(frame(&main, &[line("u0"), line("u1")])).await;
    cli.send(frame(&main, &[line("u2")])).await;
    // Past the bound: not queued, reported at once; later lines of the transcript neither.
    cli.send(frame(&main, &[line("u3"), line("u4")])).await;
    cli.send(frame(&main, &[line("u5")])).await;
    cli.send(result_frame()).await;
    let seen = until_result(&mut client).await;
    let reports = mirror_errors(&seen);
    assert_eq!(reports.len(), 1, "{seen:#?}");
    assert_eq!(
        (reports[0].entries_not_mirrored, reports[0].will_retry),
        (2, false)
    );
    assert_eq!(reports[0].file.as_deref(), Some(main.as_path()));
    store.open();
    // The session ends: the store has the whole beginning, and the total is reported.
    cli.0.close();
    // (The CLI exiting with no prompt sent is reported too: an `Err` item, skipped here.)
    let mut rest = Vec::new();
    while let Some(item) = next_item(&mut client).await {
        rest.extend(item.ok());
    }
    let key = SessionKey::new(dirs.project(), SESSION);
    assert_eq!(uuids(&*store, &key).await, ["u0", "u1", "u2"]);
    let totals = mirror_errors(&rest);
    assert_eq!(totals.len(), 1, "{rest:#?}");
    assert_eq!(
        (totals[0].entries_not_mirrored, totals[0].will_retry),
        (3, false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_lines_reach_the_store_before_the_stream_ends() {
    let dirs = Dirs::new("last");
    let store = InMemorySessionStore::shared();
    let (mut client, mut cli) =
        connect_answering_initialize(dirs.options().session_store(store.clone())).await;
    let main = dirs.transcript(SESSION, None);
    // No result: nothing asks for a batch before the end.
    cli.send(frame(&main, &[line("u1"), line("u2")])).await;
    cli.send(assistant("bye")).await;
    cli.0.close();
    while next_item(&mut client).await.is_some() {}
    let key = SessionKey::new(dirs.project(), SESSION);
    assert_eq!(uuids(&*store, &key).await, ["u1", "u2"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frame_outside_the_config_dir_is_reported_not_dropped_silently() {
    let dirs = Dirs::new("outside");
    let store = InMemorySessionStore::shared();
    let (mut client, mut cli) =
        connect_answering_initialize(dirs.options().session_store(store.clone())).await;
    cli.send(frame(
        Path::new("/elsewhere/projects/p/x.jsonl"),
        &[line("u1")],
    ))
    .await;
    cli.send(result_frame()).await;
    let reports = mirror_errors(&until_result(&mut client).await);
    assert_eq!(reports.len(), 1);
    assert_eq!(
        (reports[0].key.as_ref(), reports[0].entries_not_mirrored),
        (None, 1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_writes_the_stored_session_where_the_cli_looks_before_it_starts() {
    let dirs = Dirs::new("resume");
    let store = InMemorySessionStore::shared();
    let key = SessionKey::new(dirs.project(), SESSION);
    let lines: Vec<TranscriptEntry> = ["u1", "u2"]
        .iter()
        .map(|u| TranscriptEntry::from_json(line(u).to_string()).unwrap())
        .collect();
    store.append(&key, &lines).await.unwrap();
    let agent = key.clone().with_subpath("subagents/agent-a1");
    store.append(&agent, &lines[..1]).await.unwrap();
    // The subagent's `.meta.json`, as `import_session` (and the official SDKs) store it.
    let meta = r#"{"type":"agent_metadata","agentType":"general-purpose","toolUseId":"toolu_1"}"#;
    store
        .append(&agent, &[TranscriptEntry::from_json(meta).unwrap()])
        .await
        .unwrap();
    assert!(!dirs.config().exists());

    let options = dirs.options().session_store(store.clone()).resume(SESSION);
    let (transport, cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(options, transport));
    let mut cli = Cli(cli);
    let launch = tokio::time::timeout(WAIT, cli.0.connected())
        .await
        .expect("launched");
    assert!(
        launch.args.contains(&format!("--resume={SESSION}")),
        "{:?}",
        launch.args
    );
    // Before the CLI started, the transcript was where it will look, byte for byte.
    let expected = format!("{}\n{}\n", lines[0].json(), lines[1].json());
    assert_eq!(
        std::fs::read_to_string(dirs.transcript(SESSION, None)).unwrap(),
        expected
    );
    let sub =
        std::fs::read_to_string(dirs.transcript(SESSION, Some("subagents/agent-a1"))).unwrap();
    assert_eq!(
        sub,
        format!("{}\n", lines[0].json()),
        "no agent_metadata line"
    );
    let meta_file = dirs
        .transcript(SESSION, Some("subagents/agent-a1"))
        .with_extension("meta.json");
    let written: Value = serde_json::from_slice(&std::fs::read(meta_file).unwrap()).unwrap();
    assert_eq!(
        written,
        json!({"agentType": "general-purpose", "toolUseId": "toolu_1"})
    );
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    tokio::time::timeout(WAIT, connecting)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continuing_resumes_the_latest_stored_session_that_is_not_a_side_chain() {
    let dirs = Dirs::new("continue");
    let store = InMemorySessionStore::shared();
    let older = "11111111-1111-4111-8111-111111111111";
    let side = "22222222-2222-4222-8222-222222222222";
    let entry = |v: Value| TranscriptEntry::from_json(v.to_string()).unwrap();
    store
        .append(&SessionKey::new(dirs.project(), older), &[entry(line("a"))])
        .await
        .unwrap();
    let mut side_line = line("b");
    side_line["isSidechain"] = json!(true);
    store
        .append(&SessionKey::new(dirs.project(), side), &[entry(side_line)])
        .await
        .unwrap();
    let options = dirs.options().session_store(store).continue_conversation();
    let (connecting, mut cli) = Connecting::start(options);
    let launch = tokio::time::timeout(WAIT, cli.0.connected())
        .await
        .expect("launched");
    assert!(
        launch.args.contains(&format!("--resume={older}")),
        "{:?}",
        launch.args
    );
    assert!(!launch.args.contains(&"--continue".to_string()));
    assert!(dirs.transcript(older, None).is_file());
    let initialize = cli.recv().await;
    cli.answer(&initialize, json!({})).await;
    connecting.client().await;
}

#[tokio::test]
async fn resuming_a_session_the_store_lacks_fails_the_start_with_a_typed_error() {
    let dirs = Dirs::new("lacks");
    let store = InMemorySessionStore::shared();
    let options = dirs.options().session_store(store).resume(SESSION);
    let (transport, cli) = MemoryTransport::pair();
    let error = tokio::time::timeout(WAIT, Client::connect_with(options, transport))
        .await
        .expect("no hang")
        .expect_err("the start fails");
    match &error {
        Error::SessionNotInStore {
            session_id,
            project_key,
        } => {
            assert_eq!(session_id, SESSION);
            assert_eq!(*project_key, dirs.project());
        }
        other => panic!("expected Error::SessionNotInStore, got {other:?}"),
    }
    assert!(error.is_fatal());
    assert!(cli.launch_spec().is_none(), "the CLI was started");
}

/// A store whose loads never answer.
struct Stuck;

impl SessionStore for Stuck {
    fn append<'a>(&'a self, _: &'a SessionKey, _: &'a [TranscriptEntry]) -> StoreFuture<'a, ()> {
        Box::pin(async { Ok(()) })
    }
    fn load<'a>(&'a self, _: &'a SessionKey) -> StoreFuture<'a, Option<Vec<TranscriptEntry>>> {
        Box::pin(std::future::pending())
    }
}

#[tokio::test]
async fn a_store_that_does_not_load_in_time_fails_the_start_with_a_clear_error() {
    let dirs = Dirs::new("stuck");
    let options = dirs
        .options()
        .session_store(SessionStoreOptions::new(Stuck).load_timeout(Duration::from_millis(50)))
        .resume(SESSION);
    let (transport, cli) = MemoryTransport::pair();
    let error = tokio::time::timeout(WAIT, Client::connect_with(options, transport))
        .await
        .expect("no hang")
        .expect_err("the start fails");
    match &error {
        Error::SessionStore {
            session_id,
            message,
        } => {
            assert_eq!(session_id, SESSION);
            assert!(message.contains("did not answer"), "{message}");
        }
        other => panic!("expected Error::SessionStore, got {other:?}"),
    }
    assert!(error.is_fatal());
    // The CLI was never started.
    assert!(cli.launch_spec().is_none());
}
