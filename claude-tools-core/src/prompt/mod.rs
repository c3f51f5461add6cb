//! Prompts: message templates a server offers its client, with typed arguments.
//!
//! A prompt is what MCP calls a user-controlled template: the client lists them
//! (`prompts/list`), its user picks one and fills in its arguments, and the server answers the
//! messages to send (`prompts/get`). The Claude Code CLI offers an sdk or MCP server's prompts
//! as slash commands, `/mcp__{server}__{prompt}`.
//!
//! Define one with `#[prompt(server = S)]` on a fn (see the attribute's docs in `claude-tools`),
//! or at run time with [`Prompt::new`] and [`ToolServer::with_prompt`](crate::tool::ToolServer::with_prompt):
//!
//! ```
//! use claude_tools::prompts::{Prompt, PromptArguments, PromptError};
//! use claude_tools::ToolServer;
//!
//! let server = ToolServer::new("units", "1.0.0").with_prompt(
//!     Prompt::new("explain", |mut args: PromptArguments| async move {
//!         let unit: String = args.required("unit")?;
//!         Ok::<_, PromptError>(format!("Explain the unit {unit} to a child."))
//!     })
//!     .description("Ask for an explanation of a unit")
//!     .argument("unit", "The unit, e.g. `km`", true),
//! );
//! assert!(server.is_ok());
//! ```

mod argument;
mod def;
mod error;
mod message;
mod text;

pub use argument::PromptArguments;
pub use def::{Prompt, PromptArgument, PromptDef, PromptFuture, PromptHandler};
pub use error::PromptError;
pub use message::{GetPromptResult, IntoPromptResult, PromptMessage, Role};

pub(crate) use def::record_extractor;
pub(crate) use text::parse_text;
