//! Every supported return type.
// The tools have no description (only their return types matter here): allow the warning that
// says so.
#![allow(deprecated)]
use std::borrow::Cow;

use claude_tools::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

#[tool_server(name = "returns")]
pub struct Returns;

#[derive(Serialize, JsonSchema)]
pub struct Point {
    pub x: i32,
}

#[tool(server = Returns)]
async fn string() -> String {
    String::new()
}

#[tool(server = Returns)]
async fn static_str() -> &'static str {
    ""
}

#[tool(server = Returns)]
async fn cow() -> Cow<'static, str> {
    Cow::Borrowed("")
}

#[tool(server = Returns)]
async fn integer() -> u64 {
    1
}

#[tool(server = Returns)]
async fn float() -> f64 {
    1.5
}

#[tool(server = Returns)]
async fn boolean() -> bool {
    true
}

#[tool(server = Returns)]
async fn unit() -> () {}

#[tool(server = Returns)]
async fn json() -> Json<Point> {
    Json(Point { x: 1 })
}

#[tool(server = Returns)]
async fn image() -> Image {
    Image::png([0u8; 4])
}

#[tool(server = Returns)]
async fn content() -> Content {
    Content::text("a")
}

#[tool(server = Returns)]
async fn contents() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

#[tool(server = Returns)]
async fn tool_result() -> ToolResult {
    ToolResult::text("a")
}

#[tool(server = Returns)]
async fn result_tool_error() -> Result<i64, ToolError> {
    Err(ToolError::new("no"))
}

#[tool(server = Returns)]
async fn result_string() -> Result<String, String> {
    Ok(String::new())
}

#[tool(server = Returns)]
async fn result_json() -> Result<Json<Point>, std::io::Error> {
    Ok(Json(Point { x: 2 }))
}

#[tool(server = Returns)]
fn sync_result() -> Result<(), String> {
    Ok(())
}

fn main() {
    let server = Returns::server();
    assert_eq!(server.tools().len(), 16);
    let with_output_schema: Vec<&str> = server
        .tools()
        .iter()
        .filter(|t| t.def().output_schema.is_some())
        .map(|t| t.name())
        .collect();
    assert_eq!(with_output_schema, ["json", "result_json"]);
}
