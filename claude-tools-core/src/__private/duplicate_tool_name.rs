//! Two tools of one server with the same name: see [`RenameOneWithToolNameAttribute`]. A module
//! of its own so that the error's path reads as what happened and what to do.

/// Implemented once per (server, tool name) by `#[tool]`, so that two tools of one server with
/// the same name are a compile error (E0119) at both tools. E0119 can carry no note of ours, so
/// its first line says it all by the trait's path: "conflicting implementations of trait
/// `claude_tools::__private::duplicate_tool_name::RenameOneWithToolNameAttribute<(), 'r', 'e',
/// 'a', 'd'>` for type `Files`", the name spelled out in the parameters after the first, one
/// character each (the unused ones keep their default, which rustc leaves out), with "first
/// implementation here" and "conflicting implementation" at the two tools' names.
///
/// `L` keeps the impl legal where the orphan rule allows no impl for the server alone: in the
/// server's own crate it is `()`, the default, so that every tool of the server in that crate
/// implements the same trait for the same type; in any other crate (tools in a plugin crate) it
/// is a type local to the tool (its name type, `ToolRef`, so that an error across crates names
/// the other crate's tool fn), which the orphan rule accepts and which never conflicts, so that
/// duplicates there are found when the server is built ([`ServerBuildError::DuplicateTool`](super::ServerBuildError::DuplicateTool)).
/// [`Choose`](super::Choose) picks `L` from `<Server>::__CT_SERVER_CRATE` (see
/// [`NotTheServerCrate`](super::NotTheServerCrate)).
#[doc(hidden)]
pub trait RenameOneWithToolNameAttribute<
    L: ?Sized = (),
    const C0: char = '\0',
    const C1: char = '\0',
    const C2: char = '\0',
    const C3: char = '\0',
    const C4: char = '\0',
    const C5: char = '\0',
    const C6: char = '\0',
    const C7: char = '\0',
    const C8: char = '\0',
    const C9: char = '\0',
    const C10: char = '\0',
    const C11: char = '\0',
    const C12: char = '\0',
    const C13: char = '\0',
    const C14: char = '\0',
    const C15: char = '\0',
    const C16: char = '\0',
    const C17: char = '\0',
    const C18: char = '\0',
    const C19: char = '\0',
    const C20: char = '\0',
    const C21: char = '\0',
    const C22: char = '\0',
    const C23: char = '\0',
    const C24: char = '\0',
    const C25: char = '\0',
    const C26: char = '\0',
    const C27: char = '\0',
    const C28: char = '\0',
    const C29: char = '\0',
    const C30: char = '\0',
    const C31: char = '\0',
    const C32: char = '\0',
    const C33: char = '\0',
    const C34: char = '\0',
    const C35: char = '\0',
    const C36: char = '\0',
    const C37: char = '\0',
    const C38: char = '\0',
    const C39: char = '\0',
    const C40: char = '\0',
    const C41: char = '\0',
    const C42: char = '\0',
    const C43: char = '\0',
    const C44: char = '\0',
    const C45: char = '\0',
    const C46: char = '\0',
    const C47: char = '\0',
    const C48: char = '\0',
    const C49: char = '\0',
    const C50: char = '\0',
    const C51: char = '\0',
    const C52: char = '\0',
    const C53: char = '\0',
    const C54: char = '\0',
    const C55: char = '\0',
    const C56: char = '\0',
    const C57: char = '\0',
    const C58: char = '\0',
    const C59: char = '\0',
    const C60: char = '\0',
    const C61: char = '\0',
    const C62: char = '\0',
    const C63: char = '\0',
>
{
}
