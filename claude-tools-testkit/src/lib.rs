//! Test kit of claude-tools.
