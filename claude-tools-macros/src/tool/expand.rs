//! The registration of a checked `#[tool]`: its definition, its handler, the compile-time
//! checks of its name, and its `inventory` entry.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, LitChar, LitInt, LitStr, ReturnType};

use super::model::{Binding, Tool};
use super::tool_ref;
use crate::feature_hints;

pub(super) fn registration(function: &ItemFn, tool: &Tool) -> TokenStream {
    let private = quote!(::claude_tools::__private);
    let fn_ident = &function.sig.ident;
    let server = &tool.server;
    let server_span = server.span();
    let output = &tool.output;
    let output_span = match &function.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => fn_ident.span(),
    };
    let name = LitStr::new(&tool.name, tool.name_span);
    let name_span = tool.name_span;
    let tool_ref_impl = tool_ref::impl_for(function, tool);

    // Builder calls of `describe`.
    let mut settings = Vec::new();
    if let Some(description) = &tool.description {
        settings.push(quote!(__ct_tool.description(#description);));
    }
    if let Some(title) = &tool.args.title {
        settings.push(quote!(__ct_tool.title(#title);));
    }
    for (method, value) in &tool.args.annotations {
        settings.push(quote!(__ct_tool.#method(#value);));
    }
    if let Some(Ok(chars)) = tool
        .args
        .max_result_chars
        .as_ref()
        .map(LitInt::base10_parse::<u64>)
    {
        settings.push(quote!(__ct_tool.max_result_chars(#chars);));
    }
    let always_load = match tool.args.always_load {
        Some(value) => quote!(#value),
        None => quote!(__CT_SERVER.always_load),
    };
    settings.push(quote!(__ct_tool.always_load(#always_load);));
    if let Some(hint) = &tool.args.search_hint {
        settings.push(quote!(__ct_tool.search_hint(#hint);));
    }
    let deny_unknown = match tool.args.deny_unknown_arguments {
        Some(value) => quote!(#value),
        None => quote!(__CT_SERVER.deny_unknown_arguments),
    };
    settings.push(quote!(__ct_tool.deny_unknown_arguments(#deny_unknown);));
    if let Some(support) = &tool.args.task {
        settings.push(quote!(__ct_tool.task(::claude_tools::tasks::TaskSupport::#support);));
    }
    if let Some(start) = &tool.args.task_start {
        settings.push(quote!(__ct_tool.task_start(::claude_tools::tasks::TaskStart::#start);));
    }
    for form in &tool.elicited {
        settings.push(quote! {
            (&&#private::ElicitedForm::<#form>::NEW).__ct_elicits(&mut __ct_tool);
        });
    }

    // Per parameter: a type alias (so an unknown type is reported once), the dispatch that
    // classifies it (so a type that fits nothing is reported once, at the type), its entry in
    // `describe`, its extraction in `call`.
    let mut param_items = Vec::new();
    let mut describe_params = Vec::new();
    let mut extract_params = Vec::new();
    let mut args = Vec::new();
    for (index, param) in tool.params.iter().enumerate() {
        let alias = format_ident!("__CtParam{}", index);
        let dispatch = format_ident!("__ct_param_{}", index);
        let arg = format_ident!("__ct_arg_{}", index);
        let ty = &param.ty;
        let ty_span = ty.span();
        let (name, method) = match &param.binding {
            Binding::Named(name) if param.argument_only => {
                (name.as_str(), quote_spanned!(ty_span=> __ct_argument))
            }
            Binding::Named(name) => (name.as_str(), quote_spanned!(ty_span=> __ct_param)),
            Binding::Pattern(name) => (name.as_str(), quote_spanned!(ty_span=> __ct_pattern_param)),
        };
        let doc = match param.doc.to_expr() {
            Some(doc) => quote!(::core::option::Option::Some(#doc)),
            None => quote!(::core::option::Option::None),
        };
        // The receiver spanned at the type too: an error from an inherent dispatch method
        // points at the receiver, which would otherwise be the attribute.
        let slot = quote_spanned!(ty_span=> ::claude_tools::__private::Slot);
        // A model argument whose type looks like another crate's gets a slot whose error names
        // the claude-tools feature it needs (`__private::feature_hints`).
        let hint = match &param.binding {
            Binding::Named(_) => feature_hints::feature_of(ty),
            Binding::Pattern(_) => None,
        };
        let slot_value = match hint {
            Some((feature, inner)) => {
                let feature = Ident::new(feature, ty_span);
                quote_spanned! {ty_span=>
                    #slot::<#alias, #private::Hinted<#private::hint::#feature, #inner>>::HINTED
                }
            }
            None => quote_spanned!(ty_span=> #slot::<#alias>::NEW),
        };
        param_items.push(quote_spanned! {ty_span=>
            type #alias = #ty;
            fn #dispatch() -> #private::Param<#alias> {
                (&&&&#slot_value).#method()
            }
        });
        match &param.default {
            Some(default) => {
                let default_fn = format_ident!("__ct_default_{}", index);
                let value = default.to_expr();
                param_items.push(quote! {
                    fn #default_fn() -> #alias {
                        #value
                    }
                });
                describe_params.push(quote! {
                    #dispatch().describe_defaulted(
                        #name,
                        #doc,
                        (&&#private::DefaultValue(&#default_fn())).__ct_default_json(),
                        &mut __ct_tool,
                    );
                });
                extract_params.push(quote! {
                    let #arg = match #dispatch().extract_present(#name, &mut __ct_call) {
                        ::core::option::Option::Some(result) => result,
                        ::core::option::Option::None => ::core::result::Result::Ok(#default_fn()),
                    };
                });
            }
            None => {
                describe_params.push(quote! {
                    #dispatch().describe(#name, #doc, &mut __ct_tool);
                });
                extract_params.push(quote! {
                    let #arg = #dispatch().extract(#name, &mut __ct_call);
                });
            }
        }
        // After the parameter's property is described: the header marks it.
        if let Some(header) = &param.header {
            describe_params.push(quote! {
                __ct_tool.input().header(#name, #header);
            });
        }
        if let Some(rust_name) = &param.rust_name {
            describe_params.push(quote! {
                __ct_tool.input().rust_name(#name, #rust_name);
            });
        }
        args.push(arg);
    }

    let aliases: Vec<_> = (0..tool.params.len())
        .map(|index| format_ident!("__CtParam{}", index))
        .collect();
    let gate = crate::send_gate::gate(&aliases, fn_ident.span());
    let invoke = if tool.is_async {
        // The fn's own future is checked to be `Send` on its own, spanned at its name, so that a
        // value held across an `.await` that is not `Send` is reported at the fn, once, and the
        // note of the check says what to do; skipped when a parameter is a `State<T>` of a `T`
        // that is not `Send + Sync`, already reported at the parameter (`__private::send_gate`).
        quote_spanned!(fn_ident.span()=> #gate.__ct_send(#fn_ident(#(#args),*)).await)
    } else {
        quote!(#fn_ident(#(#args),*))
    };
    // Every parameter is extracted before any error is reported, so that the model learns of
    // all its mistakes at once; the good path moves the values out, allocating nothing. The
    // parameters are extracted when the handler is called, before its future is made, so that
    // the future holds the values the fn takes, not the whole call (which every move of the
    // future, and the box, would copy). The server catches a panic of an extractor as it
    // catches one of the fn.
    let extract_or_fail = quote! {
        let (#(#args,)*) = {
            #(#extract_params)*
            match (#(#args,)*) {
                (#(::core::result::Result::Ok(#args),)*)
                    if #private::call_is_clean(&__ct_call) => (#(#args,)*),
                (#(#args,)*) => return #private::ready(
                    #private::failed_call(__ct_call, [#(#args.err()),*])
                ),
            }
        };
        ::core::mem::drop(__ct_call);
    };

    // `file!()` and `line!()` of the fn's name: where a build error about the tool points.
    let location = quote_spanned!(fn_ident.span()=> ::core::file!(), ::core::line!());

    let server_info = quote_spanned! {server_span=>
        type __CtServer = #server;
        const __CT_SERVER: #private::ServerInfo = #private::ServerInfo::of::<__CtServer>();
    };
    let output_fns = quote_spanned! {output_span=>
        type __CtOutput = #output;
        const __CT_OUTPUT: #private::ResultFns<__CtOutput> = #private::result_fns::<__CtOutput>();
    };
    // The name, one char per parameter of `RenameOneWithToolNameAttribute` (the rest keep their
    // default), so that a duplicate's error names the tool; see the trait for the first
    // parameter, which is the tool's name type outside the server's crate.
    let name_chars = tool.name.chars().map(|c| LitChar::new(c, name_span));
    let name_checks = quote_spanned! {name_span=>
        impl #private::duplicate_tool_name::RenameOneWithToolNameAttribute<
            <#private::Pick<{ <__CtServer>::__CT_SERVER_CRATE }> as #private::Choose<(), #fn_ident>>::Out,
            #(#name_chars),*
        > for __CtServer {}
        const _: () = ::core::assert!(
            #private::qualified_name_len(__CT_SERVER.name, #name) <= #private::MAX_QUALIFIED_NAME_LEN,
            "{}",
            #private::name_too_long(__CT_SERVER.name, #name).as_str()
        );
    };

    quote! {
        const _: () = {
            #[allow(unused_imports)]
            use #private::{
                DefaultJson as _, NoDefaultJson as _, ViaAnything as _, ViaOptionalArgument as _,
                ViaRequiredArgument as _, ViaToolParam as _,
            };
            #[allow(unused_imports)]
            use #private::ViaDeserializeOnly as _;
            #[allow(unused_imports)]
            use #private::NotTheServerCrate as _;
            #[allow(unused_imports)]
            use #private::{ViaElicitForm as _, ViaNotAnElicitForm as _};
            #[allow(unused_imports)]
            use #private::{
                ViaAllShared as _, ViaNotState as _, ViaSharedState as _, ViaSomeUnshared as _,
                ViaUnsharedState as _,
            };

            #server_info
            #output_fns
            #name_checks
            #tool_ref_impl
            #(#param_items)*

            fn __ct_describe() -> #private::ToolDefBuilder {
                let mut __ct_tool = #private::ToolDefBuilder::new(#name);
                #(#settings)*
                #(#describe_params)*
                __CT_OUTPUT.describe(&mut __ct_tool);
                __ct_tool
            }

            fn __ct_handle(mut __ct_call: #private::ToolCall) -> #private::ToolFuture {
                #extract_or_fail
                #gate.__ct_box(async move { __CT_OUTPUT.convert(#invoke) })
            }

            #private::inventory::submit! {
                #private::ToolRegistration::new(
                    #private::TypeId::of::<__CtServer>,
                    __ct_describe,
                    __ct_handle,
                )
                .at(#location)
            }
        };
    }
}
