//! The guide: how to define tools, serve them to an agent, test them and run them well.
//!
//! Read it in order the first time; each chapter stands on its own for later look-ups. Its
//! examples use `claude_tools::` paths only and compile as they are written (those that would
//! start the Claude Code CLI are compiled, not run).
//!
//! 1. [Defining tools](defining_tools): parameters, doc comments, optional arguments,
//!    defaults and renames, unknown arguments, whole-input structs, results and errors.
//! 2. [Schemas](schemas): what the model sees of a tool, in what order, and what Claude
//!    accepts.
//! 3. [State and context](state_and_context): application state, the call's context,
//!    cancellation and progress.
//! 4. [Servers and names](servers_and_names): tool servers, tools in other crates, the
//!    `mcp__server__tool` names and their typed forms, `alwaysLoad` and ToolSearch, tools
//!    defined at run time.
//! 5. [Running agents](running_agents): `query`, `Client`, options, the message stream, session
//!    history, session stores (sessions resumed on another host), a session on claude.ai (Remote
//!    Control, feature `bridge`), errors and the exit status.
//! 6. [Permissions and hooks](permissions_and_hooks): which tools may run, a permission
//!    callback, hooks.
//! 7. [Testing your tools](testing): direct calls, a typed in-process MCP client (tools,
//!    prompts, resources, completions, questions, progress and logs), the scripted model, the
//!    real CLI in a test.
//! 8. [Performance](performance): what a call costs, blocking work, memory bounds.
//! 9. [Troubleshooting](troubleshooting): the CLI not found, not logged in, a tool not
//!    offered, timeouts, big outputs.
//! 10. [Skills and tasks](skills_and_tasks): skills a server serves (compiled in or read at
//!     start), checked as the CLI checks them; long-running tools as tasks.
//! 11. [Running in production](running_in_production): tracing spans, and one OpenTelemetry
//!     trace from the host through the CLI to the tool.
//! 12. [Layers around calls](layers): tower middleware around tool calls and MCP requests
//!     (limits per caller, timeouts, load shedding, policies).
//! 13. [Publishing a server](publishing): the MCP registry's `server.json`, made from the
//!     server, and the crate's `mcp-name` marker.

#[doc = include_str!("../guide/01-defining-tools.md")]
pub mod defining_tools {}

#[doc = include_str!("../guide/02-schemas.md")]
pub mod schemas {}

#[doc = include_str!("../guide/03-state-and-context.md")]
pub mod state_and_context {}

#[doc = include_str!("../guide/04-servers-and-names.md")]
pub mod servers_and_names {}

#[doc = include_str!("../guide/05-running-agents.md")]
pub mod running_agents {}

#[doc = include_str!("../guide/06-permissions-and-hooks.md")]
pub mod permissions_and_hooks {}

#[doc = include_str!("../guide/07-testing.md")]
pub mod testing {}

#[doc = include_str!("../guide/08-performance.md")]
pub mod performance {}

#[doc = include_str!("../guide/09-troubleshooting.md")]
pub mod troubleshooting {}

#[doc = include_str!("../guide/10-skills-and-tasks.md")]
pub mod skills_and_tasks {}

#[doc = include_str!("../guide/11-running-in-production.md")]
pub mod running_in_production {}
#[doc = include_str!("../guide/12-layers.md")]
pub mod layers {}

#[doc = include_str!("../guide/13-publishing.md")]
pub mod publishing {}
