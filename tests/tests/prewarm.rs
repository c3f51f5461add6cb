//! Spares against the `scripted-cli` fake: `prewarm` starts the CLI with `--await-claim` in a
//! parking directory; a claim sends `claim_session` (and the overlay around it) before the
//! prompt; every refusal is typed, the prompt never goes out after one, and a spare whose
//! process died is reported at the claim instead of hanging it.

use std::path::Path;
use std::time::Duration;

use claude_tools::options::PermissionMode;
use claude_tools::settings::Settings;
use claude_tools::spare::{ClaimError, ClaimOptions, NotClaimable};
use claude_tools::{Error, Message, Options, prewarm};
use claude_tools_testkit::TempDir;
use claude_tools_testkit::fake_cli::{FakeScript, canned};
use serde_json::{Value, json};

mod common;

use common::Fake;

/// The longest any step here may take.
const WAIT: Duration = Duration::from_secs(30);

async fn within<T>(what: &str, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(WAIT, future)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {WAIT:?}"))
}

/// The fake's options, with the config home (where spares are parked) in `home`.
fn options(fake: &Fake, home: &Path) -> Options {
    fake.options()
        .env("CLAUDE_CONFIG_DIR", home.to_str().unwrap())
}

/// Expects a control request of `subtype` whose body matches `fields`, capturing its id as
/// `$<id>`.
fn expect_request(subtype: &str, id: &str, fields: Value) -> FakeScript {
    let mut request = json!({"subtype": subtype});
    if let (Some(request), Value::Object(fields)) = (request.as_object_mut(), fields) {
        request.extend(fields);
    }
    FakeScript::new().expect(json!({
        "type": "control_request", "request_id": format!("$>{id}"), "request": request
    }))
}

/// The claim's success answer, with the claimed folder's initialize payload.
fn claim_answer(id: &str) -> Value {
    let mut initialize = canned::initialize_payload();
    initialize["output_style"] = json!("Explanatory");
    canned::success_response(
        id,
        json!({"status": "ok", "cwd": "/srv/claimed", "session_id": "5e55", "parked_ms": 1250,
               "sdk_mcp_settled": true, "initialize": initialize}),
    )
}

/// The CLI's side of a prompt once claimed: the prompt, a result, idle, then stdin closing.
fn answer_prompt(prompt: &str) -> FakeScript {
    canned::expect_user_message(json!(prompt))
        .then(canned::session_state_changed("running"))
        .then(canned::assistant_text("claimed"))
        .then(canned::result("claimed"))
        .then(canned::session_state_changed("idle"))
        .expect_eof(Duration::from_secs(10))
}

/// The host's lines of a finished fake that are user messages (the prompt).
fn prompts_sent(fake: &Fake) -> usize {
    fake.transcript()
        .json_lines()
        .unwrap()
        .iter()
        .filter(|line| line["type"] == "user")
        .count()
}

#[tokio::test]
async fn a_claimed_spare_moves_to_its_folder_then_answers_the_prompt() {
    let home = TempDir::new("prewarm-home").unwrap();
    let script = canned::initialize()
        .then(expect_request(
            "claim_session",
            "claim",
            json!({"cwd": "/srv/claimed", "permission_mode": "acceptEdits",
                   "env": {"CLAUDE_CODE_HOST_SESSION_ID": "host-1"}, "title": "Fix it",
                   "append_system_prompt": "Be brief.", "sdk_mcp_servers": [],
                   "include_initialize": true, "model": "$absent"}),
        ))
        .send(claim_answer("claim"))
        .then(expect_request(
            "set_model",
            "model",
            json!({"model": "no-such-model"}),
        ))
        .send(canned::error_response(
            "model",
            "unknown model no-such-model",
        ))
        .then(answer_prompt("hello"));
    let fake = Fake::new(script);
    let spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .expect("the spare starts and answers initialize");
    assert!(spare.initialize_info().is_some());
    let claim = ClaimOptions::new("/srv/claimed")
        .permission_mode(PermissionMode::AcceptEdits)
        .env("CLAUDE_CODE_HOST_SESSION_ID", "host-1")
        .title("Fix it")
        .append_system_prompt("Be brief.")
        .model("no-such-model");
    let claimed = within("claim", spare.claim("hello", claim))
        .await
        .expect("the claim is taken");
    assert_eq!(claimed.info.session_id, "5e55");
    assert_eq!(claimed.info.cwd.as_deref(), Some("/srv/claimed"));
    assert_eq!(claimed.info.parked, Some(Duration::from_millis(1250)));
    assert!(claimed.info.sdk_mcp_settled);
    // A refused model does not stop the session: it is reported, and the prompt runs.
    assert_eq!(claimed.not_applied.len(), 1, "{:?}", claimed.not_applied);
    assert_eq!(claimed.not_applied[0].0, "model");
    assert!(matches!(claimed.not_applied[0].1, Error::Control { .. }));
    // The stream describes the claimed folder, not the parking directory.
    assert_eq!(
        claimed.messages.initialize_info().output_style.as_deref(),
        Some("Explanatory")
    );
    let messages = within("the session", claimed.messages.collect())
        .await
        .expect("no error items");
    assert!(
        messages.iter().any(|m| matches!(m, Message::Result(_))),
        "{messages:?}"
    );

    let transcript = fake.transcript();
    assert!(transcript.has_arg("--await-claim"), "{:?}", transcript.args);
    // Parked in a private folder under the config home, gone once claimed.
    let parked_in = Path::new(&transcript.cwd);
    assert!(
        parked_in.starts_with(home.path().join("spares")),
        "{parked_in:?}"
    );
    assert!(!parked_in.exists(), "the parking directory is removed");
}

#[tokio::test]
async fn a_refused_claim_is_typed_and_its_prompt_is_never_sent() {
    let home = TempDir::new("prewarm-home").unwrap();
    let script = canned::initialize()
        .then(expect_request("claim_session", "claim", json!({})))
        .send(canned::error_response(
            "claim",
            "cwd_not_found: the claim cwd does not exist or is not accessible",
        ))
        .expect_eof(Duration::from_secs(10));
    let fake = Fake::new(script);
    let spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .unwrap();
    let error = within("claim", spare.claim("hello", ClaimOptions::new("/nowhere")))
        .await
        .expect_err("the claim is refused");
    match error {
        ClaimError::Refused {
            reason, message, ..
        } => {
            assert_eq!(reason, "cwd_not_found");
            assert!(message.contains("does not exist"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(prompts_sent(&fake), 0);
}

#[tokio::test]
async fn a_spare_that_died_is_reported_at_the_claim() {
    // Dead before the claim.
    let home = TempDir::new("prewarm-home").unwrap();
    let fake = Fake::new(canned::initialize().exit_with_stderr(7, "parked spare crashed"));
    let spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .unwrap();
    let exit = within("the exit", spare.wait_exit()).await;
    assert_eq!(exit.code, Some(7));
    let error = within("claim", spare.claim("hello", ClaimOptions::new("/srv")))
        .await
        .expect_err("a dead spare cannot be claimed");
    match error {
        ClaimError::SpareExited(exit) => {
            assert_eq!(exit.code, Some(7));
            assert!(exit.stderr_tail.contains("parked spare crashed"));
        }
        other => panic!("{other:?}"),
    }

    // Dying while the claim is in flight: reported, not waited on for the control timeout.
    let fake = Fake::new(
        canned::initialize()
            .then(expect_request("claim_session", "claim", json!({})))
            .exit_with_stderr(9, "died mid-claim"),
    );
    let spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .unwrap();
    let error = within("claim", spare.claim("hello", ClaimOptions::new("/srv")))
        .await
        .expect_err("the spare died");
    match error {
        ClaimError::SpareExited(exit) => assert_eq!(exit.code, Some(9)),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn what_a_claim_cannot_carry_is_refused_before_anything_is_sent() {
    let home = TempDir::new("prewarm-home").unwrap();
    // The first line after initialize is the good claim: the refused ones sent nothing.
    let script = canned::initialize()
        .then(expect_request(
            "claim_session",
            "claim",
            json!({"cwd": "/srv/claimed", "env": "$absent"}),
        ))
        .send(claim_answer("claim"))
        .then(answer_prompt("hello"));
    let fake = Fake::new(script);
    let spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .unwrap();

    let read_at_start = ClaimOptions::new("/srv/claimed").env("ANTHROPIC_BASE_URL", "http://x");
    let error = within("claim", spare.claim("hello", read_at_start))
        .await
        .expect_err("refused");
    assert!(
        matches!(&error, ClaimError::NotClaimable { reason: NotClaimable::EnvKey(key), .. } if key == "ANTHROPIC_BASE_URL"),
        "{error:?}"
    );
    let spare = error.into_spare().expect("the spare is handed back");

    let hooks = Settings::from_json(r#"{"disableAllHooks":true}"#).unwrap();
    let error = within(
        "claim",
        spare.claim("hello", ClaimOptions::new("/srv/claimed").settings(hooks)),
    )
    .await
    .expect_err("refused");
    assert!(
        matches!(&error, ClaimError::NotClaimable { reason: NotClaimable::HookSettings(keys), .. } if keys == &["disableAllHooks"]),
        "{error:?}"
    );
    let spare = error.into_spare().expect("the spare is handed back");

    let claimed = within(
        "claim",
        spare.claim("hello", ClaimOptions::new("/srv/claimed")),
    )
    .await
    .expect("the spare is still parked");
    within("the session", claimed.messages.collect())
        .await
        .unwrap();
}

#[tokio::test]
async fn the_overlay_goes_around_the_claim_and_a_refused_overlay_stops_the_prompt() {
    let home = TempDir::new("prewarm-home").unwrap();
    let script = canned::initialize()
        .then(expect_request(
            "apply_flag_settings",
            "ahead",
            json!({"settings": {"fastMode": "$absent", "enabledPlugins": {"p@m": false}}}),
        ))
        .send(canned::success_response("ahead", json!({})))
        .then(expect_request("claim_session", "claim", json!({})))
        .send(claim_answer("claim"))
        .then(expect_request(
            "apply_flag_settings",
            "behind",
            json!({"settings": {"fastMode": true, "enabledPlugins": "$absent"}}),
        ))
        .send(canned::error_response(
            "behind",
            "fastMode is not available",
        ))
        .expect_eof(Duration::from_secs(10));
    let fake = Fake::new(script);
    let spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .unwrap();
    let overlay =
        Settings::from_json(r#"{"fastMode":true,"enabledPlugins":{"p@m":false}}"#).unwrap();
    let error = within(
        "claim",
        spare.claim("hello", ClaimOptions::new("/srv/claimed").settings(overlay)),
    )
    .await
    .expect_err("the overlay is refused");
    match error {
        ClaimError::SettingsNotApplied { message, claim } => {
            assert!(message.contains("fastMode"), "{message}");
            assert_eq!(claim.map(|claim| claim.session_id).as_deref(), Some("5e55"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(prompts_sent(&fake), 0);
}

#[tokio::test]
async fn options_that_describe_a_session_are_refused_at_prewarm() {
    let home = TempDir::new("prewarm-home").unwrap();
    let fake = Fake::new(canned::initialize());
    let error = prewarm(options(&fake, home.path()).resume("8f1d2c3e-0000-4000-8000-000000000000"))
        .await
        .expect_err("a spare has no session to resume");
    assert!(matches!(error, Error::InvalidOptions(_)), "{error:?}");
}

#[tokio::test]
async fn a_trust_attestation_travels_with_the_claim_and_its_record_is_reported() {
    let home = TempDir::new("prewarm-home").unwrap();
    let mut answer = claim_answer("claim");
    answer["response"]["response"]["workspace_trust_recorded"] = json!(true);
    let script = canned::initialize()
        .then(expect_request(
            "claim_session",
            "claim",
            json!({"cwd": "/srv/claimed",
                   "workspace_trust": {"accepted": true, "directory": "/srv/claimed"}}),
        ))
        .send(answer)
        .then(answer_prompt("hello"));
    let fake = Fake::new(script);
    let spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .expect("the spare starts");
    let claim = ClaimOptions::new("/srv/claimed").workspace_trust("/srv/claimed");
    let claimed = within("claim", spare.claim("hello", claim))
        .await
        .expect("the claim is taken");
    assert_eq!(claimed.info.workspace_trust_recorded, Some(true));
    within("the session", claimed.messages.collect())
        .await
        .expect("no error items");
}

/// A `system`/`commands_changed` frame listing `names`.
fn commands_changed(names: &[&str]) -> Value {
    let commands: Vec<Value> = names
        .iter()
        .map(|name| json!({"name": name, "description": "", "argumentHint": ""}))
        .collect();
    json!({"type": "system", "subtype": "commands_changed", "commands": commands,
           "session_id": "parked", "uuid": format!("cc-{}", names.join("-"))})
}

/// The names in each report of `on_commands`, as a channel gets them.
fn names(commands: Vec<claude_tools::control::SlashCommand>) -> Vec<String> {
    commands.into_iter().map(|c| c.name).collect()
}

#[tokio::test]
async fn a_parked_spare_reports_its_commands_until_it_is_claimed() {
    let home = TempDir::new("prewarm-home").unwrap();
    let script = canned::initialize()
        .send(commands_changed(&["boom"]))
        .send(commands_changed(&["compact", "deploy"]))
        .then(expect_request("claim_session", "claim", json!({})))
        .send(claim_answer("claim"))
        .send(commands_changed(&["late"]))
        .then(answer_prompt("hello"));
    let fake = Fake::new(script);
    let mut spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .unwrap();
    let offered = names(spare.initialize_info().unwrap().commands.clone());
    let (reports, mut reported) = tokio::sync::mpsc::unbounded_channel();
    spare.on_commands(move |commands| {
        let names = names(commands);
        // A panicking callback is caught; the next change is still reported.
        assert_ne!(names, ["boom"], "the callback panics on this one");
        reports.send(names).unwrap();
    });
    // At once, what `initialize` offered; then each change (the panicking one not delivered).
    assert_eq!(reported.recv().await, Some(offered));
    assert_eq!(
        within("the change", reported.recv()).await,
        Some(vec!["compact".to_string(), "deploy".to_string()])
    );
    let claimed = within(
        "claim",
        spare.claim("hello", ClaimOptions::new("/srv/claimed")),
    )
    .await
    .expect("the claim is taken");
    let messages = within("the session", claimed.messages.collect())
        .await
        .expect("no error items");
    // Claimed: the callback is dropped, and the change after the claim never reached it.
    assert_eq!(within("the callback's end", reported.recv()).await, None);
    // Every change is still in the session's stream, in order.
    let changes: Vec<Vec<String>> = messages
        .iter()
        .filter_map(|m| match m {
            Message::System(system) => match system.event() {
                claude_tools::message::SystemEvent::CommandsChanged(changed) => {
                    Some(names(changed.commands))
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        changes,
        [vec!["boom"], vec!["compact", "deploy"], vec!["late"]]
    );
}

#[tokio::test]
async fn a_closed_or_dead_spare_reports_no_commands() {
    let home = TempDir::new("prewarm-home").unwrap();
    // Closed: the callback is dropped, with nothing after the first report.
    let fake = Fake::new(canned::initialize().expect_eof(Duration::from_secs(10)));
    let mut spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .unwrap();
    let (reports, mut reported) = tokio::sync::mpsc::unbounded_channel();
    spare.on_commands(move |commands| reports.send(names(commands)).unwrap());
    assert!(reported.recv().await.is_some(), "the first report");
    within("close", spare.close()).await;
    assert_eq!(within("the callback's end", reported.recv()).await, None);

    // Dead before the callback was given: not even the first report.
    let fake = Fake::new(canned::initialize().exit_with_stderr(7, "parked spare crashed"));
    let mut spare = within("prewarm", prewarm(options(&fake, home.path())))
        .await
        .unwrap();
    within("the exit", spare.wait_exit()).await;
    let (reports, mut reported) = tokio::sync::mpsc::unbounded_channel();
    spare.on_commands(move |commands| reports.send(names(commands)).unwrap());
    drop(spare);
    assert_eq!(within("the callback's end", reported.recv()).await, None);
}
