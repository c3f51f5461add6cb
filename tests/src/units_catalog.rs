//! What the official MCP Python SDK's client sees of the prompts, resources and completions of
//! the `units` example (`tests/python/catalog.py`), over stdio and over HTTP alike.

use serde_json::{Value, json};

/// The "catalog" part of the Python clients' reports, exactly. The SDK adds the defaults of
/// its own models (`resultType`, `cacheScope`, `ttlMs`) to what it parsed.
pub fn expected_units_catalog() -> Value {
    let listed = |key: &str, items: Value| json!({key: items, "cacheScope": "private", "resultType": "complete", "ttlMs": 0});
    let read = |uri: &str, mime: &str, text: &str| {
        json!({
            "contents": [{"uri": uri, "mimeType": mime, "text": text}],
            "cacheScope": "private",
            "resultType": "complete",
            "ttlMs": 0
        })
    };
    let completion = |values: Value| json!({"completion": {"values": values, "hasMore": false}, "resultType": "complete"});
    json!({
        "prompts": listed("prompts", json!([{
            "name": "explain_conversion",
            "title": "Explain a conversion",
            "description": "Ask the model to convert a temperature and explain each step.",
            "arguments": [
                {"name": "value", "description": "The temperature to convert", "required": true},
                {"name": "from", "description": "Its scale", "required": true},
                {"name": "to", "description": "The scale to convert to (°F when absent)", "required": false},
                {"name": "audience", "description": "Who the explanation is for, e.g. \"a child\"", "required": false},
            ]
        }])),
        "prompt": {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Convert 100 °C to K, and explain each step for an engineer."}},
                {"role": "assistant", "content": {"type": "text", "text": "Read units://formulas first, then show the arithmetic."}},
            ],
            "resultType": "complete"
        },
        "prompt_bad_arguments": {
            "code": -32602,
            "message": "Invalid params",
            "data": "Invalid arguments for prompt `explain_conversion` (2 problems):\n- argument `value`: invalid type: string \"hot\", expected f64\n- argument `from`: missing required argument"
        },
        "resources": listed("resources", json!([{
            "uri": "units://formulas",
            "name": "formulas",
            "description": "The formulas between the temperature scales, one per line of CSV.",
            "mimeType": "text/csv"
        }])),
        "templates": listed("resourceTemplates", json!([{
            "uriTemplate": "units://celsius/{value}",
            "name": "celsius",
            "description": "A temperature in degrees Celsius, in every scale.",
            "mimeType": "application/json"
        }])),
        "formulas": read(
            "units://formulas",
            "text/csv",
            "from,to,formula\n°C,°F,F = C × 9/5 + 32\n°C,K,K = C + 273.15\n°F,°C,C = (F − 32) × 5/9\n"
        ),
        "celsius": read(
            "units://celsius/37",
            "application/json",
            r#"{"celsius":37,"fahrenheit":98.6,"kelvin":310.15}"#
        ),
        "below_zero": {
            "code": -32002,
            "message": "Resource not found",
            "data": {"uri": "units://celsius/-300", "reason": "-300 °C is below absolute zero (-273.15 °C)"}
        },
        "unknown_resource": {
            "code": -32002,
            "message": "Resource not found",
            "data": {"uri": "units://nothing"}
        },
        "complete_audience": completion(json!(["a chemist", "a child", "a cook"])),
        "complete_scale": completion(json!(["kelvin"])),
        "complete_value": completion(json!(["100"])),
    })
}
