//! What a `#[tool]` parameter's type may not be: a reference, a borrowing lifetime, `impl Trait`.

use proc_macro2::Span;
use syn::Type;
use syn::visit::Visit;

use crate::errors::Errors;

/// Reports references, non-`'static` lifetimes and `impl Trait` in a parameter's type.
pub(crate) fn check(ty: &Type, errors: &mut Errors) {
    struct Finder<'a> {
        errors: &'a mut Errors,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_type_reference(&mut self, reference: &'ast syn::TypeReference) {
            self.errors.push(syn::Error::new_spanned(
                reference,
                "a #[tool] parameter cannot borrow: the tool's future must own its inputs \
                 ('static); take an owned type instead (String for &str, Vec<T> for &[T])",
            ));
        }
        fn visit_lifetime(&mut self, lifetime: &'ast syn::Lifetime) {
            if lifetime.ident != "static" {
                self.errors.push(syn::Error::new(
                    lifetime.span(),
                    format!(
                        "a #[tool] parameter cannot borrow: a type with a lifetime (here `{lifetime}`) \
                         borrows from the call's input, and the tool's future must own its inputs; \
                         give the type owned fields (String for &'a str, Vec<T> for &'a [T]) and no \
                         lifetime parameter"
                    ),
                ));
            }
        }
        fn visit_type_impl_trait(&mut self, impl_trait: &'ast syn::TypeImplTrait) {
            self.errors.push(syn::Error::new_spanned(
                impl_trait,
                "a #[tool] parameter cannot be `impl Trait`: that makes the fn generic, and \
                 a tool's parameters need concrete types",
            ));
        }
    }
    Finder { errors }.visit_type(ty);
}

/// The span of the first `impl Trait` in `ty`.
pub(crate) fn find_impl_trait(ty: &Type) -> Option<Span> {
    struct Finder(Option<Span>);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_type_impl_trait(&mut self, impl_trait: &'ast syn::TypeImplTrait) {
            self.0.get_or_insert(impl_trait.impl_token.span);
        }
    }
    let mut finder = Finder(None);
    finder.visit_type(ty);
    finder.0
}
