//! Shared code of the examples: the demo's tools ([`triage`]) and its scripted model
//! ([`demo_script`]).

pub mod demo_script;
pub mod guidelines;
pub mod mixed_servers;
pub mod permissions;
pub mod triage;
