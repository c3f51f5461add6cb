//! The user-lookup example (`cargo run -p claude-tools-examples --example user_lookup`) through
//! the real CLI and its scripted model, with a stopped clock: the transcript, the `isError`
//! results of the thiserror `LookupError`, and the audit log the tools wrote with each call's
//! `tool_use_id` (taken from their `ToolContext`).

use claude_tools_examples::run::ModelChoice;
use claude_tools_examples::user_lookup::{self, Clock, Directory, Lookup, TOOL_USE_IDS};
use claude_tools_testkit::TempDir;
use serde_json::{Value, json};

use super::examples_tickets::calls;
use super::harness::{cli, tr, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_lookup_example_finds_ada_refuses_zed_and_logs_each_call() {
    let Some(cli) = cli("examples_user_lookup") else {
        return;
    };
    let dir = TempDir::new("e2e-users").expect("temp dir");
    let db = dir.path().join("users.sqlite3");
    // 2023-11-14 22:13:20 UTC.
    let example = user_lookup::example(&db, Clock::fixed_unix(1_700_000_000)).expect("opens");
    let run = within(
        "the user-lookup example",
        example.cli_path(&cli).quiet().run(ModelChoice::Scripted),
    )
    .await
    .expect("the run finishes");
    assert!(run.is_success(), "{:#?}", run.result);
    let [ada, zed, a, time] = TOOL_USE_IDS;

    assert_eq!(
        run.tool_calls(),
        calls(&[
            ("query_user", json!({"query": "ada"})),
            ("query_user", json!({"query": "Zed"})),
            ("query_user", json!({"query": "a"})),
            ("get_time", json!({"user": "ada"})),
        ])
    );
    let server = run.server.as_ref().expect("the scripted model");
    assert!(
        server.proxy_attempts().is_empty(),
        "the CLI tried to go online"
    );
    // The two calls of each turn run concurrently (read-only tools), and the CLI may send their
    // results in the order they finished: compare in id order.
    let mut sent = server.tool_results();
    sent.sort();
    let ids: Vec<&str> = sent.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ids, [a, ada, time, zed]);
    // A `Json<User>` result: compared as JSON (key order depends on serde_json's features).
    let (_, ada_text, ada_error) = &sent[1];
    assert!(!ada_error);
    let ada_json = json!({"handle": "ada", "name": "Ada Lovelace", "email": "ada@example.com",
                          "team": "compilers", "utc_offset": "UTC+00:00"});
    assert_eq!(serde_json::from_str::<Value>(ada_text).unwrap(), ada_json);
    let not_found = "No user matches `Zed`. Try a handle, an email address or part of a name.";
    let ambiguous =
        "`a` matches several users (ada, grace, linus, margaret); ask again with a handle.";
    let ada_time = "For ada it is 22:13 on 2023-11-14 (UTC+00:00).";
    assert_eq!(
        [&sent[0], &sent[2], &sent[3]],
        [
            &tr(a, ambiguous, true),
            &tr(time, ada_time, false),
            &tr(zed, not_found, true),
        ]
    );
    let answer = run.final_text();
    let (ada_line, rest) = answer
        .strip_prefix("Ada: ")
        .and_then(|rest| rest.split_once('\n'))
        .unwrap_or_else(|| panic!("unexpected answer: {answer}"));
    assert_eq!(serde_json::from_str::<Value>(ada_line).unwrap(), ada_json);
    assert_eq!(
        rest,
        format!("{ada_time}\nZed is not in the directory: {not_found}")
    );

    // Every lookup is in the audit log with the id of the call that made it (the two calls of
    // the first turn run concurrently, so their order is not fixed).
    let mut log = Directory::open(&db).unwrap().lookups().unwrap();
    log.sort_by(|x, y| x.tool_use_id.cmp(&y.tool_use_id));
    let entry = |id: &str, query: &str, found: Option<&str>| Lookup {
        tool_use_id: Some(id.to_string()),
        query: query.to_string(),
        found: found.map(str::to_string),
    };
    let mut expected = vec![
        entry(ada, "ada", Some("ada")),
        entry(zed, "Zed", None),
        entry(a, "a", None),
        entry(time, "ada", Some("ada")),
    ];
    expected.sort_by(|x, y| x.tool_use_id.cmp(&y.tool_use_id));
    assert_eq!(log, expected);
}
