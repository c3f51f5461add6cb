use claude_tools::prelude::*;
use claude_tools::{ToolCall, ToolDefBuilder};

fn sync_closure() {
    // A sync closure given to `with_tool`: its handler must be async too.
    let _ = ToolServer::new("shop", "1.0.0").with_tool(
        ToolDefBuilder::new("ping").description("Answers pong"),
        |call: ToolCall| format!("pong from {}", call.tool_name()),
    );
}

fn future_not_send() {
    // An async one whose future is not `Send`: rustc names the value held across the `.await`.
    let _ = ToolServer::new("shop", "1.0.0").with_tool(
        ToolDefBuilder::new("later").description("Answers later"),
        |_call: ToolCall| async move {
            let local = std::rc::Rc::new("later");
            tokio::task::yield_now().await;
            local.to_string()
        },
    );
}

fn main() {
    sync_closure();
    future_not_send();
}
