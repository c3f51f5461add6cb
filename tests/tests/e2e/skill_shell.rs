//! The `PreSkillShellCommand` hook through the real CLI: a project slash command whose text
//! embeds a shell command (`` !`…` ``, run when the command is loaded), and a host hook that
//! decides whether it runs. What the CLI 2.1.332 does, as observed on the wire:
//!
//! - it calls the hook before running the command, with the command as it would run, the
//!   slash command's name and where it came from, and who loaded it;
//! - a refusal (or any `updatedInput`: a changed command is never run) keeps the command from
//!   running, and the model reads `[not run: blocked by hook: <reason>]` in its place;
//! - a hook with no opinion lets it run, and the model reads the command's output.

use std::sync::{Arc, Mutex};

use claude_tools_runtime::hooks::{
    HookEvent, HookInput, HookMatcher, HookOutput, InvokedBy, TypedHookInput,
};
use claude_tools_runtime::options::SettingSource;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::{Value, json};

use crate::harness::{last_user_blocks, success_text, world};
use crate::run_query;

/// A project command whose text runs a shell command that leaves a file behind.
const STAMP_COMMAND: &str = "---\n\
    allowed-tools: Bash(touch:*), Bash(echo:*)\n\
    description: Stamps the working directory\n\
    ---\n\
    Stamp: !`touch stamped.txt && echo stamped`\n";

/// The hook's calls: its input and the request's `tool_use_id`.
type HookCalls = Arc<Mutex<Vec<(Value, Option<String>)>>>;

/// What one `/stamp` run showed.
struct Stamped {
    /// The hook inputs, in order.
    hook_inputs: Vec<Value>,
    /// The `tool_use_id` of each hook request.
    hook_tool_use_ids: Vec<Option<String>>,
    /// Whether the shell command ran (it leaves `stamped.txt`).
    ran: bool,
    /// The line of the expanded command the model was sent.
    model_read: String,
}

/// Runs `/stamp` in a project that defines it, with a `PreSkillShellCommand` hook answering
/// `answer`.
async fn stamp(test: &str, answer: HookOutput) -> Option<Stamped> {
    let w = world(test, Script::new().turn(Turn::text("Seen."))).await?;
    let commands = w.cwd.join(".claude/commands");
    std::fs::create_dir_all(&commands).expect("commands dir");
    std::fs::write(commands.join("stamp.md"), STAMP_COMMAND).expect("the command");
    let seen = HookCalls::default();
    let seen_in_hook = seen.clone();
    // Project settings: where the CLI finds the project's commands.
    let options = w.options().setting_sources([SettingSource::Project]).hook(
        HookEvent::PreSkillShellCommand,
        HookMatcher::any().callback(move |input| {
            seen_in_hook
                .lock()
                .unwrap()
                .push((Value::Object(input.raw.clone()), input.tool_use_id.clone()));
            let answer = answer.clone();
            async move { answer }
        }),
    );
    let messages = run_query("/stamp", options).await;
    assert_eq!(success_text(&messages), "Seen.");
    w.assert_offline();
    let turns = w.turns();
    assert_eq!(turns.len(), 1, "one model request");
    let model_read = last_user_blocks(&turns[0])
        .iter()
        .filter_map(|b| b["text"].as_str())
        .find(|text| text.starts_with("Stamp: "))
        .unwrap_or_else(|| panic!("no expanded command in {:#?}", last_user_blocks(&turns[0])))
        .trim_end()
        .to_string();
    let (hook_inputs, hook_tool_use_ids) = seen.lock().unwrap().iter().cloned().unzip();
    Some(Stamped {
        hook_inputs,
        hook_tool_use_ids,
        ran: w.cwd.join("stamped.txt").exists(),
        model_read,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_skill_shell_command_hook_keeps_a_commands_shell_line_from_running() {
    let Some(denied) = stamp(
        "skill_shell_denied",
        HookOutput::new().deny_tool("no shell in commands"),
    )
    .await
    else {
        return;
    };
    let [input] = denied.hook_inputs.as_slice() else {
        panic!("one hook call: {:#?}", denied.hook_inputs)
    };
    assert_eq!(input["hook_event_name"], "PreSkillShellCommand");
    assert_eq!(input["tool_name"], "Bash");
    assert_eq!(
        input["tool_input"],
        json!({"command": "touch stamped.txt && echo stamped"})
    );
    assert_eq!(input["command_name"], "stamp");
    assert_eq!(input["command_source"], "projectSettings");
    assert_eq!(input["invoked_by"], "user");
    // The request carries the input's id, which names no tool call of the transcript.
    let id = input["tool_use_id"].as_str().expect("tool_use_id");
    assert_eq!(denied.hook_tool_use_ids, [Some(id.to_string())]);
    // The same input, typed.
    let TypedHookInput::PreSkillShellCommand(typed) =
        HookInput::from_raw(input.as_object().expect("an object").clone()).typed()
    else {
        panic!("not typed as PreSkillShellCommand: {input:#}")
    };
    assert_eq!(typed.tool_name, "Bash");
    assert_eq!(
        typed.tool_input.command,
        "touch stamped.txt && echo stamped"
    );
    assert_eq!(typed.command_name, "stamp");
    assert_eq!(typed.command_source.as_deref(), Some("projectSettings"));
    assert_eq!(typed.invoked_by, InvokedBy::User);
    assert_eq!(typed.tool_use_id, id);
    assert!(!denied.ran, "the command ran although the hook refused it");
    assert_eq!(
        denied.model_read,
        "Stamp: [not run: blocked by hook: no shell in commands]"
    );

    // A changed command is not run either.
    let Some(changed) = stamp(
        "skill_shell_changed",
        HookOutput::new().updated_input(json!({"command": "echo changed"})),
    )
    .await
    else {
        return;
    };
    assert_eq!(changed.hook_inputs.len(), 1);
    assert!(!changed.ran, "the command ran although the hook changed it");
    assert!(
        changed
            .model_read
            .starts_with("Stamp: [not run: blocked by hook: "),
        "{}",
        changed.model_read
    );

    // With no opinion the same command runs: the refusals above are the hook's.
    let Some(allowed) = stamp("skill_shell_no_opinion", HookOutput::new()).await else {
        return;
    };
    assert_eq!(allowed.hook_inputs.len(), 1);
    assert!(allowed.ran, "the command did not run");
    assert_eq!(allowed.model_read, "Stamp: stamped");
}
