//! The expansion of a checked `#[prompt]` or `#[resource]`: its handler (every parameter
//! parsed before any problem is reported, then the fn called and its result converted) and
//! its `inventory` registration.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn};

use super::Kind;
use super::check::{Binding, Item, Param};

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
            use #private::{
                ViaNoPromptParam as _, ViaNotAVariable as _, ViaOptionalPromptArgument as _,
                ViaPromptExtractor as _, ViaPromptInput as _, ViaRequiredPromptArgument as _,
                ViaResourceExtractor as _, ViaResourceInput as _,
            };
            #[allow(unused_imports)]
            use #private::{ViaElicitForm as _, ViaNotAnElicitForm as _};
            #[allow(unused_imports)]
            use #private::{
                ViaAllShared as _, ViaNotState as _, ViaSharedState as _, ViaSomeUnshared as _,
                ViaUnsharedState as _,
            };

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

/// The local holding parameter `index`'s value: the fn is called with these, in order, so that
/// a parameter written as a pattern is destructured by the fn itself.
fn value(index: usize) -> Ident {
    format_ident!("__ct_value_{}", index)
}

/// The fn classifying parameter `index` (called by both the description and the handler, so
/// that a bad type is reported once).
fn dispatch(index: usize) -> Ident {
    format_ident!("__ct_param_{}", index)
}

/// What the handler does after every parameter was extracted: call the fn, convert its result
/// with `convert` (a fn of `#private`, spanned at the return type so a bad one is reported there).
fn call(function: &ItemFn, item: &Item, convert: TokenStream) -> TokenStream {
    let fn_ident = &function.sig.ident;
    let values = (0..item.params.len()).map(value);
    let output = &item.output;
    let invoke = if item.is_async {
        // The fn's own future is checked to be `Send` on its own, spanned at its name, as a
        // tool's is: a value held across an `.await` that is not `Send` is reported once, at
        // the fn, with what to do; not when a `State<T>` parameter is already reported.
        let types: Vec<_> = item.params.iter().map(|param| &param.ty).collect();
        let gate = crate::send_gate::gate(&types, fn_ident.span());
        quote_spanned!(fn_ident.span()=> #gate.__ct_send(#fn_ident(#(#values),*)).await)
    } else {
        quote!(#fn_ident(#(#values),*))
    };
    let convert = quote_spanned!(output.span()=> #convert::<#output>);
    quote! {
        let __ct_output: #output = #invoke;
        #convert
    }
}

/// The `Send` gate of an async fn's call future (`__private::send_gate`), spanned at its name:
/// the future holds the extracted values, so a `State<T>` of a `T` that is not `Send + Sync`,
/// already reported at the parameter, is not reported again at the attribute.
fn item_gate(function: &ItemFn, item: &Item) -> TokenStream {
    let types: Vec<_> = item.params.iter().map(|param| &param.ty).collect();
    crate::send_gate::gate(&types, function.sig.ident.span())
}

/// `let (a, b) = match (a, b) { (Ok(a), Ok(b)) => (a, b), (a, b) => return failed([..]) }`,
/// or nothing for a fn without parameters.
fn all_or_fail(item: &Item, failed: TokenStream) -> TokenStream {
    if item.params.is_empty() {
        return TokenStream::new();
    }
    let values: Vec<_> = (0..item.params.len()).map(value).collect();
    quote! {
        let (#(#values,)*) = match (#(#values,)*) {
            (#(::core::result::Result::Ok(#values),)*) => (#(#values,)*),
            (#(#values,)*) => return #failed([#(#values.err()),*]),
        };
    }
}

fn prompt(function: &ItemFn, item: &Item) -> (TokenStream, TokenStream) {
    let private = quote!(::claude_tools::__private);
    let prompt_name = &item.name;
    let dispatchers = item.params.iter().enumerate().map(|(index, param)| {
        let ty = &param.ty;
        let dispatch = dispatch(index);
        let method = match param.binding {
            Binding::Named(_) => quote_spanned!(ty.span()=> __ct_prompt_param),
            Binding::Pattern => quote_spanned!(ty.span()=> __ct_prompt_pattern),
        };
        // Spelled out, not `#private`: the receiver must be spanned at the type, so that an
        // inherent method's error (`State<T>` of a `T` not `Send + Sync`) points at the type.
        let slot = quote_spanned!(ty.span()=> ::claude_tools::__private::PromptSlot);
        quote_spanned! {ty.span()=>
            fn #dispatch() -> #private::PromptParam<#ty> {
                (&&&&#slot::<#ty>::NEW).#method()
            }
        }
    });
    let extract = item.params.iter().enumerate().map(|(index, param)| {
        let value = value(index);
        let dispatch = dispatch(index);
        let name = &param.name;
        quote! {
            let #value = #dispatch().extract(&mut __ct_arguments, #prompt_name, #name);
        }
    });
    let all = all_or_fail(item, quote!(#private::prompt_arguments_failed));
    let converted = call(function, item, quote!(#private::prompt_output));
    let run = if item.is_async {
        let gate = item_gate(function, item);
        quote!(#gate.__ct_box(async move { #converted(__ct_output) }))
    } else {
        quote!({
            let __ct_result = { #converted(__ct_output) };
            #private::prompt_future(::core::future::ready(__ct_result))
        })
    };
    let handler = quote! {
        #(#dispatchers)*

        fn __ct_handle(mut __ct_arguments: #private::PromptArguments) -> #private::PromptFuture {
            #(#extract)*
            #all
            #run
        }
    };
    let settings = settings(item);
    let describe = item.params.iter().enumerate().map(|(index, param)| {
        let name = &param.name;
        let dispatch = dispatch(index);
        let doc = match param.doc.to_expr() {
            Some(doc) => {
                quote!(::core::option::Option::Some(#private::doc_description(#doc).as_str()))
            }
            None => quote!(::core::option::Option::None),
        };
        quote! {
            __ct_item = #dispatch().describe(__ct_item, #name, #doc);
        }
    });
    let completers = completers(item);
    let entry = quote! {
        let mut __ct_item = #private::Prompt::from_handler(#prompt_name, ::std::sync::Arc::new(__ct_handle))
            .at(__ct_location.0, __ct_location.1);
        #settings
        #(#describe)*
        #completers
        #private::CatalogEntry::Prompt(__ct_item)
    };
    (handler, entry)
}

/// Whether parameter `param` of a resource is a variable of its URI template (else an
/// extractor).
fn is_variable(item: &Item, param: &Param) -> bool {
    matches!(param.binding, Binding::Named(_)) && item.variables.contains(&param.name)
}

fn resource(function: &ItemFn, item: &Item) -> (TokenStream, TokenStream) {
    let private = quote!(::claude_tools::__private);
    let dispatchers = item.params.iter().enumerate().map(|(index, param)| {
        let ty = &param.ty;
        let dispatch = dispatch(index);
        if is_variable(item, param) {
            let variable = quote_spanned!(ty.span()=> #private::uri_variable);
            quote_spanned! {ty.span()=>
                fn #dispatch() -> #private::UriVariable<#ty> {
                    #variable::<#ty>()
                }
            }
        } else {
            let slot = quote_spanned!(ty.span()=> ::claude_tools::__private::ResourceSlot);
            quote_spanned! {ty.span()=>
                fn #dispatch() -> #private::ResourceExtractor<#ty> {
                    (&&&#slot::<#ty>::NEW).__ct_resource_extractor()
                }
            }
        }
    });
    let extract = item.params.iter().enumerate().map(|(index, param)| {
        let value = value(index);
        let dispatch = dispatch(index);
        let name = &param.name;
        if is_variable(item, param) {
            quote!(let #value = #dispatch().parse(&__ct_request, #name);)
        } else {
            quote!(let #value = #dispatch().extract(&__ct_request, #name);)
        }
    });
    let all = all_or_fail(item, quote!(#private::resource_variables_failed));
    let converted = call(function, item, quote!(#private::resource_output));
    let finish = quote!(#converted(__ct_output, &__ct_uri, __ct_mime_type.as_deref()));
    let run = if item.is_async {
        let gate = item_gate(function, item);
        quote!(#gate.__ct_box(async move { #finish }))
    } else {
        quote!({
            let __ct_result = { #finish };
            #private::resource_future(::core::future::ready(__ct_result))
        })
    };
    let handler = quote! {
        #(#dispatchers)*

        fn __ct_handle(__ct_request: #private::ResourceRequest) -> #private::ResourceFuture {
            let __ct_uri = ::std::string::String::from(__ct_request.uri());
            let __ct_mime_type = __ct_request.mime_type().map(::std::string::String::from);
            #(#extract)*
            ::core::mem::drop(__ct_request);
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
    let settings = settings(item);
    let mime_type = item
        .mime_type
        .as_ref()
        .map(|mime| quote!(__ct_item = __ct_item.mime_type(#mime);));
    let describe = item.params.iter().enumerate().map(|(index, param)| {
        let name = &param.name;
        let dispatch = dispatch(index);
        if is_variable(item, param) {
            quote! {
                if let ::core::option::Option::Some(__ct_choices) = #dispatch().choices() {
                    __ct_item = __ct_item.complete_from(#name, __ct_choices);
                }
            }
        } else {
            quote!(__ct_item = #dispatch().describe(__ct_item, #name);)
        }
    });
    let completers = completers(item);
    let entry = quote! {
        let mut __ct_item = #private::Resource::from_handler(#uri, #name, ::std::sync::Arc::new(__ct_handle))
            .at(__ct_location.0, __ct_location.1);
        #settings
        #mime_type
        #(#describe)*
        #completers
        #private::CatalogEntry::Resource(__ct_item)
    };
    (handler, entry)
}

/// The title, the description, and the forms the body asks for (recorded so that adding the
/// item to its server checks them).
fn settings(item: &Item) -> TokenStream {
    let private = quote!(::claude_tools::__private);
    let forms = item.elicited.iter().map(|form| {
        quote! {
            (&&#private::ElicitedForm::<#form>::NEW).__ct_elicits(&mut __ct_item);
        }
    });
    let title = item
        .title
        .as_ref()
        .map(|title| quote!(__ct_item = __ct_item.title(#title);));
    let description = item
        .description
        .as_ref()
        .map(|description| quote!(__ct_item = __ct_item.description(#description);));
    quote!(#title #description #(#forms)*)
}

/// `complete(arg = path)`: the completer gets what was typed, the other arguments when it takes
/// a `&CompletionContext`, and the extractors it takes (`IntoCompleter` tells the shapes apart);
/// its values become strings.
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
                __ct_item = __ct_item.complete_by(#argument, #private::completer(#path));
            }
        })
        .collect()
}
