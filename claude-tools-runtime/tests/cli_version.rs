//! The CLI's version, read from its `initialize` answer: `Client::cli_version`, and a `tracing`
//! warning at connect when it is outside the versions this release was tested with; and the
//! other warning a connect logs, a `can_use_tool` callback shadowed by the options.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools::Client;
use claude_tools::options::Options;
use claude_tools::permission::PermissionDecision;
use claude_tools::transport::MemoryTransport;
use claude_tools::transport::process::{CLI_VERSION, OLDEST_CLI_VERSION};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

const WAIT: Duration = Duration::from_secs(10);

/// The warnings logged, one line of fields each.
#[derive(Clone, Default)]
struct Warnings(Arc<Mutex<Vec<String>>>);

struct Fields<'a>(&'a mut String);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={:?} ", field.name(), value);
    }
}

impl<S: tracing::Subscriber> Layer<S> for Warnings {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        if *event.metadata().level() == tracing::Level::WARN {
            let mut line = String::new();
            event.record(&mut Fields(&mut line));
            self.0.lock().unwrap().push(line);
        }
    }
}

/// Connects to an in-memory CLI whose `initialize` answer is `answer`; returns the client's
/// `cli_version()` and the warnings logged meanwhile.
async fn connect(answer: Value) -> (Option<String>, Vec<String>) {
    connect_with(Options::new(), answer).await
}

/// [`connect`] with these options.
async fn connect_with(options: Options, answer: Value) -> (Option<String>, Vec<String>) {
    let warnings = Warnings::default();
    let _guard =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(warnings.clone()));
    let (transport, mut cli) = MemoryTransport::pair();
    let connecting = tokio::spawn(Client::connect_with(options, transport));
    let initialize = tokio::time::timeout(WAIT, cli.next_json())
        .await
        .expect("initialize in time")
        .unwrap()
        .unwrap();
    assert_eq!(
        initialize["request"]["subtype"], "initialize",
        "{initialize}"
    );
    cli.write_json(
        &json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": initialize["request_id"], "response": answer}}),
    )
    .await
    .unwrap();
    let client = tokio::time::timeout(WAIT, connecting)
        .await
        .expect("connected in time")
        .unwrap()
        .unwrap();
    let version = client.cli_version().map(str::to_owned);
    drop(client);
    let logged = warnings.0.lock().unwrap().clone();
    (version, logged)
}

#[tokio::test(flavor = "current_thread")]
async fn a_tested_cli_connects_without_a_warning() {
    for version in [CLI_VERSION, OLDEST_CLI_VERSION] {
        let (read, warnings) = connect(json!({"claude_code_version": version, "pid": 1})).await;
        assert_eq!(read.as_deref(), Some(version));
        assert!(warnings.is_empty(), "{version}: {warnings:?}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_older_cli_is_warned_about_with_the_version_to_upgrade_to() {
    let (read, warnings) = connect(json!({"claude_code_version": "2.0.1"})).await;
    assert_eq!(read.as_deref(), Some("2.0.1"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("2.0.1 is older than"), "{warnings:?}");
    assert!(
        warnings[0].contains(&format!("upgrade it to {CLI_VERSION}")),
        "{warnings:?}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_newer_cli_is_warned_about_as_untested() {
    let (_, warnings) = connect(json!({"claude_code_version": "2.1.1000"})).await;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("2.1.1000 is newer than the newest claude-tools was tested with"),
        "{warnings:?}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_missing_or_unreadable_version_is_warned_about() {
    let (read, warnings) = connect(json!({"pid": 1})).await;
    assert_eq!(read, None);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("did not report its version"),
        "{warnings:?}"
    );
    let (_, warnings) = connect(json!({"claude_code_version": "nightly"})).await;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("cannot read"), "{warnings:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_shadowed_can_use_tool_is_warned_about_at_connect() {
    let tested = json!({"claude_code_version": CLI_VERSION, "pid": 1});
    let options = Options::new()
        .can_use_tool(|_request| async { PermissionDecision::allow() })
        .allowed_tools(["Read", "Bash(git status:*)"]);
    let (_, warnings) = connect_with(options, tested.clone()).await;
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("code=\"CLAUDE_SDK_CAN_USE_TOOL_SHADOWED\""),
        "{warnings:?}"
    );
    assert!(
        warnings[0].contains("will not be called for: Read."),
        "{warnings:?}"
    );
    // A rule with a specifier leaves the callback its calls: no warning.
    let narrowed = Options::new()
        .can_use_tool(|_request| async { PermissionDecision::allow() })
        .allowed_tools(["Bash(git status:*)"]);
    let (_, warnings) = connect_with(narrowed, tested).await;
    assert!(warnings.is_empty(), "{warnings:?}");
}
