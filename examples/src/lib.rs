//! Shared code of the examples: the runner every example's `main` uses ([`run`]); the examples'
//! tools and scripts ([`quickstart`], [`tickets`], [`user_lookup`], [`permissions`],
//! [`guidelines`], [`mixed_servers`], [`notes_agent`], [`stdio_server`], [`tickets_http`], and [`demo_script`] with
//! [`triage`]);
//! the SQLite wrapper the database examples share ([`db`]). The example binaries in
//! `examples/examples/` stay thin, so the end-to-end tests run the same code through the real
//! CLI.

pub mod db;
pub mod demo_script;
pub mod guidelines;
pub mod mixed_servers;
pub mod notes_agent;
pub mod permissions;
pub mod quickstart;
pub mod run;
pub mod stdio_server;
pub mod tickets;
pub mod tickets_http;
pub mod triage;
pub mod user_lookup;
