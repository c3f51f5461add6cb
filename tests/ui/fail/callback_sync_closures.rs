// Sync closures given where a host callback must return a future.
use claude_tools::elicitation::ElicitationAnswer;
use claude_tools::hooks::{HookMatcher, HookOutput};
use claude_tools::{Options, PermissionDecision};

fn main() {
    let _hook = HookMatcher::any().callback(|_input| HookOutput::new());
    let _permission = Options::new().can_use_tool(|_request| PermissionDecision::allow());
    let _elicitation = Options::new().on_elicitation(|_request| ElicitationAnswer::decline());
}
