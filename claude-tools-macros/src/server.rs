//! `#[tool_server]`: parse → validate → expand.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Item, ItemStruct, LitStr};

use crate::attr::{self, Kind, Value};
use crate::errors::Errors;
use crate::names;

const OPTIONS: &[(&str, Kind)] = &[
    ("name", Kind::Str),
    ("version", Kind::Str),
    ("always_load", Kind::Flag),
    ("instructions", Kind::Str),
    ("deny_unknown_arguments", Kind::Flag),
];

/// The options of one `#[tool_server(...)]`.
#[derive(Default)]
struct ServerArgs {
    name: Option<LitStr>,
    version: Option<LitStr>,
    always_load: Option<bool>,
    instructions: Option<LitStr>,
    deny_unknown_arguments: Option<bool>,
}

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();

    let item_struct = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Struct(item_struct)) => item_struct,
        Ok(other) => {
            errors.push(syn::Error::new(
                item_span(&other),
                "#[tool_server] goes on a struct: `#[tool_server(name = \"...\")] pub struct MyServer;`",
            ));
            return with_errors(item, &errors);
        }
        Err(error) => {
            errors.push(error);
            return with_errors(item, &errors);
        }
    };

    let mut parsed = ServerArgs::default();
    let mut given = Vec::new();
    match attr::parse_entries(args) {
        Ok(entries) => {
            given = attr::interpret(&entries, OPTIONS, &mut errors, |key, value| {
                match (key, value) {
                    ("name", Value::Str(lit)) => parsed.name = Some(lit),
                    ("version", Value::Str(lit)) => parsed.version = Some(lit),
                    ("always_load", Value::Flag(value, _)) => parsed.always_load = Some(value),
                    ("instructions", Value::Str(lit)) => parsed.instructions = Some(lit),
                    ("deny_unknown_arguments", Value::Flag(value, _)) => {
                        parsed.deny_unknown_arguments = Some(value);
                    }
                    _ => {}
                }
            })
        }
        Err(error) => {
            // A syntax error: do not also report the options it hid as missing.
            given.push("name".to_string());
            errors.push(error);
        }
    }

    // Validate.
    match &parsed.name {
        None if given.iter().any(|key| key == "name") => {}
        None => errors.push(syn::Error::new(
            Span::call_site(),
            "#[tool_server] needs a name: `#[tool_server(name = \"my_server\")]`; the CLI calls \
             its tools `mcp__<name>__<tool>`",
        )),
        Some(lit) => {
            if let Some(problem) = names::problem(&lit.value(), names::MAX_SERVER) {
                errors.push(syn::Error::new(
                    lit.span(),
                    format!(
                        "invalid server name: {problem}; a server name must match \
                         [A-Za-z0-9_-] and be at most {} characters, so that \
                         `mcp__<server>__<tool>` fits in {}",
                        names::MAX_SERVER,
                        names::MAX_QUALIFIED
                    ),
                ))
            }
        }
    }
    if !item_struct.generics.params.is_empty() || item_struct.generics.where_clause.is_some() {
        errors.push(syn::Error::new(
            item_struct.generics.span(),
            "a #[tool_server] struct cannot be generic: tools name their server by a concrete \
             type, `#[tool(server = MyServer)]`",
        ));
    }

    // Expand (also after an error, with a placeholder name, so that the tools naming this
    // server do not each report that it is not a server).
    let expanded = expand_server(&item_struct, &parsed, errors.is_empty());
    let compile_errors = errors.to_compile_errors();
    quote! {
        #expanded
        #compile_errors
    }
}

fn expand_server(item: &ItemStruct, args: &ServerArgs, valid: bool) -> TokenStream {
    let ident = &item.ident;
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        return item.to_token_stream();
    }
    let name = match (&args.name, valid) {
        (Some(lit), true) => lit.to_token_stream(),
        _ => quote!("_"),
    };
    let version = match &args.version {
        Some(lit) => lit.to_token_stream(),
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let always_load = args.always_load.unwrap_or(true);
    let deny_unknown_arguments = args.deny_unknown_arguments.unwrap_or(false);
    let instructions = match &args.instructions {
        Some(lit) => quote!(::core::option::Option::Some(#lit)),
        None => quote!(::core::option::Option::None),
    };
    let private = quote!(::claude_tools::__private);
    let span = ident.span();
    let server_doc = format!(
        "The MCP server of every `#[tool(server = {ident})]` in the program, ready for \
         `.with_state(..)`.\n\n# Panics\n\nWhen the server cannot be built: a tool's schema \
         that Claude would not accept, or two tools with the same name. \
         [`{ident}::try_server`] returns the error instead."
    );
    let try_doc = format!(
        "The MCP server of every `#[tool(server = {ident})]` in the program, or why it cannot \
         be built (a tool's schema that Claude would not accept, two tools with the same name)."
    );
    quote_spanned! {span=>
        #item

        impl #private::ServerDefinition for #ident {
            const NAME: &'static str = #name;
            const VERSION: &'static str = #version;
            const ALWAYS_LOAD: bool = #always_load;
            const INSTRUCTIONS: ::core::option::Option<&'static str> = #instructions;
            const DENY_UNKNOWN_ARGUMENTS: bool = #deny_unknown_arguments;
        }

        // Generated for every server; a program may use only one of the two.
        #[allow(dead_code)]
        impl #ident {
            // Visible only in this crate: the tools of this crate check their names for
            // duplicates at compile time; elsewhere they read `false` from
            // `NotTheServerCrate` and leave that check to the server's build.
            #[doc(hidden)]
            pub(crate) const __CT_SERVER_CRATE: bool = true;

            #[doc = #server_doc]
            #[must_use]
            pub fn server() -> #private::ToolServer {
                #private::build_server::<Self>()
            }

            #[doc = #try_doc]
            pub fn try_server()
                -> ::core::result::Result<#private::ToolServer, #private::ServerBuildError>
            {
                #private::ToolServer::from_definition::<Self>()
            }
        }
    }
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Enum(item) => item.enum_token.span,
        Item::Union(item) => item.union_token.span,
        Item::Fn(item) => item.sig.fn_token.span,
        other => other.span(),
    }
}

fn with_errors(item: TokenStream, errors: &Errors) -> TokenStream {
    let compile_errors = errors.to_compile_errors();
    quote! {
        #item
        #compile_errors
    }
}
