//! The controls typed in issue 30 through the real CLI, offline: reading a file and seeding the
//! read state, the output styles, usage, the summary context count, a permission-mode override
//! of an MCP server, writing a local setting, the thinking display, a held plugin reload, and
//! `reinitialize`; on a `Client`, and the same handle on a one-shot `query` stream.

use std::time::Duration;

use claude_tools_runtime::Error;
use claude_tools_runtime::client::Client;
use claude_tools_runtime::control::{
    ContextDetail, McpPermissionMode, ReadFile, ReloadPlugins, SettingsUpdate, ThinkingChange,
    UsageQuery,
};
use claude_tools_runtime::options::{Effort, SettingSource, ThinkingDisplay};
use claude_tools_runtime::query::query;
use claude_tools_testkit::model_server::{Script, Turn};

use crate::harness::{within, world};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_answers_the_new_controls_offline() {
    let Some(w) = world("typed_controls", Script::new().turn(Turn::text("ok"))).await else {
        return;
    };
    std::fs::write(w.cwd.join("note.txt"), "hello file\n").expect("a file");
    let options = w.options().setting_sources([SettingSource::Local]);
    within("the new controls", async {
        let client = Client::connect(options).await.expect("connect");

        let file = client
            .read_file("note.txt", ReadFile::new())
            .await
            .expect("read_file");
        assert_eq!(file.contents, "hello file\n");
        assert!(file.abs_path.ends_with("/work/note.txt"), "{file:?}");
        assert_eq!(file.lossy, Some(false));
        let head = client
            .read_file("note.txt", ReadFile::new().max_bytes(3).base64())
            .await
            .expect("read_file base64");
        assert_eq!((head.contents.as_str(), head.truncated), ("aGVs", true));
        assert!(head.is_base64());
        match client.read_file("missing.txt", ReadFile::new()).await {
            Err(Error::Control { subtype, .. }) => assert_eq!(subtype, "read_file"),
            other => panic!("expected the CLI's refusal, got {other:?}"),
        }
        client
            .seed_read_state("note.txt", 1)
            .await
            .expect("seed_read_state");

        let styles = client.reload_output_styles().await.expect("output styles");
        assert!(
            styles
                .available_output_styles
                .iter()
                .any(|s| s == "default"),
            "{styles:?}"
        );

        let usage = client
            .usage(UsageQuery::new().skip_behaviors())
            .await
            .expect("usage");
        // An API-key session: no plan limits.
        assert!(!usage.rate_limits_available, "{usage:?}");
        assert_eq!(usage.rate_limits, None);

        let context = client
            .context_usage_with(ContextDetail::Summary)
            .await
            .expect("context usage");
        assert!(context.total_tokens > 0, "{context:?}");

        let receipt = client
            .set_mcp_permission_mode_override("nope", Some(McpPermissionMode::Default))
            .await
            .expect("override");
        assert!(
            receipt
                .warning
                .as_deref()
                .is_some_and(|w| w.contains("nope")),
            "{receipt:?}"
        );

        client
            .update_settings(SettingsUpdate::local().output_style("Explanatory"))
            .await
            .expect("update_settings");
        let written = std::fs::read_to_string(w.cwd.join(".claude/settings.local.json"))
            .expect("the local settings file");
        assert!(
            written.contains("\"outputStyle\": \"Explanatory\""),
            "{written}"
        );
        // A file outside the session's setting sources is refused.
        match client
            .update_settings(SettingsUpdate::user().effort_level(Effort::High))
            .await
        {
            Err(Error::Control { message, .. }) => {
                assert!(
                    message.contains("userSettings source is disabled"),
                    "{message}"
                )
            }
            other => panic!("expected the CLI's refusal, got {other:?}"),
        }

        client
            .set_thinking(
                ThinkingChange::new()
                    .max_tokens(Some(2048))
                    .display(ThinkingDisplay::Summarized),
            )
            .await
            .expect("thinking");
        client
            .set_thinking(ThinkingChange::new().default_display())
            .await
            .expect("thinking display cleared");

        let reloaded = client
            .reload_plugins_with(ReloadPlugins::new().hold_on_cache_impact().refuse_if_busy())
            .await
            .expect("reload");
        assert_eq!(reloaded.held, Some(false), "{reloaded:?}");

        let fresh = client.reinitialize().await.expect("reinitialize");
        assert_eq!(
            fresh.claude_code_version,
            client.initialize_info().claude_code_version
        );
        client.disconnect().await.expect("disconnect");
    })
    .await;
    w.assert_offline();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_shot_query_stream_reaches_the_controls_a_client_has() {
    // The model takes its time, so the run is still going while the controls are sent.
    let script = Script::new().turn(Turn::text("ok").delay(Duration::from_secs(5)));
    let Some(w) = world("query_controls", script).await else {
        return;
    };
    std::fs::write(w.cwd.join("note.txt"), "from the stream\n").expect("a file");
    within("controls on a query stream", async {
        let mut stream = query("hello", w.options()).await.expect("query starts");
        // Controls only `Client` had before they were shared.
        let file = stream
            .read_file("note.txt", ReadFile::new())
            .await
            .expect("read_file");
        assert_eq!(file.contents, "from the stream\n");
        let rewind = stream
            .rewind_files_dry_run("00000000-0000-0000-0000-000000000000")
            .await
            .expect("rewind dry run");
        assert!(!rewind.can_rewind, "{rewind:?}");
        let answer = stream
            .control_request(serde_json::json!({"subtype": "reload_output_styles"}))
            .await
            .expect("control_request");
        assert!(answer["available_output_styles"].is_array(), "{answer}");
        while let Some(item) = stream.next().await {
            item.expect("no error on the stream");
        }
    })
    .await;
    w.assert_offline();
}
