//! What the expansion needs: a `#[tool]` fn as checked, with its options and parameters.

use proc_macro2::{Span, TokenStream};
use syn::{Path, Type};

use super::parse::ToolArgs;
use crate::docs::Doc;
use crate::param_attrs::Default;

/// How a parameter is bound.
pub(crate) enum Binding {
    /// `name: Type`: the name is the schema property (leading `r#` stripped), unless renamed.
    Named(String),
    /// A pattern (`State(db): State<Db>`, `_: ToolContext`): only extractors may use one; the
    /// string is the name handed to the extractor.
    Pattern(String),
}

/// One parameter of the tool fn.
pub(crate) struct Param {
    pub(crate) binding: Binding,
    pub(crate) ty: Type,
    pub(super) doc: Doc,
    /// What the parameter takes when the model leaves it out.
    pub(super) default: Option<Default>,
    /// It has a default or a rename, so it must be a model argument.
    pub(super) argument_only: bool,
    /// The Rust name of a renamed parameter, which a call must not send (see
    /// `InputSchemaBuilder::rust_name`).
    pub(super) rust_name: Option<String>,
    /// The `Mcp-Param-*` header the argument also travels in (`#[arg(header = "..")]`).
    pub(super) header: Option<syn::LitStr>,
}

/// Everything the expansion needs.
pub(crate) struct Tool {
    pub(super) args: ToolArgs,
    pub(super) server: Path,
    /// The tool name and the span its errors point at.
    pub(crate) name: String,
    pub(super) name_span: Span,
    pub(crate) description: Option<TokenStream>,
    pub(crate) params: Vec<Param>,
    /// The declared return type (`()` when there is none).
    pub(super) output: Type,
    pub(super) is_async: bool,
    /// The `T`s of the body's `elicit::<T>()` calls, recorded on the definition so that
    /// building the server checks they are forms (see `elicit_forms`).
    pub(super) elicited: Vec<Type>,
}
