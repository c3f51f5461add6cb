//! Shared code of the examples: the runner every example's `main` uses ([`run`]), the demo's
//! tools ([`triage`]) and its scripted model ([`demo_script`]).

pub mod demo_script;
pub mod run;
pub mod triage;
