//! Session history (`claude_tools::sessions`) over what the real CLI wrote: a session with
//! parallel in-process tool calls, persisted to the world's config dir, then listed, read as
//! typed messages, renamed, tagged, forked, the fork resumed (calling a tool again) and the
//! source deleted.

use std::collections::BTreeSet;

use claude_tools::sessions::{
    ForkSession, HistoryError, ListSessions, Lookup, ReadMessages, delete_session, fork_session,
    list_sessions, list_subagents, rename_session, session_info, session_messages,
    subagent_messages, tag_session,
};
use claude_tools::{Client, Message};
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::{Value, json};

use super::harness::{dump, result_of, success_text, tool_uses, within, world};
use super::{run_query, tools};

/// `(tool_use_id, tool name)` of every tool call among `messages`.
fn calls(messages: &[Message]) -> BTreeSet<(String, String)> {
    tool_uses(messages)
        .into_iter()
        .map(|(id, name, _)| (id, name))
        .collect()
}

/// `(tool_use_id, result text)` of every tool result among `messages`.
fn results(messages: &[Message]) -> BTreeSet<(String, String)> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::User(user) => Some(user),
            _ => None,
        })
        .flat_map(|user| {
            user.tool_results()
                .map(|(id, content, _)| {
                    let text = content.map(|c| c.text()).unwrap_or_default();
                    (id.to_string(), text)
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_listed_read_renamed_tagged_forked_resumed_and_deleted() {
    let script = Script::new()
        .turn(
            Turn::text("Looking up and adding.")
                .and_tool_use(
                    "toolu_hist_a",
                    "mcp__e2e__slow_lookup",
                    json!({"key": "alpha", "ms": 10}),
                )
                .and_tool_use("toolu_hist_b", "mcp__e2e__counter_add", json!({"by": 2})),
        )
        .turn(Turn::text(
            "Done: {{tool_result:toolu_hist_a}}; {{tool_result:toolu_hist_b}}",
        ))
        .turn(Turn::tool_use(
            "toolu_hist_c",
            "mcp__e2e__counter_add",
            json!({"by": 3}),
        ))
        .turn(Turn::text("Resumed: {{tool_result}}"));
    let Some(w) = world(
        "sessions_are_listed_read_renamed_tagged_forked_resumed_and_deleted",
        script,
    )
    .await
    else {
        return;
    };
    let (server, lab) = tools::server(40);
    let tools = ["mcp__e2e__slow_lookup", "mcp__e2e__counter_add"];
    let options = w.options().mcp_server(server).allowed_tools(tools);
    let live = run_query("look up alpha and add two", options).await;
    assert_eq!(
        success_text(&live),
        "Done: value of alpha; counter is now 42"
    );
    let id = result_of(&live)["session_id"]
        .as_str()
        .expect("a session id")
        .to_string();

    // Where the session was recorded, from the options it ran with (cwd, CLAUDE_CONFIG_DIR).
    let lookup = Lookup::from(&w.options());
    assert_eq!(
        lookup,
        Lookup::new().dir(&w.cwd).config_dir(w.path(".claude"))
    );
    let read = ReadMessages::new().lookup(&lookup);
    let list = ListSessions::new().lookup(&lookup);

    // Listed, with what the transcript says.
    let listed = list_sessions(&list).expect("list");
    assert_eq!(
        listed
            .iter()
            .map(|s| s.session_id.as_str())
            .collect::<Vec<_>>(),
        [id.as_str()],
        "{listed:#?}"
    );
    let info = session_info(&id, &lookup)
        .expect("info")
        .expect("a session with a prompt");
    assert_eq!(info, listed[0]);
    assert_eq!(
        info.first_prompt.as_deref(),
        Some("look up alpha and add two")
    );
    assert_eq!(info.summary, "look up alpha and add two");
    assert_eq!(info.custom_title, None);
    assert_eq!(info.tag, None);
    assert_eq!(
        info.cwd.as_deref(),
        Some(std::fs::canonicalize(&w.cwd).expect("cwd").as_path())
    );
    assert!(
        info.file_size.is_some_and(|size| size > 0) && info.created_at.is_some(),
        "{info:#?}"
    );
    // Also found without a project dir (every project searched).
    let anywhere = Lookup::new().config_dir(w.path(".claude"));
    assert_eq!(
        session_info(&id, &anywhere).expect("info"),
        Some(info.clone())
    );

    // The conversation, typed: the prompt, both parallel calls and both results, the answer.
    let history = session_messages(&id, &read).expect("messages");
    let first = history.first().expect("messages");
    match first {
        Message::User(user) => assert_eq!(user.text(), "look up alpha and add two"),
        other => panic!("the first message is the prompt, not {other:#?}"),
    }
    assert!(history.iter().all(|m| m.session_id() == Some(id.as_str())));
    assert!(history.iter().all(|m| m.uuid().is_some()));
    let expected_calls: BTreeSet<(String, String)> = [
        ("toolu_hist_a", "mcp__e2e__slow_lookup"),
        ("toolu_hist_b", "mcp__e2e__counter_add"),
    ]
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .into();
    assert_eq!(calls(&history), expected_calls, "{:#?}", dump(&history));
    assert_eq!(calls(&history), calls(&live));
    assert_eq!(
        results(&history),
        [
            ("toolu_hist_a", "value of alpha"),
            ("toolu_hist_b", "counter is now 42")
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .into()
    );
    let last = history
        .last()
        .and_then(Message::as_assistant)
        .expect("the answer last");
    assert_eq!(last.text(), "Done: value of alpha; counter is now 42");
    // Every call comes before its result.
    let position = |pred: &dyn Fn(&Message) -> bool| history.iter().position(pred);
    for (call, _) in &expected_calls {
        let called = position(&|m| {
            calls(std::slice::from_ref(m))
                .iter()
                .any(|(c, _)| c == call)
        });
        let answered = position(&|m| {
            results(std::slice::from_ref(m))
                .iter()
                .any(|(c, _)| c == call)
        });
        assert!(called < answered, "{call}: {:#?}", dump(&history));
    }
    // Paging.
    let page = session_messages(&id, &read.clone().offset(1).limit(2)).expect("a page");
    assert_eq!(dump(&page), dump(&history[1..3]));
    assert_eq!(
        list_subagents(&id, &lookup).expect("subagents"),
        Vec::<String>::new()
    );

    // Renamed and tagged: the last line appended wins.
    rename_session(&id, "  First try  ", &lookup).expect("rename");
    rename_session(&id, "History e2e", &lookup).expect("rename again");
    tag_session(&id, Some("\u{200b}e2e"), &lookup).expect("tag");
    let info = session_info(&id, &lookup).expect("info").expect("some");
    assert_eq!(
        (
            info.custom_title.as_deref(),
            info.summary.as_str(),
            info.tag.as_deref()
        ),
        (Some("History e2e"), "History e2e", Some("e2e"))
    );
    tag_session(&id, None, &lookup).expect("clear the tag");
    assert_eq!(
        session_info(&id, &lookup).expect("info").expect("some").tag,
        None
    );

    // Forked: the same conversation under new ids.
    let fork = fork_session(
        &id,
        &ForkSession::new().dir(&w.cwd).config_dir(w.path(".claude")),
    )
    .expect("fork");
    assert_ne!(fork, id);
    let forked = session_messages(&fork, &read).expect("the fork's messages");
    assert_eq!(forked.len(), history.len());
    assert_eq!(calls(&forked), calls(&history));
    assert_eq!(results(&forked), results(&history));
    assert!(forked.iter().all(|m| m.session_id() == Some(fork.as_str())));
    let old_ids: BTreeSet<_> = history.iter().filter_map(Message::uuid).collect();
    assert!(
        forked
            .iter()
            .all(|m| !old_ids.contains(m.uuid().unwrap_or_default()))
    );
    let fork_info = session_info(&fork, &lookup).expect("info").expect("some");
    assert_eq!(
        fork_info.custom_title.as_deref(),
        Some("History e2e (fork)")
    );
    assert_eq!(list_sessions(&list).expect("list").len(), 2);

    // The fork, resumed by the CLI, goes on where the source stopped and calls a tool again.
    assert_eq!(lab.counter(), 42);
    let (server, resumed_lab) = tools::server(42);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(tools)
        .resume(&fork);
    let resumed = run_query("add three more", options).await;
    assert_eq!(success_text(&resumed), "Resumed: counter is now 45");
    assert_eq!(
        result_of(&resumed)["session_id"],
        Value::from(fork.as_str())
    );
    assert_eq!(resumed_lab.counter(), 45);
    let turns = w.turns();
    let last_turn = turns.last().expect("requests");
    assert!(
        last_turn
            .body
            .as_ref()
            .map(|b| b.to_string())
            .unwrap_or_default()
            .contains("look up alpha and add two"),
        "the resumed session was sent the forked conversation"
    );
    let after = session_messages(&fork, &read).expect("the fork's messages");
    assert_eq!(&dump(&after)[..forked.len()], &dump(&forked)[..]);
    assert!(calls(&after).contains(&(
        "toolu_hist_c".to_string(),
        "mcp__e2e__counter_add".to_string()
    )));
    assert!(
        results(&after).contains(&("toolu_hist_c".to_string(), "counter is now 45".to_string()))
    );
    // The source is as it was.
    assert_eq!(
        dump(&session_messages(&id, &read).expect("source")),
        dump(&history)
    );

    // Deleted: gone from the list, and not found.
    delete_session(&id, &lookup).expect("delete");
    assert!(matches!(
        session_info(&id, &lookup),
        Err(HistoryError::SessionNotFound { .. })
    ));
    assert_eq!(
        list_sessions(&list)
            .expect("list")
            .iter()
            .map(|s| s.session_id.clone())
            .collect::<Vec<_>>(),
        [fork]
    );
    w.assert_offline();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_session_is_read_renamed_and_tagged_while_the_cli_writes_it() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_live_one",
            "mcp__e2e__counter_add",
            json!({"by": 1}),
        ))
        .turn(Turn::text("First: {{tool_result}}"))
        .turn(Turn::text("Second: {{user_text}}").delay(std::time::Duration::from_millis(300)));
    let Some(w) = world("a_running_session_is_read_renamed_and_tagged", script).await else {
        return;
    };
    let (server, _lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add"]);
    let lookup = Lookup::from(&options);
    let read = ReadMessages::new().lookup(&lookup);
    let mut client = within("connect", Client::connect(options))
        .await
        .expect("connect");
    client.query("add one").await.expect("query");
    let first = within("first turn", client.receive_response())
        .await
        .expect("response");
    assert_eq!(success_text(&first), "First: counter is now 1");
    let id = result_of(&first)["session_id"]
        .as_str()
        .expect("a session id")
        .to_string();

    // The CLI is still running: read, rename and tag its session.
    let so_far = session_messages(&id, &read).expect("messages of a running session");
    assert_eq!(calls(&so_far).len(), 1, "{:#?}", dump(&so_far));
    rename_session(&id, "Live title", &lookup).expect("rename a running session");
    tag_session(&id, Some("live"), &lookup).expect("tag a running session");

    // Read over and over while the CLI writes the next turn: every read succeeds and sees at
    // least what the one before saw.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reader = {
        let (stop, id, read) = (stop.clone(), id.clone(), read.clone());
        std::thread::spawn(move || {
            let mut counts = Vec::new();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let messages = session_messages(&id, &read).expect("a read during the turn");
                counts.push(messages.len());
            }
            counts
        })
    };
    client.query("and again").await.expect("query");
    let second = within("second turn", client.receive_response())
        .await
        .expect("response");
    assert_eq!(success_text(&second), "Second: and again");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let counts = reader.join().expect("the reader");
    assert!(!counts.is_empty());
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    within("disconnect", client.disconnect())
        .await
        .expect("disconnect");

    let info = session_info(&id, &lookup).expect("info").expect("some");
    assert_eq!(
        (info.custom_title.as_deref(), info.tag.as_deref()),
        (Some("Live title"), Some("live")),
        "the title and tag set while it ran are kept"
    );
    let all = session_messages(&id, &read).expect("messages");
    assert_eq!(all.len(), so_far.len() + 2, "{:#?}", dump(&all));
    let last = all
        .last()
        .and_then(Message::as_assistant)
        .expect("the answer");
    assert_eq!(last.text(), "Second: and again");
    w.assert_offline();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagents_transcript_is_listed_and_read_with_its_agent_call() {
    // The subagent's requests are told apart by their prompt; the main thread's by position.
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_hist_agent",
            "Agent",
            json!({"description": "Count", "prompt": "SUBTASK add five to the counter",
                   "subagent_type": "general-purpose"}),
        ))
        // Positional: the main thread's answer, and the subagent's after its tool call.
        .turn(Turn::text("Done: {{tool_result}}"))
        .turn(
            Turn::tool_use("toolu_hist_sub", "mcp__e2e__counter_add", json!({"by": 5}))
                .when_user_text("SUBTASK add five"),
        );
    let Some(w) = world("a_subagents_transcript_is_listed_and_read", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["Agent", "mcp__e2e__counter_add"]);
    let lookup = Lookup::from(&options);
    let live = run_query("delegate it", options).await;
    let id = result_of(&live)["session_id"]
        .as_str()
        .expect("a session id")
        .to_string();
    assert_eq!(lab.counter(), 5, "{:#?}", dump(&live));

    let agents = list_subagents(&id, &lookup).expect("subagents");
    assert_eq!(agents.len(), 1, "{agents:?}");
    let messages =
        subagent_messages(&id, &agents[0], &ReadMessages::new().lookup(&lookup)).expect("read");
    let texts: Vec<String> = messages
        .iter()
        .map(|m| match m {
            Message::User(user) if user.tool_results().next().is_none() => user.text(),
            Message::Assistant(assistant) if assistant.tool_uses().next().is_none() => {
                assistant.text()
            }
            _ => String::new(),
        })
        .filter(|t| !t.is_empty())
        .collect();
    assert_eq!(
        texts,
        ["SUBTASK add five to the counter", "Done: counter is now 5"],
        "{:#?}",
        dump(&messages)
    );
    assert_eq!(
        calls(&messages),
        [(
            "toolu_hist_sub".to_string(),
            "mcp__e2e__counter_add".to_string()
        )]
        .into()
    );
    // Each message names the Agent call that started the subagent.
    assert!(
        messages
            .iter()
            .all(|m| m.to_value()["parent_tool_use_id"] == "toolu_hist_agent"),
        "{:#?}",
        dump(&messages)
    );
    // The main conversation holds the Agent call and its result, not the subagent's messages.
    let main = session_messages(&id, &ReadMessages::new().lookup(&lookup)).expect("messages");
    assert_eq!(
        calls(&main),
        [("toolu_hist_agent".to_string(), "Agent".to_string())].into(),
        "{:#?}",
        dump(&main)
    );
    w.assert_offline();
}
