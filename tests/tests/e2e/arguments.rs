//! Arguments through the real CLI: a tool that denies unknown arguments reaches the model with
//! `additionalProperties: false` and its parameters' defaults and wire names, and a call with
//! several problems gets them all back in one `isError` result, without the tool running.
//!
//! Names are chosen so that declaration order and alphabetical order agree: the texts below do
//! not depend on which of the two the accepted names are listed in.

use std::sync::Mutex;

use claude_tools::prelude::*;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::{Value, json};

use crate::harness::{success_text, tr, world};
use crate::run_query;

#[tool_server(name = "strict", version = "0.1.0", deny_unknown_arguments)]
pub struct Strict;

/// The conversions that ran.
#[derive(Default)]
pub struct Ledger(Mutex<Vec<String>>);

impl Ledger {
    fn record(&self, conversion: &str) {
        self.0.lock().unwrap().push(conversion.to_string());
    }
}

/// Convert an amount into another currency.
#[tool(server = Strict, read_only)]
async fn convert(
    ledger: State<Ledger>,
    /// The amount
    amount: f64,
    /// Digits after the point
    #[arg(default = 2)]
    digits: u32,
    /// The target currency
    #[serde(rename = "toCurrency")]
    to_currency: String,
) -> String {
    let text = format!("{amount:.*} {to_currency}", digits as usize);
    ledger.record(&text);
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_argument_problem_reaches_the_model_at_once() {
    let script = Script::new()
        .turn(Turn::tool_use(
            "toolu_e2e_bad",
            "mcp__strict__convert",
            json!({"amount": "ten", "currency": "USD", "to_currency": "EUR"}),
        ))
        .turn(Turn::tool_use(
            "toolu_e2e_good",
            "mcp__strict__convert",
            json!({"amount": 10, "toCurrency": "EUR"}),
        ))
        .turn(Turn::text("Done: {{tool_result}}"));
    let Some(w) = world("every_argument_problem_reaches_the_model_at_once", script).await else {
        return;
    };
    let ledger = std::sync::Arc::new(Ledger::default());
    let server = Strict::server().with_shared_state(ledger.clone());
    let options = w
        .options()
        .mcp_server(server)
        .allowed_tools(["mcp__strict__convert"]);
    let messages = run_query("convert ten dollars", options).await;

    // `to_currency` is the parameter's Rust name: named as such, with its wire name (issue 18).
    let expected = "Invalid arguments for tool `convert` (4 problems):\n\
                    - argument `amount`: invalid type: string \"ten\", expected f64\n\
                    - argument `toCurrency`: missing required argument\n\
                    - unknown argument `to_currency`: did you mean `toCurrency`?\n\
                    - unknown argument `currency`: the tool accepts only \
                    `amount`, `digits`, `toCurrency`";
    assert_eq!(
        w.tool_results(),
        [
            tr("toolu_e2e_bad", expected, true),
            tr("toolu_e2e_good", "10.00 EUR", false)
        ]
    );
    assert_eq!(*ledger.0.lock().unwrap(), ["10.00 EUR"]);
    assert_eq!(success_text(&messages), "Done: 10.00 EUR");

    // What the model was offered for the tool.
    let turns = w.turns();
    let tools = turns[0].body.as_ref().and_then(|body| body.get("tools"));
    let convert = tools
        .and_then(Value::as_array)
        .and_then(|tools| {
            tools
                .iter()
                .find(|tool| tool["name"] == "mcp__strict__convert")
        })
        .expect("the model is offered mcp__strict__convert");
    assert_eq!(
        convert["input_schema"],
        json!({
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "The amount"},
                "toCurrency": {"type": "string", "description": "The target currency"},
                "digits": {
                    "type": "integer", "minimum": 0, "description": "Digits after the point",
                    "default": 2
                }
            },
            "required": ["amount", "toCurrency"],
            "additionalProperties": false
        })
    );
}
