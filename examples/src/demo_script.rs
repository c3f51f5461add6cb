//! The scripted model the demo plays when no `ANTHROPIC_API_KEY` is set: a Messages API on
//! 127.0.0.1 ([`claude_tools_testkit::model_server`]) whose "model" calls the [`triage`](crate::triage)
//! tools and then quotes what they answered. The real Claude Code CLI runs against it exactly as
//! it would against the real API.

use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

/// The demo's default prompt.
pub const PROMPT: &str = "Two bug reports came in: SSO logins fail, and some customers were charged twice. \
Find out who owns each area, file a ticket for each, and tell me what is open.";

/// The tool_use ids of the scripted calls, in order.
pub const TOOL_USE_IDS: [&str; 5] = [
    "toolu_demo_owner_auth",
    "toolu_demo_owner_billing",
    "toolu_demo_create_auth",
    "toolu_demo_create_billing",
    "toolu_demo_list",
];

/// Four assistant turns: two read-only lookups in one turn (they run concurrently), two tickets
/// filed in one turn, the open tickets listed (a structured result), then the final answer,
/// which quotes the tools' results.
pub fn script() -> Script {
    let [owner_auth, owner_billing, create_auth, create_billing, list] = TOOL_USE_IDS;
    Script::new()
        .turn(
            Turn::text("I'll look up who owns the auth and billing areas.")
                .and_tool_use(owner_auth, "mcp__triage__find_owner", json!({"area": "auth"}))
                .and_tool_use(
                    owner_billing,
                    "mcp__triage__find_owner",
                    json!({"area": "billing"}),
                ),
        )
        .turn(
            Turn::text("Filing one ticket per report.")
                .and_tool_use(
                    create_auth,
                    "mcp__triage__create_ticket",
                    json!({"title": "SSO login fails", "area": "auth", "priority": "high"}),
                )
                .and_tool_use(
                    create_billing,
                    "mcp__triage__create_ticket",
                    json!({"title": "Customers charged twice", "area": "billing", "priority": "high"}),
                ),
        )
        .turn(Turn::tool_use(list, "mcp__triage__list_tickets", json!({})))
        .turn(Turn::text(format!(
            "Both reports are filed:\n\
             - {{{{tool_result:{create_auth}}}}}\n\
             - {{{{tool_result:{create_billing}}}}}\n\
             The board now reports: {{{{tool_result:{list}}}}}"
        )))
}

/// The demo's system prompt.
pub const SYSTEM_PROMPT: &str = "You triage bug reports with the triage tools: find the owning \
team of each area, file one ticket per report, then list the open tickets and summarise them \
briefly.";

/// The demo as `scripts/demo` runs it: the [`triage`](crate::triage) board with its default
/// owners, its four tools, the prompt and this script.
pub fn example() -> crate::run::Example {
    use crate::triage::{Board, Triage};
    crate::run::Example::new("demo", PROMPT, script())
        .system_prompt(SYSTEM_PROMPT)
        .server(Triage::server().with_state(Board::with_default_owners()))
        .allowed_tools([
            "mcp__triage__find_owner",
            "mcp__triage__create_ticket",
            "mcp__triage__list_tickets",
            "mcp__triage__close_ticket",
        ])
}
