//! Typed hook inputs (`HookInput::typed`) against what the real CLI 2.1.332 passes to hooks and
//! the TypeScript SDK 0.3.332's types for the rest, and typed hook outputs as exact JSON.

use claude_tools_runtime::hooks::{
    ConfigSource, ContextOutput, DirectorySource, ElicitationAction, ElicitationMode,
    ElicitationOutput, ExitReason, ExpansionType, FileEvent, HookEvent, HookInput, HookOutput,
    HookPermissionDecision, HookSpecificOutput, InvokedBy, LoadReason, MessageDisplayOutput,
    PermissionDeniedOutput, PermissionRequestOutput, PostToolUseOutput, PreToolUseOutput,
    SessionStartOutput, SessionStartSource, SetupTrigger, TypedHookInput, UserPromptSubmitOutput,
    WatchPathsOutput, WorktreeCreateOutput,
};
use claude_tools_runtime::message::{ApiErrorKind, Trigger};
use claude_tools_runtime::permission::{PermissionRule, PermissionUpdate};
use serde_json::{Value, json};

/// What the CLI 2.1.332 wrote on the stdin of a command hook registered for every event
/// (`(cat; echo) >> file`), one line per event (and per `SessionStart` source), in a run with
/// two Bash calls (one failing), a subagent and `/compact keep it short`, against the scripted
/// model server. A command hook gets the same input object as a host callback's
/// `hook_callback` request. After those, one `hook_callback` input of each event the end-to-end
/// scenarios of `typed_hook_families.rs` provoke (the first of each event in their runs).
const CLI_INPUTS: &str = include_str!("fixtures/cli-2.1.332-hook-inputs.ndjson");

/// One input of each other event, built from the TypeScript SDK 0.3.332's `sdk.d.ts` (these
/// events cannot be provoked in that run).
const SDK_INPUTS: &str = include_str!("fixtures/sdk-0.3.332-hook-inputs.ndjson");

fn input(line: &str) -> HookInput {
    let Value::Object(raw) = serde_json::from_str(line).unwrap() else {
        panic!("not an object: {line}")
    };
    HookInput::from_raw(raw)
}

/// The variant's event, to check each input lands in its own variant.
fn event_of(typed: &TypedHookInput) -> Option<HookEvent> {
    use TypedHookInput as T;
    let event = match typed {
        T::PreToolUse(_) => HookEvent::PreToolUse,
        T::PostToolUse(_) => HookEvent::PostToolUse,
        T::PostToolUseFailure(_) => HookEvent::PostToolUseFailure,
        T::PostToolBatch(_) => HookEvent::PostToolBatch,
        T::Notification(_) => HookEvent::Notification,
        T::UserPromptSubmit(_) => HookEvent::UserPromptSubmit,
        T::UserPromptExpansion(_) => HookEvent::UserPromptExpansion,
        T::SessionStart(_) => HookEvent::SessionStart,
        T::SessionEnd(_) => HookEvent::SessionEnd,
        T::Stop(_) => HookEvent::Stop,
        T::StopFailure(_) => HookEvent::StopFailure,
        T::SubagentStart(_) => HookEvent::SubagentStart,
        T::SubagentStop(_) => HookEvent::SubagentStop,
        T::PreCompact(_) => HookEvent::PreCompact,
        T::PostCompact(_) => HookEvent::PostCompact,
        T::PreModelSwitch(_) => HookEvent::PreModelSwitch,
        T::PostModelSwitch(_) => HookEvent::PostModelSwitch,
        T::PermissionRequest(_) => HookEvent::PermissionRequest,
        T::PermissionDenied(_) => HookEvent::PermissionDenied,
        T::Setup(_) => HookEvent::Setup,
        T::TeammateIdle(_) => HookEvent::TeammateIdle,
        T::TaskCreated(_) => HookEvent::TaskCreated,
        T::TaskCompleted(_) => HookEvent::TaskCompleted,
        T::Elicitation(_) => HookEvent::Elicitation,
        T::ElicitationResult(_) => HookEvent::ElicitationResult,
        T::ConfigChange(_) => HookEvent::ConfigChange,
        T::WorktreeCreate(_) => HookEvent::WorktreeCreate,
        T::WorktreeRemove(_) => HookEvent::WorktreeRemove,
        T::InstructionsLoaded(_) => HookEvent::InstructionsLoaded,
        T::CwdChanged(_) => HookEvent::CwdChanged,
        T::FileChanged(_) => HookEvent::FileChanged,
        T::DirectoryAdded(_) => HookEvent::DirectoryAdded,
        T::MessageDisplay(_) => HookEvent::MessageDisplay,
        T::PreSkillShellCommand(_) => HookEvent::PreSkillShellCommand,
        _ => return None,
    };
    Some(event)
}

#[test]
fn every_input_of_the_cli_and_of_the_sdk_types_is_typed_by_its_event() {
    let mut events = Vec::new();
    for line in CLI_INPUTS.lines().chain(SDK_INPUTS.lines()) {
        let input = input(line);
        let typed = input.typed();
        let event = event_of(&typed);
        assert_eq!(
            event.as_ref().map(HookEvent::as_str),
            input.event_name(),
            "{line}\n{typed:?}"
        );
        events.extend(event);
    }
    events.sort();
    events.dedup();
    // Every event of `HOOK_EVENTS` has an input in the fixtures.
    let mut all = HookEvent::ALL.to_vec();
    all.sort();
    assert_eq!(events, all);
}

fn cli_input(event: &str) -> TypedHookInput {
    let needle = format!(r#""hook_event_name":"{event}""#);
    let line = CLI_INPUTS
        .lines()
        .find(|line| line.contains(&needle))
        .unwrap_or_else(|| panic!("no {event} input"));
    input(line).typed()
}

#[test]
fn the_cli_inputs_have_their_fields_typed() {
    let TypedHookInput::SessionStart(start) = cli_input("SessionStart") else {
        panic!()
    };
    assert_eq!(start.source, SessionStartSource::Startup);
    assert!(start.base.transcript_path.ends_with(".jsonl"));
    assert!(start.base.cwd.ends_with("/work"));

    let TypedHookInput::PreToolUse(pre) = cli_input("PreToolUse") else {
        panic!()
    };
    assert_eq!(pre.tool_name, "Bash");
    assert_eq!(pre.tool_input["command"], "echo fine");
    assert_eq!(pre.tool_use_id, "toolu_cap_ok");
    assert_eq!(pre.base.permission_mode.as_deref(), Some("dontAsk"));
    assert_eq!(pre.base.effort.as_ref().unwrap().level, "medium");
    assert!(pre.base.prompt_id.is_some());

    let TypedHookInput::PostToolUse(post) = cli_input("PostToolUse") else {
        panic!()
    };
    assert_eq!(post.tool_response["stdout"], "fine");
    let TypedHookInput::PostToolUseFailure(failure) = cli_input("PostToolUseFailure") else {
        panic!()
    };
    assert_eq!(failure.tool_use_id, "toolu_cap_fail");
    assert_eq!(failure.error, "Exit code 3");
    assert_eq!(failure.is_interrupt, Some(false));
    let TypedHookInput::PostToolBatch(batch) = cli_input("PostToolBatch") else {
        panic!()
    };
    assert_eq!(batch.tool_calls.len(), 2);
    let TypedHookInput::UserPromptSubmit(prompt) = cli_input("UserPromptSubmit") else {
        panic!()
    };
    assert_eq!(prompt.prompt, "do the things");
    let TypedHookInput::SubagentStart(sub) = cli_input("SubagentStart") else {
        panic!()
    };
    assert_eq!(sub.base.agent_type.as_deref(), Some("general-purpose"));
    assert!(sub.base.agent_id.is_some());
    let TypedHookInput::SubagentStop(stop) = cli_input("SubagentStop") else {
        panic!()
    };
    assert!(!stop.stop_hook_active);
    assert!(stop.agent_transcript_path.ends_with(".jsonl"), "{stop:?}");
    let TypedHookInput::Stop(stop) = cli_input("Stop") else {
        panic!()
    };
    assert!(!stop.stop_hook_active);
    let TypedHookInput::PreCompact(compact) = cli_input("PreCompact") else {
        panic!()
    };
    assert_eq!(compact.trigger, Trigger::Manual);
    assert_eq!(
        compact.custom_instructions.as_deref(),
        Some("keep it short")
    );
    let TypedHookInput::PostCompact(compacted) = cli_input("PostCompact") else {
        panic!()
    };
    assert_eq!(compacted.trigger, Trigger::Manual);
    let TypedHookInput::MessageDisplay(display) = cli_input("MessageDisplay") else {
        panic!()
    };
    assert!(display.is_final || !display.delta.is_empty());
    let TypedHookInput::SessionEnd(end) = cli_input("SessionEnd") else {
        panic!()
    };
    assert_eq!(end.reason, ExitReason::Unknown);
    assert_eq!(end.reason.as_str(), "other");
}

#[test]
fn the_cli_inputs_of_the_other_families_have_their_fields_typed() {
    let TypedHookInput::Notification(notice) = cli_input("Notification") else {
        panic!()
    };
    assert_eq!(notice.notification_type, "elicitation_response");
    assert_eq!(notice.title, None);
    let TypedHookInput::UserPromptExpansion(expansion) = cli_input("UserPromptExpansion") else {
        panic!()
    };
    assert_eq!(expansion.expansion_type, ExpansionType::SlashCommand);
    assert_eq!(
        (
            expansion.command_name.as_str(),
            expansion.command_args.as_str()
        ),
        ("greet", "Alice")
    );
    let TypedHookInput::StopFailure(failure) = cli_input("StopFailure") else {
        panic!()
    };
    assert_eq!(failure.error, ApiErrorKind::Unknown);
    assert_eq!(failure.error_details, None);
    let TypedHookInput::PreModelSwitch(switch) = cli_input("PreModelSwitch") else {
        panic!()
    };
    assert_eq!(
        (
            switch.to_model.as_str(),
            switch.source.as_str(),
            switch.cache_ttl.as_str()
        ),
        ("claude-haiku-4-5", "sdk", "5m")
    );
    assert!(switch.prompt_cache_warm && switch.context_tokens > 0);
    let TypedHookInput::PostModelSwitch(switched) = cli_input("PostModelSwitch") else {
        panic!()
    };
    assert_eq!(switched.pricing, "catalog");
    let TypedHookInput::PermissionDenied(denied) = cli_input("PermissionDenied") else {
        panic!()
    };
    assert_eq!(
        (denied.tool_name.as_str(), denied.reason.as_str()),
        ("Bash", "Classifier unavailable")
    );
    let TypedHookInput::TeammateIdle(idle) = cli_input("TeammateIdle") else {
        panic!()
    };
    assert_eq!(
        (idle.teammate_name.as_str(), idle.team_name.as_str()),
        ("helper", "crew")
    );
    let TypedHookInput::TaskCreated(created) = cli_input("TaskCreated") else {
        panic!()
    };
    assert_eq!(
        (created.task_id.as_str(), created.task_subject.as_str()),
        ("1", "Ship it")
    );
    assert_eq!(created.teammate_name.as_deref(), Some("helper"));
    let TypedHookInput::TaskCompleted(completed) = cli_input("TaskCompleted") else {
        panic!()
    };
    assert_eq!(completed.team_name.as_deref(), Some("crew"));
    let TypedHookInput::Elicitation(elicitation) = cli_input("Elicitation") else {
        panic!()
    };
    assert_eq!(elicitation.mode, Some(ElicitationMode::Form));
    assert!(elicitation.requested_schema.is_some());
    assert_eq!(elicitation.elicitation_id, None);
    let TypedHookInput::ElicitationResult(answered) = cli_input("ElicitationResult") else {
        panic!()
    };
    assert_eq!(answered.action, ElicitationAction::Decline);
    let TypedHookInput::ConfigChange(config) = cli_input("ConfigChange") else {
        panic!()
    };
    assert_eq!(config.source, ConfigSource::ProjectSettings);
    assert!(
        config
            .file_path
            .unwrap()
            .ends_with("/.claude/settings.json")
    );
    let TypedHookInput::WorktreeCreate(worktree) = cli_input("WorktreeCreate") else {
        panic!()
    };
    assert_eq!(worktree.name, "feat");
    let TypedHookInput::WorktreeRemove(removed) = cli_input("WorktreeRemove") else {
        panic!()
    };
    assert!(removed.worktree_path.starts_with('/'));
    let TypedHookInput::InstructionsLoaded(instructions) = cli_input("InstructionsLoaded") else {
        panic!()
    };
    assert_eq!(instructions.load_reason, LoadReason::SessionStart);
    assert_eq!(instructions.memory_type, "Project");
    let TypedHookInput::CwdChanged(cwd) = cli_input("CwdChanged") else {
        panic!()
    };
    assert_eq!(format!("{}/sub", cwd.old_cwd), cwd.new_cwd);
    let TypedHookInput::FileChanged(file) = cli_input("FileChanged") else {
        panic!()
    };
    assert_eq!(file.event, FileEvent::Change);
    let TypedHookInput::DirectoryAdded(directory) = cli_input("DirectoryAdded") else {
        panic!()
    };
    assert_eq!(directory.source, DirectorySource::RegisterRepoRoot);
}

#[test]
fn the_sdk_shaped_inputs_have_their_fields_typed() {
    let typed: Vec<TypedHookInput> = SDK_INPUTS.lines().map(|l| input(l).typed()).collect();
    let [
        TypedHookInput::PermissionRequest(request),
        TypedHookInput::PermissionDenied(denied),
        TypedHookInput::Notification(notification),
        TypedHookInput::UserPromptExpansion(expansion),
        TypedHookInput::StopFailure(failure),
        TypedHookInput::PreModelSwitch(pre_switch),
        TypedHookInput::PostModelSwitch(post_switch),
        TypedHookInput::Setup(setup),
        TypedHookInput::TeammateIdle(idle),
        TypedHookInput::TaskCreated(created),
        TypedHookInput::TaskCompleted(completed),
        TypedHookInput::Elicitation(elicitation),
        TypedHookInput::ElicitationResult(answered),
        TypedHookInput::ConfigChange(config),
        TypedHookInput::WorktreeCreate(worktree),
        TypedHookInput::WorktreeRemove(removed),
        TypedHookInput::InstructionsLoaded(instructions),
        TypedHookInput::CwdChanged(cwd),
        TypedHookInput::FileChanged(file),
        TypedHookInput::DirectoryAdded(directory),
        TypedHookInput::PreSkillShellCommand(shell),
    ] = typed.as_slice()
    else {
        panic!("{typed:#?}")
    };
    assert_eq!(request.mcp_server.as_ref().unwrap().source, "sdk");
    assert_eq!(
        request.permission_suggestions,
        [PermissionUpdate::AddRules {
            rules: vec![PermissionRule {
                tool_name: "mcp__tickets__close".into(),
                rule_content: None
            }],
            behavior: "allow".into(),
            destination: "session".into()
        }]
    );
    assert_eq!(denied.reason, "denied by rule Write(/etc/**)");
    assert_eq!(notification.notification_type, "permission_prompt");
    assert_eq!(expansion.expansion_type, ExpansionType::SlashCommand);
    assert_eq!(failure.error, ApiErrorKind::RateLimit);
    assert_eq!(pre_switch.requested_model.as_deref(), Some("sonnet"));
    assert_eq!(post_switch.requested_model, None);
    assert_eq!(setup.trigger, SetupTrigger::Init);
    assert_eq!(idle.teammate_name, "builder");
    assert_eq!(created.teammate_name.as_deref(), Some("tester"));
    assert_eq!(completed.task_description, None);
    assert_eq!(elicitation.mode, Some(ElicitationMode::Form));
    assert_eq!(
        elicitation.requested_schema.as_ref().unwrap()["required"],
        json!(["env"])
    );
    assert_eq!(answered.action, ElicitationAction::Accept);
    assert_eq!(answered.content.as_ref().unwrap()["env"], "staging");
    assert_eq!(config.source, ConfigSource::ProjectSettings);
    assert_eq!(worktree.name, "feature-x");
    assert!(removed.worktree_path.ends_with("feature-x"));
    assert_eq!(instructions.load_reason, LoadReason::SessionStart);
    assert_eq!(cwd.new_cwd, "/work/sub");
    assert_eq!(file.event, FileEvent::Change);
    assert_eq!(directory.source, DirectorySource::SlashCommand);
    assert_eq!(shell.tool_input.command, "git status --short");
    assert_eq!(shell.invoked_by, InvokedBy::User);
}

#[test]
fn an_unknown_event_reads_as_other_an_input_that_does_not_fit_as_malformed_and_raw_stays() {
    let unknown = input(r#"{"hook_event_name":"NewInCli9","x":1}"#);
    assert_eq!(unknown.typed(), TypedHookInput::Other);
    assert_eq!(unknown.raw["x"], 1);
    // A PreToolUse without its tool's name: never another event, nor `Other`.
    let broken = input(r#"{"hook_event_name":"PreToolUse","tool_input":{},"tool_use_id":"t"}"#);
    assert_eq!(
        broken.typed(),
        TypedHookInput::Malformed {
            event: HookEvent::PreToolUse,
            error: "missing field `tool_name`".into()
        }
    );
    assert_eq!(broken.raw["tool_use_id"], "t");
    // A value a newer CLI adds to a union is kept.
    let newer = input(r#"{"hook_event_name":"SessionStart","source":"teleport"}"#);
    let TypedHookInput::SessionStart(start) = newer.typed() else {
        panic!()
    };
    assert_eq!(start.source, SessionStartSource::Other("teleport".into()));
    assert_eq!(start.base.session_id, "");
}

/// `hookSpecificOutput` of `output` as JSON, for `event`.
fn specific(output: HookSpecificOutput, event: &str) -> Value {
    HookOutput::new().specific(output).to_json(event)
}

#[test]
fn each_typed_output_is_the_json_the_cli_reads() {
    use HookSpecificOutput as S;
    let cases: Vec<(HookSpecificOutput, Value)> = vec![
        (
            S::PreToolUse(
                PreToolUseOutput::default()
                    .permission_decision(HookPermissionDecision::Allow)
                    .permission_decision_reason("safe")
                    .updated_input(json!({"command": "ls -la"}))
                    .additional_context("ran as ls -la"),
            ),
            json!({"hookEventName": "PreToolUse", "permissionDecision": "allow",
                   "permissionDecisionReason": "safe", "updatedInput": {"command": "ls -la"},
                   "additionalContext": "ran as ls -la"}),
        ),
        (
            S::PreToolUse(
                PreToolUseOutput::default().permission_decision(HookPermissionDecision::Defer),
            ),
            json!({"hookEventName": "PreToolUse", "permissionDecision": "defer"}),
        ),
        (
            S::PreSkillShellCommand(
                PreToolUseOutput::default().permission_decision(HookPermissionDecision::Deny),
            ),
            json!({"hookEventName": "PreSkillShellCommand", "permissionDecision": "deny"}),
        ),
        (
            S::PreModelSwitch(
                PreToolUseOutput::default().permission_decision(HookPermissionDecision::Ask),
            ),
            json!({"hookEventName": "PreModelSwitch", "permissionDecision": "ask"}),
        ),
        (
            S::PostToolUse(
                PostToolUseOutput::default()
                    .updated_mcp_tool_output(json!({"content": [{"type": "text", "text": "x"}]}))
                    .updated_tool_output(json!("y"))
                    .classifier_context("the user asked for it")
                    .additional_context("note"),
            ),
            json!({"hookEventName": "PostToolUse", "additionalContext": "note",
                   "updatedToolOutput": "y",
                   "updatedMCPToolOutput": {"content": [{"type": "text", "text": "x"}]},
                   "classifierContext": "the user asked for it"}),
        ),
        (
            S::PostToolUseFailure(ContextOutput::default().additional_context("retry later")),
            json!({"hookEventName": "PostToolUseFailure", "additionalContext": "retry later"}),
        ),
        (
            S::Stop(ContextOutput::default().additional_context("also run the tests")),
            json!({"hookEventName": "Stop", "additionalContext": "also run the tests"}),
        ),
        (
            S::UserPromptSubmit(
                UserPromptSubmitOutput::default()
                    .additional_context("today is Friday")
                    .session_title("Fridays")
                    .suppress_original_prompt(true),
            ),
            json!({"hookEventName": "UserPromptSubmit", "additionalContext": "today is Friday",
                   "sessionTitle": "Fridays", "suppressOriginalPrompt": true}),
        ),
        (
            S::SessionStart(
                SessionStartOutput::default()
                    .additional_context("freeze")
                    .initial_user_message("hi")
                    .session_title("t")
                    .watch_paths(vec![".env".to_string()])
                    .reload_skills(true),
            ),
            json!({"hookEventName": "SessionStart", "additionalContext": "freeze",
                   "initialUserMessage": "hi", "sessionTitle": "t", "watchPaths": [".env"],
                   "reloadSkills": true}),
        ),
        (
            S::PermissionRequest(PermissionRequestOutput::allow_with(
                Some(json!({"id": 8})),
                vec![PermissionUpdate::SetMode {
                    mode: "acceptEdits".into(),
                    destination: "session".into(),
                }],
            )),
            json!({"hookEventName": "PermissionRequest", "decision": {"behavior": "allow",
                   "updatedInput": {"id": 8},
                   "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits",
                                           "destination": "session"}]}}),
        ),
        (
            S::PermissionRequest(PermissionRequestOutput::allow()),
            json!({"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}),
        ),
        (
            S::PermissionRequest(PermissionRequestOutput::deny("no", true)),
            json!({"hookEventName": "PermissionRequest",
                   "decision": {"behavior": "deny", "message": "no", "interrupt": true}}),
        ),
        (
            S::PermissionDenied(PermissionDeniedOutput::default().retry(true)),
            json!({"hookEventName": "PermissionDenied", "retry": true}),
        ),
        (
            S::Elicitation(
                ElicitationOutput::default()
                    .action(ElicitationAction::Accept)
                    .content(json!({"env": "staging"}).as_object().unwrap().clone()),
            ),
            json!({"hookEventName": "Elicitation", "action": "accept",
                   "content": {"env": "staging"}}),
        ),
        (
            S::ElicitationResult(ElicitationOutput::default().action(ElicitationAction::Decline)),
            json!({"hookEventName": "ElicitationResult", "action": "decline"}),
        ),
        (
            S::FileChanged(WatchPathsOutput::default().watch_paths(vec!["a".to_string()])),
            json!({"hookEventName": "FileChanged", "watchPaths": ["a"]}),
        ),
        (
            S::WorktreeCreate(WorktreeCreateOutput::new("/w/x")),
            json!({"hookEventName": "WorktreeCreate", "worktreePath": "/w/x"}),
        ),
        (
            S::MessageDisplay(MessageDisplayOutput::default().display_content("…")),
            json!({"hookEventName": "MessageDisplay", "displayContent": "…"}),
        ),
    ];
    for (output, expected) in cases {
        let event = expected["hookEventName"].as_str().unwrap().to_string();
        let json = specific(output, &event);
        assert_eq!(json, json!({"hookSpecificOutput": expected}));
        // And as a line: `hookEventName` first, as the official SDKs write it.
        let text = serde_json::to_string(&json).unwrap();
        assert!(
            text.starts_with(&format!(
                r#"{{"hookSpecificOutput":{{"hookEventName":"{event}""#
            )),
            "{text}"
        );
    }
}

#[test]
fn the_builder_shortcuts_write_the_same_frames_as_before_and_mix_with_typed_outputs() {
    // The shortcuts of earlier releases, unchanged (exact lines).
    let cases = [
        (
            HookOutput::new().deny_tool("frozen"),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"frozen"}}"#,
        ),
        (
            HookOutput::new()
                .allow_tool("ok")
                .updated_input(json!({"a": 1})),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok","updatedInput":{"a":1}}}"#,
        ),
        (
            HookOutput::new().defer_tool("later"),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"later"}}"#,
        ),
        (
            HookOutput::new()
                .block("no")
                .system_message("shown")
                .suppress_output(),
            r#"{"decision":"block","reason":"no","systemMessage":"shown","suppressOutput":true}"#,
        ),
        (
            HookOutput::new().stop("enough"),
            r#"{"continue":false,"stopReason":"enough"}"#,
        ),
        (
            HookOutput::new().asynchronous(Some(30_000)),
            r#"{"async":true,"asyncTimeout":30000}"#,
        ),
        (HookOutput::new().asynchronous(None), r#"{"async":true}"#),
        (HookOutput::new(), "{}"),
    ];
    for (output, expected) in cases {
        assert_eq!(
            serde_json::to_string(&output.to_json("PreToolUse")).unwrap(),
            expected
        );
    }
    // A typed output merged over a shortcut; its own event name wins.
    let mixed = HookOutput::new()
        .additional_context("from the shortcut")
        .specific(HookSpecificOutput::SessionStart(
            SessionStartOutput::default().session_title("typed"),
        ));
    assert_eq!(
        mixed.to_json("Whatever"),
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart",
            "additionalContext": "from the shortcut", "sessionTitle": "typed"}})
    );
}
