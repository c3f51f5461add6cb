// A hook callback typed by its event cannot answer for another event.
use claude_tools::hooks::{HookMatcher, HookOutput, PostToolUseOutput, PreToolUseOutput};

fn main() {
    // A PostToolUse output from a PreToolUse callback.
    let _pre = HookMatcher::new("Bash")
        .pre_tool_use(|_call| async { PostToolUseOutput::default().additional_context("ran") });
    // A deny in a PostToolUse callback: the tool already ran.
    let _post = HookMatcher::new("Bash")
        .post_tool_use(|_done| async { PostToolUseOutput::default().deny_tool("no") });
    // The untyped output's deny, from a PostToolUse callback.
    let _untyped = HookMatcher::new("Bash")
        .post_tool_use(|_done| async { HookOutput::new().deny_tool("no") });
    let _ = PreToolUseOutput::default();
}
