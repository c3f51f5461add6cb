//! `#[tool]`: parse → validate → expand.
//!
//! The user's fn is always emitted (minus the doc comments on its parameters, which rustc would
//! reject); the registration is emitted only when no error was found, so that one mistake gives
//! one error.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, LitChar, LitInt, LitStr, Pat, Path, ReturnType, Type};

use crate::attr::{self, Kind, Value};
use crate::docs::{self, Doc};
use crate::errors::Errors;
use crate::feature_hints;
use crate::names;
use crate::param_attrs::{self, Default, ParamAttrs};
use crate::{param_types, warnings};

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
];

/// The options of one `#[tool(...)]`.
#[derive(Default)]
struct ToolArgs {
    server: Option<Path>,
    name: Option<LitStr>,
    description: Option<LitStr>,
    /// Send the whole doc comment, not only its prose (see `docs::tool_description`).
    full_doc: bool,
    title: Option<LitStr>,
    /// `(builder method, value)` for the four MCP annotations, in the order given.
    annotations: Vec<(Ident, bool)>,
    max_result_chars: Option<LitInt>,
    always_load: Option<bool>,
    search_hint: Option<LitStr>,
    deny_unknown_arguments: Option<bool>,
}

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
    doc: Doc,
    /// What the parameter takes when the model leaves it out.
    default: Option<Default>,
    /// It has a default or a rename, so it must be a model argument.
    argument_only: bool,
    /// The Rust name of a renamed parameter, which a call must not send (see
    /// `InputSchemaBuilder::rust_name`).
    rust_name: Option<String>,
}

/// Everything the expansion needs.
pub(crate) struct Tool {
    args: ToolArgs,
    server: Path,
    /// The tool name and the span its errors point at.
    pub(crate) name: String,
    name_span: Span,
    pub(crate) description: Option<TokenStream>,
    pub(crate) params: Vec<Param>,
    /// The declared return type (`()` when there is none).
    output: Type,
    is_async: bool,
}

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

    let mut parsed = ToolArgs::default();
    let mut given = Vec::new();
    match attr::parse_entries(args) {
        Ok(entries) => {
            given = attr::interpret(&entries, OPTIONS, &mut errors, |key, value| {
                match (key, value) {
                    ("server", Value::Path(path)) => parsed.server = Some(path),
                    ("name", Value::Str(lit)) => parsed.name = Some(lit),
                    ("description", Value::Str(lit)) => parsed.description = Some(lit),
                    ("full_doc", Value::Flag(value, _)) => parsed.full_doc = value,
                    ("title", Value::Str(lit)) => parsed.title = Some(lit),
                    (
                        "read_only" | "destructive" | "idempotent" | "open_world",
                        Value::Flag(v, s),
                    ) => {
                        parsed.annotations.push((Ident::new(key, s), v));
                    }
                    ("max_result_chars", Value::Int(lit)) => parsed.max_result_chars = Some(lit),
                    ("always_load", Value::Flag(value, _)) => parsed.always_load = Some(value),
                    ("search_hint", Value::Str(lit)) => parsed.search_hint = Some(lit),
                    ("deny_unknown_arguments", Value::Flag(value, _)) => {
                        parsed.deny_unknown_arguments = Some(value);
                    }
                    _ => {}
                }
            })
        }
        Err(error) => {
            // A syntax error: do not also report the options it hid as missing.
            given.push("server".to_string());
            errors.push(error);
        }
    }

    let tool = validate(&function, parsed, &given, param_attrs, &mut errors);
    match tool {
        Some(tool) if errors.is_empty() => {
            let registration = expand_registration(&function, &tool);
            let tool_ref = expand_tool_ref_type(&function);
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

fn validate(
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
                                 the server, so it takes no default and no rename: these apply \
                                 only to `name: Type` parameters the model fills in",
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

    Some(Tool {
        server: server?,
        name,
        name_span,
        description,
        params,
        output,
        is_async: sig.asyncness.is_some(),
        args,
    })
}

/// `r#type` → `type`.
fn unraw(ident: &Ident) -> String {
    let name = ident.to_string();
    match name.strip_prefix("r#") {
        Some(stripped) => stripped.to_string(),
        None => name,
    }
}

/// The name handed to an extractor bound by a pattern: the single binding of `Wrapper(binding)`,
/// or `_`.
fn extractor_name(pattern: &Pat) -> String {
    if let Pat::TupleStruct(tuple) = pattern
        && tuple.elems.len() == 1
        && let Some(Pat::Ident(inner)) = tuple.elems.first()
    {
        return unraw(&inner.ident);
    }
    "_".to_string()
}

fn expand_registration(function: &ItemFn, tool: &Tool) -> TokenStream {
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
    let tool_ref_impl = expand_tool_ref_impl(function, tool);

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
        if let Some(rust_name) = &param.rust_name {
            describe_params.push(quote! {
                __ct_tool.input().rust_name(#name, #rust_name);
            });
        }
        args.push(arg);
    }

    let invoke = if tool.is_async {
        // The fn's own future is checked to be `Send` on its own, spanned at its name, so that a
        // value held across an `.await` that is not `Send` is reported at the fn, once, and the
        // note of the check says what to do (see `tool_future_is_send`).
        let is_send =
            quote_spanned!(fn_ident.span()=> ::claude_tools::__private::tool_future_is_send);
        quote_spanned!(fn_ident.span()=> #is_send(#fn_ident(#(#args),*)).await)
    } else {
        quote!(#fn_ident(#(#args),*))
    };
    // Every parameter is extracted before any error is reported, so that the model learns of
    // all its mistakes at once; the good path moves the values out, allocating nothing. The
    // block ends the `Result`s' scope before the handler runs, so that the call's future does
    // not keep room for them across the handler's `.await`.
    let call_or_fail = quote! {
        let (#(#args,)*) = {
            #(#extract_params)*
            match (#(#args,)*) {
                (#(::core::result::Result::Ok(#args),)*)
                    if #private::call_is_clean(&__ct_call) => (#(#args,)*),
                (#(#args,)*) => return #private::failed_call(__ct_call, [#(#args.err()),*]),
            }
        };
        ::core::mem::drop(__ct_call);
        __CT_OUTPUT.convert(#invoke)
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
                #private::call_future(async move {
                    #call_or_fail
                })
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

/// The tool's name as a type: a braced struct named after the fn (type namespace only, so it
/// does not clash with the fn), with the fn's visibility, so that `Options::allow::<my_tool>()`
/// and `my_tool::QUALIFIED` are checked by the compiler.
fn expand_tool_ref_type(function: &ItemFn) -> TokenStream {
    let vis = &function.vis;
    let fn_ident = &function.sig.ident;
    let doc = format!(
        "The name of the tool of fn `{}`, checked by the compiler: `Options::allow::<{}>()`, \
         `{}::QUALIFIED` (see `claude_tools::ToolRef`).",
        unraw(fn_ident),
        fn_ident,
        fn_ident,
    );
    quote_spanned! {fn_ident.span()=>
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fn_ident {}
    }
}

/// The `ToolRef` impl of the marker type, inside the registration's `const _` block: it reads
/// the server's name from `__CT_SERVER`, so a bad `server = ...` is still reported once.
fn expand_tool_ref_impl(function: &ItemFn, tool: &Tool) -> TokenStream {
    let private = quote!(::claude_tools::__private);
    let fn_ident = &function.sig.ident;
    let name = LitStr::new(&tool.name, tool.name_span);
    quote_spanned! {fn_ident.span()=>
        const __CT_QUALIFIED_LEN: usize = #private::qualified_name_len(__CT_SERVER.name, #name);
        const __CT_QUALIFIED: [u8; __CT_QUALIFIED_LEN] =
            #private::qualified_name_bytes::<__CT_QUALIFIED_LEN>(__CT_SERVER.name, #name);

        impl #private::ToolRef for #fn_ident {
            const NAME: &'static str = #name;
            const SERVER: &'static str = __CT_SERVER.name;
            const QUALIFIED: &'static str = #private::qualified_name_str(&__CT_QUALIFIED);
        }
    }
}
