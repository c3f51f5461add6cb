//! Procedural macros of claude-tools. Use them through the `claude-tools` crate.

use proc_macro::TokenStream;

/// Turns an `async fn` into a tool of a `#[tool_server]`.
#[proc_macro_attribute]
pub fn tool(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}

/// Marks a unit struct as a tool server that collects `#[tool(server = ...)]` fns.
#[proc_macro_attribute]
pub fn tool_server(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
