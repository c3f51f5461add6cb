//! The guidelines search example through the real CLI: its scripted model searches twice,
//! reads one guideline in full and answers quoting the searches.

use claude_tools_examples::guidelines::{PROMPT, TOOL_USE_IDS, TOOLS, script, server};

use crate::harness::{success_text, tr, world};
use crate::run_query;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_guidelines_example_searches_twice_and_quotes_the_results() {
    let Some(w) = world("examples_guidelines", script()).await else {
        return;
    };
    let options = w.options().mcp_server(server()).allowed_tools(TOOLS);
    let messages = run_query(PROMPT, options).await;
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
    assert_eq!(
        w.tool_results(),
        [
            tr(search_token, token_hits, false),
            tr(search_rollback, rollback_hits, false),
            tr(
                get_releases,
                include_str!("../../../examples/guidelines/releases.md").trim_end(),
                false
            ),
        ]
    );
    assert_eq!(
        success_text(&messages),
        format!(
            "Here is what the guidelines say.\n\n\
             About the token in the logs:\n{token_hits}\n\n\
             About the rollback:\n{rollback_hits}\n\n\
             In short: rotate the token first, then roll back; releases must be reversible."
        )
    );
    // Three calls, three model requests after the prompt's: one conversation.
    assert_eq!(w.turns().len(), 4);
    w.assert_offline();
}
