//! The permissions-and-hooks example through the real CLI: its scripted model asks for 50
//! customers, deletes one and exports the list; the example's permission callback and hook
//! decide.

use claude_tools_examples::permissions::{
    DELETE_DENIED, Decision, EXPORT_BLOCKED, Guard, PROMPT, Policy, TOOL_USE_IDS, script,
};
use serde_json::{Value, json};

use crate::harness::{success_text, tool_uses, tr, world};
use crate::run_query;

fn decision(guard: Guard, tool: &str, input: Value, verdict: &str) -> Decision {
    Decision {
        guard,
        tool: format!("mcp__crm__{tool}"),
        input,
        verdict: verdict.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_permissions_example_rewrites_denies_and_blocks() {
    let Some(w) = world("examples_permissions", script()).await else {
        return;
    };
    let policy = Policy::quiet();
    let messages = run_query(PROMPT, policy.install(w.options())).await;
    let [find, delete, export] = TOOL_USE_IDS;

    // The model asked for 50 customers...
    assert_eq!(
        tool_uses(&messages)[0],
        (
            find.to_string(),
            "mcp__crm__find_customers".to_string(),
            json!({"query": "acme", "limit": 50})
        )
    );
    // ...the tool ran with the clamped limit and says so; the model read the denial message
    // and the hook's block reason as error results.
    let found = "3 of 5 customers matching `acme` (limit 3): #1 Acme Corp (Berlin); \
                 #2 Acme Corp. (Berlin); #3 Acme Logistics (Rotterdam)";
    let blocked = format!("PreToolUse:mcp__crm__export_customers hook error: {EXPORT_BLOCKED}");
    assert_eq!(
        w.tool_results(),
        [
            tr(find, found, false),
            tr(delete, DELETE_DENIED, true),
            tr(export, &blocked, true)
        ]
    );
    assert_eq!(
        success_text(&messages),
        format!("Found: {found}\nDelete: {DELETE_DENIED}\nExport: {blocked}")
    );

    // The hook saw every call; the callback was asked only about the two the hook let through.
    // (The delete and the export share a turn: their relative order is the CLI's, so sort.)
    let mut log = policy.log();
    log.sort_by(|a, b| (a.guard, &a.tool).cmp(&(b.guard, &b.tool)));
    let search = json!({"query": "acme", "limit": 50});
    assert_eq!(
        log,
        [
            decision(
                Guard::Hook,
                "delete_customer",
                json!({"id": 2}),
                "no objection"
            ),
            decision(Guard::Hook, "export_customers", json!({}), "blocked"),
            decision(
                Guard::Hook,
                "find_customers",
                search.clone(),
                "no objection"
            ),
            decision(
                Guard::Permission,
                "delete_customer",
                json!({"id": 2}),
                &format!("denied: {DELETE_DENIED}")
            ),
            decision(
                Guard::Permission,
                "find_customers",
                search,
                &format!("allowed with {}", json!({"query": "acme", "limit": 3}))
            ),
        ]
    );
    w.assert_offline();
}
