//! The tickets example (`cargo run -p claude-tools-examples --example tickets`) through the real
//! CLI and its scripted model: the runner's transcript, what the model was sent (the refused
//! calls as `isError`), and the SQLite file, which a second run over the same file remembers.

use claude_tools_examples::run::{ModelChoice, Run};
use claude_tools_examples::tickets::{self, Board, TOOL_USE_IDS, Ticket, TicketKind};
use claude_tools_testkit::TempDir;
use serde_json::{Value, json};

use super::harness::{cli, tr, within};

/// `(tool, input)` pairs as [`Run::tool_calls`] returns them.
pub(crate) fn calls(expected: &[(&str, Value)]) -> Vec<(String, Value)> {
    expected
        .iter()
        .map(|(tool, input)| (tool.to_string(), input.clone()))
        .collect()
}

async fn run_tickets(cli: &std::path::Path, db: &std::path::Path) -> Run {
    let example = tickets::example(db).expect("the board opens");
    let run = within(
        "the tickets example",
        example.cli_path(cli).quiet().run(ModelChoice::Scripted),
    )
    .await
    .expect("the run finishes");
    assert!(run.is_success(), "{:#?}", run.result);
    let server = run.server.as_ref().expect("the scripted model");
    assert!(
        server.proxy_attempts().is_empty(),
        "the CLI tried to go online"
    );
    run
}

fn ticket(id: i64, title: &str, kind: TicketKind, assignee: &str) -> Ticket {
    Ticket {
        id,
        title: title.to_string(),
        kind,
        assignee: Some(assignee.to_string()),
        closed: false,
        close_reason: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tickets_example_files_closes_refuses_and_a_second_run_sees_the_board() {
    let Some(cli) = cli("examples_tickets") else {
        return;
    };
    let dir = TempDir::new("e2e-tickets").expect("temp dir");
    let db = dir.path().join("board.sqlite3");
    let [
        list_before,
        create_bob,
        create_ada,
        close_ci,
        close_missing,
        list_after,
    ] = TOOL_USE_IDS;
    let expected_calls = calls(&[
        ("list_tickets", json!({})),
        (
            "create_ticket",
            json!({"title": "Login fails on Safari", "kind": "bug", "assignee": "bob"}),
        ),
        (
            "create_ticket",
            json!({"title": "Login fails on Safari", "kind": "bug", "assignee": "ada"}),
        ),
        (
            "close_ticket",
            json!({"id": 1, "reason": "runners upgraded"}),
        ),
        ("close_ticket", json!({"id": 999})),
        ("list_tickets", json!({"status": "open"})),
    ]);
    let unknown_bob = "Unknown assignee `bob`. The team is: ada, grace, linus.";
    let no_999 = "There is no ticket #999. List the tickets to find its id.";
    let safari_open = "1 ticket:\n#2 [bug] Login fails on Safari (ada, open)";

    // First run: a new board (the seeded chore #1), the bug filed as #2, #1 closed.
    let first = run_tickets(&cli, &db).await;
    assert_eq!(first.tool_calls(), expected_calls);
    assert_eq!(
        first.server.as_ref().unwrap().tool_results(),
        [
            tr(
                list_before,
                "1 ticket:\n#1 [chore] Upgrade the CI runners (grace, open)",
                false
            ),
            tr(create_bob, unknown_bob, true),
            tr(
                create_ada,
                "Created ticket #2 [bug] 'Login fails on Safari', assigned to ada.",
                false
            ),
            tr(close_ci, "Closed ticket #1 (runners upgraded).", false),
            tr(close_missing, no_999, true),
            tr(list_after, safari_open, false),
        ]
    );
    assert_eq!(first.tool_result(create_bob), Some((unknown_bob, true)));
    assert_eq!(
        first.final_text(),
        format!(
            "Bob is not on the team. Created ticket #2 [bug] 'Login fails on Safari', assigned to \
             ada. Closed ticket #1 (runners upgraded). Ticket #999 does not exist.\n\
             Open now: {safari_open}"
        )
    );
    let closed_chore = Ticket {
        closed: true,
        close_reason: Some("runners upgraded".to_string()),
        ..ticket(1, "Upgrade the CI runners", TicketKind::Chore, "grace")
    };
    let safari = ticket(2, "Login fails on Safari", TicketKind::Bug, "ada");
    let board = Board::open(&db).expect("the board reopens");
    assert_eq!(
        board.all_tickets().unwrap(),
        [closed_chore.clone(), safari.clone()]
    );

    // Second run over the same file: the bug is already open, #1 already closed; nothing added.
    let second = run_tickets(&cli, &db).await;
    assert_eq!(second.tool_calls(), expected_calls);
    assert_eq!(
        second.server.as_ref().unwrap().tool_results(),
        [
            tr(list_before, safari_open, false),
            tr(create_bob, unknown_bob, true),
            tr(
                create_ada,
                "Ticket #2 'Login fails on Safari' is already open; not filing it twice.",
                true
            ),
            tr(close_ci, "Ticket #1 was already closed.", false),
            tr(close_missing, no_999, true),
            tr(list_after, safari_open, false),
        ]
    );
    assert_eq!(board.all_tickets().unwrap(), [closed_chore, safari]);
}
