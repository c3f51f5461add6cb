//! The Rust names of renamed arguments, which a call must not send.
//!
//! A parameter written `#[serde(rename = "maxPriceEur")] max_price_eur: Option<f64>` is the
//! property `maxPriceEur`; a model that sends `max_price_eur` (the name it may have seen in an
//! error, a log or its own guess) would have its value ignored and the filter silently dropped.
//! Such an argument is reported instead, in every mode (lenient or `deny_unknown_arguments`), as
//! ``unknown argument `max_price_eur`: did you mean `maxPriceEur`?``.
//!
//! `#[tool]` records its renamed parameters with
//! [`InputSchemaBuilder::rust_name`](super::InputSchemaBuilder::rust_name). A whole-input struct
//! (`Input<T>`, a run-time tool's arguments type) tells its renamed fields through its schema:
//! claude-tools' `#[derive(JsonSchema)]` adds them under [`KEY`] when the generator building a
//! tool's input asks for them (it carries the [`WantRustNames`] marker), and the builder takes
//! them out again, so no other schema carries them and no schema sent anywhere does. A type
//! deriving schemars' own `JsonSchema` tells nothing, and its Rust names are ignored like any
//! other unknown argument.

use schemars::transform::Transform;
use schemars::{Schema, SchemaGenerator};
use serde_json::{Map, Value};

/// `(rust name, property)` pairs: the Rust names a call must not send, and the property each
/// stands for.
pub(crate) type RustNames = Vec<(String, String)>;

/// Where a struct's schema carries `{"rust_name": "wire_name", ...}` while an input schema is
/// built.
const KEY: &str = "x-claude-tools-rust-names";

/// Marks a generator whose schemas should carry the Rust names of renamed fields: the one
/// [`InputSchemaBuilder`](super::InputSchemaBuilder) uses. It changes nothing itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WantRustNames;

impl Transform for WantRustNames {
    fn transform(&mut self, _schema: &mut Schema) {}
}

/// Adds `pairs` (`(rust name, wire name)`) to `schema` when `generator` builds a tool's input.
pub(crate) fn record(generator: &SchemaGenerator, schema: &mut Schema, pairs: &[(&str, &str)]) {
    let wanted = generator
        .settings()
        .transforms
        .iter()
        .any(|transform| transform.is::<WantRustNames>());
    if !wanted || pairs.is_empty() {
        return;
    }
    let names: Map<String, Value> = pairs
        .iter()
        .map(|(rust, wire)| (rust.to_string(), Value::String(wire.to_string())))
        .collect();
    if let Some(object) = schema.as_object_mut() {
        object.insert(KEY.into(), Value::Object(names));
    }
}

/// Takes the Rust names out of a struct's schema: `(rust name, wire name)` pairs.
pub(crate) fn take(object: &mut Map<String, Value>) -> RustNames {
    match object.shift_remove(KEY) {
        Some(Value::Object(names)) => names
            .into_iter()
            .filter_map(|(rust, wire)| match wire {
                Value::String(wire) => Some((rust, wire)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Drops the Rust names from a schema that carries them where they mean nothing (a struct
/// nested in a property: only the top-level arguments are checked).
pub(crate) fn strip(object: &mut Map<String, Value>) {
    object.shift_remove(KEY);
}
