//! [`ServerBuildError`]: why a server could not be built, and the name checks that find some of
//! those reasons.

use super::names::MAX_QUALIFIED_TOOL_NAME;
use super::names_rule;
use crate::schema::SchemaError;

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ServerBuildError {
    /// A tool's schema cannot be made Claude-safe.
    #[error("tool `{tool}` of server `{server}`: {error}")]
    Schema {
        /// The server's name.
        server: String,
        /// The tool's name.
        tool: String,
        /// What is wrong with the schema.
        error: SchemaError,
    },
    /// Two tools share a name. Within the crate that defines a `#[tool_server]`, this is a
    /// compile error; tools in other crates (plugin crates) can only be checked here.
    #[error(
        "server `{server}` has two tools named `{tool}`{}: tool names must be unique in a \
         server; {}",
        locations_text(.first.as_deref(), .second.as_deref()),
        rename_hint(.first.is_some() || .second.is_some())
    )]
    DuplicateTool {
        /// The server's name.
        server: String,
        /// The duplicated name.
        tool: String,
        /// `file:line` of one of the two, when known (`#[tool]` fns; not tools added by hand).
        first: Option<String>,
        /// `file:line` of the other, when known.
        second: Option<String>,
    },
    /// A tool asks for an elicitation form ([`ToolContext::elicit::<T>`](crate::tool::ToolContext::elicit))
    /// whose type cannot be one: a nested struct, a list of anything but a unit enum, a map,
    /// an enum with data, a non-struct. `#[tool]` records the forms its body asks for
    /// ([`ToolDefBuilder::elicits`](crate::tool::ToolDefBuilder::elicits)), so this is found
    /// when the server is built, not when the tool first asks.
    #[error(
        "tool `{tool}` of server `{server}` asks for an elicitation form it cannot send: {reason}"
    )]
    ElicitationForm {
        /// The server's name.
        server: String,
        /// The tool's name.
        tool: String,
        /// The form's type, as written in `elicit::<T>()` (its last path segment).
        form: String,
        /// Why it cannot be a form: the field, what it is, what a form holds.
        reason: String,
    },
    /// A prompt asks for an elicitation form whose type cannot be one (as
    /// [`ElicitationForm`](Self::ElicitationForm) for a tool). `#[prompt]` records the forms its
    /// body asks for ([`Prompt::elicits`](crate::prompt::Prompt::elicits)), so this is found when
    /// the prompt is added to the server, not when it first asks.
    #[error(
        "prompt `{prompt}` of server `{server}` asks for an elicitation form it cannot send: \
         {reason}"
    )]
    PromptElicitationForm {
        /// The server's name.
        server: String,
        /// The prompt's name.
        prompt: String,
        /// The form's type, as written in `elicit::<T>()` (its last path segment).
        form: String,
        /// Why it cannot be a form: the field, what it is, what a form holds.
        reason: String,
    },
    /// A resource asks for an elicitation form whose type cannot be one (as
    /// [`ElicitationForm`](Self::ElicitationForm) for a tool). `#[resource]` records the forms
    /// its body asks for ([`Resource::elicits`](crate::resource::Resource::elicits)), so this is
    /// found when the resource is added to the server, not when it is first read.
    #[error(
        "resource `{uri}` of server `{server}` asks for an elicitation form it cannot send: \
         {reason}"
    )]
    ResourceElicitationForm {
        /// The server's name.
        server: String,
        /// The resource's URI or URI template, as written.
        uri: String,
        /// The form's type, as written in `elicit::<T>()` (its last path segment).
        form: String,
        /// Why it cannot be a form: the field, what it is, what a form holds.
        reason: String,
    },
    /// A name the CLI or the Anthropic API would refuse.
    #[error("{0}")]
    InvalidName(String),
    /// A skill cannot be served (see [`crate::skill`]).
    #[error("server `{server}`: {error}")]
    Skill {
        /// The server's name.
        server: String,
        /// What is wrong with the skill.
        error: crate::skill::SkillError,
    },
    /// Two skills share a name.
    #[error(
        "server `{server}` has two skills named `{skill}`: skill names must be unique in a server"
    )]
    DuplicateSkill {
        /// The server's name.
        server: String,
        /// The duplicated name.
        skill: String,
    },
    /// Two prompts share a name.
    #[error(
        "server `{server}` has two prompts named `{prompt}`{}: prompt names must be unique in a \
         server; {}",
        locations_text(.first.as_deref(), .second.as_deref()),
        rename_hint_for("prompt", .first.is_some() || .second.is_some())
    )]
    DuplicatePrompt {
        /// The server's name.
        server: String,
        /// The duplicated name.
        prompt: String,
        /// `file:line` of one of the two, when known (`#[prompt]` fns).
        first: Option<String>,
        /// `file:line` of the other, when known.
        second: Option<String>,
    },
    /// Two resources (or resource templates) share a URI.
    #[error(
        "server `{server}` has two resources at `{uri}`{}: resource URIs must be unique in a \
         server",
        locations_text(.first.as_deref(), .second.as_deref())
    )]
    DuplicateResource {
        /// The server's name.
        server: String,
        /// The duplicated URI or URI template.
        uri: String,
        /// `file:line` of one of the two, when known (`#[resource]` fns).
        first: Option<String>,
        /// `file:line` of the other, when known.
        second: Option<String>,
    },
    /// A resource's URI template cannot be parsed.
    #[error("resource `{uri}` of server `{server}`: {reason}")]
    InvalidResource {
        /// The server's name.
        server: String,
        /// The URI or URI template as written.
        uri: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// How to fix a duplicate prompt.
fn rename_hint_for(kind: &str, has_fn: bool) -> String {
    if has_fn {
        format!("rename one with #[{kind}(name = \"...\")]")
    } else {
        "give one of them another name".to_string()
    }
}

/// How to fix a duplicate: a `#[tool]` fn (whose location is known) is renamed with its
/// attribute; two tools added by hand, by the name their definition is given.
fn rename_hint(has_tool_fn: bool) -> &'static str {
    if has_tool_fn {
        "rename one with #[tool(name = \"...\")]"
    } else {
        "give one of them another name"
    }
}

/// " (at a.rs:1 and b.rs:2)", " (one at a.rs:1)" or "": where the two tools of a
/// [`ServerBuildError::DuplicateTool`] are.
pub(crate) fn locations_text(first: Option<&str>, second: Option<&str>) -> String {
    match (first, second) {
        (Some(first), Some(second)) => format!(" (at {first} and {second})"),
        (Some(one), None) | (None, Some(one)) => format!(" (one at {one})"),
        (None, None) => String::new(),
    }
}

/// Checks the names the Anthropic API and the CLI impose: `[A-Za-z0-9_-]+` for both, and
/// `mcp__{server}__{tool}` at most 64 characters.
pub(super) fn check_names(server: &str, tool: &str) -> Result<(), ServerBuildError> {
    if !names_rule::is_valid_name(server) {
        return Err(ServerBuildError::InvalidName(format!(
            "server name `{server}` must be non-empty and use only ASCII letters, digits, `_` and `-`"
        )));
    }
    if !names_rule::is_valid_name(tool) {
        return Err(ServerBuildError::InvalidName(format!(
            "tool name `{tool}` must be non-empty and use only ASCII letters, digits, `_` and `-`"
        )));
    }
    let qualified = names_rule::qualified_len(server, tool);
    if qualified > MAX_QUALIFIED_TOOL_NAME {
        return Err(ServerBuildError::InvalidName(format!(
            "`mcp__{server}__{tool}` is {qualified} characters; the Claude Code CLI accepts at most \
             {MAX_QUALIFIED_TOOL_NAME}: shorten the server or the tool name"
        )));
    }
    Ok(())
}
