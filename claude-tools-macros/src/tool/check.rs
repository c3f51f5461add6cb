//! Checking a `#[tool]` fn: its server option, its name, its shape (not `unsafe`, not generic,
//! no `self`, a named return type) and its parameters, into the [`Tool`] the expansion needs.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, ReturnType};

use super::model::{Binding, Param, Tool};
use super::parse::ToolArgs;
use crate::docs::{self, Doc};
use crate::errors::Errors;
use crate::names;
use crate::param_attrs::ParamAttrs;
use crate::param_types;

pub(super) fn validate(
    function: &ItemFn,
    args: ToolArgs,
    given: &[String],
    param_attrs: Vec<ParamAttrs>,
    errors: &mut Errors,
) -> Option<Tool> {
    let sig = &function.sig;

    let server = args.server.clone();
    if server.is_none() && !given.iter().any(|key| key == "server") {
        errors.push(syn::Error::new(
            Span::call_site(),
            "#[tool] needs its server: `#[tool(server = MyServer)]`, naming a struct marked \
             #[tool_server(name = \"...\")]",
        ));
    }

    // The tool name: `name = "..."` or the fn's name.
    let (name, name_span) = match &args.name {
        Some(lit) => (lit.value(), lit.span()),
        None => (unraw(&sig.ident), sig.ident.span()),
    };
    if let Some(problem) = names::problem(&name, names::MAX_QUALIFIED) {
        let fix = if args.name.is_some() {
            "change `name = \"...\"`"
        } else {
            "rename the fn or set `#[tool(name = \"...\")]`"
        };
        errors.push(syn::Error::new(
            name_span,
            format!(
                "invalid tool name: {problem}; a tool name must match [A-Za-z0-9_-]{{1,64}}: {fix}"
            ),
        ));
    }

    if let Some(chars) = &args.max_result_chars
        && let Err(error) = chars.base10_parse::<u64>()
    {
        errors.push(syn::Error::new(
            chars.span(),
            format!("`max_result_chars` must be a positive integer: {error}"),
        ));
    }

    // The fn's shape.
    if let Some(unsafety) = &sig.unsafety {
        errors.push(syn::Error::new(
            unsafety.span(),
            "a #[tool] fn cannot be `unsafe`: the server calls it with no safety contract; \
             make it safe and use `unsafe` blocks inside",
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let generics: &dyn ToTokens = if sig.generics.params.is_empty() {
            &sig.generics.where_clause
        } else {
            &sig.generics
        };
        errors.push(syn::Error::new_spanned(
            generics,
            "a #[tool] fn cannot be generic: its parameters become a fixed input schema, so \
             they need concrete types; write one tool per type",
        ));
    }

    let mut params = Vec::new();
    for (input, attrs) in sig.inputs.iter().zip(param_attrs) {
        match input {
            FnArg::Receiver(receiver) => errors.push(syn::Error::new(
                receiver.self_token.span,
                "a #[tool] fn cannot take `self`: a tool is a free fn; take what it needs \
                 from the server's state with a `State<T>` parameter instead",
            )),
            FnArg::Typed(typed) => {
                param_types::check(&typed.ty, errors);
                let argument_only = attrs.is_argument_only();
                let mut rust_name = None;
                let binding = match &*typed.pat {
                    Pat::Ident(pat) if pat.subpat.is_none() => {
                        let name = unraw(&pat.ident);
                        Binding::Named(match &attrs.rename {
                            Some(rename) => {
                                rust_name = Some(name).filter(|name| *name != rename.value());
                                rename.value()
                            }
                            None => name,
                        })
                    }
                    pattern => {
                        if argument_only {
                            errors.push(syn::Error::new_spanned(
                                attrs.attr.as_ref().unwrap_or(&pattern.to_token_stream()),
                                "a parameter written as a pattern is an extractor, filled in by \
                                 the server, so it takes no default, no rename and no header: \
                                 these apply only to `name: Type` parameters the model fills in",
                            ));
                        }
                        Binding::Pattern(extractor_name(pattern))
                    }
                };
                params.push(Param {
                    binding,
                    ty: (*typed.ty).clone(),
                    doc: attrs.doc,
                    default: attrs.default,
                    argument_only,
                    rust_name,
                    header: attrs.header,
                });
            }
        }
    }

    let output = match &sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => {
            if let Some(span) = param_types::find_impl_trait(ty) {
                errors.push(syn::Error::new(
                    span,
                    "a #[tool] fn must name its return type: `impl Trait` cannot be checked \
                     as a tool result; return a concrete type such as String or Json<T>",
                ));
            }
            (**ty).clone()
        }
    };

    let description = docs::tool_description(
        args.description.as_ref(),
        &Doc::from_attrs(&function.attrs),
        args.full_doc,
    );

    let elicited = crate::elicit_forms::find(&function.block, errors);

    Some(Tool {
        server: server?,
        name,
        name_span,
        description,
        params,
        output,
        is_async: sig.asyncness.is_some(),
        args,
        elicited,
    })
}

/// `r#type` → `type`.
pub(crate) fn unraw(ident: &Ident) -> String {
    let name = ident.to_string();
    match name.strip_prefix("r#") {
        Some(stripped) => stripped.to_string(),
        None => name,
    }
}

/// The name handed to an extractor bound by a pattern: the single binding of `Wrapper(binding)`,
/// or `_`.
pub(crate) fn extractor_name(pattern: &Pat) -> String {
    if let Pat::TupleStruct(tuple) = pattern
        && tuple.elems.len() == 1
        && let Some(Pat::Ident(inner)) = tuple.elems.first()
    {
        return unraw(&inner.ident);
    }
    "_".to_string()
}
