//! A spare with the real CLI: `prewarm` parks it (`--await-claim`) and reports its slash commands
//! (`on_commands`) until a claim moves it into the session's folder and the prompt is answered
//! there; a claim of a folder that does not exist is refused with the CLI's reason, and the
//! prompt never reaches the model.

use std::time::Duration;

use claude_tools::spare::{ClaimError, ClaimOptions, prewarm};
use claude_tools_testkit::model_server::{Script, Turn};

use crate::harness::{success_text, within, world};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claimed_spare_answers_the_query_in_its_folder() {
    let Some(w) = world(
        "prewarm",
        Script::new().turn(Turn::text("warm spare answers")),
    )
    .await
    else {
        return;
    };
    // Parked elsewhere than the session's folder, as a host parks its spares.
    let park = w.path("park");
    std::fs::create_dir_all(&park).expect("parking directory");
    let mut spare = within("prewarm", prewarm(w.options().cwd(&park)))
        .await
        .expect("the spare starts and answers initialize");
    // Its slash commands, reported at once while it is parked.
    let (reports, mut reported) = tokio::sync::mpsc::unbounded_channel();
    spare.on_commands(move |commands| {
        let _ = reports.send(commands);
    });
    let offered = spare.initialize_info().expect("parked").commands.clone();
    let first = within("the first report", reported.recv())
        .await
        .expect("a report");
    assert_eq!(first, offered);
    assert!(
        first.iter().any(|command| command.name == "compact"),
        "{first:?}"
    );
    // Parked: the model has been asked nothing.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(w.turns().is_empty());

    let claim = ClaimOptions::new(&w.cwd).title("e2e spare");
    let claimed = within("claim", spare.claim("say hello", claim))
        .await
        .expect("the spare takes the claim");
    assert!(claimed.not_applied.is_empty(), "{:?}", claimed.not_applied);
    assert!(!claimed.info.session_id.is_empty());
    let canonical = std::fs::canonicalize(&w.cwd).expect("cwd");
    assert_eq!(
        claimed.info.cwd.as_deref(),
        canonical.to_str(),
        "the session runs in the claimed folder"
    );
    let messages = within("the session", claimed.messages.collect())
        .await
        .expect("the stream has no errors");
    assert_eq!(success_text(&messages), "warm spare answers");
    // Claimed: the callback was dropped; whatever it heard, it heard while parked.
    while let Some(more) = within("the callback's end", reported.recv()).await {
        assert!(!more.is_empty());
    }
    w.assert_offline();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_refuses_a_claim_of_a_missing_folder() {
    let Some(w) = world("prewarm_refused", Script::new().turn(Turn::text("never"))).await else {
        return;
    };
    let park = w.path("park");
    std::fs::create_dir_all(&park).expect("parking directory");
    let spare = within("prewarm", prewarm(w.options().cwd(&park)))
        .await
        .expect("the spare starts");
    let missing = w.path("no-such-folder");
    let error = within("claim", spare.claim("hi", ClaimOptions::new(missing)))
        .await
        .expect_err("the CLI refuses the claim");
    match error {
        ClaimError::Refused { reason, .. } => assert_eq!(reason, "cwd_not_found"),
        other => panic!("{other:?}"),
    }
    assert!(w.turns().is_empty(), "the prompt never reached the model");
}
