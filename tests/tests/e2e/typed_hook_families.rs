//! The typed hook families `typed_hooks.rs` leaves out, through the real CLI 2.1.332 and the
//! scripted model: each callback reads its input through `HookInput::typed`, and where the
//! event's answer can change what the CLI does, answers with a typed output and the test sees
//! the CLI act on it.
//!
//! What the CLI 2.1.332 does for a host's (SDK) callback, event by event, as observed here (and
//! read in its bundle where the wire says nothing):
//!
//! | event | proven by | how it is provoked offline; what the CLI reads of a callback's answer |
//! |---|---|---|
//! | `PreCompact` | `pre_and_post_compact_read_the_trigger_the_instructions_and_the_summary`, `pre_compact_a_block_keeps_the_conversation_from_being_compacted` | `/compact <instructions>`; a block refuses the compaction |
//! | `PostCompact` | `pre_and_post_compact_read_the_trigger_the_instructions_and_the_summary` | after the summary; only the answer's `systemMessage` is kept, for display |
//! | `Notification` | `notification_the_answer_to_an_elicitation_is_read`, `notification_a_permission_request_left_waiting_is_read` | the answer to an MCP elicitation (`elicitation_response`); a permission request the host has left unanswered for 6 s (`permission_prompt`); the answer is not read |
//! | `Elicitation` | `elicitation_the_question_is_read_and_a_block_declines_it` | an MCP tool that elicits (`echo-mcp`'s `confirm`); only a block is read (it declines): a callback's `action`/`content` are not |
//! | `ElicitationResult` | `elicitation_result_the_answer_is_read_and_a_block_turns_it_into_a_refusal` | after the host answered; only a block is read (the answer becomes a decline) |
//! | `PreModelSwitch` | `pre_model_switch_a_typed_deny_keeps_the_model` | `Client::set_model` (`source: sdk`; a `/model` prompt gives `command`); a deny refuses the switch |
//! | `PostModelSwitch` | `post_model_switch_its_context_reaches_the_new_model` | after the switch; `additionalContext` goes with the next request |
//! | `TaskCreated` | `task_created_and_completed_are_read_and_a_block_refuses_each` | `TaskCreate` (offered with `CLAUDE_CODE_ENABLE_TODO_TOOLS=1` or in a team); a block refuses the task |
//! | `TaskCompleted` | `task_created_and_completed_are_read_and_a_block_refuses_each` | `TaskUpdate` to `completed`; a block refuses it |
//! | `TeammateIdle` | `teammate_idle_is_read_and_a_block_keeps_the_teammate_working` | a session started as a teammate (`--agent-id`, `--agent-name`, `--team-name`, agent teams on) ends its turn; a block keeps it working |
//! | `CwdChanged` | `cwd_changed_the_old_and_new_directories_are_read` | a Bash `cd`, only when a settings file registers a `CwdChanged` or `FileChanged` hook (the watcher's guard reads the settings' hooks alone); a callback's `watchPaths` are not read |
//! | `FileChanged` | `file_changed_a_watched_files_change_is_read` | a change to a file a settings file's `FileChanged` hook names; a callback's `watchPaths` are not read |
//! | `InstructionsLoaded` | `instructions_loaded_a_nested_claude_md_is_read` | a nested `CLAUDE.md`, when the model reads a file below it (the project's own is loaded at start-up, sometimes before the host's hooks are registered); the answer is not read |
//! | `ConfigChange` | `config_change_is_read_and_a_block_keeps_the_old_settings` | a project settings file written while the session runs; a block keeps the old settings |
//! | `WorktreeCreate` | `worktree_create_a_typed_path_is_where_the_session_goes_and_remove_gets_it_back` | `EnterWorktree`; the answer's `worktreePath` is where the session goes (no git needed) |
//! | `WorktreeRemove` | `worktree_create_a_typed_path_is_where_the_session_goes_and_remove_gets_it_back` | `ExitWorktree` with `remove`, for a worktree a hook created; the hook removes it |
//! | `DirectoryAdded` | `directory_added_a_registered_repo_root_is_read` | a `register_repo_root` control request (`/add-dir` is interactive only); the answer is not read |
//! | `SessionEnd` | `session_end_clear_ends_the_session_with_its_reason` | `/clear`; at the end of the process the host can no longer be called (a command hook then gets `reason: other`) |
//! | `PostToolUseFailure` | `post_tool_use_failure_the_error_is_read_and_its_context_reaches_the_model` | an in-process tool returning an error; `additionalContext` reaches the model |
//! | `PostToolBatch` | `post_tool_batch_every_call_is_read_and_its_context_reaches_the_model` | two tool calls in one answer; `additionalContext` reaches the model |
//! | `PermissionDenied` | `permission_denied_the_refusal_is_read_and_a_retry_is_offered_to_the_model` | auto mode, whose classifier is unavailable offline, refuses a write outside the working directory; `retry` tells the model it may try once more |
//! | `StopFailure` | `stop_failure_the_api_error_is_read` | the model answering HTTP 400; the answer is not read |
//! | `SubagentStop` | `subagent_stop_is_read_and_its_context_makes_the_subagent_go_on_once` | a `Task` subagent ending; `additionalContext` makes it go on |
//! | `UserPromptExpansion` | `user_prompt_expansion_the_command_is_read_and_its_context_goes_with_it` | a project slash command; `additionalContext` goes with the expanded prompt |
//! | `MessageDisplay` | `message_display_the_text_is_read_and_the_host_is_shown_the_hooks_instead` | each completed assistant message; the host is sent `displayContent` in place of the text, the model keeps its own |
//! | `PreSkillShellCommand` | `skill_shell::a_pre_skill_shell_command_hook_keeps_a_commands_shell_line_from_running` | a project command's `` !`…` `` line; a refusal keeps it from running |
//! | `Setup` | not proven | `--init` (or `--maintenance`) runs `Setup` in the CLI's start-up prologue, before it reads the `initialize` request that registers the host's hooks: with `--init`, a `Setup` command hook of `--settings` ran (it left a marker file) while the host's callback, registered for every event, was never called |
//!
//! The events whose answer the CLI reads through its non-streaming hook runner (`PreCompact`,
//! `PostCompact`, `Notification`, `Elicitation`, `ElicitationResult`, `CwdChanged`,
//! `FileChanged`, `InstructionsLoaded`, `ConfigChange`, `WorktreeCreate`, `WorktreeRemove`,
//! `DirectoryAdded`, `SessionEnd`, `StopFailure`) keep of a callback's answer only
//! `systemMessage`, `decision: block` and, for `WorktreeCreate`, `worktreePath`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_tools_runtime::client::Client;
use claude_tools_runtime::elicitation::ElicitationAnswer;
use claude_tools_runtime::hooks::{
    ConfigChangeInput, ConfigSource, ContextOutput, CwdChangedInput, DirectoryAddedInput,
    DirectorySource, ElicitationAction, ElicitationInput, ElicitationMode, ElicitationResultInput,
    ExitReason, ExpansionType, FileChangedInput, FileEvent, HookEvent, HookMatcher, HookOutput,
    HookPermissionDecision, HookSpecificOutput, InstructionsLoadedInput, LoadReason,
    MessageDisplayInput, MessageDisplayOutput, ModelSwitchInput, NotificationInput,
    PermissionDeniedInput, PermissionDeniedOutput, PostCompactInput, PostToolBatchInput,
    PostToolUseFailureInput, PreCompactInput, PreToolUseOutput, SessionEndInput, StopFailureInput,
    SubagentStopInput, TaskInput, TeammateIdleInput, TypedHookInput, UserPromptExpansionInput,
    UserPromptSubmitOutput, WorktreeCreateInput, WorktreeCreateOutput, WorktreeRemoveInput,
};
use claude_tools_runtime::message::{ApiErrorKind, Message, Trigger};
use claude_tools_runtime::options::{ExternalServer, Options, PermissionMode, SettingSource};
use claude_tools_runtime::permission::PermissionDecision;
use claude_tools_testkit::model_server::{RecordedRequest, Script, Turn};
use serde_json::{Value, json};

use crate::harness::{World, dump, raw, result_of, success_text, tr, within, world};
use crate::typed_hooks::{Seen, sent};
use crate::{run_query, tools};

/// A matcher for every occurrence of its event: the callback reads the input typed, keeps what
/// `pick` takes out of it (nothing when the input is another event's, or did not fit its type)
/// in `seen`, and answers with `answer` of it (no opinion when nothing was taken).
fn recording<T: Clone + Send + 'static>(
    seen: &Seen<T>,
    pick: fn(TypedHookInput) -> Option<T>,
    answer: impl Fn(&T) -> HookOutput + Send + Sync + 'static,
) -> HookMatcher {
    let seen = seen.clone();
    HookMatcher::any().callback(move |input| {
        let output = match pick(input.typed()) {
            Some(typed) => {
                let output = answer(&typed);
                seen.lock().unwrap().push(typed);
                output
            }
            None => HookOutput::new(),
        };
        std::future::ready(output)
    })
}

/// No opinion.
fn no_opinion<T>(_: &T) -> HookOutput {
    HookOutput::new()
}

/// Sends each prompt in turn on one connection and collects every message.
async fn converse(what: &str, options: Options, prompts: &[&str]) -> Vec<Message> {
    within(what, async {
        let mut client = Client::connect(options).await.expect("connect");
        let mut all = Vec::new();
        for prompt in prompts {
            client.query(*prompt).await.expect("query");
            all.extend(client.receive_response().await.expect("response"));
        }
        client.disconnect().await.expect("disconnect");
        all
    })
    .await
}

/// The text of every assistant message, in order.
fn assistant_texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(raw)
        .filter(|m| m["type"] == "assistant")
        .map(|m| {
            m["message"]["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["text"].as_str())
                .collect::<String>()
        })
        .filter(|text| !text.is_empty())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Compaction
// ---------------------------------------------------------------------------------------------

/// `/compact <instructions>`: a summary request in the middle (the scripted model answers it).
fn compact_script() -> Script {
    Script::new()
        .turn(Turn::text("Hi there."))
        .turn(Turn::text("<summary>The user said hello.</summary>"))
        .turn(Turn::text("Noted."))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_and_post_compact_read_the_trigger_the_instructions_and_the_summary() {
    let Some(w) = world("typed_compact", compact_script()).await else {
        return;
    };
    let pre: Seen<PreCompactInput> = Seen::default();
    let post: Seen<PostCompactInput> = Seen::default();
    let options = w
        .options()
        .hook(
            HookEvent::PreCompact,
            recording(
                &pre,
                |t| match t {
                    TypedHookInput::PreCompact(i) => Some(i),
                    _ => None,
                },
                no_opinion,
            ),
        )
        .hook(
            HookEvent::PostCompact,
            recording(
                &post,
                |t| match t {
                    TypedHookInput::PostCompact(i) => Some(i),
                    _ => None,
                },
                no_opinion,
            ),
        );
    let messages = converse(
        "compact scenario",
        options,
        &["hello", "/compact keep the greetings", "again"],
    )
    .await;
    let pre = pre.lock().unwrap().clone();
    let [pre] = pre.as_slice() else {
        panic!("one PreCompact: {pre:#?}\n{:#?}", dump(&messages))
    };
    assert_eq!(pre.trigger, Trigger::Manual);
    assert_eq!(
        pre.custom_instructions.as_deref(),
        Some("keep the greetings")
    );
    assert_eq!(pre.base.cwd, w.cwd.display().to_string());
    let post = post.lock().unwrap().clone();
    let [post] = post.as_slice() else {
        panic!("one PostCompact: {post:#?}")
    };
    assert_eq!(post.trigger, Trigger::Manual);
    assert_eq!(
        post.compact_summary,
        "<summary>The user said hello.</summary>"
    );
    // The compaction happened: the last request starts from the summary.
    let last = w
        .turns()
        .last()
        .cloned()
        .expect("a request after the compaction");
    assert!(sent(&last, "The user said hello."), "{:#?}", last.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_compact_a_block_keeps_the_conversation_from_being_compacted() {
    let script = Script::new()
        .turn(Turn::text("Hi there."))
        .turn(Turn::text("Still here."));
    let Some(w) = world("typed_pre_compact_block", script).await else {
        return;
    };
    let pre: Seen<PreCompactInput> = Seen::default();
    let post: Seen<PostCompactInput> = Seen::default();
    let options = w
        .options()
        .hook(
            HookEvent::PreCompact,
            recording(
                &pre,
                |t| match t {
                    TypedHookInput::PreCompact(i) => Some(i),
                    _ => None,
                },
                |_| HookOutput::new().block("COMPACTION-REFUSED"),
            ),
        )
        .hook(
            HookEvent::PostCompact,
            recording(
                &post,
                |t| match t {
                    TypedHookInput::PostCompact(i) => Some(i),
                    _ => None,
                },
                no_opinion,
            ),
        );
    let messages = converse(
        "blocked compact scenario",
        options,
        &["hello", "/compact", "again"],
    )
    .await;
    assert_eq!(pre.lock().unwrap().len(), 1, "{:#?}", dump(&messages));
    assert_eq!(*post.lock().unwrap(), []);
    // No summary was asked for: the second turn of the script answered `again`, and the
    // model still saw the first exchange as it was.
    let turns = w.turns();
    assert_eq!(turns.len(), 2, "{:#?}", dump(&messages));
    assert!(sent(&turns[1], "Hi there."), "{:#?}", turns[1].body);
    assert_eq!(assistant_texts(&messages).last().unwrap(), "Still here.");
}

// ---------------------------------------------------------------------------------------------
// MCP elicitation, and the notification that reports its answer
// ---------------------------------------------------------------------------------------------

/// The model calls the echo server's `confirm` tool, which asks the user (elicitation), and
/// then quotes what the tool answered.
fn confirm_script() -> Script {
    Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_confirm",
            "mcp__echo__confirm",
            json!({"question": "Deploy billing-api?"}),
        ))
        .turn(Turn::text("{{tool_result:toolu_typed_confirm}}"))
}

/// The echo MCP server (an external stdio process), its `confirm` tool allowed. No
/// `on_elicitation` callback: without a hook, the CLI declines the question.
fn with_echo(options: Options) -> Options {
    let echo = ExternalServer::stdio(env!("CARGO_BIN_EXE_echo-mcp"), Vec::<String>::new());
    options
        .external_mcp_server("echo", echo)
        .allowed_tools(["mcp__echo__confirm"])
}

/// A host that accepts every question with `{"approve": true, "note": "from the host"}`, and
/// counts the questions it was asked.
fn accepting_host(options: Options, asked: &Arc<Mutex<usize>>) -> Options {
    let asked = asked.clone();
    options.on_elicitation(move |request| {
        *asked.lock().unwrap() += 1;
        async move {
            ElicitationAnswer::accept(&request, json!({"approve": true, "note": "from the host"}))
                .expect("the answer fits the form")
        }
    })
}

/// What the echo server reports when the host's answer reaches it.
const HOST_ACCEPTED: &str = r#"confirm: accept {"approve":true,"note":"from the host"}"#;

/// The CLI 2.1.332 reads a host callback's answer to `Elicitation` as a block or not: a block
/// declines the question before anyone is asked. It does not read the callback's
/// `hookSpecificOutput` (`action`, `content`): it keeps only `systemMessage` and
/// `decision: block` of a callback's answer for this event (a command hook's JSON on stdout is
/// read whole).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_the_question_is_read_and_a_block_declines_it() {
    let Some(w) = world("typed_elicitation", confirm_script()).await else {
        return;
    };
    let seen: Seen<ElicitationInput> = Seen::default();
    let asked = Arc::new(Mutex::new(0));
    let options = accepting_host(with_echo(w.options()), &asked).hook(
        HookEvent::Elicitation,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::Elicitation(i) => Some(i),
                _ => None,
            },
            |_| HookOutput::new().block("no deploys today"),
        ),
    );
    let messages = run_query("deploy", options).await;
    assert_eq!(success_text(&messages), "confirm: decline");
    assert_eq!(*asked.lock().unwrap(), 0, "the host was asked all the same");
    let seen = seen.lock().unwrap().clone();
    let [question] = seen.as_slice() else {
        panic!("one Elicitation: {seen:#?}")
    };
    assert_eq!(question.mcp_server_name, "echo");
    assert_eq!(question.message, "Deploy billing-api?");
    assert_eq!(question.mode, Some(ElicitationMode::Form));
    assert_eq!(
        question.requested_schema.clone().map(Value::Object),
        Some(claude_tools_testkit::stdio_mcp::confirm_schema())
    );
}

/// As for `Elicitation`, the CLI 2.1.332 reads only a block from a host callback's answer to
/// `ElicitationResult`: the host's answer is replaced by a refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_result_the_answer_is_read_and_a_block_turns_it_into_a_refusal() {
    let Some(w) = world("typed_elicitation_result", confirm_script()).await else {
        return;
    };
    let seen: Seen<ElicitationResultInput> = Seen::default();
    let asked = Arc::new(Mutex::new(0));
    let options = accepting_host(with_echo(w.options()), &asked).hook(
        HookEvent::ElicitationResult,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::ElicitationResult(i) => Some(i),
                _ => None,
            },
            |_| HookOutput::new().block("answer withdrawn"),
        ),
    );
    let messages = run_query("deploy", options).await;
    assert_eq!(success_text(&messages), "confirm: decline");
    assert_eq!(*asked.lock().unwrap(), 1);
    let seen = seen.lock().unwrap().clone();
    let [answered] = seen.as_slice() else {
        panic!("one ElicitationResult: {seen:#?}")
    };
    assert_eq!(answered.mcp_server_name, "echo");
    assert_eq!(answered.mode, Some(ElicitationMode::Form));
    assert_eq!(answered.action, ElicitationAction::Accept);
    assert_eq!(
        answered.content.clone().map(Value::Object),
        Some(json!({"approve": true, "note": "from the host"}))
    );
}

/// In a headless session the CLI notifies of an elicitation's answer (`elicitation_response`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notification_the_answer_to_an_elicitation_is_read() {
    let Some(w) = world("typed_notification", confirm_script()).await else {
        return;
    };
    let seen: Seen<NotificationInput> = Seen::default();
    let asked = Arc::new(Mutex::new(0));
    let options = accepting_host(with_echo(w.options()), &asked).hook(
        HookEvent::Notification,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::Notification(i) => Some(i),
                _ => None,
            },
            no_opinion,
        ),
    );
    let messages = run_query("deploy", options).await;
    assert_eq!(success_text(&messages), HOST_ACCEPTED);
    let seen = seen.lock().unwrap().clone();
    let [notice] = seen.as_slice() else {
        panic!("one Notification: {seen:#?}")
    };
    assert_eq!(notice.notification_type, "elicitation_response");
    assert_eq!(
        notice.message,
        r#"Elicitation response for server "echo": accept"#
    );
    assert!(!notice.base.session_id.is_empty());
}

/// A permission request the host leaves unanswered for 6 s brings a `permission_prompt`
/// notification: the host's permission callback here answers only once the hook heard of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notification_a_permission_request_left_waiting_is_read() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_wait",
            "mcp__e2e__greet",
            json!({"name": "Pat"}),
        ))
        .turn(Turn::text("Said: {{tool_result}}"));
    let Some(w) = world("typed_notification_permission", script).await else {
        return;
    };
    let (server, lab) = tools::server(0);
    let seen: Seen<NotificationInput> = Seen::default();
    let notified = Arc::new(tokio::sync::Notify::new());
    let notified_in_hook = notified.clone();
    let options = w
        .options()
        .mcp_server(server)
        .can_use_tool(move |_request| {
            let notified = notified.clone();
            async move {
                notified.notified().await;
                PermissionDecision::allow()
            }
        })
        .hook(
            HookEvent::Notification,
            recording(
                &seen,
                |t| match t {
                    TypedHookInput::Notification(i) => Some(i),
                    _ => None,
                },
                move |_| {
                    notified_in_hook.notify_one();
                    HookOutput::new()
                },
            ),
        );
    let messages = run_query("greet Pat", options).await;
    assert_eq!(success_text(&messages), "Said: Hello, Pat!");
    assert_eq!(lab.received().len(), 1);
    let seen = seen.lock().unwrap().clone();
    let [notice] = seen.as_slice() else {
        panic!("one Notification: {seen:#?}")
    };
    assert_eq!(notice.notification_type, "permission_prompt");
    // The tool by its display name.
    assert_eq!(notice.message, "Claude needs your permission to use Greet");
}

// ---------------------------------------------------------------------------------------------
// Model switch
// ---------------------------------------------------------------------------------------------

/// The `model` of each request the scripted model answered.
fn models(w: &World) -> Vec<String> {
    w.turns()
        .iter()
        .map(|t| {
            t.body.as_ref().expect("a body")["model"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// Asks one prompt, switches to `to` with `Client::set_model`, asks another; returns what the
/// switch answered.
async fn switch_between_prompts(
    options: Options,
    to: &str,
) -> claude_tools_runtime::Result<claude_tools_runtime::control::ModelReceipt> {
    within("model switch scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("one").await.expect("query");
        let _ = success_text(&client.receive_response().await.expect("response"));
        let switched = client.set_model(Some(to)).await;
        client.query("two").await.expect("query");
        let _ = success_text(&client.receive_response().await.expect("response"));
        client.disconnect().await.expect("disconnect");
        switched
    })
    .await
}

fn two_answers() -> Script {
    Script::new()
        .turn(Turn::text("One."))
        .turn(Turn::text("Two."))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_model_switch_a_typed_deny_keeps_the_model() {
    let Some(w) = world("typed_pre_model_switch", two_answers()).await else {
        return;
    };
    let seen: Seen<ModelSwitchInput> = Seen::default();
    let options = w.options().hook(
        HookEvent::PreModelSwitch,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::PreModelSwitch(i) => Some(i),
                _ => None,
            },
            |_| {
                HookOutput::new().specific(HookSpecificOutput::PreModelSwitch(
                    PreToolUseOutput::default()
                        .permission_decision(HookPermissionDecision::Deny)
                        .permission_decision_reason("MODEL-PINNED"),
                ))
            },
        ),
    );
    let switched = switch_between_prompts(options, "claude-haiku-4-5").await;
    let seen = seen.lock().unwrap().clone();
    let [switch] = seen.as_slice() else {
        panic!("one PreModelSwitch: {seen:#?}")
    };
    assert_eq!(switch.to_model, "claude-haiku-4-5");
    assert_eq!(switch.requested_model.as_deref(), Some("claude-haiku-4-5"));
    assert_eq!(switch.source, "sdk");
    assert_ne!(switch.from_model, switch.to_model);
    assert!(switch.context_tokens > 0, "{switch:#?}");
    // The switch was refused and the second prompt went to the model of the first.
    assert!(
        switched
            .as_ref()
            .is_err_and(|e| e.to_string().contains("MODEL-PINNED")),
        "{switched:?}"
    );
    let models = models(&w);
    assert_eq!(models.len(), 2);
    assert_eq!(models[0], switch.from_model);
    assert_eq!(models[1], switch.from_model);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_model_switch_its_context_reaches_the_new_model() {
    let Some(w) = world("typed_post_model_switch", two_answers()).await else {
        return;
    };
    let seen: Seen<ModelSwitchInput> = Seen::default();
    let options = w.options().hook(
        HookEvent::PostModelSwitch,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::PostModelSwitch(i) => Some(i),
                _ => None,
            },
            |switch| {
                HookOutput::new().specific(HookSpecificOutput::PostModelSwitch(
                    ContextOutput::default()
                        .additional_context(format!("SWITCHED-TO-{}", switch.to_model)),
                ))
            },
        ),
    );
    let switched = switch_between_prompts(options, "claude-haiku-4-5").await;
    assert_eq!(
        switched.expect("switched").model.as_deref(),
        Some("claude-haiku-4-5")
    );
    let seen = seen.lock().unwrap().clone();
    let [switch] = seen.as_slice() else {
        panic!("one PostModelSwitch: {seen:#?}")
    };
    assert_eq!(switch.to_model, "claude-haiku-4-5");
    assert_eq!(switch.source, "sdk");
    let turns = w.turns();
    assert_eq!(models(&w), [switch.from_model.as_str(), "claude-haiku-4-5"]);
    assert!(!sent(&turns[0], "SWITCHED-TO"));
    assert!(
        sent(&turns[1], "SWITCHED-TO-claude-haiku-4-5"),
        "{:#?}",
        turns[1].body
    );
}

// ---------------------------------------------------------------------------------------------
// Tasks and teams
// ---------------------------------------------------------------------------------------------

/// The task list tools (`TaskCreate`, `TaskUpdate`…), which the CLI 2.1.332 offers a headless
/// session only with `CLAUDE_CODE_ENABLE_TODO_TOOLS` (or in an agent team).
fn with_task_tools(options: Options) -> Options {
    options
        .env("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1")
        .allowed_tools(["TaskCreate", "TaskUpdate"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_created_and_completed_are_read_and_a_block_refuses_each() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_task_ship",
            "TaskCreate",
            json!({"subject": "Ship it", "description": "Ship the release"}),
        ))
        .turn(Turn::tool_use(
            "toolu_task_done",
            "TaskUpdate",
            json!({"taskId": "1", "status": "completed"}),
        ))
        .turn(Turn::tool_use(
            "toolu_task_yolo",
            "TaskCreate",
            json!({"subject": "Skip the tests", "description": "Just ship"}),
        ))
        .turn(Turn::text("Done."));
    let Some(w) = world("typed_tasks", script).await else {
        return;
    };
    let created: Seen<TaskInput> = Seen::default();
    let completed: Seen<TaskInput> = Seen::default();
    let options = with_task_tools(w.options())
        .hook(
            HookEvent::TaskCreated,
            recording(
                &created,
                |t| match t {
                    TypedHookInput::TaskCreated(i) => Some(i),
                    _ => None,
                },
                |task| {
                    if task.task_subject.contains("tests") {
                        HookOutput::new().block("NO-SKIPPING-TESTS")
                    } else {
                        HookOutput::new()
                    }
                },
            ),
        )
        .hook(
            HookEvent::TaskCompleted,
            recording(
                &completed,
                |t| match t {
                    TypedHookInput::TaskCompleted(i) => Some(i),
                    _ => None,
                },
                |_| HookOutput::new().block("TESTS-STILL-RED"),
            ),
        );
    let messages = run_query("plan the release", options).await;
    assert_eq!(success_text(&messages), "Done.");
    let created = created.lock().unwrap().clone();
    let subjects: Vec<_> = created
        .iter()
        .map(|t| (t.task_subject.as_str(), t.task_description.as_deref()))
        .collect();
    assert_eq!(
        subjects,
        [
            ("Ship it", Some("Ship the release")),
            ("Skip the tests", Some("Just ship"))
        ]
    );
    assert_eq!(created[0].task_id, "1");
    assert_eq!(created[0].teammate_name, None);
    let completed = completed.lock().unwrap().clone();
    let [done] = completed.as_slice() else {
        panic!("one TaskCompleted: {completed:#?}")
    };
    assert_eq!(
        (done.task_id.as_str(), done.task_subject.as_str()),
        ("1", "Ship it")
    );
    // Both refusals reached the model in the tools' results.
    let results = w.tool_results();
    assert_eq!(results.len(), 3, "{results:#?}");
    assert_eq!(
        results[0],
        tr(
            "toolu_task_ship",
            "Task #1 created successfully: Ship it",
            false
        )
    );
    assert!(
        results[1].0 == "toolu_task_done" && results[1].1.contains("TESTS-STILL-RED"),
        "{results:#?}"
    );
    assert!(
        results[2].0 == "toolu_task_yolo"
            && results[2].2
            && results[2].1.contains("NO-SKIPPING-TESTS"),
        "{results:#?}"
    );
}

/// `TeammateIdle` fires when a teammate of an agent team ends its turn. A lead starts each
/// teammate as a CLI of its own with `--agent-id`, `--agent-name` and `--team-name`: this
/// session is such a teammate, and the hook keeps it working once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn teammate_idle_is_read_and_a_block_keeps_the_teammate_working() {
    let script = Script::new()
        .turn(Turn::text("Idle now."))
        .turn(Turn::text("Back at it."));
    let Some(w) = world("typed_teammate_idle", script).await else {
        return;
    };
    let seen: Seen<TeammateIdleInput> = Seen::default();
    let options = w
        .options()
        .env("CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS", "1")
        .extra_arg("--agent-id", Some("helper@crew".into()))
        .extra_arg("--agent-name", Some("helper".into()))
        .extra_arg("--team-name", Some("crew".into()))
        .hook(
            HookEvent::TeammateIdle,
            recording(
                &seen,
                |t| match t {
                    TypedHookInput::TeammateIdle(i) => Some(i),
                    _ => None,
                },
                {
                    let calls = Arc::new(Mutex::new(0));
                    move |_| {
                        let mut calls = calls.lock().unwrap();
                        *calls += 1;
                        if *calls == 1 {
                            HookOutput::new().block("KEEP-WORKING: the review is waiting")
                        } else {
                            HookOutput::new()
                        }
                    }
                },
            ),
        );
    let messages = run_query("work", options).await;
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "no TeammateIdle: {:#?}", dump(&messages));
    assert_eq!(
        (seen[0].teammate_name.as_str(), seen[0].team_name.as_str()),
        ("helper", "crew")
    );
    let turns = w.turns();
    assert_eq!(turns.len(), 2, "{:#?}", dump(&messages));
    assert!(!sent(&turns[0], "KEEP-WORKING"));
    assert!(sent(&turns[1], "KEEP-WORKING"), "{:#?}", turns[1].body);
    assert_eq!(success_text(&messages), "Back at it.");
}

// ---------------------------------------------------------------------------------------------
// The session's surroundings
// ---------------------------------------------------------------------------------------------

/// Settings (`--settings`) that register a no-op command hook for `event`: the CLI 2.1.332
/// runs its cwd and file watchers only when a settings file has a `CwdChanged` or
/// `FileChanged` hook (a host's callbacks then run with it). `matcher` is a `FileChanged`
/// hook's file.
fn settings_hook(event: &str, matcher: Option<&str>) -> String {
    let mut group = json!({"hooks": [{"type": "command", "command": "true"}]});
    if let Some(matcher) = matcher {
        group["matcher"] = json!(matcher);
    }
    json!({"hooks": {event: [group]}}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cwd_changed_the_old_and_new_directories_are_read() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_cd",
            "Bash",
            json!({"command": "cd sub && pwd", "description": "Enter sub"}),
        ))
        .turn(Turn::text("Moved."));
    let Some(w) = world("typed_cwd_changed", script).await else {
        return;
    };
    std::fs::create_dir_all(w.cwd.join("sub")).expect("sub");
    let seen: Seen<CwdChangedInput> = Seen::default();
    let options = w
        .options()
        .allowed_tools(["Bash"])
        .settings(settings_hook("CwdChanged", None))
        .hook(
            HookEvent::CwdChanged,
            recording(
                &seen,
                |t| match t {
                    TypedHookInput::CwdChanged(i) => Some(i),
                    _ => None,
                },
                no_opinion,
            ),
        );
    let messages = run_query("go to sub", options).await;
    assert_eq!(success_text(&messages), "Moved.");
    let seen = seen.lock().unwrap().clone();
    let [changed] = seen.as_slice() else {
        panic!("one CwdChanged: {seen:#?}\n{:#?}", dump(&messages))
    };
    let cwd = w.cwd.display().to_string();
    assert_eq!(changed.old_cwd, cwd);
    assert_eq!(changed.new_cwd, format!("{cwd}/sub"));
    assert_eq!(changed.base.cwd, format!("{cwd}/sub"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_changed_a_watched_files_change_is_read() {
    let Some(w) = world(
        "typed_file_changed",
        Script::new().turn(Turn::text("Ready.")),
    )
    .await
    else {
        return;
    };
    let watched = w.cwd.join("watched.txt");
    std::fs::write(&watched, "first\n").expect("watched file");
    let seen: Seen<FileChangedInput> = Seen::default();
    let changed = Arc::new(tokio::sync::Notify::new());
    let changed_in_hook = changed.clone();
    let options = w
        .options()
        .settings(settings_hook("FileChanged", Some("watched.txt")))
        .hook(
            HookEvent::FileChanged,
            recording(
                &seen,
                |t| match t {
                    TypedHookInput::FileChanged(i) => Some(i),
                    _ => None,
                },
                move |_| {
                    changed_in_hook.notify_one();
                    HookOutput::new()
                },
            ),
        );
    within("file changed scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("ready?").await.expect("query");
        assert_eq!(
            success_text(&client.receive_response().await.expect("response")),
            "Ready."
        );
        // The watcher may not have finished its first scan: change the file until the hook
        // hears of it.
        for round in 0.. {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(&watched)
                .expect("open");
            writeln!(file, "change {round}").expect("append");
            drop(file);
            let heard = tokio::time::timeout(Duration::from_secs(2), changed.notified()).await;
            if heard.is_ok() {
                break;
            }
        }
        client.disconnect().await.expect("disconnect");
    })
    .await;
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert_eq!(seen[0].file_path, watched.display().to_string());
    assert_eq!(seen[0].event, FileEvent::Change);
}

/// The project's own `CLAUDE.md` is loaded as the session starts, which may be before the
/// host's hooks are registered; a nested one is loaded when the model first reads a file
/// below it, in the middle of a turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instructions_loaded_a_nested_claude_md_is_read() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_read",
            "Read",
            json!({"file_path": "module/notes.txt"}),
        ))
        .turn(Turn::text("Read: {{tool_result}}"));
    let Some(w) = world("typed_instructions_loaded", script).await else {
        return;
    };
    let module = w.cwd.join("module");
    std::fs::create_dir_all(&module).expect("module");
    std::fs::write(module.join("CLAUDE.md"), "MODULE-RULES: keep it short.\n").expect("CLAUDE.md");
    std::fs::write(module.join("notes.txt"), "some notes\n").expect("notes");
    let seen: Seen<InstructionsLoadedInput> = Seen::default();
    let options = w
        .options()
        .setting_sources([SettingSource::Project])
        .allowed_tools(["Read"])
        .hook(
            HookEvent::InstructionsLoaded,
            recording(
                &seen,
                |t| match t {
                    TypedHookInput::InstructionsLoaded(i) => Some(i),
                    _ => None,
                },
                no_opinion,
            ),
        );
    let messages = run_query("read the notes", options).await;
    let _ = success_text(&messages);
    let seen = seen.lock().unwrap().clone();
    let [loaded] = seen.as_slice() else {
        panic!("one InstructionsLoaded: {seen:#?}\n{:#?}", w.tool_results())
    };
    assert_eq!(
        loaded.file_path,
        module.join("CLAUDE.md").display().to_string()
    );
    assert_eq!(loaded.memory_type, "Project");
    assert_eq!(loaded.load_reason, LoadReason::NestedTraversal);
    assert_eq!(
        loaded.trigger_file_path.as_deref(),
        Some(module.join("notes.txt").display().to_string().as_str())
    );
    assert!(sent(&w.turns()[1], "MODULE-RULES"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_change_is_read_and_a_block_keeps_the_old_settings() {
    let Some(w) = world("typed_config_change", two_answers()).await else {
        return;
    };
    let settings = w.cwd.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).expect(".claude");
    std::fs::write(&settings, "{}").expect("settings");
    let (server, _lab) = tools::server(0);
    let seen: Seen<ConfigChangeInput> = Seen::default();
    let changed = Arc::new(tokio::sync::Notify::new());
    let changed_in_hook = changed.clone();
    let options = w
        .options()
        .mcp_server(server)
        .setting_sources([SettingSource::Project])
        .hook(
            HookEvent::ConfigChange,
            recording(
                &seen,
                |t| match t {
                    TypedHookInput::ConfigChange(i) => Some(i),
                    _ => None,
                },
                move |_| {
                    changed_in_hook.notify_one();
                    HookOutput::new().block("SETTINGS-FROZEN")
                },
            ),
        );
    within("config change scenario", async {
        let mut client = Client::connect(options).await.expect("connect");
        client.query("one").await.expect("query");
        let _ = success_text(&client.receive_response().await.expect("response"));
        // The change would take the greet tool away from the model.
        std::fs::write(
            &settings,
            json!({"permissions": {"deny": ["mcp__e2e__greet"]}}).to_string(),
        )
        .expect("settings");
        changed.notified().await;
        client.query("two").await.expect("query");
        let _ = success_text(&client.receive_response().await.expect("response"));
        client.disconnect().await.expect("disconnect");
    })
    .await;
    let seen = seen.lock().unwrap().clone();
    let [change] = seen.as_slice() else {
        panic!("one ConfigChange: {seen:#?}")
    };
    assert_eq!(change.source, ConfigSource::ProjectSettings);
    assert_eq!(
        change.file_path.as_deref(),
        Some(settings.display().to_string().as_str())
    );
    let turns = w.turns();
    assert_eq!(turns.len(), 2);
    for turn in &turns {
        assert!(
            turn.tool_names().contains(&"mcp__e2e__greet".to_string()),
            "{:?}",
            turn.tool_names()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worktree_create_a_typed_path_is_where_the_session_goes_and_remove_gets_it_back() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_enter",
            "EnterWorktree",
            json!({"name": "feature-x"}),
        ))
        .turn(Turn::tool_use(
            "toolu_typed_pwd",
            "Bash",
            json!({"command": "pwd", "description": "Where am I"}),
        ))
        .turn(Turn::tool_use(
            "toolu_typed_exit",
            "ExitWorktree",
            json!({"action": "remove", "discard_changes": true}),
        ))
        .turn(Turn::text("Back."));
    let Some(w) = world("typed_worktree", script).await else {
        return;
    };
    let created: Seen<WorktreeCreateInput> = Seen::default();
    let removed: Seen<WorktreeRemoveInput> = Seen::default();
    let root = w.path("worktrees");
    let options = w
        .options()
        .allowed_tools(["EnterWorktree", "ExitWorktree", "Bash"])
        .hook(
            HookEvent::WorktreeCreate,
            recording(
                &created,
                |t| match t {
                    TypedHookInput::WorktreeCreate(i) => Some(i),
                    _ => None,
                },
                move |wanted| {
                    // This host's worktrees are plain directories.
                    let path = root.join(&wanted.name);
                    std::fs::create_dir_all(&path).expect("the worktree");
                    HookOutput::new().specific(HookSpecificOutput::WorktreeCreate(
                        WorktreeCreateOutput::new(path.display().to_string()),
                    ))
                },
            ),
        )
        .hook(
            HookEvent::WorktreeRemove,
            recording(
                &removed,
                |t| match t {
                    TypedHookInput::WorktreeRemove(i) => Some(i),
                    _ => None,
                },
                |gone| {
                    std::fs::remove_dir_all(&gone.worktree_path).expect("remove the worktree");
                    HookOutput::new()
                },
            ),
        );
    let messages = run_query("work in a worktree", options).await;
    assert_eq!(success_text(&messages), "Back.");
    let worktree = w.path("worktrees/feature-x").display().to_string();
    let created = created.lock().unwrap().clone();
    let [create] = created.as_slice() else {
        panic!("one WorktreeCreate: {created:#?}\n{:#?}", dump(&messages))
    };
    assert_eq!(create.name, "feature-x");
    assert_eq!(create.base.cwd, w.cwd.display().to_string());
    // The session worked in the hook's directory, and gave it back to the hook to remove.
    let results = w.tool_results();
    assert_eq!(
        results[1],
        tr("toolu_typed_pwd", &worktree, false),
        "{results:#?}"
    );
    let removed = removed.lock().unwrap().clone();
    let [remove] = removed.as_slice() else {
        panic!("one WorktreeRemove: {removed:#?}")
    };
    assert_eq!(remove.worktree_path, worktree);
    assert!(!std::path::Path::new(&worktree).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directory_added_a_registered_repo_root_is_read() {
    let Some(w) = world("typed_directory_added", Script::new()).await else {
        return;
    };
    let repo = w.cwd.join("repo");
    std::fs::create_dir_all(&repo).expect("repo");
    let seen: Seen<DirectoryAddedInput> = Seen::default();
    let added = Arc::new(tokio::sync::Notify::new());
    let added_in_hook = added.clone();
    let options = w.options().hook(
        HookEvent::DirectoryAdded,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::DirectoryAdded(i) => Some(i),
                _ => None,
            },
            move |_| {
                added_in_hook.notify_one();
                HookOutput::new()
            },
        ),
    );
    within("directory added scenario", async {
        let client = Client::connect(options).await.expect("connect");
        let answer = client
            .control_request(json!({"subtype": "register_repo_root", "directory": repo}))
            .await
            .expect("registered");
        assert_eq!(answer["directory"], json!(repo));
        // The hook runs after the answer.
        added.notified().await;
        client.disconnect().await.expect("disconnect");
    })
    .await;
    let seen = seen.lock().unwrap().clone();
    let [dir] = seen.as_slice() else {
        panic!("one DirectoryAdded: {seen:#?}")
    };
    assert_eq!(dir.directory, repo.display().to_string());
    assert_eq!(dir.source, DirectorySource::RegisterRepoRoot);
}

// ---------------------------------------------------------------------------------------------
// The session's turns and tools
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_end_clear_ends_the_session_with_its_reason() {
    let Some(w) = world("typed_session_end", two_answers()).await else {
        return;
    };
    let seen: Seen<SessionEndInput> = Seen::default();
    let options = w.options().hook(
        HookEvent::SessionEnd,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::SessionEnd(i) => Some(i),
                _ => None,
            },
            no_opinion,
        ),
    );
    let messages = converse("clear scenario", options, &["one", "/clear", "two"]).await;
    let seen = seen.lock().unwrap().clone();
    let [end] = seen.as_slice() else {
        panic!("one SessionEnd: {seen:#?}\n{:#?}", dump(&messages))
    };
    assert_eq!(end.reason, ExitReason::Clear);
    // The next prompt starts afresh: the model is not sent the first exchange.
    let turns = w.turns();
    assert!(!sent(turns.last().unwrap(), "One."));
    assert!(!end.base.session_id.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_tool_use_failure_the_error_is_read_and_its_context_reaches_the_model() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_fail",
            "mcp__e2e__fail",
            json!({"reason": "disk on fire"}),
        ))
        .turn(Turn::text("It failed."));
    let Some(w) = world("typed_post_tool_use_failure", script).await else {
        return;
    };
    let (server, _lab) = tools::server(0);
    let seen: Seen<PostToolUseFailureInput> = Seen::default();
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__fail"])
        .hook(
            HookEvent::PostToolUseFailure,
            recording(
                &seen,
                |t| match t {
                    TypedHookInput::PostToolUseFailure(i) => Some(i),
                    _ => None,
                },
                |failed| {
                    HookOutput::new().specific(HookSpecificOutput::PostToolUseFailure(
                        ContextOutput::default()
                            .additional_context(format!("FAILURE-NOTED: {}", failed.error)),
                    ))
                },
            ),
        );
    let messages = run_query("break it", options).await;
    assert_eq!(success_text(&messages), "It failed.");
    let seen = seen.lock().unwrap().clone();
    let [failed] = seen.as_slice() else {
        panic!("one PostToolUseFailure: {seen:#?}")
    };
    assert_eq!(failed.tool_name, "mcp__e2e__fail");
    assert_eq!(failed.tool_input, json!({"reason": "disk on fire"}));
    assert_eq!(failed.tool_use_id, "toolu_typed_fail");
    assert_eq!(failed.error, "disk on fire");
    assert_eq!(failed.is_interrupt, Some(false));
    assert_eq!(
        failed.mcp_server.as_ref().map(|s| s.name.as_str()),
        Some("e2e")
    );
    let turns = w.turns();
    assert!(!sent(&turns[0], "FAILURE-NOTED"));
    assert!(
        sent(&turns[1], "FAILURE-NOTED: disk on fire"),
        "{:#?}",
        turns[1].body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_tool_batch_every_call_is_read_and_its_context_reaches_the_model() {
    let script = Script::new()
        .turn(
            Turn::tool_use("toolu_batch_add", "mcp__e2e__counter_add", json!({"by": 2}))
                .and_tool_use(
                    "toolu_batch_greet",
                    "mcp__e2e__greet",
                    json!({"name": "Ann"}),
                ),
        )
        .turn(Turn::text("Both done."));
    let Some(w) = world("typed_post_tool_batch", script).await else {
        return;
    };
    let (server, _lab) = tools::server(40);
    let seen: Seen<PostToolBatchInput> = Seen::default();
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__e2e__counter_add", "mcp__e2e__greet"])
        .hook(
            HookEvent::PostToolBatch,
            recording(
                &seen,
                |t| match t {
                    TypedHookInput::PostToolBatch(i) => Some(i),
                    _ => None,
                },
                |batch| {
                    HookOutput::new().specific(HookSpecificOutput::PostToolBatch(
                        ContextOutput::default()
                            .additional_context(format!("BATCH-OF-{}", batch.tool_calls.len())),
                    ))
                },
            ),
        );
    let messages = run_query("add and greet", options).await;
    assert_eq!(success_text(&messages), "Both done.");
    let seen = seen.lock().unwrap().clone();
    let [batch] = seen.as_slice() else {
        panic!("one PostToolBatch: {seen:#?}")
    };
    let calls: Vec<_> = batch
        .tool_calls
        .iter()
        .map(|c| {
            (
                c.tool_use_id.as_str(),
                c.tool_name.as_str(),
                c.tool_input.clone(),
                c.tool_response.clone(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                "toolu_batch_add",
                "mcp__e2e__counter_add",
                json!({"by": 2}),
                Some(json!([{"type": "text", "text": "counter is now 42"}]))
            ),
            (
                "toolu_batch_greet",
                "mcp__e2e__greet",
                json!({"name": "Ann"}),
                Some(json!([{"type": "text", "text": "Hello, Ann!"}]))
            ),
        ]
    );
    let turns = w.turns();
    assert!(!sent(&turns[0], "BATCH-OF"));
    assert!(sent(&turns[1], "BATCH-OF-2"), "{:#?}", turns[1].body);
}

/// `PermissionDenied` fires when auto mode's classifier refuses a call; offline, with no
/// classifier for the session, auto mode refuses every call that needs it (here a write
/// outside the working directory).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn permission_denied_the_refusal_is_read_and_a_retry_is_offered_to_the_model() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_denied",
            "Bash",
            json!({"command": "touch ../outside.txt", "description": "Touch a file"}),
        ))
        .turn(Turn::text("Refused."));
    let Some(w) = world("typed_permission_denied", script).await else {
        return;
    };
    let seen: Seen<PermissionDeniedInput> = Seen::default();
    let options = w.options().permission_mode(PermissionMode::Auto).hook(
        HookEvent::PermissionDenied,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::PermissionDenied(i) => Some(i),
                _ => None,
            },
            |_| {
                HookOutput::new().specific(HookSpecificOutput::PermissionDenied(
                    PermissionDeniedOutput::default().retry(true),
                ))
            },
        ),
    );
    let messages = run_query("touch it", options).await;
    assert_eq!(success_text(&messages), "Refused.");
    w.assert_offline();
    assert!(!w.path("outside.txt").exists(), "the refused command ran");
    let seen = seen.lock().unwrap().clone();
    let [denied] = seen.as_slice() else {
        panic!("one PermissionDenied: {seen:#?}\n{:#?}", w.tool_results())
    };
    assert_eq!(denied.tool_name, "Bash");
    assert_eq!(denied.tool_use_id, "toolu_typed_denied");
    assert_eq!(denied.tool_input["command"], "touch ../outside.txt");
    assert_eq!(denied.reason, "Classifier unavailable");
    assert_eq!(denied.base.permission_mode.as_deref(), Some("auto"));
    // The model is told it may try once more.
    let turns = w.turns();
    let retry = "the PermissionDenied hook set up for this session allows one more try";
    assert!(!sent(&turns[0], retry));
    assert!(sent(&turns[1], retry), "{:#?}", turns[1].body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_failure_the_api_error_is_read() {
    let script = Script::new().turn(Turn::http_error(
        400,
        "invalid_request_error",
        "bad request here",
    ));
    let Some(w) = world("typed_stop_failure", script).await else {
        return;
    };
    let seen: Seen<StopFailureInput> = Seen::default();
    let options = w.options().hook(
        HookEvent::StopFailure,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::StopFailure(i) => Some(i),
                _ => None,
            },
            no_opinion,
        ),
    );
    let messages = run_query("fail", options).await;
    assert_eq!(result_of(&messages)["is_error"], true);
    let seen = seen.lock().unwrap().clone();
    let [failure] = seen.as_slice() else {
        panic!("one StopFailure: {seen:#?}\n{:#?}", dump(&messages))
    };
    assert_eq!(failure.error, ApiErrorKind::Unknown);
    assert_eq!(
        failure.last_assistant_message.as_deref(),
        Some("API Error: 400 bad request here")
    );
}

/// The first user message of a request: a subagent's starts with its prompt.
fn first_user_text(request: &RecordedRequest) -> String {
    let body = request.body.as_ref().expect("a body");
    let first = &body["messages"][0]["content"];
    match first {
        Value::String(text) => text.clone(),
        blocks => blocks
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| b["text"].as_str())
            .collect(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subagent_stop_is_read_and_its_context_makes_the_subagent_go_on_once() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_typed_sub",
            "Task",
            json!({"description": "Sub", "prompt": "Say hi.", "subagent_type": "general-purpose"}),
        ))
        .turn(Turn::text("Hi from the subagent.").when_user_text("Say hi."))
        // By position: the main thread's answer to the tool's result, and the subagent's
        // answer to the hook's feedback (the feedback is a system reminder, which
        // `when_user_text` does not see).
        .turn(Turn::text("Going on."))
        .turn(Turn::text("Noted its report."));
    let Some(w) = world("typed_subagent_stop", script).await else {
        return;
    };
    let seen: Seen<SubagentStopInput> = Seen::default();
    let options = w.options().allowed_tools(["Task"]).hook(
        HookEvent::SubagentStop,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::SubagentStop(i) => Some(i),
                _ => None,
            },
            |stop| {
                if stop.stop_hook_active {
                    HookOutput::new()
                } else {
                    HookOutput::new().specific(HookSpecificOutput::SubagentStop(
                        ContextOutput::default().additional_context("SUBAGENT-FEEDBACK: say more"),
                    ))
                }
            },
        ),
    );
    let messages = run_query("delegate", options).await;
    let seen = seen.lock().unwrap().clone();
    assert!(seen.len() >= 2, "{seen:#?}\n{:#?}", dump(&messages));
    assert!(!seen[0].stop_hook_active);
    assert_eq!(seen[0].base.agent_type.as_deref(), Some("general-purpose"));
    assert!(seen[0].base.agent_id.is_some());
    assert_eq!(
        seen[0].last_assistant_message.as_deref(),
        Some("Hi from the subagent.")
    );
    assert!(seen[0].agent_transcript_path.ends_with(".jsonl"));
    assert!(seen[1].stop_hook_active);
    assert_eq!(seen[1].last_assistant_message.as_deref(), Some("Going on."));
    let turns = w.turns();
    let went_on = turns
        .iter()
        .filter(|t| first_user_text(t).contains("Say hi."))
        .filter(|t| sent(t, "SUBAGENT-FEEDBACK: say more"))
        .count();
    assert_eq!(went_on, 1, "{turns:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_prompt_expansion_the_command_is_read_and_its_context_goes_with_it() {
    let Some(w) = world(
        "typed_user_prompt_expansion",
        Script::new().turn(Turn::text("Greeted.")),
    )
    .await
    else {
        return;
    };
    let commands = w.cwd.join(".claude/commands");
    std::fs::create_dir_all(&commands).expect("commands dir");
    std::fs::write(
        commands.join("greet.md"),
        "---\ndescription: Greets\n---\nSay hello to $ARGUMENTS.\n",
    )
    .expect("the command");
    let seen: Seen<UserPromptExpansionInput> = Seen::default();
    let options = w.options().setting_sources([SettingSource::Project]).hook(
        HookEvent::UserPromptExpansion,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::UserPromptExpansion(i) => Some(i),
                _ => None,
            },
            |expansion| {
                HookOutput::new().specific(HookSpecificOutput::UserPromptExpansion(
                    UserPromptSubmitOutput::default().additional_context(format!(
                        "EXPANDED-{}-FOR-{}",
                        expansion.command_name, expansion.command_args
                    )),
                ))
            },
        ),
    );
    let messages = run_query("/greet Alice", options).await;
    assert_eq!(success_text(&messages), "Greeted.");
    let seen = seen.lock().unwrap().clone();
    let [expansion] = seen.as_slice() else {
        panic!("one UserPromptExpansion: {seen:#?}")
    };
    assert_eq!(expansion.expansion_type, ExpansionType::SlashCommand);
    assert_eq!(expansion.command_name, "greet");
    assert_eq!(expansion.command_args, "Alice");
    assert_eq!(expansion.command_source.as_deref(), Some("projectSettings"));
    assert_eq!(expansion.prompt, "/greet Alice");
    let turns = w.turns();
    assert!(sent(&turns[0], "Say hello to Alice."));
    assert!(
        sent(&turns[0], "EXPANDED-greet-FOR-Alice"),
        "{:#?}",
        turns[0].body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn message_display_the_text_is_read_and_the_host_is_shown_the_hooks_instead() {
    let Some(w) = world("typed_message_display", two_answers()).await else {
        return;
    };
    let seen: Seen<MessageDisplayInput> = Seen::default();
    let options = w.options().hook(
        HookEvent::MessageDisplay,
        recording(
            &seen,
            |t| match t {
                TypedHookInput::MessageDisplay(i) => Some(i),
                _ => None,
            },
            |shown| {
                HookOutput::new().specific(HookSpecificOutput::MessageDisplay(
                    MessageDisplayOutput::default()
                        .display_content(format!("[shown: {}]", shown.delta)),
                ))
            },
        ),
    );
    let messages = converse("message display scenario", options, &["one", "two"]).await;
    let seen = seen.lock().unwrap().clone();
    let deltas: Vec<_> = seen
        .iter()
        .map(|s| (s.delta.as_str(), s.index, s.is_final))
        .collect();
    assert_eq!(deltas, [("One.", 0, true), ("Two.", 0, true)]);
    assert_ne!(seen[0].message_id, seen[1].message_id);
    // The host is shown the hook's text; the model's transcript keeps its own.
    assert_eq!(
        assistant_texts(&messages),
        ["[shown: One.]", "[shown: Two.]"]
    );
    let turns = w.turns();
    assert!(sent(&turns[1], "One."));
    assert!(!sent(&turns[1], "[shown: One.]"), "{:#?}", turns[1].body);
}
