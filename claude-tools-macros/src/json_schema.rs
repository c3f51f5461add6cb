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
use quote::{format_ident, quote};
use syn::{Attribute, Data, DeriveInput, Fields, GenericParam};

use crate::rust_names;

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
