//! Reading: listing, summaries, typed messages, lines being written or malformed, missing
//! dirs, invalid ids, paging, long working directories.

use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use claude_tools::Message;
use claude_tools::sessions::{
    ForkSession, HistoryError, ListSessions, ReadMessages, delete_session, fork_session,
    list_sessions, list_subagents, rename_session, session_info, session_messages,
    subagent_messages, tag_session,
};
use serde_json::{Value, json};

use super::{CONVERSATION, Config, ID, PROJECT, briefs, fixture};

#[test]
fn a_real_transcript_is_listed_with_its_summary() {
    let config = Config::with_fixture();
    let listed = list_sessions(&config.list()).expect("list");
    assert_eq!(listed.len(), 1, "{listed:#?}");
    let info = &listed[0];
    assert_eq!(info.session_id, ID);
    assert_eq!(info.summary, "look up alpha and add two");
    assert_eq!(
        info.first_prompt.as_deref(),
        Some("look up alpha and add two")
    );
    assert_eq!(info.custom_title, None);
    assert_eq!(info.tag, None);
    assert_eq!(info.git_branch.as_deref(), Some("HEAD"));
    assert_eq!(info.cwd.as_deref(), Some(Path::new(PROJECT)));
    assert_eq!(info.file_size, Some(fixture().len() as u64));
    assert_eq!(
        info.created_at.map(|t| t
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_millis()),
        Some(1_795_769_588_365),
        "the first timestamp: 2026-11-27T08:53:08.365Z"
    );
    // The same from session_info, and from a listing of every project.
    assert_eq!(
        session_info(ID, &config.lookup()).expect("info").as_ref(),
        Some(info)
    );
    let everywhere = ListSessions::new().config_dir(&config.0);
    assert_eq!(list_sessions(&everywhere).expect("list"), listed);
}

#[test]
fn a_real_transcript_reads_as_typed_messages_with_parallel_calls_whole() {
    let config = Config::with_fixture();
    let messages = session_messages(ID, &config.read()).expect("messages");
    // The chain from the last message runs through the second result only: the first result
    // is put back after the calls.
    assert_eq!(briefs(&messages), CONVERSATION);
    for message in &messages {
        assert_eq!(message.session_id(), Some(ID));
        assert!(message.uuid().is_some());
        let value = message.to_value();
        assert_eq!(value["parent_tool_use_id"], Value::Null);
        assert!(value.get("sessionId").is_none(), "renamed to session_id");
        assert!(value["timestamp"].is_string() && value.get("parentUuid").is_some());
    }
    let Message::User(result) = &messages[4] else {
        panic!("a user message: {:#?}", messages[4]);
    };
    assert_eq!(
        result.tool_use_result,
        Some(json!([{"type": "text", "text": "value of alpha"}]))
    );
    assert_eq!(result.extra["cwd"], PROJECT);
    let Message::Assistant(call) = &messages[2] else {
        panic!("an assistant message: {:#?}", messages[2]);
    };
    assert_eq!(call.message.id.as_deref(), Some("msg_test_000001"));
    // Pages.
    let page = session_messages(ID, &config.read().offset(2).limit(3)).expect("a page");
    assert_eq!(briefs(&page), CONVERSATION[2..5]);
    assert!(
        session_messages(ID, &config.read().offset(9))
            .expect("past the end")
            .is_empty()
    );
    // Found without a dir too.
    let anywhere = ReadMessages::new().config_dir(&config.0);
    assert_eq!(
        briefs(&session_messages(ID, &anywhere).expect("messages")),
        CONVERSATION
    );
}

#[test]
fn a_line_still_being_written_is_left_out_until_whole() {
    let config = Config::with_fixture();
    let line = json!({
        "parentUuid": "617bbf5f-98a1-44d9-814f-aebd9b2356ef", "isSidechain": false,
        "type": "user", "message": {"role": "user", "content": "and now?"},
        "uuid": "7d7d7d7d-0000-4000-8000-000000000001",
        "timestamp": "2026-11-27T09:00:00.000Z", "sessionId": ID,
    })
    .to_string();
    let (first, rest) = line.split_at(line.len() / 2);
    // The CLI has written half of a line: reads see the file up to its last whole line.
    config.append(ID, first.as_bytes());
    let messages = session_messages(ID, &config.read()).expect("messages");
    assert_eq!(briefs(&messages), CONVERSATION);
    let info = session_info(ID, &config.lookup())
        .expect("info")
        .expect("some");
    assert_eq!(info.summary, "look up alpha and add two");
    // The rest arrives: the line is read.
    config.append(ID, rest.as_bytes());
    config.append(ID, b"\n");
    let messages = session_messages(ID, &config.read()).expect("messages");
    assert_eq!(
        briefs(&messages).last().map(String::as_str),
        Some("user: and now?")
    );
    assert_eq!(messages.len(), CONVERSATION.len() + 1);
}

#[test]
fn malformed_lines_are_skipped() {
    let config = Config::with_fixture();
    let text = String::from_utf8(fixture()).expect("UTF-8");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(3, r#"{"type":"user","message":{"#);
    lines.insert(5, "[1, 2, 3]");
    lines.insert(7, "not json at all");
    lines.push("\u{0}\u{1}garbage");
    let mut broken = lines.join("\n").into_bytes();
    broken.extend_from_slice(b"\n\xff\xfe\n");
    fs::write(config.transcript(ID), broken).expect("write");
    assert_eq!(
        briefs(&session_messages(ID, &config.read()).expect("messages")),
        CONVERSATION
    );
    assert!(session_info(ID, &config.lookup()).expect("info").is_some());
}

#[test]
fn missing_dirs_are_no_sessions_and_a_missing_session_is_an_error() {
    let config = Config::empty();
    // No projects folder at all.
    assert!(list_sessions(&config.list()).expect("list").is_empty());
    assert!(
        list_sessions(&ListSessions::new().config_dir(config.0.join("nowhere")))
            .expect("list")
            .is_empty()
    );
    let not_found = |result: Result<(), HistoryError>| match result {
        Err(HistoryError::SessionNotFound {
            session_id,
            searched,
        }) => {
            assert_eq!(session_id, ID);
            assert!(searched.starts_with(&config.0), "{}", searched.display());
        }
        other => panic!("expected SessionNotFound, got {other:?}"),
    };
    not_found(session_info(ID, &config.lookup()).map(|_| ()));
    not_found(session_messages(ID, &config.read()).map(|_| ()));
    not_found(list_subagents(ID, &config.lookup()).map(|_| ()));
    not_found(rename_session(ID, "title", &config.lookup()));
    not_found(tag_session(ID, Some("tag"), &config.lookup()));
    not_found(delete_session(ID, &config.lookup()));
    not_found(fork_session(ID, &ForkSession::new().config_dir(&config.0)).map(|_| ()));
    // An empty transcript is no session; renaming it does not create one.
    fs::create_dir_all(config.project()).expect("project");
    fs::write(config.transcript(ID), b"").expect("empty");
    not_found(session_messages(ID, &config.read()).map(|_| ()));
    not_found(rename_session(ID, "title", &config.lookup()));
    assert_eq!(fs::read(config.transcript(ID)).expect("still there"), b"");
    assert!(list_sessions(&config.list()).expect("list").is_empty());
    let message = session_info(ID, &config.lookup())
        .expect_err("not found")
        .to_string();
    assert!(
        message.contains(ID) && message.contains("not found"),
        "{message}"
    );
}

#[test]
fn ids_that_are_not_uuids_never_reach_the_file_system() {
    let config = Config::with_fixture();
    for bad in [
        "",
        "../../etc/passwd",
        "21d56f35-2494-4dc6-8f74-36479fab48b9/../x",
        "21d56f35",
    ] {
        let invalid = |result: Result<(), HistoryError>| {
            assert!(
                matches!(&result, Err(HistoryError::InvalidSessionId(id)) if id == bad),
                "{bad:?}: {result:?}"
            )
        };
        invalid(session_info(bad, &config.lookup()).map(|_| ()));
        invalid(session_messages(bad, &config.read()).map(|_| ()));
        invalid(list_subagents(bad, &config.lookup()).map(|_| ()));
        invalid(subagent_messages(bad, "a1", &config.read()).map(|_| ()));
        invalid(rename_session(bad, "title", &config.lookup()));
        invalid(tag_session(bad, None, &config.lookup()));
        invalid(delete_session(bad, &config.lookup()));
        invalid(fork_session(bad, &ForkSession::new()).map(|_| ()));
    }
    assert!(matches!(
        fork_session(ID, &ForkSession::new().config_dir(&config.0).up_to("../x")),
        Err(HistoryError::InvalidMessageId(_))
    ));
    for bad in ["", "../agent-x", "a/b"] {
        assert!(matches!(
            subagent_messages(ID, bad, &config.read()),
            Err(HistoryError::InvalidAgentId(_))
        ));
    }
    let message = HistoryError::InvalidSessionId("../x".into()).to_string();
    assert_eq!(
        message,
        r#"invalid session id "../x": a session id is a UUID"#
    );
    // Nothing was written.
    assert_eq!(fs::read(config.transcript(ID)).expect("read"), fixture());
}

#[test]
fn listing_is_newest_first_one_per_id_and_paged() {
    let config = Config::with_fixture();
    let text = String::from_utf8(fixture()).expect("UTF-8");
    let ids = [
        "11111111-1111-4111-8111-111111111111",
        "22222222-2222-4222-8222-222222222222",
        "33333333-3333-4333-8333-333333333333",
    ];
    let now = SystemTime::now();
    for (age, id) in ids.iter().enumerate() {
        fs::write(config.transcript(id), text.replace(ID, id)).expect("copy");
        let file = OpenOptions::new()
            .append(true)
            .open(config.transcript(id))
            .expect("open");
        file.set_modified(now - Duration::from_secs(60 * (age as u64 + 1)))
            .expect("mtime");
    }
    let file = OpenOptions::new()
        .append(true)
        .open(config.transcript(ID))
        .expect("open");
    file.set_modified(now - Duration::from_secs(3600))
        .expect("mtime");
    // A subagent transcript, a file that is not a session and an empty one are not listed.
    fs::write(config.project().join("agent-x.jsonl"), text.clone()).expect("write");
    fs::write(config.project().join("notes.txt"), "x").expect("write");
    fs::write(
        config.transcript("44444444-4444-4444-8444-444444444444"),
        "",
    )
    .expect("write");
    let sidechain = r#"{"parentUuid":null,"isSidechain":true,"type":"user","message":{"role":"user","content":"sub"},"uuid":"5ab5ab00-0000-4000-8000-000000000009"}"#;
    fs::write(
        config.transcript("55555555-5555-4555-8555-555555555555"),
        format!("{sidechain}\n"),
    )
    .expect("write");
    // The same session in another project folder (a worktree's): listed once, the newest copy.
    let other = config.0.join("projects/-home-me-other");
    fs::create_dir_all(&other).expect("dir");
    fs::write(
        other.join(format!("{}.jsonl", ids[2])),
        text.replace(ID, ids[2]),
    )
    .expect("copy");

    let order = |options: &ListSessions| -> Vec<String> {
        list_sessions(options)
            .expect("list")
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    };
    assert_eq!(order(&config.list()), [ids[0], ids[1], ids[2], ID]);
    assert_eq!(order(&config.list().offset(1).limit(2)), [ids[1], ids[2]]);
    assert!(order(&config.list().offset(4)).is_empty());
    let all = order(&ListSessions::new().config_dir(&config.0));
    assert_eq!(
        all,
        [ids[2], ids[0], ids[1], ID],
        "the copy in the other folder is newest"
    );
}

#[test]
fn a_long_working_directory_is_found_whatever_hash_ends_its_folder() {
    let config = Config::empty();
    let dir = format!("/home/me/{}", "deep/".repeat(50));
    let cut: String = dir
        .chars()
        .take(200)
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    // The CLI hashes with its runtime's own function: the suffix is not this crate's.
    let folder = config.0.join("projects").join(format!("{cut}-zzzz9"));
    fs::create_dir_all(&folder).expect("dir");
    fs::write(folder.join(format!("{ID}.jsonl")), fixture()).expect("copy");
    let read = ReadMessages::new().dir(&dir).config_dir(&config.0);
    assert_eq!(
        briefs(&session_messages(ID, &read).expect("messages")),
        CONVERSATION
    );
    let list = ListSessions::new().dir(&dir).config_dir(&config.0);
    assert_eq!(list_sessions(&list).expect("list").len(), 1);
}

/// Runs git in `dir`, `false` when git is not there or fails.
fn git(dir: &Path, args: &[&str]) -> bool {
    std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

#[test]
fn a_projects_git_worktrees_are_searched_with_it() {
    let config = Config::empty();
    let repo = config.0.join("repo");
    let linked = config.0.join("repo-feature");
    fs::create_dir_all(&repo).expect("repo dir");
    if !(git(&repo, &["init", "-q"])
        && git(&repo, &["commit", "-q", "--allow-empty", "-m", "root"])
        && git(
            &repo,
            &["worktree", "add", "-q", "-b", "feature", "../repo-feature"],
        ))
    {
        let why = "a_projects_git_worktrees_are_searched_with_it: git is not usable here";
        assert!(std::env::var_os("CI").is_none(), "{why}, and CI is set");
        // To the stderr handle itself: libtest captures `eprintln!` of passing tests.
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "\n!!! SKIPPED {why}\n");
        return;
    }
    let (repo, linked) = (
        fs::canonicalize(&repo).expect("repo"),
        fs::canonicalize(&linked).expect("worktree"),
    );
    let folder = |dir: &Path| -> PathBuf {
        let name: String = dir
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        config.0.join("projects").join(name)
    };
    let text = String::from_utf8(fixture()).expect("UTF-8");
    let other = "66666666-6666-4666-8666-666666666666";
    fs::create_dir_all(folder(&repo)).expect("dir");
    fs::create_dir_all(folder(&linked)).expect("dir");
    fs::write(folder(&repo).join(format!("{ID}.jsonl")), &text).expect("write");
    fs::write(
        folder(&linked).join(format!("{other}.jsonl")),
        text.replace(ID, other),
    )
    .expect("write");

    let ids = |options: ListSessions| -> Vec<String> {
        let mut ids: Vec<String> = list_sessions(&options)
            .expect("list")
            .into_iter()
            .map(|s| s.session_id)
            .collect();
        ids.sort();
        ids
    };
    let list = ListSessions::new().dir(&repo).config_dir(&config.0);
    assert_eq!(ids(list.clone()), [ID, other]);
    assert_eq!(ids(list.include_worktrees(false)), [ID]);
    // A session of the linked worktree is found from the main one, and the other way round.
    let read = ReadMessages::new().dir(&repo).config_dir(&config.0);
    assert_eq!(
        briefs(&session_messages(other, &read).expect("messages")),
        CONVERSATION
    );
    let read = ReadMessages::new().dir(&linked).config_dir(&config.0);
    assert_eq!(
        briefs(&session_messages(ID, &read).expect("messages")),
        CONVERSATION
    );
}

#[test]
fn system_lines_are_read_when_asked() {
    let config = Config::with_fixture();
    let system = json!({
        "parentUuid": "617bbf5f-98a1-44d9-814f-aebd9b2356ef", "isSidechain": false,
        "type": "system", "subtype": "informational", "content": "Model switched",
        "level": "info", "isMeta": false, "timestamp": "2026-11-27T09:00:00.000Z",
        "uuid": "7d7d7d7d-0000-4000-8000-000000000002", "sessionId": ID,
    });
    let user = json!({
        "parentUuid": "7d7d7d7d-0000-4000-8000-000000000002", "isSidechain": false,
        "type": "user", "message": {"role": "user", "content": "go on"},
        "uuid": "7d7d7d7d-0000-4000-8000-000000000003",
        "timestamp": "2026-11-27T09:00:01.000Z", "sessionId": ID,
    });
    config.append(ID, format!("{system}\n{user}\n").as_bytes());
    let without = session_messages(ID, &config.read()).expect("messages");
    assert_eq!(briefs(&without)[CONVERSATION.len()..], ["user: go on"]);
    let with =
        session_messages(ID, &config.read().include_system_messages(true)).expect("messages");
    assert_eq!(with.len(), CONVERSATION.len() + 2);
    match &with[CONVERSATION.len()] {
        Message::System(notice) => {
            assert_eq!(notice.subtype, "informational");
            assert_eq!(notice.session_id.as_deref(), Some(ID));
            assert_eq!(notice.data["content"], "Model switched");
        }
        other => panic!("a system message, not {other:#?}"),
    }
}
