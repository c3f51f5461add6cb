//! The Rust names of a struct's renamed fields, for `#[derive(JsonSchema)]`: a call that sends a
//! field's Rust name (`max_price_eur`) where serde reads another (`maxPriceEur`, from
//! `#[serde(rename_all = "camelCase")]` or `#[serde(rename = "..")]`) is a mistake the tool
//! reports instead of ignoring (see `schema::rust_names` in the runtime).
//!
//! The wire names follow serde's own rules for what a field is *deserialized* from: the field's
//! `rename` (or `rename(deserialize = ..)`), else the container's `rename_all` (or
//! `rename_all(deserialize = ..)`) applied to the field's name. A field serde skips, flattens or
//! also accepts under its Rust name (`alias`) is left out, and so is one whose Rust name is
//! another field's wire name.

use syn::{Attribute, Data, DeriveInput, Fields, LitStr, Token};

/// `(rust name, wire name)` of each field of `input` (a struct with named fields) whose names
/// differ. Attributes serde would reject are skipped here: serde's derive reports them.
pub(crate) fn of(input: &DeriveInput) -> Vec<(String, String)> {
    let Data::Struct(data) = &input.data else {
        return Vec::new();
    };
    let Fields::Named(fields) = &data.fields else {
        return Vec::new();
    };
    let rule = container_rule(&input.attrs);
    let mut pairs = Vec::new();
    let mut wire_names = Vec::new();
    for field in &fields.named {
        let Some(ident) = &field.ident else {
            continue;
        };
        let attrs = FieldAttrs::of(&field.attrs);
        let rust = ident.to_string();
        let rust = rust.strip_prefix("r#").unwrap_or(&rust).to_string();
        if attrs.skipped || attrs.flattened {
            continue;
        }
        let wire = attrs.rename.unwrap_or_else(|| rule.apply(&rust));
        wire_names.push(wire.clone());
        if wire != rust && !attrs.aliases.contains(&rust) {
            pairs.push((rust, wire));
        }
    }
    pairs.retain(|(rust, _)| !wire_names.contains(rust));
    pairs
}

/// What serde reads of one field's attributes.
#[derive(Default)]
struct FieldAttrs {
    rename: Option<String>,
    aliases: Vec<String>,
    skipped: bool,
    flattened: bool,
}

impl FieldAttrs {
    fn of(attrs: &[Attribute]) -> Self {
        let mut field = FieldAttrs::default();
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
            // A malformed attribute is serde's to report; what was read before it stands.
            let _ = attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    if let Some(name) = deserialize_name(&meta)? {
                        field.rename = Some(name);
                    }
                } else if meta.path.is_ident("alias") {
                    field.aliases.push(meta.value()?.parse::<LitStr>()?.value());
                } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                    field.skipped = true;
                } else if meta.path.is_ident("flatten") {
                    field.flattened = true;
                } else {
                    skip_value(&meta)?;
                }
                Ok(())
            });
        }
        field
    }
}

/// The container's `rename_all` rule for deserialization.
fn container_rule(attrs: &[Attribute]) -> Rule {
    let mut rule = Rule::None;
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename_all") {
                if let Some(name) = deserialize_name(&meta)? {
                    rule = Rule::parse(&name);
                }
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        });
    }
    rule
}

/// The name of `key = "name"` or `key(deserialize = "name")` (`None` for
/// `key(serialize = "..")` alone).
fn deserialize_name(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(Token![=]) {
        return Ok(Some(meta.value()?.parse::<LitStr>()?.value()));
    }
    let mut name = None;
    meta.parse_nested_meta(|inner| {
        let value = inner.value()?.parse::<LitStr>()?.value();
        if inner.path.is_ident("deserialize") {
            name = Some(value);
        }
        Ok(())
    })?;
    Ok(name)
}

/// Consumes the value of a key this module does not read (`default = "path"`, `with = ".."`,
/// `bound(..)`…), so that the keys after it are read.
fn skip_value(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

/// serde's `rename_all` rules, as serde applies them to a field's name.
#[derive(Clone, Copy)]
enum Rule {
    None,
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Rule {
    fn parse(name: &str) -> Self {
        match name {
            "lowercase" => Rule::Lower,
            "UPPERCASE" => Rule::Upper,
            "PascalCase" => Rule::Pascal,
            "camelCase" => Rule::Camel,
            "snake_case" => Rule::Snake,
            "SCREAMING_SNAKE_CASE" => Rule::ScreamingSnake,
            "kebab-case" => Rule::Kebab,
            "SCREAMING-KEBAB-CASE" => Rule::ScreamingKebab,
            // serde rejects any other rule itself.
            _ => Rule::None,
        }
    }

    fn apply(self, field: &str) -> String {
        match self {
            Rule::None | Rule::Lower | Rule::Snake => field.to_string(),
            Rule::Upper | Rule::ScreamingSnake => field.to_ascii_uppercase(),
            Rule::Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Rule::Camel => {
                let pascal = Rule::Pascal.apply(field);
                let mut chars = pascal.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => pascal,
                }
            }
            Rule::Kebab => field.replace('_', "-"),
            Rule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(item: &str) -> Vec<(String, String)> {
        of(&syn::parse_str(item).unwrap())
    }

    fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn the_rules_are_serdes() {
        let cases = [
            ("lowercase", "max_price_eur"),
            ("UPPERCASE", "MAX_PRICE_EUR"),
            ("PascalCase", "MaxPriceEur"),
            ("camelCase", "maxPriceEur"),
            ("snake_case", "max_price_eur"),
            ("SCREAMING_SNAKE_CASE", "MAX_PRICE_EUR"),
            ("kebab-case", "max-price-eur"),
            ("SCREAMING-KEBAB-CASE", "MAX-PRICE-EUR"),
        ];
        for (rule, wire) in cases {
            assert_eq!(Rule::parse(rule).apply("max_price_eur"), wire, "{rule}");
        }
    }

    #[test]
    fn renamed_fields_are_listed_and_the_rest_left_out() {
        assert_eq!(
            pairs(
                r#"#[serde(deny_unknown_fields, rename_all = "camelCase")]
                struct Filter {
                    query: String,
                    max_price_eur: Option<f64>,
                    #[serde(default, rename = "cur")]
                    currency: String,
                    #[serde(alias = "in_stock")]
                    in_stock: bool,
                    #[serde(skip)]
                    cache_key: u64,
                    #[serde(flatten)]
                    rest: Rest,
                    #[serde(rename(serialize = "out", deserialize = "kind"))]
                    r#type: u8,
                }"#
            ),
            owned(&[
                ("max_price_eur", "maxPriceEur"),
                ("currency", "cur"),
                ("type", "kind"),
            ])
        );
    }

    #[test]
    fn a_rust_name_that_is_another_fields_wire_name_is_left_out() {
        assert_eq!(
            pairs(
                r#"struct Swap {
                    #[serde(rename = "b")]
                    a: u8,
                    #[serde(rename = "a")]
                    b: u8,
                    #[serde(rename = "d")]
                    c: u8,
                }"#
            ),
            owned(&[("c", "d")])
        );
        assert_eq!(pairs("enum E { A { x_y: u8 } }"), Vec::new());
        assert_eq!(pairs("struct T(u8);"), Vec::new());
    }

    #[test]
    fn rename_all_for_serialization_only_renames_nothing() {
        assert_eq!(
            pairs(
                r#"#[serde(rename_all(serialize = "camelCase"))]
                struct S { max_price: u8 }"#
            ),
            Vec::new()
        );
        assert_eq!(
            pairs(
                r#"#[serde(rename_all(serialize = "camelCase", deserialize = "kebab-case"))]
                struct S { max_price: u8 }"#
            ),
            owned(&[("max_price", "max-price")])
        );
    }
}
