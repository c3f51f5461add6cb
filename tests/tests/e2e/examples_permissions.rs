//! The permissions-and-hooks example through the real CLI, run as its `main` runs it (the
//! shared runner, the scripted model): the model asks for 50 customers, deletes one and exports
//! the list; the example's permission callback and hook decide.

use claude_tools_examples::permissions::{
    DELETE_DENIED, Decision, EXPORT_BLOCKED, Guard, Policy, TOOL_USE_IDS, example,
};
use claude_tools_examples::run::{Entry, ModelChoice};
use serde_json::{Value, json};

use crate::harness::{cli, tr, within};

fn call(id: &str, tool: &str, input: Value) -> Entry {
    Entry::ToolCall {
        id: id.to_string(),
        tool: tool.to_string(),
        input,
    }
}

fn result(id: &str, tool: &str, text: &str, is_error: bool) -> Entry {
    Entry::ToolResult {
        id: id.to_string(),
        tool: tool.to_string(),
        text: text.to_string(),
        is_error,
    }
}

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
    let Some(cli) = cli("examples_permissions") else {
        return;
    };
    let policy = Policy::quiet();
    let run = within(
        "the permissions example",
        example(&policy)
            .cli_path(cli)
            .quiet()
            .run(ModelChoice::Scripted),
    )
    .await
    .expect("the example runs");
    let [find, delete, export] = TOOL_USE_IDS;

    // The model asked for 50 customers; the tool ran with the clamped limit and says so. The
    // model read the callback's denial and the hook's block reason as error results.
    let found = "3 of 5 customers matching `acme` (limit 3): #1 Acme Corp (Berlin); \
                 #2 Acme Corp. (Berlin); #3 Acme Logistics (Rotterdam)";
    let blocked = format!("PreToolUse:mcp__crm__export_customers hook error: {EXPORT_BLOCKED}");
    let mut transcript = run.transcript.clone();
    // The delete and the export share a turn: the CLI may report their results in either order.
    transcript[6..8].sort_by_key(|entry| format!("{entry:?}"));
    assert_eq!(
        transcript,
        [
            Entry::Assistant("Looking up the Acme customers.".into()),
            call(
                find,
                "find_customers",
                json!({"query": "acme", "limit": 50})
            ),
            result(find, "find_customers", found, false),
            Entry::Assistant("Removing the duplicate and exporting the list.".into()),
            call(delete, "delete_customer", json!({"id": 2})),
            call(export, "export_customers", json!({})),
            result(delete, "delete_customer", DELETE_DENIED, true),
            result(export, "export_customers", &blocked, true),
            Entry::Assistant(format!(
                "Found: {found}\nDelete: {DELETE_DENIED}\nExport: {blocked}"
            )),
        ]
    );
    assert!(run.is_success());
    let server = run.server.as_ref().expect("the scripted model");
    assert_eq!(
        server.tool_results(),
        [
            tr(find, found, false),
            tr(delete, DELETE_DENIED, true),
            tr(export, &blocked, true)
        ]
    );
    assert_eq!(server.proxy_attempts().len(), 0);

    // The hook saw every call; the callback was asked only about the two the hook let through.
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
}
