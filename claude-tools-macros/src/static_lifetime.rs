//! A model parameter whose type has a `'static` lifetime (`Query<'static>`).
//!
//! `Query<'_>` and `&str` are compile errors of `#[tool]` (a parameter cannot borrow), but
//! `'static` cannot be one: `Cow<'static, str>`, or a struct whose lifetime is only for `Cow`
//! fields without `#[serde(borrow)]`, deserializes from a call's arguments like any owned type.
//! A struct that borrows (a `&'a str` field) cannot: the arguments live only while the call is
//! read, and rustc says "implementation of `Deserialize` is not general enough", which does not
//! say why or what to do. Which of the two a type is shows only in its `Deserialize` impl's
//! lifetime bounds, which no trait can test, so the macro adds a warning (a deprecated item, as
//! for a missing description) at the `'static`, saying what the error means and what to do;
//! `#[allow(deprecated)]` on the fn silences it for a type that owns its data. The warning is
//! raised only for a model argument: a method of a trait local to the parameter is deprecated
//! for any type, and shadowed for extractors (`State<Config<'static>>` is fine).

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::visit::Visit;
use syn::{Lifetime, Type, TypeReference};

/// The first `'static` in `ty` that a borrowing type could carry: not in a reference (which
/// `#[tool]` rejects anyway) and not `Cow`'s own (which owns what it deserializes).
pub(crate) fn find(ty: &Type) -> Option<Span> {
    struct Finder(Option<Span>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_type_reference(&mut self, _: &'ast TypeReference) {}
        fn visit_path_segment(&mut self, segment: &'ast syn::PathSegment) {
            if segment.ident == "Cow"
                && let syn::PathArguments::AngleBracketed(args) = &segment.arguments
            {
                // Cow's lifetime is fine; its type argument is looked into.
                for arg in &args.args {
                    if let syn::GenericArgument::Type(ty) = arg {
                        self.visit_type(ty);
                    }
                }
                return;
            }
            syn::visit::visit_path_segment(self, segment);
        }
        fn visit_lifetime(&mut self, lifetime: &'ast Lifetime) {
            if lifetime.ident == "static" {
                self.0.get_or_insert(lifetime.apostrophe);
            }
        }
    }
    let mut finder = Finder(None);
    finder.visit_type(ty);
    finder.0
}

/// The warning of parameter `index` of type `ty`, at `span` (its `'static`), with the fn's
/// lint attributes `lints`.
pub(crate) fn warning(index: usize, ty: &Type, span: Span, lints: TokenStream) -> TokenStream {
    let private = quote!(::claude_tools::__private);
    let written = ty.to_token_stream().to_string();
    let written = written
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" :: ", "::")
        .replace("' ", "'");
    let note = format!(
        "`{written}` has a `'static` lifetime: if it borrows from its input (a `&'a str` field, \
         #[serde(borrow)]), it cannot be a tool parameter, and rustc says \"implementation of \
         `Deserialize` is not general enough\": a call's arguments live only while the call is \
         read, so give the type owned fields (String for &'a str, Vec<T> for &'a [T]) and no \
         lifetime parameter. If it owns its data (its lifetime is only for Cow fields), \
         #[allow(deprecated)] on the fn silences this warning"
    );
    let arguments = format_ident!("__CtStaticArgument{}", index);
    let method = quote_spanned!(span=> __ct_static_lifetime);
    let slot = quote_spanned!(span=> #private::Slot);
    quote_spanned! {span=>
        #lints
        const _: () = {
            trait #arguments {
                #[deprecated(note = #note)]
                fn __ct_static_lifetime(&self) {}
            }
            impl<T> #arguments for #private::Slot<T> {}
            #[allow(unused_imports)]
            use #private::StaticExtractor as _;
            #[allow(dead_code)]
            fn check() {
                (&&#slot::<#ty>::NEW).#method();
            }
        };
    }
}
