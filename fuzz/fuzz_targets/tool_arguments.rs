//! A macro-generated tool (integers, a float, strings, `Option`, `Vec`, a nested struct, an enum)
//! called through the router with arbitrary arguments: it never panics; when every argument
//! decodes the tool sees exactly what serde makes of it, and otherwise the call is an `isError`
//! result naming the first parameter (in declaration order) that does not decode.

#![no_main]

use arbitrary::{Result, Unstructured};
use claude_tools_fuzz::echo::{self, Fuzz};
use claude_tools_fuzz::{MAX_DEPTH, json, object};
use claude_tools::mcp::McpRouter;
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value};

/// Builds one argument's value.
type MakeValue = fn(&mut Unstructured<'_>) -> Result<Value>;

/// Arguments that mostly have the right names, and now and then the right types.
fn arguments(u: &mut Unstructured<'_>) -> Result<Value> {
    if u.ratio(1, 10)? {
        // Not an object at all.
        return json(u, 2, &echo::KEYS);
    }
    let mut arguments = object(u, MAX_DEPTH - 1, &echo::KEYS)?;
    // Plausible values for some parameters, so calls get past the first ones.
    let plausible: [(&str, MakeValue); 7] = [
        ("count", |u| Ok(u.arbitrary::<i64>()?.into())),
        ("small", |u| Ok(u.int_in_range(0..=300u16)?.into())),
        ("ratio", |u| Ok(u.arbitrary::<i32>()?.into())),
        ("name", |u| Ok(claude_tools_fuzz::string(u)?.into())),
        ("tags", |u| {
            Ok(Value::Array(vec![claude_tools_fuzz::string(u)?.into()]))
        }),
        ("point", |u| {
            Ok(serde_json::json!({"x": u.arbitrary::<i32>()?, "y": u.int_in_range(-3..=3)?}))
        }),
        ("mode", |u| {
            Ok(match u.choose_index(3)? {
                0 => "fast".into(),
                1 => serde_json::json!({"slow": {"ms": u.arbitrary::<u32>()?}}),
                _ => serde_json::json!({"named": claude_tools_fuzz::string(u)?}),
            })
        }),
    ];
    for (name, make) in plausible {
        if u.ratio(3, 4)? {
            arguments.insert(name.into(), make(u)?);
        }
    }
    Ok(Value::Object(arguments))
}

async fn run(u: &mut Unstructured<'_>, router: &McpRouter) -> Result<()> {
    let arguments = arguments(u)?;
    let message = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": arguments}});
    let reply = router
        .handle_json(message.clone())
        .await
        .unwrap_or_else(|| panic!("{message} was not answered"));

    let result = &reply["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let is_error = result["isError"].as_bool();
    let empty = Map::new();
    match arguments.as_object() {
        Some(map) => match echo::expected(map) {
            Ok(expected) => {
                assert_eq!(is_error, Some(false), "{arguments} gave {reply}");
                assert_eq!(text, expected, "{arguments} gave {reply}");
            }
            Err(parameter) => {
                assert_eq!(is_error, Some(true), "{arguments} gave {reply}");
                let named = format!("argument `{parameter}");
                assert!(
                    text.contains(&named),
                    "{arguments} gave {reply}, not naming {parameter}"
                );
            }
        },
        None => {
            // Arguments that are not an object decode as no arguments, or are refused whole.
            assert_eq!(is_error, Some(true), "{arguments} gave {reply}");
            let _ = echo::expected(&empty);
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let Some(runtime) = claude_tools_fuzz::runtime(false) else {
        return;
    };
    let router = McpRouter::new(Fuzz::server());
    let mut u = Unstructured::new(data);
    let _ = runtime.block_on(run(&mut u, &router));
});
