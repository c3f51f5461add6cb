//! The guidelines search example through the real CLI, run as its `main` runs it (the shared
//! runner, the scripted model): two searches, one guideline read in full, an answer quoting
//! the searches.

use claude_tools_examples::guidelines::{TOOL_USE_IDS, example};
use claude_tools_examples::run::{Entry, ModelChoice};
use serde_json::json;

use crate::harness::{cli, within};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guidelines_example_searches_twice_and_quotes_the_results() {
    let Some(cli) = cli("examples_guidelines") else {
        return;
    };
    let run = within(
        "the guidelines example",
        example().cli_path(cli).quiet().run(ModelChoice::Scripted),
    )
    .await
    .expect("the example runs");
    let [search_token, search_rollback, get_releases] = TOOL_USE_IDS;

    let token_hits = "1. secrets: Handling secrets (score 5.38): \"Log the name of the credential, \
        not its value; redact tokens and card numbers before a request or response body is \
        written to a log.\"\n\
        2. incidents: Incident response (score 0.85): \"Anyone may declare an incident: customers \
        cannot log in, data looks wrong, or an alert fires that nobody understands.\"";
    let rollback_hits = "1. releases: Releases (score 3.65): \"Watch the error rate and latency \
        dashboards at each stage; any regression means roll back, not fix forward.\"\n\
        2. incidents: Incident response (score 2.56): \"Mitigate before you diagnose: roll back \
        the last release, turn off the feature flag, or fail over to the standby region.\"";
    let releases = include_str!("../../../examples/guidelines/releases.md").trim_end();
    let answer = format!(
        "Here is what the guidelines say.\n\n\
         About the token in the logs:\n{token_hits}\n\n\
         About the rollback:\n{rollback_hits}\n\n\
         In short: rotate the token first, then roll back; releases must be reversible."
    );
    let call = |id: &str, tool: &str, input| Entry::ToolCall {
        id: id.to_string(),
        tool: tool.to_string(),
        input,
    };
    let result = |id: &str, tool: &str, text: &str| Entry::ToolResult {
        id: id.to_string(),
        tool: tool.to_string(),
        text: text.to_string(),
        is_error: false,
    };
    assert_eq!(
        run.transcript,
        [
            Entry::Assistant("First, what the guidelines say about a token in the logs.".into()),
            call(
                search_token,
                "search_guidelines",
                json!({"query": "token leaked in logs", "limit": 2})
            ),
            result(search_token, "search_guidelines", token_hits),
            Entry::Assistant("Now rolling back a release.".into()),
            call(
                search_rollback,
                "search_guidelines",
                json!({"query": "roll back a release"})
            ),
            result(search_rollback, "search_guidelines", rollback_hits),
            Entry::Assistant("The release guideline looks relevant; reading it in full.".into()),
            call(get_releases, "get_guideline", json!({"id": "releases"})),
            result(get_releases, "get_guideline", releases),
            Entry::Assistant(answer.clone()),
        ]
    );
    assert_eq!(
        (run.is_success(), run.final_text()),
        (true, answer.as_str())
    );
    // One conversation: the prompt's request and one per tool call.
    let server = run.server.as_ref().expect("the scripted model");
    assert_eq!(server.turn_requests().len(), 4);
    assert_eq!(server.proxy_attempts().len(), 0);
}
