//! Doc comments → descriptions.
//!
//! `/// text` lines arrive as `#[doc = " text"]`; a description is their lines joined with `\n`,
//! with the indentation common to all non-blank lines removed (the space after `///`, or the
//! margin of a `/** ... */` block), trailing whitespace trimmed, and leading and trailing blank
//! lines dropped. Paragraphs and Markdown are kept as written: the model reads them as they are.
//! A `#[doc = some_macro!(..)]` that is not a literal is concatenated verbatim with `concat!`.
//!
//! What reaches the model is decided at run time by `schema::doc_description` (sections from the
//! first heading, Rust code blocks and link syntax left out), the one rule for tool, parameter,
//! field and variant docs: parameter docs go through it in the input schema, and the tool's doc
//! through [`tool_description`].

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta};

/// A description gathered from doc attributes.
pub(crate) enum Doc {
    /// No doc comments.
    None,
    /// Literal doc comments, joined.
    Text(String),
    /// At least one doc attribute is an expression: `concat!` them at compile time.
    Concat(Vec<TokenStream>),
}

impl Doc {
    /// Reads the `#[doc]` attributes among `attrs`.
    pub(crate) fn from_attrs(attrs: &[Attribute]) -> Doc {
        let mut parts: Vec<DocPart> = Vec::new();
        for attr in attrs {
            if !attr.path().is_ident("doc") {
                continue;
            }
            if let Meta::NameValue(nv) = &attr.meta {
                match &nv.value {
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(lit), ..
                    }) => parts.push(DocPart::Text(lit.value())),
                    other => parts.push(DocPart::Expr(quote!(#other))),
                }
            }
        }
        if parts.is_empty() {
            return Doc::None;
        }
        if parts.iter().all(|part| matches!(part, DocPart::Text(_))) {
            let lines: Vec<String> = parts
                .into_iter()
                .filter_map(|part| match part {
                    DocPart::Text(text) => Some(text),
                    DocPart::Expr(_) => None,
                })
                .collect();
            let text = join_lines(&lines);
            if text.is_empty() {
                Doc::None
            } else {
                Doc::Text(text)
            }
        } else {
            let mut pieces = Vec::new();
            for (i, part) in parts.into_iter().enumerate() {
                if i > 0 {
                    pieces.push(quote!("\n"));
                }
                pieces.push(match part {
                    DocPart::Text(text) => quote!(#text),
                    DocPart::Expr(expr) => expr,
                });
            }
            Doc::Concat(pieces)
        }
    }

    /// The doc's first line when it is a Markdown heading (`# Examples`), so that the doc has
    /// no prose before its first section.
    pub(crate) fn leading_heading(&self) -> Option<&str> {
        let Doc::Text(text) = self else {
            return None;
        };
        let first = text.lines().next().unwrap_or("").trim_start();
        let hashes = first.chars().take_while(|c| *c == '#').count();
        let is_heading = (1..=6).contains(&hashes)
            && first[hashes..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace);
        is_heading.then_some(first)
    }

    /// The description as an expression of type `&'static str`, if there is one.
    pub(crate) fn to_expr(&self) -> Option<TokenStream> {
        match self {
            Doc::None => None,
            Doc::Text(text) => Some(quote!(#text)),
            Doc::Concat(pieces) => Some(quote!(::core::concat!(#(#pieces),*))),
        }
    }
}

/// The tool description as an expression of a type `ToolDefBuilder::description` takes:
/// `description = "..."` as written; otherwise the doc comment, whole with `full_doc`, or as
/// `doc_description` makes it (the default).
pub(crate) fn tool_description(
    attribute: Option<&LitStr>,
    doc: &Doc,
    full_doc: bool,
) -> Option<TokenStream> {
    if let Some(lit) = attribute {
        return Some(lit.to_token_stream());
    }
    if !full_doc && doc.leading_heading().is_some() {
        // Nothing before the first section: the model would get no description.
        return None;
    }
    let doc = doc.to_expr()?;
    Some(if full_doc {
        doc
    } else {
        quote!(::claude_tools::__private::doc_description(#doc))
    })
}

/// A warning at `span` that tool `name`, whose fn's doc comment is `doc`, sends no description.
/// A stable proc macro cannot emit a warning itself, so this uses a deprecated item: rustc prints
/// its note where it is used. `lints` are the fn's lint attributes for it ([`Lints`]).
pub(crate) fn missing_description_warning(
    name: &str,
    doc: &Doc,
    span: Span,
    lints: TokenStream,
) -> TokenStream {
    let note = match doc.leading_heading() {
        Some(heading) => format!(
            "tool `{name}` sends no description, so the model sees only its name: its doc comment \
             starts with the heading `{heading}`, and a tool's description is the prose before \
             the first heading; put a summary line saying what the tool does and when to use it \
             above `{heading}`, or set #[tool(full_doc)] to send the whole doc comment"
        ),
        None => format!(
            "tool `{name}` has no description, so the model sees only its name: add a `///` doc \
             comment on the fn saying what the tool does and when to use it, or set \
             #[tool(description = \"...\")]"
        ),
    };
    quote_spanned! {span=>
        #lints
        const _: () = {
            #[deprecated(note = #note)]
            #[allow(non_upper_case_globals)]
            const tool_without_description: () = ();
            tool_without_description
        };
    }
}

/// The lint attributes of a tool fn, for the warnings `#[tool]` raises about it (a missing
/// description, a `'static` parameter), so that `#[allow(deprecated)]` (or `deny`, `expect`…) on
/// the fn silences or raises them as it would a warning of the fn's own.
#[derive(Default)]
pub(crate) struct Lints {
    /// `allow`, `warn`, `deny` and `forbid`, copied whole to every warning.
    pub(crate) copied: Vec<TokenStream>,
    /// `#[expect(deprecated)]` (with its reason), for the first warning.
    pub(crate) expect: Option<TokenStream>,
}

impl Lints {
    /// The attributes of warning number `index` (from 0).
    pub(crate) fn for_warning(&self, index: usize) -> TokenStream {
        let copied = &self.copied;
        let expect = self.expect.as_ref().filter(|_| index == 0);
        quote!(#(#copied)* #expect)
    }
}

/// Reads the fn's lint attributes (see [`Lints`]). An `#[expect(..)]` naming `deprecated` moves
/// that expectation to the first warning, and the fn keeps `#[allow(deprecated)]` (and its other
/// expectations): left on the fn, the expectation would go unfulfilled, the warning being
/// raised in another item.
pub(crate) fn take_lints(attrs: &mut Vec<Attribute>) -> Lints {
    use syn::punctuated::Punctuated;
    let mut lints = Lints::default();
    let mut kept = Vec::with_capacity(attrs.len());
    for attr in attrs.drain(..) {
        let path = attr.path();
        if ["allow", "warn", "deny", "forbid"]
            .iter()
            .any(|lint| path.is_ident(lint))
        {
            lints.copied.push(attr.to_token_stream());
        } else if path.is_ident("expect")
            && lints.expect.is_none()
            && let Ok(list) =
                attr.parse_args_with(Punctuated::<Meta, syn::Token![,]>::parse_terminated)
            && list.iter().any(|meta| meta.path().is_ident("deprecated"))
        {
            let reason: Vec<&Meta> = list
                .iter()
                .filter(|meta| meta.path().is_ident("reason"))
                .collect();
            lints.expect = Some(quote!(#[expect(deprecated #(, #reason)*)]));
            kept.push(syn::parse_quote!(#[allow(deprecated)]));
            let others: Vec<&Meta> = list
                .iter()
                .filter(|meta| !meta.path().is_ident("deprecated"))
                .collect();
            if others.iter().any(|meta| !meta.path().is_ident("reason")) {
                kept.push(syn::parse_quote!(#[expect(#(#others),*)]));
            }
            continue;
        }
        kept.push(attr);
    }
    *attrs = kept;
    lints
}

enum DocPart {
    Text(String),
    Expr(TokenStream),
}

/// Joins doc lines into one description (see the module docs).
pub(crate) fn join_lines(parts: &[String]) -> String {
    let lines: Vec<&str> = parts
        .iter()
        .flat_map(|part| part.split('\n'))
        .map(str::trim_end)
        .collect();
    let indent = lines
        .iter()
        .filter(|line| !line.is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = lines
        .iter()
        .map(|line| line.get(indent..).unwrap_or(""))
        .collect();
    let start = lines.iter().position(|line| !line.is_empty());
    let end = lines.iter().rposition(|line| !line.is_empty());
    match (start, end) {
        (Some(start), Some(end)) => lines[start..=end].join("\n"),
        _ => String::new(),
    }
}

/// Whether `attr` is a doc attribute (`///` or `#[doc = ...]`).
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

#[cfg(test)]
mod tests {
    use super::join_lines;

    fn join(lines: &[&str]) -> String {
        join_lines(
            &lines
                .iter()
                .map(|line| line.to_string())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn keeps_paragraphs_and_removes_the_common_margin() {
        // `/// Summary.`, `///`, `/// Detail`, `///     indented`
        assert_eq!(
            join(&[" Summary.", "", " Detail", "     indented"]),
            "Summary.\n\nDetail\n    indented"
        );
        // A `/** ... */` block arrives as one attribute with newlines.
        assert_eq!(
            join(&["\n   First line\n\n   Second  \n   "]),
            "First line\n\nSecond"
        );
        assert_eq!(join(&["", "   ", ""]), "");
    }
}
