//! The exact round trip: what a typed message keeps of its line ([`WireForm`]) so that
//! [`Message::to_value`](super::Message::to_value) gives back exactly the JSON the CLI wrote, and
//! the serde helpers the message kinds share.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value, json};

/// `null` as the default: the CLI sends `null` for some absent lists and strings.
pub(super) fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Option::unwrap_or_default)
}

pub(super) fn is_false(value: &bool) -> bool {
    !*value
}

/// A typed message that keeps the wire form of the fields its types cannot tell apart.
pub(super) trait Typed: Serialize + for<'de> Deserialize<'de> {
    fn wire(&self) -> &WireForm;
    fn wire_mut(&mut self) -> &mut WireForm;
    /// The flattened map of the fields the type does not know.
    fn unknown_fields(&mut self) -> &mut Map<String, Value>;
}

/// Implements [`Typed`] for a message kind, invoked next to the kind: `typed!(Kind { extra })`
/// names the map of its unknown fields.
macro_rules! typed {
    ($($message:ty { $unknown:ident }),*) => {$(
        impl $crate::message::wire::Typed for $message {
            fn wire(&self) -> &$crate::message::wire::WireForm {
                &self.wire
            }
            fn wire_mut(&mut self) -> &mut $crate::message::wire::WireForm {
                &mut self.wire
            }
            fn unknown_fields(
                &mut self,
            ) -> &mut ::serde_json::Map<::std::string::String, ::serde_json::Value> {
                &mut self.$unknown
            }
        }
    )*};
}

pub(super) use typed;

/// What a typed message's fields cannot say about the line it was read from: each top-level
/// field whose typed value serializes differently from what the CLI wrote (`null` or absent
/// for a `None`, `[]` for an empty list that is not written, `false` written out…), with both
/// forms. Empty for the usual lines, where the typed form is already exact.
#[derive(Clone, Default, PartialEq)]
pub(super) struct WireForm {
    fields: Vec<WireField>,
}

#[derive(Clone, PartialEq)]
struct WireField {
    key: String,
    /// What the CLI wrote (`None`: the field was absent).
    wire: Option<Value>,
    /// What the typed value serialized to when read (`None`: not written).
    typed: Option<Value>,
}

impl WireForm {
    /// The fields where `message`, serialized, differs from `wire`, the line it was read from.
    pub(super) fn between<T: Typed>(wire: &Value, message: &mut T) -> WireForm {
        let Value::Object(wire) = wire else {
            return WireForm::default();
        };
        // Unknown fields are kept as they came: only the known ones need serializing (the
        // unknown ones of a `system/init` are most of it).
        let unknown = std::mem::take(message.unknown_fields());
        let typed = serde_json::to_value(&*message);
        *message.unknown_fields() = unknown;
        let Ok(Value::Object(typed)) = typed else {
            return WireForm::default();
        };
        let unknown = message.unknown_fields();
        let changed = wire
            .iter()
            .filter(|(key, value)| !unknown.contains_key(*key) && typed.get(*key) != Some(*value))
            .map(|(key, value)| WireField {
                key: key.clone(),
                wire: Some(value.clone()),
                typed: typed.get(key).cloned(),
            });
        let added = typed
            .iter()
            .filter(|(key, _)| !wire.contains_key(*key))
            .map(|(key, value)| WireField {
                key: key.clone(),
                wire: None,
                typed: Some(value.clone()),
            });
        let mut fields: Vec<WireField> = changed.chain(added).collect();
        // By key, so that equal messages compare equal whatever order their lines had (with
        // serde_json's preserve_order, maps iterate in the order the keys were written).
        fields.sort_by(|a, b| a.key.cmp(&b.key));
        WireForm { fields }
    }

    /// `message` serialized, with the wire form put back for every field whose typed value is
    /// still what it was when read.
    pub(super) fn apply<T: Serialize>(&self, message: &T) -> Value {
        // Serializing these types cannot fail: every map key is a string.
        let mut value = serde_json::to_value(message).unwrap_or_else(|_| json!({}));
        if let Value::Object(map) = &mut value {
            for field in &self.fields {
                if map.get(&field.key) != field.typed.as_ref() {
                    continue;
                }
                match &field.wire {
                    Some(wire) => map.insert(field.key.clone(), wire.clone()),
                    None => map.shift_remove(&field.key),
                };
            }
        }
        value
    }
}

/// The keys whose wire form is kept (the values can be large).
impl std::fmt::Debug for WireForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.fields.iter().map(|field| &field.key))
            .finish()
    }
}
