//! Hand-rolled parsing of `key = value` / `flag` attribute options, shared by both macros.
//!
//! Parsing only splits the attribute into entries; each macro then interprets them against its
//! own table of options, so an unknown option is reported on its own token with the valid ones.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Ident, Lit, LitBool, LitInt, LitStr, Path, Token};

use crate::errors::Errors;

/// One `key` or `key = value` of an attribute.
pub(crate) struct Entry {
    pub(crate) key: Ident,
    pub(crate) value: Option<Expr>,
}

impl Parse for Entry {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let key = input.call(Ident::parse_any)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse::<Expr>()?)
        } else {
            None
        };
        Ok(Entry { key, value })
    }
}

/// Splits an attribute's arguments into entries.
pub(crate) fn parse_entries(args: TokenStream) -> syn::Result<Vec<Entry>> {
    let entries = Punctuated::<Entry, Token![,]>::parse_terminated.parse2(args)?;
    Ok(entries.into_iter().collect())
}

/// The value kinds options take.
pub(crate) enum Kind {
    /// `key = "text"`.
    Str,
    /// `key` alone (meaning `true`) or `key = true|false`.
    Flag,
    /// `key = 123`.
    Int,
    /// `key = path::To::Type`.
    Path,
    /// `key` alone (meaning `true`), `key = true|false` or `key = "text"`.
    FlagOrStr,
}

/// A parsed option value.
pub(crate) enum Value {
    Str(LitStr),
    Flag(bool, Span),
    Int(LitInt),
    Path(Path),
}

/// Reads `entry` as an option of `kind`; `Err` is the error to report on the value.
pub(crate) fn read(entry: &Entry, kind: &Kind) -> syn::Result<Value> {
    let key = &entry.key;
    match (kind, &entry.value) {
        (Kind::FlagOrStr, None) => Ok(Value::Flag(true, key.span())),
        (
            Kind::FlagOrStr,
            Some(Expr::Lit(ExprLit {
                lit: Lit::Bool(LitBool { value, span }),
                ..
            })),
        ) => Ok(Value::Flag(*value, *span)),
        (
            Kind::FlagOrStr,
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            })),
        ) => Ok(Value::Str(lit.clone())),
        (Kind::FlagOrStr, Some(other)) => Err(syn::Error::new(
            other.span(),
            format!("write `{key}`, `{key} = false` or `{key} = \"...\"`"),
        )),
        (Kind::Flag, None) => Ok(Value::Flag(true, key.span())),
        (
            Kind::Flag,
            Some(Expr::Lit(ExprLit {
                lit: Lit::Bool(LitBool { value, span }),
                ..
            })),
        ) => Ok(Value::Flag(*value, *span)),
        (Kind::Flag, Some(other)) => Err(syn::Error::new(
            other.span(),
            format!("`{key}` is a flag: write `{key}` or `{key} = true` / `{key} = false`"),
        )),
        (
            Kind::Str,
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            })),
        ) => Ok(Value::Str(lit.clone())),
        (Kind::Str, Some(other)) => Err(syn::Error::new(
            other.span(),
            format!("`{key}` takes a string literal: `{key} = \"...\"`"),
        )),
        (
            Kind::Int,
            Some(Expr::Lit(ExprLit {
                lit: Lit::Int(lit), ..
            })),
        ) => Ok(Value::Int(lit.clone())),
        (Kind::Int, Some(other)) => Err(syn::Error::new(
            other.span(),
            format!("`{key}` takes an integer literal: `{key} = 100000`"),
        )),
        (Kind::Path, Some(Expr::Path(path))) if path.qself.is_none() && path.attrs.is_empty() => {
            Ok(Value::Path(path.path.clone()))
        }
        (
            Kind::Path,
            Some(Expr::Lit(ExprLit {
                lit: Lit::Str(lit), ..
            })),
        ) => Err(syn::Error::new(
            lit.span(),
            format!(
                "`{key}` takes a type path, not a string: `{key} = {}`",
                lit.value()
            ),
        )),
        (Kind::Path, Some(other)) => Err(syn::Error::new(
            other.span(),
            format!("`{key}` takes a type path: `{key} = MyServer`"),
        )),
        (Kind::Str, None) => Err(syn::Error::new(
            key.span(),
            format!("`{key}` needs a value: `{key} = \"...\"`"),
        )),
        (Kind::Int, None) => Err(syn::Error::new(
            key.span(),
            format!("`{key}` needs a value: `{key} = 100000`"),
        )),
        (Kind::Path, None) => Err(syn::Error::new(
            key.span(),
            format!("`{key}` needs a value: `{key} = MyServer`"),
        )),
    }
}

/// Interprets `entries` against `table` (option name → kind), calling `set` for each valid one.
/// Unknown and repeated options and ill-typed values are recorded in `errors`. Returns the
/// known options that were given, valid or not (so that an ill-typed required option is not
/// also reported as missing).
pub(crate) fn interpret(
    entries: &[Entry],
    table: &[(&str, Kind)],
    errors: &mut Errors,
    mut set: impl FnMut(&str, Value),
) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for entry in entries {
        let key = entry.key.unraw().to_string();
        let Some((name, kind)) = table.iter().find(|(name, _)| *name == key) else {
            let valid: Vec<String> = table.iter().map(|(name, _)| format!("`{name}`")).collect();
            errors.push(syn::Error::new(
                entry.key.span(),
                format!(
                    "unknown option `{key}`; the options are {}",
                    valid.join(", ")
                ),
            ));
            continue;
        };
        if seen.contains(&key) {
            errors.push(syn::Error::new(
                entry.key.span(),
                format!("option `{key}` is given twice: keep one"),
            ));
            continue;
        }
        seen.push(key);
        match read(entry, kind) {
            Ok(value) => set(name, value),
            Err(error) => errors.push(error),
        }
    }
    seen
}
