//! Parameters are classified by trait, never by a type's name: for every parameter the macro
//! writes `(&&&&Slot::<T>::NEW).__ct_param()` (once, in a fn of its own) and method resolution
//! picks the first of these methods whose impl's bounds hold (autoref specialisation):
//!
//! 1. `&&&Slot<T>` where `T: ToolParam` — an extractor (`State<T>`, `ToolContext`, `Input<T>`…);
//! 2. `&&Slot<Option<T>>` where `T: Deserialize + JsonSchema` — an optional model argument;
//! 3. `&Slot<T>` where `T: Deserialize + JsonSchema` — a required model argument;
//! 4. errors, each with its own diagnostic in its method's bound: first inherent methods of
//!    `Slot<X>` for the known mistakes (`Vec<T>`, `Option<T>`, `HashMap<K, V>`, `BTreeMap<K, V>`
//!    of a deserializable type without a schema; `State<T>` whose `T` is not `Send + Sync`;
//!    `Arc<T>`, which should be `State<T>`), then `Slot<T>` where `T: Deserialize` (a type that
//!    forgot `JsonSchema`);
//! 5. `Slot<T>` by value — anything else; its method demands `T: ModelArgument` (`Deserialize`),
//!    so a type that is neither an extractor nor a model argument gets one diagnostic, at its
//!    type.
//!
//! The result is a [`Param<T>`](super::Param) of fn pointers that `describe` and `call` both use, so a bad
//! parameter type is reported once. Parameters written as patterns call `__ct_pattern_param`

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tool::{ArgumentError, State, ToolParam};

use super::diagnostics::{
    ArgumentSchema, ModelArgument, ModelFilled, NamedParameter, SchemaIn, SharedState,
    SharedThroughState,
};
use super::param::{Param, deserialize_argument};

/// A zero-sized stand-in for a parameter of type `T`, the receiver of the dispatch traits. `Copy`,
/// so that level 5 can take it by value.
///
/// `H` is [`NoHint`], or the claude-tools feature `#[tool]` guesses the type needs (see
/// `feature_hints`): levels 1 to 3 take any `H`, and a hinted slot's error (its levels 4 and
/// 5) names the feature.
pub struct Slot<T, H = NoHint>(pub(super) PhantomData<fn() -> (T, H)>);

impl<T, H> Clone for Slot<T, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, H> Copy for Slot<T, H> {}

impl<T> Slot<T> {
    /// The slot of `T`.
    pub const NEW: Self = Slot(PhantomData);
}

/// The `H` of a [`Slot`] whose type `#[tool]` connects to no feature.
pub enum NoHint {}

// Two known mistakes get their own diagnostic instead of level 4's "not a model argument". An
// inherent method is found at the same step as level 4 (receiver `&Slot<_>`) and wins over it,
// while levels 1 to 3 are still tried first: a `State<T>` that is an extractor, or an `Arc<T>`
// the model can send (serde's `rc` feature), never gets here.

// A container of a deserializable type without a schema: the error names the container and that
// type. When
// the bounds hold, the container is a model argument, handled by level 2 or 3 (these methods
// then delegate to them, never reached).

impl<T: DeserializeOwned> Slot<Vec<T>> {
    /// A `Vec<T>` whose `T` has no schema.
    pub fn __ct_param(&self) -> Param<Vec<T>>
    where
        T: SchemaIn<Vec<T>>,
    {
        ViaRequiredArgument::__ct_param(&&Slot::<Vec<T>>::NEW)
    }
}

impl<T: DeserializeOwned> Slot<Option<T>> {
    /// An `Option<T>` whose `T` has no schema.
    pub fn __ct_param(&self) -> Param<Option<T>>
    where
        T: SchemaIn<Option<T>>,
    {
        ViaOptionalArgument::__ct_param(&&&Slot::<Option<T>>::NEW)
    }
}

impl<K, V, S> Slot<std::collections::HashMap<K, V, S>>
where
    K: DeserializeOwned + JsonSchema + Eq + std::hash::Hash,
    V: DeserializeOwned,
    S: std::hash::BuildHasher + Default,
{
    /// A `HashMap<K, V>` whose `V` has no schema.
    pub fn __ct_param(&self) -> Param<std::collections::HashMap<K, V, S>>
    where
        V: SchemaIn<std::collections::HashMap<K, V, S>>,
    {
        ViaRequiredArgument::__ct_param(&&Slot::<std::collections::HashMap<K, V, S>>::NEW)
    }
}

impl<K, V> Slot<std::collections::BTreeMap<K, V>>
where
    K: DeserializeOwned + JsonSchema + Ord,
    V: DeserializeOwned,
{
    /// A `BTreeMap<K, V>` whose `V` has no schema.
    pub fn __ct_param(&self) -> Param<std::collections::BTreeMap<K, V>>
    where
        V: SchemaIn<std::collections::BTreeMap<K, V>>,
    {
        ViaRequiredArgument::__ct_param(&&Slot::<std::collections::BTreeMap<K, V>>::NEW)
    }
}

impl<T> Slot<State<T>> {
    /// A `State<T>` whose `T` is not `Send + Sync`.
    pub fn __ct_param(&self) -> Param<State<T>>
    where
        T: SharedState,
    {
        unreachable!("a State<T> with T: Send + Sync + 'static is handled by level 1")
    }

    /// `State(value): State<T>` whose `T` is not `Send + Sync`.
    pub fn __ct_pattern_param(&self) -> Param<State<T>>
    where
        T: SharedState,
    {
        unreachable!("a State<T> with T: Send + Sync + 'static is handled by level 1")
    }
}

impl<T: ?Sized> Slot<std::sync::Arc<T>> {
    /// An `Arc<T>` the model cannot send.
    pub fn __ct_param(&self) -> Param<std::sync::Arc<T>>
    where
        T: SharedThroughState,
    {
        unreachable!("SharedThroughState has no implementations")
    }

    /// An `Arc<T>` bound by a pattern.
    pub fn __ct_pattern_param(&self) -> Param<std::sync::Arc<T>>
    where
        T: SharedThroughState,
    {
        unreachable!("SharedThroughState has no implementations")
    }
}

/// Level 1: extractors.
#[doc(hidden)]
pub trait ViaToolParam<T> {
    fn __ct_param(&self) -> Param<T>;
    fn __ct_pattern_param(&self) -> Param<T>;
    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelFilled;
}

impl<T: ToolParam, H> ViaToolParam<T> for &&&Slot<T, H> {
    fn __ct_param(&self) -> Param<T> {
        Param {
            describe: |name, doc, tool| tool.describe_param::<T>(name, doc),
            extract: T::extract,
            describe_defaulted: |name, doc, _, tool| tool.describe_param::<T>(name, doc),
            extract_present: |name, call| Some(T::extract(name, call)),
        }
    }

    fn __ct_pattern_param(&self) -> Param<T> {
        self.__ct_param()
    }

    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelFilled,
    {
        unreachable!("ModelFilled has no implementations")
    }
}

/// Level 2: optional model arguments (absent or `null` is `None`).
#[doc(hidden)]
pub trait ViaOptionalArgument<T> {
    fn __ct_param(&self) -> Param<T>;
    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter;
    fn __ct_argument(&self) -> Param<T>;
}

impl<T: DeserializeOwned + JsonSchema, H> ViaOptionalArgument<Option<T>> for &&Slot<Option<T>, H> {
    fn __ct_param(&self) -> Param<Option<T>> {
        Param {
            describe: |name, doc, tool| {
                tool.input()
                    .variant_order_of::<T>()
                    .property::<Option<T>>(name, doc, false);
            },
            extract: |name, call| match call.take_argument(name) {
                None | Some(Value::Null) => Ok(None),
                Some(value) => deserialize_argument(name, value, call).map(Some),
            },
            describe_defaulted: |name, doc, default, tool| {
                tool.input()
                    .variant_order_of::<T>()
                    .property_with_default::<Option<T>>(name, doc, default);
            },
            // As serde's `#[serde(default)]`: absent is the default, `null` is `None`.
            extract_present: |name, call| {
                call.take_argument(name).map(|value| match value {
                    Value::Null => Ok(None),
                    value => deserialize_argument(name, value, call).map(Some),
                })
            },
        }
    }

    fn __ct_pattern_param(&self) -> Param<Option<T>>
    where
        Option<T>: NamedParameter,
    {
        self.__ct_param()
    }

    fn __ct_argument(&self) -> Param<Option<T>> {
        self.__ct_param()
    }
}

/// Level 3: required model arguments (deserializable, with a schema).
#[doc(hidden)]
pub trait ViaRequiredArgument<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema;
    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter;
    fn __ct_argument(&self) -> Param<T>
    where
        T: ArgumentSchema;
}

impl<T: DeserializeOwned + JsonSchema, H> ViaRequiredArgument<T> for &Slot<T, H> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema,
    {
        Param {
            describe: |name, doc, tool| {
                tool.input()
                    .variant_order_of::<T>()
                    .property::<T>(name, doc, true);
            },
            extract: |name, call| match call.take_argument(name) {
                Some(value) => deserialize_argument(name, value, call),
                None => Err(call.invalid_arguments(&ArgumentError::missing(name))),
            },
            describe_defaulted: |name, doc, default, tool| {
                tool.input()
                    .variant_order_of::<T>()
                    .property_with_default::<T>(name, doc, default);
            },
            extract_present: |name, call| {
                call.take_argument(name)
                    .map(|value| deserialize_argument(name, value, call))
            },
        }
    }

    fn __ct_pattern_param(&self) -> Param<T>
    where
        T: NamedParameter,
    {
        unreachable!("NamedParameter has no implementations")
    }

    fn __ct_argument(&self) -> Param<T>
    where
        T: ArgumentSchema,
    {
        self.__ct_param()
    }
}

/// Level 4: a deserializable type without a schema, which is an error: the method's bound
/// carries the diagnostic. (The containers, `State<T>` and `Arc<T>` have inherent methods at
/// this step, which win over it.)
pub trait ViaDeserializeOnly<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema;
}

impl<T: DeserializeOwned> ViaDeserializeOnly<T> for Slot<T> {
    fn __ct_param(&self) -> Param<T>
    where
        T: ArgumentSchema,
    {
        unreachable!("every DeserializeOwned + JsonSchema type is handled by level 3")
    }
}

/// Level 5, taking the slot by value so that it comes after every `&self` method of level 4:
/// everything else, which is an error: the methods' bounds carry the diagnostics.
pub trait ViaAnything<T> {
    fn __ct_param(self) -> Param<T>
    where
        T: ModelArgument;
    fn __ct_pattern_param(self) -> Param<T>
    where
        T: NamedParameter;
    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelArgument;
}

impl<T> ViaAnything<T> for Slot<T> {
    fn __ct_param(self) -> Param<T>
    where
        T: ModelArgument,
    {
        unreachable!("every DeserializeOwned type is handled by level 4")
    }

    fn __ct_pattern_param(self) -> Param<T>
    where
        T: NamedParameter,
    {
        unreachable!("NamedParameter has no implementations")
    }

    fn __ct_argument(&self) -> Param<T>
    where
        T: ModelArgument,
    {
        unreachable!("every DeserializeOwned type is handled by level 3")
    }
}

/// What keeps the warning about a `'static` lifetime in a parameter's type off extractors (see
/// `static_lifetime` in the macros): for a `ToolParam`, this method is found before the
/// deprecated one of the parameter's own trait.
pub trait StaticExtractor {
    /// Nothing: an extractor's lifetime is its own business.
    fn __ct_static_lifetime(&self) {}
}

impl<T: ToolParam, H> StaticExtractor for &Slot<T, H> {}
