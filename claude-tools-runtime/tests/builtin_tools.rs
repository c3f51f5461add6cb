//! The built-in tools' typed inputs and outputs (`builtin_tools`): a fixture of every tool's
//! input and output (written from `sdk-tools.d.ts` 0.3.332) reads as its own tool and writes
//! back unchanged; the real CLI's hook inputs read typed; fields a newer CLI adds are kept; a
//! field of the wrong type is an error naming the tool and the field, the JSON left where it
//! was; a typed rewrite of an allowed input keeps the fields it does not type.

use std::collections::BTreeSet;

use claude_tools_runtime::builtin_tools::{
    BashInput, BuiltinInput, BuiltinToolInput, BuiltinToolOutput, FileReadOutput, GrepOutputMode,
    TodoStatus, ToolInputError, ToolPart, WebSearchResultItem,
};
use claude_tools_runtime::hooks::{HookInput, TypedHookInput};
use claude_tools_runtime::message::{ContentBlock, Message};
use claude_tools_runtime::permission::{PermissionDecision, PermissionRequest};
use serde_json::{Value, json};

const INPUTS: &str = include_str!("fixtures/builtin_tools/inputs.json");
const OUTPUTS: &str = include_str!("fixtures/builtin_tools/outputs.json");
const CLI_HOOK_INPUTS: &str = include_str!("fixtures/cli-2.1.332-hook-inputs.ndjson");

fn fixtures(text: &str, key: &str) -> Vec<(String, Value)> {
    let Value::Array(items) = serde_json::from_str(text).expect("the fixture is JSON") else {
        panic!("the fixture is a list")
    };
    items
        .into_iter()
        .map(|item| {
            let tool = item["tool"].as_str().expect("a tool name").to_owned();
            (tool, item[key].clone())
        })
        .collect()
}

#[test]
fn every_input_fixture_reads_as_its_own_tool_and_writes_back_unchanged() {
    for (tool, input) in fixtures(INPUTS, "input") {
        let typed = BuiltinToolInput::parse(&tool, &input)
            .unwrap_or_else(|error| panic!("{tool}: {error}"));
        assert!(
            !matches!(typed, BuiltinToolInput::Other { .. }),
            "{tool} read as Other"
        );
        assert_eq!(typed.tool_name(), tool);
        assert_eq!(typed.to_value().expect("serializes"), input, "{tool}");
    }
}

#[test]
fn every_output_fixture_reads_as_its_own_tool_and_writes_back_unchanged() {
    for (tool, output) in fixtures(OUTPUTS, "output") {
        let typed = BuiltinToolOutput::parse(&tool, &output)
            .unwrap_or_else(|error| panic!("{tool}: {error}"));
        assert!(
            !matches!(typed, BuiltinToolOutput::Other { .. }),
            "{tool} read as Other"
        );
        assert_eq!(typed.tool_name(), tool);
        assert_eq!(typed.to_value().expect("serializes"), output, "{tool}");
    }
}

#[test]
fn the_fixtures_cover_every_typed_tool() {
    let names = |list: Vec<(String, Value)>| -> BTreeSet<String> {
        list.into_iter().map(|(tool, _)| tool).collect()
    };
    let typed = |tools: &[&str]| -> BTreeSet<String> {
        tools.iter().map(|tool| tool.to_string()).collect()
    };
    assert_eq!(
        names(fixtures(INPUTS, "input")),
        typed(BuiltinToolInput::TYPED_TOOLS)
    );
    assert_eq!(
        names(fixtures(OUTPUTS, "output")),
        typed(BuiltinToolOutput::TYPED_TOOLS)
    );
    // 43 of sdk-tools.d.ts's 44 inputs (`McpInput` is an MCP tool's own, read as `Other`),
    // 43 of its 44 outputs (`McpOutput` likewise).
    assert_eq!(BuiltinToolInput::TYPED_TOOLS.len(), 43);
    assert_eq!(BuiltinToolOutput::TYPED_TOOLS.len(), 43);
}

#[test]
fn typed_fields_read_the_wire_names() {
    let grep =
        json!({"pattern": "TODO", "-i": true, "-C": 2, "type": "rust", "output_mode": "count"});
    let Ok(BuiltinToolInput::Grep(grep)) = BuiltinToolInput::parse("Grep", &grep) else {
        panic!()
    };
    assert_eq!(grep.case_insensitive, Some(true));
    assert_eq!(grep.around, Some(2));
    assert_eq!(grep.file_type.as_deref(), Some("rust"));
    assert_eq!(grep.output_mode, Some(GrepOutputMode::Count));
    assert!(grep.extra.is_empty(), "{:?}", grep.extra);

    let bash = json!({"command": "ls", "dangerouslyDisableSandbox": true});
    let Ok(BuiltinToolInput::Bash(bash)) = BuiltinToolInput::parse("Bash", &bash) else {
        panic!()
    };
    assert_eq!(bash.dangerously_disable_sandbox, Some(true));

    let outputs = fixtures(OUTPUTS, "output");
    let (_, read) = outputs.iter().find(|(tool, _)| tool == "Read").unwrap();
    let Ok(BuiltinToolOutput::Read(FileReadOutput::Text(text))) =
        BuiltinToolOutput::parse("Read", read)
    else {
        panic!()
    };
    assert_eq!(text.file.content, "hello\n");
    assert_eq!(text.file.total_lines, 1);
    let (_, search) = outputs
        .iter()
        .find(|(tool, _)| tool == "WebSearch")
        .unwrap();
    let Ok(BuiltinToolOutput::WebSearch(search)) = BuiltinToolOutput::parse("WebSearch", search)
    else {
        panic!()
    };
    assert!(
        matches!(&search.results[0], WebSearchResultItem::Hits(hits) if hits.content[0].url == "https://serde.rs/attr-flatten.html")
    );
    assert!(
        matches!(&search.results[1], WebSearchResultItem::Text(text) if text.starts_with("The first"))
    );
}

#[test]
fn fields_a_newer_cli_adds_are_kept_through_a_read_and_a_write() {
    let input = json!({
        "todos": [{"content": "Ship", "status": "blocked", "activeForm": "Shipping", "priority": "high"}],
        "merge": true,
    });
    let Ok(BuiltinToolInput::TodoWrite(todos)) = BuiltinToolInput::parse("TodoWrite", &input)
    else {
        panic!()
    };
    assert_eq!(todos.extra["merge"], true);
    assert_eq!(todos.todos[0].extra["priority"], "high");
    // A status value this library does not know is kept too.
    assert_eq!(todos.todos[0].status, TodoStatus::Other("blocked".into()));
    assert_eq!(
        BuiltinToolInput::TodoWrite(todos).to_value().unwrap(),
        input
    );

    let output = json!({"stdout": "", "stderr": "", "interrupted": false, "exitSignal": "SIGTERM"});
    let Ok(BuiltinToolOutput::Bash(bash)) = BuiltinToolOutput::parse("Bash", &output) else {
        panic!()
    };
    assert_eq!(bash.extra["exitSignal"], "SIGTERM");
    assert_eq!(BuiltinToolOutput::Bash(bash).to_value().unwrap(), output);
}

fn input_error(tool: &str, input: Value) -> ToolInputError {
    match BuiltinToolInput::parse(tool, &input) {
        Err(error) => error,
        Ok(typed) => panic!("{tool} {input} read as {typed:?}"),
    }
}

#[test]
fn a_field_of_the_wrong_type_is_an_error_naming_the_tool_and_the_field() {
    let error = input_error("Bash", json!({"command": 42}));
    assert_eq!(error.tool, "Bash");
    assert_eq!(error.part, ToolPart::Input);
    assert_eq!(error.field, "command");
    assert!(error.message.contains("expected a string"), "{error}");
    assert_eq!(
        error.to_string(),
        format!("Bash input: field `command`: {}", error.message)
    );

    assert_eq!(
        input_error("Read", json!({"file_path": "/a", "offset": "ten"})).field,
        "offset"
    );
    let nested = input_error(
        "TodoWrite",
        json!({"todos": [
            {"content": "a", "status": "pending", "activeForm": "A"},
            {"content": "b", "status": 3, "activeForm": "B"},
        ]}),
    );
    assert_eq!(nested.field, "todos[1].status");
    // A required field missing is named too, at its own path.
    assert_eq!(input_error("Bash", json!({"timeout": 5})).field, "command");
    assert_eq!(
        input_error(
            "TodoWrite",
            json!({"todos": [{"content": "a", "status": "pending"}]})
        )
        .field,
        "todos[0].activeForm"
    );
    // Not an object at all.
    assert_eq!(input_error("Glob", json!("**/*.rs")).field, ".");

    let output = BuiltinToolOutput::parse("Glob", &json!({"durationMs": 1, "numFiles": -1}))
        .expect_err("a negative count");
    assert_eq!(output.part, ToolPart::Output);
    assert_eq!(output.field, "numFiles");
}

#[test]
fn a_legacy_name_reads_as_the_tool_it_now_names() {
    let input = json!({"description": "d", "prompt": "p"});
    let Ok(BuiltinToolInput::Agent(agent)) = BuiltinToolInput::parse("Task", &input) else {
        panic!()
    };
    assert_eq!(agent.prompt, "p");
    assert!(matches!(
        BuiltinToolInput::parse("KillShell", &json!({"shell_id": "bash_1"})),
        Ok(BuiltinToolInput::TaskStop(_))
    ));
    // An error names the tool as the CLI did.
    assert_eq!(input_error("Task", json!({"prompt": 1})).tool, "Task");
}

#[test]
fn an_mcp_tool_or_an_unknown_tool_reads_as_other_untouched() {
    for name in ["mcp__tickets__create", "LSP", "SomeToolOfANewerCli"] {
        let input = json!({"anything": [1, 2], "command": 42});
        let typed = BuiltinToolInput::parse(name, &input).expect("never an error");
        assert_eq!(
            typed,
            BuiltinToolInput::Other {
                name: name.into(),
                input: input.clone()
            }
        );
        assert_eq!(typed.tool_name(), name);
        assert_eq!(typed.to_value().unwrap(), input);
    }
}

#[test]
fn a_permission_request_reads_its_input_typed_and_keeps_the_raw_input() {
    let request = PermissionRequest::new("Write", json!({"file_path": "/w/a", "content": "x"}));
    let Ok(BuiltinToolInput::Write(write)) = request.builtin_input() else {
        panic!()
    };
    assert_eq!(write.file_path, "/w/a");

    let bad = json!({"file_path": ["/w/a"], "content": "x"});
    let request = PermissionRequest::new("Write", bad.clone());
    let error = request.builtin_input().expect_err("file_path is a list");
    assert_eq!(
        (error.tool.as_str(), error.field.as_str()),
        ("Write", "file_path")
    );
    assert_eq!(request.input, bad, "the raw input stays as it came");

    assert!(request.input_as::<BashInput>().is_none());
    let request = PermissionRequest::new("Bash", json!({"command": "ls"}));
    assert_eq!(
        request.input_as::<BashInput>().unwrap().unwrap().command,
        "ls"
    );
    assert_eq!(BashInput::TOOL_NAME, "Bash");
}

#[test]
fn a_typed_rewrite_keeps_every_field_it_does_not_change() {
    let input = json!({
        "command": "rm -rf build",
        "description": "Clean the build",
        "timeout": 1000,
        "sandboxProfile": "strict",
    });
    let request = PermissionRequest::new("Bash", input);
    let Some(Ok(bash)) = request.input_as::<BashInput>() else {
        panic!()
    };
    let decision = PermissionDecision::allow_with(BashInput {
        command: "rm -rf ./build".into(),
        ..bash
    });
    let PermissionDecision::Allow {
        updated_input: Some(updated),
        ..
    } = decision
    else {
        panic!("{decision:?}")
    };
    assert_eq!(
        updated,
        json!({
            "command": "rm -rf ./build",
            "description": "Clean the build",
            "timeout": 1000,
            "sandboxProfile": "strict",
        })
    );
}

#[test]
fn the_real_cli_hook_inputs_read_typed() {
    let mut pre = 0;
    let mut post = 0;
    for line in CLI_HOOK_INPUTS.lines() {
        let Value::Object(raw) = serde_json::from_str(line).expect("a JSON line") else {
            panic!()
        };
        match HookInput::from_raw(raw).typed() {
            TypedHookInput::PreToolUse(call) => {
                let typed = call.builtin_input().expect("reads");
                assert_eq!(typed.to_value().unwrap(), call.tool_input);
                if call.tool_name == "Bash" {
                    assert!(matches!(typed, BuiltinToolInput::Bash(_)));
                    pre += 1;
                }
            }
            TypedHookInput::PostToolUse(call) if call.tool_name == "Bash" => {
                let Ok(BuiltinToolOutput::Bash(output)) = call.builtin_output() else {
                    panic!("{:?}", call.builtin_output())
                };
                assert_eq!(
                    BuiltinToolOutput::Bash(output).to_value().unwrap(),
                    call.tool_response
                );
                post += 1;
            }
            _ => {}
        }
    }
    assert!(pre > 0 && post > 0, "{pre} {post}");
}

#[test]
fn a_tool_use_block_and_a_tool_use_result_read_typed() {
    let block = ContentBlock::from_value(json!({
        "type": "tool_use", "id": "toolu_1", "name": "Glob", "input": {"pattern": "*.rs"},
    }));
    let Some(Ok(BuiltinToolInput::Glob(glob))) = block.builtin_tool_input() else {
        panic!()
    };
    assert_eq!(glob.pattern, "*.rs");
    assert!(ContentBlock::text("hi").builtin_tool_input().is_none());

    let failed = Message::from_value(
        json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Error: no such file", "is_error": true}]},
        "tool_use_result": "Error: no such file", "parent_tool_use_id": null, "session_id": "s"}),
    );
    let Message::User(failed) = failed else {
        panic!()
    };
    assert!(failed.builtin_tool_output("Read").is_none());
}

/// A real session (`cli-2.1.332-builtin-tools.ndjson`, recorded by the end-to-end test
/// `a_permission_callback_reads_typed_inputs_and_rewrites_a_command`): the CLI writing, editing,
/// reading, finding, searching and running a command.
const CLI_SESSION: &str = include_str!("fixtures/cli-2.1.332-builtin-tools.ndjson");

#[test]
fn a_real_sessions_tool_calls_and_results_read_typed_and_write_back_unchanged() {
    let mut names = std::collections::HashMap::new();
    let mut inputs = BTreeSet::new();
    let mut outputs = BTreeSet::new();
    for line in CLI_SESSION.lines() {
        let value: Value = serde_json::from_str(line).expect("a JSON line");
        match Message::from_value(value.clone()) {
            Message::Assistant(assistant) => {
                for block in &assistant.message.content {
                    let ContentBlock::ToolUse {
                        id, name, input, ..
                    } = block
                    else {
                        continue;
                    };
                    let typed = block
                        .builtin_tool_input()
                        .expect("a tool_use")
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert!(!matches!(typed, BuiltinToolInput::Other { .. }), "{name}");
                    assert_eq!(&typed.to_value().unwrap(), input);
                    names.insert(id.clone(), name.clone());
                    inputs.insert(name.clone());
                }
            }
            Message::User(user) => {
                for (id, _, _) in user.tool_results() {
                    let name = &names[id];
                    let typed = user
                        .builtin_tool_output(name)
                        .expect("a structured tool_use_result")
                        .unwrap_or_else(|e| panic!("{e}"));
                    assert!(!matches!(typed, BuiltinToolOutput::Other { .. }), "{name}");
                    assert_eq!(
                        typed.to_value().unwrap(),
                        value["tool_use_result"],
                        "{name}"
                    );
                    outputs.insert(name.clone());
                }
            }
            _ => {}
        }
    }
    let six: BTreeSet<String> = ["Bash", "Edit", "Glob", "Grep", "Read", "Write"]
        .map(String::from)
        .into();
    assert_eq!((inputs, outputs), (six.clone(), six));
}
