//! The PostgreSQL session store on a throwaway cluster: lines round-trip byte for byte and in
//! order, a batch sent twice is stored once, sessions and subagent transcripts are listed and
//! deleted, two stores (two hosts) share the table; a bad table name and a database that is gone
//! are errors.

use claude_tools::session_store::{
    PostgresSessionStore, SessionKey, SessionStore, StoreError, TranscriptEntry,
    fold_session_summary,
};
use claude_tools_tests::services::{Postgres, postgres_or_skip};

const A: &str = "0b8f7c2e-1d3a-4c5b-8e9f-0a1b2c3d4e5f";
const B: &str = "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b";

fn entry(json: &str) -> TranscriptEntry {
    TranscriptEntry::from_json(json).expect("a transcript line")
}

async fn lines(store: &dyn SessionStore, key: &SessionKey) -> Option<Vec<String>> {
    store
        .load(key)
        .await
        .expect("loads")
        .map(|entries| entries.iter().map(|e| e.json().to_string()).collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transcripts_round_trip_in_order_once_and_are_listed_and_deleted() {
    if !postgres_or_skip("transcripts_round_trip_in_order_once_and_are_listed_and_deleted") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let host_a = PostgresSessionStore::connect(&postgres.url())
        .await
        .expect("connects");
    // A second host: its own connection, the table already there.
    let host_b = PostgresSessionStore::connect(&postgres.url())
        .await
        .expect("connects");

    let main = SessionKey::new("proj", A);
    let agent = main.clone().with_subpath("subagents/agent-x1");
    // Keys in an odd order, spaces, escapes and non-ASCII: kept as written (text, not jsonb).
    let first = [
        r#"{"uuid":"u1","type":"user","message":{"content":"h\u00e9 é  \"q\""}}"#,
        r#"{"type":"custom-title","customTitle":"Triage"}"#,
        r#"{"type":"assistant","uuid":"u2","z":1,"a":2}"#,
    ];
    let second = [
        r#"{"type":"assistant","uuid":"u2","z":1,"a":2}"#, // sent again: stored once
        r#"{"type":"custom-title","customTitle":"Triage"}"#, // no uuid: appended
        r#"{"type":"user","uuid":"u3"}"#,
    ];
    assert_eq!(lines(&host_a, &main).await, None);
    host_a
        .append(&main, &first.map(entry))
        .await
        .expect("appends");
    host_b
        .append(&main, &second.map(entry))
        .await
        .expect("appends");
    host_b
        .append(&agent, &[entry(r#"{"type":"user","uuid":"u1"}"#)])
        .await
        .expect("appends");
    host_a
        .append(&SessionKey::new("proj", B), &[entry(r#"{"type":"user"}"#)])
        .await
        .expect("appends");
    host_a
        .append(&SessionKey::new("other", A), &[entry(r#"{"type":"user"}"#)])
        .await
        .expect("appends");
    host_a
        .append(&main, &[])
        .await
        .expect("an empty batch is nothing");

    let expected: Vec<String> = [first[0], first[1], first[2], second[1], second[2]]
        .map(String::from)
        .into();
    assert_eq!(lines(&host_b, &main).await, Some(expected));
    assert_eq!(
        lines(&host_a, &agent).await,
        Some(vec![r#"{"type":"user","uuid":"u1"}"#.to_string()])
    );
    // A thousand lines in one batch keep their order.
    let many: Vec<TranscriptEntry> = (0..1000)
        .map(|n| entry(&format!(r#"{{"type":"user","uuid":"m{n}"}}"#)))
        .collect();
    let big = SessionKey::new("bulk", A);
    host_a.append(&big, &many).await.expect("appends");
    let loaded = host_b.load(&big).await.expect("loads").expect("some");
    assert_eq!(loaded, many);

    let mut listed: Vec<String> = host_b
        .list_sessions("proj")
        .await
        .expect("lists")
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    listed.sort();
    assert_eq!(listed, [A, B]);
    assert_eq!(
        host_a.list_subkeys(&main).await.expect("lists"),
        ["subagents/agent-x1"]
    );

    // Deleting the main transcript takes its subagents' too; a subpath only itself.
    host_a.delete(&main).await.expect("deletes");
    assert_eq!(lines(&host_b, &main).await, None);
    assert_eq!(lines(&host_b, &agent).await, None);
    assert_eq!(
        lines(&host_b, &SessionKey::new("other", A))
            .await
            .map(|l| l.len()),
        Some(1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_table_name_and_an_unreachable_database_are_errors() {
    if !postgres_or_skip("a_bad_table_name_and_an_unreachable_database_are_errors") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let bad = PostgresSessionStore::connect_to_table(&postgres.url(), "x; DROP TABLE y").await;
    assert!(matches!(bad, Err(StoreError::Backend(_))), "{bad:?}");
    let store = PostgresSessionStore::connect_to_table(&postgres.url(), "public.lines_2")
        .await
        .expect("a schema-qualified table");
    let key = SessionKey::new("p", A);
    store
        .append(&key, &[entry(r#"{"type":"user","uuid":"u"}"#)])
        .await
        .expect("appends");
    let url = postgres.url();
    drop(postgres);
    // The database is gone: an error, not a panic or a hang.
    let failed = store.append(&key, &[entry(r#"{"type":"user"}"#)]).await;
    assert!(matches!(failed, Err(StoreError::Backend(_))), "{failed:?}");
    assert!(PostgresSessionStore::connect(&url).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_running_summary_is_the_fold_of_every_batch() {
    if !postgres_or_skip("the_running_summary_is_the_fold_of_every_batch") {
        return;
    }
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    let store = PostgresSessionStore::connect(&postgres.url())
        .await
        .expect("connects");
    let key = SessionKey::new("proj", A);
    // Set-once fields in the first batch and again later, last-wins fields moving, a tag set
    // and cleared, a command before the first prompt, a relocation.
    let batches: [&[&str]; 4] = [
        &[
            r#"{"type":"user","uuid":"c","cwd":"/w/one","gitBranch":"a","timestamp":"2026-01-02T03:04:05.006Z","message":{"content":"<command-name>/init</command-name>"}}"#,
            r#"{"type":"tag","tag":"red"}"#,
        ],
        &[
            r#"{"type":"user","uuid":"p","cwd":"/w/two","gitBranch":"b","timestamp":"2026-01-03T00:00:00.000Z","message":{"content":"fix the build"}}"#,
            r#"{"type":"ai-title","aiTitle":"Build"}"#,
        ],
        &[
            r#"{"type":"user","uuid":"q","message":{"content":"and the tests"}}"#,
            r#"{"type":"tag","tag":""}"#,
            r#"{"type":"custom-title","customTitle":"Build fix"}"#,
        ],
        &[r#"{"type":"relocated","relocatedCwd":"/w/moved"}"#],
    ];
    let mut folded = None;
    for batch in batches {
        let entries: Vec<TranscriptEntry> = batch.iter().map(|l| entry(l)).collect();
        store.append(&key, &entries).await.expect("appends");
        folded = Some(fold_session_summary(folded, &key, &entries, None));
        let stored = store
            .list_session_summaries("proj")
            .await
            .expect("summaries");
        assert_eq!(stored.len(), 1);
        assert_eq!(stored[0].data, folded.as_ref().expect("folded").data);
    }
    let stored = store
        .list_session_summaries("proj")
        .await
        .expect("summaries");
    let info = stored[0].info(None).expect("an info");
    assert_eq!(info.summary, "Build fix");
    assert_eq!(info.first_prompt.as_deref(), Some("fix the build"));
    assert_eq!(info.tag, None);
    assert_eq!(info.cwd.as_deref(), Some(std::path::Path::new("/w/moved")));
    assert_eq!(info.git_branch.as_deref(), Some("b"));
    // The summary's time is the listing's.
    let listed = store.list_sessions("proj").await.expect("lists");
    assert_eq!(listed[0].modified, stored[0].mtime);
    // Subagents' appends leave it alone; deleting the session removes it.
    store
        .append(
            &key.clone().with_subpath("subagents/agent-1"),
            &[entry(r#"{"type":"user","isSidechain":true,"uuid":"s"}"#)],
        )
        .await
        .expect("appends");
    assert_eq!(
        store
            .list_session_summaries("proj")
            .await
            .expect("summaries")[0]
            .data,
        stored[0].data
    );
    store.delete(&key).await.expect("deletes");
    assert!(
        store
            .list_session_summaries("proj")
            .await
            .expect("summaries")
            .is_empty()
    );
    assert!(store.list_sessions("proj").await.expect("lists").is_empty());
}
