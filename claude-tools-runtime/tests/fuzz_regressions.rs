//! Inputs the fuzz targets in `fuzz/` found, kept as tests (`fuzz/run` runs the targets).

mod common;

use std::time::Duration;

use claude_tools_runtime::options::Options;
use common::{connect_answering_initialize, success};
use serde_json::json;

/// The answer must come within this, not after some later input.
const WAIT: Duration = Duration::from_secs(2);

/// Writes `bytes` in one write and expects the host's answer to the elicitation request `e1`
/// they carry: a decline.
async fn elicitation_is_declined(bytes: &[u8]) {
    let (_client, mut cli) = connect_answering_initialize(Options::new()).await;
    // One write, so the host reads all the lines at once.
    cli.0.write_raw(bytes).await.unwrap();
    assert_eq!(
        cli.recv_within(WAIT).await,
        success("e1", json!({"action": "decline"}))
    );
}

/// Found by the `session` target (minimised by hand): a request read with another line before it
/// in the same read and only a blank line after it. The reader holds answers back ("corks" the
/// outbox) while `LineReader::has_buffered_input` is true, which it is for the blank line; the
/// next `next_line` skips that line and waits for input, and the answer stays held until the CLI
/// writes another line — which it never does while it waits for this answer.
#[tokio::test]
async fn an_answer_is_not_held_back_by_a_trailing_blank_line() {
    elicitation_is_declined(
        b"{\"type\":\"keep_alive\"}\n\
          {\"type\":\"control_request\",\"request_id\":\"e1\",\"request\":{\"subtype\":\"elicitation\"}}\n\
          \n",
    )
    .await;
}

/// The same lines without the blank one are answered: the blank line is what holds it.
#[tokio::test]
async fn an_answer_without_a_trailing_blank_line_goes_out() {
    elicitation_is_declined(
        b"{\"type\":\"keep_alive\"}\n\
          {\"type\":\"control_request\",\"request_id\":\"e1\",\"request\":{\"subtype\":\"elicitation\"}}\n",
    )
    .await;
}
