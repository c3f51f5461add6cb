//! Changing: titles and tags appended, forks, subagents, deletion.

use std::fs;
use std::path::Path;

use claude_tools::sessions::{
    ForkSession, HistoryError, delete_session, fork_session, list_sessions, list_subagents,
    rename_session, session_info, session_messages, subagent_messages, tag_session,
};
use serde_json::{Value, json};

use super::{CONVERSATION, Config, ID, PROJECT, briefs, fixture};

#[test]
fn renaming_and_tagging_append_a_line_and_the_last_one_wins() {
    let config = Config::with_fixture();
    rename_session(ID, "  Billing refactor \n", &config.lookup()).expect("rename");
    assert_eq!(
        config.lines(ID).last(),
        Some(&json!({"type": "custom-title", "customTitle": "Billing refactor", "sessionId": ID}))
    );
    rename_session(ID, "Billing, take two", &config.lookup()).expect("rename");
    tag_session(ID, Some(" \u{200b}wip\u{202e} "), &config.lookup()).expect("tag");
    let last = fs::read_to_string(config.transcript(ID)).expect("read");
    let last = last.lines().last().expect("a line");
    // `type` first: readers find tag lines by their start.
    assert_eq!(
        last,
        format!(r#"{{"type":"tag","tag":"wip","sessionId":"{ID}"}}"#)
    );
    let info = session_info(ID, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(info.custom_title.as_deref(), Some("Billing, take two"));
    assert_eq!(info.summary, "Billing, take two");
    assert_eq!(info.tag.as_deref(), Some("wip"));
    tag_session(ID, None, &config.lookup()).expect("clear");
    assert_eq!(
        session_info(ID, &config.lookup())
            .expect("info")
            .expect("some")
            .tag,
        None
    );
    assert!(matches!(
        rename_session(ID, " \t", &config.lookup()),
        Err(HistoryError::EmptyTitle)
    ));
    assert!(matches!(
        tag_session(ID, Some("\u{200b}\u{feff} "), &config.lookup()),
        Err(HistoryError::EmptyTag)
    ));
    // The conversation is unchanged.
    assert_eq!(
        briefs(&session_messages(ID, &config.read()).expect("messages")),
        CONVERSATION
    );
}

#[test]
fn a_fork_copies_the_conversation_under_new_ids() {
    let config = Config::with_fixture();
    let fork =
        fork_session(ID, &ForkSession::new().dir(PROJECT).config_dir(&config.0)).expect("fork");
    assert_ne!(fork, ID);
    assert!(
        config.transcript(&fork).is_file(),
        "written next to the source"
    );
    let lines = config.lines(&fork);
    let source_uuids: Vec<Value> = config.lines(ID).iter().map(|l| l["uuid"].clone()).collect();
    let fork_uuids: Vec<&Value> = lines.iter().map(|l| &l["uuid"]).collect();
    for line in &lines {
        assert_eq!(line["sessionId"], fork.as_str());
        assert!(
            !source_uuids.contains(&line["uuid"]),
            "a fresh uuid: {line}"
        );
        let parent = &line["parentUuid"];
        assert!(
            parent.is_null() || fork_uuids.contains(&parent),
            "linked in the fork: {line}"
        );
        if line["type"] != "custom-title" {
            assert_eq!(line["forkedFrom"]["sessionId"], ID);
            assert!(source_uuids.contains(&line["forkedFrom"]["messageUuid"]));
        }
    }
    assert_eq!(
        lines.last().map(|l| (&l["type"], &l["customTitle"])),
        Some((
            &json!("custom-title"),
            &json!("look up alpha and add two (fork)")
        ))
    );
    // Only conversation lines are copied.
    assert!(
        lines
            .iter()
            .all(|l| l["type"] != "queue-operation" && l["type"] != "api-request")
    );
    let messages = session_messages(&fork, &config.read()).expect("the fork's messages");
    assert_eq!(briefs(&messages), CONVERSATION);
    assert!(
        messages
            .iter()
            .all(|m| m.session_id() == Some(fork.as_str()))
    );
    let info = session_info(&fork, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(
        info.custom_title.as_deref(),
        Some("look up alpha and add two (fork)")
    );
    assert_eq!(list_sessions(&config.list()).expect("list").len(), 2);

    // Up to a message (the first call), with a title.
    let first_call = "aabb381f-6be6-4fb2-b8eb-86a47087f018";
    let options = ForkSession::new()
        .config_dir(&config.0)
        .up_to(first_call)
        .title(" Just the lookup ");
    let short = fork_session(ID, &options).expect("fork");
    assert_eq!(
        briefs(&session_messages(&short, &config.read()).expect("messages")),
        CONVERSATION[..3]
    );
    let info = session_info(&short, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(info.custom_title.as_deref(), Some("Just the lookup"));
    let missing = "00000000-0000-4000-8000-000000000000";
    assert!(matches!(
        fork_session(ID, &ForkSession::new().config_dir(&config.0).up_to(missing)),
        Err(HistoryError::MessageNotFound { .. })
    ));
    // The source is untouched.
    assert_eq!(fs::read(config.transcript(ID)).expect("read"), fixture());
}

#[test]
fn subagents_are_listed_and_read_with_their_parent_call() {
    let config = Config::with_fixture();
    let subagents = config.project().join(ID).join("subagents");
    fs::create_dir_all(subagents.join("workflows/run-1")).expect("dirs");
    // A subagent the real CLI ran (started by the Agent call `toolu_hist_agent`; it called
    // counter_add), its transcript and .meta.json captured with the session's.
    let real = "a71f5d57315c917c2";
    let captured = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/history")
        .join(ID)
        .join("subagents");
    for file in [
        format!("agent-{real}.jsonl"),
        format!("agent-{real}.meta.json"),
    ] {
        fs::copy(captured.join(&file), subagents.join(&file)).expect("copy the fixture");
    }
    // A nested one (as under `workflows/<run id>/`), its .meta.json unreadable.
    let nested = json!({"parentUuid": null, "isSidechain": true, "agentId": "b2e", "type": "user",
                        "message": {"role": "user", "content": "Nested"},
                        "uuid": "5ab5ab00-0000-4000-8000-000000000003",
                        "timestamp": "2026-11-27T08:53:09.000Z", "sessionId": ID});
    fs::write(
        subagents.join("workflows/run-1/agent-b2e.jsonl"),
        format!("{nested}\n"),
    )
    .expect("nested");
    fs::write(
        subagents.join("workflows/run-1/agent-b2e.meta.json"),
        "{broken",
    )
    .expect("meta");

    assert_eq!(
        list_subagents(ID, &config.lookup()).expect("subagents"),
        [real, "b2e"]
    );
    let messages = subagent_messages(ID, real, &config.read()).expect("messages");
    assert_eq!(
        briefs(&messages),
        [
            "user: SUBTASK add five to the counter",
            r#"call toolu_hist_sub mcp__e2e__counter_add {"by":5}"#,
            "result toolu_hist_sub: counter is now 5",
            "assistant: Done: counter is now 5",
        ]
    );
    // Each names the Agent call that started the subagent (from its .meta.json).
    assert!(
        messages
            .iter()
            .all(|m| m.to_value()["parent_tool_use_id"] == "toolu_hist_agent")
    );
    assert!(messages.iter().all(|m| m.session_id() == Some(ID)));
    let page = subagent_messages(ID, real, &config.read().offset(1).limit(2)).expect("a page");
    assert_eq!(briefs(&page), briefs(&messages)[1..3]);
    // An unreadable .meta.json is no parent call, not an error.
    let nested = subagent_messages(ID, "b2e", &config.read()).expect("messages");
    assert_eq!(briefs(&nested), ["user: Nested"]);
    assert_eq!(nested[0].to_value()["parent_tool_use_id"], Value::Null);
    assert!(matches!(
        subagent_messages(ID, "zzz", &config.read()),
        Err(HistoryError::SubagentNotFound { .. })
    ));
    // The main conversation does not change, and deleting the session removes its subagents.
    assert_eq!(
        briefs(&session_messages(ID, &config.read()).expect("messages")),
        CONVERSATION
    );
    delete_session(ID, &config.lookup()).expect("delete");
    assert!(!config.transcript(ID).exists() && !config.project().join(ID).exists());
    assert!(matches!(
        delete_session(ID, &config.lookup()),
        Err(HistoryError::SessionNotFound { .. })
    ));
}
