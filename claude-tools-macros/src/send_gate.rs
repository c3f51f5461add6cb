//! The `Send` gate of an async `#[tool]`, `#[prompt]` or `#[resource]` fn's future
//! (`claude_tools::__private::send_gate`): one witness per parameter type, so that a
//! `State<T>` of a `T` that is not `Send + Sync`, already an error at the parameter, is not
//! reported again as "future cannot be sent between threads safely".

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote_spanned};

/// `(&&SendGate((w0, (w1, ()))))`, spanned at `span` (the fn's name, where rustc's `Send`
/// error then points), for parameter types `types`; `.__ct_send(future)` follows it.
pub(crate) fn gate(types: &[impl ToTokens], span: Span) -> TokenStream {
    let private = quote_spanned!(span=> ::claude_tools::__private);
    let witnesses = types
        .iter()
        .rev()
        .fold(quote_spanned!(span=> ()), |rest, ty| {
            quote_spanned! {span=>
                ((&&&#private::ShareCheck::<#ty>::NEW).__ct_shared(), #rest)
            }
        });
    quote_spanned!(span=> (&&#private::SendGate(#witnesses)))
}
