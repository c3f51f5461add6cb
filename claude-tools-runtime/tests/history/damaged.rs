//! Damaged transcripts: whatever bytes a transcript holds (cut anywhere, lines dropped,
//! repeated or garbled, random bytes), reading, listing and forking it never panic, and the
//! messages read are a selection of the whole transcript's.

use std::fs;

use claude_tools::sessions::{
    ForkSession, HistoryError, fork_session, list_sessions, session_info, session_messages,
};
use proptest::prelude::*;

use super::{Config, ID, briefs, fixture};

/// The fixture's lines, some cut short, dropped, repeated or replaced by noise.
fn damaged() -> impl Strategy<Value = Vec<u8>> {
    let lines: Vec<Vec<u8>> = fixture()
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    let count = lines.len();
    let edit = prop_oneof![
        4 => Just(None),
        1 => any::<usize>().prop_map(Some),
    ];
    (
        prop::collection::vec((0..count, edit), 0..count * 2),
        prop::collection::vec(any::<u8>(), 0..64),
        any::<bool>(),
    )
        .prop_map(move |(picks, noise, newline)| {
            let mut out = Vec::new();
            for (i, cut) in picks {
                let line = &lines[i];
                match cut {
                    None => out.extend_from_slice(line),
                    Some(at) => out.extend_from_slice(&line[..at % (line.len() + 1)]),
                }
                out.push(b'\n');
            }
            out.extend_from_slice(&noise);
            if newline {
                out.push(b'\n');
            }
            out
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn damaged_transcripts_never_panic(bytes in damaged()) {
        let config = Config::with_fixture();
        let whole = briefs(&session_messages(ID, &config.read()).expect("messages"));
        fs::write(config.transcript(ID), &bytes).expect("write");
        match session_messages(ID, &config.read()) {
            Ok(messages) => {
                for brief in briefs(&messages) {
                    prop_assert!(whole.contains(&brief), "{brief} is not in the transcript");
                }
            }
            Err(HistoryError::SessionNotFound { .. }) => prop_assert!(bytes.is_empty()),
            Err(other) => prop_assert!(false, "{other}"),
        }
        let _ = session_info(ID, &config.lookup());
        let _ = list_sessions(&config.list());
        match fork_session(ID, &ForkSession::new().config_dir(&config.0)) {
            Ok(fork) => {
                let forked = session_messages(&fork, &config.read()).expect("the fork reads");
                for brief in briefs(&forked) {
                    prop_assert!(whole.contains(&brief), "{brief} is not in the transcript");
                }
            }
            Err(HistoryError::NothingToFork(_) | HistoryError::SessionNotFound { .. }) => {}
            Err(other) => prop_assert!(false, "{other}"),
        }
    }
}
