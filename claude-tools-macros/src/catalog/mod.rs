//! `#[prompt]` and `#[resource]`: parse → check → expand, as `#[tool]` does.
//!
//! The two share their shape: a free fn of a `#[tool_server]`, whose parameters are filled
//! from strings the client sends (a prompt's arguments, a URI template's variables), and
//! whose result is converted by a trait (`IntoPromptResult`, `IntoResourceContents`).
//!
//! - `parse`: the options, `complete(arg = completer)` included;
//! - `check`: the fn's shape, its parameters, and (for a resource) the URI template's
//!   variables against them;
//! - `expand`: the handler and the registration.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::errors::Errors;

mod check;
mod expand;
mod parse;

/// Which attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Prompt,
    Resource,
}

impl Kind {
    fn attribute(self) -> &'static str {
        match self {
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }

    /// What a parameter is, in errors.
    fn parameter(self) -> &'static str {
        match self {
            Kind::Prompt => "prompt argument",
            Kind::Resource => "URI template variable",
        }
    }
}

pub(crate) fn expand(kind: Kind, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let mut function = match syn::parse2::<ItemFn>(item.clone()) {
        Ok(function) => function,
        Err(error) => {
            let attribute = kind.attribute();
            errors.push(syn::Error::new(
                error.span(),
                format!("#[{attribute}] goes on a fn: `#[{attribute}(server = MyServer, ..)] async fn name(..) -> T`"),
            ));
            let compile_errors = errors.to_compile_errors();
            return quote!(#item #compile_errors);
        }
    };
    let docs = check::strip_param_attrs(kind, &mut function, &mut errors);
    let options = parse::options(kind, args, &mut errors);
    let item = check::validate(kind, &function, options, docs, &mut errors);
    match item {
        Some(item) if errors.is_empty() => {
            let registration = expand::registration(kind, &function, &item);
            quote! {
                #function
                #registration
            }
        }
        _ => {
            let compile_errors = errors.to_compile_errors();
            quote! {
                #[allow(dead_code)]
                #function
                #compile_errors
            }
        }
    }
}
