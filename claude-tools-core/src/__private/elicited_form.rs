//! Recording the forms a `#[tool]`, `#[prompt]` or `#[resource]` body asks for
//! (`elicit::<T>()`) on its definition, so that adding it to a server checks them
//! ([`ToolDefBuilder::elicits`], [`Prompt::elicits`], [`Resource::elicits`]).
//!
//! By autoref dispatch: a `T` that is not an [`ElicitForm`] records nothing, the `elicit` call
//! in the body already being the one error that names it.

use std::marker::PhantomData;

use crate::ask::ElicitForm;
use crate::prompt::Prompt;
use crate::resource::Resource;
use crate::tool::ToolDefBuilder;

/// The form type `T` of one `elicit::<T>()`: `(&&ElicitedForm::<T>::NEW).__ct_elicits(&mut def)`.
pub struct ElicitedForm<T>(PhantomData<fn() -> T>);

impl<T> ElicitedForm<T> {
    /// The value the macro dispatches on.
    pub const NEW: Self = Self(PhantomData);
}

/// What records a form: a tool's definition, a prompt, a resource.
pub trait RecordsForms {
    /// Records form type `T`.
    fn record_form<T: ElicitForm + 'static>(&mut self);
}

impl RecordsForms for ToolDefBuilder {
    fn record_form<T: ElicitForm + 'static>(&mut self) {
        self.elicits::<T>();
    }
}

impl RecordsForms for Prompt {
    fn record_form<T: ElicitForm + 'static>(&mut self) {
        crate::tool::ElicitedForm::of::<T>().add_to(&mut self.elicited_forms);
    }
}

impl RecordsForms for Resource {
    fn record_form<T: ElicitForm + 'static>(&mut self) {
        crate::tool::ElicitedForm::of::<T>().add_to(&mut self.elicited_forms);
    }
}

/// `T` is a form type: record it.
pub trait ViaElicitForm {
    /// Records the form on the tool's definition, the prompt or the resource.
    fn __ct_elicits<R: RecordsForms>(&self, item: &mut R);
}

impl<T: ElicitForm + 'static> ViaElicitForm for &ElicitedForm<T> {
    fn __ct_elicits<R: RecordsForms>(&self, item: &mut R) {
        item.record_form::<T>();
    }
}

/// `T` is not a form type (no `JsonSchema`, say): the `elicit` call reports it; record nothing.
pub trait ViaNotAnElicitForm {
    /// Does nothing.
    fn __ct_elicits<R: RecordsForms>(&self, _item: &mut R) {}
}

impl<T> ViaNotAnElicitForm for ElicitedForm<T> {}
