//! File checkpointing (`Options::enable_file_checkpointing`) through the real CLI and the
//! scripted model: the model edits one file and writes another with the CLI's own tools, then
//! `rewind_files_dry_run` reports the changes without touching the files, and `rewind_files`
//! puts them back as they were at the user message.

use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::UserInput;
use claude_tools_runtime::options::PermissionMode;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{success_text, within, world};

/// The uuid the prompt is sent under, which the rewind names.
const PROMPT_UUID: &str = "6f1d2c3b-4a59-4e8f-9b7a-0c1d2e3f4a5b";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_files_previews_then_restores_what_the_model_changed() {
    // The script names the files, so they live in a directory of their own, made first.
    let home = claude_tools_testkit::TempDir::new("e2e-rewind").expect("temp dir");
    let notes = home.path().join("notes.txt");
    let created = home.path().join("created.txt");
    let notes_path = notes.display().to_string();
    let created_path = created.display().to_string();
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_read",
            "Read",
            json!({"file_path": notes_path}),
        ))
        .turn(Turn::tool_use(
            "toolu_edit",
            "Edit",
            json!({"file_path": notes_path, "old_string": "original", "new_string": "edited"}),
        ))
        .turn(Turn::tool_use(
            "toolu_write",
            "Write",
            json!({"file_path": created_path, "content": "new file\n"}),
        ))
        .turn(Turn::text("Changed both."));
    let Some(w) = world("file_checkpointing", script).await else {
        return;
    };
    std::fs::write(&notes, "original line\n").expect("notes");
    let options = w
        .options()
        .add_dir(home.path())
        .permission_mode(PermissionMode::AcceptEdits)
        .enable_file_checkpointing(true);
    within("editing, previewing and rewinding", async {
        let mut client = Client::connect(options).await.expect("connect");
        client
            .send(UserInput::text("change the notes").with_uuid(PROMPT_UUID))
            .await
            .expect("send");
        let messages = client.receive_response().await.expect("the response");
        assert_eq!(success_text(&messages), "Changed both.");
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "edited line\n");
        assert_eq!(std::fs::read_to_string(&created).unwrap(), "new file\n");

        let preview = client
            .rewind_files_dry_run(PROMPT_UUID)
            .await
            .expect("dry run");
        assert!(preview.can_rewind, "{preview:?}");
        let mut changed = preview.files_changed.clone().unwrap_or_default();
        changed.sort();
        let mut expected = vec![created_path.clone(), notes_path.clone()];
        expected.sort();
        assert_eq!(changed, expected, "{preview:?}");
        // One line edited (in and out), one line created (and to be removed).
        assert_eq!(
            (preview.insertions, preview.deletions),
            (Some(1), Some(2)),
            "{preview:?}"
        );
        // Nothing touched yet.
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "edited line\n");
        assert!(created.exists());

        let rewind = client.rewind_files(PROMPT_UUID).await.expect("rewind");
        assert!(rewind.can_rewind, "{rewind:?}");
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "original line\n");
        assert!(
            !created.exists(),
            "the file the model created is gone again"
        );
        client.disconnect().await.expect("disconnect");
    })
    .await;
    w.assert_offline();
}
