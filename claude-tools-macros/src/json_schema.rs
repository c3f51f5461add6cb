//! `#[derive(JsonSchema)]` as re-exported by claude-tools: schemars' own derive, run on a copy of
//! the type that names schemars through `::claude_tools`, so that a crate deriving it needs no
//! schemars dependency of its own (and cannot pick a schemars major version the tools do not
//! speak).
//!
//! The copy carries the type's name, generics, fields and the attributes schemars reads (doc
//! comments, `serde`, `schemars`, `validate`, `garde`), inside a `const _` block, so that its
//! schema name and id are the ones schemars would give the type itself; the type's impl (through
//! a hidden alias, the block hiding the type's own name) forwards every method to the copy's,
//! adding to the schema the Rust names of renamed fields when a tool's input asks for them
//! ([`rust_names`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Attribute, Data, DeriveInput, Fields, GenericParam};

use crate::{feature_hints, rust_names};

/// The attributes schemars' derive reads; every other attribute stays off the copy (another
/// derive's helper attribute would not be known there).
const READ_BY_SCHEMARS: &[&str] = &["doc", "serde", "schemars", "validate", "garde"];

pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let mut copy = match syn::parse2::<DeriveInput>(input) {
        Ok(copy) => copy,
        Err(error) => return error.to_compile_error(),
    };
    if let Data::Union(union) = &copy.data {
        return syn::Error::new(
            union.union_token.span,
            "#[derive(JsonSchema)] does not support unions: describe the union's data with a \
             struct or an enum",
        )
        .to_compile_error();
    }
    keep_schemars_attributes(&mut copy.attrs);
    match &mut copy.data {
        Data::Struct(data) => keep_field_attributes(&mut data.fields),
        Data::Enum(data) => {
            for variant in &mut data.variants {
                keep_schemars_attributes(&mut variant.attrs);
                keep_field_attributes(&mut variant.fields);
            }
        }
        Data::Union(_) => {}
    }
    let feature_fields = check_feature_types(&mut copy);
    let ident = &copy.ident;
    let (impl_generics, ty_generics, where_clause) = copy.generics.split_for_impl();
    let copied = quote!(#ident #ty_generics);
    let schemars = quote!(::claude_tools::__private::schemars);
    // The Rust names of renamed fields ride along in the schema when a tool's input schema is
    // built (and only then: the runtime asks through its generator), so that a call sending
    // one is told the field's name instead of seeing it ignored.
    let renamed = rust_names::of(&copy);
    let record_rust_names = if renamed.is_empty() {
        quote!()
    } else {
        let (rust, wire): (Vec<_>, Vec<_>) = renamed.into_iter().unzip();
        quote! {
            ::claude_tools::__private::record_rust_names(
                generator,
                &mut schema,
                &[#((#rust, #wire)),*],
            );
        }
    };
    let forwarded = quote! {
        fn inline_schema() -> bool {
            <#copied as #schemars::JsonSchema>::inline_schema()
        }
        fn schema_name() -> ::std::borrow::Cow<'static, str> {
            <#copied as #schemars::JsonSchema>::schema_name()
        }
        fn schema_id() -> ::std::borrow::Cow<'static, str> {
            <#copied as #schemars::JsonSchema>::schema_id()
        }
        fn json_schema(generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
            #[allow(unused_mut)]
            let mut schema = <#copied as #schemars::JsonSchema>::json_schema(generator);
            #record_rust_names
            schema
        }
        fn _schemars_private_non_optional_json_schema(
            generator: &mut #schemars::SchemaGenerator,
        ) -> #schemars::Schema {
            <#copied as #schemars::JsonSchema>::_schemars_private_non_optional_json_schema(
                generator,
            )
        }
        fn _schemars_private_is_option() -> bool {
            <#copied as #schemars::JsonSchema>::_schemars_private_is_option()
        }
    };
    let mut bounds = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    bounds
        .predicates
        .push(syn::parse_quote!(#copied: #schemars::JsonSchema));
    // Inside the block `#ident` is the copy; the alias, declared next to the type, still
    // names the type itself (wherever it is, a fn body included).
    let alias = format_ident!("__CtJsonSchemaOf{}", ident);
    let alias_params = copy.generics.params.iter().map(|param| match param {
        GenericParam::Lifetime(param) => {
            let lifetime = &param.lifetime;
            quote!(#lifetime)
        }
        GenericParam::Type(param) => {
            let ident = &param.ident;
            quote!(#ident)
        }
        GenericParam::Const(param) => {
            let (ident, ty) = (&param.ident, &param.ty);
            quote!(const #ident: #ty)
        }
    });
    quote! {
        #[doc(hidden)]
        #[allow(dead_code, non_camel_case_types)]
        type #alias <#(#alias_params),*> = #ident #ty_generics;

        const _: () = {
            #feature_fields

            #[derive(#schemars::JsonSchema)]
            #[schemars(crate = "::claude_tools::__private::schemars")]
            #[allow(dead_code, non_camel_case_types, missing_docs, unreachable_pub, clippy::all)]
            #copy

            #[automatically_derived]
            impl #impl_generics #schemars::JsonSchema for #alias #ty_generics #bounds {
                #forwarded
            }
        };
    }
}

fn keep_schemars_attributes(attrs: &mut Vec<Attribute>) {
    attrs.retain(|attr| {
        READ_BY_SCHEMARS
            .iter()
            .any(|name| attr.path().is_ident(name))
    });
}

fn keep_field_attributes(fields: &mut Fields) {
    for field in fields.iter_mut() {
        keep_schemars_attributes(&mut field.attrs);
    }
}

/// Gives each field whose type looks like another crate's (`Uuid`, `chrono::NaiveDate`) a type
/// of its own in the copy (`#[schemars(with = "__CtFeatureField0")]`), which implements
/// `JsonSchema` through the field type's own fns (`SchemaFns`), so that schemars' derive never
/// fails on it; when the field type has no schema, the one error is at the field's type and
/// names the claude-tools feature that gives it one, instead of schemars' bare "`Uuid:
/// JsonSchema` is not satisfied". A field whose type names the struct's generics or lifetimes,
/// or whose schema or deserialization is taken elsewhere, is left alone. Returns the items.
fn check_feature_types(copy: &mut DeriveInput) -> TokenStream {
    let generic_names: Vec<String> = copy
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Type(param) => Some(param.ident.to_string()),
            GenericParam::Const(param) => Some(param.ident.to_string()),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    let fields: Vec<&mut syn::Field> = match &mut copy.data {
        Data::Struct(data) => data.fields.iter_mut().collect(),
        Data::Enum(data) => data
            .variants
            .iter_mut()
            .flat_map(|variant| variant.fields.iter_mut())
            .collect(),
        Data::Union(_) => Vec::new(),
    };
    let private = quote!(::claude_tools::__private);
    let schemars = quote!(#private::schemars);
    let mut items = TokenStream::new();
    for (index, field) in fields.into_iter().enumerate() {
        let Some((feature, inner)) = feature_hints::feature_of(&field.ty) else {
            continue;
        };
        if names_generics(&field.ty, &generic_names)
            || names_a_key(
                &field.attrs,
                &["with", "schema_with", "deserialize_with", "serialize_with"],
            )
        {
            continue;
        }
        let ty = &field.ty;
        let span = ty.span();
        let stand_in = format_ident!("__CtFeatureField{}", index);
        let fns = format_ident!("__ct_feature_field_{}", index);
        let feature = syn::Ident::new(feature, span);
        let with = stand_in.to_string();
        // Every token of the receiver spanned at the field's type: an error from an inherent
        // method points at the receiver, which would otherwise be the derive.
        let probe = quote_spanned!(span=> ::claude_tools::__private::FieldProbe);
        let hinted = quote_spanned!(span=> ::claude_tools::__private::Hinted);
        let hint = quote_spanned!(span=> ::claude_tools::__private::hint::#feature);
        items.extend(quote_spanned! {span=>
            fn #fns() -> #private::SchemaFns {
                #[allow(unused_imports)]
                use #private::ViaFieldSchema as _;
                (&&#probe::<#ty, #hinted<#hint, #inner>>::NEW).__ct_schema_fns()
            }
        });
        items.extend(quote! {
            struct #stand_in;

            impl #schemars::JsonSchema for #stand_in {
                fn inline_schema() -> bool {
                    (#fns().inline_schema)()
                }
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    (#fns().schema_name)()
                }
                fn schema_id() -> ::std::borrow::Cow<'static, str> {
                    (#fns().schema_id)()
                }
                fn json_schema(generator: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                    (#fns().json_schema)(generator)
                }
                fn _schemars_private_non_optional_json_schema(
                    generator: &mut #schemars::SchemaGenerator,
                ) -> #schemars::Schema {
                    (#fns().non_optional_json_schema)(generator)
                }
                fn _schemars_private_is_option() -> bool {
                    (#fns().is_option)()
                }
            }
        });
        field
            .attrs
            .push(syn::parse_quote!(#[schemars(with = #with)]));
    }
    items
}

/// Whether `ty` names one of `generics` or a lifetime other than `'static` (which an item
/// outside the type's impl could not name).
fn names_generics(ty: &syn::Type, generics: &[String]) -> bool {
    struct Finder<'a> {
        generics: &'a [String],
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_path(&mut self, path: &'ast syn::Path) {
            if let Some(first) = path.segments.first()
                && self.generics.contains(&first.ident.to_string())
            {
                self.found = true;
            }
            syn::visit::visit_path(self, path);
        }
        fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
            if lifetime.ident != "static" {
                self.found = true;
            }
        }
    }
    let mut finder = Finder {
        generics,
        found: false,
    };
    finder.visit_type(ty);
    finder.found
}

/// Whether a `#[serde(..)]` or `#[schemars(..)]` among `attrs` has one of `keys`.
fn names_a_key(attrs: &[Attribute], keys: &[&str]) -> bool {
    fn walk(
        meta: &syn::meta::ParseNestedMeta<'_>,
        keys: &[&str],
        found: &mut bool,
    ) -> syn::Result<()> {
        if keys.iter().any(|key| meta.path.is_ident(key)) {
            *found = true;
        }
        if meta.input.peek(syn::Token![=]) {
            meta.value()?.parse::<syn::Expr>()?;
        } else if meta.input.peek(syn::token::Paren) {
            meta.parse_nested_meta(|inner| walk(&inner, keys, found))?;
        }
        Ok(())
    }
    let mut found = false;
    for attr in attrs
        .iter()
        .filter(|attr| attr.path().is_ident("serde") || attr.path().is_ident("schemars"))
    {
        // An attribute that does not parse is its derive's to report.
        let _ = attr.parse_nested_meta(|meta| walk(&meta, keys, &mut found));
    }
    found
}
