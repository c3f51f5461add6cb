//! Shared code of the examples: the runner every example's `main` uses ([`run`]), the demo's
//! tools ([`triage`]) and its scripted model ([`demo_script`]), and the tools, scripts and
//! settings of the [`permissions`], [`guidelines`] and [`mixed_servers`] examples, and the
//! [`notes_agent`] of the agent example.

pub mod demo_script;
pub mod guidelines;
pub mod mixed_servers;
pub mod notes_agent;
pub mod permissions;
pub mod run;
pub mod triage;
