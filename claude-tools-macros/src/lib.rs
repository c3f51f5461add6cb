//! Procedural macros of claude-tools. Use them through the `claude-tools` crate.

use proc_macro::TokenStream;

mod attr;
mod docs;
mod errors;
mod names;
mod server;
mod tool;

/// Turns an `async fn` into a tool of a `#[tool_server]`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

/// Marks a struct as a tool server that collects `#[tool(server = ...)]` fns.
#[proc_macro_attribute]
pub fn tool_server(attr: TokenStream, item: TokenStream) -> TokenStream {
    server::expand(attr.into(), item.into()).into()
}
