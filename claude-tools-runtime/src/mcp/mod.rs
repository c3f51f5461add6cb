//! The MCP router: JSON-RPC in, JSON-RPC out, no I/O.
//!
//! (Skeleton: the real router lands with the MCP router work.)

use serde_json::{Value, json};

use crate::tool::ToolServer;

/// Answers the MCP JSON-RPC traffic of one connection to one [`ToolServer`].
#[derive(Debug, Clone)]
pub struct McpRouter {
    server: ToolServer,
}

impl McpRouter {
    /// A router for one connection (one CLI session) to `server`.
    pub fn new(server: ToolServer) -> Self {
        Self { server }
    }

    /// The server behind this router.
    pub fn server(&self) -> &ToolServer {
        &self.server
    }

    /// Handles one JSON-RPC message and returns the JSON-RPC reply to send back.
    pub async fn handle(&self, message: Value) -> Value {
        let id = message.get("id").cloned().unwrap_or(Value::Null);
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}})
    }
}
