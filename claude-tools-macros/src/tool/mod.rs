//! `#[tool]`: parse → check → expand.
//!
//! The user's fn is always emitted (minus the doc comments on its parameters, which rustc would
//! reject); the registration is emitted only when no error was found, so that one mistake gives
//! one error.
//!
//! - `parse`: the options of `#[tool(...)]`;
//! - `check`: the fn's shape, its name and parameters, into a [`Tool`] (`model`);
//! - `expand`: the registration (definition, handler, compile-time checks);
//! - `tool_ref`: the marker type that names the tool (`ToolRef`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::errors::Errors;
use crate::param_attrs;

mod check;
pub(crate) use check::{extractor_name, unraw};
mod expand;
mod model;
mod parse;
mod tool_ref;
mod warnings;

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let mut function = match syn::parse2::<ItemFn>(item.clone()) {
        Ok(function) => function,
        Err(_) if is_fn(&item) => {
            // A fn syn cannot parse (a syntax error in its body): hand it back untouched, so
            // that rustc reports the syntax error itself, once.
            return item;
        }
        Err(error) => {
            errors.push(syn::Error::new(
                error.span(),
                "#[tool] goes on a fn: `#[tool(server = MyServer)] async fn my_tool(..) -> T`",
            ));
            let compile_errors = errors.to_compile_errors();
            return quote!(#item #compile_errors);
        }
    };
    // Take the parameters' doc comments and other attributes off before anything else: the fn
    // is emitted without them whatever happens next.
    let param_attrs = param_attrs::strip(&mut function, &mut errors);

    let (parsed, given) = parse::options(args, &mut errors);

    let tool = check::validate(&function, parsed, &given, param_attrs, &mut errors);
    match tool {
        Some(tool) if errors.is_empty() => {
            let registration = expand::registration(&function, &tool);
            let tool_ref = tool_ref::marker_type(&function);
            let warnings = warnings::expand(&mut function, &tool);
            quote! {
                #function
                #registration
                #tool_ref
                #warnings
            }
        }
        _ => {
            // The fn alone, marked so that its being unused adds no warning to the error.
            let compile_errors = errors.to_compile_errors();
            quote! {
                #[allow(dead_code)]
                #function
                #compile_errors
            }
        }
    }
}

/// Whether `item` is a fn: a `fn` keyword before its first `{ ... }`.
fn is_fn(item: &TokenStream) -> bool {
    for token in item.clone() {
        match token {
            proc_macro2::TokenTree::Ident(ident) if ident == "fn" => return true,
            proc_macro2::TokenTree::Group(group)
                if group.delimiter() == proc_macro2::Delimiter::Brace =>
            {
                return false;
            }
            _ => {}
        }
    }
    false
}
