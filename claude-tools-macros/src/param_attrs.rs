//! The attributes of a `#[tool]` fn's parameters: doc comments, a default, a wire name.
//!
//! A parameter may carry serde's own spelling, since that is what users reach for first, with
//! serde's meaning: `#[serde(default)]`, `#[serde(default = "path::to_fn")]`,
//! `#[serde(rename = "wire_name")]`. serde has no attribute for a default *expression*, so the
//! tool-native `#[arg(...)]` adds one: `#[arg(default = 10)]`, `#[arg(default)]`,
//! `#[arg(rename = "wire_name")]`, and `#[arg(header = "Name")]` for a parameter that also
//! travels in the `Mcp-Param-Name` header over Streamable HTTP (MCP 2026-07-28's
//! `x-mcp-header`). `arg` because the model sends the tool's *arguments* and every
//! error names an `argument`; it is not an attribute rustc or std knows, and since `#[tool]`
//! takes these attributes off the fn it emits, no other attribute of that name is ever invoked.
//!
//! Lint attributes (`#[allow(..)]` and co.) stay on the emitted fn; every other attribute is an
//! error that lists what a parameter takes.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprPath, FnArg, ItemFn, LitStr, Token};

use crate::docs::{self, Doc};
use crate::errors::Errors;

/// What a parameter may carry, for the error on anything else.
const SUPPORTED: &str = "a tool parameter takes doc comments, #[serde(default)], \
    #[serde(default = \"path::to_fn\")], #[serde(rename = \"name\")], #[arg(default)], \
    #[arg(default = <expr>)], #[arg(rename = \"name\")], #[arg(header = \"Name\")] and lint \
    attributes (#[allow(..)])";

/// Lints rustc accepts on a parameter: left on the emitted fn.
const LINTS: &[&str] = &["allow", "warn", "deny", "forbid", "expect"];

/// The value a parameter takes when the model leaves it out.
pub(crate) enum Default {
    /// `#[serde(default)]` / `#[arg(default)]`: `Default::default()`.
    Trait(Span),
    /// `#[serde(default = "path")]`: `path()`.
    Fn(ExprPath),
    /// `#[arg(default = expr)]`.
    Expr(Expr),
}

impl Default {
    /// The expression of the default, spanned so that a type error points at the attribute.
    pub(crate) fn to_expr(&self) -> TokenStream {
        match self {
            // The type comes from the fn's return type: a type without `Default` is then
            // reported at the attribute's `default`.
            Default::Trait(span) => quote_spanned!(*span=> ::core::default::Default::default()),
            Default::Fn(path) => quote_spanned!(path.span()=> #path()),
            Default::Expr(expr) => expr.to_token_stream(),
        }
    }
}

/// What the attributes of one parameter say.
pub(crate) struct ParamAttrs {
    pub(crate) doc: Doc,
    pub(crate) default: Option<Default>,
    /// The wire name, when it is not the Rust name.
    pub(crate) rename: Option<LitStr>,
    /// The `Mcp-Param-*` header the argument also travels in (`#[arg(header = "Name")]`).
    pub(crate) header: Option<LitStr>,
    /// The first `#[serde]`/`#[arg]` attribute, for errors about the parameter as a whole.
    pub(crate) attr: Option<TokenStream>,
}

impl ParamAttrs {
    /// Whether the parameter has a default, a rename or a header: only a model argument may.
    pub(crate) fn is_argument_only(&self) -> bool {
        self.default.is_some() || self.rename.is_some() || self.header.is_some()
    }
}

/// Takes the doc comments, `#[serde]` and `#[arg]` attributes (and any other attribute, which
/// is an error) off the fn's parameters, returning what each parameter's said.
pub(crate) fn strip(function: &mut ItemFn, errors: &mut Errors) -> Vec<ParamAttrs> {
    function
        .sig
        .inputs
        .iter_mut()
        .map(|input| {
            let attrs = match input {
                FnArg::Receiver(receiver) => &mut receiver.attrs,
                FnArg::Typed(typed) => &mut typed.attrs,
            };
            let parsed = parse(attrs, errors);
            attrs.retain(|attr| LINTS.iter().any(|lint| attr.path().is_ident(lint)));
            parsed
        })
        .collect()
}

fn parse(attrs: &[Attribute], errors: &mut Errors) -> ParamAttrs {
    let mut parsed = ParamAttrs {
        doc: Doc::from_attrs(attrs),
        default: None,
        rename: None,
        header: None,
        attr: None,
    };
    for attr in attrs {
        let path = attr.path();
        if docs::is_doc(attr) || LINTS.iter().any(|lint| path.is_ident(lint)) {
            continue;
        }
        let is_serde = path.is_ident("serde");
        if !is_serde && !path.is_ident("arg") {
            let name = path.to_token_stream().to_string().replace(' ', "");
            errors.push(syn::Error::new(
                path.span(),
                format!("unsupported attribute `#[{name}]` on a tool parameter: {SUPPORTED}"),
            ));
            continue;
        }
        parsed.attr.get_or_insert_with(|| attr.to_token_stream());
        let result = attr.parse_nested_meta(|meta| {
            let key = meta.path.to_token_stream().to_string();
            match key.as_str() {
                "default" => {
                    let default = if !meta.input.peek(Token![=]) {
                        Default::Trait(meta.path.span())
                    } else if is_serde {
                        let lit: LitStr = meta.value()?.parse().map_err(|_| {
                            meta.error(
                                "#[serde(default = \"...\")] takes the path of a fn, as a \
                                 string: `#[serde(default = \"ten\")]`; for an expression, \
                                 write #[arg(default = 10)]",
                            )
                        })?;
                        Default::Fn(lit.parse::<ExprPath>().map_err(|_| {
                            syn::Error::new(
                                lit.span(),
                                "expected the path of a fn returning the default, like \
                                 \"ten\" or \"defaults::limit\"",
                            )
                        })?)
                    } else {
                        Default::Expr(meta.value()?.parse::<Expr>()?)
                    };
                    if parsed.default.is_some() {
                        return Err(meta.error("the default is given twice: keep one"));
                    }
                    parsed.default = Some(default);
                    Ok(())
                }
                "rename" => {
                    if !meta.input.peek(Token![=]) {
                        return Err(meta.error(
                            "`rename` takes the wire name as a string: `rename = \"wire_name\"` \
                             (serde's `rename(deserialize = ..)` form is not supported on a tool \
                             parameter: a parameter is only ever deserialized)",
                        ));
                    }
                    let lit: LitStr = meta.value()?.parse().map_err(|_| {
                        meta.error("`rename` takes a string: `rename = \"wire_name\"`")
                    })?;
                    if parsed.rename.is_some() {
                        return Err(meta.error("the rename is given twice: keep one"));
                    }
                    parsed.rename = Some(lit);
                    Ok(())
                }
                "header" if !is_serde => {
                    let lit: LitStr = meta.value()?.parse().map_err(|_| {
                        meta.error(
                            "`header` takes the header's name as a string: \
                             `#[arg(header = \"Region\")]` (sent as `Mcp-Param-Region`)",
                        )
                    })?;
                    let name = lit.value();
                    if name.is_empty()
                        || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                    {
                        return Err(syn::Error::new(
                            lit.span(),
                            format!(
                                "the header name `{name}` must be letters, digits and `-` (it is \
                                 sent as `Mcp-Param-{name}`)"
                            ),
                        ));
                    }
                    if parsed.header.is_some() {
                        return Err(meta.error("the header is given twice: keep one"));
                    }
                    parsed.header = Some(lit);
                    Ok(())
                }
                _ => {
                    let outer = if is_serde { "serde" } else { "arg" };
                    Err(meta.error(format!(
                        "unsupported `#[{outer}({key})]` on a tool parameter: {SUPPORTED}"
                    )))
                }
            }
        });
        if let Err(error) = result {
            errors.push(error);
        }
    }
    parsed
}
