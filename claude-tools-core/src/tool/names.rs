//! Tool names checked at compile time: [`ToolRef`], implemented by the marker type `#[tool]`
//! emits for every tool fn, and the longest full name the CLI accepts.

use super::names_rule;

/// A tool named by a type, so that a typo is a compile error rather than a permission rule that
/// silently matches nothing.
///
/// `#[tool]` emits, next to each tool fn, an empty braced struct with the fn's name
/// (`struct search_products {}`) implementing `ToolRef`. A braced struct lives only in the type
/// namespace, so it does not clash with the fn, which lives in the value namespace; it has the
/// fn's visibility. Name the tool through it wherever a tool name is wanted:
/// `claude_tools::Options::allow`, or its [`QUALIFIED`](Self::QUALIFIED)
/// name in a list of rules. The one name that clashes is a module or type of the same name in
/// the same module as the tool fn. The marker is `#[doc(hidden)]`: it does not clutter your
/// crate's docs, and a doc link to the tool fn (``[`search_products`]``) stays unambiguous.
///
/// ```ignore
/// // (compiled as a doctest of `#[tool]`, in the crate that can see the macros)
/// use claude_tools::prelude::*;
///
/// #[tool_server(name = "shop", version = "1.0.0")]
/// pub struct Shop;
///
/// /// Find products.
/// #[tool(server = Shop, read_only)]
/// async fn search_products(query: String) -> String {
///     query
/// }
///
/// assert_eq!(search_products::QUALIFIED, "mcp__shop__search_products");
/// assert_eq!(search_products::NAME, "search_products");
/// assert_eq!(search_products::SERVER, "shop");
/// let options = Options::new().mcp_server(Shop::server()).allow::<search_products>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not name a tool",
    label = "not the name type of a #[tool] fn",
    note = "name a tool by the type #[tool] emits next to its fn, which has the fn's name: \
            `allow::<search_products>()` for `async fn search_products`",
    note = "for every tool of a server, use `allow_server(&server)`; for its read-only tools, \
            `allow_read_only_tools(&server)`"
)]
pub trait ToolRef {
    /// The tool's name in its server (`#[tool(name = "...")]`, or the fn's name).
    const NAME: &'static str;
    /// The name of the tool's server.
    const SERVER: &'static str;
    /// `mcp__{SERVER}__{NAME}`: the name the CLI and the model know the tool by, the one
    /// permission rules (`allowed_tools`, hooks' matchers) name.
    const QUALIFIED: &'static str;
}

/// The longest `mcp__{server}__{tool}` name the Claude Code CLI accepts.
pub const MAX_QUALIFIED_TOOL_NAME: usize = names_rule::MAX_QUALIFIED_LEN;

/// `mcp__{server}__{tool}` as `N` bytes (`N` is
/// [`qualified_name_len`](crate::__private::qualified_name_len)), evaluated at compile
/// time for [`ToolRef::QUALIFIED`].
#[doc(hidden)]
pub const fn qualified_name_bytes<const N: usize>(server: &str, tool: &str) -> [u8; N] {
    let parts: [&[u8]; 4] = [
        names_rule::PREFIX.as_bytes(),
        server.as_bytes(),
        names_rule::SEPARATOR.as_bytes(),
        tool.as_bytes(),
    ];
    let mut bytes = [0u8; N];
    let mut at = 0;
    let mut part = 0;
    while part < parts.len() {
        let mut i = 0;
        while i < parts[part].len() {
            bytes[at] = parts[part][i];
            at += 1;
            i += 1;
        }
        part += 1;
    }
    assert!(at == N, "the qualified name's length is not N");
    bytes
}

/// The bytes of [`qualified_name_bytes`] as the `&str` they are (they are the UTF-8 of three
/// `&str`s, so this cannot fail).
#[doc(hidden)]
pub const fn qualified_name_str(bytes: &'static [u8]) -> &'static str {
    match std::str::from_utf8(bytes) {
        Ok(name) => name,
        Err(_) => panic!("a qualified tool name is not UTF-8"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_qualified_name_is_built_at_compile_time() {
        const BYTES: [u8; 17] = qualified_name_bytes::<17>("shop", "search");
        const NAME: &str = qualified_name_str(&BYTES);
        assert_eq!(NAME, "mcp__shop__search");
    }
}
