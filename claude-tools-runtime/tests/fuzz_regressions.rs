//! Inputs the fuzz targets in `fuzz/` found, kept as tests (`fuzz/run` runs the targets).

use std::time::Duration;

use claude_tools_runtime::client::Client;
use claude_tools_runtime::options::Options;
use claude_tools_runtime::transport::{MemoryCli, MemoryTransport};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(2);

async fn recv(cli: &mut MemoryCli) -> Value {
    match tokio::time::timeout(WAIT, cli.next_json()).await {
        Ok(Ok(Some(value))) => value,
        other => panic!("expected a line from the host within {WAIT:?}, got {other:?}"),
    }
}

async fn connect() -> (Client, MemoryCli) {
    let (transport, mut cli) = MemoryTransport::pair();
    let client = tokio::spawn(Client::connect_with(Options::new(), transport));
    let initialize = recv(&mut cli).await;
    cli.write_json(
        &json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": initialize["request_id"], "response": {}}}),
    )
    .await
    .unwrap();
    let client = tokio::time::timeout(WAIT, client)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    (client, cli)
}

/// Found by the `session` target (minimised by hand): a request read with another line before it
/// in the same read and only a blank line after it. The reader holds answers back ("corks" the
/// outbox) while `LineReader::has_buffered_input` is true, which it is for the blank line; the
/// next `next_line` skips that line and waits for input, and the answer stays held until the CLI
/// writes another line — which it never does while it waits for this answer.
#[tokio::test]
async fn an_answer_is_not_held_back_by_a_trailing_blank_line() {
    let (_client, mut cli) = connect().await;
    // One write, so the host reads all three lines at once.
    cli.write_raw(
        b"{\"type\":\"keep_alive\"}\n\
          {\"type\":\"control_request\",\"request_id\":\"e1\",\"request\":{\"subtype\":\"elicitation\"}}\n\
          \n",
    )
    .await
    .unwrap();
    assert_eq!(
        recv(&mut cli).await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "e1",
            "response": {"action": "decline"}}})
    );
}

/// The same lines without the blank one are answered: the blank line is what holds it.
#[tokio::test]
async fn an_answer_without_a_trailing_blank_line_goes_out() {
    let (_client, mut cli) = connect().await;
    cli.write_raw(
        b"{\"type\":\"keep_alive\"}\n\
          {\"type\":\"control_request\",\"request_id\":\"e1\",\"request\":{\"subtype\":\"elicitation\"}}\n",
    )
    .await
    .unwrap();
    assert_eq!(
        recv(&mut cli).await,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": "e1",
            "response": {"action": "decline"}}})
    );
}
