//! `UserInput`'s frame fields through the real CLI: a message sent `without_turn()`
//! (`shouldQuery: false`) starts no turn (the CLI answers it at once with an empty result of no
//! turn), and the model reads it with the next prompt; pasted text reaches the model after the
//! typed text.

use claude_tools_runtime::client::Client;
use claude_tools_runtime::message::{Message, QueuePriority, UserInput};
use claude_tools_testkit::model_server::{Script, Turn};

use serde_json::json;

use crate::harness::{dump, result_of, success_text, within, world};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_without_turn_calls_no_model_and_is_read_with_the_next_prompt() {
    let Some(w) = world(
        "without_turn",
        Script::new().turn(Turn::text("On staging.")),
    )
    .await
    else {
        return;
    };
    within("without_turn", async {
        let mut client = Client::connect(w.options()).await.expect("connect");
        client
            .send(
                UserInput::text("Context: the deploy target is staging-eu.")
                    .without_turn()
                    .with_priority(QueuePriority::Later),
            )
            .await
            .unwrap();
        // Answered at once, by no turn.
        let note = client.receive_response().await.expect("the note's answer");
        let result = result_of(&note);
        assert_eq!(
            (&result["subtype"], &result["num_turns"], &result["result"]),
            (&json!("success"), &json!(0), &json!("")),
            "{result:#}"
        );
        assert!(w.turns().is_empty(), "the note called the model");
        client
            .send(UserInput::text("Where do we deploy?").with_pasted_text("ticket OPS-9931"))
            .await
            .unwrap();
        let messages = client.receive_response().await.expect("one response");
        assert_eq!(
            success_text(&messages),
            "On staging.",
            "{:#?}",
            dump(&messages)
        );
        let results = messages
            .iter()
            .filter(|m| matches!(m, Message::Result(_)))
            .count();
        assert_eq!(results, 1, "{:#?}", dump(&messages));
        client.disconnect().await.expect("disconnect");
    })
    .await;
    // One model request, holding the context, the prompt and the paste.
    let turns = w.turns();
    assert_eq!(turns.len(), 1, "{turns:#?}");
    let body = turns[0].body.as_ref().expect("a JSON body").to_string();
    let context = body
        .find("the deploy target is staging-eu")
        .expect("the context");
    let prompt = body.find("Where do we deploy?").expect("the prompt");
    let paste = body.find("ticket OPS-9931").expect("the paste");
    assert!(context < prompt && prompt < paste, "{body}");
}
