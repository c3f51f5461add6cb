//! Archiving (`archive_session`, `unarchive_session`): the mark beside the transcript, read back
//! by the listing and `session_info`, undone by a later prompt; and
//! `ListSessions::include_programmatic`, which leaves out the SDKs' sessions.

use std::fs;

use claude_tools::sessions::{
    HistoryError, archive_session, list_sessions, session_info, unarchive_session,
};

use crate::{Config, ID, fixture};

fn listed_archived(config: &Config) -> Option<bool> {
    let sessions = list_sessions(&config.list()).expect("listed");
    assert_eq!(sessions.len(), 1);
    sessions[0].archived
}

#[test]
fn an_archived_session_is_still_listed_marked_and_its_transcript_is_untouched() {
    let config = Config::with_fixture();
    assert_eq!(listed_archived(&config), None, "never archived");

    archive_session(ID, &config.lookup()).expect("archived");
    assert_eq!(listed_archived(&config), Some(true));
    let info = session_info(ID, &config.lookup()).unwrap().unwrap();
    assert_eq!(info.archived, Some(true));
    assert_eq!(fs::read(config.transcript(ID)).unwrap(), fixture());

    // The mark, where the CLI keeps it, readable by this user only.
    let mark = config.project().join(ID).join("archived.json");
    let record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&mark).unwrap()).unwrap();
    assert_eq!(record["archived"], true);
    assert_eq!(record["by"], "sdk");
    assert!(record["at"].as_str().unwrap().ends_with('Z'), "{record}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&mark).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    unarchive_session(ID, &config.lookup()).expect("unarchived");
    assert_eq!(listed_archived(&config), Some(false));
}

#[test]
fn a_prompt_sent_after_the_mark_unarchives_the_session() {
    let config = Config::with_fixture();
    archive_session(ID, &config.lookup()).unwrap();
    // A tool result is no prompt, nor is a message from before the mark.
    config.append(
        ID,
        br#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]},"timestamp":"2999-01-01T00:00:00.000Z","sessionId":"21d56f35-2494-4dc6-8f74-36479fab48b9"}
{"type":"user","message":{"role":"user","content":"an old prompt"},"timestamp":"2020-01-01T00:00:00.000Z","sessionId":"21d56f35-2494-4dc6-8f74-36479fab48b9"}
"#,
    );
    assert_eq!(listed_archived(&config), Some(true));
    config.append(
        ID,
        br#"{"type":"user","message":{"role":"user","content":"and one more thing"},"timestamp":"2999-01-01T00:00:00.000Z","sessionId":"21d56f35-2494-4dc6-8f74-36479fab48b9"}
"#,
    );
    assert_eq!(listed_archived(&config), Some(false));
}

#[test]
fn archiving_a_missing_or_misnamed_session_is_an_error() {
    let config = Config::with_fixture();
    let missing = "00000000-0000-4000-8000-000000000000";
    assert!(matches!(
        archive_session(missing, &config.lookup()),
        Err(HistoryError::SessionNotFound { .. })
    ));
    assert!(matches!(
        unarchive_session("not-a-uuid", &config.lookup()),
        Err(HistoryError::InvalidSessionId(_))
    ));
}

#[test]
fn programmatic_sessions_can_be_left_out_of_the_listing() {
    let config = Config::with_fixture();
    // The fixture ran from an SDK (`entrypoint` `sdk-cli`); a copy started in a terminal
    // (`cli`) is a person's session.
    let terminal = "31d56f35-2494-4dc6-8f74-36479fab48b9";
    let text = String::from_utf8(fixture())
        .unwrap()
        .replace("\"entrypoint\":\"sdk-cli\"", "\"entrypoint\":\"cli\"")
        .replace(ID, terminal);
    fs::write(config.transcript(terminal), text).unwrap();

    let all = list_sessions(&config.list()).unwrap();
    assert_eq!(all.len(), 2);
    let people = list_sessions(&config.list().include_programmatic(false)).unwrap();
    let ids: Vec<&str> = people.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, [terminal]);
}
