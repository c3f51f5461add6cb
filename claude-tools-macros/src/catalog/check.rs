//! Checking a `#[prompt]` or `#[resource]` fn: its server, its shape, its parameters (named,
//! documented), its completers, and a resource's URI template against its parameters.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Attribute, FnArg, Ident, ItemFn, LitStr, Pat, Path, ReturnType, Token, Type};

use super::Kind;
use super::parse::{Completer, Options};
use crate::docs::{self, Doc};
use crate::errors::Errors;

/// Lints rustc accepts on a parameter: left on the emitted fn.
const LINTS: &[&str] = &["allow", "warn", "deny", "forbid", "expect"];

/// One parameter: how it is bound, its name (the argument's or variable's: the Rust name,
/// unless renamed; an extractor's, the name handed to it), its type, its doc.
pub(super) struct Param {
    pub(super) binding: Binding,
    pub(super) name: String,
    pub(super) ty: Type,
    pub(super) doc: Doc,
}

/// How a parameter is bound. Whether it is an extractor or an argument (a variable) is decided
/// by its type, as a `#[tool]` parameter's is (`ToolParam`), except that a resource's
/// parameter named after a variable of its URI template is that variable.
pub(super) enum Binding {
    /// `name: Type`: an extractor, or an argument (a variable) of that name.
    Named(Ident),
    /// A pattern (`State(db): State<Db>`): only an extractor may be written so.
    Pattern,
}

/// Everything the expansion needs.
pub(super) struct Item {
    pub(super) server: Path,
    pub(super) name: LitStr,
    pub(super) title: Option<LitStr>,
    pub(super) description: Option<proc_macro2::TokenStream>,
    pub(super) uri: Option<LitStr>,
    pub(super) mime_type: Option<LitStr>,
    pub(super) params: Vec<Param>,
    /// A resource's URI template's variables (none for a prompt or a fixed resource).
    pub(super) variables: Vec<String>,
    pub(super) completers: Vec<Completer>,
    pub(super) output: Type,
    pub(super) is_async: bool,
    /// The form types of the body's `elicit::<T>()` calls the registration can name.
    pub(super) elicited: Vec<Type>,
}

/// What the attributes of one parameter say.
pub(super) struct ParamAttrs {
    doc: Doc,
    /// A prompt argument's wire name, when it is not the Rust name.
    rename: Option<LitStr>,
}

/// Takes the attributes off the parameters: doc comments are kept as descriptions, a prompt
/// argument's `#[serde(rename = "..")]` or `#[arg(rename = "..")]` (as on a tool parameter)
/// names the argument, lints stay on the fn, anything else is an error.
pub(super) fn strip_param_attrs(
    kind: Kind,
    function: &mut ItemFn,
    errors: &mut Errors,
) -> Vec<ParamAttrs> {
    function
        .sig
        .inputs
        .iter_mut()
        .map(|input| {
            let attrs = match input {
                FnArg::Receiver(receiver) => &mut receiver.attrs,
                FnArg::Typed(typed) => &mut typed.attrs,
            };
            let doc = Doc::from_attrs(attrs);
            let mut rename = None;
            for attr in attrs.iter() {
                let path = attr.path();
                if kind == Kind::Prompt && (path.is_ident("serde") || path.is_ident("arg")) {
                    parse_rename(attr, &mut rename, errors);
                } else if !docs::is_doc(attr) && !LINTS.iter().any(|lint| path.is_ident(lint)) {
                    let name = path.to_token_stream().to_string().replace(' ', "");
                    errors.push(syn::Error::new(
                        path.span(),
                        format!(
                            "unsupported attribute `#[{name}]` on a {}: it takes doc comments \
                             (its description){} and lint attributes (#[allow(..)])",
                            kind.parameter(),
                            if kind == Kind::Prompt {
                                ", #[serde(rename = \"name\")] or #[arg(rename = \"name\")]"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            }
            attrs.retain(|attr| LINTS.iter().any(|lint| attr.path().is_ident(lint)));
            ParamAttrs { doc, rename }
        })
        .collect()
}

/// A prompt argument's `#[serde(rename = "name")]` or `#[arg(rename = "name")]`, the spelling a
/// tool parameter takes; anything else in them is an error that says what is taken.
fn parse_rename(attr: &Attribute, rename: &mut Option<LitStr>, errors: &mut Errors) {
    let outer = if attr.path().is_ident("serde") {
        "serde"
    } else {
        "arg"
    };
    let result = attr.parse_nested_meta(|meta| {
        if !meta.path.is_ident("rename") {
            let key = meta.path.to_token_stream().to_string();
            return Err(meta.error(format!(
                "unsupported `#[{outer}({key})]` on a prompt argument: it takes \
                 #[{outer}(rename = \"name\")] (a prompt argument is a string the client may \
                 leave out only when its type is an Option)"
            )));
        }
        if !meta.input.peek(Token![=]) {
            return Err(
                meta.error("`rename` takes the argument's name as a string: `rename = \"name\"`")
            );
        }
        let lit: LitStr = meta
            .value()?
            .parse()
            .map_err(|_| meta.error("`rename` takes a string: `rename = \"name\"`"))?;
        if lit.value().is_empty() {
            return Err(syn::Error::new(
                lit.span(),
                "a prompt argument's name must not be empty",
            ));
        }
        if rename.is_some() {
            return Err(meta.error("the rename is given twice: keep one"));
        }
        *rename = Some(lit);
        Ok(())
    });
    if let Err(error) = result {
        errors.push(error);
    }
}

pub(super) fn validate(
    kind: Kind,
    function: &ItemFn,
    options: Options,
    attrs: Vec<ParamAttrs>,
    errors: &mut Errors,
) -> Option<Item> {
    let attribute = kind.attribute();
    let sig = &function.sig;
    if options.server.is_none() && !options.given.iter().any(|key| key == "server") {
        errors.push(syn::Error::new(
            Span::call_site(),
            format!(
                "#[{attribute}] needs its server: `#[{attribute}(server = MyServer, ..)]`, naming a \
                 struct marked #[tool_server(name = \"...\")]"
            ),
        ));
    }
    if kind == Kind::Resource
        && options.uri.is_none()
        && !options.given.iter().any(|key| key == "uri")
    {
        errors.push(syn::Error::new(
            Span::call_site(),
            "#[resource] needs its URI: `uri = \"units://table\"` for a fixed resource, or a \
             template with variables named after the fn's parameters, `uri = \"tickets://{id}\"`",
        ));
    }
    if let Some(unsafety) = &sig.unsafety {
        errors.push(syn::Error::new(
            unsafety.span(),
            format!("a #[{attribute}] fn cannot be `unsafe`: the server calls it with no safety contract"),
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
            format!(
                "a #[{attribute}] fn cannot be generic: each parameter is an extractor or a {} \
                 of one concrete type",
                kind.parameter()
            ),
        ));
    }

    let mut params = Vec::new();
    for (input, ParamAttrs { doc, rename }) in sig.inputs.iter().zip(attrs) {
        match input {
            FnArg::Receiver(receiver) => errors.push(syn::Error::new(
                receiver.self_token.span,
                format!("a #[{attribute}] fn cannot take `self`: it is a free fn"),
            )),
            FnArg::Typed(typed) => match &*typed.pat {
                Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => {
                    let (name, name_span) = match &rename {
                        Some(rename) => (rename.value(), rename.span()),
                        None => (crate::tool::unraw(&pat.ident), pat.ident.span()),
                    };
                    if let Some(first) = params.iter().find(|param: &&Param| param.name == name) {
                        let first = match &first.binding {
                            Binding::Named(ident) => ident.to_string(),
                            Binding::Pattern => first.name.clone(),
                        };
                        errors.push(syn::Error::new(
                            name_span,
                            format!(
                                "two parameters are called `{name}` (`{first}` and `{}`): \
                                 rename one",
                                pat.ident
                            ),
                        ));
                    }
                    params.push(Param {
                        binding: Binding::Named(pat.ident.clone()),
                        name,
                        ty: (*typed.ty).clone(),
                        doc,
                    });
                }
                pattern => {
                    if let Some(rename) = &rename {
                        errors.push(syn::Error::new(
                            rename.span(),
                            "a parameter written as a pattern is an extractor, filled in by the \
                             server, so it takes no rename: a rename applies only to a \
                             `name: Type` argument the client fills in",
                        ));
                    }
                    params.push(Param {
                        binding: Binding::Pattern,
                        name: crate::tool::extractor_name(pattern),
                        ty: (*typed.ty).clone(),
                        doc,
                    });
                }
            },
        }
    }

    let variables = match (kind, &options.uri) {
        (Kind::Resource, Some(uri)) => check_template(uri, &params, errors),
        _ => Vec::new(),
    };

    for completer in &options.completers {
        let argument = crate::tool::unraw(&completer.argument);
        if param_of(&params, &argument).is_none() {
            // The parameters a completer may complete: those named (a pattern is an extractor).
            let known: Vec<String> = params
                .iter()
                .filter(|param| matches!(param.binding, Binding::Named(_)))
                .map(|param| format!("`{}`", param.name))
                .collect();
            errors.push(syn::Error::new(
                completer.argument.span(),
                format!(
                    "`{argument}` is not a {} of this fn; {}",
                    kind.parameter(),
                    if known.is_empty() {
                        "it has none".to_string()
                    } else {
                        format!("its parameters are {}", known.join(", "))
                    }
                ),
            ));
        }
    }

    let output = match &sig.output {
        ReturnType::Default => syn::parse_quote!(()),
        ReturnType::Type(_, ty) => {
            if let Some(span) = crate::param_types::find_impl_trait(ty) {
                errors.push(syn::Error::new(
                    span,
                    format!(
                        "a #[{attribute}] fn must name its return type: `impl Trait` cannot be \
                         checked; return a concrete type such as String"
                    ),
                ));
            }
            (**ty).clone()
        }
    };

    let name = options
        .name
        .clone()
        .unwrap_or_else(|| LitStr::new(&crate::tool::unraw(&sig.ident), sig.ident.span()));
    if name.value().is_empty() {
        errors.push(syn::Error::new(name.span(), "the name must not be empty"));
    }
    let description = docs::tool_description(
        options.description.as_ref(),
        &Doc::from_attrs(&function.attrs),
        false,
    );
    // A `T` of `elicit::<T>()` that is syntactically not a form is a compile error here; any
    // other is recorded on the prompt or resource, so that adding it to the server checks it.
    let elicited = crate::elicit_forms::find(&function.block, errors);

    Some(Item {
        server: options.server?,
        name,
        title: options.title,
        description,
        uri: options.uri,
        mime_type: options.mime_type,
        params,
        variables,
        completers: options.completers,
        output,
        is_async: sig.asyncness.is_some(),
        elicited,
    })
}

/// The parameter a `complete(arg = ..)` names: by its Rust name, or by its argument's name when
/// renamed.
pub(super) fn param_of<'a>(params: &'a [Param], argument: &str) -> Option<&'a Param> {
    params
        .iter()
        .find(|param| matches!(&param.binding, Binding::Named(ident) if crate::tool::unraw(ident) == argument))
        .or_else(|| params.iter().find(|param| param.name == argument))
}

/// The variables of a URI template (level 1) against the fn's parameters: each variable is a
/// `name: Type` parameter of its name. A parameter named after no variable is an extractor, which
/// its type must say (checked by trait in the expansion). A malformed template is reported at
/// its literal.
fn check_template(uri: &LitStr, params: &[Param], errors: &mut Errors) -> Vec<String> {
    let variables = match template_variables(&uri.value()) {
        Ok(variables) => variables,
        Err(problem) => {
            errors.push(syn::Error::new(uri.span(), problem));
            return Vec::new();
        }
    };
    for variable in &variables {
        match params.iter().find(|param| param.name == *variable) {
            Some(Param {
                binding: Binding::Named(_),
                ..
            }) => {}
            Some(param) => errors.push(syn::Error::new_spanned(
                &param.ty,
                format!(
                    "the URI template's variable `{{{variable}}}` is bound by a pattern, which only \
                     an extractor may be: write `{variable}: T` (T parsed from the URI, e.g. String \
                     or u32)"
                ),
            )),
            None => errors.push(syn::Error::new(
                uri.span(),
                format!(
                    "the URI template's variable `{{{variable}}}` has no parameter: add \
                     `{variable}: T` to the fn (T parsed from the URI, e.g. String or u32); the \
                     fn's other parameters are extractors (State<T>, ToolContext, Extension<T>)"
                ),
            )),
        }
    }
    variables
}

/// The variables of a level-1 URI template, or why it is not one.
fn template_variables(text: &str) -> Result<Vec<String>, String> {
    let mut variables = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            return Err(format!(
                "the URI template `{text}` has a `}}` without its `{{`"
            ));
        }
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(format!(
                "the URI template `{text}` has a `{{` without its `}}`"
            ));
        };
        let name = &after[..close];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "the URI template `{text}` has `{{{name}}}`: only level-1 variables are \
                 supported, `{{name}}` with a name of ASCII letters, digits and `_` (no \
                 operators such as `+` or `?`, no modifiers)"
            ));
        }
        if variables.iter().any(|known| known == name) {
            return Err(format!(
                "the URI template `{text}` has the variable `{{{name}}}` twice"
            ));
        }
        variables.push(name.to_string());
        rest = &after[close + 1..];
    }
    Ok(variables)
}
