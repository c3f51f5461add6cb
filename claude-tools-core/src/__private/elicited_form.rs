//! Recording the forms a `#[tool]` body asks for (`elicit::<T>()`) on its definition, so that
//! building the server checks them ([`ToolDefBuilder::elicits`]).
//!
//! By autoref dispatch: a `T` that is not an [`ElicitForm`] records nothing, the `elicit` call
//! in the body already being the one error that names it.

use std::marker::PhantomData;

use crate::ask::ElicitForm;
use crate::tool::ToolDefBuilder;

/// The form type `T` of one `elicit::<T>()`: `(&&ElicitedForm::<T>::NEW).__ct_elicits(def)`.
pub struct ElicitedForm<T>(PhantomData<fn() -> T>);

impl<T> ElicitedForm<T> {
    /// The value the macro dispatches on.
    pub const NEW: Self = Self(PhantomData);
}

/// `T` is a form type: record it.
pub trait ViaElicitForm {
    /// Records the form on the tool's definition.
    fn __ct_elicits(&self, tool: &mut ToolDefBuilder);
}

impl<T: ElicitForm + 'static> ViaElicitForm for &ElicitedForm<T> {
    fn __ct_elicits(&self, tool: &mut ToolDefBuilder) {
        tool.elicits::<T>();
    }
}

/// `T` is not a form type (no `JsonSchema`, say): the `elicit` call reports it; record nothing.
pub trait ViaNotAnElicitForm {
    /// Does nothing.
    fn __ct_elicits(&self, _tool: &mut ToolDefBuilder) {}
}

impl<T> ViaNotAnElicitForm for ElicitedForm<T> {}
