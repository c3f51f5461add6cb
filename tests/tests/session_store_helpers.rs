//! Past conversations from a session store: sessions a host ran (a `query` with the store,
//! against the scripted fake CLI, which mirrors its transcript lines as the real CLI does) are
//! listed, read, renamed, forked and deleted by another host — its own store handle (its own
//! PostgreSQL connection), another config dir — that never saw them. In memory and in
//! PostgreSQL (the latter skips loudly when PostgreSQL cannot be started, and fails under CI).

use std::path::Path;
use std::time::Duration;

use claude_tools::session_store::{
    InMemorySessionStore, ListPage, PostgresSessionStore, SessionKey, SessionStore, StoreSessions,
};
use claude_tools::sessions::{ForkSession, HistoryError, ReadMessages};
use claude_tools::{Message, Options, query};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::fake_cli::{FakeScript, canned};
use claude_tools_tests::services::{Postgres, postgres_or_skip};
use serde_json::{Value, json};

mod common;

use common::Fake;

const FIRST: &str = "6a1f3e2d-4c5b-4a69-8e7f-1a2b3c4d5e6f";
const SECOND: &str = "7b2e4f3a-5d6c-4b7a-9f8e-2b3c4d5e6f7a";

/// The transcript lines of a one-turn session, as the CLI writes them.
fn lines(session: &str, prompt: &str, answer: &str, cwd: &Path) -> Vec<Value> {
    let (user, assistant) = (
        format!("{}-0000-4000-8000-00000000000{}", &session[..8], 1),
        format!("{}-0000-4000-8000-00000000000{}", &session[..8], 2),
    );
    vec![
        json!({"parentUuid": null, "isSidechain": false, "type": "user", "cwd": cwd,
            "sessionId": session, "gitBranch": "main", "timestamp": "2026-11-29T10:00:00.000Z",
            "message": {"role": "user", "content": prompt}, "uuid": user}),
        json!({"parentUuid": user, "isSidechain": false, "type": "assistant", "cwd": cwd,
            "sessionId": session, "gitBranch": "main", "timestamp": "2026-11-29T10:00:01.000Z",
            "message": {"id": format!("msg_{}", &session[..8]), "type": "message", "role": "assistant",
                "model": "claude-opus-5-5", "content": [{"type": "text", "text": answer}]},
            "uuid": assistant}),
    ]
}

/// The fake CLI's side of one prompt: the transcript mirrored (main and one subagent), then
/// the answer and the result.
fn script(session: &str, prompt: &str, answer: &str, config: &Path, cwd: &Path) -> FakeScript {
    let folder = SessionKey::project_key_for(cwd);
    let project = config.join("projects").join(&folder);
    let main = project.join(format!("{session}.jsonl"));
    let agent = project
        .join(session)
        .join("subagents")
        .join("agent-b1.jsonl");
    let agent_line = json!({"parentUuid": null, "isSidechain": true, "type": "user",
        "agentId": "b1", "sessionId": session, "message": {"role": "user", "content": "count"},
        "uuid": format!("{}-0000-4000-8000-0000000000a1", &session[..8])});
    canned::expect_initialize()
        .then(canned::reply_initialize())
        .then(canned::expect_user_message(json!(prompt)))
        .send(json!({"type": "transcript_mirror", "filePath": main, "entries": lines(session, prompt, answer, cwd)}))
        .send(json!({"type": "transcript_mirror", "filePath": agent, "entries": [agent_line]}))
        .then(canned::assistant_text(answer))
        .then(canned::result(answer))
        .expect_eof(Duration::from_secs(10))
}

/// Host A: runs one prompt with the store, its transcript mirrored into it.
async fn run_on_host_a(
    store: impl SessionStore + 'static,
    session: &str,
    prompt: &str,
    answer: &str,
) {
    let home = TempDir::new("host-a").expect("a temp dir");
    let config = home.path().join("config");
    let cwd = Path::new("/srv/past-conversations");
    let fake = Fake::new(script(session, prompt, answer, &config, cwd));
    let options: Options = fake
        .options()
        .cwd(home.path())
        .env("CLAUDE_CONFIG_DIR", config.display().to_string())
        .session_store(
            claude_tools::options::SessionStoreOptions::new(store)
                .project_key(SessionKey::project_key_for(cwd)),
        );
    let mut stream = query(prompt, options).await.expect("starts");
    let mut messages = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(message) = stream.next().await {
            messages.push(message.expect("no error"));
        }
    })
    .await
    .expect("the session ended");
    assert!(
        messages.iter().any(|m| matches!(m, Message::Result(_))),
        "{messages:#?}"
    );
}

/// Host B: never ran anything; reads, renames, forks and deletes from its own store handle.
async fn past_conversations_on_host_b(store: impl SessionStore + 'static) {
    let sessions = StoreSessions::for_dir(store, "/srv/past-conversations");
    let listed = sessions.list(ListPage::new()).await.expect("lists");
    let ids: Vec<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [SECOND, FIRST], "newest first");
    assert_eq!(listed[1].summary, "what did we decide about billing?");
    assert_eq!(listed[1].git_branch.as_deref(), Some("main"));
    let first_page = sessions
        .list(ListPage::new().limit(1))
        .await
        .expect("a page");
    assert_eq!(first_page.len(), 1);
    assert_eq!(first_page[0].session_id, SECOND);

    let messages = sessions
        .messages(FIRST, &ReadMessages::new())
        .await
        .expect("reads");
    let texts: Vec<String> = messages
        .iter()
        .map(|m| match m {
            Message::User(user) => format!("user: {}", user.text()),
            Message::Assistant(assistant) => format!("assistant: {}", assistant.text()),
            other => format!("other: {}", other.to_value()),
        })
        .collect();
    assert_eq!(
        texts,
        [
            "user: what did we decide about billing?",
            "assistant: Monthly invoices."
        ]
    );
    assert_eq!(sessions.subagents(FIRST).await.expect("subagents"), ["b1"]);
    let agent = sessions
        .subagent_messages(FIRST, "b1", &ReadMessages::new())
        .await
        .expect("the subagent's messages");
    assert_eq!(agent.len(), 1);

    sessions.rename(FIRST, "Billing").await.expect("renames");
    let fork = sessions
        .fork(FIRST, &ForkSession::new())
        .await
        .expect("forks");
    let listed = sessions.list(ListPage::new()).await.expect("lists");
    let shown: Vec<(&str, &str)> = listed
        .iter()
        .map(|s| (s.session_id.as_str(), s.summary.as_str()))
        .collect();
    assert_eq!(
        shown,
        [
            (fork.as_str(), "Billing (fork)"),
            (FIRST, "Billing"),
            (SECOND, "and the refunds?")
        ]
    );
    sessions.delete(FIRST).await.expect("deletes");
    assert!(matches!(
        sessions.messages(FIRST, &ReadMessages::new()).await,
        Err(HistoryError::NotInStore { .. })
    ));
    assert!(matches!(sessions.subagents(FIRST).await.as_deref(), Ok([])));
    let left: Vec<String> = sessions
        .list(ListPage::new())
        .await
        .expect("lists")
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(left, [fork, SECOND.to_string()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_conversations_from_an_in_memory_store() {
    let store = InMemorySessionStore::shared();
    run_on_host_a(
        store.clone(),
        FIRST,
        "what did we decide about billing?",
        "Monthly invoices.",
    )
    .await;
    run_on_host_a(store.clone(), SECOND, "and the refunds?", "Within 30 days.").await;
    past_conversations_on_host_b(store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_conversations_from_postgresql() {
    if !postgres_or_skip("past_conversations_from_postgresql") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let host_a = PostgresSessionStore::connect(&postgres.url())
        .await
        .expect("connects");
    run_on_host_a(
        host_a,
        FIRST,
        "what did we decide about billing?",
        "Monthly invoices.",
    )
    .await;
    let host_a = PostgresSessionStore::connect(&postgres.url())
        .await
        .expect("connects");
    run_on_host_a(host_a, SECOND, "and the refunds?", "Within 30 days.").await;
    // Host B: a connection of its own.
    let host_b = PostgresSessionStore::connect(&postgres.url())
        .await
        .expect("connects");
    past_conversations_on_host_b(host_b).await;
}
