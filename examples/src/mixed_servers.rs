//! The mixed servers example: an in-process tool server beside an external stdio MCP server.
//!
//! The in-process server (`inventory`) is ordinary `#[tool]` functions answered inside the host
//! over the CLI's control protocol. The external server is a separate program the CLI starts
//! and talks MCP to over its stdin/stdout, declared with
//! [`Options::external_mcp_server`](claude_tools::Options::external_mcp_server) and
//! [`ExternalServer::stdio`]; the model sees both servers' tools side by side
//! (`mcp__inventory__stock_level`, `mcp__echo__echo`).
//!
//! The external server here is the testkit's echo server
//! ([`claude_tools_testkit::stdio_mcp`]), so the example needs nothing installed: the example
//! binary runs it when started with [`ECHO_MCP_FLAG`] ([`echo_server_in`] builds that command).
//! Any stdio MCP server's command line works the same way.
//!
//! ```
//! use claude_tools::prelude::*;
//! use claude_tools_examples::mixed_servers::Inventory;
//!
//! # tokio_test_block_on(async {
//! let server = Inventory::server();
//! let stock = server.call("stock_level", serde_json::json!({"sku": "MUG-BLUE"}), ToolContext::new()).await;
//! assert_eq!(stock.text_content(), "MUG-BLUE (blue mug): 17 in stock");
//! # });
//! # fn tokio_test_block_on(f: impl std::future::Future<Output = ()>) {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! ```

use std::path::Path;

use claude_tools::ExternalServer;
use claude_tools::prelude::*;
use claude_tools_testkit::model_server::{Script, Turn};
use serde_json::json;

use crate::run::Example;

/// The argument that makes the example binary serve the echo MCP server on stdio instead of
/// running the example.
pub const ECHO_MCP_FLAG: &str = "--echo-mcp";

/// The name the external server is declared under: its tools are `mcp__echo__<tool>`.
pub const EXTERNAL_NAME: &str = "echo";

/// The tools the example allows, one per server.
pub const TOOLS: [&str; 2] = ["mcp__inventory__stock_level", "mcp__echo__echo"];

/// The in-process server: the model sees its tool as `mcp__inventory__stock_level`.
#[tool_server(
    name = "inventory",
    version = "1.0.0",
    instructions = "The shop's stock levels, by SKU."
)]
pub struct Inventory;

/// The stock, `(sku, description, units)`.
const STOCK: [(&str, &str, u32); 3] = [
    ("MUG-BLUE", "blue mug", 17),
    ("MUG-RED", "red mug", 0),
    ("TEE-L", "T-shirt, size L", 42),
];

/// How many units of a product are in stock.
#[tool(server = Inventory, read_only)]
async fn stock_level(
    /// The product's SKU, e.g. `MUG-BLUE`
    sku: String,
) -> Result<String, ToolError> {
    let wanted = sku.to_uppercase();
    match STOCK.iter().find(|(id, _, _)| *id == wanted) {
        Some((id, description, units)) => Ok(format!("{id} ({description}): {units} in stock")),
        None => Err(ToolError::new(format!(
            "unknown SKU `{sku}`; known: {}",
            STOCK.map(|(id, _, _)| id).join(", ")
        ))),
    }
}

/// The external echo server as the CLI should start it: `program --echo-mcp`, where `program`
/// is a binary that serves it on that flag (the example's own executable).
pub fn echo_server_in(program: &Path) -> ExternalServer {
    ExternalServer::stdio(program.display().to_string(), [ECHO_MCP_FLAG])
}

/// The example as its `main` runs it: the in-process `inventory` server, `external` declared
/// as the `echo` server, one tool of each allowed.
pub fn example(external: ExternalServer) -> Example {
    Example::new("mixed_servers", PROMPT, script())
        .system_prompt(
            "You check stock levels with the inventory tool and send messages with the echo tool.",
        )
        .server(Inventory::server())
        .options(|options| options.external_mcp_server(EXTERNAL_NAME, external))
        .allowed_tools(TOOLS)
}

/// The example's prompt.
pub const PROMPT: &str = "How many blue mugs (MUG-BLUE) do we have? Also send \
`restock checked` through the echo server.";

/// The tool_use ids of the scripted calls, in order.
pub const TOOL_USE_IDS: [&str; 2] = ["toolu_mixed_stock", "toolu_mixed_echo"];

/// The scripted model: one turn calling a tool of each server, then an answer quoting both.
pub fn script() -> Script {
    let [stock, echo] = TOOL_USE_IDS;
    Script::new()
        .turn(
            Turn::text("Asking the inventory and the echo server.")
                .and_tool_use(
                    stock,
                    "mcp__inventory__stock_level",
                    json!({"sku": "MUG-BLUE"}),
                )
                .and_tool_use(echo, "mcp__echo__echo", json!({"text": "restock checked"})),
        )
        .turn(Turn::text(format!(
            "In-process inventory: {{{{tool_result:{stock}}}}}\n\
             External echo server: {{{{tool_result:{echo}}}}}"
        )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_unknown_sku_is_an_error_naming_the_known_ones() {
        let result = Inventory::server()
            .call(
                "stock_level",
                json!({"sku": "mug-green"}),
                ToolContext::new(),
            )
            .await;
        assert_eq!(
            result.to_json(),
            json!({"content": [{"type": "text", "text": "unknown SKU `mug-green`; known: MUG-BLUE, MUG-RED, TEE-L"}], "isError": true})
        );
    }

    #[test]
    fn the_echo_server_is_this_program_with_the_flag() {
        assert_eq!(
            echo_server_in(Path::new("/bin/example")),
            ExternalServer::stdio("/bin/example", ["--echo-mcp"])
        );
    }
}
