//! The built-in tools typed, against the real CLI: a `can_use_tool` callback reads typed
//! `Write`, `Edit`, `Read`, `Glob`, `Grep` and `Bash` inputs (files outside the working
//! directory, so that the CLI asks for each) and rewrites `Bash`'s command through a typed
//! input, which the CLI runs; `PreToolUse`/`PostToolUse` hooks and the message stream read
//! the same calls' inputs and outputs typed.
//!
//! With `BUILTIN_TOOLS_RECORD=<file>` set, the session's messages are written there, one JSON
//! line each (how `claude-tools-runtime/tests/fixtures/cli-2.1.332-builtin-tools.ndjson`, the
//! fixture of the typed-parsing benchmark, was made).

use std::sync::{Arc, Mutex};

use claude_tools_runtime::builtin_tools::{
    BashInput, BuiltinToolInput, BuiltinToolOutput, FileReadOutput, GrepOutputMode,
};
use claude_tools_runtime::hooks::{HookEvent, HookMatcher, HookOutput, TypedHookInput};
use claude_tools_runtime::message::Message;
use claude_tools_runtime::permission::PermissionDecision;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::harness::{dump, raw, success_text, world};
use crate::run_query;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_callback_reads_typed_inputs_and_rewrites_a_command() {
    // The script names the files, so they live in a directory of their own, made first, and
    // outside the working directory: the CLI asks before touching them, even to read.
    let outside = claude_tools_testkit::TempDir::new("e2e-builtin").expect("temp dir");
    let notes = outside.path().join("notes.txt");
    let notes_path = notes.display().to_string();
    let outside_path = outside.path().display().to_string();
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_bt_write",
            "Write",
            json!({"file_path": notes_path, "content": "alpha\nbeta\n"}),
        ))
        .turn(Turn::tool_use(
            "toolu_bt_edit",
            "Edit",
            json!({"file_path": notes_path, "old_string": "beta", "new_string": "gamma"}),
        ))
        .turn(Turn::tool_use(
            "toolu_bt_read",
            "Read",
            json!({"file_path": notes_path}),
        ))
        .turn(
            Turn::tool_use(
                "toolu_bt_glob",
                "Glob",
                json!({"pattern": "*.txt", "path": outside_path}),
            )
            .and_tool_use(
                "toolu_bt_grep",
                "Grep",
                json!({"pattern": "gamma", "path": outside_path, "output_mode": "content"}),
            ),
        )
        .turn(Turn::tool_use(
            "toolu_bt_bash",
            "Bash",
            json!({"command": "echo original | tee said.txt", "description": "Say a word"}),
        ))
        .turn(Turn::text("Bash said: {{tool_result}}"));
    let Some(w) = world("builtin_tools_typed", script).await else {
        return;
    };

    let asked: Arc<Mutex<Vec<BuiltinToolInput>>> = Arc::default();
    let asked_in_callback = asked.clone();
    let pre: Arc<Mutex<Vec<BuiltinToolInput>>> = Arc::default();
    let pre_in_hook = pre.clone();
    let post: Arc<Mutex<Vec<BuiltinToolOutput>>> = Arc::default();
    let post_in_hook = post.clone();
    let options = w
        .options()
        .tools(["Write", "Edit", "Read", "Glob", "Grep", "Bash"])
        .can_use_tool(move |request| {
            let typed = request.builtin_input();
            let decision = match &typed {
                Ok(BuiltinToolInput::Bash(bash)) => PermissionDecision::allow_with(BashInput {
                    command: bash.command.replace("original", "rewritten"),
                    ..bash.clone()
                }),
                Ok(BuiltinToolInput::Other { .. }) => PermissionDecision::deny("unexpected tool"),
                Ok(_) => PermissionDecision::allow(),
                Err(error) => PermissionDecision::deny(error.to_string()),
            };
            if let Ok(typed) = typed {
                asked_in_callback.lock().unwrap().push(typed);
            }
            async move { decision }
        })
        .hook(
            HookEvent::PreToolUse,
            HookMatcher::any().callback(move |input| {
                if let TypedHookInput::PreToolUse(call) = input.typed() {
                    pre_in_hook
                        .lock()
                        .unwrap()
                        .push(call.builtin_input().expect("a typed input"));
                }
                async { HookOutput::new() }
            }),
        )
        .hook(
            HookEvent::PostToolUse,
            HookMatcher::any().callback(move |input| {
                if let TypedHookInput::PostToolUse(call) = input.typed() {
                    post_in_hook
                        .lock()
                        .unwrap()
                        .push(call.builtin_output().expect("a typed output"));
                }
                async { HookOutput::new() }
            }),
        );
    let messages = run_query("write, edit, read, find, search, then say a word", options).await;
    if let Some(path) = std::env::var_os("BUILTIN_TOOLS_RECORD") {
        let lines: Vec<String> = messages.iter().map(|m| raw(m).to_string()).collect();
        std::fs::write(path, lines.join("\n") + "\n").expect("record the session");
    }

    // The CLI ran the rewritten command.
    assert_eq!(success_text(&messages), "Bash said: rewritten");
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "alpha\ngamma\n");
    assert_eq!(
        std::fs::read_to_string(w.cwd.join("said.txt")).unwrap(),
        "rewritten\n"
    );

    // The callback was asked about each tool, and read each input typed.
    let asked = asked.lock().unwrap().clone();
    // (Glob and Grep come in one turn, and may be asked about in either order.)
    let mut names: Vec<&str> = asked.iter().map(BuiltinToolInput::tool_name).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["Bash", "Edit", "Glob", "Grep", "Read", "Write"],
        "{asked:#?}\n{:#?}",
        dump(&messages)
    );
    for typed in &asked {
        match typed {
            BuiltinToolInput::Write(write) => {
                assert_eq!(write.file_path, notes_path);
                assert_eq!(write.content, "alpha\nbeta\n");
            }
            BuiltinToolInput::Edit(edit) => {
                assert_eq!(
                    (edit.old_string.as_str(), edit.new_string.as_str()),
                    ("beta", "gamma")
                );
            }
            BuiltinToolInput::Read(read) => assert_eq!(read.file_path, notes_path),
            BuiltinToolInput::Glob(glob) => {
                assert_eq!(glob.pattern, "*.txt");
                assert_eq!(glob.path.as_deref(), Some(outside_path.as_str()));
            }
            BuiltinToolInput::Grep(grep) => {
                assert_eq!(grep.pattern, "gamma");
                assert_eq!(grep.output_mode, Some(GrepOutputMode::Content));
            }
            BuiltinToolInput::Bash(bash) => {
                assert_eq!(bash.command, "echo original | tee said.txt");
                assert_eq!(bash.description.as_deref(), Some("Say a word"));
            }
            other => panic!("{other:?}"),
        }
    }

    // The hooks read the same six calls typed, and each tool's answer typed.
    let pre = pre.lock().unwrap().clone();
    assert_eq!(pre.len(), 6, "{pre:#?}");
    assert!(
        pre.iter()
            .any(|typed| matches!(typed, BuiltinToolInput::Bash(bash) if bash.command == "echo original | tee said.txt")),
        "PreToolUse runs before the permission question, on the model's command: {pre:#?}"
    );
    let post = post.lock().unwrap().clone();
    let bash = post
        .iter()
        .find_map(|output| match output {
            BuiltinToolOutput::Bash(bash) => Some(bash),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{post:#?}"));
    assert_eq!(bash.stdout.trim(), "rewritten");
    assert!(
        post.iter()
            .any(|output| matches!(output, BuiltinToolOutput::Read(FileReadOutput::Text(text)) if text.file.content == "alpha\ngamma\n")),
        "{post:#?}"
    );
    assert!(
        post.iter()
            .any(|output| matches!(output, BuiltinToolOutput::Glob(glob) if glob.filenames == [notes_path.clone()])),
        "{post:#?}"
    );

    // The stream's tool_use blocks and tool_use_results read typed as well.
    let mut names = std::collections::HashMap::new();
    let mut typed_results = 0;
    for message in &messages {
        match message {
            Message::Assistant(assistant) => {
                for block in &assistant.message.content {
                    if let Some(input) = block.builtin_tool_input() {
                        let input = input.expect("a typed tool_use input");
                        assert!(!matches!(input, BuiltinToolInput::Other { .. }));
                        if let claude_tools_runtime::message::ContentBlock::ToolUse {
                            id,
                            name,
                            ..
                        } = block
                        {
                            names.insert(id.clone(), name.clone());
                        }
                    }
                }
            }
            Message::User(user) => {
                for (id, _, _) in user.tool_results() {
                    let name = names.get(id).expect("a result answers a tool_use");
                    if let Some(output) = user.builtin_tool_output(name) {
                        let output =
                            output.unwrap_or_else(|e| panic!("{name}: {e}\n{:#}", raw(message)));
                        assert!(!matches!(output, BuiltinToolOutput::Other { .. }));
                        typed_results += 1;
                    }
                }
            }
            _ => {}
        }
    }
    assert_eq!(typed_results, 6, "{:#?}", dump(&messages));
}
