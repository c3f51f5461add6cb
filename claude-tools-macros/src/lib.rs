//! Procedural macros of claude-tools: [`macro@tool_server`] and [`macro@tool`].
//!
//! Use them through the `claude-tools` crate (`use claude_tools::prelude::*;`): the code they
//! generate reaches the runtime only through `::claude_tools::__private`, so a crate that uses
//! them depends on `claude-tools` alone.
//!
//! Each macro parses its attribute and item, validates them (every problem is reported on the
//! token at fault, with what to do), then expands. After an error the item is still emitted, so
//! one mistake gives one error and no "cannot find function" cascade.

#![warn(missing_docs)]

use proc_macro::TokenStream;

mod attr;
mod catalog;
mod docs;
mod elicit_forms;
mod errors;
mod feature_hints;
mod include_skill;
mod json_schema;
mod names;
mod names_rule;
mod param_attrs;
mod param_types;
mod rust_names;
mod send_gate;
mod server;
mod static_lifetime;
mod tool;

/// Turns a fn into a tool of a [`macro@tool_server`].
///
/// ```
/// use claude_tools::prelude::*;
///
/// #[tool_server(name = "calc")]
/// pub struct Calc;
///
/// /// Added to every sum.
/// pub struct Offset {
///     pub by: i64,
/// }
///
/// /// Add two integers.
/// ///
/// /// The server's offset is added to the sum.
/// #[tool(server = Calc, read_only)]
/// async fn add(
///     offset: State<Offset>,
///     /// The first term
///     a: i64,
///     /// The second term (zero when absent)
///     b: Option<i64>,
/// ) -> Result<i64, ToolError> {
///     a.checked_add(b.unwrap_or(0) + offset.by)
///         .ok_or_else(|| ToolError::new("the sum overflows"))
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Calc::server().with_state(Offset { by: 10 });
/// let result = server.call("add", serde_json::json!({"a": 2}), ToolContext::new()).await;
/// assert_eq!(result.text_content(), "12");
/// let tools = server.list_tools();
/// assert_eq!(tools[0]["description"], "Add two integers.\n\nThe server's offset is added to the sum.");
/// assert_eq!(tools[0]["inputSchema"]["properties"]["a"]["description"], "The first term");
/// assert_eq!(tools[0]["inputSchema"]["required"], serde_json::json!(["a"]));
/// # });
/// ```
///
/// # The definition
///
/// - **Name**: the fn's name (without `r#`), or `name = "..."`. It must match
///   `[A-Za-z0-9_-]{1,64}`, and `mcp__{server}__{tool}` must fit in 64 characters; both are
///   checked at compile time.
/// - **Description**: the prose of the fn's doc comment, the part a model needs: the summary
///   and the paragraphs up to the first heading (`# Examples`, `# Errors`…, which are left
///   out), with intra-doc links as their text (``[`Store`]`` → `` `Store` ``,
///   `[the guide](crate::guide)` → `the guide`) and Rust code blocks (doctests) left out; code
///   blocks in another language (`json`, `text`…) are kept. The rule is
///   `claude_tools_core::schema::doc_description`, and the same rule applies to parameter
///   docs and to the doc comments of your types' fields and variants. To send something else,
///   `description = "..."` is sent as written, and `full_doc` sends the whole doc comment. A
///   tool with neither a doc comment nor `description` compiles with a warning saying how to
///   add one (the model would see only its name).
/// - **Input schema**: one property per model parameter (see below), in the order of the
///   parameters, described by the parameter's own doc comment (`/// ...` on the parameter; it
///   is removed from the emitted fn, where rustc would reject it). Struct fields and enum values
///   keep their declaration order too. `Option<T>` parameters are not required, and `null` or an
///   absent argument is `None`.
/// - **Output schema**: for `Json<T>` (or `Result<Json<T>, E>`), the schema of `T`.
///
/// # Parameters
///
/// Each parameter is classified by trait, not by its type's name:
///
/// - a type implementing `claude_tools::ToolParam` is an **extractor**, filled from the call,
///   not by the model: `State<T>` (application state registered with
///   `.with_state(..)`), `ToolContext` (the `tool_use_id`, cancellation, progress),
///   `Input<T>` (the whole input as one struct, whose fields, with their doc comments, are the
///   properties), or your own;
/// - any other type is a **model argument**: a property of the input schema, named after the
///   parameter, and it must implement `Deserialize` and `JsonSchema` (derive both from the
///   prelude: `#[derive(Deserialize, JsonSchema)]`).
///
/// Extractors may be written with patterns (`State(db): State<Db>`, `Input(req): Input<Req>`,
/// `_: ToolContext`); a model argument needs a plain `name: Type`. The property name is the
/// identifier exactly, without `r#` (`r#type: String` is the property `type`); a leading `_`
/// is kept (`_note: String` is the property `_note`), so the schema says what the code says.
/// Every parameter is extracted before the call fails, so that one `isError` result names
/// every missing and invalid argument with its path, and the model fixes them all in its next
/// call: ``Invalid arguments for tool `add`: argument `a`: invalid type: string "x", expected
/// i64`` for one problem, a list for several:
///
/// ```text
/// Invalid arguments for tool `search` (2 problems):
/// - argument `query`: missing required argument
/// - argument `tags[0]`: invalid type: integer `1`, expected a string
/// ```
///
/// serde stops at the first error in a whole-input struct (`Input<T>`); the required
/// properties of its schema that the call leaves out are listed with that error.
///
/// ```
/// use claude_tools::prelude::*;
///
/// #[tool_server(name = "search")]
/// pub struct Search;
///
/// pub struct Index;
///
/// #[derive(Deserialize, JsonSchema)]
/// pub struct Query {
///     /// What to look for
///     pub text: String,
///     /// At most this many hits
///     pub limit: Option<u32>,
/// }
///
/// /// Search the index.
/// #[tool(server = Search, read_only)]
/// async fn search(State(_index): State<Index>, ctx: ToolContext, Input(query): Input<Query>) -> String {
///     format!("{} (limit {:?}, call {:?})", query.text, query.limit, ctx.tool_use_id())
/// }
///
/// let server = Search::server().with_state(Index);
/// let schema = &server.list_tools()[0]["inputSchema"];
/// assert_eq!(schema["properties"]["text"]["description"], "What to look for");
/// assert_eq!(schema["required"], serde_json::json!(["text"]));
/// ```
///
/// Parameters must own their data (`String`, not `&str`): the call's future is `'static`.
///
/// # Defaults and renames
///
/// A model parameter may take a default, used when the model leaves the argument out (the
/// property is then not required, and the schema shows `"default": <value>` when the value's
/// type is `Serialize`), and a wire name other than its Rust name (the property, and the name in
/// errors; a call that sends the Rust name instead gets an `isError` result pointing at the
/// wire name, ``unknown argument `max_price_eur`: did you mean `maxPriceEur`?``, whether or not
/// the tool denies unknown arguments). serde's own spelling works, with serde's meaning, and
/// `#[arg(..)]` adds what serde has no attribute for, a default expression:
///
/// | attribute | meaning |
/// |---|---|
/// | `#[serde(default)]`, `#[arg(default)]` | `Default::default()` when absent |
/// | `#[serde(default = "path::to_fn")]` | `path::to_fn()` when absent |
/// | `#[arg(default = <expr>)]` | `<expr>` (of the parameter's type) when absent |
/// | `#[serde(rename = "name")]`, `#[arg(rename = "name")]` | the argument is called `name` |
/// | `#[arg(header = "Name")]` | over Streamable HTTP at MCP 2026-07-28 the argument also travels in the header `Mcp-Param-Name` (`x-mcp-header`), which the server checks against the body, so a gateway can route on it; a string, integer or boolean, never a secret |
///
/// On an `Option<T>` parameter, as with serde, an absent argument is the default and `null` is
/// `None`. The name `arg` was chosen because the model sends a tool's *arguments* and every
/// error names an `argument`; `#[tool]` takes these attributes off the fn it emits, so they
/// never reach another macro. Any other attribute on a parameter (`#[serde(alias = ..)]`,
/// `#[schemars(..)]`, `#[cfg(..)]`, a typo) is a compile error listing these; lint attributes
/// (`#[allow(..)]`) stay on the fn. Extractors take no default, no rename and no header.
///
/// ```
/// use claude_tools::prelude::*;
///
/// #[tool_server(name = "shop")]
/// pub struct Shop;
///
/// fn ten() -> u32 {
///     10
/// }
///
/// /// Search the catalogue.
/// #[tool(server = Shop, read_only)]
/// async fn search(
///     /// What to look for
///     query: String,
///     /// At most this many hits
///     #[serde(default = "ten")]
///     limit: u32,
///     /// The category
///     #[arg(default = "books".to_string())]
///     category: String,
///     /// The highest price, in euros
///     #[serde(rename = "maxPriceEur")]
///     max_price_eur: Option<f64>,
/// ) -> String {
///     format!("{query}: {limit} in {category} under {max_price_eur:?}")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Shop::server();
/// let schema = &server.list_tools()[0]["inputSchema"];
/// assert_eq!(schema["properties"]["limit"]["default"], 10);
/// assert_eq!(schema["properties"]["category"]["default"], "books");
/// assert_eq!(schema["required"], serde_json::json!(["query"]));
/// let arguments = serde_json::json!({"query": "dune", "maxPriceEur": 9.5});
/// let result = server.call("search", arguments, ToolContext::new()).await;
/// assert_eq!(result.text_content(), "dune: 10 in books under Some(9.5)");
/// let arguments = serde_json::json!({"query": "dune", "max_price_eur": 9.5});
/// let result = server.call("search", arguments, ToolContext::new()).await;
/// assert!(result.text_content().ends_with("did you mean `maxPriceEur`?"));
/// # });
/// ```
///
/// # Unknown arguments
///
/// By default a tool ignores arguments it has no parameter for, as serde ignores unknown
/// fields. `deny_unknown_arguments` (on the tool, or on its [`macro@tool_server`] for every
/// tool that does not say `deny_unknown_arguments = false`) rejects them instead, like serde's
/// `deny_unknown_fields`: the input schema says `"additionalProperties": false` (what Claude's
/// strict tool use needs), and a call carrying other arguments gets an `isError` result naming
/// each of them and the accepted ones, with any other argument problem of the call:
/// ``Invalid arguments for tool `convert`: unknown argument `currency`: the tool accepts only
/// `amount`, `digits` ``. A whole-input struct with `#[serde(deny_unknown_fields)]` has the same
/// schema and the same check without the option.
///
/// # Return types
///
/// Anything implementing `claude_tools::IntoToolResult`: `String`, `&'static str`,
/// `Cow<'static, str>`, numbers, `bool`, `()` (no return type is `()`), `Json<T>`
/// (structured content, a text mirror and an output schema), `Image`, `Content`,
/// `Vec<Content>`, `ToolResult`, and `Result<T, E>` of any of these where `E: Display`: an
/// `Err` becomes an `isError` result carrying the error's message, which the model reads. A
/// handler panic also becomes an `isError` result.
///
/// # Sync fns
///
/// A plain `fn` is a tool too. It runs on the async runtime's thread when the call is polled,
/// so it must be quick: put blocking work (file or database I/O with a blocking client, heavy
/// computation) in an `async fn` that awaits `tokio::task::spawn_blocking`.
///
/// ```
/// use claude_tools::prelude::*;
///
/// #[tool_server(name = "text")]
/// pub struct Text;
///
/// /// Upper-case a text.
/// #[tool(server = Text)]
/// fn shout(text: String) -> String {
///     text.to_uppercase()
/// }
///
/// /// Count the lines of a file (blocking I/O, off the runtime's threads).
/// #[tool(server = Text, read_only)]
/// async fn count_lines(path: String) -> Result<usize, ToolError> {
///     let count = tokio::task::spawn_blocking(move || {
///         std::fs::read_to_string(path).map(|text| text.lines().count())
///     });
///     Ok(count.await.map_err(|e| ToolError::new(e.to_string()))??)
/// }
/// # let _ = Text::server();
/// ```
///
/// # Options
///
/// | option | meaning |
/// |---|---|
/// | `server = Path` | **required**: the [`macro@tool_server`] struct this tool belongs to |
/// | `name = "..."` | the tool name (default: the fn's name) |
/// | `description = "..."` | the description, sent as written (default: the prose of the fn's doc comment) |
/// | `full_doc` | send the whole doc comment (headings, code blocks, link syntax) instead of its prose |
/// | `title = "..."` | a human-readable title (`title` and `annotations.title`) |
/// | `read_only`, `destructive`, `idempotent`, `open_world` | MCP annotation hints; alone they mean `= true`, and `= false` states the opposite explicitly |
/// | `max_result_chars = N` | `_meta["anthropic/maxResultSizeChars"]`: let the CLI pass results up to N characters before persisting them to a file |
/// | `always_load`, `always_load = false` | `_meta["anthropic/alwaysLoad"]`: keep the tool out of the CLI's deferred ToolSearch (default: the server's setting) |
/// | `search_hint = "..."` | `_meta["anthropic/searchHint"]`: words the CLI's ToolSearch matches |
/// | `deny_unknown_arguments`, `deny_unknown_arguments = false` | reject arguments that are not parameters, and say `"additionalProperties": false` (default: the server's setting, itself lenient by default); see [Unknown arguments](#unknown-arguments) |
/// | `task`, `task = "optional"` | the tool runs as a task of MCP's tasks extension: only so (`task`: a client that does not support tasks gets `-32021`), or when the client supports them (`"optional"`); see `claude_tools::tasks` |
/// | `task_start = "first_wait"` | with `task`: the call becomes a task when the handler first waits on something other than a question (its questions before that are asked as a plain 2026-07-28 call's); default `"immediately"` |
///
/// `read_only` matters in practice: the Claude Code CLI runs several calls to one server
/// concurrently only for tools annotated read-only.
///
/// ```
/// use claude_tools::prelude::*;
///
/// #[tool_server(name = "reports")]
/// pub struct Reports;
///
/// #[derive(Serialize, JsonSchema)]
/// pub struct Report {
///     /// The report's lines
///     pub lines: Vec<String>,
/// }
///
/// /// This doc comment is replaced by `description`.
/// #[tool(
///     server = Reports,
///     name = "build-report",
///     description = "Build the weekly report.",
///     title = "Weekly report",
///     read_only,
///     destructive = false,
///     idempotent,
///     open_world = false,
///     max_result_chars = 200_000,
///     always_load = false,
///     search_hint = "weekly summary report",
/// )]
/// async fn build_report() -> Json<Report> {
///     Json(Report { lines: vec!["all good".into()] })
/// }
///
/// let tool = &Reports::server().list_tools()[0];
/// assert_eq!(tool["name"], "build-report");
/// assert_eq!(tool["title"], "Weekly report");
/// assert_eq!(
///     tool["annotations"],
///     serde_json::json!({"title": "Weekly report", "readOnlyHint": true, "destructiveHint": false,
///                        "idempotentHint": true, "openWorldHint": false})
/// );
/// assert_eq!(
///     tool["_meta"],
///     serde_json::json!({"anthropic/maxResultSizeChars": 200000, "anthropic/searchHint": "weekly summary report"})
/// );
/// assert_eq!(tool["outputSchema"]["required"], serde_json::json!(["lines"]));
/// ```
///
/// # The tool's name as a type
///
/// Next to the fn, `#[tool]` emits an empty braced struct with the fn's name and visibility
/// (`struct search_products {}`), implementing `claude_tools::ToolRef`. A braced struct lives
/// only in the type namespace, so it does not clash with the fn; it lets permission rules name
/// the tool in a way the compiler checks, where a hand-typed `"mcp__shop__search_prodcts"`
/// would silently allow nothing. (A module or type of the same name in the same module as the
/// fn clashes with it: rename one.)
///
/// ```
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
/// assert_eq!((search_products::SERVER, search_products::NAME), ("shop", "search_products"));
/// let options = Options::new().mcp_server(Shop::server()).allow::<search_products>();
/// # let args = options.launch_spec().args;
/// # assert!(args.windows(2).any(|w| w == ["--allowedTools", "mcp__shop__search_products"]));
/// ```
///
/// # Compile-time checks
///
/// Each of these is a compile error on the token at fault, saying what to do: a missing or
/// unknown `server` (or one that is not a `#[tool_server]`), an unknown option, an invalid tool
/// name, `mcp__{server}__{tool}` longer than 64 characters, two tools with the same name in one
/// server (from any files of the server's crate, or a crate and one it depends on: rustc
/// reports conflicting implementations of
/// `duplicate_tool_name::RenameOneWithToolNameAttribute<(), 'n', 'a', 'm', 'e'>` for the server
/// type at both tools), a generic, `unsafe` or `self` fn, a parameter that borrows
/// or is `impl Trait`, a model parameter without `Deserialize` or `JsonSchema`, a model
/// parameter written as a pattern, an unsupported attribute on a parameter, a default or a
/// rename on an extractor, a default of the wrong type, and a return type that cannot become a
/// tool result. A model parameter of another crate's type (`Uuid`, `NaiveDate`) without the
/// claude-tools feature that gives it a schema is an error naming the feature.
///
/// Two mistakes are rustc's to report, and `#[tool]` adds what it can: an async fn holding a
/// value that is not `Send` across an `.await` gets one error at the fn's name, naming the
/// value (use `tokio::sync::Mutex`, drop the guard before the `.await`, `Arc` for `Rc`); and a
/// parameter type with a `'static` lifetime (`Query<'static>`, which rustc refuses with
/// "implementation of `Deserialize` is not general enough" when the type borrows) gets a
/// warning saying why and what to do, which `#[allow(deprecated)]` on the fn silences for a type
/// that owns its data. The fn's lint attributes apply to the warnings `#[tool]` raises about it
/// (the missing description too).
///
/// # Where it goes
///
/// On a free fn (not a method), in any module or file of any crate: tools are collected with
/// `inventory`. A tool may live in another crate than its server (a workspace split by domain,
/// plugin crates): `#[tool(server = shop::Shop)]` in a crate that depends on `shop`. Two things
/// differ there:
///
/// - the program must link that crate: a crate nothing names is left out, and so are its
///   tools. Name it once where the server is built, `use shop_plugin as _;` if nothing else;
/// - two tools with the same name in crates that cannot see each other (two plugin crates) are
///   found when the server is built: `Shop::server()` panics, and `Shop::try_server()` returns
///   `ServerBuildError::DuplicateTool`, naming the tool, the server and where both tools are.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

/// Declares a tool server: a struct that the [`macro@tool`] fns name with `server = ...`.
///
/// ```
/// use claude_tools::prelude::*;
///
/// /// The tools of the project board.
/// #[tool_server(
///     name = "tickets",
///     version = "1.0.0",
///     always_load = false,
///     instructions = "Use these tools to read and file tickets.",
/// )]
/// pub struct Tickets;
///
/// /// File a ticket.
/// #[tool(server = Tickets)]
/// async fn file_ticket(title: String) -> String {
///     format!("filed: {title}")
/// }
///
/// let server = Tickets::server();
/// assert_eq!(server.name(), "tickets");
/// assert_eq!(server.version(), "1.0.0");
/// assert_eq!(server.instructions(), Some("Use these tools to read and file tickets."));
/// assert_eq!(server.tools().len(), 1);
/// // `always_load = false`: the tools carry no `_meta["anthropic/alwaysLoad"]`.
/// assert_eq!(server.list_tools()[0].get("_meta"), None);
/// ```
///
/// The struct is kept as written (any non-generic struct; a unit struct is usual). The macro
/// implements `ServerDefinition` for it and adds two associated fns:
///
/// - `Tickets::server() -> ToolServer`: the server with every `#[tool(server = Tickets)]` of
///   the program, ready for `.with_state(..)`; it panics if the server cannot be built (a
///   tool's schema that Claude would not accept), which is a programming error found the first
///   time the program runs;
/// - `Tickets::try_server() -> Result<ToolServer, ServerBuildError>`: the same, returning the
///   error.
///
/// # Options
///
/// | option | meaning |
/// |---|---|
/// | `name = "..."` | **required**: the server name, `[A-Za-z0-9_-]`, at most 56 characters; the CLI calls its tools `mcp__{name}__{tool}` |
/// | `version = "..."` | the version in `serverInfo` (default: the crate's `CARGO_PKG_VERSION`) |
/// | `always_load`, `always_load = false` | whether tools carry `_meta["anthropic/alwaysLoad"]: true` unless they say otherwise (default: `true`, so the model sees them on the first turn instead of through the CLI's ToolSearch) |
/// | `instructions = "..."` | instructions reported in the MCP `initialize` result |
/// | `deny_unknown_arguments`, `deny_unknown_arguments = false` | whether its tools reject arguments that are not their parameters (and say `"additionalProperties": false`) unless they say otherwise (default: `false`, lenient) |
///
/// A missing or invalid name, an unknown option or a generic struct is a compile error on the
/// token at fault.
#[proc_macro_attribute]
pub fn tool_server(attr: TokenStream, item: TokenStream) -> TokenStream {
    server::expand(attr.into(), item.into()).into()
}

#[doc = include_str!("../docs/prompt.md")]
#[proc_macro_attribute]
pub fn prompt(attr: TokenStream, item: TokenStream) -> TokenStream {
    catalog::expand(catalog::Kind::Prompt, attr.into(), item.into()).into()
}

#[doc = include_str!("../docs/resource.md")]
#[proc_macro_attribute]
pub fn resource(attr: TokenStream, item: TokenStream) -> TokenStream {
    catalog::expand(catalog::Kind::Resource, attr.into(), item.into()).into()
}

/// Embeds a skill directory (a `SKILL.md` and its files) in the binary at compile time, for
/// `ToolServer::with_skill`: a single static binary then ships its skills.
///
/// The path is relative to the `Cargo.toml` of the crate being compiled. A missing directory or
/// `SKILL.md`, a symbolic link leading out of the directory, or a directory past a skill's caps
/// is a compile error; the front matter is checked when the server adds the skill. Files whose
/// name starts with `.` are left out. Cargo rebuilds when an embedded file changes; a file
/// added to the directory is seen at the next build of the crate.
///
/// ```
/// use claude_tools::{ToolServer, include_skill};
///
/// // A path relative to this crate's Cargo.toml.
/// let server = ToolServer::new("units", "1.0.0")
///     .with_skill(include_skill!("../examples/skills/temperature-report"))
///     .unwrap();
/// assert_eq!(server.skills()[0].name(), "temperature-report");
/// ```
#[proc_macro]
pub fn include_skill(input: TokenStream) -> TokenStream {
    include_skill::expand(input.into()).into()
}

/// schemars' `#[derive(JsonSchema)]`, usable in a crate that does not depend on schemars:
/// re-exported as `claude_tools::JsonSchema` (and in the prelude), it implements
/// `claude_tools::JsonSchema`, the schemars version the tools speak. It reads the same
/// attributes (doc comments, `#[serde(...)]`, `#[schemars(...)]`) and gives the same schema.
///
/// One thing more: as a tool's whole input (`Input<T>`, a run-time tool's arguments), a struct
/// deriving it tells the tool the Rust names of its renamed fields (`#[serde(rename_all =
/// "camelCase")]`, a field's `rename`), so that a call sending `max_price_eur` for
/// `maxPriceEur` is refused by name instead of having its value dropped. Nothing of it appears
/// in any schema.
///
/// ```
/// use claude_tools::prelude::*;
///
/// /// Where to look.
/// #[derive(Deserialize, JsonSchema)]
/// pub struct Query {
///     /// Words to find
///     pub words: String,
///     #[serde(default)]
///     pub limit: u32,
/// }
///
/// let schema = claude_tools::schemars::schema_for!(Query);
/// assert_eq!(schema.get("title"), Some(&serde_json::json!("Query")));
/// assert_eq!(schema.get("required"), Some(&serde_json::json!(["words"])));
/// ```
#[proc_macro_derive(JsonSchema, attributes(schemars, serde, validate, garde))]
pub fn derive_json_schema(input: TokenStream) -> TokenStream {
    json_schema::expand(input.into()).into()
}
