//! Every hook event the CLI 2.1.332 knows is a typed `HookEvent` (the TypeScript SDK 0.3.332's
//! `HOOK_EVENTS`, in its order), read from and written as its wire name.

use claude_tools::HookEvent;

/// `HOOK_EVENTS` of `@anthropic-ai/claude-agent-sdk` 0.3.332 (its `sdk.d.ts`), as published.
const HOOK_EVENTS: [&str; 34] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
];

#[test]
fn every_event_of_the_sdk_is_a_variant_of_its_own_in_the_same_order() {
    let names: Vec<&str> = HookEvent::ALL.iter().map(HookEvent::as_str).collect();
    assert_eq!(names, HOOK_EVENTS);
    for name in HOOK_EVENTS {
        let event = HookEvent::from(name);
        assert!(!matches!(event, HookEvent::Other(_)), "{name} is not typed");
        assert_eq!(event.as_str(), name);
        assert_eq!(event.to_string(), name);
    }
    let mut distinct = HookEvent::ALL.to_vec();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 34);
}

#[test]
fn an_unknown_event_is_kept_by_its_name() {
    let event = HookEvent::from("AfterTheNextRelease");
    assert_eq!(event, HookEvent::Other("AfterTheNextRelease".into()));
    assert_eq!(event.as_str(), "AfterTheNextRelease");
    // Names are case-sensitive on the wire.
    assert_eq!(
        HookEvent::from("sessionstart"),
        HookEvent::Other("sessionstart".into())
    );
}
