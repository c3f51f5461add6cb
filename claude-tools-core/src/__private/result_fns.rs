//! How a handler's return type becomes a result, and the tool's output schema.

use serde_json::Value;

use crate::schema::SchemaError;
use crate::tool::{IntoToolResult, ToolDefBuilder, ToolResult};

/// How a handler's return type becomes a result, read through one bound so that a return type
/// that is not [`IntoToolResult`] is reported once, at the return type.
pub struct ResultFns<R> {
    convert: fn(R) -> ToolResult,
    output_schema: fn() -> Option<OutputSchema>,
}

/// An output schema, or why it cannot be made Claude-safe.
type OutputSchema = Result<serde_json::Map<String, Value>, SchemaError>;

/// The [`ResultFns`] of return type `R`.
pub const fn result_fns<R: IntoToolResult>() -> ResultFns<R> {
    ResultFns {
        convert: R::into_tool_result,
        output_schema: R::output_schema,
    }
}

impl<R> ResultFns<R> {
    /// Converts the handler's return value.
    pub fn convert(&self, value: R) -> ToolResult {
        (self.convert)(value)
    }

    /// Sets the tool's output schema, when the return type has one.
    pub fn describe(&self, tool: &mut ToolDefBuilder) {
        if let Some(schema) = (self.output_schema)() {
            tool.output_schema(schema);
        }
    }
}
