// A callback typed by its event (beyond PreToolUse and PostToolUse) cannot answer for another
// event.
use claude_tools::hooks::{
    ContextOutput, HookMatcher, PermissionRequestOutput, SessionStartOutput,
    UserPromptSubmitOutput,
};

fn main() {
    // A permission decision from a UserPromptSubmit callback.
    let _prompt = HookMatcher::any().user_prompt_submit(|_submit| async { PermissionRequestOutput::allow() });
    // A SessionStart output from a Stop callback.
    let _stop = HookMatcher::any().stop(|_stop| async { SessionStartOutput::default() });
    // A prompt's output from a PermissionRequest callback.
    let _permission = HookMatcher::new("Read")
        .permission_request(|_request| async { UserPromptSubmitOutput::default() });
    let _ = ContextOutput::default();
}
