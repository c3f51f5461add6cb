//! The tool's name as a type: the marker struct `#[tool]` emits next to the fn, and its
//! `ToolRef` impl.

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::{ItemFn, LitStr};

use super::check::unraw;
use super::model::Tool;

/// The tool's name as a type: a braced struct named after the fn (type namespace only, so it
/// does not clash with the fn), with the fn's visibility, so that `Options::allow::<my_tool>()`
/// and `my_tool::QUALIFIED` are checked by the compiler.
pub(super) fn marker_type(function: &ItemFn) -> TokenStream {
    let vis = &function.vis;
    let fn_ident = &function.sig.ident;
    let doc = format!(
        "The name of the tool of fn `{}`, checked by the compiler: `Options::allow::<{}>()`, \
         `{}::QUALIFIED` (see `claude_tools::ToolRef`).",
        unraw(fn_ident),
        fn_ident,
        fn_ident,
    );
    quote_spanned! {fn_ident.span()=>
        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #fn_ident {}
    }
}

/// The `ToolRef` impl of the marker type, inside the registration's `const _` block: it reads
/// the server's name from `__CT_SERVER`, so a bad `server = ...` is still reported once.
pub(super) fn impl_for(function: &ItemFn, tool: &Tool) -> TokenStream {
    let private = quote::quote!(::claude_tools::__private);
    let fn_ident = &function.sig.ident;
    let name = LitStr::new(&tool.name, tool.name_span);
    quote_spanned! {fn_ident.span()=>
        const __CT_QUALIFIED_LEN: usize = #private::qualified_name_len(__CT_SERVER.name, #name);
        const __CT_QUALIFIED: [u8; __CT_QUALIFIED_LEN] =
            #private::qualified_name_bytes::<__CT_QUALIFIED_LEN>(__CT_SERVER.name, #name);

        impl #private::ToolRef for #fn_ident {
            const NAME: &'static str = #name;
            const SERVER: &'static str = __CT_SERVER.name;
            const QUALIFIED: &'static str = #private::qualified_name_str(&__CT_QUALIFIED);
        }
    }
}
