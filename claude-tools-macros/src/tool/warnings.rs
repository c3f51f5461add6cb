//! The warnings `#[tool]` raises about a tool that compiles: no description, a `'static`
//! parameter type. A stable proc macro cannot emit a warning itself, so each is a deprecated
//! item used where the warning belongs, carrying the fn's lint attributes (`docs::Lints`).

use proc_macro2::{Span, TokenStream};
use syn::{ItemFn, Type};

use super::model::{Binding, Tool};
use crate::docs::{self, Doc};
use crate::static_lifetime;

/// The warnings about the tool (no description, a `'static` parameter), with the fn's lint
/// attributes, so that `#[allow(deprecated)]` on the fn silences them.
pub(crate) fn expand(function: &mut ItemFn, tool: &Tool) -> TokenStream {
    let statics: Vec<(usize, &Type, Span)> = tool
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| matches!(param.binding, Binding::Named(_)))
        .filter_map(|(index, param)| {
            static_lifetime::find(&param.ty).map(|span| (index, &param.ty, span))
        })
        .collect();
    if tool.description.is_some() && statics.is_empty() {
        return TokenStream::new();
    }
    let lints = docs::take_lints(&mut function.attrs);
    let mut warnings = TokenStream::new();
    let mut count = 0;
    if tool.description.is_none() {
        warnings.extend(docs::missing_description_warning(
            &tool.name,
            &Doc::from_attrs(&function.attrs),
            function.sig.ident.span(),
            lints.for_warning(count),
        ));
        count += 1;
    }
    for (index, ty, span) in statics {
        warnings.extend(static_lifetime::warning(
            index,
            ty,
            span,
            lints.for_warning(count),
        ));
        count += 1;
    }
    warnings
}
