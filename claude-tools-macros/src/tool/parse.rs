//! The options of one `#[tool(...)]`.

use proc_macro2::TokenStream;
use syn::{Ident, LitInt, LitStr, Path};

use crate::attr::{self, Kind, Value};
use crate::errors::Errors;

const OPTIONS: &[(&str, Kind)] = &[
    ("server", Kind::Path),
    ("name", Kind::Str),
    ("description", Kind::Str),
    ("full_doc", Kind::Flag),
    ("title", Kind::Str),
    ("read_only", Kind::Flag),
    ("destructive", Kind::Flag),
    ("idempotent", Kind::Flag),
    ("open_world", Kind::Flag),
    ("max_result_chars", Kind::Int),
    ("always_load", Kind::Flag),
    ("search_hint", Kind::Str),
    ("deny_unknown_arguments", Kind::Flag),
    ("task", Kind::FlagOrStr),
    ("task_start", Kind::Str),
];

/// The options of one `#[tool(...)]`.
#[derive(Default)]
pub(super) struct ToolArgs {
    pub(super) server: Option<Path>,
    pub(super) name: Option<LitStr>,
    pub(super) description: Option<LitStr>,
    /// Send the whole doc comment, not only its prose (see `docs::tool_description`).
    pub(super) full_doc: bool,
    pub(super) title: Option<LitStr>,
    /// `(builder method, value)` for the four MCP annotations, in the order given.
    pub(super) annotations: Vec<(Ident, bool)>,
    pub(super) max_result_chars: Option<LitInt>,
    pub(super) always_load: Option<bool>,
    pub(super) search_hint: Option<LitStr>,
    pub(super) deny_unknown_arguments: Option<bool>,
    /// `task`: the `TaskSupport` variant (`Required`, `Optional`, `Never`).
    pub(super) task: Option<Ident>,
    /// `task_start`: the `TaskStart` variant (`Immediately`, `AtFirstWait`).
    pub(super) task_start: Option<Ident>,
}

/// Reads the options of `#[tool(...)]`: what they say, and the keys given.
pub(super) fn options(args: TokenStream, errors: &mut Errors) -> (ToolArgs, Vec<String>) {
    let mut parsed = ToolArgs::default();
    let mut given = Vec::new();
    // Values `interpret` reads as valid but the option refuses (an unknown `task` mode).
    let mut bad_values = Vec::new();
    match attr::parse_entries(args) {
        Ok(entries) => {
            given = attr::interpret(&entries, OPTIONS, errors, |key, value| match (key, value) {
                ("server", Value::Path(path)) => parsed.server = Some(path),
                ("name", Value::Str(lit)) => parsed.name = Some(lit),
                ("description", Value::Str(lit)) => parsed.description = Some(lit),
                ("full_doc", Value::Flag(value, _)) => parsed.full_doc = value,
                ("title", Value::Str(lit)) => parsed.title = Some(lit),
                ("read_only" | "destructive" | "idempotent" | "open_world", Value::Flag(v, s)) => {
                    parsed.annotations.push((Ident::new(key, s), v));
                }
                ("max_result_chars", Value::Int(lit)) => parsed.max_result_chars = Some(lit),
                ("always_load", Value::Flag(value, _)) => parsed.always_load = Some(value),
                ("search_hint", Value::Str(lit)) => parsed.search_hint = Some(lit),
                ("deny_unknown_arguments", Value::Flag(value, _)) => {
                    parsed.deny_unknown_arguments = Some(value);
                }
                ("task", Value::Flag(value, span)) => {
                    let variant = if value { "Required" } else { "Never" };
                    parsed.task = Some(Ident::new(variant, span));
                }
                ("task", Value::Str(lit)) => match lit.value().as_str() {
                    "required" => parsed.task = Some(Ident::new("Required", lit.span())),
                    "optional" => parsed.task = Some(Ident::new("Optional", lit.span())),
                    "never" => parsed.task = Some(Ident::new("Never", lit.span())),
                    other => bad_values.push(syn::Error::new(
                        lit.span(),
                        format!(
                            "`task = \"{other}\"`: write `task` (the tool runs only as a task), \
                             `task = \"optional\"` (a task when the client supports tasks) or \
                             `task = \"never\"`"
                        ),
                    )),
                },
                ("task_start", Value::Str(lit)) => match lit.value().as_str() {
                    "immediately" => {
                        parsed.task_start = Some(Ident::new("Immediately", lit.span()));
                    }
                    "first_wait" => {
                        parsed.task_start = Some(Ident::new("AtFirstWait", lit.span()));
                    }
                    other => bad_values.push(syn::Error::new(
                        lit.span(),
                        format!(
                            "`task_start = \"{other}\"`: write `task_start = \"immediately\"` \
                             (the default) or `task_start = \"first_wait\"`"
                        ),
                    )),
                },
                _ => {}
            })
        }
        Err(error) => {
            // A syntax error: do not also report the options it hid as missing.
            given.push("server".to_string());
            errors.push(error);
        }
    }
    for error in bad_values {
        errors.push(error);
    }
    (parsed, given)
}
