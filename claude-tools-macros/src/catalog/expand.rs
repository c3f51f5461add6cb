//! The expansion of a checked `#[prompt]` or `#[resource]`: its handler (every parameter
//! parsed before any problem is reported, then the fn called and its result converted) and
//! its `inventory` registration.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemFn;
use syn::spanned::Spanned;

use super::Kind;
use super::check::Item;

pub(super) fn registration(kind: Kind, function: &ItemFn, item: &Item) -> TokenStream {
    let private = quote!(::claude_tools::__private);
    let server = &item.server;
    let server_check = quote_spanned! {server.span()=>
        type __CtServer = #server;
        const _: #private::ServerInfo = #private::ServerInfo::of::<__CtServer>();
    };
    let (handler, entry) = match kind {
        Kind::Prompt => prompt(function, item),
        Kind::Resource => resource(function, item),
    };
    let location = quote_spanned!(function.sig.ident.span()=> ::core::file!(), ::core::line!());
    quote! {
        const _: () = {
            #[allow(unused_imports)]
            use #private::{ViaOptionalPromptArgument as _, ViaRequiredPromptArgument as _};

            #server_check
            #handler

            fn __ct_entry() -> #private::CatalogEntry {
                let __ct_location = (#location);
                #entry
            }

            #private::inventory::submit! {
                #private::CatalogRegistration::new(#private::TypeId::of::<__CtServer>, __ct_entry)
            }
        };
    }
}

/// What the handler does after every parameter parsed: call the fn, convert its result with
/// `convert` (a fn of `#private`, spanned at the return type so a bad one is reported there).
fn call(function: &ItemFn, item: &Item, convert: TokenStream) -> TokenStream {
    let fn_ident = &function.sig.ident;
    let idents = item.params.iter().map(|param| &param.ident);
    let output = &item.output;
    let invoke = if item.is_async {
        quote!(#fn_ident(#(#idents),*).await)
    } else {
        quote!(#fn_ident(#(#idents),*))
    };
    let convert = quote_spanned!(output.span()=> #convert::<#output>);
    quote! {
        let __ct_output: #output = #invoke;
        #convert
    }
}

/// `let (a, b) = match (a, b) { (Ok(a), Ok(b)) => (a, b), (a, b) => return failed([..]) }`,
/// or nothing for a fn without parameters.
fn all_or_fail(item: &Item, failed: TokenStream) -> TokenStream {
    if item.params.is_empty() {
        return TokenStream::new();
    }
    let idents: Vec<_> = item.params.iter().map(|param| &param.ident).collect();
    quote! {
        let (#(#idents,)*) = match (#(#idents,)*) {
            (#(::core::result::Result::Ok(#idents),)*) => (#(#idents,)*),
            (#(#idents,)*) => return #failed([#(#idents.err()),*]),
        };
    }
}

fn prompt(function: &ItemFn, item: &Item) -> (TokenStream, TokenStream) {
    let private = quote!(::claude_tools::__private);
    let extract = item.params.iter().map(|param| {
        let ident = &param.ident;
        let name = &param.name;
        let ty = &param.ty;
        quote_spanned! {ty.span()=>
            let #ident = (&&#private::PromptSlot::<#ty>::NEW)
                .__ct_prompt_argument()
                .extract(&mut __ct_arguments, #name);
        }
    });
    let all = all_or_fail(item, quote!(#private::prompt_arguments_failed));
    let converted = call(function, item, quote!(#private::prompt_output));
    let run = if item.is_async {
        quote!(#private::prompt_future(async move { #converted(__ct_output) }))
    } else {
        quote!({
            let __ct_result = { #converted(__ct_output) };
            #private::prompt_future(::core::future::ready(__ct_result))
        })
    };
    let handler = quote! {
        fn __ct_handle(mut __ct_arguments: #private::PromptArguments) -> #private::PromptFuture {
            #(#extract)*
            #all
            #run
        }
    };
    let name = &item.name;
    let settings = settings(item, "prompt");
    let describe = item.params.iter().map(|param| {
        let name = &param.name;
        let ty = &param.ty;
        let doc = match param.doc.to_expr() {
            Some(doc) => {
                quote!(::core::option::Option::Some(#private::doc_description(#doc).as_str()))
            }
            None => quote!(::core::option::Option::None),
        };
        quote_spanned! {ty.span()=>
            __ct_item = (&&#private::PromptSlot::<#ty>::NEW)
                .__ct_prompt_argument()
                .describe(__ct_item, #name, #doc);
        }
    });
    let completers = completers(item);
    let entry = quote! {
        let mut __ct_item = #private::Prompt::from_handler(#name, ::std::sync::Arc::new(__ct_handle))
            .at(__ct_location.0, __ct_location.1);
        #settings
        #(#describe)*
        #completers
        #private::CatalogEntry::Prompt(__ct_item)
    };
    (handler, entry)
}

fn resource(function: &ItemFn, item: &Item) -> (TokenStream, TokenStream) {
    let private = quote!(::claude_tools::__private);
    let extract = item.params.iter().map(|param| {
        let ident = &param.ident;
        let name = &param.name;
        let ty = &param.ty;
        quote_spanned! {ty.span()=>
            let #ident = #private::uri_variable::<#ty>(&__ct_request, #name);
        }
    });
    let all = all_or_fail(item, quote!(#private::resource_variables_failed));
    let converted = call(function, item, quote!(#private::resource_output));
    let finish = quote!(#converted(__ct_output, &__ct_uri, __ct_mime_type.as_deref()));
    let run = if item.is_async {
        quote!(#private::resource_future(async move { #finish }))
    } else {
        quote!({
            let __ct_result = { #finish };
            #private::resource_future(::core::future::ready(__ct_result))
        })
    };
    let handler = quote! {
        fn __ct_handle(__ct_request: #private::ResourceRequest) -> #private::ResourceFuture {
            let __ct_uri = ::std::string::String::from(__ct_request.uri());
            let __ct_mime_type = __ct_request.mime_type().map(::std::string::String::from);
            #(#extract)*
            #all
            #run
        }
    };
    let name = &item.name;
    let uri = item
        .uri
        .as_ref()
        .map(|uri| quote!(#uri))
        .unwrap_or_else(|| quote!(""));
    let settings = settings(item, "resource");
    let mime_type = item
        .mime_type
        .as_ref()
        .map(|mime| quote!(__ct_item = __ct_item.mime_type(#mime);));
    let choices = item.params.iter().map(|param| {
        let name = &param.name;
        let ty = &param.ty;
        quote_spanned! {ty.span()=>
            if let ::core::option::Option::Some(__ct_choices) = #private::variable_choices::<#ty>() {
                __ct_item = __ct_item.complete_from(#name, __ct_choices);
            }
        }
    });
    let completers = completers(item);
    let entry = quote! {
        let mut __ct_item = #private::Resource::from_handler(#uri, #name, ::std::sync::Arc::new(__ct_handle))
            .at(__ct_location.0, __ct_location.1);
        #settings
        #mime_type
        #(#choices)*
        #completers
        #private::CatalogEntry::Resource(__ct_item)
    };
    (handler, entry)
}

/// The title and the description.
fn settings(item: &Item, _kind: &str) -> TokenStream {
    let title = item
        .title
        .as_ref()
        .map(|title| quote!(__ct_item = __ct_item.title(#title);));
    let description = item
        .description
        .as_ref()
        .map(|description| quote!(__ct_item = __ct_item.description(#description);));
    quote!(#title #description)
}

/// `complete(arg = path)`: the completer gets what was typed, and the other arguments when it
/// takes a second parameter (`IntoCompleter` tells the two shapes apart); its values become
/// strings.
fn completers(item: &Item) -> TokenStream {
    let private = quote!(::claude_tools::__private);
    item.completers
        .iter()
        .map(|completer| {
            // The argument's name on the wire (a renamed parameter's), checked to exist.
            let typed = crate::tool::unraw(&completer.argument);
            let argument = super::check::param_of(&item.params, &typed)
                .map_or(typed.clone(), |param| param.name.clone());
            let path = &completer.path;
            quote_spanned! {path.span()=>
                {
                    let __ct_completer = #private::completer(#path);
                    __ct_item = __ct_item.complete_with_context(
                        #argument,
                        move |__ct_typed: &str, __ct_context: &#private::CompletionContext| {
                            __ct_completer(__ct_typed, __ct_context)
                        },
                    );
                }
            }
        })
        .collect()
}
