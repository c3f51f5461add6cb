//! The opt-in stateful sessions of the HTTP transport.

pub(super) mod table;
