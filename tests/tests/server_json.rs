//! The registry's `server.json` of a claude-tools server (issue 32, item 4): what
//! `ToolServer::server_json` makes is valid against the registry's schema
//! (`fixtures/registry/server.schema.json`, its constraints at 2025-12-11), and the validator
//! used here refuses what the registry refuses, so that a pass means something.

use claude_tools::prelude::*;
use claude_tools::publish::PublishInfo;
use serde_json::{Value, json};

fn registry_schema() -> jsonschema::Validator {
    let text = include_str!("../fixtures/registry/server.schema.json");
    let schema: Value = serde_json::from_str(text).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

/// The schema's errors for `document`, one line each.
fn errors(validator: &jsonschema::Validator, document: &Value) -> Vec<String> {
    validator
        .iter_errors(document)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect()
}

#[test]
fn the_examples_server_json_is_valid_against_the_registry_schema() {
    let server_json = claude_tools_examples::stdio_server::server_json().unwrap();
    let document = serde_json::to_value(&server_json).unwrap();
    assert_eq!(errors(&registry_schema(), &document), Vec::<String>::new());
    assert_eq!(
        document,
        json!({
            "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
            "name": "io.github.claude-tools/units",
            "description": "Unit conversions and text statistics.",
            "title": "Units",
            "version": "1.0.0",
            "repository": {"url": "https://github.com/claude-tools/claude-tools",
                "source": "github", "subfolder": "examples"},
            "packages": [{"registryType": "cargo", "registryBaseUrl": "https://crates.io",
                "identifier": "claude-tools-examples", "version": "1.0.0",
                "transport": {"type": "stdio"}}],
            "remotes": [{"type": "streamable-http", "url": "https://units.example.com/mcp"}]
        })
    );
}

#[tool_server(name = "notes", version = "0.3.1")]
pub struct Notes;

#[test]
fn a_remote_only_server_with_a_description_of_its_own_is_valid() {
    let info = PublishInfo::new("com.example/notes")
        .description("Team notes, searchable")
        .website_url("https://example.com/notes")
        .remote("https://mcp.example.com/notes");
    let document = serde_json::to_value(Notes::server().server_json(&info).unwrap()).unwrap();
    assert_eq!(errors(&registry_schema(), &document), Vec::<String>::new());
    assert_eq!(document["version"], "0.3.1");
    assert!(document.get("packages").is_none());
}

#[test]
fn the_schema_refuses_what_the_registry_refuses() {
    let validator = registry_schema();
    let valid =
        serde_json::to_value(claude_tools_examples::stdio_server::server_json().unwrap()).unwrap();
    let broken = [
        ("/name", json!("units")),
        ("/description", json!("x".repeat(101))),
        ("/packages/0/version", json!("latest")),
        ("/packages/0/transport/type", json!("pipe")),
        ("/remotes/0/url", json!("ftp://units.example.com")),
    ];
    for (pointer, value) in broken {
        let mut document = valid.clone();
        *document.pointer_mut(pointer).unwrap() = value;
        assert!(
            !errors(&validator, &document).is_empty(),
            "the schema accepted {pointer} = {}",
            document.pointer(pointer).unwrap()
        );
    }
}

#[test]
fn the_crate_readme_marker_is_what_the_registry_looks_for() {
    let info = claude_tools_examples::stdio_server::publish_info();
    assert_eq!(
        info.mcp_name_marker(),
        "mcp-name: io.github.claude-tools/units"
    );
    assert!(info.readme_declares_name("<!-- mcp-name: io.github.claude-tools/units -->"));
    assert!(!info.readme_declares_name("mcp-name: io.github.claude-tools/units2"));
}
