//! The result of a call whose parameters could not all be extracted, and whether a call can go
//! ahead. Also what a run-time typed tool ([`ToolFn`](crate::tool::ToolFn)) uses, so this file
//! names no future.

use crate::tool::{ArgumentError, ToolCall, ToolError, ToolResult};

/// The result of a call whose parameters could not all be extracted: every argument problem
/// (the parameters' in their order, then those found before the handler ran, such as unknown
/// arguments) in one message; any other extraction error (a missing `State<T>`) comes first.
pub fn failed_call<const N: usize>(
    mut call: ToolCall,
    errors: [Option<ToolError>; N],
) -> ToolResult {
    let mut found: Vec<ArgumentError> = Vec::new();
    let mut others: Vec<String> = Vec::new();
    for error in errors.into_iter().flatten() {
        match error.into_argument_errors() {
            Ok(problems) => found.extend(problems),
            Err(other) => others.push(other.to_string()),
        }
    }
    found.extend(call.take_argument_errors());
    // The same problem reported twice (a whole-input struct and a parameter naming the same
    // missing property) is listed once.
    let mut arguments: Vec<ArgumentError> = Vec::with_capacity(found.len());
    for problem in found {
        if !arguments.contains(&problem) {
            arguments.push(problem);
        }
    }
    if !arguments.is_empty() {
        others.push(crate::tool::render_argument_errors(
            call.tool_name(),
            &arguments,
        ));
    }
    ToolResult::error(others.join("\n"))
}

/// Whether the call can go ahead: nothing was found wrong with it before the handler ran.
pub fn call_is_clean(call: &ToolCall) -> bool {
    !call.has_argument_errors()
}
