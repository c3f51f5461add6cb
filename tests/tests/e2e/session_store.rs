//! Session stores with the real CLI: the transcript mirrored into a store as the CLI wrote it
//! (byte for byte, no frame in the message stream), and a session moved between two hosts
//! sharing one PostgreSQL database — the second, with an empty config dir and another working
//! directory, resumes it from the store alone, and its model and tools see the earlier turns.

use claude_tools::Message;
use claude_tools::options::SessionStoreOptions;
use claude_tools::session_store::{
    InMemorySessionStore, PostgresSessionStore, SessionKey, SessionStore,
};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::model_server::{Script, Turn};
use claude_tools_tests::services::{Postgres, postgres_or_skip};
use serde_json::json;

use super::harness::{result_of, success_text, within, world};
use super::{run_query, tools};

/// The session id of a run.
fn session_id(messages: &[Message]) -> String {
    result_of(messages)["session_id"]
        .as_str()
        .expect("a session id")
        .to_string()
}

/// No `transcript_mirror` frame reached the stream.
fn assert_no_frames(messages: &[Message]) {
    let leaked: Vec<&Message> = messages
        .iter()
        .filter(|m| m.message_type() == "transcript_mirror")
        .collect();
    assert!(leaked.is_empty(), "{leaked:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_gets_the_transcript_as_the_cli_wrote_it() {
    let script = Script::new()
        .turn(Turn::text("Adding.").and_tool_use(
            "toolu_mirror_a",
            "mcp__e2e__counter_add",
            json!({"by": 2}),
        ))
        .turn(Turn::text("Done: {{tool_result}}"));
    let Some(w) = world("the_store_gets_the_transcript_as_the_cli_wrote_it", script).await else {
        return;
    };
    let (server, _lab) = tools::server(40);
    let store = InMemorySessionStore::shared();
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"])
        .session_store(store.clone());
    let live = run_query("add two", options).await;
    assert_eq!(success_text(&live), "Done: counter is now 42");
    assert_no_frames(&live);
    let id = session_id(&live);
    let key = SessionKey::new(SessionKey::project_key_for(&w.cwd), &id);
    assert_eq!(store.keys(), std::slice::from_ref(&key));
    // The stream ended after the last batch: the store holds the lines of the local file, byte
    // for byte, in order.
    let file = w
        .path(".claude/projects")
        .join(&key.project_key)
        .join(format!("{id}.jsonl"));
    let local = std::fs::read_to_string(&file).expect("the CLI's transcript");
    let stored: String = store
        .entries(&key)
        .iter()
        .map(|entry| format!("{}\n", entry.json()))
        .collect();
    // The CLI mirrors every line but its own records of the API requests it made.
    let is_request_record = |line: &&str| {
        serde_json::from_str::<serde_json::Value>(line).expect("a JSON line")["type"]
            .as_str()
            .is_some_and(|t| t.starts_with("api-request"))
    };
    let (records, mirrored): (Vec<&str>, Vec<&str>) = local.lines().partition(is_request_record);
    assert!(
        !records.is_empty(),
        "the CLI wrote no api-request records this time"
    );
    let stored: Vec<&str> = stored.lines().collect();
    assert_eq!(stored, mirrored);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_started_on_one_host_is_resumed_on_another_from_postgres() {
    let test = "a_session_started_on_one_host_is_resumed_on_another_from_postgres";
    if !postgres_or_skip(test) {
        return;
    }
    let script = Script::new()
        .turn(Turn::text("Adding.").and_tool_use(
            "toolu_host_a",
            "mcp__e2e__counter_add",
            json!({"by": 2}),
        ))
        .turn(Turn::text("First host: {{tool_result}}"))
        .turn(Turn::tool_use(
            "toolu_host_b",
            "mcp__e2e__slow_lookup",
            json!({"key": "beta", "ms": 1}),
        ))
        .turn(Turn::text("Second host: {{tool_result}}"));
    let Some(w) = world(test, script).await else {
        return;
    };
    let postgres = Postgres::start().expect("a throwaway PostgreSQL cluster");
    // Hosts name the project alike though they run it in different directories.
    let store_on = |_host: &str| async {
        let store = within("connect", PostgresSessionStore::connect(&postgres.url()))
            .await
            .expect("the store connects");
        SessionStoreOptions::new(store).project_key("tickets")
    };

    // Host A: the world's config dir and working directory.
    let (server_a, lab_a) = tools::server(40);
    let options_a = w
        .options()
        .mcp_server(server_a)
        .allowed_tools(["mcp__e2e__counter_add"])
        .session_store(store_on("a").await);
    let first = run_query("add two", options_a).await;
    assert_eq!(success_text(&first), "First host: counter is now 42");
    assert_no_frames(&first);
    assert_eq!(lab_a.calls().len(), 1);
    let id = session_id(&first);

    // Host B: a config dir and working directory of its own, empty.
    let host_b = TempDir::new("host-b").expect("temp dir");
    let config_b = host_b.path().join(".claude");
    let cwd_b = host_b.path().join("work");
    std::fs::create_dir_all(&cwd_b).expect("cwd");
    assert!(!config_b.exists());
    let (server_b, lab_b) = tools::server(0);
    let options_b = w
        .options()
        .cwd(&cwd_b)
        .env("CLAUDE_CONFIG_DIR", config_b.display().to_string())
        .mcp_server(server_b)
        .allowed_tools(["mcp__e2e__slow_lookup"])
        .session_store(store_on("b").await)
        .resume(&id);
    let second = run_query("now look up beta", options_b).await;
    assert_eq!(success_text(&second), "Second host: value of beta");
    assert_no_frames(&second);
    assert_eq!(session_id(&second), id, "the same session, resumed");
    // Host B's tool ran, in host B's process.
    assert_eq!(lab_b.calls().len(), 1);
    assert_eq!(lab_a.calls().len(), 1);

    // The model, asked on host B, saw host A's turns: its prompt and its tool's result.
    let turns = w.turns();
    assert_eq!(turns.len(), 4, "four model turns");
    for turn in &turns[2..] {
        let body = turn.body.as_ref().expect("a request body").to_string();
        for earlier in [
            "add two",
            "toolu_host_a",
            "counter is now 42",
            "First host: counter is now 42",
        ] {
            assert!(
                body.contains(earlier),
                "host B's request lacks {earlier:?}: {body}"
            );
        }
    }
    assert!(
        turns[3]
            .body
            .as_ref()
            .expect("body")
            .to_string()
            .contains("value of beta"),
        "the last request carries host B's tool result"
    );

    // Host B's turns were mirrored too: the store has the whole session, both hosts' lines.
    let reader = PostgresSessionStore::connect(&postgres.url())
        .await
        .expect("connects");
    let key = SessionKey::new("tickets", &id);
    let stored: String = reader
        .load(&key)
        .await
        .expect("loads")
        .expect("the session")
        .iter()
        .map(|entry| entry.json().to_string())
        .collect();
    for line in [
        "toolu_host_a",
        "counter is now 42",
        "toolu_host_b",
        "value of beta",
    ] {
        assert!(stored.contains(line), "the store lacks {line:?}");
    }
    let listed = reader.list_sessions("tickets").await.expect("lists");
    assert_eq!(
        listed
            .iter()
            .map(|s| s.session_id.as_str())
            .collect::<Vec<_>>(),
        [id.as_str()]
    );
    w.assert_offline();
}
