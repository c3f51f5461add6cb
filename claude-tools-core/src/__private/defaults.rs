//! The JSON of a parameter's default value, for the schema's `"default"`.

use serde_json::Value;

/// A parameter's default value, the receiver of the two [`DefaultJson`] impls: the schema gets
/// `"default"` only when the value's type is `Serialize` (autoref specialisation again).
pub struct DefaultValue<'a, T>(pub &'a T);

/// The JSON of a default value, or `None` when it has none.
pub trait DefaultJson {
    fn __ct_default_json(&self) -> Option<Value>;
}

impl<T: serde::Serialize> DefaultJson for &DefaultValue<'_, T> {
    fn __ct_default_json(&self) -> Option<Value> {
        serde_json::to_value(self.0).ok()
    }
}

/// Fallback: a default whose type does not serialize is left out of the schema.
pub trait NoDefaultJson {
    fn __ct_default_json(&self) -> Option<Value>;
}

impl<T> NoDefaultJson for DefaultValue<'_, T> {
    fn __ct_default_json(&self) -> Option<Value> {
        None
    }
}
