//! The options of `#[prompt(...)]` and `#[resource(...)]`.

use proc_macro2::TokenStream;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Ident, LitStr, Path, Token};

use super::Kind;
use crate::attr::{self, Entry, Kind as ValueKind, Value};
use crate::errors::Errors;

const PROMPT_OPTIONS: &[(&str, ValueKind)] = &[
    ("server", ValueKind::Path),
    ("name", ValueKind::Str),
    ("title", ValueKind::Str),
    ("description", ValueKind::Str),
];

const RESOURCE_OPTIONS: &[(&str, ValueKind)] = &[
    ("server", ValueKind::Path),
    ("uri", ValueKind::Str),
    ("name", ValueKind::Str),
    ("title", ValueKind::Str),
    ("description", ValueKind::Str),
    ("mime_type", ValueKind::Str),
];

/// One `arg = completer` of `complete(...)`.
pub(super) struct Completer {
    pub(super) argument: Ident,
    pub(super) path: Path,
}

/// The options given.
#[derive(Default)]
pub(super) struct Options {
    pub(super) server: Option<Path>,
    pub(super) name: Option<LitStr>,
    pub(super) title: Option<LitStr>,
    pub(super) description: Option<LitStr>,
    pub(super) uri: Option<LitStr>,
    pub(super) mime_type: Option<LitStr>,
    pub(super) completers: Vec<Completer>,
    /// The keys given (valid or not), so that an ill-typed required one is not also missing.
    pub(super) given: Vec<String>,
}

/// An entry, or `complete(...)`.
enum Item {
    Entry(Entry),
    Complete(Ident, Vec<Entry>),
}

impl Parse for Item {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.peek(Ident::peek_any) && input.peek2(syn::token::Paren) {
            let key = input.call(Ident::parse_any)?;
            let content;
            syn::parenthesized!(content in input);
            let entries = Punctuated::<Entry, Token![,]>::parse_terminated(&content)?;
            return Ok(Item::Complete(key, entries.into_iter().collect()));
        }
        Ok(Item::Entry(input.parse()?))
    }
}

pub(super) fn options(kind: Kind, args: TokenStream, errors: &mut Errors) -> Options {
    let mut options = Options::default();
    let items = match Punctuated::<Item, Token![,]>::parse_terminated.parse2(args) {
        Ok(items) => items,
        Err(error) => {
            // A syntax error: do not also report the options it hid as missing.
            options.given = vec!["server".into(), "uri".into()];
            errors.push(error);
            return options;
        }
    };
    let mut entries = Vec::new();
    for item in items {
        match item {
            Item::Entry(entry) => entries.push(entry),
            Item::Complete(key, completers) if key == "complete" => {
                for completer in completers {
                    match completer.value {
                        Some(syn::Expr::Path(path)) if path.qself.is_none() => {
                            options.completers.push(Completer {
                                argument: completer.key,
                                path: path.path,
                            });
                        }
                        _ => errors.push(syn::Error::new(
                            completer.key.span(),
                            format!(
                                "`complete` takes `argument = completer_fn`: the fn named gets \
                                 what the user typed (`&str`), and optionally the arguments \
                                 already filled in (`&CompletionContext`), and returns the \
                                 values, e.g. `complete({} = {}_values)`",
                                completer.key, completer.key
                            ),
                        )),
                    }
                }
            }
            Item::Complete(key, _) => errors.push(syn::Error::new(
                key.span(),
                format!("unknown option `{key}(..)`; the only option with a list is `complete(argument = completer_fn)`"),
            )),
        }
    }
    let table = match kind {
        Kind::Prompt => PROMPT_OPTIONS,
        Kind::Resource => RESOURCE_OPTIONS,
    };
    let given = attr::interpret(&entries, table, errors, |key, value| match (key, value) {
        ("server", Value::Path(path)) => options.server = Some(path),
        ("name", Value::Str(lit)) => options.name = Some(lit),
        ("title", Value::Str(lit)) => options.title = Some(lit),
        ("description", Value::Str(lit)) => options.description = Some(lit),
        ("uri", Value::Str(lit)) => options.uri = Some(lit),
        ("mime_type", Value::Str(lit)) => options.mime_type = Some(lit),
        _ => {}
    });
    options.given = given;
    options
}
